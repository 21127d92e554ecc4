"""Who and what is near a tile, without looking at everyone: bodies and active
objects bucketed by square cells of the map, so perception and the talk range
cost each resident the cells around it, not the whole town (a town of 500
residents asked 500 x 500 distances a step).

A cell is ``vision_radius`` tiles wide, so everything within that radius of a
tile lies in the 3 x 3 cells around it (a larger radius looks further out).
The answers are candidates: the caller applies its exact test (the range, the
arena) as before, and gets them back in ``sim.bodies`` order, so what it finds,
and in which order, does not change.

The body index is rebuilt when any body's tile was set since it was built
(``game.sim.bodies.moves``: every ``Body.tile`` assignment counts, a new body too), or
``sim.bodies`` is another dict or another length; the object index when the
active objects asked about are not those it was built from.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from game.sim.bodies import Body, moves
from game.sim.places import Places
from game.world.grid import Tile

Cell = tuple[int, int]


class NearbySim(Protocol):
    """What the index uses of the simulation: the bodies and the places."""

    @property
    def bodies(self) -> dict[str, Body]: ...

    @property
    def places(self) -> Places: ...


class Nearby:
    """The bodies and active objects of one simulation, by cell (built lazily, on the main thread)."""

    def __init__(self, size: int) -> None:
        self.size = max(1, int(size))
        self._key: tuple[int, int, int] | None = None
        self._bodies: dict[Cell, list[tuple[int, Body]]] = {}
        self._active: Sequence[tuple[str, str]] | None = None
        self._objects: dict[Cell, list[tuple[int, str, str, Tile]]] = {}

    def cell(self, tile: Tile) -> Cell:
        return tile[0] // self.size, tile[1] // self.size

    def _cells(self, tile: Tile, radius: int) -> Iterator[Cell]:
        cx, cy = self.cell(tile)
        k = -(-max(0, radius) // self.size)  # cells to either side that can hold a tile within radius
        for y in range(cy - k, cy + k + 1):
            for x in range(cx - k, cx + k + 1):
                yield x, y

    def bodies(self, sim: NearbySim, tile: Tile, radius: int) -> list[Body]:
        """The bodies that may be within ``radius`` (chebyshev) of ``tile``, in ``sim.bodies`` order."""
        key = (moves(), id(sim.bodies), len(sim.bodies))
        if key != self._key:
            grid: dict[Cell, list[tuple[int, Body]]] = {}
            for i, b in enumerate(sim.bodies.values()):
                grid.setdefault(self.cell(b.tile), []).append((i, b))
            self._bodies, self._key = grid, key
        got: list[tuple[int, Body]] = []
        for c in self._cells(tile, radius):
            got += self._bodies.get(c, ())
        got.sort(key=lambda ib: ib[0])
        return [b for _, b in got]

    def objects(self, sim: NearbySim, active: Sequence[tuple[str, str]], tile: Tile,
                radius: int) -> list[tuple[str, str, list[Tile]]]:
        """The active objects that may have a tile within ``radius`` of ``tile``, in
        ``active``'s order: (address, state, those of its tiles in the cells near)."""
        if active is not self._active and active != self._active:  # the same states: the same index
            grid: dict[Cell, list[tuple[int, str, str, Tile]]] = {}
            for i, (addr, state) in enumerate(active):
                for t in sim.places.tiles_of_object(addr):
                    grid.setdefault(self.cell(t), []).append((i, addr, state, t))
            self._objects, self._active = grid, active
        found: dict[int, tuple[str, str, list[Tile]]] = {}
        for c in self._cells(tile, radius):
            for i, addr, state, t in self._objects.get(c, ()):
                hit = found.get(i)
                if hit is None:
                    found[i] = (addr, state, [t])
                else:
                    hit[2].append(t)
        return [found[i] for i in sorted(found)]


__all__ = ["Nearby"]
