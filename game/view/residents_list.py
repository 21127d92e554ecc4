"""The residents list: who is where, doing what (R, or the "Residents (R)" button).

A pygame_gui window on the left lists every resident, by name: their map
colour (the same as their dot on the town map), the emoji and a few words of
what they are doing, where they are (sector › arena, or where they are
walking to), and markers: "thinking…" while their mind works, and the
provenance of what they are doing when the model did not choose it
(agents/explain/provenance.py): "routine" (before the mind's first decision, after a
failed one, or where the model's plan was unusable) or "rule" (a rule stood in
for an unusable answer). A line at the top filters the rows by name, activity
or place.

Click a row: the camera goes to that resident, wherever they are, and
follows them (game/view/follow.py) until the visitor walks or Escape.
Double-click: their inspector panel too. Right-click: walk there
(game/view/walkto.py).

Cheap on the frame: the rows are drawn here, into one image (pygame fonts
and the emoji atlas, not a pygame_gui text layout), under one transparent
pygame_gui button that takes the clicks (the row is the one under the
mouse) and draws nothing (``ClickArea``: blending its full-height transparent
image cost ~0.07 ms a frame); so opening the list creates a handful of
widgets, not fifty. The
rows' contents are compared a few times a second, at most ``ROWS_PER_FRAME``
changed rows are redrawn in a frame, and the image is handed to pygame_gui
at most once a frame.
"""
from __future__ import annotations

import logging
from typing import Any, Protocol

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UIImage, UIScrollingContainer, UITextEntryLine, UIWindow

from game.runs.readings import Action
from game.runs.readings import provenance as pv
from game.view import fonts, keys
from game.view.emoji import icon
from game.view.host import Finder, Host, TownSession
from game.view.hud import text_focused
from game.view.overlay import Overlay
from game.view.statusline import HEIGHT as STATUS_H

log = logging.getLogger(__name__)

WIDTH = 400
TOP = 124  # below the HUD box
ROW_H = 46
FILTER_H = 34
REFRESH_S = 0.25
ROWS_PER_FRAME = 3
NAME_PX = 16
LINE_PX = 14
ICON = 24
FG = (240, 240, 232)
DIM = (176, 184, 194)
THINK = (142, 226, 142)
ROUTINE = (255, 190, 100)
YOU = (156, 201, 255)


class ClickArea(UIButton):
    """A button that takes clicks and draws nothing (no image: pygame_gui leaves it out of its blits)."""

    def _set_image(self, new_image) -> None:
        super()._set_image(None)


def short_place(address: str | None) -> str:
    """'the Ville:Hobbs Cafe:cafe:counter' -> 'Hobbs Cafe › cafe'; the world alone -> 'outdoors'."""
    parts = str(address or "").split(":")
    return " › ".join(parts[1:3]) if len(parts) > 1 else "outdoors"


def provenance_marker(action: Action | None) -> str:
    """"routine" or "rule" when the model did not choose the action (sleep is no news), else ""."""
    if action is None or action.talking_to:
        return ""
    kind = pv.kind_of(action.source)
    if kind == pv.RULE and pv.why_of(action.source) == "asleep":
        return ""
    return kind if kind in (pv.ROUTINE, pv.RULE) else ""


def _clip(font, text: str, width: int) -> str:
    if font.size(text)[0] <= width:
        return text
    while text and font.size(text + "…")[0] > width:
        text = text[:-1]
    return text.rstrip() + "…"


class ListHost(Host, Finder, Protocol):
    """What the residents list uses of the window: where the mouse is (which row a click hit)."""

    @property
    def mouse_pos(self) -> tuple[int, int] | None: ...


