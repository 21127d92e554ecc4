"""Draw the Ville's tileset: assets/tiles/ville_tiles.png (+ ville_tiles.json).

32x32 pixel-art tiles, 16 columns, drawn with pygame on SRCALPHA surfaces and
written with assets/pngio.py, so a rerun reproduces the files byte for byte
(all noise comes from fixed seeds).

    python assets/draw_tiles.py [--out DIR]

The name -> index table (``TILE_NAMES``, also written as ville_tiles.json) is
what maps/the_ville/build_map.py uses to refer to tiles. Tiled's gid of a tile
is ``firstgid + index``.

Families drawn programmatically from a 4-bit neighbour mask (N=1, E=2, S=4,
W=8; a set bit means "the neighbour on that side is of the same kind"):
``wall_<scheme>_<mask>``, ``water_<mask>``, ``fence_<mask>``.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pngio import save_png, surface_to_rgba

T = 32
COLS = 16
N, E, S, W = 1, 2, 4, 8

_REGISTRY: list[tuple[str, object]] = []


def tile(name):
    def deco(fn):
        _REGISTRY.append((name, fn))
        return fn
    return deco


def add(name, fn):
    _REGISTRY.append((name, fn))


# ---------------------------------------------------------------- helpers


def new():
    return pygame.Surface((T, T), pygame.SRCALPHA)


def rgb(c, f=1.0):
    return tuple(max(0, min(255, round(v * f))) for v in c[:3])


def mix(a, b, t):
    return tuple(round(a[i] + (b[i] - a[i]) * t) for i in range(3))


def seeded(name):
    # A stable seed from the tile's name (hash() of str is salted per process).
    h = 2166136261
    for ch in name.encode():
        h = ((h ^ ch) * 16777619) & 0xFFFFFFFF
    return random.Random(h)


def noise(s, rect, base, amt, rnd, alpha=255):
    x0, y0, w, h = rect
    for y in range(y0, y0 + h):
        for x in range(x0, x0 + w):
            d = rnd.randint(-amt, amt)
            s.set_at((x, y), (*rgb(base, 1.0 + d / 255.0 * 2.2), alpha))


def speckle(s, rect, colors, count, rnd):
    x0, y0, w, h = rect
    for _ in range(count):
        s.set_at((x0 + rnd.randrange(w), y0 + rnd.randrange(h)), (*colors[rnd.randrange(len(colors))], 255))


def overlay(s, fn):
    """Draw with alpha blending: fn(tmp) draws translucent shapes on a scratch surface."""
    tmp = new()
    fn(tmp)
    s.blit(tmp, (0, 0))


def shadow(s, rect, alpha=70):
    overlay(s, lambda t: pygame.draw.ellipse(t, (0, 0, 0, alpha), rect))


def shadow_rect(s, rect, alpha=60):
    overlay(s, lambda t: pygame.draw.rect(t, (0, 0, 0, alpha), rect, border_radius=3))


def box(s, rect, color, outline=None, radius=0, light=True):
    """A solid block with a highlight on top/left and a shade on bottom/right."""
    x, y, w, h = rect
    pygame.draw.rect(s, (*rgb(color), 255), rect, border_radius=radius)
    if light and w > 3 and h > 3:
        pygame.draw.line(s, (*rgb(color, 1.25), 255), (x + 1, y + 1), (x + w - 2, y + 1))
        pygame.draw.line(s, (*rgb(color, 1.15), 255), (x + 1, y + 1), (x + 1, y + h - 2))
        pygame.draw.line(s, (*rgb(color, 0.75), 255), (x + 1, y + h - 2), (x + w - 2, y + h - 2))
        pygame.draw.line(s, (*rgb(color, 0.82), 255), (x + w - 2, y + 1), (x + w - 2, y + h - 2))
    if outline is not None:
        pygame.draw.rect(s, (*rgb(outline), 255), rect, 1, border_radius=radius)


OUT = (40, 30, 28)  # outline colour of furniture

# ---------------------------------------------------------------- ground

GRASS = (96, 160, 72)


def grass(s, rnd, base=GRASS, tufts=10):
    noise(s, (0, 0, T, T), base, 10, rnd)
    for _ in range(tufts):
        x, y = rnd.randrange(1, T - 1), rnd.randrange(2, T)
        c = rgb(base, 1.22 if rnd.random() < 0.5 else 0.78)
        s.set_at((x, y), (*c, 255))
        s.set_at((x, y - 1), (*c, 255))
        if rnd.random() < 0.5:
            s.set_at((x + 1, y - 1), (*c, 255))


for _i, _base in enumerate([GRASS, (90, 154, 68), (102, 166, 78)]):
    add(f"grass{_i}", lambda s, r, b=_base: grass(s, r, b, 12 + 4 * (b[1] % 3)))


@tile("grass_flowers")
def _(s, r):
    grass(s, r)
    for _ in range(6):
        x, y = r.randrange(3, T - 3), r.randrange(3, T - 3)
        c = [(240, 240, 250), (250, 220, 90), (240, 130, 160), (180, 140, 240)][r.randrange(4)]
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            s.set_at((x + dx, y + dy), (*c, 255))
        s.set_at((x, y), (250, 200, 60, 255))


@tile("dirt")
def _(s, r):
    noise(s, (0, 0, T, T), (176, 140, 96), 10, r)
    speckle(s, (0, 0, T, T), [(150, 116, 78), (196, 164, 120), (130, 104, 76)], 40, r)


@tile("cobble")
def _(s, r):
    noise(s, (0, 0, T, T), (120, 116, 110), 6, r)
    for row in range(4):
        off = (row % 2) * 4
        for col in range(-1, 4):
            x = col * 8 + off
            c = rgb((170, 164, 152), 1 + r.uniform(-0.08, 0.08))
            pygame.draw.rect(s, (*c, 255), (x + 1, row * 8 + 1, 7, 7), border_radius=2)
            pygame.draw.line(s, (*rgb(c, 1.15), 255), (x + 2, row * 8 + 1), (x + 6, row * 8 + 1))
            pygame.draw.line(s, (*rgb(c, 0.78), 255), (x + 2, row * 8 + 7), (x + 6, row * 8 + 7))


SIDEWALK = (186, 182, 172)


def sidewalk(s, r):
    noise(s, (0, 0, T, T), SIDEWALK, 5, r)
    for k in (0, 16):
        pygame.draw.line(s, (*rgb(SIDEWALK, 0.8), 255), (0, k), (T - 1, k))
        pygame.draw.line(s, (*rgb(SIDEWALK, 0.8), 255), (k, 0), (k, T - 1))
        pygame.draw.line(s, (*rgb(SIDEWALK, 1.08), 255), (0, k + 1), (T - 1, k + 1))


add("sidewalk", sidewalk)


def kerb(side):
    def draw(s, r):
        sidewalk(s, r)
        kc, kd = (214, 210, 200), (120, 116, 110)
        if side == "n":
            pygame.draw.rect(s, (*kc, 255), (0, 0, T, 4)); pygame.draw.line(s, (*kd, 255), (0, 0), (T - 1, 0))
        if side == "s":
            pygame.draw.rect(s, (*kc, 255), (0, T - 4, T, 4)); pygame.draw.line(s, (*kd, 255), (0, T - 1), (T - 1, T - 1))
        if side == "w":
            pygame.draw.rect(s, (*kc, 255), (0, 0, 4, T)); pygame.draw.line(s, (*kd, 255), (0, 0), (0, T - 1))
        if side == "e":
            pygame.draw.rect(s, (*kc, 255), (T - 4, 0, 4, T)); pygame.draw.line(s, (*kd, 255), (T - 1, 0), (T - 1, T - 1))
    return draw


for _side in "nesw":
    add(f"kerb_{_side}", kerb(_side))

ASPHALT = (78, 80, 86)


def asphalt(s, r):
    noise(s, (0, 0, T, T), ASPHALT, 8, r)
    speckle(s, (0, 0, T, T), [(100, 102, 108), (62, 64, 70)], 30, r)


add("asphalt", asphalt)


@tile("asphalt_line_h")
def _(s, r):
    asphalt(s, r)
    pygame.draw.rect(s, (236, 206, 90, 255), (4, 14, 24, 3))


@tile("asphalt_line_v")
def _(s, r):
    asphalt(s, r)
    pygame.draw.rect(s, (236, 206, 90, 255), (14, 4, 3, 24))


@tile("crosswalk_h")  # crossing a horizontal road: stripes run north-south
def _(s, r):
    asphalt(s, r)
    for x in (3, 19):
        pygame.draw.rect(s, (232, 232, 226, 255), (x, 0, 10, T))


@tile("crosswalk_v")  # crossing a vertical road: stripes run east-west
def _(s, r):
    asphalt(s, r)
    for y in (3, 19):
        pygame.draw.rect(s, (232, 232, 226, 255), (0, y, T, 10))


@tile("sand")
def _(s, r):
    noise(s, (0, 0, T, T), (222, 200, 150), 7, r)
    speckle(s, (0, 0, T, T), [(200, 176, 126), (238, 222, 180)], 30, r)


WATER = (64, 132, 196)


def water(mask):
    def draw(s, r):
        noise(s, (0, 0, T, T), WATER, 6, r)
        for _ in range(5):
            x, y = r.randrange(4, 24), r.randrange(4, 28)
            pygame.draw.line(s, (150, 200, 240, 255), (x, y), (x + 4, y))
        shore, sand = (96, 150, 70), (206, 186, 140)
        b = 6
        if not mask & N:
            pygame.draw.rect(s, (*sand, 255), (0, 0, T, b)); pygame.draw.rect(s, (*shore, 255), (0, 0, T, 2))
            pygame.draw.line(s, (*rgb(WATER, 0.7), 255), (0, b), (T - 1, b))
        if not mask & S:
            pygame.draw.rect(s, (*sand, 255), (0, T - b, T, b)); pygame.draw.rect(s, (*shore, 255), (0, T - 2, T, 2))
        if not mask & W:
            pygame.draw.rect(s, (*sand, 255), (0, 0, b, T)); pygame.draw.rect(s, (*shore, 255), (0, 0, 2, T))
            pygame.draw.line(s, (*rgb(WATER, 0.7), 255), (b, 0), (b, T - 1))
        if not mask & E:
            pygame.draw.rect(s, (*sand, 255), (T - b, 0, b, T)); pygame.draw.rect(s, (*shore, 255), (T - 2, 0, 2, T))
    return draw


for _m in range(16):
    add(f"water_{_m}", water(_m))

# ---------------------------------------------------------------- floors


def planks(s, r, base, plank_h=8, seams=True):
    for row in range(T // plank_h):
        c = rgb(base, 1 + r.uniform(-0.07, 0.07))
        noise(s, (0, row * plank_h, T, plank_h), c, 5, r)
        for _ in range(3):  # grain
            gx, gy = r.randrange(0, T - 8), row * plank_h + r.randrange(2, plank_h - 1)
            pygame.draw.line(s, (*rgb(c, 0.88), 255), (gx, gy), (gx + r.randrange(4, 9), gy))
        pygame.draw.line(s, (*rgb(base, 0.62), 255), (0, row * plank_h + plank_h - 1), (T - 1, row * plank_h + plank_h - 1))
        pygame.draw.line(s, (*rgb(c, 1.12), 255), (0, row * plank_h), (T - 1, row * plank_h))
        if seams:
            sx = (row * 13 + 7) % T
            pygame.draw.line(s, (*rgb(base, 0.62), 255), (sx, row * plank_h), (sx, row * plank_h + plank_h - 1))


add("floor_wood", lambda s, r: planks(s, r, (184, 134, 84)))
add("floor_wood_dark", lambda s, r: planks(s, r, (112, 72, 46)))


@tile("floor_parquet")
def _(s, r):
    base = (170, 120, 70)
    for by in range(2):
        for bx in range(2):
            for k in range(4):
                c = rgb(base, 1 + r.uniform(-0.08, 0.08) + (0.06 if (bx + by) % 2 else -0.04))
                if (bx + by) % 2 == 0:
                    rect = (bx * 16 + k * 4, by * 16, 4, 16)
                else:
                    rect = (bx * 16, by * 16 + k * 4, 16, 4)
                noise(s, rect, c, 4, r)
                pygame.draw.rect(s, (*rgb(base, 0.65), 255), rect, 1)


def checker(s, r, a, b, n, grout=None):
    size = T // n
    for j in range(n):
        for i in range(n):
            c = a if (i + j) % 2 == 0 else b
            noise(s, (i * size, j * size, size, size), c, 3, r)
            pygame.draw.line(s, (*rgb(c, 1.1), 255), (i * size, j * size), (i * size + size - 1, j * size))
            if grout:
                pygame.draw.rect(s, (*grout, 255), (i * size, j * size, size, size), 1)


add("floor_kitchen", lambda s, r: checker(s, r, (230, 222, 200), (188, 150, 118), 4, (160, 146, 126)))
add("floor_bath", lambda s, r: checker(s, r, (196, 226, 236), (172, 208, 224), 4, (236, 244, 248)))
add("floor_cafe", lambda s, r: checker(s, r, (234, 228, 212), (74, 70, 80), 2))


def carpet(base):
    def draw(s, r):
        noise(s, (0, 0, T, T), base, 7, r)
        for y in range(0, T, 4):
            for x in range((y // 4) % 2 * 2, T, 4):
                s.set_at((x, y), (*rgb(base, 1.12), 255))
    return draw


add("carpet_blue", carpet((84, 110, 170)))
add("carpet_green", carpet((96, 140, 104)))
add("carpet_rose", carpet((176, 104, 118)))
add("carpet_beige", carpet((196, 176, 140)))
add("carpet_purple", carpet((128, 100, 156)))


def lino(base, fleck):
    def draw(s, r):
        noise(s, (0, 0, T, T), base, 4, r)
        speckle(s, (0, 0, T, T), fleck, 26, r)
        pygame.draw.rect(s, (*rgb(base, 0.86), 255), (0, 0, T, T), 1)
    return draw


add("floor_lino", lino((206, 206, 198), [(170, 170, 164), (230, 230, 222), (150, 160, 170)]))
add("floor_lino_green", lino((150, 184, 156), [(120, 150, 126), (176, 206, 180)]))
add("floor_concrete", lino((164, 160, 152), [(140, 136, 128), (184, 180, 172), (120, 118, 112)]))


@tile("floor_stone")
def _(s, r):
    for j in range(2):
        for i in range(2):
            c = rgb((190, 180, 160), 1 + r.uniform(-0.06, 0.06))
            noise(s, (i * 16, j * 16, 16, 16), c, 4, r)
            pygame.draw.rect(s, (*rgb(c, 0.7), 255), (i * 16, j * 16, 16, 16), 1)
            pygame.draw.line(s, (*rgb(c, 1.12), 255), (i * 16 + 1, j * 16 + 1), (i * 16 + 14, j * 16 + 1))


@tile("door")
def _(s, r):
    """An open doorway: a stone threshold, a coir mat and the jambs' shadows."""
    noise(s, (0, 0, T, T), (196, 188, 172), 4, r)
    pygame.draw.line(s, (150, 142, 128, 255), (0, 0), (T - 1, 0))
    pygame.draw.line(s, (150, 142, 128, 255), (0, T - 1), (T - 1, T - 1))
    box(s, (4, 6, 24, 20), (176, 136, 84), (110, 80, 46), 2)
    for y in range(9, 24, 3):
        pygame.draw.line(s, (150, 112, 66, 255), (6, y), (25, y))
    pygame.draw.rect(s, (120, 50, 40, 255), (8, 10, 16, 12), 1)
    overlay(s, lambda t: (pygame.draw.rect(t, (0, 0, 0, 70), (0, 0, 3, T)), pygame.draw.rect(t, (0, 0, 0, 70), (T - 3, 0, 3, T))))


