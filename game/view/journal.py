"""The visitor's journal (J): what residents invited you to,
what you agreed to and what you were told of, each with its day, hours and place, and who
said it (game/runs/journal.py keeps it, off the lines residents say to you).

A pygame_gui window on the right: "Coming up" (soonest first; the one due within the hour
marked, one under way says so), then "Past". Its text is made again only when the journal
changed or the sim minute did, at most every ``REFRESH_S`` seconds. A new entry (or one
that moved up: told, invited, agreed) is announced once in a toast.

The HUD shows the reminder (``hud_line``): "Due at 5 pm: Valentine's Day party at Hobbs
Cafe (Isabella)", from an hour before the entry starts until it does. A replay has no
journal (its session none): the key and the line say nothing there.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

import pygame
import pygame_gui
from pygame_gui.elements import UITextBox, UIWindow

from game.runs.journal import AGREED, INVITED, Entry, Journal, first
from game.view import keys
from game.view.host import Host
from game.view.hud import text_focused
from game.view.markup import C_DIM, C_HEAD, C_NOW, C_TEXT, C_YOU, esc
from game.view.overlay import Overlay

WIDTH, HEIGHT = 440, 420
TOP = 48  # below the HUD's buttons
MARGIN = 8
TEXT_PX = 15
REFRESH_S = 0.5
EMPTY = ("Nothing yet. When a resident invites you, or tells you of a party or a plan with a day, a time "
         "and a place, it is noted here; say yes in the chat to agree.")


def whose(e: Entry) -> str:
    """ "Isabella invited you", "you said yes to Isabella", "Maria told you"."""
    who = first(e.who)
    if e.kind == AGREED:
        return f"you said yes to {who}"
    return f"{who} invited you" if e.kind == INVITED else f"{who} told you"


class JournalPanel(Overlay):
    """The journal's window (see the module's notes); ``game.panels.journal`` once installed."""

    name = "journal"

    def __init__(self, game: Host) -> None:
        self.game = game
        self.window: Any = None  # a UIWindow while open
        self.box: Any = None
        self.text = ""  # the markup shown (tests read it)
        self._made_for: tuple | None = None  # (journal version, sim minute) the text was made for
        self._since = REFRESH_S
        self._announced: dict[str, str] = {}  # entry key -> the kind last announced
        self._for: tuple[int, int] | None = None  # the journal (and its load) ``_announced`` speaks of

    @property
    def journal(self) -> Journal | None:
        """The session's journal (a replay's session has none)."""
        return getattr(self.game.session, "journal", None)

    def _now(self) -> datetime | None:
        s = self.game.session
        return s.sim.now if s is not None else None

    @property
    def is_open(self) -> bool:
        return self.window is not None and self.window.alive()

    # ---- opening and closing -----------------------------------------------------------
    def open(self) -> None:
        if self.is_open or self.journal is None:
            return
        w, h = self.game.size
        rect = pygame.Rect(w - WIDTH - MARGIN, TOP, WIDTH, min(HEIGHT, h - TOP - 40))
        self.window = UIWindow(rect, self.game.ui, window_display_title="Journal", object_id="#journal")
        cw, ch = self.window.get_container().get_size()
        self.box = UITextBox("", pygame.Rect(0, 0, cw, ch), self.game.ui, container=self.window)
        self._made_for = None
        self._refresh()

    def close(self) -> None:
        if self.window is not None:
            self.window.kill()
        self.window = self.box = None

    def toggle(self) -> None:
        self.close() if self.is_open else self.open()

    # ---- what it says ------------------------------------------------------------------
    def hud_line(self) -> str:
        """The reminder of what is due within the hour, or ""."""
        j, now = self.journal, self._now()
        due = j.due(now) if j is not None and now is not None else None
        return due.due_line() if due is not None else ""

    def markup(self, now: datetime) -> str:
        j = self.journal
        if j is None or not j.entries:
            return f"<font pixel_size={TEXT_PX} color='{C_DIM}'><i>{esc(EMPTY)}</i></font>"
        due = j.due(now)
        out = [self._heading("Coming up")]
        coming = j.upcoming(now)
        out += [self._entry(e, now, e is due) for e in coming] or [self._dim("Nothing coming up.")]
        past = j.past(now)
        if past:
            out += ["<br>", self._heading("Past")] + [self._entry(e, now, False) for e in past]
        return "".join(out)

    def _heading(self, text: str) -> str:
        return f"<font pixel_size={TEXT_PX} color='{C_HEAD}'><b>{esc(text)}</b></font><br>"

    def _dim(self, text: str) -> str:
        return f"<font pixel_size={TEXT_PX - 1} color='{C_DIM}'>{esc(text)}</font><br>"

    def _entry(self, e: Entry, now: datetime, due: bool) -> str:
        mark = ""
        if due:
            mark = f" <font color='{C_NOW}'><b>due</b></font>"
        elif e.start <= now < e.end:
            mark = f" <font color='{C_NOW}'><b>now</b></font>"
        colour = C_YOU if e.kind == AGREED else C_TEXT
        said = e.said if len(e.said) <= 140 else e.said[:139] + "…"
        return (f"<font pixel_size={TEXT_PX} color='{C_TEXT}'><b>{esc(e.when())}</b>{mark}<br>"
                f"<font color='{colour}'>{esc(e.title())}</font> · {esc(whose(e))}</font><br>"
                + self._dim(f"\u201c{said}\u201d ({first(e.who)}, {e.heard:%a %H:%M})"))

    def _refresh(self) -> None:
        j, now = self.journal, self._now()
        if not self.is_open or j is None or now is None:
            return
        key = (j.version, now.replace(second=0, microsecond=0))
        if key == self._made_for:
            return
        self._made_for = key
        self.text = self.markup(now)
        self.box.set_text(self.text)

    def _announce(self) -> None:
        """A toast for each entry new to the journal, or moved up (told -> invited -> agreed)."""
        j = self.journal
        if j is None:
            return
        if (id(j), j.loads) != self._for:  # a new session, or a save loaded: what it holds is not news
            self._for = (id(j), j.loads)
            self._announced = {e.key: e.kind for e in j.entries}
            return
        for e in j.entries:
            if self._announced.get(e.key) != e.kind:
                self._announced[e.key] = e.kind
                self.game.toast(f"In your journal (J): {e.title()}, {e.start:%a} {e.when().split(', ', 1)[1]} "
                                f"({whose(e)})")

    # ---- overlay protocol --------------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.KEYDOWN:
            if keys.pressed(event, "journal") and not text_focused(self.game) and self.journal is not None:
                self.toggle()
                return True
            if keys.pressed(event, "back") and self.is_open:
                self.close()
                return True
            return False
        if event.type == pygame_gui.UI_WINDOW_CLOSE and self.window is not None and event.ui_element is self.window:
            self.window = self.box = None
            return True
        return False

    def update(self, dt: float) -> None:
        self._since += dt
        if self._since < REFRESH_S:
            return
        self._since = 0.0
        self._announce()
        if self.window is not None and not self.window.alive():
            self.window = self.box = None
        self._refresh()


def install(game: Host) -> JournalPanel:
    panel = JournalPanel(game)
    game.add_overlay(panel)
    game.panels.journal = panel  # no button: the top row's room is the messages' (J opens it)
    return panel


__all__ = ["JournalPanel", "install", "whose"]
