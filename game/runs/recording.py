"""Recording a run as it goes, so it can be played back (``smallville replay``; no pygame).

A ``Recorder`` watches one simulation: it hears every event through
``sim.listeners`` and samples the bodies after each step
(``after_step(sim)``, called by the headless loop and by ``Session.update``).
It never reads the event log back (that log may be bounded), and it never
waits for the disk: the main thread only builds small dicts; a writer thread
encodes them and appends them to the file.

The file, ``recording.jsonl`` (a run folder) or ``recordings/<stamp>.jsonl``
(the game's save folder), is one JSON object per line, ``"k"`` its kind.
Frames are numbered from the segment's start: frame ``f`` is the town at
``time + f * step_s`` seconds, as it stands after the step that brought the
clock there.

- ``start``  the segment's header: format, world, map (path and sha256),
  time, step_s, bodies (residents, then the visitor's slot), model, kind
  (run | game), wall time, and the residents' personas (``personas``, as a
  save keeps them: game/saves/cast.py). A resumed run appends a new header; one that
  starts earlier than the file's last frame rewinds it (a run resumed from an
  older save).
- ``key``    frame 0: each body's tile and facing, each body's action and
  conversation, the objects that are not idle, model calls and tokens so far.
- ``m``      a block of up to ``BLOCK`` frames (5 sim minutes): for each body
  that moved or turned, ``[x, y, codes]`` (and the jump targets): its tile at
  the block's first frame ``s``, then one code per frame: ``.`` stays,
  ``U D L R`` and ``q e z c`` (up-left, up-right, down-left, down-right) step,
  ``*`` jumps (the next listed target); ``^ v < >`` after a frame's code turn
  the body to face up, down, left, right. Trailing stays are left out. Also
  the wall time and the model calls and tokens so far.
- ``a``      a body's action changed (or its conversation): the action
  (``action_record``: short keys, with the note of the decision that chose it),
  the conversation's id.
- ``e``      an event of the sim's log (lines, conversations, reflections,
  edits, errors, ...), without its time; action events live in the ``a``
  records and arrivals in the tiles, so neither is written twice.
- ``o``      objects whose state changed at that frame.
- ``v``      the visitor's slot has a new name.
- ``end``    why the recording stopped (finished, interrupted, closed, a load).

Every line is redacted on its way to the file (agents/support/redact.py): a recording
may be shared, and no line of it carries a key or an endpoint's credentials.

Every line of a block is handed over at the block's end, together, and the
writer flushes after each batch: a run that is killed (even with SIGKILL)
plays back up to its last whole block.

``SaveHistory`` keeps a hard link to an autosave every ``HISTORY_HOURS``
sim hours in ``saves/history/`` (autosaves rotate): the replay's inspector
shows plans and memories from the nearest save before the moment shown.
"""
from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
from concurrent.futures import Future
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from agents import Accounting, Action, redact
from game.saves.cast import PERSONAS, personas_data
from game.saves.store import SaveInfo, copy_atomically, map_fingerprint
from game.sim import STEP, Simulation
from game.sim.clocks import Frame
from game.world.grid import facing as facing_of
from game.world.town import Town

log = logging.getLogger(__name__)

FORMAT = 1
FILE = "recording.jsonl"  # in a run folder
GAME_FOLDER = "recordings"  # in the game's save folder: recordings/<stamp>.jsonl
BLOCK = 30  # frames per movement block: 5 sim minutes, the most a killed run loses
HISTORY_HOURS = 3.0  # sim hours between the autosaves a run keeps for the replay's inspector
HISTORY_FOLDER = "history"
HISTORY_NAME = "%Y%m%d-%H%M%S"  # a kept save's file name: its sim time

STAY, JUMP = ".", "*"
MOVES: dict[tuple[int, int], str] = {
    (0, -1): "U", (0, 1): "D", (-1, 0): "L", (1, 0): "R",
    (-1, -1): "q", (1, -1): "e", (-1, 1): "z", (1, 1): "c",  # the keys around S on a keyboard
}
DELTAS: dict[str, tuple[int, int]] = {c: d for d, c in MOVES.items()}
TURNS: dict[str, str] = {"up": "^", "down": "v", "left": "<", "right": ">"}
FACINGS: dict[str, str] = {c: f for f, c in TURNS.items()}