def rug(base, border, accent, part):
    """Opaque 9-slice rug for the floor layer; part in tl,t,tr,l,c,r,bl,b,br."""
    def draw(s, r):
        noise(s, (0, 0, T, T), base, 5, r)
        # a woven motif: small diamonds on a grid
        for cy in (8, 24):
            for cx in (8, 24):
                pygame.draw.polygon(s, (*accent, 255), [(cx, cy - 4), (cx + 4, cy), (cx, cy + 4), (cx - 4, cy)], 1)
                s.set_at((cx, cy), (*accent, 255))
        bw = 6
        top, bottom = part.startswith("t"), part.startswith("b")
        left, right = part.endswith("l"), part.endswith("r")
        if part in ("l", "r"):
            top = bottom = False
        dark = (*rgb(border, 0.6), 255)
        if top:
            pygame.draw.rect(s, (*border, 255), (0, 0, T, bw)); pygame.draw.line(s, dark, (0, 0), (T - 1, 0))
            pygame.draw.line(s, (*accent, 255), (0, bw + 1), (T - 1, bw + 1))
        if bottom:
            pygame.draw.rect(s, (*border, 255), (0, T - bw, T, bw)); pygame.draw.line(s, dark, (0, T - 1), (T - 1, T - 1))
            pygame.draw.line(s, (*accent, 255), (0, T - bw - 2), (T - 1, T - bw - 2))
        if left:
            pygame.draw.rect(s, (*border, 255), (0, 0, bw, T)); pygame.draw.line(s, dark, (0, 0), (0, T - 1))
            pygame.draw.line(s, (*accent, 255), (bw + 1, 0 if not top else bw + 1), (bw + 1, T - 1 if not bottom else T - bw - 2))
        if right:
            pygame.draw.rect(s, (*border, 255), (T - bw, 0, bw, T)); pygame.draw.line(s, dark, (T - 1, 0), (T - 1, T - 1))
            pygame.draw.line(s, (*accent, 255), (T - bw - 2, 0 if not top else bw + 1), (T - bw - 2, T - 1 if not bottom else T - bw - 2))
    return draw


