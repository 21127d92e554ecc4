"""A decide job as named steps (``Mind.decide``): perceiving, reflecting and planning
the day prepare; then staying in a conversation, following the inner voice, starting
a conversation, reacting and taking the next action each may decide. The steps are
tried in ``STEPS``' order and the first decision ends the job; each step takes the
mind and the job's ``Turn`` and returns a decision, or None when it is not its turn.
The notes a step leaves (``reflected: ...``) lead the decision's note."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from agents.planning import day as days
from agents.planning import inner_voice as voice
from agents.planning import plan as planning
from agents.planning import recaps
from agents.planning.react import Reactor, react
from agents.recall.perceive import Perceiver, perceive, rate_beside
from agents.recall.reflect import Reflector, reflect, should_reflect
from agents.support.types import Action, Decision, Event, Situation
from agents.talk import converse


class Decider(days.DayMind, Reactor, converse.Talker, Perceiver, Reflector, recaps.Recalling, Protocol):
    """What a decide job needs of a mind (besides what its parts need)."""

    action: Action | None
    directives: list[str]  # inner-voice thoughts the plan has not made room for yet

    @property
    def now(self) -> datetime:
        ...

    @now.setter
    def now(self, t: datetime) -> None:
        ...

    def take_directives(self) -> list[str]:
        ...


@dataclass
class Turn:
    """One decide job's working state, shared by its steps."""

    sit: Situation
    doing: str  # what the resident was doing as the job began
    talking: bool  # in a conversation as the job began
    salient: list[Event] = field(default_factory=list)  # what perception found worth attending to
    notes: list[str] = field(default_factory=list)  # what the job did on the way
    take_ratings: Callable[[], None] | None = None  # the importance ratings asked beside the decision


Step = Callable[[Decider, Turn], Decision | None]


def perceive_surroundings(m: Decider, turn: Turn) -> None:
    """Places in view join the spatial memory, events are stored as observations (the
    salient ones kept for reacting), and what a rule rated may get the model's rating:
    asked now, beside the decision, and taken after it (``settle``)."""
    sit = turn.sit
    for seen in sit.seen_addresses:
        m.spatial.add(seen)
    m.spatial.add(sit.address)
    turn.salient = perceive(m, sit.events)
    turn.take_ratings = rate_beside(m)


def remember_gatherings_over(m: Decider, turn: Turn) -> None:
    """A gathering of today's plan that is over is remembered as it went (who came)."""
    turn.notes += [f"remembered: {text}" for text in recaps.remember_how_it_went(m)]


def reflect_when_due(m: Decider, turn: Turn) -> None:
    if should_reflect(m):
        made = reflect(m)
        if made:
            turn.notes.append(f"reflected: {made[0].description}")


def plan_a_new_day(m: Decider, turn: Turn) -> None:
    """The day's plan when a day begins, around the inner voice unless in a conversation."""
    sit = turn.sit
    m.now = sit.plan_at or sit.now  # asked ahead: a day that begins by then is planned now
    if days.needs_day_plan(m):
        directives = [] if turn.talking else m.take_directives()
        days.new_day(m, directives)
        turn.notes.append("planned the day" + (" around the inner voice" if directives else ""))
    m.now = sit.now


def stay_in_the_conversation(m: Decider, turn: Turn) -> Decision | None:
    """In a conversation, nothing else is decided."""
    return Decision() if turn.talking else None


def follow_the_inner_voice(m: Decider, turn: Turn) -> Decision | None:
    """Awake and not in bed by plan: replan around the inner voice's thoughts, and act at
    once when the plan's current item is about the first one (or when there is no action)."""
    sit = turn.sit
    cur = planning.item_at(m.plan, m.now)
    if not (m.directives and not m.sleeping(turn.doing) and cur is not None and not cur.sleep):
        return None
    directives = m.take_directives()
    voice.follow_directives(m, directives, sit.address, replan=True)
    turn.notes.append("replanned for the inner voice: " + "; ".join(directives))
    cur = planning.item_at(m.plan, m.now)
    if (cur is not None and voice.mentions([cur], directives[0]) is not None) or sit.action is None:
        act = days.next_action(m)  # act on it now
        return Decision(action=act, note=f"inner voice -> {act.description}")
    return None


def start_a_conversation(m: Decider, turn: Turn) -> Decision | None:
    """Ask about the first resident nearby it may talk with (at most one a job)."""
    sit = turn.sit
    if not sit.can_talk_to or m.sleeping(turn.doing):
        return None
    their = {e.subject: e.object for e in sit.events}
    for other in sit.can_talk_to:
        if converse.may_talk(m, other, m.now, turn.doing):
            talk, source = converse.decide_to_talk(m, other, m.now, turn.doing, their.get(other, ""))
            if talk:
                return Decision(talk_to=other, note=f"decided to talk with {other}", source=source)
            m.social.last_talked[other] = m.now  # asked once; don't ask again at once
            return None  # at most one talk decision per job
    return None


def react_to_what_is_salient(m: Decider, turn: Turn) -> Decision | None:
    if not turn.salient or m.sleeping(turn.doing):
        return None
    return react(m, turn.salient, turn.sit.address)


def take_the_next_action(m: Decider, turn: Turn) -> Decision | None:
    """The plan's next action when the current one is over (or there is none)."""
    sit = turn.sit
    if not (sit.action is None or sit.action_done or sit.action.end <= m.now):
        return None
    m.now = sit.plan_at or sit.now
    act = days.next_action(m)
    decision = Decision(action=act, note=f"next: {act.description}", at=sit.plan_at)
    m.now = sit.now
    return decision


STEPS: tuple[Step, ...] = (perceive_surroundings, remember_gatherings_over, reflect_when_due, plan_a_new_day,
                           stay_in_the_conversation, follow_the_inner_voice, start_a_conversation,
                           react_to_what_is_salient, take_the_next_action)


def decide(m: Decider, sit: Situation) -> Decision:
    """The first decision of the steps in order (none: carry on), settled."""
    turn = Turn(sit, doing=m.doing(), talking=sit.action is not None and bool(sit.action.talking_to))
    for step in STEPS:
        decision = step(m, turn)
        if decision is not None:
            return settle(m, turn, decision)
    return settle(m, turn, Decision())  # nothing to decide: carry on


def settle(m: Decider, turn: Turn, decision: Decision) -> Decision:
    """The decision's time and note; its action becomes the mind's (and goes in today's log);
    then the importance ratings asked beside it are taken."""
    sit = turn.sit
    if turn.take_ratings is not None:
        turn.take_ratings()
    if sit.plan_at is not None and decision.action is not None and decision.at is None:
        decision.at = sit.now  # asked ahead, it acts at once (a reaction, the inner voice)
    if decision.action is not None:
        m.action = decision.action
        a = decision.action
        m.today.log.append(f"{m.now:%H:%M} {a.description} ({m.spatial.label(m.spatial.arena_of(a.address))})")
        del m.today.log[:-120]
    decision.note = "; ".join(turn.notes + ([decision.note] if decision.note else []))
    return decision
