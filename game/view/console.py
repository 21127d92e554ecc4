"""The world-edit console: backquote (`) opens a one-line command box.

Commands (``help`` lists them)::

    <Isabella Rodriguez's apartment: main room: stove> is burning
    Isabella Rodriguez's apartment:main room:stove is burning     (brackets optional)
    <the Ville: Hobbs Cafe: cafe: coffee machine> is idle          (idle resets)
    play as Isabella Rodriguez      (or a first name) -- walk as that resident
    release                         hand the resident back to its mind (also F2)
    help

Addresses may leave out the world and put any spaces around the colons. An
unknown address gets a clear message with up to 3 close matches. A state goes
through the town's commands (game/runs/commands.py ``set_object_state``: an
``edit`` event, perceived like any state; residents who see an unusual state
react to it at the object), and so does playing as a resident.

While the box has focus walking is off; Escape closes it. ``parse(text, town)``
is pure (tests use it); ``Console.execute(text)`` runs a command and returns the
message it shows. Messages show in the console's own output box, just above
its line (wrapped to the line's width, so ``help`` fits), while the console is
open and for ``OUTPUT_S`` seconds after; the box never covers the HUD or the
toasts (``reserved()`` keeps speech bubbles off it too).
"""
from __future__ import annotations

import difflib
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

import pygame
import pygame_gui
from pygame_gui.elements import UITextEntryLine

from game.runs.commands import Refused
from game.view import fonts, keys
from game.view.bubbles import wrap
from game.view.host import Host
from game.view.hud import text_focused
from game.view.markup import typed
from game.view.overlay import Overlay
from game.view.statusline import HEIGHT as STATUS_H
from game.world.town import Town

log = logging.getLogger(__name__)

HEIGHT = 34
MARGIN = 8
OUTPUT_S = 8.0  # seconds the output stays up after the console closes
OUTPUT_PX = 18  # the status line's size: readable
OUTPUT_LINES = 6
HELP = ("Commands: '<sector: arena: object> is <state>' (e.g. <Isabella Rodriguez's apartment: main room: stove> "
        "is burning; 'is idle' resets) | 'play as <resident>' | 'release' (or F2) | 'help'")


@dataclass
class Command:
    kind: str  # "set" | "play" | "release" | "help" | "error"
    address: str | None = None  # resolved object address ("set")
    state: str | None = None
    name: str | None = None  # "play"
    message: str = ""  # "error": what is wrong
    matches: list[str] = field(default_factory=list)  # close matches for an unknown address


def _pretty(address: str) -> str:
    parts = address.split(":")
    return ": ".join(parts[1:]) if len(parts) > 1 else address


def normalize(text: str, world: str) -> str:
    """'<Isabella's apartment : main room:stove>' -> 'the Ville:Isabella's apartment:main room:stove'."""
    t = text.strip().strip("<>").strip()
    parts = [" ".join(p.split()) for p in t.split(":")]
    parts = [p for p in parts if p]
    if parts and parts[0].casefold() != world.casefold():
        parts.insert(0, world)
    elif parts:
        parts[0] = world
    return ":".join(parts)


def close_matches(address: str, town: Town, n: int = 3) -> list[str]:
    """Up to n object addresses near a wrong one: same-named objects in the same
    sector first, then difflib over every address."""
    objects = list(town.object_states)
    parts = address.split(":")
    out: list[str] = []
    if len(parts) >= 2:
        obj = parts[-1].casefold()
        sector = parts[1].casefold() if len(parts) > 2 else None
        for a in objects:
            ap = a.split(":")
            if ap[-1].casefold() == obj and (sector is None or ap[1].casefold() == sector):
                out.append(a)
    low = {a.casefold(): a for a in town.addresses()}
    for m in difflib.get_close_matches(address.casefold(), list(low), n=n * 2, cutoff=0.5):
        a = low[m]
        if a not in out:
            out.append(a)
    objs = [a for a in out if a in objects]
    return (objs + [a for a in out if a not in objs])[:n]


