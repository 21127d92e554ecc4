"""`smallville bench` / `make bench`: how fast and how cheap, measured on this machine.

    smallville bench                       # everything (minutes: loads the embedded model)
    smallville bench --quick               # small N, a smoke run
    smallville bench --only astar,retrieval --out bench/results.json
    smallville bench --only economy --economy-run runs/demo   # read a run's summary.json
    smallville bench --only scale --out bench/scale.json      # hours: docs/scale.md (never in "everything")

Each benchmark is a function ``fn(ctx) -> dict`` of figures, one module per
family in this package. The runner times it, records a failure (the error
text) or a skip (the reason) per benchmark without stopping the others, and
writes ``results.json`` (all figures plus the machine they ran on) and
``results.md`` (a table: benchmark, figure, value, goal, met?) beside it.
Figures are medians and percentiles over repeats, never single runs.
"""
from __future__ import annotations

import logging
import sys
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from game.support.errors import UserError
from lab.bench.astar import bench_astar
from lab.bench.batching import bench_batching
from lab.bench.economy import bench_chain, bench_economy
from lab.bench.engines import bench_engines
from lab.bench.factual import bench_factual
from lab.bench.feed import bench_feed
from lab.bench.frame import bench_frame
from lab.bench.frame_real import bench_frame_real, bench_simspeed
from lab.bench.gcheld import bench_gcheld
from lab.bench.measure import MAP, ROOT, Context, Skipped
from lab.bench.models import bench_models_figures
from lab.bench.play_real import bench_play_real
from lab.bench.quit import bench_quit
from lab.bench.recording import bench_recording
from lab.bench.report import HEADLINES, goal_met, loadavg, machine_info, render_markdown, resolve_goal, write_results
from lab.bench.retrieval import bench_retrieval
from lab.bench.saves import bench_saves_figures
from lab.bench.scale import bench_scale
from lab.bench.soak import bench_soak

log = logging.getLogger(__name__)


BENCHMARKS: dict[str, Callable[[Context], dict]] = {
    "astar": bench_astar,
    "retrieval": bench_retrieval,
    "models": bench_models_figures,
    "engines": bench_engines,
    "batching": bench_batching,
    "frame": bench_frame,
    "frame_real": bench_frame_real,
    "play_real": bench_play_real,
    "saves": bench_saves_figures,
    "economy": bench_economy,
    "chain": bench_chain,
    "quit": bench_quit,
    "recording": bench_recording,
    "soak": bench_soak,
    "gcheld": bench_gcheld,
    "simspeed": bench_simspeed,
    "factual": bench_factual,
    "feed": bench_feed,
    "scale": bench_scale,
}
# Run only when named (--only): the scale sweep is hours of runs (lab/bench/scale.py).
ONLY_NAMED = frozenset({"scale"})


def run_benchmarks(names: list[str], ctx: Context, echo: Callable[[str], None] | None = None) -> dict:
    """Run the named benchmarks, each isolated: a failure or skip is recorded, never raised
    (UserError and KeyboardInterrupt excepted)."""
    results: dict[str, dict] = {}
    for name in names:
        fn = BENCHMARKS[name]
        if echo:
            echo(f"bench {name} ...")
        entry: dict[str, Any] = {"load_before": loadavg()}
        ctx.notes = []
        t0 = time.monotonic()
        try:
            figures = fn(ctx)
            entry["status"] = "ok"
            note = figures.pop("note", None) if isinstance(figures, dict) else None
            entry["figures"] = figures
            notes = ([note] if note else []) + ctx.notes
            if notes:
                entry["note"] = "; ".join(notes)
        except Skipped as why:
            entry["status"] = "skipped"
            entry["reason"] = str(why)
        except (KeyboardInterrupt, UserError):
            raise
        except Exception as err:
            entry["status"] = "error"
            entry["error"] = f"{type(err).__name__}: {err}"
            entry["traceback"] = traceback.format_exc(limit=8)
            log.exception("benchmark %s failed", name)
        entry["seconds"] = round(time.monotonic() - t0, 2)
        results[name] = entry
        if echo:
            echo(f"bench {name}: {_one_line(entry)}")
    return results


def _one_line(entry: dict) -> str:
    if entry["status"] == "ok":
        figs = entry["figures"]
        shown = ", ".join(f"{k}={v}" for k, v in figs.items() if isinstance(v, (int, float)))[:200]
        return f"ok in {entry['seconds']:g} s: {shown}"
    if entry["status"] == "skipped":
        return f"skipped: {entry['reason']}"
    return f"ERROR: {entry['error']}"


def parse_only(text: str | None) -> list[str]:
    if not text:
        return [n for n in BENCHMARKS if n not in ONLY_NAMED]
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        raise UserError(f"--only: unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    return list(dict.fromkeys(names))


def main_bench(args: Any) -> int:
    """The `smallville bench` command: 1 when a benchmark failed (after all ran), else 0."""
    names = parse_only(getattr(args, "only", None))
    out = Path(getattr(args, "out", None) or ROOT / "bench" / "results.json")
    map_path = Path(getattr(args, "map", None) or MAP)
    if not map_path.exists() and (ROOT / map_path).exists():
        map_path = ROOT / map_path
    ctx = Context(
        quick=bool(getattr(args, "quick", False)),
        map_path=map_path,
        economy_run=getattr(args, "economy_run", None),
        economy_hours=getattr(args, "economy_hours", None),
        seed=int(getattr(args, "seed", 0) or 0),
        out_dir=out.parent,
    )
    doc: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "quick": ctx.quick,
        "seed": ctx.seed,
        "machine": machine_info(),
        "load_before": loadavg(),
    }
    echo = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    doc["results"] = run_benchmarks(names, ctx, echo=echo)
    doc["load_after"] = loadavg()
    doc["goals"] = {}
    for b, k, _, u, g in HEADLINES:
        figs = doc["results"].get(b, {}).get("figures", {})
        g = resolve_goal(g, figs)
        if g:
            doc["goals"][f"{b}.{k}"] = {"goal": f"{g[0]} {g[1]} {u}", "met": goal_met(figs.get(k), g)}
    js, md = write_results(doc, out)
    print(render_markdown(doc))
    print(f"wrote {js} and {md}", file=sys.stderr)
    failed = [n for n, e in doc["results"].items() if e["status"] == "error"]
    return 1 if failed else 0
