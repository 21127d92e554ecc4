"""The controls help: F1 or "?" toggles it; Escape (or F1/?) closes it. Its lines are the
key table's (game/view/keys.py: a game's ``GAME`` rows, a replay's ``REPLAY``)."""
from __future__ import annotations

import pygame

from game.view import fonts, keys
from game.view.host import Host
from game.view.hud import text_focused
from game.view.overlay import Overlay


class Help(Overlay):
    name = "help"

    def __init__(self, game: Host, controls: list[tuple[str, str]] | None = None) -> None:
        self.game = game
        self.controls = keys.help_lines(keys.GAME) if controls is None else controls  # a replay lists its own
        self.visible = False
        self._surf: pygame.Surface | None = None

    def handle_event(self, event: pygame.event.Event) -> bool:
        got = keys.hit(event, typing=text_focused(self.game))  # "?" is a letter while a text box has the keys
        if got is None:
            return False
        if got.action == "help":
            self.visible = not self.visible
            return True
        if self.visible and got.action == "back":
            self.visible = False
            return True
        return False

    def _render(self) -> pygame.Surface:
        title = fonts.text("Controls", 20, (255, 255, 240), True)
        lines = [(fonts.text(k, 16, (255, 220, 140)), fonts.text(what, 16, (232, 232, 226)))
                 for k, what in self.controls]
        rows: list[tuple[pygame.Surface, pygame.Surface | None]] = [(title, None), *lines]
        kw = max(a.get_width() for a, _ in lines)
        w = max(kw + 24 + max(b.get_width() for _, b in lines), title.get_width()) + 40
        h = sum(r[0].get_height() + 6 for r in rows) + 30
        surf = pygame.Surface((w, h), pygame.SRCALPHA)
        pygame.draw.rect(surf, (18, 20, 26, 228), surf.get_rect(), border_radius=10)
        y = 15
        for a, b in rows:
            surf.blit(a, (20, y))
            if b is not None:
                surf.blit(b, (20 + kw + 24, y))
            y += a.get_height() + 6
        return surf

    def draw(self, surface: pygame.Surface) -> None:
        if not self.visible:
            return
        if self._surf is None:
            self._surf = self._render()
        r = self._surf.get_rect(center=surface.get_rect().center)
        surface.blit(self._surf, r.topleft)


def install(game: Host, controls: list[tuple[str, str]] | None = None) -> Help:
    h = Help(game, controls)
    game.add_overlay(h)
    game.panels.help = h
    return h
