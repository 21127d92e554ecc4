"""The path service: A* searches off the step's critical path (no pygame).

A body that must walk somewhere asks for a path (``request``) and waits for it
the way a mind's decision is waited for: it keeps standing (``Body.routing``
says it is on its way) until its search is done. ``run()`` is called once per
step, before bodies walk: it works through the requests in order and stops
when the step's budget (``SimSettings.path_budget_ms``) is spent, pausing a
long search mid-way (``game.world.astar.Search`` runs in slices of node
expansions) and carrying on at the next step. So at 07:00, when everyone
wakes and walks off at once, the searches spread over a few steps instead of
one step doing 25 of them.

Lockstep runs (headless, reproducible) have no budget: every request is
searched within the step it was made in, so a seeded run walks exactly as it
would with synchronous A*.

The grid's search structures and the heuristic tables (one per goal set: an
object's use tiles, an arena's tiles) are built once and kept by
``game.world.astar``; the service holds its town's ``Graph`` and never hashes the
grid again.

Where a body goes is decided when its search starts, not when it was asked
(the free tiles of the target then), and a new request for the same body
replaces the old one; ``cancel`` drops it (a conversation began, the player
took the body).
"""
from __future__ import annotations

import logging
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

from game.sim import movement
from game.sim.bodies import Body
from game.world import astar
from game.world.grid import Tile

log = logging.getLogger(__name__)

SLICE = 192  # node expansions between looks at the clock (about 0.3-0.6 ms of A*)
PLACE = "place"  # walk to a place (an address): arrive there (movement.go_to's meaning)
TILE = "tile"  # walk to a tile (a conversation's approach): just walk


class PathsSim(movement.MovementSim, Protocol):
    """What the path service uses of the simulation, besides walking's goals: lockstep or not."""

    @property
    def lockstep(self) -> bool: ...


@dataclass
class Request:
    name: str
    kind: str  # PLACE | TILE
    target: str | None = None  # PLACE: the address
    goal: Tile | None = None  # TILE: the tile
    search: astar.Search | None = None
    prefix: list[Tile] = field(default_factory=list)  # a blocked start tile is stepped off first
    asked_at: int = 0  # the service's run count when asked


