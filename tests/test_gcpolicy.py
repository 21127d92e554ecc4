"""The window's garbage-collector policy: freeze what the town holds, collect the
young generation less often, freeze again after each full collection (on the
main thread, at the next frame), and undo it all."""
from __future__ import annotations

import gc

from game.runs.gcpolicy import GEN0_THRESHOLD, GcPolicy


def test_install_freezes_raises_the_threshold_and_refreezes_after_a_full_collection():
    before = gc.get_threshold()
    p = GcPolicy()
    try:
        p.install()
        assert gc.get_freeze_count() > 0 and gc.get_threshold()[0] >= GEN0_THRESHOLD and p.freezes == 1
        p.install()  # once only
        assert p.freezes == 1
        junk = [[i] for i in range(1000)]  # new objects, not frozen yet
        p.tick()
        assert p.freezes == 1  # no full collection yet: nothing to do
        gc.collect(2)
        p.tick()
        assert p.freezes == 2  # what survived the full collection is frozen too
        del junk
    finally:
        p.uninstall()
    assert gc.get_freeze_count() == 0 and p._callback not in gc.callbacks and gc.get_threshold() == before
