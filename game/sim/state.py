"""Serialisation: the simulation's own state as plain, JSON-safe data and back
(``Simulation.to_state`` / ``from_state``; the minds are saved separately).

The shape is the save files' ``sim`` part (version 1): bodies, clock, object
states, conversations, cooldowns, the event log and the RNG. Older saves that
lack a newer field load with its default (``routing``: the path requests
waiting for the path service, in order, asked again after a load; a body's
``routing`` flag says it was one of them). Jobs that were in flight are not
saved: after a load they are simply asked again (the scheduler asks for
decisions; the next line of a conversation is asked again), except
remembering a finished conversation, which is saved and queued again.
"""
from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, Protocol

from agents import Action, ResidentMind
from game.sim.bodies import Body
from game.sim.conversations import Chat, conversation_from_dict, conversation_to_dict
from game.sim.eventlog import EventLog
from game.sim.jobs import END_CONVERSATION, Job, JobQueue, Pool
from game.sim.path_service import PathService
from game.sim.places import Places
from game.world.town import Town

log = logging.getLogger(__name__)

VERSION = 1


class StateSim(Protocol):
    """What saving and restoring use of the simulation: its own state, set back on a load."""

    bodies: dict[str, Body]
    chats: dict[int, Chat]
    cooldowns: dict[str, datetime]
    lingering: dict[str, tuple[str, datetime]]
    reflections_logged: dict[str, int]
    next_chat: int
    visitor: str | None
    controlled: str | None
    now: datetime
    start: datetime
    steps: int
    seed: int

    @property
    def town(self) -> Town: ...

    @property
    def places(self) -> Places: ...

    @property
    def minds(self) -> dict[str, ResidentMind]: ...

    @property
    def jobs(self) -> JobQueue: ...

    @property
    def pool(self) -> Pool: ...

    @property
    def paths(self) -> PathService: ...

    @property
    def events(self) -> EventLog: ...


def _iso(t: datetime | None) -> str | None:
    return t.isoformat() if t else None


def _dt(v: str | None) -> datetime | None:
    return datetime.fromisoformat(v) if v else None


def _action_to_dict(a: Action | None) -> dict | None:
    return None if a is None else a.to_dict()


def _action_from_dict(d: dict | None) -> Action | None:
    return Action.from_dict(d) if d else None


# Any: JSON, as a save holds it (each value checked as it is read back)
def body_to_dict(b: Body) -> dict[str, Any]:
    return {
        "tile": list(b.tile),
        "path": [list(t) for t in b.path],
        "routing": b.routing,
        "facing": b.facing,
        "action": _action_to_dict(b.action),
        "target": b.target,
        "arrived_at": _iso(b.arrived_at),
        "held_object": b.held_object,
        "conversation": b.conversation,
        "prev_action": _action_to_dict(b.prev_action),
        "visitor": b.visitor,
        "controlled": b.controlled,
        "seen": {k: t.isoformat() for k, t in b.seen.items()},
        "new_events": b.new_events,
        "last_decide": _iso(b.last_decide),
        "waiting_since": _iso(b.waiting_since),
        "not_before": _iso(b.not_before),
        "asked_day": b.asked_day,
        "next_action": _action_to_dict(b.next_action),
        "ahead_for": _iso(b.ahead_for),
        "urgent": b.urgent,
        "fallbacks": b.fallbacks,
        "errors": b.errors,
    }


# Any: JSON, as a save holds it (each value checked as it is read back)
def body_from_dict(name: str, d: dict[str, Any]) -> Body:
    return Body(
        name=name,
        tile=tuple(d["tile"]),  # type: ignore[arg-type]  # a pair of ints
        path=[tuple(t) for t in d.get("path", [])],  # type: ignore[misc]
        routing=bool(d.get("routing")),
        facing=d.get("facing", "down"),
        action=_action_from_dict(d.get("action")),
        target=d.get("target"),
        arrived_at=_dt(d.get("arrived_at")),
        held_object=d.get("held_object"),
        conversation=d.get("conversation"),
        prev_action=_action_from_dict(d.get("prev_action")),
        visitor=bool(d.get("visitor")),
        controlled=bool(d.get("controlled")),
        seen={k: datetime.fromisoformat(t) for k, t in d.get("seen", {}).items()},
        new_events=bool(d.get("new_events")),
        last_decide=_dt(d.get("last_decide")),
        waiting_since=_dt(d.get("waiting_since")),
        not_before=_dt(d.get("not_before")),
        asked_day=d.get("asked_day"),
        next_action=_action_from_dict(d.get("next_action")),
        ahead_for=_dt(d.get("ahead_for")),
        urgent=bool(d.get("urgent")),
        fallbacks=int(d.get("fallbacks", 0)),
        errors=int(d.get("errors", 0)),
    )


# Any: JSON, as a save holds it (each value checked as it is read back)
def chat_to_dict(c: Chat) -> dict[str, Any]:
    return {
        "id": c.id,
        "conversation": conversation_to_dict(c.conv),
        "phase": c.phase,
        "turn": c.turn,
        "steps": c.steps,
        "partner_doing": dict(c.partner_doing),
    }


