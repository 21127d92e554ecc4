"""Lay out the Ville and write maps/the_ville/the_ville.tmx (a Tiled map).

    python maps/the_ville/build_map.py [--out PATH.tmx] [--tiles-json PATH]
    python maps/the_ville/build_map.py --suburbs 12   # the Ville and its suburbs

The suburbs (``--suburbs K``) are K rows of ten apartments south of the Ville,
each along its own street off College Avenue, built from the Ville's own
apartment: homes for a town of hundreds (docs/bigger-towns.md), with the Ville
itself, its residents and their addresses unchanged.

The town is built programmatically on a grid: ground, streets, buildings
(walls with door gaps, floors by room type), furniture, trees; then the
named rectangles of the map contract (docs/contracts.md, section 1 and 5):
sectors, arenas, objects and spawns. Before writing, the script checks the
contract (names, containment, no overlaps, use tiles) and that every spawn,
arena and object is reachable from the visitor's spawn, and fails loudly if not.

Tiles are referred to by name; the names and indexes come from
assets/tiles/ville_tiles.json, written by assets/draw_tiles.py. The output has
no dates and a stable order, so reruns reproduce the file byte for byte.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections import deque
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_OUT = HERE / "the_ville.tmx"
SUBURBS_OUT = HERE / "the_ville_suburbs.tmx"  # the Ville with SUBURBS rows of apartments
SUBURBS = 12
DEFAULT_TILES_JSON = ROOT / "assets" / "tiles" / "ville_tiles.json"
IMAGE_SOURCE = "../../assets/tiles/ville_tiles.png"  # relative to the .tmx
WORLD = "the Ville"

W, H = 136, 96
STREETS = (30, 62)  # the Ville's east-west streets (their north kerb)
SUBURB_H = 20  # a suburb row: a street (5 tiles), then apartments (15) with their doors on it
SUBURB_APARTMENTS = (2, 14, 26, 38, 50, 72, 84, 96, 108, 120)  # west, then east of College Avenue
SUBURB_STREETS = ("Maple", "Birch", "Cedar", "Willow", "Aspen", "Linden", "Poplar", "Alder", "Hazel", "Rowan",
                  "Juniper", "Laurel", "Chestnut", "Walnut", "Spruce", "Magnolia")
TILE = 32
N, E, S, W_ = 1, 2, 4, 8

TILE_LAYERS = ["ground", "floor", "walls", "furniture", "foreground", "collision"]
OBJECT_LAYERS = ["sectors", "arenas", "objects", "spawns"]


class BuildError(Exception):
    pass


def _h(x, y, salt=0):
    """A small deterministic hash of a tile position."""
    v = (x * 73856093) ^ (y * 19349663) ^ (salt * 83492791)
    v = (v ^ (v >> 13)) * 1274126177
    return (v ^ (v >> 16)) & 0xFFFFFFFF


class Town:
    def __init__(self, w=W, h=H):
        self.w, self.h = w, h
        self.layers = {name: [[None] * w for _ in range(h)] for name in TILE_LAYERS[:-1]}
        self.block = [[False] * w for _ in range(h)]
        self.wallk = [[None] * w for _ in range(h)]
        self.water = [[False] * w for _ in range(h)]
        self.fence = [[False] * w for _ in range(h)]
        self.sectors: list[tuple[str, tuple]] = []
        self.arenas: list[tuple[str, str, tuple]] = []
        self.objects: list[tuple[str, str, str, tuple]] = []
        self.spawns: list[tuple[str, int, int]] = []
        self._sector = None

    # -------------------------------------------------------------- painting
    def set(self, layer, x, y, name):
        if not (0 <= x < self.w and 0 <= y < self.h):
            raise BuildError(f"{name} at ({x},{y}) is off the map")
        self.layers[layer][y][x] = name

    def fill(self, layer, x, y, w, h, name):
        for yy in range(y, y + h):
            for xx in range(x, x + w):
                self.set(layer, xx, yy, name(xx, yy) if callable(name) else name)

    def walls_rect(self, x, y, w, h, scheme):
        for xx in range(x, x + w):
            self.wallk[y][xx] = scheme
            self.wallk[y + h - 1][xx] = scheme
        for yy in range(y, y + h):
            self.wallk[yy][x] = scheme
            self.wallk[yy][x + w - 1] = scheme

    def hwall(self, x0, x1, y, scheme):
        for xx in range(x0, x1 + 1):
            self.wallk[y][xx] = scheme

    def vwall(self, x, y0, y1, scheme):
        for yy in range(y0, y1 + 1):
            self.wallk[yy][x] = scheme

    def door(self, x, y):
        if self.wallk[y][x] is None:
            raise BuildError(f"door at ({x},{y}) is not in a wall")
        self.wallk[y][x] = None
        self.set("floor", x, y, "door")

    def building(self, x, y, w, h, scheme, floor):
        """Outer walls on the border of (x, y, w, h); floor inside."""
        self.walls_rect(x, y, w, h, scheme)
        self.fill("floor", x + 1, y + 1, w - 2, h - 2, floor)

    def furn(self, x, y, name, block, layer="furniture"):
        self.set(layer, x, y, name)
        if block:
            self.block[y][x] = True

    def rug(self, x, y, w, h, color="red"):
        for yy in range(y, y + h):
            for xx in range(x, x + w):
                v = "t" if yy == y else "b" if yy == y + h - 1 else ""
                u = "l" if xx == x else "r" if xx == x + w - 1 else ""
                part = (v + u) or "c"
                self.set("floor", xx, yy, f"rug_{color}_{part}")

    def tree(self, x, y, kind="oak"):
        self.furn(x, y, "trunk", True)
        for j in range(3):
            for i in range(3):
                xx, yy = x - 1 + i, y - 2 + j
                if 0 <= xx < self.w and 0 <= yy < self.h:
                    self.set("foreground", xx, yy, f"canopy_{kind}_{j}{i}")

    def lamp(self, x, y):
        self.furn(x, y, "lamp_post", True)
        self.set("foreground", x, y - 1, "lamp_head")

    # -------------------------------------------------------------- naming
    def sector(self, name, x, y, w, h):
        self.sectors.append((name, (x, y, w, h)))
        self._sector = name

    def arena(self, name, x, y, w, h):
        self.arenas.append((self._sector, name, (x, y, w, h)))

    def item(self, arena, name, x, y, rows, block=False):
        """Place furniture tiles `rows` (list of rows of tile names; None = keep)
        with its top-left at (x, y); if `name`, register it as a game object."""
        for j, row in enumerate(rows):
            for i, t in enumerate(row):
                if t is not None:
                    b = block(t) if callable(block) else block
                    self.furn(x + i, y + j, t, b)
        if name:
            w = max(len(r) for r in rows)
            self.objects.append((self._sector, arena, name, (x, y, w, len(rows))))

    def obj_rect(self, arena, name, x, y, w, h):
        self.objects.append((self._sector, arena, name, (x, y, w, h)))

    def spawn(self, name, x, y):
        self.spawns.append((name, x, y))

    # -------------------------------------------------------------- finishing
    def finish(self):
        """Autotile walls, water and fences from their grids; set collision."""
        def mask(grid, x, y, same):
            m = 0
            for bit, dx, dy in ((N, 0, -1), (E, 1, 0), (S, 0, 1), (W_, -1, 0)):
                xx, yy = x + dx, y + dy
                if (0 <= xx < self.w and 0 <= yy < self.h and same(grid[yy][xx])) or not (0 <= xx < self.w and 0 <= yy < self.h):
                    m |= bit
            return m

        for y in range(self.h):
            for x in range(self.w):
                k = self.wallk[y][x]
                if k is not None:
                    m = mask(self.wallk, x, y, lambda v: v is not None)
                    name = f"wall_{k}_{m}"
                    outside = y + 1 < self.h and self.layers["floor"][y + 1][x] is None
                    if m == (E | W_) and outside and x % 3 == 1:
                        name = f"window_{k}"
                    self.set("walls", x, y, name)
                    self.block[y][x] = True
                    self.layers["floor"][y][x] = None
                if self.water[y][x]:
                    self.set("ground", x, y, f"water_{mask(self.water, x, y, bool)}")
                    self.block[y][x] = True
                if self.fence[y][x]:
                    self.set("furniture", x, y, f"fence_{mask(self.fence, x, y, bool)}")
                    self.block[y][x] = True


# ==================================================================== layout

def ground(t: Town):
    def grass(x, y):
        v = _h(x, y) % 100
        if v < 3:
            return "grass_flowers"
        return ("grass0", "grass1", "grass2")[_h(x, y, 1) % 3]

    t.fill("ground", 0, 0, t.w, t.h, grass)


def streets(t: Town, rows=STREETS):
    # Main Street, Elm Street and the suburbs' streets (east-west), College Avenue (north-south)
    for y0 in rows:
        t.fill("ground", 0, y0, W, 1, "kerb_s")
        t.fill("ground", 0, y0 + 4, W, 1, "kerb_n")
    t.fill("ground", 66, 0, 1, t.h, "kerb_e")
    t.fill("ground", 70, 0, 1, t.h, "kerb_w")
    for y0 in rows:
        t.fill("ground", 0, y0 + 1, W, 3, "asphalt")
        for x in range(W):
            if not 65 <= x <= 71 and x % 3 != 2:
                t.set("ground", x, y0 + 2, "asphalt_line_h")
    t.fill("ground", 67, 0, 3, t.h, "asphalt")
    for y in range(t.h):
        if not any(y0 - 1 <= y <= y0 + 5 for y0 in rows) and y % 3 != 2:
            t.set("ground", 68, y, "asphalt_line_v")
    # the crossings: sidewalk corners meet here
    for y0 in rows:
        for x in (66, 70):
            t.set("ground", x, y0, "sidewalk")
            t.set("ground", x, y0 + 4, "sidewalk")
        for x in (64, 65, 71, 72):
            t.fill("ground", x, y0 + 1, 1, 3, "crosswalk_h")
        for y in (y0 - 2, y0 - 1, y0 + 5, y0 + 6):
            t.fill("ground", 67, y, 3, 1, "crosswalk_v")
    # lamps along the streets (on the grass beside the sidewalks)
    for x in (8, 28, 46, 80, 96, 124):
        t.lamp(x, 29)
    for x in (20, 42, 90, 110):
        t.lamp(x, 61)
    for y in (14, 46, 80):
        t.lamp(65, y)
        t.lamp(71, y)


def path(t: Town, x, y0, y1, kind="cobble"):
    for y in range(min(y0, y1), max(y0, y1) + 1):
        t.set("ground", x, y, kind)


# ------------------------------------------------------------------ college

def college(t: Town):
    t.sector("Oak Hill College", 2, 3, 34, 26)
    t.building(3, 4, 32, 21, "stone", "floor_stone")
    t.vwall(18, 5, 15, "stone")
    t.hwall(4, 33, 16, "stone")
    t.door(11, 16)
    t.door(26, 16)
    t.door(18, 24)
    t.door(19, 24)
    path(t, 18, 25, 29)
    path(t, 19, 25, 29)
    # classroom
    t.fill("floor", 4, 5, 14, 11, "floor_lino_green")
    t.arena("classroom", 4, 5, 14, 11)
    t.item("classroom", "blackboard", 9, 5, [["blackboard_l", "blackboard_m", "blackboard_r"]], True)
    t.item("classroom", "lecturer's podium", 13, 7, [["podium"]], True)
    for y in (9, 11, 13):
        for x in (6, 8, 10, 12, 14):
            t.furn(x, y, "school_desk", False)
    t.obj_rect("classroom", "classroom student seating", 6, 9, 9, 5)
    t.item("classroom", None, 4, 5, [["bookcase"]], True)
    t.item("classroom", None, 17, 5, [["shelf"]], True)
    t.item("classroom", None, 4, 15, [["plant_pot"]], True)
    t.item("classroom", None, 17, 15, [["plant_pot"]], True)
    # library
    t.fill("floor", 19, 5, 15, 11, "floor_parquet")
    t.arena("library", 19, 5, 15, 11)
    t.item("library", "bookshelves", 19, 5, [["bookcase"] * 15], True)
    for x0 in (20, 28):
        t.item("library", None, x0, 8, [["bookcase"] * 5], True)
    t.rug(21, 10, 10, 5, "green")
    for x0 in (22, 28):
        t.item("library", None, x0, 11, [["chair_s", "chair_s"], ["lib_table_l", "lib_table_r"], ["chair_n", "chair_n"]],
               lambda n: n.startswith("lib_table"))
    t.obj_rect("library", "library tables", 22, 11, 8, 3)
    t.item("library", None, 33, 15, [["plant_pot"]], True)
    # hallway
    t.arena("hallway", 4, 17, 30, 7)
    t.rug(14, 19, 10, 3, "red")
    t.item("hallway", "bulletin board", 8, 17, [["bulletin_l", "bulletin_r"]], True)
    t.item("hallway", None, 4, 17, [["plant_pot"]], True)
    t.item("hallway", None, 33, 17, [["plant_pot"]], True)
    t.item("hallway", None, 29, 17, [["bench_l", "bench_r"]], False)
    t.item("hallway", None, 13, 17, [["lockers"] * 5], True)
    t.item("hallway", None, 20, 17, [["lockers"] * 5], True)
    t.item("hallway", None, 8, 23, [["bench_l", "bench_r"]], False)
    t.item("hallway", None, 28, 23, [["bench_l", "bench_r"]], False)
    t.item("hallway", None, 4, 23, [["bookcase"]], True)
    t.item("hallway", None, 33, 23, [["plant_pot"]], True)
    # lawn
    for x in (6, 12, 26, 31):
        t.tree(x, 27, "oak")
    for x in (22, 23):
        t.furn(x, 26, "flowers", False)


# ------------------------------------------------------------------ dorm

DORM_ROOMS = ["Klaus Mueller", "Maria Lopez", "Ayesha Khan", "Wolfgang Schulz"]


def dorm(t: Town):
    t.sector("Dorm for Oak Hill College", 37, 3, 28, 26)
    t.building(38, 4, 26, 17, "brick", "floor_wood")
    for x in (44, 50, 56):
        t.vwall(x, 5, 10, "brick")
    t.hwall(39, 62, 11, "brick")
    t.hwall(39, 62, 14, "brick")
    for x in (43, 48, 55):
        t.vwall(x, 15, 19, "brick")
    carpets = ["carpet_blue", "carpet_rose", "carpet_purple", "carpet_green"]
    for k, (who, r0) in enumerate(zip(DORM_ROOMS, (39, 45, 51, 57))):
        w = 6 if k == 3 else 5
        arena = f"{who}'s room"
        t.fill("floor", r0, 5, w, 6, carpets[k])
        t.arena(arena, r0, 5, w, 6)
        t.door(r0 + 2, 11)
        t.item(arena, "bed", r0, 5, [["bed_head"], ["bed_foot"]])
        t.spawn(who, r0, 5)
        t.item(arena, "closet", r0 + 1, 5, [["closet"]], True)
        t.item(arena, "desk", r0 + w - 1, 5, [["desk"]], True)
        t.furn(r0 + w - 1, 6, "chair_n", False)
        t.item(arena, "shelf", r0 + w - 1, 10, [["shelf"]], True)
        t.item(arena, None, r0, 10, [["plant_pot"]], True)
        t.rug(r0 + 1, 7, 3, 2, ("red", "green", "blue", "red")[k])
        t.item(arena, None, r0 + w - 2, 10, [["lamp_table"]], True)
    # corridor
    t.fill("floor", 39, 12, 24, 2, "floor_wood")
    # bathrooms
    for arena, x0, dx in (("man's bathroom", 39, 40), ("woman's bathroom", 44, 45)):
        t.fill("floor", x0, 15, 4, 5, "floor_bath")
        t.arena(arena, x0, 15, 4, 5)
        t.door(dx, 14)
        t.item(arena, "bathroom sink", x0 + 3, 15, [["bsink"]], True)
        t.item(arena, "toilet", x0, 17, [["toilet"]])
        t.item(arena, "shower", x0 + 3, 19, [["shower"]])
    # kitchen
    t.fill("floor", 49, 15, 6, 5, "floor_kitchen")
    t.arena("kitchen", 49, 15, 6, 5)
    t.door(49, 14)
    t.item("kitchen", None, 50, 15, [["kcounter"]], True)
    t.item("kitchen", "kitchen sink", 51, 15, [["ksink"]], True)
    t.item("kitchen", "stove", 52, 15, [["stove"]], True)
    t.item("kitchen", None, 53, 15, [["kcounter"]], True)
    t.item("kitchen", "refrigerator", 54, 15, [["fridge"]], True)
    t.item("kitchen", "dining table", 51, 17, [["table_l", "table_r"]], True)
    t.item("kitchen", None, 50, 17, [["chair_e"]])
    t.item("kitchen", None, 53, 17, [["chair_w"]])
    t.item("kitchen", None, 51, 18, [["chair_n", "chair_n"]])
    # common room (the entrance)
    t.fill("floor", 56, 15, 7, 5, "floor_wood")
    t.arena("common room", 56, 15, 7, 5)
    t.door(57, 14)
    t.door(59, 20)
    t.rug(59, 16, 4, 3, "blue")
    t.item("common room", "tv", 60, 15, [["tv"]], True)
    t.item("common room", "sofa", 60, 17, [["sofa_l", "sofa_r"]])
    t.item("common room", None, 62, 15, [["bookcase"]], True)
    t.item("common room", None, 56, 19, [["plant_pot"]], True)
    t.item("common room", None, 58, 15, [["lamp_table"]], True)
    # garden in front
    t.arena("garden", 39, 21, 24, 7)
    for y in range(21, 29):
        t.fence[y][38] = True
        t.fence[y][63] = True
    for x in range(38, 64):
        if not 58 <= x <= 60:
            t.fence[28][x] = True
    path(t, 59, 21, 29)
    t.fill("ground", 45, 22, 14, 1, "cobble")
    t.item("garden", "vegetable patch", 40, 24, [["veg_patch0", "veg_patch1", "veg_patch2", "veg_patch1"]] * 2)
    t.item("garden", "garden bench", 46, 23, [["bench_l", "bench_r"]])
    for x in range(50, 56):
        t.furn(x, 24, "flowers" if x % 2 else "flowers2", False)
    t.tree(53, 27, "blossom")
    t.item("garden", None, 62, 22, [["bush_flower"]], True)
    t.item("garden", None, 39, 27, [["bush"]], True)


# ------------------------------------------------------------------ park

def park(t: Town):
    t.sector("Johnson Park", 72, 2, 63, 27)
    t.arena("park", 73, 3, 61, 25)
    cx, cy, rx, ry = 104, 12, 7.6, 4.6
    pond = []
    for y in range(3, 27):
        for x in range(73, 134):
            if ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1.0:
                t.water[y][x] = True
                pond.append((x, y))
    xs, ys = [p[0] for p in pond], [p[1] for p in pond]
    for x, y in ((99, 10), (108, 14), (102, 15), (106, 9)):
        if t.water[y][x]:
            t.set("furniture", x, y, "lily_pads")
    for x, y in ((97, 12), (111, 11), (104, 8)):
        if t.water[y][x]:
            t.set("furniture", x, y, "reeds")
    t.obj_rect("park", "pond", min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)
    # dirt paths: a ring round the pond, a cross path, the entrance from Main Street
    for y in range(3, 28):
        for x in range(73, 134):
            d = ((x - cx) / (rx + 1.8)) ** 2 + ((y - cy) / (ry + 1.8)) ** 2
            if not t.water[y][x] and d <= 1.0:
                t.set("ground", x, y, "dirt")
    for x in range(74, 133):
        t.set("ground", x, 22, "dirt")
    path(t, 104, 18, 29, "dirt")
    path(t, 103, 23, 29, "dirt")
    path(t, 80, 10, 22, "dirt")
    path(t, 126, 6, 22, "dirt")
    t.fill("ground", 80, 10, 14, 1, "dirt")
    t.fill("ground", 115, 6, 12, 1, "dirt")
    t.item("park", "park bench", 101, 19, [["bench_l", "bench_r"]])
    t.item("park", None, 107, 19, [["bench_l", "bench_r"]])
    t.item("park", None, 85, 21, [["bench_l", "bench_r"]])
    t.item("park", None, 118, 21, [["bench_l", "bench_r"]])
    t.item("park", None, 92, 9, [["bench_l", "bench_r"]])
    garden = [["flowers", "flowers2", "flowers", "flowers2", "flowers", "flowers2"],
              ["flowers2", "flowers", "bush_flower", "bush_flower", "flowers2", "flowers"],
              ["flowers", "flowers2", "flowers", "flowers2", "flowers", "flowers2"]]
    t.item("park", "park garden", 82, 5, garden, lambda n: n.startswith("bush"))
    t.item("park", None, 117, 9, [["well"]], True)
    for x in (100, 101, 106, 107):
        t.item("park", None, x, 25, [["flowers" if x % 2 else "flowers2"], ["flowers2" if x % 2 else "flowers"]])
    for x in (99, 108):
        t.item("park", None, x, 26, [["bush"]], True)
    for x, y in ((96, 21), (112, 21), (88, 9), (122, 7)):
        t.lamp(x, y)
    # trees: a fixed-seed scatter that keeps off paths, water and objects
    rnd = random.Random(7)
    taken = set()
    for _, _, _, (ox, oy, ow, oh) in t.objects:
        for yy in range(oy - 2, oy + oh + 2):
            for xx in range(ox - 2, ox + ow + 2):
                taken.add((xx, yy))
    placed = []
    for gy in range(5, 28, 4):
        for gx in range(75, 133, 4):
            x, y = gx + rnd.randrange(-1, 2), gy + rnd.randrange(-1, 2)
            if not (74 <= x <= 132 and 4 <= y <= 27):
                continue
            near = [(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-2, -1, 0, 1)]
            if any(t.water[yy][xx] or t.layers["ground"][yy][xx] in ("dirt",) or (xx, yy) in taken
                   or t.layers["furniture"][yy][xx] for xx, yy in near if 0 <= yy < H and 0 <= xx < W):
                continue
            if any(abs(x - px) < 3 and abs(y - py) < 3 for px, py in placed):
                continue
            if rnd.random() < 0.12:
                continue
            placed.append((x, y))
            t.tree(x, y, ("oak", "pine", "oak", "blossom")[rnd.randrange(4)])
    for x, y in ((74, 26), (132, 26), (98, 26), (110, 26), (90, 16), (121, 16)):
        if not t.layers["furniture"][y][x] and t.layers["ground"][y][x] != "dirt":
            t.furn(x, y, "bush", True)


# ------------------------------------------------------------------ shops

def cafe(t: Town):
    t.sector("Hobbs Cafe", 2, 35, 19, 13)
    t.building(3, 36, 17, 11, "brick", "floor_cafe")
    t.door(10, 36)
    t.door(11, 36)
    path(t, 10, 35, 35)
    path(t, 11, 35, 35)
    t.arena("cafe", 4, 37, 15, 9)
    t.item("cafe", "piano", 5, 37, [["piano_l", "piano_r"]], True)
    t.item("cafe", None, 14, 37, [["kcounter", "kcounter", "kcounter"]], True)
    t.item("cafe", "coffee machine", 17, 37, [["coffee_machine"]], True)
    t.item("cafe", None, 18, 37, [["fridge"]], True)
    t.fill("floor", 14, 38, 5, 2, "floor_wood")
    t.item("cafe", "cafe counter", 14, 40, [["cafe_counter", "cafe_register", "cafe_counter", "cafe_counter", "cafe_counter"]], True)
    for y in (40, 43):
        for x in (5, 9):
            t.furn(x - 1, y, "chair_e", False)
            t.furn(x, y, "cafe_table", True)
            t.furn(x + 1, y, "chair_w", False)
    t.obj_rect("cafe", "cafe customer seating", 4, 40, 7, 4)
    for x in (14, 17):
        t.furn(x, 44, "cafe_table", True)
        t.furn(x, 43, "chair_s", False)
        t.furn(x, 45, "chair_n", False)
    for x, y in ((4, 45), (18, 45), (12, 37)):
        t.furn(x, y, "plant_pot", True)
    t.item("cafe", None, 8, 37, [["plant_pot"]], True)
    t.furn(4, 35, "bush_flower", True)
    t.furn(18, 35, "bush_flower", True)


def pub(t: Town):
    t.sector("The Rose and Crown Pub", 23, 35, 19, 13)
    t.building(24, 36, 17, 11, "wood", "floor_wood_dark")
    t.door(31, 36)
    t.door(32, 36)
    path(t, 31, 35, 35)
    path(t, 32, 35, 35)
    t.arena("pub", 25, 37, 15, 9)
    t.item("pub", None, 34, 37, [["bar_shelf"] * 6], True)
    t.item("pub", "bar counter", 34, 39, [["bar_counter", "bar_taps", "bar_counter", "bar_counter", "bar_taps", "bar_counter"]], True)
    for x in range(34, 40):
        t.furn(x, 40, "stool", False)
    for y in (40, 43):
        for x in (27, 30):
            t.furn(x - 1, y, "stool", False)
            t.furn(x, y, "pub_table", True)
            t.furn(x + 1, y, "stool", False)
    t.obj_rect("pub", "pub tables", 26, 40, 6, 4)
    t.rug(34, 43, 5, 2, "red")
    t.item("pub", None, 35, 44, [["pub_table"]], True)
    t.item("pub", None, 37, 44, [["pub_table"]], True)
    t.item("pub", None, 25, 37, [["bookcase"]], True)
    t.item("pub", None, 39, 45, [["plant_pot"]], True)
    t.item("pub", None, 25, 45, [["plant_pot"]], True)
    t.furn(28, 35, "sign_post", True)


def market(t: Town):
    t.sector("The Willows Market and Pharmacy", 44, 35, 21, 13)
    t.building(45, 36, 19, 11, "brick", "floor_lino")
    t.door(50, 36)
    t.door(51, 36)
    path(t, 50, 35, 35)
    path(t, 51, 35, 35)
    t.fill("floor", 56, 37, 7, 9, "floor_bath")
    t.arena("store", 46, 37, 17, 9)
    t.item("store", "grocery counter", 46, 38, [["grocery_counter", "grocery_counter"]], True)
    for y in (40, 43):
        t.item("store", None, 47, y, [["shelf_fruit", "shelf_fruit", "shelf_cans", "shelf_cans", "shelf_fruit", "shelf_cans", "shelf_cans"]], True)
    t.obj_rect("store", "grocery shelves", 47, 40, 7, 4)
    t.item("store", "pharmacy shelves", 57, 37, [["shelf_pharmacy"] * 6], True)
    t.item("store", "pharmacy counter", 57, 40, [["pharmacy_counter"] * 5], True)
    t.item("store", None, 46, 45, [["plant_pot"]], True)
    t.item("store", None, 55, 45, [["plant_pot"]], True)
    t.item("store", None, 62, 45, [["plant_pot"]], True)
    t.furn(47, 35, "bush", True)
    t.furn(54, 35, "bush", True)


def supply_store(t: Town):
    t.sector("Harvey Oak Supply Store", 72, 35, 18, 13)
    t.building(73, 36, 16, 11, "wood", "floor_concrete")
    t.door(79, 36)
    t.door(80, 36)
    path(t, 79, 35, 35)
    path(t, 80, 35, 35)
    t.arena("supply store", 74, 37, 14, 9)
    for y in (40, 43):
        t.item("supply store", None, 75, y, [["shelf_tools"] * 8], True)
    t.obj_rect("supply store", "supply store shelves", 75, 40, 8, 4)
    t.item("supply store", "supply store counter", 84, 38, [["shop_counter"] * 4], True)
    t.item("supply store", None, 87, 42, [["shelf_tools"]], True)
    t.item("supply store", None, 87, 43, [["shelf_tools"]], True)
    t.item("supply store", None, 74, 45, [["plant_pot"]], True)
    t.furn(76, 35, "sign_post", True)
    # a little square behind the store
    t.fill("ground", 74, 49, 14, 10, "cobble")
    for x, y in ((76, 51), (85, 51), (76, 58), (85, 58)):
        t.tree(x, y, "oak")
    t.furn(80, 53, "well", True)
    t.furn(79, 56, "bench_l", False)
    t.furn(80, 56, "bench_r", False)


# ------------------------------------------------------------------ co-living

ARTISTS = ["Latoya Williams", "Rajiv Patel", "Abigail Chen", "Francisco Lopez", "Hailey Johnson"]


def coliving(t: Town):
    t.sector("artist's co-living space", 92, 35, 39, 27)
    t.building(93, 36, 36, 23, "plaster", "floor_wood")
    t.hwall(94, 127, 45, "plaster")
    t.hwall(94, 127, 48, "plaster")
    t.vwall(104, 37, 44, "plaster")
    for x in (100, 107, 114, 121):
        t.vwall(x, 49, 57, "plaster")
    t.door(116, 36)
    t.door(117, 36)
    t.door(104, 40)
    t.door(99, 45)
    t.door(116, 45)
    path(t, 116, 35, 35)
    path(t, 117, 35, 35)
    # kitchen
    t.fill("floor", 94, 37, 10, 8, "floor_kitchen")
    t.arena("kitchen", 94, 37, 10, 8)
    t.item("kitchen", "refrigerator", 94, 37, [["fridge"]], True)
    t.item("kitchen", None, 95, 37, [["kcounter"]], True)
    t.item("kitchen", "stove", 96, 37, [["stove"]], True)
    t.item("kitchen", "kitchen sink", 97, 37, [["ksink"]], True)
    t.item("kitchen", None, 98, 37, [["kcounter", "kcounter", "shelf"]], True)
    t.item("kitchen", "dining table", 97, 41, [["table_l", "table_r"]], True)
    t.item("kitchen", None, 97, 40, [["chair_s", "chair_s"]])
    t.item("kitchen", None, 97, 42, [["chair_n", "chair_n"]])
    t.item("kitchen", None, 96, 41, [["chair_e"]])
    t.item("kitchen", None, 99, 41, [["chair_w"]])
    t.item("kitchen", None, 94, 44, [["plant_pot"]], True)
    # common room
    t.fill("floor", 105, 37, 23, 8, "floor_parquet")
    t.arena("common room", 105, 37, 23, 8)
    t.rug(107, 38, 6, 4, "red")
    t.item("common room", "tv", 109, 37, [["tv"]], True)
    t.item("common room", "sofa", 109, 40, [["sofa_l", "sofa_r"]])
    t.item("common room", None, 107, 39, [["chair_e"]])
    t.item("common room", None, 105, 37, [["bookcase", "bookcase"]], True)
    t.item("common room", None, 112, 37, [["lamp_table"]], True)
    t.item("common room", None, 119, 37, [["easel", None, "easel", None, "easel"]], True)
    t.item("common room", None, 119, 41, [["chair_s", "chair_s"], ["lib_table_l", "lib_table_r"], ["chair_n", "chair_n"]],
           lambda n: n.startswith("lib_table"))
    t.item("common room", None, 127, 37, [["plant_pot"]], True)
    t.item("common room", None, 127, 44, [["plant_pot"]], True)
    t.item("common room", None, 105, 44, [["plant_pot"]], True)
    t.rug(118, 40, 9, 5, "green")
    t.item("common room", None, 124, 42, [["piano_l", "piano_r"]], True)
    t.item("common room", None, 113, 37, [["bookcase", "bookcase"]], True)
    t.item("common room", None, 108, 43, [["sofa_l", "sofa_r"]])
    t.item("common room", None, 111, 43, [["lamp_table"]], True)
    # corridor
    t.fill("floor", 94, 46, 34, 2, "floor_wood")
    # rooms, each with its own bathroom
    carpets = ["carpet_green", "carpet_purple", "carpet_rose", "carpet_blue", "carpet_beige"]
    for k, who in enumerate(ARTISTS):
        r0 = 94 + 7 * k
        room, bath = f"{who}'s room", f"{who}'s bathroom"
        t.hwall(r0, r0 + 5, 54, "plaster")
        t.door(r0 + 2, 48)
        t.door(r0 + 1, 54)
        t.fill("floor", r0, 49, 6, 5, carpets[k])
        t.arena(room, r0, 49, 6, 5)
        t.item(room, "bed", r0, 49, [["bed_head"], ["bed_foot"]])
        t.spawn(who, r0, 49)
        t.item(room, "closet", r0 + 1, 49, [["closet"]], True)
        t.item(room, "desk", r0 + 4, 49, [["desk"]], True)
        t.furn(r0 + 4, 50, "chair_n", False)
        t.item(room, "shelf", r0 + 5, 49, [["shelf"]], True)
        t.item(room, "easel", r0 + 5, 52, [["easel"]], True)
        t.item(room, None, r0 + 5, 53, [["plant_pot"]], True)
        t.fill("floor", r0, 55, 6, 3, "floor_bath")
        t.arena(bath, r0, 55, 6, 3)
        t.item(bath, "bathroom sink", r0 + 3, 55, [["bsink"]], True)
        t.item(bath, "toilet", r0 + 3, 57, [["toilet"]])
        t.item(bath, "shower", r0 + 5, 55, [["shower"]])
    # back yard
    for x in (96, 104, 112, 120, 127):
        t.furn(x, 60, "bush" if x % 16 else "bush_flower", True)


# ------------------------------------------------------------------ homes

def small_house(t: Town, name, x0, who, double=False):
    """A house with a main room and a bathroom (+ a store room); door south."""
    t.sector(name, x0, 49, 16, 13)
    t.building(x0 + 1, 50, 14, 10, "plaster", "floor_wood")
    t.vwall(x0 + 10, 51, 58, "plaster")
    t.hwall(x0 + 11, x0 + 13, 55, "plaster")
    t.door(x0 + 5, 59)
    t.door(x0 + 10, 52)
    t.door(x0 + 10, 56)
    path(t, x0 + 5, 60, 61)
    m = "main room"
    t.arena(m, x0 + 2, 51, 8, 8)
    t.fill("floor", x0 + 2, 51, 5, 2, "floor_kitchen")
    t.item(m, "refrigerator", x0 + 2, 51, [["fridge"]], True)
    t.item(m, None, x0 + 3, 51, [["kcounter"]], True)
    t.item(m, "stove", x0 + 4, 51, [["stove"]], True)
    t.item(m, "kitchen sink", x0 + 5, 51, [["ksink"]], True)
    t.item(m, None, x0 + 6, 51, [["kcounter"]], True)
    t.item(m, "closet", x0 + 8, 51, [["closet"]], True)
    t.item(m, "shelf", x0 + 9, 51, [["shelf"]], True)
    t.item(m, "dining table", x0 + 3, 54, [["table_l", "table_r"]], True)
    t.item(m, None, x0 + 3, 53, [["chair_s", "chair_s"]])
    t.item(m, None, x0 + 3, 55, [["chair_n", "chair_n"]])
    t.item(m, "desk", x0 + 9, 54, [["desk"]], True)
    t.furn(x0 + 8, 54, "chair_e", False)
    t.rug(x0 + 3, 57, 4, 2, "green" if double else "blue")
    if double:
        t.item(m, "bed", x0 + 8, 57, [["dbed_hl", "dbed_hr"], ["dbed_fl", "dbed_fr"]])
        t.spawn(who[0], x0 + 8, 57)
        t.spawn(who[1], x0 + 9, 57)
        t.item(m, None, x0 + 2, 57, [["easel"]], True)  # Jennifer paints
    else:
        t.item(m, "bed", x0 + 9, 57, [["bed_head"], ["bed_foot"]])
        t.spawn(who[0], x0 + 9, 57)
        t.item(m, None, x0 + 2, 57, [["bookcase"]], True)
    t.item(m, None, x0 + 2, 58, [["plant_pot"]], True)
    b = "bathroom"
    t.fill("floor", x0 + 11, 51, 3, 4, "floor_bath")
    t.arena(b, x0 + 11, 51, 3, 4)
    t.item(b, "shower", x0 + 13, 51, [["shower"]])
    t.item(b, "bathroom sink", x0 + 12, 51, [["bsink"]], True)
    t.item(b, "toilet", x0 + 13, 54, [["toilet"]])
    t.fill("floor", x0 + 11, 56, 3, 3, "floor_lino")
    t.furn(x0 + 13, 56, "shelf_cans", True)
    t.furn(x0 + 13, 57, "shelf_tools", True)
    # front yard
    t.furn(x0 + 2, 60, "flowers", False)
    t.furn(x0 + 3, 60, "flowers2", False)
    t.furn(x0 + 7, 61, "mailbox", True)
    t.furn(x0 + 13, 60, "bush", True)


def apartment(t: Town, a, who, y=67, name=None):
    """An apartment with a main room, a bathroom and a laundry; door north. Its top
    edge is row ``y``; ``who`` (None: nobody yet) spawns on its bed."""
    t.sector(name or f"{who}'s apartment", a, y, 12, 15)
    t.building(a + 1, y + 1, 10, 13, "brick", "floor_wood")
    t.hwall(a + 2, a + 9, y + 9, "brick")
    t.vwall(a + 6, y + 10, y + 12, "brick")
    t.door(a + 5, y + 1)
    t.door(a + 3, y + 9)
    t.door(a + 8, y + 9)
    path(t, a + 5, y, y)
    m = "main room"
    t.arena(m, a + 2, y + 2, 8, 7)
    t.fill("floor", a + 2, y + 2, 3, 2, "floor_kitchen")
    t.item(m, "refrigerator", a + 2, y + 2, [["fridge"]], True)
    t.item(m, "stove", a + 3, y + 2, [["stove"]], True)
    t.item(m, "kitchen sink", a + 4, y + 2, [["ksink"]], True)
    t.item(m, "closet", a + 7, y + 2, [["closet"]], True)
    t.item(m, "shelf", a + 8, y + 2, [["shelf"]], True)
    t.item(m, "bed", a + 9, y + 2, [["bed_head"], ["bed_foot"]])
    if who:
        t.spawn(who, a + 9, y + 2)
    t.item(m, "dining table", a + 3, y + 5, [["table_l", "table_r"]], True)
    t.item(m, None, a + 3, y + 4, [["chair_s", "chair_s"]])
    t.item(m, None, a + 3, y + 6, [["chair_n", "chair_n"]])
    t.item(m, "desk", a + 9, y + 6, [["desk"]], True)
    t.furn(a + 8, y + 6, "chair_e", False)
    t.rug(a + 6, y + 4, 2, 3, "red")
    t.item(m, None, a + 2, y + 8, [["plant_pot"]], True)
    t.item(m, None, a + 9, y + 8, [["lamp_table"]], True)
    b = "bathroom"
    t.fill("floor", a + 2, y + 10, 4, 3, "floor_bath")
    t.arena(b, a + 2, y + 10, 4, 3)
    t.item(b, "bathroom sink", a + 5, y + 10, [["bsink"]], True)
    t.item(b, "toilet", a + 2, y + 12, [["toilet"]])
    t.item(b, "shower", a + 5, y + 12, [["shower"]])
    t.fill("floor", a + 7, y + 10, 3, 3, "floor_lino")
    t.furn(a + 9, y + 10, "shelf_cans", True)
    t.furn(a + 9, y + 12, "plant_pot", True)
    # back yard
    t.furn(a + 2, y + 14, "bush", True)
    t.furn(a + 9, y + 14, "flowers", False)


def big_house(t: Town, name, x0, bed_a, bed_b, people_a, people_b, piano=False):
    """A house with two bedrooms, common room, kitchen, bathroom and a garden; door north."""
    t.sector(name, x0, 67, 20, 28)
    t.building(x0 + 1, 68, 18, 16, "plaster", "floor_wood")
    t.vwall(x0 + 8, 69, 82, "plaster")
    t.vwall(x0 + 11, 69, 82, "plaster")
    t.hwall(x0 + 2, x0 + 7, 76, "plaster")
    t.hwall(x0 + 12, x0 + 17, 74, "plaster")
    t.hwall(x0 + 12, x0 + 17, 78, "plaster")
    t.door(x0 + 9, 68)
    t.door(x0 + 10, 68)
    t.door(x0 + 9, 83)
    t.door(x0 + 8, 72)
    t.door(x0 + 8, 80)
    t.door(x0 + 11, 71)
    t.door(x0 + 11, 76)
    t.door(x0 + 11, 80)
    path(t, x0 + 9, 67, 67)
    path(t, x0 + 10, 67, 67)
    t.fill("floor", x0 + 9, 69, 2, 14, "floor_stone")  # the hall
    # common room
    c = "common room"
    t.fill("floor", x0 + 2, 69, 6, 7, "floor_wood")
    t.arena(c, x0 + 2, 69, 6, 7)
    t.rug(x0 + 3, 70, 4, 4, "red")
    t.item(c, "tv", x0 + 4, 69, [["tv"]], True)
    t.item(c, "sofa", x0 + 4, 72, [["sofa_l", "sofa_r"]])
    t.item(c, None, x0 + 2, 69, [["bookcase"]], True)
    if piano:
        t.item(c, "piano", x0 + 6, 69, [["piano_l", "piano_r"]], True)
    else:
        t.item(c, None, x0 + 7, 69, [["plant_pot"]], True)
    t.item(c, None, x0 + 2, 75, [["plant_pot"]], True)
    t.item(c, None, x0 + 7, 75, [["lamp_table"]], True)
    # kitchen
    k = "kitchen"
    t.fill("floor", x0 + 2, 77, 6, 6, "floor_kitchen")
    t.arena(k, x0 + 2, 77, 6, 6)
    t.item(k, "refrigerator", x0 + 2, 77, [["fridge"]], True)
    t.item(k, None, x0 + 3, 77, [["kcounter"]], True)
    t.item(k, "stove", x0 + 4, 77, [["stove"]], True)
    t.item(k, "kitchen sink", x0 + 5, 77, [["ksink"]], True)
    t.item(k, None, x0 + 6, 77, [["kcounter", "kcounter"]], True)
    t.item(k, "dining table", x0 + 4, 80, [["table_l", "table_r"]], True)
    t.item(k, None, x0 + 4, 79, [["chair_s", "chair_s"]])
    t.item(k, None, x0 + 4, 81, [["chair_n", "chair_n"]])
    t.item(k, None, x0 + 2, 82, [["plant_pot"]], True)
    # bedroom A (front)
    t.fill("floor", x0 + 12, 69, 6, 5, "carpet_beige" if len(people_a) > 1 else "carpet_rose")
    t.arena(bed_a, x0 + 12, 69, 6, 5)
    if len(people_a) > 1:
        t.item(bed_a, "bed", x0 + 16, 69, [["dbed_hl", "dbed_hr"], ["dbed_fl", "dbed_fr"]])
        t.spawn(people_a[0], x0 + 16, 69)
        t.spawn(people_a[1], x0 + 17, 69)
    else:
        t.item(bed_a, "bed", x0 + 17, 69, [["bed_head"], ["bed_foot"]])
        for p in people_a:
            t.spawn(p, x0 + 17, 69)
    t.item(bed_a, "closet", x0 + 15, 69, [["closet"]], True)
    t.item(bed_a, "shelf", x0 + 12, 69, [["shelf"]], True)
    t.item(bed_a, "desk", x0 + 17, 73, [["desk"]], True)
    t.furn(x0 + 16, 73, "chair_e", False)
    t.item(bed_a, None, x0 + 12, 73, [["plant_pot"]], True)
    # bathroom
    b = "bathroom"
    t.fill("floor", x0 + 12, 75, 6, 3, "floor_bath")
    t.arena(b, x0 + 12, 75, 6, 3)
    t.item(b, "bathroom sink", x0 + 13, 75, [["bsink"]], True)
    t.item(b, "toilet", x0 + 15, 75, [["toilet"]])
    t.item(b, "shower", x0 + 17, 75, [["shower"]])
    # bedroom B (back)
    t.fill("floor", x0 + 12, 79, 6, 4, "carpet_blue")
    t.arena(bed_b, x0 + 12, 79, 6, 4)
    t.item(bed_b, "bed", x0 + 17, 79, [["bed_head"], ["bed_foot"]])
    for p in people_b:
        t.spawn(p, x0 + 17, 79)
    t.item(bed_b, "closet", x0 + 16, 79, [["closet"]], True)
    t.item(bed_b, "desk", x0 + 13, 79, [["desk"]], True)
    t.furn(x0 + 13, 80, "chair_n", False)
    t.item(bed_b, "shelf", x0 + 17, 82, [["shelf"]], True)
    # garden behind
    g = "garden"
    t.arena(g, x0 + 2, 84, 16, 9)
    for y in range(84, 94):
        t.fence[y][x0 + 1] = True
        t.fence[y][x0 + 18] = True
    for x in range(x0 + 1, x0 + 19):
        t.fence[93][x] = True
    path(t, x0 + 9, 84, 88, "dirt")
    t.item(g, "vegetable patch", x0 + 3, 87, [["veg_patch0", "veg_patch1", "veg_patch2", "veg_patch0"]] * 2)
    t.item(g, "garden bench", x0 + 12, 86, [["bench_l", "bench_r"]])
    for x in range(x0 + 12, x0 + 17):
        t.furn(x, 90, "flowers" if x % 2 else "flowers2", False)
    t.item(g, None, x0 + 2, 92, [["bush"]], True)
    t.item(g, None, x0 + 3, 90, [["flowers2", "flowers", "flowers2", "flowers"]])
    t.item(g, None, x0 + 17, 84, [["bush_flower"]], True)
    t.item(g, None, x0 + 2, 84, [["bush"]], True)
    t.item(g, None, x0 + 13, 88, [["well"]], True)
    t.tree(x0 + 16, 92, "blossom")
    # front
    t.furn(x0 + 12, 67, "mailbox", True)
    t.furn(x0 + 3, 67, "bush_flower", True)
    t.furn(x0 + 16, 67, "bush", True)


def suburb(t: Town, y0, street):
    """A row of ten apartments along ``street`` (its north kerb at row ``y0``), reached
    from College Avenue; nobody lives in them until a bigger town's newcomers move in."""
    for x in range(8, W, 20):
        if not 60 <= x <= 76:
            t.lamp(x, y0 - 1)
    for k, a in enumerate(SUBURB_APARTMENTS):
        apartment(t, a, None, y=y0 + 5, name=f"{k + 1} {street} Street")


