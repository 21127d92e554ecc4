"""The town map (M) and the minimap in the corner.

M (or the "Map (M)" button) shows the whole town scaled to the window: the
sectors labelled, every resident a coloured dot (their name and action when
the mouse is over it), the visitor a white dot, and the part of town the
camera shows as a frame. Clicking a place moves the camera there (the frame
moves; double-click to close the map and look); clicking a dot follows that
resident. Right-click walks the visitor there; so does "Walk there" for
what was clicked last. "Inspect" opens a resident's panel. M or Escape closes
the map. While it is open the town is not drawn behind it (the map covers
the window), so it costs the frame less, not more.

The minimap (bottom right; Shift+M hides or shows it) is the same picture,
smaller, with the same dots: a click looks there, a right-click walks there.
It steps aside while the inspector panel takes that side of the window.

The town's picture is made from the tile renderer's prerendered chunks,
scaled down a few chunks per frame (``BUILD_BUDGET_S``), so no frame stalls;
it is rebuilt only when the window's size changes.
"""
from __future__ import annotations

import colorsys
import logging
import time
from collections.abc import Mapping
from typing import Literal, Protocol

import numpy as np
import pygame
import pygame_gui
from pygame_gui.elements import UIButton

from game.view import fonts, keys
from game.view.bubbles import wrap
from game.view.camera import Camera
from game.view.host import Finder, Host, MindView
from game.view.hud import text_focused
from game.view.overlay import Overlay
from game.view.statusline import HEIGHT as STATUS_H
from game.view.tilemap import BACKDROP, CHUNK, TileMapRenderer
from game.view.visitor import Visitor
from game.world.grid import Tile
from game.world.town import Town

# What a click on the big map picked: a resident by name, or a place by its tile.
Pick = tuple[Literal["resident"], str] | tuple[Literal["place"], Tile]

log = logging.getLogger(__name__)

HEADER_H = 46
FOOTER_H = 50
MARGIN = 8
DOT_R = 5
PICK_PX = 10  # a click this close to a dot picks the resident
BUILD_BUDGET_S = 0.003  # scaling work per frame while the picture is being made
MINI_W = 200
DOUBLE_CLICK_S = 0.4
BG = (16, 20, 18)
FG = (236, 236, 226)
DIM = (168, 176, 186)
VISITOR = (255, 255, 255)


def resident_colours(names) -> dict[str, tuple[int, int, int]]:
    """A distinct, stable colour per resident (golden-ratio hues over the sorted names)."""
    out = {}
    for i, name in enumerate(sorted(names)):
        r, g, b = colorsys.hsv_to_rgb((i * 0.61803398875) % 1.0, 0.62, 0.98)
        out[name] = (int(r * 255), int(g * 255), int(b * 255))
    return out


class Overview:
    """The whole town at ``scale``, built from the renderer's chunks a few at a time."""

    def __init__(self, tilemap, scale: float) -> None:
        self.scale = scale
        mw, mh = tilemap.pixel_size
        self.surface = pygame.Surface((max(1, round(mw * scale)), max(1, round(mh * scale))))
        self.surface.fill(BACKDROP)
        self._todo = tilemap.base_chunks()
        self._cw, self._ch = CHUNK * tilemap.tile_w, CHUNK * tilemap.tile_h
        self._next = 0

    @property
    def done(self) -> bool:
        return self._next >= len(self._todo)

    def build(self, budget_s: float | None = BUILD_BUDGET_S) -> None:
        """Scale chunks until ``budget_s`` is spent (None: all of them)."""
        t0 = time.perf_counter()
        s = self.scale
        while self._next < len(self._todo):
            cx, cy, chunk = self._todo[self._next]
            self._next += 1
            x0, y0 = round(cx * self._cw * s), round(cy * self._ch * s)
            x1 = round((cx * self._cw + chunk.get_width()) * s)
            y1 = round((cy * self._ch + chunk.get_height()) * s)
            size = (max(1, x1 - x0), max(1, y1 - y0))
            try:
                small = pygame.transform.smoothscale(chunk, size)
            except ValueError:  # not a 24/32-bit surface: plain scaling
                small = pygame.transform.scale(chunk, size)
            self.surface.blit(small, (x0, y0))
            if budget_s is not None and time.perf_counter() - t0 > budget_s:
                break