# Any: JSON, as a save holds it (each value checked as it is read back)
def chat_from_dict(c: dict[str, Any]) -> Chat:
    return Chat(
        id=c["id"],
        conv=conversation_from_dict(c["conversation"]),
        phase=c.get("phase", "talk"),
        turn=c.get("turn", ""),
        steps=c.get("steps", 0),
        partner_doing=dict(c.get("partner_doing", {})),
    )


# Any: JSON, as a save holds it (each value checked as it is read back)
def to_state(sim: StateSim, events: bool = True) -> dict[str, Any]:
    """Plain, JSON-safe state of the simulation's own parts (not the minds');
    ``events=False``: without the event log (the caller takes it separately)."""
    jobs = list(sim.jobs.running().items()) + sim.jobs.waiting()
    out = {
        "version": VERSION,
        "now": sim.now.isoformat(),
        "start": sim.start.isoformat(),
        "steps": sim.steps,
        "seed": sim.seed,
        "object_states": dict(sim.town.object_states),
        "visitor": sim.visitor,
        "bodies": {n: body_to_dict(b) for n, b in sim.bodies.items()},
        "chats": [chat_to_dict(c) for c in sim.chats.values()],
        "next_chat": sim.next_chat,
        "cooldowns": {k: t.isoformat() for k, t in sim.cooldowns.items()},
        # Conversations whose remembering had not run yet: redone on load.
        "queued": [
            {"resident": n, "chat": job.chat, "conversation": conversation_to_dict(job.conversation),
             "now": job.at.isoformat()}
            for n, job in jobs
            if job.kind == END_CONVERSATION and job.conversation is not None and job.at is not None
        ],
        "reflections": dict(sim.reflections_logged),
        "controlled": sim.controlled,
        "lingering": {a: [s, t.isoformat()] for a, (s, t) in sim.lingering.items()},
        "routing": sim.paths.to_state(),  # path requests not yet searched, in order
    }
    if events:
        out["events"] = list(sim.events)
    return out


# Any: JSON, as a save holds it (each value checked as it is read back)
def from_state(sim: StateSim, state: dict[str, Any]) -> None:
    """Restore what ``to_state()`` wrote (the minds are restored separately).
    Jobs that were in flight are simply asked again."""
    cancel = getattr(sim.pool, "cancel_all", None)
    if callable(cancel):
        cancel()  # results of jobs asked before the load must not land after it

    sim.now = datetime.fromisoformat(state["now"])
    sim.start = datetime.fromisoformat(state.get("start", state["now"]))
    sim.steps = int(state.get("steps", 0))
    sim.seed = state.get("seed", sim.seed)
    # (an older save's "rng", the shared generator's state, has no use: each resident's
    # random picks come from the seed, the resident and the step: movement.pick)
    for addr, s in state.get("object_states", {}).items():
        if addr in sim.town.object_states:
            sim.town.object_states[addr] = s
    sim.bodies = {}
    for n, d in state.get("bodies", {}).items():
        if not d.get("visitor") and n not in sim.minds:
            log.warning("saved resident %s has no mind here; left out", n)
            continue
        sim.bodies[n] = body_from_dict(n, d)
    for n in sim.minds:  # residents new to this save start at their spawn
        if n not in sim.bodies:
            at = sim.town.spawns.get(n) or sim.places.any_walkable()
            sim.bodies[n] = Body(name=n, tile=(at[0], at[1]))
    sim.visitor = state.get("visitor") if state.get("visitor") in sim.bodies else None
    sim.chats = {}
    for c in state.get("chats", []):
        chat = chat_from_dict(c)
        if all(p in sim.bodies for p in chat.conv.participants):
            sim.chats[chat.id] = chat
    for b in sim.bodies.values():  # a body in a conversation that did not survive is freed
        if b.conversation is not None and b.conversation not in sim.chats:
            b.conversation = None
        if b.conversation is None and b.action is not None and b.action.talking_to:
            b.action, b.prev_action = b.prev_action, None  # a chat with the visitor does not survive a load
    sim.next_chat = int(state.get("next_chat", max(sim.chats, default=0) + 1))
    sim.cooldowns = {k: datetime.fromisoformat(t) for k, t in state.get("cooldowns", {}).items()}
    sim.jobs.clear()
    for q in state.get("queued", []):
        n = q["resident"]
        if n in sim.minds:
            c, t = conversation_from_dict(q["conversation"]), datetime.fromisoformat(q["now"])
            sim.jobs.queue(n, Job.end_conversation(q["chat"], c, t), sim.minds[n].end_conversation, c, t,
                           submit=False)
    sim.reflections_logged = {k: int(v) for k, v in state.get("reflections", {}).items()}
    sim.events.reset(state.get("events", []))
    c = state.get("controlled")
    sim.controlled = c if c in sim.bodies and sim.bodies[c].controlled else None
    for b in sim.bodies.values():
        if b.controlled and b.name != sim.controlled:
            b.controlled = False
    sim.lingering = {a: (s, datetime.fromisoformat(t)) for a, (s, t) in (state.get("lingering") or {}).items()}
    sim.paths.from_state(state.get("routing"))  # bodies that waited for their paths ask again, in order
