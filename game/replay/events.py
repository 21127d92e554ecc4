"""The replay's events list (E, or the "Events (E)" button): the moments worth
jumping to (game/replay/moments.py: conversations, greetings, reactions, inner
voices, reflections, gatherings such as the party, world edits), by time.

A line at the top filters them: a resident's name (or first name) keeps the
moments they took part in; any other word keeps the moments whose line has it
("party", "reflects", "Hobbs"). Click a moment: the replay jumps there and
the camera follows the first resident in it (a gathering: looks at the place).

A pygame_gui window on the left (it takes the residents list's place: one
closes the other). At most ``SHOWN`` moments are listed at once; the title
says how many match.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import pygame
import pygame_gui
from pygame_gui.elements import UISelectionList, UITextEntryLine, UIWindow

from game.view import keys
from game.view.hud import text_focused
from game.view.overlay import Overlay
from game.view.statusline import HEIGHT as STATUS_H

if TYPE_CHECKING:
    from game.replay.playback import ReplaySession
    from game.view.window import Game

log = logging.getLogger(__name__)

WIDTH = 460
TOP = 124  # below the HUD box
SHOWN = 400
BEFORE = 3  # frames before a moment a jump lands (they are about to speak)


def row_text(moment, rec) -> str:
    return f"{rec.time_of(moment.frame):%a %H:%M}  {moment.kind}: {moment.text}"


class EventsList(Overlay):
    """The list (see the module's notes); ``game.panels.replay_events`` once installed."""

    name = "replay_events"

    def __init__(self, game: Game, session: ReplaySession, moments: list) -> None:
        self.game = game
        self.session = session
        self.moments = moments
        self.window: UIWindow | None = None
        self.filter: UITextEntryLine | None = None
        self.list: UISelectionList | None = None
        self.query = ""
        self.shown: list = []  # the moments listed, in the list's order
        self.hud_button: pygame_gui.elements.UIButton | None = None

    @property
    def is_open(self) -> bool:
        return self.window is not None and self.window.alive()

    def matching(self, query: str | None = None) -> list:
        q = self.query if query is None else query
        return [m for m in self.moments if m.matches(q)]

    # ---- opening and closing ---------------------------------------------------------------
    def open(self) -> None:
        if self.is_open:
            return
        others = self.game.panels.residents_list
        if others is not None and others.is_open:
            others.close()
        _w, h = self.game.size
        height = max(200, h - TOP - STATUS_H - 60)
        outer = self

        class _Window(UIWindow):
            def on_close_window_button_pressed(self) -> None:
                outer.close()

        self.window = _Window(pygame.Rect(8, TOP, WIDTH, height), self.game.ui, window_display_title="Events",
                              object_id="#replay_events", resizable=False)
        cw, _ch = self.window.get_container().get_size()
        self.filter = UITextEntryLine(pygame.Rect(4, 4, cw - 8, 32), self.game.ui, container=self.window,
                                      placeholder_text="filter: a resident, or a word (party, reflects …)")
        if self.query:
            self.filter.set_text(self.query)
        self.list = None
        self._fill()

    def close(self) -> None:
        if self.window is not None:
            self.window.kill()
        self.window = self.filter = self.list = None

    def toggle(self) -> None:
        self.close() if self.is_open else self.open()

    def inset(self) -> tuple[int, int, int, int] | None:
        return (self.window.rect.right + 4, 0, 0, 0) if self.is_open and self.window is not None else None

    def set_filter(self, query: str) -> None:
        self.query = " ".join(str(query or "").split())
        if self.filter is not None and self.filter.get_text() != query:
            self.filter.set_text(query)
        if self.is_open:
            self._fill()

    def _fill(self) -> None:
        if self.window is None:
            return
        rec = self.session.recording
        found = self.matching()
        self.shown = found[:SHOWN]
        more = f" (the first {SHOWN})" if len(found) > SHOWN else ""
        what = f"“{self.query}”: " if self.query else ""
        self.window.set_display_title(f"Events — {what}{len(found)}{more}")
        cw, ch = self.window.get_container().get_size()
        if self.list is not None:
            self.list.kill()
        items: list[str | tuple[str, str]] = [row_text(m, rec) for m in self.shown] or ["(nothing matches)"]
        self.list = UISelectionList(pygame.Rect(4, 40, cw - 8, ch - 44), items, self.game.ui,
                                    container=self.window)

    # ---- jumping -------------------------------------------------------------------------------
    def jump(self, moment) -> None:
        """Go to the moment: the replay's clock, and the camera on who is in it."""
        s = self.session
        s.seek(max(0, moment.frame - BEFORE))
        who = [n for n in moment.who if n in s.minds]
        if moment.kind == "gathering" or not who:
            tiles = [b.tile for n, b in s.sim.bodies.items() if n in moment.who]
            if tiles:
                cx = sum(t[0] for t in tiles) / len(tiles)
                cy = sum(t[1] for t in tiles) / len(tiles)
                self.game.look_at_tile((cx, cy))
        else:
            self.game.follow_resident(who[0])
        # the whole line, as listed (the HUD wraps it); the moment's time, not the few seconds before it
        self.game.toast(f"{s.recording.time_of(moment.frame):%a %H:%M}: {moment.text}")

    def handle_event(self, event: pygame.event.Event) -> bool:
        if event.type == pygame_gui.UI_TEXT_ENTRY_CHANGED and event.ui_element is self.filter:
            self.query = " ".join(event.text.split())
            self._fill()
            return True
        if event.type == pygame_gui.UI_SELECTION_LIST_NEW_SELECTION and event.ui_element is self.list:
            try:
                i = self.list.item_list.index(next(it for it in self.list.item_list if it["selected"]))
            except (StopIteration, ValueError):
                return True
            if i < len(self.shown):
                self.jump(self.shown[i])
            return True
        if keys.pressed(event, "back") and self.is_open:
            self.close()
            return True
        if keys.pressed(event, "events", "replay") and not text_focused(self.game):
            self.toggle()
            return True
        return False

    def update(self, dt: float) -> None:
        others = self.game.panels.residents_list
        if self.is_open and others is not None and others.is_open:
            self.close()  # the residents list opened in its place


def install(game: Game, session: ReplaySession, moments: list) -> EventsList:
    lst = EventsList(game, session, moments)
    game.add_overlay(lst)
    game.panels.replay_events = lst
    hud = game.panels.hud
    if hud is not None:
        lst.hud_button = hud.add_button("Events (E)", 110, lst.toggle, "what happened: jump to it")
    return lst


__all__ = ["EventsList", "install", "row_text"]
