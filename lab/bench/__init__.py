"""`smallville bench`: speed and cost measured on this machine, one module per
family of benchmarks (astar, retrieval, models, frame, quit, saves, economy
and chain), what they share (measure), the table they fill (report) and the
runner that runs them (runner). Results go to bench/results.json and .md at
the top of the repository."""
from __future__ import annotations

from lab.bench.measure import Context, Skipped
from lab.bench.runner import main_bench, parse_only, run_benchmarks

__all__ = ["Context", "Skipped", "main_bench", "parse_only", "run_benchmarks"]
