"""Name labels that stay readable in a crowd (issue 23).

Every figure wants its name centred just above its head (its home spot), with
its markers (the action's emoji, zzz) over the name. A lone figure's label
stays exactly there. Where labels would overlap:

- a label whose full name would hit another label at home shows the first
  name only (both keep full names when two in view share a first name), and
  its markers move to the left of the name: in a crowd, height is scarce;
- labels are placed one at a time: the focused ones first (followed,
  inspected, talked to: in full, at home), then from the front of the scene
  (lowest on screen) to the back; a label that hits one already placed climbs
  just above it, so a crowd's labels stack instead of covering each other;
- the hovered label opens to the full name where it stands, drawn over the
  rest; nothing else moves (a label that jumped away from the mouse would hand
  the hover to whatever came under it, and back, frame after frame);
- a label lifted off its home spot gets a faint leader line down to the head.

``layout`` is pure (label sizes come from a ``measure`` callable): tests check
it without drawing. ``draw`` blits the pills, each rendered once and cached.
"""
from __future__ import annotations

from dataclasses import dataclass

import pygame

from game.view import fonts

GAP = 2  # px between a label and its head, and between stacked labels
LEADER_MIN = 6  # px a label is lifted before a leader line is worth drawing
TEXT = (245, 245, 235)
PILL = (20, 20, 28, 170)
LEADER = (235, 235, 225, 150)  # faint: it crosses figures on its way down
PAD_X, PAD_Y = 5, 2


@dataclass(slots=True)
class Want:
    """A label to place: whose, over which head, and what it must keep clear."""

    name: str
    cx: int  # the head's centre x, screen px
    head: int  # the top of the figure's frame, screen px
    crest: int = 0  # px the figure's markers take (over the label, or beside it in a crowd)
    focus: bool = False  # the player follows, inspects or talks to it: full name, home spot, on top
    hover: bool = False  # under the mouse: full name where it stands, on top


@dataclass(slots=True)
class Spot:
    """Where a label went."""

    name: str
    text: str  # the full name, or the first name in a crowd
    rect: pygame.Rect  # the pill, screen px
    lifted: int = 0  # px above its home spot (0: at home)
    packed: bool = False  # in a crowd: its markers sit left of the name, not over it
    crest: int = 0  # the room its markers take (as in Want)
    leader: tuple[tuple[int, int], tuple[int, int]] | None = None  # a line from the pill down to the head

    @property
    def area(self) -> pygame.Rect:
        """The label with its markers: what no other label may cover."""
        return block(self.rect, self.crest, self.packed)


def short_name(name: str) -> str:
    """'Isabella Rodriguez' -> 'Isabella'."""
    parts = name.split()
    return parts[0] if parts else name


