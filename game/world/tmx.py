"""Reading a Tiled map file (no pygame): the XML checked before pytmx sees it, so
errors name the file and the thing; pytmx imported without pygame; layers
walked through groups. game/world/map_reader.py builds the town from what these return."""
from __future__ import annotations

import logging
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from game.support.errors import MapError


def check_xml(path: Path, shown: str) -> ET.Element:
    """Read and sanity-check the TMX with ElementTree before pytmx sees it, so
    errors name the file and the thing; check tileset images exist."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise MapError(f"{shown}: no such map file") from None
    except IsADirectoryError:
        raise MapError(f"{shown}: is a folder, not a map file") from None
    except OSError as err:
        raise MapError(f"{shown}: cannot read the map file ({err.strerror or err})") from None
    try:
        root = ET.fromstring(data)
    except ET.ParseError as err:
        raise MapError(f"{shown}: not a Tiled map: the XML is broken ({err})") from None
    if root.tag != "map":
        raise MapError(f"{shown}: not a Tiled map: the root element is <{root.tag}>, not <map>")
    orientation = root.get("orientation", "orthogonal")
    if orientation != "orthogonal":
        raise MapError(f"{shown}: the map is {orientation}; only orthogonal maps are supported")
    if root.get("infinite", "0") == "1":
        raise MapError(f"{shown}: the map is infinite; make it fixed-size in Tiled (Map > Map Properties)")
    tw, th = root.get("tilewidth"), root.get("tileheight")
    if tw != th:
        raise MapError(f"{shown}: tiles must be square; this map has {tw}x{th}")
    for ts in root.iter("tileset"):
        where, holder = path.parent, "the map's tileset"
        node = ts
        src = ts.get("source")
        if src:
            tsx = (path.parent / src)
            holder = f"tileset {src}"
            try:
                node = ET.parse(tsx).getroot()
            except FileNotFoundError:
                raise MapError(f"{shown}: tileset file {src!r} not found (looked for {tsx})") from None
            except (OSError, ET.ParseError) as err:
                raise MapError(f"{shown}: tileset file {src!r} cannot be read ({err})") from None
            where = tsx.parent
        for img in node.iter("image"):
            isrc = img.get("source")
            if not isrc:
                raise MapError(f"{shown}: {holder} has an image with no source")
            if not (where / isrc).is_file():
                raise MapError(f"{shown}: {holder} names image {isrc!r}, which does not exist "
                               f"(looked for {where / isrc})")
    return root


def object_shapes(root: ET.Element) -> dict[str, str]:
    """object id -> 'rect' | 'point' | 'ellipse' | 'polygon' | 'polyline' | 'text' | 'tile'."""
    out = {}
    for obj in root.iter("object"):
        kind = "tile" if obj.get("gid") else "rect"
        for child in obj:
            if child.tag in ("point", "ellipse", "polygon", "polyline", "text"):
                kind = child.tag
        out[obj.get("id", "")] = kind
    return out


def import_pytmx():
    """pytmx imports pygame (only for type hints) when it can; hide pygame
    while importing pytmx, so that loading a town never pays for pygame."""
    if "pytmx" in sys.modules:
        return sys.modules["pytmx"]
    hide = "pygame" not in sys.modules
    quiet = logging.getLogger("pytmx.util_pygame")  # it logs an ERROR when pygame is missing
    was_disabled = quiet.disabled
    if hide:
        sys.modules["pygame"] = None  # type: ignore[assignment]  # makes `import pygame` fail
        quiet.disabled = True
    try:
        import pytmx  # lazy on purpose: imported here, with pygame hidden (see above)
    finally:
        if hide:
            quiet.disabled = was_disabled
            if "pygame" in sys.modules and sys.modules["pygame"] is None:
                del sys.modules["pygame"]
    return pytmx


def walk_layers(layers):
    for layer in layers:
        yield layer
        sub = getattr(layer, "layers", None)
        if isinstance(sub, list):
            yield from walk_layers(sub)
