"""The town as the simulation looks it up, many times a step: the arena of a tile,
the addresses in view of a tile, an object's tiles, a place name resolved to a
known address, the nearest walkable tile. Static map facts, cached per tile."""
from __future__ import annotations

from typing import Any

import numpy as np

from game.world.grid import Tile, distance
from game.world.town import Town


class Places:
    """Cached lookups over a town's static map (never its object states, which change)."""

    def __init__(self, town: Town, vision_radius: int) -> None:
        self.town = town  # the sim swaps in the running town after a load (the same map)
        self.vision_radius = vision_radius
        self.known = set(town.addresses())
        self._area: dict[Tile, str] = {}
        self._seen: dict[Tile, list[str]] = {}
        self._object_tiles: dict[str, list[Tile]] = {}

    def area(self, tile: Tile) -> str:
        """The arena-level address of a tile (or its sector, or the world outdoors)."""
        a = self._area.get(tile)
        if a is None:
            addr = self.town.address_at(*tile)
            a = ":".join(addr.split(":")[:3]) if addr else self.town.world
            self._area[tile] = a
        return a

    def seen_addresses(self, tile: Tile) -> list[str]:
        """Addresses of every tile in the vision box (spatial memory grows by these)."""
        got = self._seen.get(tile)
        if got is None:
            r = self.vision_radius
            out: set[str] = set()
            x0, y0 = tile
            for y in range(max(0, y0 - r), min(self.town.height, y0 + r + 1)):
                for x in range(max(0, x0 - r), min(self.town.width, x0 + r + 1)):
                    a = self.town.address_at(x, y)
                    if a:
                        parts = a.split(":")
                        for i in range(2, len(parts) + 1):
                            out.add(":".join(parts[:i]))
            got = sorted(out)
            self._seen[tile] = got
        return list(got)

    def tiles_of_object(self, addr: str) -> list[Tile]:
        t: list[Any] | None = self._object_tiles.get(addr)
        if t is None:
            try:
                t = [tuple(x) for x in self.town.tiles_of(addr)]
            except Exception:  # noqa: BLE001 - an address the town no longer has: no tiles
                t = []
            self._object_tiles[addr] = t
        return t

    def resolve(self, address: str | None) -> str | None:
        """The deepest known address on the way down ``address`` (invented names
        fall back to their known parent); None when nothing is known."""
        if not address:
            return None
        parts = [p.strip() for p in str(address).split(":") if p.strip()]
        if parts and parts[0].casefold() != self.town.world.casefold():
            parts = [self.town.world, *parts]
        fix = getattr(self.town, "resolve", None)
        while len(parts) >= 2:
            a = ":".join(parts)
            if a in self.known:
                return a
            if callable(fix):
                got = fix(a)
                if got and got != self.town.world:
                    return got
            parts = parts[:-1]
        return None

    def walkable(self, tile: Tile) -> bool:
        return bool(self.town.walkable[tile[1], tile[0]])

    def in_bounds(self, tile: Tile) -> bool:
        return 0 <= tile[0] < self.town.width and 0 <= tile[1] < self.town.height

    def nearest_walkable(self, tile: Tile) -> Tile | None:
        """The nearest walkable tile within 5 rings around ``tile`` (not ``tile`` itself)."""
        for r in range(1, 6):
            ring = [
                (tile[0] + dx, tile[1] + dy)
                for dy in range(-r, r + 1)
                for dx in range(-r, r + 1)
                if max(abs(dx), abs(dy)) == r
            ]
            ring = [t for t in ring if self.in_bounds(t) and self.walkable(t)]
            if ring:
                return min(ring, key=lambda t: (distance(t, tile), t[1], t[0]))
        return None

    def any_walkable(self) -> Tile:
        ys, xs = np.nonzero(self.town.walkable)
        return (int(xs[0]), int(ys[0]))