def bus_stop(t: Town):
    t.furn(134, 35, "bus_stop", True)
    t.furn(131, 35, "bench_l", False)
    t.furn(132, 35, "bench_r", False)
    t.set("foreground", 131, 35, "shelter_roof_l")
    t.set("foreground", 132, 35, "shelter_roof_r")
    t.set("ground", 130, 33, "bus_bay_l")
    for x in range(131, 135):
        t.set("ground", x, 33, "bus_bay_m")
    t.set("ground", 135, 33, "bus_bay_r")
    t.spawn("visitor", 133, 34)


def edges(t: Town):
    for x in range(4, 64, 4):
        t.tree(x, 2, "pine" if x % 8 else "oak")
    for y in (8, 14, 20, 26):
        t.tree(1, y, "pine")
    for x in range(74, 132, 5):
        t.tree(x, 88, ("oak", "pine", "blossom")[x % 3])
    for x in range(75, 132, 5):
        t.furn(x, 94, "bush", True)
    for x, y in ((22, 52), (42, 52), (64, 52), (43, 57)):
        t.tree(x, y, "oak")


def suburb_rows(suburbs: int) -> list[int]:
    """The north kerbs of the suburbs' streets, south of the Ville."""
    if not 0 <= suburbs <= len(SUBURB_STREETS):
        raise BuildError(f"--suburbs {suburbs}: from 0 to {len(SUBURB_STREETS)} rows")
    return [H + k * SUBURB_H for k in range(suburbs)]


