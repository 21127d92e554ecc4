"""Perception: events in view -> observation memories (paper section 4; the
original's perceive.py). The sim already keeps only events in the same arena,
nearest first; here: own events out, attention bandwidth, retention, one
batched importance call for everything new."""
from __future__ import annotations

from datetime import timedelta
from functools import lru_cache
from typing import Annotated

from pydantic import BaseModel, Field, conlist

from agents import provenance as pv
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


def rate(m, texts: list[str]) -> tuple[list[int] | None, str | None]:
    """One model call rating several things at once (paper: importance 1-10);
    (None, why) when the model gave no usable answer."""
    if not texts:
        return [], None
    schema = importance_schema(len(texts))
    listing = "\n".join(f"{k + 1}. {t}" for k, t in enumerate(texts))
    got, why = m.ask(schema, "importance", "importance", None, count=len(texts), events=listing)
    if why is not None:
        m.note_fallback("importance", why)
        return None, why
    return [int(min(10, max(1, r))) for r in got.ratings], None


def perceive(m, events: list[Event]) -> list[Event]:
    """Store new events as observations; return the salient ones for reacting.
    Idle events are 1 by rule; the rest wait for the model's rating, which comes
    in batches (Mind.rate_waiting): one call for several observations."""
    s = m.settings
    attended = [e for e in events if e.subject != m.name][: s.attention_bandwidth]
    doing = m.doing()
    if m.action is not None and not m.sleeping(doing) and not m.action.talking_to:
        # The paper's memory stream holds the resident's own behaviour too ("Isabella
        # Rodriguez is brewing coffee"), stored once per action like anything perceived.
        attended.insert(0, Event(m.name, "is", doing, f"{m.name} is {doing}", m.action.address))
    fresh = []
    window = timedelta(minutes=s.retention_min)
    for ev in attended:
        spo = (ev.subject, ev.predicate, ev.object)
        key = "|".join(spo)
        last = m.seen_at.get(key)
        m.seen_at[key] = m.now
        if spo in m.retained or (last is not None and timedelta(0) <= m.now - last < window):
            continue  # among the last few events, or seen within the hour: not news
        m.retained.append(spo)  # a deque of maxlen retention (the paper's)
        fresh.append(ev)
    if len(m.seen_at) > 400:
        m.seen_at = {k: t for k, t in m.seen_at.items() if m.now - t < window}
    if not fresh:
        return []
    waiting = pv.tag(pv.RULE, "until the model rates it")
    m.remember_many([dict(kind="observation", text=ev.description, importance=rule_importance(ev),
                          importance_source=pv.tag(pv.RULE, "idle") if is_idle(ev) else waiting,
                          rate=not is_idle(ev), subject=ev.subject, predicate=ev.predicate, object=ev.object)
                     for ev in fresh])
    salient = []
    for ev in fresh:
        if ev.subject == m.name:
            continue  # one's own doing is remembered, not reacted to
        if is_object(ev):
            m.object_states[ev.subject] = ev.object
        else:
            m.known_people.add(ev.subject)
        # Fresh and not idle: another resident doing something, or an object
        # whose state is new to us (retention already dropped the unchanged).
        if not is_idle(ev):
            salient.append(ev)
    return salient
