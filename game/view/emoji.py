"""Pixel-art emoji icons, the thinking/zzz markers and the speech bubble.

The icons are drawn by assets/draw_icons.py into assets/icons/emoji.png, keyed
by emoji string in assets/icons/emoji.json. ``VOCABULARY`` and
``nearest_known`` need no pygame and no display (the agents/ package may read
the json itself rather than import game/).

Lookup of an emoji string (``nearest_known``), first rule that matches:
exact key; the same after dropping variation selectors (U+FE0F) and skin-tone
modifiers; the json's aliases (close stand-ins, e.g. 🍴 -> 🍽️); a ZWJ sequence
without its gender sign or with a gendered person made neutral (🏃‍♀️ -> 🏃,
👩‍🏫 -> 🧑‍🏫); then the same rules for each emoji of a string of several
(☕📖 -> ☕); else ❓.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from game.runs.readings import VOCABULARY, nearest, split_emoji  # noqa: F401 - the minds' own lookup (re-exported)
from game.support import folders

ICON_DIR = folders.assets_dir() / "icons"
META_FILE = ICON_DIR / "emoji.json"
UNKNOWN = "❓"


def _load_meta() -> dict:
    return json.loads(META_FILE.read_text(encoding="utf-8"))


_META = _load_meta()

NAMES: dict[str, str] = dict(_META.get("names", {}))
ALIASES: dict[str, str] = dict(_META.get("aliases", {}))
SIZE: int = int(_META["size"])


@lru_cache(maxsize=1024)
def nearest_known(emoji: str) -> str:
    """The vocabulary emoji to draw for `emoji` (see the module docstring); ❓ if none fits."""
    return nearest(emoji) or UNKNOWN


# ---------------------------------------------------------------- pygame side


class EmojiIcons:
    """The icon atlas, loaded once; ``get(emoji)`` returns a 24x24 Surface.

    Surfaces are converted for fast blitting once a display exists (if the
    atlas was loaded before, call ``convert()`` after ``set_mode``).
    """

    def __init__(self, icon_dir: str | Path = ICON_DIR):
        import pygame  # lazy: the lookups above (VOCABULARY, nearest_known) work without pygame

        self._pg = pygame
        icon_dir = Path(icon_dir)
        self.meta = json.loads((icon_dir / "emoji.json").read_text(encoding="utf-8"))
        self.size = int(self.meta["size"])
        self.columns = int(self.meta["columns"])
        self._atlas = pygame.image.load(str(icon_dir / "emoji.png"))
        self._ui = pygame.image.load(str(icon_dir / self.meta.get("ui_image", "ui.png")))
        self._converted = False
        self.convert()
        self._icons: dict[str, Any] = {}  # pygame Surfaces (pygame is imported lazily here)
        self._scaled: dict[tuple[str, int], Any] = {}

    def convert(self) -> None:
        if not self._converted and self._pg.display.get_init() and self._pg.display.get_surface() is not None:
            self._atlas = self._atlas.convert_alpha()
            self._ui = self._ui.convert_alpha()
            self._converted = True
            self._icons = {}
            self._scaled = {}

    def _cell(self, key: str):
        i = self.meta["icons"][key]
        n = self.size
        return self._atlas.subsurface(((i % self.columns) * n, (i // self.columns) * n, n, n))

    def get(self, emoji: str, size: int | None = None):
        """The icon for `emoji` (nearest known; ❓ if none), optionally scaled to `size` px."""
        self.convert()
        key = nearest_known(emoji)
        surf = self._icons.get(key)
        if surf is None:
            surf = self._icons[key] = self._cell(key)
        if size is None or size == self.size:
            return surf
        scaled = self._scaled.get((key, size))
        if scaled is None:
            scaled = self._scaled[(key, size)] = self._pg.transform.scale(surf, (size, size))
        return scaled

    __getitem__ = get

    def ui(self, name: str):
        """A UI piece by name: "think", "zzz", "bubble" (9-slice frame), "bubble_tail"."""
        self.convert()
        return self._ui.subsurface(tuple(self.meta["ui"][name]))

    def think(self):
        return self.ui("think")

    def zzz(self):
        return self.ui("zzz")

    def bubble(self, text_surface, pad: int = 3):
        """`text_surface` framed by the speech bubble, its tail at the bottom centre.

        The result is (text width + 2*(slice+pad)) wide; the tail hangs below the box.
        """
        pg = self._pg
        frame = self.ui("bubble")
        tail = self.ui("bubble_tail")
        k = int(self.meta["bubble_slice"])
        fw, fh = frame.get_size()
        tw, th = text_surface.get_size()
        w = max(tw + 2 * (k + pad), 2 * k + tail.get_width() + 2)
        h = max(th + 2 * pad + 2, 2 * k + 1)
        out = pg.Surface((w, h + tail.get_height() - 1), pg.SRCALPHA)
        mw, mh = fw - 2 * k, fh - 2 * k  # the frame's stretchable middle
        cw, ch = w - 2 * k, h - 2 * k

        def piece(sx, sy, sw, sh, dx, dy, dw, dh):
            if dw <= 0 or dh <= 0:
                return
            src = frame.subsurface((sx, sy, sw, sh))
            if (dw, dh) != (sw, sh):
                src = pg.transform.scale(src, (dw, dh))
            out.blit(src, (dx, dy))

        xs = [(0, k, 0, k), (k, mw, k, cw), (fw - k, k, w - k, k)]
        ys = [(0, k, 0, k), (k, mh, k, ch), (fh - k, k, h - k, k)]
        for sx, sw, dx, dw in xs:
            for sy, sh, dy, dh in ys:
                piece(sx, sy, sw, sh, dx, dy, dw, dh)
        out.blit(tail, ((w - tail.get_width()) // 2, h - 1))
        out.blit(text_surface, ((w - tw) // 2, (h - th) // 2))
        return out


_DEFAULT: EmojiIcons | None = None


def icons() -> EmojiIcons:
    """The shared EmojiIcons (loaded on first use)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = EmojiIcons()
    return _DEFAULT


def icon(emoji: str, size: int | None = None):
    return icons().get(emoji, size)


def bubble(text_surface):
    """`text_surface` wrapped in the speech bubble (tail at the bottom centre)."""
    return icons().bubble(text_surface)