_SET = re.compile(r"^\s*<(?P<addr>[^>]+)>\s*(?:is|=)\s+(?P<state>.+?)\s*\.?\s*$", re.I)


def parse(text: str, town: Town) -> Command:
    t = " ".join(str(text or "").replace("`", "").split())
    if not t:
        return Command("error", message="Type a command (help lists them).")
    low = t.casefold()
    if low in ("help", "?", "h"):
        return Command("help", message=HELP)
    if low in ("release", "stop playing", "release control", "unplay"):
        return Command("release")
    m = re.match(r"^(?:play\s+as|play|control|become)\s+(?P<name>.+)$", t, re.I)
    if m:
        return Command("play", name=m.group("name").strip())
    m = _SET.match(t)
    if m:
        addr, state = m.group("addr"), m.group("state")
    else:
        # no brackets: the first " is " after the last colon
        last = t.rfind(":")
        k = low.find(" is ", max(0, last))
        if last < 0 or k < 0:
            return Command("error", message=f"I don't understand {t!r}. " + HELP)
        addr, state = t[:k], t[k + 4:]
    state = " ".join(state.strip().rstrip(".").split())
    if not state:
        return Command("error", message="Say what state it is in, e.g. '... is burning'.")
    full = normalize(addr, town.world)
    got = town.resolve(full)
    if got in town.object_states:
        return Command("set", address=got, state=state)
    if got:
        kids = [a for a in town.object_states if a.startswith(got + ":")]
        names = ", ".join(a.split(":")[-1] for a in kids[:6]) or "none"
        return Command("error", message=f"{_pretty(got)} is a place, not an object (objects there: {names}).",
                       matches=kids[:3])
    matches = close_matches(full, town)
    msg = f"No object at <{_pretty(full)}>."
    if matches:
        msg += " Did you mean: " + " | ".join(f"<{_pretty(a)}>" for a in matches) + "?"
    return Command("error", message=msg, matches=matches)


class ConsoleHost(Host, Protocol):
    """What the console uses of the window: its town (to parse addresses before a town
    runs), and the player's figure following whom the player plays."""

    @property
    def town(self) -> Town: ...

    def sync_control(self) -> None: ...


