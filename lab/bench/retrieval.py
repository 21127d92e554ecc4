"""Retrieval on a synthetic memory stream of 1k, 10k and 100k memories (the real
MemoryStream), against the floor of any exact scan (one pass over the bytes the
scan reads) and side by side with a per-node loop like the original's."""
from __future__ import annotations

import statistics
import time
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from agents import MemoryStream, median_ms
from agents import memory as mem
from lab.bench.measure import Context, percentile


# long: one measurement, set up, timed and reported in order
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
    # The floor (the issue's): one pass over the stream's embedding bytes, the
    # float32 rows (154 MB at 100k x 384), with the cheapest read there is (a sum
    # of 64-bit words), measured side by side with the queries so load on the
    # machine falls on both alike. A scan that reads fewer bytes (the int8 copy)
    # beats it; the pass over the bytes actually scanned is given as well.
    kernel = mem.scan_kernel()
    stream.retrieve(qs[0], now, k=12, touch=False)  # the int8 copy, if any, is complete
    n = len(stream)
    read32 = stream._emb[:n].reshape(-1).view(np.uint64).sum
    read8 = stream._compact._codes[:n].reshape(-1).view(np.uint64).sum if kernel == "int8" else None
    floor, floor8, paired = [], [], []
    for q in qs[: ctx.n(30, 5)]:
        floor.append(once_ms(read32))
        if read8 is not None:
            floor8.append(once_ms(read8))
        paired.append(once_ms(stream.retrieve, q, now, k=12, touch=False))
    out["scan_kernel"] = kernel
    out["kernel_ms_per_20k"] = {k: round(v, 3) for k, v in mem.kernel_timings(repeat=ctx.n(7, 3)).items()}
    out["embedding_mb_100k"] = round(stream._emb[:n].nbytes / 1e6, 1)
    out["scan_floor_ms_100k"] = round(statistics.median(floor), 3)
    out["paired_ms_100k"] = round(statistics.median(paired), 3)
    out["ratio_100k_vs_floor"] = round(out["paired_ms_100k"] / out["scan_floor_ms_100k"], 2)
    if floor8:
        out["scanned_mb_100k"] = round(stream._compact._codes[:n].nbytes / 1e6, 1)
        out["scanned_floor_ms_100k"] = round(statistics.median(floor8), 3)
        out["ratio_100k_vs_scanned_floor"] = round(out["paired_ms_100k"] / out["scanned_floor_ms_100k"], 2)
    out["ratio_100k_vs_1k"] = round(out["ms_100k"] / out["ms_1k"], 1) if out["ms_1k"] > 0 else None
    out["adds_per_s"] = round(len(stream) / build_s) if build_s > 0 else None
    # Side by side: a per-node loop like the original's (a cosine, a decay and a
    # dict per node, then min-max and a sort), on the same stream, each loop run
    # paired with warm queries of ours just before and after it (load falls on both).
    state = stream.to_state()
    for size in sizes:
        label = f"{size // 1000}k"
        view = stream if size == n else _first(state, size)
        loop, ours = [], []
        for q in qs[: ctx.n(3 if size < 100_000 else 1, 1)]:
            # ours: the median of a few warm queries just before and just after the loop
            ours.append(median_ms(lambda q=q, view=view: view.retrieve(q, now, k=12, touch=False), 5))
            loop.append(once_ms(per_node_retrieve, stream, q, now, size))
            ours.append(median_ms(lambda q=q, view=view: view.retrieve(q, now, k=12, touch=False), 5))
        out[f"loop_ms_{label}"] = round(statistics.median(loop), 1)
        out[f"paired_ms_{label}"] = round(statistics.median(ours), 3)
        out[f"speedup_vs_loop_{label}"] = round(out[f"loop_ms_{label}"] / out[f"paired_ms_{label}"], 1)
    return out


def once_ms(f, *args, **kwargs) -> float:
    """The wall time of one call ``f(*args, **kwargs)``, in milliseconds."""
    t = time.perf_counter()
    f(*args, **kwargs)
    return (time.perf_counter() - t) * 1000.0


def _first(state: dict, size: int) -> MemoryStream:
    """A stream of the first ``size`` memories of a stream's state (the same rows)."""
    view = MemoryStream(state["model"], state["dim"])
    view.from_state({**state, "nodes": state["nodes"][:size], "embeddings": state["embeddings"][:size]})
    return view


def per_node_retrieve(stream: MemoryStream, q: np.ndarray, now: datetime, size: int, k: int = 12) -> list[int]:
    """Retrieval the way the original computes it (one node at a time, in Python)."""
    recency, importance, relevance = {}, {}, {}
    nodes = stream.nodes[:size]
    for node in reversed(nodes):  # newest first, as the original's seq
        hours = (now - node.last_accessed).total_seconds() / 3600
        recency[node.id] = 0.995 ** hours
        importance[node.id] = node.importance
        vec = stream._emb[node.id]
        relevance[node.id] = float(np.dot(vec, q) / (np.linalg.norm(vec) * np.linalg.norm(q)))

    def normalise(d: dict) -> dict:
        lo, hi = min(d.values()), max(d.values())
        return {key: (0.5 if hi - lo == 0 else (v - lo) / (hi - lo)) for key, v in d.items()}

    recency, importance, relevance = normalise(recency), normalise(importance), normalise(relevance)
    total = {key: recency[key] + importance[key] + relevance[key] for key in recency}
    return sorted(total, key=total.__getitem__, reverse=True)[:k]