def build_town(suburbs: int = 0) -> Town:
    rows = suburb_rows(suburbs)
    t = Town(W, H + SUBURB_H * suburbs)
    ground(t)
    streets(t, STREETS + tuple(rows))
    edges(t)
    college(t)
    dorm(t)
    park(t)
    cafe(t)
    pub(t)
    market(t)
    supply_store(t)
    coliving(t)
    small_house(t, "Adam Smith's house", 2, ["Adam Smith"])
    small_house(t, "Moore family's house", 24, ["Sam Moore", "Jennifer Moore"], double=True)
    small_house(t, "Yuriko Yamamoto's house", 46, ["Yuriko Yamamoto"])
    big_house(t, "Tamara Taylor and Carmen Ortiz's house", 1, "Tamara Taylor's bedroom", "Carmen Ortiz's bedroom",
              ["Tamara Taylor"], ["Carmen Ortiz"])
    big_house(t, "Moreno family's house", 23, "Tom and Jane Moreno's bedroom", "guest bedroom",
              ["Tom Moreno", "Jane Moreno"], [])
    big_house(t, "Lin family's house", 45, "Mei and John Lin's bedroom", "Eddy Lin's bedroom",
              ["Mei Lin", "John Lin"], ["Eddy Lin"], piano=True)
    for k, who in enumerate(["Arthur Burton", "Isabella Rodriguez", "Giorgio Rossi", "Ryan Park", "Carlos Gomez"]):
        apartment(t, 72 + 12 * k, who)
    for y0, street in zip(rows, SUBURB_STREETS):
        suburb(t, y0, street)
    bus_stop(t)
    t.finish()
    return t


