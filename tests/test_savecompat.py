"""Saves that outlive versions (game/saves/compat.py): an older schema's save is
converted step by step (each step tested with a committed save of that schema,
tests/data/saves/), and a save loads into a map whose tiles changed as long as
every address it uses is still there."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from test_savegame import make_session, plain

from game.saves import compat
from game.saves.saveload import capture, load_into
from game.saves.store import SCHEMA, SaveError, load_state, read_info, save_state, state_diff

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
SAVES = Path(__file__).resolve().parent / "data" / "saves"
PAIR = ["Maria Lopez", "Klaus Mueller"]

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")


@pytest.fixture
def sessions():
    made = []

    def make(*a, **k):
        s = make_session(*a, **k)
        made.append(s)
        return s
    yield make
    for s in made:
        s.close()


def test_every_older_schema_has_a_committed_save_and_a_step():
    assert sorted(compat.MIGRATIONS) == list(range(1, SCHEMA))
    for n in range(1, SCHEMA):
        assert (SAVES / f"schema-{n}.sqlite").is_file(), f"commit a small save of schema {n} (see this module)"


@pytest.mark.parametrize("n", range(1, SCHEMA))
def test_an_older_save_loads_and_plays_on(tmp_path, sessions, n):
    old = tmp_path / f"schema-{n}.sqlite"
    shutil.copy(SAVES / f"schema-{n}.sqlite", old)
    assert read_info(old).schema == n  # listed as it is
    s = sessions(names=PAIR)
    info = load_into(s, old)
    assert info.schema == SCHEMA and info.meta["migrated_from"] == n
    assert any("older Smallville" in w for w in info.warnings)
    assert sorted(s.minds) == sorted(PAIR) and str(s.sim.now) == "2023-02-13 07:20:00"
    assert len(s.minds["Maria Lopez"].memory.nodes) > 0
    for _ in range(60):  # ten sim minutes on: it plays
        s.sim.step()
    # Saved again, it is a current save.
    parts, meta = capture(s)
    again = save_state(tmp_path / "again.sqlite", parts, meta)
    assert again.schema == SCHEMA and again.meta["map_size"] == [136, 96]
    assert not load_state(again.path, expect_map=s.town)[1].warnings


def test_schema_1_to_2_step():
    meta, parts = {"schema": 1, "game_version": "0.1.0"}, {"sim": {}}
    notes = compat.migrate(meta, parts, Path("x.sqlite"))
    assert meta["schema"] == 2 and meta["map_size"] is None and meta["migrated_from"] == 1
    assert notes and "older Smallville (save schema 1)" in notes[0]
    assert compat.migrate(meta, parts, Path("x.sqlite")) == []  # a current save: nothing to do


def test_an_older_save_without_a_way_up_says_older_not_damaged(tmp_path, monkeypatch):
    old = tmp_path / "old.sqlite"
    shutil.copy(SAVES / "schema-1.sqlite", old)
    monkeypatch.setattr(compat, "MIGRATIONS", {})
    with pytest.raises(SaveError) as err:
        load_state(old)
    assert "made by an older Smallville" in str(err.value) and "damaged" not in str(err.value)
    assert "schema 1" in str(err.value)

    def broken(meta, parts):
        raise KeyError("plan")
    monkeypatch.setattr(compat, "MIGRATIONS", {1: broken})
    with pytest.raises(SaveError, match=r"older Smallville .* converting it from schema 1 failed \(KeyError"):
        load_state(old)
    assert old.read_bytes() == (SAVES / "schema-1.sqlite").read_bytes()  # the file is never touched


def test_a_save_claiming_schema_0_is_incomplete(tmp_path):
    p = tmp_path / "zero.sqlite"
    shutil.copy(SAVES / "schema-1.sqlite", p)
    con = sqlite3.connect(p)
    con.execute("PRAGMA user_version = 0")
    con.commit()
    con.close()
    with pytest.raises(SaveError, match="incomplete"):
        load_state(p)


# ------------------------------------------------------------------ the map's identity

def _town_copy(root: Path) -> Path:
    """The Ville in a folder whose name has spaces and non-ASCII characters."""
    folder = root / "my towns ü 北" / "maps" / "the_ville"
    shutil.copytree(MAP.parent, folder, ignore=shutil.ignore_patterns("*.py"))
    (root / "my towns ü 北" / "assets").symlink_to(REPO / "assets")
    return folder / "the_ville.tmx"


def _edit(tmx: Path, old: str, new: str) -> None:
    text = tmx.read_text(encoding="utf-8")
    assert old in text
    tmx.write_text(text.replace(old, new, 1), encoding="utf-8")


def _session_on(tmx: Path):
    """make_session, but on the map at ``tmx``."""
    import test_savegame

    saved = test_savegame.MAP
    test_savegame.MAP = tmx
    try:
        return make_session(names=PAIR)
    finally:
        test_savegame.MAP = saved


def test_changed_tiles_load_with_a_warning_and_missing_places_are_named(tmp_path):
    tmx = _town_copy(tmp_path)
    a = _session_on(tmx)
    b = c = None
    try:
        for _ in range(60):
            a.sim.step()
        parts, meta = capture(a)
        save = tmp_path / "before.sqlite"
        save_state(save, parts, meta)
        assert read_info(save).meta["map_size"] == [136, 96]

        # Tiles redrawn (a ground tile), addresses unchanged: loads, with a warning.
        _edit(tmx, '<data encoding="csv">\n4,1,2,3', '<data encoding="csv">\n3,1,2,3')
        b = _session_on(tmx)
        info = load_into(b, save)
        assert any("changed since this save" in w for w in info.warnings)
        _, read = load_state(save, expect_map=b.town)  # the worker thread's read says so too
        assert any("changed since this save" in w for w in read.warnings)
        assert state_diff(plain(capture(b)[0]), plain(parts)) is None  # nothing lost

        # A place the save uses renamed away: refused, naming it; the running game untouched.
        _edit(tmx, 'name="Dorm for Oak Hill College"', 'name="Dorm for Oak Hill University"')
        c = _session_on(tmx)
        before = plain(capture(c)[0])
        with pytest.raises(SaveError) as err:
            load_into(c, save)
        msg = str(err.value)
        assert "no longer has" in msg and "the Ville:Dorm for Oak Hill College:Klaus Mueller's room" in msg
        with pytest.raises(SaveError, match="no longer has"):  # refused already when read, off the frame
            load_state(save, expect_map=c.town)
        assert "more" in msg and "--map" not in msg  # the same file: no other map to suggest
        assert state_diff(plain(capture(c)[0]), before) is None
    finally:
        for s in (a, b, c):
            if s is not None:
                s.close()


def test_a_resized_map_or_another_world_is_refused(tmp_path):
    tmx = _town_copy(tmp_path)
    a = _session_on(tmx)
    try:
        parts, meta = capture(a)
        save = tmp_path / "s.sqlite"
        save_state(save, parts, {**meta, "map_size": [140, 96]})
        _edit(tmx, "<map ", "<map ")  # the same bytes: the size is not compared
        info = read_info(save)
        info.meta["map_sha256"] = info.map_sha256 = "0" * 64  # as if the file changed
        with pytest.raises(SaveError, match=r"140 x 96 tiles, but this game's map is 136 x 96"):
            compat.check_map(info, a.town)
        info.world = "Elsewhere"
        with pytest.raises(SaveError, match="another map"):
            compat.check_map(info, a.town)
    finally:
        a.close()


def test_addresses_used_finds_them_anywhere():
    parts = {"a": {"where": "W:x:y", "W:k": [("W:t", {"W:s"})]}, "b": "not W:", "c": "Wx:y"}
    assert compat.addresses_used(parts, "W") == {"W:x:y", "W:k", "W:t", "W:s"}
