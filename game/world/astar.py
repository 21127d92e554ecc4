"""A* over the town's walkable grid (no pygame).

The grid is a ``numpy`` bool array indexed ``[y, x]``; tiles are ``(x, y)``.
Moves are 8-connected with costs 1 (orthogonal) and sqrt(2) (diagonal), and
never cut corners: a diagonal step needs both orthogonal neighbours walkable.
A consequence worth knowing: two tiles are mutually reachable exactly when they
are 4-connected, so flood fills may use 4-neighbours.

Public API::

    find_path(walkable, start, goal) -> list[(x, y)] | None
    find_path_to_any(walkable, start, goals) -> list[(x, y)] | None
    nearest_reachable(walkable, start, candidates) -> (x, y) | None
    reachable_mask(walkable, start) -> numpy bool array (height, width)
    components(walkable) -> numpy int32 array, -1 on blocked tiles
    path_cost(path) -> float
    prepare(walkable) -> None            (optional warm-up of the caches below)
    graph_of(walkable) -> Graph          (the grid's search structures, built once)
    Search(graph, start, goals, cover=None)   an A* search run in slices: .run(expansions)

Each grid's neighbour table (and, on first need, its connected components and
landmarks) is built once and cached by the grid's contents (a few ms for the
table of the 136x96 Ville, about 0.2 s for its landmarks), so passing the same
array again is cheap, and an edited array is never served stale. A caller that
searches one grid all day (the simulation's path service, game/sim/path_service.py)
keeps its ``Graph`` and never hashes the grid again. Heuristic tables are
computed once per goal set and kept (an LRU of ``HEURISTIC_TABLES`` per grid):
residents walk to the same beds, desks and counters all day.

``Search`` runs a search in slices of node expansions, so a caller with a
time budget (the game's frame) can spread one long search over several
steps; ``find_path`` and friends run one to the end.
"""
from __future__ import annotations

import heapq
import itertools
import math
from array import array
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

SQRT2 = math.sqrt(2.0)
# Search costs are integers (exact, so ties stay ties and the heuristic stays
# exactly consistent): 1 -> ORTH, sqrt(2) -> DIAG. The rounding error (4e-7 per
# diagonal) is far below the smallest gap between two different path costs
# a + b*sqrt(2) on any town-sized grid, so the chosen paths are truly shortest.
ORTH = 1_000_000
DIAG = 1_414_214
_DD = DIAG - 2 * ORTH  # octile: ORTH * (dx + dy) + (DIAG - 2 * ORTH) * min(dx, dy)

Tile = tuple[int, int]


HEURISTIC_TABLES = 96  # goal sets whose heuristic table a grid keeps (about 100 KB each on the Ville)


