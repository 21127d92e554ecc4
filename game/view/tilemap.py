"""The Tiled map on screen (contract section 1).

The tile layers are drawn in two groups:
- under characters: `ground`, `floor`, `walls`, `furniture` (and any other
  tile layer not named below), in the file's order;
- over characters: `foreground`;
- `collision` is never drawn.

Each group is prerendered once into chunks of CHUNK x CHUNK tiles at the map's
own scale; a chunk is scaled to a zoom level the first time it is shown at
that level and kept in a bounded cache. A frame is then a handful of blits
(one per visible chunk), however many tiles the town has.

The foreground is mostly empty (in the Ville 7% of its chunks' pixels show):
its chunks are run-length encoded (SDL's RLE blits skip the transparent runs),
so drawing it over the characters costs a tenth of a plain alpha blit (0.19 ->
0.02 ms a frame at zoom 1; the blend differs from a plain blit by at most 1
in a colour channel on semi-transparent pixels).
"""
from __future__ import annotations

import logging
from collections import OrderedDict
from pathlib import Path

import pygame
import pytmx
from pytmx.util_pygame import load_pygame

from game.support.errors import UserError

log = logging.getLogger(__name__)

CHUNK = 8  # tiles per chunk side
UNDER_SKIP = {"collision", "foreground"}
OVER = ("foreground",)
BACKDROP = (24, 30, 24)  # outside the map / under holes in the ground layer
CACHE_PIXELS = 40_000_000  # scaled chunks kept, in pixels (about 160 MB at 4 bytes)


def load_tmx(path: str | Path):
    """pytmx's pygame loader, with its errors turned into one clear line.

    Needs a display mode (pytmx converts the tileset images for fast blits).
    """
    try:
        return load_pygame(str(path))
    except FileNotFoundError as err:
        missing = err.filename or str(err)
        raise UserError(f"{path}: cannot read {missing} (a tileset image or the map itself is missing)") from None
    except Exception as err:  # noqa: BLE001 - pytmx raises assorted errors for odd files
        raise UserError(f"{path}: cannot draw this map's tiles: {type(err).__name__}: {err}") from None