for _rn, _rb, _rbd, _ra in (("red", (158, 56, 52), (222, 182, 96), (206, 120, 80)),
                            ("blue", (74, 84, 120), (200, 170, 110), (150, 160, 196)),
                            ("green", (84, 116, 78), (214, 196, 150), (150, 180, 120))):
    for _p in ("tl", "t", "tr", "l", "c", "r", "bl", "b", "br"):
        add(f"rug_{_rn}_{_p}", rug(_rb, _rbd, _ra, _p))

# ---------------------------------------------------------------- walls

WALL_SCHEMES = {
    # scheme: (top face, front face kind, front colour)
    "plaster": ((92, 74, 66), "plaster", (226, 206, 170)),
    "brick": ((78, 56, 52), "brick", (168, 78, 58)),
    "stone": ((70, 76, 92), "stone", (168, 168, 160)),
    "wood": ((84, 64, 46), "wood", (150, 104, 62)),
}
FRONT_H = 12


def wall(scheme, mask):
    top, kind, front = WALL_SCHEMES[scheme]

    def draw(s, r):
        has_front = not mask & S
        th = T - FRONT_H if has_front else T
        noise(s, (0, 0, T, th), top, 5, r)
        # roof-like texture on the top face
        for y in range(3, th, 5):
            pygame.draw.line(s, (*rgb(top, 0.9), 255), (0, y), (T - 1, y))
        hi, lo = (*rgb(top, 1.45), 255), (*rgb(top, 0.55), 255)
        if not mask & N:
            pygame.draw.line(s, lo, (0, 0), (T - 1, 0)); pygame.draw.line(s, hi, (0, 1), (T - 1, 1))
        if not mask & W:
            pygame.draw.line(s, lo, (0, 0), (0, th - 1)); pygame.draw.line(s, hi, (1, 1), (1, th - 1))
        if not mask & E:
            pygame.draw.line(s, lo, (T - 1, 0), (T - 1, th - 1)); pygame.draw.line(s, (*rgb(top, 0.8), 255), (T - 2, 1), (T - 2, th - 1))
        if has_front:
            pygame.draw.line(s, hi, (0, th - 1), (T - 1, th - 1))
            fy = th
            if kind == "plaster":
                noise(s, (0, fy, T, FRONT_H), front, 4, r)
            elif kind == "brick":
                noise(s, (0, fy, T, FRONT_H), front, 6, r)
                mortar = (*rgb(front, 1.35), 255)
                for k, yy in enumerate(range(fy + 3, T, 4)):
                    pygame.draw.line(s, mortar, (0, yy), (T - 1, yy))
                    for xx in range((k % 2) * 4, T, 8):
                        pygame.draw.line(s, mortar, (xx, yy - 3), (xx, yy - 1))
            elif kind == "stone":
                noise(s, (0, fy, T, FRONT_H), front, 5, r)
                for k, yy in enumerate((fy + 5, fy + 10)):
                    pygame.draw.line(s, (*rgb(front, 0.75), 255), (0, yy), (T - 1, yy))
                    for xx in range((k % 2) * 6, T, 12):
                        pygame.draw.line(s, (*rgb(front, 0.75), 255), (xx, yy - 5), (xx, yy))
            else:
                for xx in range(0, T, 6):
                    c = rgb(front, 1 + r.uniform(-0.08, 0.08))
                    noise(s, (xx, fy, 6, FRONT_H), c, 4, r)
                    pygame.draw.line(s, (*rgb(front, 0.7), 255), (xx, fy), (xx, T - 1))
            pygame.draw.line(s, (*rgb(front, 0.55), 255), (0, fy), (T - 1, fy))  # eave shadow
            pygame.draw.line(s, (*rgb(front, 0.75), 255), (0, fy + 1), (T - 1, fy + 1))
            pygame.draw.line(s, (*rgb(front, 0.6), 255), (0, T - 2), (T - 1, T - 2))  # skirting
            pygame.draw.line(s, (*rgb(front, 0.45), 255), (0, T - 1), (T - 1, T - 1))
            if not mask & W:
                pygame.draw.line(s, (*rgb(front, 0.7), 255), (0, fy), (0, T - 1))
            if not mask & E:
                pygame.draw.line(s, (*rgb(front, 0.7), 255), (T - 1, fy), (T - 1, T - 1))
    return draw


for _scheme in WALL_SCHEMES:
    for _m in range(16):
        add(f"wall_{_scheme}_{_m}", wall(_scheme, _m))


def window(scheme):
    """A horizontal wall (mask E|W) whose front face has a window."""
    def draw(s, r):
        wall(scheme, E | W)(s, r)
        fy = T - FRONT_H
        frame = (236, 232, 222) if scheme != "wood" else (120, 84, 50)
        pygame.draw.rect(s, (*frame, 255), (7, fy + 1, 18, 9))
        pygame.draw.rect(s, (120, 170, 210, 255), (9, fy + 2, 14, 6))
        pygame.draw.line(s, (*frame, 255), (16, fy + 2), (16, fy + 7))
        pygame.draw.line(s, (200, 230, 250, 255), (10, fy + 3), (13, fy + 3))
        pygame.draw.line(s, (*rgb(frame, 0.7), 255), (7, fy + 10), (24, fy + 10))
    return draw


for _scheme in WALL_SCHEMES:
    add(f"window_{_scheme}", window(_scheme))

# ---------------------------------------------------------------- furniture

SHEET = (238, 238, 244)


@tile("bed_head")
def _(s, r):
    shadow_rect(s, (4, 4, 26, 28))
    box(s, (3, 2, 26, 30), (140, 92, 58), OUT, 2)  # frame
    pygame.draw.rect(s, (*SHEET, 255), (5, 5, 22, 27))
    box(s, (7, 6, 18, 9), (250, 250, 252), (170, 170, 186), 3)  # pillow
    pygame.draw.rect(s, (90, 130, 200, 255), (5, 19, 22, 13))  # blanket
    pygame.draw.line(s, (230, 236, 250, 255), (5, 19), (26, 19))
    pygame.draw.line(s, (230, 236, 250, 255), (5, 20), (26, 20))


@tile("bed_foot")
def _(s, r):
    shadow_rect(s, (4, 0, 26, 30))
    box(s, (3, 0, 26, 29), (140, 92, 58), OUT, 2)
    pygame.draw.rect(s, (90, 130, 200, 255), (5, 0, 22, 25))
    for y in range(3, 24, 6):
        pygame.draw.line(s, (70, 106, 170, 255), (5, y), (26, y))
    pygame.draw.rect(s, (72, 104, 168, 255), (5, 22, 22, 3))
    pygame.draw.rect(s, (110, 72, 44, 255), (3, 25, 26, 4))


def dbed(part):
    def draw(s, r):
        left = part.endswith("l")
        x0 = 3 if left else 0
        w = 29
        if part.startswith("h"):
            shadow_rect(s, (x0 + 1, 4, w, 28))
            box(s, (x0, 2, w, 30), (120, 78, 50), OUT, 2)
            pygame.draw.rect(s, (*SHEET, 255), (x0 + 2 if left else 0, 5, w - 2, 27))
            box(s, (x0 + 4 if left else 2, 6, 22, 9), (250, 250, 252), (170, 170, 186), 3)
            pygame.draw.rect(s, (190, 80, 90, 255), (x0 + 2 if left else 0, 19, w - 2, 13))
            pygame.draw.line(s, (246, 226, 230, 255), (x0 + 2 if left else 0, 19), (x0 + w - 3 if left else w - 3, 19))
        else:
            shadow_rect(s, (x0 + 1, 0, w, 30))
            box(s, (x0, 0, w, 29), (120, 78, 50), OUT, 2)
            pygame.draw.rect(s, (190, 80, 90, 255), (x0 + 2 if left else 0, 0, w - 2, 25))
            for y in range(4, 24, 7):
                pygame.draw.line(s, (160, 60, 72, 255), (x0 + 2 if left else 0, y), (x0 + w - 3 if left else w - 3, y))
            pygame.draw.rect(s, (96, 60, 40, 255), (x0, 25, w, 4))
        # hide the inner frame edge so the two halves join
        if left:
            pygame.draw.line(s, (120, 78, 50, 255), (T - 1, 2), (T - 1, 28))
        else:
            pygame.draw.line(s, (120, 78, 50, 255), (0, 2), (0, 28))
    return draw


