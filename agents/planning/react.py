"""Reacting (paper section 4.3.1): on salient events, "should X react to the
observation, and if so, what is an appropriate reaction". A reaction cuts into
the plan (guided mode) or has the model rewrite the rest of the day (paper
mode). An object in a state nobody's ordinary use explains ("the stove is
burning") always gets a reaction at that object, by rule if the model's is
unusable."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Protocol

from pydantic import BaseModel, Field

from agents.explain import provenance as pv
from agents.planning.arrangements import keep_arrangements
from agents.planning.items import PlanItem, cut_in, kind_of_words
from agents.planning.object_use import make_action, pick_object, unusual_state
from agents.planning.plan import Planner
from agents.planning.replan import replan_rest
from agents.planning.today import Today
from agents.recall.memory import MemoryNode
from agents.recall.perceive import Senses
from agents.support.types import Decision, Event
from agents.words import activity


class React(BaseModel):
    react: bool
    activity: str = ""
    minutes: int = Field(default=10, ge=5, le=60)


class Reactor(Planner, Protocol):
    """What reacting needs of a mind (besides planning)."""

    senses: Senses
    today: Today

    def arena_here(self, address: str | None) -> str:
        ...

    def remember(self, kind: str, text: str, importance: int, **fields: Any) -> MemoryNode | None:
        ...


def react(m: Reactor, salient: list[Event], address: str) -> Decision | None:
    """A decision to react to the salient events, or None to carry on."""
    s, now = m.settings, m.now
    # An object in a state nobody's ordinary use explains (a world edit: "the stove
    # is burning") always gets a reaction at that object, throttle or not.
    urgent = [e for e in salient if ":" in e.subject and e.subject.count(":") >= 3
              and unusual_state(e.object)]
    last: datetime | None = m.senses.last_react
    if not urgent and last and now - last < timedelta(minutes=s.react_interval_min):
        return None  # throttled: most perceptions don't deserve a second thought
    m.senses.last_react = now
    salient = urgent + [e for e in salient if e not in urgent]
    observed = "; ".join(e.description for e in salient[:3])
    mems = "\n".join(f"- {x.description}" for x in m.retrieve(observed, k=4)) or "- (nothing)"
    got, why = m.ask(React, "react", "react", React(react=False), time=f"{now:%H:%M}",
                     doing=m.doing(), observed=observed, memories=mems)
    if why is not None:
        m.note_fallback("reaction", why)
    text = activity.clean_activity(got.activity, m.name) if got.react else None
    minutes, source = got.minutes, pv.MODEL
    if urgent:
        ev = urgent[0]
        obj = ev.subject.rsplit(":", 1)[-1]
        if not text or obj.split()[-1].lower() not in text.lower():
            if got.react:
                m.rejected["react"] += 1  # junk, or not about the thing on fire: the rule acts
            why = why or "invalid"
            text, minutes = f"dealing with the {obj} ({ev.object})", 10
            source = pv.tag(pv.RULE, f"{pv.reason_of_failure(why)}: the {obj} is {ev.object}")
            m.note_fallback("reaction", why)
        where, arena = ev.subject, ":".join(ev.subject.split(":")[:3])
        m.spatial.add(ev.subject)
    else:
        arena = m.arena_here(address)
        if got.react and (not text or not activity.fits_place(text, arena)):
            m.rejected["react"] += 1  # "5 minutes", "life": continue what it was doing
            text = None
        if not text:
            return None
        where = pick_object(m.spatial, arena, text)
    first = PlanItem(now, minutes, text, arena, source, kind_of_words(text))  # the model's words
    today = m.today
    if m.guided:
        today.plan = cut_in(today.plan, first)
    else:
        today.plan = replan_rest(m, now, f"{m.persona.first_name} notices: {observed}.", first)
    # What it agreed to still comes after the reaction; only something urgent (the stove on
    # fire) makes it late for it, and it remembers why
    late = [a for a in today.arrangements if urgent and a.start < first.end
            and first.start < a.start + timedelta(minutes=a.minutes)]
    for a in late:
        m.remember("plan", f"I am late for {a.description} at {a.address.split(':')[1]} at {a.start:%H:%M} "
                   f"({a.made}): {observed}", 6, subject=m.name, predicate="late for", object=a.description,
                   source=pv.tag(pv.RULE, f"an urgent reaction: {observed}"), rate=True,
                   importance_source=pv.UNRATED)
    today.plan = keep_arrangements(today.plan, [a for a in today.arrangements if a not in late], now)
    act = make_action(m.spatial, text, where, now, minutes, source=source)
    if urgent:
        act.object_state = urgent[0].object  # it stays so while dealt with; idle once done
    today.pending = []  # the chunk after the reaction is decomposed afresh
    return Decision(action=act, note=f"reacted to: {observed}")
