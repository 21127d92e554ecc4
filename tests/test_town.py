"""The town loader (game/world/map_reader.py) on mapkit maps, broken maps, the CLI, and
the real map maps/the_ville/the_ville.tmx against docs/contracts.md section 5."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest
from mapkit import (
    DEFAULT_ARENAS,
    DEFAULT_OBJECTS,
    DEFAULT_ROWS,
    DEFAULT_SECTORS,
    DEFAULT_SPAWNS,
    set_tile,
    write_map,
)

from game.support.errors import MapError
from game.world.astar import find_path, reachable_mask
from game.world.map_reader import load_town, main_map

REPO = Path(__file__).resolve().parent.parent
REAL_MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
W = "Testville"
CAFE = f"{W}:Hobbs Cafe:cafe"
APT = f"{W}:Isabella Rodriguez's apartment"


@pytest.fixture
def town(tmp_path):
    return load_town(write_map(tmp_path))


# --------------------------------------------------------------------------- a good map

def test_tree_and_basics(town, tmp_path):
    assert town.world == W
    assert (town.width, town.height, town.tile_size) == (16, 10, 32)
    assert town.path == tmp_path / "town.tmx"
    assert town.walkable.shape == (10, 16) and town.walkable.dtype == bool
    assert not town.walkable[0, 0] and town.walkable[1, 2] and not town.walkable[1, 1]
    assert town.tree == {
        "Hobbs Cafe": {"cafe": ["cafe counter", "cafe customer seating", "coffee machine"]},
        "Isabella Rodriguez's apartment": {"bathroom": ["toilet"], "main room": ["bed", "refrigerator"]},
        "Johnson Park": {"park": ["park bench"]},
    }
    assert town.spawns == {"Isabella Rodriguez": (9, 1), "visitor": (14, 7)}
    assert set(town.object_states) == {a for a in town.addresses() if a.count(":") == 3}
    assert set(town.object_states.values()) == {"idle"}
    assert town.problems() == []


def test_addresses_in_tree_order(town):
    assert town.addresses() == [
        f"{W}:Hobbs Cafe",
        CAFE,
        f"{CAFE}:cafe counter",
        f"{CAFE}:cafe customer seating",
        f"{CAFE}:coffee machine",
        APT,
        f"{APT}:bathroom",
        f"{APT}:bathroom:toilet",
        f"{APT}:main room",
        f"{APT}:main room:bed",
        f"{APT}:main room:refrigerator",
        f"{W}:Johnson Park",
        f"{W}:Johnson Park:park",
        f"{W}:Johnson Park:park:park bench",
    ]
    assert town.sectors() == [f"{W}:Hobbs Cafe", APT, f"{W}:Johnson Park"]
    assert len(town.arenas()) == 4 and len(town.objects()) == 7


def test_address_at_is_deepest(town):
    assert town.address_at(1, 1) == f"{CAFE}:coffee machine"
    assert town.address_at(4, 2) == f"{CAFE}:cafe counter"
    assert town.address_at(2, 1) == CAFE
    assert town.address_at(0, 0) == f"{W}:Hobbs Cafe"  # the sector's wall, in no arena
    assert town.address_at(12, 2) == f"{APT}:bathroom"
    assert town.address_at(3, 5) == f"{W}:Hobbs Cafe"  # the cafe's door
    assert town.address_at(16, 0) is None and town.address_at(-1, 3) is None
    assert town.arena_at(10, 1) == f"{APT}:main room"
    assert town.sector_at(10, 1) == APT
    assert town.object_at(10, 1) == f"{APT}:main room:bed"
    assert town.arena_at(7, 3) is None and town.object_at(2, 1) is None


def test_tiles_of_every_level(town):
    assert town.tiles_of(f"{CAFE}:coffee machine") == [(1, 1)]
    assert town.tiles_of(f"{CAFE}:cafe counter") == [(3, 2), (4, 2)]
    assert len(town.tiles_of(CAFE)) == 6 * 4
    assert len(town.tiles_of(f"{W}:Hobbs Cafe")) == 8 * 6
    assert len(town.tiles_of(W)) == 16 * 10
    assert town.tiles_of(f"{W}:Nowhere") == []
    # Both ways agree: every tile of an address maps back into it.
    for address in town.addresses():
        for x, y in town.tiles_of(address):
            assert town.address_at(x, y).startswith(address)


def test_use_tiles(town):
    assert town.use_tiles(f"{CAFE}:coffee machine") == [(2, 1), (1, 2)]  # blocked: beside it
    assert town.use_tiles(f"{CAFE}:cafe counter") == [(3, 1), (4, 1), (2, 2), (5, 2), (3, 3), (4, 3)]
    assert town.use_tiles(f"{APT}:main room:bed") == [(9, 1), (10, 1)]  # walkable: on it
    assert town.use_tiles(f"{APT}:main room:refrigerator") == [(8, 2), (9, 3), (8, 4)]
    assert town.use_tiles(f"{APT}:bathroom:toilet") == [(14, 2), (13, 3), (14, 4)]
    cafe = town.use_tiles(CAFE)
    assert (1, 1) not in cafe and (2, 1) in cafe and all(town.walkable[y, x] for x, y in cafe)
    assert town.use_tiles("nowhere") == []
    for address in town.addresses():
        tiles = town.use_tiles(address)
        assert tiles, address
        for x, y in tiles:
            assert town.walkable[y, x]


def test_states(town):
    addr = f"{CAFE}:coffee machine"
    assert town.state(addr) == "idle"
    town.set_state(addr, "brewing coffee")
    assert town.state(addr) == "brewing coffee" and town.object_states[addr] == "brewing coffee"
    assert "a coffee machine (brewing coffee)" in town.describe(CAFE)
    town.set_state(addr, None)
    assert town.state(addr) == "idle"
    town.set_state(addr, "on")
    town.reset_states()
    assert town.state(addr) == "idle"
    with pytest.raises(KeyError):
        town.set_state(CAFE, "busy")  # an arena has no state
    with pytest.raises(KeyError):
        town.state(f"{CAFE}:espresso robot")


def test_describe(town):
    assert town.describe(f"{W}:Hobbs Cafe") == (
        "In Hobbs Cafe there is a cafe. In the cafe there is a cafe counter, "
        "cafe customer seating and a coffee machine."
    )
    assert town.describe(APT) == (
        "In Isabella Rodriguez's apartment there is a bathroom and a main room. "
        "In the bathroom there is a toilet. In the main room there is a bed and a refrigerator."
    )
    assert town.describe(f"{W}:Johnson Park:park") == "In the park there is a park bench."
    assert town.describe(f"{APT}:main room:bed") == (
        "In the main room of Isabella Rodriguez's apartment there is a bed; it is idle."
    )
    whole = town.describe()
    assert whole.startswith("In Testville there is Hobbs Cafe, Isabella Rodriguez's apartment and Johnson Park.")
    assert town.describe(W) == whole and "park bench" in whole
    with pytest.raises(KeyError):
        town.describe(f"{W}:Atlantis")


def test_resolve_and_contains(town):
    assert CAFE in town and W in town and "Testville:Atlantis" not in town
    assert town.resolve("testville : hobbs cafe : CAFE") == CAFE
    assert town.resolve("Hobbs Cafe:cafe:coffee machine") == f"{CAFE}:coffee machine"
    assert town.resolve("Atlantis") is None and town.resolve(None) is None


def test_reachable_and_paths(town):
    assert town.reachable(town.spawns["visitor"], town.spawns["Isabella Rodriguez"])
    assert not town.reachable((0, 0), (2, 1))
    path = find_path(town.walkable, town.spawns["visitor"], town.use_tiles(f"{CAFE}:coffee machine")[0])
    assert path is not None and (3, 5) in path  # through the cafe door


@pytest.mark.parametrize("options", [dict(tileset="external"), dict(encoding="base64")])
def test_variants_load_the_same(tmp_path, options):
    a = load_town(write_map(tmp_path / "a"))
    b = load_town(write_map(tmp_path / "b", **options))
    assert a.tree == b.tree and a.spawns == b.spawns
    assert (a.walkable == b.walkable).all()


def test_tile_object_covers_its_tiles(tmp_path):
    objects = DEFAULT_OBJECTS + (("park lamp", 10, 7, 1, 2, {"gid": "3"}),)
    town = load_town(write_map(tmp_path, objects=objects))
    assert town.tiles_of(f"{W}:Johnson Park:park:park lamp") == [(10, 7), (10, 8)]


def test_rectangles_cover_tiles_by_centre(tmp_path):
    # A rectangle off the grid by less than half a tile covers the same tiles.
    objects = [o for o in DEFAULT_OBJECTS if o[0] != "park bench"] + [("park bench", 3.3, 6.8, 2.2, 1.4)]
    town = load_town(write_map(tmp_path, objects=objects))
    assert town.tiles_of(f"{W}:Johnson Park:park:park bench") == [(3, 7), (4, 7)]


def test_spawn_as_rectangle(tmp_path):
    spawns = (("Isabella Rodriguez", 9, 1, 1, 1), ("visitor", 14, 7))
    assert load_town(write_map(tmp_path, spawns=spawns)).spawns["Isabella Rodriguez"] == (9, 1)


def test_unreachable_is_a_problem_and_strict_error(tmp_path):
    rows = set_tile(DEFAULT_ROWS, 11, 5, "#")  # wall up the apartment's door
    town = load_town(write_map(tmp_path, rows=rows))
    problems = town.problems()
    assert problems and all("town.tmx" in p for p in problems)
    assert any("main room" in p and "visitor" in p for p in problems)
    with pytest.raises(MapError, match="cannot be reached"):
        load_town(tmp_path / "town.tmx", strict=True)


# --------------------------------------------------------------------------- broken maps

def broken(path, *needles):
    """Load ``path`` expecting a MapError naming the file and each needle."""
    with pytest.raises(MapError) as info:
        load_town(path)
    text = str(info.value)
    assert Path(path).name in text, text
    for needle in needles:
        assert needle in text, f"{needle!r} not in {text!r}"
    assert "Traceback" not in text
    return text


def test_missing_file(tmp_path):
    broken(tmp_path / "nope.tmx", "no such")


def test_folder_instead_of_file(tmp_path):
    (tmp_path / "dir.tmx").mkdir()
    broken(tmp_path / "dir.tmx", "folder")


@pytest.mark.parametrize("raw", ["this is not xml", "", "<map"])
def test_not_xml(tmp_path, raw):
    broken(write_map(tmp_path, raw=raw), "not a Tiled map")


def test_xml_but_not_a_map(tmp_path):
    broken(write_map(tmp_path, raw="<?xml version='1.0'?><tileset name='x'/>"), "<tileset>", "not a Tiled map")


def test_pytmx_errors_become_map_errors(tmp_path):
    raw = (
        '<map version="1.10" orientation="orthogonal" width="2" height="1" tilewidth="32" tileheight="32">'
        '<layer id="1" name="ground" width="2" height="1"><data encoding="csv">1,banana</data></layer></map>'
    )
    broken(write_map(tmp_path, raw=raw), "could not be read")


@pytest.mark.parametrize("layer", ["ground", "collision", "sectors", "arenas", "objects", "spawns"])
def test_missing_required_layer(tmp_path, layer):
    broken(write_map(tmp_path, omit_layers=(layer,)), f"'{layer}'", "missing")


@pytest.mark.parametrize("layer", ["floor", "walls", "furniture", "foreground"])
def test_optional_layers_may_be_missing(tmp_path, layer):
    assert load_town(write_map(tmp_path, omit_layers=(layer,))).world == W


def test_missing_world(tmp_path):
    broken(write_map(tmp_path, world=None), "'world'")


def test_missing_tileset_image(tmp_path):
    broken(write_map(tmp_path, write_image=False), "tiles.png", "does not exist")


def test_missing_external_tileset(tmp_path):
    path = write_map(tmp_path, tileset="external")
    (tmp_path / "tiles.tsx").unlink()
    broken(path, "tiles.tsx", "not found")


def test_external_tileset_missing_image(tmp_path):
    broken(write_map(tmp_path, tileset="external", write_image=False), "tiles.tsx", "tiles.png")


def without(items, name):
    return tuple(i for i in items if i[0] != name)


def test_arena_outside_any_sector(tmp_path):
    path = write_map(tmp_path, sectors=without(DEFAULT_SECTORS, "Johnson Park"))
    broken(path, "arena 'park'", "(id ", "(1, 6)", "outside any sector")


def test_arena_in_two_sectors(tmp_path):
    arenas = DEFAULT_ARENAS + (("hall", 6, 2, 3, 1),)
    broken(write_map(tmp_path, arenas=arenas), "arena 'hall'", "(6, 2)", "two sectors", "Hobbs Cafe")


def test_arena_sticking_out_of_its_sector(tmp_path):
    path = write_map(
        tmp_path,
        sectors=without(DEFAULT_SECTORS, "Johnson Park"),
        arenas=without(DEFAULT_ARENAS, "park") + (("porch", 1, 5, 2, 2),),
        objects=without(DEFAULT_OBJECTS, "park bench"),
    )
    broken(path, "arena 'porch'", "sticks out of sector 'Hobbs Cafe'", "(1, 6)")


def test_object_outside_any_arena(tmp_path):
    objects = DEFAULT_OBJECTS + (("lamp", 7, 2, 1, 1),)
    text = broken(write_map(tmp_path, objects=objects), "object 'lamp'", "(7, 2)", "outside any arena")
    assert "(id 15)" in text  # 3 sectors + 4 arenas + 7 objects before it


def test_object_in_two_arenas(tmp_path):
    objects = DEFAULT_OBJECTS + (("rug", 11, 2, 2, 1),)
    broken(write_map(tmp_path, objects=objects), "object 'rug'", "two arenas", "main room", "bathroom")


def test_two_sectors_one_name(tmp_path):
    sectors = DEFAULT_SECTORS[:2] + (("Hobbs Cafe", 0, 6, 16, 4),)
    broken(write_map(tmp_path, sectors=sectors), "two sectors named 'Hobbs Cafe'")


def test_overlapping_sectors(tmp_path):
    sectors = DEFAULT_SECTORS + (("Annex", 14, 8, 2, 2),)
    broken(write_map(tmp_path, sectors=sectors), "sector 'Annex'", "overlaps sector 'Johnson Park'")


def test_two_arenas_one_address(tmp_path):
    arenas = tuple(("main room", *a[1:]) if a[0] == "bathroom" else a for a in DEFAULT_ARENAS)
    broken(write_map(tmp_path, arenas=arenas), "two arenas named 'main room'", "Isabella Rodriguez's apartment")


def test_overlapping_arenas(tmp_path):
    arenas = DEFAULT_ARENAS + (("counter area", 3, 2, 1, 1),)
    broken(write_map(tmp_path, arenas=arenas), "arena 'counter area'", "overlaps arena 'cafe'")


def test_two_objects_one_address(tmp_path):
    objects = DEFAULT_OBJECTS + (("coffee machine", 6, 1, 1, 1),)
    broken(write_map(tmp_path, objects=objects), "two objects named 'coffee machine'", "cafe")


def test_overlapping_objects(tmp_path):
    objects = DEFAULT_OBJECTS + (("cup", 6, 3, 1, 1),)
    broken(write_map(tmp_path, objects=objects), "object 'cup'", "(6, 3)", "overlaps object 'cafe customer seating'")


@pytest.mark.parametrize("kind", ["sectors", "arenas", "objects", "spawns"])
def test_name_with_colon(tmp_path, kind):
    spec = dict(sectors=DEFAULT_SECTORS, arenas=DEFAULT_ARENAS, objects=DEFAULT_OBJECTS, spawns=DEFAULT_SPAWNS)
    first = spec[kind][0]
    spec[kind] = (("odd: name", *first[1:]),) + tuple(spec[kind][1:])
    broken(write_map(tmp_path, **spec), "'odd: name'", "':'")


def test_nameless_object(tmp_path):
    broken(write_map(tmp_path, objects=DEFAULT_OBJECTS + (("", 6, 1, 1, 1),)), "object", "no name")


def test_point_as_object(tmp_path):
    objects = DEFAULT_OBJECTS + (("vase", 6, 1, 0, 0),)
    broken(write_map(tmp_path, objects=objects), "object 'vase'", "rectangle")


def test_object_without_use_tile(tmp_path):
    rows = set_tile(set_tile(DEFAULT_ROWS, 2, 1, "X"), 1, 2, "X")  # box the coffee machine in
    broken(write_map(tmp_path, rows=rows), "object 'coffee machine'", "(1, 1)", "no use tile")


def test_spawn_on_blocked_tile(tmp_path):
    spawns = (("Isabella Rodriguez", 9, 1), ("visitor", 0, 7))
    broken(write_map(tmp_path, spawns=spawns), "spawn 'visitor'", "(0, 7)", "blocked")


def test_spawn_outside_the_map(tmp_path):
    spawns = (("Isabella Rodriguez", 9, 1), ("visitor", 20, 7))
    broken(write_map(tmp_path, spawns=spawns), "spawn 'visitor'", "outside the map")


def test_two_spawns_one_name(tmp_path):
    spawns = DEFAULT_SPAWNS + (("visitor", 13, 7),)
    broken(write_map(tmp_path, spawns=spawns), "two spawns named 'visitor'")


# --------------------------------------------------------------------------- the CLI

def test_main_map_tree(town, capsys):
    assert main_map(argparse.Namespace(map=str(town.path), tree=True)) == 0
    assert capsys.readouterr().out.splitlines() == town.addresses()


def test_main_map_summary(town, capsys):
    assert main_map(argparse.Namespace(map=str(town.path), tree=False)) == 0
    out = capsys.readouterr().out
    assert "Testville" in out and "16 x 10" in out
    assert "3 sectors, 4 arenas, 7 objects" in out
    assert "Isabella Rodriguez" in out and "visitor" in out


def test_cli_broken_map_is_a_short_message(tmp_path, monkeypatch, capsys):
    from smallville.cli import main

    monkeypatch.chdir(tmp_path)  # any folder will do: the log goes to $SMALLVILLE_HOME/logs
    path = write_map(tmp_path, world=None)
    assert main(["map", str(path)]) == 2
    err = capsys.readouterr().err
    assert "town.tmx" in err and "world" in err and "Traceback" not in err


# --------------------------------------------------------------------------- the real map

needs_real_map = pytest.mark.skipif(
    not REAL_MAP.exists(), reason="maps/the_ville/the_ville.tmx does not exist yet (being built)"
)

import itertools

from conftest import RESIDENTS

DORM_ROOMS = ["Klaus Mueller's room", "Maria Lopez's room", "Ayesha Khan's room", "Wolfgang Schulz's room"]
ARTISTS = ["Latoya Williams", "Rajiv Patel", "Abigail Chen", "Francisco Lopez", "Hailey Johnson"]
APARTMENTS = ["Arthur Burton", "Ryan Park", "Isabella Rodriguez", "Giorgio Rossi", "Carlos Gomez"]
SMALL_HOUSES = ["Adam Smith's house", "Yuriko Yamamoto's house", "Moore family's house"]
BIG_HOUSES = {
    "Tamara Taylor and Carmen Ortiz's house": ["Tamara Taylor's bedroom", "Carmen Ortiz's bedroom"],
    "Moreno family's house": ["Tom and Jane Moreno's bedroom", "guest bedroom"],
    "Lin family's house": ["Mei and John Lin's bedroom", "Eddy Lin's bedroom"],
}
SECTORS: dict[str, list[str]] = {
    "Hobbs Cafe": ["cafe"],
    "The Rose and Crown Pub": ["pub"],
    "Oak Hill College": ["classroom", "library", "hallway"],
    "Johnson Park": ["park"],
    "Harvey Oak Supply Store": ["supply store"],
    "The Willows Market and Pharmacy": ["store"],
    "Dorm for Oak Hill College": DORM_ROOMS + ["man's bathroom", "woman's bathroom", "common room", "kitchen",
                                               "garden"],
    "artist's co-living space": [f"{n}'s room" for n in ARTISTS] + [f"{n}'s bathroom" for n in ARTISTS]
    + ["common room", "kitchen"],
    **{f"{n}'s apartment": ["main room", "bathroom"] for n in APARTMENTS},
    **{h: ["main room", "bathroom"] for h in SMALL_HOUSES},
    **{h: rooms + ["common room", "kitchen", "bathroom", "garden"] for h, rooms in BIG_HOUSES.items()},
}
SLEEP = {"bed", "desk", "closet", "shelf"}
BATH = {"toilet", "shower", "bathroom sink"}
KITCHEN = {"refrigerator", "stove", "kitchen sink", "dining table"}
PUBLIC = {
    ("Hobbs Cafe", "cafe"): {"coffee machine", "cafe counter", "cafe customer seating", "piano"},
    ("The Rose and Crown Pub", "pub"): {"bar counter", "pub tables"},
    ("Oak Hill College", "classroom"): {"classroom student seating", "blackboard", "lecturer's podium"},
    ("Oak Hill College", "library"): {"bookshelves", "library tables"},
    ("Oak Hill College", "hallway"): {"bulletin board"},
    ("Johnson Park", "park"): {"park bench", "park garden", "pond"},
    ("Harvey Oak Supply Store", "supply store"): {"supply store shelves", "supply store counter"},
    ("The Willows Market and Pharmacy", "store"): {
        "grocery shelves", "grocery counter", "pharmacy counter", "pharmacy shelves"},
}


def required_objects() -> dict[tuple[str, str], set[str]]:
    """(sector, arena) -> objects it must have, from contracts.md section 5."""
    need: dict[tuple[str, str], set[str]] = {k: set(v) for k, v in PUBLIC.items()}
    for sector, arenas in SECTORS.items():
        for arena in arenas:
            have = need.setdefault((sector, arena), set())
            if arena.endswith(("'s room", "bedroom")) or arena == "main room":
                have |= SLEEP
            if arena.endswith("bathroom"):
                have |= BATH
            if arena == "kitchen" or arena == "main room":
                have |= KITCHEN
            if arena == "common room":
                have |= {"sofa", "tv"}
            if arena == "garden":
                have |= {"vegetable patch", "garden bench"}
            if sector == "artist's co-living space" and arena.endswith("'s room"):
                have |= {"easel"}
    return need


@pytest.fixture(scope="module")
def ville():
    if not REAL_MAP.exists():
        pytest.skip("maps/the_ville/the_ville.tmx does not exist yet (being built)")
    return load_town(REAL_MAP)


@needs_real_map
def test_real_map_world_and_places(ville):
    assert ville.world == "the Ville"
    missing = [f"{s}:{a}" for s, arenas in SECTORS.items() for a in arenas if a not in ville.tree.get(s, {})]
    assert not missing, f"sectors/arenas missing from the map: {missing}"
    extra_sectors = sorted(set(ville.tree) - set(SECTORS))
    assert not extra_sectors, f"sectors not in contracts.md section 5: {extra_sectors}"


@needs_real_map
def test_real_map_objects(ville):
    missing = []
    for (sector, arena), names in sorted(required_objects().items()):
        have = set(ville.tree.get(sector, {}).get(arena, []))
        if arena in ville.tree.get(sector, {}):
            missing += [f"{sector}:{arena}:{n}" for n in sorted(names - have)]
    assert not missing, f"{len(missing)} objects missing: {missing}"
    for address in ville.objects():
        assert ville.use_tiles(address), address


@needs_real_map
def test_real_map_spawns(ville):
    assert sorted(ville.spawns) == sorted(RESIDENTS + ["visitor"])
    not_on_bed = {n: ville.address_at(*t) for n, t in ville.spawns.items()
                  if n != "visitor" and not (ville.address_at(*t) or "").endswith(":bed")}
    assert not not_on_bed, f"spawns not on a bed: {not_on_bed}"
    x, y = ville.spawns["visitor"]
    edge = min(x, y, ville.width - 1 - x, ville.height - 1 - y)
    assert edge <= 8, f"the visitor spawns at {(x, y)}, {edge} tiles from the edge"


@needs_real_map
def test_real_map_everything_reachable_from_every_spawn(ville):
    targets = [a for a in ville.addresses() if a.count(":") >= 2]  # arenas and objects
    use = {a: ville.use_tiles(a) for a in targets}
    bad = []
    for name, start in ville.spawns.items():
        mask = reachable_mask(ville.walkable, start)  # one flood per spawn
        bad += [f"{a} from {name}" for a, tiles in use.items() if not any(mask[y, x] for x, y in tiles)]
    assert not bad, f"{len(bad)} unreachable: {bad[:20]}"
    assert ville.problems() == []


@needs_real_map
def test_real_map_cast_agrees(ville):
    """residents.json names only places the map has; each sleeps on a bed in their home."""
    path = REAL_MAP.parent / "residents.json"
    if not path.exists():
        pytest.skip("maps/the_ville/residents.json does not exist")
    cast = json.loads(path.read_text(encoding="utf-8"))
    cast = cast["residents"] if isinstance(cast, dict) else cast
    bad = []
    for person in cast:
        for field in ("home", "workplace"):
            if person.get(field) and person[field] not in ville:
                bad.append(f"{person['name']}: {field} {person[field]!r}")
        for place in person.get("places", []):
            if place not in ville:
                bad.append(f"{person['name']}: place {place!r}")
        spawn = ville.spawns.get(person["name"])
        if spawn and person.get("home") and ville.arena_at(*spawn) != person["home"]:
            bad.append(f"{person['name']}: spawns in {ville.arena_at(*spawn)!r}, home is {person['home']!r}")
    assert not bad, bad


@needs_real_map
def test_real_map_paths_join_every_home(ville):
    """Every resident's spawn reaches every other by a path of walkable, adjacent
    tiles. How fast: `make bench`'s "astar" (lab/bench/astar.py), not asserted here."""
    from game.world.astar import path_cost, prepare

    prepare(ville.walkable)  # neighbour table, components, landmarks: once per grid
    names = sorted(ville.spawns)
    longest: list = []
    for a in names[::5]:
        for b in names:
            path = find_path(ville.walkable, ville.spawns[a], ville.spawns[b])
            assert path is not None, (a, b)
            assert path[0] == ville.spawns[a] and path[-1] == ville.spawns[b]
            assert all(ville.walkable[y, x] for x, y in path), (a, b)
            assert all(max(abs(x1 - x0), abs(y1 - y0)) == 1 for (x0, y0), (x1, y1) in itertools.pairwise(path)), (a, b)
            longest = max(longest, path, key=path_cost)
    assert len(longest) > 100


