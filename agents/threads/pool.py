"""The worker pool the minds think on.

At most one job per key (a resident's name) in flight; finished jobs wait in a
queue until the main thread collects them with ``results()`` and applies them
to the world. ``cancel_all()`` drops queued jobs and makes the results of
running ones vanish (a generation counter), for shutdown and for loading a
save. Exceptions inside jobs come back as ``JobResult.error`` and are logged
with the key, never lost.

Jobs wait in rank order, not first come first served (agents/threads/priority.py): the
lowest rank runs next, and the job's rank is set on the worker thread while it
runs, so its model calls wait by it too. Work the player waits for (an urgent
rank) has lanes of its own, threads that run nothing else: a reply never
waits for a worker busy with a resident's planning.
"""
from __future__ import annotations

import heapq
import itertools
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from typing import Any

from agents.threads import priority
from agents.threads.priority import Rank

log = logging.getLogger(__name__)


@dataclass
class JobResult:
    key: str
    value: Any = None
    error: BaseException | None = None
    seconds: float = 0.0  # wall time the job ran on its worker (the pace of the minds is measured from it)

    @property
    def ok(self) -> bool:
        return self.error is None


def lower_this_thread(nice: int) -> bool:
    """Lower the calling thread's scheduling priority by ``nice`` (Linux: per thread);
    False where it cannot (other systems, a sandbox)."""
    if nice <= 0 or not hasattr(os, "setpriority"):
        return False
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
        return True
    except OSError:
        return False


@dataclass(order=True)
class _Queued:
    rank: Rank
    seq: int
    key: str = field(compare=False)
    gen: int = field(compare=False)
    fn: Callable[..., Any] = field(compare=False)
    args: tuple = field(compare=False)
    kwargs: dict = field(compare=False)


class MindPool:
    """``concurrency`` workers for any job, plus ``urgent_lanes`` that run only
    urgent ones. ``nice``: how much lower the (town) workers' scheduling
    priority is than the main thread's. In the window the minds' model calls,
    embeddings and retrieval compete with the frame for a few cores; with a
    lower priority the frame thread gets a core back at once when it wakes
    (Linux schedules threads one by one). Urgent lanes keep the main thread's
    priority: the player is waiting for them."""

    def __init__(self, concurrency: int, nice: int = 0, urgent_lanes: int = 1) -> None:
        self.concurrency = max(1, int(concurrency))
        self.nice = max(0, int(nice))
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)  # wait() and wait_keys() check their own condition
        self._work = threading.Condition(self._lock)  # workers wait here for a job
        self._queue: list[_Queued] = []  # a heap: the lowest rank first
        self._seq = itertools.count()
        self._jobs: dict[str, int] = {}  # key -> generation, queued or running
        self._results: queue.SimpleQueue[JobResult] = queue.SimpleQueue()
        self._generation = 0
        self._closed = False
        self.submitted = 0
        self.failed = 0
        self._threads = [threading.Thread(target=self._worker, args=(False,), name=f"mind-{i}", daemon=True)
                         for i in range(self.concurrency)]
        self._threads += [threading.Thread(target=self._worker, args=(True,), name=f"mind-urgent-{i}", daemon=True)
                          for i in range(max(0, int(urgent_lanes)))]
        for t in self._threads:
            t.start()

    # -- submitting ------------------------------------------------------------------
    def submit(self, key: str, fn: Callable[..., Any], *args: Any, rank: Rank = priority.DEFAULT,
               **kwargs: Any) -> bool:
        """Run ``fn(*args, **kwargs)`` on the pool, in ``rank`` order; False if ``key``
        already has a job in flight."""
        with self._lock:
            if self._closed or key in self._jobs:
                return False
            self._jobs[key] = self._generation
            heapq.heappush(self._queue, _Queued((int(rank[0]), float(rank[1])), next(self._seq), key, self._generation,
                                                fn, args, kwargs))
            self.submitted += 1
            self._work.notify_all()  # an urgent lane waits for its kind only: wake them all
            return True

    def _next(self, urgent_only: bool) -> _Queued | None:
        """The next job this worker may run (None: the pool closed). Holds the lock."""
        while True:
            if self._closed:
                return None
            if self._queue and (not urgent_only or priority.is_urgent(self._queue[0].rank)):
                return heapq.heappop(self._queue)
            self._work.wait()

    def _worker(self, urgent_only: bool) -> None:
        if not urgent_only:
            lower_this_thread(self.nice)
        while True:
            with self._lock:
                item = self._next(urgent_only)
            if item is None:
                return
            self._run(item)

    def _run(self, item: _Queued) -> None:
        result = JobResult(item.key)
        t0 = time.perf_counter()
        try:
            with priority.ranked(item.rank):
                result.value = item.fn(*item.args, **item.kwargs)
        except BaseException as err:
            result.error = err
            log.error("mind job %r failed: %s", item.key, err, exc_info=err)
        finally:
            result.seconds = time.perf_counter() - t0
            with self._lock:
                if self._generation == item.gen:
                    self._results.put(result)
                    if result.error is not None:
                        self.failed += 1
                if self._jobs.get(item.key) == item.gen:
                    del self._jobs[item.key]
                self._idle.notify_all()

    # -- state -----------------------------------------------------------------------
    def busy(self, key: str) -> bool:
        with self._lock:
            return key in self._jobs

    def in_flight(self) -> int:
        with self._lock:
            return len(self._jobs)

    def keys_in_flight(self) -> list[str]:
        with self._lock:
            return list(self._jobs)

    def queued(self) -> int:
        """Jobs waiting for a worker (not yet running)."""
        with self._lock:
            return len(self._queue)

    def results(self) -> list[JobResult]:
        """Jobs finished since the last call (main thread only)."""
        out: list[JobResult] = []
        while True:
            try:
                out.append(self._results.get_nowait())
            except queue.Empty:
                return out

    def wait(self, timeout: float | None = None) -> bool:
        """Block until nothing is in flight; False if ``timeout`` ran out first."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._jobs, timeout=timeout)

    def wait_keys(self, keys: set[str], timeout: float | None = None) -> bool:
        """Block until none of ``keys`` has a job in flight; False if ``timeout`` ran out first."""
        with self._idle:
            return self._idle.wait_for(lambda: not keys.intersection(self._jobs), timeout=timeout)

    def wait_any(self, keys: set[str], timeout: float | None = None) -> bool:
        """Block until one of ``keys`` has no job in flight; False if ``timeout`` ran out first."""
        with self._idle:
            return self._idle.wait_for(lambda: any(k not in self._jobs for k in keys), timeout=timeout)

    # -- stopping --------------------------------------------------------------------
    def cancel_all(self) -> None:
        """Drop queued jobs; results of running ones are discarded when they finish."""
        with self._lock:
            self._generation += 1
            for item in self._queue:  # never started: gone now
                if self._jobs.get(item.key) == item.gen:
                    del self._jobs[item.key]
            self._queue = []
            # Running jobs stay listed (busy) until they finish, so a key never runs twice at once.
            self._idle.notify_all()
        # Drain results that belong to the old generation.
        self.results()

    def shutdown(self, wait: bool = False) -> None:
        """Cancel everything and stop the threads (``wait``: until running jobs end).
        The threads are daemons: a game that quits never waits for a model call."""
        self.cancel_all()
        with self._lock:
            self._closed = True
            self._work.notify_all()
        if wait:
            me = threading.current_thread()
            for t in self._threads:
                if t is not me:
                    t.join()

    def __enter__(self) -> MindPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()


__all__ = ["CancelledError", "JobResult", "MindPool"]
