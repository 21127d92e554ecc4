"""Characters on screen (contract section 4).

A sheet is 3 columns x 4 rows of 32x48 frames. Rows: down, left, right, up.
Column 1 is standing; columns 0 and 2 are the walking steps, played 0,1,2,1.
A character's feet stand on the bottom of its frame, and the frame's bottom
lines up with the bottom of the tile the character is on.

`Figure` is everything the view needs to draw one character; the visitor
makes one each frame, and a later issue maps the simulation's bodies onto
figures the same way. `draw_figures` draws them y-sorted (lower on the map
means in front); `draw_labels` puts name tags over them, stacked and
shortened where a crowd's would overlap (labels.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pygame

from game.support import folders
from game.support.errors import UserError
from game.view import labels

DIRECTIONS = ("down", "left", "right", "up")
ROW = {d: i for i, d in enumerate(DIRECTIONS)}
WALK_CYCLE = (0, 1, 2, 1)
STAND = 1
FRAME_W, FRAME_H = 32, 48
GHOST_ALPHA = 90
ASSETS = folders.assets_dir()
CHARACTERS = ASSETS / "characters"


def slugify(name: str) -> str:
    """'Isabella Rodriguez' -> 'isabella_rodriguez' (the sheet's file name)."""
    return "_".join(name.strip().lower().split())


def sheet_path(slug: str, folder: Path = CHARACTERS) -> Path:
    return Path(folder) / f"{slug}.png"


class CharacterSheet:
    """One character's frames, with a scaled copy per zoom level."""

    def __init__(self, image: pygame.Surface, name: str = "?") -> None:
        w, h = image.get_size()
        if w % 3 or h % 4 or w == 0 or h == 0:
            raise UserError(f"character sheet {name}: {w}x{h} is not 3 columns x 4 rows of frames (expected 96x192)")
        self.name = name
        self.frame_w, self.frame_h = w // 3, h // 4
        self.frames = [
            [image.subsurface((c * self.frame_w, r * self.frame_h, self.frame_w, self.frame_h)) for c in range(3)]
            for r in range(4)
        ]
        self._scaled: dict[float, list[list[pygame.Surface]]] = {1.0: self.frames}
        self._ghosts: dict[tuple[float, int, int], pygame.Surface] = {}

    @classmethod
    def load(cls, path: str | Path) -> CharacterSheet:
        path = Path(path)
        if not path.exists():
            raise UserError(
                f"missing character sheet {path} (draw the sheets with "
                "`.venv/bin/python assets/draw_characters.py`)"
            )
        try:
            image = pygame.image.load(str(path))
        except (pygame.error, OSError) as err:
            raise UserError(f"cannot read character sheet {path}: {err}") from None
        if pygame.display.get_surface() is not None:
            image = image.convert_alpha()
        return cls(image, name=str(path))

    def frame(self, direction: str, column: int, zoom: float = 1.0) -> pygame.Surface:
        frames = self._scaled.get(zoom)
        if frames is None:
            size = (round(self.frame_w * zoom), round(self.frame_h * zoom))
            scale = pygame.transform.smoothscale if zoom < 1.0 else pygame.transform.scale
            frames = [[scale(f, size) for f in row] for row in self.frames]
            self._scaled[zoom] = frames
        return frames[ROW.get(direction, 0)][column]

    def ghost(self, direction: str, column: int, zoom: float = 1.0, alpha: int = GHOST_ALPHA) -> pygame.Surface:
        """A faint copy of a frame, drawn over the foreground so a character
        behind a tree top or an eave is still seen (where nothing covers it, the
        ghost lands on its own pixels and changes nothing)."""
        key = (zoom, ROW.get(direction, 0), column)
        surf = self._ghosts.get(key)
        if surf is None:
            surf = self.frame(direction, column, zoom).copy()
            surf.set_alpha(alpha)
            self._ghosts[key] = surf
        return surf


class SheetLibrary:
    """Sheets by slug, loaded on first use and kept."""

    def __init__(self, folder: str | Path | None = None) -> None:
        self.folder = Path(folder) if folder is not None else CHARACTERS
        self.sheets: dict[str, CharacterSheet] = {}  # slug -> sheet, loaded so far
        # slug -> the slug of the sheet it wears (a generated resident borrows a scenario resident's)
        self.aliases: dict[str, str] = {}

    def get(self, slug: str) -> CharacterSheet:
        sheet = self.sheets.get(slug)
        if sheet is None:
            worn = self.aliases.get(slug, slug)
            sheet = self.sheets.get(worn) or CharacterSheet.load(sheet_path(worn, self.folder))
            self.sheets[slug] = sheet
        return sheet

    def preload(self, slugs) -> None:
        """Load now, so a missing sheet stops the game at start, not mid-play."""
        for slug in slugs:
            self.get(slug)


@dataclass
class Figure:
    """A character as the view draws it."""

    name: str
    slug: str
    x: float  # tile coordinates of where the feet are (fractional while walking)
    y: float
    facing: str = "down"
    moving: bool = False
    walked: float = 0.0  # tiles walked so far: drives the walk cycle
    label: bool = True
    focus: bool = False  # the player follows or inspects it: its label in full, at home, on top
    hover: bool = False  # under the mouse: its label in full where it stands, on top
    crest: int = 0  # px of markers drawn over its label (emoji, zzz): crowded labels keep them clear
    tag: labels.Spot | None = None  # set by draw_labels: where its label went this frame

    def column(self) -> int:
        if not self.moving:
            return STAND
        return WALK_CYCLE[int(self.walked * 2) % 4]  # two frames per tile: feet alternate each tile


def figure_rect(fig: Figure, camera, sheet: CharacterSheet) -> pygame.Rect:
    """Where a figure's frame lands on screen: bottom on its tile's bottom, centred."""
    w = round(sheet.frame_w * camera.zoom)
    h = round(sheet.frame_h * camera.zoom)
    cx, bottom = camera.tile_to_screen(fig.x + 0.5, fig.y + 1)
    return pygame.Rect(cx - w // 2, bottom - h, w, h)


def draw_figures(surface: pygame.Surface, camera, figures, sheets: SheetLibrary) -> list[tuple[Figure, pygame.Rect]]:
    """Draw figures back to front; returns (figure, screen rect) of those on screen
    (for labels, hit-testing clicks and bubbles)."""
    screen = surface.get_rect()
    drawn = []
    blits = []
    for fig in sorted(figures, key=lambda f: (f.y, f.x)):
        sheet = sheets.get(fig.slug)
        rect = figure_rect(fig, camera, sheet)
        if not rect.colliderect(screen):
            continue
        blits.append((sheet.frame(fig.facing, fig.column(), camera.zoom), rect.topleft))
        drawn.append((fig, rect))
    if blits:
        surface.blits(blits, doreturn=False)
    return drawn


def draw_ghosts(surface: pygame.Surface, camera, drawn: list[tuple[Figure, pygame.Rect]], sheets: SheetLibrary,
                slugs) -> None:
    """Faint copies of the chosen figures (e.g. the visitor) over the foreground."""
    for fig, rect in drawn:
        if fig.slug in slugs:
            surface.blit(sheets.get(fig.slug).ghost(fig.facing, fig.column(), camera.zoom), rect.topleft)


def label_surface(name: str, size: int = 14) -> pygame.Surface:
    """A name tag: light text on a dark, rounded, translucent pill (cached)."""
    return labels.pill(name, size)


def label_wants(drawn: list[tuple[Figure, pygame.Rect]]) -> list[labels.Want]:
    """What the drawn figures that want a name tag ask of the layout."""
    return [labels.Want(fig.name, rect.centerx, rect.top, fig.crest, fig.focus, fig.hover)
            for fig, rect in drawn if fig.label]


def draw_labels(surface: pygame.Surface, drawn: list[tuple[Figure, pygame.Rect]], size: int = 14) -> list:
    """Name tags over the drawn figures, laid out so a crowd's stay readable
    (game/view/labels.py); each figure's ``tag`` is set to where its label went."""
    spots = labels.layout(label_wants(drawn), lambda text: label_surface(text, size).get_size())
    where = {s.name: s for s in spots}
    for fig, _ in drawn:
        fig.tag = where.get(fig.name) if fig.label else None
    labels.draw(surface, spots, size)
    return spots


def reset_caches() -> None:
    """Forget cached labels (after pygame.quit())."""
    labels.reset_caches()


__all__ = [
    "DIRECTIONS",
    "STAND",
    "WALK_CYCLE",
    "CharacterSheet",
    "Figure",
    "SheetLibrary",
    "draw_figures",
    "draw_ghosts",
    "draw_labels",
    "sheet_path",
    "slugify",
]