for _p in ("hl", "hr", "fl", "fr"):
    add(f"dbed_{_p}", dbed(_p))


@tile("desk")
def _(s, r):
    shadow_rect(s, (3, 6, 28, 22))
    box(s, (2, 4, 28, 20), (160, 116, 74), OUT, 2)
    box(s, (5, 6, 14, 9), (60, 64, 72), (30, 30, 36), 1)  # laptop
    pygame.draw.rect(s, (120, 190, 230, 255), (7, 7, 10, 6))
    pygame.draw.rect(s, (250, 250, 240, 255), (21, 8, 6, 8))  # papers
    pygame.draw.line(s, (160, 160, 170, 255), (22, 10), (25, 10))
    pygame.draw.line(s, (160, 160, 170, 255), (22, 12), (25, 12))
    pygame.draw.rect(s, (120, 84, 52, 255), (2, 24, 4, 5))
    pygame.draw.rect(s, (120, 84, 52, 255), (26, 24, 4, 5))


def chair(facing, color=(150, 100, 60), seat=(196, 120, 84)):
    def draw(s, r):
        shadow(s, (7, 11, 20, 19), 60)
        for lx, ly in ((9, 9), (21, 9), (9, 21), (21, 21)):  # legs peeking out
            pygame.draw.rect(s, (*rgb(color, 0.6), 255), (lx, ly, 2, 2))
        box(s, (9, 9, 14, 14), color, OUT, 2)
        pygame.draw.rect(s, (*seat, 255), (11, 11, 10, 10), border_radius=2)  # cushion
        pygame.draw.line(s, (*rgb(seat, 1.2), 255), (12, 12), (19, 12))
        back = {"s": (8, 21, 16, 5), "n": (8, 6, 16, 5), "e": (21, 8, 5, 16), "w": (6, 8, 5, 16)}[facing]
        box(s, back, rgb(color, 0.85), OUT, 1)
        bx, by, bw, bh = back
        if bw > bh:
            for x in (bx + 5, bx + 10):
                pygame.draw.line(s, (*rgb(color, 0.6), 255), (x, by + 1), (x, by + bh - 2))
        else:
            for y in (by + 5, by + 10):
                pygame.draw.line(s, (*rgb(color, 0.6), 255), (bx + 1, y), (bx + bw - 2, y))
    return draw


# chair_<f>: a chair whose sitter faces <f> (backrest on the opposite side)
add("chair_n", chair("s"))
add("chair_s", chair("n"))
add("chair_e", chair("w"))
add("chair_w", chair("e"))


@tile("closet")
def _(s, r):
    shadow_rect(s, (3, 4, 28, 28))
    box(s, (2, 0, 28, 30), (128, 86, 56), OUT, 1)
    pygame.draw.rect(s, (104, 68, 44, 255), (2, 0, 28, 8))  # top
    pygame.draw.line(s, (160, 112, 76, 255), (3, 1), (28, 1))
    pygame.draw.line(s, (70, 46, 30, 255), (16, 9), (16, 28))
    pygame.draw.rect(s, (230, 200, 120, 255), (13, 17, 2, 4))
    pygame.draw.rect(s, (230, 200, 120, 255), (18, 17, 2, 4))


def books_row(s, r, x, y, w, h):
    xx = x
    while xx < x + w - 1:
        bw = r.randrange(2, 4)
        c = [(180, 60, 60), (60, 100, 170), (70, 140, 80), (220, 180, 70), (140, 80, 150), (230, 230, 220)][r.randrange(6)]
        bh = h - r.randrange(0, 3)
        pygame.draw.rect(s, (*c, 255), (xx, y + h - bh, min(bw, x + w - xx), bh))
        pygame.draw.line(s, (*rgb(c, 0.7), 255), (xx, y + h - bh), (xx, y + h - 1))
        xx += bw


@tile("shelf")
def _(s, r):
    shadow_rect(s, (3, 4, 28, 26))
    box(s, (2, 1, 28, 26), (136, 96, 62), OUT, 1)
    for y in (3, 14):
        pygame.draw.rect(s, (70, 48, 32, 255), (4, y, 24, 10))
        books_row(s, r, 5, y + 1, 22, 9)
    pygame.draw.rect(s, (240, 200, 100, 255), (22, 16, 5, 7))  # a frame


@tile("bookcase")
def _(s, r):
    shadow_rect(s, (2, 4, 30, 28))
    box(s, (1, 0, 30, 30), (110, 74, 46), OUT, 1)
    for y in (2, 11, 20):
        pygame.draw.rect(s, (60, 40, 26, 255), (3, y, 26, 8))
        books_row(s, r, 4, y + 1, 24, 7)


def counter_top(s, r, color=(206, 200, 190), front=(150, 110, 76)):
    shadow_rect(s, (0, 6, 32, 26))
    box(s, (0, 2, 32, 22), color, None, 0)
    pygame.draw.line(s, (*rgb(color, 0.7), 255), (0, 23), (31, 23))
    pygame.draw.rect(s, (*front, 255), (0, 24, 32, 6))
    pygame.draw.line(s, (*rgb(front, 0.7), 255), (0, 29), (31, 29))
    for x in (10, 21):
        pygame.draw.line(s, (*rgb(front, 0.7), 255), (x, 24), (x, 29))


add("kcounter", lambda s, r: counter_top(s, r))


@tile("stove")
def _(s, r):
    counter_top(s, r, (70, 70, 76), (210, 210, 214))
    for cx, cy in ((9, 8), (22, 8), (9, 18), (22, 18)):
        pygame.draw.circle(s, (30, 30, 34, 255), (cx, cy), 5)
        pygame.draw.circle(s, (200, 80, 50, 255), (cx, cy), 5, 1)
    pygame.draw.circle(s, (80, 80, 90, 255), (22, 8), 4)  # a pot
    pygame.draw.circle(s, (140, 140, 150, 255), (22, 8), 4, 1)
    for x in (6, 12, 18, 24):
        pygame.draw.rect(s, (60, 60, 64, 255), (x, 26, 3, 2))


@tile("fridge")
def _(s, r):
    shadow_rect(s, (3, 4, 28, 28))
    box(s, (3, 0, 26, 30), (232, 236, 240), (110, 120, 130), 2)
    pygame.draw.line(s, (170, 176, 186, 255), (4, 12), (27, 12))
    pygame.draw.rect(s, (150, 156, 166, 255), (23, 4, 2, 6))
    pygame.draw.rect(s, (150, 156, 166, 255), (23, 15, 2, 10))
    pygame.draw.rect(s, (230, 90, 80, 255), (8, 17, 4, 4))  # magnet
    pygame.draw.rect(s, (250, 220, 90, 255), (13, 20, 5, 4))


@tile("ksink")
def _(s, r):
    counter_top(s, r)
    box(s, (6, 5, 20, 14), (170, 180, 190), (100, 110, 120), 3, light=False)
    pygame.draw.rect(s, (120, 160, 190, 255), (8, 7, 16, 10), border_radius=2)
    pygame.draw.rect(s, (160, 166, 176, 255), (15, 2, 2, 5))


@tile("table_l")
def _(s, r):
    shadow_rect(s, (5, 8, 28, 22))
    box(s, (4, 5, 28, 22), (176, 128, 80), OUT, 2)
    pygame.draw.line(s, (176, 128, 80, 255), (31, 6), (31, 25))
    pygame.draw.circle(s, (240, 240, 240, 255), (14, 15), 5)
    pygame.draw.circle(s, (200, 120, 80, 255), (14, 15), 3)
    pygame.draw.circle(s, (250, 200, 80, 255), (27, 12), 3)  # a fruit bowl half


@tile("table_r")
def _(s, r):
    shadow_rect(s, (0, 8, 30, 22))
    box(s, (0, 5, 28, 22), (176, 128, 80), OUT, 2)
    pygame.draw.line(s, (176, 128, 80, 255), (0, 6), (0, 25))
    pygame.draw.circle(s, (240, 240, 240, 255), (16, 15), 5)
    pygame.draw.circle(s, (120, 170, 90, 255), (16, 15), 3)
    pygame.draw.rect(s, (230, 230, 240, 255), (3, 9, 3, 5))  # a glass


