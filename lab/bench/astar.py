"""A* on the real Ville: long paths between random walkable tiles (seeded)."""
from __future__ import annotations

import random
import statistics
import time

import numpy as np

from game.world import astar
from game.world.map_reader import load_town
from lab.bench.measure import Context, Skipped, summarise_ms


def bench_astar(ctx: Context) -> dict:
    """Long paths on the real Ville: random walkable pairs >= 80 tiles apart (seeded)."""
    town = load_town(ctx.map_path)
    walk = town.walkable
    t = time.perf_counter()
    astar.prepare(walk)
    prepare_ms = (time.perf_counter() - t) * 1000.0
    comp = astar.components(walk)
    labels, counts = np.unique(comp[comp >= 0], return_counts=True)
    big = labels[np.argmax(counts)]
    ys, xs = np.nonzero(comp == big)
    tiles = list(zip(xs.tolist(), ys.tolist()))
    rng = random.Random(ctx.seed)
    min_apart = 80
    n = ctx.n(1000, 50)
    pairs = []
    tries = 0
    while len(pairs) < n and tries < n * 1000:
        tries += 1
        a, b = rng.choice(tiles), rng.choice(tiles)
        if max(abs(a[0] - b[0]), abs(a[1] - b[1])) >= min_apart:
            pairs.append((a, b))
    if not pairs:
        raise Skipped(f"no walkable tiles {min_apart} apart on {ctx.map_path.name}")
    astar.find_path(walk, *pairs[0])  # warm up (caches) once more, unmeasured
    times, lengths, unreachable = [], [], 0
    for a, b in pairs:
        t = time.perf_counter()
        path = astar.find_path(walk, a, b)
        times.append((time.perf_counter() - t) * 1000.0)
        if path is None:
            unreachable += 1
        else:
            lengths.append(len(path))
    out = {"paths": len(pairs)}
    out.update(summarise_ms(times))
    out.pop("n")
    out.update(
        median_path_tiles=statistics.median(lengths) if lengths else 0,
        min_apart_tiles=min_apart,
        unreachable=unreachable,
        prepare_ms=round(prepare_ms, 1),
        grid=f"{town.width}x{town.height}",
    )
    return out
