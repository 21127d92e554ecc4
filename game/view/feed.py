"""The town feed (F, or the "Feed (F)" button): what just happened worth noticing, newest first.

The entries are game/runs/feed.py's, read off the simulation's event log by the
session's ``LiveFeed`` on its own thread (this view only hands it the new
events once a frame: ``pump``), or, in a replay, the recording's
(game/replay/feed.py, up to the moment shown). One short line each: who talked
to whom and what news passed, plans made or changed, reflections, gatherings,
reactions to the console's edits.

A pygame_gui window on the left (it takes the residents list's place: one
closes the other). A line at the top filters by a resident (a full or first
name) or any word; a menu beside it by topic (talk, plans, reflections,
gatherings, world). Click an entry: the camera follows the first resident in it
(a gathering or an edit: looks at the place) and the entry shows whole below the
list; double-click, or "Why?": the Why? panel on the act behind it
(game/view/why_panel.py).

Cheap on the frame (measured: a new entry redraws 80 rows in ~2 ms; a pygame_gui
selection list took ~150 ms to lay them out): the rows are drawn here into one
opaque picture, each row once (cached by entry, text and selection), under one
transparent button that takes the clicks, in a window made once at install and
then shown and hidden. At most ``SHOWN`` entries are listed, redrawn at most every
``REFRESH_S`` seconds and only when the feed or the filter changed.

The HUD shows the newest entry as a line of its own (``hud_line``).
"""
from __future__ import annotations

import logging
from datetime import datetime
from typing import Protocol

import pygame
import pygame_gui
from pygame_gui.elements import (
    UIButton,
    UIDropDownMenu,
    UIImage,
    UILabel,
    UIScrollingContainer,
    UITextBox,
    UITextEntryLine,
    UIWindow,
)

from game.runs.feed import TOPICS, Entry, news_word
from game.view import keys
from game.view.fonts import panel_font
from game.view.host import Finder, Host, TownFeed
from game.view.hud import text_focused
from game.view.markup import C_DIM, C_TEXT, esc
from game.view.overlay import Overlay
from game.view.residents_list import ClickArea
from game.view.statusline import HEIGHT as STATUS_H

log = logging.getLogger(__name__)

WIDTH = 470
TOP = 124  # below the HUD box
SHOWN = 80
REFRESH_S = 0.5
EVERYTHING = "everything"
HUD_CHARS = 64
ROW_H = 24
TEXT_PX = 14
DETAIL_H = 84  # the selected entry in full, below the list (three lines)
FG = (236, 236, 236)
DIM = (168, 176, 188)
BG = (33, 40, 45)  # pygame_gui's dark background: the rows are opaque (blitting them is a copy)
PICKED = (62, 72, 82)
HINT = "Click an entry to follow who is in it; double-click (or Why?) for the reasons behind it."


class FeedHost(Host, Finder, Protocol):
    """What the feed uses of the window: where the mouse is (which row a click hit)."""

    @property
    def mouse_pos(self) -> tuple[int, int] | None: ...