def sofa(side, color=(90, 120, 160)):
    def draw(s, r):
        left = side == "l"
        x0, w = (3, 29) if left else (0, 29)
        shadow_rect(s, (x0 + 1, 8, w, 24))
        box(s, (x0, 6, w, 24), rgb(color, 0.85), OUT, 3)
        box(s, (x0 + (5 if left else 0), 8, w - 5, 14), color, None, 2)  # seat cushion
        pygame.draw.rect(s, (*rgb(color, 0.7), 255), (x0, 22, w, 8))  # backrest (south)
        pygame.draw.line(s, (*rgb(color, 0.55), 255), (x0, 29), (x0 + w - 1, 29))
        arm = (x0, 6, 5, 24) if left else (x0 + w - 5, 6, 5, 24)
        box(s, arm, rgb(color, 0.75), OUT, 2, light=False)
        if left:
            pygame.draw.line(s, (*rgb(color, 0.85), 255), (T - 1, 7), (T - 1, 28))
        else:
            pygame.draw.line(s, (*rgb(color, 0.85), 255), (0, 7), (0, 28))
            box(s, (4, 10, 8, 7), (230, 200, 110), None, 2)  # a cushion
    return draw


add("sofa_l", sofa("l"))
add("sofa_r", sofa("r"))


@tile("tv")
def _(s, r):
    shadow_rect(s, (2, 14, 30, 16))
    box(s, (1, 16, 30, 12), (110, 78, 52), OUT, 1)  # stand
    box(s, (3, 3, 26, 15), (30, 30, 36), (10, 10, 12), 1)  # screen
    pygame.draw.rect(s, (70, 110, 170, 255), (5, 5, 22, 11))
    pygame.draw.line(s, (150, 190, 230, 255), (6, 6), (12, 6))
    pygame.draw.rect(s, (40, 40, 44, 255), (13, 18, 6, 2))


@tile("toilet")
def _(s, r):
    shadow(s, (8, 6, 18, 24), 60)
    box(s, (9, 2, 14, 8), (240, 242, 246), (130, 140, 150), 2)  # tank
    pygame.draw.ellipse(s, (246, 248, 250, 255), (8, 8, 16, 20))
    pygame.draw.ellipse(s, (130, 140, 150, 255), (8, 8, 16, 20), 1)
    pygame.draw.ellipse(s, (180, 210, 230, 255), (11, 12, 10, 12))
    pygame.draw.rect(s, (170, 176, 186, 255), (14, 4, 4, 2))


@tile("shower")
def _(s, r):
    box(s, (1, 1, 30, 30), (220, 236, 244), (120, 140, 160), 1, light=False)
    for y in range(4, 30, 5):
        for x in range(4, 30, 5):
            s.set_at((x, y), (160, 190, 210, 255))
    pygame.draw.circle(s, (130, 140, 150, 255), (16, 17), 2)  # drain
    pygame.draw.circle(s, (180, 186, 196, 255), (6, 6), 4)  # head
    pygame.draw.circle(s, (120, 126, 136, 255), (6, 6), 4, 1)
    overlay(s, lambda t: pygame.draw.line(t, (200, 230, 255, 140), (2, 30), (30, 30), 3))  # glass
    pygame.draw.line(s, (170, 210, 240, 255), (1, 29), (30, 29))


@tile("bsink")
def _(s, r):
    shadow_rect(s, (4, 4, 26, 20))
    box(s, (3, 1, 26, 18), (236, 238, 242), (130, 140, 150), 3)
    pygame.draw.ellipse(s, (180, 210, 230, 255), (8, 5, 16, 11))
    pygame.draw.ellipse(s, (120, 140, 160, 255), (8, 5, 16, 11), 1)
    pygame.draw.rect(s, (160, 166, 176, 255), (15, 2, 2, 4))
    box(s, (9, 20, 14, 9), (200, 220, 236), (120, 140, 160), 1)  # a mirror/cabinet


@tile("coffee_machine")
def _(s, r):
    counter_top(s, r, (120, 84, 56), (90, 60, 40))
    box(s, (6, 2, 20, 17), (60, 60, 66), (20, 20, 24), 2)
    pygame.draw.rect(s, (190, 190, 200, 255), (9, 4, 14, 4))
    pygame.draw.circle(s, (240, 80, 60, 255), (23, 14), 1)
    pygame.draw.rect(s, (250, 250, 250, 255), (12, 12, 6, 6))  # a cup
    pygame.draw.rect(s, (110, 70, 40, 255), (13, 13, 4, 3))


@tile("cafe_counter")
def _(s, r):
    counter_top(s, r, (120, 84, 56), (90, 60, 40))
    box(s, (4, 5, 24, 13), (220, 230, 236), (120, 130, 140), 2)  # pastry case
    for i, c in enumerate([(210, 150, 80), (240, 210, 140), (160, 90, 60), (230, 120, 140)]):
        pygame.draw.circle(s, (*c, 255), (8 + i * 5, 12), 2)


@tile("cafe_register")
def _(s, r):
    counter_top(s, r, (120, 84, 56), (90, 60, 40))
    box(s, (8, 4, 16, 13), (50, 52, 60), (20, 20, 24), 2)
    pygame.draw.rect(s, (120, 220, 160, 255), (11, 6, 10, 4))


@tile("cafe_table")
def _(s, r):
    shadow(s, (5, 8, 24, 22), 60)
    pygame.draw.circle(s, (246, 244, 238, 255), (16, 15), 11)
    pygame.draw.circle(s, (150, 140, 130, 255), (16, 15), 11, 1)
    pygame.draw.circle(s, (255, 255, 255, 255), (12, 12), 3)
    pygame.draw.circle(s, (120, 80, 50, 255), (12, 12), 2)
    pygame.draw.circle(s, (255, 255, 255, 255), (20, 18), 3)
    pygame.draw.circle(s, (120, 80, 50, 255), (20, 18), 2)
    pygame.draw.circle(s, (220, 80, 90, 255), (19, 10), 2)  # a flower


def piano(side):
    def draw(s, r):
        left = side == "l"
        shadow_rect(s, (0 if not left else 3, 6, 29, 26))
        x0, w = (3, 29) if left else (0, 29)
        box(s, (x0, 2, w, 14), (40, 34, 34), (10, 8, 8), 2)  # body
        pygame.draw.rect(s, (245, 245, 240, 255), (x0 + (2 if left else 0), 16, w - 2, 9))
        pygame.draw.line(s, (10, 8, 8, 255), (x0, 25), (x0 + w - 1, 25))
        for x in range(x0 + (2 if left else 0), x0 + w - 2, 4):
            pygame.draw.line(s, (150, 150, 150, 255), (x, 16), (x, 24))
            if x % 8 < 4:
                pygame.draw.rect(s, (20, 20, 20, 255), (x + 2, 16, 2, 5))
        box(s, (x0 + 4 if left else 2, 26, 24, 5), (60, 40, 36), None, 1)  # bench
    return draw


add("piano_l", piano("l"))
add("piano_r", piano("r"))

BAR = (92, 56, 34)


@tile("bar_counter")
def _(s, r):
    counter_top(s, r, BAR, (70, 40, 26))
    pygame.draw.line(s, (140, 96, 60, 255), (0, 4), (31, 4))
    pygame.draw.circle(s, (230, 190, 90, 255), (10, 14), 4)  # a pint
    pygame.draw.circle(s, (250, 246, 230, 255), (10, 14), 2)


@tile("bar_taps")
def _(s, r):
    counter_top(s, r, BAR, (70, 40, 26))
    pygame.draw.rect(s, (200, 200, 210, 255), (4, 8, 24, 4))
    for x in (7, 14, 21):
        pygame.draw.rect(s, (230, 190, 90, 255), (x, 4, 3, 6))
        pygame.draw.rect(s, (40, 30, 30, 255), (x, 3, 3, 2))


@tile("bar_shelf")
def _(s, r):
    shadow_rect(s, (1, 4, 31, 26))
    box(s, (0, 0, 32, 26), (80, 50, 32), OUT, 1)
    for y in (2, 13):
        for i, x in enumerate(range(3, 30, 5)):
            c = [(60, 130, 70), (160, 90, 40), (220, 210, 170), (90, 60, 130), (190, 60, 50), (230, 190, 90)][(i + y) % 6]
            pygame.draw.rect(s, (*c, 255), (x, y + 2, 3, 8))
            pygame.draw.rect(s, (*rgb(c, 0.6), 255), (x + 1, y, 1, 3))