class TileMapRenderer:
    """Draws a TMX map's tile layers through a Camera."""

    def __init__(self, tmx) -> None:
        self.tmx = tmx
        self.tile_w = int(tmx.tilewidth)
        self.tile_h = int(tmx.tileheight)
        self.width = int(tmx.width)  # tiles
        self.height = int(tmx.height)
        self.pixel_size = (self.width * self.tile_w, self.height * self.tile_h)
        tile_layers = [layer for layer in _walk_layers(tmx.layers) if isinstance(layer, pytmx.TiledTileLayer)]
        self.under_layers = [t for t in tile_layers if (t.name or "").strip().lower() not in UNDER_SKIP]
        self.over_layers = [t for t in tile_layers if (t.name or "").strip().lower() in OVER]
        self.chunks_x = -(-self.width // CHUNK)
        self.chunks_y = -(-self.height // CHUNK)
        # (group, cx, cy) -> Surface at zoom 1, or None for an empty chunk
        self._base: dict[tuple[str, int, int], pygame.Surface | None] = {}
        self._scaled: OrderedDict[tuple[str, float, int, int], pygame.Surface] = OrderedDict()
        self._scaled_pixels = 0
        self._prerender()

    @classmethod
    def from_file(cls, path: str | Path) -> TileMapRenderer:
        return cls(load_tmx(path))

    # ---- prerendering ------------------------------------------------------------
    def _prerender(self) -> None:
        have_display = pygame.display.get_surface() is not None
        for group, layers, opaque in (("under", self.under_layers, True), ("over", self.over_layers, False)):
            if not layers:
                continue
            surfaces: dict[tuple[int, int], pygame.Surface] = {}
            for layer in layers:
                alpha = getattr(layer, "opacity", 1.0)  # pytmx sets what the map file says
                if not getattr(layer, "visible", True) and group == "over":
                    continue
                for x, y, image in layer.tiles():
                    if image is None:
                        continue
                    key = (x // CHUNK, y // CHUNK)
                    surf = surfaces.get(key)
                    if surf is None:
                        surf = self._new_chunk(key, opaque)
                        surfaces[key] = surf
                    if alpha is not None and float(alpha) < 1.0:
                        image = image.copy()
                        image.set_alpha(round(255 * float(alpha)))
                    # Tiles bigger than the grid (Tiled anchors them bottom-left).
                    px = (x % CHUNK) * self.tile_w
                    py = (y % CHUNK) * self.tile_h + self.tile_h - image.get_height()
                    surf.blit(image, (px, py))
            for cy in range(self.chunks_y):
                for cx in range(self.chunks_x):
                    surf = surfaces.get((cx, cy))
                    if surf is None and opaque:
                        surf = self._new_chunk((cx, cy), True)  # backdrop only
                    if surf is not None and have_display:
                        surf = surf.convert() if opaque else _rle(surf.convert_alpha())
                    self._base[(group, cx, cy)] = surf

    def _new_chunk(self, key: tuple[int, int], opaque: bool) -> pygame.Surface:
        cx, cy = key
        w = (min(self.width, (cx + 1) * CHUNK) - cx * CHUNK) * self.tile_w
        h = (min(self.height, (cy + 1) * CHUNK) - cy * CHUNK) * self.tile_h
        if opaque:
            surf = pygame.Surface((w, h))
            surf.fill(BACKDROP)
        else:
            surf = pygame.Surface((w, h), pygame.SRCALPHA)
        return surf

    # ---- drawing -------------------------------------------------------------------------
    def draw_under(self, surface: pygame.Surface, camera) -> None:
        """Ground, floors, walls and furniture: everything below the characters."""
        if self.under_layers:
            self._draw_group(surface, camera, "under")

    def draw_over(self, surface: pygame.Surface, camera) -> bool:
        """The foreground layer: drawn after the characters. True if any was drawn."""
        if self.over_layers:
            return self._draw_group(surface, camera, "over")
        return False

    def _draw_group(self, surface: pygame.Surface, camera, group: str) -> bool:
        zoom = camera.zoom
        ox, oy = camera.offset()
        cw, ch = CHUNK * self.tile_w, CHUNK * self.tile_h
        left, top, vw, vh = camera.visible_world_rect()
        x0 = max(0, int(left // cw))
        y0 = max(0, int(top // ch))
        x1 = min(self.chunks_x - 1, int((left + vw) // cw))
        y1 = min(self.chunks_y - 1, int((top + vh) // ch))
        # Chunk sizes at this zoom are whole pixels (zoom levels keep tiles integral).
        step_x, step_y = round(cw * zoom), round(ch * zoom)
        blits = []
        for cy in range(y0, y1 + 1):
            for cx in range(x0, x1 + 1):
                chunk = self._chunk_at(group, zoom, cx, cy)
                if chunk is not None:
                    blits.append((chunk, (ox + cx * step_x, oy + cy * step_y)))
        if blits:
            surface.blits(blits, doreturn=False)
        return bool(blits)

    def _chunk_at(self, group: str, zoom: float, cx: int, cy: int) -> pygame.Surface | None:
        base = self._base.get((group, cx, cy))
        if base is None or zoom == 1.0:
            return base
        key = (group, zoom, cx, cy)
        surf = self._scaled.get(key)
        if surf is not None:
            self._scaled.move_to_end(key)
            return surf
        size = (round(base.get_width() * zoom), round(base.get_height() * zoom))
        if zoom < 1.0 and base.get_bitsize() >= 24:
            surf = pygame.transform.smoothscale(base, size)  # zoomed out: average, don't drop pixels
        else:
            surf = pygame.transform.scale(base, size)  # nearest neighbour: crisp pixel art
        if group == "over":
            surf = _rle(surf)
        self._scaled[key] = surf
        self._scaled_pixels += size[0] * size[1]
        while self._scaled_pixels > CACHE_PIXELS and len(self._scaled) > 1:
            _, old = self._scaled.popitem(last=False)
            self._scaled_pixels -= old.get_width() * old.get_height()
        return surf

    def base_chunks(self) -> list[tuple[int, int, pygame.Surface]]:
        """Every prerendered chunk at the map's own scale, in drawing order (under,
        then over): (chunk x, chunk y, surface). The town map scales these down."""
        out = []
        for group in ("under", "over"):
            for cy in range(self.chunks_y):
                for cx in range(self.chunks_x):
                    surf = self._base.get((group, cx, cy))
                    if surf is not None:
                        out.append((cx, cy, surf))
        return out

    def warm(self, camera) -> None:
        """Scale the chunks the camera sees now (call after a zoom change if a
        hitch on the next frame matters)."""
        for group in ("under", "over"):
            surface = pygame.Surface((1, 1))
            self._draw_group(surface, camera, group)


def _rle(surf: pygame.Surface) -> pygame.Surface:
    """Run-length encode a mostly transparent chunk (its per-pixel alpha kept)."""
    surf.set_alpha(255, pygame.RLEACCEL)
    return surf


def _walk_layers(layers):
    """Tile layers in draw order, descending into Tiled group layers."""
    for layer in layers:
        children = getattr(layer, "layers", None)  # a group layer (pytmx) has them
        if children is not None and not hasattr(layer, "tiles"):
            yield from _walk_layers(children)
        else:
            yield layer