class MapHost(Host, Finder, Protocol):
    """What the town map uses of the window: the map and its tiles, the camera, the visitor,
    where the mouse is, whether a replay is watched, the window's clock (double-clicks)."""

    @property
    def town(self) -> Town: ...

    @property
    def tilemap(self) -> TileMapRenderer: ...

    @property
    def tile_size(self) -> int: ...

    @property
    def camera(self) -> Camera: ...

    @property
    def visitor(self) -> Visitor: ...

    @property
    def mouse_pos(self) -> tuple[int, int] | None: ...

    @property
    def spectator(self) -> bool: ...

    @property
    def clock_time(self) -> float: ...

    def address_at(self, tile: tuple[int, int]) -> str: ...


class TownMap(Overlay):
    name = "townmap"

    def __init__(self, game: MapHost) -> None:
        self.game = game
        self.is_open = False
        self.show_minimap = True
        self.overview: Overview | None = None
        self.mini: pygame.Surface | None = None
        self.mini_rect: pygame.Rect | None = None  # where the minimap was drawn last frame
        self.map_rect = pygame.Rect(0, 0, 0, 0)  # where the big map is drawn
        self.selected: Pick | None = None
        self.buttons: dict[str, UIButton] = {}
        self.hud_button: UIButton | None = None  # "Map (M)" in the HUD's row
        self._labels: list[tuple[pygame.Surface, tuple[float, float]]] | None = None
        self._label_geo: list[tuple[str, float, float, int]] | None = None
        self._colours: dict[str, tuple[int, int, int]] = {}
        self._last_click: tuple[float, tuple[int, int]] | None = None
        self._size: tuple[int, int] | None = None
        self._pills: dict[tuple, pygame.Surface] = {}
        self._fonts_ready = False

    # ---- what is where --------------------------------------------------------------------
    @property
    def covers_world(self) -> bool:
        return self.is_open

    def _tile_px(self) -> float:
        return self.game.tile_size * (self.overview.scale if self.overview else 1.0)

    def _fit(self) -> tuple[float, pygame.Rect]:
        w, h = self.game.size
        avail = pygame.Rect(MARGIN, HEADER_H, max(1, w - 2 * MARGIN), max(1, h - HEADER_H - FOOTER_H - STATUS_H))
        mw, mh = self.game.tilemap.pixel_size
        return min(avail.w / mw, avail.h / mh), avail

    def _ensure_overview(self) -> None:
        if self._size == self.game.size and self.overview is not None:
            return
        self._size = self.game.size
        scale, _ = self._fit()
        self.overview = Overview(self.game.tilemap, scale)
        self.mini = None
        self._labels = self._label_geo = None

    def _place_map(self) -> None:
        _, avail = self._fit()
        r = self.overview.surface.get_rect(center=avail.center)
        lst = self.game.panels.residents_list
        win = lst.window if lst is not None and lst.is_open else None
        if win is not None and r.left < win.rect.right + MARGIN:  # beside the residents list, if it fits
            r.left = max(MARGIN, min(win.rect.right + MARGIN, self.game.size[0] - r.width - MARGIN))
        self.map_rect = r

    def tile_to_map(self, tx: float, ty: float, rect: pygame.Rect | None = None, scale: float | None = None):
        rect = rect or self.map_rect
        px = self.game.tile_size * (scale if scale is not None else self.overview.scale)
        return (rect.x + (tx + 0.5) * px, rect.y + (ty + 0.5) * px)

    def map_to_tile(self, pos, rect: pygame.Rect | None = None, scale: float | None = None) -> tuple[int, int]:
        rect = rect or self.map_rect
        px = self.game.tile_size * (scale if scale is not None else self.overview.scale)
        tx = int((pos[0] - rect.x) // px)
        ty = int((pos[1] - rect.y) // px)
        return (min(max(tx, 0), self.game.town.width - 1), min(max(ty, 0), self.game.town.height - 1))

    def _dots(self) -> list[tuple[str, float, float]]:
        """(name, x, y) in fractional tiles for every resident, the visitor last."""
        session = self.game.session
        view = self.game.panels.residents_view
        out = []
        if session is not None and view is not None:
            playing = session.controlled
            for name in session.minds:
                if name == playing:
                    continue  # the player's own figure is the white dot
                pos = view.position(name)
                if pos is not None:
                    out.append((name, pos[0], pos[1]))
        if not self.game.spectator:  # a replay has no player's figure
            vx, vy = self.game.visitor.pos
            out.append((self.game.visitor.name, vx, vy))
        return out

    def _minds(self) -> Mapping[str, MindView]:
        session = self.game.session
        return session.minds if session is not None else {}

    def pick(self, pos: tuple[int, int]) -> Pick | None:
        """What a click on the big map means: ("resident", name) near a dot, else ("place", tile)."""
        if not self.map_rect.collidepoint(pos):
            return None
        minds = self._minds()
        best, best_d = None, PICK_PX ** 2
        for name, x, y in self._dots():
            if name not in minds:
                continue
            mx, my = self.tile_to_map(x, y)
            d = (mx - pos[0]) ** 2 + (my - pos[1]) ** 2
            if d <= best_d:
                best, best_d = name, d
        if best is not None:
            return ("resident", best)
        return ("place", self.map_to_tile(pos))

    def place_name(self, tile) -> str:
        addr = self.game.address_at(tuple(tile))
        parts = addr.split(":")
        return " › ".join(parts[1:3]) if len(parts) > 1 else parts[0]

    # ---- opening and closing ------------------------------------------------------------------
    def open(self) -> None:
        if self.is_open:
            return
        self._ensure_overview()  # still being made: it fills in over the next frames
        self.is_open = True
        self.selected = None
        self._place_map()
        self._make_buttons()

    def close(self) -> None:
        if not self.is_open:
            return
        self.is_open = False
        for b in self.buttons.values():
            b.kill()
        self.buttons = {}

    def toggle(self) -> None:
        self.close() if self.is_open else self.open()

    def _make_buttons(self) -> None:
        ui = self.game.ui
        w, h = self.game.size
        y = h - STATUS_H - FOOTER_H + 8
        self.buttons = {
            "close": UIButton(pygame.Rect(w - MARGIN - 120, y, 120, 34), "Close (M)", ui),
            "inspect": UIButton(pygame.Rect(w - MARGIN - 230, y, 100, 34), "Inspect", ui,
                                tool_tip_text="open the resident's panel"),
        }
        if not self.game.spectator:  # a replay: nobody to walk
            self.buttons["walk"] = UIButton(pygame.Rect(w - MARGIN - 350, y, 110, 34), "Walk there", ui,
                                            tool_tip_text="walk the visitor there (right-click on the map does too)")
        self._update_buttons()

    def _update_buttons(self) -> None:
        if not self.buttons:
            return
        sel = self.selected
        for key, on in (("walk", sel is not None), ("inspect", sel is not None and sel[0] == "resident")):
            b = self.buttons.get(key)
            if b is None:
                continue
            if on and not b.is_enabled:
                b.enable()
            elif not on and b.is_enabled:
                b.disable()

    # ---- acting -------------------------------------------------------------------------------
    def select(self, what: Pick) -> None:
        """A click on the map: follow the resident, or move the camera to the place."""
        self.selected = what
        if what[0] == "resident":
            self.game.follow_resident(what[1])
        else:
            self.game.look_at_tile(what[1])
        self._update_buttons()

    def walk_there(self, what: Pick | None = None) -> bool:
        what = what or self.selected
        if what is None:
            return False
        if what[0] == "resident":
            return self.game.walk_to_resident(what[1])
        return self.game.walk_to_tile(what[1], self.place_name(what[1]))

    def _inspect(self) -> None:
        if self.selected and self.selected[0] == "resident":
            insp = self.game.panels.inspector
            if insp is not None:
                self.close()
                insp.select(self.selected[1])

    # ---- overlay protocol -------------------------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.KEYDOWN:
            got = keys.hit(event)
            action = got.action if got is not None else None
            if action in ("map", "minimap") and not text_focused(self.game):
                if action == "minimap":
                    self.show_minimap = not self.show_minimap
                else:
                    self.toggle()
                return True
            if self.is_open and action == "back":
                self.close()
                return True
            return False
        if event.type == pygame_gui.UI_BUTTON_PRESSED and self.buttons:
            el = event.ui_element
            if el is self.buttons.get("close"):
                self.close()
            elif el is self.buttons.get("walk"):
                self.walk_there()
            elif el is self.buttons.get("inspect"):
                self._inspect()
            else:
                return False
            return True
        if self.is_open:
            return self._map_mouse(event)
        return self._mini_mouse(event)

    def _map_mouse(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.MOUSEBUTTONDOWN:
            what = self.pick(event.pos)
            if what is not None and event.button == 1:
                now = self.game.clock_time
                last = self._last_click
                self._last_click = (now, tuple(event.pos))
                if last is not None and now - last[0] <= DOUBLE_CLICK_S and \
                        abs(last[1][0] - event.pos[0]) <= 6 and abs(last[1][1] - event.pos[1]) <= 6:
                    self.close()  # double-click: go and look
                    return True
                self.select(what)
            elif what is not None and event.button == 3:
                self.selected = what
                self._update_buttons()
                self.walk_there(what)
            return True  # the town behind the map does not hear clicks
        return event.type in (pygame.MOUSEBUTTONUP, pygame.MOUSEWHEEL)

    def _mini_mouse(self, event: pygame.event.Event) -> bool:
        r = self.mini_rect
        if event.type != pygame.MOUSEBUTTONDOWN or r is None or not r.collidepoint(event.pos):
            return False
        scale = r.width / self.game.tilemap.pixel_size[0]
        tile = self.map_to_tile(event.pos, r, scale)
        if event.button == 1:
            self.game.look_at_tile(tile)
        elif event.button == 3:
            self.game.walk_to_tile(tile, self.place_name(tile))
        return True

    def reserved(self) -> list[pygame.Rect]:
        return [self.mini_rect] if self.mini_rect is not None and not self.is_open else []

    def update(self, dt: float) -> None:
        # The picture, the minimap and the labels are made a little each frame, never all at once.
        self._ensure_overview()
        if not self.overview.done:
            self.overview.build()
        elif self.mini is None:
            mw, mh = self.overview.surface.get_size()
            mini_size = (MINI_W, max(1, round(MINI_W * mh / mw)))
            self.mini = pygame.transform.smoothscale(self.overview.surface, mini_size)
        elif self._make_labels() and not self._fonts_ready:
            for size, bold in ((18, True), (16, False), (14, False), (13, False)):
                fonts.font(size, bold)  # loading a font size takes milliseconds: not on the first open
            self._fonts_ready = True
        if self.is_open:
            self._place_map()
            sel = self.selected
            if sel is not None and sel[0] == "resident" and sel[1] not in self._minds():
                self.selected = None
                self._update_buttons()

    # ---- drawing ----------------------------------------------------------------------------------
    def colour(self, name: str):
        c = self._colours.get(name)
        if c is None:
            self._colours = resident_colours(self._minds())
            c = self._colours.get(name, (200, 200, 200))
        return c

    def _sector_labels(self) -> list[tuple[pygame.Surface, tuple[float, float]]]:
        """Each sector's name at the middle of its tiles, as far as made (``_make_labels``)."""
        return self._labels or []

    def _make_labels(self) -> bool:
        """One more sector label (a frame's worth of work); True when all are made."""
        if self._label_geo is None:  # every sector's middle and width, at once (numpy, a few ms)
            town = self.game.town
            ids = np.asarray(town.sector_ids).ravel()
            where = np.flatnonzero(ids >= 0)
            uniq, inv = np.unique(ids[where], return_inverse=True)
            ys, xs = np.divmod(where, town.width)
            n = np.bincount(inv).astype(float)
            cx, cy = np.bincount(inv, xs) / n, np.bincount(inv, ys) / n
            lo = np.full(len(uniq), town.width)
            hi = np.zeros(len(uniq), dtype=int)
            np.minimum.at(lo, inv, xs)
            np.maximum.at(hi, inv, xs)
            geo = []
            for k in range(len(uniq)):
                first = where[np.argmax(inv == k)]
                addr = town.sector_at(int(first % town.width), int(first // town.width)) or ""
                geo.append((addr.split(":")[-1], float(cx[k]), float(cy[k]), int(hi[k] - lo[k] + 1)))
            self._label_geo = [g for g in geo if g[0]]
            self._labels = []
            return False
        if len(self._labels) >= len(self._label_geo):
            return True
        name, x, y, tiles = self._label_geo[len(self._labels)]
        wide = max(56, int(tiles * self._tile_px()) - 4)  # as wide as the sector, at most
        self._labels.append((self._pill(name, 12, FG, min(wide, 160)), (x, y)))
        return False

    def _pill(self, text: str, size: int, colour, wrap_px: int | None = None) -> pygame.Surface:
        """Text on a dark rounded pill (cached); ``wrap_px`` wraps long names onto two lines."""
        key = (text, size, colour, wrap_px)
        surf = self._pills.get(key)
        if surf is None:
            if wrap_px:
                rows = wrap(text, wrap_px, size, 3)
            else:
                rows = [text]
            imgs = [fonts.text(r, size, colour) for r in rows]
            lh = fonts.font(size).get_linesize()
            surf = pygame.Surface((max(i.get_width() for i in imgs) + 8, lh * len(imgs) + 4), pygame.SRCALPHA)
            pygame.draw.rect(surf, (12, 14, 18, 180), surf.get_rect(), border_radius=5)
            for i, img in enumerate(imgs):
                surf.blit(img, ((surf.get_width() - img.get_width()) // 2, 2 + i * lh))
            if len(self._pills) > 256:
                self._pills.clear()
            self._pills[key] = surf
        return surf

    def draw(self, surface: pygame.Surface) -> None:
        if self.is_open:
            self._draw_map(surface)
        elif self.show_minimap and self.mini is not None and not self._inspector_open():
            self._draw_mini(surface)
        else:
            self.mini_rect = None

    def _inspector_open(self) -> bool:
        insp = self.game.panels.inspector
        return bool(insp is not None and insp.is_open)

    def _draw_mini(self, surface) -> None:
        w, h = surface.get_size()
        img = self.mini
        r = img.get_rect(bottomright=(w - MARGIN, h - STATUS_H - MARGIN))
        self.mini_rect = r
        scale = r.width / self.game.tilemap.pixel_size[0]
        surface.blit(img, r.topleft)
        self._draw_view_frame(surface, r, scale, (255, 255, 255))
        visitor = self.game.visitor.name
        for name, x, y in self._dots():
            px, py = self.tile_to_map(x, y, r, scale)
            colour = VISITOR if name == visitor else self.colour(name)
            pygame.draw.circle(surface, (0, 0, 0), (round(px), round(py)), 3)
            pygame.draw.circle(surface, colour, (round(px), round(py)), 2)
        pygame.draw.rect(surface, (0, 0, 0), r, width=1)

    def _draw_view_frame(self, surface, rect, scale, colour) -> None:
        left, top, vw, vh = self.game.camera.visible_world_rect()
        s = scale
        frame = pygame.Rect(round(rect.x + left * s), round(rect.y + top * s), round(vw * s), round(vh * s))
        pygame.draw.rect(surface, colour, frame.clip(rect), width=1)

    def _draw_map(self, surface) -> None:
        _w, _h = surface.get_size()
        surface.fill(BG)
        r = self.map_rect
        # Top left, where the HUD box is (the toasts' column starts right of that box).
        title = fonts.text(f"Town map  {self.game.session.sim.now:%a %H:%M}", 18, FG, True)
        surface.blit(title, (MARGIN + 4, (HEADER_H - title.get_height()) // 2))
        surface.blit(self.overview.surface, r.topleft)
        pygame.draw.rect(surface, (0, 0, 0), r.inflate(2, 2), width=1)
        blits = []
        for pill, (tx, ty) in self._sector_labels():
            px, py = self.tile_to_map(tx, ty)
            blits.append((pill, (round(px - pill.get_width() / 2), round(py - pill.get_height() / 2))))
        surface.blits(blits, doreturn=False)
        self._draw_view_frame(surface, r, self.overview.scale, (255, 255, 255))
        visitor = self.game.visitor.name
        follower = self.game.panels.follower
        followed = follower.target if follower is not None else None
        mouse = self.game.mouse_pos
        hover = self.pick(mouse) if mouse is not None else None
        hover_name = hover[1] if hover is not None and hover[0] == "resident" else None
        for name, x, y in self._dots():
            px, py = (round(v) for v in self.tile_to_map(x, y))
            if name == visitor:
                pygame.draw.circle(surface, (0, 0, 0), (px, py), DOT_R + 2)
                pygame.draw.circle(surface, VISITOR, (px, py), DOT_R + 1)
                tag = self._pill(f"{name} (you)", 13, FG)
                surface.blit(tag, (px - tag.get_width() // 2, py - DOT_R - 4 - tag.get_height()))
                continue
            if name == followed or (self.selected == ("resident", name)):
                pygame.draw.circle(surface, (255, 255, 255), (px, py), DOT_R + 4, width=2)
            pygame.draw.circle(surface, (0, 0, 0), (px, py), DOT_R + 1)
            pygame.draw.circle(surface, self.colour(name), (px, py), DOT_R)
        if hover_name is not None:
            self._draw_hover_label(surface, hover_name, mouse)
        self._draw_footer(surface, hover)

    def _draw_hover_label(self, surface, name: str, mouse) -> None:
        sim = self.game.session.sim
        b = sim.bodies.get(name)
        doing = b.doing if b is not None else ""
        tag = self._pill(f"{name}: {doing}" if doing else name, 14, FG)
        x, y = mouse
        r = tag.get_rect(midbottom=(x, y - 12))
        r.clamp_ip(surface.get_rect())
        surface.blit(tag, r.topleft)

    def _draw_footer(self, surface, hover) -> None:
        h = surface.get_height()
        y = h - STATUS_H - FOOTER_H + 16
        sel = self.selected
        if sel is None and self.game.spectator:
            text = "Click: look there · a dot: follow · double-click: go and look"
        elif sel is None:
            text = "Click: look there · a dot: follow · right-click: walk there · double-click: go and look"
        elif sel[0] == "resident":
            b = self.game.session.sim.bodies.get(sel[1])
            text = f"{sel[1]}: {b.doing}" if b is not None else sel[1]
        else:
            text = self.place_name(sel[1])
        if hover is not None and hover[0] == "place":
            text += f"      (under the mouse: {self.place_name(hover[1])})"
        walker = self.game.panels.walker
        walking = walker.label if walker is not None else ""
        if walking:
            text += f"      walking to {walking}"
        left = self.map_rect.x
        first = self.buttons.get("walk") or self.buttons.get("inspect")
        right = first.relative_rect.x - MARGIN if first is not None else surface.get_width() - MARGIN
        img = fonts.text(_clip_px(text, 16, right - left), 16, FG)
        surface.blit(img, (left, y))


def _clip_px(text: str, size: int, width: int) -> str:
    font = fonts.font(size)
    if font.size(text)[0] <= width:
        return text
    while text and font.size(text + "…")[0] > width:
        text = text[:-1]
    return text + "…"


def install(game: MapHost) -> TownMap:
    tm = TownMap(game)
    game.add_overlay(tm)
    game.panels.townmap = tm
    hud = game.panels.hud
    if hud is not None:
        tm.hud_button = hud.add_button("Map (M)", 90, tm.toggle, "the whole town: find people and places")
    return tm


__all__ = ["Overview", "TownMap", "install", "resident_colours"]
