"""Save files: one SQLite file per save, written crash-safely (no pygame).

This module stores and returns a *plain state*: a dict of named parts
("clock", "sim", "minds/<resident>", "objects", "visitor", "accounting",
"random", ...), each a nested structure of dict / list / tuple / set / str /
int / float / bool / None / datetime / date / timedelta / bytes and numpy
arrays. It knows nothing about the simulation or the minds: the caller turns
its objects into parts and back.

The file::

    PRAGMA application_id = 0x534D5631 ("SMV1": this is a Smallville save)
    PRAGMA user_version   = SCHEMA (what this file's layout is)
    meta(key, value)            one JSON value per key: schema, game version,
                                map path + sha256 + size, world, sim time, real time
                                saved, slot, residents, embedding model + dim,
                                the list of parts
    state(name, json, crc, arrays)   one row per part: the part as JSON (crc32
                                checked on load); numpy arrays replaced by
                                {"__nd__": i}; datetimes, tuples, sets, non-str
                                keys tagged ({"__dt__": iso}, ...); long lists
                                of same-keyed dicts (memory nodes) stored as
                                columns ({"__rows__": [keys, columns]}: the
                                rows come back with the first row's key order)
    arrays(part, idx, dtype, shape, nbytes, data)   the arrays' raw bytes (BLOB)

Crash safety: a save is written to a hidden temporary file in the target's
folder, committed, fsynced, and moved over the target with ``os.replace``; the
folder is fsynced after. A process killed at any moment leaves either the old
file or the new one, never half of one. Stale temporary files (their writer
is dead) are removed by the next save and never listed.

Off the frame: the main thread calls ``freeze(parts)`` (a fast deep copy;
numpy arrays are copied unless they are read-only) and hands the copy to a
``SaveWriter``, whose one background thread encodes and writes. A part may
also be a zero-argument callable; the writer calls it on its thread (for a
cheap snapshot that is expensive to render as plain data). Loading is pure:
``load_state`` builds a fresh structure and can run on any thread; it raises
``SaveError`` (a message for people) and never touches the running game.

The code: game/saves/disk.py (the file: write, read, list, names),
game/saves/series.py (each game's own saves: its autosave series and slots),
game/saves/check.py (what a loaded save must be: the meta, the parts),
game/saves/codec.py (plain copies, encoding, scrubbing), game/saves/compat.py
(migrations from older schemas; the map's identity: world, size, addresses)
and, here, the
``SaveWriter`` that does the slow part on its own thread. Import from here:
``__all__`` is the public API.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from game.saves.codec import freeze, no_gc, scrub_text, state_diff, states_equal
from game.saves.compat import ExpectedMap, map_size, migrate
from game.saves.disk import (
    AUTOSAVE_PREFIX,
    SCHEMA,
    SUFFIX,
    SaveInfo,
    check_map,
    clean_stale_temps,
    copy_atomically,
    game_version,
    list_saves,
    load_state,
    map_fingerprint,
    read_info,
    save_state,
    slot_of,
    slot_path,
)
from game.saves.series import autosave
from game.support.errors import SaveError

log = logging.getLogger(__name__)
T = TypeVar("T")  # what a writer's job gives back

__all__ = [
    "AUTOSAVE_PREFIX",
    "SCHEMA",
    "SUFFIX",
    "SaveError",
    "SaveInfo",
    "SaveStatus",
    "SaveWriter",
    "autosave",
    "check_map",
    "clean_stale_temps",
    "copy_atomically",
    "freeze",
    "game_version",
    "list_saves",
    "load_state",
    "map_fingerprint",
    "map_size",
    "migrate",
    "no_gc",
    "read_info",
    "save_state",
    "scrub_text",
    "slot_path",
    "state_diff",
    "states_equal",
]


# ------------------------------------------------------------ off the frame

@dataclass
class SaveStatus:
    state: str = "idle"        # idle | saving | saved | loading | loaded | failed
    text: str = ""             # for the HUD: "saving…", "saved slot quick", "save failed: ..."
    since: float = 0.0         # time.monotonic() of the change
    seconds: float | None = None   # how long the last job took


class SaveWriter:
    """One background thread that writes (and loads) saves, in order.

        w = SaveWriter()
        fut = w.save(slot_path("quick"), freeze(parts), meta)   # main thread: only the freeze
        ... w.status.text -> "saving…" / "saved slot quick" / "save failed: ..."
        w.wait()                                                # tests, quitting
        fut.result()  -> SaveInfo (or raises SaveError)
    """

    def __init__(self, on_done: Callable[[str, object], None] | None = None):
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="saves")
        self._lock = threading.Lock()
        self._status = SaveStatus()
        self._pending = 0
        self._futures: list[Future] = []  # jobs not known to be done
        self._on_done = on_done

    @property
    def status(self) -> SaveStatus:
        with self._lock:
            return SaveStatus(self._status.state, self._status.text, self._status.since, self._status.seconds)

    def busy(self) -> bool:
        with self._lock:
            return self._pending > 0

    def _set(self, state: str, text: str, seconds: float | None = None) -> None:
        with self._lock:
            self._status = SaveStatus(state, text, time.monotonic(), seconds)

    def _submit(self, kind: str, fn: Callable[[], T], start_text: str, done_text: Callable[[T], str]) -> Future[T]:
        with self._lock:
            self._pending += 1
            self._status = SaveStatus("saving" if kind == "save" else "loading", start_text, time.monotonic())

        def job():
            # The status says "saved" (and on_done has run) before the job counts as
            # finished: whoever waits (wait(), the future) then reads the final status.
            t0 = time.perf_counter()
            try:
                try:
                    self._set("saving" if kind == "save" else "loading", start_text)
                    result = fn()
                except SaveError as err:
                    self._set("failed", f"{kind} failed: {err}", time.perf_counter() - t0)
                    log.warning("%s failed: %s", kind, err)
                    raise
                except Exception as err:
                    log.exception("%s failed", kind)
                    self._set("failed", f"{kind} failed: {type(err).__name__}: {err}", time.perf_counter() - t0)
                    raise SaveError(f"{kind} failed: {err}") from err
                self._set("saved" if kind == "save" else "loaded", done_text(result), time.perf_counter() - t0)
                if self._on_done:
                    try:
                        self._on_done(kind, result)
                    except Exception:
                        log.exception("save callback failed")
                return result
            finally:
                with self._lock:
                    self._pending -= 1
        fut = self._pool.submit(job)
        with self._lock:
            self._futures = [f for f in self._futures if not f.done()] + [fut]
        return fut

    def save(self, path: str | os.PathLike, parts: Mapping[str, object], meta: dict | None = None) -> Future:
        """Write an already-frozen snapshot (see freeze) in the background."""
        path = Path(path)
        return self._submit("save", lambda: save_state(path, parts, meta), "saving…",
                            lambda info: f"saved slot {info.slot}")

    def autosave(self, parts: Mapping[str, object], meta: dict | None, folder: str | os.PathLike | None = None,
                 keep: int = 3) -> Future:
        return self._submit("save", lambda: autosave(parts, meta, folder, keep), "autosaving…",
                            lambda info: f"autosaved ({info.slot})")

    def load(self, path: str | os.PathLike, expect_map: ExpectedMap | None = None, require=(),
             then: Callable[[dict, SaveInfo], object] | None = None) -> Future:
        """load_state on the background thread; the future's result is (parts, info),
        or ``then(parts, info)`` when given (e.g. building the loaded game off the frame)."""
        path = Path(path)

        def job():
            parts, info = load_state(path, expect_map, require)
            return then(parts, info) if then is not None else (parts, info)
        return self._submit("load", job, "loading…", lambda r: f"loaded slot {slot_of(path)}")

    def wait(self, timeout: float | None = None) -> bool:
        """Until every queued job has finished (its status set, its future resolved),
        including jobs queued meanwhile; False on timeout."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                self._futures = [f for f in self._futures if not f.done()]
                pending = list(self._futures)
            if not pending:
                return True
            left = None if end is None else max(0.0, end - time.monotonic())
            _done, not_done = futures_wait(pending, timeout=left)
            if not_done:
                return False

    def close(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait)