def action_record(action: Action | None, target: str | None, now: datetime | None = None,
                  note: str | None = None) -> dict | None:
    """An action as the recording keeps it, in short keys, defaults left out:
    ``d`` description, ``ad`` address, ``tg`` the place it resolved to (when not
    the address), ``st`` its start in seconds before ``now`` (when not now),
    ``du`` minutes, ``em`` emoji, ``os`` the object's state, ``tt`` whom it
    talks to, ``src`` its provenance, ``note`` why it was chosen (the decision's
    note: "reacted to: ...", "next: ...")."""
    if action is None:
        return None
    rec: dict[str, Any] = {"d": action.description, "ad": action.address, "du": action.duration_min,
                           "em": action.emoji}
    if target and target != action.address:
        rec["tg"] = target
    start = action.start
    if isinstance(start, datetime) and now is not None and start != now:
        rec["st"] = int((now - start).total_seconds())
    for key, value in (("os", action.object_state), ("tt", action.talking_to), ("src", action.source),
                       ("note", note)):
        if value:
            rec[key] = value
    return rec


def action_fields(rec: dict | None, now: datetime) -> dict | None:
    """``action_record``'s dict back in long names (``start`` a datetime; ``target``
    the resolved place), for the frame whose time is ``now``."""
    if not rec:
        return None
    return {
        "description": str(rec.get("d", "")), "address": str(rec.get("ad", "")),
        "target": rec.get("tg") or rec.get("ad"), "start": now - timedelta(seconds=int(rec.get("st", 0) or 0)),
        "duration_min": int(rec.get("du", 0) or 0), "emoji": str(rec.get("em", "") or ""),
        "object_state": rec.get("os"), "talking_to": rec.get("tt"), "source": str(rec.get("src", "") or ""),
        "note": str(rec.get("note", "") or ""),
    }


def game_recording_path(folder: str | Path, now: datetime | None = None) -> Path:
    """Where a game session records: ``<save folder>/recordings/<real date-time>.jsonl`` (a new name)."""
    base = Path(folder) / GAME_FOLDER
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    path = base / f"{stamp}.jsonl"
    n = 2
    while path.exists():
        path = base / f"{stamp}-{n}.jsonl"
        n += 1
    return path


class _Writer:
    """One daemon thread that appends batches of records to the file and flushes
    after each. A disk error is logged once; the town goes on without the recording."""

    def __init__(self, path: Path, append: bool) -> None:
        self.path = path
        self.bytes = 0
        self.error: str | None = None
        path.parent.mkdir(parents=True, exist_ok=True)
        cut_off = append and _ends_mid_line(path)
        self._fh = path.open("a" if append else "w", encoding="utf-8")
        if cut_off:  # a killed run's last line stays on a line of its own (the reader skips it)
            self._fh.write("\n")
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="recording", daemon=True)
        self._thread.start()

    def put(self, batch: list[dict]) -> None:
        if batch and self.error is None:
            self._queue.put(batch)

    def _run(self) -> None:
        while True:
            batch = self._queue.get()
            if batch is None:
                break
            if self.error is not None:
                continue
            try:
                text = redact("".join(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n"
                                      for rec in batch))
                self._fh.write(text)
                self._fh.flush()
                self.bytes += len(text.encode("utf-8"))
            except (OSError, ValueError, TypeError) as err:  # a full disk must not stop the town
                self.error = f"{type(err).__name__}: {err}"
                log.warning("recording: cannot write %s (%s); the rest of this run is not recorded",
                            self.path, self.error)

    def close(self, timeout: float = 10.0) -> None:
        self._queue.put(None)
        self._thread.join(timeout)
        try:
            self._fh.close()
        except OSError:
            pass


