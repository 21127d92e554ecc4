"""A call made on a thread of its own while the job that made it goes on
(``Mind.ask_beside``): the job takes its result when it needs it, at a point of its
own choosing, so what the call changes lands at the same place in the job whatever
the threads' timing. The thread is a daemon, as the pool's are: a game that quits
never waits for a model call."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Beside(Generic[T]):
    """``fn()`` running on its own thread; ``result()`` waits for it (and raises what it raised)."""

    def __init__(self, fn: Callable[[], T], name: str = "beside") -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn,), name=name, daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[[], T]) -> None:
        try:
            self._value = fn()
        except BaseException as err:  # noqa: BLE001  # handed to whoever takes the result, on its own thread
            self._error = err

    def result(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set by _run, which ended without an error


class Done(Generic[T]):
    """A result already there (a call the budget withheld): ``Beside``'s ``result()``."""

    def __init__(self, value: T) -> None:
        self._value = value

    def result(self) -> T:
        return self._value


__all__ = ["Beside", "Done"]