class FeedPanel(Overlay):
    """The panel (see the module's notes); ``game.panels.feed`` once installed."""

    name = "feed"

    def __init__(self, game: FeedHost) -> None:
        self.game = game
        self.window: UIWindow | None = None
        self.filter: UITextEntryLine | None = None
        self.topics: UIDropDownMenu | None = None
        self.scroller: UIScrollingContainer | None = None
        self.image: UIImage | None = None  # the rows, drawn here into one picture (see _fill)
        self.button: ClickArea | None = None  # one transparent button over them: clicks and double-clicks
        self.why_button: UIButton | None = None
        self.status: UILabel | None = None
        self.detail: UITextBox | None = None  # the selected entry, whole
        self.items: list[str] = []  # the rows as drawn (cut to the row's width)
        self._rows: dict[tuple, tuple[pygame.Surface, str]] = {}  # (id, text, width, selected) -> row, text
        self._fonts: dict = {}
        self.hud_button: pygame_gui.elements.UIButton | None = None
        self.query = ""  # a resident or a word
        self.topic = ""  # one of TOPICS, or "" for everything
        self.shown: list[Entry] = []  # the entries listed, in the list's order
        self.selected: Entry | None = None
        self._shown_key: tuple | None = None  # what the list was laid out from
        self._since = REFRESH_S
        self._typing = False
        self._built_for: tuple[int, int] | None = None  # the window size the panel was made for

    @property
    def source(self) -> TownFeed | None:
        """The session's feed: a LiveFeed (game/runs/live_feed.py) or a replay's RecordedFeed."""
        return self.game.session.feed if self.game.session is not None else None

    @property
    def is_open(self) -> bool:
        return self.window is not None and self.window.alive() and bool(self.window.visible)

    # ---- opening and closing ---------------------------------------------------------------
    # Made once (at install, before the first frame: pygame_gui's first scrolling box takes ~0.1 s)
    # and then shown and hidden, as the residents list is.
    def build(self) -> None:
        outer = self

        class _Window(UIWindow):
            def on_close_window_button_pressed(self) -> None:
                outer.close()

        ui = self.game.ui
        _w, h = self.game.size
        self._built_for = self.game.size
        height = max(240, h - TOP - STATUS_H - 60)
        self.window = _Window(pygame.Rect(8, TOP, WIDTH, height), ui, window_display_title="Town feed",
                              object_id="#town_feed", resizable=False)
        cw, ch = self.window.get_container().get_size()
        self.filter = UITextEntryLine(pygame.Rect(4, 4, cw - 156, 32), ui, container=self.window,
                                      placeholder_text="a resident, or a word (party …)")
        self.filter.set_text_length_limit(40)
        self.topics = UIDropDownMenu([EVERYTHING, *TOPICS], self.topic or EVERYTHING,
                                     pygame.Rect(cw - 148, 4, 144, 32), ui, container=self.window)
        self.why_button = UIButton(pygame.Rect(cw - 92, ch - 36, 88, 32), "Why?", ui, container=self.window,
                                   tool_tip_text="the reasons behind the selected entry")
        self.status = UILabel(pygame.Rect(4, ch - 36, cw - 100, 32), "", ui, container=self.window)
        self.detail = UITextBox("", pygame.Rect(4, ch - 40 - DETAIL_H, cw - 8, DETAIL_H), ui, container=self.window)
        # The rows are one picture under one transparent button (as the residents list's): a
        # pygame_gui selection list laid out 80 rows in ~150 ms, a hitch each time the feed moved.
        area = pygame.Rect(4, 40, cw - 8, ch - 88 - DETAIL_H)
        self.scroller = UIScrollingContainer(area, ui, container=self.window, allow_scroll_x=False)
        full = pygame.Rect(0, 0, area.width - 20, SHOWN * ROW_H)  # room for the scroll bar
        blank = pygame.Surface(full.size)
        blank.fill(BG)
        self.image = UIImage(full, blank, ui, container=self.scroller)
        self.button = ClickArea(full, "", ui, container=self.scroller, object_id="#feed_row",
                                allow_double_clicks=True)
        self.window.hide()  # made visible: pygame_gui cannot put a scrolling box into a hidden window

    def open(self) -> None:
        if self.is_open:
            return
        p = self.game.panels
        for other in (p.residents_list, p.replay_events):
            if other is not None and other.is_open:
                other.close()
        if self.window is None or not self.window.alive() or self._built_for != self.game.size:
            if self.window is not None:
                self.window.kill()
            self.build()
        assert self.window is not None and self.filter is not None
        self.window.show()
        if self.filter.get_text() != self.query:
            self.filter.set_text(self.query)
        self.selected = None
        self._show_detail(None)
        self._fill()

    def close(self) -> None:
        if self.window is not None and self.window.alive():
            self.window.hide()
        self.selected, self._shown_key = None, None
        self._typed(False)

    def _typed(self, typing: bool) -> None:
        """While the filter line has the keys, W A S D are letters, not steps."""
        if typing == self._typing:
            return
        self._typing = typing
        self.game.controls.enabled = not typing
        if typing:
            self.game.controls.release_all()

    def toggle(self) -> None:
        self.close() if self.is_open else self.open()

    def inset(self) -> tuple[int, int, int, int] | None:
        return (self.window.rect.right + 4, 0, 0, 0) if self.is_open and self.window is not None else None

    # ---- the filter ------------------------------------------------------------------------
    def set_filter(self, query: str = "", topic: str = "") -> None:
        """Show one resident (or a word) and one topic ("" for every one)."""
        self.query = " ".join(str(query or "").split())
        self.topic = topic if topic in TOPICS else ""
        if self.filter is not None and self.filter.get_text() != self.query:
            self.filter.set_text(self.query)
        self._fill()

    def entries(self) -> list[Entry]:
        """What the list shows (the filter applied), newest first."""
        src = self.source
        if src is None:
            return []
        return src.newest(self.query or None, self.topic or None, SHOWN)

    def _fill(self, force: bool = True) -> None:
        """Draw the rows again when the feed or the filter changed."""
        if self.window is None:
            return
        src = self.source
        key = (getattr(src, "version", None), self.query, self.topic, id(src))  # a LiveFeed, or a replay's
        if not force and key == self._shown_key:
            return
        self._shown_key = key
        found = self.entries()
        if self.selected is not None and not any(e.id == self.selected.id for e in found):
            self.selected = None
            self._show_detail(None)
        self.shown = found
        self._draw()
        skipped = int(getattr(src, "skipped", 0) or 0)  # a replay's feed skips nothing
        what = f"“{self.query}” " if self.query else ""
        topic = f"{self.topic} " if self.topic else ""
        noun = "entry" if len(found) == 1 else "entries"
        text = f"{len(found)}{'+' if len(found) >= SHOWN else ''} {topic}{what}{noun}"
        if skipped:
            text += f" · {skipped} unreadable events skipped"
        if self.status is not None:
            self.status.set_text(text)

    def _draw(self) -> None:
        """The rows into the picture: each row drawn once (cached by entry, text and whether it is
        selected) and opaque, so the picture is a few copies; handed to pygame_gui once."""
        if self.image is None or self.scroller is None:
            return
        width, height = self.image.rect.size
        font = panel_font(TEXT_PX, False, self._fonts)
        sheet = pygame.Surface((width, height))
        sheet.fill(BG)
        rows: dict[tuple, tuple[pygame.Surface, str]] = {}
        self.items = []
        if not self.shown:
            self.items = [self._empty_text()]
            sheet.blit(font.render(_fit(font, self.items[0], width - 8), True, DIM, BG), (4, 3))
        picked = self.selected.id if self.selected is not None else None
        for i, e in enumerate(self.shown):
            line = e.line()
            k = (e.id, line, width, e.id == picked)
            row = self._rows.get(k)
            if row is None:
                fitted = _fit(font, line, width - 8)
                surf = pygame.Surface((width, ROW_H))
                surf.fill(PICKED if k[3] else BG)
                text = font.render(fitted, True, FG)
                surf.blit(text, (4, (ROW_H - text.get_height()) // 2))
                row = (surf, fitted)
            rows[k] = row
            self.items.append(row[1])
            sheet.blit(row[0], (0, i * ROW_H))
        self._rows = rows  # only the rows shown stay cached
        self.image.set_image(sheet, image_is_alpha_premultiplied=True)  # opaque: nothing to premultiply
        self.scroller.set_scrollable_area_dimensions((width, max(1, len(self.shown)) * ROW_H))

    def row_rect(self, i: int) -> pygame.Rect:
        """Where the i-th row is on screen (it may be scrolled out of the box)."""
        assert self.image is not None
        return pygame.Rect(self.image.rect.x, self.image.rect.y + i * ROW_H, self.image.rect.width, ROW_H)

    def entry_at(self, pos: tuple[int, int] | None) -> Entry | None:
        """The entry whose row is under a screen position."""
        if pos is None or self.image is None or self.scroller is None:
            return None
        if not self.scroller.get_container().get_rect().collidepoint(pos):
            return None
        i = int((pos[1] - self.image.rect.top) // ROW_H)
        return self.shown[i] if 0 <= i < len(self.shown) and self.image.rect.collidepoint(pos) else None

    def _empty_text(self) -> str:
        src = self.source
        if src is None:
            return "(no feed in this window)"
        if getattr(src, "ready", True) is False:  # a replay's feed reads the recording first
            return "(reading the recording…)"
        if self.query or self.topic:
            return "(nothing matches)"
        return "(nothing yet: talks, plans, reflections and gatherings show here)"

    def _show_detail(self, entry: Entry | None) -> None:
        """The selected entry in full below the list (the rows are cut to their width)."""
        if self.detail is None:
            return
        if entry is None:
            self.detail.set_text(f"<font color='{C_DIM}'>{esc(HINT)}</font>")
            return
        who = ", ".join(entry.who)
        topic = f" · {entry.topic}" if entry.topic else ""
        self.detail.set_text(f"<font color='{C_TEXT}'>{esc(entry.line())}</font><br>"
                             f"<font color='{C_DIM}'>{esc(entry.category)}{esc(topic)}"
                             f"{' · ' + esc(who) if who else ''}</font>")

    # ---- acting on an entry ----------------------------------------------------------------------
    def follow(self, entry: Entry) -> None:
        """The camera on who is in it (a gathering or an edit: on the place)."""
        session = self.game.session
        if session is None:
            return
        who = [n for n in entry.who if n in session.sim.bodies]
        if entry.kind in ("gathering", "edit") or not who:
            tiles = [session.sim.bodies[n].tile for n in who]
            if not tiles and entry.place:
                tiles = list(session.town.tiles_of(entry.place))
            if tiles:
                cx = sum(t[0] for t in tiles) / len(tiles)
                cy = sum(t[1] for t in tiles) / len(tiles)
                self.game.look_at_tile((cx, cy))
            return
        self.game.follow_resident(who[0])

    def why(self, entry: Entry | None) -> bool:
        """The Why? panel on the act behind the entry; False (and a toast) when it has none."""
        panel = self.game.panels.why_panel
        if entry is None:
            self.game.toast("Select an entry first, then Why?")
            return False
        if panel is None or not entry.who or entry.why is None:
            self.game.toast("This entry has no decision behind it to explain (a gathering, an edit).")
            return False
        kind, t, text = entry.why
        when = _time(t)
        who = entry.who[0]
        panel.open(who, kind, when, text, f"{who.split()[0]}: {entry.text}")
        word = news_word(entry.topic)
        if word and panel.spread_entry is not None:  # news: who told whom, as `smallville why --spread` says
            panel.spread_entry.set_text(word)
            panel.show_spread(word)
        return True

    def pick(self, entry: Entry, why: bool = False) -> None:
        """A click on an entry: it is selected (shown whole below) and the camera goes to it; a
        double-click (``why``) opens its Why? too."""
        self.selected = entry
        self._show_detail(entry)
        self._draw()
        self.follow(entry)
        if why:
            self.why(entry)

    # ---- overlay protocol ------------------------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.KEYDOWN:
            if keys.pressed(event, "feed") and not text_focused(self.game):
                self.toggle()
                return True
            if keys.pressed(event, "back") and self.is_open and not self._others_open():
                self.close()
                return True
            return False
        if not self.is_open:
            return False
        if event.type == pygame_gui.UI_TEXT_ENTRY_CHANGED and event.ui_element is self.filter:
            self.query = " ".join(event.text.split())
            self._fill()
            return True
        if event.type == pygame_gui.UI_DROP_DOWN_MENU_CHANGED and event.ui_element is self.topics:
            self.topic = event.text if event.text in TOPICS else ""
            self._fill()
            return True
        if event.type in (pygame_gui.UI_BUTTON_PRESSED, pygame_gui.UI_BUTTON_DOUBLE_CLICKED) \
                and event.ui_element is self.button:
            entry = self.entry_at(self.game.mouse_pos)
            if entry is not None:
                self.pick(entry, why=event.type == pygame_gui.UI_BUTTON_DOUBLE_CLICKED)
            return True
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.why_button:
            self.why(self.selected)
            return True
        return False

    def _others_open(self) -> bool:
        """Escape closes the inspector, its Why?, a chat and the town map before this list."""
        p = self.game.panels
        return any(panel is not None and panel.is_open
                   for panel in (p.inspector, p.why_panel, p.chat, p.interview, p.townmap, p.quit_dialog))

    def update(self, dt: float) -> None:
        src, session = self.source, self.game.session
        if src is not None and session is not None:
            try:
                src.pump(session.sim.events)  # new events' references, to its thread
            except Exception:  # the feed is a view: the town goes on without it
                log.exception("pumping the town feed failed")
        if not self.is_open:
            self._typed(False)  # closed by its close button while typing
            return
        self._typed(bool(self.filter is not None and self.filter.is_focused))
        p = self.game.panels
        if any(other is not None and other.is_open for other in (p.residents_list, p.replay_events)):
            self.close()  # the residents list (or a replay's events) opened in its place
            return
        self._since += dt
        if self._since >= REFRESH_S:
            self._since = 0.0
            self._fill(force=False)

    def hud_line(self) -> str:
        """The newest entry, for the HUD ("" when there is none yet)."""
        src = self.source
        line = src.hud_line() if src is not None else ""
        return line if len(line) <= HUD_CHARS else line[: HUD_CHARS - 1] + "…"


def _fit(font: pygame.font.Font, text: str, width: int) -> str:
    """The text, cut with "…" to fit ``width`` pixels: a guess from its mean character width,
    then a character less at a time (a few measures, not one per character)."""
    full = font.size(text)[0]
    if full <= width:
        return text
    n = max(1, int(len(text) * width / full))
    while n > 1 and font.size(text[:n].rstrip() + "…")[0] > width:
        n -= 1
    return text[:n].rstrip() + "…"


def _time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None


def install(game: FeedHost) -> FeedPanel:
    panel = FeedPanel(game)
    panel.build()
    game.add_overlay(panel)
    game.panels.feed = panel
    hud = game.panels.hud
    if hud is not None:
        panel.hud_button = hud.add_button("Feed (F)", 90, panel.toggle,
                                          "what just happened in town: talks, news, plans, gatherings")
    return panel


__all__ = ["FeedPanel", "install"]
