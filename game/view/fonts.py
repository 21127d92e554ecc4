"""Every font the game draws with, created once and cached.

pygame's default font (freesansbold) ships inside pygame-ce, so the game needs no
font files. If a TTF appears at assets/fonts/ui.ttf it is used instead.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

import pygame

from game.support import folders

FONT_FILE = folders.assets_dir() / "fonts" / "ui.ttf"


def _ensure_init() -> None:
    if not pygame.font.get_init():
        pygame.font.init()


@lru_cache(maxsize=32)
def font(size: int, bold: bool = False) -> pygame.font.Font:
    """A font of `size` pixels (cached: creating fonts is slow)."""
    _ensure_init()
    path = str(FONT_FILE) if FONT_FILE.exists() else None
    f = pygame.font.Font(path, size)
    f.set_bold(bold)
    return f


@lru_cache(maxsize=512)
def text(message: str, size: int, color: tuple[int, int, int] = (240, 240, 240), bold: bool = False) -> pygame.Surface:
    """A rendered, cached line of text (anti-aliased, transparent background).

    Rendering text is one of the slower things a frame can do; labels and the
    status line repeat the same strings frame after frame, so cache them.
    """
    # SDL_ttf refuses a NUL ("A null character was found in the text"): whatever text
    # reaches the screen (a typed name in a message, a model's line) draws without it.
    return font(size, bold).render(str(message).replace("\x00", ""), True, color)


def reset() -> None:
    """Forget cached fonts and text (call after pygame.quit(): old fonts are dead)."""
    font.cache_clear()
    text.cache_clear()


def panel_font(px: int, bold: bool, cache: dict) -> pygame.font.Font:
    """pygame_gui's own Noto Sans at ``px``, so a panel's hand-drawn header matches its
    text boxes (any font will do where it is missing); cached in ``cache``, one per
    panel, since fonts die with pygame.quit."""
    f = cache.get((px, bold))
    if f is None:
        try:
            name = "NotoSans-Bold.ttf" if bold else "NotoSans-Regular.ttf"
            f = pygame.font.Font(str(resources.files("pygame_gui.data") / name), px)
        except Exception:  # noqa: BLE001 - any font will do
            f = pygame.font.Font(None, px + 4)
            f.set_bold(bold)
        cache[(px, bold)] = f
    return f
