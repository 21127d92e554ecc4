"""The state contract (agents/support/stateful.py ``Stateful``) of every part a save holds, in
one table: a part in use writes ``to_state()``; a fresh one, built with its
services, ``from_state``s it in place and then writes the same state, which a
save can store. The minds' parts and the simulation's (Simulation,
PlaySimulation, Session) are rows of the same table. Also: a mind's save keeps
the flat shape old saves have."""
from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.mind.core import Mind
from agents.model.accounting import Accounting, CallRecord
from agents.model.budget import Budget
from agents.planning.today import Today
from agents.recall.memory import MemoryStream
from agents.recall.perceive import Senses
from agents.recall.spatial import SpatialMemory
from agents.support.stateful import Stateful
from agents.support.types import Conversation, Utterance
from agents.talk.converse import Social
from agents.threads.pool import MindPool
from game import sim as sim_api
from game.runs.build import build_parts
from game.runs.session import Session
from game.saves.codec import encode_part
from game.world.map_reader import load_town
from tests.fakes import HashEmbedder, make_gateway, minimal_instance
from tests.scripted_minds import event, make_mind, plausible, situation

START = datetime(2023, 2, 13, 7, 0)
REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
DORM = ["Maria Lopez", "Klaus Mueller", "Ayesha Khan", "Wolfgang Schulz"]
OPEN: list = []  # sessions a case started, closed after the test


def lived_mind(hours: int = 3) -> Mind:
    """A mind after a few busy sim hours: plans, memories, conversations, queued thoughts."""
    m, _ = make_mind(plausible)
    m.queue_thought("I should call my sister", 6)
    m.inner_voice("You are going to bake a cake")
    now, act = START, None
    while now < START + timedelta(hours=hours):
        d = m.decide(situation(now, action=act, events=[event("Maria Lopez", f"reading {now:%H}")],
                               can_talk_to=["Maria Lopez"], done=act is None or act.end <= now))
        act = d.action or act
        if d.talk_to:
            c = Conversation((m.name, d.talk_to), "the Ville:Hobbs Cafe:cafe", now)
            c.lines += [m.utter(c, now, "reading"), Utterance(d.talk_to, "See you at the party at five!", True)]
            m.end_conversation(c, now)
        now += timedelta(minutes=20)
    return m


def used_mind() -> tuple[Stateful, Callable[[], Stateful]]:
    m = lived_mind()
    return m, lambda: Mind(m.persona, m.gateway, HashEmbedder(64), m.settings)


def used_stream() -> tuple[Stateful, Callable[[], Stateful]]:
    s = MemoryStream("hash-test", 4)
    rng = np.random.default_rng(0)
    for i in range(40):
        s.add("observation" if i % 4 else "reflection", f"event {i}", START + timedelta(minutes=i), 1 + i % 10,
              rng.normal(size=4), evidence=[i - 1] if i else [], source="model")
    return s, lambda: MemoryStream("another-model", 2)


def used_spatial() -> tuple[Stateful, Callable[[], Stateful]]:
    s = SpatialMemory()
    s.add("the Ville:Hobbs Cafe:cafe:piano", with_defaults=True)
    s.add("the Ville:Johnson Park:park")
    return s, lambda: SpatialMemory("elsewhere")


def used_accounting() -> tuple[Stateful, Callable[[], Stateful]]:
    a = Accounting()
    for k in range(5):
        a.record(CallRecord(time=1.0 + k, model="scripted/x", purpose="summary", resident="Ann Lee",
                            prompt_tokens=10, completion_tokens=k, outcome="ok" if k else "fallback",
                            error=None if k else "invalid"))
    return a, Accounting


def used_budget() -> tuple[Stateful, Callable[[], Stateful]]:
    m = lived_mind(hours=1)
    m.budget.at(START + timedelta(days=1))  # yesterday's counts go to the history
    m.budget.count("respond")
    m.budget.spent_at = START + timedelta(days=1, hours=2)
    return m.budget, lambda: Budget(m.gateway)


def used_parts(name: str) -> tuple[Stateful, Callable[[], Stateful]]:
    m = lived_mind()
    fresh: dict[str, Callable[[], Stateful]] = {"today": Today, "social": Social, "senses": lambda: Senses(8)}
    return getattr(m, name), fresh[name]


# --- the simulation's parts: a few dorm residents on the real map, a fake model --------------
def chatty(purpose, messages, schema):
    """Residents talk when they meet; everything else minimal."""
    if purpose == "talk_decision":
        return {"talk": True}
    if purpose == "utterance":
        return {"utterance": "Good morning! How are you today?", "ends": len(str(messages)) > 6000}
    return minimal_instance(schema)


def _session(sim_class_name: str = "PlaySimulation") -> Session:
    from agents.residents.persona import load_cast

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    personas = [p for p in cast if p.name in DORM]
    parts = build_parts(town, personas, scenario.start, scenario=scenario,
                        gateway=make_gateway(chatty, via_litellm=False), embedder=HashEmbedder(), seed=3,
                        lockstep=True, sim_class=getattr(sim_api, sim_class_name), pool=MindPool(2))
    session = Session(parts, visitor_name="Alex")
    OPEN.append(session)
    return session


