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


def in_flight(calls: list[dict], most: int) -> dict[int, float]:
    """Wall seconds with 0, 1, ... ``most`` calls in flight (``most`` counts more too),
    from the first call's start to the last one's end."""
    edges = sorted([(c["time"] - c["latency_s"], 1) for c in calls] + [(c["time"], -1) for c in calls])
    out = dict.fromkeys(range(most + 1), 0.0)
    n, last = 0, edges[0][0] if edges else 0.0
    for t, d in edges:
        out[min(n, most)] += t - last
        n, last = n + d, t
    return out


def by_wall_slice(calls: list[dict], sim_times: list[str | None], instances: int, slice_s: float) -> list[dict]:
    """The run cut into ``slice_s`` seconds of wall time: in each, the calls begun, the
    model's seconds (the parts of calls inside it), the share of the ``instances``'
    time that is, and the sim times the calls begun in it were asked at (the
    residents' clocks differ out of order, so a range)."""
    if not calls:
        return []
    t0 = min(c["time"] - c["latency_s"] for c in calls)
    t1 = max(c["time"] for c in calls)
    out = []
    k = 0
    while t0 + k * slice_s < t1:
        a, b = t0 + k * slice_s, min(t1, t0 + (k + 1) * slice_s)
        begun = [w for c, w in zip(calls, sim_times) if a <= c["time"] - c["latency_s"] < b]
        model_s = sum(max(0.0, min(b, c["time"]) - max(a, c["time"] - c["latency_s"])) for c in calls)
        asked = sorted(w for w in begun if w)
        out.append({"wall": (a - t0, b - t0), "calls": len(begun), "model_s": model_s,
                    "busy": model_s / ((b - a) * instances), "sim": (asked[0], asked[-1]) if asked else None})
        k += 1
    return out


def sim_times(calls: list[dict], records: list[dict]) -> list[str | None]:
    """The sim time each call was asked at, from the run's decision records (why.jsonl.gz):
    one record a call, each resident's in the order its calls ended."""
    queue: dict[tuple, list[str]] = {}
    for r in records:
        queue.setdefault((r.get("resident"), r.get("purpose")), []).append(str(r.get("time") or ""))
    taken: dict[tuple, int] = {}
    out: list[str | None] = []
    for c in calls:
        key = (c.get("resident"), c.get("purpose"))
        i = taken.get(key, 0)
        found = queue.get(key, [])
        out.append(found[i] if i < len(found) else None)
        taken[key] = i + 1
    return out
