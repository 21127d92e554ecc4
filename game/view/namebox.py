"""Asking the visitor's name at the start: a pygame_gui text entry with a default.

Enter or "Start" accepts (an empty box takes the default); Escape takes the
default too. While the box is open the town is paused and walking is off.
``on_done(name)`` gets the name; a name a resident already has is refused
with a message in the box (``validate(name)`` returns the problem or None).

"Continue": when a save exists (``newest``: a Future of the newest save's
SaveInfo, looked for off the frame), the box offers to resume it instead.
``on_continue(info)`` starts loading it (a Future); the box closes once it is
loaded, or says why not and still offers a new start.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future

import pygame
import pygame_gui

from game.saves.store import SaveInfo
from game.view import keys
from game.view.host import Host
from game.view.markup import typed
from game.view.overlay import Overlay

log = logging.getLogger(__name__)

DEFAULT_NAME = "Alex"
MAX_LEN = 24


class NameBox(Overlay):
    name = "namebox"

    def __init__(self, game: Host, on_done: Callable[[str], None], default: str = DEFAULT_NAME,
                 validate: Callable[[str], str | None] | None = None, newest: Future | None = None,
                 on_continue: Callable[[SaveInfo], Future | None] | None = None) -> None:
        self.game = game
        self.on_done = on_done
        self.default = default
        self.validate = validate
        self.newest = newest  # Future[SaveInfo | None], or None
        self.on_continue = on_continue
        self.save_info: SaveInfo | None = None  # the save "Continue" resumes, once found
        self.loading: Future | None = None  # the load's Future after "Continue"
        self.continue_button: pygame_gui.elements.UIButton | None = None
        self.done = False
        w, h = game.size
        rect = pygame.Rect(0, 0, 460, 200)
        rect.center = (w // 2, h // 2)
        ui = game.ui
        self.panel = pygame_gui.elements.UIPanel(rect, manager=ui)
        pygame_gui.elements.UILabel(pygame.Rect(15, 10, 430, 28), "Welcome to the Ville! What is your name?",
                                    manager=ui, container=self.panel)
        self.entry = pygame_gui.elements.UITextEntryLine(pygame.Rect(15, 45, 300, 34), manager=ui,
                                                         container=self.panel)
        self.entry.set_text_length_limit(MAX_LEN)
        self.entry.set_text(default)
        self.button = pygame_gui.elements.UIButton(pygame.Rect(325, 45, 115, 34), "Start", manager=ui,
                                                   container=self.panel, tool_tip_text="a new visit, from the start")
        self.message = pygame_gui.elements.UILabel(pygame.Rect(15, 90, 430, 28), "Enter to start", manager=ui,
                                                   container=self.panel)
        self.entry.focus()
        self._was_enabled = game.controls.enabled
        game.controls.enabled = False
        game.controls.release_all()

    def submit(self, text: str | None = None) -> bool:
        if self.loading is not None:
            return False  # continuing: wait for the load
        name = typed(self.entry.get_text() if text is None else text, MAX_LEN) or self.default
        problem = self.validate(name) if self.validate else None
        if problem:
            self.message.set_text(problem)
            return False
        self.close()
        self.on_done(name)
        return True

    def resume(self) -> bool:
        """Continue the newest save (the box closes when it is loaded)."""
        if self.save_info is None or self.on_continue is None or self.loading is not None:
            return False
        self.loading = self.on_continue(self.save_info)
        if self.loading is None:
            self.message.set_text("That save cannot be loaded; start a new visit.")
            return False
        self.message.set_text("Loading your town…")
        if self.continue_button is not None:  # offered with the save
            self.continue_button.disable()
        self.button.disable()
        return True

    def close(self) -> None:
        if self.done:
            return
        self.done = True
        self.panel.kill()
        self.game.controls.enabled = self._was_enabled
        self.game.remove_overlay(self)

    def _offer_continue(self, info: SaveInfo) -> None:
        self.save_info = info
        when = info.sim_time.strftime("%a %d %b %H:%M") if info.sim_time else "?"
        saved = info.saved_at.astimezone().strftime("%d %b %H:%M") if info.saved_at else "?"
        who = info.meta.get("visitor_name") if isinstance(info.meta.get("visitor_name"), str) else None
        whose = f" {who}'s game" if who else ""
        self.continue_button = pygame_gui.elements.UIButton(
            pygame.Rect(15, 130, 425, 40), f"Continue{whose}: {when} (saved {saved})", manager=self.game.ui,
            container=self.panel, tool_tip_text=f"resume the save '{info.slot}'")
        self.message.set_text("Enter starts a new visit, or continue where you left off.")

    def update(self, dt: float) -> None:
        if self.done:
            return
        if self.newest is not None and self.newest.done():
            fut, self.newest = self.newest, None
            try:
                info = fut.result()
            except Exception:
                log.exception("looking for saves failed")
                info = None
            if info is not None and self.on_continue is not None:
                self._offer_continue(info)
        if self.loading is not None and self.loading.done():
            fut, self.loading = self.loading, None
            if fut.exception() is None:
                self.close()
                return
            self.message.set_text(f"Cannot continue: {str(fut.exception())[:60]}")
            self.button.enable()

    def handle_event(self, event: pygame.event.Event) -> bool:
        if self.done:
            return False
        if event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element is self.entry:
            self.submit()
            return True
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.button:
            self.submit()
            return True
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.continue_button:
            self.resume()
            return True
        if event.type == pygame.KEYDOWN:
            got = keys.hit(event, "name")
            if got is not None and got.action == "take_default":
                self.submit(self.default)
            elif got is not None and got.action == "accept":
                self.submit()
            return True  # nothing else hears keys while the box is open
        return False


def install(game: Host, on_done: Callable[[str], None], default: str = DEFAULT_NAME,
            validate: Callable[[str], str | None] | None = None, newest: Future | None = None,
            on_continue: Callable[[SaveInfo], Future | None] | None = None) -> NameBox:
    box = NameBox(game, on_done, default, validate, newest, on_continue)
    game.add_overlay(box)
    game.panels.namebox = box
    return box
