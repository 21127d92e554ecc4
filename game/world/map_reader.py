"""Reading a Tiled map into a Town (no pygame), and the `smallville map` command
that shows what was read. See docs/contracts.md section 1.

    town = load_town("maps/the_ville/the_ville.tmx")

Every problem is a MapError that starts with the map's name as given and names
the thing at fault. The steps run in this order, and the first problem found is
the one reported:

    the file (game/world/tmx.py's XML checks, then pytmx)
    the map's size and its 'world' property
    its layers, by exact name and kind
    the collision layer -> the walkable grid
    the sector, arena and object rectangles -> their tiles (all three layers)
    each level painted inside the one above it: sectors, then arenas, then objects
    the objects' use tiles
    the spawns
    the address table (no checks: everything it needs was checked above)
"""
from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from game.support.errors import MapError
from game.world.astar import components
from game.world.tmx import check_xml, import_pytmx, object_shapes, walk_layers
from game.world.town import IDLE, VISITOR, Tile, Town

if TYPE_CHECKING:  # pytmx is read only when a map is (and ships no type information: mypy sees its names loosely)
    from pytmx import TiledMap, TiledObject, TiledObjectGroup, TiledTileLayer

TILE_LAYERS_REQUIRED = ("ground", "collision")
OBJECT_LAYERS_REQUIRED = ("sectors", "arenas", "objects", "spawns")


def load_town(path: str | Path, *, strict: bool = False) -> Town:
    """Load a Tiled town (contract section 1) or raise MapError. With
    ``strict``, unreachable arenas/objects (``Town.problems()``) are errors too."""
    shown = str(path)
    root = check_xml(Path(path), shown)
    pytmx = _import_pytmx(shown)
    tmx = _read_tiled_map(pytmx, Path(path), shown)
    mapfile = _map_file(tmx, shown)
    world = _world_name(tmx, shown)
    layers = _layers_by_name(pytmx, tmx, shown)
    walkable = _walkable_grid(layers["collision"], mapfile)

    shapes = object_shapes(root)
    sector_rects = _rectangles(layers["sectors"], "sector", shapes, mapfile)
    arena_rects = _rectangles(layers["arenas"], "arena", shapes, mapfile)
    object_rects = _rectangles(layers["objects"], "object", shapes, mapfile)
    sectors = _paint_level("sector", sector_rects, mapfile)
    arenas = _paint_level("arena", arena_rects, mapfile, inside=sectors,
                          in_parent=lambda sector: f" in sector {sector.name!r}")
    objects = _paint_level("object", object_rects, mapfile, inside=arenas,
                           in_parent=lambda arena: f" in arena {arena.name!r} of sector "
                                                   f"{sectors.things[arena.parent].name!r}")
    object_use = _object_use_tiles(objects, arenas, walkable, mapfile)
    spawns = _spawns(layers["spawns"], walkable, mapfile)

    town = Town()
    town.path = Path(shown)
    town.tmx = tmx
    town.world = world
    town.width, town.height, town.tile_size = mapfile.width, mapfile.height, mapfile.tile_size
    town.walkable = walkable
    town.spawns = spawns
    _fill_address_table(town, sectors, arenas, objects, object_use)
    town.component = components(walkable)
    if strict:
        problems = town.problems()
        if problems:
            raise MapError("\n".join(problems))
    return town


# --------------------------------------------------------------------------- the file

@dataclass(frozen=True)
class _MapFile:
    """The map being read: its name as given (every message starts with it) and its size."""
    shown: str
    width: int
    height: int
    tile_size: int


def _import_pytmx(shown: str) -> ModuleType:
    try:
        return import_pytmx()
    except ImportError as err:  # pragma: no cover - environment problem
        raise MapError(f"{shown}: cannot read Tiled maps: pytmx is not installed ({err})") from None


def _read_tiled_map(pytmx: ModuleType, path: Path, shown: str) -> TiledMap:
    """The pytmx.TiledMap (no images loaded)."""
    try:
        return pytmx.TiledMap(str(path))
    except Exception as err:  # noqa: BLE001 - pytmx raises bare Exceptions, KeyErrors, ExpatErrors...
        raise MapError(f"{shown}: Tiled map could not be read: {type(err).__name__}: {err}") from None


def _map_file(tmx: TiledMap, shown: str) -> _MapFile:
    width, height, tile_size = int(tmx.width), int(tmx.height), int(tmx.tilewidth)
    if width <= 0 or height <= 0 or tile_size <= 0:
        raise MapError(f"{shown}: the map has no size ({width}x{height} tiles of {tile_size} px)")
    return _MapFile(shown, width, height, tile_size)


