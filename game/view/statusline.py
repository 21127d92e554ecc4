"""The status line along the bottom of the window.

Left: the address of the tile under the mouse (Town.address_at), or the
world's name outdoors; when the mouse is outside the window, where the
visitor stands. Right: free text a later issue fills (sim time, speed) and,
optionally, the frame rate.
"""
from __future__ import annotations

import pygame

from game.view import fonts

HEIGHT = 26
FONT_SIZE = 18
BG = (18, 20, 26, 200)
FG = (236, 236, 226)
DIM = (170, 176, 186)


def pretty(address: str) -> str:
    """'the Ville:Hobbs Cafe:cafe' -> 'the Ville  >  Hobbs Cafe  >  cafe'."""
    return "  >  ".join(address.split(":"))


class StatusLine:
    def __init__(self) -> None:
        self.address: str = ""  # raw address shown (tests read this)
        self.tile: tuple[int, int] | None = None
        self.right: str = ""  # e.g. "Mon 13 Feb 07:00  x1"
        self.show_fps = False
        self.fps = 0.0
        self._bg: pygame.Surface | None = None

    @property
    def text(self) -> str:
        """The left-hand text exactly as shown."""
        if not self.address:
            return ""
        where = pretty(self.address)
        return f"{where}    ({self.tile[0]}, {self.tile[1]})" if self.tile else where

    def set_place(self, address: str, tile: tuple[int, int] | None) -> None:
        self.address, self.tile = address, tile

    def rect(self, surface: pygame.Surface) -> pygame.Rect:
        w, h = surface.get_size()
        return pygame.Rect(0, h - HEIGHT, w, HEIGHT)

    def draw(self, surface: pygame.Surface) -> None:
        r = self.rect(surface)
        if self._bg is None or self._bg.get_size() != r.size:
            self._bg = pygame.Surface(r.size, pygame.SRCALPHA)
            self._bg.fill(BG)
        blits = [(self._bg, r.topleft)]
        y = r.y + (HEIGHT - fonts.font(FONT_SIZE).get_height()) // 2 + 1
        if self.text:
            blits.append((fonts.text(self.text, FONT_SIZE, FG), (r.x + 10, y)))
        right = self.right
        if self.show_fps:
            right = f"{right}    {self.fps:4.0f} fps" if right else f"{self.fps:.0f} fps"
        if right:
            surf = fonts.text(right, FONT_SIZE, DIM)
            blits.append((surf, (r.right - 10 - surf.get_width(), y)))
        surface.blits(blits, doreturn=False)
