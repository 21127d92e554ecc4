"""The camera: which part of the town the window shows, and how big.

Three coordinate systems:
- world: pixels of the unscaled map (a tile is `tile_size` world pixels);
- screen: pixels of the window (world scaled by `zoom`, shifted by the camera);
- tile: integer (x, y) map cells.

The camera looks at `center` (world pixels). It follows a target smoothly,
never shows beyond the map's edges (a map smaller than the window is centred),
and zooms in steps around a screen point (the mouse cursor) so the world point
under the cursor stays put.

Panels docked at the window's sides (the residents list on the left, the
inspector on the right) set `insets` (screen pixels covered on each side):
`focus(wx, wy)` is then the centre that puts a world point in the middle of
the part of the window still showing the town, and the map's edge may slide
under a panel, so a resident near the edge of town is never hidden behind one.
Zoom levels keep a tile an integer number of screen pixels, so tiles and
chunks line up without seams and pixel art stays crisp.
"""
from __future__ import annotations

import math

ZOOM_LEVELS: tuple[float, ...] = (0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0)
DEFAULT_ZOOM = 1.0


class Camera:
    def __init__(
        self,
        map_size: tuple[int, int],
        viewport: tuple[int, int],
        tile_size: int = 32,
        zoom: float = DEFAULT_ZOOM,
        follow_rate: float = 8.0,
    ) -> None:
        """map_size: world pixels (width, height); viewport: screen pixels."""
        self.map_w, self.map_h = map_size
        self.view_w, self.view_h = viewport
        self.tile_size = tile_size
        self.zoom = nearest_level(zoom)
        self.follow_rate = follow_rate  # 1/s: how fast the gap to the target closes
        self.insets = (0, 0, 0, 0)  # (left, top, right, bottom) screen pixels covered by panels
        self.cx = self.map_w / 2
        self.cy = self.map_h / 2
        self.clamp()

    # ---- view ---------------------------------------------------------------------
    @property
    def center(self) -> tuple[float, float]:
        return (self.cx, self.cy)

    def resize(self, viewport: tuple[int, int]) -> None:
        self.view_w, self.view_h = max(1, viewport[0]), max(1, viewport[1])
        self.clamp()

    def offset(self) -> tuple[int, int]:
        """Screen position of the world origin, rounded to whole pixels (no shimmer)."""
        return (
            round(self.view_w / 2 - self.cx * self.zoom),
            round(self.view_h / 2 - self.cy * self.zoom),
        )

    def visible_world_rect(self) -> tuple[float, float, float, float]:
        """(left, top, width, height) of the world the window shows."""
        w, h = self.view_w / self.zoom, self.view_h / self.zoom
        return (self.cx - w / 2, self.cy - h / 2, w, h)

    def visible_tiles(self) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1): the tile range on screen, exclusive ends, within the map."""
        left, top, w, h = self.visible_world_rect()
        ts = self.tile_size
        x0 = max(0, math.floor(left / ts))
        y0 = max(0, math.floor(top / ts))
        x1 = min(math.ceil(self.map_w / ts), math.ceil((left + w) / ts))
        y1 = min(math.ceil(self.map_h / ts), math.ceil((top + h) / ts))
        return (x0, y0, x1, y1)

    # ---- conversions ----------------------------------------------------------------
    def world_to_screen(self, wx: float, wy: float) -> tuple[int, int]:
        ox, oy = self.offset()
        return (ox + round(wx * self.zoom), oy + round(wy * self.zoom))

    def screen_to_world(self, sx: float, sy: float) -> tuple[float, float]:
        ox, oy = self.offset()
        return ((sx - ox) / self.zoom, (sy - oy) / self.zoom)

    def screen_to_tile(self, sx: float, sy: float) -> tuple[int, int]:
        wx, wy = self.screen_to_world(sx, sy)
        return (math.floor(wx / self.tile_size), math.floor(wy / self.tile_size))

    def tile_to_screen(self, tx: float, ty: float) -> tuple[int, int]:
        """Screen position of a tile's top-left corner (fractional tiles allowed)."""
        return self.world_to_screen(tx * self.tile_size, ty * self.tile_size)

    def tile_center_world(self, tx: float, ty: float) -> tuple[float, float]:
        return ((tx + 0.5) * self.tile_size, (ty + 0.5) * self.tile_size)

    # ---- movement -------------------------------------------------------------------
    def look_at(self, wx: float, wy: float) -> None:
        """Jump to centre on a world point (clamped)."""
        self.cx, self.cy = wx, wy
        self.clamp()

    def follow(self, wx: float, wy: float, dt: float) -> None:
        """Glide towards centring the world point; frame-rate independent."""
        k = 1.0 - math.exp(-self.follow_rate * max(0.0, dt))
        self.cx += (wx - self.cx) * k
        self.cy += (wy - self.cy) * k
        # Snap the last fraction of a pixel so the view comes to rest.
        if abs(wx - self.cx) * self.zoom < 0.25:
            self.cx = wx
        if abs(wy - self.cy) * self.zoom < 0.25:
            self.cy = wy
        self.clamp()

    def focus(self, wx: float, wy: float) -> tuple[float, float]:
        """The centre that shows world point (wx, wy) in the middle of the uncovered part of the window."""
        left, top, right, bottom = self.insets
        return (wx - (left - right) / (2 * self.zoom), wy - (top - bottom) / (2 * self.zoom))

    def clamp(self) -> None:
        """Keep the view inside the map (its edges may go under side panels); centre a map
        smaller than the uncovered part of the window in that part."""
        left, top, right, bottom = self.insets
        self.cx = _clamp_axis(self.cx, self.view_w, self.map_w, left, right, self.zoom)
        self.cy = _clamp_axis(self.cy, self.view_h, self.map_h, top, bottom, self.zoom)

    # ---- zoom -------------------------------------------------------------------------
    def set_zoom(self, zoom: float, anchor: tuple[float, float] | None = None) -> bool:
        """Zoom to the nearest level, keeping the world point under `anchor`
        (a screen point; default the window's centre) where it is. True if it changed."""
        zoom = nearest_level(zoom)
        if zoom == self.zoom:
            return False
        if anchor is None:
            anchor = (self.view_w / 2, self.view_h / 2)
        # Exact (unrounded) world point under the anchor, before and after.
        ax, ay = anchor
        wx = self.cx + (ax - self.view_w / 2) / self.zoom
        wy = self.cy + (ay - self.view_h / 2) / self.zoom
        self.zoom = zoom
        self.cx = wx - (ax - self.view_w / 2) / zoom
        self.cy = wy - (ay - self.view_h / 2) / zoom
        self.clamp()
        return True

    def zoom_step(self, steps: int, anchor: tuple[float, float] | None = None) -> bool:
        """Move `steps` zoom levels in (positive) or out (negative)."""
        i = ZOOM_LEVELS.index(self.zoom)
        j = min(max(i + steps, 0), len(ZOOM_LEVELS) - 1)
        return self.set_zoom(ZOOM_LEVELS[j], anchor)


def _clamp_axis(c: float, view: float, size: float, lo_cover: float, hi_cover: float, zoom: float) -> float:
    """One axis of ``clamp``: the centre ``c`` kept so the map fills the uncovered span."""
    half = view / (2 * zoom)
    if (view - lo_cover - hi_cover) / zoom >= size:
        return size / 2 - (lo_cover - hi_cover) / (2 * zoom)
    return min(max(c, half - lo_cover / zoom), size - half + hi_cover / zoom)


def nearest_level(zoom: float) -> float:
    return min(ZOOM_LEVELS, key=lambda z: abs(z - zoom))
