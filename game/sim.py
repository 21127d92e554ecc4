"""The simulation: clock, bodies, perception, and the minds' decisions (no pygame).

One step is 10 sim seconds. Per step, on the main thread:

1. finished mind jobs are applied to the world (in resident-name order, so
   lockstep runs are reproducible);
2. bodies walk one tile along their A* paths; arrivals set object states;
3. conversations advance (approach, then one utterance job at a time);
4. each resident's perception is gathered and, where a decision is due, a
   ``mind.decide(situation)`` job goes to the MindPool;
5. in lockstep mode the step waits for every job in flight; then the clock
   advances.

Minds run on worker threads and only return data (``agents.types``); nothing
here ever waits on a mind except ``lockstep`` runs. A resident whose mind is
thinking keeps doing what it was doing (``thinking(name)`` for a marker).

The sim's own state is plain (``to_state()`` / ``from_state()``): bodies,
clock, object states, conversations, cooldowns, the event log and the RNG.

Objects: an action's ``object_state`` holds while its resident is at the
object; what an action leaves behind when it ends (``agents.objects.after_use``:
the fridge "running low" for 3 hours after breakfast) lingers, then goes back
to idle. ``set_object_state`` is the world edit (console, object panel): an
``edit`` event; residents in view may react at once. ``take_control`` /
``move_controlled`` / ``release_control``: the player walks a resident (no
decisions for it meanwhile; see game/session.py).
"""
from __future__ import annotations

import logging
import math
import functools
import random
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Callable, Iterable, Mapping

from agents import provenance as pv
from agents.types import Action, Conversation, Decision, Event, Situation, Utterance
from game.pathing import find_path, find_path_to_any

log = logging.getLogger(__name__)

STEP = timedelta(seconds=10)
Tile = tuple[int, int]

# Event-log kinds (the timeline and the HUD read these).
KINDS = ("action", "chat", "line", "arrive", "reflect", "error", "edit")

_SLEEP_RE = re.compile(r"\b(asleep|sleep|sleeping|slept|napping|nap)\b", re.I)
_NOT_SLEEP_RE = re.compile(r"\b(ready|prepar\w*|wak\w*|before|after|trouble|can't|cannot)\b", re.I)


def is_sleep(action: Action | None) -> bool:
    """Whether an action is sleeping (perception off, no decisions until it ends)."""
    if action is None or action.talking_to:
        return False
    d = action.description
    return bool(_SLEEP_RE.search(d)) and not _NOT_SLEEP_RE.search(d)


@dataclass
class SimSettings:
    vision_radius: int = 8  # tiles (square box), same arena only
    max_events: int = 16  # events handed to a mind per decision (it applies its own bandwidth)
    retention_min: int = 60  # an event seen again within this is not "new"
    react_cooldown_min: int = 10  # at most one reaction decision per resident per this
    react_max_in_flight: int = 8  # reactions wait while this many jobs are in flight (realtime)
    talk_radius: int = 6  # tiles: who is near enough to be offered for a conversation
    conversation_cooldown_min: int = 120  # the same pair does not talk again within this
    max_conversation_lines: int = 8
    approach_max_steps: int = 30  # the initiator stops walking to the partner after this
    min_stay_min: int = 1  # an action that ended while walking lasts this long after arrival
    behind_min: int = 10  # behind(): waiting for a decision longer than this
    error_backoff_min: int = 10  # after a failed decision, no new one for this long


@dataclass
class Body:
    """Where a resident (or the visitor) is and what it is doing."""

    name: str
    tile: Tile
    path: list[Tile] = field(default_factory=list)  # tiles still to walk (excluding the current one)
    prev_tile: Tile | None = None  # where it stood before this step's move (for smooth drawing)
    facing: str = "down"  # down | left | right | up (the character sheet's rows)
    action: Action | None = None
    target: str | None = None  # resolved address of the action's place
    arrived_at: datetime | None = None  # when it reached the action's place
    held_object: str | None = None  # object address whose state this body set
    conversation: int | None = None  # id of the conversation it is in
    prev_action: Action | None = None  # what it did before the conversation
    visitor: bool = False
    controlled: bool = False  # the player walks it (``take_control``): no decisions, no own walking
    seen: dict[str, datetime] = field(default_factory=dict)  # event key -> last seen (retention)
    new_events: bool = False  # new salient events in view since the last decision
    last_decide: datetime | None = None
    waiting_since: datetime | None = None  # needs a decision since
    not_before: datetime | None = None  # no decision before this (error back-off)
    asked_day: str | None = None  # the date of the last decision (a new day asks again)
    fallbacks: int = 0
    errors: int = 0

    @property
    def walking(self) -> bool:
        return bool(self.path)

    @property
    def asleep(self) -> bool:
        return is_sleep(self.action)

    @property
    def emoji(self) -> str:
        if self.conversation is not None:
            return "💬"
        return self.action.emoji if self.action else ""

    @property
    def doing(self) -> str:
        return self.action.description if self.action else "idle"


@dataclass
class _Chat:
    id: int
    conv: Conversation
    phase: str = "approach"  # approach | talk
    turn: str = ""  # whose line is next
    steps: int = 0
    partner_doing: dict[str, str] = field(default_factory=dict)  # speaker -> what the other was doing
    waiting: bool = False  # an utterance job is in flight


# ---------------------------------------------------------------------------- helpers


def _cheb(a: Tile, b: Tile) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _dist(a: Tile, b: Tile) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def _facing(dx: int, dy: int, default: str) -> str:
    if dx == 0 and dy == 0:
        return default
    if abs(dx) >= abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


def _action_to_dict(a: Action | None) -> dict | None:
    return None if a is None else a.to_dict()


def _action_from_dict(d: dict | None) -> Action | None:
    return Action.from_dict(d) if d else None


def _conv_to_dict(c: Conversation) -> dict:
    return {
        "participants": list(c.participants),
        "address": c.address,
        "started": c.started.isoformat(),
        "lines": [{"speaker": u.speaker, "text": u.text, "ends": u.ends, "source": u.source} for u in c.lines],
    }


def _conv_from_dict(d: dict) -> Conversation:
    return Conversation(
        participants=tuple(d["participants"]),
        address=d["address"],
        started=datetime.fromisoformat(d["started"]),
        lines=[Utterance(**u) for u in d.get("lines", [])],
    )


def _copy_conv(c: Conversation) -> Conversation:
    return Conversation(c.participants, c.address, c.started, list(c.lines))


def _pair(a: str, b: str) -> str:
    return "|".join(sorted((a, b)))


# ---------------------------------------------------------------------------- routine


