"""Draw the action emoji as pixel art: assets/icons/emoji.png (+ emoji.json, ui.png).

Colour emoji fonts are missing on most machines and pygame cannot render them
reliably, so every emoji a resident's action may carry is drawn here as a 24x24
icon (dark outline, 2-3 shades, transparent background), keyed by the emoji
string in emoji.json::

    {"icons": {"☕": 0, ...}, "size": 24, "columns": 16, "rows": R, "count": N,
     "names": {"☕": "coffee", ...}, "aliases": {"🍴": "🍽️", ...},
     "ui": {"think": [x, y, w, h], "zzz": [...], "bubble": [...], "bubble_tail": [...]},
     "bubble_slice": 5}

``ui.png`` holds the non-emoji markers: a thinking cloud, a "zzz" and the
speech bubble's 9-slice frame (``bubble``: a rounded white box, stretched by
the game keeping ``bubble_slice`` pixels of each border) and its tail (drawn
under the bubble's bottom edge, its top row overlapping that edge).

    python assets/draw_icons.py [--out DIR]

Everything is drawn with pygame primitives (no anti-aliasing, no randomness)
and written with assets/pngio.py, so a rerun reproduces the files byte for byte.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

sys.path.insert(0, str(Path(__file__).resolve().parent))
import itertools

from pngio import save_png, surface_to_rgba

T = 24
COLS = 16

_REGISTRY: list[tuple[str, str, object]] = []  # (emoji, name, draw function)


def icon(emoji, name):
    def deco(fn):
        _REGISTRY.append((emoji, name, fn))
        return fn
    return deco


# ---------------------------------------------------------------- helpers

OUT = (38, 30, 40)  # the outline colour of every icon


def new(w=T, h=T):
    return pygame.Surface((w, h), pygame.SRCALPHA)


def rgb(c, f=1.0):
    return tuple(max(0, min(255, round(v * f))) for v in c[:3])


def A(c):
    return (*c[:3], 255) if len(c) == 3 else tuple(c)


def rect(s, c, r, width=0, rad=0):
    pygame.draw.rect(s, A(c), r, width, border_radius=rad)


def circ(s, c, center, r, width=0):
    pygame.draw.circle(s, A(c), center, r, width)


def ell(s, c, r, width=0):
    pygame.draw.ellipse(s, A(c), r, width)


def poly(s, c, pts, width=0):
    pygame.draw.polygon(s, A(c), pts, width)


def line(s, c, a, b, width=1):
    pygame.draw.line(s, A(c), a, b, width)


def lines(s, c, pts, width=1):
    pygame.draw.lines(s, A(c), False, pts, width)


def px(s, c, *pts):
    for p in pts:
        s.set_at(p, A(c))


def pix(s, x0, y0, rows, pal):
    """Paint an ASCII map: each character is a key of `pal` ('.' and ' ' are clear)."""
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch in pal:
                s.set_at((x0 + x, y0 + y), A(pal[ch]))


def outline(s, c=OUT):
    """Give the silhouette a 1-pixel outline: every clear pixel next to an opaque one."""
    w, h = s.get_size()
    solid = [[s.get_at((x, y)).a >= 128 for x in range(w)] for y in range(h)]
    for y in range(h):
        for x in range(w):
            if solid[y][x]:
                continue
            if any(0 <= x + dx < w and 0 <= y + dy < h and solid[y + dy][x + dx]
                   for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))):
                s.set_at((x, y), A(c))


def close_edges(s, c=OUT):
    """Shapes that run off the cell get their outline on the cell's border pixels."""
    w, h = s.get_size()
    for y in range(h):
        for x in range(w):
            if (x in (0, w - 1) or y in (0, h - 1)) and s.get_at((x, y)).a >= 128:
                s.set_at((x, y), A(c))


