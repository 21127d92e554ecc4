"""The event log: every event of a run, with only a bounded window in memory (no pygame).

The simulation logs what happens (an action begun, a line said, an arrival,
a reflection, an error, a world edit) as small dicts. A long town makes many
of them, and most are only ever read again by a save, a timeline or an
evaluation. So the log keeps the newest ``window`` events in memory and
streams older ones to a journal on disk: an anonymous temporary file (JSON
lines) that the operating system removes when the game ends, even after a
crash. Headless runs also stream every event to their run folder's
``events.jsonl`` (game/headless.py); the journal is the game's own copy.

It reads like a list of every event (``len``, indexing, slicing, iterating,
``==``), oldest first; reading events older than the window reads the
journal, which only saves, summaries and tests do. ``since(i)`` gives the
events from index ``i`` on (the window's when it can), ``recent(n)`` the last
``n`` (never the disk).

Saves copy only what they need on the main thread: ``snapshot()`` flushes
the journal and notes how far it goes, and copies the window's references (a
few microseconds); the callable it returns reads the rest from disk, on the
save writer's thread.

Main thread only, except the callables ``snapshot()`` returns (any thread).
"""
from __future__ import annotations

import json
import logging
import os
import tempfile
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, overload

log = logging.getLogger(__name__)

WINDOW = 4096  # events kept in memory (a busy sim day of 25 residents makes about 2,500)


class EventLog(Sequence[dict]):
    """Every event, oldest first: the newest ``window`` in memory, the rest in a journal on disk."""

    def __init__(self, events: Iterable[dict] = (), window: int = WINDOW) -> None:
        if window < 1:
            raise ValueError(f"the event log's window must hold at least one event, not {window}")
        self.window = int(window)
        self._recent: deque[dict] = deque()
        self._spilled = 0  # events in the journal (the oldest ones)
        self._offsets = array("q")  # byte offset of each journal line, and the end
        self._journal: IO[bytes] | None = None
        self.extend(events)

    # -- writing ------------------------------------------------------------------------
    def append(self, ev: dict) -> None:
        self._recent.append(ev)
        if len(self._recent) > self.window:
            self._spill(self._recent.popleft())

    def extend(self, events: Iterable[dict]) -> None:
        for ev in events:
            self.append(ev)

    def _spill(self, ev: dict) -> None:
        if self._journal is None:
            self._journal = tempfile.TemporaryFile(prefix="smallville-events-", suffix=".jsonl")  # noqa: SIM115 - kept
            self._offsets.append(0)
        line = (json.dumps(ev, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        self._journal.write(line)
        self._offsets.append(self._offsets[-1] + len(line))
        self._spilled += 1

    def reset(self, events: Iterable[dict] = ()) -> None:
        """Replace every event (a load)."""
        self.close()
        self._recent = deque()
        self._spilled = 0
        self._offsets = array("q")
        self.extend(events)

    def close(self) -> None:
        """Drop the journal (a snapshot taken before still reads it: it holds the file)."""
        self._journal = None

    # -- reading ------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._spilled + len(self._recent)

    @property
    def in_memory(self) -> int:
        return len(self._recent)

    @property
    def on_disk(self) -> int:
        return self._spilled

    @overload
    def __getitem__(self, i: int) -> dict: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict]: ...

    def __getitem__(self, i: int | slice) -> dict | list[dict]:
        n = len(self)
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step != 1:
                return [self[k] for k in range(start, stop, step)]
            return self._range(start, stop)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("event index out of range")
        if i >= self._spilled:
            return self._recent[i - self._spilled]
        return self._range(i, i + 1)[0]

    def _range(self, start: int, stop: int) -> list[dict]:
        if start >= stop:
            return []
        out: list[dict] = []
        if start < self._spilled:
            out = self._read(start, min(stop, self._spilled))
        lo = max(start, self._spilled) - self._spilled
        hi = stop - self._spilled
        if hi > lo:
            out.extend(self._recent[k] for k in range(lo, hi))
        return out

    def _read(self, start: int, stop: int) -> list[dict]:
        assert self._journal is not None
        self._journal.flush()
        return _read_lines(self._journal, self._offsets[start], self._offsets[stop])

    def __iter__(self) -> Iterator[dict]:
        if self._spilled:
            yield from self._read(0, self._spilled)
        yield from list(self._recent)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (EventLog, list, tuple)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def since(self, index: int) -> list[dict]:
        """The events from ``index`` (an earlier ``len()``) on."""
        return self._range(max(0, index), len(self))

    def recent(self, n: int) -> list[dict]:
        """The last ``n`` events (at most the window: never reads the disk)."""
        if n <= 0:
            return []
        k = min(n, len(self._recent))
        return list(self._recent)[-k:]

    def snapshot(self) -> Callable[[], list[dict]]:
        """Every event so far, as a callable that builds the list later, on any thread
        (a save's writer). Main thread: a flush and a copy of the window's references."""
        recent = list(self._recent)
        if not self._spilled:
            return lambda: list(recent)
        journal = self._journal
        assert journal is not None
        journal.flush()
        end = self._offsets[self._spilled]

        def build() -> list[dict]:
            return _read_lines(journal, 0, end) + recent
        return build

    def __repr__(self) -> str:
        return f"EventLog({len(self)} events: {self._spilled} on disk, {len(self._recent)} in memory)"


def _read_lines(journal: IO[bytes], start: int, end: int) -> list[dict]:
    """The journal's events between two byte offsets; ``os.pread`` leaves the
    file's position alone, so another thread may read while the log writes."""
    if end <= start:
        return []
    data = os.pread(journal.fileno(), end - start, start)
    out = []
    for line in data.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:  # cannot happen short of a damaged disk: keep the rest
            log.warning("an unreadable line in the event journal was skipped")
    return out


__all__ = ["WINDOW", "EventLog"]
