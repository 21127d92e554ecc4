"""Tiny Tiled maps for tests, written from a compact description.

    from mapkit import write_map
    path = write_map(tmp_path)                      # the default little town, valid
    path = write_map(tmp_path, omit_layers=("spawns",))            # broken on purpose
    path = write_map(tmp_path, objects=DEFAULT_OBJECTS + (("bed", 3, 7, 1, 1),))

``write_map`` writes ``<tmp_path>/<filename>`` (a TMX), its tileset PNG (and a
TSX when ``tileset="external"``) and returns the TMX path. Everything is given
in *tiles*; mapkit converts to Tiled's pixels (32 px tiles by default).

The grid (``rows``): one string per row, one character per tile.
``#`` is a wall and ``X`` blocked furniture (both go on the ``collision``
layer); every other character is walkable (letters are free for readability).

Things: ``sectors``, ``arenas`` and ``objects`` are sequences of
``(name, x, y, w, h)`` rectangles in tiles; ``spawns`` of ``(name, x, y)``
points (written at the tile's centre) or ``(name, x, y, w, h)`` rectangles.
A rectangle may carry a 6th element, a dict of extra XML attributes for the
``<object>`` element (e.g. ``{"gid": "4"}`` for a tile object,
``{"rotation": "45"}``), a spawn point a 4th; a value of ``None`` there
removes the attribute.
Which arena or sector a thing belongs to is decided by geometry, as in Tiled.

The default town (``DEFAULT_*``), 16 x 10 tiles, world ``Testville``::

      0123456789012345
    0 ################
    1 #X.....#....#..#   Hobbs Cafe (x 0-7, y 0-5) > cafe (x 1-6, y 1-4)
    2 #..XX..#.......#   Isabella Rodriguez's apartment (x 8-15, y 0-5)
    3 #......#X...#.X#       > main room (x 8-11, y 1-4), bathroom (x 12-14, y 1-4)
    4 #......#....#..#   Johnson Park (x 0-15, y 6-9) > park (x 1-14, y 6-8)
    5 ###.#######.####
    6 #..............#   coffee machine X (1,1); cafe counter XX (3-4,2);
    7 #..............#   refrigerator X (8,3); toilet X (14,3); the rest walk.
    8 #..............#   spawns: Isabella Rodriguez on her bed (9,1),
    9 ################           visitor (14,7)

Ways to break a map:
    omit_layers=("collision",)     leave out any tile or object layer by name
    world=None                     no ``world`` map property
    tileset="external"             tileset in a .tsx beside the map (valid)
    write_image=False              the tileset PNG is missing
    tileset_image="other.png"      the name the tileset gives its image
    encoding="base64"              layer data as base64 instead of CSV (valid)
    raw="..."                      write this text as the .tmx and nothing else
    extra_xml="..."                appended inside <map> (e.g. an extra layer)
    and any sectors/arenas/objects/spawns/rows you like.

``set_tile(rows, x, y, ch)`` returns a copy of ``rows`` with one tile changed.
"""
from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from xml.sax.saxutils import quoteattr

TILE = 32

DEFAULT_ROWS: tuple[str, ...] = (
    "################",
    "#X.....#....#..#",
    "#..XX..#.......#",
    "#......#X...#.X#",
    "#......#....#..#",
    "###.#######.####",
    "#..............#",
    "#..............#",
    "#..............#",
    "################",
)
DEFAULT_WORLD = "Testville"
DEFAULT_SECTORS: tuple = (
    ("Hobbs Cafe", 0, 0, 8, 6),
    ("Isabella Rodriguez's apartment", 8, 0, 8, 6),
    ("Johnson Park", 0, 6, 16, 4),
)
DEFAULT_ARENAS: tuple = (
    ("cafe", 1, 1, 6, 4),
    ("main room", 8, 1, 4, 4),
    ("bathroom", 12, 1, 3, 4),
    ("park", 1, 6, 14, 3),
)
DEFAULT_OBJECTS: tuple = (
    ("coffee machine", 1, 1, 1, 1),
    ("cafe counter", 3, 2, 2, 1),
    ("cafe customer seating", 5, 3, 2, 1),
    ("bed", 9, 1, 2, 1),
    ("refrigerator", 8, 3, 1, 1),
    ("toilet", 14, 3, 1, 1),
    ("park bench", 3, 7, 2, 1),
)
DEFAULT_SPAWNS: tuple = (
    ("Isabella Rodriguez", 9, 1),
    ("visitor", 14, 7),
)

