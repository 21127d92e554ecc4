"""Draw the character sprite sheets of the Ville.

Run from the repository root:

    .venv/bin/python assets/draw_characters.py [output folder]

It writes ``<slug>.png`` for every resident in ``LOOKS`` plus ``visitor.png``
into ``assets/characters`` (or the folder given). Each sheet is 3 columns x 4
rows of 32x48 frames (96x192, RGBA): rows face down, left, right, up; column 1
stands, columns 0 and 2 are walking steps (played 0, 1, 2, 1).

Everything is drawn with pygame.draw / Surface.fill on per-pixel-alpha
surfaces (no randomness, no antialiasing) and written with ``pngio.save_png``,
so a rerun reproduces the files byte for byte.

To add a character, add a ``Look`` to ``LOOKS`` (key = full name) and rerun.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
from pngio import save_png, surface_to_rgba  # noqa: E402

FRAME_W, FRAME_H = 32, 48
COLS, ROWS = 3, 4
DIRECTIONS = ("down", "left", "right", "up")
STEPS = (-1, 0, 1)  # column 0, 1, 2
DEFAULT_OUT = HERE / "characters"

Color = tuple[int, int, int]


# --------------------------------------------------------------------------- colours

def mix(a: Color, b: Color, t: float) -> Color:
    return tuple(round(a[i] + (b[i] - a[i]) * t) for i in range(3))  # type: ignore[return-value]


INK = (26, 18, 30)
WHITE = (255, 255, 255)


def outline_of(c: Color) -> Color:
    return mix(c, INK, 0.62)


def shade_of(c: Color, t: float = 0.22) -> Color:
    return mix(c, INK, t)


def light_of(c: Color, t: float = 0.28) -> Color:
    return mix(c, WHITE, t)


# skin tones
SKIN = {
    "pale": (255, 226, 204),
    "light": (246, 208, 176),
    "peach": (240, 196, 158),
    "olive": (222, 178, 132),
    "tan": (200, 148, 102),
    "brown": (166, 108, 70),
    "dark": (124, 78, 50),
    "deep": (94, 58, 40),
}


# --------------------------------------------------------------------------- looks

@dataclass(frozen=True)
class Look:
    skin: Color
    hair: Color
    hair_style: str          # short side_part buzz bald receding long hime bob bun ponytail
                             # curly afro curly_long braids quiff spiky messy medium
    top: str                 # tshirt shirt hoodie sweater jacket blazer coat vest
                             # turtleneck smock plaid track dress
    top_color: Color
    top2: Color = (240, 238, 230)    # inner shirt / lapel / trim colour
    sleeves: str = "long"            # long | short
    bottom: str = "trousers"         # trousers | shorts | skirt | long_skirt | dress
    bottom_color: Color = (60, 66, 96)
    legs: Color | None = None        # tights colour under skirts/shorts (None: skin)
    shoes: Color = (70, 50, 44)
    eyes: Color = (46, 34, 40)
    beard: str | None = None         # full | mustache | stubble
    glasses: Color | None = None
    blush: bool = False
    extras: tuple[str, ...] = ()     # apron headphones camera scarf backpack cap headband
                                     # streak buttons paint pin grey_temples bow
    extra_color: Color = (200, 60, 60)   # apron/scarf/cap/backpack colour
    extra2: Color = (240, 200, 60)       # second accent (headband, streak, pack trim)


LOOKS: dict[str, Look] = {
    "Isabella Rodriguez": Look(  # 34, owns Hobbs Cafe: apron
        skin=SKIN["tan"], hair=(72, 40, 28), hair_style="long", top="shirt", top_color=(196, 58, 70),
        bottom="trousers", bottom_color=(52, 44, 52), shoes=(90, 52, 40), blush=True,
        extras=("apron",), extra_color=(238, 226, 200)),
    "Maria Lopez": Look(  # 21, physics student, streamer
        skin=SKIN["olive"], hair=(84, 50, 34), hair_style="ponytail", top="hoodie", top_color=(132, 86, 196),
        top2=(232, 220, 250), bottom="trousers", bottom_color=(64, 92, 150), shoes=(236, 236, 240), blush=True),
    "Klaus Mueller": Look(  # 20, sociology student
        skin=SKIN["light"], hair=(196, 150, 86), hair_style="side_part", top="sweater", top_color=(70, 132, 92),
        bottom="trousers", bottom_color=(176, 150, 108), shoes=(96, 64, 44), eyes=(50, 70, 110)),
    "Ayesha Khan": Look(  # 20, literature student
        skin=SKIN["brown"], hair=(28, 22, 26), hair_style="long", top="sweater", top_color=(226, 176, 54),
        bottom="long_skirt", bottom_color=(40, 110, 118), shoes=(92, 48, 48), blush=True,
        extras=("headband",), extra2=(200, 56, 90)),
    "Wolfgang Schulz": Look(  # 21, chemistry student-athlete: athletic wear
        skin=SKIN["pale"], hair=(226, 190, 110), hair_style="buzz", top="track", top_color=(40, 86, 180),
        top2=(245, 245, 245), bottom="shorts", bottom_color=(34, 36, 44), shoes=(240, 90, 60), eyes=(60, 100, 140)),
    "Abigail Chen": Look(  # 25, digital artist
        skin=SKIN["light"], hair=(30, 26, 34), hair_style="bob", top="sweater", top_color=(70, 182, 176),
        bottom="skirt", bottom_color=(40, 40, 52), legs=(50, 46, 62), shoes=(40, 36, 44), blush=True,
        extras=("streak",), extra2=(236, 96, 170)),
    "Rajiv Patel": Look(  # 27, painter
        skin=SKIN["brown"], hair=(26, 22, 24), hair_style="messy", top="smock", top_color=(226, 214, 184),
        bottom="trousers", bottom_color=(96, 70, 52), shoes=(60, 44, 36), beard="stubble", extras=("paint",)),
    "Latoya Williams": Look(  # 25, photographer
        skin=SKIN["dark"], hair=(34, 24, 22), hair_style="afro", top="tshirt", top_color=(240, 140, 40),
        sleeves="short", bottom="trousers", bottom_color=(40, 48, 80), shoes=(230, 230, 230), blush=False,
        extras=("camera",)),
    "Francisco Lopez": Look(  # 23, actor and comedian
        skin=SKIN["olive"], hair=(30, 24, 26), hair_style="quiff", top="shirt", top_color=(222, 60, 150),
        sleeves="short", bottom="trousers", bottom_color=(30, 30, 36), shoes=(160, 40, 40), extras=("buttons",)),
    "Hailey Johnson": Look(  # 30, writer
        skin=SKIN["pale"], hair=(200, 96, 40), hair_style="bun", top="sweater", top_color=(236, 226, 196),
        bottom="skirt", bottom_color=(132, 84, 56), legs=(120, 60, 50), shoes=(96, 52, 40), eyes=(50, 110, 80),
        blush=True),
    "Arthur Burton": Look(  # 42, owns the Rose and Crown Pub
        skin=SKIN["peach"], hair=(120, 76, 44), hair_style="receding", top="vest", top_color=(40, 84, 60),
        top2=(244, 240, 232), bottom="trousers", bottom_color=(36, 32, 34), shoes=(30, 26, 28), beard="full",
        extras=("buttons",), extra_color=(210, 180, 90)),
    "Ryan Park": Look(  # 29, software engineer
        skin=SKIN["light"], hair=(34, 30, 36), hair_style="short", top="hoodie", top_color=(128, 134, 144),
        top2=(230, 230, 230), bottom="trousers", bottom_color=(40, 52, 84), shoes=(44, 44, 50),
        glasses=(30, 30, 36)),
    "Giorgio Rossi": Look(  # 41, mathematician
        skin=SKIN["olive"], hair=(52, 40, 34), hair_style="curly", top="jacket", top_color=(134, 98, 64),
        top2=(220, 216, 196), bottom="trousers", bottom_color=(74, 66, 60), shoes=(60, 40, 30), beard="full",
        glasses=(120, 80, 40)),
    "Carlos Gomez": Look(  # 32, poet
        skin=SKIN["tan"], hair=(24, 20, 22), hair_style="medium", top="turtleneck", top_color=(40, 38, 46),
        bottom="trousers", bottom_color=(104, 104, 112), shoes=(70, 40, 34), beard="mustache",
        extras=("scarf",), extra_color=(150, 34, 52)),
    "Mei Lin": Look(  # 44, college professor: blazer
        skin=SKIN["light"], hair=(32, 28, 34), hair_style="bob", top="blazer", top_color=(106, 54, 96),
        top2=(240, 236, 228), bottom="skirt", bottom_color=(72, 72, 82), legs=(46, 42, 48), shoes=(30, 28, 34),
        glasses=(60, 40, 40)),
    "John Lin": Look(  # 45, pharmacist: white coat
        skin=SKIN["light"], hair=(36, 32, 36), hair_style="side_part", top="coat", top_color=(244, 246, 248),
        top2=(110, 150, 200), bottom="trousers", bottom_color=(50, 52, 60), shoes=(40, 36, 36),
        extras=("grey_temples",)),
    "Eddy Lin": Look(  # 19, music theory student
        skin=SKIN["light"], hair=(30, 28, 34), hair_style="spiky", top="tshirt", top_color=(204, 44, 52),
        sleeves="short", bottom="trousers", bottom_color=(70, 100, 160), shoes=(236, 236, 236),
        extras=("headphones",), extra_color=(226, 228, 234)),
    "Tom Moreno": Look(  # 52, grocer: apron
        skin=SKIN["tan"], hair=(150, 144, 140), hair_style="bald", top="shirt", top_color=(170, 200, 226),
        bottom="trousers", bottom_color=(96, 80, 62), shoes=(60, 40, 30), beard="mustache",
        extras=("apron",), extra_color=(64, 130, 70)),
    "Jane Moreno": Look(  # 46, homemaker
        skin=SKIN["tan"], hair=(104, 56, 36), hair_style="curly_long", top="dress", top_color=(226, 122, 130),
        bottom="dress", shoes=(150, 60, 60), blush=True, extras=("buttons",), extra_color=(250, 238, 170)),
    "Tamara Taylor": Look(  # 30, children's author
        skin=SKIN["deep"], hair=(52, 38, 40), hair_style="braids", top="tshirt", top_color=(176, 150, 230),
        sleeves="short", bottom="skirt", bottom_color=(70, 110, 170), shoes=(240, 200, 60),
        extra2=(250, 210, 60)),
    "Carmen Ortiz": Look(  # 33, runs Harvey Oak Supply Store: flannel
        skin=SKIN["olive"], hair=(40, 28, 26), hair_style="ponytail", top="plaid", top_color=(188, 44, 44),
        bottom="trousers", bottom_color=(50, 70, 110), shoes=(110, 76, 44), blush=True),
    "Sam Moore": Look(  # 65, retired navy officer: grey hair, navy jacket
        skin=SKIN["peach"], hair=(190, 190, 196), hair_style="side_part", top="jacket", top_color=(34, 46, 92),
        top2=(236, 236, 240), bottom="trousers", bottom_color=(120, 120, 128), shoes=(24, 22, 28),
        eyes=(50, 70, 110), extras=("buttons", "pin"), extra_color=(226, 190, 80)),
    "Jennifer Moore": Look(  # 68, watercolour painter: white hair
        skin=SKIN["pale"], hair=(246, 244, 240), hair_style="bun", top="sweater", top_color=(150, 120, 196),
        bottom="long_skirt", bottom_color=(90, 130, 170), shoes=(110, 80, 70), glasses=(170, 120, 150),
        blush=True),
    "Yuriko Yamamoto": Look(  # 28, tax lawyer: suit
        skin=SKIN["pale"], hair=(22, 20, 28), hair_style="hime", top="blazer", top_color=(54, 56, 66),
        top2=(250, 250, 252), bottom="skirt", bottom_color=(54, 56, 66), legs=(60, 54, 58), shoes=(20, 18, 24),
        blush=True),
    "Adam Smith": Look(  # 36, philosopher
        skin=SKIN["light"], hair=(110, 74, 46), hair_style="messy", top="jacket", top_color=(104, 112, 60),
        top2=(226, 210, 170), bottom="trousers", bottom_color=(190, 170, 130), shoes=(86, 56, 40), beard="full"),
}

VISITOR = Look(  # the player: a cap and a backpack
    skin=SKIN["peach"], hair=(120, 70, 40), hair_style="short", top="tshirt", top_color=(60, 150, 230),
    sleeves="short", bottom="shorts", bottom_color=(200, 170, 110), shoes=(240, 240, 240),
    extras=("cap", "backpack"), extra_color=(230, 50, 50), extra2=(250, 196, 40))


def slug(name: str) -> str:
    return name.lower().replace(" ", "_")


# --------------------------------------------------------------------------- painter

class Painter:
    """Pixel drawing on a 32x48 frame with inclusive coordinates and an offset."""

    def __init__(self) -> None:
        self.surf = pygame.Surface((FRAME_W, FRAME_H), pygame.SRCALPHA, 32)
        self.surf.fill((0, 0, 0, 0))
        self.dy = 0  # vertical offset applied to everything drawn

    def _rect(self, x0: int, y0: int, x1: int, y1: int) -> pygame.Rect:
        return pygame.Rect(x0, y0 + self.dy, x1 - x0 + 1, y1 - y0 + 1)

    def fill(self, x0: int, y0: int, x1: int, y1: int, c: Color) -> None:
        if x1 >= x0 and y1 >= y0:
            self.surf.fill((*c, 255), self._rect(x0, y0, x1, y1))

    def px(self, x: int, y: int, c: Color) -> None:
        self.fill(x, y, x, y, c)

    def shape(self, s: tuple, c: Color, inset: int = 0) -> None:
        kind, x0, y0, x1, y1 = s[:5]
        x0, y0, x1, y1 = x0 + inset, y0 + inset, x1 - inset, y1 - inset
        if x1 < x0 or y1 < y0:
            return
        r = self._rect(x0, y0, x1, y1)
        if kind == "r":
            radius = max(0, (s[5] if len(s) > 5 else 0) - inset)
            if radius:
                pygame.draw.rect(self.surf, (*c, 255), r, 0, radius)
            else:
                self.surf.fill((*c, 255), r)
        elif kind == "e":
            pygame.draw.ellipse(self.surf, (*c, 255), r)
        else:
            raise ValueError(kind)

    def group(self, fill: Color, shapes: list[tuple], outline: Color | None = None) -> None:
        """Draw shapes as one outlined blob: all outlines first, then all fills inset by 1."""
        ol = outline or outline_of(fill)
        for s in shapes:
            self.shape(s, ol)
        for s in shapes:
            self.shape(s, fill, 1)


def R(x0, y0, x1, y1, radius=0):
    return ("r", x0, y0, x1, y1, radius)


def E(x0, y0, x1, y1):
    return ("e", x0, y0, x1, y1)


# --------------------------------------------------------------------------- parts

LONG_STYLES = {"long", "hime", "braids", "curly_long"}


def hair_colours(look: Look) -> tuple[Color, Color]:
    return look.hair, light_of(look.hair, 0.3) if sum(look.hair) < 600 else shade_of(look.hair, 0.1)


def back_hair_front(p: Painter, look: Look) -> None:
    """Hair hanging behind head and shoulders, seen from the front (drawn first)."""
    h = look.hair
    st = look.hair_style
    if st == "long" or st == "hime":
        p.group(h, [R(5, 8, 26, 30, 4)])
    elif st == "braids":
        p.group(h, [R(5, 8, 26, 32, 3)])
        for x in (6, 25):
            p.fill(x, 31, x, 32, look.extra2)
    elif st == "curly_long":
        p.group(h, [E(3, 8, 12, 18), E(19, 8, 28, 18), E(4, 15, 12, 26), E(19, 15, 27, 26), E(6, 22, 13, 29),
                    E(18, 22, 25, 29)])
    elif st == "medium":
        p.group(h, [R(5, 8, 26, 24, 4)])
    elif st == "bob":
        p.group(h, [R(5, 6, 26, 22, 4)])


def front_hair(p: Painter, look: Look) -> None:
    """Hair on top of the head, seen from the front."""
    h, hl = hair_colours(look)
    st = look.hair_style
    cap = [R(5, 2, 26, 10, 7)]
    if st in ("short", "side_part", "messy", "spiky", "quiff"):
        shapes = cap + [R(5, 5, 8, 14, 2), R(23, 5, 26, 14, 2)]
        if st == "short":
            shapes += [R(8, 8, 12, 11), R(15, 8, 18, 11)]
        elif st == "side_part":
            shapes += [R(5, 6, 14, 12, 2), R(12, 8, 16, 11)]
        elif st == "messy":
            shapes += [R(7, 8, 11, 12), R(12, 8, 15, 11), R(17, 8, 21, 12), R(4, 9, 7, 16, 1), R(24, 9, 27, 16, 1)]
        elif st == "spiky":
            shapes += [R(8, 0, 11, 4), R(13, -1, 17, 3), R(19, 0, 22, 4), R(4, 3, 7, 7), R(24, 3, 27, 7),
                       R(9, 8, 12, 12), R(18, 8, 21, 12), R(14, 8, 17, 11)]
        elif st == "quiff":
            shapes += [E(10, -1, 24, 7), R(22, 7, 25, 11)]
        p.group(h, shapes)
        if st == "side_part":
            p.fill(15, 4, 15, 7, shade_of(h, 0.3))
    elif st == "buzz":
        p.group(h, [R(6, 3, 25, 9, 7), R(6, 5, 8, 12, 1), R(23, 5, 25, 12, 1)])
    elif st == "bald":
        p.group(h, [R(5, 10, 8, 17, 2), R(23, 10, 26, 17, 2)])
        p.fill(10, 6, 12, 6, light_of(look.skin, 0.45))
        p.fill(9, 7, 9, 8, light_of(look.skin, 0.45))
    elif st == "receding":
        p.group(h, [R(6, 2, 25, 7, 6), R(5, 4, 9, 15, 2), R(22, 4, 26, 15, 2)])
    elif st in ("long", "bob", "medium"):
        shapes = cap + [R(5, 5, 9, 20, 2), R(22, 5, 26, 20, 2), R(8, 7, 14, 12, 2), R(14, 8, 18, 11)]
        p.group(h, shapes)
    elif st == "hime":
        p.group(h, [R(5, 2, 26, 12, 7), R(5, 5, 9, 22, 1), R(22, 5, 26, 22, 1)])
        p.fill(8, 11, 23, 11, h)
    elif st == "braids":
        p.group(h, [R(5, 2, 26, 10, 7), R(5, 5, 8, 22, 1), R(23, 5, 26, 22, 1)])
        for x in (11, 15, 19):
            p.fill(x, 3, x, 8, shade_of(h, 0.4))
    elif st == "curly_long":
        p.group(h, [E(4, 1, 13, 10), E(11, 0, 20, 8), E(18, 1, 27, 10), E(3, 6, 10, 16), E(21, 6, 28, 16),
                    E(8, 6, 14, 12)])
    elif st in ("bun", "ponytail"):
        shapes = cap + [R(5, 5, 8, 15, 2), R(23, 5, 26, 15, 2)]
        if st == "bun":
            shapes.append(E(11, -2, 20, 5))
        else:
            shapes.append(E(23, 8, 28, 14))  # the tail peeking out at the side
        p.group(h, shapes)
        p.fill(11, 6, 20, 6, hl)
    elif st == "curly":
        p.group(h, [E(4, 1, 12, 9), E(10, 0, 18, 7), E(16, 0, 24, 7), E(20, 1, 27, 9), E(4, 5, 9, 14),
                    E(22, 5, 27, 14), E(8, 6, 13, 11), E(18, 6, 23, 11)])
    elif st == "afro":
        p.group(h, [E(1, -1, 12, 10), E(8, -2, 23, 7), E(19, -1, 30, 10), E(0, 5, 8, 18), E(23, 5, 31, 18),
                    E(7, 5, 13, 11), E(18, 5, 24, 11), E(2, 14, 8, 22), E(23, 14, 29, 22)])
    else:
        raise ValueError(st)
    # a highlight streak on top
    if st not in ("bald",):
        p.fill(10, 3, 14, 3, hl)
        p.fill(9, 4, 10, 4, hl)
    if "streak" in look.extras:
        p.fill(18, 3, 19, 10, look.extra2)
        p.fill(19, 11, 19, 12, look.extra2)
    if "grey_temples" in look.extras:
        g = (170, 170, 176)
        p.fill(6, 9, 7, 13, g)
        p.fill(24, 9, 25, 13, g)
    if "headband" in look.extras:
        p.fill(7, 5, 24, 6, look.extra2)
        p.fill(6, 6, 6, 7, look.extra2)
        p.fill(25, 6, 25, 7, look.extra2)


def back_hair(p: Painter, look: Look) -> None:
    """The back of the head, seen from behind (drawn after the head)."""
    h, hl = hair_colours(look)
    st = look.hair_style
    dark = shade_of(h, 0.3)
    if st in ("short", "side_part", "messy", "spiky", "quiff"):
        shapes = [R(5, 2, 26, 19, 7)]
        if st == "spiky":
            shapes += [R(8, 0, 11, 4), R(13, -1, 17, 3), R(19, 0, 22, 4), R(4, 3, 7, 7), R(24, 3, 27, 7)]
        if st == "messy":
            shapes += [R(7, 16, 11, 21), R(13, 17, 18, 21), R(20, 16, 24, 21)]
        if st == "quiff":
            shapes += [E(10, -1, 22, 6)]
        p.group(h, shapes)
    elif st == "buzz":
        p.group(h, [R(6, 3, 25, 17, 7)])
    elif st == "bald":
        p.group(h, [R(5, 10, 26, 19, 5)])
        p.fill(11, 6, 14, 6, light_of(look.skin, 0.45))
    elif st == "receding":
        p.group(h, [R(5, 3, 26, 19, 7)])
        p.fill(12, 5, 19, 6, look.skin)
    elif st in ("long", "hime"):
        p.group(h, [R(5, 2, 26, 30, 6)])
        p.fill(15, 4, 16, 28, dark)
    elif st == "braids":
        p.group(h, [R(5, 2, 26, 32, 6)])
        for x in (9, 13, 18, 22):
            p.fill(x, 6, x, 31, dark)
        for x in (7, 11, 15, 20, 24):
            p.fill(x, 31, x + 1, 32, look.extra2)
    elif st == "curly_long":
        p.group(h, [E(4, 1, 13, 10), E(11, 0, 20, 8), E(18, 1, 27, 10), E(3, 6, 14, 18), E(17, 6, 28, 18),
                    E(9, 8, 22, 20), E(4, 14, 14, 28), E(17, 14, 27, 28), E(10, 18, 21, 29)])
    elif st == "medium":
        p.group(h, [R(5, 2, 26, 24, 6)])
        p.fill(15, 4, 16, 22, dark)
    elif st == "bob":
        p.group(h, [R(5, 2, 26, 22, 6)])
        p.fill(15, 4, 16, 20, dark)
    elif st == "bun":
        p.group(h, [R(5, 2, 26, 19, 7), E(11, -2, 20, 6)])
        p.fill(13, 7, 18, 7, dark)
    elif st == "ponytail":
        p.group(h, [R(5, 2, 26, 19, 7), R(13, 8, 18, 28, 3)])
        p.fill(13, 11, 18, 12, look.extra2 if look.extra2 != Look.extra2 else (220, 70, 90))
    elif st == "curly":
        p.group(h, [E(4, 1, 12, 9), E(10, 0, 18, 7), E(16, 0, 24, 7), E(20, 1, 27, 9), E(4, 6, 15, 19),
                    E(16, 6, 27, 19), E(8, 10, 23, 21)])
    elif st == "afro":
        p.group(h, [E(1, -1, 12, 10), E(8, -2, 23, 7), E(19, -1, 30, 10), E(0, 5, 15, 22), E(16, 5, 31, 22),
                    E(5, 10, 26, 24)])
    else:
        raise ValueError(st)
    if st not in ("bald", "receding"):
        p.fill(10, 3, 14, 3, hl)
        p.fill(9, 4, 10, 4, hl)
    if "streak" in look.extras:
        p.fill(19, 3, 20, 20, look.extra2)
    if "headband" in look.extras:
        p.fill(6, 5, 25, 6, look.extra2)


def side_hair(p: Painter, look: Look) -> None:
    """Hair seen from the right side (face toward x=24)."""
    h, hl = hair_colours(look)
    st = look.hair_style
    dark = shade_of(h, 0.3)
    cap = [R(6, 2, 24, 10, 7), R(6, 5, 12, 17, 3)]
    if st in ("short", "side_part", "messy", "spiky", "quiff"):
        shapes = cap + [R(19, 7, 24, 11, 2)]
        if st == "messy":
            shapes += [R(5, 14, 10, 20, 1), R(18, 8, 23, 12)]
        elif st == "spiky":
            shapes += [R(7, 0, 10, 4), R(12, -1, 16, 3), R(18, 0, 21, 4), R(3, 4, 7, 8), R(3, 9, 7, 12)]
        elif st == "quiff":
            shapes += [E(12, -1, 26, 7)]
        elif st == "side_part":
            shapes += [R(17, 6, 25, 10, 2)]
        p.group(h, shapes)
    elif st == "buzz":
        p.group(h, [R(6, 3, 24, 9, 6), R(6, 5, 11, 14, 3)])
    elif st == "bald":
        p.group(h, [R(6, 10, 12, 17, 2)])
        p.fill(16, 6, 19, 6, light_of(look.skin, 0.45))
    elif st == "receding":
        p.group(h, [R(6, 2, 17, 8, 5), R(5, 4, 12, 17, 3)])
    elif st in ("long", "hime", "braids", "medium", "bob", "curly_long"):
        bottom = {"long": 30, "hime": 30, "braids": 32, "medium": 24, "bob": 21, "curly_long": 29}[st]
        shapes = [R(6, 2, 24, 10, 7), R(4, 5, 13, bottom, 4), R(19, 7, 24, 12 if st == "hime" else 11, 2)]
        if st == "curly_long":
            shapes = [E(5, 0, 16, 10), E(13, 0, 25, 9), E(2, 6, 12, 18), E(3, 14, 13, 25), E(5, 20, 13, 29),
                      E(9, 5, 15, 16), E(19, 6, 25, 12)]
        p.group(h, shapes)
        if st == "braids":
            for x in (7, 10):
                p.fill(x, 8, x, 31, dark)
            p.fill(5, 31, 12, 32, look.extra2)
        elif st != "curly_long":
            p.fill(9, 12, 9, bottom - 3, dark)
    elif st == "bun":
        p.group(h, cap + [R(19, 7, 24, 10, 2), E(2, 1, 10, 9)])
    elif st == "ponytail":
        p.group(h, cap + [R(19, 7, 24, 10, 2), R(2, 7, 7, 13, 2), R(1, 11, 5, 24, 2)])
        p.fill(5, 8, 6, 12, look.extra2 if look.extra2 != Look.extra2 else (220, 70, 90))
    elif st == "curly":
        p.group(h, [E(5, 0, 13, 8), E(11, 0, 19, 7), E(17, 1, 25, 9), E(3, 5, 11, 14), E(4, 11, 12, 19),
                    E(19, 6, 24, 11)])
    elif st == "afro":
        p.group(h, [E(0, -1, 12, 10), E(8, -2, 22, 7), E(17, -1, 27, 9), E(-2, 5, 10, 19), E(2, 12, 14, 24),
                    E(8, 4, 16, 16)])
    else:
        raise ValueError(st)
    if st not in ("bald",):
        p.fill(13, 3, 17, 3, hl)
        p.fill(11, 4, 12, 4, hl)
    if "streak" in look.extras:
        p.fill(18, 3, 19, 10, look.extra2)
    if "grey_temples" in look.extras:
        p.fill(10, 9, 12, 14, (170, 170, 176))
    if "headband" in look.extras:
        p.fill(8, 4, 21, 5, look.extra2)


def top_colour(look: Look) -> Color:
    return look.top_color


def sleeve_colour(look: Look) -> Color:
    if look.top == "vest":
        return look.top2
    return look.top_color


def leg_colour(look: Look, upper: bool) -> Color:
    if look.bottom == "trousers":
        return look.bottom_color
    if look.bottom == "shorts" and upper:
        return look.bottom_color
    return look.legs or look.skin


# ---- front (facing down) ---------------------------------------------------------


def draw_front(p: Painter, look: Look, step: int, back: bool) -> None:
    b = 1 if step else 0
    skin = look.skin
    # --- legs and shoes (not bobbing: the feet stay on the ground)
    for side, (lx0, lx1, sx0, sx1) in ((-1, (11, 14, 10, 15)), (1, (17, 20, 16, 21))):
        lifted = 2 if step == side else 0
        foot = 45 - lifted
        hip = 35 + b
        if look.bottom == "shorts":
            p.group(leg_colour(look, False), [R(lx0, hip, lx1, foot - 1)])
            p.group(look.bottom_color, [R(lx0 - 1, hip, lx1 + 1, min(39, foot - 3))])
        else:
            p.group(leg_colour(look, True), [R(lx0, hip, lx1, foot - 1)])
        p.group(look.shoes, [R(sx0, foot - 2, sx1, foot, 1)])
        p.px(sx0 + 1 if side < 0 else sx1 - 2, foot - 1, light_of(look.shoes, 0.35))
    p.dy = b
    # --- long hair behind the body
    if not back:
        back_hair_front(p, look)
    if "backpack" in look.extras and not back:
        p.group(look.extra_color, [R(7, 23, 24, 34, 3)])
    # --- torso and bottom
    top = top_colour(look)
    torso = [R(10, 22, 21, 34, 3)]
    p.group(top, torso)
    # hips
    if look.bottom in ("trousers", "shorts"):
        p.group(look.bottom_color, [R(10, 32, 21, 36)])
        p.fill(11, 33, 20, 33, shade_of(look.bottom_color, 0.35))  # belt line
    elif look.bottom == "skirt":
        p.group(look.bottom_color, [R(10, 31, 21, 34), R(9, 33, 22, 37), R(8, 36, 23, 39)])
        p.fill(11, 32, 20, 32, shade_of(look.bottom_color, 0.3))
    elif look.bottom == "long_skirt":
        p.group(look.bottom_color, [R(10, 31, 21, 35), R(9, 34, 22, 39), R(8, 38, 23, 43 - b)])
        p.fill(11, 32, 20, 32, shade_of(look.bottom_color, 0.3))
    elif look.bottom == "dress":
        p.group(top, [R(10, 22, 21, 34, 3), R(9, 31, 22, 36), R(8, 35, 23, 40)])
        p.fill(10, 31, 21, 31, shade_of(top, 0.3))
    torso_details(p, look, back)
    # --- arms
    sleeve = sleeve_colour(look)
    for side, (ax0, ax1) in ((-1, (7, 10)), (1, (21, 24))):
        swing = 2 if step == -side else 0  # arm opposite the lifted leg swings forward (shorter)
        hand_y = 33 - swing
        if look.sleeves == "short":
            p.group(skin, [R(ax0, 26, ax1, hand_y + 2, 1)])
            p.group(sleeve, [R(ax0 - (1 if side < 0 else 0), 22, ax1 + (1 if side > 0 else 0), 27, 2)])
        else:
            p.group(sleeve, [R(ax0, 23, ax1, hand_y, 2)])
            p.group(skin, [R(ax0, hand_y - 1, ax1, hand_y + 2, 1)])
            if look.top == "track":
                x = ax0 + 1 if side < 0 else ax1 - 1
                p.fill(x, 25, x, hand_y - 2, look.top2)
            if look.top == "plaid":
                p.fill(ax0 + 1, 27, ax1 - 1, 27, shade_of(look.top_color, 0.45))
    # --- head
    if "backpack" in look.extras and back:
        pc = look.extra_color
        p.group(pc, [R(8, 23, 23, 36, 3)])
        p.group(shade_of(pc, 0.15), [R(10, 30, 21, 35, 2)])
        p.fill(11, 27, 20, 27, look.extra2)
    if "scarf" in look.extras:
        p.group(look.extra_color, [R(10, 20, 21, 25, 2)] + ([] if back else [R(17, 24, 20, 31, 1)]))
    p.group(skin, [R(6, 4, 25, 22, 7)])
    if back:
        back_hair(p, look)
    else:
        face_front(p, look)
        front_hair(p, look)
        if look.glasses:
            g = look.glasses
            for x0 in (8, 18):
                pygame.draw.rect(p.surf, (*g, 255), p._rect(x0, 12, x0 + 5, 16), 1)
            p.fill(14, 13, 17, 13, g)
    accessories_head(p, look, "up" if back else "down")
    p.dy = 0


def face_front(p: Painter, look: Look) -> None:
    skin = look.skin
    for x in (10, 20):
        p.fill(x, 13, x + 1, 15, look.eyes)
        p.px(x, 13, WHITE)
    brow = shade_of(look.hair, 0.35) if sum(look.hair) < 600 else shade_of(look.hair, 0.25)
    if look.hair_style not in ("hime",):
        p.fill(9, 11, 11, 11, brow)
        p.fill(20, 11, 22, 11, brow)
    if look.blush:
        pink = mix(skin, (240, 100, 110), 0.35)
        p.fill(8, 17, 9, 17, pink)
        p.fill(22, 17, 23, 17, pink)
    mouth = mix(skin, (130, 40, 50), 0.55)
    if look.beard == "full":
        bc = look.hair
        p.group(bc, [R(6, 15, 8, 21, 1), R(23, 15, 25, 21, 1), R(7, 18, 24, 23, 4)])
        p.fill(14, 19, 17, 19, mouth)
        p.fill(12, 17, 19, 18, bc)
    elif look.beard == "mustache":
        mc = shade_of(look.hair, 0.15)
        p.fill(12, 17, 19, 17, mc)
        p.fill(11, 18, 13, 18, mc)
        p.fill(18, 18, 20, 18, mc)
        p.fill(14, 19, 17, 19, mouth)
    elif look.beard == "stubble":
        st = mix(skin, look.hair, 0.22)
        p.fill(8, 19, 23, 21, st)
        p.fill(10, 22, 21, 22, st)
        p.fill(14, 19, 17, 19, mouth)
    else:
        p.fill(15, 18, 16, 18, mouth)


def torso_details(p: Painter, look: Look, back: bool) -> None:
    top = look.top_color
    sh = shade_of(top, 0.3)
    kind = look.top
    if kind == "hoodie":
        p.group(shade_of(top, 0.12), [R(9, 20, 22, 25, 3)] if not back else [R(9, 20, 22, 29, 4)])
        if not back:
            p.fill(13, 25, 13, 29, look.top2)
            p.fill(18, 25, 18, 29, look.top2)
            p.fill(12, 30, 19, 30, sh)
    elif kind == "sweater":
        p.fill(11, 31, 20, 31, sh)
        if not back:
            p.fill(13, 23, 18, 23, sh)
    elif kind == "turtleneck":
        p.group(top, [R(12, 19, 19, 24, 1)])
    elif kind in ("jacket", "blazer"):
        if not back:
            p.fill(14, 23, 17, 33, look.top2)
            for i in range(4):
                p.px(13 + (i // 2), 23 + i, sh)
                p.px(18 - (i // 2), 23 + i, sh)
            p.fill(14, 31, 17, 33, top)
            p.fill(15, 23, 16, 24, look.top2)
            if "buttons" in look.extras:
                p.px(13, 29, look.extra_color)
                p.px(13, 32, look.extra_color)
                p.px(18, 29, look.extra_color)
                p.px(18, 32, look.extra_color)
            if "pin" in look.extras:
                p.fill(19, 25, 20, 26, (220, 60, 60))
                p.px(20, 26, (240, 240, 250))
        else:
            p.fill(15, 24, 16, 33, sh)
    elif kind == "coat":
        p.group(top, [R(9, 22, 22, 39, 2)])
        if not back:
            p.fill(14, 23, 17, 27, look.top2)
            p.fill(14, 28, 17, 38, top)
            p.fill(14, 23, 14, 38, shade_of(top, 0.18))
            p.fill(17, 23, 17, 38, shade_of(top, 0.18))
            p.fill(15, 23, 16, 27, shade_of(look.top2, 0.2))  # tie
            p.fill(18, 26, 20, 26, (90, 130, 200))  # pen in the pocket
            p.fill(11, 31, 13, 31, shade_of(top, 0.18))
        else:
            p.fill(15, 30, 16, 38, shade_of(top, 0.18))
    elif kind == "vest":
        p.group(top, [R(10, 22, 21, 33, 3)])
        if not back:
            p.fill(14, 22, 17, 26, look.top2)
            p.fill(15, 27, 16, 27, look.top2)
            p.px(15, 23, (120, 30, 40))
            p.px(16, 23, (120, 30, 40))
            for y in (28, 31):
                p.px(16, y, look.extra_color)
    elif kind == "smock":
        p.fill(11, 31, 20, 31, sh)
        if not back:
            p.fill(14, 22, 17, 24, shade_of(top, 0.15))
        for (x, y, c) in ((12, 26, (220, 60, 60)), (18, 24, (60, 120, 220)), (16, 29, (240, 200, 40)),
                          (13, 32, (60, 170, 90)), (19, 30, (220, 60, 60))):
            p.px(x, y, c)
    elif kind == "plaid":
        dark = shade_of(top, 0.45)
        for x in (12, 16, 20):
            p.fill(x, 23, x, 33, dark)
        for y in (25, 29):
            p.fill(11, y, 20, y, dark)
        if not back:
            p.fill(14, 22, 17, 23, (230, 220, 200))
    elif kind == "track":
        if not back:
            p.fill(15, 22, 16, 33, look.top2)
            p.fill(13, 22, 18, 22, look.top2)
        else:
            p.fill(11, 25, 20, 26, look.top2)
    elif kind == "tshirt":
        if not back:
            p.fill(13, 22, 18, 22, sh)
    elif kind == "shirt":
        if not back:
            p.px(13, 22, look.top2)
            p.px(18, 22, look.top2)
            p.fill(15, 24, 16, 32, sh)
            if "buttons" in look.extras:
                for y in (25, 28, 31):
                    p.px(15, y, light_of(top, 0.5))
    elif kind == "dress":
        if not back:
            p.fill(13, 22, 18, 23, look.top2)
            for (x, y) in ((12, 26), (18, 27), (15, 29), (11, 34), (19, 33), (14, 37), (21, 38), (10, 38)):
                p.px(x, y, look.extra_color)
    # apron: over the front, a bow at the back
    if "apron" in look.extras:
        ac = look.extra_color
        if not back:
            p.group(ac, [R(12, 25, 19, 31, 1), R(10, 30, 21, 39, 1)])
            p.fill(12, 22, 12, 25, ac)
            p.fill(19, 22, 19, 25, ac)
            p.fill(13, 34, 18, 34, shade_of(ac, 0.2))
        else:
            p.fill(11, 30, 20, 30, ac)
            p.group(ac, [R(12, 29, 15, 32), R(16, 29, 19, 32)])
            p.fill(14, 33, 14, 35, ac)
            p.fill(17, 33, 17, 35, ac)
    if "camera" in look.extras and not back:
        p.fill(11, 22, 11, 26, (40, 40, 44))
        p.fill(20, 22, 20, 26, (40, 40, 44))
        p.group((50, 50, 56), [R(11, 26, 20, 31, 1)])
        p.group((150, 170, 190), [E(14, 27, 18, 31)])
        p.px(19, 27, (240, 80, 60))
    if "backpack" in look.extras and not back:
        p.fill(11, 22, 12, 31, shade_of(look.extra_color, 0.25))
        p.fill(19, 22, 20, 31, shade_of(look.extra_color, 0.25))


def accessories_head(p: Painter, look: Look, facing: str) -> None:
    if "headphones" in look.extras:
        c = look.extra_color
        if facing in ("down", "up"):
            p.group(c, [R(6, 1, 25, 3, 2)])
            p.group(c, [R(3, 10, 7, 17, 1), R(24, 10, 28, 17, 1)])
            p.fill(4, 12, 4, 15, (200, 50, 60))
            p.fill(27, 12, 27, 15, (200, 50, 60))
        else:
            p.group(c, [R(10, 0, 16, 3, 2)])
            p.fill(12, 3, 14, 9, c)
            p.group(c, [R(10, 9, 16, 17, 2)])
            p.fill(12, 11, 14, 15, (200, 50, 60))
    if "cap" in look.extras:
        c = look.extra_color
        if facing == "down":
            p.group(c, [R(5, 0, 26, 9, 7)])
            p.group(shade_of(c, 0.2), [R(6, 7, 25, 11, 2)])
            p.fill(14, 2, 17, 5, WHITE)
            p.px(15, 3, c)
        elif facing == "up":
            p.group(c, [R(5, 0, 26, 10, 7)])
            p.fill(12, 9, 19, 10, shade_of(c, 0.4))
            p.fill(14, 9, 17, 9, (236, 236, 236))
        else:  # side, facing right
            p.group(c, [R(6, 0, 24, 9, 7)])
            p.group(shade_of(c, 0.2), [R(18, 6, 29, 9, 2)])
            p.fill(17, 2, 19, 4, WHITE)


# ---- side (facing right) -----------------------------------------------------------


def _leg_shapes(offsets: list[int], x: int) -> list[tuple]:
    """A slanted leg: one 4-px-wide rect per 2 rows starting at y=36, shifted by offsets."""
    out = []
    y = 35
    for dx in offsets:
        out.append(R(x + dx, y, x + dx + 3, y + 3))
        y += 2
    return out


def draw_side(p: Painter, look: Look, step: int) -> None:
    b = 1 if step else 0
    skin = look.skin
    top = look.top_color
    # legs: standing = one leg; walking = near leg and far leg apart
    if step == 0:
        legs = [("near", [0, 0, 0, 0], 14, 45)]
    else:
        fwd, bwd = [0, 1, 2, 3], [0, -1, -2, -3]
        near, far = (fwd, bwd) if step < 0 else (bwd, fwd)
        legs = [("far", far, 14, 45), ("near", near, 14, 45)]
    for which, offs, x, foot in legs:
        lc_up = leg_colour(look, True)
        lc_lo = leg_colour(look, False)
        shoe = look.shoes
        if which == "far":
            lc_up, lc_lo, shoe = shade_of(lc_up, 0.25), shade_of(lc_lo, 0.25), shade_of(shoe, 0.25)
        shapes = _leg_shapes(offs, x)
        if b:
            shapes[0] = R(shapes[0][1], 36, shapes[0][3], 37)
        p.group(lc_lo, shapes)
        if look.bottom == "shorts":
            p.group(lc_up, [s for s in shapes[:2]])
        sx = x + offs[-1]
        p.group(shoe, [R(sx - 1, foot - 2, sx + 6, foot, 1)])
        p.px(sx + 4, foot - 1, light_of(shoe, 0.35))
    p.dy = b
    # far arm (behind the body)
    sleeve = sleeve_colour(look)
    arm_far = -step  # +1: forward, -1: backward
    arm_near = step
    if step:
        draw_side_arm(p, look, arm_far, shade_of(sleeve, 0.25), shade_of(skin, 0.2))
    if "backpack" in look.extras:
        pc = look.extra_color
        p.group(pc, [R(5, 23, 12, 36, 2)])
        p.group(shade_of(pc, 0.15), [R(4, 29, 8, 35, 1)])
        p.fill(7, 26, 10, 26, look.extra2)
    # torso
    p.group(top, [R(11, 22, 20, 34, 3)])
    if look.bottom in ("trousers", "shorts"):
        p.group(look.bottom_color, [R(11, 32, 20, 36)])
        p.fill(12, 33, 19, 33, shade_of(look.bottom_color, 0.35))
    elif look.bottom == "skirt":
        p.group(look.bottom_color, [R(11, 31, 20, 34), R(10, 33, 21, 37), R(9, 36, 22, 39)])
    elif look.bottom == "long_skirt":
        p.group(look.bottom_color, [R(11, 31, 20, 35), R(10, 34, 21, 39), R(9, 38, 22, 43 - b)])
    elif look.bottom == "dress":
        p.group(top, [R(11, 22, 20, 34, 3), R(10, 31, 21, 36), R(9, 35, 22, 40)])
        p.fill(11, 31, 20, 31, shade_of(top, 0.3))
    side_torso_details(p, look)
    if "backpack" in look.extras:
        p.fill(14, 22, 15, 30, shade_of(look.extra_color, 0.25))
    if "scarf" in look.extras:
        p.group(look.extra_color, [R(12, 20, 21, 25, 2), R(19, 24, 22, 30, 1)])
    # near arm
    draw_side_arm(p, look, arm_near, sleeve, skin)
    # head
    p.group(skin, [R(7, 4, 24, 22, 7)])
    # ear
    if look.hair_style not in LONG_STYLES | {"bob", "afro"}:
        p.group(skin, [R(12, 12, 14, 16, 1)])
    # face
    p.fill(19, 13, 20, 15, look.eyes)
    p.px(19, 13, WHITE)
    if look.hair_style != "hime":
        p.fill(18, 11, 21, 11, shade_of(look.hair, 0.35) if sum(look.hair) < 600 else shade_of(look.hair, 0.25))
    if look.blush:
        p.fill(18, 17, 19, 17, mix(skin, (240, 100, 110), 0.35))
    p.px(25, 15, outline_of(skin))  # nose tip
    p.px(24, 15, skin)
    mouth = mix(skin, (130, 40, 50), 0.55)
    if look.beard == "full":
        p.group(look.hair, [R(13, 15, 18, 21, 2), R(15, 17, 24, 23, 4)])
        p.fill(21, 19, 23, 19, mouth)
        p.fill(20, 17, 24, 18, look.hair)
    elif look.beard == "mustache":
        mc = shade_of(look.hair, 0.15)
        p.fill(20, 17, 24, 17, mc)
        p.fill(19, 18, 21, 18, mc)
        p.fill(22, 19, 23, 19, mouth)
    elif look.beard == "stubble":
        st = mix(skin, look.hair, 0.22)
        p.fill(15, 19, 23, 21, st)
        p.fill(21, 19, 23, 19, mouth)
    else:
        p.fill(21, 18, 22, 18, mouth)
    side_hair(p, look)
    if look.glasses:
        g = look.glasses
        pygame.draw.rect(p.surf, (*g, 255), p._rect(17, 12, 22, 16), 1)
        p.fill(12, 13, 17, 13, g)
    accessories_head(p, look, "right")
    p.dy = 0


def draw_side_arm(p: Painter, look: Look, swing: int, sleeve: Color, skin: Color) -> None:
    """An arm seen from the side: swing +1 forward (to the right), -1 back, 0 hanging."""
    offs = {0: [0, 0, 0], 1: [0, 1, 3], -1: [0, -1, -3]}[swing]
    x = 14
    upper = R(x + offs[0], 23, x + offs[0] + 3, 27, 2)
    lower = R(x + offs[1], 26, x + offs[1] + 3, 30, 1)
    hand = R(x + offs[2], 30, x + offs[2] + 3, 34, 1)
    if look.sleeves == "short":
        p.group(skin, [lower, hand])
        p.group(sleeve, [R(upper[1] - 1, 22, upper[3], 27, 2)])
    else:
        p.group(sleeve, [upper, lower, R(hand[1], 29, hand[3], 31)])
        p.group(skin, [R(hand[1], 31, hand[3], 34, 1)])
        if look.top == "track":
            p.fill(x + offs[0] + 1, 24, x + offs[0] + 1, 27, look.top2)
            p.fill(x + offs[1] + 1, 28, x + offs[1] + 1, 29, look.top2)


def side_torso_details(p: Painter, look: Look) -> None:
    top = look.top_color
    sh = shade_of(top, 0.3)
    kind = look.top
    if kind == "hoodie":
        p.group(shade_of(top, 0.12), [R(8, 20, 14, 28, 3)])
        p.fill(19, 25, 19, 29, look.top2)
    elif kind == "sweater":
        p.fill(12, 31, 19, 31, sh)
    elif kind == "turtleneck":
        p.group(top, [R(13, 19, 19, 24, 1)])
    elif kind in ("jacket", "blazer"):
        p.fill(19, 23, 20, 33, look.top2 if kind == "blazer" else sh)
        p.fill(18, 23, 18, 28, sh)
        if "buttons" in look.extras:
            p.px(18, 29, look.extra_color)
            p.px(18, 32, look.extra_color)
        if "pin" in look.extras:
            p.fill(18, 25, 19, 26, (220, 60, 60))
    elif kind == "coat":
        p.group(top, [R(10, 22, 21, 39, 2)])
        p.fill(20, 23, 20, 27, look.top2)
        p.fill(12, 30, 12, 38, shade_of(top, 0.18))
    elif kind == "vest":
        p.group(top, [R(11, 22, 20, 33, 3)])
        p.fill(19, 22, 20, 26, look.top2)
        p.px(19, 29, look.extra_color)
    elif kind == "smock":
        p.fill(12, 31, 19, 31, sh)
        p.px(17, 25, (220, 60, 60))
        p.px(19, 29, (60, 120, 220))
        p.px(13, 31, (240, 200, 40))
    elif kind == "plaid":
        dark = shade_of(top, 0.45)
        for x in (13, 17):
            p.fill(x, 23, x, 33, dark)
        for y in (25, 29):
            p.fill(12, y, 19, y, dark)
    elif kind == "track":
        p.fill(20, 22, 20, 33, look.top2)
    elif kind == "shirt":
        p.fill(19, 23, 19, 32, sh)
    elif kind == "dress":
        for (x, y) in ((13, 26), (17, 29), (12, 34), (19, 36), (15, 38)):
            p.px(x, y, look.extra_color)
    if "apron" in look.extras:
        ac = look.extra_color
        p.group(ac, [R(18, 25, 21, 39, 1)])
        p.fill(12, 30, 17, 30, ac)
        p.fill(18, 22, 18, 25, ac)
    if "camera" in look.extras:
        p.fill(17, 22, 17, 26, (40, 40, 44))
        p.group((50, 50, 56), [R(18, 26, 23, 31, 1)])
        p.fill(23, 27, 24, 30, (150, 170, 190))


# --------------------------------------------------------------------------- sheets

def draw_frame(look: Look, direction: str, step: int) -> pygame.Surface:
    """One 32x48 frame: soft shadow, then the character standing on the frame's bottom."""
    frame = pygame.Surface((FRAME_W, FRAME_H), pygame.SRCALPHA, 32)
    frame.fill((0, 0, 0, 0))
    pygame.draw.ellipse(frame, (0, 0, 0, 64), pygame.Rect(8, 43, 16, 5))
    pygame.draw.ellipse(frame, (0, 0, 0, 40), pygame.Rect(6, 43, 20, 5), 1)
    p = Painter()
    if direction == "down":
        draw_front(p, look, step, back=False)
        char = p.surf
    elif direction == "up":
        draw_front(p, look, step, back=True)
        char = p.surf
    elif direction == "right":
        draw_side(p, look, step)
        char = p.surf
    elif direction == "left":
        draw_side(p, look, step)
        char = pygame.transform.flip(p.surf, True, False)
    else:
        raise ValueError(direction)
    # the painter's y=45 is the shoe's bottom outline: put it on row 46, the shadow reaches 47
    frame.blit(char, (0, 1))
    return frame


