"""Interviews in the game (paper 3.1.2): talk to any resident from anywhere on the map.

The inspector's "Interview" button opens this window (the chat window's code,
game/view/chat.py, with a row on top): "You are" (who the resident takes you
for, default "a news reporter") and a "Remember" toggle. Each line goes
through the town's commands (game/runs/commands.py ``interview``: the answer
first in line on the pool's urgent lane, taking the player for the persona),
and with Remember on the town has the resident keep the exchange as its next
job. With Remember off (the default) the interview leaves the world unchanged: no memory, no event, the resident keeps
doing what they were doing (nobody is held). With it on, each exchange is
stored as a chat memory, like talking to them in person.

Loading a save keeps an interview open (it does not change the town unless
Remember is on): a question still waiting for its answer is asked again of
the loaded resident (``after_load``), so the window never stays on
"thinking..." for an answer the load dropped.
"""
from __future__ import annotations

import logging
from typing import Any

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UILabel, UITextEntryLine

from game.view.chat import Chat, ChatHost
from game.view.markup import esc, typed

log = logging.getLogger(__name__)

DEFAULT_PERSONA = "a news reporter"


class Interview(Chat):
    name = "interview"
    TITLE = "Interview: {name}"
    OBJECT_ID = "#interview"
    HOTKEY = False
    TOP_H = 40

    def __init__(self, game: ChatHost) -> None:
        super().__init__(game)
        self.persona = DEFAULT_PERSONA
        self.remember = False
        self.persona_entry: Any = None
        self.remember_button: Any = None

    # ---- the window ---------------------------------------------------------------------
    def open(self, name: str, *, check_range: bool = False) -> bool:  # from anywhere
        return super().open(name, check_range=False)

    def hint(self, name: str) -> str:
        return (f"Ask {esc(name)} anything, from anywhere. They take you for who you say you are above. "
                "With Remember off, the interview leaves them as they were.")

    def _top_widgets(self, cw: int) -> None:
        UILabel(pygame.Rect(4, 4, 64, 32), "You are", self.game.ui, container=self.window)
        self.persona_entry = UITextEntryLine(pygame.Rect(70, 4, cw - 70 - 136, 32), self.game.ui,
                                             container=self.window)
        self.persona_entry.set_text_length_limit(80)
        self.persona_entry.set_text(self.persona)
        self.remember_button = UIButton(pygame.Rect(cw - 132, 4, 128, 32), self._remember_label(), self.game.ui,
                                        container=self.window,
                                        tool_tip_text="on: the resident remembers this interview (a chat memory)")

    def _remember_label(self) -> str:
        return "Remember: on" if self.remember else "Remember: off"

    def set_remember(self, on: bool) -> None:
        self.remember = bool(on)
        if self.remember_button is not None:
            self.remember_button.set_text(self._remember_label())

    def set_persona(self, text: str) -> None:
        self.persona = typed(text, 80) or DEFAULT_PERSONA
        if self.persona_entry is not None and self.persona_entry.get_text() != self.persona:
            self.persona_entry.set_text(self.persona)

    def close(self) -> None:
        super().close()
        self.persona_entry = self.remember_button = None

    # ---- no holding, no range, nothing in the world's log -----------------------------------
    def _hold(self) -> bool:
        self.note = ""
        return True

    def _release(self) -> None:
        pass

    def _reachable(self) -> bool:
        return self.partner in self._minds()

    def _keep_held(self) -> None:
        pass

    def _typing(self) -> bool:
        return super()._typing() or bool(self.persona_entry is not None and self.persona_entry.is_focused)

    def _submit(self, name: str, text: str, history: list[tuple[str, str]]) -> None:
        """The question to ``name`` as the persona (game/runs/commands.py ``interview``)."""
        if self.persona_entry is not None:
            self.set_persona(self.persona_entry.get_text())
        persona, remember = self.persona, self.remember
        self._ask(lambda c: c.interview(name, text, history, self._on_answer, persona=persona, remember=remember))

    def after_load(self) -> None:
        """A save was loaded: ask the questions still waiting again, of the loaded mind."""
        waiting = self.pending
        self.pending = 0  # the old jobs' answers were dropped with the old town
        if not self.is_open:
            return
        name = self.partner
        if name is None or name not in self._minds() or self._commands() is None:
            self.close()
            self.say_toast(f"The interview ended: {name} is not in the loaded town.")
            return
        if not waiting:
            return
        me = self.visitor_name()
        # The unanswered questions are the visitor's last lines (answers come back in order).
        unanswered = []
        for who, text in reversed(self.lines):
            if who != me:
                break
            unanswered.append(text)
        unanswered.reverse()
        for k, text in enumerate(unanswered):
            history = list(self.lines[: len(self.lines) - len(unanswered) + k])
            self.pending += 1
            self._submit(name, text, history)
        self.refresh()

    # ---- events ------------------------------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> bool:
        if event.type == pygame_gui.UI_BUTTON_PRESSED and self.remember_button is not None \
                and event.ui_element is self.remember_button:
            self.set_remember(not self.remember)
            return True
        if event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and self.persona_entry is not None \
                and event.ui_element is self.persona_entry:
            self.set_persona(self.persona_entry.get_text())
            self._focus()  # on to the question
            return True
        return super().handle_event(event)


def install(game: ChatHost) -> Interview:
    iv = Interview(game)
    game.add_overlay(iv)
    game.panels.interview = iv
    return iv
