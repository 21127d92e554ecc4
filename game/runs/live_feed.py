"""The game's town feed as it happens, built off the main thread (no pygame).

``LiveFeed`` holds a ``FeedBuilder`` (game/runs/feed.py) that only its worker
thread touches. Once a frame the window calls ``pump(sim.events)`` on the main
thread: it hands the references of the events logged since the last pump to the
worker (a slice of the event log's in-memory window) and returns; it never
waits for the worker. The worker folds them into the feed and, a few times a
second while the feed changes, publishes a copy: the entries the views read
(``newest``, ``hud_line``) and the state a save holds (``to_state``). Reading a
published copy takes no lock, so the frame never waits for the feed either.

Nothing is lost across a save: the published state holds the entries and how
many events the feed had read by then (``seen``, an index into the event log,
which the save holds whole), so a loaded game reads on from there. An old save
without a feed (or with a damaged one) rebuilds it from the last ``REBUILD``
events of the loaded log, on the worker, and the log says which it was.

Thread rules: ``pump``, ``load``, ``reset`` and ``close`` on the main thread;
the rest anywhere.
"""
from __future__ import annotations

import copy
import logging
import queue
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from agents import Persona
from game.runs.feed import Entry, FeedBuilder, builder_for
from game.world.town import Town

log = logging.getLogger(__name__)

REBUILD = 2000  # events of a loaded log a feed is rebuilt from when the save has none
PUBLISH_S = 0.25  # while events keep coming, the views' copy is renewed this often


class LiveFeed:
    """The town feed of a running game (see the module's notes)."""

    def __init__(self, builder: FeedBuilder) -> None:
        self.builder = builder  # the worker's, once it runs
        self.queued = builder.seen  # events handed to the worker (an index into the event log)
        self.dropped = 0  # events the feed never read: older than the event log's memory when pumped
        self.damage = ""  # what a load found wrong with the saved feed, for the player ("": nothing)
        self._generation = 0  # a load voids the batches queued before it
        self._builder_generation = 0  # the load the worker's builder came from
        self._q: queue.Queue[tuple[str, int, Any, Any] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._dirty = False  # the worker changed the feed since it last published
        self._publish(builder)

    @classmethod
    def for_cast(cls, personas: Mapping[str, Persona | None], town: Town | None = None) -> LiveFeed:
        return cls(builder_for(personas, town))

    # ---- main thread --------------------------------------------------------------------------
    def pump(self, events: Sequence[dict]) -> int:
        """Hand the events logged since the last pump to the worker; how many. Reads only the
        event log's memory (``in_memory``), never its journal on disk; never waits."""
        n = len(events)
        if n < self.queued:  # the log was replaced under us (a load that did not tell us): read it anew
            self.load(None, n)
        if n == self.queued or self._closed:
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
        self._q.put(("events", self._generation, start, batch))
        self.queued = n
        return len(batch)

    # Any: JSON, as a save holds it (checked by FeedBuilder.from_state)
    def load(self, state: Any, events_len: int) -> str:
        """A loaded game: its saved feed, or one rebuilt from the loaded log's tail when the save
        has none or a damaged one; says which. The state is read here (a few ms), the worker
        swaps it in."""
        fresh = self.builder.blank()
        how = "restored"
        self.damage = ""
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
                how = f"rebuilt (the saved feed was damaged: {err})"
                self.damage = "its town feed was damaged and is rebuilt from its events"
        if fresh.dropped:
            n = fresh.dropped
            how += f", {n} damaged entr{'y' if n == 1 else 'ies'} left out"
            self.damage = f"{n} damaged entr{'y' if n == 1 else 'ies'} of its town feed left out"
        if not how.startswith("restored"):
            fresh.seen = max(0, events_len - REBUILD)
        self._generation += 1
        self.queued = fresh.seen
        self._publish(fresh)  # the views see the loaded feed at once
        if self._thread is None:
            self.builder, self._builder_generation = fresh, self._generation
        else:
            self._q.put(("swap", self._generation, fresh, None))
        log.info("town feed %s", how)
        return how

    def reset(self) -> None:
        """An empty feed from event 0."""
        self.load({"entries": []}, 0)

    def close(self) -> None:
        self._closed = True
        if self._thread is not None:
            self._q.put(None)
            self._thread = None

    # ---- any thread ---------------------------------------------------------------------------
    def newest(self, resident: str | None = None, topic: str | None = None, limit: int | None = None) -> list[Entry]:
        """The published entries, newest first, through the filter."""
        out = []
        for e in self._entries:
            if e.matches(resident, topic):
                out.append(e)
                if limit is not None and len(out) >= limit:
                    break
        return out

    def hud_line(self) -> str:
        entries = self._entries
        return entries[0].line() if entries else ""

    # Any: JSON, as a save holds it (checked by FeedBuilder.from_state)
    def to_state(self) -> dict[str, Any]:
        """The feed as last published (its ``seen`` says how far it had read): the save's part."""
        return self._state

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until the worker has read every event handed to it and published it (tests)."""
        end = time.monotonic() + timeout
        while (self._q.unfinished_tasks or self._dirty) and time.monotonic() < end:
            time.sleep(0.005)
        return not (self._q.unfinished_tasks or self._dirty)

    # ---- the worker ---------------------------------------------------------------------------
    def _publish(self, b: FeedBuilder) -> None:
        """A copy for the views and the save; each assignment is whole, so readers need no lock."""
        entries = tuple(copy.copy(e) for e in reversed(b.entries))
        self._state = b.to_state()
        self.skipped = b.skipped
        self._entries = entries
        self.version = getattr(self, "version", 0) + 1
        self._dirty = False

    def _start(self) -> None:
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._work, name="town-feed", daemon=True)
            self._thread.start()

    def _work(self) -> None:
        last = time.monotonic()
        while True:
            due = PUBLISH_S - (time.monotonic() - last)
            try:
                item = self._q.get(timeout=max(0.0, due) if self._dirty else None)
            except queue.Empty:  # quiet for a moment: what changed is published
                self._publish_own()
                last = time.monotonic()
                continue
            try:
                if item is None:
                    return
                kind, generation, a, b = item
                if kind == "swap":
                    self.builder, self._builder_generation = a, generation  # load published it already
                    self._dirty = False
                elif generation == self._generation:
                    self._read(generation, a, b)
                if self._dirty and time.monotonic() - last >= PUBLISH_S:
                    self._publish_own()
                    last = time.monotonic()
            finally:
                self._q.task_done()

    def _publish_own(self) -> None:
        """The worker's builder, published, unless a load has replaced it meanwhile."""
        if self._builder_generation == self._generation:
            self._publish(self.builder)
        else:
            self._dirty = False

    def _read(self, generation: int, start: int, batch: list) -> None:
        builder = self.builder
        for k, ev in enumerate(batch):
            if generation != self._generation:
                return  # a load came in between: these events are the old game's
            builder.seen = start + k  # add() counts it
            if builder.add(ev) is not None:
                self._dirty = True


__all__ = ["PUBLISH_S", "REBUILD", "LiveFeed"]