class Graph:
    """The walkable grid flattened to node ids ``y * width + x`` with, per node,
    a tuple of ``(neighbour id, step cost)`` honouring the corner rule."""

    __slots__ = ("_comp", "height", "landmarks", "nbrs", "tables", "walk", "width", "xa", "xs", "ya", "ys")

    def __init__(self, walkable: np.ndarray):
        w = np.ascontiguousarray(walkable, dtype=bool)
        if w.ndim != 2:
            raise ValueError(f"walkable must be 2-D (height, width), got shape {w.shape}")
        h, wd = w.shape
        self.width, self.height = wd, h
        self.walk = w.ravel().tolist()
        self.xa = np.tile(np.arange(wd, dtype=np.int64), h)
        self.ya = np.repeat(np.arange(h, dtype=np.int64), wd)
        self.xs = self.xa.tolist()
        self.ys = self.ya.tolist()
        pad = np.zeros((h + 2, wd + 2), dtype=bool)
        pad[1:-1, 1:-1] = w

        def at(dx: int, dy: int) -> np.ndarray:  # walkable[y + dy, x + dx], False outside
            return pad[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + wd]

        nbrs: list[list] = [[] for _ in range(h * wd)]
        # Orthogonal first, then diagonals (stable order -> deterministic paths).
        dirs = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)]
        for dx, dy in dirs:
            ok = w & at(dx, dy)
            cost = ORTH
            if dx and dy:
                ok = ok & at(dx, 0) & at(0, dy)
                cost = DIAG
            off = dy * wd + dx
            for i in np.flatnonzero(ok).tolist():
                nbrs[i].append((i + off, cost))
        self.nbrs = [tuple(n) for n in nbrs]
        self._comp: list[int] | None = None
        # component label -> (K, n) int64 exact distances from K landmarks (-1: unreachable)
        self.landmarks: dict[int, np.ndarray] = {}
        # goal set (sorted node ids) -> heuristic per node, as an int64 array (an LRU)
        self.tables: OrderedDict[tuple[int, ...], array] = OrderedDict()

    def add_landmarks(self, comp: int, rows: np.ndarray) -> None:
        self.landmarks[comp] = rows
        self.tables.clear()  # tables made before are valid but weaker: make them again

    def node(self, tile: Sequence[int]) -> int | None:
        """Node id of a walkable in-bounds tile, else None."""
        x, y = int(tile[0]), int(tile[1])
        if 0 <= x < self.width and 0 <= y < self.height:
            i = y * self.width + x
            if self.walk[i]:
                return i
        return None

    def tile(self, i: int) -> Tile:
        return (self.xs[i], self.ys[i])

    def heuristic(self, targets: Iterable[int]) -> array:
        """A lower bound on the cost from every node to the nearest of ``targets``
        (consistent), computed once per goal set and kept."""
        key = tuple(sorted(set(targets)))
        table = self.tables.get(key)
        if table is None:
            table = array("q")
            table.frombytes(np.ascontiguousarray(_heuristic(self, list(key)), dtype=np.int64).tobytes())
            self.tables[key] = table
            while len(self.tables) > HEURISTIC_TABLES:
                self.tables.popitem(last=False)
        else:
            self.tables.move_to_end(key)
        return table

    @property
    def comp(self) -> list[int]:
        """Component label per node (-1 blocked), computed on first use, so that
        an unreachable goal is rejected at once instead of flooding its side."""
        if self._comp is None:
            labels = [-1] * len(self.walk)
            walk, nbrs = self.walk, self.nbrs
            label = 0
            for s in range(len(walk)):
                if not walk[s] or labels[s] != -1:
                    continue
                labels[s] = label
                stack = [s]
                while stack:
                    i = stack.pop()
                    for j, _ in nbrs[i]:
                        if labels[j] == -1:
                            labels[j] = label
                            stack.append(j)
                label += 1
            self._comp = labels
        return self._comp


_CACHE: OrderedDict[tuple, Graph] = OrderedDict()
_CACHE_SIZE = 4


def graph_of(walkable: np.ndarray) -> Graph:
    """The grid's search structures (built once per grid contents, then cached)."""
    arr = np.asarray(walkable, dtype=bool)
    key = (arr.shape, arr.tobytes())
    g = _CACHE.get(key)
    if g is None:
        g = Graph(arr)
        _CACHE[key] = g
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return g


_graph = graph_of  # the name the tests and older callers know


def _node(g: Graph, tile: Sequence[int]) -> int | None:
    return g.node(tile)


def _unwind(g: Graph, came: dict, end: int) -> list[Tile]:
    xs, ys = g.xs, g.ys
    out = []
    i = end
    while i != -1:
        out.append((xs[i], ys[i]))
        i = came[i]
    out.reverse()
    return out


# --------------------------------------------------------------------------- heuristics
#
# Each search gets its heuristic as one list (node -> lower bound on the cost
# to the nearest goal), computed with numpy over the whole grid: the octile
# distance, and, once a component has landmarks, the ALT bound (Goldberg &
# Harrelson): for a landmark L with exact distances d_L, the cost from i to a
# goal set G is at least max(min_G d_L - d_L(i), d_L(i) - max_G d_L). Both are
# consistent, so is their maximum. Landmarks are built lazily, the first time
# a search in that component runs over its budget (a long detour, where the
# octile bound is weak), and then cut such searches to a fraction.

LANDMARKS = 6
_BUDGET = 2500  # expansions before a component gets landmarks


def _dijkstra_all(g: Graph, s: int) -> list[int]:
    """Exact integer cost from s to every node; -1 where unreachable."""
    dist = [-1] * len(g.walk)
    dist[s] = 0
    done = bytearray(len(g.walk))
    heap = [(0, s)]
    nbrs = g.nbrs
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        d, i = pop(heap)
        if done[i]:
            continue
        done[i] = 1
        for j, c in nbrs[i]:
            if not done[j]:
                nd = d + c
                old = dist[j]
                if old < 0 or nd < old:
                    dist[j] = nd
                    push(heap, (nd, j))
    return dist