BLOCKING = "#X"
# Tileset: 4 tiles in one row. gid 1 grass, 2 wall, 3 furniture, 4 collision.
_TILE_COLOURS = ((90, 160, 70, 255), (120, 110, 100, 255), (150, 100, 60, 255), (220, 40, 40, 128))
TILE_LAYERS = ("ground", "floor", "walls", "furniture", "foreground", "collision")
OBJECT_LAYERS = ("sectors", "arenas", "objects", "spawns")


def set_tile(rows: Sequence[str], x: int, y: int, ch: str) -> list[str]:
    """A copy of ``rows`` with the tile at (x, y) replaced by ``ch``."""
    out = list(rows)
    out[y] = out[y][:x] + ch + out[y][x + 1 :]
    return out


def write_png(path: Path, width: int, height: int, pixel) -> None:
    """A minimal RGBA PNG; ``pixel(x, y)`` returns an (r, g, b, a) tuple."""
    raw = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)


def _layer_data(grid: list[list[int]], encoding: str) -> str:
    if encoding == "csv":
        body = ",\n".join(",".join(str(g) for g in row) for row in grid)
        return f'<data encoding="csv">\n{body}\n</data>'
    if encoding == "base64":
        flat = [g for row in grid for g in row]
        blob = base64.b64encode(struct.pack(f"<{len(flat)}I", *flat)).decode("ascii")
        return f'<data encoding="base64">{blob}</data>'
    raise ValueError(f"unknown encoding {encoding!r}")


def _object_xml(oid: int, item: Sequence, tile: int, spawn: bool) -> str:
    name = item[0]
    extra = {}
    if spawn and len(item) in (3, 4):
        x, y = item[1], item[2]
        if len(item) == 4:
            extra = dict(item[3])
        attrs = {"id": str(oid), "name": name, "x": str((x + 0.5) * tile), "y": str((y + 0.5) * tile)}
        inner = "<point/>"
    else:
        _, x, y, w, h = item[:5]
        if len(item) > 5:
            extra = dict(item[5])
        attrs = {"id": str(oid), "name": name, "x": str(x * tile), "y": str(y * tile),
                 "width": str(w * tile), "height": str(h * tile)}
        inner = ""
        if "gid" in extra and extra["gid"] is not None:
            # Tiled stores a tile object's y at its bottom edge.
            attrs["y"] = str((y + h) * tile)
    for k, v in extra.items():
        if v is None:
            attrs.pop(k, None)
        else:
            attrs[k] = str(v)
    text = " ".join(f"{k}={quoteattr(v)}" for k, v in attrs.items())
    return f"  <object {text}>{inner}</object>" if inner else f"  <object {text}/>"


