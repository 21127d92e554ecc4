"""Conversations between residents.

A mind that decides to talk to someone near starts a conversation: both stop
what they do (it is put back as ``prev_action``), the initiator walks up to a
free tile next to the partner (at most ``approach_max_steps``), then the two
take turns, one ``mind.utter`` job at a time, until a line ends it or it
reaches ``max_conversation_lines``. At the end both remember it
(``mind.end_conversation``, queued behind any job in flight) and the pair does
not talk again for ``conversation_cooldown_min``.

Functions over a ``Simulation``'s public state (``chats``, ``cooldowns``,
``bodies``, ``jobs``); the simulation calls them.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from agents import Action, Conversation, ResidentMind, Utterance
from agents import provenance as pv
from game.sim import movement, objects
from game.sim.bodies import Body
from game.sim.jobs import UTTER, Job, JobQueue, Result
from game.sim.settings import STEP
from game.world.grid import chebyshev, facing

log = logging.getLogger(__name__)


class ConversationsSim(movement.MovementSim, Protocol):
    """What conversations use of the simulation, besides walking: the conversations and
    their cooldowns, the minds and their jobs, who is held by the player."""

    next_chat: int  # the next conversation's id
    draining: bool  # the jobs in flight are being finished (``drain``): nothing new is asked
    ask_ahead_before: int | None  # out of order: the barrier the clocks run to; nothing is asked as of it

    @property
    def lockstep(self) -> bool: ...

    @property
    def chats(self) -> dict[int, Chat]: ...

    @property
    def cooldowns(self) -> dict[str, datetime]: ...  # pair key -> no new conversation before

    @property
    def minds(self) -> dict[str, ResidentMind]: ...

    @property
    def jobs(self) -> JobQueue: ...

    def held(self, name: str) -> bool: ...


@dataclass
class Chat:
    """A conversation in progress."""

    id: int
    conv: Conversation
    phase: str = "approach"  # approach | talk
    turn: str = ""  # whose line is next
    steps: int = 0
    partner_doing: dict[str, str] = field(default_factory=dict)  # speaker -> what the other was doing
    waiting: bool = False  # an utterance job is in flight
    ahead: bool = False  # the listener's reply was asked before the line in flight is heard (ask_ahead)
    asked: datetime | None = None  # when the line in flight was asked for (sim time): the clock waits for it


def pair_key(a: str, b: str) -> str:
    """The cooldown key of two residents (either order)."""
    return "|".join(sorted((a, b)))


def copy_conversation(c: Conversation) -> Conversation:
    """A copy a worker thread may read while the main thread adds lines to the original."""
    return Conversation(c.participants, c.address, c.started, list(c.lines))


# Any: JSON, as a save holds it
def conversation_to_dict(c: Conversation) -> dict[str, Any]:
    return {
        "participants": list(c.participants),
        "address": c.address,
        "started": c.started.isoformat(),
        "lines": [{"speaker": u.speaker, "text": u.text, "ends": u.ends, "source": u.source, "act": u.act,
                   "act_note": u.act_note} for u in c.lines],
    }


# Any: JSON, as a save holds it
def conversation_from_dict(d: dict[str, Any]) -> Conversation:
    return Conversation(
        participants=tuple(d["participants"]),
        address=d["address"],
        started=datetime.fromisoformat(d["started"]),
        lines=[Utterance(**u) for u in d.get("lines", [])],
    )


def in_cooldown(sim: ConversationsSim, a: str, b: str) -> bool:
    until = sim.cooldowns.get(pair_key(a, b))
    return until is not None and sim.now < until


def start_cooldown(sim: ConversationsSim, a: str, b: str) -> None:
    sim.cooldowns[pair_key(a, b)] = sim.now + timedelta(minutes=sim.settings.conversation_cooldown_min)


def free_to_talk(sim: ConversationsSim, b: Body) -> bool:
    """Awake, not in a conversation, not the player's, not hurrying to a meeting, and its mind
    has nothing to do."""
    if b.conversation is not None or b.asleep or b.visitor or b.controlled or b.hurrying or sim.held(b.name):
        return False
    return sim.jobs.current(b.name) is None and not sim.jobs.has_waiting(b.name)


def new_chat_id(sim: ConversationsSim, name: str) -> int:
    """A new conversation's id: the next number in the window; in lockstep runs, one
    made of the step and the initiator (a resident starts one conversation a step at
    most), so ids do not hang on the order the town's groups step in
    (game/sim/clocks.py)."""
    if sim.lockstep:
        names = sorted(sim.minds)
        width = 10 ** max(3, len(str(len(names))))
        cid = sim.steps * width + names.index(name) if name in sim.minds else sim.next_chat
        if cid not in sim.chats:
            sim.next_chat = max(sim.next_chat, cid + 1)
            return cid
    cid = max(sim.next_chat, max(sim.chats, default=0) + 1)
    sim.next_chat = cid + 1
    return cid


def start(sim: ConversationsSim, name: str, partner: str, note: str = "", source: str = "") -> bool:
    """``name`` starts a conversation with ``partner``; False when they cannot talk now."""
    a = sim.bodies[name]
    b = sim.bodies.get(partner)
    s = sim.settings
    if b is None or b.visitor or partner not in sim.minds or partner == name:
        log.info("%s wants to talk to %r, who is not a resident here", name, partner)
        return False
    if not free_to_talk(sim, b) or a.conversation is not None or in_cooldown(sim, name, partner):
        return False
    if sim.area(a.tile) != sim.area(b.tile) or chebyshev(a.tile, b.tile) > s.vision_radius:
        return False
    cid = new_chat_id(sim, name)
    here = sim.town.address_at(*b.tile) or sim.area(b.tile)
    conv = Conversation(participants=(name, partner), address=sim.area(b.tile), started=sim.now)
    chat = Chat(id=cid, conv=conv, turn=name)
    for me, other in ((a, b), (b, a)):
        chat.partner_doing[me.name] = other.doing
        objects.release_object(sim, me)
        me.prev_action = me.action
        me.conversation = cid
        me.waiting_since = None
        me.action = Action(f"conversing with {other.name}", here, sim.now, 30, "💬", None, other.name,
                           source if me is a else pv.tag(pv.MODEL))
        me.target = sim.area(b.tile)
    movement.stop(sim, b)
    sim.chats[cid] = chat
    # The initiator walks to a free tile next to the partner (its path from the path service).
    near = movement.adjacent_free(sim, b.tile, a)
    if near is not None and chebyshev(a.tile, b.tile) > 1:
        movement.walk_to_tile(sim, a, near)
    else:
        movement.stop(sim, a)
    sim.log_event(name, "chat", f"starts a conversation with {partner}", conv.address, conversation=cid,
                  partner=partner, note=note or None, source=source or None)
    return True


def advance(sim: ConversationsSim) -> None:
    """One step of every conversation: the approach, then asking for the next line."""
    for cid in sorted(sim.chats):
        chat = sim.chats.get(cid)
        if chat is None:
            continue
        a_name, b_name = chat.conv.participants
        if sim.active is not None and a_name not in sim.active:
            continue  # another group's (the two always step together: they stand within sight)
        a, b = sim.bodies[a_name], sim.bodies[b_name]
        if chat.phase == "approach":
            chat.steps += 1
            if chebyshev(a.tile, b.tile) <= 1 or not a.walking or chat.steps >= sim.settings.approach_max_steps:
                movement.stop(sim, a)
                chat.phase = "talk"
                a.facing = facing(b.tile[0] - a.tile[0], b.tile[1] - a.tile[1], a.facing)
                b.facing = facing(a.tile[0] - b.tile[0], a.tile[1] - b.tile[1], b.facing)
            else:
                continue
        if chat.waiting:
            continue
        speaker = chat.turn
        if not sim.jobs.free(speaker):
            continue
        mind = sim.minds[speaker]
        ok = sim.jobs.submit(speaker, Job.utter(cid), mind.utter, copy_conversation(chat.conv), sim.now,
                             chat.partner_doing.get(speaker, ""))
        if ok:
            chat.waiting, chat.asked = True, sim.now


def heard_as(name: str, value: object, error: BaseException | None) -> Utterance | None:
    """The line a resident's utterance job gives, as it is said; None when it gives none
    (a failure, an empty or odd answer: the conversation ends)."""
    if error is not None or not isinstance(value, Utterance) or not str(value.text or "").strip():
        return None
    return Utterance(speaker=name, text=str(value.text).strip(), ends=bool(value.ends),
                     source=str(value.source or ""), act=value.act, act_note=value.act_note)


def ask_ahead(sim: ConversationsSim, name: str, job: Job, res: Result) -> None:
    """A line is back before the step it is heard at (lockstep runs: ``think`` steps after it
    was asked). The listener's reply is asked now, as that step would ask it: the
    conversation with this line, at that step's time. Only when nothing can change that
    before then: the line does not end the talk, and the listener's mind is free with
    nothing queued (a resident in a conversation is asked nothing else, so its next job
    would be this reply). So the run is the same, and the model works on the reply while
    the town steps to the line (docs/stepping.md)."""
    if job.kind != UTTER or job.chat is None:
        return
    chat = sim.chats.get(job.chat)
    line = heard_as(name, res.value, res.error)
    if (chat is None or chat.turn != name or not chat.waiting or chat.ahead or line is None or line.ends
            or len(chat.conv.lines) + 1 >= sim.settings.max_conversation_lines):
        return
    listener = chat.conv.other(name)
    due = sim.jobs.due_step(name)
    if due is None or sim.draining or (sim.ask_ahead_before is not None and due >= sim.ask_ahead_before):
        return  # a barrier hears the line early (a save): the reply is asked after it, as in lockstep
    if not sim.jobs.free(listener) or sim.jobs.has_waiting(listener) or sim.held(listener):
        return
    conv = copy_conversation(chat.conv)
    conv.lines.append(line)
    then = sim.now + (due - sim.steps) * STEP
    if sim.jobs.submit_as_of(due, listener, Job.utter(chat.id), sim.minds[listener].utter, conv, then,
                             chat.partner_doing.get(listener, "")):
        chat.ahead = True


def on_utterance(sim: ConversationsSim, name: str, job: Job, value: object, error: BaseException | None) -> None:
    """A line came back: it is said (logged), then the other's turn, or the end."""
    chat = sim.chats.get(job.chat) if job.chat is not None else None
    if chat is None:
        return
    chat.waiting, chat.asked = False, None
    u = heard_as(name, value, error)
    if u is None:
        why = error if error is not None else f"an empty or odd utterance ({type(value).__name__})"
        sim.error(name, f"utterance failed: {why}; the conversation ends")
        end(sim, chat)
        return
    chat.conv.lines.append(u)
    sim.log_event(name, "line", u.text, chat.conv.address, conversation=chat.id, partner=chat.conv.other(name),
                  source=u.source or None)
    if u.ends or len(chat.conv.lines) >= sim.settings.max_conversation_lines:
        end(sim, chat)
    else:
        chat.turn = chat.conv.other(name)
        chat.waiting, chat.ahead = chat.ahead, False  # a reply asked ahead is the line in flight now
        chat.asked = sim.now if chat.waiting else None
        back = sim.jobs.back(chat.turn) if chat.waiting else None
        if back is not None and sim.jobs.on_back is not None:  # and back already: the line after it goes
            sim.jobs.on_back(chat.turn, Job.utter(chat.id), back)


