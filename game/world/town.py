"""The town: a Tiled map read into a walkable grid, an address tree and object
states (no pygame). See docs/contracts.md sections 1 and 2.

    town = load_town("maps/the_ville/the_ville.tmx")
    town.walkable[y, x]                    # bool
    town.address_at(x, y)                  # "the Ville:Hobbs Cafe:cafe:coffee machine"
    town.tiles_of("the Ville:Hobbs Cafe")  # every tile of the sector
    town.use_tiles("the Ville:Hobbs Cafe:cafe:coffee machine")
    town.set_state(addr, "brewing coffee"); town.state(addr)
    town.describe("the Ville:Hobbs Cafe")  # "In Hobbs Cafe there is a cafe. In the cafe there is ..."

Decisions beyond the contract (documented here, tested in tests/test_town.py):

- The ``world`` map property is required; a map without it is a MapError (the
  world's name is what every address starts with, so guessing it from the file
  name would silently change every address a save or a mind remembers).
- Sectors may not overlap each other, nor arenas within a sector: every tile has
  exactly one deepest address.
- Lookups by an unknown address (``tiles_of``, ``use_tiles``) return ``[]``
  rather than raise, so an invented place name never crashes the game; use
  ``address in town`` or ``town.resolve(text)`` to check or repair a name.
  ``describe``, ``set_state`` and ``state`` raise ``KeyError`` for them.
- The use tiles of an object are its own walkable tiles; if it has none, the
  walkable 4-neighbours inside its arena (those not on another object first).
  Those of an arena, sector or the world are their walkable tiles.
- Reachability (contract 1, last rule) is not a load error by default: it is
  reported by ``town.problems()`` and by ``smallville map``; ``load_town(path,
  strict=True)`` turns problems into a MapError.

Reading the file (XML checks, pytmx without pygame) is game/world/tmx.py. The class
and its loader stay together here (a little over 600 lines): ``load_town``
fills the town's private address index, which splitting them would expose.
"""
from __future__ import annotations

import logging
import math
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from game.support.errors import MapError
from game.world.astar import components
from game.world.tmx import check_xml, import_pytmx, object_shapes, walk_layers

log = logging.getLogger(__name__)

TILE_LAYERS_REQUIRED = ("ground", "collision")
OBJECT_LAYERS_REQUIRED = ("sectors", "arenas", "objects", "spawns")
VISITOR = "visitor"
IDLE = "idle"


Tile = tuple[int, int]


# --------------------------------------------------------------------------- words

def _is_proper(name: str) -> bool:
    return name[:1].isupper()


def _last_word(name: str) -> str:
    words = name.lower().split()
    return words[-1] if words else ""


def _is_plural(name: str) -> bool:
    last = _last_word(name)
    return last.endswith("s") and not last.endswith(("ss", "us", "is"))


def _is_mass(name: str) -> bool:
    return _last_word(name) in ("seating", "equipment", "furniture", "water", "grass")


def _a(name: str) -> str:
    """'a coffee machine', 'an easel', 'bookshelves', 'cafe customer seating',
    'Klaus Mueller's room'."""
    if _is_proper(name) or name.lower().startswith("the ") or _is_plural(name) or _is_mass(name):
        return name
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def _the(name: str) -> str:
    """'the cafe', 'Hobbs Cafe', 'the Ville'."""
    if _is_proper(name) or name.lower().startswith("the "):
        return name
    return "the " + name