class ResidentsList(Overlay):
    name = "residents_list"

    def __init__(self, game: ListHost) -> None:
        self.game = game
        self.window: Any = None  # made once (build), then shown and hidden
        self.filter_entry: Any = None
        self.scroller: Any = None
        self.image: Any = None  # every row, one pygame_gui UIImage in the scrolling box
        self.button: Any = None  # one transparent button over it: clicks, double-clicks, right-clicks
        self.hud_button: pygame_gui.elements.UIButton | None = None  # "Residents (R)" in the HUD's row
        self.sheet: pygame.Surface | None = None  # what the image shows
        self.rows: dict[str, tuple | None] = {}  # name -> the state its row was drawn from (None: not yet)
        self.order: list[str] = []  # the names shown, in order
        self.hover: str | None = None  # the row under the mouse (drawn lighter)
        self._sim = None
        self._since = REFRESH_S
        self._filter: str | None = ""
        self._dirty: list[str] = []
        self._typing = False
        self._built_for: tuple[int, int] | None = None  # the window size the panel was made for

    @property
    def is_open(self) -> bool:
        return self.window is not None and self.window.alive() and bool(self.window.visible)

    @property
    def session(self) -> TownSession:
        """The town listed (the list is installed with one)."""
        session = self.game.session
        if session is None:
            raise RuntimeError("the residents list shows a town: attach a session first")
        return session

    def row_state(self, name: str) -> tuple:
        """What a row shows (compared to find the rows to redraw)."""
        session = self.session
        sim = session.sim
        b = sim.bodies.get(name)
        if b is None:
            return (name, "", "not in town", "", False, False, False)
        if b.walking and b.target:
            where = "→ " + short_place(b.target)
        else:
            where = short_place(sim.area(b.tile))
        doing = b.doing
        if b.conversation is not None:
            conv = sim.conversation_of(name)
            other = conv.other(name) if conv is not None else None
            doing = f"talking with {other}" if other else "talking"
        elif b.asleep:
            doing = "asleep"
        you = session.controlled == name
        thinking = bool(sim.thinking(name)) and not you
        follower = self.game.panels.follower
        followed = follower is not None and follower.target == name
        marker = "" if you else provenance_marker(b.action)
        return (name, b.emoji, doing, where, thinking, marker, you or followed, you)

    # ---- the window --------------------------------------------------------------------------
    # Made once (at install, before the first frame: pygame_gui's first scrolling box takes ~0.1 s)
    # and then shown and hidden; its close button hides it too.
    def build(self) -> None:
        class _Window(UIWindow):
            def on_close_window_button_pressed(self) -> None:
                self.hide()

        ui = self.game.ui
        _w, h = self.game.size
        self._built_for = self.game.size
        height = max(200, h - TOP - STATUS_H - 8)
        self.window = _Window(pygame.Rect(8, TOP, WIDTH, height), ui, window_display_title="Residents",
                              object_id="#residents_list", resizable=False)
        inner = self.window.get_container().get_rect()
        cw, ch = inner.width, inner.height
        self.filter_entry = UITextEntryLine(pygame.Rect(4, 4, cw - 8, FILTER_H - 2), ui, container=self.window,
                                            placeholder_text="filter: a name, an activity or a place")
        self.filter_entry.set_text_length_limit(40)
        self.scroller = UIScrollingContainer(pygame.Rect(0, FILTER_H + 6, cw, ch - FILTER_H - 6), ui,
                                             container=self.window, allow_scroll_x=False)
        self.image = self.button = None
        self.rows = {}
        self.order = []
        self._filter = None
        self._update_filter()  # the image and the button under the rows, made now too
        self.window.hide()  # made visible: pygame_gui cannot put a scrolling box into a hidden window

    def open(self) -> None:
        if self.is_open:
            return
        if self.window is None or not self.window.alive() or self._built_for != self.game.size:
            self._kill()
            self.build()
        self.window.show()
        self._filter = None  # the rows are laid out afresh ...
        self._update_filter()
        self._since = REFRESH_S
        self._draw_rows(all_rows=True)  # ... and drawn at once (a few ms for 25 rows)

    def close(self) -> None:
        if self.window is not None and self.window.alive():
            self.window.hide()
        self._dirty = []
        self.hover = None
        if self._typing:
            self._typing = False
            self.game.controls.enabled = True

    def _kill(self) -> None:
        if self.window is not None:
            self.window.kill()
        self.window = self.filter_entry = self.scroller = self.image = self.button = None
        self.sheet = None
        self.rows = {}
        self.order = []

    def inset(self) -> tuple[int, int, int, int] | None:
        """The list covers the window's left side (the camera centres in the rest)."""
        return (self.window.rect.right + 4, 0, 0, 0) if self.is_open else None

    def toggle(self) -> None:
        self.close() if self.is_open else self.open()

    def _update_filter(self) -> bool:
        """Narrow the rows to what the filter line says, when it changed (typed or set)."""
        text = " ".join(self.filter_entry.get_text().split())
        if text == self._filter:
            return False
        self._filter = text
        self._build_rows()
        return True

    def _row_width(self) -> int:
        return self.scroller.get_container().get_rect().width - 20  # room for the scroll bar

    def _names(self) -> list[str]:
        minds = self.session.minds
        names = sorted(minds)
        f = (self._filter or "").casefold()
        if not f:
            return names
        out = []
        for n in names:
            st = self.row_state(n)
            if f in " ".join(str(x) for x in st[:4]).casefold():
                out.append(n)
        return out

    def _build_rows(self) -> None:
        """The shown names (after the filter) on a fresh picture; the image and the button
        stay as tall as every resident's rows (made again only when the cast changes size)."""
        ui = self.game.ui
        names = self._names()
        width = self._row_width()
        size = (width, max(1, len(self.session.minds)) * ROW_H)
        self.sheet = pygame.Surface(size, pygame.SRCALPHA)
        if self.image is None or self.image.rect.size != size:
            for el in (self.image, self.button):
                if el is not None:
                    el.kill()
            rect = pygame.Rect((0, 0), size)
            self.image = UIImage(rect, self.sheet, ui, container=self.scroller)
            self.button = ClickArea(rect, "", ui, container=self.scroller, object_id="#resident_row",
                                   allow_double_clicks=True,
                                   generate_click_events_from=(pygame.BUTTON_LEFT, pygame.BUTTON_RIGHT))
        self.scroller.set_scrollable_area_dimensions((width, max(1, len(names) * ROW_H)))
        self.order = names
        self.rows = {n: self.rows.get(n) for n in names}
        self._dirty = list(names)  # every row is drawn again onto the new picture
        if not names:
            self.image.set_image(self.sheet)

    def render_row(self, name: str, state: tuple, width: int, hovered: bool = False) -> pygame.Surface:
        """One row: colour bar, emoji, name, markers; below, the activity and the place."""
        _, emoji, doing, where, thinking, routine, highlight, you = state
        surf = pygame.Surface((width, ROW_H), pygame.SRCALPHA)
        if highlight or hovered:
            pygame.draw.rect(surf, (255, 255, 255, 22 + 18 * hovered + 14 * highlight), surf.get_rect(),
                             border_radius=4)
        tm = self.game.panels.townmap
        colour = tm.colour(name) if tm is not None else (200, 200, 200)
        pygame.draw.rect(surf, colour, (2, 6, 5, ROW_H - 12), border_radius=2)
        if emoji:
            try:
                surf.blit(icon(emoji, ICON), (12, (ROW_H - ICON) // 2))
            except Exception:
                log.debug("no icon for %r", emoji, exc_info=True)
        x = 12 + ICON + 8
        markers = []
        if you:
            markers.append(("you", YOU))
        if thinking:
            markers.append(("thinking…", THINK))
        if routine:
            markers.append((routine, ROUTINE))
        right = width - 6
        for text, c in reversed(markers):
            img = fonts.text(text, LINE_PX, c)
            right -= img.get_width()
            surf.blit(img, (right, 5))
            right -= 8
        name_font = fonts.font(NAME_PX, True)
        surf.blit(fonts.text(_clip(name_font, name, right - x - 4), NAME_PX, FG, True), (x, 3))
        line_font = fonts.font(LINE_PX)
        line = f"{doing} · {where}" if doing else where
        surf.blit(fonts.text(_clip(line_font, line, width - x - 6), LINE_PX, DIM), (x, 24))
        return surf

    def _draw_rows(self, all_rows: bool = False) -> None:
        """Redraw the rows waiting (at most ROWS_PER_FRAME, unless ``all_rows``) and hand the image over."""
        if self.sheet is None or not self._dirty:
            return
        width = self.sheet.get_width()
        n = len(self._dirty) if all_rows else min(ROWS_PER_FRAME, len(self._dirty))
        for _ in range(n):
            name = self._dirty.pop(0)
            if name not in self.rows:
                continue
            i = self.order.index(name)
            state = self.row_state(name)
            self.rows[name] = state
            row = pygame.Rect(0, i * ROW_H, width, ROW_H)
            self.sheet.fill((0, 0, 0, 0), row)
            self.sheet.blit(self.render_row(name, state, width, hovered=name == self.hover), row.topleft)
        self.image.set_image(self.sheet)

    # ---- acting ---------------------------------------------------------------------------------
    def row_rect(self, name: str) -> pygame.Rect:
        """Where a resident's row is on screen (it may be scrolled out of the box)."""
        i = self.order.index(name)
        return pygame.Rect(self.image.rect.x, self.image.rect.y + i * ROW_H, self.image.rect.width, ROW_H)

    def name_at(self, pos) -> str | None:
        """The resident whose row is under a screen position (the list scrolls)."""
        if pos is None or self.image is None:
            return None
        clip = self.scroller.get_container().get_rect() if self.scroller is not None else None
        if clip is not None and not clip.collidepoint(pos):
            return None
        i = int((pos[1] - self.image.rect.top) // ROW_H)
        return self.order[i] if 0 <= i < len(self.order) and self.image.rect.collidepoint(pos) else None

    def follow(self, name: str) -> None:
        self.game.follow_resident(name)
        self._since = REFRESH_S  # show the highlight soon

    def inspect(self, name: str) -> None:
        insp = self.game.panels.inspector
        if insp is not None:
            insp.select(name)

    # ---- overlay protocol ------------------------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> bool:
        got = keys.hit(event)
        if event.type == pygame.KEYDOWN:
            if got is not None and got.action == "residents" and not text_focused(self.game):
                self.toggle()
                return True
            if got is not None and got.action == "back" and self.is_open and not self._others_open():
                self.close()
                return True
            return False
        if not self.is_open:
            return False
        if event.type in (pygame_gui.UI_BUTTON_PRESSED, pygame_gui.UI_BUTTON_DOUBLE_CLICKED) \
                and event.ui_element is self.button:
            name = self.name_at(self.game.mouse_pos)
            if name is None:
                return True
            if event.type == pygame_gui.UI_BUTTON_DOUBLE_CLICKED:
                self.follow(name)
                self.inspect(name)
            elif getattr(event, "mouse_button", 1) == pygame.BUTTON_RIGHT:  # a pygame event: its fields by type
                self.game.walk_to_resident(name)
            else:
                self.follow(name)
            return True
        return False

    def _others_open(self) -> bool:
        """Escape closes the inspector, a chat and the town map before this list."""
        p = self.game.panels
        return any(panel is not None and panel.is_open
                   for panel in (p.inspector, p.chat, p.interview, p.townmap, p.quit_dialog))

    def update(self, dt: float) -> None:
        if not self.is_open:
            if self._typing or self._dirty:  # hidden by its close button
                self.close()
            return
        typing = bool(self.filter_entry is not None and self.filter_entry.is_focused)
        if typing != self._typing:  # typing a filter: WASD are letters, not steps
            self._typing = typing
            self.game.controls.enabled = not typing
            if typing:
                self.game.controls.release_all()
        if not self._update_filter():
            minds = self.session.minds
            if set(self.rows) - set(minds) or (not self._filter and len(self.rows) != len(minds)):
                self._build_rows()  # a load with another cast
        hover = self.name_at(self.game.mouse_pos)
        if hover != self.hover:  # the row under the mouse is drawn lighter
            for name in (self.hover, hover):
                if name is not None and name not in self._dirty:
                    self._dirty.insert(0, name)
            self.hover = hover
        self._since += dt
        if self._since >= REFRESH_S:
            self._since = 0.0
            for name in self.order:
                if self.row_state(name) != self.rows.get(name) and name not in self._dirty:
                    self._dirty.append(name)
        self._draw_rows()


def install(game: ListHost) -> ResidentsList:
    lst = ResidentsList(game)
    lst.build()
    game.add_overlay(lst)
    game.panels.residents_list = lst
    hud = game.panels.hud
    if hud is not None:
        lst.hud_button = hud.add_button("Residents (R)", 130, lst.toggle,
                                        "everyone in town: where they are and what they do")
    return lst


__all__ = ["ResidentsList", "install", "provenance_marker", "short_place"]