def _world_name(tmx: TiledMap, shown: str) -> str:
    """The ``world`` map property: the first part of every address."""
    world = (tmx.properties or {}).get("world")
    if not isinstance(world, str) or not world.strip():
        raise MapError(f"{shown}: the map has no 'world' property; add a string property 'world' "
                       "(e.g. 'the Ville') in Tiled's Map Properties")
    world = world.strip()
    if ":" in world:
        raise MapError(f"{shown}: the world name {world!r} contains ':'; names may not")
    return world


def _layers_by_name(pytmx: ModuleType, tmx: TiledMap,
                    shown: str) -> dict[str | None, TiledTileLayer | TiledObjectGroup]:
    """Every layer by name (groups walked through; the first of a name wins),
    the required ones checked to be there and of the right kind."""
    layers: dict[str | None, TiledTileLayer | TiledObjectGroup] = {}
    for layer in walk_layers(tmx.layers):
        layers.setdefault(getattr(layer, "name", None), layer)
    tile_layers = "ground, floor, walls, furniture, foreground, collision"  # the ones the game draws, too
    for required, kind, cls, known in (
            (TILE_LAYERS_REQUIRED, "tile", pytmx.TiledTileLayer, tile_layers),
            (OBJECT_LAYERS_REQUIRED, "object", pytmx.TiledObjectGroup, "sectors, arenas, objects, spawns")):
        for name in required:
            layer = layers.get(name)
            if layer is None:
                raise MapError(f"{shown}: missing the {kind} layer {name!r} ({kind} layers by exact name: {known})")
            if not isinstance(layer, cls):
                raise MapError(f"{shown}: layer {name!r} must be {'an' if kind == 'object' else 'a'} {kind} layer, "
                               f"not {type(layer).__name__}")
    return layers


def _walkable_grid(collision_layer: TiledTileLayer, mapfile: _MapFile) -> np.ndarray:
    """[y, x] -> bool: a tile is walkable when the collision layer has no tile there."""
    shown, W, H = mapfile.shown, mapfile.width, mapfile.height
    try:
        collision = np.array(collision_layer.data, dtype=np.int64)
    except Exception as err:  # noqa: BLE001 - whatever the layer holds, the map's author hears which
        raise MapError(f"{shown}: the collision layer's data cannot be read ({err})") from None
    if collision.shape != (H, W):
        raise MapError(f"{shown}: the collision layer is {collision.shape[1]}x{collision.shape[0]}, "
                       f"the map {W}x{H}")
    return collision == 0


# --------------------------------------------------------------------------- sectors, arenas, objects

class _Thing:
    """One named rectangle of the sectors, arenas or objects layer, as tiles."""
    __slots__ = ("kind", "name", "oid", "parent", "pos", "tiles")

    def __init__(self, kind: str, name: str, oid: int | str, tiles: list[Tile], pos: Tile):
        self.kind, self.name, self.oid, self.tiles, self.pos = kind, name, oid, tiles, pos
        self.parent = -1  # its index in the level above (-1 for a sector)

    def label(self) -> str:
        return f"{self.kind} {self.name!r} (id {self.oid}) at tile {self.pos}"


class _Level(NamedTuple):
    """One level of the address tree as drawn: its things and, per tile, the
    index of the thing covering it (-1: none)."""
    kind: str
    things: list[_Thing]
    grid: np.ndarray


def _with_article(kind: str) -> str:
    """'a sector', 'an arena', 'an object'."""
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def _rectangles(layer: TiledObjectGroup, kind: str, shapes: dict[str, str], mapfile: _MapFile) -> list[_Thing]:
    return [_rectangle_tiles(obj, kind, shapes, mapfile) for obj in layer]


def _rectangle_tiles(obj: TiledObject, kind: str, shapes: dict[str, str], mapfile: _MapFile) -> _Thing:
    """A named, unrotated rectangle -> the tiles whose centres lie inside it,
    all of them on the map."""
    shown, ts, W, H = mapfile.shown, mapfile.tile_size, mapfile.width, mapfile.height
    name = (obj.name or "").strip()
    oid = getattr(obj, "id", "?")
    x, y = float(obj.x), float(obj.y)
    w, h = float(obj.width or 0), float(obj.height or 0)
    shape = shapes.get(str(oid), "rect")
    pos = (math.floor(x / ts), math.floor(y / ts))
    what = f"{kind} {name!r} (id {oid}) at tile {pos}"
    if not name:
        raise MapError(f"{shown}: {_with_article(kind)} (id {oid}) at tile {pos} has no name; give it one in Tiled")
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


