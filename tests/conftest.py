"""Shared test set-up: the repository root and tests/ on sys.path (so tests can
`import game`, `import agents` and `from mapkit import write_map`)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
for p in (str(REPO), str(TESTS)):
    if p not in sys.path:
        sys.path.insert(0, p)

# The 25 residents of DESIGN.md, written out here (not read from the game's
# files) so that tests check the map, art and cast against an independent list.
RESIDENTS = [
    "Isabella Rodriguez", "Maria Lopez", "Klaus Mueller", "Ayesha Khan", "Wolfgang Schulz",
    "Abigail Chen", "Rajiv Patel", "Latoya Williams", "Francisco Lopez", "Hailey Johnson",
    "Arthur Burton", "Ryan Park", "Giorgio Rossi", "Carlos Gomez", "Mei Lin", "John Lin",
    "Eddy Lin", "Tom Moreno", "Jane Moreno", "Tamara Taylor", "Carmen Ortiz", "Sam Moore",
    "Jennifer Moore", "Yuriko Yamamoto", "Adam Smith",
]


@pytest.fixture
def display():
    """A 1280x720 pygame display (SDL's dummy driver in make test), torn down
    with the caches that hold surfaces of it."""
    import pygame

    pygame.display.init()
    pygame.font.init()
    screen = pygame.display.set_mode((1280, 720))
    yield screen
    from game.view import fonts, sprites

    pygame.quit()
    fonts.reset()
    sprites.reset_caches()