def _listing(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _there(place: str, things: list[str], plural_first: bool) -> str:
    verb = "are" if plural_first else "is"  # agrees with the first thing named
    return f"In {place} there {verb} {_listing(things)}."


# --------------------------------------------------------------------------- the town

class Town:
    """A loaded town. Build it with :func:`load_town`."""

    def __init__(self) -> None:
        self.path: Path = Path()
        self.world: str = ""
        self.width = self.height = self.tile_size = 0
        self.walkable: np.ndarray = np.zeros((0, 0), dtype=bool)
        self.tree: dict[str, dict[str, list[str]]] = {}
        self.object_states: dict[str, str] = {}
        self.spawns: dict[str, Tile] = {}
        self.tmx = None  # the pytmx.TiledMap (no images loaded)
        # Address table: index -> address; per-tile indices (int32, -1 = none).
        self._names: list[str] = []
        self._index: dict[str, int] = {}
        self.sector_ids: np.ndarray = np.zeros((0, 0), dtype=np.int32)
        self.arena_ids: np.ndarray = np.zeros((0, 0), dtype=np.int32)
        self.object_ids: np.ndarray = np.zeros((0, 0), dtype=np.int32)
        self.component: np.ndarray = np.zeros((0, 0), dtype=np.int32)  # reachability label, -1 blocked
        self._deep: list[list[int]] = []  # deepest address index per tile, as lists (fast scalar access)
        self._tiles: dict[str, list[Tile]] = {}
        self._use: dict[str, list[Tile]] = {}
        self._lower: dict[str, str] = {}

    # ---- lookups ---------------------------------------------------------------
    def __contains__(self, address: object) -> bool:
        return isinstance(address, str) and (address == self.world or address in self._index)

    def _in(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def address_at(self, x: int, y: int) -> str | None:
        """The deepest address of a tile (``world:sector[:arena[:object]]``), or
        None outside every sector or outside the map."""
        if 0 <= x < self.width and 0 <= y < self.height:
            i = self._deep[y][x]
            if i >= 0:
                return self._names[i]
        return None

    def sector_at(self, x: int, y: int) -> str | None:
        """``world:sector`` of a tile, or None."""
        return self._names[self.sector_ids[y, x]] if self._in(x, y) and self.sector_ids[y, x] >= 0 else None

    def arena_at(self, x: int, y: int) -> str | None:
        """``world:sector:arena`` of a tile, or None (e.g. a doorway between arenas)."""
        return self._names[self.arena_ids[y, x]] if self._in(x, y) and self.arena_ids[y, x] >= 0 else None

    def object_at(self, x: int, y: int) -> str | None:
        """Full object address of a tile, or None."""
        return self._names[self.object_ids[y, x]] if self._in(x, y) and self.object_ids[y, x] >= 0 else None

    def tiles_of(self, address: str) -> list[Tile]:
        """Every tile (x, y) at an address of any level, the world included;
        ``[]`` for an unknown address."""
        if address == self.world:
            return [(x, y) for y in range(self.height) for x in range(self.width)]
        return list(self._tiles.get(address, ()))

    def use_tiles(self, address: str) -> list[Tile]:
        """Walkable tiles to stand on to use or be at an address (see the module
        docstring); ``[]`` for an unknown address."""
        if address == self.world:
            ys, xs = np.nonzero(self.walkable)
            return list(zip(xs.tolist(), ys.tolist()))
        return list(self._use.get(address, ()))

    def addresses(self) -> list[str]:
        """Every sector, arena and object address, in tree order."""
        out = []
        for sector, arenas in self.tree.items():
            out.append(f"{self.world}:{sector}")
            for arena, objects in arenas.items():
                out.append(f"{self.world}:{sector}:{arena}")
                out.extend(f"{self.world}:{sector}:{arena}:{o}" for o in objects)
        return out

    def sectors(self) -> list[str]:
        return [f"{self.world}:{s}" for s in self.tree]

    def arenas(self) -> list[str]:
        return [f"{self.world}:{s}:{a}" for s, arenas in self.tree.items() for a in arenas]

    def objects(self) -> list[str]:
        return list(self.object_states)

    def resolve(self, text: str) -> str | None:
        """A known address for a loosely written one (case, spaces around ':',
        the world prefix left out), or None."""
        if not isinstance(text, str):
            return None
        parts = [p.strip() for p in text.strip().split(":")]
        if parts and parts[0].casefold() != self.world.casefold():
            parts.insert(0, self.world)
        key = ":".join(parts).casefold()
        if key == self.world.casefold():
            return self.world
        return self._lower.get(key)

    def reachable(self, a: Tile, b: Tile) -> bool:
        """Whether one can walk from tile a to tile b (O(1))."""
        if not (self._in(*a) and self._in(*b)):
            return False
        ca = self.component[a[1], a[0]]
        return bool(ca >= 0 and ca == self.component[b[1], b[0]])

    # ---- object states ------------------------------------------------------------
    def state(self, address: str) -> str:
        """An object's state ("idle" unless set). KeyError for a non-object."""
        try:
            return self.object_states[address]
        except KeyError:
            raise KeyError(f"no object at address {address!r}") from None

    def set_state(self, address: str, state: str | None) -> None:
        """Set an object's state; None or "" means idle. KeyError for a non-object."""
        if address not in self.object_states:
            raise KeyError(f"no object at address {address!r}")
        state = (state or "").strip()
        self.object_states[address] = state or IDLE

    def reset_states(self) -> None:
        for k in self.object_states:
            self.object_states[k] = IDLE

    # ---- words ----------------------------------------------------------------------
    def _split(self, address: str) -> list[str]:
        if address != self.world and address not in self._index:
            raise KeyError(f"unknown address {address!r}")
        return address.split(":")[1:]

    def _object_phrase(self, sector: str, arena: str, obj: str) -> str:
        st = self.object_states.get(f"{self.world}:{sector}:{arena}:{obj}", IDLE)
        return _a(obj) if st == IDLE else f"{_a(obj)} ({st})"

    def _describe_arena(self, sector: str, arena: str) -> str:
        objects = self.tree[sector][arena]
        if not objects:
            return f"{_cap(_the(arena))} is empty."
        things = [self._object_phrase(sector, arena, o) for o in objects]
        return _there(_the(arena), things, _is_plural(objects[0]))

    def _describe_sector(self, sector: str) -> str:
        arenas = list(self.tree[sector])
        if not arenas:
            return f"{_cap(_the(sector))} has no rooms."
        lines = [_there(_the(sector), [_a(a) for a in arenas], _is_plural(arenas[0]))]
        lines += [self._describe_arena(sector, a) for a in arenas]
        return " ".join(lines)

    def describe(self, address: str | None = None) -> str:
        """Natural language for an address and everything under it (the whole
        world when None): "In Hobbs Cafe there is a cafe. In the cafe there is a
        coffee machine, a cafe counter and cafe customer seating." Objects not
        idle show their state in brackets. KeyError for an unknown address."""
        parts = self._split(address or self.world)
        if not parts:
            sectors = list(self.tree)
            head = _there(_the(self.world), [_the(s) if not _is_proper(s) else s for s in sectors], False)
            return "\n".join([head] + [self._describe_sector(s) for s in sectors])
        if len(parts) == 1:
            return self._describe_sector(parts[0])
        if len(parts) == 2:
            return self._describe_arena(parts[0], parts[1])
        sector, arena, obj = parts
        st = self.object_states.get(address or "", IDLE)
        return f"In {_the(arena)} of {_the(sector)} there is {_a(obj)}; it is {st}."

    # ---- checks ---------------------------------------------------------------------
    def problems(self) -> list[str]:
        """Contract rules that are not load errors: every arena and every
        object must be reachable from every spawn. One line per problem."""
        out = []
        comps = {name: int(self.component[y, x]) for name, (x, y) in self.spawns.items()}
        for address in self.addresses():
            if address.count(":") < 2:
                continue  # sectors: reachable if their arenas are
            tiles = self._use.get(address, ())
            have = {int(self.component[y, x]) for x, y in tiles}
            missing = sorted(n for n, c in comps.items() if c not in have)
            if missing:
                where = tiles[0] if tiles else self._tiles[address][0]
                who = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
                out.append(f"{self.path}: {address} (near tile {where}) cannot be reached from the spawn of {who}")
        return out

    def summary(self) -> str:
        n_arenas = sum(len(a) for a in self.tree.values())
        residents = [n for n in self.spawns if n != VISITOR]
        lines = [
            f"{self.path}: {self.world}",
            f"  size: {self.width} x {self.height} tiles of {self.tile_size} px, "
            f"{int(self.walkable.sum())} walkable",
            f"  {len(self.tree)} sectors, {n_arenas} arenas, {len(self.object_states)} objects",
            f"  spawns: {len(self.spawns)} ({len(residents)} residents"
            + (" + visitor)" if VISITOR in self.spawns else ", no visitor)"),
        ]
        for name, (x, y) in self.spawns.items():
            lines.append(f"    {name} at ({x}, {y}): {self.address_at(x, y) or 'outside every sector'}")
        return "\n".join(lines)


# --------------------------------------------------------------------------- loading

class _Thing:
    __slots__ = ("kind", "name", "oid", "tiles", "pos", "parent")

    def __init__(self, kind: str, name: str, oid, tiles: list[Tile], pos: Tile):
        self.kind, self.name, self.oid, self.tiles, self.pos = kind, name, oid, tiles, pos
        self.parent = -1

    def label(self) -> str:
        return f"{self.kind} {self.name!r} (id {self.oid}) at tile {self.pos}"


def load_town(path: str | Path, *, strict: bool = False) -> Town:
    """Load a Tiled town (contract section 1) or raise MapError. With
    ``strict``, unreachable arenas/objects (``Town.problems()``) are errors too."""
    shown = str(path)
    path = Path(path)
    root = check_xml(path, shown)
    try:
        pytmx = import_pytmx()
    except ImportError as err:  # pragma: no cover - environment problem
        raise MapError(f"{shown}: cannot read Tiled maps: pytmx is not installed ({err})") from None
    try:
        tmx = pytmx.TiledMap(str(path))
    except Exception as err:  # pytmx raises bare Exceptions, KeyErrors, ValueErrors, ExpatErrors...
        raise MapError(f"{shown}: Tiled map could not be read: {type(err).__name__}: {err}") from None

    town = Town()
    town.path = Path(shown)
    town.tmx = tmx
    W, H, ts = int(tmx.width), int(tmx.height), int(tmx.tilewidth)
    town.width, town.height, town.tile_size = W, H, ts
    if W <= 0 or H <= 0 or ts <= 0:
        raise MapError(f"{shown}: the map has no size ({W}x{H} tiles of {ts} px)")

    world = (tmx.properties or {}).get("world")
    if not isinstance(world, str) or not world.strip():
        raise MapError(f"{shown}: the map has no 'world' property; add a string property 'world' "
                       "(e.g. 'the Ville') in Tiled's Map Properties")
    world = world.strip()
    if ":" in world:
        raise MapError(f"{shown}: the world name {world!r} contains ':'; names may not")
    town.world = world

    # ---- layers
    layers: dict[str | None, Any] = {}
    for layer in walk_layers(tmx.layers):
        layers.setdefault(getattr(layer, "name", None), layer)
    for name in TILE_LAYERS_REQUIRED:
        layer = layers.get(name)
        if layer is None:
            raise MapError(f"{shown}: missing the tile layer {name!r} (tile layers by exact name: "
                           "ground, floor, walls, furniture, foreground, collision)")
        if not isinstance(layer, pytmx.TiledTileLayer):
            raise MapError(f"{shown}: layer {name!r} must be a tile layer, not {type(layer).__name__}")
    for name in OBJECT_LAYERS_REQUIRED:
        layer = layers.get(name)
        if layer is None:
            raise MapError(f"{shown}: missing the object layer {name!r} (object layers by exact name: "
                           "sectors, arenas, objects, spawns)")
        if not isinstance(layer, pytmx.TiledObjectGroup):
            raise MapError(f"{shown}: layer {name!r} must be an object layer, not {type(layer).__name__}")

    try:
        collision = np.array(layers["collision"].data, dtype=np.int64)
    except Exception as err:
        raise MapError(f"{shown}: the collision layer's data cannot be read ({err})") from None
    if collision.shape != (H, W):
        raise MapError(f"{shown}: the collision layer is {collision.shape[1]}x{collision.shape[0]}, "
                       f"the map {W}x{H}")
    town.walkable = collision == 0

    shapes = object_shapes(root)

    def rect_tiles(obj, kind: str) -> _Thing:
        name = (obj.name or "").strip()
        oid = getattr(obj, "id", "?")
        x, y = float(obj.x), float(obj.y)
        w, h = float(obj.width or 0), float(obj.height or 0)
        shape = shapes.get(str(oid), "rect")
        pos = (int(math.floor(x / ts)), int(math.floor(y / ts)))
        what = f"{kind} {name!r} (id {oid}) at tile {pos}"
        if not name:
            raise MapError(f"{shown}: {_a(kind)} (id {oid}) at tile {pos} has no name; give it one in Tiled")
        if ":" in name:
            raise MapError(f"{shown}: {what} has ':' in its name; names may not contain ':'")
        if shape in ("point", "polygon", "polyline", "text") or w <= 0 or h <= 0:
            raise MapError(f"{shown}: {what} is a {shape if shape != 'rect' else 'zero-size rectangle'}; "
                           f"draw the {kind} as a rectangle")
        if float(getattr(obj, "rotation", 0) or 0) % 360:
            raise MapError(f"{shown}: {what} is rotated; use an unrotated rectangle")
        x0 = math.ceil(x / ts - 0.5)
        x1 = math.ceil((x + w) / ts - 0.5)
        y0 = math.ceil(y / ts - 0.5)
        y1 = math.ceil((y + h) / ts - 0.5)
        tiles = [(tx, ty) for ty in range(max(y0, 0), min(y1, H)) for tx in range(max(x0, 0), min(x1, W))]
        if not tiles:
            raise MapError(f"{shown}: {what} covers no tile of the map (a rectangle covers the tiles "
                           "whose centres lie inside it)")
        if len(tiles) != (x1 - x0) * (y1 - y0):
            raise MapError(f"{shown}: {what} sticks out of the map ({W}x{H} tiles)")
        return _Thing(kind, name, oid, tiles, tiles[0])

    def things(layer: str, kind: str) -> list[_Thing]:
        return [rect_tiles(o, kind) for o in layers[layer]]

    sectors = things("sectors", "sector")
    arenas = things("arenas", "arena")
    objects = things("objects", "object")

    # ---- sectors: unique names, no overlap
    sector_of = np.full((H, W), -1, dtype=np.int32)
    seen: dict[str, _Thing] = {}
    for i, s in enumerate(sectors):
        if s.name in seen:
            raise MapError(f"{shown}: two sectors named {s.name!r} (ids {seen[s.name].oid} and {s.oid}); "
                           "two things at one address")
        seen[s.name] = s
        for x, y in s.tiles:
            j = sector_of[y, x]
            if j >= 0:
                raise MapError(f"{shown}: {s.label()} overlaps sector {sectors[j].name!r} (id {sectors[j].oid}) "
                               f"at tile ({x}, {y}); sectors may not overlap")
            sector_of[y, x] = i

    def parent_of(thing: _Thing, grid: np.ndarray, parents: list[_Thing], pkind: str) -> int:
        ids = {int(grid[y, x]) for x, y in thing.tiles}
        if ids == {-1}:
            raise MapError(f"{shown}: {thing.label()} lies outside any {pkind}; "
                           f"draw it inside {'an' if pkind[0] in 'aeiou' else 'a'} {pkind} rectangle")
        inside = sorted(i for i in ids if i >= 0)
        if len(inside) > 1:
            names = " and ".join(repr(parents[i].name) for i in inside)
            raise MapError(f"{shown}: {thing.label()} lies in two {pkind}s ({names}); "
                           f"it must lie inside exactly one")
        if -1 in ids:
            out = next((x, y) for x, y in thing.tiles if grid[y, x] == -1)
            raise MapError(f"{shown}: {thing.label()} sticks out of {pkind} {parents[inside[0]].name!r} "
                           f"at tile {out}; it must lie wholly inside one {pkind}")
        return inside[0]

    # ---- arenas: inside one sector, unique per sector, no overlap
    arena_of = np.full((H, W), -1, dtype=np.int32)
    seen_a: dict[tuple, _Thing] = {}
    for i, a in enumerate(arenas):
        a.parent = parent_of(a, sector_of, sectors, "sector")
        key = (a.parent, a.name)
        if key in seen_a:
            raise MapError(f"{shown}: two arenas named {a.name!r} in sector {sectors[a.parent].name!r} "
                           f"(ids {seen_a[key].oid} and {a.oid}); two things at one address")
        seen_a[key] = a
        for x, y in a.tiles:
            j = arena_of[y, x]
            if j >= 0:
                raise MapError(f"{shown}: {a.label()} overlaps arena {arenas[j].name!r} (id {arenas[j].oid}) "
                               f"at tile ({x}, {y}); arenas may not overlap")
            arena_of[y, x] = i

    # ---- objects: inside one arena, unique per arena, no overlap
    object_of = np.full((H, W), -1, dtype=np.int32)
    seen_o: dict[tuple, _Thing] = {}
    for i, o in enumerate(objects):
        o.parent = parent_of(o, arena_of, arenas, "arena")
        key = (o.parent, o.name)
        if key in seen_o:
            a = arenas[o.parent]
            raise MapError(f"{shown}: two objects named {o.name!r} in arena {a.name!r} of sector "
                           f"{sectors[a.parent].name!r} (ids {seen_o[key].oid} and {o.oid}); "
                           "two things at one address")
        seen_o[key] = o
        for x, y in o.tiles:
            j = object_of[y, x]
            if j >= 0:
                raise MapError(f"{shown}: {o.label()} overlaps object {objects[j].name!r} (id {objects[j].oid}) "
                               f"at tile ({x}, {y}); objects may not overlap")
            object_of[y, x] = i

    walk = town.walkable

    # ---- use tiles of objects
    obj_use: list[list[Tile]] = []
    for o in objects:
        own = [(x, y) for x, y in o.tiles if walk[y, x]]
        if not own:
            free: list[Tile] = []
            taken: list[Tile] = []
            cells = set(o.tiles)
            for x, y in o.tiles:
                for nx, ny in ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1)):
                    if (nx, ny) in cells or not (0 <= nx < W and 0 <= ny < H):
                        continue
                    if walk[ny, nx] and arena_of[ny, nx] == o.parent:
                        (free if object_of[ny, nx] == -1 else taken).append((nx, ny))
            own = sorted(set(free), key=lambda t: (t[1], t[0])) or sorted(set(taken), key=lambda t: (t[1], t[0]))
        if not own:
            raise MapError(f"{shown}: {o.label()} has no use tile: none of its tiles is walkable and no "
                           f"walkable tile next to it lies in arena {arenas[o.parent].name!r}; "
                           "free a floor tile beside it (or make one of its tiles walkable)")
        obj_use.append(own)

    # ---- spawns
    for sp in layers["spawns"]:
        name = (sp.name or "").strip()
        oid = getattr(sp, "id", "?")
        px, py = float(sp.x), float(sp.y)
        w, h = float(sp.width or 0), float(sp.height or 0)
        cx, cy = px + w / 2, py + h / 2
        tx, ty = int(math.floor(cx / ts)), int(math.floor(cy / ts))
        what = f"spawn {name!r} (id {oid}) at tile ({tx}, {ty})"
        if not name:
            raise MapError(f"{shown}: a spawn (id {oid}) at tile ({tx}, {ty}) has no name; name it after "
                           f"a resident or '{VISITOR}'")
        if ":" in name:
            raise MapError(f"{shown}: {what} has ':' in its name; names may not contain ':'")
        if name in town.spawns:
            raise MapError(f"{shown}: two spawns named {name!r} (the second is id {oid}); one per resident")
        if not (0 <= tx < W and 0 <= ty < H):
            raise MapError(f"{shown}: {what} lies outside the map ({W}x{H} tiles)")
        if not walk[ty, tx]:
            raise MapError(f"{shown}: {what} stands on a blocked tile (the collision layer has a tile "
                           "there); move it onto a walkable tile")
        town.spawns[name] = (tx, ty)

    # ---- the address table, in tree order (sorted case-insensitively)
    def tree_order(name: str):
        return (name.casefold(), name)

    sector_idx = sorted(range(len(sectors)), key=lambda i: tree_order(sectors[i].name))
    arenas_in: dict[int, list[int]] = {i: [] for i in range(len(sectors))}
    for i, a in enumerate(arenas):
        arenas_in[a.parent].append(i)
    objects_in: dict[int, list[int]] = {i: [] for i in range(len(arenas))}
    for i, o in enumerate(objects):
        objects_in[o.parent].append(i)

    names: list[str] = []
    s_id = np.full(len(sectors), -1, dtype=np.int32)
    a_id = np.full(len(arenas), -1, dtype=np.int32)
    o_id = np.full(len(objects), -1, dtype=np.int32)

    def sorted_tiles(tiles):
        return sorted(tiles, key=lambda t: (t[1], t[0]))

    for si in sector_idx:
        s = sectors[si]
        s_addr = f"{world}:{s.name}"
        s_id[si] = len(names)
        names.append(s_addr)
        town._tiles[s_addr] = sorted_tiles(s.tiles)
        town._use[s_addr] = [t for t in town._tiles[s_addr] if walk[t[1], t[0]]]
        town.tree[s.name] = {}
        for ai in sorted(arenas_in[si], key=lambda i: tree_order(arenas[i].name)):
            a = arenas[ai]
            a_addr = f"{s_addr}:{a.name}"
            a_id[ai] = len(names)
            names.append(a_addr)
            town._tiles[a_addr] = sorted_tiles(a.tiles)
            town._use[a_addr] = [t for t in town._tiles[a_addr] if walk[t[1], t[0]]]
            obj_names = []
            for oi in sorted(objects_in[ai], key=lambda i: tree_order(objects[i].name)):
                o = objects[oi]
                o_addr = f"{a_addr}:{o.name}"
                o_id[oi] = len(names)
                names.append(o_addr)
                town._tiles[o_addr] = sorted_tiles(o.tiles)
                town._use[o_addr] = obj_use[oi]
                town.object_states[o_addr] = IDLE
                obj_names.append(o.name)
            town.tree[s.name][a.name] = obj_names

    town._names = names
    town._index = {n: i for i, n in enumerate(names)}
    town._lower = {n.casefold(): n for n in names}

    def remap(grid: np.ndarray, table: np.ndarray) -> np.ndarray:
        out = np.full(grid.shape, -1, dtype=np.int32)
        mask = grid >= 0
        if table.size:
            out[mask] = table[grid[mask]]
        return out

    town.sector_ids = remap(sector_of, s_id)
    town.arena_ids = remap(arena_of, a_id)
    town.object_ids = remap(object_of, o_id)
    deep = np.where(town.object_ids >= 0, town.object_ids,
                    np.where(town.arena_ids >= 0, town.arena_ids, town.sector_ids))
    town._deep = deep.tolist()

    town.component = components(town.walkable)
    if strict:
        problems = town.problems()
        if problems:
            raise MapError("\n".join(problems))
    return town


# --------------------------------------------------------------------------- CLI

def main_map(args) -> int:
    """``smallville map [--tree] [MAP]``: print every address (``--tree``) or a
    short summary with any reachability problems. MapError propagates to the
    CLI, which prints it without a traceback."""
    town = load_town(args.map)
    if getattr(args, "tree", False):
        lines = town.addresses()
    else:
        problems = town.problems()
        lines = [town.summary()] + [f"  warning: {p}" for p in problems]
        if not problems:
            lines.append("  every arena and object is reachable from every spawn")
    try:
        for line in lines:
            print(line)
        sys.stdout.flush()
    except BrokenPipeError:  # `smallville map --tree | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