@tile("stool")
def _(s, r):
    shadow(s, (9, 12, 16, 16), 60)
    pygame.draw.circle(s, (60, 40, 30, 255), (16, 16), 7)
    pygame.draw.circle(s, (170, 50, 44, 255), (16, 16), 6)
    pygame.draw.circle(s, (210, 90, 80, 255), (14, 14), 2)


@tile("pub_table")
def _(s, r):
    shadow(s, (4, 8, 26, 22), 70)
    pygame.draw.circle(s, (70, 42, 26, 255), (16, 15), 12)
    pygame.draw.circle(s, (110, 70, 44, 255), (16, 15), 11)
    pygame.draw.circle(s, (130, 86, 54, 255), (14, 13), 6)
    for cx, cy in ((11, 11), (21, 18)):
        pygame.draw.circle(s, (230, 190, 90, 255), (cx, cy), 3)
        pygame.draw.circle(s, (250, 246, 230, 255), (cx, cy), 1)


@tile("school_desk")
def _(s, r):
    shadow_rect(s, (4, 4, 26, 16))
    box(s, (3, 2, 26, 13), (196, 160, 110), OUT, 1)
    pygame.draw.rect(s, (250, 250, 244, 255), (7, 4, 8, 8))  # notebook
    pygame.draw.line(s, (60, 80, 160, 255), (18, 6), (24, 9))  # pencil
    shadow(s, (8, 18, 18, 12), 60)
    box(s, (9, 17, 14, 10), (70, 110, 170), OUT, 2)  # chair
    box(s, (9, 26, 14, 4), (50, 86, 140), OUT, 1, light=False)


def blackboard(part):
    def draw(s, r):
        pygame.draw.rect(s, (140, 100, 60, 255), (0, 2, T, 16))
        pygame.draw.rect(s, (40, 70, 56, 255), (0 if part != "l" else 3, 4, T - (3 if part != "m" else 0), 12))
        if part == "l":
            pygame.draw.rect(s, (40, 70, 56, 255), (3, 4, 29, 12))
        if part == "r":
            pygame.draw.rect(s, (40, 70, 56, 255), (0, 4, 29, 12))
        rnd = seeded("bb" + part)
        for _ in range(3):
            x, y = rnd.randrange(4, 22), rnd.randrange(6, 13)
            pygame.draw.line(s, (230, 236, 230, 255), (x, y), (x + rnd.randrange(3, 8), y + rnd.randrange(-1, 2)))
        pygame.draw.rect(s, (170, 130, 80, 255), (0, 17, T, 2))
        pygame.draw.rect(s, (240, 240, 240, 255), (10, 17, 4, 1))
    return draw


for _p in "lmr":
    add(f"blackboard_{_p}", blackboard(_p))


@tile("podium")
def _(s, r):
    shadow_rect(s, (7, 8, 20, 20))
    box(s, (6, 6, 20, 18), (120, 80, 50), OUT, 2)
    box(s, (8, 8, 16, 8), (150, 106, 66), None, 1)
    pygame.draw.rect(s, (250, 250, 244, 255), (11, 9, 10, 6))
    pygame.draw.circle(s, (40, 40, 40, 255), (16, 20), 2)  # mic


def lib_table(side):
    def draw(s, r):
        left = side == "l"
        x0 = 3 if left else 0
        shadow_rect(s, (x0 + 1, 8, 29, 20))
        box(s, (x0, 6, 29, 18), (150, 100, 60), OUT, 2)
        pygame.draw.line(s, (150, 100, 60, 255), (T - 1 if left else 0, 7), (T - 1 if left else 0, 22))
        box(s, (x0 + 6, 9, 10, 8), (180, 60, 60) if left else (60, 100, 170), None, 1)
        pygame.draw.line(s, (240, 240, 230, 255), (x0 + 11, 9), (x0 + 11, 16))
        pygame.draw.circle(s, (250, 220, 120, 255), (x0 + 22, 12), 3)  # lamp
    return draw


add("lib_table_l", lib_table("l"))
add("lib_table_r", lib_table("r"))


def bench(side, wood=(170, 116, 66)):
    def draw(s, r):
        left = side == "l"
        x0, w = (4, 28) if left else (0, 28)
        shadow_rect(s, (x0 + 1, 12, w, 16))
        for y in (10, 16, 22):
            box(s, (x0, y, w, 5), rgb(wood, 1 + (y - 16) / 100), OUT, 1, light=False)
        pygame.draw.rect(s, (50, 50, 56, 255), (x0 + (2 if left else w - 5), 8, 3, 20))
        if left:
            pygame.draw.line(s, (*rgb(wood), 255), (T - 1, 11), (T - 1, 25))
        else:
            pygame.draw.line(s, (*rgb(wood), 255), (0, 11), (0, 25))
    return draw


add("bench_l", bench("l"))
add("bench_r", bench("r"))


def flowerbed(palette):
    def draw(s, r):
        box(s, (1, 1, 30, 30), (120, 84, 56), (80, 56, 38), 3, light=False)
        noise(s, (3, 3, 26, 26), (110, 76, 50), 8, r)
        for _ in range(14):
            x, y = r.randrange(5, 27), r.randrange(5, 27)
            pygame.draw.circle(s, (60, 130, 60, 255), (x, y + 1), 2)
            c = palette[r.randrange(len(palette))]
            pygame.draw.circle(s, (*c, 255), (x, y), 2)
            s.set_at((x, y), (250, 230, 120, 255))
    return draw


add("flowers", flowerbed([(230, 70, 90), (250, 210, 70), (240, 240, 250), (200, 110, 220)]))
add("flowers2", flowerbed([(250, 140, 60), (240, 90, 130), (140, 160, 250)]))


def veg(kind):
    def draw(s, r):
        noise(s, (0, 0, T, T), (112, 80, 52), 8, r)
        for y in (4, 15, 26):
            pygame.draw.line(s, (86, 60, 38, 255), (1, y + 4), (30, y + 4))
            for x in range(4, 30, 7):
                pygame.draw.circle(s, (70, 150, 60, 255), (x, y + 1), 3)
                pygame.draw.circle(s, (110, 180, 80, 255), (x - 1, y), 1)
                if kind == 1:
                    pygame.draw.circle(s, (220, 60, 50, 255), (x + 1, y + 2), 2)
                elif kind == 2:
                    pygame.draw.rect(s, (240, 140, 40, 255), (x - 1, y + 2, 2, 3))
    return draw


for _k in range(3):
    add(f"veg_patch{_k}", veg(_k))