def home(want: Want, size: tuple[int, int]) -> pygame.Rect:
    """A label's rect at home: centred just above the head (the spot labels have always had)."""
    w, h = size
    return pygame.Rect(want.cx - w // 2, want.head - h - GAP, w, h)


def block(rect: pygame.Rect, crest: int, packed: bool = False) -> pygame.Rect:
    """A label with its markers' room: a band over it, or (packed) a square at its left."""
    if not packed:
        return pygame.Rect(rect.left, rect.top - crest, rect.width, rect.height + crest)
    h = max(rect.height, crest)
    return pygame.Rect(rect.left - crest, rect.centery - h // 2, rect.width + crest, h)


def spaced(rect: pygame.Rect) -> pygame.Rect:
    """A rect grown by GAP on every side: closer than that counts as touching."""
    return rect.inflate(2 * GAP, 2 * GAP)


def crowded(wants: list[Want], measure) -> set[str]:
    """Names whose full label at home would overlap another's (or come within GAP of it)."""
    blocks = [block(home(w, measure(w.name)), w.crest) for w in wants]
    return {w.name for w, b in zip(wants, blocks) if len(spaced(b).collidelistall(blocks)) > 1}  # > 1: not itself


def texts(wants: list[Want], crowd: set[str]) -> dict[str, str]:
    """What each label says: the first name in a crowd, unless focused or ambiguous."""
    firsts = {w.name: short_name(w.name) for w in wants}
    seen: dict[str, int] = {}
    for first in firsts.values():
        seen[first] = seen.get(first, 0) + 1
    return {w.name: firsts[w.name] if w.name in crowd and not w.focus and seen[firsts[w.name]] == 1 else w.name
            for w in wants}


def order(wants: list[Want]) -> list[Want]:
    """Placing order: the focused first, then front (lowest head) to back, left to right."""
    return sorted(wants, key=lambda w: (not w.focus, -w.head, w.cx))


def climb(spot: Spot, taken: list[pygame.Rect]) -> Spot:
    """Move a label up until it and its markers hit nothing already taken."""
    rect = spot.rect.copy()
    for _ in range(len(taken) + 1):  # each hit is passed once: above it, we only go further up
        area = block(rect, spot.crest, spot.packed)
        i = spaced(area).collidelist(taken)
        if i < 0:
            break
        rect.bottom -= area.bottom - (taken[i].top - GAP)
    return Spot(spot.name, spot.text, rect, spot.rect.bottom - rect.bottom, spot.packed, spot.crest)


def opened(spot: Spot, measure) -> Spot:
    """A hovered label in full, over the same head, on the same baseline."""
    w, h = measure(spot.name)
    rect = pygame.Rect(spot.rect.centerx - w // 2, spot.rect.bottom - h, w, h)
    return Spot(spot.name, spot.name, rect, spot.lifted, spot.packed, spot.crest, spot.leader)


def layout(wants: list[Want], measure) -> list[Spot]:
    """Where every label goes, in drawing order (the focused, then the hovered,
    last: on top). ``measure(text) -> (w, h)`` is a label's size in px."""
    crowd = crowded(wants, measure)
    said = texts(wants, crowd)
    taken: list[pygame.Rect] = []
    spots = []
    for w in order(wants):
        text = said[w.name]
        start = Spot(w.name, text, home(w, measure(text)), packed=w.name in crowd, crest=w.crest)
        spot = climb(start, taken)  # a lone label hits nothing and stays home
        taken.append(spot.area)
        if spot.lifted >= LEADER_MIN:
            spot = Spot(spot.name, text, spot.rect, spot.lifted, spot.packed, spot.crest,
                        ((w.cx, spot.rect.bottom), (w.cx, w.head - GAP)))
        spots.append(opened(spot, measure) if w.hover and text != w.name else spot)
    spots.reverse()  # placed first = most important = drawn last
    hovered = {w.name for w in wants if w.hover}
    return [s for s in spots if s.name not in hovered] + [s for s in spots if s.name in hovered]


_PILLS: dict[tuple[str, int], pygame.Surface] = {}
_LINE: list[pygame.Surface] = []  # one faint vertical line, cut to length when drawn


def pill(text: str, size: int = 14) -> pygame.Surface:
    """A name tag: light text on a dark, rounded, translucent pill (cached)."""
    key = (text, size)
    surf = _PILLS.get(key)
    if surf is None:
        txt = fonts.text(text, size, TEXT)
        surf = pygame.Surface((txt.get_width() + 2 * PAD_X, txt.get_height() + 2 * PAD_Y), pygame.SRCALPHA)
        pygame.draw.rect(surf, PILL, surf.get_rect(), border_radius=6)
        surf.blit(txt, (PAD_X, PAD_Y))
        if len(_PILLS) > 256:
            _PILLS.clear()
        _PILLS[key] = surf
    return surf


def line(height: int) -> pygame.Surface:
    """A translucent 1 px wide line at least ``height`` tall (made once, grown when needed)."""
    if not _LINE or _LINE[0].get_height() < height:
        surf = pygame.Surface((1, max(height, 1024)), pygame.SRCALPHA)
        surf.fill(LEADER)
        _LINE[:] = [surf]
    return _LINE[0]


def draw(surface: pygame.Surface, spots: list[Spot], size: int = 14) -> None:
    """Leader lines first (the labels cover the stretches behind them), then the labels."""
    blits: list[tuple] = []
    for s in spots:
        if s.leader is not None:
            (x, top), (_, bottom) = s.leader
            blits.append((line(bottom - top), (x, top), pygame.Rect(0, 0, 1, bottom - top)))
    blits.extend((pill(s.text, size), s.rect.topleft) for s in spots)
    surface.blits(blits, doreturn=False)


def reset_caches() -> None:
    """Forget rendered labels (after pygame.quit())."""
    _PILLS.clear()
    _LINE.clear()


__all__ = ["GAP", "Spot", "Want", "block", "draw", "home", "layout", "pill", "reset_caches", "short_name"]
