"""A* (game/world/astar.py) against a plain Dijkstra reference on random grids."""
from __future__ import annotations

import heapq
import itertools
import math
import random

import numpy as np
import pytest

import game.world.astar as pathing
from game.world.astar import (
    components,
    find_path,
    find_path_to_any,
    nearest_reachable,
    path_cost,
    reachable_mask,
)

SQ2 = math.sqrt(2)


def ref_moves(walk: np.ndarray, x: int, y: int):
    """8-neighbour moves from (x, y) with the no-corner-cutting rule."""
    h, w = walk.shape

    def ok(a, b):
        return 0 <= a < w and 0 <= b < h and walk[b, a]

    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            if (dx or dy) and ok(x + dx, y + dy):
                if dx and dy and not (ok(x + dx, y) and ok(x, y + dy)):
                    continue
                yield (x + dx, y + dy), (SQ2 if dx and dy else 1.0)


def ref_cost(walk: np.ndarray, start, goal) -> float | None:
    """Dijkstra: the true shortest cost, or None when unreachable/blocked."""
    h, w = walk.shape
    for x, y in (start, goal):
        if not (0 <= x < w and 0 <= y < h and walk[y, x]):
            return None
    dist = {start: 0.0}
    heap = [(0.0, start)]
    while heap:
        d, cur = heapq.heappop(heap)
        if cur == goal:
            return d
        if d > dist[cur] + 1e-12:
            continue
        for nxt, c in ref_moves(walk, *cur):
            nd = d + c
            if nd < dist.get(nxt, math.inf) - 1e-12:
                dist[nxt] = nd
                heapq.heappush(heap, (nd, nxt))
    return None


def assert_valid(walk: np.ndarray, path, start, goal):
    assert path[0] == tuple(start) and path[-1] == tuple(goal)
    for x, y in path:
        assert walk[y, x], f"path crosses blocked tile {(x, y)}"
    for a, b in itertools.pairwise(path):
        assert b in dict(ref_moves(walk, *a)), f"illegal step {a} -> {b}"


def random_grid(rng: random.Random, w: int, h: int, density: float) -> np.ndarray:
    return np.array([[rng.random() > density for _ in range(w)] for _ in range(h)], dtype=bool)


def test_matches_dijkstra_on_random_grids():
    rng = random.Random(1234)
    found = unreachable = 0
    for trial in range(300):
        w, h = rng.randint(1, 14), rng.randint(1, 12)
        walk = random_grid(rng, w, h, rng.choice([0.0, 0.15, 0.3, 0.45]))
        for _ in range(4):
            s = (rng.randrange(w), rng.randrange(h))
            t = (rng.randrange(w), rng.randrange(h))
            want = ref_cost(walk, s, t)
            path = find_path(walk, s, t)
            if want is None:
                assert path is None, (trial, s, t)
                unreachable += 1
                continue
            assert path is not None, (trial, s, t)
            assert_valid(walk, path, s, t)
            assert path_cost(path) == pytest.approx(want, abs=1e-9), (trial, s, t)
            found += 1
    assert found > 300 and unreachable > 50  # both branches exercised


def test_landmarks_keep_paths_shortest(monkeypatch):
    """With a tiny search budget every component gets landmarks (ALT), which
    must never change the cost of the path found."""
    monkeypatch.setattr(pathing, "_BUDGET", 2)
    rng = random.Random(99)
    used = 0
    for trial in range(120):
        w, h = rng.randint(3, 14), rng.randint(3, 12)
        walk = random_grid(rng, w, h, rng.choice([0.1, 0.3, 0.4]))
        for _ in range(5):
            s = (rng.randrange(w), rng.randrange(h))
            t = (rng.randrange(w), rng.randrange(h))
            want = ref_cost(walk, s, t)
            path = find_path(walk, s, t)
            assert (path is None) == (want is None), (trial, s, t)
            if path:
                assert_valid(walk, path, s, t)
                assert path_cost(path) == pytest.approx(want, abs=1e-9), (trial, s, t)
            goals = [(rng.randrange(w), rng.randrange(h)) for _ in range(rng.choice([2, 20]))]
            costs = [c for c in (ref_cost(walk, s, g) for g in goals) if c is not None]
            path = find_path_to_any(walk, s, goals)
            assert (path is None) == (not costs)
            if path:
                assert path_cost(path) == pytest.approx(min(costs), abs=1e-9), (trial, s, goals)
        used += bool(pathing._graph(walk).landmarks)
    assert used > 50  # the landmark branch really ran


def test_prepare_builds_landmarks():
    walk = np.ones((6, 9), dtype=bool)
    walk[:5, 4] = False
    pathing.prepare(walk)
    assert pathing._graph(walk).landmarks
    path = find_path(walk, (0, 0), (8, 0))
    assert path_cost(path) == pytest.approx(ref_cost(walk, (0, 0), (8, 0)))
    pathing.prepare(np.zeros((2, 2), dtype=bool))  # nothing walkable: no error


