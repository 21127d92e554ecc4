"""Tile geometry shared by the simulation and the views (no pygame): distances
between tiles and which way a step faces."""
from __future__ import annotations

import math

Tile = tuple[int, int]


def chebyshev(a: Tile, b: Tile) -> int:
    """Tiles between ``a`` and ``b`` when diagonal steps count as one (vision and talk ranges)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def distance(a: Tile, b: Tile) -> float:
    """Straight-line distance in tiles (nearest first)."""
    return math.hypot(a[0] - b[0], a[1] - b[1])


def facing(dx: int, dy: int, default: str) -> str:
    """The character sheet's row (down | left | right | up) for looking along (dx, dy);
    the larger part wins, sideways on a tie; ``default`` when standing still."""
    if dx == 0 and dy == 0:
        return default
    if abs(dx) >= abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


__all__ = ["Tile", "chebyshev", "distance", "facing"]
