"""Who goes first when the minds compete for the worker threads and the model.

A rank is a tuple compared as usual, lowest first: ``(class, deadline)``.
``URGENT`` is work the player is waiting for (the visitor's chat reply, an
interview answer, an inner voice); everything else is ``TOWN`` work ordered by
its deadline, the sim second by which its answer is needed (earliest deadline
first keeps the clock from waiting on the mind it needs next; residents the
player watches get their deadline brought forward).

The pool (agents/threads/pool.py) runs a job with its rank set on the worker thread,
and the embedded model (agents/engine/local_model.py ``ModelPool``) hands a free
instance to the waiting call with the lowest rank, so a reply overtakes
residents' queued planning at both places.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

URGENT = 0  # the player waits for it
TOWN = 1  # the town's own work, by deadline

Rank = tuple[int, float]
DEFAULT: Rank = (TOWN, float("inf"))  # no deadline: after everything that has one

_local = threading.local()


def urgent() -> Rank:
    return (URGENT, 0.0)


def town(deadline_s: float) -> Rank:
    """Town work whose answer is needed by ``deadline_s`` (sim seconds since the start)."""
    return (TOWN, float(deadline_s))


def current() -> Rank:
    """The rank of the job this thread is running (DEFAULT outside a ranked job)."""
    return getattr(_local, "rank", DEFAULT)


def is_urgent(rank: Rank | None = None) -> bool:
    return (rank if rank is not None else current())[0] == URGENT


@contextmanager
def ranked(rank: Rank) -> Iterator[None]:
    """Run the block with ``rank`` as this thread's rank (the model calls made in it wait by it)."""
    before = getattr(_local, "rank", None)
    _local.rank = rank
    try:
        yield
    finally:
        if before is None:
            del _local.rank
        else:
            _local.rank = before


__all__ = ["DEFAULT", "TOWN", "URGENT", "Rank", "current", "is_urgent", "ranked", "town", "urgent"]