def _paint_level(kind: str, things: list[_Thing], mapfile: _MapFile, inside: _Level | None = None,
                 in_parent: Callable[[_Thing], str] = lambda parent: "") -> _Level:
    """One level of the tree painted onto the map. Each thing must lie wholly
    inside one thing of the level above (``inside``; none for sectors), which
    becomes its parent; no two things of a parent may share a name (``in_parent``
    words the parent for that message); no two things of the level may overlap."""
    grid = np.full((mapfile.height, mapfile.width), -1, dtype=np.int32)
    seen: dict[tuple[int, str], _Thing] = {}
    for i, thing in enumerate(things):
        if inside is not None:
            thing.parent = _parent_of(thing, inside, mapfile.shown)
        key = (thing.parent, thing.name)
        if key in seen:
            where = in_parent(inside.things[thing.parent]) if inside is not None else ""
            raise MapError(f"{mapfile.shown}: two {kind}s named {thing.name!r}{where} "
                           f"(ids {seen[key].oid} and {thing.oid}); two things at one address")
        seen[key] = thing
        for x, y in thing.tiles:
            j = grid[y, x]
            if j >= 0:
                other = things[j]
                raise MapError(f"{mapfile.shown}: {thing.label()} overlaps {kind} {other.name!r} (id {other.oid}) "
                               f"at tile ({x}, {y}); {kind}s may not overlap")
            grid[y, x] = i
    return _Level(kind, things, grid)


def _parent_of(thing: _Thing, parents: _Level, shown: str) -> int:
    """The index of the one thing of ``parents`` that holds ``thing`` wholly."""
    pkind = parents.kind
    ids = {int(parents.grid[y, x]) for x, y in thing.tiles}
    if ids == {-1}:
        raise MapError(f"{shown}: {thing.label()} lies outside any {pkind}; "
                       f"draw it inside {_with_article(pkind)} rectangle")
    inside = sorted(i for i in ids if i >= 0)
    if len(inside) > 1:
        names = " and ".join(repr(parents.things[i].name) for i in inside)
        raise MapError(f"{shown}: {thing.label()} lies in two {pkind}s ({names}); "
                       f"it must lie inside exactly one")
    if -1 in ids:
        out = next((x, y) for x, y in thing.tiles if parents.grid[y, x] == -1)
        raise MapError(f"{shown}: {thing.label()} sticks out of {pkind} {parents.things[inside[0]].name!r} "
                       f"at tile {out}; it must lie wholly inside one {pkind}")
    return inside[0]


def _by_row(tile: Tile) -> tuple[int, int]:
    return tile[1], tile[0]


def _object_use_tiles(objects: _Level, arenas: _Level, walkable: np.ndarray, mapfile: _MapFile) -> list[list[Tile]]:
    """Per object, the tiles to stand on to use it: its own walkable tiles; if
    it has none, the walkable tiles beside it in its arena (those not on another
    object first). An object with neither is an error."""
    out = []
    for obj in objects.things:
        use = [(x, y) for x, y in obj.tiles if walkable[y, x]] or _tiles_beside(obj, objects, arenas, walkable)
        if not use:
            raise MapError(f"{mapfile.shown}: {obj.label()} has no use tile: none of its tiles is walkable and no "
                           f"walkable tile next to it lies in arena {arenas.things[obj.parent].name!r}; "
                           "free a floor tile beside it (or make one of its tiles walkable)")
        out.append(use)
    return out


def _tiles_beside(obj: _Thing, objects: _Level, arenas: _Level, walkable: np.ndarray) -> list[Tile]:
    """The walkable 4-neighbours of an object inside its arena, in row order:
    those on no object if there are any, else those on other objects."""
    H, W = walkable.shape
    free: list[Tile] = []
    taken: list[Tile] = []
    cells = set(obj.tiles)
    for x, y in obj.tiles:
        for nx, ny in ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1)):
            if (nx, ny) in cells or not (0 <= nx < W and 0 <= ny < H):
                continue
            if walkable[ny, nx] and arenas.grid[ny, nx] == obj.parent:
                (free if objects.grid[ny, nx] == -1 else taken).append((nx, ny))
    return sorted(set(free), key=_by_row) or sorted(set(taken), key=_by_row)


# --------------------------------------------------------------------------- spawns

