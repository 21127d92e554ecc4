"""Saves that outlive versions (no pygame): migrations from older save schemas,
and the map's identity.

Migrations: ``MIGRATIONS[n]`` turns a save of schema ``n`` (its meta and its
decoded parts) into schema ``n + 1``, in place. A save of any older schema is
walked up one step at a time; each step is tested with a small committed save
of that schema (tests/data/saves/schema-N.sqlite). When a step is missing or
fails, the message says the save was made by an older Smallville, not that it
is damaged.

The map's identity is its world name, its size in tiles and its addresses,
not its bytes: redrawing tiles or moving furniture keeps the addresses, and a
save made before loads into it with a warning. A save is refused only when the
world or the size differ, or when addresses its state uses are gone from the
map (named in the message). The sha256 of the .tmx is still recorded: when it
matches, nothing else is checked.
"""
from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Container
from pathlib import Path
from typing import Any, Protocol

from game.support.errors import SaveError
from game.world.town import Town

log = logging.getLogger(__name__)

# The map a save is checked against: the running game's Town, or the path of a .tmx file.
ExpectedMap = Town | str | os.PathLike[str]


class Saved(Protocol):
    """What ``check_map`` reads of a save's meta (a ``SaveInfo``, game/saves/disk.py, which imports this module)."""

    path: Path
    world: str | None
    map_path: str | None
    map_sha256: str | None
    meta: dict
    warnings: list[str]

SCHEMA = 2  # the newest layout this code writes and reads (1: before map_size and migrations)


# ------------------------------------------------------------ migrations

def _v1_to_v2(meta: dict, parts: dict) -> None:
    """Schema 2 records the map's size (its identity with the world and the
    addresses); a schema-1 save does not know it, so it is left unknown and only
    the addresses are checked against the map."""
    meta.setdefault("map_size", None)


MIGRATIONS: dict[int, Callable[[dict, dict], None]] = {1: _v1_to_v2}


def migrate(meta: dict, parts: dict, path: Path) -> list[str]:
    """Bring a save's meta and parts from its schema up to SCHEMA, in place.
    Returns what was done (for a warning); SaveError when a step is missing or fails."""
    start = meta.get("schema")
    if not isinstance(start, int) or start >= SCHEMA:
        return []
    made_by = f"Smallville {meta.get('game_version') or '(unknown version)'}, save schema {start}"
    for n in range(start, SCHEMA):
        step = MIGRATIONS.get(n)
        if step is None:
            raise SaveError(f"{path} was made by an older Smallville ({made_by}) and this version has no way to "
                            f"convert schema {n} saves; load it with the version that made it")
        try:
            step(meta, parts)
        except Exception as err:  # a migration meets whatever an old save holds
            log.exception("migrating %s from schema %d failed", path, n)
            raise SaveError(f"{path} was made by an older Smallville ({made_by}) and converting it from schema "
                            f"{n} failed ({type(err).__name__}: {err}); load another save") from err
        meta["schema"] = n + 1
    meta["migrated_from"] = start
    log.info("%s: converted from save schema %d to %d", path, start, SCHEMA)
    return [f"made by an older Smallville (save schema {start}); converted"]


# ------------------------------------------------------------ the map

_fp_cache: dict[tuple[str, int, int], str] = {}


def map_fingerprint(path: str | os.PathLike) -> str:
    """sha256 (hex) of the .tmx file's bytes."""
    p = Path(path)
    st = p.stat()
    key = (str(p.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _fp_cache:
        _fp_cache[key] = hashlib.sha256(p.read_bytes()).hexdigest()
    return _fp_cache[key]


def map_size(town: object) -> list[int] | None:
    w, h = getattr(town, "width", None), getattr(town, "height", None)
    return [int(w), int(h)] if isinstance(w, int) and isinstance(h, int) and w > 0 and h > 0 else None


def _map_label(world: str | None, mpath: str | None, sha: str | None) -> str:
    bits = [f"'{world}'" if world else "an unnamed world"]
    extra = ", ".join(x for x in (mpath, f"fingerprint {sha[:12]}" if sha else None) if x)
    return f"{bits[0]} ({extra})" if extra else bits[0]


def addresses_used(parts: dict, world: str) -> set[str]:
    """Every string in the parts that is an address of ``world`` ("world:sector..."):
    where residents are, what they plan and remember as places."""
    prefix = f"{world}:"
    found: set[str] = set()
    stack: list[Any] = [parts]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if v.startswith(prefix):
                found.add(v)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple, set, frozenset)):
            stack.extend(v)
    return found


def check_map(info: Saved, expect_map: ExpectedMap, parts: dict | None = None) -> str:
    """Whether the save (a SaveInfo) fits ``expect_map`` (a .tmx path, or a Town
    with .path, .world, .width, .height and ``address in town``): "same" (the
    very file), "changed" (same world and size, other bytes; with ``parts``, every
    address they use still exists, else SaveError naming the missing ones).
    SaveError for another world, another size, or a save that records no map."""
    mp = expect_map if isinstance(expect_map, (str, os.PathLike)) else expect_map.path
    world = getattr(expect_map, "world", None)
    try:
        sha = map_fingerprint(mp)
    except OSError as err:
        raise SaveError(f"cannot read the map {mp} to check the save {info.path} against it: {err}") from err
    if info.map_sha256 == sha and (world is None or info.world in (None, world)):
        return "same"
    mine = _map_label(world, str(mp), sha)
    theirs = _map_label(info.world, info.map_path, info.map_sha256)
    hint = f" (--map {info.map_path})" if info.map_path and info.map_path != str(mp) else ""
    can_compare = world is not None and hasattr(expect_map, "__contains__")
    if info.map_sha256 is None or info.world != world or not can_compare:
        why = "it records no map" if info.map_sha256 is None else "another map"
        raise SaveError(f"{info.path} was saved on {theirs} but this game runs {mine} ({why}); "
                        f"start the game on the save's map to load it" + hint)
    saved_size, size = info.meta.get("map_size"), map_size(expect_map)
    if saved_size and size and list(saved_size) != size:
        raise SaveError(f"{info.path} was saved on {theirs}, {saved_size[0]} x {saved_size[1]} tiles, but this "
                        f"game's map is {size[0]} x {size[1]} (the map was resized since); start the game on the "
                        f"save's map to load it" + hint)
    if parts is not None and world is not None and isinstance(expect_map, Container):  # a Town: can_compare
        gone = sorted(a for a in addresses_used(parts, world) if a not in expect_map)
        if gone:
            more = f" and {len(gone) - 6} more" if len(gone) > 6 else ""
            raise SaveError(f"{info.path} uses places this game's map no longer has: "
                            f"{', '.join(repr(a) for a in gone[:6])}{more} (the map {mp} changed since the save); "
                            f"put them back in the map, or start the game on the save's map to load it" + hint)
        note = (f"the map {Path(str(mp)).name} changed since this save (its tiles differ; every place the save "
                "uses is still there): loaded anyway")
        if note not in info.warnings:
            info.warnings.append(note)
            log.warning("%s: %s", info.path, note)
    return "changed"


__all__ = ["MIGRATIONS", "SCHEMA", "ExpectedMap", "Saved", "addresses_used", "check_map", "map_fingerprint", "map_size",
           "migrate"]