class Recorder:
    """Records one simulation into a file as it runs (see the module's notes).

    ``Recorder(path, sim, kind=...)`` writes the header and frame 0 at once;
    then ``after_step(sim)`` after every step and ``close(why)`` at the end.
    ``append``: continue an existing file (a resumed run)."""

    def __init__(self, path: str | Path, sim: Simulation, *, kind: str = "run", model: str | None = None,
                 accounting: Accounting | None = None, append: bool = False) -> None:
        self.path = Path(path)
        self.kind = kind
        self.model = model
        self.accounting = accounting
        self.closed = False
        self.frames = 0  # frames recorded after frame 0
        self._writer = _Writer(self.path, append)
        self._sim: Simulation = sim  # (again in _attach: a loaded save brings another)
        self._events: list[dict] = []
        self._pending: list[dict] = []
        self._attach(sim)

    # ------------------------------------------------------------------ set-up
    def _attach(self, sim: Simulation) -> None:
        self._sim = sim
        if self._hear not in sim.listeners:
            sim.listeners.append(self._hear)
        town = sim.town
        self.names: list[str] = list(sim.minds)
        self._visitor_name = getattr(sim, "visitor", None)
        self.start = sim.now
        self.frame = 0
        n = len(self.names) + 1  # the last slot is the visitor's (empty in a headless run)
        self._tile: list[tuple[int, int] | None] = [None] * n
        self._face: list[str] = ["down"] * n
        self._act: list[Any] = [None] * n
        self._conv: list[Any] = [None] * n
        bodies = [self._body(i) for i in range(n)]
        for i, b in enumerate(bodies):
            if b is not None:
                self._tile[i], self._face[i] = tuple(b.tile), b.facing
                self._act[i], self._conv[i] = b.action, b.conversation
        self._objects = dict(town.object_states)
        self._new_block()
        header = {
            "k": "start", "format": FORMAT, "kind": self.kind, "world": getattr(town, "world", None),
            "map": str(getattr(town, "path", "") or "") or None, "map_sha256": _map_sha(town),
            "time": self.start.isoformat(sep=" "), "step_s": int(STEP.total_seconds()), "block": BLOCK,
            "bodies": self.names + ["visitor"], "visitor": self._visitor_name, "model": self.model,
            "wall": round(time.time(), 1),
        }
        # The residents themselves, as a save keeps them: the replay shows a generated town's people
        known = getattr(sim, "personas", None) or {}
        people = personas_data(known.get(n) or sim.minds[n].persona for n in self.names)
        if people:
            header[PERSONAS] = people
        key = {
            "k": "key", "s": 0,
            "tiles": [[*t, f] if t is not None else None for t, f in zip(self._tile, self._face)],
            "actions": [action_record(b.action, b.target, self.start) if b is not None else None for b in bodies],
            "conversations": [b.conversation if b is not None else None for b in bodies],
            "objects": {a: s for a, s in self._objects.items() if s and s != "idle"},
            **self._calls(),
        }
        self._writer.put([header, key])

    # Any: a Body, or a Pose of a frame pieced together out of order (game/sim/clocks.py): read alike
    def _body(self, i: int, bodies: Any = None) -> Any:
        sim = self._sim
        bodies = sim.bodies if bodies is None else bodies
        if i < len(self.names):
            return bodies.get(self.names[i])
        name = getattr(sim, "visitor", None)
        return bodies.get(name) if name else None

    def _new_block(self) -> None:
        self._block_s = self.frame
        self._block_tiles = list(self._tile)
        self._codes: list[list[str]] = [[] for _ in self._tile]
        self._jumps: list[list[list[int]]] = [[] for _ in self._tile]
        self._moved = [False] * len(self._tile)

    def _calls(self) -> dict:
        total = getattr(self.accounting, "total", None)
        if total is None:
            return {}
        try:
            return {"c": int(total.calls), "t": int(total.tokens)}
        except (AttributeError, TypeError, ValueError):
            return {}

    # ------------------------------------------------------------------ hearing and sampling
    def _hear(self, ev: dict) -> None:
        if not self.closed:
            self._events.append(ev)

    def after_step(self, sim: Simulation, frame: Frame | None = None) -> None:
        """Sample the town after one step (main thread; tens of microseconds). ``frame``:
        the town at that step pieced together from residents on their own clocks
        (game/sim/clocks.py ``Frame``: its time, its bodies, its object states)."""
        if self.closed:
            return
        if sim is not self._sim:  # another simulation took over (a loaded save): this timeline ends
            self.close("a save was loaded", also=sim)
            return
        self.frame += 1
        self.frames += 1
        f = self.frame
        now = sim.now if frame is None else frame.now
        bodies = sim.bodies if frame is None else frame.bodies
        decided = self._take_events(f)
        visitor = getattr(sim, "visitor", None)
        if visitor != self._visitor_name:
            self._visitor_name = visitor
            self._pending.append({"k": "v", "s": f, "name": visitor})
        for i in range(len(self._tile)):
            b = self._body(i, bodies)
            codes = self._codes[i]
            if b is None:
                codes.append(STAY)
                continue
            tile = (int(b.tile[0]), int(b.tile[1]))
            last = self._tile[i]
            if last is None:  # a visitor who came in after the start: a jump onto the map
                self._block_tiles[i] = self._block_tiles[i] or tile
                code, implied = JUMP, self._face[i]
                self._jumps[i].append(list(tile))
            elif tile == last:
                code, implied = STAY, self._face[i]
            else:
                d = (tile[0] - last[0], tile[1] - last[1])
                code = MOVES.get(d, JUMP)
                if code == JUMP:
                    self._jumps[i].append(list(tile))
                    implied = self._face[i]
                else:
                    implied = facing_of(d[0], d[1], self._face[i])
            codes.append(code)
            if code != STAY:
                self._moved[i] = True
                self._tile[i] = tile
            if b.facing != implied and b.facing in TURNS:
                codes.append(TURNS[b.facing])
                self._moved[i] = True
            self._face[i] = b.facing
        self._sample_actions(f, now, decided, bodies)
        states = sim.town.object_states if frame is None else frame.object_states
        if states != self._objects:
            changed = {a: s for a, s in states.items() if self._objects.get(a) != s}
            self._objects = dict(states)
            self._pending.append({"k": "o", "s": f, "o": changed})
        if f - self._block_s >= BLOCK:
            self._flush_block()

    # Any: Bodies, or a frame's Poses (see _body)
    def _sample_actions(self, f: int, now: datetime, decided: dict[str, dict], bodies: Any) -> None:
        """An ``a`` record for every body whose action or conversation changed."""
        for i in range(len(self._tile)):
            b = self._body(i, bodies)
            if b is None or (b.action is self._act[i] and b.conversation == self._conv[i]):
                continue
            self._act[i], self._conv[i] = b.action, b.conversation
            ev = decided.pop(b.name, None)  # the action event that set it: its note joins the record
            note = ev.get("note") if ev is not None else None
            self._pending.append({"k": "a", "s": f, "b": i, "a": action_record(b.action, b.target, now, note),
                                  "c": b.conversation})
        for ev in decided.values():  # an action event without a new action (none known): kept as an event
            self._pending.append(self._event(f, ev))

    def _take_events(self, f: int) -> dict[str, dict]:
        """The events heard since the last frame go to frame ``f``; arrivals are left
        out (the tiles show them) and action events are returned by resident (an
        action record carries what they say)."""
        decided: dict[str, dict] = {}
        for ev in self._events:
            kind = ev.get("kind")
            if kind == "arrive":
                continue
            if kind == "action" and ev.get("resident"):
                if ev["resident"] in decided:
                    self._pending.append(self._event(f, decided[ev["resident"]]))
                decided[ev["resident"]] = ev
                continue
            self._pending.append(self._event(f, ev))
        self._events = []
        return decided

    @staticmethod
    def _event(f: int, ev: dict) -> dict:
        rec = {"k": "e", "s": f}
        rec.update((k, v) for k, v in ev.items() if k != "time")
        return rec

    def _flush_block(self) -> None:
        n = self.frame - self._block_s
        paths: dict[str, list] = {}
        for i, moved in enumerate(self._moved):
            if not moved:
                continue
            start = self._block_tiles[i]
            entry: list[Any] = [*(start if start is not None else (-1, -1)), "".join(self._codes[i]).rstrip(STAY)]
            if self._jumps[i]:
                entry.append(self._jumps[i])
            paths[str(i)] = entry
        block = {"k": "m", "s": self._block_s, "n": n, "p": paths, "w": round(time.time(), 1), **self._calls()}
        batch, self._pending = self._pending, []
        batch.append(block)
        self._writer.put(batch)
        self._new_block()

    @property
    def sim(self) -> Simulation:
        """The simulation recorded (a loaded save brings another: a new recording)."""
        return self._sim

    # ------------------------------------------------------------------ the end
    def close(self, why: str = "closed", also: Simulation | None = None) -> None:
        """Write what is left (the last, partial block and an end mark) and stop.
        ``also``: another simulation that has this recorder's listener (a loaded
        save's, which took the listeners over); what it logged is not this timeline's."""
        if self.closed:
            return
        if also is not None and also is not self._sim:
            self._events = []
            if self._hear in also.listeners:
                also.listeners.remove(self._hear)
        decided = self._take_events(self.frame)
        self._sample_actions(self.frame, self.start + self.frame * STEP, decided, None)  # what the last drain decided
        if self.frame > self._block_s or self._pending:
            self._flush_block()
        self._writer.put([{"k": "end", "s": self.frame, "why": why, "wall": round(time.time(), 1)}])
        self.closed = True
        try:
            self._sim.listeners.remove(self._hear)
        except ValueError:
            pass
        self._writer.close()

    @property
    def bytes_written(self) -> int:
        return self._writer.bytes

    @property
    def error(self) -> str | None:
        return self._writer.error

    def stats(self, residents: int | None = None, hours: float | None = None) -> dict:
        """Size of the recording so far: bytes, and bytes per resident per sim hour
        (``hours``: the sim hours the whole file covers, when it holds more than this
        recorder wrote: a resumed run)."""
        if hours is None:
            hours = self.frames * STEP.total_seconds() / 3600.0
        n = residents if residents is not None else len(self.names)
        size = self._writer.bytes
        try:
            size = self.path.stat().st_size
        except OSError:
            pass
        per = size / n / hours if n and hours > 0 else None
        return {"file": self.path.name, "bytes": size, "sim_hours": round(hours, 3),
                "bytes_per_resident_per_sim_hour": round(per) if per is not None else None}


