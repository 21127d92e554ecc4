"""Movement: A* paths to a place, one tile per step, arriving.

A body sent somewhere (``go_to``) asks the path service (game/sim/path_service.py)
for its path and stands until it has one (``Body.routing``); then it walks
one tile per step along it; the last tile is an arrival (logged, and the
action's object state holds). Paths avoid tiles other bodies stand on or walk
to when there is a free alternative; a place bigger than an object (an arena,
a sector) spreads residents over a seeded sample of its tiles.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Protocol

from game.sim import objects
from game.sim.bodies import Body
from game.world.astar import find_path, find_path_to_any
from game.world.grid import Tile, distance, facing


class Paths(Protocol):
    """What walking uses of the path service (game/sim/path_service.py): paths asked, and dropped."""

    def request(self, b: Body, target: str) -> None: ...

    def request_tile(self, b: Body, goal: Tile) -> None: ...

    def cancel(self, name: str) -> None: ...


class MovementSim(objects.ObjectsSim, Protocol):
    """What walking uses of the simulation, besides the objects' part: the path service,
    the random generator (who yields), errors."""

    @property
    def paths(self) -> Paths: ...

    @property
    def rng(self) -> random.Random: ...

    def error(self, name: str, text: str) -> None: ...


def occupied(sim: MovementSim, me: Body) -> set[Tile]:
    """Tiles other bodies stand on (or will stop on)."""
    out = set()
    for o in sim.bodies.values():
        if o is me:
            continue
        out.add(o.path[-1] if o.path else o.tile)
    return out


def stand_tiles(town: Any, target: str, start: Tile) -> list[Tile]:
    """The tiles one stands on to be at ``target`` (its objects' use tiles, else its
    walkable tiles) that can be reached from ``start``."""
    cands = list(town.use_tiles(target))
    if not cands:
        cands = [t for t in town.tiles_of(target) if town.walkable[t[1], t[0]]]
    reach = getattr(town, "reachable", None)
    if callable(reach):
        cands = [t for t in cands if reach(start, t)]
    return cands


def goal_tiles(sim: MovementSim, b: Body, target: str, start: Tile) -> tuple[list[Tile], list[Tile]]:
    """Where ``b`` (about to set off from ``start``) may stop to be at ``target``:
    (every stand-on tile of the place it can reach, the ones to search for). The
    free tiles are preferred; an arena or sector gives a seeded sample of six,
    so residents spread over it. ``start`` itself when it is one of them."""
    cands = stand_tiles(sim.town, target, start)
    if not cands:
        return [], []
    taken = occupied(sim, b)
    free = [t for t in cands if t not in taken] or cands
    if start in free:
        return cands, [start]
    if target.count(":") < 3 and len(free) > 6:
        free = sim.rng.sample(free, 6)
    return cands, free


def plan_path(sim: MovementSim, b: Body, target: str) -> list[Tile] | None:
    """A path from ``b``'s tile to a free use tile of ``target`` at once (its first
    tile is where ``b`` stands); None when it cannot get there. The simulation
    asks the path service instead (``go_to``); this is for one-off callers."""
    town = sim.town
    if not town.walkable[b.tile[1], b.tile[0]]:
        # Standing somewhere blocked (a spawn on furniture): step off first.
        off = sim.places.nearest_walkable(b.tile)
        if off is None:
            return None
        rest = plan_path(sim, replace(b, tile=off), target)
        return [b.tile, *rest] if rest else None
    _, free = goal_tiles(sim, b, target, b.tile)
    if not free:
        return None
    if free == [b.tile]:
        return [b.tile]
    return find_path_to_any(town.walkable, b.tile, free)


def path_to(sim: MovementSim, start: Tile, goal: Tile) -> list[Tile] | None:
    """The shortest path between two tiles (both included)."""
    return find_path(sim.town.walkable, start, goal)


def adjacent_free(sim: MovementSim, tile: Tile, mover: Body) -> Tile | None:
    """A free walkable tile next to ``tile`` in its arena for ``mover`` to stand on:
    orthogonal neighbours first, then the nearest to the mover."""
    taken = occupied(sim, mover)
    best = None
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            if dx == 0 and dy == 0:
                continue
            t = (tile[0] + dx, tile[1] + dy)
            if not sim.places.in_bounds(t):
                continue
            if not sim.places.walkable(t) or t in taken:
                continue
            if sim.area(t) != sim.area(tile):
                continue
            key = (abs(dx) + abs(dy), distance(t, mover.tile))  # orthogonal first, then nearest
            if best is None or key < best[0]:
                best = (key, t)
    return best[1] if best else None


def arrive(sim: MovementSim, b: Body, quiet: bool = False) -> None:
    """``b`` is at its action's place: it faces the object and its action's object state holds."""
    b.arrived_at = sim.now
    a = b.action
    if a is None:
        return
    if b.target and b.target.count(":") == 3:
        tiles = sim.places.tiles_of_object(b.target)
        if tiles and b.tile not in tiles:
            t = min(tiles, key=lambda t: distance(t, b.tile))
            b.facing = facing(t[0] - b.tile[0], t[1] - b.tile[1], b.facing)
        objects.hold_object(sim, b)
    if not quiet:
        sim.log_event(b.name, "arrive", f"arrives at {b.target}", b.target or "")


def go_to(sim: MovementSim, b: Body, target: str) -> None:
    """Send ``b`` to ``target``: it asks the path service and stands until its path
    is found (``follow`` then starts the walk)."""
    b.arrived_at = None
    sim.paths.request(b, target)


def follow(sim: MovementSim, b: Body, target: str, path: list[Tile] | None) -> None:
    """``b``'s path to ``target`` is found: it walks it (it arrives at once when
    already there, and acts where it stands, with an error event, when it
    cannot get there)."""
    b.arrived_at = None
    if path is None:
        sim.error(b.name, f"cannot reach {target}; acting where it stands")
        b.path = []
        arrive(sim, b, quiet=True)
    elif len(path) <= 1:
        b.path = []
        arrive(sim, b, quiet=True)
    else:
        b.path = path[1:]


def walk_to_tile(sim: MovementSim, b: Body, tile: Tile) -> None:
    """Send ``b`` to a tile (a conversation's approach), through the path service."""
    sim.paths.request_tile(b, tile)


def stop(sim: MovementSim, b: Body) -> None:
    """``b`` stops walking where it stands (and stops waiting for a path)."""
    b.path = []
    if b.routing:
        sim.paths.cancel(b.name)


def walk(sim: MovementSim) -> None:
    """One step: every body on its way moves one tile (the visitor and a body
    the player walks are moved from outside); the last tile is an arrival."""
    objects.expire_lingering(sim)
    for b in sim.bodies.values():
        if b.visitor or b.controlled:
            continue
        b.prev_tile = b.tile
        if not b.path:
            continue
        nxt = b.path.pop(0)
        b.facing = facing(nxt[0] - b.tile[0], nxt[1] - b.tile[1], b.facing)
        b.tile = nxt
        if not b.path and b.conversation is None:
            arrive(sim, b)
