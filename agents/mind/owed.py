"""Exchanges a mind owes its memory: the visitor's line and the resident's answer,
from the moment the chat queues the job that keeps them (agents/mind/interview.py
``owe_exchange``) until that job has kept them (``keep_exchange``). A save
carries what is owed, and the loaded mind keeps it (``keep_owed``), so a save
taken at any point of a chat loses no exchange. Thread-safe (the chat adds on
the main thread, the keeping job drops on a worker, a save reads)."""
from __future__ import annotations

import threading
from typing import Any


class OwedExchanges:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[dict] = []  # oldest first; each has its number under "owed"
        self._count = 0               # numbers given so far
        self._at_begin: list[int] = []  # the numbers owed when the mind's last job began

    def add(self, exchange: dict) -> int:
        """Owe an exchange; its number goes into the keeping job's tag (``job_tag("respond")`` + number)."""
        with self._lock:
            self._count += 1
            self._items.append({**exchange, "owed": self._count})
            return self._count

    def drop(self, number: int) -> None:
        """The keeping job of exchange ``number`` is over (its changes are in the mind)."""
        with self._lock:
            self._items = [x for x in self._items if x["owed"] != number]

    def copy(self) -> list[dict]:
        with self._lock:
            return [dict(x) for x in self._items]

    def begin(self) -> None:
        """The mind begins a job: what its capture from now holds as owed."""
        with self._lock:
            self._at_begin = [x["owed"] for x in self._items]

    def view(self, tag: Any) -> tuple[bool | None, list[dict], bool]:
        """In one look, for a save: whether the mind's job tagged ``tag`` keeps an
        exchange (True while it runs, its exchange still owed; False once it is over;
        None for any other job), what is owed, and whether that changed since the job began."""
        with self._lock:
            owed = [dict(x) for x in self._items]
            keeping = None
            if tag and tag[0] == "respond" and len(tag) > 1:
                keeping = any(x["owed"] == tag[1] for x in owed)
            return keeping, owed, [x["owed"] for x in owed] != self._at_begin

    def restore(self, items: Any) -> None:
        with self._lock:
            self._items = [dict(x) for x in items or []]
            self._count = max([int(x["owed"]) for x in self._items], default=0)
            self._at_begin = []


__all__ = ["OwedExchanges"]
