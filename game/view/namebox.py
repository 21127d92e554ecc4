"""Asking the visitor's name at the start: a pygame_gui text entry with a default.

Enter or "Start" accepts (an empty box takes the default); Escape takes the
default too. While the box is open the town is paused and walking is off.
``on_done(name)`` gets the name; a name a resident already has is refused
with a message in the box (``validate(name)`` returns the problem or None).
"""
from __future__ import annotations

from typing import Callable

import pygame

DEFAULT_NAME = "Alex"
MAX_LEN = 24


class NameBox:
    def __init__(self, game, on_done: Callable[[str], None], default: str = DEFAULT_NAME,
                 validate: Callable[[str], str | None] | None = None) -> None:
        import pygame_gui

        self.game = game
        self.on_done = on_done
        self.default = default
        self.validate = validate
        self.done = False
        w, h = game.size
        rect = pygame.Rect(0, 0, 420, 150)
        rect.center = (w // 2, h // 2)
        ui = game.ui
        self.panel = pygame_gui.elements.UIPanel(rect, manager=ui)
        pygame_gui.elements.UILabel(pygame.Rect(15, 10, 390, 28), "Welcome to the Ville! What is your name?",
                                    manager=ui, container=self.panel)
        self.entry = pygame_gui.elements.UITextEntryLine(pygame.Rect(15, 45, 270, 34), manager=ui,
                                                         container=self.panel)
        self.entry.set_text_length_limit(MAX_LEN)
        self.entry.set_text(default)
        self.button = pygame_gui.elements.UIButton(pygame.Rect(295, 45, 105, 34), "Start", manager=ui,
                                                   container=self.panel)
        self.message = pygame_gui.elements.UILabel(pygame.Rect(15, 90, 390, 28), "Enter to start", manager=ui,
                                                   container=self.panel)
        self.entry.focus()
        self._was_enabled = game.controls.enabled
        game.controls.enabled = False
        game.controls.release_all()

    def submit(self, text: str | None = None) -> bool:
        name = " ".join(str(self.entry.get_text() if text is None else text).split()) or self.default
        problem = self.validate(name) if self.validate else None
        if problem:
            self.message.set_text(problem)
            return False
        self.close()
        self.on_done(name)
        return True

    def close(self) -> None:
        if self.done:
            return
        self.done = True
        self.panel.kill()
        self.game.controls.enabled = self._was_enabled
        if self in self.game.overlays:
            self.game.overlays.remove(self)

    def handle_event(self, event) -> bool:
        import pygame_gui

        if self.done:
            return False
        if event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element is self.entry:
            self.submit()
            return True
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.button:
            self.submit()
            return True
        if event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                self.submit(self.default)
            elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                self.submit()
            return True  # nothing else hears keys while the box is open
        return False


def install(game, on_done: Callable[[str], None], default: str = DEFAULT_NAME,
            validate: Callable[[str], str | None] | None = None) -> NameBox:
    box = NameBox(game, on_done, default, validate)
    game.add_overlay(box)
    game.namebox = box
    return box
