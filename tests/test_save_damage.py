"""Hand-edited and damaged saves (issue 25): every kind of damage ends as a
SaveError naming the part, and the running game is untouched, including when a
load fails halfway through swapping the loaded game in."""
# ruff: noqa: F811 - the fixtures imported from test_savegame are the tests' arguments
from __future__ import annotations

import shutil

import pytest
from savetools import edit_part, set_meta, set_part_text
from test_savegame import MAP, _untouched, plain, sessions, small_game  # noqa: F401 - fixtures

from game.saves.store import SaveError, list_saves, read_info, save_state

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")


def _copy(good, tmp_path, name):
    p = tmp_path / f"{name}.sqlite"
    shutil.copy(good, p)
    return p


def test_a_huge_duration_is_a_save_error_naming_the_part(tmp_path, small_game):
    from game.saves.saveload import load_into

    s, good, _parts, _meta = small_game
    bad = _copy(good, tmp_path, "huge")
    edit_part(bad, "clock", lambda c: {**c, "steps": {"__td__": [1e10, 0, 0]}})  # OverflowError in timedelta
    msg = _untouched(s, lambda: load_into(s, bad))
    assert "'clock'" in msg and str(bad) in msg


@pytest.mark.parametrize("tag", [{"__td__": [1, 2]}, {"__td__": "soon"}, {"__rows__": [["a"], [1]]},
                                 {"__d__": [[[1], 2, 3]]}, {"__nd__": 7}, {"__set__": [[1]]}, {"__t__": 5}])
def test_malformed_tags_are_save_errors_naming_the_part(tmp_path, small_game, tag):
    from game.saves.saveload import load_into

    s, good, _parts, _meta = small_game
    bad = _copy(good, tmp_path, "tag")
    edit_part(bad, "visitor", lambda v: {**v, "doing": tag})
    assert "'visitor'" in _untouched(s, lambda: load_into(s, bad))


def test_deep_nesting_is_a_save_error_naming_the_part(tmp_path, small_game):
    from game.saves.saveload import load_into

    s, good, _parts, _meta = small_game
    bad = _copy(good, tmp_path, "deep")
    set_part_text(bad, "random", "[" * 200_000 + "]" * 200_000)  # RecursionError in the JSON decoder
    msg = _untouched(s, lambda: load_into(s, bad))
    assert "'random'" in msg and "nested too deeply" in msg
    deep_meta = _copy(good, tmp_path, "deep_meta")
    set_meta(deep_meta, "world", None)
    import sqlite3
    con = sqlite3.connect(deep_meta)
    con.execute("UPDATE meta SET value = ? WHERE key = 'world'", ("[" * 200_000 + "]" * 200_000,))
    con.commit()
    con.close()
    assert "'world'" in _untouched(s, lambda: load_into(s, deep_meta))


@pytest.mark.parametrize("key,value", [("embedding_dim", "many"), ("embedding_dim", -3), ("residents", "Maria"),
                                       ("parts", 7), ("map_size", ["a", 2]), ("schema", "two")])
def test_a_hand_edited_meta_is_refused_by_name_and_listed_as_unreadable(tmp_path, small_game, key, value):
    from game.saves.saveload import load_into

    s, good, _parts, _meta = small_game
    folder = tmp_path / "edited"
    folder.mkdir()
    bad = _copy(good, folder, "edited")
    set_meta(bad, key, value)
    msg = _untouched(s, lambda: load_into(s, bad))
    assert f"'{key}'" in msg
    with pytest.raises(SaveError, match=key):
        read_info(bad)
    (listed,) = list_saves(folder)
    assert not listed.ok and key in listed.broken


@pytest.mark.parametrize("where", ["tile", "path", "negative", "visitor"])
def test_body_tiles_off_the_map_are_refused(tmp_path, small_game, where):
    from game.saves.saveload import load_into

    s, _good, parts, meta = small_game
    edited = dict(plain(parts))
    sim = dict(edited["sim"])
    bodies = {k: dict(v) for k, v in sim["bodies"].items()}
    name = next(n for n, b in bodies.items() if not b.get("visitor"))
    if where == "tile":
        bodies[name]["tile"] = [9999, 9999]
    elif where == "path":
        bodies[name]["path"] = [list(bodies[name]["tile"]), [5, 100_000]]
    elif where == "negative":
        bodies[name]["tile"] = [-1, 3]
    sim["bodies"] = bodies
    edited["sim"] = sim
    if where == "visitor":
        edited["visitor"] = {**edited["visitor"], "tile": [4000, 2]}
    bad = tmp_path / "tiles.sqlite"
    save_state(bad, edited, meta)
    msg = _untouched(s, lambda: load_into(s, bad))
    assert ("'visitor'" if where == "visitor" else "'sim'") in msg and "not a tile of this map" in msg


@pytest.mark.parametrize("part,value", [("visitor", ["Alex"]), ("session", "x"), ("random", [1, 2]),
                                        ("minds/Maria Lopez", 4), ("clock", None)])
def test_a_part_of_the_wrong_kind_is_refused_before_anything_is_swapped(tmp_path, small_game, part, value):
    """A visitor part that is a list got as far as swapping the minds and the sim in
    before failing: the game was left half loaded."""
    from game.saves.saveload import load_into

    s, _good, parts, meta = small_game
    edited = {**plain(parts), part: value}
    bad = tmp_path / "kind.sqlite"
    save_state(bad, edited, meta)
    if value is None:  # an empty clock is allowed: the loaded game keeps its speed and pause
        load_into(s, bad)
        return
    assert f"'{part}'" in _untouched(s, lambda: load_into(s, bad))


def test_a_swap_that_fails_halfway_puts_the_old_game_back(tmp_path, small_game, monkeypatch):
    """Whatever fails while the loaded game is swapped in (here numpy's random state,
    set after the minds, the sim and the visitor), the running game is the one before."""
    import numpy as np

    from game.saves.saveload import load_into

    s, good, _parts, meta = small_game

    real = np.random.set_state
    calls = []

    def broken(state):  # the swap's call fails; putting the old state back works
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("disk on fire")
        real(state)

    monkeypatch.setattr(np.random, "set_state", broken)
    try:
        msg = _untouched(s, lambda: load_into(s, good))
    finally:
        monkeypatch.setattr(np.random, "set_state", real)
    assert "goes on as it was" in msg
    load_into(s, good)  # and the same save loads once the swap can finish
    assert s.sim.now == meta["sim_time"]