def _lived(session: Session, steps: int = 900) -> Session:
    """A while in town: walking, a conversation or two, objects in use."""
    for _ in range(steps):
        session.sim.step()
        if session.sim.chats and session.sim.steps > 300:
            break
    return session


def _fresh_sim(session: Session):
    """A new simulation on the same town, minds and pool (what a load builds)."""
    old = session.sim
    return type(old)(session.town, session.minds, old.pool, old.start, personas={p.name: p for p in session.cast},
                     seed=old.seed, lockstep=old.lockstep, settings=old.settings)


def used_simulation(kind: str) -> tuple[Stateful, Callable[[], Stateful]]:
    s = _lived(_session(kind))
    if kind == "PlaySimulation":
        s.sim.set_object_state("the Ville:Dorm for Oak Hill College:kitchen:stove", "burning", by="a test")
    return s.sim, lambda: _fresh_sim(s)


def used_session() -> tuple[Stateful, Callable[[], Stateful]]:
    s = _lived(_session(), 200)
    s.set_speed(3)
    s.paused = True
    s.take_control("Maria Lopez")

    def fresh() -> Session:
        other = _session()
        other.sim, other.minds = s.sim, s.minds  # a load swaps the sim and minds in first, then the session
        return other

    return s, fresh


def used_feed() -> tuple[Stateful, Callable[[], Stateful]]:
    from game.runs.feed import FeedBuilder

    b = FeedBuilder(["Isabella Rodriguez", "Maria Lopez"], [], ["Hobbs Cafe"])
    t, here = "2023-02-13 10:00:00", "the Ville:Hobbs Cafe:cafe"
    b.add({"time": t, "resident": "Isabella Rodriguez", "kind": "chat", "text": "", "address": here,
           "conversation": "c1", "partner": "Maria Lopez"})
    b.add({"time": t, "resident": "Isabella Rodriguez", "kind": "line", "text": "The party at Hobbs Cafe!",
           "address": here, "conversation": "c1", "partner": "Maria Lopez"})
    b.add({"time": t, "resident": "Maria Lopez", "kind": "arrive", "text": "", "address": here})
    b.add({"kind": "garbage"})
    return b, b.blank


PARTS: dict[str, Callable[[], tuple[Stateful, Callable[[], Stateful]]]] = {
    "Mind": used_mind,
    "MemoryStream": used_stream,
    "SpatialMemory": used_spatial,
    "Accounting": used_accounting,
    "Budget": used_budget,
    "Today": lambda: used_parts("today"),
    "Social": lambda: used_parts("social"),
    "Senses": lambda: used_parts("senses"),
    "Simulation": lambda: used_simulation("Simulation"),
    "PlaySimulation": lambda: used_simulation("PlaySimulation"),
    "Session": used_session,
    "FeedBuilder": used_feed,  # the town feed (game/runs/feed.py), the save's part "feed"
}


def plain(value: Any) -> Any:
    """Comparable plain data: arrays as lists, tuples as lists."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


@pytest.mark.parametrize("name", list(PARTS))
def test_state_round_trip(name):
    try:
        used, fresh = PARTS[name]()
        assert isinstance(used, Stateful)
        state = used.to_state()
        assert isinstance(state, dict) and state
        encode_part(name, state)  # a save can store it (JSON types, datetimes, numpy arrays)
        json.dumps(plain(state), default=str)
        back = fresh()
        assert isinstance(back, Stateful)
        assert back.from_state(state) is None  # restores in place
        assert plain(back.to_state()) == plain(state)
    finally:
        while OPEN:
            OPEN.pop().close()


def test_a_restored_mind_goes_on_like_the_original():
    m = lived_mind()
    back = Mind.restore(m.persona, m.gateway, HashEmbedder(64), m.to_state(), m.settings)
    assert back.inspect() == m.inspect()
    later = START + timedelta(hours=3, minutes=10)
    a = m.decide(situation(later, action=m.action, done=True))
    b = back.decide(situation(later, action=back.action, done=True))
    assert (a.action and a.action.description) == (b.action and b.action.description)
    assert plain(back.to_state()) == plain(m.to_state())


def test_a_mind_save_keeps_its_flat_shape_and_old_saves_load():
    m = lived_mind(hours=1)
    state = m.to_state()
    # The keys saves have always had, at the top level (the parts write under them).
    assert {"memory", "spatial", "plan", "plan_day", "pending", "action", "summary", "summary_day", "yesterday",
            "known_people", "last_talked", "retained", "object_states", "chats_today", "seeded", "queue", "now",
            "last_react", "calls_day", "calls", "skipped", "calls_per_day", "calls_history"} <= set(state)
    # A save from before provenance, arrangements, the budget's time, the inner voice ...
    old = {k: v for k, v in state.items() if k not in (
        "arrangements", "day_log", "unrated", "unembedded", "fallbacks", "budget_hit", "rejected", "directives",
        "rel_cache", "last_conversation", "seen_at")}
    back = Mind.restore(m.persona, m.gateway, HashEmbedder(64), old)
    assert back.plan == m.plan and back.budget.spent_at is None and back.social.rel_cache == {}
    assert len(back.memory) == len(m.memory)