def routine_action(persona: Any, now: datetime, town: Any, why: str = "no decision yet") -> Action:
    """A plausible action from a persona's routine, without any model: the
    fallback when a mind fails, so no resident ever freezes. Its provenance
    says it is the routine's, and why."""
    return replace(_routine_action(persona, now, town), source=pv.tag(pv.ROUTINE, why))


def _routine_action(persona: Any, now: datetime, town: Any) -> Action:
    home = getattr(persona, "home", None) or ""
    work = getattr(persona, "workplace", None) or home
    wake = int(getattr(persona, "wake_hour", 7) or 7)
    h = now.hour + now.minute / 60.0

    def obj(arena: str, *names: str) -> str:
        parts = arena.split(":")
        objs = []
        if len(parts) == 3:
            objs = town.tree.get(parts[1], {}).get(parts[2], [])
        for n in names:
            if n in objs:
                return f"{arena}:{n}"
        return arena

    def until(hour: float) -> int:
        m = int(round((hour - h) * 60))
        return m if m > 0 else m + 24 * 60

    if h >= 23 or h < wake:
        return Action("sleeping", obj(home, "bed"), now, max(10, until(wake)), "😴", "occupied")
    if h < wake + 1:
        return Action("getting ready for the day", home, now, max(10, min(60, until(wake + 1))), "🪥")
    if 12 <= h < 13:
        return Action("having lunch", obj(home, "dining table", "kitchen sink"), now, max(10, until(13)), "🍽️")
    if 9 <= h < 17 and work:
        return Action("working", obj(work, "desk", "cafe counter", "bar counter"), now, max(10, min(60, until(17))), "💼")
    if 18 <= h < 19:
        return Action("having dinner", obj(home, "dining table"), now, max(10, until(19)), "🍽️")
    return Action("relaxing at home", home, now, max(10, min(60, until(23))), "🏠")


# ---------------------------------------------------------------------------- the simulation


