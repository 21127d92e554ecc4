"""The Ville's generators: assets/draw_tiles.py and maps/the_ville/build_map.py
reproduce the committed tileset and map byte for byte, and the map holds the
contract of docs/contracts.md (sections 1 and 5), read with pytmx alone."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TILES_DIR = REPO / "assets" / "tiles"
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
SUBURBS_MAP = REPO / "maps" / "the_ville" / "the_ville_suburbs.tmx"

from conftest import RESIDENTS

ARTISTS = ["Latoya Williams", "Rajiv Patel", "Abigail Chen", "Francisco Lopez", "Hailey Johnson"]
SECTORS = {
    "Hobbs Cafe": {"cafe"},
    "The Rose and Crown Pub": {"pub"},
    "Oak Hill College": {"classroom", "library", "hallway"},
    "Johnson Park": {"park"},
    "Harvey Oak Supply Store": {"supply store"},
    "The Willows Market and Pharmacy": {"store"},
    "Dorm for Oak Hill College": {"Klaus Mueller's room", "Maria Lopez's room", "Ayesha Khan's room",
                                  "Wolfgang Schulz's room", "man's bathroom", "woman's bathroom",
                                  "common room", "kitchen", "garden"},
    "artist's co-living space": {f"{n}'s room" for n in ARTISTS} | {f"{n}'s bathroom" for n in ARTISTS}
    | {"common room", "kitchen"},
    **{f"{n}'s apartment": {"main room", "bathroom"}
       for n in ("Arthur Burton", "Ryan Park", "Isabella Rodriguez", "Giorgio Rossi", "Carlos Gomez")},
    **{n: {"main room", "bathroom"} for n in ("Adam Smith's house", "Yuriko Yamamoto's house", "Moore family's house")},
    "Tamara Taylor and Carmen Ortiz's house": {"Tamara Taylor's bedroom", "Carmen Ortiz's bedroom",
                                               "common room", "kitchen", "bathroom", "garden"},
    "Moreno family's house": {"Tom and Jane Moreno's bedroom", "guest bedroom", "common room", "kitchen",
                              "bathroom", "garden"},
    "Lin family's house": {"Mei and John Lin's bedroom", "Eddy Lin's bedroom", "common room", "kitchen",
                           "bathroom", "garden"},
}
PUBLIC_OBJECTS = {
    ("Hobbs Cafe", "cafe"): {"coffee machine", "cafe counter", "cafe customer seating", "piano"},
    ("The Rose and Crown Pub", "pub"): {"bar counter", "pub tables"},
    ("Oak Hill College", "classroom"): {"classroom student seating", "blackboard", "lecturer's podium"},
    ("Oak Hill College", "library"): {"bookshelves", "library tables"},
    ("Oak Hill College", "hallway"): {"bulletin board"},
    ("Johnson Park", "park"): {"park bench", "park garden", "pond"},
    ("Harvey Oak Supply Store", "supply store"): {"supply store shelves", "supply store counter"},
    ("The Willows Market and Pharmacy", "store"): {"grocery shelves", "grocery counter", "pharmacy counter",
                                                   "pharmacy shelves"},
}


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def draw_tiles():
    return _load("draw_tiles_under_test", REPO / "assets" / "draw_tiles.py")


@pytest.fixture(scope="module")
def build_map():
    return _load("build_map_under_test", REPO / "maps" / "the_ville" / "build_map.py")


@pytest.fixture(scope="module")
def tiled():
    import pytmx

    return pytmx.TiledMap(str(MAP))  # no images: the TMX alone


def test_tileset_reproduces_byte_for_byte(draw_tiles, tmp_path):
    draw_tiles.build(tmp_path)
    for name in ("ville_tiles.png", "ville_tiles.json"):
        assert (tmp_path / name).read_bytes() == (TILES_DIR / name).read_bytes(), \
            f"{name} differs: rerun assets/draw_tiles.py"
    meta = json.loads((tmp_path / "ville_tiles.json").read_text())
    assert meta["tile_size"] == 32 and meta["count"] == len(draw_tiles.TILE_NAMES)


def test_map_reproduces_byte_for_byte(draw_tiles, build_map, tmp_path):
    draw_tiles.build(tmp_path / "tiles")
    out = tmp_path / "the_ville.tmx"
    stats = build_map.build(out, tmp_path / "tiles" / "ville_tiles.json")
    assert out.read_bytes() == MAP.read_bytes(), "the_ville.tmx differs: rerun maps/the_ville/build_map.py"
    assert stats["sectors"] == 19 and stats["spawns"] == len(RESIDENTS) + 1


def test_suburbs_reproduce_byte_for_byte_around_the_ville_unchanged(draw_tiles, build_map, tmp_path):
    """The Ville and its suburbs: the Ville's sectors, spawns and tiles as they are, then
    rows of ten empty apartments on streets off College Avenue, every one reachable."""
    import pytmx

    draw_tiles.build(tmp_path / "tiles")
    out = tmp_path / "the_ville_suburbs.tmx"
    stats = build_map.build(out, tmp_path / "tiles" / "ville_tiles.json", suburbs=build_map.SUBURBS)
    assert out.read_bytes() == SUBURBS_MAP.read_bytes(), \
        "the_ville_suburbs.tmx differs: rerun maps/the_ville/build_map.py --suburbs"
    assert stats["sectors"] == 19 + 10 * build_map.SUBURBS and stats["spawns"] == len(RESIDENTS) + 1
    ville, suburbs = pytmx.TiledMap(str(MAP)), pytmx.TiledMap(str(SUBURBS_MAP))
    assert (suburbs.width, suburbs.height) == (ville.width, ville.height + build_map.SUBURB_H * build_map.SUBURBS)
    assert _rects(suburbs, "spawns")[:len(RESIDENTS) + 1] == _rects(ville, "spawns")
    assert set(_rects(ville, "sectors")) <= set(_rects(suburbs, "sectors"))
    new = sorted(n for n, _ in set(_rects(suburbs, "sectors")) - set(_rects(ville, "sectors")))
    assert new[:3] == ["1 Alder Street", "1 Aspen Street", "1 Birch Street"]
    walls = next(layer for layer in ville.layers if layer.name == "walls")
    walls_too = next(layer for layer in suburbs.layers if layer.name == "walls")
    assert [list(row) for row in walls.data] == [list(row) for row in walls_too.data[:ville.height]]
    with pytest.raises(build_map.BuildError, match="from 0 to"):
        build_map.build_town(len(build_map.SUBURB_STREETS) + 1)


def test_layers_and_properties(tiled):
    assert tiled.properties.get("world") == "the Ville"
    assert (tiled.tilewidth, tiled.tileheight, tiled.orientation) == (32, 32, "orthogonal")
    names = [layer.name for layer in tiled.layers]
    assert names == ["ground", "floor", "walls", "furniture", "foreground", "collision",
                     "sectors", "arenas", "objects", "spawns"]
    image = tiled.tilesets[0].source
    assert image == "../../assets/tiles/ville_tiles.png"
    assert (MAP.parent / image).resolve() == (TILES_DIR / "ville_tiles.png").resolve()
    ids = [o.id for o in tiled.objects]
    assert len(ids) == len(set(ids))


def _rects(tiled, layer):
    return [(o.name, (int(o.x) // 32, int(o.y) // 32, int(o.width) // 32, int(o.height) // 32))
            for o in tiled.get_layer_by_name(layer)]


def _inside(inner, outer):
    x, y, w, h = inner
    X, Y, W, H = outer
    return x >= X and y >= Y and x + w <= X + W and y + h <= Y + H


def test_sectors_arenas_and_objects(tiled):
    sectors = _rects(tiled, "sectors")
    assert sorted(n for n, _ in sectors) == sorted(SECTORS)
    tree = {n: {} for n in SECTORS}
    arena_rects = []
    for a, r in _rects(tiled, "arenas"):
        owners = [s for s, q in sectors if _inside(r, q)]
        assert len(owners) == 1, (a, owners)
        assert a not in tree[owners[0]], f"two arenas {owners[0]}:{a}"
        tree[owners[0]][a] = set()
        arena_rects.append((owners[0], a, r))
    assert {s: set(arenas) for s, arenas in tree.items()} == SECTORS
    for o, r in _rects(tiled, "objects"):
        owners = [(s, a) for s, a, q in arena_rects if _inside(r, q)]
        assert len(owners) == 1, (o, owners)
        s, a = owners[0]
        assert o not in tree[s][a], f"two objects {s}:{a}:{o}"
        tree[s][a].add(o)
    for (s, a), need in PUBLIC_OBJECTS.items():
        assert need <= tree[s][a], (s, a, need - tree[s][a])
    for s, arenas in tree.items():
        for a, objs in arenas.items():
            if a.endswith(("'s room", "bedroom")) or a == "main room":
                assert {"bed", "desk", "closet", "shelf"} <= objs, (s, a)
            if "bathroom" in a:
                assert {"toilet", "shower", "bathroom sink"} <= objs, (s, a)
            if a in ("kitchen", "main room"):
                assert {"refrigerator", "stove", "kitchen sink", "dining table"} <= objs, (s, a)
            if a == "common room":
                assert {"sofa", "tv"} <= objs, (s, a)
            if a == "garden":
                assert {"vegetable patch", "garden bench"} <= objs, (s, a)
    for n in ARTISTS:
        assert "easel" in tree["artist's co-living space"][f"{n}'s room"]


def test_spawns_on_beds_and_walkable(tiled):
    spawns = {o.name: (int(o.x) // 32, int(o.y) // 32) for o in tiled.get_layer_by_name("spawns")}
    assert sorted(spawns) == sorted(RESIDENTS + ["visitor"])
    beds = [r for n, r in _rects(tiled, "objects") if n == "bed"]
    collision = tiled.get_layer_by_name("collision")
    for name, (x, y) in spawns.items():
        assert collision.data[y][x] == 0, f"{name}'s spawn is blocked"
        if name != "visitor":
            assert any(_inside((x, y, 1, 1), b) for b in beds), f"{name} does not spawn on a bed"
    for a, b in (("Mei Lin", "John Lin"), ("Tom Moreno", "Jane Moreno"), ("Sam Moore", "Jennifer Moore")):
        bed = [r for r in beds if _inside((*spawns[a], 1, 1), r)]
        assert bed and _inside((*spawns[b], 1, 1), bed[0]) and spawns[a] != spawns[b], (a, b)


def test_contract_check_and_reachability(build_map):
    stats = build_map.check(build_map.build_town())  # raises BuildError on any breach
    assert stats["arenas"] == 63


def test_residents_homes_exist_in_the_map(tiled):
    """Every home and workplace named in residents.json (if present) is an arena of the map."""
    path = MAP.parent / "residents.json"
    if not path.exists():
        pytest.skip("no residents.json yet")
    sectors = _rects(tiled, "sectors")
    addresses = set()
    for a, r in _rects(tiled, "arenas"):
        s = next(n for n, q in sectors if _inside(r, q))
        addresses.add(f"the Ville:{s}:{a}")
    for person in json.loads(path.read_text()):
        for key in ("home", "workplace"):
            if person.get(key):
                assert person[key] in addresses or any(a.startswith(person[key] + ":") for a in addresses), \
                    (person["name"], key, person[key])
