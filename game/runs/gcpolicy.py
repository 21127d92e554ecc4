"""The garbage collector in a living town (no pygame).

A town with 25 real minds holds several hundred thousand Python objects
(memory nodes, the embedding and language model libraries, the map). CPython's
full collections walk all of them, and whichever thread triggers one holds the
GIL meanwhile: measured with 25 real minds at speed 5, a mind thread's full
collection paused everything, the frame included, for up to 0.8 s (frame p99
34 ms). So in the window (``install``):

- everything alive once the town is built, and again after each full
  collection, is frozen (``gc.freeze``: moved to a permanent generation that
  collections skip; objects are still freed by reference counting as usual,
  only cycles among frozen objects wait, bounded by what the town holds);
- the youngest generation is collected less often (``gc.set_threshold``).

The freeze after a full collection runs on the main thread at the next frame
(``tick``), never inside the collector's callback. Headless runs keep Python's
defaults (no frame to protect).
"""
from __future__ import annotations

import gc
import logging
import threading
from typing import Any

log = logging.getLogger(__name__)

GEN0_THRESHOLD = 20_000  # Python's default is 700: a young collection every 700 new containers


class GcPolicy:
    def __init__(self) -> None:
        self._full = threading.Event()  # a full collection ran since the last tick
        self.freezes = 0
        self.installed = False
        self._threshold: tuple[int, ...] = gc.get_threshold()

    # Any: what the gc module hands its callbacks (a dict of its own)
    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info.get("generation") == 2:
            self._full.set()

    def install(self) -> None:
        if self.installed:
            return
        self.installed = True
        self._threshold = gc.get_threshold()
        g0, g1, g2 = self._threshold
        gc.set_threshold(max(GEN0_THRESHOLD, g0), g1, g2)
        gc.callbacks.append(self._callback)
        self.freeze()

    def freeze(self) -> None:
        gc.freeze()
        self.freezes += 1
        log.debug("gc: %d objects frozen", gc.get_freeze_count())

    def tick(self) -> None:
        """Once a frame: freeze what survived a full collection since the last one."""
        if self._full.is_set():
            self._full.clear()
            self.freeze()

    def uninstall(self) -> None:
        if not self.installed:
            return
        self.installed = False
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)
        gc.set_threshold(*self._threshold)
        gc.unfreeze()


POLICY = GcPolicy()
