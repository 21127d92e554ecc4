"""What recording a run costs (game/runs/recording.py): the bytes it writes per
resident per sim hour, and the main thread's time it takes after each sim
step, in a real headless run of the whole town (25 residents, the scripted
competent model, so the figure does not wait on a model).

The recorder's ``after_step`` is timed around each call (a subclass put in
for the run's length); the step itself is the time between two steps of the
loop. The frame figure is derived: at speed 5 (60 sim min/s) a frame holds
six sim steps, so it pays six ``after_step`` calls.
"""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

import lab.competent  # noqa: F401 - registers scripted/competent, the run's model
from agents import load_cast, load_config
from game import headless
from game.headless import run_headless
from game.runs.recording import Recorder
from game.runs.session import SPEEDS, steps_per_second
from game.view.window import FPS
from game.world.map_reader import load_town
from lab.bench.measure import Context, percentile


class _TimedRecorder(Recorder):
    spent: ClassVar[list[float]] = []

    def after_step(self, sim: Any) -> None:
        t0 = time.perf_counter()
        super().after_step(sim)
        _TimedRecorder.spent.append((time.perf_counter() - t0) * 1000.0)


def bench_recording(ctx: Context) -> dict:
    """A seeded headless run of the whole town with the recorder timed."""
    hours = 1.0 if ctx.quick else 4.0
    town = load_town(ctx.map_path)
    cast, scenario = load_cast(ctx.map_path.parent)
    config = load_config({"seed": ctx.seed, "model": "scripted/competent"}, env={}, toml_path=None)
    steps: list[float] = []
    last = [time.perf_counter()]

    def tick(sim: Any) -> None:
        now = time.perf_counter()
        steps.append((now - last[0]) * 1000.0)
        last[0] = now

    _TimedRecorder.spent = []
    was = headless.Recorder
    headless.Recorder = _TimedRecorder  # type: ignore[misc]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            result = run_headless(town, cast, start=scenario.start, hours=hours, out=Path(tmp) / "run",
                                  scenario=scenario, config=config, seed=ctx.seed, progress=False, echo=None,
                                  on_step=tick, autosave_min=None)
            wall = time.perf_counter() - t0
            rec = dict(result.summary.get("recording") or {})
    finally:
        headless.Recorder = was  # type: ignore[misc]
    spent = _TimedRecorder.spent
    if not spent:
        raise RuntimeError("the recorder was never called")
    per_frame = steps_per_second(5) / FPS  # sim steps in one frame at speed 5
    return {
        "bytes_per_resident_per_sim_hour": rec.get("bytes_per_resident_per_sim_hour"),
        "kb_per_sim_day_25": round((rec.get("bytes_per_resident_per_sim_hour") or 0) * 25 * 24 / 1024, 1),
        "after_step_median_ms": round(statistics.median(spent), 4),
        "after_step_p99_ms": round(percentile(spent, 99), 4),
        "step_median_ms": round(statistics.median(steps), 3),
        "headless_share_pct": round(100.0 * sum(spent) / 1000.0 / wall, 2),
        "frame_ms_speed5": round(per_frame * statistics.median(spent), 4),
        "residents": len(cast),
        "sim_hours": hours,
        "steps": len(spent),
        "note": (f"a seeded headless run of {len(cast)} residents for {hours:g} sim hours (scripted/competent): "
                 f"recording.jsonl's size per resident per sim hour, the recorder's main-thread time after each "
                 f"step (share of the run's wall time), and at speed 5 ({SPEEDS[5]:g} sim min/s, "
                 f"{per_frame:g} steps a frame) what it adds to a frame"),
    }
