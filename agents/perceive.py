"""Perception: events in view -> observation memories (paper section 4; the
original's perceive.py). The sim already keeps only events in the same arena,
nearest first; here: own events out, attention bandwidth, retention, one
batched importance call for everything new."""
from __future__ import annotations

from functools import lru_cache
from typing import Annotated

from pydantic import BaseModel, Field, conlist

from agents.types import Event

IDLE_WORDS = ("idle", "sleeping", "asleep", "walking", "is walking", "in bed")


def is_idle(ev: Event) -> bool:
    """Idle, sleeping or walking: importance 1 without asking the model."""
    text = f"{ev.predicate} {ev.object}".lower()
    return any(w in text for w in IDLE_WORDS)


def is_object(ev: Event) -> bool:
    return ":" in ev.subject  # objects are addressed, residents are named


def rule_importance(ev: Event) -> int:
    if is_idle(ev):
        return 1
    return 2 if is_object(ev) else 3


@lru_cache(maxsize=64)
def importance_schema(n: int) -> type[BaseModel]:
    class Ratings(BaseModel):
        ratings: conlist(Annotated[int, Field(ge=1, le=10)], min_length=n, max_length=n) = Field(
            description=f"exactly {n} integers from 1 (mundane) to 10 (life-changing)")

    return Ratings


def perceive(m, events: list[Event]) -> list[Event]:
    """Store new events as observations; return the salient ones for reacting."""
    s = m.settings
    attended = [e for e in events if e.subject != m.name][: s.attention_bandwidth]
    fresh = []
    for ev in attended:
        spo = (ev.subject, ev.predicate, ev.object)
        if spo in m.retained:
            continue  # seen within the retention window: not news
        m.retained.append(spo)  # a deque of maxlen retention
        fresh.append(ev)
    if not fresh:
        return []

    # One call rates all new non-idle events; idle ones are 1 by rule.
    scores = {i: rule_importance(ev) for i, ev in enumerate(fresh)}
    to_rate = [i for i, ev in enumerate(fresh) if not is_idle(ev)]
    if to_rate and not m.sleeping(m.action.description if m.action else ""):  # asleep: rules suffice
        fallback = importance_schema(len(to_rate))(ratings=[scores[i] for i in to_rate])
        listing = "\n".join(f"{k + 1}. {fresh[i].description}" for k, i in enumerate(to_rate))
        got = m.ask(importance_schema(len(to_rate)), "importance", "importance", fallback,
                    count=len(to_rate), events=listing)
        for i, r in zip(to_rate, got.ratings):
            scores[i] = int(min(10, max(1, r)))

    vecs = m.embed([ev.description for ev in fresh])
    salient = []
    for i, ev in enumerate(fresh):
        m.memory.add("observation", ev.description, m.now, scores[i], vecs[i],
                     subject=ev.subject, predicate=ev.predicate, object=ev.object)
        if is_object(ev):
            m.object_states[ev.subject] = ev.object
        else:
            m.known_people.add(ev.subject)
        # Fresh and not idle: another resident doing something, or an object
        # whose state is new to us (retention already dropped the unchanged).
        if not is_idle(ev):
            salient.append(ev)
    return salient
