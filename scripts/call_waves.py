"""Where a headless run waited for its model: its calls in waves, in wall-time order.

    python scripts/call_waves.py RUN [--gap 0.3] [--profile [--instances N]]

A wave is the calls that began together (within ``--gap`` seconds of the one
before); in lockstep each wave is a step the town waited for. The summary counts
the waves, the calls that had the model to themselves (nothing else in flight:
a chain no stepping of the town as one can overlap), and by purpose. Reads
RUN/llm_calls.jsonl (every run writes it).

``--profile`` says instead how busy the model was: the wall time with 0, 1, ...
calls in flight, and
the run in slices of wall time (--slice), each with the calls begun, the model's
seconds, the share of the instances' time that is (their number from
summary.json, or --instances) and the sim times the calls were asked at (from
the decision records, RUN/why.jsonl.gz)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.explain.why import read_records  # after the path is set
from lab.bench.waves import GAP_S, alone, by_wall_slice, in_flight, read_calls, sim_times, waves


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="a run folder (smallville sim --out, or a bench run)")
    p.add_argument("--gap", type=float, default=GAP_S, help=f"seconds between calls of one wave (default {GAP_S})")
    p.add_argument("--profile", action="store_true", help="how busy the model was, in all and over the run")
    p.add_argument("--instances", type=int, default=0,
                   help="model instances (default: summary.json's, else 1)")
    p.add_argument("--slice", type=float, default=300.0, help="wall seconds a row of the profile (default 300)")
    args = p.parse_args(argv)
    path = Path(args.run) / "llm_calls.jsonl"
    if not path.is_file():
        print(f"{path}: no such file (is {args.run} a run folder?)", file=sys.stderr)
        return 2
    calls, bad = read_calls(path)
    for n in bad:
        print(f"{path}:{n}: not a call record, skipped", file=sys.stderr)
    if args.profile:
        return _profile(Path(args.run), calls, args.instances, args.slice)
    found = waves(calls, args.gap)
    for start, wave in found:
        names = " ".join(sorted(f"{c['purpose']}:{str(c.get('resident') or '?').split()[0]}" for c in wave))
        print(f"{start:7.1f} s {len(wave):4d}  {names[:140]}")
    lone = alone(calls)
    print(f"{len(calls)} calls in {len(found)} waves; {sum(lone.values())} with the model to themselves: "
          + ", ".join(f"{k} {v}" for k, v in lone.most_common()))
    return 0


def _profile(run: Path, calls: list[dict], instances: int, slice_s: float) -> int:
    if not instances:
        try:
            summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
            instances = int(summary["stepping"]["model_instances"])
        except (OSError, ValueError, KeyError, TypeError):
            instances = 1
    spans = in_flight(calls, instances)
    total = sum(spans.values()) or 1.0
    model_s = sum(c["latency_s"] for c in calls)
    print(f"{len(calls)} calls, {model_s:.1f} s of the model's time over {total:.1f} s of wall time on "
          f"{instances} instance(s): busy {100 * model_s / (total * instances):.1f}%")
    print("in flight: " + ", ".join(f"{n}{'+' if n == instances else ''} {s:.1f} s ({100 * s / total:.0f}%)"
                                    for n, s in spans.items()))
    why = run / "why.jsonl.gz"
    if not why.is_file():
        print(f"{why}: no decision records, so no profile over the run")
        return 0
    print("wall s       calls  model s  busy  asked at (sim)")
    for w in by_wall_slice(calls, sim_times(calls, list(read_records(why))), instances, slice_s):
        sim = f"{w['sim'][0][11:16]}-{w['sim'][1][11:16]}" if w["sim"] else "-"
        print(f"{w['wall'][0]:5.0f}-{w['wall'][1]:5.0f}  {w['calls']:5d}  {w['model_s']:7.1f}  "
              f"{100 * w['busy']:3.0f}%  {sim}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