def _ends_mid_line(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell() == 0:
                return False
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) != b"\n"
    except OSError:
        return False


def _map_sha(town: Town) -> str | None:
    path = getattr(town, "path", None)
    if not path:
        return None
    try:
        return map_fingerprint(path)
    except OSError:
        return None


class SaveHistory:
    """Keeps one autosave every ``every_h`` sim hours in ``folder`` (a hard link,
    else a copy) so a run's replay has saves to show minds from across the whole
    run, while the autosaves themselves rotate. ``saved(future)`` is the
    autosave future's done-callback (the save writer's thread)."""

    def __init__(self, folder: str | Path, every_h: float = HISTORY_HOURS) -> None:
        self.folder = Path(folder)
        self.every = timedelta(hours=every_h)
        self.last: datetime | None = None  # the sim time of the newest save kept (a resumed run has some)
        self.kept: list[Path] = []
        for p in self.folder.glob("*.sqlite") if self.folder.is_dir() else ():
            try:
                when = datetime.strptime(p.stem, HISTORY_NAME)
            except ValueError:
                continue
            self.last = when if self.last is None else max(self.last, when)

    def saved(self, fut: Future[SaveInfo]) -> None:
        try:
            info = fut.result()
        except Exception:  # noqa: BLE001 - a failed autosave was reported by its writer
            return
        self.keep(info)

    def keep(self, info: SaveInfo) -> Path | None:
        when = getattr(info, "sim_time", None)
        if when is None or (self.last is not None and when - self.last < self.every - timedelta(seconds=1)):
            return None
        target = self.folder / f"{when:{HISTORY_NAME}}.sqlite"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            copy_atomically(info.path, target, link=True)  # a failure keeps the one kept before
        except OSError as err:
            log.warning("could not keep %s for the replay: %s", info.path, err)
            return None
        self.last = when
        self.kept.append(target)
        return target


__all__ = [
    "BLOCK",
    "DELTAS",
    "FACINGS",
    "FILE",
    "FORMAT",
    "GAME_FOLDER",
    "HISTORY_FOLDER",
    "HISTORY_HOURS",
    "JUMP",
    "MOVES",
    "STAY",
    "TURNS",
    "Recorder",
    "SaveHistory",
    "action_fields",
    "action_record",
    "game_recording_path",
]
