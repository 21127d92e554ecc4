"""Reading a recording (game/runs/recording.py's file) into arrays a replay can
seek in (no pygame).

``read_recording(path)`` returns a ``Recording`` (game/replay/recorded.py): every body's tile and
facing at every frame (numpy), each body's actions over time, the objects'
states, the events, model calls and tokens so far. It reads as far as it can:
a truncated last line (a killed run), a damaged line, a block that does not
follow the last one or records out of order end the reading there, and
``Recording.stopped`` says where and why (the replay shows it). A file that is
not a recording at all raises ``RecordingError``.

What a file says is data, never a size to allocate: a block holds at most the
frames its header declares (``block``), a resumed segment starts at most
``MAX_GAP`` after the last frame, a tile is a 16-bit coordinate, and the frames
held in memory stop at ``MAX_BYTES``; anything past those, or of the wrong
type, is a damaged line, and the replay stops there with a logged warning.
``Recording.hide_off_map`` then hides the tiles the town's map does not have.

``find_recording(target)`` turns what the user typed (a run folder, the
game's save folder, a recording file) into the recording's path and the
folders that hold the saves made along it.
"""
from __future__ import annotations

import bisect
import json
import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

import numpy as np

from game.replay.recorded import ABSENT, FACE_INDEX, FACING_NAMES, Recording
from game.runs.recording import DELTAS, FACINGS, FILE, FORMAT, GAME_FOLDER, HISTORY_FOLDER, JUMP, STAY, action_fields
from game.saves.cast import PERSONAS
from game.support.errors import UserError
from game.world.grid import facing as facing_of

log = logging.getLogger(__name__)

TILE_MAX = int(np.iinfo(np.int16).max)  # tiles are int16: no map is that wide
MAX_BODIES = 1000  # more than any town holds; a header naming more is damaged
MAX_BLOCK = 3600  # frames a block may declare (the recorder writes 30)
MAX_STEP_S = 3600  # seconds a frame may span (the recorder's step is 10)
MAX_GAP = timedelta(days=1)  # the longest unrecorded stretch before a resumed segment
MAX_BYTES = 256 * 2**20  # tiles and facings held in memory: some 8 months of 25 residents
MAX_LINE = 64 * 2**20  # bytes of one line (a block of moves is kilobytes): longer is damage, skipped unread
# Every error the reading of one damaged record can raise (types and values as JSON gives them).
_DAMAGE = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, StopIteration)


class RecordingError(UserError):
    """A recording that cannot be played at all; the message says which file and what to do."""


# ---------------------------------------------------------------------------- reading


class _Stop(Exception):
    """Reading ends here (the message says why); what was read so far plays."""