# ==================================================================== checks

RESIDENTS = [
    "Isabella Rodriguez", "Maria Lopez", "Klaus Mueller", "Ayesha Khan", "Wolfgang Schulz",
    "Abigail Chen", "Rajiv Patel", "Latoya Williams", "Francisco Lopez", "Hailey Johnson",
    "Arthur Burton", "Ryan Park", "Giorgio Rossi", "Carlos Gomez", "Mei Lin", "John Lin",
    "Eddy Lin", "Tom Moreno", "Jane Moreno", "Tamara Taylor", "Carmen Ortiz", "Sam Moore",
    "Jennifer Moore", "Yuriko Yamamoto", "Adam Smith",
]


def _inside(inner, outer):
    x, y, w, h = inner
    X, Y, Wd, Hd = outer
    return x >= X and y >= Y and x + w <= X + Wd and y + h <= Y + Hd


def _tiles(r):
    x, y, w, h = r
    return [(xx, yy) for yy in range(y, y + h) for xx in range(x, x + w)]


def check(t: Town) -> dict:
    """Check the map contract and reachability; raise BuildError on any failure."""
    errs = []
    walk = [[not t.block[y][x] for x in range(t.w)] for y in range(t.h)]
    names = [n for n, _ in t.sectors]
    expected = 19 + len(SUBURB_APARTMENTS) * (t.h - H) // SUBURB_H
    if len(set(names)) != len(names) or len(names) != expected:
        errs.append(f"expected {expected} distinct sectors, got {len(names)}: {names}")
    for n, r in t.sectors:
        for m, q in t.sectors:
            if n < m and set(_tiles(r)) & set(_tiles(q)):
                errs.append(f"sectors {n!r} and {m!r} overlap")
    seen = set()
    for s, a, r in t.arenas:
        if (s, a) in seen:
            errs.append(f"two arenas {s}:{a}")
        seen.add((s, a))
        owners = [n for n, q in t.sectors if _inside(r, q)]
        if owners != [s]:
            errs.append(f"arena {s}:{a} lies in sectors {owners}")
        for s2, a2, r2 in t.arenas:
            if (s, a) < (s2, a2) and set(_tiles(r)) & set(_tiles(r2)):
                errs.append(f"arenas {s}:{a} and {s2}:{a2} overlap")
    arena_rect = {(s, a): r for s, a, r in t.arenas}
    seen = set()
    occupied = {}
    for s, a, o, r in t.objects:
        key = (s, a, o)
        if key in seen:
            errs.append(f"two objects {s}:{a}:{o}")
        seen.add(key)
        if (s, a) not in arena_rect or not _inside(r, arena_rect[(s, a)]):
            errs.append(f"object {s}:{a}:{o} {r} is not inside its arena")
            continue
        others = [(s2, a2) for (s2, a2), q in arena_rect.items() if _inside(r, q)]
        if others != [(s, a)]:
            errs.append(f"object {s}:{a}:{o} lies in arenas {others}")
        for p in _tiles(r):
            if p in occupied:
                errs.append(f"objects {occupied[p]} and {key} overlap at {p}")
            occupied[p] = key
        if ":" in o or ":" in a or ":" in s:
            errs.append(f"name with ':' in {key}")
    # use tiles
    use = {}
    for s, a, o, r in t.objects:
        if (s, a) not in arena_rect:
            continue
        ar = set(_tiles(arena_rect[(s, a)]))
        own = _tiles(r)
        tiles = [p for p in own if walk[p[1]][p[0]]]
        if not tiles:
            tiles = sorted({(x + dx, y + dy) for x, y in own for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                            if (x + dx, y + dy) in ar and (x + dx, y + dy) not in own and walk[y + dy][x + dx]})
        if not tiles:
            errs.append(f"object {s}:{a}:{o} has no use tile")
        use[(s, a, o)] = tiles
    # contents per kind of room
    tree = {}
    for s, a, o, _ in t.objects:
        tree.setdefault((s, a), set()).add(o)
    for s, a, _ in t.arenas:
        objs = tree.get((s, a), set())
        need = set()
        if a.endswith(("'s room", "bedroom")):
            need |= {"bed", "desk", "closet", "shelf"}
        if a == "main room":
            need |= {"bed", "desk", "closet", "shelf", "refrigerator", "stove", "kitchen sink", "dining table"}
        if "bathroom" in a:
            need |= {"toilet", "shower", "bathroom sink"}
        if a == "kitchen":
            need |= {"refrigerator", "stove", "kitchen sink", "dining table"}
        if a == "common room":
            need |= {"sofa", "tv"}
        if a == "garden":
            need |= {"vegetable patch", "garden bench"}
        if need - objs:
            errs.append(f"{s}:{a} lacks {sorted(need - objs)}")
    # spawns
    spawn_names = [n for n, _, _ in t.spawns]
    if sorted(spawn_names) != sorted(RESIDENTS + ["visitor"]):
        errs.append(f"spawns do not match the residents: {sorted(set(spawn_names) ^ set(RESIDENTS + ['visitor']))}")
    beds = {(s, a): r for s, a, o, r in t.objects if o == "bed"}
    for n, x, y in t.spawns:
        if not walk[y][x]:
            errs.append(f"spawn {n} at ({x},{y}) is not walkable")
        if n != "visitor" and not any((x, y) in _tiles(r) for r in beds.values()):
            errs.append(f"spawn {n} at ({x},{y}) is not on a bed")
    # reachability (4-connected; the game's 8-connected A* without corner
    # cutting connects exactly the same tiles)
    vx, vy = next((x, y) for n, x, y in t.spawns if n == "visitor")
    seen_t = {(vx, vy)}
    q = deque([(vx, vy)])
    while q:
        x, y = q.popleft()
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nx, ny = x + dx, y + dy
            if 0 <= nx < t.w and 0 <= ny < t.h and walk[ny][nx] and (nx, ny) not in seen_t:
                seen_t.add((nx, ny))
                q.append((nx, ny))
    for n, x, y in t.spawns:
        if (x, y) not in seen_t:
            errs.append(f"spawn {n} at ({x},{y}) is unreachable from the visitor's spawn")
    for s, a, r in t.arenas:
        if not any(p in seen_t for p in _tiles(r)):
            errs.append(f"arena {s}:{a} is unreachable")
    for key, tiles in use.items():
        if tiles and not any(p in seen_t for p in tiles):
            errs.append(f"object {':'.join(key)} is unreachable (use tiles {tiles})")
    if errs:
        raise BuildError("the Ville breaks the map contract:\n  " + "\n  ".join(errs))
    return {"reachable_tiles": len(seen_t), "objects": len(t.objects), "arenas": len(t.arenas)}


