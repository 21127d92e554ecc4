"""A recording played back as a read-only session the game's views can show (no pygame).

``ReplaySession`` stands where a running game's ``Session`` stands
(contract 11): the residents view, speech bubbles, HUD, residents list, town
map, follow and inspector read it exactly as they read a live game. Its
``sim`` (``ReplaySim``) holds real ``game.sim.Body`` objects set from the
recording at the current frame: tile, facing, the recorded action (with its
provenance), the conversation; its ``minds`` answer ``inspect()`` from the
nearest save (game/replay/minds.py). Nothing steps a simulation and no model
is called.

The clock: ``update(dt)`` plays at ``SPEEDS[speed]`` sim minutes per real
second (the game's speeds, up to one sim hour per second; ``rate`` overrides
it, for an export), unless paused.
Moving forward a little hands the events on the way to ``sim.listeners`` (so
bubbles show the lines said); ``seek(frame)`` jumps, and tells ``on_seek``.
``step(n)`` moves whole frames (10 sim seconds), paused. The HUD's "Next
morning (N)" (``skip_to_morning``) jumps at once to the next 07:00 in the
recording, or, with none left, to its end. At the end of the recording it
pauses and tells ``on_end``.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from types import SimpleNamespace
from typing import TYPE_CHECKING

from agents import Action, Persona
from game.replay.minds import ReplayMind, SavedMinds
from game.replay.reader import Recording
from game.runs.session import DEFAULT_SPEED, SPEEDS, next_morning, steps_per_second
from game.sim import Body
from game.world.grid import Tile
from game.world.town import Town

if TYPE_CHECKING:  # the window's protocol (importing game/view would load pygame: playback runs without it)
    from game.view.host import TownFeed, TownSession

log = logging.getLogger(__name__)

PLAY_THROUGH = 600  # a forward move of at most this many frames plays the events on the way (else: a seek)
RECENT_LINES = 12  # after a jump: lines of the last 2 sim minutes come back as bubbles


class ReplayConversation:
    """What ``sim.conversation_of(name)`` gives the views: who talks with whom."""

    def __init__(self, participants: tuple[str, str]) -> None:
        self.participants = participants

    def other(self, name: str) -> str:
        a, b = self.participants
        return b if name == a else a


class ReplayGateway:
    """The HUD's model line: the recorded model, and its calls and tokens so far."""

    status = "ok"

    def __init__(self, rec: Recording, clock: ReplaySession) -> None:
        self.model = rec.model or "?"
        self._rec = rec
        self._clock = clock
        self.accounting = self

    def summary(self) -> dict:
        calls, tokens = self._rec.calls_at(self._clock.frame)
        return {"total": {"calls": calls, "tokens": tokens}}


class ReplaySim:
    """The bodies, clock and places of a recording at one frame (what views read of a simulation)."""

    lockstep = False
    controlled = None

    def __init__(self, rec: Recording, town: Town, minds: dict[str, ReplayMind]) -> None:
        self.recording = rec
        self.town = town
        self.minds = minds
        self.start = rec.start
        self.now = rec.start
        self.steps = 0
        self.listeners: list[Callable[[dict], None]] = []
        self.events = rec.events
        self.bodies: dict[str, Body] = {}
        self.visitor: str | None = None
        self.focus: set[str] = set()  # whom the window watches (a live town's minds go first; here unused)
        self.chats: dict = {}
        self.greetings: list = []
        self._area: dict[tuple[int, int], str] = {}

    def thinking(self, name: str) -> bool:
        return False  # not recorded: a replay shows what was done, not how long minds took

    def behind(self, minutes: int | None = None) -> int:
        return 0

    def held(self, name: str) -> bool:
        return False

    def area(self, tile: tuple[int, int]) -> str:
        """The arena-level address of a tile (or its sector, or the world outdoors)."""
        tile = (int(tile[0]), int(tile[1]))
        a = self._area.get(tile)
        if a is None:
            addr = self.town.address_at(*tile)
            a = ":".join(addr.split(":")[:3]) if addr else self.town.world
            self._area[tile] = a
        return a

    def conversation_of(self, name: str) -> ReplayConversation | None:
        b = self.bodies.get(name)
        if b is None or b.conversation is None or b.action is None or not b.action.talking_to:
            return None
        return ReplayConversation((name, b.action.talking_to))

    def conversations(self) -> list[ReplayConversation]:
        out, seen = [], set()
        for name, b in self.bodies.items():
            conv = self.conversation_of(name)
            if conv is not None and b.conversation not in seen:
                seen.add(b.conversation)
                out.append(conv)
        return out