def _tile(x: Any, y: Any) -> tuple[int, int]:  # Any: as the file holds them; int() checks them
    """A recorded tile as two ints an int16 holds (ABSENT: not in town); ValueError otherwise."""
    x, y = int(x), int(y)
    if not (ABSENT <= x <= TILE_MAX and ABSENT <= y <= TILE_MAX):
        raise ValueError(f"a tile ({x}, {y}) off any map")
    return x, y


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: dict | None = None
        self.origin = 0  # the current segment's first frame, counted from the first header
        self.start: datetime | None = None
        self.step = timedelta(seconds=10)
        self.block = MAX_BLOCK  # the most frames one block holds (the header's ``block``)
        self.names: list[str] = []
        self.chunks_t: list[np.ndarray] = []  # blocks of (frames, bodies, 2), frame 0 first
        self.chunks_f: list[np.ndarray] = []
        self.frames = 0  # frames read so far (the next one is frame ``frames``)
        self.cur_t: np.ndarray | None = None  # every body's tile and facing at the last frame read
        self.cur_f: np.ndarray | None = None
        self.actions: list[tuple[list[int], list[dict | None]]] = []
        self.objects: dict[str, str] = {}
        self.object_changes: list[tuple[int, dict[str, str]]] = []
        self.events: list[dict] = []
        self.visitors: tuple[list[int], list[str | None]] = ([], [])
        self.calls: tuple[list[int], list[int], list[int]] = ([], [], [])
        self.walls: tuple[list[float], ...] = ([], [])
        self.last_s = 0  # the frame of the last a/e/o/v record (they come in order)
        self.ended: str | None = None
        self.notes: list[str] = []

    # ---- the records -------------------------------------------------------------------
    def header_line(self, rec: dict, n: int) -> None:
        fmt = rec.get("format")
        if not isinstance(fmt, int) or fmt > FORMAT:
            raise RecordingError(f"{self.path} was written by a newer Smallville (recording format {fmt}; this "
                                 f"one reads up to {FORMAT}); update the game to replay it")
        try:
            when = datetime.fromisoformat(str(rec["time"]))
            names = [str(x) for x in rec["bodies"]]
            step_s = int(rec.get("step_s", 10))
            block = int(rec.get("block", MAX_BLOCK))
            if not names or len(names) > MAX_BODIES:
                raise ValueError(f"{len(names)} bodies")
            if not (1 <= step_s <= MAX_STEP_S and 1 <= block <= MAX_BLOCK):
                raise ValueError(f"a step of {step_s} s, blocks of {block} frames")
        except _DAMAGE as err:
            raise _Stop(f"line {n}: a damaged header ({err})") from None
        step = timedelta(seconds=step_s)
        if self.header is None:
            self.header, self.start, self.step, self.names, self.block = rec, when, step, names, block
            self.actions = [([], []) for _ in names]
            self.origin = 0
            return
        assert self.start is not None
        if names != self.names or rec.get("world") != self.header.get("world"):
            raise _Stop(f"line {n}: the run was resumed with other residents or in another town")
        origin = int((when - self.start) // self.step)
        if origin > self.frames - 1 + MAX_GAP // self.step:
            raise _Stop(f"line {n}: a segment that starts at {when:%Y-%m-%d %H:%M}, more than "
                        f"{MAX_GAP.days} day after the last frame")
        if origin < self.frames - 1:
            self._rewind(origin)
            self.notes.append(f"the run was resumed from an earlier save at {when:%a %H:%M}: what was recorded "
                              "after that point is replaced")
        elif origin > self.frames - 1:
            self.notes.append(f"nothing was recorded between {self.start + self.step * (self.frames - 1):%a %H:%M} "
                              f"and {when:%a %H:%M} (the run's last minutes before it was resumed)")
            self._hold_until(origin, n)
        self.origin = origin
        self.last_s = max(self.last_s, origin) if origin >= self.frames - 1 else origin

    def key_line(self, rec: dict, n: int) -> None:
        b = len(self.names)
        tiles = np.full((b, 2), ABSENT, dtype=np.int16)
        faces = np.zeros(b, dtype=np.uint8)
        try:
            for i, t in enumerate(rec.get("tiles") or []):
                if t:
                    tiles[i] = _tile(t[0], t[1])
                    faces[i] = FACE_INDEX.get(str(t[2]) if len(t) > 2 else "down", 0)
        except _DAMAGE as err:
            raise _Stop(f"line {n}: a damaged key frame ({err})") from None
        f = self.origin
        if self.frames == 0:
            self.chunks_t.append(tiles[None].copy())
            self.chunks_f.append(faces[None].copy())
            self.frames = 1
        else:  # a resumed segment: its key frame restates the last frame
            self._set_last(tiles, faces)
        self.cur_t, self.cur_f = tiles, faces
        now = self._time(f)
        convs = list(rec.get("conversations") or [])
        for i, a in enumerate(rec.get("actions") or []):
            if i < b:
                self._action(i, f, a, convs[i] if i < len(convs) else None, now)
        objects = {str(k): str(v) for k, v in (rec.get("objects") or {}).items()}
        if f == 0:
            self.objects = objects
        else:
            self.object_changes.append((f, {**{a: "idle" for a in self._objects_at(f)}, **objects}))
        self._calls(f, rec)

    def block_line(self, rec: dict, n: int) -> None:
        try:
            s = int(rec["s"]) + self.origin
            count = int(rec["n"])
            paths = dict(rec.get("p") or {})
        except _DAMAGE as err:
            raise _Stop(f"line {n}: a damaged block ({err})") from None
        if count > self.block:
            raise _Stop(f"line {n}: a damaged block ({count} frames; the recording's blocks hold {self.block})")
        if self.cur_t is None:
            raise _Stop(f"line {n}: movement before the key frame")
        if s != self.frames - 1 or count < 0:
            raise _Stop(f"line {n}: out of order (a block from {self._hm(s)} follows one that ends at "
                        f"{self._hm(self.frames - 1)})")
        if count == 0:
            self._calls(s, rec)
            return
        self._room(count, n)
        tiles = np.repeat(self.cur_t[None], count, axis=0)
        faces = np.repeat(self.cur_f[None], count, axis=0)
        for key, entry in paths.items():
            try:
                i = int(key)
                self._decode(i, entry, tiles, faces)
            except _DAMAGE as err:
                raise _Stop(f"line {n}: a damaged path for body {key} ({err})") from None
        self.chunks_t.append(tiles)
        self.chunks_f.append(faces)
        self.frames += count
        self.cur_t, self.cur_f = tiles[-1].copy(), faces[-1].copy()
        self._calls(s + count, rec)
        if "w" in rec:
            self.walls[0].append(s + count)
            self.walls[1].append(float(rec["w"]))

    def _decode(self, i: int, entry: list, tiles: np.ndarray, faces: np.ndarray) -> None:
        """One body's codes in a block (see game/runs/recording.py) into its rows of ``tiles`` and ``faces``."""
        x, y = _tile(entry[0], entry[1])
        codes = str(entry[2])
        jumps = iter(entry[3]) if len(entry) > 3 else iter(())
        face = FACING_NAMES[int(self.cur_f[i])]
        k = 0  # the block's frame (0: the block's first new frame)
        count = len(tiles)
        for ch in codes:
            if ch in FACINGS:
                if k == 0:
                    raise ValueError("a turn before any frame")
                face = FACINGS[ch]
                faces[k - 1:, i] = FACE_INDEX[face]
                continue
            if k >= count:
                raise ValueError("more codes than frames")
            if ch == JUMP:
                x, y = _tile(*next(jumps))
            elif ch != STAY:
                dx, dy = DELTAS[ch]
                x, y = _tile(x + dx, y + dy)
                face = facing_of(dx, dy, face)
            tiles[k:, i] = (x, y)
            faces[k:, i] = FACE_INDEX[face]
            k += 1

    def ordered(self, rec: dict, n: int) -> int:
        """The absolute frame of an a/e/o/v record; _Stop when it comes out of order."""
        try:
            s = int(rec["s"]) + self.origin
        except _DAMAGE as err:
            raise _Stop(f"line {n}: a damaged record ({err})") from None
        if s > self.frames - 1 + self.block:  # records come with the block they belong to
            raise _Stop(f"line {n}: a record of frame {s}, past the block being read")
        if s < self.last_s:
            raise _Stop(f"line {n}: events out of order ({self._hm(s)} after {self._hm(self.last_s)})")
        self.last_s = s
        return s

    def record_line(self, rec: dict, n: int) -> None:
        k = rec.get("k")
        s = self.ordered(rec, n)
        if k == "e":
            ev = {key: v for key, v in rec.items() if key != "k"}
            ev["s"] = s
            ev["time"] = self._time(s).isoformat(sep=" ")
            self.events.append(ev)
        elif k == "a":
            try:
                self._action(int(rec["b"]), s, rec.get("a"), rec.get("c"), self._time(s))
            except _DAMAGE as err:
                raise _Stop(f"line {n}: a damaged action ({err})") from None
        elif k == "o":
            self.object_changes.append((s, {str(a): str(v) for a, v in (rec.get("o") or {}).items()}))
        elif k == "v":
            self.visitors[0].append(s)
            self.visitors[1].append(rec.get("name"))

    # ---- helpers ------------------------------------------------------------------------
    def _time(self, frame: int) -> datetime:
        assert self.start is not None
        return self.start + self.step * frame

    def _hm(self, frame: int) -> str:
        return f"{self._time(frame):%a %H:%M:%S}" if self.start is not None else f"frame {frame}"

    def _action(self, i: int, f: int, rec: object, conversation: object, now: datetime) -> None:
        fields = action_fields(rec, now) if isinstance(rec, dict) else None
        if fields is not None:
            fields["conversation"] = conversation
        frames, values = self.actions[i]
        if frames and frames[-1] == f:
            values[-1] = fields
        else:
            frames.append(f)
            values.append(fields)

    def _calls(self, f: int, rec: dict) -> None:
        if "c" in rec:
            try:
                c, t = int(rec["c"]), int(rec.get("t", 0))
            except _DAMAGE:
                return
            self.calls[0].append(f)
            self.calls[1].append(c)
            self.calls[2].append(t)

    def _objects_at(self, frame: int) -> dict[str, str]:
        states = dict(self.objects)
        for f, changed in self.object_changes:
            if f <= frame:
                states.update(changed)
        return {a: s for a, s in states.items() if s and s != "idle"}

    def _set_last(self, tiles: np.ndarray, faces: np.ndarray) -> None:
        self.chunks_t[-1][-1] = tiles
        self.chunks_f[-1][-1] = faces

    def _room(self, count: int, n: int) -> None:
        """_Stop when ``count`` more frames would pass MAX_BYTES in memory."""
        per_frame = 5 * len(self.names)  # two int16 coordinates and a facing byte per body
        if (self.frames + count) * per_frame > MAX_BYTES:
            raise _Stop(f"line {n}: the recording runs past the {MAX_BYTES >> 20} MB a replay holds")

    def _hold_until(self, frame: int, n: int) -> None:
        """Frames nobody recorded (a gap): everyone stays where they were."""
        count = frame - (self.frames - 1)
        if count > 0 and self.cur_t is not None:
            self._room(count, n)
            self.chunks_t.append(np.repeat(self.cur_t[None], count, axis=0))
            self.chunks_f.append(np.repeat(self.cur_f[None], count, axis=0))
            self.frames += count

    def _rewind(self, frame: int) -> None:
        """Forget everything recorded after ``frame`` (a run resumed from an older save)."""
        frame = max(0, frame)
        tiles = np.concatenate(self.chunks_t)[: frame + 1]
        faces = np.concatenate(self.chunks_f)[: frame + 1]
        self.chunks_t, self.chunks_f = [tiles], [faces]
        self.frames = len(tiles)
        self.cur_t, self.cur_f = tiles[-1].copy(), faces[-1].copy()
        for frames, values in self.actions:
            cut = bisect.bisect_right(frames, frame)
            del frames[cut:], values[cut:]
        self.object_changes = [(f, c) for f, c in self.object_changes if f <= frame]
        self.events = [e for e in self.events if e["s"] <= frame]
        for seq in (self.visitors, self.calls, self.walls):
            keep = bisect.bisect_right(seq[0], frame)
            for part in seq:
                del part[keep:]
        self.last_s = frame

    def result(self, stopped: str | None) -> Recording:
        assert self.header is not None and self.start is not None
        tiles = np.concatenate(self.chunks_t) if self.chunks_t else np.zeros((1, len(self.names), 2), np.int16)
        faces = np.concatenate(self.chunks_f) if self.chunks_f else np.zeros((1, len(self.names)), np.uint8)
        last = len(tiles) - 1
        events = [e for e in self.events if e["s"] <= last]  # records past the last whole block are lost
        for frames, values in self.actions:
            cut = bisect.bisect_right(frames, last)
            del frames[cut:], values[cut:]
        visitor = self.header.get("visitor")
        vf, vn = self.visitors
        if visitor is not None or vf:
            vf.insert(0, 0)
            vn.insert(0, visitor)
        h = self.header
        return Recording(
            path=self.path, world=h.get("world"), map_path=h.get("map"), map_sha256=h.get("map_sha256"),
            model=h.get("model"), kind=str(h.get("kind") or "run"), start=self.start, step=self.step,
            names=self.names, tiles=tiles, facing=faces, actions=self.actions, objects=self.objects,
            object_changes=[(f, c) for f, c in self.object_changes if f <= last], events=events,
            visitor_names=(vf, vn), calls=self.calls, walls=(list(self.walls[0]), list(self.walls[1])),
            ended=self.ended, stopped=stopped, notes=self.notes, personas=h.get(PERSONAS),
        )


def _lines(fh: IO[bytes]) -> Iterator[tuple[int, bytes | None, bool]]:
    """(line number, the line's bytes or None when it is longer than MAX_LINE, whether it
    ends with a newline), one line in memory at a time."""
    n = 0
    while True:
        blob = fh.readline(MAX_LINE + 1)
        if not blob:
            return
        n += 1
        if len(blob) > MAX_LINE and not blob.endswith(b"\n"):  # no line is this long: skip to its end
            while blob and not blob.endswith(b"\n"):
                blob = fh.readline(MAX_LINE + 1)
            yield n, None, bool(blob)
            continue
        yield n, blob, blob.endswith(b"\n")


def read_recording(path: str | Path) -> Recording:
    """Read a recording file as far as it can be read (see the module's notes), one line
    at a time: a long game's recording is never in memory whole. RecordingError when it
    cannot be read at all."""
    path = Path(path)
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        raise RecordingError(f"{path}: there is no recording here") from None
    except OSError as err:
        raise RecordingError(f"{path}: cannot read the recording ({err})") from None
    with fh:
        try:
            return _read(path, _lines(fh))
        except OSError as err:
            raise RecordingError(f"{path}: cannot read the recording ({err})") from None


def _read(path: Path, lines: Iterable[tuple[int, bytes | None, bool]]) -> Recording:
    reader = _Reader(path)
    stopped = None
    damaged: str | None = None  # a damaged line: skip to the next header (a resumed run), else stop there
    for n, blob, ended in lines:
        if blob is not None and not blob.strip():
            continue
        last_line = not ended
        try:
            if blob is None:
                raise ValueError("a line longer than any the recorder writes")
            rec = json.loads(blob.decode("utf-8"))
            if not isinstance(rec, dict):
                raise ValueError("not an object")
        except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: nested a thousand deep
            if reader.header is None:
                raise RecordingError(f"{path} is not a Smallville recording (line {n} is not one); "
                                     "give a run folder, a save folder or a recording file") from None
            if damaged is None:
                why = "it ends in the middle of a line (the run was cut off)" if last_line else f"line {n} is damaged"
                damaged = f"{why}; the replay stops at {reader._hm(reader.frames - 1)}"
            continue
        kind = rec.get("k")
        if damaged is not None:
            if kind != "start":
                continue
            reader.notes.append(damaged.split(";")[0] + "; the run was resumed after it")
            damaged = None
        try:
            if reader.header is None and kind != "start":
                raise RecordingError(f"{path} is not a Smallville recording (it does not begin with a header)")
            if kind == "start":
                reader.header_line(rec, n)
            elif kind == "key":
                reader.key_line(rec, n)
            elif kind == "m":
                reader.block_line(rec, n)
            elif kind in ("a", "e", "o", "v"):
                if reader.cur_t is None:
                    raise _Stop(f"line {n}: records before the key frame")
                reader.record_line(rec, n)
            elif kind == "end":
                reader.ended = str(rec.get("why") or "ended")
        except (_Stop, *_DAMAGE) as err:  # _DAMAGE: a record of the wrong shape, a damaged line too
            why = str(err) if isinstance(err, _Stop) else f"line {n}: a damaged record ({type(err).__name__}: {err})"
            stopped = f"{why}; the replay stops at {reader._hm(reader.frames - 1)}" if reader.frames else why
            break
    if damaged is not None and stopped is None:
        stopped = damaged
    if reader.header is None:
        raise RecordingError(f"{path} cannot be played: {stopped}" if stopped else
                             f"{path} is empty: nothing was recorded")
    if reader.frames == 0:
        raise RecordingError(f"{path} holds no frame: {stopped or 'the recording stops before its first frame'}")
    rec = reader.result(stopped)
    if stopped:
        log.warning("%s: %s", path, stopped)
    return rec


# ---------------------------------------------------------------------------- finding one


@dataclass
class Target:
    """What ``smallville replay TARGET`` points at."""

    recording: Path
    save_folders: list[Path]  # where saves made along it may be
    game: bool  # a game session's recording (saves belong to it by their time), else a run's


def find_recording(given: str | Path) -> Target:
    """A run folder (its ``recording.jsonl``), the game's save folder (its newest
    recording), a ``recordings/`` folder, or a recording file. RecordingError
    naming what is missing."""
    p = Path(given)
    try:
        there = p.exists()
    except OSError as err:  # a name too long for the file system, say
        raise RecordingError(f"{str(p)[:80]}: not a path this system can open ({err.strerror})") from None
    if not there:
        raise RecordingError(f"{p}: there is no such run folder, save folder or recording")
    if p.is_file():
        if p.parent.name == GAME_FOLDER:
            return Target(p, [p.parent.parent], game=True)
        return Target(p, [p.parent / "saves", p.parent / "saves" / HISTORY_FOLDER], game=False)
    if (p / FILE).exists():
        return Target(p / FILE, [p / "saves", p / "saves" / HISTORY_FOLDER], game=False)
    folder = p / GAME_FOLDER if (p / GAME_FOLDER).is_dir() else p
    found = sorted(folder.glob("*.jsonl"), key=lambda q: (q.stat().st_mtime, q.name)) \
        if folder.name == GAME_FOLDER else []  # (a run folder's other .jsonl files are not recordings)
    if found:
        base = folder.parent if folder.name == GAME_FOLDER else folder
        return Target(found[-1], [base], game=True)
    if (p / "events.jsonl").exists():
        raise RecordingError(f"{p} has no {FILE}: it was run before runs were recorded. Its timeline.md and "
                             "events.jsonl still tell what happened; a new `smallville sim` records its run")
    raise RecordingError(f"{p} holds no recording ({FILE} for a run folder, {GAME_FOLDER}/*.jsonl for a save "
                         "folder); runs and games record themselves as they go")


__all__ = ["ABSENT", "FACING_NAMES", "Recording", "RecordingError", "Target", "find_recording", "read_recording"]
