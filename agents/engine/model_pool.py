"""The embedded model's instances, shared by every mind (agents/engine/local_model.py
builds them): calls that 25 minds make at once run side by side, one per
instance, and the player's calls have an instance of their own."""
from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from agents.threads import priority


class Instance(Protocol):
    """What the pool asks of one instance (agents/engine/local_model.py ``LocalModel``)."""

    def chat(self, messages: list[dict], *, timeout: float | None = None) -> dict: ...

    def load(self) -> object: ...

    def close(self) -> None: ...


M = TypeVar("M", bound=Instance)


class ModelPool(Generic[M]):
    """Up to ``size`` LocalModel instances, created as calls need them: calls that
    25 minds queue at once run side by side, one per instance. When every
    instance is busy, a freed one goes to the waiting call with the lowest rank
    (agents/threads/priority.py: the player's reply first, then the earliest deadline),
    not to whoever came first.

    One more instance is kept free for the player (``reserve``): an urgent call
    (a reply the player waits for) never waits for a resident's call already being
    written, which can take seconds (a day plan). It is made on the first urgent
    call that finds every instance busy, and serves urgent calls only."""

    def __init__(self, size: int = 1, *, make: Callable[[], M], reserve: bool = True) -> None:
        self.size = max(1, int(size))
        self._make = make
        self._cond = threading.Condition()
        self._idle: list[M] = []  # the last used last: its prompt cache is warm
        self._waiters: list[list] = []  # a heap of [rank, seq, instance or None]
        self._seq = itertools.count()
        self._all: list[M] = []
        self.reserve = reserve
        self._reserved: M | None = None  # the player's instance, once made
        self._reserved_free = True
        self._busy_s = 0.0  # seconds instances spent answering, summed over instances
        self._busy_lock = threading.Lock()

    @property
    def instances(self) -> int:
        return len(self._all)

    def resize(self, size: int) -> None:
        """At most ``size`` instances from now on (existing ones stay until close)."""
        self.size = max(1, int(size))

    def waiting(self) -> int:
        """Calls waiting for a free instance."""
        with self._cond:
            return len(self._waiters)

    def _take(self, timeout: float | None) -> M:
        with self._cond:
            if self._idle:
                return self._idle.pop()
            if len(self._all) < self.size:
                inst = self._make()
                self._all.append(inst)
                return inst
            rank = priority.current()
            if self.reserve and priority.is_urgent(rank) and self._reserved_free:
                if self._reserved is None:
                    self._reserved = self._make()
                self._reserved_free = False
                return self._reserved
            me: list = [rank, next(self._seq), None]  # [rank, seq, the instance handed over]
            heapq.heappush(self._waiters, me)
            limit = timeout if timeout and timeout > 0 else None
            if not self._cond.wait_for(lambda: me[2] is not None, timeout=limit):
                self._waiters.remove(me)
                heapq.heapify(self._waiters)
                raise TimeoutError(f"the embedded model stayed busy for {timeout:.0f}s")
            return me[2]

    def _give(self, inst: M) -> None:
        """An instance is free: to the lowest-ranked waiting call, else back to the idle list."""
        with self._cond:
            if inst is self._reserved and inst is not None:  # the player's: to a waiting urgent call only
                if self._waiters and priority.is_urgent(self._waiters[0][0]):
                    heapq.heappop(self._waiters)[2] = inst
                    self._cond.notify_all()
                else:
                    self._reserved_free = True
            elif self._waiters:
                heapq.heappop(self._waiters)[2] = inst
                self._cond.notify_all()
            else:
                self._idle.append(inst)

    def chat(self, messages: list[dict], *, timeout: float | None = None, **kwargs) -> dict:
        """LocalModel.chat on a free instance; waiting for one counts toward ``timeout``."""
        t0 = time.monotonic()
        inst = self._take(timeout)
        started = time.monotonic()
        try:
            left = max(0.001, timeout - (started - t0)) if timeout and timeout > 0 else timeout
            return inst.chat(messages, timeout=left, **kwargs)
        finally:
            with self._busy_lock:
                self._busy_s += time.monotonic() - started
            self._give(inst)

    def busy_s(self) -> float:
        """Seconds the instances have spent answering so far, summed over instances
        (over a run's wall time and instance count: how busy the model was)."""
        with self._busy_lock:
            return self._busy_s

    def load(self) -> object:
        """Load one instance now (the others load on their first call)."""
        inst = self._take(None)
        try:
            return inst.load()
        finally:
            self._give(inst)

    def close(self) -> None:
        for inst in list(self._all) + ([self._reserved] if self._reserved is not None else []):
            inst.close()


__all__ = ["ModelPool"]