def ball(s, center, r, color, hi=True):
    """A shaded disc: darker lower right, a highlight upper left."""
    cx, cy = center
    circ(s, rgb(color, 0.8), center, r)
    circ(s, color, (cx - 1, cy - 1), r - 1)
    if hi and r >= 4:
        circ(s, rgb(color, 1.22), (cx - r // 2, cy - r // 2), max(1, r // 4))


def slab(s, r, color, rad=0):
    """A block with a light top/left edge and a dark bottom/right edge."""
    x, y, w, h = r
    rect(s, color, r, rad=rad)
    if w > 3 and h > 3:
        line(s, rgb(color, 1.2), (x + 1, y + 1), (x + w - 2, y + 1))
        line(s, rgb(color, 0.78), (x + 1, y + h - 1), (x + w - 2, y + h - 1))
        line(s, rgb(color, 0.85), (x + w - 1, y + 1), (x + w - 1, y + h - 2))


def thick(s, c, a, b, w=3):
    """A thick line with round ends (limbs, handles)."""
    line(s, c, a, b, w)
    circ(s, c, a, w // 2 + (w % 2 == 0))
    circ(s, c, b, w // 2 + (w % 2 == 0))


# the shared colours
WHITE = (250, 250, 246)
PAPER = (244, 240, 228)
GREY = (170, 176, 186)
STEEL = (140, 148, 160)
DARK = (70, 72, 84)
YELLOW = (255, 206, 72)
FACE = (255, 204, 77)
SKIN = (246, 196, 150)
RED = (224, 56, 60)
PINK = (244, 120, 170)
ORANGE = (246, 146, 50)
BROWN = (150, 96, 56)
WOOD = (196, 140, 84)
GREEN = (80, 170, 70)
LEAF = (60, 150, 60)
BLUE = (66, 132, 220)
SKY = (120, 190, 240)
WATER = (90, 170, 240)
PURPLE = (150, 90, 200)
HAIR = (90, 60, 40)
SHIRT = (60, 120, 210)
PANTS = (60, 66, 96)


def face(s, cx=12, cy=12, r=10):
    ball(s, (cx, cy), r, FACE)


def eyes(s, y=10, x1=8, x2=15, c=OUT):
    rect(s, c, (x1, y, 2, 3))
    rect(s, c, (x2, y, 2, 3))


def person(s, x, y, shirt=SHIRT, hair=HAIR):
    """Head and shoulders (bust), top-left of the head at (x, y); about 12x14."""
    ell(s, rgb(shirt, 0.8), (x - 3, y + 9, 16, 10))
    ell(s, shirt, (x - 2, y + 9, 14, 9))
    circ(s, SKIN, (x + 5, y + 5), 5)
    ell(s, hair, (x, y - 1, 11, 6))
    rect(s, hair, (x, y + 1, 2, 4))
    px(s, OUT, (x + 3, y + 5), (x + 7, y + 5))


# ---------------------------------------------------------------- faces and feelings


@icon("😴", "sleeping")
def _(s):
    face(s, 11, 13, 10)
    lines(s, OUT, [(6, 12), (7, 13), (9, 13), (10, 12)])
    lines(s, OUT, [(12, 12), (13, 13), (15, 13), (16, 12)])
    ell(s, OUT, (9, 16, 4, 4))
    # a little z
    outline(s)
    pix(s, 16, 0, ["#####", "...#.", "..#..", ".#...", "#####"], {"#": (70, 110, 220)})
    outline(s)


@icon("🙂", "content")
def _(s):
    face(s)
    eyes(s, 8, 8, 14)
    lines(s, OUT, [(7, 14), (8, 15), (9, 16), (14, 16), (15, 15), (16, 14)])
    outline(s)


@icon("🤔", "thinking")
def _(s):
    face(s, 12, 11, 10)
    eyes(s, 8, 8, 14)
    line(s, OUT, (6, 6), (9, 5))  # a raised brow
    line(s, OUT, (14, 6), (17, 6))
    line(s, OUT, (10, 15), (15, 14))
    outline(s)
    # the hand on the chin
    pix(s, 4, 15, [
        "..###.....",
        ".#####....",
        "#######...",
        "########..",
        ".########.",
        "..######..",
        "...####...",
    ], {"#": (250, 180, 60)})
    line(s, rgb(FACE, 0.75), (6, 17), (10, 17))
    outline(s)


@icon("❤️", "love")
def _(s):
    heart(s, RED)
    outline(s)


def heart(s, color, top=5):
    circ(s, rgb(color, 0.85), (8, top + 4), 5)
    circ(s, rgb(color, 0.85), (16, top + 4), 5)
    poly(s, rgb(color, 0.85), [(3, top + 6), (21, top + 6), (12, top + 16)])
    circ(s, color, (8, top + 3), 4)
    circ(s, color, (15, top + 3), 4)
    poly(s, color, [(4, top + 5), (19, top + 5), (12, top + 13)])
    rect(s, rgb(color, 1.4), (6, top + 1, 2, 2))


@icon("💝", "valentine")
def _(s):
    heart(s, PINK, 6)
    rect(s, YELLOW, (11, 6, 3, 16))
    rect(s, YELLOW, (3, 11, 19, 2))
    line(s, rgb(YELLOW, 0.8), (13, 7), (13, 19))
    outline(s)
    poly(s, YELLOW, [(12, 6), (6, 1), (6, 7)])
    poly(s, YELLOW, [(12, 6), (18, 1), (18, 7)])
    px(s, rgb(YELLOW, 0.7), (11, 5), (12, 5), (12, 6))
    outline(s)


@icon("💬", "talking")
def _(s):
    rect(s, WHITE, (1, 3, 22, 14), rad=5)
    poly(s, WHITE, [(5, 14), (11, 14), (4, 21)])
    line(s, (214, 218, 228), (3, 15), (20, 15))
    for x in (7, 12, 17):
        rect(s, (120, 130, 150), (x - 1, 9, 3, 3))
    outline(s)


@icon("🗣️", "speaking")
def _(s):
    pix(s, 1, 3, [
        "....######....",
        "..##########..",
        ".############.",
        ".#############",
        "##############",
        "##############",
        "#############.",
        "##############",
        ".#############",
        "..############",
        "...##########.",
        "....#########.",
        ".....####.###.",
        ".....####.....",
        ".....####.....",
        "....#######...",
        "..##########..",
    ], {"#": (70, 80, 110)})
    px(s, (150, 160, 190), (4, 5), (5, 5), (3, 6))
    outline(s)
    w = (70, 150, 240)
    lines(s, w, [(17, 8), (18, 10), (18, 12), (17, 14)], 2)
    lines(s, w, [(20, 5), (22, 8), (22, 14), (20, 17)], 2)


@icon("💡", "idea")
def _(s):
    ball(s, (12, 9), 7, (255, 222, 90))
    rect(s, (255, 222, 90), (9, 13, 7, 4))
    px(s, (255, 250, 210), (9, 6), (10, 5), (9, 7))
    lines(s, (220, 150, 40), [(10, 14), (10, 11), (12, 13), (14, 11), (14, 14)])
    rect(s, STEEL, (9, 17, 7, 4))
    line(s, rgb(STEEL, 0.7), (9, 18), (15, 18))
    line(s, rgb(STEEL, 0.7), (9, 20), (15, 20))
    rect(s, DARK, (11, 21, 3, 1))
    outline(s)
    y = (255, 200, 60)
    for a, b in (((1, 9), (2, 9)), ((21, 9), (22, 9)), ((3, 2), (4, 3)), ((21, 2), (20, 3))):
        line(s, y, a, b)


@icon("❓", "unknown")
def _(s):
    pix(s, 6, 1, [
        "..######..",
        ".########.",
        "###....###",
        "###....###",
        "......####",
        ".....####.",
        "....####..",
        "...####...",
        "...###....",
        "...###....",
        "..........",
        "...###....",
        "...###....",
        "...###....",
    ], {"#": RED})
    px(s, (255, 150, 150), (3 + 6, 2), (4 + 6, 2), (2 + 6, 3))
    outline(s)


@icon("🎉", "party")
def _(s):
    poly(s, ORANGE, [(2, 21), (8, 9), (14, 15)])
    poly(s, rgb(ORANGE, 0.8), [(2, 21), (14, 15), (11, 12)])
    line(s, (250, 220, 80), (5, 16), (9, 18), 2)
    line(s, (230, 70, 150), (7, 12), (12, 15), 2)
    outline(s)
    conf = [((14, 3), RED), ((19, 6), BLUE), ((11, 4), GREEN), ((20, 12), (250, 200, 40)),
            ((16, 9), PINK), ((21, 2), PURPLE), ((7, 3), (250, 200, 40)), ((18, 16), GREEN)]
    for (x, y), c in conf:
        rect(s, c, (x, y, 2, 2))
    lines(s, BLUE, [(11, 10), (12, 8), (11, 6)])
    lines(s, RED, [(14, 12), (16, 12), (17, 11)])


# ---------------------------------------------------------------- home and body


@icon("🛏️", "bed")
def _(s):
    rect(s, BROWN, (1, 6, 4, 15))              # headboard
    rect(s, rgb(BROWN, 1.2), (2, 7, 1, 12))
    rect(s, BROWN, (19, 12, 3, 9))             # footboard
    rect(s, WHITE, (4, 12, 16, 4))             # mattress
    rect(s, (90, 140, 220), (9, 10, 11, 6), rad=1)  # blanket
    line(s, (130, 175, 240), (9, 10), (19, 10))
    rect(s, (60, 100, 180), (9, 15, 11, 1))
    ell(s, WHITE, (4, 8, 7, 5))                # pillow
    rect(s, rgb(BROWN, 0.8), (4, 16, 16, 3))   # frame
    outline(s)


@icon("🛋️", "couch")
def _(s):
    c = (200, 90, 80)
    slab(s, (3, 5, 18, 9), c, 2)                  # back
    slab(s, (1, 10, 5, 9), rgb(c, 0.9), 2)        # arms
    slab(s, (18, 10, 5, 9), rgb(c, 0.9), 2)
    slab(s, (5, 13, 14, 5), rgb(c, 1.1))          # seat
    line(s, rgb(c, 0.7), (12, 13), (12, 17))
    rect(s, BROWN, (3, 19, 2, 2))
    rect(s, BROWN, (19, 19, 2, 2))
    outline(s)


@icon("🚿", "shower")
def _(s):
    line(s, STEEL, (3, 22), (3, 4), 2)
    line(s, STEEL, (3, 3), (11, 3), 2)
    line(s, STEEL, (12, 3), (12, 5), 2)
    poly(s, GREY, [(8, 9), (17, 9), (15, 5), (10, 5)])
    line(s, rgb(GREY, 1.2), (10, 6), (15, 6))
    outline(s)
    w = (80, 160, 240)
    for x, y in ((9, 12), (13, 12), (17, 12), (7, 16), (11, 16), (15, 16), (19, 16), (9, 20), (13, 20), (17, 20)):
        line(s, w, (x, y), (x, y + 2))


@icon("🛁", "bath")
def _(s):
    for x, y, r in ((7, 8, 3), (12, 6, 3), (17, 8, 3), (10, 10, 2)):
        circ(s, (220, 236, 250), (x, y), r)
        px(s, WHITE, (x - 1, y - 1))
    rect(s, WATER, (3, 11, 18, 2))
    slab(s, (1, 12, 22, 7), WHITE, 3)
    line(s, (190, 200, 214), (3, 17), (20, 17))
    rect(s, STEEL, (4, 19, 2, 3))
    rect(s, STEEL, (18, 19, 2, 3))
    outline(s)


@icon("🪥", "brushing teeth")
def _(s):
    thick(s, (60, 170, 200), (4, 21), (15, 8), 3)
    line(s, (140, 220, 240), (4, 20), (14, 8))
    rect(s, WHITE, (13, 3, 8, 5))
    for x in (14, 16, 18, 20):
        line(s, (200, 210, 220), (x, 4), (x, 7))
    ell(s, (120, 220, 190), (13, 0, 8, 4))
    outline(s)


@icon("🚽", "toilet")
def _(s):
    slab(s, (3, 2, 8, 11), WHITE, 1)            # tank
    rect(s, STEEL, (5, 4, 3, 1))
    ell(s, WHITE, (6, 10, 16, 6))                # seat seen from the side
    poly(s, WHITE, [(8, 13), (20, 13), (17, 19), (10, 19)])
    line(s, (190, 200, 214), (16, 14), (14, 18))
    rect(s, WHITE, (9, 19, 9, 3))
    line(s, (190, 200, 214), (9, 21), (17, 21))
    outline(s)
    line(s, OUT, (10, 12), (20, 12))


@icon("👕", "getting dressed")
def _(s):
    c = (70, 160, 220)
    poly(s, c, [(8, 3), (1, 7), (3, 12), (6, 11), (6, 21), (18, 21), (18, 11), (21, 12), (23, 7), (16, 3)])
    poly(s, rgb(c, 0.8), [(14, 11), (18, 11), (18, 21), (15, 21)])
    ell(s, rgb(c, 0.7), (9, 2, 6, 4))
    line(s, rgb(c, 1.25), (7, 12), (7, 20))
    outline(s)


@icon("🧹", "cleaning")
def _(s):
    thick(s, BROWN, (20, 2), (11, 13), 2)
    poly(s, (240, 200, 90), [(9, 12), (13, 16), (10, 23), (1, 23), (2, 19)])
    poly(s, (206, 160, 60), [(6, 20), (10, 16), (13, 16), (10, 23), (4, 23)])
    line(s, RED, (8, 12), (13, 17), 2)
    for a, b in (((3, 22), (6, 18)), ((6, 22), (8, 19)), ((9, 22), (10, 20))):
        line(s, (170, 120, 40), a, b)
    outline(s)


@icon("🧺", "laundry")
def _(s):
    circ(s, (250, 120, 140), (8, 8), 4)
    circ(s, (120, 200, 240), (15, 7), 5)
    circ(s, WHITE, (11, 9), 3)
    poly(s, (214, 170, 100), [(1, 10), (23, 10), (20, 22), (4, 22)])
    for y in (13, 16, 19):
        line(s, (170, 120, 60), (3, y), (21, y))
    for x in (7, 12, 17):
        line(s, (170, 120, 60), (x, 11), (x, 21))
    rect(s, rgb((214, 170, 100), 1.1), (1, 10, 22, 2))
    outline(s)


@icon("🪑", "sitting")
def _(s):
    c = WOOD
    rect(s, c, (5, 1, 3, 21))      # back post
    rect(s, c, (5, 2, 11, 3))      # back rails
    rect(s, c, (5, 7, 11, 2))
    rect(s, c, (14, 2, 2, 10))
    slab(s, (3, 11, 17, 3), rgb(c, 1.05))
    rect(s, rgb(c, 0.8), (5, 14, 2, 8))
    rect(s, rgb(c, 0.8), (17, 14, 2, 8))
    line(s, rgb(c, 0.7), (7, 18), (17, 18))
    outline(s)


# ---------------------------------------------------------------- food and drink


@icon("☕", "coffee")
def _(s):
    ell(s, (226, 226, 222), (1, 18, 20, 5))           # saucer
    rect(s, WHITE, (4, 8, 13, 12), rad=3)
    rect(s, (214, 214, 210), (13, 9, 4, 10))
    circ(s, WHITE, (18, 13), 4, 2)
    ell(s, (110, 64, 36), (5, 8, 11, 3))
    outline(s)
    st = (190, 196, 210)
    for x in (7, 12):
        lines(s, st, [(x, 6), (x - 1, 5), (x, 4), (x + 1, 3), (x, 2)])


@icon("🍵", "tea")
def _(s):
    c = (120, 180, 100)
    poly(s, c, [(3, 9), (21, 9), (18, 21), (6, 21)])
    poly(s, rgb(c, 0.8), [(15, 9), (21, 9), (18, 21), (14, 21)])
    ell(s, (160, 200, 80), (3, 7, 18, 4))
    line(s, rgb(c, 1.3), (5, 11), (7, 19))
    outline(s)
    st = (190, 196, 210)
    for x in (9, 15):
        lines(s, st, [(x, 5), (x - 1, 4), (x, 3), (x + 1, 2), (x, 1)])


@icon("🍳", "cooking")
def _(s):
    thick(s, DARK, (15, 15), (22, 21), 3)
    circ(s, (50, 52, 60), (9, 10), 9)
    circ(s, (90, 92, 104), (9, 10), 7)
    pix(s, 3, 5, [
        "..#####...",
        ".#######..",
        "#########.",
        "##########",
        "#########.",
        ".########.",
        "..######..",
        "...###....",
    ], {"#": WHITE})
    ball(s, (9, 9), 3, (250, 176, 40))
    outline(s)


@icon("🥣", "breakfast")
def _(s):
    thick(s, STEEL, (15, 12), (21, 2), 2)
    for x, y, c in ((6, 10, (230, 180, 80)), (10, 9, (210, 150, 60)), (14, 10, (230, 180, 80)), (18, 10, (210, 150, 60))):
        circ(s, c, (x, y), 2)
    poly(s, (90, 150, 230), [(1, 11), (23, 11), (19, 19), (5, 19)])
    rect(s, (90, 150, 230), (5, 16, 14, 5), rad=2)
    poly(s, (60, 110, 190), [(16, 11), (23, 11), (19, 19), (15, 20)])
    line(s, (150, 196, 250), (3, 12), (6, 18))
    rect(s, WHITE, (1, 11, 22, 1))
    rect(s, (60, 110, 190), (7, 21, 10, 2))
    outline(s)


@icon("🍽️", "eating")
def _(s):
    circ(s, (214, 218, 226), (12, 12), 7)
    circ(s, WHITE, (12, 12), 5)
    circ(s, (232, 234, 240), (13, 13), 3)
    # the fork (left): tines are the gaps the outline fills
    rect(s, STEEL, (0, 2, 5, 8))
    for x in (1, 3):
        line(s, (0, 0, 0, 0), (x, 2), (x, 6))
    rect(s, STEEL, (1, 9, 3, 13))
    line(s, rgb(STEEL, 1.25), (1, 10), (1, 20))
    # the knife (right)
    poly(s, (206, 212, 222), [(19, 2), (21, 1), (23, 3), (23, 12), (19, 12)])
    line(s, WHITE, (20, 3), (20, 11))
    rect(s, (110, 80, 60), (19, 12, 4, 10))
    outline(s)


@icon("🥪", "lunch")
def _(s):
    crust, bread = (200, 140, 70), (250, 226, 170)
    poly(s, crust, [(1, 20), (22, 20), (22, 3)])
    poly(s, bread, [(4, 19), (21, 19), (21, 6)])
    outline(s)
    line(s, (80, 180, 60), (2, 21), (22, 21), 2)
    line(s, (80, 180, 60), (22, 4), (22, 20), 2)
    line(s, RED, (4, 17), (19, 17), 1)
    line(s, (250, 210, 80), (8, 16), (19, 7))
    px(s, (70, 160, 50), (1, 22), (5, 23), (9, 22), (14, 23), (19, 22))
    outline(s)


@icon("🍝", "dinner")
def _(s):
    ell(s, (224, 226, 230), (1, 13, 22, 9))
    ell(s, WHITE, (3, 14, 18, 6))
    nood = (246, 210, 100)
    ell(s, nood, (4, 8, 16, 10))
    for y in (10, 12, 14):
        lines(s, (220, 170, 60), [(5, y), (8, y - 1), (11, y + 1), (14, y - 1), (18, y)])
    ball(s, (12, 10), 3, (200, 60, 40))
    circ(s, (140, 90, 60), (9, 12), 1)
    circ(s, (140, 90, 60), (15, 13), 1)
    line(s, STEEL, (17, 2), (15, 11), 2)
    outline(s)


@icon("🍞", "bread")
def _(s):
    c = (214, 150, 70)
    rect(s, c, (2, 10, 20, 11), rad=2)
    ell(s, c, (1, 4, 22, 12))
    ell(s, rgb(c, 1.15), (3, 5, 18, 9))
    for x in (7, 12, 17):
        line(s, (250, 220, 160), (x, 7), (x - 2, 11))
    rect(s, rgb(c, 0.8), (2, 18, 20, 3))
    outline(s)


@icon("🍰", "cake")
def _(s):
    poly(s, (250, 230, 190), [(2, 12), (21, 8), (21, 20), (2, 20)])
    rect(s, (240, 150, 170), (2, 15, 20, 2))
    poly(s, WHITE, [(2, 11), (21, 7), (21, 10), (2, 14)])
    rect(s, (226, 200, 160), (2, 18, 20, 3))
    ball(s, (13, 5), 3, RED)
    line(s, LEAF, (13, 2), (15, 1))
    outline(s)


@icon("🍺", "beer")
def _(s):
    circ(s, (250, 190, 50), (18, 12), 5, 2)
    rect(s, (250, 190, 50), (4, 7, 13, 15), rad=2)
    rect(s, (220, 150, 30), (13, 8, 4, 13))
    line(s, (255, 230, 130), (6, 10), (6, 19))
    line(s, (255, 230, 130), (8, 11), (8, 18))
    for x, r in ((5, 3), (9, 4), (14, 3)):
        circ(s, WHITE, (x, 6), r)
    outline(s)


@icon("🍷", "wine")
def _(s):
    ell(s, (230, 236, 244), (5, 1, 14, 14))
    rect(s, (0, 0, 0, 0), (5, 1, 14, 3))
    poly(s, (170, 30, 60), [(6, 7), (18, 7), (16, 12), (12, 14), (8, 12)])
    line(s, (220, 90, 110), (7, 8), (10, 8))
    rect(s, (230, 236, 244), (11, 14, 2, 6))
    ell(s, (230, 236, 244), (6, 19, 12, 4))
    outline(s)
    px(s, WHITE, (7, 4), (7, 5))


@icon("🍸", "cocktail")
def _(s):
    poly(s, (230, 236, 244), [(2, 3), (22, 3), (12, 13)])
    poly(s, (120, 210, 200), [(4, 5), (20, 5), (12, 12)])
    rect(s, (230, 236, 244), (11, 13, 2, 7))
    ell(s, (230, 236, 244), (6, 19, 12, 4))
    outline(s)
    line(s, DARK, (9, 1), (15, 9))
    ball(s, (15, 9), 2, (120, 170, 60), hi=False)


# ---------------------------------------------------------------- errands and work


@icon("🛒", "shopping")
def _(s):
    lines(s, DARK, [(1, 3), (4, 3), (7, 16), (20, 16)], 2)
    poly(s, GREY, [(5, 6), (22, 6), (20, 14), (7, 14)])
    for x in (9, 13, 17):
        line(s, STEEL, (x, 6), (x - 1 if x > 12 else x, 14))
    line(s, STEEL, (6, 10), (21, 10))
    circ(s, DARK, (9, 20), 2)
    circ(s, DARK, (18, 20), 2)
    outline(s)


@icon("🛍️", "shop counter")
def _(s):
    slab(s, (2, 8, 11, 14), (230, 80, 120))
    slab(s, (10, 10, 12, 12), (80, 170, 220))
    outline(s)
    pygame.draw.arc(s, A(OUT), (4, 3, 7, 10), 0, math.pi, 1)
    pygame.draw.arc(s, A(OUT), (12, 5, 8, 10), 0, math.pi, 1)
    rect(s, YELLOW, (14, 15, 4, 3))


@icon("🛎️", "service bell")
def _(s):
    rect(s, STEEL, (1, 18, 22, 3))
    pygame.draw.ellipse(s, A((240, 190, 60)), (3, 6, 18, 24))
    rect(s, (0, 0, 0, 0), (0, 18, 24, 6))
    rect(s, STEEL, (1, 18, 22, 3))
    line(s, rgb(STEEL, 0.7), (1, 20), (22, 20))
    ell(s, (255, 230, 140), (6, 9, 4, 5))
    rect(s, (200, 150, 40), (10, 3, 4, 3))
    outline(s)


@icon("💊", "pharmacy")
def _(s):
    # a capsule lying diagonally: red half upper right, white half lower left
    for i in range(11):
        x, y = 6 + i, 17 - i
        circ(s, RED if i > 5 else WHITE, (x, y), 5)
    for i in range(6):
        px(s, (255, 150, 150), (13 + i, 8 - i))
    line(s, (200, 200, 206), (4, 21), (10, 15))
    outline(s)


@icon("🧾", "paperwork")
def _(s):
    poly(s, WHITE, [(4, 1), (20, 1), (20, 20), (18, 22), (16, 20), (14, 22), (12, 20), (10, 22), (8, 20), (6, 22), (4, 20)])
    line(s, (214, 214, 220), (19, 2), (19, 19))
    for y, w in ((5, 12), (8, 9), (11, 12), (14, 7)):
        line(s, (130, 136, 150), (6, y), (6 + w - 1, y))
    line(s, (70, 150, 80), (13, 17), (18, 17))
    outline(s)


@icon("💼", "work")
def _(s):
    rect(s, (110, 70, 40), (8, 3, 8, 5), 2, rad=1)
    slab(s, (1, 7, 22, 15), (160, 100, 56), 2)
    line(s, (120, 72, 40), (2, 13), (21, 13))
    rect(s, YELLOW, (10, 11, 4, 4))
    outline(s)


@icon("💰", "money")
def _(s):
    c = (220, 180, 90)
    ball(s, (12, 14), 9, c)
    poly(s, c, [(8, 4), (16, 4), (13, 7), (11, 7)])
    rect(s, rgb(c, 0.7), (9, 6, 7, 2))
    pix(s, 9, 9, [".###.", "#.#..", ".###.", "..#.#", ".###."], {"#": (110, 140, 40)})
    px(s, (110, 140, 40), (11, 8), (11, 14))
    outline(s)


@icon("📦", "stocking shelves")
def _(s):
    top, side, front = (220, 176, 110), (170, 120, 66), (200, 150, 86)
    poly(s, top, [(2, 7), (10, 3), (22, 6), (14, 10)])
    poly(s, front, [(2, 7), (14, 10), (14, 22), (2, 18)])
    poly(s, side, [(14, 10), (22, 6), (22, 18), (14, 22)])
    line(s, (240, 230, 200), (6, 5), (18, 8), 2)
    line(s, (230, 214, 180), (8, 8), (8, 19), 2)
    outline(s)


@icon("🔧", "repair")
def _(s):
    c = (160, 170, 184)
    thick(s, c, (4, 20), (14, 10), 4)
    circ(s, c, (16, 8), 6)
    poly(s, (0, 0, 0, 0), [(16, 8), (18, 1), (24, 1), (24, 7)])
    line(s, rgb(c, 1.25), (4, 18), (13, 9))
    outline(s)


@icon("📞", "phone call")
def _(s):
    c = (220, 60, 60)
    thick(s, c, (6, 5), (18, 5), 4)
    poly(s, c, [(3, 4), (9, 4), (8, 9), (4, 9)])
    poly(s, c, [(15, 4), (21, 4), (20, 9), (16, 9)])
    poly(s, rgb(c, 0.9), [(6, 11), (18, 11), (21, 21), (3, 21)])
    line(s, rgb(c, 1.25), (5, 4), (18, 4))
    circ(s, WHITE, (12, 16), 3)
    circ(s, DARK, (12, 16), 1)
    outline(s)


@icon("📱", "smartphone")
def _(s):
    rect(s, (50, 54, 66), (6, 1, 12, 22), rad=2)
    rect(s, (110, 190, 240), (8, 3, 8, 16))
    rect(s, (170, 220, 250), (9, 4, 3, 2))
    rect(s, (250, 200, 80), (13, 8, 2, 2))
    rect(s, (120, 220, 120), (9, 12, 2, 2))
    rect(s, GREY, (11, 20, 2, 1))
    outline(s)


@icon("💻", "computer")
def _(s):
    rect(s, (60, 64, 76), (3, 3, 18, 13), rad=1)
    rect(s, (70, 140, 220), (5, 5, 14, 9))
    line(s, (150, 210, 250), (6, 6), (11, 6))
    line(s, (150, 210, 250), (6, 8), (9, 8))
    poly(s, GREY, [(3, 16), (21, 16), (23, 21), (1, 21)])
    line(s, rgb(GREY, 0.7), (1, 21), (23, 21))
    line(s, rgb(GREY, 1.2), (4, 17), (20, 17))
    line(s, STEEL, (9, 19), (15, 19))
    outline(s)


@icon("⌨️", "coding")
def _(s):
    slab(s, (0, 7, 24, 12), (120, 126, 140), 2)
    for row, y in enumerate((9, 12)):
        for x in range(2 + row, 21, 3):
            rect(s, (230, 232, 238), (x, y, 2, 2))
    rect(s, (230, 232, 238), (6, 15, 12, 2))
    rect(s, (230, 232, 238), (2, 15, 3, 2))
    rect(s, (230, 232, 238), (19, 15, 3, 2))
    outline(s)


@icon("📚", "studying")
def _(s):
    for y, x, w, c in ((16, 1, 21, (60, 120, 210)), (10, 3, 18, (220, 70, 70)), (4, 2, 19, (80, 170, 90))):
        rect(s, c, (x, y, w, 6))
        rect(s, PAPER, (x + w - 3, y + 1, 3, 4))
        line(s, rgb(c, 1.3), (x + 1, y + 1), (x + w - 5, y + 1))
        line(s, rgb(c, 0.7), (x + 1, y + 4), (x + w - 5, y + 4))
        rect(s, YELLOW, (x + 4, y + 2, 2, 2))
    outline(s)
    for y in (9, 15):
        line(s, OUT, (2, y), (21, y))


@icon("📖", "reading")
def _(s):
    cov = (60, 110, 190)
    poly(s, cov, [(0, 6), (11, 8), (12, 21), (13, 8), (23, 6), (23, 20), (12, 22), (0, 20)])
    poly(s, PAPER, [(2, 4), (11, 6), (11, 19), (2, 17)])
    poly(s, WHITE, [(13, 6), (21, 4), (21, 17), (13, 19)])
    for y in (8, 11, 14):
        line(s, (150, 150, 160), (4, y - 1), (9, y))
        line(s, (150, 150, 160), (15, y), (19, y - 1))
    outline(s)
    line(s, OUT, (12, 6), (12, 20))


@icon("📰", "news")
def _(s):
    slab(s, (2, 3, 20, 18), PAPER)
    rect(s, DARK, (4, 5, 16, 3))
    rect(s, (150, 180, 210), (4, 10, 7, 6))
    for y in (10, 12, 14, 16):
        line(s, (140, 140, 150), (13, y), (19, y))
    line(s, (140, 140, 150), (4, 18), (19, 18))
    outline(s)


@icon("✍️", "writing")
def _(s):
    slab(s, (1, 17, 22, 6), WHITE)
    lines(s, (60, 90, 200), [(3, 20), (4, 19), (6, 21), (8, 19), (9, 20)])
    outline(s)
    pen = (70, 80, 110)
    thick(s, pen, (9, 18), (16, 9), 2)                   # the pen
    px(s, (200, 170, 60), (9, 19), (8, 20))
    outline(s)
    poly(s, (220, 90, 80), [(17, 0), (23, 0), (23, 7), (19, 6)])   # the sleeve
    pix(s, 10, 4, [                                    # the hand gripping the pen
        "...#####..",
        ".########.",
        "##########",
        "##########",
        ".#########",
        "..#######.",
        "..#####...",
        "...##.....",
    ], {"#": SKIN})
    for a, b in (((13, 7), (13, 9)), ((15, 6), (15, 9)), ((17, 6), (17, 9))):
        line(s, rgb(SKIN, 0.75), a, b)
    px(s, rgb(SKIN, 1.1), (13, 5), (14, 5), (12, 6))
    outline(s)
    px(s, pen, (12, 12), (13, 11))


@icon("📝", "notes")
def _(s):
    slab(s, (2, 2, 16, 20), WHITE)
    for y in (6, 9, 12, 15):
        line(s, (130, 170, 220), (4, y), (15, y))
    outline(s)
    thick(s, (250, 200, 60), (10, 17), (20, 5), 3)
    line(s, (255, 230, 130), (10, 16), (19, 5))
    line(s, PINK, (20, 5), (21, 3), 3)
    outline(s)
    px(s, DARK, (9, 19), (9, 18))


@icon("✉️", "mail")
def _(s):
    slab(s, (1, 5, 22, 15), WHITE)
    lines(s, (170, 176, 190), [(2, 6), (12, 14), (21, 6)])
    line(s, (200, 204, 214), (2, 18), (8, 12))
    line(s, (200, 204, 214), (21, 18), (15, 12))
    outline(s)


@icon("📅", "planning")
def _(s):
    slab(s, (2, 4, 20, 18), WHITE, 1)
    rect(s, RED, (2, 4, 20, 5))
    for y in (11, 15, 19):
        for x in (5, 9, 13, 17):
            rect(s, (150, 156, 170), (x, y, 2, 2))
    rect(s, RED, (13, 15, 2, 2))
    outline(s)
    for x in (7, 16):
        rect(s, DARK, (x, 2, 2, 4))


@icon("🗳️", "election")
def _(s):
    slab(s, (2, 10, 20, 12), (90, 120, 200))
    rect(s, OUT, (6, 11, 12, 1))
    rect(s, rgb((90, 120, 200), 1.3), (2, 10, 20, 1))
    outline(s)
    poly(s, WHITE, [(7, 2), (17, 1), (18, 11), (8, 11)])
    lines(s, (60, 160, 80), [(10, 6), (12, 8), (15, 3)], 2)
    outline(s)


@icon("📣", "announcement")
def _(s):
    poly(s, (226, 60, 60), [(3, 9), (17, 2), (17, 20), (3, 14)])
    poly(s, rgb((226, 60, 60), 0.8), [(3, 12), (17, 13), (17, 20), (3, 14)])
    rect(s, WHITE, (1, 8, 3, 7))
    ell(s, (240, 240, 240), (15, 1, 6, 20))
    ell(s, (200, 40, 40), (16, 4, 4, 14))
    thick(s, DARK, (8, 16), (9, 21), 2)
    outline(s)


@icon("🏫", "school")
def _(s):
    wall = (240, 200, 150)
    slab(s, (1, 10, 22, 12), wall)
    poly(s, (200, 80, 60), [(0, 10), (12, 3), (24, 10)])
    rect(s, wall, (8, 7, 8, 4))
    circ(s, WHITE, (12, 8), 3)
    line(s, DARK, (12, 6), (12, 8))
    line(s, DARK, (12, 8), (13, 8))
    rect(s, (120, 80, 50), (10, 15, 4, 7))
    for x in (3, 17):
        rect(s, (120, 180, 240), (x, 13, 4, 4))
    outline(s)
    line(s, DARK, (12, 3), (12, 0))
    rect(s, RED, (13, 0, 4, 2))


@icon("🧑‍🏫", "lecturing")
def _(s):
    board = (50, 110, 80)
    rect(s, (150, 100, 60), (0, 1, 24, 14))
    rect(s, board, (1, 2, 22, 12))
    lines(s, WHITE, [(3, 5), (5, 4), (7, 6), (9, 5)])
    line(s, WHITE, (14, 4), (20, 4))
    line(s, WHITE, (15, 7), (20, 7))
    outline(s)
    person(s, 3, 8, (120, 80, 170), (60, 40, 30))
    line(s, (230, 230, 230), (14, 16), (19, 10), 1)  # the pointer
    outline(s)


@icon("🎓", "graduation")
def _(s):
    c = (50, 54, 70)
    poly(s, c, [(1, 8), (12, 3), (23, 8), (12, 13)])
    poly(s, rgb(c, 1.4), [(4, 8), (12, 5), (12, 6), (5, 8)])
    rect(s, c, (6, 11, 12, 6), rad=2)
    poly(s, c, [(6, 10), (18, 10), (12, 13)])
    outline(s)
    line(s, YELLOW, (12, 8), (20, 11))
    line(s, YELLOW, (20, 11), (20, 17))
    rect(s, YELLOW, (19, 17, 3, 3))


# ---------------------------------------------------------------- arts and media


@icon("🎨", "painting")
def _(s):
    c = (226, 186, 126)
    ell(s, c, (1, 3, 22, 18))
    ell(s, rgb(c, 0.85), (12, 13, 9, 6))
    circ(s, (0, 0, 0, 0), (8, 16), 2)
    for (x, y), col in (((7, 8), RED), ((12, 6), YELLOW), ((17, 8), BLUE), ((18, 13), GREEN), ((13, 11), PURPLE)):
        ball(s, (x, y), 2, col, hi=False)
    outline(s)
    pix(s, 7, 14, ["###", "#.#", "###"], {"#": OUT})
    px(s, (0, 0, 0, 0), (8, 15))


@icon("🖌️", "drawing")
def _(s):
    lines(s, (80, 140, 230), [(2, 22), (6, 19), (9, 21), (12, 18)], 2)
    thick(s, (190, 60, 60), (21, 2), (13, 10), 3)
    poly(s, GREY, [(10, 11), (12, 9), (15, 12), (13, 14)])
    poly(s, (250, 230, 200), [(10, 11), (13, 14), (8, 18), (6, 18), (6, 16)])
    poly(s, (80, 140, 230), [(7, 15), (10, 17), (8, 18), (5, 19)])
    outline(s)


@icon("📷", "photography")
def _(s):
    rect(s, (60, 64, 76), (6, 3, 8, 4))
    slab(s, (1, 6, 22, 15), (80, 84, 98), 2)
    rect(s, (110, 114, 128), (1, 10, 22, 2))
    ball(s, (12, 13), 6, (140, 146, 160))
    circ(s, (30, 34, 50), (12, 13), 4)
    circ(s, (90, 150, 220), (12, 13), 2)
    px(s, WHITE, (11, 12))
    rect(s, (250, 220, 120), (17, 8, 3, 2))
    outline(s)


@icon("🎬", "film")
def _(s):
    slab(s, (1, 9, 22, 13), (60, 64, 76))
    poly(s, (60, 64, 76), [(1, 6), (21, 1), (22, 5), (2, 10)])
    for i in range(4):
        x = 4 + i * 5
        poly(s, WHITE, [(x, 5 - i), (x + 2, 5 - i), (x + 1, 8 - i), (x - 1, 8 - i)])
        rect(s, WHITE, (x - 1, 10, 2, 3))
    line(s, WHITE, (3, 15), (19, 15))
    outline(s)


@icon("🎭", "acting")
def _(s):
    gold = (240, 196, 80)
    ball(s, (15, 8), 7, (130, 150, 220))
    outline(s)
    rect(s, OUT, (12, 5, 3, 2))
    rect(s, OUT, (17, 5, 3, 2))
    pygame.draw.arc(s, A(OUT), (13, 9, 6, 5), 0.3, math.pi - 0.3, 1)
    ball(s, (8, 14), 7, gold)
    outline(s)
    rect(s, OUT, (4, 12, 3, 2))
    rect(s, OUT, (9, 12, 3, 2))
    pygame.draw.arc(s, A(OUT), (4, 13, 8, 6), math.pi + 0.3, 2 * math.pi - 0.3, 2)


@icon("🎤", "singing")
def _(s):
    thick(s, DARK, (6, 21), (12, 12), 4)
    line(s, (120, 124, 140), (5, 20), (10, 13))
    rect(s, (120, 120, 130), (4, 17, 4, 2))
    ball(s, (15, 8), 7, (180, 186, 200))
    for x in (11, 14, 17):
        line(s, rgb((180, 186, 200), 0.7), (x, 3), (x + 3, 13))
    for y in (5, 8, 11):
        line(s, rgb((180, 186, 200), 0.7), (9, y), (21, y - 1))
    outline(s)


@icon("🎹", "piano")
def _(s):
    rect(s, (40, 40, 50), (0, 4, 24, 17))
    for x in range(1, 23, 4):
        rect(s, WHITE, (x, 6, 3, 14))
        line(s, (200, 204, 214), (x, 19), (x + 2, 19))
    for x in (3, 7, 15, 19):
        rect(s, (30, 30, 36), (x, 6, 2, 8))
    line(s, (180, 60, 60), (0, 5), (23, 5))
    outline(s)


@icon("🎵", "music")
def _(s):
    c = (90, 90, 220)
    ell(s, c, (3, 15, 8, 6))
    rect(s, c, (9, 3, 2, 15))
    poly(s, c, [(10, 2), (19, 6), (19, 10), (10, 6)])
    px(s, rgb(c, 1.5), (5, 16), (6, 16))
    outline(s)


@icon("🎸", "guitar")
def _(s):
    body = (232, 140, 50)
    thick(s, (120, 70, 40), (10, 13), (20, 3), 3)
    rect(s, DARK, (19, 0, 4, 4))
    ball(s, (7, 17), 5, body)
    ball(s, (11, 13), 4, body, hi=False)
    circ(s, (60, 36, 20), (9, 15), 2)
    line(s, WHITE, (5, 19), (19, 4))
    rect(s, (90, 50, 30), (4, 18, 3, 2))
    outline(s)


@icon("🎧", "listening")
def _(s):
    c = (60, 64, 80)
    pygame.draw.arc(s, A(c), (3, 2, 18, 20), 0, math.pi, 3)
    rect(s, c, (3, 11, 3, 4))
    rect(s, c, (18, 11, 3, 4))
    slab(s, (1, 12, 6, 9), (220, 70, 80), 2)
    slab(s, (17, 12, 6, 9), (220, 70, 80), 2)
    outline(s)


@icon("🎮", "games")
def _(s):
    c = (110, 116, 140)
    ell(s, c, (1, 8, 10, 13))
    ell(s, c, (13, 8, 10, 13))
    rect(s, c, (5, 7, 14, 9), rad=3)
    line(s, rgb(c, 1.3), (6, 8), (17, 8))
    rect(s, (40, 40, 50), (4, 11, 6, 2))
    rect(s, (40, 40, 50), (6, 9, 2, 6))
    circ(s, RED, (17, 10), 1)
    circ(s, (70, 200, 90), (19, 13), 1)
    circ(s, BLUE, (15, 13), 1)
    circ(s, YELLOW, (17, 15), 1)
    outline(s)


@icon("📺", "tv")
def _(s):
    line(s, DARK, (12, 6), (7, 1))
    line(s, DARK, (12, 6), (17, 1))
    slab(s, (1, 6, 22, 15), (150, 100, 60), 2)
    rect(s, (80, 150, 220), (3, 8, 14, 11), rad=2)
    line(s, (170, 210, 250), (4, 9), (8, 9))
    circ(s, DARK, (20, 10), 1)
    circ(s, DARK, (20, 14), 1)
    rect(s, DARK, (4, 21, 3, 1))
    rect(s, DARK, (17, 21, 3, 1))
    outline(s)


# ---------------------------------------------------------------- science


@icon("🧪", "chemistry")
def _(s):
    glass = (220, 236, 244)
    for i in range(12):
        circ(s, glass if i < 6 else (110, 220, 90), (8 + i, 19 - i), 3)
    for i in range(8):
        circ(s, (110, 220, 90) if i < 4 else glass, (8 + i, 19 - i), 3)
    for i in range(4):
        circ(s, (110, 220, 90), (8 + i, 19 - i), 3)
    line(s, WHITE, (7, 16), (14, 9))
    rect(s, STEEL, (17, 2, 6, 5))
    outline(s)
    px(s, (160, 250, 140), (13, 4), (10, 7))
    rect(s, (140, 240, 120), (11, 4, 2, 2))


@icon("🔬", "research")
def _(s):
    c = (80, 90, 120)
    rect(s, c, (2, 19, 20, 4))                   # base
    rect(s, c, (13, 8, 3, 12))                    # arm
    thick(s, (140, 150, 180), (7, 3), (11, 13), 4)  # tube
    rect(s, DARK, (4, 1, 5, 3))                   # eyepiece
    rect(s, GREY, (5, 15, 10, 2))                 # stage
    rect(s, (180, 190, 210), (10, 13, 3, 2))
    line(s, rgb(c, 1.4), (3, 19), (20, 19))
    outline(s)


@icon("🧮", "maths")
def _(s):
    rect(s, BROWN, (1, 2, 22, 20), 2, rad=1)
    beads = (RED, YELLOW, GREEN, BLUE)
    for i, y in enumerate((6, 10, 14, 18)):
        line(s, (160, 130, 90), (3, y), (20, y))
        for k in range(3):
            x = 4 + k * 3 + (i % 2) * 8
            ball(s, (x + 1, y), 1, beads[i], hi=False)
            rect(s, beads[i], (x, y - 1, 3, 3))
            px(s, rgb(beads[i], 1.3), (x, y - 1))
    outline(s)


# ---------------------------------------------------------------- out and about


def figure(s, head, parts, shirt=SHIRT, pants=PANTS):
    """A pictogram person: limbs are (colour, [points]) thick lines; head is a centre."""
    for c, pts in parts:
        for a, b in itertools.pairwise(pts):
            thick(s, c, a, b, 3)
    ball(s, head, 3, SKIN, hi=False)
    px(s, HAIR, (head[0] - 2, head[1] - 2), (head[0] - 1, head[1] - 3), (head[0], head[1] - 3),
       (head[0] + 1, head[1] - 3), (head[0] - 3, head[1] - 1))


@icon("🏃", "running")
def _(s):
    sh, pa = (230, 90, 70), PANTS
    figure(s, (14, 4), [
        (pa, [(11, 13), (15, 16), (14, 21)]),                 # front leg
        (pa, [(11, 13), (8, 17), (3, 17)]),                  # back leg
        (sh, [(13, 8), (17, 11), (20, 9)]),                  # front arm
        (sh, [(13, 8), (11, 13)]),                           # body
        (sh, [(13, 8), (8, 10), (6, 13)]),                   # back arm
    ])
    outline(s)


@icon("🚶", "walking")
def _(s):
    sh, pa = (70, 150, 110), PANTS
    figure(s, (12, 4), [
        (pa, [(12, 14), (9, 18), (8, 22)]),
        (pa, [(12, 14), (14, 18), (16, 21)]),
        (sh, [(12, 9), (9, 12), (9, 15)]),
        (sh, [(12, 8), (12, 14)]),
        (sh, [(12, 9), (14, 12), (15, 15)]),
    ])
    outline(s)


@icon("🏋️", "exercise")
def _(s):
    sh, pa = (220, 120, 40), PANTS
    figure(s, (12, 8), [
        (pa, [(12, 16), (8, 19), (8, 22)]),
        (pa, [(12, 16), (16, 19), (16, 22)]),
        (sh, [(12, 12), (12, 16)]),
        (sh, [(12, 12), (7, 9), (6, 4)]),
        (sh, [(12, 12), (17, 9), (18, 4)]),
    ])
    rect(s, STEEL, (1, 3, 22, 2))
    rect(s, DARK, (1, 0, 3, 8))
    rect(s, DARK, (20, 0, 3, 8))
    outline(s)


@icon("🧘", "relaxing")
def _(s):
    sh, pa = (160, 110, 210), (80, 70, 120)
    ell(s, pa, (2, 16, 20, 6))
    figure(s, (12, 4), [
        (sh, [(12, 9), (12, 15)]),
        (sh, [(11, 9), (7, 13), (5, 16)]),
        (sh, [(13, 9), (17, 13), (19, 16)]),
    ])
    rect(s, sh, (10, 9, 5, 7))
    rect(s, SKIN, (4, 16, 2, 2))
    rect(s, SKIN, (18, 16, 2, 2))
    outline(s)


@icon("⚽", "sports")
def _(s):
    ball(s, (12, 12), 10, WHITE, hi=False)
    blk = (40, 40, 50)
    pent = [(12, 8), (15, 10), (14, 14), (10, 14), (9, 10)]
    poly(s, blk, pent)
    for (x, y), (ex, ey) in zip(pent, ((12, 3), (20, 8), (18, 19), (6, 19), (4, 8))):
        line(s, blk, (x, y), (ex, ey))
    for c, r in (((12, 3), 3), ((21, 9), 2), ((18, 20), 2), ((6, 20), 2), ((3, 9), 2)):
        circ(s, blk, c, r)
    outline(s)
    # clip the spots to the ball
    for y in range(T):
        for x in range(T):
            if (x - 12) ** 2 + (y - 12) ** 2 > 11 * 11:
                s.set_at((x, y), (0, 0, 0, 0))
    outline(s)


@icon("🌳", "park")
def _(s):
    rect(s, BROWN, (10, 14, 4, 9))
    line(s, rgb(BROWN, 1.25), (10, 15), (10, 22))
    g = (70, 160, 70)
    for (x, y), r in (((7, 11), 6), ((17, 11), 6), ((12, 6), 6), ((12, 13), 5)):
        circ(s, rgb(g, 0.8), (x, y), r)
    for (x, y), r in (((6, 10), 5), ((16, 10), 5), ((11, 5), 5)):
        circ(s, g, (x, y), r)
    for x, y in ((8, 4), (9, 3), (4, 8), (14, 8), (15, 7)):
        px(s, rgb(g, 1.3), (x, y))
    outline(s)


@icon("🌷", "gardening")
def _(s):
    g = (70, 160, 70)
    line(s, g, (12, 10), (12, 22), 2)
    poly(s, g, [(12, 22), (5, 12), (7, 12), (12, 19)])
    poly(s, rgb(g, 0.8), [(13, 22), (19, 14), (17, 14), (13, 19)])
    c = (236, 70, 110)
    poly(s, c, [(6, 3), (9, 6), (12, 2), (15, 6), (18, 3), (18, 9), (15, 12), (9, 12), (6, 9)])
    poly(s, rgb(c, 0.8), [(12, 2), (15, 6), (18, 3), (18, 9), (15, 12), (12, 12)])
    line(s, rgb(c, 1.3), (8, 7), (8, 9))
    outline(s)


@icon("🌱", "seedling")
def _(s):
    g = (90, 180, 70)
    rect(s, (150, 100, 60), (3, 18, 18, 5), rad=2)
    line(s, rgb((150, 100, 60), 1.25), (5, 18), (18, 18))
    line(s, rgb(g, 0.8), (12, 18), (12, 9), 2)
    ell(s, g, (2, 5, 10, 6))
    ell(s, rgb(g, 0.8), (13, 3, 10, 6))
    line(s, rgb(g, 1.3), (4, 7), (8, 7))
    outline(s)
    line(s, rgb(g, 0.6), (12, 9), (17, 6))
    line(s, rgb(g, 0.6), (11, 9), (7, 8))


@icon("🦆", "ducks")
def _(s):
    body, head = (150, 110, 80), (40, 130, 70)
    ell(s, body, (2, 10, 19, 11))
    poly(s, body, [(2, 14), (0, 9), (6, 12)])
    ell(s, rgb(body, 0.8), (6, 12, 10, 6))
    ball(s, (16, 7), 4, head, hi=False)
    rect(s, WHITE, (14, 11, 5, 1))
    poly(s, (250, 190, 40), [(19, 7), (23, 8), (23, 9), (19, 10)])
    rect(s, (110, 160, 220), (8, 13, 4, 2))
    outline(s)
    px(s, OUT, (16, 6))


@icon("🐕", "dog walk")
def _(s):
    c = (200, 150, 90)
    rect(s, c, (4, 10, 13, 6), rad=2)           # body
    thick(s, c, (6, 15), (5, 21), 2)            # legs
    thick(s, c, (15, 15), (16, 21), 2)
    thick(s, c, (4, 11), (1, 7), 2)             # tail
    ball(s, (17, 8), 4, c, hi=False)       # head
    rect(s, c, (18, 8, 5, 4))                    # muzzle
    rect(s, rgb(c, 0.65), (14, 5, 3, 7))         # ear
    line(s, rgb(c, 1.2), (5, 11), (14, 11))
    outline(s)
    px(s, OUT, (18, 7), (23, 8))
    rect(s, RED, (15, 12, 2, 2))


@icon("🚌", "bus")
def _(s):
    c = (240, 180, 40)
    slab(s, (1, 4, 22, 15), c, 3)
    for x in (3, 8, 13):
        rect(s, (130, 200, 240), (x, 6, 4, 5))
    rect(s, (130, 200, 240), (18, 6, 4, 8))
    line(s, rgb(c, 0.7), (1, 14), (17, 14))
    rect(s, WHITE, (20, 16, 2, 1))
    outline(s)
    for x in (6, 17):
        circ(s, (40, 40, 50), (x, 19), 3)
        circ(s, GREY, (x, 19), 1)


@icon("🏠", "home")
def _(s):
    slab(s, (3, 11, 18, 11), (240, 230, 200))
    poly(s, (200, 70, 60), [(0, 12), (12, 2), (24, 12)])
    line(s, rgb((200, 70, 60), 1.25), (3, 11), (12, 4))
    rect(s, (130, 80, 50), (10, 15, 5, 7))
    rect(s, (120, 180, 240), (5, 14, 3, 3))
    rect(s, (120, 180, 240), (17, 14, 3, 3))
    outline(s)
    rect(s, DARK, (17, 2, 3, 6))


@icon("☀️", "morning")
def _(s):
    y = (255, 200, 50)
    for i in range(8):
        a = i * math.pi / 4
        x1, y1 = 12 + math.cos(a) * 7, 12 + math.sin(a) * 7
        x2, y2 = 12 + math.cos(a) * 10, 12 + math.sin(a) * 10
        line(s, (250, 160, 40), (round(x1), round(y1)), (round(x2), round(y2)), 2)
    ball(s, (12, 12), 6, y)
    outline(s)


@icon("💤", "zzz")
def _(s):
    zzz(s, (90, 130, 230))


def zzz(s, c):
    pix(s, 1, 11, ["#######", "#######", "....##.", "...##..", "..##...", ".##....", "#######", "#######"], {"#": c})
    pix(s, 10, 5, ["#####", "#####", "..##.", ".##..", "#####", "#####"], {"#": c})
    pix(s, 17, 1, ["####", "..#.", ".#..", "####"], {"#": c})
    outline(s)


@icon("🤝", "meeting")
def _(s):
    person(s, 12, 4, (220, 90, 80), (200, 150, 60))
    outline(s)
    person(s, 2, 7, (60, 120, 210), HAIR)
    outline(s)


@icon("👋", "greeting")
def _(s):
    pix(s, 5, 2, [
        ".....##.......",
        "..##.##.##....",
        "..##.##.##....",
        "..##.##.##....",
        "..##.##.##.##.",
        "..##.##.##.##.",
        "..##.##.##.##.",
        "..###########.",
        "##.##########.",
        "###.#########.",
        ".############.",
        "..##########..",
        "...########...",
        "....######....",
        "....######....",
    ], {"#": (250, 204, 90)})
    outline(s)
    line(s, rgb((250, 204, 90), 0.75), (9, 16), (15, 16))
    for a, b in (((1, 4), (2, 7)), ((20, 3), (21, 6)), ((1, 9), (3, 10))):
        line(s, (140, 150, 170), a, b)


# ---------------------------------------------------------------- the UI sheet


def ui_think():
    s = new()
    for (x, y), r in (((12, 9), 7), ((6, 11), 5), ((18, 11), 5), ((9, 7), 5), ((15, 7), 5)):
        circ(s, WHITE, (x, y), r)
    rect(s, WHITE, (3, 10, 18, 5), rad=2)
    line(s, (210, 216, 228), (5, 15), (19, 15))
    for x in (7, 12, 17):
        rect(s, (90, 96, 116), (x - 1, 10, 3, 3))
    circ(s, WHITE, (6, 19), 2)
    circ(s, WHITE, (3, 22), 1)
    outline(s)
    return s


def ui_zzz():
    s = new()
    zzz(s, (120, 160, 240))
    return s


BUBBLE = 15        # the 9-slice frame is BUBBLE x BUBBLE ...
BUBBLE_SLICE = 5   # ... keeping this many pixels of each border unstretched
TAIL = (9, 6)


def ui_bubble():
    s = new(BUBBLE, BUBBLE)
    rect(s, WHITE, (0, 0, BUBBLE, BUBBLE), rad=5)
    rect(s, OUT, (0, 0, BUBBLE, BUBBLE), 1, rad=5)
    line(s, (216, 220, 230), (3, BUBBLE - 2), (BUBBLE - 4, BUBBLE - 2))  # a soft shade inside the bottom edge
    return s


def ui_tail():
    """The bubble's tail: its top row is the bubble's interior colour (it covers the bottom edge)."""
    w, h = TAIL
    s = new(w, h)
    poly(s, OUT, [(0, 0), (w - 1, 0), (w // 2, h - 1)])
    poly(s, WHITE, [(1, 0), (w - 2, 0), (w // 2, h - 3)])
    return s


UI_PARTS = [("think", ui_think), ("zzz", ui_zzz), ("bubble", ui_bubble), ("bubble_tail", ui_tail)]


# ---------------------------------------------------------------- build

# Emoji the game knows it cannot draw as such: map them to a close icon.
ALIASES = {
    "🍴": "🍽️", "🥄": "🥣", "🥐": "🍞", "🧁": "🍰", "🎂": "🍰", "🍪": "🍰", "🍩": "🍰",
    "🍕": "🍝", "🍜": "🍝", "🍲": "🍝", "🥗": "🍽️", "🍔": "🥪", "🌮": "🥪", "🥘": "🍳",
    "🧑‍🍳": "🍳", "👩‍🍳": "🍳", "👨‍🍳": "🍳", "🍻": "🍺", "🥂": "🍷", "🍹": "🍸", "🧃": "🍸",
    "🥤": "🍸", "🫖": "🍵", "🧋": "☕", "🛌": "🛏️", "🥱": "😴", "🌙": "😴", "🧼": "🛁",
    "🧽": "🧹", "🧴": "🛁", "🪒": "🪥", "👗": "👕", "👔": "👕", "🧥": "👕", "🗑️": "🧹",
    "🏪": "🛍️", "🏬": "🛍️", "💵": "💰", "💳": "💰", "🏦": "💰", "📋": "📝", "✏️": "📝",
    "🖊️": "📝", "🖋️": "✍️", "📓": "📝", "📔": "📖", "📕": "📖", "📗": "📖", "📘": "📖",
    "📙": "📖", "🗂️": "🧾", "📊": "🧮", "📈": "🧮", "🔢": "🧮", "➗": "🧮", "🖥️": "💻",
    "🧑‍💻": "💻", "👩‍💻": "💻", "👨‍💻": "💻", "🖱️": "💻", "📧": "✉️", "📨": "✉️", "📩": "✉️",
    "📬": "✉️", "📮": "✉️", "📜": "🧾", "🖼️": "🎨", "🧑‍🎨": "🎨", "👩‍🎨": "🎨", "👨‍🎨": "🎨",
    "✏": "📝", "📸": "📷", "🎥": "🎬", "📹": "🎬", "🎞️": "🎬", "🎶": "🎵", "🎼": "🎵",
    "🎙️": "🎤", "🎻": "🎸", "🎷": "🎵", "🎺": "🎵", "🥁": "🎵", "🕹️": "🎮", "👾": "🎮",
    "🎲": "🎮", "♟️": "🎮", "🔭": "🔬", "⚗️": "🧪", "🧬": "🔬", "🧑‍🔬": "🔬", "👩‍🔬": "🔬",
    "👨‍🔬": "🔬", "🏃‍♂️": "🏃", "🏃‍♀️": "🏃", "🤸": "🏋️", "💪": "🏋️", "🚴": "🏃",
    "🏀": "⚽", "🎾": "⚽", "🏈": "⚽", "⚾": "⚽", "🏞️": "🌳", "🌲": "🌳", "🌴": "🌳",
    "🍃": "🌳", "🌸": "🌷", "🌹": "🌷", "🌻": "🌷", "🌼": "🌷", "💐": "🌷", "🪴": "🌱",
    "🌿": "🌱", "🐦": "🦆", "🦢": "🦆", "🐶": "🐕", "🦮": "🐕", "🐩": "🐕", "🗨️": "💬",
    "💭": "🤔", "🧠": "🤔", "☎️": "📞", "📲": "📱", "😊": "🙂", "😀": "🙂", "😃": "🙂",
    "😄": "🙂", "🙂‍↕️": "🙂", "😌": "🧘", "🥰": "❤️", "😍": "❤️", "💕": "❤️", "💖": "💝",
    "💗": "❤️", "💘": "💝", "🎈": "🎉", "🎊": "🎉", "🥳": "🎉", "🎁": "💝",
    "📢": "📣", "🏛️": "🗳️", "🧑‍⚖️": "🧾", "⚖️": "🧾", "🏢": "💼", "👩‍🏫": "🧑‍🏫", "👨‍🏫": "🧑‍🏫",
    "🏥": "💊", "🩺": "💊", "💉": "💊", "🔨": "🔧", "🛠️": "🔧", "🪛": "🔧", "🧰": "🔧",
    "🏡": "🏠", "🏘️": "🏠", "🚪": "🏠", "🚶‍♂️": "🚶", "🚶‍♀️": "🚶", "🧍": "🚶", "🚏": "🚌",
    "🌅": "☀️", "🌄": "☀️", "⏰": "☀️", "🛀": "🛁", "🧖": "🛁", "🛎": "🛎️",
    "🍽": "🍽️", "🗞️": "📰", "🙋": "👋",
}


def _strip(e: str) -> str:
    return "".join(ch for ch in e if ch != "\ufe0f" and not 0x1F3FB <= ord(ch) <= 0x1F3FF)


EMOJI = [e for e, _, _ in _REGISTRY]
assert len(set(EMOJI)) == len(EMOJI), "duplicate emoji"
assert len({_strip(e) for e in EMOJI}) == len(EMOJI), "emoji equal up to variation selectors"
ROWS = (len(EMOJI) + COLS - 1) // COLS


def render() -> pygame.Surface:
    pygame.init()
    sheet = pygame.Surface((COLS * T, ROWS * T), pygame.SRCALPHA)
    sheet.fill((0, 0, 0, 0))
    for i, (_, _, fn) in enumerate(_REGISTRY):
        s = new()
        fn(s)
        close_edges(s)
        sheet.blit(s, ((i % COLS) * T, (i // COLS) * T))
    return sheet


def render_ui() -> tuple[pygame.Surface, dict[str, list[int]]]:
    pygame.init()
    parts = [(name, fn()) for name, fn in UI_PARTS]
    width = sum(p.get_width() for _, p in parts) + len(parts) - 1
    sheet = pygame.Surface((width, T), pygame.SRCALPHA)
    sheet.fill((0, 0, 0, 0))
    rects, x = {}, 0
    for name, p in parts:
        sheet.blit(p, (x, 0))
        rects[name] = [x, 0, p.get_width(), p.get_height()]
        x += p.get_width() + 1
    return sheet, rects


def aliases() -> dict[str, str]:
    known = set(EMOJI)
    return {k: v for k, v in sorted(ALIASES.items()) if k not in known and v in known}


def build(out_dir: str | Path) -> Path:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    png = out_dir / "emoji.png"
    save_png(png, surface_to_rgba(render()))
    ui, rects = render_ui()
    save_png(out_dir / "ui.png", surface_to_rgba(ui))
    meta = {
        "size": T, "columns": COLS, "rows": ROWS, "count": len(EMOJI),
        "icons": {e: i for i, e in enumerate(EMOJI)},
        "names": {e: name for e, name, _ in _REGISTRY},
        "aliases": aliases(),
        "ui_image": "ui.png",
        "ui": rects,
        "bubble_slice": BUBBLE_SLICE,
    }
    (out_dir / "emoji.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return png


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(Path(__file__).resolve().parent / "icons"))
    a = p.parse_args(argv)
    png = build(a.out)
    print(f"{png}: {len(EMOJI)} icons, {COLS}x{ROWS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
