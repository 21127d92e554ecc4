"""The state contract (agents/state.py) of every stateful part of the minds, in
one table: a part in use writes ``to_state()``; a fresh one, built with its
services, ``from_state``s it in place and then writes the same state. Also: the
state is plain data, and a mind's save keeps the flat shape old saves have."""
from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pytest

from agents.accounting import Accounting, CallRecord
from agents.budget import Budget
from agents.converse import Social
from agents.memory import MemoryStream
from agents.mind import Mind
from agents.perceive import Senses
from agents.spatial import SpatialMemory
from agents.state import Stateful
from agents.today import Today
from agents.types import Conversation, Utterance
from tests.fakes import HashEmbedder
from tests.scripted_minds import event, make_mind, plausible, situation

START = datetime(2023, 2, 13, 7, 0)


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


PARTS: dict[str, Callable[[], tuple[Stateful, Callable[[], Stateful]]]] = {
    "Mind": used_mind,
    "MemoryStream": used_stream,
    "SpatialMemory": used_spatial,
    "Accounting": used_accounting,
    "Budget": used_budget,
    "Today": lambda: used_parts("today"),
    "Social": lambda: used_parts("social"),
    "Senses": lambda: used_parts("senses"),
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
    used, fresh = PARTS[name]()
    assert isinstance(used, Stateful)
    state = used.to_state()
    json.dumps(plain(state))  # plain data: JSON types (and numpy arrays)
    back = fresh()
    assert back.from_state(state) is None  # restores in place
    assert plain(back.to_state()) == plain(state)


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


def test_the_old_classmethod_form_still_builds_a_mind():
    """``Mind.from_state(persona, gateway, embedder, state)`` (deprecated) = ``Mind.restore``."""
    m, _ = make_mind(plausible)
    m.decide(situation(START))
    back = Mind.from_state(m.persona, m.gateway, HashEmbedder(64), m.to_state())
    assert isinstance(back, Mind) and back.inspect() == m.inspect()
