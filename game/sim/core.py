"""The simulation core: the clock, the bodies, the event log, the mind jobs, and
``step()`` (no pygame).

One step is 10 sim seconds. Per step, on the main thread:

1. finished mind jobs are applied to the world (in resident-name order, so
   lockstep runs are reproducible; in lockstep, each exactly
   ``settings.lockstep_think_s`` after it was sent: game/sim/jobs.py);
2. the path service searches the paths bodies asked for, within the step's
   budget (game/sim/path_service.py); bodies walk one tile along their A* paths;
   arrivals set object states (game/sim/movement.py, objects.py);
3. conversations advance (approach, then one utterance job at a time;
   conversations.py);
4. each resident's perception is gathered and, where a decision is due, a
   ``mind.decide(situation)`` job goes to the MindPool (decisions.py,
   perception.py);
5. in lockstep mode the step waits for the jobs to be applied next step (by
   default every job in flight); then the clock advances.

Minds run on worker threads and only return data (``agents.types``); nothing
here ever waits on a mind except ``lockstep`` runs. A resident whose mind is
thinking keeps doing what it was doing (``thinking(name)`` for a marker).

``Simulation`` is the public interface: the modules beside this one (movement,
perception, decisions, conversations, objects, visitor, play_as, state) are
functions over its public attributes and methods, and everything outside
``game/sim/`` uses only this class (and ``game.sim``'s ``__all__``).
"""
from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from agents import Action, Conversation, Event, Persona, Rank, ResidentMind, Situation, priority
from game.sim import conversations, decisions, movement, objects, perception, play_as, visitor
from game.sim import state as sim_state
from game.sim.bodies import Body
from game.sim.conversations import Chat
from game.sim.eventlog import EventLog
from game.sim.jobs import (
    CALL,
    DECIDE,
    END_CONVERSATION,
    GREET,
    MEMO_WAIT,
    PREPARE,
    UTTER,
    Job,
    JobQueue,
    OnResult,
    Pool,
    urgent_key,
)
from game.sim.path_service import PathService
from game.sim.places import Places
from game.sim.settings import STEP, SimSettings
from game.sim.throughput import Throughput, kind_of
from game.world.grid import Tile
from game.world.town import Town

log = logging.getLogger(__name__)


def in_log_order(events: list[dict]) -> list[dict]:
    """One step's events in the order the log keeps them: by resident (the town's own
    first), each resident's in the order they happened. Residents stepping apart
    (game/sim/clocks.py) give the same log as the town stepping as one."""
    return sorted(events, key=lambda ev: ev.get("resident") or "")


