"""A recording read into memory (game/replay/reader.py reads it): every body's tile
and facing at every frame, their actions, the objects' states, the events, and
what a replay asks of them (where is who at frame f, what happened between two
frames). No pygame."""
from __future__ import annotations

import bisect
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

FACING_NAMES = ("down", "left", "right", "up")
FACE_INDEX = {f: i for i, f in enumerate(FACING_NAMES)}
ABSENT = -1  # a tile coordinate for a body that is not in town (the visitor of a headless run)


@dataclass
class Recording:
    """A recorded run, read into memory. Frames are numbered from the first
    header's time; frame ``f`` is at ``start + f * step``."""

    path: Path
    world: str | None
    map_path: str | None
    map_sha256: str | None
    model: str | None
    kind: str
    start: datetime
    step: timedelta
    names: list[str]  # bodies: the residents, then the visitor's slot
    tiles: np.ndarray  # (frames, bodies, 2) int16; ABSENT where a body is not in town
    facing: np.ndarray  # (frames, bodies) uint8, indices into FACING_NAMES
    actions: list[tuple[list[int], list[dict | None]]]  # per body: frames, action fields (+ "conversation")
    objects: dict[str, str]  # the objects that are not idle at frame 0
    object_changes: list[tuple[int, dict[str, str]]]  # (frame, {address: state}), in frame order
    events: list[dict]  # the sim's events, each with "s" (its frame) and "time"
    visitor_names: tuple[list[int], list[str | None]]
    calls: tuple[list[int], list[int], list[int]]  # frames, model calls and tokens so far
    walls: tuple[list[int], list[float]]  # frames, real time (seconds since the epoch) they were recorded
    ended: str | None = None  # why the recording ended (its end mark), None when it has none
    stopped: str | None = None  # where reading stopped early, and why
    notes: list[str] = field(default_factory=list)
    personas: Any = None  # the residents as the first header keeps them, unread (game/saves/cast.py reads them)

    # ---- what is where -----------------------------------------------------------------
    @property
    def last(self) -> int:
        """The last frame that can be shown."""
        return max(0, len(self.tiles) - 1)

    @property
    def end(self) -> datetime:
        return self.time_of(self.last)

    @property
    def residents(self) -> list[str]:
        return self.names[:-1]

    @property
    def visitor_slot(self) -> int:
        return len(self.names) - 1

    def time_of(self, frame: float) -> datetime:
        return self.start + self.step * int(frame)

    def frame_of(self, when: datetime) -> int:
        """The frame showing ``when`` (the last one before it), clamped to the recording."""
        f = int((when - self.start) // self.step)
        return min(max(f, 0), self.last)

    def tile(self, body: int, frame: int) -> tuple[int, int] | None:
        x, y = self.tiles[frame, body]
        return None if x == ABSENT else (int(x), int(y))

    def facing_at(self, body: int, frame: int) -> str:
        return FACING_NAMES[int(self.facing[frame, body])]

    def action_at(self, body: int, frame: int) -> dict | None:
        """The body's action at ``frame`` (the fields of ``game.runs.recording.action_fields``
        plus ``conversation``), None before its first."""
        frames, values = self.actions[body]
        i = bisect.bisect_right(frames, frame) - 1
        return values[i] if i >= 0 else None

    def objects_at(self, frame: int) -> dict[str, str]:
        """Every object whose state is not idle at ``frame``."""
        states = dict(self.objects)
        for f, changed in self.object_changes:
            if f > frame:
                break
            states.update(changed)
        return {a: s for a, s in states.items() if s and s != "idle"}

    def visitor_at(self, frame: int) -> str | None:
        frames, names = self.visitor_names
        i = bisect.bisect_right(frames, frame) - 1
        return names[i] if i >= 0 else None

    def calls_at(self, frame: int) -> tuple[int, int]:
        frames, calls, tokens = self.calls
        i = bisect.bisect_right(frames, frame) - 1
        return (calls[i], tokens[i]) if i >= 0 else (0, 0)

    def wall_span(self) -> tuple[float | None, float | None]:
        """The real time the recording began and last wrote (seconds since the epoch)."""
        _, walls = self.walls
        return (walls[0], walls[-1]) if walls else (None, None)

    def events_between(self, after: int, upto: int) -> list[dict]:
        """Events of frames ``after`` < s <= ``upto``."""
        keys = self._event_frames()
        return self.events[bisect.bisect_right(keys, after): bisect.bisect_right(keys, upto)]

    def _event_frames(self) -> list[int]:
        keys = getattr(self, "_ev_keys", None)
        if keys is None or len(keys) != len(self.events):
            keys = [e["s"] for e in self.events]
            self._ev_keys = keys
        return keys

    def hide_off_map(self, width: int, height: int) -> int:
        """Hide (ABSENT) every tile outside a ``width`` x ``height`` map: a damaged or
        foreign recording must not send a figure, or the camera, off the town.
        Returns how many body-frames were hidden (a note says so when any)."""
        x, y = self.tiles[..., 0], self.tiles[..., 1]
        off = (x != ABSENT) & ((x < 0) | (y < 0) | (x >= width) | (y >= height))
        hidden = int(off.sum())
        if hidden:
            self.tiles[off] = ABSENT
            self.notes.append(f"{hidden} recorded positions lie off this {width} x {height} map; "
                              "those figures are hidden there")
            log.warning("%s: %d positions off the %d x %d map, hidden", self.path, hidden, width, height)
        return hidden

    def summary(self) -> str:
        """One line: what was recorded, its span, and where it stopped."""
        span = f"{self.start:%a %d %b %Y %H:%M} → {self.end:%a %d %b %H:%M}"
        who = f"{len(self.residents)} residents" + (" and a visitor" if self.visitor_names[0] else "")
        tail = f"; {self.stopped}" if self.stopped else (
            "" if self.ended else "; it has no end mark (the run was killed, or is still going)")
        return f"{self.path}: {who} in {self.world or 'a town'}, {span}{tail}"


__all__ = ["ABSENT", "FACE_INDEX", "FACING_NAMES", "Recording"]
