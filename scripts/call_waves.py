"""Where a headless run waited for its model: its calls in waves, in wall-time order.

    python scripts/call_waves.py RUN [--gap 0.3]

A wave is the calls that began together (within ``--gap`` seconds of the one
before); in lockstep each wave is a step the town waited for. The summary counts
the waves, the calls that had the model to themselves (nothing else in flight:
a chain no stepping of the town as one can overlap), and by purpose. Reads
RUN/llm_calls.jsonl (every run writes it)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lab.bench.waves import GAP_S, alone, read_calls, waves  # after the path is set


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="a run folder (smallville sim --out, or a bench run)")
    p.add_argument("--gap", type=float, default=GAP_S, help=f"seconds between calls of one wave (default {GAP_S})")
    args = p.parse_args(argv)
    path = Path(args.run) / "llm_calls.jsonl"
    if not path.is_file():
        print(f"{path}: no such file (is {args.run} a run folder?)", file=sys.stderr)
        return 2
    calls, bad = read_calls(path)
    for n in bad:
        print(f"{path}:{n}: not a call record, skipped", file=sys.stderr)
    found = waves(calls, args.gap)
    for start, wave in found:
        names = " ".join(sorted(f"{c['purpose']}:{str(c.get('resident') or '?').split()[0]}" for c in wave))
        print(f"{start:7.1f} s {len(wave):4d}  {names[:140]}")
    lone = alone(calls)
    print(f"{len(calls)} calls in {len(found)} waves; {sum(lone.values())} with the model to themselves: "
          + ", ".join(f"{k} {v}" for k, v in lone.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