class ReplaySession:
    """A recording as a session the views can read (see the module's notes)."""

    read_only = True  # panels leave out what changes a live town (inner voice, object states)
    commands = None  # nothing the player does changes a replay (game/runs/commands.py: a live town's)
    controlled = None
    playing = None
    skip = None
    skipping = False
    pool = None

    def __init__(self, rec: Recording, town: Town, *, personas: dict[str, Persona] | None = None,
                 saved: SavedMinds | None = None) -> None:
        self.recording = rec
        self.town = town
        self.personas = dict(personas or {})
        self.saved = saved or SavedMinds(rec, None, self.personas, town)
        self.minds = {n: ReplayMind(n, self.personas.get(n), self.saved, self) for n in rec.residents}
        self.sim = ReplaySim(rec, town, self.minds)
        self.cast = [p for n, p in self.personas.items() if n in self.minds]
        self.config = SimpleNamespace(model=rec.model)
        self.frame = 0
        self.position = 0.0  # frames, fractional while playing
        self.paused = False
        self.speed = DEFAULT_SPEED
        self.rate: float | None = None  # sim minutes per real second instead of the speed's (an export)
        self.step_fraction = 1.0
        self.steps_last_frame = 0
        self.frames = 0
        self.at_end = False
        self.on_seek: list[Callable[[int], None]] = []
        self.on_end: list[Callable[[], None]] = []
        self.end_reason: str | None = None  # why the end came, when "Next morning" found no morning left
        self.on_skip_end: list[Callable[[str], None]] = []
        self.gateway = ReplayGateway(rec, self)
        self.feed: TownFeed | None = None  # the town feed (game/replay/feed.py), set by the window that shows one
        self._action_cache: dict[int, Action] = {}
        self._objects_frame = 0
        self._apply(0, seek=True)

    # ---- what the views read ---------------------------------------------------------------
    @property
    def now(self) -> datetime:
        return self.sim.now

    @property
    def visitor_name(self) -> str:
        return self.sim.visitor or "Visitor"

    @property
    def greetings(self) -> list:
        return []

    @property
    def minutes_per_second(self) -> float:
        return self.rate if self.rate is not None else SPEEDS[self.speed]

    def move_visitor(self, tile: Tile) -> None:
        """The player's figure does not walk in a replay."""

    # ---- the clock ------------------------------------------------------------------------
    def set_speed(self, speed: int) -> None:
        if speed not in SPEEDS:
            raise ValueError(f"speed must be one of {sorted(SPEEDS)}")
        self.speed = speed

    def toggle_pause(self) -> bool:
        if self.paused and self.frame >= self.recording.last:
            self.seek(0)  # play again from the start
        self.paused = not self.paused
        self.at_end = False
        return self.paused

    def update(self, dt: float) -> None:
        """Each frame: play on at the current speed (the window calls it; it never blocks)."""
        self.frames += 1
        self.steps_last_frame = 0
        if self.paused:
            self.step_fraction = 1.0
            return
        last = self.recording.last
        per_s = self.rate * 60.0 / self.recording.step.total_seconds() if self.rate else steps_per_second(self.speed)
        pos = self.position + max(0.0, dt) * per_s
        if pos >= last:
            self._move_to(float(last))
            self.paused = True
            self.end_reason = None
            self._ended()
            return
        self._move_to(pos)

    def _ended(self) -> None:
        self.at_end = True
        self.step_fraction = 1.0
        for fn in list(self.on_end):
            _call(fn)

    def seek(self, frame: float) -> int:
        """Jump to ``frame`` (clamped); the views hear ``on_seek``. Returns the frame shown."""
        f = min(max(float(frame), 0.0), float(self.recording.last))
        self.position = f
        self.at_end = False
        self._apply(int(f), seek=True)
        self.step_fraction = 1.0 if self.paused else f - int(f)
        return self.frame

    def seek_time(self, when: datetime) -> int:
        return self.seek(self.recording.frame_of(when))

    def step(self, frames: int = 1) -> int:
        """Pause and move ``frames`` whole frames (negative: back)."""
        self.paused = True
        target = min(max(self.frame + int(frames), 0), self.recording.last)
        if 0 < target - self.frame <= PLAY_THROUGH:
            self.position = float(target)
            self._apply(target, seek=False)
        else:
            self.seek(target)
        self.step_fraction = 1.0
        return self.frame

    def skip_to(self, target: datetime) -> None:
        """A jump to ``target``, clamped to the recording; ``on_skip_end`` hears "done"
        (the HUD says "It is Tue 07:00.")."""
        self.seek_time(target)
        for fn in list(self.on_skip_end):
            _call(fn, "done")

    def skip_to_morning(self) -> datetime:
        """The HUD's "Next morning (N)": a jump to the next 07:00 in the recording.
        With none before its end: the end, paused there, and ``on_end`` tells once
        (``end_reason`` says why it came). Returns where it landed."""
        t = next_morning(self.now)
        if t < self.recording.end:
            self.skip_to(t)
            return t
        self.end_reason = (None if t == self.recording.end
                           else f"No {t:%H:%M} left in the recording")
        self.paused = True
        self.seek(self.recording.last)
        self._ended()
        return self.now

    def cancel_skip(self) -> None:
        """Nothing to cancel: a replay's jumps are instant."""

    def skip_progress(self) -> float:
        return 1.0

    def _move_to(self, pos: float) -> None:
        f = int(pos)
        self.position = pos
        self.steps_last_frame = max(0, f - self.frame)
        if f != self.frame:
            self._apply(f, seek=not 0 < f - self.frame <= PLAY_THROUGH)
        self.step_fraction = pos - f

    # ---- setting the town to a frame ----------------------------------------------------------
    def _apply(self, f: int, seek: bool) -> None:
        rec, sim = self.recording, self.sim
        old = self.frame
        self.frame = f
        sim.steps = f
        sim.now = rec.time_of(f)
        vslot = rec.visitor_slot
        visitor = rec.visitor_at(f)
        bodies: dict[str, Body] = {}
        for i, name in enumerate(rec.names):
            tile = rec.tile(i, f)
            if tile is None:
                continue
            is_visitor = i == vslot
            if is_visitor:
                if not visitor:
                    continue
                name = visitor
            b = sim.bodies.get(name) or Body(name=name, tile=tile, visitor=is_visitor)
            prev = rec.tile(i, f - 1) if f > 0 else None
            nxt = rec.tile(i, f + 1) if f < rec.last else None
            b.tile = tile
            b.prev_tile = prev if prev is not None and not seek else tile
            b.facing = rec.facing_at(i, f)
            b.path = [nxt] if nxt is not None and nxt != tile else []
            fields = rec.action_at(i, f)
            b.action = self._action(fields)
            b.target = fields.get("target") if fields else None
            b.conversation = fields.get("conversation") if fields else None
            b.visitor = is_visitor
            bodies[name] = b
        sim.bodies = bodies
        sim.visitor = visitor if visitor in bodies else None
        self._set_objects(f, seek)
        if seek:
            for fn in list(self.on_seek):
                _call(fn, f)
            self._replay_recent_lines(f)
        elif f > old:
            self._hand_on(rec.events_between(old, f))

    def _action(self, fields: dict | None) -> Action | None:
        if not fields:
            return None
        got = self._action_cache.get(id(fields))
        if got is None:
            got = Action(fields["description"], fields["address"], fields["start"], fields["duration_min"],
                         fields["emoji"], fields["object_state"], fields["talking_to"], fields["source"])
            self._action_cache[id(fields)] = got
        return got

    def action_note(self, name: str) -> str:
        """Why the resident's current action was chosen (the decision's note), if recorded."""
        rec = self.recording
        try:
            i = rec.names.index(name)
        except ValueError:
            return ""
        fields = rec.action_at(i, self.frame)
        return str(fields.get("note") or "") if fields else ""

    def _set_objects(self, f: int, seek: bool) -> None:
        states = self.town.object_states
        if seek or f < self._objects_frame:
            for a in states:
                states[a] = "idle"
            states.update({a: s for a, s in self.recording.objects_at(f).items() if a in states})
        else:
            for cf, changed in self.recording.object_changes:
                if cf > f:
                    break
                if cf > self._objects_frame:
                    states.update({a: s for a, s in changed.items() if a in states})
        self._objects_frame = f

    def _hand_on(self, events: list[dict]) -> None:
        for ev in events:
            for fn in list(self.sim.listeners):
                _call(fn, ev)

    def _replay_recent_lines(self, f: int) -> None:
        """After a jump, the lines just said in conversations still going come back as bubbles."""
        talking = {b.conversation for b in self.sim.bodies.values() if b.conversation is not None}
        recent = [e for e in self.recording.events_between(max(-1, f - RECENT_LINES), f)
                  if e.get("kind") == "line" and (e.get("conversation") in talking or e.get("greeting"))]
        self._hand_on(recent)

    def close(self) -> None:
        self.saved.close()


def _call(fn: Callable[..., object], *args: object) -> None:
    try:
        fn(*args)
    except Exception:
        log.exception("a replay callback failed")


def frame_span(rec: Recording, start: datetime | None, end: datetime | None) -> tuple[int, int]:
    """The frames of [start, end] inside the recording (the whole of it by default)."""
    a = rec.frame_of(start) if start is not None else 0
    b = rec.frame_of(end) if end is not None else rec.last
    return a, max(a, b)


def _shown(session: ReplaySession) -> TownSession:  # mypy: a replay stands where a running game does
    return session


__all__ = ["ReplayConversation", "ReplayGateway", "ReplaySession", "ReplaySim", "frame_span"]
