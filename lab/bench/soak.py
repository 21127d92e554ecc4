"""A long town: 25 residents over three sim days, headless, with the fast
scripted stand-in model (``scripted/competent``) and real embeddings. Per
sim hour: the mean step time, the process's memory (RSS), the memories the
minds hold, the events kept in memory and the size of a save made at that
hour. The claim is that nothing grows on the main thread as the town ages:
the last sim hour's step time within 1.2x of the first's (over the same
hours of the day, so the day's own rhythm cancels out), and RSS growing no
faster than the memory stream itself."""
from __future__ import annotations

import resource
import statistics
import time
from pathlib import Path
from typing import Any

import lab.competent  # noqa: F401 - registers scripted/competent, the soak's model
from lab.bench.headless_run import run_folder, run_town
from lab.bench.measure import ROOT, Context

STEPS_PER_HOUR = 360  # 10 sim seconds a step


def rss_mb() -> float:
    """This process's resident memory now, in MB (Linux /proc; the peak elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def slope_per_day(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of ys over xs (hours), per 24 hours."""
    if len(xs) < 2:
        return 0.0
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return 24.0 * sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


class _Recorder:
    """The soak's on_step: per sim hour, the figures. The run's own hourly autosave
    (its main-thread capture included in the hour's steps: a cost that must not grow
    either) gives the save size."""

    def __init__(self, saves: Path) -> None:
        self.saves = saves
        self.rows: list[dict[str, Any]] = []
        self.t: float | None = None  # from the end of the first step: loading the models is not a step
        self.steps = 0

    def __call__(self, sim: Any) -> None:
        self.steps += 1
        if self.t is None:  # the first step (the models load) is counted, not timed
            self.t = time.perf_counter()
            return
        if self.steps % STEPS_PER_HOUR:
            return
        wall = time.perf_counter() - self.t
        row = {
            "hour": len(self.rows) + 1,
            "sim_time": sim.now.strftime("%a %H:%M"),
            "step_ms": round(1000.0 * wall / STEPS_PER_HOUR, 3),
            "rss_mb": round(rss_mb(), 1),
            "memories": sum(len(m.memory) for m in sim.minds.values() if hasattr(m, "memory")),
            "events_total": len(sim.events),
            "events_in_memory": len(getattr(sim.events, "_recent", sim.events)),
            "path_ms_max": round(sim.paths.stats.max_ms, 3) if hasattr(sim, "paths") else None,
        }
        done = sorted(self.saves.glob("autosave-*.sqlite"), key=lambda p: p.stat().st_mtime) if self.saves.exists() \
            else []
        if done:
            row["save_mb"] = round(done[-1].stat().st_size / 1e6, 2)
        self.rows.append(row)
        self.t = time.perf_counter()


def bench_soak(ctx: Context) -> dict:
    """Three sim days of 25 residents (scripted fast model, real embeddings): per
    sim hour step time, RSS, memories, events in memory and save size; flat?"""
    residents, hours = (5, 6.0) if ctx.quick else (25, 72.0)
    folder = run_folder("soak")
    rec = _Recorder(folder / "saves")
    t0 = time.perf_counter()
    run_town(ctx, folder, "scripted/competent", residents, hours, autosave_min=60, keep=2, on_step=rec)
    rows = rec.rows
    out: dict[str, Any] = {"residents": residents, "sim_hours": hours, "wall_s": round(time.perf_counter() - t0, 1)}
    out["sim_speed_x"] = round(hours * 3600 / out["wall_s"], 1)
    out["hours"] = rows
    day = 24 if len(rows) >= 48 else max(1, len(rows) // 2)
    first, last = rows[:day], rows[-day:]
    # The same hours of the day first and last: the day's rhythm (everyone waking at 07:00) cancels out.
    out["step_ms_first_day"] = round(statistics.fmean(r["step_ms"] for r in first), 3)
    out["step_ms_last_day"] = round(statistics.fmean(r["step_ms"] for r in last), 3)
    out["step_ms_first_hour"] = rows[0]["step_ms"]
    out["step_ms_last_hour"] = rows[-1]["step_ms"]
    out["step_ratio_last_vs_first"] = round(out["step_ms_last_day"] / out["step_ms_first_day"], 2)
    out["step_ratio_last_hour_vs_first_hour"] = round(rows[-1]["step_ms"] / rows[0]["step_ms"], 2)
    xs = [float(r["hour"]) for r in rows]
    out["rss_mb_first_hour"], out["rss_mb_last_hour"] = rows[0]["rss_mb"], rows[-1]["rss_mb"]
    out["rss_mb_per_day"] = round(slope_per_day(xs[day:], [r["rss_mb"] for r in rows[day:]]), 1)
    out["memories_per_day"] = round(slope_per_day(xs, [float(r["memories"]) for r in rows]))
    out["memories_per_resident_per_day"] = round(out["memories_per_day"] / residents)
    sized = [r for r in rows if r.get("save_mb")]
    if sized:
        out["save_mb_last"] = sized[-1]["save_mb"]
        out["save_mb_per_day"] = round(slope_per_day([float(r["hour"]) for r in sized],
                                                     [r["save_mb"] for r in sized]), 2)
    out["events_in_memory_max"] = max(r["events_in_memory"] for r in rows)
    out["path_ms_max_per_step"] = max((r["path_ms_max"] or 0.0) for r in rows)
    plot = plot_soak(rows, ctx)
    out["plot"] = str(plot) if plot else None
    out["note"] = (f"{residents} residents, {hours:g} sim hours from the scenario's start, scripted/competent, real "
                   f"embeddings, seed {ctx.seed}; an autosave each sim hour (its capture counted in the steps); step "
                   "ratio compares the last sim day's mean step with the first's (the same hours of the day); "
                   f"run folder {folder}")
    return out


def plot_soak(rows: list[dict], ctx: Context) -> Path | None:
    """bench/soak.png (beside the results): step time, RSS, memories and save size per sim hour."""
    try:
        import matplotlib  # lazy: matplotlib costs a second, and only this plot needs it

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        ctx.note("matplotlib is not installed: no soak plot")
        return None
    out = (ctx.out_dir or ROOT / "bench") / "soak.png"
    hours = [r["hour"] for r in rows]
    fig, axes = plt.subplots(4, 1, figsize=(8, 9), sharex=True)
    series = [("step_ms", "mean step (ms)"), ("rss_mb", "RSS (MB)"), ("memories", "memories (all minds)"),
              ("save_mb", "save (MB)")]
    for ax, (key, label) in zip(axes, series):
        ax.plot(hours, [r.get(key) for r in rows], lw=1.2)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.set_ylim(bottom=0)
    axes[-1].set_xlabel("sim hour")
    fig.suptitle(f"soak: {len(rows)} sim hours")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out