# ==================================================================== TMX

def to_tmx(t: Town, tiles: dict) -> str:
    index = tiles["tiles"]
    count, cols = tiles["count"], tiles["columns"]
    rows = tiles["rows"]

    def gid(name):
        if name is None:
            return 0
        if name not in index:
            raise BuildError(f"unknown tile {name!r} (rerun assets/draw_tiles.py?)")
        return index[name] + 1

    def q(s):
        return escape(str(s), {'"': "&quot;"})

    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<map version="1.10" tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down" '
           f'width="{t.w}" height="{t.h}" tilewidth="{TILE}" tileheight="{TILE}" infinite="0" '
           f'nextlayerid="{len(TILE_LAYERS) + len(OBJECT_LAYERS) + 1}" nextobjectid="@NEXT@">',
           ' <properties>',
           f'  <property name="world" value="{q(WORLD)}"/>',
           ' </properties>',
           f' <tileset firstgid="1" name="ville_tiles" tilewidth="{TILE}" tileheight="{TILE}" '
           f'tilecount="{count}" columns="{cols}">',
           f'  <image source="{IMAGE_SOURCE}" width="{cols * TILE}" height="{rows * TILE}"/>',
           ' </tileset>']
    lid = 0
    for name in TILE_LAYERS:
        lid += 1
        if name == "collision":
            data = [[gid("blocked") if t.block[y][x] else 0 for x in range(t.w)] for y in range(t.h)]
        else:
            data = [[gid(v) for v in row] for row in t.layers[name]]
        attrs = ' visible="0"' if name == "collision" else ""
        out.append(f' <layer id="{lid}" name="{name}" width="{t.w}" height="{t.h}"{attrs}>')
        out.append('  <data encoding="csv">')
        lines = [",".join(str(v) for v in row) for row in data]
        out.append(",\n".join(lines))
        out.append('</data>')
        out.append(' </layer>')
    oid = 0
    groups = {
        "sectors": [(n, r) for n, r in t.sectors],
        "arenas": [(a, r) for _, a, r in t.arenas],
        "objects": [(o, r) for _, _, o, r in t.objects],
    }
    for name in OBJECT_LAYERS:
        lid += 1
        out.append(f' <objectgroup id="{lid}" name="{name}">')
        if name == "spawns":
            for n, x, y in t.spawns:
                oid += 1
                out.append(f'  <object id="{oid}" name="{q(n)}" x="{x * TILE + TILE // 2}" y="{y * TILE + TILE // 2}">')
                out.append('   <point/>')
                out.append('  </object>')
        else:
            for n, (x, y, w, h) in groups[name]:
                oid += 1
                out.append(f'  <object id="{oid}" name="{q(n)}" x="{x * TILE}" y="{y * TILE}" '
                           f'width="{w * TILE}" height="{h * TILE}"/>')
        out.append(' </objectgroup>')
    out.append('</map>')
    return "\n".join(out).replace("@NEXT@", str(oid + 1)) + "\n"


