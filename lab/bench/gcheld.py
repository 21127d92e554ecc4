"""What the window's garbage-collector policy (game/runs/gcpolicy.py) holds back. It
freezes what survives each full collection, so cycles among frozen objects
that later become garbage are not collected while the game runs. A headless
sim day of 25 residents (scripted/competent, real embeddings) with the policy
installed and ticked each step, as the window does; at the end everything not
frozen is collected first, then the frozen objects are unfrozen and collected:
what that second collection frees is the garbage the freeze held."""
from __future__ import annotations

import gc
import time
from typing import Any

import lab.competent  # noqa: F401 - registers scripted/competent, the model here
from game.runs.gcpolicy import GcPolicy
from lab.bench.headless_run import run_folder, run_town
from lab.bench.measure import Context
from lab.bench.soak import rss_mb


def bench_gcheld(ctx: Context) -> dict:
    """A sim day under the window's gc policy: objects frozen, and the cyclic
    garbage among them that only unfreezing lets the collector free."""
    residents, hours = (5, 3.0) if ctx.quick else (25, 24.0)
    folder = run_folder("gcheld")
    policy = GcPolicy()
    policy.install()
    full_before = gc.get_stats()[2]["collections"]
    steps = 0

    def on_step(sim: Any) -> None:
        nonlocal steps
        steps += 1
        if steps == 1:  # the town and its minds are built: the window freezes them then
            policy.freeze()
        policy.tick()

    try:
        run_town(ctx, folder, "scripted/competent", residents, hours, autosave_min=None, on_step=on_step)
        frozen, freezes = gc.get_freeze_count(), policy.freezes
        full = gc.get_stats()[2]["collections"] - full_before
        gc.collect()  # the garbage that was never frozen
        rss_before = rss_mb()
        gc.unfreeze()
        t = time.perf_counter()
        held = gc.collect()  # the garbage only the freeze kept
        collect_ms = (time.perf_counter() - t) * 1000.0
        rss_after = rss_mb()
    finally:
        policy.uninstall()
    out: dict[str, Any] = {
        "residents": residents, "sim_hours": hours, "freezes": freezes, "full_collections": full,
        "frozen_objects": frozen,
        "held_garbage_objects": held, "held_share_pct": round(100.0 * held / frozen, 2) if frozen else 0.0,
        "rss_freed_mb": round(rss_before - rss_after, 1), "full_collection_ms": round(collect_ms, 1),
        "note": f"{residents} residents, {hours:g} sim hours, scripted/competent, real embeddings, the window's gc "
                f"policy (frozen once the town is built, again after each full collection); run folder {folder}",
    }
    return out
