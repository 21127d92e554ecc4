"""The headless run several benchmarks make (soak, gcheld, simspeed): the
scenario's town and residents from its start, one model, real embeddings (no
cache), lockstep, into a fresh run folder under runs/."""
from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from agents import Gateway, LocalEmbedder, load_cast, load_config
from game.headless import RunResult, run_headless
from game.world.map_reader import load_town
from lab.bench.measure import ROOT, Context


def run_folder(name: str) -> Path:
    """runs/bench-<name>-<now>: where one benchmark run writes."""
    return ROOT / "runs" / f"bench-{name}-{datetime.now():%Y%m%d-%H%M%S}"


def run_town(ctx: Context, folder: Path, model: str, residents: int, hours: float, **run: Any) -> RunResult:
    """``residents`` of the scenario's cast for ``hours`` sim hours with ``model``;
    ``run``: more run_headless arguments (autosaves, on_step). Ctrl-C stops the
    benchmark, not just the run."""
    town = load_town(ctx.map_path)
    cast, scenario = load_cast(ctx.map_path.parent)
    config = load_config({"seed": ctx.seed, "model": model, "embedding_cache": "off"}, env={}, toml_path=None)
    result = run_headless(town, cast[:residents], start=scenario.start, hours=hours, out=folder, scenario=scenario,
                          config=config, gateway=Gateway(config), embedder=LocalEmbedder(cache_path=None),
                          seed=ctx.seed, progress=sys.stderr.isatty(), echo=None, **run)
    if result.interrupted:
        raise KeyboardInterrupt
    return result