def test_edge_cases():
    walk = np.ones((5, 6), dtype=bool)
    assert find_path(walk, (2, 2), (2, 2)) == [(2, 2)]
    assert find_path(walk, (0, 0), (1, 0)) == [(0, 0), (1, 0)]
    assert find_path(walk, (0, 0), (5, 4)) is not None
    assert find_path(walk, (0, 0), (6, 0)) is None  # goal outside
    assert find_path(walk, (-1, 0), (1, 0)) is None  # start outside
    # Just below the last row: outside, not a tile of the next column's row (found by the mutation pass).
    assert find_path(walk, (0, 0), (0, 5)) is None and find_path(walk, (0, 5), (0, 0)) is None
    assert find_path(walk, (5, 0), (0, 5)) is None
    walk[0, 1] = False
    assert find_path(walk, (0, 0), (1, 0)) is None  # goal blocked
    assert find_path(walk, (1, 0), (0, 0)) is None  # start blocked
    blocked_self = np.zeros((3, 3), dtype=bool)
    assert find_path(blocked_self, (1, 1), (1, 1)) is None


def test_no_corner_cutting():
    # Two tiles touching only diagonally, with both orthogonal tiles blocked.
    walk = np.array([[1, 0], [0, 1]], dtype=bool)
    assert find_path(walk, (0, 0), (1, 1)) is None
    # One orthogonal tile open is still not enough for a diagonal step.
    walk = np.array([[1, 1], [0, 1]], dtype=bool)
    assert find_path(walk, (0, 0), (1, 1)) == [(0, 0), (1, 0), (1, 1)]
    walk = np.ones((2, 2), dtype=bool)
    assert find_path(walk, (0, 0), (1, 1)) == [(0, 0), (1, 1)]


def test_wall_with_gap():
    walk = np.ones((7, 9), dtype=bool)
    walk[:, 4] = False
    assert find_path(walk, (0, 3), (8, 3)) is None
    walk[6, 4] = True
    path = find_path(walk, (0, 3), (8, 3))
    assert path is not None and (4, 6) in path
    assert_valid(walk, path, (0, 3), (8, 3))
    assert path_cost(path) == pytest.approx(ref_cost(walk, (0, 3), (8, 3)))


def test_grid_changes_are_seen():
    walk = np.ones((3, 5), dtype=bool)
    assert find_path(walk, (0, 1), (4, 1)) is not None
    walk[:, 2] = False  # mutate in place: the cached graph must not be reused
    assert find_path(walk, (0, 1), (4, 1)) is None


def test_find_path_to_any_picks_the_cheapest():
    rng = random.Random(7)
    for trial in range(150):
        w, h = rng.randint(2, 12), rng.randint(2, 12)
        walk = random_grid(rng, w, h, 0.3)
        s = (rng.randrange(w), rng.randrange(h))
        goals = [(rng.randrange(w), rng.randrange(h)) for _ in range(rng.choice([1, 3, 20]))]
        costs = [c for c in (ref_cost(walk, s, g) for g in goals) if c is not None]
        path = find_path_to_any(walk, s, goals)
        if not costs:
            assert path is None and nearest_reachable(walk, s, goals) is None
            continue
        assert path is not None and path[-1] in goals
        assert_valid(walk, path, s, path[-1])
        assert path_cost(path) == pytest.approx(min(costs), abs=1e-9), trial
        assert nearest_reachable(walk, s, goals) in goals
    walk = np.ones((3, 3), dtype=bool)
    assert find_path_to_any(walk, (0, 0), []) is None
    assert find_path_to_any(walk, (0, 0), [(0, 0), (2, 2)]) == [(0, 0)]


def test_reachability_equals_components():
    rng = random.Random(3)
    for _ in range(40):
        walk = random_grid(rng, 10, 8, 0.4)
        labels = components(walk)
        assert ((labels >= 0) == walk).all()
        s = (rng.randrange(10), rng.randrange(8))
        mask = reachable_mask(walk, s)
        if not walk[s[1], s[0]]:
            assert not mask.any()
            continue
        assert (mask == (labels == labels[s[1], s[0]])).all()
        for _ in range(5):
            t = (rng.randrange(10), rng.randrange(8))
            assert mask[t[1], t[0]] == (find_path(walk, s, t) is not None)


def test_long_path_on_a_big_grid_is_shortest():
    """A town-sized grid (140x100) with buildings: a long path in a few ms."""
    rng = random.Random(5)
    walk = np.ones((100, 140), dtype=bool)
    for _ in range(60):  # hollow buildings with one door each
        x, y = rng.randrange(2, 128), rng.randrange(2, 88)
        bw, bh = rng.randint(5, 10), rng.randint(5, 10)
        walk[y : y + bh, x : x + bw] = False
        walk[y + 1 : y + bh - 1, x + 1 : x + bw - 1] = True
        walk[y + bh - 1, x + bw // 2] = True
    walk[0:2, :] = True
    walk[98:100, :] = True
    find_path(walk, (0, 0), (139, 99))  # builds and caches the neighbour table
    path = find_path(walk, (0, 0), (139, 99))  # from the cache: same answer (its speed: make bench)
    assert path is not None
    assert path_cost(path) == pytest.approx(ref_cost(walk, (0, 0), (139, 99)))