@dataclass
class PathStats:
    """What the service did (the HUD's and the benchmarks' figures)."""

    searches: int = 0  # searches finished
    expansions: int = 0  # nodes expanded in all
    steps_with_work: int = 0
    last_ms: float = 0.0  # path work in the last step
    max_ms: float = 0.0  # the most path work any step did
    total_ms: float = 0.0
    waited_steps_max: int = 0  # the longest a body waited for its path, in steps (runs of the service)

    # Any: JSON rows, as a save holds them (checked as they are read back)
    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class PathService:
    """Path requests, searched in order within a per-step budget (main thread only)."""

    def __init__(self, sim: PathsSim) -> None:
        self.sim = sim
        self.queue: OrderedDict[str, Request] = OrderedDict()
        self.stats = PathStats()
        self.runs = 0  # run() calls: one per step
        self._graph: astar.Graph | None = None
        self._walkable: Any = None

    @property
    def budget_ms(self) -> float | None:
        """Path work per step, in ms; None (lockstep runs): no budget."""
        sim = self.sim
        return None if sim.lockstep else sim.settings.path_budget_ms

    # -- the grid ---------------------------------------------------------------------
    @property
    def graph(self) -> astar.Graph:
        """The town's search structures, looked up once per walkable array."""
        walk = self.sim.town.walkable
        if self._graph is None or walk is not self._walkable:
            self._graph = astar.graph_of(walk)
            self._walkable = walk
        return self._graph

    # -- asking -----------------------------------------------------------------------
    def request(self, b: Body, target: str) -> None:
        """``b`` walks to ``target`` (an address) once its path is found; it stands
        meanwhile. Replaces any request of ``b``'s."""
        self._ask(b, Request(b.name, PLACE, target=target, asked_at=self.runs))

    def request_tile(self, b: Body, goal: Tile) -> None:
        """``b`` walks to the tile ``goal`` once its path is found (an approach)."""
        self._ask(b, Request(b.name, TILE, goal=tuple(goal), asked_at=self.runs))  # type: ignore[arg-type]

    def _ask(self, b: Body, req: Request) -> None:
        self.queue.pop(b.name, None)
        self.queue[b.name] = req
        b.path = []
        b.routing = True

    def cancel(self, name: str) -> None:
        """Forget ``name``'s request (its body stops being on its way)."""
        if self.queue.pop(name, None) is not None:
            b = self.sim.bodies.get(name)
            if b is not None:
                b.routing = False

    def pending(self, name: str) -> bool:
        return name in self.queue

    def waiting(self) -> int:
        """How many bodies wait for a path."""
        return len(self.queue)

    def clear(self) -> None:
        for name in list(self.queue):
            self.cancel(name)

    # -- state (the save's ``sim`` part keeps the requests, in order) --------------------
    def to_state(self) -> list[list[Any]]:
        """The waiting requests, first first: [name, "place", address] or [name, "tile", [x, y]]."""
        return [[r.name, r.kind, r.target if r.kind == PLACE else list(r.goal or ())] for r in self.queue.values()]

    # Any: JSON rows, as a save holds them (checked as they are read back)
    def from_state(self, rows: list[list[Any]] | None) -> None:
        """Ask again, in the same order, for the paths that were waiting (a search in
        progress starts afresh). Bodies marked as waiting without a request (an older
        save) ask for their target's path."""
        self.queue.clear()
        bodies = self.sim.bodies
        for row in rows or []:
            try:
                name, kind, where = row
            except (TypeError, ValueError):
                log.warning("a saved path request %r is not readable; skipped", row)
                continue
            b = bodies.get(name)
            if b is None:
                continue
            if kind == TILE and isinstance(where, (list, tuple)) and len(where) == 2:
                self.request_tile(b, (int(where[0]), int(where[1])))
            elif kind == PLACE and isinstance(where, str):
                self.request(b, where)
        for b in bodies.values():
            if b.routing and b.name not in self.queue:
                b.routing = False
                if b.conversation is None and b.target and not b.controlled and not b.visitor:
                    self.request(b, b.target)

    # -- working ----------------------------------------------------------------------
    def run(self) -> None:
        """This step's path work: requests in order until the budget is spent."""
        self.runs += 1
        if not self.queue:
            self.stats.last_ms = 0.0
            return
        t0 = time.perf_counter()
        budget = self.budget_ms
        end = None if budget is None else t0 + budget / 1000.0
        half = None if budget is None else t0 + budget / 2000.0
        started = False  # one start per step at least, so every request moves on
        stepping = self.sim.active
        for name in [n for n in self.queue if stepping is None or n in stepping]:  # in order, a group's own
            req = self.queue.get(name)
            if req is None:
                continue
            b = self.sim.bodies.get(name)
            if b is None:
                self.queue.pop(name)
                continue
            if req.search is None:
                if started and half is not None and time.perf_counter() >= half:
                    break  # starting a search builds its heuristic table (1-5 ms): not in a half-spent step
                started = True
                self._start(b, req)
            if req.search is not None and not self._search(b, req, end):
                break  # the budget is spent mid-search: it goes on next step
            if end is not None and time.perf_counter() >= end:
                break
        ms = (time.perf_counter() - t0) * 1000.0
        st = self.stats
        st.last_ms = ms
        st.max_ms = max(st.max_ms, ms)
        st.total_ms += ms
        st.steps_with_work += 1

    def _search(self, b: Body, req: Request, end: float | None) -> bool:
        """Search ``req`` until its path is found (True) or the step's budget is spent (False)."""
        search = req.search
        assert search is not None
        while True:
            before = search.expanded
            done = search.run(None if end is None else SLICE)
            self.stats.expansions += search.expanded - before
            if done:
                path = req.prefix[:-1] + search.path if search.path and req.prefix else search.path
                self._finish(b, req, path)
                return True
            if time.perf_counter() >= end:  # type: ignore[operator]
                return False

    def _start(self, b: Body, req: Request) -> None:
        """Pick the goal tiles now (the free ones) and set up the search, or finish
        at once (already there, nowhere to go)."""
        sim, g = self.sim, self.graph
        start = b.tile
        req.prefix = []
        if g.node(start) is None:  # standing somewhere blocked (a spawn on furniture): step off first
            off = sim.places.nearest_walkable(start)
            if off is None or g.node(off) is None:
                self._finish(b, req, None)
                return
            req.prefix = [start, off]
            start = off
        s = g.node(start)
        if req.kind == TILE:
            goals = [req.goal] if req.goal is not None else []
            cover = goals
        else:
            cover, goals = movement.goal_tiles(sim, b, req.target or "", start)
        comp = g.comp
        nodes = [n for n in (g.node(t) for t in goals) if n is not None and comp[n] == comp[s]]  # type: ignore[index]
        if not nodes:
            self._finish(b, req, None)
            return
        if s in nodes:
            self._finish(b, req, req.prefix[:-1] + [start] if req.prefix else [start])
            return
        cover_nodes = [n for n in (g.node(t) for t in cover) if n is not None]
        req.search = astar.Search(g, s, nodes, cover=cover_nodes or nodes)  # type: ignore[arg-type]

    def _finish(self, b: Body, req: Request, path: list[Tile] | None) -> None:
        self.queue.pop(req.name, None)
        b.routing = False
        st = self.stats
        st.searches += 1
        st.waited_steps_max = max(st.waited_steps_max, self.runs - req.asked_at)
        if req.kind == TILE:
            b.path = list(path[1:]) if path else []
        else:
            movement.follow(self.sim, b, req.target or "", path)


__all__ = ["PLACE", "TILE", "PathService", "PathStats", "Request"]