def end(sim: ConversationsSim, chat: Chat) -> None:
    """The conversation is over: both go back to deciding, and remember it."""
    sim.chats.pop(chat.id, None)
    if chat.ahead:  # only the player ends a talk otherwise than by its lines; no run asks ahead with one
        log.warning("conversation %s ended with a reply asked ahead; its answer will be dropped", chat.id)
    conv = chat.conv
    a_name, b_name = conv.participants
    start_cooldown(sim, a_name, b_name)
    elapsed = max(0, int((sim.now - conv.started).total_seconds() // 60))
    for name in conv.participants:
        b = sim.bodies[name]
        b.conversation = None
        movement.stop(sim, b)
        if b.action is not None:  # over now: done, and no longer a live conversation
            b.action = replace(b.action, start=conv.started, duration_min=elapsed, talking_to=None)
        b.arrived_at = sim.now
        b.prev_action = None
        b.last_decide = sim.now
        if conv.lines:
            c = copy_conversation(conv)
            sim.jobs.queue(name, Job.end_conversation(chat.id, c, sim.now), sim.minds[name].end_conversation,
                           c, sim.now)
    sim.log_event(
        a_name, "chat", f"ends the conversation with {b_name} ({len(conv.lines)} lines)", conv.address,
        conversation=chat.id, partner=b_name, ended=True,
    )


def on_remembered(sim: ConversationsSim, name: str, job: Job, value: object, error: BaseException | None) -> None:
    """Remembering a conversation finished; only a failure is news. Then a plain
    note of who said what stands in for the mind's memo (queued as a thought,
    folded into memory at its next job), so the conversation is not forgotten."""
    if error is None:
        log_arrangement(sim, name, job, value)
        return
    sim.error(name, f"remembering the conversation failed: {error}; a plain note of it stands in")
    conv, mind = job.conversation, sim.minds.get(name)
    if conv is None or mind is None:
        return
    other = conv.other(name)
    said = "; ".join(f"{u.speaker.split()[0]}: {u.text}" for u in conv.lines[:4])
    try:
        mind.queue_thought(f"I talked with {other}" + (f" ({said})" if said else ""), 4)
    except Exception:
        log.exception("%s could not even note the conversation with %s", name, other)


def log_arrangement(sim: ConversationsSim, name: str, job: Job, value: object) -> None:
    """Each plan the conversation made (``ResidentMind.end_conversation`` returns them) goes in the
    event log as an ``arrange`` event: the town feed and the timeline show it. What came back is
    checked, item by item: a job's result is whatever the mind's code returned."""
    conv = job.conversation
    partner = conv.other(name) if conv is not None else None
    for a in value if isinstance(value, list) else [value]:
        start = getattr(a, "start", None)
        text = str(getattr(a, "description", "") or "").strip()
        if not isinstance(start, datetime) or not text:
            continue  # no plan, or a stand-in mind's own return value
        sim.log_event(name, "arrange", text, str(getattr(a, "address", "") or ""), partner=partner,
                      start=start.isoformat(sep=" "), minutes=getattr(a, "minutes", None))
