"""The visitor: a body without a mind, perceived like anyone, walked by the player;
holding a resident still while the visitor talks with it (the chat window); the
resident's goodbye when the visitor falls silent (``part``); and the visitor's yes to
a resident's invitation, remembered on the resident's side as residents remember
theirs (``agree``), and a resident's yes to the visitor's own invitation (``accepted``).

Functions over a ``Simulation``'s public state (what they use of it: ``VisitorSim``,
``TalkSim``); the simulation and the town's commands (game/runs/commands.py) call them.
"""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import Protocol

from agents import Action, Conversation, ResidentMind, Utterance, dialogue, wording
from agents import provenance as pv
from game.sim import movement
from game.sim.bodies import Body
from game.sim.jobs import Job, JobQueue
from game.world.grid import Tile, facing


class VisitorSim(movement.MovementSim, Protocol):
    """What the visitor's functions use of the simulation, besides walking: the visitor's name."""

    visitor: str | None


def add_visitor(sim: VisitorSim, name: str, tile: Tile | None = None, doing: str = "visiting the town") -> Body:
    """Put the visitor (a new one, or under a new name) into town."""
    if name in sim.bodies and not sim.bodies[name].visitor:
        raise ValueError(f"{name!r} is a resident's name")
    if sim.visitor and sim.visitor != name:
        sim.bodies.pop(sim.visitor, None)
    at = tuple(tile) if tile else tuple(sim.town.spawns.get("visitor") or sim.places.any_walkable())
    b = Body(name=name, tile=at, visitor=True)  # type: ignore[arg-type]  # a pair of ints
    b.action = Action(doing, sim.town.address_at(*at) or sim.town.world, sim.now, 24 * 60, "🧳")
    sim.bodies[name] = b
    sim.visitor = name
    return b


def move_visitor(sim: VisitorSim, tile: Tile) -> None:
    b = sim.bodies[sim.visitor] if sim.visitor else None
    if b is None:
        raise ValueError("no visitor in town")
    tile = (int(tile[0]), int(tile[1]))
    b.facing = facing(tile[0] - b.tile[0], tile[1] - b.tile[1], b.facing)
    b.tile = tile
    if b.action:
        b.action = replace(b.action, address=sim.town.address_at(*tile) or sim.town.world)


def set_visitor_doing(sim: VisitorSim, text: str) -> None:
    b = sim.bodies[sim.visitor] if sim.visitor else None
    if b is not None and b.action:
        b.action = replace(b.action, description=text)


def remove_visitor(sim: VisitorSim) -> None:
    if sim.visitor:
        sim.bodies.pop(sim.visitor, None)
        sim.visitor = None


# ---------------------------------------------------------------------------- holding a resident


def held(sim: VisitorSim, name: str) -> bool:
    """Whether the resident is stopped by ``hold`` (talking with the visitor)."""
    b = sim.bodies.get(name)
    return b is not None and b.conversation is None and b.action is not None and bool(b.action.talking_to)


def hold(sim: VisitorSim, name: str, partner: str, doing: str | None = None) -> bool:
    """Stop the resident where it stands, talking with ``partner`` (the visitor)
    until ``release``: no walking, no decisions, no conversations with others.
    False when it cannot (not a resident, or in a conversation)."""
    b = sim.bodies.get(name)
    if b is None or b.visitor or b.conversation is not None:
        return False
    if held(sim, name):
        return True
    b.prev_action = b.action
    movement.stop(sim, b)
    b.prev_tile = b.tile  # standing still (drawing glides from prev_tile)
    b.waiting_since = None  # talking, not waiting: after the release the wait starts afresh
    other = sim.bodies.get(partner)
    if other is not None:
        b.facing = facing(other.tile[0] - b.tile[0], other.tile[1] - b.tile[1], b.facing)
    here = sim.town.address_at(*b.tile) or sim.area(b.tile)
    b.action = Action(doing or f"talking with {partner}", here, sim.now, 24 * 60, "💬", None, partner)
    return True


def release(sim: VisitorSim, name: str) -> None:
    """End a ``hold``: the resident resumes what it was doing (walking on if it was
    on its way), or asks for a new decision if that ran out meanwhile."""
    if not held(sim, name):
        return
    b = sim.bodies[name]
    prev, b.prev_action = b.prev_action, None
    b.action = prev
    b.last_decide = sim.now
    if prev is None or not b.target:
        return
    if b.arrived_at is not None and not b.walking:
        movement.arrive(sim, b, quiet=True)  # it was at its place: it carries on there
        return
    movement.go_to(sim, b, b.target)  # on its way again (its path from the path service)


# ---------------------------------------------------------------------------- leaving and agreeing