def _build_landmarks(g: Graph, seed: int) -> np.ndarray:
    """K landmarks in seed's component by farthest-point selection."""
    first = np.array(_dijkstra_all(g, seed), dtype=np.int64)
    far = int(np.argmax(first))
    rows: list[np.ndarray] = []
    nearest = None
    for _ in range(LANDMARKS):
        d = np.array(_dijkstra_all(g, far), dtype=np.int64)
        rows.append(d)
        nearest = d if nearest is None else np.minimum(nearest, d)
        far = int(np.argmax(nearest))
        if nearest[far] <= 0:
            break
    return np.stack(rows)


def _heuristic(g: Graph, targets: list[int]) -> np.ndarray:
    xa, ya = g.xa, g.ya
    tx = xa[targets]
    ty = ya[targets]
    h: Any = None
    if len(targets) <= 16:
        for gx, gy in zip(tx.tolist(), ty.tolist()):
            dx = np.abs(xa - gx)
            dy = np.abs(ya - gy)
            o = ORTH * (dx + dy) + _DD * np.minimum(dx, dy)
            h = o if h is None else np.minimum(h, o)
    else:  # octile distance to the goals' bounding box
        dx = np.maximum(np.maximum(tx.min() - xa, xa - tx.max()), 0)
        dy = np.maximum(np.maximum(ty.min() - ya, ya - ty.max()), 0)
        h = ORTH * (dx + dy) + _DD * np.minimum(dx, dy)
    lm = g.landmarks.get(g.comp[targets[0]])
    if lm is not None:
        dt = lm[:, targets]
        lo = dt.min(axis=1)[:, None]
        hi = dt.max(axis=1)[:, None]
        alt = np.maximum(lo - lm, lm - hi).max(axis=0)
        h = np.maximum(h, alt)
    return h


_OVER = object()


class Search:
    """A* from ``start`` to the cheapest-to-reach node of ``goals``, run in slices.

    ``cover`` (optional) is a superset of ``goals`` whose heuristic table is
    used: a lower bound to the nearest of a superset is one to the nearest of
    any subset, so a caller that picks a few free tiles of an object (or a
    random sample of an arena) still gets the object's cached table. Ties in f
    go to the node nearer the goal (smaller h), so paths are deterministic.

        s = Search(g, start, goals)
        while not s.run(256):   # True once finished; s.path is the path or None
            ...                  # (another frame)
    """

    __slots__ = ("H", "came", "closed", "done", "expanded", "g", "gbest", "goals", "heap", "path")

    def __init__(self, g: Graph, start: int, goals: Iterable[int], cover: Iterable[int] | None = None) -> None:
        self.g = g
        self.goals = set(goals)
        self.expanded = 0
        self.path: list[Tile] | None = None
        self.done = False
        if not self.goals:
            self.done = True
            return
        H = self.H = g.heuristic(cover if cover is not None else self.goals)
        self.came = {start: -1}
        self.gbest = {start: 0}
        self.closed: set[int] = set()
        self.heap = [(H[start], H[start], start)]

    def run(self, expansions: int | None = None) -> bool:
        """Expand up to ``expansions`` nodes (None: to the end). True when the
        search is over (``path`` is then the path, or None: unreachable)."""
        if self.done:
            return True
        nbrs, H, goals = self.g.nbrs, self.H, self.goals
        came, gbest, closed, heap = self.came, self.gbest, self.closed, self.heap
        pop, push = heapq.heappop, heapq.heappush
        left = -1 if expansions is None else max(1, int(expansions))
        while heap:
            _, _, i = pop(heap)
            if i in closed:
                continue
            if i in goals:
                self.path = _unwind(self.g, came, i)
                self.done = True
                return True
            if left == 0:
                push(heap, (gbest[i] + H[i], H[i], i))  # not expanded: back for the next slice
                return False
            left -= 1
            self.expanded += 1
            closed.add(i)
            gi = gbest[i]
            for j, c in nbrs[i]:
                if j in closed:
                    continue
                ng = gi + c
                old = gbest.get(j)
                if old is None or ng < old:
                    gbest[j] = ng
                    came[j] = i
                    hj = H[j]
                    push(heap, (ng + hj, hj, j))
        self.done = True
        return True


