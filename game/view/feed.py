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
(a gathering or an edit: looks at the place); double-click, or "Why?": the Why?
panel on the act behind it (game/view/why_panel.py). At most ``SHOWN`` entries
are listed; the list is laid out again at most every ``REFRESH_S`` seconds, and
only when the feed or the filter changed.

The HUD shows the newest entry as a line of its own (``hud_line``).
"""
from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

import pygame
import pygame_gui
from pygame_gui.elements import (
    UIButton,
    UIDropDownMenu,
    UILabel,
    UISelectionList,
    UITextBox,
    UITextEntryLine,
    UIWindow,
)

from game.runs.feed import TOPICS, Entry
from game.view import keys
from game.view.hud import text_focused
from game.view.markup import C_DIM, C_TEXT, esc
from game.view.overlay import Overlay
from game.view.statusline import HEIGHT as STATUS_H

if TYPE_CHECKING:
    from game.view.window import Game

log = logging.getLogger(__name__)

WIDTH = 470
TOP = 124  # below the HUD box
SHOWN = 80
REFRESH_S = 0.5
EVERYTHING = "everything"
HUD_CHARS = 64
CHAR_PX = 8  # about a character of the list's font: a line longer than its row is cut with "…"
DETAIL_H = 64  # the selected entry in full, below the list
HINT = "Click an entry to follow who is in it; double-click (or Why?) for the reasons behind it."


class FeedPanel(Overlay):
    """The panel (see the module's notes); ``game.panels.feed`` once installed."""

    name = "feed"

    def __init__(self, game: Game) -> None:
        self.game = game
        self.window: UIWindow | None = None
        self.filter: UITextEntryLine | None = None
        self.topics: UIDropDownMenu | None = None
        self.list: UISelectionList | None = None
        self.why_button: UIButton | None = None
        self.status: UILabel | None = None
        self.detail: UITextBox | None = None  # the selected entry, whole
        self.items: list[str] = []  # the rows as listed (cut to the row's width)
        self.hud_button: pygame_gui.elements.UIButton | None = None
        self.query = ""  # a resident or a word
        self.topic = ""  # one of TOPICS, or "" for everything
        self.shown: list[Entry] = []  # the entries listed, in the list's order
        self.selected: Entry | None = None
        self._shown_key: tuple | None = None  # what the list was laid out from
        self._since = REFRESH_S
        self._typing = False

    @property
    def source(self) -> Any:
        """The session's feed: a LiveFeed (game/runs/live_feed.py) or a replay's RecordedFeed."""
        return getattr(self.game.session, "feed", None)

    @property
    def is_open(self) -> bool:
        return self.window is not None and self.window.alive()

    # ---- opening and closing ---------------------------------------------------------------
    def open(self) -> None:
        if self.is_open:
            return
        p = self.game.panels
        for other in (p.residents_list, p.replay_events):
            if getattr(other, "is_open", False):
                other.close()  # type: ignore[union-attr]  # it is open, so it is there
        _w, h = self.game.size
        height = max(240, h - TOP - STATUS_H - 60)
        outer = self

        class _Window(UIWindow):
            def on_close_window_button_pressed(self) -> None:
                outer.close()

        ui = self.game.ui
        self.window = _Window(pygame.Rect(8, TOP, WIDTH, height), ui, window_display_title="Town feed",
                              object_id="#town_feed", resizable=False)
        cw, ch = self.window.get_container().get_size()
        self.filter = UITextEntryLine(pygame.Rect(4, 4, cw - 156, 32), ui, container=self.window,
                                      placeholder_text="a resident, or a word (party …)")
        self.filter.set_text_length_limit(40)
        if self.query:
            self.filter.set_text(self.query)
        self.topics = UIDropDownMenu([EVERYTHING, *TOPICS], self.topic or EVERYTHING,
                                     pygame.Rect(cw - 148, 4, 144, 32), ui, container=self.window)
        self.why_button = UIButton(pygame.Rect(cw - 92, ch - 36, 88, 32), "Why?", ui, container=self.window,
                                   tool_tip_text="the reasons behind the selected entry")
        self.status = UILabel(pygame.Rect(4, ch - 36, cw - 100, 32), "", ui, container=self.window)
        self.detail = UITextBox("", pygame.Rect(4, ch - 40 - DETAIL_H, cw - 8, DETAIL_H), ui, container=self.window)
        self._show_detail(None)
        self.list = None
        self._shown_key = None
        self._fill()

    def close(self) -> None:
        if self.window is not None:
            self.window.kill()
        self.window = self.filter = self.topics = self.list = self.why_button = self.status = self.detail = None
        self.shown, self.selected, self._shown_key, self.items = [], None, None, []
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
        """Lay the list out again when the feed or the filter changed."""
        if self.window is None:
            return
        src = self.source
        key = (getattr(src, "version", None), self.query, self.topic, id(src))
        if not force and key == self._shown_key:
            return
        self._shown_key = key
        found = self.entries()
        if [e.line() for e in found] == [e.line() for e in self.shown] and self.list is not None:
            return  # the same lines: the list (and its selection) stays
        self.shown = found
        cw, ch = self.window.get_container().get_size()
        chars = max(20, int(cw - 8 - 24) // CHAR_PX)  # the row's width, less the scroll bar
        self.items = [_cut(e.line(), chars) for e in found] or [self._empty_text()]
        items: list[str | tuple[str, str]] = list(self.items)
        if self.list is None:
            self.list = UISelectionList(pygame.Rect(4, 40, cw - 8, ch - 88 - DETAIL_H), items, self.game.ui,
                                        container=self.window)
        else:
            self.list.set_item_list(items)
        self.selected = None
        self._show_detail(None)
        skipped = int(getattr(src, "skipped", 0) or 0)
        what = f"“{self.query}” " if self.query else ""
        topic = f"{self.topic} " if self.topic else ""
        text = f"{len(found)}{'+' if len(found) >= SHOWN else ''} {topic}{what}entries"
        if skipped:
            text += f" · {skipped} unreadable events skipped"
        if self.status is not None:
            self.status.set_text(text)

    def _empty_text(self) -> str:
        src = self.source
        if src is None:
            return "(no feed in this window)"
        if getattr(src, "ready", True) is False:
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
        who = [n for n in entry.who if n in session.sim.bodies]
        if entry.kind in ("gathering", "edit") or not who:
            tiles = [session.sim.bodies[n].tile for n in who]
            if not tiles and entry.place:
                tiles = list(getattr(session.town, "tiles_of", lambda a: [])(entry.place))
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
        return True

    def _picked(self, event: pygame.event.Event) -> Entry | None:
        if self.list is None:
            return None
        for i, item in enumerate(self.list.item_list):
            if item.get("selected") and i < len(self.shown):
                return self.shown[i]
        text = getattr(event, "text", None)
        return next((e for e, shown in zip(self.shown, self.items) if shown == text), None)

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
        if event.type == pygame_gui.UI_SELECTION_LIST_NEW_SELECTION and event.ui_element is self.list:
            self.selected = self._picked(event)
            if self.selected is not None:
                self.follow(self.selected)
            self._show_detail(self.selected)
            return True
        if event.type == pygame_gui.UI_SELECTION_LIST_DOUBLE_CLICKED_SELECTION and event.ui_element is self.list:
            self.selected = self._picked(event) or self.selected
            self.why(self.selected)
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
        src = self.source
        if src is not None:
            try:
                src.pump(getattr(self.game.session.sim, "events", ()))  # new events' references, to its thread
            except Exception:  # the feed is a view: the town goes on without it
                log.exception("pumping the town feed failed")
        if not self.is_open:
            self._typed(False)  # closed by its close button while typing
            return
        self._typed(bool(self.filter is not None and self.filter.is_focused))
        p = self.game.panels
        if any(getattr(other, "is_open", False) for other in (p.residents_list, p.replay_events)):
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


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"


def _time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None


def install(game: Game) -> FeedPanel:
    panel = FeedPanel(game)
    game.add_overlay(panel)
    game.panels.feed = panel
    hud = game.panels.hud
    if hud is not None:
        panel.hud_button = hud.add_button("Feed (F)", 90, panel.toggle,
                                          "what just happened in town: talks, news, plans, gatherings")
    return panel


__all__ = ["FeedPanel", "install"]
