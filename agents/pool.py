"""The worker pool the minds think on.

At most one job per key (a resident's name) in flight; finished jobs wait in a
queue until the main thread collects them with ``results()`` and applies them
to the world. ``cancel_all()`` drops queued jobs and makes the results of
running ones vanish (a generation counter), for shutdown and for loading a
save. Exceptions inside jobs come back as ``JobResult.error`` and are logged
with the key, never lost.
"""
from __future__ import annotations

import logging
import os
import queue
import threading
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

log = logging.getLogger(__name__)


@dataclass
class JobResult:
    key: str
    value: Any = None
    error: BaseException | None = None

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


class MindPool:
    """``nice``: how much lower the workers' scheduling priority is than the main
    thread's. In the window the minds' model calls, embeddings and retrieval
    compete with the frame for a few cores; with a lower priority the frame
    thread gets a core back at once when it wakes (Linux schedules threads
    one by one)."""

    def __init__(self, concurrency: int, nice: int = 0) -> None:
        self.concurrency = max(1, int(concurrency))
        self.nice = max(0, int(nice))
        self._executor = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="mind",
                                            initializer=lower_this_thread, initargs=(self.nice,))
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._jobs: dict[str, tuple[Future, int]] = {}  # key -> (future, generation)
        self._results: queue.SimpleQueue[JobResult] = queue.SimpleQueue()
        self._generation = 0
        self._closed = False
        self.submitted = 0
        self.failed = 0

    # -- submitting ------------------------------------------------------------------
    def submit(self, key: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
        """Run ``fn(*args, **kwargs)`` on the pool; False if ``key`` already has a job in flight."""
        with self._lock:
            if self._closed:
                return False
            if key in self._jobs:
                return False
            gen = self._generation
            future = self._executor.submit(self._run, key, gen, fn, args, kwargs)
            self._jobs[key] = (future, gen)
            self.submitted += 1
            return True

    def _run(self, key: str, gen: int, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
        result = JobResult(key)
        try:
            result.value = fn(*args, **kwargs)
        except BaseException as err:  # noqa: BLE001 - every failure goes back to the main thread
            result.error = err
            log.error("mind job %r failed: %s", key, err, exc_info=err)
        finally:
            with self._lock:
                current = self._generation == gen
                if current:
                    self._results.put(result)
                    if result.error is not None:
                        self.failed += 1
                entry = self._jobs.get(key)
                if entry is not None and entry[1] == gen:
                    del self._jobs[key]
                self._idle.notify_all()  # wait() and wait_keys() check their own condition

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

    # -- stopping --------------------------------------------------------------------
    def cancel_all(self) -> None:
        """Drop queued jobs; results of running ones are discarded when they finish."""
        with self._lock:
            self._generation += 1
            for key, (future, _gen) in list(self._jobs.items()):
                if future.cancel():  # never started: gone now
                    del self._jobs[key]
            # Running jobs stay listed (busy) until they finish, so a key never runs twice at once.
            if not self._jobs:
                self._idle.notify_all()
        # Drain results that belong to the old generation.
        self.results()

    def shutdown(self, wait: bool = False) -> None:
        """Cancel everything and stop the threads (``wait``: until running jobs end)."""
        self.cancel_all()
        with self._lock:
            self._closed = True
        self._executor.shutdown(wait=wait, cancel_futures=True)

    def __enter__(self) -> "MindPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()


__all__ = ["MindPool", "JobResult", "CancelledError"]