class TalkSim(VisitorSim, Protocol):
    """What ``agree`` uses besides: the minds, and their jobs."""

    @property
    def minds(self) -> dict[str, ResidentMind]: ...

    @property
    def jobs(self) -> JobQueue: ...


SILENT = "the visitor fell silent"  # why a held resident left (its goodbye's provenance)
_ACT = re.compile(r"(?:;\s*)?\bact \w+(?: \([^)]*\))?\s*$")  # a line's recorded act (dialogue.act_of's form)


def part(sim: VisitorSim, name: str, partner: str) -> str | None:
    """The held resident says goodbye to ``partner``, who has fallen silent, and goes back to
    its day (``release``). The goodbye is a line the world hears (logged as the chat's
    lines are: bubbles show it), worded as residents word theirs; None when not held."""
    if not held(sim, name):
        return None
    b = sim.bodies[name]
    back = b.prev_action.description if b.prev_action is not None else ""
    back = back if back.split() and back.split()[0].endswith("ing") else ""  # "brewing coffee", not "work"
    voice = wording.Voice(name, partner, known=True, warm=False, salt=f"{sim.seed}|{sim.steps}")
    text = wording.goodbye(voice, back, 0)
    release(sim, name)
    sim.log_event(name, "line", text, sim.area(b.tile), partner=partner,
                  source=pv.tag(pv.RULE, f"{SILENT}; act {dialogue.GOODBYE}"))
    return text


def offer_source(source: str) -> str:
    """The provenance of a resident's line to the visitor, recording it as an invitation
    (``dialogue.act_of`` reads it back): an offer stays as it was; an answer or news that
    named the resident's own event or plan was one in effect."""
    if dialogue.act_of(source)[0] in dialogue.OFFERS:
        return source
    base = _ACT.sub("", source or "").strip()
    return f"{base}; act {dialogue.INVITE}" if base else pv.tag(pv.RULE, f"said to the visitor; act {dialogue.INVITE}")


def agree(sim: TalkSim, resident: str, visitor: str, offer: str, source: str, reply: str,
          offered_at: datetime) -> bool:
    """The visitor said yes (``reply``) to ``resident``'s invitation or offer to meet (``offer``,
    said at ``offered_at``): the resident remembers the two lines as a conversation between
    residents is remembered, by its own ``end_conversation`` queued as its next job, so the
    acceptance takes their road (``converse.agreements``: an arrangement on the resident's
    side, checked and planned around as any, and the memo of the talk). A save carries the
    job (the sim's queued conversations) and the loaded game redoes it. False when the
    resident has no mind here."""
    offered, note = dialogue.act_of(offer_source(source))
    lines = [Utterance(resident, offer, False, offer_source(source), offered.name if offered else None, note),
             Utterance(visitor, reply, False, pv.tag(pv.RULE, f"{pv.PLAYER}; act {dialogue.ACCEPT}"),
                       dialogue.ACCEPT.name)]
    return _remembered(sim, resident, visitor, lines, offered_at)


def accepted(sim: TalkSim, resident: str, visitor: str, invitation: str, reply: str, source: str,
             offered_at: datetime) -> bool:
    """``agree`` the other way round: the resident said yes (``reply``, its provenance ``source``)
    to the visitor's invitation (``invitation``: "I'm having a picnic at Johnson Park tomorrow
    at noon, will you come?"). It remembers the two lines by its own ``end_conversation``: an
    arrangement to go (agreed with the visitor), checked and planned around as any. False
    when the resident has no mind here."""
    kind = pv.kind_of(source)
    why = _ACT.sub("", pv.why_of(source)).strip()
    answer = pv.tag(kind if kind in pv.KINDS else pv.MODEL, f"{why}; act {dialogue.ACCEPT}" if why
                    else f"act {dialogue.ACCEPT}")
    lines = [Utterance(visitor, invitation, False, pv.tag(pv.RULE, f"{pv.PLAYER}; act {dialogue.INVITE}"),
                       dialogue.INVITE.name),
             Utterance(resident, reply, False, answer, dialogue.ACCEPT.name)]
    return _remembered(sim, resident, visitor, lines, offered_at)


def _remembered(sim: TalkSim, resident: str, visitor: str, lines: list[Utterance], offered_at: datetime) -> bool:
    """The resident remembers an exchange with the visitor as a conversation between residents
    is remembered: its own ``end_conversation``, queued as its next job."""
    mind = sim.minds.get(resident)
    b = sim.bodies.get(resident)
    if mind is None or b is None:
        return False
    conv = Conversation((resident, visitor), sim.area(b.tile), offered_at, lines)
    sim.jobs.queue(resident, Job.end_conversation(0, conv, sim.now), mind.end_conversation, conv, sim.now)
    return True
