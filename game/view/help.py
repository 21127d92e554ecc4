"""The controls help: F1 or "?" toggles it; Escape (or F1/?) closes it."""
from __future__ import annotations

import pygame

from game.runs.session import SPEEDS
from game.view import fonts
from game.view.hud import text_focused

CONTROLS = [
    ("W A S D / arrows", "walk"),
    ("mouse wheel, + / -", "zoom"),
    ("Space", "pause / resume"),
] + [(str(k), f"speed: {m:g} sim min per real second") for k, m in SPEEDS.items()] + [
    ("P", "pace: the clock waits for the minds (default), or keeps the speed on routines"),
    ("N  or  [Next morning]", "skip to the next 07:00 (Escape cancels)"),
    ("click a resident", "inspect: action, plan, memories"),
    ("R  or  [Residents]", "everyone: what they do, where; click follows, double-click inspects"),
    ("M  or  [Map]", "the town map: click looks there, a dot follows, right-click walks there"),
    ("Shift+M", "minimap on / off"),
    ("[Follow] / [Walk there] in a panel", "camera on them / walk up to them (a name in a panel follows too)"),
    ("T near a resident", "talk"),
    ("`  (backquote)", "console: <sector: arena: object> is burning / play as <name> / help"),
    ("click an object", "its state; type a new one and Set"),
    ("[Play as] in a resident's panel", "walk as that resident"),
    ("F2", "hand the resident back to their mind"),
    ("F3", "frame rate"),
    ("F1  or  ?", "this help"),
    ("Escape", "close a panel / stop following or walking / cancel a skip / quit (asks to save)"),
]


class Help:
    def __init__(self, game, controls: list[tuple[str, str]] | None = None) -> None:
        self.game = game
        self.controls = CONTROLS if controls is None else controls  # a replay lists its own
        self.visible = False
        self._surf = None

    def handle_event(self, event) -> bool:
        if event.type != pygame.KEYDOWN:
            return False
        is_help = event.key == pygame.K_F1 or (event.unicode == "?" and not text_focused(self.game))
        if is_help:
            self.visible = not self.visible
            return True
        if self.visible and event.key == pygame.K_ESCAPE:
            self.visible = False
            return True
        return False

    def _render(self):
        rows = [(fonts.text("Controls", 20, (255, 255, 240), True), None)]
        for k, what in self.controls:
            rows.append((fonts.text(k, 16, (255, 220, 140)), fonts.text(what, 16, (232, 232, 226))))
        kw = max(r[0].get_width() for r in rows[1:])
        w = max(kw + 24 + max(r[1].get_width() for r in rows[1:]), rows[0][0].get_width()) + 40
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

    def draw(self, surface) -> None:
        if not self.visible:
            return
        if self._surf is None:
            self._surf = self._render()
        r = self._surf.get_rect(center=surface.get_rect().center)
        surface.blit(self._surf, r.topleft)


def install(game, controls: list[tuple[str, str]] | None = None) -> Help:
    h = Help(game, controls)
    game.add_overlay(h)
    game.help = h
    return h