def write_map(
    tmp_path: str | Path,
    rows: Sequence[str] | None = None,
    *,
    sectors: Iterable[Sequence] | None = None,
    arenas: Iterable[Sequence] | None = None,
    objects: Iterable[Sequence] | None = None,
    spawns: Iterable[Sequence] | None = None,
    world: str | None = DEFAULT_WORLD,
    omit_layers: Iterable[str] = (),
    filename: str = "town.tmx",
    tileset: str = "embedded",
    tileset_image: str = "tiles.png",
    write_image: bool = True,
    encoding: str = "csv",
    extra_xml: str = "",
    raw: str | None = None,
    tile: int = TILE,
) -> Path:
    """Write a small TMX map (see the module docstring) and return its path."""
    folder = Path(tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / filename
    if raw is not None:
        path.write_text(raw, encoding="utf-8")
        return path

    rows = list(DEFAULT_ROWS if rows is None else rows)
    sectors = DEFAULT_SECTORS if sectors is None else tuple(sectors)
    arenas = DEFAULT_ARENAS if arenas is None else tuple(arenas)
    objects = DEFAULT_OBJECTS if objects is None else tuple(objects)
    spawns = DEFAULT_SPAWNS if spawns is None else tuple(spawns)
    omit = set(omit_layers)
    height = len(rows)
    width = max(len(r) for r in rows)
    rows = [r.ljust(width, ".") for r in rows]

    if write_image:
        def pixel(x: int, y: int):
            r, g, b, a = _TILE_COLOURS[x // tile]
            edge = x % tile in (0, tile - 1) or y in (0, tile - 1)
            return (r // 2, g // 2, b // 2, a) if edge else (r, g, b, a)

        write_png(folder / tileset_image, tile * len(_TILE_COLOURS), tile, pixel)

    ts_body = (
        f'name="testtiles" tilewidth="{tile}" tileheight="{tile}" tilecount="{len(_TILE_COLOURS)}" '
        f'columns="{len(_TILE_COLOURS)}">\n'
        f'  <image source={quoteattr(tileset_image)} width="{tile * len(_TILE_COLOURS)}" height="{tile}"/>\n'
        "</tileset>"
    )
    if tileset == "embedded":
        ts_xml = f'<tileset firstgid="1" {ts_body}'
    elif tileset == "external":
        (folder / "tiles.tsx").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<tileset version="1.10" tiledversion="1.10.2" {ts_body}\n',
            encoding="utf-8",
        )
        ts_xml = '<tileset firstgid="1" source="tiles.tsx"/>'
    else:
        raise ValueError(f"tileset must be 'embedded' or 'external', not {tileset!r}")

    def grid_for(layer: str) -> list[list[int]]:
        if layer == "ground":
            return [[1] * width for _ in rows]
        if layer == "walls":
            return [[2 if c == "#" else 0 for c in r] for r in rows]
        if layer == "furniture":
            return [[3 if c == "X" else 0 for c in r] for r in rows]
        if layer == "collision":
            return [[4 if c in BLOCKING else 0 for c in r] for r in rows]
        return [[0] * width for _ in rows]

    parts = []
    layer_id = 0
    for name in TILE_LAYERS:
        if name in omit:
            continue
        layer_id += 1
        visible = ' visible="0"' if name == "collision" else ""
        parts.append(
            f'<layer id="{layer_id}" name="{name}" width="{width}" height="{height}"{visible}>\n'
            f"{_layer_data(grid_for(name), encoding)}\n</layer>"
        )
    oid = 0
    for name, items in zip(OBJECT_LAYERS, (sectors, arenas, objects, spawns)):
        if name in omit:
            continue
        layer_id += 1
        lines = []
        for item in items:
            oid += 1
            lines.append(_object_xml(oid, item, tile, spawn=(name == "spawns")))
        body = "\n".join(lines)
        parts.append(f'<objectgroup id="{layer_id}" name="{name}">\n{body}\n</objectgroup>')

    props = ""
    if world is not None:
        props = f"<properties>\n  <property name=\"world\" value={quoteattr(world)}/>\n</properties>\n"
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<map version="1.10" tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down" '
        f'width="{width}" height="{height}" tilewidth="{tile}" tileheight="{tile}" infinite="0" '
        f'nextlayerid="{layer_id + 1}" nextobjectid="{oid + 1}">\n'
        f"{props}{ts_xml}\n" + "\n".join(parts) + f"\n{extra_xml}</map>\n"
    )
    path.write_text(xml, encoding="utf-8")
    return path