class Console(Overlay):
    name = "console"

    def __init__(self, game: ConsoleHost) -> None:
        self.game = game
        self.entry: Any = None  # the command line (a UITextEntryLine) while open
        self.last = ""  # the last message shown
        self.history: list[str] = []
        self._shown_left = 0.0  # seconds the output stays up once the console is closed
        self._output: tuple[str, int, pygame.Surface] | None = None  # (text, width, surface) cache
        self.output_rect: pygame.Rect | None = None  # where the output was drawn (tests, bubbles)

    @property
    def is_open(self) -> bool:
        return self.entry is not None and self.entry.alive()

    # ---- commands ------------------------------------------------------------------
    def execute(self, text: str) -> str:
        text = typed(text, 300)  # as the entry line allows, whatever way the text came
        session = self.game.session
        town = session.town if session is not None else self.game.town
        cmd = parse(text, town)
        if cmd.kind == "help" or cmd.kind == "error":
            msg = cmd.message
        elif session is None or session.commands is None:
            msg = "No town is running."
        elif cmd.kind == "set":
            msg = session.commands.set_object_state(cmd.address or "", cmd.state or "").message  # parse gives both
        elif cmd.kind == "play":
            msg = play_as(self.game, cmd.name or "")  # parse gives "play" a name
        else:
            msg = release(self.game)
        self.last = msg
        self.history.append(text)
        self._shown_left = OUTPUT_S
        return msg

    # ---- the output box ----------------------------------------------------------------
    def _line_rect(self) -> pygame.Rect:
        w, h = self.game.size
        return pygame.Rect(MARGIN, h - STATUS_H - HEIGHT - 4, min(900, w - 2 * MARGIN), HEIGHT)

    def _output_surface(self, width: int) -> pygame.Surface:
        if self._output is None or self._output[:2] != (self.last, width):
            rows = wrap(self.last, width - 20, OUTPUT_PX, OUTPUT_LINES)
            lh = fonts.font(OUTPUT_PX).get_linesize()
            surf = pygame.Surface((width, lh * len(rows) + 12), pygame.SRCALPHA)
            pygame.draw.rect(surf, (18, 20, 26, 215), surf.get_rect(), border_radius=6)
            for i, r in enumerate(rows):
                surf.blit(fonts.text(r, OUTPUT_PX, (236, 236, 226)), (10, 6 + i * lh))
            self._output = (self.last, width, surf)
        return self._output[2]

    def _output_visible(self) -> bool:
        return bool(self.last) and (self.is_open or self._shown_left > 0)

    def reserved(self) -> list[pygame.Rect]:
        return [self.output_rect] if self.output_rect is not None and self._output_visible() else []

    def draw(self, surface: pygame.Surface) -> None:
        if not self._output_visible():
            self.output_rect = None
            return
        line = self._line_rect()
        surf = self._output_surface(line.width)
        self.output_rect = surf.get_rect(bottomleft=(line.x, line.y - 4))
        if not self.is_open and self._shown_left < 1.0:
            surf = surf.copy()
            surf.set_alpha(int(255 * self._shown_left))
        surface.blit(surf, self.output_rect.topleft)

    # ---- the box -------------------------------------------------------------------
    def open(self) -> None:
        if self.is_open:
            return
        rect = self._line_rect()
        self.entry = UITextEntryLine(rect, self.game.ui, object_id="#console",
                                     placeholder_text="<sector: arena: object> is <state>  |  play as <name>  |  "
                                                      "release  |  help   (Enter runs, Escape closes)")
        self.entry.set_text_length_limit(300)
        self.game.ui.set_focus_set(self.entry)
        self.game.controls.enabled = False
        self.game.controls.release_all()

    def close(self) -> None:
        if self.entry is not None:
            self.entry.kill()
        self.entry = None
        chat = self.game.panels.chat
        if chat is None or not chat.is_open:
            self.game.controls.enabled = True

    def handle_event(self, event: pygame.event.Event) -> bool:
        if self.is_open:
            if event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element is self.entry:
                text = self.entry.get_text()
                self.close()
                if text.strip():
                    self.execute(text)
                return True
            if keys.pressed(event, "back"):
                self.close()
                return True
            return False
        got = keys.hit(event)
        if got is not None:
            if text_focused(self.game):
                return False
            if got.action == "console":
                self.open()
                return True
            if got.action == "release" and self.game.session is not None and self.game.session.controlled:
                self.game.toast(release(self.game))
                return True
        return False

    def update(self, dt: float) -> None:
        if not self.is_open and self._shown_left > 0:
            self._shown_left = max(0.0, self._shown_left - dt)
        if self.entry is not None and not self.entry.alive():
            self.close()
        elif self.is_open:
            t = self.entry.get_text()
            if "`" in t:  # the key that opened the box typed itself
                self.entry.set_text(t.replace("`", ""))


# ---- playing as a resident (the console, the inspector's button and F2 use these) -------------
def play_as(game: ConsoleHost, name: str) -> str:
    """Play as ``name`` (the town's ``play_as``): the chat closes, the figure becomes them."""
    session = game.session
    if session is None or session.commands is None:
        return "No town is running."
    chat = game.panels.chat
    if chat is not None and chat.is_open:
        chat.close()
    got = session.commands.play_as(name)
    if not isinstance(got, Refused):
        game.sync_control()
    return got.message


def release(game: ConsoleHost) -> str:
    """Hand the resident the player plays back to its mind (the town's ``stop_playing``)."""
    session = game.session
    if session is None or session.commands is None or not session.controlled:
        return "You are not playing a resident."
    chat = game.panels.chat
    if chat is not None and chat.is_open:
        chat.close()
    got = session.commands.stop_playing()
    game.sync_control()
    return got.message


def install(game: ConsoleHost) -> Console:
    c = Console(game)
    game.add_overlay(c)
    game.panels.console = c
    return c


__all__ = ["HELP", "Command", "Console", "close_matches", "install", "normalize", "parse", "play_as", "release"]