def _spawns(layer: TiledObjectGroup, walkable: np.ndarray, mapfile: _MapFile) -> dict[str, Tile]:
    """name -> the walkable tile under the centre of its spawn object, one per name."""
    shown, ts, W, H = mapfile.shown, mapfile.tile_size, mapfile.width, mapfile.height
    spawns: dict[str, Tile] = {}
    for sp in layer:
        name = (sp.name or "").strip()
        oid = getattr(sp, "id", "?")
        px, py = float(sp.x), float(sp.y)
        w, h = float(sp.width or 0), float(sp.height or 0)
        cx, cy = px + w / 2, py + h / 2
        tx, ty = math.floor(cx / ts), math.floor(cy / ts)
        what = f"spawn {name!r} (id {oid}) at tile ({tx}, {ty})"
        if not name:
            raise MapError(f"{shown}: a spawn (id {oid}) at tile ({tx}, {ty}) has no name; name it after "
                           f"a resident or '{VISITOR}'")
        if ":" in name:
            raise MapError(f"{shown}: {what} has ':' in its name; names may not contain ':'")
        if name in spawns:
            raise MapError(f"{shown}: two spawns named {name!r} (the second is id {oid}); one per resident")
        if not (0 <= tx < W and 0 <= ty < H):
            raise MapError(f"{shown}: {what} lies outside the map ({W}x{H} tiles)")
        if not walkable[ty, tx]:
            raise MapError(f"{shown}: {what} stands on a blocked tile (the collision layer has a tile "
                           "there); move it onto a walkable tile")
        spawns[name] = (tx, ty)
    return spawns


# --------------------------------------------------------------------------- the address table

def _tree_order(name: str) -> tuple[str, str]:
    return name.casefold(), name


def _children(level: _Level, n_parents: int) -> dict[int, list[int]]:
    """parent index -> the indices of its children in ``level``, in tree order."""
    out: dict[int, list[int]] = {i: [] for i in range(n_parents)}
    for i, thing in enumerate(level.things):
        out[thing.parent].append(i)
    return {p: sorted(kids, key=lambda i: _tree_order(level.things[i].name)) for p, kids in out.items()}


def _renumber(grid: np.ndarray, table: np.ndarray) -> np.ndarray:
    """A level's per-tile thing indices -> per-tile address indices (-1 stays -1)."""
    out = np.full(grid.shape, -1, dtype=np.int32)
    mask = grid >= 0
    if table.size:
        out[mask] = table[grid[mask]]
    return out


def _fill_address_table(town: Town, sectors: _Level, arenas: _Level, objects: _Level,
                        object_use: list[list[Tile]]) -> None:
    """Give every sector, arena and object its address, in tree order (names
    sorted case-insensitively at each level), and fill the town's tree, object
    states and address table. An object's use tiles are ``object_use``; those
    of a sector or arena are its walkable tiles."""
    names: list[str] = []
    tiles: dict[str, list[Tile]] = {}
    use: dict[str, list[Tile]] = {}
    # per level: thing index -> address index
    sector_index, arena_index, object_index = (np.full(len(level.things), -1, dtype=np.int32)
                                               for level in (sectors, arenas, objects))

    def add(address: str, thing: _Thing, index: np.ndarray, i: int, use_tiles: list[Tile] | None = None) -> None:
        index[i] = len(names)
        names.append(address)
        tiles[address] = sorted(thing.tiles, key=_by_row)
        use[address] = use_tiles if use_tiles is not None else [t for t in tiles[address] if town.walkable[t[1], t[0]]]

    arenas_in = _children(arenas, len(sectors.things))
    objects_in = _children(objects, len(arenas.things))
    for si in sorted(range(len(sectors.things)), key=lambda i: _tree_order(sectors.things[i].name)):
        sector = sectors.things[si]
        s_addr = f"{town.world}:{sector.name}"
        add(s_addr, sector, sector_index, si)
        town.tree[sector.name] = {}
        for ai in arenas_in[si]:
            arena = arenas.things[ai]
            a_addr = f"{s_addr}:{arena.name}"
            add(a_addr, arena, arena_index, ai)
            town.tree[sector.name][arena.name] = []
            for oi in objects_in[ai]:
                obj = objects.things[oi]
                o_addr = f"{a_addr}:{obj.name}"
                add(o_addr, obj, object_index, oi, use_tiles=object_use[oi])
                town.object_states[o_addr] = IDLE
                town.tree[sector.name][arena.name].append(obj.name)

    town.set_address_table(names, tiles, use, _renumber(sectors.grid, sector_index),
                           _renumber(arenas.grid, arena_index), _renumber(objects.grid, object_index))


# --------------------------------------------------------------------------- the command

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