def build(out: str | Path = DEFAULT_OUT, tiles_json: str | Path = DEFAULT_TILES_JSON, suburbs: int = 0) -> dict:
    tiles = json.loads(Path(tiles_json).read_text())
    t = build_town(suburbs)
    stats = check(t)
    text = to_tmx(t, tiles)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8", newline="\n")
    stats.update(path=str(out), width=t.w, height=t.h, sectors=len(t.sectors), spawns=len(t.spawns))
    return stats


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Write the Ville's Tiled map.")
    p.add_argument("--out", help=f"default: {DEFAULT_OUT.name}, or {SUBURBS_OUT.name} with --suburbs")
    p.add_argument("--tiles-json", default=str(DEFAULT_TILES_JSON))
    p.add_argument("--suburbs", type=int, nargs="?", const=SUBURBS, default=0,
                   help=f"add this many rows of ten apartments south of the Ville (alone: {SUBURBS})")
    a = p.parse_args(argv)
    out = a.out or (SUBURBS_OUT if a.suburbs else DEFAULT_OUT)
    try:
        stats = build(out, a.tiles_json, a.suburbs)
    except BuildError as e:
        print(e, file=sys.stderr)
        return 1
    print(f"{stats['path']}: {stats['width']}x{stats['height']} tiles, {stats['sectors']} sectors, "
          f"{stats['arenas']} arenas, {stats['objects']} objects, {stats['spawns']} spawns, "
          f"{stats['reachable_tiles']} tiles reachable from the bus stop")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
