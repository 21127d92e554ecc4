"""The game's town feed as it happens, built off the main thread (no pygame).

``LiveFeed`` holds a ``FeedBuilder`` (game/runs/feed.py) and a worker thread.
Once a frame the window calls ``pump(sim.events)`` on the main thread: it only
hands the references of the events logged since the last pump to the worker (a
slice of the event log's in-memory window); the worker folds them into the
feed. Views read ``newest(...)`` (a copy, under a lock) when ``version`` moved.

Nothing is lost across a save: ``to_state()`` holds the entries and how many
events the feed has read (``seen``, an index into the event log, which the
save holds whole), so a loaded game reads on from there. An old save without a
feed (or with a damaged one) rebuilds it from the last ``REBUILD`` events of
the loaded log, on the worker, and says so in the log.

Thread rules: ``pump``, ``load`` and ``reset`` on the main thread; ``newest``,
``hud_line`` and ``to_state`` anywhere (under the lock).
"""
from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Sequence
from typing import Any

from game.runs.feed import Entry, FeedBuilder, builder_for

log = logging.getLogger(__name__)

REBUILD = 2000  # events of a loaded log a feed is rebuilt from when the save has none


class LiveFeed:
    """The town feed of a running game (see the module's notes)."""

    def __init__(self, builder: FeedBuilder) -> None:
        self.builder = builder
        self.lock = threading.Lock()
        self.version = 0  # moves when the entries change
        self.queued = builder.seen  # events handed to the worker (an index into the event log)
        self.dropped = 0  # events the feed never read: older than the event log's memory when pumped
        self._generation = 0  # a load or reset voids batches queued before it
        self._q: queue.SimpleQueue[tuple[int, int, list] | None] = queue.SimpleQueue()
        self._pending = 0  # batches handed over and not yet read
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None

    @classmethod
    def for_cast(cls, personas: dict[str, Any], town: Any = None) -> LiveFeed:
        return cls(builder_for(personas, town))

    # ---- main thread --------------------------------------------------------------------------
    def pump(self, events: Sequence[dict]) -> int:
        """Hand the events logged since the last pump to the worker; how many. Reads only the
        event log's memory (``in_memory``), never its journal on disk."""
        n = len(events)
        if n < self.queued:  # the log was replaced under us (a load that did not tell us): read it anew
            self.queued = 0
        if n == self.queued:
            return 0
        in_memory = getattr(events, "in_memory", n)
        start = max(self.queued, n - in_memory)
        if start > self.queued:
            self.dropped += start - self.queued
            log.warning("feed: %d events were older than the event log's memory and are left out",
                        start - self.queued)
        since = getattr(events, "since", None)
        batch = since(start) if callable(since) else list(events[start:n])
        self._start()
        with self.lock:
            self._pending += 1
            self._idle.clear()
        self._q.put((self._generation, start, batch))
        self.queued = n
        return len(batch)

    def load(self, state: Any, events_len: int) -> str:
        """A loaded game: its saved feed, or (none, or damaged) one rebuilt from the loaded log's
        tail; says which."""
        with self.lock:
            self._generation += 1
            fresh = self.builder.blank()
            how = "restored"
            if state is None:
                how = "rebuilt (the save has no feed)"
            else:
                try:
                    fresh.from_state(state)
                    if fresh.seen > events_len:
                        raise ValueError(f"it has read {fresh.seen} events and the save holds {events_len}")
                except ValueError as err:
                    log.warning("the saved town feed is unusable (%s); it is rebuilt from the saved events", err)
                    fresh = self.builder.blank()
                    state = None
                    how = f"rebuilt (the saved feed was damaged: {err})"
            if state is None:
                fresh.seen = max(0, events_len - REBUILD)
            self.builder = fresh
            self.queued = fresh.seen
            self.version += 1
        log.info("town feed %s", how)
        return how

    def reset(self) -> None:
        """An empty feed from event 0 (a new game in the same window)."""
        with self.lock:
            self._generation += 1
            self.builder = self.builder.blank()
            self.queued = 0
            self.version += 1

    # ---- any thread ---------------------------------------------------------------------------
    def newest(self, resident: str | None = None, topic: str | None = None, limit: int | None = None) -> list[Entry]:
        with self.lock:
            return self.builder.newest(resident, topic, limit)

    def hud_line(self) -> str:
        with self.lock:
            e = self.builder.entries[-1] if self.builder.entries else None
            return e.line() if e is not None else ""

    @property
    def skipped(self) -> int:
        return self.builder.skipped

    def to_state(self) -> dict[str, Any]:
        with self.lock:
            return self.builder.to_state()

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until the worker has read every event handed to it (tests, a headless save)."""
        return self._idle.wait(timeout)

    def close(self) -> None:
        if self._thread is not None:
            self._q.put(None)
            self._thread = None

    # ---- the worker ---------------------------------------------------------------------------
    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="town-feed", daemon=True)
            self._thread.start()

    def _work(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                return
            generation, start, batch = item
            for k, ev in enumerate(batch):
                with self.lock:
                    if generation != self._generation:
                        break  # a load came in between: these events are the old game's
                    self.builder.seen = start + k  # add() counts it
                    if self.builder.add(ev) is not None:
                        self.version += 1
            with self.lock:
                self._pending -= 1
                if self._pending <= 0:
                    self._pending = 0
                    self._idle.set()


__all__ = ["REBUILD", "LiveFeed"]
