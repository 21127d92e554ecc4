"""The table (Markdown) and the curve of a scale sweep, for docs/scale.md:

    python scripts/scale_report.py bench/scale_runs.json --plot docs/scale.png

``smallville bench --only scale`` writes ``scale_runs.json`` beside its --out,
every run's row merged in (lab/bench/scale.py)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lab.bench.scale import plot, scale_table  # after the path is set


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", help="a scale_runs.json")
    p.add_argument("--plot", help="draw the curve into this image too")
    args = p.parse_args(argv)
    rows = json.loads(Path(args.runs).read_text(encoding="utf-8"))["runs"]
    print(scale_table(rows))
    if args.plot:
        print(plot(rows, Path(args.plot)) or "no plot: matplotlib is not installed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
