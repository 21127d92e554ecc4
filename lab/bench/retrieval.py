"""Retrieval on a synthetic memory stream of 1k, 10k and 100k memories (the real
MemoryStream), against the floor of any exact scan."""
from __future__ import annotations

import statistics
import time
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from agents.memory import MemoryStream
from lab.bench.measure import Context, percentile


def bench_retrieval(ctx: Context) -> dict:
    """ms per retrieval query at 1k, 10k and 100k memories (synthetic stream,
    the real MemoryStream API)."""
    dim = 384
    sizes = (1_000, 10_000, 100_000)
    queries = ctx.n(50, 5)
    rng = np.random.default_rng(ctx.seed)
    start = datetime(2023, 2, 13, 7, 0)
    span_s = 2 * 24 * 3600  # two sim days
    out: dict[str, Any] = {"dim": dim, "queries_per_size": queries, "k": 12}
    stream = MemoryStream("bench-random", dim, capacity=max(sizes))
    kinds = ("observation", "observation", "observation", "chat", "plan", "thought", "reflection")
    build_s = 0.0
    everything = rng.standard_normal((max(sizes), dim), dtype=np.float32)
    everything /= np.linalg.norm(everything, axis=1, keepdims=True)
    for size in sizes:
        need = size - len(stream)
        vecs = everything[len(stream) : size]
        imp = rng.integers(1, 11, size=need)
        offs = np.sort(rng.uniform(0, span_s, size=need))
        base = len(stream)
        t = time.perf_counter()
        for i in range(need):
            stream.add(
                kinds[(base + i) % len(kinds)],
                f"memory {base + i}",
                start + timedelta(seconds=float(offs[i])),
                int(imp[i]),
                vecs[i],
            )
        build_s += time.perf_counter() - t
        warm = ctx.n(3, 1)
        qs = rng.standard_normal((queries + warm, dim)).astype(np.float32)
        qs /= np.linalg.norm(qs, axis=1, keepdims=True)
        now = start + timedelta(seconds=span_s)
        for q in qs[:warm]:  # warm up
            stream.retrieve(q, now, k=12, touch=False)
        times = []
        for q in qs[warm:]:
            t = time.perf_counter()
            stream.retrieve(q, now, k=12)  # touch=True, as a mind does
            times.append((time.perf_counter() - t) * 1000.0)
        label = f"{size // 1000}k"
        out[f"ms_{label}"] = round(statistics.median(times), 3)
        out[f"p90_ms_{label}"] = round(percentile(times, 90), 3)
    # The floor for any exact scan: one matrix-vector product over 100k unit vectors (no scoring).
    floor = []
    for q in qs[: ctx.n(10, 3)]:
        t = time.perf_counter()
        everything @ q
        floor.append((time.perf_counter() - t) * 1000.0)
    out["scan_floor_ms_100k"] = round(statistics.median(floor), 3)
    out["ratio_100k_vs_1k"] = round(out["ms_100k"] / out["ms_1k"], 1) if out["ms_1k"] > 0 else None
    out["adds_per_s"] = round(len(stream) / build_s) if build_s > 0 else None
    return out
