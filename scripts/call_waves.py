"""Where a headless run waited for its model: its calls in waves, in wall-time order.

    python scripts/call_waves.py RUN [--gap 0.3]

A wave is the calls that began together (within ``--gap`` seconds of the one
before); in lockstep each wave is a step the town waited for. The summary counts
the waves, the calls that had the model to themselves (nothing else in flight:
a chain no stepping of the town as one can overlap), and by purpose. Reads
RUN/llm_calls.jsonl (every run writes it)."""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path


def waves(calls: list[dict], gap: float) -> list[tuple[float, list[dict]]]:
    """(start, the calls of the wave), the first wave starting at 0."""
    ordered = sorted(calls, key=lambda c: c["time"] - c["latency_s"])
    if not ordered:
        return []
    t0 = ordered[0]["time"] - ordered[0]["latency_s"]
    out: list[tuple[float, list[dict]]] = []
    last = None
    for c in ordered:
        start = c["time"] - c["latency_s"] - t0
        if last is None or start - last > gap:
            out.append((start, []))
        out[-1][1].append(c)
        last = start
    return out


def alone(calls: list[dict]) -> Counter:
    """Purposes of the calls during which no other call was in flight."""
    spans = sorted((c["time"] - c["latency_s"], c["time"], c["purpose"]) for c in calls)
    found: Counter = Counter()
    ended = float("-inf")  # the latest end of the calls begun before this one
    for i, (s, e, purpose) in enumerate(spans):
        nxt = spans[i + 1][0] if i + 1 < len(spans) else float("inf")
        if ended <= s and nxt >= e:
            found[purpose] += 1
        ended = max(ended, e)
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="a run folder (smallville sim --out, or a bench run)")
    p.add_argument("--gap", type=float, default=0.3, help="seconds between calls of one wave (default 0.3)")
    args = p.parse_args(argv)
    path = Path(args.run) / "llm_calls.jsonl"
    if not path.is_file():
        print(f"{path}: no such file (is {args.run} a run folder?)", file=sys.stderr)
        return 2
    calls = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
            float(row["time"]), float(row["latency_s"]), str(row["purpose"])
        except (ValueError, KeyError, TypeError):
            print(f"{path}:{n}: not a call record, skipped", file=sys.stderr)
            continue
        calls.append(row)
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
