"""Leaving the game: "Save and quit / Quit without saving / Cancel".

Closing the window, or Escape with nothing else to close, opens this
pygame_gui window (``Game.request_quit``); the town pauses while it is open.
Enter (or S) saves and quits, Q quits without saving, Escape (or C) cancels,
and closing the window again while it is open saves and quits. A quit that
comes as a signal (Ctrl+C in the terminal, kill, logging out) saves and quits
without asking: nobody may be there to answer.

"Save and quit" writes this game's own slot ``<game id>-continue`` (game/saves/series.py)
through the save menu (game/view/savemenu.py: the capture on the frame, the
writing on the save writer's thread, so the window keeps drawing "Saving...");
the game ends once the file is complete. Another game's saves are never
touched: each game has its own. ``smallville play --load`` (no name) and the
"Continue" choice at start resume the newest save, which this is. A failed save says why
and offers to quit anyway. Minds still thinking are not waited for: their
jobs are abandoned (app.py, ``leave_process``).
"""
from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Any, Protocol

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UILabel, UIWindow

from game.view import keys
from game.view.host import Host
from game.view.overlay import Overlay

log = logging.getLogger(__name__)

SLOT = "continue"
W, H = 460, 172


class QuitHost(Host, Protocol):
    """What the quit question uses of the window: whether the game goes on."""

    running: bool


class QuitDialog(Overlay):
    name = "quit_dialog"

    def __init__(self, game: QuitHost) -> None:
        self.game = game
        self.window: Any = None  # the question (a UIWindow) while open
        self.label: Any = None
        self.hint: Any = None
        self.buttons: dict[str, UIButton] = {}
        self.saving: Future | None = None  # the save's Future while "Save and quit" writes
        self.slot = SLOT  # the slot it writes: this game's own continue
        self._was_paused: bool | None = None
        self.message = ""  # what the window says (tests read it)

    @property
    def is_open(self) -> bool:
        return self.window is not None and self.window.alive()

    # ---- the window ------------------------------------------------------------------------
    def open(self) -> None:
        if self.is_open:
            return
        ui = self.game.ui
        sw, sh = self.game.size
        rect = pygame.Rect((sw - W) // 2, max(10, (sh - H) // 2 - 60), W, H)
        self.window = UIWindow(rect, ui, window_display_title="Leave Smallville?", object_id="#quit_dialog",
                               resizable=False)
        inner = self.window.get_container().get_rect()
        cw, ch = inner.width, inner.height
        self.label = UILabel(pygame.Rect(10, 10, cw - 20, 30), "", ui, container=self.window)
        bw = (cw - 40) // 3
        y = ch - 50
        self.buttons = {
            "save": UIButton(pygame.Rect(10, y, bw, 36), "Save and quit", ui, container=self.window,
                             tool_tip_text="writes this game's own save; play --load or Continue resumes it"),
            "quit": UIButton(pygame.Rect(20 + bw, y, bw, 36), "Quit without saving", ui, container=self.window),
            "cancel": UIButton(pygame.Rect(30 + 2 * bw, y, bw, 36), "Cancel", ui, container=self.window),
        }
        if self.game.panels.savemenu is None:
            self.buttons["save"].disable()
        session = self.game.session
        if session is not None:
            if session.skipping:
                session.cancel_skip()  # a skip would run on behind the question
            self._was_paused = session.paused
            session.paused = True
        self.game.controls.release_all()
        when = f" at {session.sim.now:%a %H:%M}" if session is not None else ""
        self._say(f"Save the town{when} before you go?")
        self.hint = UILabel(pygame.Rect(10, 40, cw - 20, 26), "Enter: save and quit · Q: quit · Esc: cancel", ui,
                            container=self.window, object_id="#quit_hint")

    def close(self) -> None:
        """Cancel: back to the game as it was."""
        if self.saving is not None:
            return  # a save on its way ends the game; it cannot be taken back
        if self.window is not None:
            self.window.kill()
        self.window = self.label = self.hint = None
        self.buttons = {}
        session = self.game.session
        if session is not None and self._was_paused is not None:
            session.paused = self._was_paused
        self._was_paused = None

    def _say(self, text: str) -> None:
        self.message = text
        if self.label is not None:
            self.label.set_text(text)

    # ---- the choices ------------------------------------------------------------------------
    def save_and_quit(self) -> None:
        if self.saving is not None:
            return
        menu = self.game.panels.savemenu
        session = self.game.session
        if menu is None or session is None:
            self.quit_now()
            return
        slot = self.slot = menu.own(SLOT)  # this game's own: never another game's save
        log.info("saving '%s' before quitting", slot)
        paused = session.paused
        if self._was_paused is not None:
            session.paused = self._was_paused  # saved as it was before the question paused it
        try:
            self.saving = menu.save(slot)
        finally:
            session.paused = paused
        if self.saving is None:  # the capture failed; the menu said why in the log
            self._failed(menu.messages[-1] if menu.messages else "save failed")
            return
        self._say(f"Saving {session.visitor_name}'s game…")
        for key in ("save", "cancel"):
            if key in self.buttons:
                self.buttons[key].disable()

    def _failed(self, why: str) -> None:
        self.saving = None
        self._say(f"{why[:60]}. Quit anyway?")
        if "save" in self.buttons:
            self.buttons["save"].set_text("Try again")
            self.buttons["save"].enable()
        if "cancel" in self.buttons:
            self.buttons["cancel"].enable()

    def quit_now(self) -> None:
        self.game.running = False

    # ---- overlay protocol -------------------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> bool:
        if not self.is_open:
            return False
        if event.type == pygame_gui.UI_BUTTON_PRESSED:
            el = event.ui_element
            if el is self.buttons.get("save"):
                self.save_and_quit()
            elif el is self.buttons.get("quit"):
                self.quit_now()
            elif el is self.buttons.get("cancel"):
                self.close()
            else:
                return False
            return True
        if event.type == pygame_gui.UI_WINDOW_CLOSE and event.ui_element is self.window:
            self.window = None  # pygame_gui killed it
            self.close()
            return True
        if event.type == pygame.KEYDOWN:
            got = keys.hit(event, "quit")
            if got is not None and got.action == "cancel":
                self.close()
            elif got is not None and got.action == "save_and_quit":
                self.save_and_quit()
            elif got is not None and got.action == "quit_now":
                self.quit_now()
            return True  # nothing else hears keys while asked
        if event.type in (pygame.KEYUP, pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEWHEEL):
            return True  # the town behind waits for the answer
        return False

    def update(self, dt: float) -> None:
        if self.window is not None and not self.window.alive():
            self.window = None
            self.close()
        fut = self.saving
        if fut is None or not fut.done():
            return
        err = fut.exception()
        if err is None:
            log.info("saved '%s' on quitting", self.slot)
            self.quit_now()
            return
        log.warning("saving on quit failed: %s", err)
        self._failed(str(err))


def install(game: QuitHost) -> QuitDialog:
    dialog = QuitDialog(game)
    game.add_overlay(dialog)
    game.panels.quit_dialog = dialog
    return dialog


__all__ = ["SLOT", "QuitDialog", "install"]
