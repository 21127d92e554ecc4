"""Issue 47 (the house, fourth step): what typing the saves, the replay and the views
showed. A game whose residents are stand-ins (minds given, no embedding model) is
refused a load plainly, before anything changes, instead of failing inside a rebuilt
mind as "damaged"; loading needs a running town; a key that counts gives its number."""
from __future__ import annotations

from pathlib import Path

import pygame
import pytest

from game.saves.saveload import capture, load_into, prepare
from game.saves.store import SaveError, SaveWriter, load_state
from game.view import keys

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
DORM = ["Maria Lopez", "Klaus Mueller"]


def _session():
    """A Session on the real map with real Minds on a scripted model (as tests/test_savegame.py's)."""
    from fakes import HashEmbedder, make_gateway

    from agents.residents.persona import load_cast
    from game.runs.session import PlaySimulation, Session, build_parts
    from game.world.map_reader import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    personas = [p for p in cast if p.name in DORM]
    parts = build_parts(town, personas, scenario.start, scenario=scenario, gateway=make_gateway(via_litellm=False),
                        embedder=HashEmbedder(), seed=3, lockstep=True, sim_class=PlaySimulation)
    return Session(parts, visitor_name="Alex")


@pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")
def test_a_game_of_stand_in_minds_is_refused_a_load_plainly(tmp_path):
    s = _session()
    try:
        for _ in range(5):
            s.sim.step()
        parts, meta = capture(s)
        writer = SaveWriter()
        path = tmp_path / "x.sqlite"
        writer.save(path, parts, meta).result()
        writer.close()
        loaded, info = load_state(path, expect_map=s.town)
        s.embedder = None  # as a game whose minds were given (stand-ins that embed nothing)
        minds, sim = dict(s.minds), s.sim
        with pytest.raises(SaveError, match="stand-ins") as got:
            prepare(s, loaded, info)
        assert "damaged" not in str(got.value)
        assert s.minds == minds and s.sim is sim  # nothing changed
    finally:
        s.close()


class _Window:
    session = None  # a window showing no town


def test_loading_needs_a_running_town(tmp_path):
    with pytest.raises(SaveError, match="no running town"):
        load_into(_Window(), "quick", tmp_path)


def test_a_key_that_counts_gives_its_number():
    speed = keys.Pressed("speed", 3)
    assert speed.number == 3
    with pytest.raises(TypeError, match="no number"):
        _ = keys.Pressed("walk", "up").number
    walk = keys.values("walk")
    assert walk and all(isinstance(way, str) for way in walk.values())
    assert walk[pygame.K_UP] == "up"