def goods_shelf(kind):
    def draw(s, r):
        shadow_rect(s, (1, 4, 31, 28))
        box(s, (0, 1, 32, 28), (210, 210, 214) if kind != "tools" else (120, 120, 128), OUT, 1)
        for y in (3, 15):
            pygame.draw.rect(s, (150, 150, 158, 255), (2, y, 28, 11))
            for i, x in enumerate(range(3, 29, 4)):
                if kind == "fruit":
                    c = [(220, 60, 50), (250, 200, 60), (110, 180, 70), (240, 140, 40)][(i + y) % 4]
                    pygame.draw.circle(s, (*c, 255), (x + 1, y + 6), 2)
                    pygame.draw.circle(s, (*c, 255), (x + 2, y + 8), 2)
                elif kind == "cans":
                    c = [(200, 50, 50), (60, 110, 190), (230, 200, 80), (80, 150, 90)][(i + y // 3) % 4]
                    pygame.draw.rect(s, (*c, 255), (x, y + 2, 3, 8))
                    pygame.draw.line(s, (240, 240, 240, 255), (x, y + 5), (x + 2, y + 5))
                elif kind == "pharmacy":
                    c = [(250, 250, 250), (120, 180, 230), (240, 160, 170), (140, 210, 160)][(i + y) % 4]
                    pygame.draw.rect(s, (*c, 255), (x, y + 3, 3, 7))
                    pygame.draw.rect(s, (*rgb(c, 0.7), 255), (x, y + 3, 3, 2))
                else:  # tools and paint
                    c = [(200, 60, 40), (60, 120, 200), (240, 200, 60), (90, 90, 96)][(i + y) % 4]
                    if i % 2:
                        pygame.draw.rect(s, (*c, 255), (x, y + 3, 3, 7))
                        pygame.draw.line(s, (200, 200, 200, 255), (x, y + 3), (x + 2, y + 3))
                    else:
                        pygame.draw.line(s, (140, 100, 60, 255), (x + 1, y + 2), (x + 1, y + 10))
                        pygame.draw.rect(s, (*c, 255), (x, y + 1, 3, 3))
    return draw


for _k in ("fruit", "cans", "pharmacy", "tools"):
    add(f"shelf_{_k}", goods_shelf(_k))


@tile("grocery_counter")
def _(s, r):
    counter_top(s, r, (90, 90, 100), (200, 200, 206))
    pygame.draw.rect(s, (40, 40, 44, 255), (2, 8, 18, 10))  # belt
    for x in range(3, 19, 3):
        pygame.draw.line(s, (70, 70, 76, 255), (x, 8), (x, 17))
    box(s, (21, 4, 9, 12), (50, 52, 60), (20, 20, 24), 1)  # register
    pygame.draw.rect(s, (120, 220, 160, 255), (22, 5, 7, 3))


@tile("pharmacy_counter")
def _(s, r):
    counter_top(s, r, (236, 240, 244), (80, 160, 110))
    pygame.draw.rect(s, (60, 170, 90, 255), (13, 5, 6, 16))
    pygame.draw.rect(s, (60, 170, 90, 255), (8, 10, 16, 6))
    pygame.draw.rect(s, (250, 250, 250, 255), (3, 6, 4, 5))


@tile("shop_counter")
def _(s, r):
    counter_top(s, r, (160, 120, 70), (110, 80, 50))
    box(s, (16, 4, 12, 12), (50, 52, 60), (20, 20, 24), 1)
    pygame.draw.rect(s, (120, 220, 160, 255), (18, 5, 8, 3))
    pygame.draw.rect(s, (200, 60, 40, 255), (4, 8, 8, 6))  # a toolbox
    pygame.draw.line(s, (40, 40, 40, 255), (6, 7), (9, 7))


@tile("easel")
def _(s, r):
    shadow(s, (6, 22, 22, 8), 60)
    pygame.draw.line(s, (120, 80, 50, 255), (8, 29), (16, 2), 2)
    pygame.draw.line(s, (120, 80, 50, 255), (24, 29), (16, 2), 2)
    pygame.draw.line(s, (120, 80, 50, 255), (16, 2), (16, 29), 2)
    box(s, (6, 5, 20, 16), (250, 248, 240), (120, 80, 50), 1, light=False)
    pygame.draw.circle(s, (90, 160, 220, 255), (12, 10), 3)
    pygame.draw.rect(s, (110, 180, 80, 255), (8, 14, 16, 5))
    pygame.draw.circle(s, (250, 200, 60, 255), (21, 9), 2)


@tile("plant_pot")
def _(s, r):
    shadow(s, (8, 20, 18, 10), 60)
    box(s, (10, 18, 12, 10), (190, 100, 60), (110, 56, 34), 2)
    for ang in range(0, 360, 40):
        a = math.radians(ang + 10)
        x, y = 16 + 8 * math.cos(a), 12 + 7 * math.sin(a)
        pygame.draw.ellipse(s, (60, 140, 60, 255), (x - 4, y - 3, 8, 6))
    pygame.draw.circle(s, (90, 170, 80, 255), (16, 12), 4)


@tile("bulletin_l")
def _(s, r):
    pygame.draw.rect(s, (120, 80, 50, 255), (3, 2, 29, 16))
    pygame.draw.rect(s, (200, 160, 110, 255), (5, 4, 27, 12))
    for x, y, c in ((7, 5, (250, 250, 200)), (15, 7, (200, 230, 250)), (23, 5, (250, 210, 210))):
        pygame.draw.rect(s, (*c, 255), (x, y, 6, 7))
        s.set_at((x + 3, y), (220, 40, 40, 255))


@tile("bulletin_r")
def _(s, r):
    pygame.draw.rect(s, (120, 80, 50, 255), (0, 2, 29, 16))
    pygame.draw.rect(s, (200, 160, 110, 255), (0, 4, 27, 12))
    for x, y, c in ((2, 6, (230, 250, 210)), (11, 4, (250, 250, 250)), (19, 7, (250, 230, 160))):
        pygame.draw.rect(s, (*c, 255), (x, y, 6, 7))
        s.set_at((x + 3, y), (40, 80, 220, 255))


@tile("lockers")
def _(s, r):
    shadow_rect(s, (1, 4, 31, 26))
    box(s, (0, 0, 32, 27), (96, 130, 170), (40, 56, 80), 0)
    for x in (0, 10, 21):
        pygame.draw.rect(s, (40, 56, 80, 255), (x, 0, 11, 27), 1)
        for y in (4, 7, 10):
            pygame.draw.line(s, (60, 84, 116, 255), (x + 3, y), (x + 8, y))
        pygame.draw.rect(s, (220, 220, 230, 255), (x + 7, 15, 2, 4))


@tile("lamp_table")  # a floor lamp / side table
def _(s, r):
    shadow(s, (8, 10, 18, 18), 60)
    box(s, (9, 9, 14, 14), (140, 96, 60), OUT, 2)
    pygame.draw.circle(s, (250, 230, 160, 255), (16, 15), 5)
    pygame.draw.circle(s, (200, 170, 100, 255), (16, 15), 5, 1)

# ---------------------------------------------------------------- outdoors


@tile("trunk")
def _(s, r):
    shadow(s, (3, 18, 28, 12), 80)
    pygame.draw.rect(s, (100, 66, 40, 255), (12, 8, 9, 18))
    pygame.draw.line(s, (130, 90, 56, 255), (13, 8), (13, 25))
    pygame.draw.line(s, (70, 46, 28, 255), (20, 8), (20, 25))
    pygame.draw.polygon(s, (100, 66, 40, 255), [(9, 27), (12, 22), (21, 22), (24, 27)])


def canopy_sheet(base, rnd, blossom=False):
    big = pygame.Surface((96, 96), pygame.SRCALPHA)
    blobs = [(48, 38, 36), (30, 34, 22), (66, 34, 22), (40, 20, 20), (58, 22, 20), (34, 52, 20), (62, 52, 20), (48, 58, 18)]
    for cx, cy, rad in blobs:  # dark outline pass
        pygame.draw.circle(big, (*rgb(base, 0.55), 255), (cx, cy), rad + 1)
    for cx, cy, rad in blobs:
        pygame.draw.circle(big, (*rgb(base, 0.85), 255), (cx, cy), rad)
    for cx, cy, rad in blobs:
        pygame.draw.circle(big, (*rgb(base, 1.0), 255), (cx - 3, cy - 4), max(4, rad - 6))
    for cx, cy, rad in blobs[:5]:
        pygame.draw.circle(big, (*rgb(base, 1.2), 255), (cx - 6, cy - 8), max(3, rad // 3))
    for _ in range(120):
        x, y = rnd.randrange(96), rnd.randrange(96)
        c = big.get_at((x, y))
        if c.a:
            big.set_at((x, y), (*rgb(base, rnd.choice((0.7, 1.3))), 255))
    if blossom:
        for _ in range(40):
            x, y = rnd.randrange(96), rnd.randrange(96)
            if big.get_at((x, y)).a:
                pygame.draw.circle(big, (250, 190, 210, 255), (x, y), 1)
    return big


_CANOPIES = {}


def canopy(kind, i, j):
    def draw(s, r):
        if kind not in _CANOPIES:
            base = {"oak": (62, 128, 58), "pine": (40, 100, 70), "blossom": (90, 150, 70)}[kind]
            _CANOPIES[kind] = canopy_sheet(base, seeded("canopy" + kind), kind == "blossom")
        s.blit(_CANOPIES[kind], (0, 0), (i * T, j * T, T, T))
    return draw


for _kind in ("oak", "pine", "blossom"):
    for _j in range(3):
        for _i in range(3):
            add(f"canopy_{_kind}_{_j}{_i}", canopy(_kind, _i, _j))


@tile("bush")
def _(s, r):
    shadow(s, (3, 16, 28, 14), 70)
    for cx, cy, rad in ((16, 14, 11), (9, 18, 8), (23, 18, 8)):
        pygame.draw.circle(s, (36, 90, 40, 255), (cx, cy), rad + 1)
    for cx, cy, rad in ((16, 14, 11), (9, 18, 8), (23, 18, 8)):
        pygame.draw.circle(s, (66, 136, 60, 255), (cx, cy), rad)
    for cx, cy, rad in ((14, 11, 5), (8, 16, 3), (22, 15, 3)):
        pygame.draw.circle(s, (96, 170, 80, 255), (cx, cy), rad)


@tile("bush_flower")
def _(s, r):
    _REG_FN["bush"](s, r)
    for _ in range(7):
        pygame.draw.circle(s, (240, 120, 150, 255), (r.randrange(8, 25), r.randrange(8, 24)), 1)


def fence(mask):
    def draw(s, r):
        wood, dark = (200, 170, 130), (120, 90, 60)
        c = (16, 16)
        if mask & (E | W):
            x0 = 0 if mask & W else 14
            x1 = T if mask & E else 18
            for y in (10, 18):
                pygame.draw.rect(s, (*wood, 255), (x0, y, x1 - x0, 4))
                pygame.draw.line(s, (*dark, 255), (x0, y + 3), (x1 - 1, y + 3))
        if mask & (N | S):
            y0 = 0 if mask & N else 12
            y1 = T if mask & S else 22
            for x in (13, 17):
                pygame.draw.rect(s, (*wood, 255), (x, y0, 3, y1 - y0))
                pygame.draw.line(s, (*dark, 255), (x + 2, y0), (x + 2, y1 - 1))
        overlay(s, lambda t: pygame.draw.ellipse(t, (0, 0, 0, 60), (10, 20, 14, 8)))
        pygame.draw.rect(s, (*wood, 255), (c[0] - 3, 6, 7, 18))
        pygame.draw.rect(s, (*dark, 255), (c[0] - 3, 6, 7, 18), 1)
        pygame.draw.line(s, (230, 210, 180, 255), (c[0] - 2, 7), (c[0] + 2, 7))
    return draw


for _m in range(16):
    add(f"fence_{_m}", fence(_m))


@tile("lamp_post")
def _(s, r):
    shadow(s, (8, 22, 18, 8), 70)
    pygame.draw.rect(s, (50, 54, 60, 255), (14, 0, 4, 26))
    pygame.draw.line(s, (100, 106, 116, 255), (14, 0), (14, 25))
    pygame.draw.rect(s, (40, 42, 48, 255), (11, 24, 10, 4))


@tile("lamp_head")  # foreground, on the tile above the post
def _(s, r):
    overlay(s, lambda t: pygame.draw.circle(t, (255, 240, 170, 60), (16, 18), 14))
    pygame.draw.rect(s, (50, 54, 60, 255), (14, 22, 4, 10))
    pygame.draw.polygon(s, (50, 54, 60, 255), [(9, 18), (23, 18), (20, 10), (12, 10)])
    pygame.draw.rect(s, (255, 236, 150, 255), (12, 18, 8, 4))


@tile("bus_stop")
def _(s, r):
    shadow(s, (8, 24, 18, 7), 70)
    pygame.draw.rect(s, (60, 64, 72, 255), (15, 10, 3, 18))
    pygame.draw.circle(s, (30, 90, 170, 255), (16, 9), 8)
    pygame.draw.circle(s, (240, 240, 240, 255), (16, 9), 8, 1)
    pygame.draw.rect(s, (250, 250, 250, 255), (12, 6, 9, 6))
    pygame.draw.rect(s, (30, 90, 170, 255), (14, 7, 5, 4))  # a tiny bus
    pygame.draw.line(s, (250, 250, 250, 255), (14, 9), (18, 9))


def shelter_roof(side):
    """The bus shelter's glass roof, seen from above (foreground, over the bench)."""
    def draw(s, r):
        left = side == "l"
        x0, w = (2, 30) if left else (0, 30)
        overlay(s, lambda t: pygame.draw.rect(t, (150, 200, 230, 150), (x0, 4, w, 22)))
        overlay(s, lambda t: pygame.draw.rect(t, (0, 0, 0, 50), (x0 + 2, 26, w, 4)))
        pygame.draw.rect(s, (60, 66, 76, 255), (x0, 4, w, 22), 2)
        for x in range(x0 + 8, x0 + w, 8):
            pygame.draw.line(s, (60, 66, 76, 255), (x, 4), (x, 25))
        pygame.draw.line(s, (220, 240, 250, 255), (x0 + 3, 7), (x0 + 6, 7))
        pygame.draw.rect(s, (30, 90, 170, 255), (x0, 4, w, 4))
        if left:
            pygame.draw.line(s, (30, 90, 170, 255), (T - 1, 4), (T - 1, 7))
    return draw


add("shelter_roof_l", shelter_roof("l"))
add("shelter_roof_r", shelter_roof("r"))


def bus_bay(part):
    def draw(s, r):
        asphalt(s, r)
        y = (236, 206, 90, 255)
        pygame.draw.rect(s, y, (0, 2, T, 2))
        if part == "l":
            pygame.draw.rect(s, y, (2, 2, 2, T - 2))
        if part == "r":
            pygame.draw.rect(s, y, (T - 4, 2, 2, T - 2))
    return draw


for _p in "lmr":
    add(f"bus_bay_{_p}", bus_bay(_p))


@tile("lily_pads")  # furniture on water tiles
def _(s, r):
    for cx, cy, rad in ((9, 10, 5), (22, 18, 6), (12, 24, 4)):
        pygame.draw.circle(s, (60, 130, 60, 255), (cx, cy), rad)
        pygame.draw.circle(s, (96, 170, 80, 255), (cx - 1, cy - 1), rad - 2)
        pygame.draw.line(s, (64, 132, 196, 255), (cx, cy), (cx + rad, cy))
    pygame.draw.circle(s, (250, 200, 220, 255), (22, 16), 2)


@tile("reeds")
def _(s, r):
    for i in range(9):
        x = 4 + i * 3 + r.randrange(-1, 2)
        h = r.randrange(10, 20)
        pygame.draw.line(s, (70, 120, 50, 255), (x, 30), (x + r.randrange(-2, 3), 30 - h))
        if i % 3 == 0:
            pygame.draw.rect(s, (120, 80, 50, 255), (x - 1, 30 - h - 1, 3, 5))


@tile("mailbox")
def _(s, r):
    shadow(s, (9, 22, 16, 7), 70)
    pygame.draw.rect(s, (100, 70, 44, 255), (15, 14, 3, 12))
    box(s, (9, 6, 15, 10), (60, 90, 170), (20, 30, 70), 3)
    pygame.draw.rect(s, (220, 40, 40, 255), (21, 4, 2, 6))


@tile("sign_post")
def _(s, r):
    shadow(s, (8, 24, 18, 7), 70)
    pygame.draw.rect(s, (110, 76, 46, 255), (15, 10, 3, 18))
    box(s, (4, 4, 25, 10), (180, 130, 80), (90, 60, 36), 1)
    pygame.draw.line(s, (80, 50, 30, 255), (7, 9), (25, 9))


@tile("well")
def _(s, r):
    shadow(s, (3, 8, 28, 24), 70)
    pygame.draw.circle(s, (140, 136, 130, 255), (16, 16), 13)
    pygame.draw.circle(s, (90, 86, 80, 255), (16, 16), 13, 1)
    pygame.draw.circle(s, (40, 80, 130, 255), (16, 16), 8)
    pygame.draw.circle(s, (70, 120, 170, 255), (14, 14), 3)


@tile("blocked")  # the collision layer's tile (never drawn by the game)
def _(s, r):
    pygame.draw.rect(s, (230, 40, 40, 110), (0, 0, T, T))
    pygame.draw.rect(s, (200, 0, 0, 200), (0, 0, T, T), 1)
    pygame.draw.line(s, (200, 0, 0, 200), (0, 0), (T - 1, T - 1))
    pygame.draw.line(s, (200, 0, 0, 200), (T - 1, 0), (0, T - 1))


_REG_FN = dict(_REGISTRY)
TILE_NAMES = [name for name, _ in _REGISTRY]
INDEX = {name: i for i, name in enumerate(TILE_NAMES)}
assert len(INDEX) == len(TILE_NAMES), "duplicate tile name"
ROWS = (len(TILE_NAMES) + COLS - 1) // COLS


def render() -> pygame.Surface:
    pygame.init()
    sheet = pygame.Surface((COLS * T, ROWS * T), pygame.SRCALPHA)
    sheet.fill((0, 0, 0, 0))
    for i, (name, fn) in enumerate(_REGISTRY):
        s = new()
        fn(s, seeded(name))
        sheet.blit(s, ((i % COLS) * T, (i // COLS) * T))
    return sheet


def build(out_dir: str | Path) -> Path:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sheet = render()
    png = out_dir / "ville_tiles.png"
    save_png(png, surface_to_rgba(sheet))
    meta = {"tile_size": T, "columns": COLS, "rows": ROWS, "count": len(TILE_NAMES),
            "tiles": {name: i for i, name in enumerate(TILE_NAMES)}}
    (out_dir / "ville_tiles.json").write_text(json.dumps(meta, indent=1) + "\n")
    return png


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(Path(__file__).resolve().parent / "tiles"))
    a = p.parse_args(argv)
    png = build(a.out)
    print(f"{png}: {len(TILE_NAMES)} tiles, {COLS}x{ROWS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
