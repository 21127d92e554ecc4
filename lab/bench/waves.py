"""A run's model calls in waves: the calls that began together, in wall-time order.

In lockstep each wave is a step the town waited a call's latency for, so the
waves times the latency is most of a run's wall time against a wide server;
the calls that had the model to themselves are chains no stepping of the town
as one can overlap (docs/stepping.md). ``scripts/call_waves.py`` prints them
for a run folder; the scale bench counts them per run."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

GAP_S = 0.3  # calls begun within this of the one before are one wave


def waves(calls: list[dict], gap: float = GAP_S) -> list[tuple[float, list[dict]]]:
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


def read_calls(path: Path) -> tuple[list[dict], list[int]]:
    """A run's llm_calls.jsonl: the call records, and the numbers of the lines that are not one."""
    calls, bad = [], []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
            float(row["time"]), float(row["latency_s"]), str(row["purpose"])
        except (ValueError, KeyError, TypeError):
            bad.append(n)
            continue
        calls.append(row)
    return calls, bad