def _search(g: Graph, s: int, goals: set[int], budget: int | None):
    """A* to the end (None: unreachable), or _OVER after ``budget`` expansions."""
    search = Search(g, s, goals)
    if search.run(budget):
        return search.path
    return _OVER


def _route(g: Graph, s: int, targets: set[int]) -> list[Tile] | None:
    if s in targets:
        return [(g.xs[s], g.ys[s])]
    comp = g.comp[s]
    have = comp in g.landmarks
    found = _search(g, s, targets, None if have else _BUDGET)
    if found is _OVER:
        g.add_landmarks(comp, _build_landmarks(g, s))
        found = _search(g, s, targets, None)
    return found


def prepare(walkable: np.ndarray) -> None:
    """Optional warm-up: build the grid's neighbour table, components and the
    landmarks of its largest component now (about 0.1-0.2 s for the Ville)
    rather than on the first long search."""
    g = _graph(walkable)
    comp = g.comp
    if not any(w for w in g.walk):
        return
    sizes = np.bincount(np.array([c for c in comp if c >= 0]))
    big = int(np.argmax(sizes))
    if big not in g.landmarks:
        g.add_landmarks(big, _build_landmarks(g, comp.index(big)))


# --------------------------------------------------------------------------- public

def find_path(walkable: np.ndarray, start: Tile, goal: Tile) -> list[Tile] | None:
    """Shortest 8-connected path from ``start`` to ``goal`` (both ``(x, y)``),
    including both ends, or ``None`` when either end is blocked or outside the
    grid, or the goal is unreachable. ``start == goal`` gives ``[start]``."""
    g = _graph(walkable)
    s, t = _node(g, start), _node(g, goal)
    if s is None or t is None or (s != t and g.comp[s] != g.comp[t]):
        return None
    return _route(g, s, {t})


def find_path_to_any(walkable: np.ndarray, start: Tile, goals: Iterable[Tile]) -> list[Tile] | None:
    """Shortest path from ``start`` to whichever of ``goals`` is cheapest to
    reach (e.g. the nearest use tile of an object). Blocked or outside goals are
    ignored. ``None`` when no goal is reachable. The chosen goal is ``path[-1]``.
    """
    g = _graph(walkable)
    s = _node(g, start)
    if s is None:
        return None
    comp = g.comp
    targets = {n for n in (_node(g, t) for t in goals) if n is not None and comp[n] == comp[s]}
    if not targets:
        return None
    return _route(g, s, targets)


def nearest_reachable(walkable: np.ndarray, start: Tile, candidates: Iterable[Tile]) -> Tile | None:
    """The candidate tile cheapest to walk to from ``start`` (by path cost, not
    straight-line distance), or ``None`` when none is reachable."""
    path = find_path_to_any(walkable, start, candidates)
    return path[-1] if path else None


def reachable_mask(walkable: np.ndarray, start: Tile) -> np.ndarray:
    """Bool array (height, width): the tiles reachable from ``start`` (one BFS
    flood). All False when ``start`` is blocked or outside the grid."""
    g = _graph(walkable)
    out = np.zeros((g.height, g.width), dtype=bool)
    s = _node(g, start)
    if s is None:
        return out
    seen = bytearray(g.width * g.height)
    seen[s] = 1
    q = deque([s])
    nbrs = g.nbrs
    while q:
        i = q.popleft()
        for j, _ in nbrs[i]:
            if not seen[j]:
                seen[j] = 1
                q.append(j)
    out.ravel()[:] = np.frombuffer(bytes(seen), dtype=np.uint8).astype(bool)
    return out


def components(walkable: np.ndarray) -> np.ndarray:
    """Connected-component label per tile (int32, shape (height, width));
    -1 on blocked tiles. Two walkable tiles are mutually reachable exactly when
    their labels are equal."""
    g = _graph(walkable)
    return np.array(g.comp, dtype=np.int32).reshape(g.height, g.width)


def path_cost(path: Sequence[Tile]) -> float:
    """Total cost of a path: 1 per orthogonal step, sqrt(2) per diagonal step."""
    total = 0.0
    for (x0, y0), (x1, y1) in itertools.pairwise(path):
        total += SQRT2 if (x0 != x1 and y0 != y1) else 1.0
    return total