@needs_real_map
def test_real_map_cli(capsys):
    assert main_map(argparse.Namespace(map=str(REAL_MAP), tree=True)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "the Ville:Hobbs Cafe:cafe" in lines
    assert np.all([line.startswith("the Ville:") for line in lines])


def test_loading_a_town_never_imports_pygame(tmp_path):
    import subprocess
    import sys

    path = write_map(tmp_path)
    code = (
        "import sys; from game.world.map_reader import load_town; from game.world.astar import find_path\n"
        f"t = load_town({str(path)!r}); find_path(t.walkable, (2, 1), (14, 7))\n"
        "assert 'pygame' not in sys.modules, 'pygame was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr  # no stray pytmx log lines


def test_layer_of_the_wrong_kind(tmp_path):
    path = write_map(tmp_path, omit_layers=("collision",),
                     extra_xml='<objectgroup id="99" name="collision"></objectgroup>\n')
    broken(path, "'collision'", "must be a tile layer")


def test_object_states_know_what_is_in_use_and_what_changed():
    """A big town's groups read only the objects in use and the states changed since they
    last looked (game/sim/clocks.py, game/sim/objects.py), in the objects' own order."""
    from game.world.town import IDLE, ObjectStates

    states = ObjectStates()
    states.update({"w:a:b:stove": IDLE, "w:a:b:bed": IDLE, "w:a:b:tv": IDLE})
    assert states.take_changes() == {"w:a:b:stove", "w:a:b:bed", "w:a:b:tv"} and states.take_changes() == set()
    states["w:a:b:tv"] = "on"
    states["w:a:b:stove"] = "cooking"
    states["w:a:b:bed"] = IDLE  # the same state: no change
    assert states.in_use() == [("w:a:b:stove", "cooking"), ("w:a:b:tv", "on")]  # as added, not as set
    assert states.take_changes() == {"w:a:b:tv", "w:a:b:stove"}
    states.setdefault("w:a:b:tv", IDLE)  # there already: unchanged
    assert states.pop("w:a:b:tv") == "on" and "w:a:b:tv" not in states
    assert states.in_use() == [("w:a:b:stove", "cooking")] and states.take_changes() == {"w:a:b:tv"}
    copy = states.copy()
    assert isinstance(copy, ObjectStates) and copy == states and copy.in_use() == states.in_use()
    states.clear()
    assert states.in_use() == [] and states.take_changes() == {"w:a:b:stove", "w:a:b:bed"}