class Simulation:
    """The town in motion. Main thread only (minds run on the pool).

    ``minds``: resident name -> its mind, as the game sees one (``agents.ResidentMind``).
    ``personas``: optional, name -> Persona (for the routine fallback; taken from
    ``mind.persona`` when missing).
    """

    def __init__(
        self,
        town: Town,
        minds: Mapping[str, ResidentMind] | Iterable[ResidentMind],
        pool: Pool,
        start: datetime,
        *,
        personas: Mapping[str, Persona | None] | Iterable[Persona] | None = None,
        seed: int = 0,
        lockstep: bool = False,
        settings: SimSettings | None = None,
        spawns: Mapping[str, Tile] | None = None,
    ) -> None:
        # residents' minds by name, or a list of minds that know their name
        self.minds: dict[str, ResidentMind] = dict(minds) if isinstance(minds, Mapping) else {m.name: m for m in minds}
        self.now: datetime = start
        self.start: datetime = start
        self.steps = 0
        self.seed = seed
        self.lockstep = lockstep
        self.settings = settings or SimSettings()
        think = max(1, round(self.settings.lockstep_think_s / STEP.total_seconds())) if lockstep else 0
        self.jobs = JobQueue(pool, think)  # one job per mind: in flight, and waiting behind it
        self.jobs.rank = self.rank_of
        if lockstep:  # a conversation's next line is asked as soon as the one before is written
            self.jobs.on_back = functools.partial(conversations.ask_ahead, self)
        self.draining = False  # drain(): finishing the jobs in flight, asking nothing new
        self.ask_ahead_before: int | None = None  # out of order: the barrier the clocks run to
        self.active: frozenset[str] | None = None  # the residents stepping now (a group's step); None: all
        self.focus: set[str] = set()  # residents the player watches (on screen, followed, near): they go first
        # How fast the minds work (wall seconds per job, measured), and the pace the window's
        # clock is set to (sim minutes per real second; the session sets it each frame). 0 in
        # lockstep runs: the look-ahead then stays the fixed settings.lookahead_min, reproducible.
        self.throughput = Throughput(getattr(pool, "concurrency", 1))
        self.pace_hint = 0.0
        if personas is None:
            self.personas: dict[str, Persona | None] = {n: m.persona for n, m in self.minds.items()}
        else:
            self.personas = dict(personas) if isinstance(personas, Mapping) else {p.name: p for p in personas}
        self.places = Places(town, self.settings.vision_radius)  # static map lookups, cached
        self.paths = PathService(self)  # A* requests, searched within each step's budget

        self.events = EventLog()  # the event log: the newest events in memory, older ones on disk
        self.listeners: list[Callable[[dict], None]] = []  # called with each new event
        self.held_events: list[dict] | None = None  # a lockstep step's events, logged when it ends
        self.bodies: dict[str, Body] = {}
        self.visitor: str | None = None  # the visitor's body's name
        self.controlled: str | None = None  # the resident the player walks (``take_control``)
        self.chats: dict[int, Chat] = {}  # conversations in progress, by id
        self.next_chat = 1
        self.cooldowns: dict[str, datetime] = {}  # pair key -> no new conversation before
        self.lingering: dict[str, tuple[str, datetime]] = {}  # object -> (after-use state, until)
        self.reflections_logged: dict[str, int] = {}  # name -> id of the last reflection logged

        spawns = dict(spawns or {})
        for name in self.minds:
            tile = spawns.get(name) or town.spawns.get(name)
            if tile is None:
                tile = self.places.any_walkable()
                log.warning("no spawn for %s; starting at %s", name, tile)
            self.bodies[name] = Body(name=name, tile=(tile[0], tile[1]))  # a pair, whatever held it

    # ------------------------------------------------------------------ the parts it is built of

    @property
    def town(self) -> Town:
        return self.places.town

    @town.setter
    def town(self, town: Town) -> None:  # a loaded game's sim is built on a copy, then given the running town
        self.places.town = town

    @property
    def pool(self) -> Pool:
        return self.jobs.pool

    @pool.setter
    def pool(self, pool: Pool) -> None:
        self.jobs.pool = pool

    @property
    def residents(self) -> list[str]:
        return list(self.minds)

    # ------------------------------------------------------------------ time

    def step(self) -> None:
        """Advance one step (10 sim seconds). Never blocks on a mind unless lockstep."""
        if self.lockstep:  # the step's events go out in one order, whoever stepped first
            self.held_events = []
            try:
                self._step_phases()
            finally:
                held, self.held_events = self.held_events, None
                self.publish(in_log_order(held))
        else:
            self._step_phases()
        if self.jobs.count():
            self.throughput.started()  # the minds' pace is unknown until a job is back: timed from here
        if self.lockstep:
            if self.jobs.think_steps <= 1:
                self.pool.wait()
            else:  # only for the answers that land next step; the rest think on
                self.jobs.wait_due(self.steps + 1)
        self.now += STEP
        self.steps += 1

    def _step_phases(self) -> None:
        """One step of the residents stepping (``active``; everyone when None), at ``now``."""
        self.jobs.step = self.steps
        self._apply_results()
        self.paths.run()
        movement.walk(self)
        conversations.advance(self)
        decisions.schedule(self)

    def step_group(self, names: frozenset[str], now: datetime, steps: int) -> None:
        """One step of ``names`` alone, on their own clock (at ``now``, the ``steps``-th
        step): out-of-order runs (game/sim/clocks.py), where residents who cannot reach
        the rest of the town meanwhile run ahead of it or behind. Everyone else stays
        as they are; ``now`` and ``steps`` are put back after."""
        keep = self.now, self.steps
        self.now, self.steps, self.active = now, steps, names
        try:
            self._step_phases()
        finally:
            self.now, self.steps, self.active = keep[0], keep[1], None

    def run_until(self, end: datetime, on_step: Callable[[Simulation], None] | None = None) -> None:
        while self.now < end:
            self.step()
            if on_step is not None:
                on_step(self)

    def drain(self) -> None:
        """Wait for the jobs in flight and apply them, until nothing is left in
        flight (the end of a run, or before ``to_state()`` for an exact save)."""
        self.draining = True
        try:
            for _ in range(100):
                self.jobs.wait_sent()
                self._apply_results(due_only=False)
                self.jobs.submit_all_waiting()
                if self.jobs.idle():
                    break
        finally:
            self.draining = False

    def pump(self) -> None:
        """Apply finished jobs and submit waiting ones without advancing the clock
        (a paused game still hears the answers it asked for)."""
        self._apply_results()
        self.jobs.submit_all_waiting()

    def thinking(self, name: str) -> bool:
        """Whether the resident's mind is working on something (a marker)."""
        return self.pool.busy(name)

    def behind(self, minutes: int | None = None) -> int:
        """How many residents have waited for a decision, or for their next line of a
        conversation, longer than ``minutes``. A resident held by the player's chat or
        played by the player waits for nothing of its mind, so it is never behind."""
        limit = timedelta(minutes=self.settings.behind_min if minutes is None else minutes)
        return sum(
            1
            for b in self.bodies.values()
            if not b.visitor and not b.controlled and not self.held(b.name)
            and (since := self.awaited_since(b)) is not None and self.now - since > limit
        )

    def awaited_since(self, b: Body) -> datetime | None:
        """Since when ``b`` waits for its mind: its decision, or in a conversation its
        line asked and not yet back (a talk must not run on for hours of the clock
        while its lines are written: the clock waits for them as for a decision)."""
        if b.conversation is None:
            return b.waiting_since
        chat = self.chats.get(b.conversation)
        return chat.asked if chat is not None and chat.waiting and chat.turn == b.name else None

    def decision_lag(self) -> tuple[float, list[str]]:
        """How far the minds are behind the clock: the longest any awake resident has
        waited for its next decision or line (sim minutes), and who waits longest
        (worst first). Those held, played or asleep wait for nothing.
        Only a mind at work counts: a resident whose next question needs the clock
        (asked again after a back-off, or at the next step) must not stop it."""
        waits = []
        for b in self.bodies.values():
            since = None if b.visitor or b.controlled else self.awaited_since(b)
            if since is None:
                continue
            if self.held(b.name) or (self.jobs.free(b.name) and not self.jobs.has_waiting(b.name)):
                continue
            waits.append(((self.now - since).total_seconds() / 60.0, b.name))
        waits.sort(reverse=True)
        return (waits[0][0] if waits else 0.0), [n for _, n in waits]

    def late(self, minutes: int = 15) -> list[str]:
        """Residents more than ``minutes`` sim minutes late for their plan: waiting that
        long for a decision, or still asleep that long after their plan's sleep ended."""
        out = []
        limit = timedelta(minutes=minutes)
        for b in self.bodies.values():
            if b.visitor or b.controlled:
                continue
            if ((b.waiting_since is not None and b.conversation is None and self.now - b.waiting_since > limit)
                    or (b.asleep and b.action is not None and self.now - b.action.end > limit)):
                out.append(b.name)
        return sorted(out)

    # ------------------------------------------------------------------ jobs

    def rank_of(self, name: str, job: Job) -> Rank:
        """The pool's order (agents/threads/priority.py): the player's work first, then the
        earliest deadline, residents the player watches brought forward."""
        if job.urgent:
            return priority.urgent()
        need = job.need or job.at or self.now
        b = self.bodies.get(name)
        if job.kind == DECIDE and job.reason in ("start", "done") and b is not None and b.waiting_since is not None:
            # Needed later than asked (a resident lying in): the work due sooner goes first, e.g. the
            # next step of those already up. Never earlier than asked, so lockstep ranks are as before.
            need = max(need, b.waiting_since)
        if job.kind == END_CONVERSATION:
            need = self.now + MEMO_WAIT  # remembering can wait; nothing stands still for it
        deadline = (need - self.start).total_seconds()
        if name in self.focus:
            deadline -= self.settings.focus_lead_min * 60
        return priority.town(deadline)

    def call(self, name: str, fn: Callable[..., object], *args: object, on_result: OnResult, urgent: bool = False,
             **kwargs: object) -> None:
        """Run ``fn(*args, **kwargs)`` as the resident's next pool job (keyed by the
        name: after any job in flight, so one job per mind still holds); when it is
        back, ``on_result(value, error)`` is called on the main thread instead of
        the decision machinery. ``urgent``: the player waits for it; it goes first,
        under a key of its own beside the resident's jobs, so it must only read the
        mind (jobs.py)."""
        if kwargs:
            fn = functools.partial(fn, **kwargs)
        self.jobs.queue(urgent_key(name) if urgent else name, Job.call(on_result, urgent=urgent), fn, *args)

    def _apply_results(self, due_only: bool = True) -> None:
        for res, job in self.jobs.finished(due_only, self.active):
            self.throughput.note(kind_of(job), getattr(res, "seconds", 0.0))
            try:
                if job.kind == DECIDE:
                    decisions.on_decision(self, res.key, job, res.value, res.error)
                elif job.kind == UTTER:
                    conversations.on_utterance(self, res.key, job, res.value, res.error)
                elif job.kind == CALL and job.on_result is not None:
                    job.on_result(res.value, res.error)
                elif job.kind == END_CONVERSATION:
                    conversations.on_remembered(self, res.key, job, res.value, res.error)
                elif job.kind == GREET:
                    self.on_greeted(res.key, job, res.value, res.error)
                elif job.kind == PREPARE:
                    decisions.on_prepared(self, res.key, job, res.value, res.error)
                elif res.error is not None:  # a kind nobody applies: its failure is still news
                    self.error(res.key, f"{job.kind} job failed: {res.error}")
            except Exception as err:  # never let one bad answer stop the town
                log.exception("applying %s for %s failed", job.kind, res.key)
                self.error(res.key, f"applying {job.kind} failed: {err}")
                b = self.bodies.get(res.key)
                if b is not None and b.conversation is None and (b.action is None or self.action_done(b)):
                    decisions.fallback(self, b, f"applying the decision failed: {err}")

    def on_greeted(self, name: str, job: Job, value: object, error: BaseException | None) -> None:
        """A greeting job came back (only ``PlaySimulation`` greets; it overrides this)."""
        if error is not None:
            self.error(name, f"greeting {job.partner} failed: {error}")

    # ------------------------------------------------------------------ the event log

    def log_event(self, resident: str | None, kind: str, text: str, address: str = "", **extra: object) -> dict:
        ev: dict[str, object] = {"time": self.now.isoformat(sep=" "), "resident": resident, "kind": kind,
                                 "text": text, "address": address}
        ev.update({k: v for k, v in extra.items() if v is not None})
        if self.held_events is not None:
            self.held_events.append(ev)
        else:
            self.publish([ev])
        return ev

    def publish(self, events: Iterable[dict]) -> None:
        """Put events in the log and tell the listeners, in order."""
        for ev in events:
            self.events.append(ev)
            for fn in self.listeners:
                try:
                    fn(ev)
                except Exception:  # a listener must not stop the town
                    log.exception("event listener failed")

    def error(self, name: str, text: str) -> None:
        """Something went wrong for a resident: counted, logged as an ``error`` event."""
        log.warning("%s: %s", name, text)
        b = self.bodies.get(name)
        if b is not None:
            b.errors += 1
        self.log_event(name, "error", text, (b.target or "") if b else "")

    # ------------------------------------------------------------------ bodies and places

    def body(self, name: str) -> Body:
        return self.bodies[name]

    def area(self, tile: Tile) -> str:
        """The arena-level address of a tile (or its sector, or the world outdoors)."""
        return self.places.area(tile)

    def seen_addresses(self, tile: Tile) -> list[str]:
        """Addresses of every tile in the vision box (spatial memory grows by these)."""
        return self.places.seen_addresses(tile)

    def resolve(self, address: str | None) -> str | None:
        """The deepest known address on the way down ``address`` (invented names
        fall back to their known parent); None when nothing is known."""
        return self.places.resolve(address)

    # ------------------------------------------------------------------ perception

    def perceive(self, name: str, active: list[tuple[str, str]] | None = None) -> list[Event]:
        """Events in view of a resident, nearest first (game/sim/perception.py)."""
        return perception.perceive(self, name, active)

    def can_talk_to(self, name: str) -> list[str]:
        """Whom the resident may start a conversation with now."""
        return perception.can_talk_to(self, name)

    def situation(self, name: str) -> Situation:
        return perception.situation(self, name)

    # ------------------------------------------------------------------ actions and decisions

    def set_action(self, b: Body, action: Action, note: str = "") -> None:
        """``b`` does ``action`` from now and walks to its place (game/sim/decisions.py)."""
        decisions.set_action(self, b, action, note)

    def action_done(self, b: Body) -> bool:
        return decisions.action_done(self, b)

    def prompt_decision(self, name: str) -> None:
        """Ask ``name`` for a decision at the next step, as if it had noticed
        something, without the reaction cooldown (an inner voice, for one)."""
        body = self.bodies.get(name)
        if body is not None:
            body.new_events = True
            body.last_decide = None
            body.urgent = True  # the player is waiting to see it: first in line

    # ------------------------------------------------------------------ conversations

    def start_chat(self, name: str, partner: str, note: str = "", source: str = "") -> bool:
        """``name`` starts talking with ``partner`` (False when it cannot now)."""
        return conversations.start(self, name, partner, note, source)

    def chat(self, cid: int) -> Chat | None:
        """A conversation in progress, by id."""
        return self.chats.get(cid)

    def conversation_of(self, name: str) -> Conversation | None:
        b = self.bodies.get(name)
        if b is None or b.conversation is None:
            return None
        chat = self.chats.get(b.conversation)
        return chat.conv if chat else None

    def conversations(self) -> list[Conversation]:
        return [c.conv for c in self.chats.values()]

    # ------------------------------------------------------------------ world edits

    def set_object_state(self, address: str, state: str | None, by: str = "the player") -> str:
        """A world edit: set an object's state (game/sim/objects.py); residents in view react."""
        return objects.set_object_state(self, address, state, by)

    # ------------------------------------------------------------------ the visitor

    def add_visitor(self, name: str, tile: Tile | None = None, doing: str = "visiting the town") -> Body:
        return visitor.add_visitor(self, name, tile, doing)

    def move_visitor(self, tile: Tile) -> None:
        visitor.move_visitor(self, tile)

    def set_visitor_doing(self, text: str) -> None:
        visitor.set_visitor_doing(self, text)

    def remove_visitor(self) -> None:
        visitor.remove_visitor(self)

    def held(self, name: str) -> bool:
        """Whether the resident is stopped by ``hold`` (talking with the visitor)."""
        return visitor.held(self, name)

    def hold(self, name: str, partner: str, doing: str | None = None) -> bool:
        """Stop the resident where it stands, talking with ``partner``, until ``release``."""
        return visitor.hold(self, name, partner, doing)

    def release(self, name: str) -> None:
        """End a ``hold``: the resident resumes what it was doing."""
        visitor.release(self, name)

    # ------------------------------------------------------------------ playing as a resident

    def take_control(self, name: str) -> Body:
        """The player walks ``name`` (game/sim/play_as.py); KeyError for a non-resident."""
        return play_as.take_control(self, name)

    def move_controlled(self, tile: Tile) -> None:
        play_as.move_controlled(self, tile)

    def release_control(self) -> str | None:
        """Hand the controlled resident back to its mind: it asks for a decision now."""
        return play_as.release_control(self)

    # ------------------------------------------------------------------ state (agents.state.Stateful)

    # The state is JSON (dict[str, Any]): read back from files, its values checked by sim/state.py.
    def to_state(self, *, events: bool = True) -> dict[str, Any]:
        """Plain, JSON-safe state of the simulation's own parts (not the minds').
        ``events=False`` leaves the event log out (a save takes it with
        ``events.snapshot()``, reading older events off the main thread)."""
        return sim_state.to_state(self, events=events)

    # Any: the state is JSON, as a save holds it (sim/state.py checks what it reads)
    def from_state(self, state: dict[str, Any]) -> None:
        """Restore what ``to_state()`` wrote (the minds are restored separately).
        Jobs that were in flight are simply asked again."""
        sim_state.from_state(self, state)
