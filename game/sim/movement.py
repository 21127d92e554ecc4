"""Movement: A* paths to a place, one tile per step, arriving.

A body sent somewhere (``go_to``) asks the path service (game/sim/path_service.py)
for its path and stands until it has one (``Body.routing``); then it walks
one tile per step along it; the last tile is an arrival (logged, and the
action's object state holds). A body knows only what it sees: setting off, it
avoids the tiles that bodies in its own arena stand on or walk to, when there
is a free alternative; arriving on a tile another body stands on, it takes the
nearest free one of its place instead. A place bigger than an object (an arena,
a sector) spreads residents over a seeded sample of its tiles, drawn from the
resident's own generator for that step (``pick``), so what one resident picks
never hangs on what another did first: each resident's clock can run on its own
(game/sim/clocks.py).
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Protocol

from game.sim import objects
from game.sim.bodies import Body
from game.world.astar import find_path, find_path_to_any
from game.world.grid import Tile, chebyshev, distance, facing
from game.world.town import Town


class Paths(Protocol):
    """What walking uses of the path service (game/sim/path_service.py): paths asked, and dropped."""

    def request(self, b: Body, target: str) -> None: ...

    def request_tile(self, b: Body, goal: Tile) -> None: ...

    def cancel(self, name: str) -> None: ...


class MovementSim(objects.ObjectsSim, Protocol):
    """What walking uses of the simulation, besides the objects' part: the path service,
    the run's seed and step (a resident's own random picks), errors."""

    @property
    def paths(self) -> Paths: ...

    @property
    def seed(self) -> int: ...

    @property
    def active(self) -> frozenset[str] | None: ...  # the residents stepping now; None: everyone

    @property
    def steps(self) -> int: ...

    def error(self, name: str, text: str) -> None: ...


def occupied(sim: MovementSim, me: Body, area: str) -> set[Tile]:
    """Tiles that other bodies standing in ``area`` stand on (or will stop on): what
    ``me`` can know of the place it is in. Bodies elsewhere are not looked at."""
    out = set()
    for o in sim.bodies.values():
        if o is me or sim.area(o.tile) != area:
            continue
        out.add(o.path[-1] if o.path else o.tile)
    return out


def pick(sim: MovementSim, name: str) -> random.Random:
    """The resident's own random generator for this step: seeded by the run's seed,
    the resident and the step, so a pick is the same whatever others did first."""
    return random.Random(f"{sim.seed}|{name}|{sim.steps}")


def stand_tiles(town: Town, target: str, start: Tile) -> list[Tile]:
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
    free tiles are preferred (as far as ``b`` sees: those in the arena it is in); an
    arena or sector gives a seeded sample of six, so residents spread over it.
    ``start`` itself when it is one of them."""
    cands = stand_tiles(sim.town, target, start)
    if not cands:
        return [], []
    taken = occupied(sim, b, sim.area(start))
    free = [t for t in cands if t not in taken] or cands
    if start in free:
        return cands, [start]
    if target.count(":") < 3 and len(free) > 6:
        free = pick(sim, b.name).sample(free, 6)
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
    taken = occupied(sim, mover, sim.area(tile))
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
    group = None if sim.active is None else [b for b in sim.bodies.values() if b.name in sim.active]
    objects.expire_lingering(sim, group)
    for b in sim.bodies.values() if group is None else group:
        if b.visitor or b.controlled:
            continue
        b.prev_tile = b.tile
        if not b.path:
            continue
        nxt = b.path.pop(0)
        b.facing = facing(nxt[0] - b.tile[0], nxt[1] - b.tile[1], b.facing)
        b.tile = nxt
        if not b.path and b.conversation is None and not settle(sim, b):
            arrive(sim, b)


def settle(sim: MovementSim, b: Body) -> bool:
    """``b`` reached its tile and finds another body standing there (it could not see
    it when it set off): it walks on to the nearest free tile of its place in view,
    and True. False when the tile is its own, or nothing else is free (it stays)."""
    if not b.target or not any(o is not b and not o.path and o.tile == b.tile for o in sim.bodies.values()):
        return False
    here = sim.area(b.tile)
    taken = occupied(sim, b, here) | {b.tile}
    r = sim.settings.vision_radius
    free = [t for t in stand_tiles(sim.town, b.target, b.tile)
            if t not in taken and chebyshev(t, b.tile) <= r and sim.area(t) == here]
    if not free:
        return False
    goal = min(free, key=lambda t: (distance(t, b.tile), t))
    path = path_to(sim, b.tile, goal)
    if not path or len(path) < 2:
        return False
    b.path = path[1:]
    return True