class Simulation:
    """The town in motion. Main thread only (minds run on the pool).

    ``minds``: resident name -> a Mind (``decide``, ``utter``, ``end_conversation``).
    ``personas``: optional, name -> Persona (for the routine fallback; taken from
    ``mind.persona`` when missing).
    """

    def __init__(
        self,
        town: Any,
        minds: Mapping[str, Any] | Iterable[Any],
        pool: Any,
        start: datetime,
        *,
        personas: Mapping[str, Any] | Iterable[Any] | None = None,
        seed: int = 0,
        lockstep: bool = False,
        settings: SimSettings | None = None,
        spawns: Mapping[str, Tile] | None = None,
    ) -> None:
        self.town = town
        if not isinstance(minds, Mapping):
            minds = {m.name: m for m in minds}
        self.minds: dict[str, Any] = dict(minds)
        self.pool = pool
        self.now: datetime = start
        self.start: datetime = start
        self.steps = 0
        self.seed = seed
        self.rng = random.Random(seed)
        self.lockstep = lockstep
        self.settings = settings or SimSettings()
        if personas is None:
            personas = {n: getattr(m, "persona", None) for n, m in self.minds.items()}
        elif not isinstance(personas, Mapping):
            personas = {p.name: p for p in personas}
        self.personas: dict[str, Any] = dict(personas)

        self.events: list[dict] = []  # the event log
        self.listeners: list[Callable[[dict], None]] = []  # called with each new event
        self.bodies: dict[str, Body] = {}
        self.visitor: str | None = None
        self.chats: dict[int, _Chat] = {}
        self._next_chat = 1
        self.cooldowns: dict[str, datetime] = {}  # pair key -> no new conversation before
        self._jobs: dict[str, tuple] = {}  # name -> (kind, extra) for the job in flight
        self._queued: dict[str, list[tuple]] = {}  # name -> jobs waiting for the key to be free
        self._reflections: dict[str, int] = {}  # name -> reflections already logged
        self.controlled: str | None = None  # the resident the player walks (``take_control``)
        self.lingering: dict[str, tuple[str, datetime]] = {}  # object -> (after-use state, until)

        # Static map caches.
        self._known = set(town.addresses())
        self._area_cache: dict[Tile, str] = {}
        self._seen_cache: dict[Tile, list[str]] = {}
        self._object_tiles: dict[str, list[Tile]] = {}

        spawns = dict(spawns or {})
        for name in self.minds:
            tile = spawns.get(name) or town.spawns.get(name)
            if tile is None:
                tile = self._any_walkable()
                log.warning("no spawn for %s; starting at %s", name, tile)
            self.bodies[name] = Body(name=name, tile=tuple(tile))

    # ------------------------------------------------------------------ public API

    @property
    def residents(self) -> list[str]:
        return list(self.minds)

    def step(self) -> None:
        """Advance one step (10 sim seconds). Never blocks on a mind unless lockstep."""
        self._apply_results()
        self._move()
        self._advance_chats()
        self._schedule()
        if self.lockstep:
            self.pool.wait()
        self.now += STEP
        self.steps += 1

    def run_until(self, end: datetime, on_step: Callable[["Simulation"], None] | None = None) -> None:
        while self.now < end:
            self.step()
            if on_step is not None:
                on_step(self)

    def drain(self) -> None:
        """Wait for the jobs in flight and apply them, until nothing is left in
        flight (the end of a run, or before ``to_state()`` for an exact save)."""
        for _ in range(100):
            self.pool.wait()
            self._apply_results()
            for name in list(self._queued):
                self._submit_queued(name)
            if not self.pool.in_flight() and not self._queued:
                break

    def thinking(self, name: str) -> bool:
        """Whether the resident's mind is working on something (a marker)."""
        return self.pool.busy(name)

    def behind(self, minutes: int | None = None) -> int:
        """How many residents have waited for a decision longer than ``minutes``."""
        limit = timedelta(minutes=self.settings.behind_min if minutes is None else minutes)
        return sum(
            1
            for b in self.bodies.values()
            if not b.visitor and b.waiting_since is not None and self.now - b.waiting_since > limit
        )

    def body(self, name: str) -> Body:
        return self.bodies[name]

    def conversation_of(self, name: str) -> Conversation | None:
        b = self.bodies.get(name)
        if b is None or b.conversation is None:
            return None
        chat = self.chats.get(b.conversation)
        return chat.conv if chat else None

    def conversations(self) -> list[Conversation]:
        return [c.conv for c in self.chats.values()]

    # -- jobs for others (the visitor's chat) and holding a resident for it ----------

    def call(self, name: str, fn: Callable, *args: Any, on_result: Callable[[Any, Any], None], **kwargs: Any) -> None:
        """Run ``fn(*args, **kwargs)`` as the resident's next pool job (keyed by the
        name: after any job in flight, so one job per mind still holds); when it is
        back, ``on_result(value, error)`` is called on the main thread instead of
        the decision machinery."""
        if kwargs:
            fn = functools.partial(fn, **kwargs)
        self._queue(name, ("call", on_result), fn, *args)

    def pump(self) -> None:
        """Apply finished jobs and submit waiting ones without advancing the clock
        (a paused game still hears the answers it asked for)."""
        self._apply_results()
        for name in list(self._queued):
            self._submit_queued(name)

    def held(self, name: str) -> bool:
        """Whether the resident is stopped by ``hold`` (talking with the visitor)."""
        b = self.bodies.get(name)
        return b is not None and b.conversation is None and b.action is not None and bool(b.action.talking_to)

    def hold(self, name: str, partner: str, doing: str | None = None) -> bool:
        """Stop the resident where it stands, talking with ``partner`` (the visitor)
        until ``release``: no walking, no decisions, no conversations with others.
        False when it cannot (not a resident, or in a conversation)."""
        b = self.bodies.get(name)
        if b is None or b.visitor or b.conversation is not None:
            return False
        if self.held(name):
            return True
        b.prev_action = b.action
        b.path = []
        b.prev_tile = b.tile  # standing still (drawing glides from prev_tile)
        other = self.bodies.get(partner)
        if other is not None:
            b.facing = _facing(other.tile[0] - b.tile[0], other.tile[1] - b.tile[1], b.facing)
        here = self.town.address_at(*b.tile) or self.area(b.tile)
        b.action = Action(doing or f"talking with {partner}", here, self.now, 24 * 60, "💬", None, partner)
        return True

    def release(self, name: str) -> None:
        """End a ``hold``: the resident resumes what it was doing (walking on if it was
        on its way), or asks for a new decision if that ran out meanwhile."""
        if not self.held(name):
            return
        b = self.bodies[name]
        prev, b.prev_action = b.prev_action, None
        b.action = prev
        b.last_decide = self.now
        if prev is None or not b.target:
            return
        path = self._plan_path(b, b.target)
        if path and len(path) > 1:
            b.path = path[1:]
            b.arrived_at = None
        else:
            self._arrive(b, quiet=True)

    # -- the visitor: a body without a mind, perceived like anyone ---------------

    def add_visitor(self, name: str, tile: Tile | None = None, doing: str = "visiting the town") -> Body:
        if name in self.bodies and not self.bodies[name].visitor:
            raise ValueError(f"{name!r} is a resident's name")
        if self.visitor and self.visitor != name:
            self.bodies.pop(self.visitor, None)
        tile = tuple(tile) if tile else tuple(self.town.spawns.get("visitor") or self._any_walkable())
        b = Body(name=name, tile=tile, visitor=True)
        b.action = Action(doing, self.town.address_at(*tile) or self.town.world, self.now, 24 * 60, "🧳")
        self.bodies[name] = b
        self.visitor = name
        return b

    def move_visitor(self, tile: Tile) -> None:
        b = self.bodies[self.visitor] if self.visitor else None
        if b is None:
            raise ValueError("no visitor in town")
        tile = (int(tile[0]), int(tile[1]))
        b.facing = _facing(tile[0] - b.tile[0], tile[1] - b.tile[1], b.facing)
        b.tile = tile
        if b.action:
            b.action = replace(b.action, address=self.town.address_at(*tile) or self.town.world)

    def set_visitor_doing(self, text: str) -> None:
        b = self.bodies[self.visitor] if self.visitor else None
        if b is not None and b.action:
            b.action = replace(b.action, description=text)

    def remove_visitor(self) -> None:
        if self.visitor:
            self.bodies.pop(self.visitor, None)
            self.visitor = None

    # -- perception ----------------------------------------------------------------

    def area(self, tile: Tile) -> str:
        """The arena-level address of a tile (or its sector, or the world outdoors)."""
        a = self._area_cache.get(tile)
        if a is None:
            addr = self.town.address_at(*tile)
            a = ":".join(addr.split(":")[:3]) if addr else self.town.world
            self._area_cache[tile] = a
        return a

    def _active_objects(self) -> list[tuple[str, str]]:
        return [(a, st) for a, st in self.town.object_states.items() if st and st != "idle"]

    def perceive(self, name: str, active: list[tuple[str, str]] | None = None) -> list[Event]:
        """Events in view of a resident: other bodies' actions and objects with
        non-idle states, within the vision radius and in the same arena, nearest first."""
        me = self.bodies[name]
        r = self.settings.vision_radius
        here = self.area(me.tile)
        found: list[tuple[float, str, Event]] = []
        for other in self.bodies.values():
            if other is me or _cheb(other.tile, me.tile) > r or self.area(other.tile) != here:
                continue
            if other.visitor and self.controlled:
                continue  # the visitor is parked (not drawn) while the player plays a resident
            doing = self._doing(other)
            found.append(
                (
                    _dist(other.tile, me.tile),
                    other.name,
                    Event(
                        subject=other.name,
                        predicate="is",
                        object=doing,
                        description=f"{other.name} is {doing}",
                        address=self.town.address_at(*other.tile) or here,
                    ),
                )
            )
        for addr, state in self._active_objects() if active is None else active:
            if addr == me.held_object:
                continue
            best = None
            for t in self._tiles_of_object(addr):
                if _cheb(t, me.tile) <= r and self.area(t) == here:
                    d = _dist(t, me.tile)
                    best = d if best is None or d < best else best
            if best is None:
                continue
            obj = addr.split(":")[-1]
            found.append((best, addr, Event(addr, "is", state, f"{obj} is {state}", addr)))
        found.sort(key=lambda f: (f[0], f[1]))
        return [e for _, _, e in found[: self.settings.max_events]]

    def seen_addresses(self, tile: Tile) -> list[str]:
        """Addresses of every tile in the vision box (spatial memory grows by these)."""
        got = self._seen_cache.get(tile)
        if got is None:
            r = self.settings.vision_radius
            out: set[str] = set()
            x0, y0 = tile
            for y in range(max(0, y0 - r), min(self.town.height, y0 + r + 1)):
                for x in range(max(0, x0 - r), min(self.town.width, x0 + r + 1)):
                    a = self.town.address_at(x, y)
                    if a:
                        parts = a.split(":")
                        for i in range(2, len(parts) + 1):
                            out.add(":".join(parts[:i]))
            got = sorted(out)
            self._seen_cache[tile] = got
        return list(got)

    def can_talk_to(self, name: str) -> list[str]:
        me = self.bodies[name]
        here = self.area(me.tile)
        out = []
        for other in self.bodies.values():
            if other is me or other.visitor or other.name not in self.minds:
                continue
            if _cheb(other.tile, me.tile) > self.settings.talk_radius or self.area(other.tile) != here:
                continue
            if self._free_to_talk(other) and not self._in_cooldown(name, other.name):
                out.append(other.name)
        return out

    def situation(self, name: str) -> Situation:
        b = self.bodies[name]
        return Situation(
            now=self.now,
            address=self.town.address_at(*b.tile) or self.area(b.tile),
            action=replace(b.action) if b.action else None,
            events=self.perceive(name),
            seen_addresses=self.seen_addresses(b.tile),
            can_talk_to=self.can_talk_to(name),
            action_done=self._action_done(b),
        )

    # -- the event log --------------------------------------------------------------

    def log_event(self, resident: str | None, kind: str, text: str, address: str = "", **extra: Any) -> dict:
        ev = {"time": self.now.isoformat(sep=" "), "resident": resident, "kind": kind, "text": text, "address": address}
        ev.update({k: v for k, v in extra.items() if v is not None})
        self.events.append(ev)
        for fn in self.listeners:
            try:
                fn(ev)
            except Exception:  # a listener must not stop the town
                log.exception("event listener failed")
        return ev

    # ------------------------------------------------------------------ results

    def _apply_results(self) -> None:
        results = self.pool.results()
        if not results:
            return
        # Pop every finished job first: a resident whose result is in this batch
        # is free (e.g. to be talked to) while the others are applied.
        batch = []
        for res in sorted(results, key=lambda r: r.key):
            job = self._jobs.pop(res.key, None)
            if job is None:
                log.warning("result for %s without a job record; ignored", res.key)
                continue
            batch.append((res, job))
        for res, job in batch:
            kind = job[0]
            try:
                if kind == "decide":
                    self._on_decision(res.key, job, res.value, res.error)
                elif kind == "utter":
                    self._on_utterance(res.key, job, res.value, res.error)
                elif kind == "call":
                    job[1](res.value, res.error)
                elif kind == "end_conversation":
                    if res.error is not None:
                        self._error(res.key, f"remembering the conversation failed: {res.error}")
            except Exception as err:  # never let one bad answer stop the town
                log.exception("applying %s for %s failed", kind, res.key)
                self._error(res.key, f"applying {kind} failed: {err}")
                b = self.bodies.get(res.key)
                if b is not None and b.conversation is None and (b.action is None or self._action_done(b)):
                    self._fallback(b, f"applying the decision failed: {err}")

    def _error(self, name: str, text: str) -> None:
        log.warning("%s: %s", name, text)
        b = self.bodies.get(name)
        if b is not None:
            b.errors += 1
        self.log_event(name, "error", text, (b.target or "") if b else "")

    def _fallback(self, b: Body, why: str) -> None:
        persona = self.personas.get(b.name)
        mind = self.minds.get(b.name)
        action = None
        fb = getattr(mind, "fallback_action", None)
        if callable(fb):
            try:
                action = fb(self.now)
            except Exception:
                log.exception("fallback_action of %s failed", b.name)
        if action is None:
            action = routine_action(persona, self.now, self.town, why)
        b.fallbacks += 1
        self._set_action(b, action, note="fallback from routine")

    def _on_decision(self, name: str, job: tuple, decision: Any, error: Any) -> None:
        b = self.bodies[name]
        b.last_decide = self.now
        self._check_reflections(name, getattr(decision, "note", "") or "")
        if b.conversation is not None or self.held(name):
            return  # a conversation (or the visitor's chat) began meanwhile; it takes precedence
        if error is not None:
            self._error(name, f"decision failed: {error}")
            b.not_before = self.now + timedelta(minutes=self.settings.error_backoff_min)
            if b.action is None or self._action_done(b):
                self._fallback(b, f"the mind's job failed: {error}")
            return
        if not isinstance(decision, Decision):
            self._error(name, f"decision of the wrong type: {type(decision).__name__}")
            if b.action is None or self._action_done(b):
                self._fallback(b, "the mind gave no decision")
            return
        talk_failed = False
        if decision.talk_to:
            if self._start_chat(name, decision.talk_to, decision.note, decision.source):
                return
            talk_failed = True
        action = decision.action
        if isinstance(action, Action) and (action.description or "").strip():
            self._set_action(b, action, note=decision.note)
        elif talk_failed and (b.action is None or self._action_done(b)):
            # The partner was taken meanwhile: ask again shortly (the next situation
            # no longer offers them) rather than falling back to the routine.
            b.not_before = self.now + 2 * STEP
        elif b.action is None or self._action_done(b):
            if len(job) > 1 and job[1] in ("react", "new day") and b.action is not None:
                return  # asked about something new, it carried on; its action ended meanwhile: ask again
            self._fallback(b, "the mind decided no action")

    def _check_reflections(self, name: str, note: str) -> None:
        """Log the reflections a mind made in this job (its note says "reflected: ...";
        the texts come from ``mind.inspect()["reflections"]``)."""
        if "reflected" not in (note or ""):
            return
        mind = self.minds.get(name)
        last = self._reflections.get(name, -1)
        try:
            refl = (mind.inspect() or {}).get("reflections") or []
        except Exception:
            log.exception("inspect of %s failed", name)
            refl = []
        fresh = []
        for r in refl:
            if isinstance(r, dict):
                rid = int(r.get("id", -1))
                if rid > last:
                    fresh.append((rid, str(r.get("description", ""))))
        if not fresh:
            m = re.search(r"reflected:\s*([^;]+)", note)
            if m:
                self.log_event(name, "reflect", m.group(1).strip(), "", source=pv.MODEL)
            return
        fresh.sort()
        self._reflections[name] = fresh[-1][0]
        for _, text in fresh:
            self.log_event(name, "reflect", text, "", source=pv.MODEL)  # a reflection the model failed is skipped

    def _clean_action(self, action: Action) -> Action:
        dur = action.duration_min
        try:
            dur = int(dur)
        except (TypeError, ValueError):
            dur = 10
        dur = max(1, min(dur, 24 * 60))
        start = action.start if isinstance(action.start, datetime) else self.now
        if start > self.now or start + timedelta(minutes=dur) <= self.now:
            start = self.now  # a stale or future start: the action begins now
        return replace(action, duration_min=dur, start=start, description=action.description.strip())

    def resolve(self, address: str | None) -> str | None:
        """The deepest known address on the way down ``address`` (invented names
        fall back to their known parent); None when nothing is known."""
        if not address:
            return None
        parts = [p.strip() for p in str(address).split(":") if p.strip()]
        if parts and parts[0].casefold() != self.town.world.casefold():
            parts = [self.town.world, *parts]
        fix = getattr(self.town, "resolve", None)
        while len(parts) >= 2:
            a = ":".join(parts)
            if a in self._known:
                return a
            if callable(fix):
                got = fix(a)
                if got and got != self.town.world:
                    return got
            parts = parts[:-1]
        return None

    def _set_action(self, b: Body, action: Action, note: str = "") -> None:
        action = self._clean_action(action)
        old = b.action
        self._release_object(b)
        self._after_use(b, old)
        b.action = action
        b.waiting_since = None
        b.new_events = False
        b.asked_day = self.now.date().isoformat()
        target = self.resolve(action.address)
        if target is None:
            persona = self.personas.get(b.name)
            target = self.resolve(getattr(persona, "home", None)) or self.area(b.tile)
            log.info("%s: unknown place %r; using %s", b.name, action.address, target)
        same_place = old is not None and b.target == target and b.arrived_at is not None and not b.walking
        b.target = target
        self.log_event(b.name, "action", action.description, target, emoji=action.emoji, note=note or None,
                       source=action.source or None)
        if same_place:
            b.arrived_at = self.now
            self._arrive(b, quiet=True)
            return
        path = self._plan_path(b, target)
        b.arrived_at = None
        if path is None:
            self._error(b.name, f"cannot reach {target}; acting where it stands")
            b.path = []
            self._arrive(b, quiet=True)
        elif len(path) <= 1:
            b.path = []
            self._arrive(b, quiet=True)
        else:
            b.path = path[1:]

    def _occupied(self, me: Body) -> set[Tile]:
        out = set()
        for o in self.bodies.values():
            if o is me:
                continue
            out.add(o.path[-1] if o.path else o.tile)
        return out

    def _plan_path(self, b: Body, target: str) -> list[Tile] | None:
        if not self.town.walkable[b.tile[1], b.tile[0]]:
            # Standing somewhere blocked (a spawn on furniture): step off first.
            off = self._nearest_walkable(b.tile)
            if off is None:
                return None
            rest = self._plan_path(replace(b, tile=off), target)
            return [b.tile, *rest] if rest else None
        cands = list(self.town.use_tiles(target))
        if not cands:
            cands = [t for t in self.town.tiles_of(target) if self.town.walkable[t[1], t[0]]]
        if not cands:
            return None
        reach = getattr(self.town, "reachable", None)
        if callable(reach):
            cands = [t for t in cands if reach(b.tile, t)]
            if not cands:
                return None
        taken = self._occupied(b)
        free = [t for t in cands if t not in taken] or cands
        if b.tile in free:
            return [b.tile]
        if target.count(":") < 3 and len(free) > 6:
            # An arena or sector: spread residents over it (a seeded sample),
            # then walk to the nearest of the sample.
            free = self.rng.sample(free, 6)
        return find_path_to_any(self.town.walkable, b.tile, free)

    def _arrive(self, b: Body, quiet: bool = False) -> None:
        b.arrived_at = self.now
        a = b.action
        if a is None:
            return
        if b.target and b.target.count(":") == 3:
            tiles = self._tiles_of_object(b.target)
            if tiles and b.tile not in tiles:
                t = min(tiles, key=lambda t: _dist(t, b.tile))
                b.facing = _facing(t[0] - b.tile[0], t[1] - b.tile[1], b.facing)
            if a.object_state and b.target in self.town.object_states:
                self.town.object_states[b.target] = a.object_state
                b.held_object = b.target
        if not quiet:
            self.log_event(b.name, "arrive", f"arrives at {b.target}", b.target or "")

    def _release_object(self, b: Body) -> None:
        addr = b.held_object
        if not addr:
            return
        b.held_object = None
        for o in self.bodies.values():
            if o is not b and o.held_object == addr and o.action and o.action.object_state:
                self.town.object_states[addr] = o.action.object_state
                return
        if addr in self.town.object_states:
            linger = self.lingering.get(addr)
            self.town.object_states[addr] = linger[0] if linger and self.now < linger[1] else "idle"

    def _after_use(self, b: Body, action: Action | None) -> None:
        """What an action that ran at its place leaves behind (``agents.objects.after_use``):
        e.g. the fridge "running low" for a few hours after breakfast."""
        if action is None or b.arrived_at is None or b.walking or not b.target:
            return
        try:
            from agents.objects import after_use
        except Exception:  # noqa: BLE001 - an optional nicety
            return
        arena = ":".join(b.target.split(":")[:3])
        parts = arena.split(":")
        if len(parts) < 3:
            return
        names = self.town.tree.get(parts[1], {}).get(parts[2], [])
        for obj, state, minutes in after_use(action.description, b.target, names):
            addr = f"{arena}:{obj}"
            if addr not in self.town.object_states:
                continue
            self.lingering[addr] = (state, self.now + timedelta(minutes=minutes))
            if not any(o.held_object == addr for o in self.bodies.values()):
                self.town.object_states[addr] = state

    def _expire_lingering(self) -> None:
        if not self.lingering:
            return
        for addr, (state, until) in list(self.lingering.items()):
            if self.now < until:
                continue
            del self.lingering[addr]
            if self.town.object_states.get(addr) == state and not any(
                o.held_object == addr for o in self.bodies.values()
            ):
                self.town.object_states[addr] = "idle"

    # -- world edits ------------------------------------------------------------------

    def set_object_state(self, address: str, state: str | None, by: str = "the player") -> str:
        """Set an object's state from outside the residents' actions (the console,
        the object panel): logged as an ``edit`` event and perceived like any state
        (residents in view get to react at once). ``idle`` (or empty) resets.
        Returns the resolved address; KeyError for an unknown object."""
        addr = address if address in self.town.object_states else None
        if addr is None:
            fix = getattr(self.town, "resolve", None)
            got = fix(address) if callable(fix) else None
            addr = got if got in self.town.object_states else None
        if addr is None:
            raise KeyError(f"no object at address {address!r}")
        state = " ".join(str(state or "").split()) or "idle"
        self.town.object_states[addr] = state
        self.lingering.pop(addr, None)
        for o in self.bodies.values():  # it stays so until someone deals with it
            if o.held_object == addr:
                o.held_object = None
        obj = addr.split(":")[-1]
        self.log_event(None, "edit", f"{by} set the {obj} to {state}", addr, by=by, state=state)
        if state != "idle":
            tiles = self._tiles_of_object(addr)
            for o in self.bodies.values():
                if o.visitor or o.controlled or o.asleep:
                    continue
                if any(_cheb(t, o.tile) <= self.settings.vision_radius and self.area(t) == self.area(o.tile) for t in tiles):
                    o.last_decide = None  # no reaction cooldown for this
        return addr

    def prompt_decision(self, name: str) -> None:
        """Ask ``name`` for a decision at the next step, as if it had noticed
        something, without the reaction cooldown (an inner voice, for one)."""
        body = self.bodies.get(name)
        if body is not None:
            body.new_events = True
            body.last_decide = None

    # -- playing as a resident ------------------------------------------------------------

    def take_control(self, name: str) -> Body:
        """The player walks ``name`` (``move_controlled``): its mind gets no decisions,
        minds do not start conversations with it (they may greet it), its current
        action stays until it first moves, then it is "walking around"."""
        b = self.bodies.get(name)
        if b is None or b.visitor or name not in self.minds:
            raise KeyError(f"{name!r} is not a resident here")
        if self.controlled and self.controlled != name:
            self.release_control()
        if b.conversation is not None:
            chat = self.chats.get(b.conversation)
            if chat is not None:
                self._end_chat(chat)
        if self.held(name):
            self.release(name)
        self._release_object(b)
        b.path = []
        b.prev_tile = b.tile
        b.controlled = True
        b.waiting_since = None
        here = self.town.address_at(*b.tile) or self.area(b.tile)
        desc = b.action.description if b.action is not None else "walking around"
        b.action = Action(desc, here, self.now, 24 * 60, b.action.emoji if b.action else "🚶")
        b.target = None
        self.controlled = name
        self.log_event(name, "action", f"{desc} (played by the player)", here, controlled=True)
        return b

    def move_controlled(self, tile: Tile) -> None:
        b = self.bodies.get(self.controlled) if self.controlled else None
        if b is None:
            raise ValueError("no resident is controlled")
        tile = (int(tile[0]), int(tile[1]))
        if tile == b.tile:
            return
        b.facing = _facing(tile[0] - b.tile[0], tile[1] - b.tile[1], b.facing)
        b.prev_tile = b.tile
        b.tile = tile
        here = self.town.address_at(*tile) or self.area(tile)
        if b.action is not None and b.action.description != "walking around":
            b.action = Action("walking around", here, self.now, 24 * 60, "🚶")
        elif b.action is not None:
            b.action = replace(b.action, address=here)

    def release_control(self) -> str | None:
        """Hand the controlled resident back to its mind: it asks for a decision now."""
        name, self.controlled = self.controlled, None
        b = self.bodies.get(name) if name else None
        if b is None:
            return None
        b.controlled = False
        b.action = None  # the next schedule asks the mind (reason "start")
        b.target = None
        b.path = []
        b.arrived_at = None
        b.not_before = None
        b.new_events = False
        b.asked_day = self.now.date().isoformat()
        self.log_event(name, "action", "is back to their own mind", self.area(b.tile), controlled=False)
        return name

    def _tiles_of_object(self, addr: str) -> list[Tile]:
        t = self._object_tiles.get(addr)
        if t is None:
            try:
                t = [tuple(x) for x in self.town.tiles_of(addr)]
            except Exception:
                t = []
            self._object_tiles[addr] = t
        return t

    def _nearest_walkable(self, tile: Tile) -> Tile | None:
        for r in range(1, 6):
            ring = [
                (tile[0] + dx, tile[1] + dy)
                for dy in range(-r, r + 1)
                for dx in range(-r, r + 1)
                if max(abs(dx), abs(dy)) == r
            ]
            ring = [t for t in ring if 0 <= t[0] < self.town.width and 0 <= t[1] < self.town.height and self.town.walkable[t[1], t[0]]]
            if ring:
                return min(ring, key=lambda t: (_dist(t, tile), t[1], t[0]))
        return None

    def _any_walkable(self) -> Tile:
        import numpy as np

        ys, xs = np.nonzero(self.town.walkable)
        return (int(xs[0]), int(ys[0]))

    # ------------------------------------------------------------------ movement

    def _move(self) -> None:
        self._expire_lingering()
        for b in self.bodies.values():
            if b.visitor or b.controlled:
                continue
            b.prev_tile = b.tile
            if not b.path:
                continue
            nxt = b.path.pop(0)
            b.facing = _facing(nxt[0] - b.tile[0], nxt[1] - b.tile[1], b.facing)
            b.tile = nxt
            if not b.path and b.conversation is None:
                self._arrive(b)

    # ------------------------------------------------------------------ conversations

    def _doing(self, b: Body) -> str:
        if b.conversation is not None and b.action and b.action.talking_to:
            return f"conversing with {b.action.talking_to}"
        return b.doing

    def _free_to_talk(self, b: Body) -> bool:
        if b.conversation is not None or b.asleep or b.visitor or b.controlled or self.held(b.name):
            return False
        job = self._jobs.get(b.name)
        return job is None and not self._queued.get(b.name)

    def _in_cooldown(self, a: str, b: str) -> bool:
        until = self.cooldowns.get(_pair(a, b))
        return until is not None and self.now < until

    def _start_chat(self, name: str, partner: str, note: str = "", source: str = "") -> bool:
        a = self.bodies[name]
        b = self.bodies.get(partner)
        s = self.settings
        if b is None or b.visitor or partner not in self.minds or partner == name:
            log.info("%s wants to talk to %r, who is not a resident here", name, partner)
            return False
        if not self._free_to_talk(b) or a.conversation is not None or self._in_cooldown(name, partner):
            return False
        if self.area(a.tile) != self.area(b.tile) or _cheb(a.tile, b.tile) > s.vision_radius:
            return False
        cid = self._next_chat
        self._next_chat += 1
        here = self.town.address_at(*b.tile) or self.area(b.tile)
        conv = Conversation(participants=(name, partner), address=self.area(b.tile), started=self.now)
        chat = _Chat(id=cid, conv=conv, turn=name)
        for me, other in ((a, b), (b, a)):
            chat.partner_doing[me.name] = other.doing
            self._release_object(me)
            me.prev_action = me.action
            me.conversation = cid
            me.waiting_since = None
            me.action = Action(f"conversing with {other.name}", here, self.now, 30, "💬", None, other.name,
                               source if me is a else pv.tag(pv.MODEL))
            me.target = self.area(b.tile)
        b.path = []
        self.chats[cid] = chat
        # The initiator walks to a free tile next to the partner.
        near = self._adjacent_free(b.tile, a)
        if near is not None and _cheb(a.tile, b.tile) > 1:
            path = find_path(self.town.walkable, a.tile, near)
            a.path = path[1:] if path else []
        else:
            a.path = []
        self.log_event(name, "chat", f"starts a conversation with {partner}", conv.address, conversation=cid,
                       partner=partner, note=note or None, source=source or None)
        return True

    def _adjacent_free(self, tile: Tile, mover: Body) -> Tile | None:
        taken = self._occupied(mover)
        best = None
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx == 0 and dy == 0:
                    continue
                t = (tile[0] + dx, tile[1] + dy)
                if not (0 <= t[0] < self.town.width and 0 <= t[1] < self.town.height):
                    continue
                if not self.town.walkable[t[1], t[0]] or t in taken:
                    continue
                if self.area(t) != self.area(tile):
                    continue
                key = (abs(dx) + abs(dy), _dist(t, mover.tile))  # orthogonal first, then nearest
                if best is None or key < best[0]:
                    best = (key, t)
        return best[1] if best else None

    def _advance_chats(self) -> None:
        for cid in sorted(self.chats):
            chat = self.chats.get(cid)
            if chat is None:
                continue
            a_name, b_name = chat.conv.participants
            a, b = self.bodies[a_name], self.bodies[b_name]
            if chat.phase == "approach":
                chat.steps += 1
                if _cheb(a.tile, b.tile) <= 1 or not a.path or chat.steps >= self.settings.approach_max_steps:
                    a.path = []
                    chat.phase = "talk"
                    a.facing = _facing(b.tile[0] - a.tile[0], b.tile[1] - a.tile[1], a.facing)
                    b.facing = _facing(a.tile[0] - b.tile[0], a.tile[1] - b.tile[1], b.facing)
                else:
                    continue
            if chat.waiting:
                continue
            speaker = chat.turn
            if self._jobs.get(speaker) or self.pool.busy(speaker):
                continue
            mind = self.minds[speaker]
            ok = self.pool.submit(speaker, mind.utter, _copy_conv(chat.conv), self.now, chat.partner_doing.get(speaker, ""))
            if ok:
                self._jobs[speaker] = ("utter", cid)
                chat.waiting = True

    def _on_utterance(self, name: str, job: tuple, value: Any, error: Any) -> None:
        chat = self.chats.get(job[1])
        if chat is None:
            return
        chat.waiting = False
        if error is not None or not isinstance(value, Utterance) or not str(value.text or "").strip():
            why = error if error is not None else f"an empty or odd utterance ({type(value).__name__})"
            self._error(name, f"utterance failed: {why}; the conversation ends")
            self._end_chat(chat)
            return
        u = Utterance(speaker=name, text=str(value.text).strip(), ends=bool(value.ends),
                      source=str(getattr(value, "source", "") or ""))
        chat.conv.lines.append(u)
        self.log_event(name, "line", u.text, chat.conv.address, conversation=chat.id, partner=chat.conv.other(name),
                       source=u.source or None)
        if u.ends or len(chat.conv.lines) >= self.settings.max_conversation_lines:
            self._end_chat(chat)
        else:
            chat.turn = chat.conv.other(name)

    def _end_chat(self, chat: _Chat) -> None:
        self.chats.pop(chat.id, None)
        conv = chat.conv
        a_name, b_name = conv.participants
        self.cooldowns[_pair(a_name, b_name)] = self.now + timedelta(minutes=self.settings.conversation_cooldown_min)
        elapsed = max(0, int((self.now - conv.started).total_seconds() // 60))
        for name in conv.participants:
            b = self.bodies[name]
            b.conversation = None
            b.path = []
            if b.action is not None:  # over now: done, and no longer a live conversation
                b.action = replace(b.action, start=conv.started, duration_min=elapsed, talking_to=None)
            b.arrived_at = self.now
            b.prev_action = None
            b.last_decide = self.now
            if conv.lines:
                c = _copy_conv(conv)
                self._queue(name, ("end_conversation", chat.id, c, self.now), self.minds[name].end_conversation, c, self.now)
        self.log_event(
            a_name, "chat", f"ends the conversation with {b_name} ({len(conv.lines)} lines)", conv.address,
            conversation=chat.id, partner=b_name, ended=True,
        )

    def _queue(self, name: str, job: tuple, fn: Callable, *args: Any) -> None:
        self._queued.setdefault(name, []).append((job, fn, args))
        self._submit_queued(name)

    def _submit_queued(self, name: str) -> bool:
        """Submit the resident's next queued job if its key is free; True if one waits."""
        q = self._queued.get(name)
        if not q:
            return False
        if self._jobs.get(name) or self.pool.busy(name):
            return True
        job, fn, args = q[0]
        if self.pool.submit(name, fn, *args):
            q.pop(0)
            self._jobs[name] = job
        if not q:
            self._queued.pop(name, None)
        return True

    # ------------------------------------------------------------------ scheduling

    def _action_done(self, b: Body) -> bool:
        a = b.action
        if a is None:
            return True
        if b.conversation is not None or b.walking:
            return False
        if self.now < a.end:
            return False
        stay = timedelta(minutes=self.settings.min_stay_min)
        if b.arrived_at is not None and a.end < b.arrived_at + stay and self.now < b.arrived_at + stay:
            return False  # it ended on the way there: let it be seen at its place for a moment
        return True

    def _schedule(self) -> None:
        s = self.settings
        today = self.now.date().isoformat()
        react_gap = timedelta(minutes=s.react_cooldown_min)
        retention = timedelta(minutes=s.retention_min)
        active = self._active_objects()
        for name, b in self.bodies.items():
            if b.visitor:
                continue
            if self._submit_queued(name):
                continue
            if b.controlled:
                continue  # the player walks it: its mind gets no decisions
            if b.conversation is not None or self._jobs.get(name) or self.pool.busy(name) or self.held(name):
                continue
            if b.asleep and b.action is not None and self.now < b.action.end:
                continue  # sleeping: no perception, no decisions until wake time
            # Perception for reactions: what is new in view (only when at its place).
            if not b.walking and b.action is not None:
                for ev in self.perceive(name, active):
                    key = f"{ev.subject}|{ev.object}"
                    last = b.seen.get(key)
                    if last is None or self.now - last > retention:
                        b.new_events = True
                    b.seen[key] = self.now
                if len(b.seen) > 200:
                    cut = self.now - retention
                    b.seen = {k: t for k, t in b.seen.items() if t >= cut}
            reason = None
            if b.action is None and (b.not_before is None or self.now >= b.not_before):
                reason = "start"
            elif b.not_before is not None and self.now < b.not_before:
                continue
            elif self._action_done(b):
                reason = "done"
            elif b.asked_day is not None and b.asked_day != today and not b.walking:
                reason = "new day"
            elif (
                b.new_events
                and not b.walking
                and (b.last_decide is None or self.now - b.last_decide >= react_gap)
                and self.pool.in_flight() < s.react_max_in_flight
            ):
                reason = "react"
            if reason is None:
                continue
            if reason in ("start", "done") and b.waiting_since is None:
                b.waiting_since = self.now
            self._submit_decide(b, reason)

    def _submit_decide(self, b: Body, reason: str) -> None:
        mind = self.minds[b.name]
        sit = self.situation(b.name)
        if self.pool.submit(b.name, mind.decide, sit):
            self._jobs[b.name] = ("decide", reason, self.now.isoformat())
            b.new_events = False
            b.asked_day = self.now.date().isoformat()
            b.last_decide = self.now

    # ------------------------------------------------------------------ state

    def to_state(self) -> dict:
        """Plain, JSON-safe state of the simulation's own parts (not the minds')."""
        st = self.rng.getstate()
        return {
            "version": 1,
            "now": self.now.isoformat(),
            "start": self.start.isoformat(),
            "steps": self.steps,
            "seed": self.seed,
            "rng": [st[0], list(st[1]), st[2]],
            "object_states": dict(self.town.object_states),
            "visitor": self.visitor,
            "bodies": {
                n: {
                    "tile": list(b.tile),
                    "path": [list(t) for t in b.path],
                    "facing": b.facing,
                    "action": _action_to_dict(b.action),
                    "target": b.target,
                    "arrived_at": b.arrived_at.isoformat() if b.arrived_at else None,
                    "held_object": b.held_object,
                    "conversation": b.conversation,
                    "prev_action": _action_to_dict(b.prev_action),
                    "visitor": b.visitor,
                    "controlled": b.controlled,
                    "seen": {k: t.isoformat() for k, t in b.seen.items()},
                    "new_events": b.new_events,
                    "last_decide": b.last_decide.isoformat() if b.last_decide else None,
                    "waiting_since": b.waiting_since.isoformat() if b.waiting_since else None,
                    "not_before": b.not_before.isoformat() if b.not_before else None,
                    "asked_day": b.asked_day,
                    "fallbacks": b.fallbacks,
                    "errors": b.errors,
                }
                for n, b in self.bodies.items()
            },
            "chats": [
                {
                    "id": c.id,
                    "conversation": _conv_to_dict(c.conv),
                    "phase": c.phase,
                    "turn": c.turn,
                    "steps": c.steps,
                    "partner_doing": dict(c.partner_doing),
                }
                for c in self.chats.values()
            ],
            "next_chat": self._next_chat,
            "cooldowns": {k: t.isoformat() for k, t in self.cooldowns.items()},
            # Conversations whose remembering had not run yet: redone on load.
            "queued": [
                {"resident": n, "chat": job[1], "conversation": _conv_to_dict(job[2]), "now": job[3].isoformat()}
                for n, job in [(n, j) for n, j in self._jobs.items()]
                + [(n, j) for n, q in self._queued.items() for j, _, _ in q]
                if job[0] == "end_conversation"
            ],
            "reflections": dict(self._reflections),
            "events": list(self.events),
            "controlled": self.controlled,
            "lingering": {a: [s, t.isoformat()] for a, (s, t) in self.lingering.items()},
        }

    def from_state(self, state: dict) -> None:
        """Restore what ``to_state()`` wrote (the minds are restored separately).
        Jobs that were in flight are simply asked again."""
        def dt(v):
            return datetime.fromisoformat(v) if v else None

        cancel = getattr(self.pool, "cancel_all", None)
        if callable(cancel):
            cancel()  # results of jobs asked before the load must not land after it

        self.now = datetime.fromisoformat(state["now"])
        self.start = datetime.fromisoformat(state.get("start", state["now"]))
        self.steps = int(state.get("steps", 0))
        self.seed = state.get("seed", self.seed)
        r = state.get("rng")
        if r:
            self.rng.setstate((r[0], tuple(r[1]), r[2]))
        for addr, s in state.get("object_states", {}).items():
            if addr in self.town.object_states:
                self.town.object_states[addr] = s
        self.bodies = {}
        for n, d in state.get("bodies", {}).items():
            if not d.get("visitor") and n not in self.minds:
                log.warning("saved resident %s has no mind here; left out", n)
                continue
            self.bodies[n] = Body(
                name=n,
                tile=tuple(d["tile"]),
                path=[tuple(t) for t in d.get("path", [])],
                facing=d.get("facing", "down"),
                action=_action_from_dict(d.get("action")),
                target=d.get("target"),
                arrived_at=dt(d.get("arrived_at")),
                held_object=d.get("held_object"),
                conversation=d.get("conversation"),
                prev_action=_action_from_dict(d.get("prev_action")),
                visitor=bool(d.get("visitor")),
                controlled=bool(d.get("controlled")),
                seen={k: datetime.fromisoformat(t) for k, t in d.get("seen", {}).items()},
                new_events=bool(d.get("new_events")),
                last_decide=dt(d.get("last_decide")),
                waiting_since=dt(d.get("waiting_since")),
                not_before=dt(d.get("not_before")),
                asked_day=d.get("asked_day"),
                fallbacks=int(d.get("fallbacks", 0)),
                errors=int(d.get("errors", 0)),
            )
        for n in self.minds:  # residents new to this save start at their spawn
            if n not in self.bodies:
                self.bodies[n] = Body(name=n, tile=tuple(self.town.spawns.get(n) or self._any_walkable()))
        self.visitor = state.get("visitor") if state.get("visitor") in self.bodies else None
        self.chats = {}
        for c in state.get("chats", []):
            chat = _Chat(
                id=c["id"],
                conv=_conv_from_dict(c["conversation"]),
                phase=c.get("phase", "talk"),
                turn=c.get("turn", ""),
                steps=c.get("steps", 0),
                partner_doing=dict(c.get("partner_doing", {})),
            )
            if all(p in self.bodies for p in chat.conv.participants):
                self.chats[chat.id] = chat
        for b in self.bodies.values():  # a body in a conversation that did not survive is freed
            if b.conversation is not None and b.conversation not in self.chats:
                b.conversation = None
            if b.conversation is None and b.action is not None and b.action.talking_to:
                b.action, b.prev_action = b.prev_action, None  # a chat with the visitor does not survive a load
        self._next_chat = int(state.get("next_chat", max(self.chats, default=0) + 1))
        self.cooldowns = {k: datetime.fromisoformat(t) for k, t in state.get("cooldowns", {}).items()}
        self._jobs = {}
        self._queued = {}
        for q in state.get("queued", []):
            n = q["resident"]
            if n in self.minds:
                c, t = _conv_from_dict(q["conversation"]), datetime.fromisoformat(q["now"])
                self._queued.setdefault(n, []).append((("end_conversation", q["chat"], c, t), self.minds[n].end_conversation, (c, t)))
        self._reflections = {k: int(v) for k, v in state.get("reflections", {}).items()}
        self.events = list(state.get("events", []))
        c = state.get("controlled")
        self.controlled = c if c in self.bodies and self.bodies[c].controlled else None
        for b in self.bodies.values():
            if b.controlled and b.name != self.controlled:
                b.controlled = False
        self.lingering = {a: (s, datetime.fromisoformat(t)) for a, (s, t) in (state.get("lingering") or {}).items()}
