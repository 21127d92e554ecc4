"""One state contract (agents/state.py ``Stateful``): every part a save holds is
built with its services, then ``from_state(to_state())`` restores it so that
saving it again gives the same state. One table, one round-trip test.

Each case builds (the part after some life, a fresh part built with the same
services); the test checks the protocol, that the state is something a save
can store, and the round trip.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from fakes import HashEmbedder, make_gateway, minimal_instance

from agents.pool import MindPool
from agents.state import Stateful
from game.savecodec import encode_part, state_diff

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
DORM = ["Maria Lopez", "Klaus Mueller", "Ayesha Khan", "Wolfgang Schulz"]

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")


def chatty(purpose, messages, schema):
    """Residents talk when they meet; everything else minimal."""
    if purpose == "talk_decision":
        return {"talk": True}
    if purpose == "utterance":
        return {"utterance": "Good morning! How are you today?", "ends": len(str(messages)) > 6000}
    return minimal_instance(schema)


def _session(sim_class_name: str = "PlaySimulation"):
    from agents.persona import load_cast
    from game import sim as sim_api
    from game.build import build_parts
    from game.session import Session
    from game.town import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    personas = [p for p in cast if p.name in DORM]
    parts = build_parts(town, personas, scenario.start, scenario=scenario,
                        gateway=make_gateway(chatty, via_litellm=False), embedder=HashEmbedder(), seed=3,
                        lockstep=True, sim_class=getattr(sim_api, sim_class_name), pool=MindPool(2))
    return Session(parts, visitor_name="Alex")


def _lived(session, steps: int = 900):
    """A while in town: walking, a conversation or two, objects in use."""
    for _ in range(steps):
        session.sim.step()
        if session.sim.chats and session.sim.steps > 300:
            break
    return session


def _fresh_sim(session):
    """A new simulation on the same town, minds and pool (what a load builds)."""
    old = session.sim
    return type(old)(session.town, session.minds, old.pool, old.start, personas={p.name: p for p in session.cast},
                     seed=old.seed, lockstep=old.lockstep, settings=old.settings)


def case_simulation():
    s = _lived(_session("Simulation"))
    return [s], s.sim, _fresh_sim(s)


def case_play_simulation():
    s = _lived(_session("PlaySimulation"))
    s.sim.set_object_state("the Ville:Dorm for Oak Hill College:kitchen:stove", "burning", by="a test")
    return [s], s.sim, _fresh_sim(s)


def case_session():
    s = _lived(_session(), 200)
    s.set_speed(3)
    s.paused = True
    s.take_control("Maria Lopez")
    other = _session()
    other.sim = s.sim  # a load swaps the sim and minds in first, then the session restores its own parts
    other.minds = s.minds
    return [s, other], s, other


CASES = {
    "Simulation": case_simulation,
    "PlaySimulation": case_play_simulation,
    "Session": case_session,
}


@pytest.mark.parametrize("name", list(CASES))
def test_state_round_trip(name):
    sessions, part, fresh = CASES[name]()
    try:
        assert isinstance(part, Stateful) and isinstance(fresh, Stateful)
        state = part.to_state()
        assert isinstance(state, dict) and state
        encode_part(name, state)  # a save can store it (JSON types, datetimes, numpy arrays)
        fresh.from_state(state)
        diff = state_diff(fresh.to_state(), state)
        assert diff is None, diff
    finally:
        for s in sessions:
            s.close()
