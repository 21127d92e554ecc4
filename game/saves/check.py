"""What a loaded save's parts must be before they are swapped into the running
game (no pygame): each part the right kind of thing, every body's tile and path
on the map, the visitor a name and a tile. A hand-edited or damaged save is
refused here with a SaveError naming the part (or the meta key), before anything changes;
game/saves/saveload.py calls these while it builds the loaded game off to the side."""
from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from game.sim.core import Simulation
from game.support.errors import SaveError
from game.world.town import Town

_KIND = {int: "a whole number", str: "a text", list: "a list"}

# The meta keys a save's reader relies on, and what each must be (a hand-edited or
# damaged meta is refused by name rather than failing later).
_META_TYPES: dict[str, tuple[type, ...]] = {
    "schema": (int,), "game_version": (str,), "saved_at": (str,), "sim_time": (str,), "world": (str,),
    "map_path": (str,), "map_sha256": (str,), "embedding_model": (str,), "embedding_dim": (int,),
    "residents": (list,), "parts": (list,), "slot": (str,), "map_size": (list,), "game_id": (str,),
    "visitor_name": (str,),
}


def check_meta(path: Path, m: dict) -> None:
    """A save's meta table holds what its reader relies on, each key the right kind of
    value (SaveError naming the key otherwise)."""
    for key, types in _META_TYPES.items():
        v = m.get(key)
        if v is None:
            continue
        if not isinstance(v, types) or isinstance(v, bool):
            shown = json.dumps(v)[:30] if isinstance(v, (str, int, float)) else type(v).__name__
            raise SaveError(f"{path} is damaged (its meta '{key}' is {shown}, not {_KIND[types[0]]}); "
                            "load another save")
    for key in ("residents", "parts"):
        if any(not isinstance(x, str) for x in m.get(key) or []):
            raise SaveError(f"{path} is damaged (its meta '{key}' is not a list of names); load another save")
    size = m.get("map_size")
    if size is not None and (len(size) != 2 or not all(type(x) is int and 0 < x < 100_000 for x in size)):
        raise SaveError(f"{path} is damaged (its meta 'map_size' is not a width and a height); load another save")
    dim = m.get("embedding_dim")
    if dim is not None and not 0 < dim <= 65536:
        raise SaveError(f"{path} is damaged (its meta 'embedding_dim' {dim} is no embedding size); "
                        "load another save")


# The parts a game reads back, and the kind each must be.
PART_KINDS: dict[str, type] = {"sim": dict, "session": dict, "clock": dict, "visitor": dict, "random": dict,
                               "accounting": dict, "config": dict}


def check_parts(parts: dict[str, Any], where: str) -> None:  # Any: the parts as the file holds them, checked here
    """Every part the loader reads is a table (a mind's too)."""
    for name, value in parts.items():
        want = dict if name.startswith("minds/") else PART_KINDS.get(name)
        if want is None or (value is None and name not in ("sim", "session") and not name.startswith("minds/")):
            continue
        if not isinstance(value, want):
            raise SaveError(f"{where} is damaged: its part '{name}' is a {type(value).__name__}, not a table; "
                            "load another save")
    sess = parts.get("session") or {}
    names = sess.get("residents")
    if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
        raise SaveError(f"{where} is damaged: its part 'session' does not list the residents by name; "
                        "load another save")


def _on_map(tile: object, town: object) -> bool:
    w, h = getattr(town, "width", None), getattr(town, "height", None)
    if not isinstance(tile, (tuple, list)) or len(tile) != 2 or not all(type(x) is int for x in tile):
        return False
    if not isinstance(w, int) or not isinstance(h, int):
        return True  # a town without a size (tests' stand-ins): only the shape is checked
    return 0 <= tile[0] < w and 0 <= tile[1] < h


def check_bodies(sim: Simulation, town: Town, where: str) -> None:
    """Every body of the loaded simulation stands on the map and walks a path on it."""
    for name, b in sim.bodies.items():
        if not _on_map(b.tile, town):
            raise SaveError(f"{where} is damaged: part 'sim' puts {name} at {str(b.tile)[:40]}, which is not a tile "
                            f"of this map ({town.width} x {town.height}); load another save")
        bad = next((t for t in b.path if not _on_map(t, town)), None)
        if bad is not None:
            raise SaveError(f"{where} is damaged: part 'sim' has {name} walk through {str(bad)[:40]}, which is not "
                            f"a tile of this map; load another save")


def check_visitor(visitor: Mapping[str, object] | None, town: Town, residents: list[str], where: str) -> None:
    """The ``visitor`` part: a name, a tile on the map (or none), whom the player plays."""
    if visitor is None:
        return
    name, tile, controlled = visitor.get("name"), visitor.get("tile"), visitor.get("controlled")
    if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > 200):
        raise SaveError(f"{where} is damaged: part 'visitor' has no usable name; load another save")
    if tile is not None and not _on_map(tile, town):
        raise SaveError(f"{where} is damaged: part 'visitor' stands at {str(tile)[:40]}, which is not a tile of "
                        "this map; load another save")
    if controlled is not None and controlled not in residents:
        raise SaveError(f"{where} is damaged: part 'visitor' plays {str(controlled)[:40]!r}, who is not one of "
                        "the save's residents; load another save")


def py_random_state(s: Any) -> tuple:  # Any: as the file holds it; random.setstate checks it
    """Python's random state as ``random.setstate`` takes it (a save stores lists)."""
    return (s[0], tuple(s[1]), s[2])


__all__ = ["PART_KINDS", "check_bodies", "check_meta", "check_parts", "check_visitor", "py_random_state"]