def draw_sheet(look: Look) -> pygame.Surface:
    sheet = pygame.Surface((FRAME_W * COLS, FRAME_H * ROWS), pygame.SRCALPHA, 32)
    sheet.fill((0, 0, 0, 0))
    for row, direction in enumerate(DIRECTIONS):
        for col, step in enumerate(STEPS):
            sheet.blit(draw_frame(look, direction, step), (col * FRAME_W, row * FRAME_H))
    return sheet


def all_looks() -> dict[str, Look]:
    """slug -> look, for every resident and the visitor."""
    out = {slug(name): look for name, look in LOOKS.items()}
    out["visitor"] = VISITOR
    return out


def write_all(out_dir: str | Path = DEFAULT_OUT) -> list[Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, look in all_looks().items():
        path = out_dir / f"{name}.png"
        save_png(path, surface_to_rgba(draw_sheet(look)))
        written.append(path)
    return written


def contact_sheet(path: str | Path, scale: int = 3) -> None:
    """All sheets side by side on a grass-like background (for eyeballing, not committed)."""
    looks = list(all_looks().items())
    per_row = 6
    cw, ch = FRAME_W * COLS + 8, FRAME_H * ROWS + 8
    rows = (len(looks) + per_row - 1) // per_row
    board = pygame.Surface((cw * per_row, ch * rows), pygame.SRCALPHA, 32)
    board.fill((96, 160, 84, 255))
    for i, (_name, look) in enumerate(looks):
        x, y = (i % per_row) * cw + 4, (i // per_row) * ch + 4
        pygame.draw.rect(board, (190, 170, 140, 255), pygame.Rect(x + 48, y, 48, FRAME_H * ROWS))
        board.blit(draw_sheet(look), (x, y))
    board = pygame.transform.scale(board, (board.get_width() * scale, board.get_height() * scale))
    save_png(path, surface_to_rgba(board))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--contact":
        contact_sheet(argv[1] if len(argv) > 1 else "/tmp/contact.png")
        return 0
    out = argv[0] if argv else DEFAULT_OUT
    for path in write_all(out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
