"""game/saves/store.py: the save file engine (plain state in, plain state out)."""
from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from game.saves import disk
from game.saves.store import (
    SCHEMA,
    SaveError,
    SaveInfo,
    SaveWriter,
    autosave,
    clean_stale_temps,
    freeze,
    list_saves,
    load_state,
    map_fingerprint,
    read_info,
    save_state,
    slot_path,
    state_diff,
    states_equal,
)
from game.support import folders
from game.support.errors import UserError
from lab.bench.saves import synthetic_state

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
WORKER = Path(__file__).resolve().parent / "save_worker.py"


def exotic_part() -> dict:
    """Every kind of value a part may hold."""
    rng = random.Random(3)
    gen = np.random.default_rng(5)
    big = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    return {
        "when": datetime(2023, 2, 14, 17, 0, 5, 123456),
        "aware": datetime(2023, 2, 14, 17, 0, tzinfo=timezone(timedelta(hours=-8))),
        "day": date(2023, 2, 14),
        "span": timedelta(days=1, seconds=5, microseconds=7),
        "tile": (3, 4),
        "path": [(1, 2), (2, 3), (3, 4)],
        "set": {"a", "b"},
        "frozen": frozenset({1, 2}),
        "int_keys": {1: "one", 2: "two"},
        "tuple_keys": {(1, 2): "a", (3, 4): "b"},
        "tag_like": {"__dt__": "not a date"},
        "tag_like_rows": [{"__rows__": i} for i in range(10)],
        "floats": [0.1, -0.0, 1e300, float("inf"), float("-inf"), float("nan")],
        "text": "Isabella 🎉 café \u2028 \"quoted\" \\ back",
        "bytes": b"\x00\x01raw",
        "none": None, "flags": [True, False], "big_int": 2**127 + 5,
        "arrays": {
            "f32": gen.standard_normal((50, 384)).astype(np.float32),
            "i64": np.arange(10, dtype=np.int64),
            "bool": np.array([True, False, True]),
            "u8": np.zeros((2, 3, 4), dtype=np.uint8),
            "f64_3d": big,
            "strided": big[:, ::2, 1],          # not contiguous
            "empty": np.zeros((0, 384), dtype=np.float32),
            "zero_d": np.array(3.5),
            "str": np.array(["a", "bc"]),
            "big_endian": np.arange(4, dtype=">i4"),
        },
        "rows": [{"id": i, "t": datetime(2023, 2, 13) + timedelta(minutes=i), "ev": [i, i + 1] if i % 2 else [],
                  "vec": np.full(3, i, dtype=np.float32) if i % 3 == 0 else None} for i in range(40)],
        "mixed_rows": [{"a": 1}, {"b": 2}] * 10,
        "python_random": rng.getstate(),
        "numpy_random": gen.bit_generator.state,
    }


def test_round_trip_big_state_equals_original(tmp_path):
    state = synthetic_state(residents=6, memories=800)
    state["exotic"] = exotic_part()
    p = tmp_path / "big.sqlite"
    info = save_state(p, state, {"world": "the Ville", "sim_time": state["clock"]["now"],
                                 "residents": [k[6:] for k in state if k.startswith("minds/")],
                                 "embedding_model": "all-MiniLM-L6-v2", "embedding_dim": 384,
                                 "map_path": str(MAP)})
    loaded, info2 = load_state(p, expect_map=MAP)
    assert state_diff(loaded, state) is None
    assert states_equal(loaded, state)
    ex = loaded["exotic"]
    assert type(ex["tile"]) is tuple and type(ex["set"]) is set and ex["int_keys"] == {1: "one", 2: "two"}
    assert ex["arrays"]["f32"].dtype == np.float32 and ex["arrays"]["f32"].flags.writeable
    assert ex["arrays"]["big_endian"].dtype == np.dtype(">i4")
    # random states come back usable
    r = random.Random()
    r.setstate(ex["python_random"])
    r2 = random.Random(3)
    assert r.random() == r2.random()
    g = np.random.default_rng()
    g.bit_generator.state = ex["numpy_random"]
    same = np.random.default_rng(5)
    same.standard_normal((50, 384))  # what exotic_part drew before taking the state
    assert g.random() == same.random()
    assert info.slot == info2.slot == "big" and info2.schema == SCHEMA
    assert info2.sim_time == state["clock"]["now"] and info2.embedding_dim == 384
    assert info2.map_sha256 == map_fingerprint(MAP) and info2.world == "the Ville"
    assert len(info2.residents) == 6 and "clock" in info2.parts


def test_numpy_scalars_become_python_numbers(tmp_path):
    p = tmp_path / "s.sqlite"
    save_state(p, {"x": {"a": np.float32(1.5), "b": np.int64(7), "c": np.bool_(True)}}, {})
    loaded, _ = load_state(p)
    assert loaded["x"] == {"a": 1.5, "b": 7, "c": True} and type(loaded["x"]["b"]) is int


def test_states_equal_is_strict():
    a = {"v": np.zeros(3, np.float32), "n": float("nan"), "t": (1, 2)}
    assert states_equal(a, {"v": np.zeros(3, np.float32), "n": float("nan"), "t": (1, 2)})
    assert not states_equal(a, {"v": np.zeros(3, np.float64), "n": float("nan"), "t": (1, 2)})
    assert not states_equal(a, {"v": np.zeros((3, 1), np.float32), "n": float("nan"), "t": (1, 2)})
    assert not states_equal(a, {"v": np.zeros(3, np.float32), "n": float("nan"), "t": [1, 2]})
    assert not states_equal({"x": 1}, {"x": 1.0})
    assert not states_equal({"x": 1}, {"x": True})
    assert "x" in state_diff({"x": [1, 2]}, {"x": [1, 3]})
    # NaN in a float array equals NaN (a save of a NaN round-trips); integer arrays compare plainly.
    assert states_equal(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    assert states_equal(np.array([1 + np.nan * 1j]), np.array([1 + np.nan * 1j]))
    assert states_equal(np.arange(3), np.arange(3)) and not states_equal(np.arange(3), np.arange(1, 4))
    assert state_diff(np.zeros(2), [0.0, 0.0]) == "$: ndarray vs list"
    assert state_diff([0.0, 0.0], np.zeros(2)) == "$: list vs ndarray"
    assert state_diff({"a": 1, "b": 2}, {"b": 2, "c": 3}) == "$: keys differ (only left ['a'], only right ['c'])"


def test_freeze_is_a_deep_copy(tmp_path):
    src = {"a": [{"ev": [1, 2], "d": {"k": 1}} for _ in range(10)], "arr": np.ones(4), "t": ([1], 2)}
    ro = np.arange(5)
    ro.flags.writeable = False
    src["ro"] = ro
    snap = freeze(src)
    src["a"][0]["ev"].append(3)
    src["a"][1]["d"]["k"] = 99
    src["arr"][0] = 7
    src["t"][0].append(5)
    assert snap["a"][0]["ev"] == [1, 2] and snap["a"][1]["d"]["k"] == 1
    assert snap["arr"][0] == 1 and snap["t"] == ([1], 2)
    assert snap["ro"] is ro  # read-only arrays are vouched immutable: shared, not copied
    with pytest.raises(TypeError):
        freeze({"x": object()})


def test_freeze_of_long_lists_of_rows_is_deep_whatever_their_shape():
    # Rows of one shape take freeze's column path, rows of mixed shapes its row-by-row path;
    # both must copy every mutable piece (a nested list in a dict in a row, a list beside None).
    same = [{"id": i, "ev": [i] if i % 2 else None, "d": {"k": [i]}, "t": (i, [i])} for i in range(10)]
    mixed = [{"id": i, "ev": [i]} if i % 2 else {"id": i, "other": {"k": [i]}} for i in range(10)]
    for rows in (same, mixed):
        snap = freeze(rows)
        assert snap == rows and all(a is not b for a, b in zip(snap, rows))
        for row in rows:
            for v in row.values():
                if isinstance(v, list):
                    v.append("later")
                elif isinstance(v, dict):
                    v["k"].append("later")
                elif isinstance(v, tuple):
                    v[1].append("later")
        assert "later" not in repr(snap) and "later" in repr(rows)


def test_freeze_copies_sets_bytearrays_and_long_lists_of_lists():
    lists = [[i, i + 1] for i in range(12)]    # e.g. a path's waypoints: long, but not rows of dicts
    pairs = [(i, [i]) for i in range(12)]      # tuples holding something mutable
    state = {"s": {1, 2, (3, 4)}, "f": frozenset({"a", "b"}), "b": bytearray(b"ab"), "l": lists, "p": pairs}
    out = freeze(state)
    assert out == state and type(out["s"]) is set and type(out["f"]) is frozenset
    assert out["s"] is not state["s"] and out["b"] == b"ab" and type(out["b"]) is bytes
    lists[0].append(99)
    pairs[0][1].append(99)
    assert out["l"][0] == [0, 1] and out["p"][0] == (0, [0])   # a deep copy, not the live lists


def test_tuple_keys_come_back_as_tuples(tmp_path):
    parts = {"grid": {"cells": {(3, 4): "stove", (0, 1): "bed"}, "plain": {"a": 1}}}
    save_state(tmp_path / "t.sqlite", parts, {})
    back = load_state(tmp_path / "t.sqlite")[0]
    assert back["grid"]["cells"] == {(3, 4): "stove", (0, 1): "bed"} and back["grid"]["plain"] == {"a": 1}
    # A key written as a plain JSON list (a save edited by hand, or another writer) is a tuple
    # too: a list cannot be a key. Other keys stay as they are.
    from game.saves.codec import decode_hook

    got = decode_hook({"__d__": [[[3, 4], "stove"], [7, "seven"], ["x", [1, 2]]]})
    assert got == {(3, 4): "stove", 7: "seven", "x": [1, 2]} and type(next(iter(got))) is tuple


# ------------------------------------------------------------------ slots

def test_slot_names(tmp_path):
    assert slot_path("quick") == folders.saves_dir() / "quick.sqlite"  # the game's own saves/, from any folder
    assert slot_path("My save 2.b", folder=tmp_path) == tmp_path / "My save 2.b.sqlite"
    assert slot_path("runs/demo/save.sqlite") == Path("runs/demo/save.sqlite")
    assert slot_path(tmp_path / "x.SQLITE") == tmp_path / "x.SQLITE"
    for bad in ["", "../x", "a/b", "a\\b", ".hidden", "x..y", "CON", "nul", "a\x00b", "a" * 65, "end.", "-x",
                "end ", "con.txt", "Lpt1.old", "com9"]:   # Windows drops a trailing dot or space, reserves CON.*
        with pytest.raises(SaveError) as e:
            slot_path(bad)
        assert "not a usable save name" in str(e.value)


def test_a_refused_save_name_is_shown_as_typed_or_escaped_and_cut():
    with pytest.raises(SaveError) as e:
        slot_path("my/save")
    assert str(e.value).startswith("'my/save' is not a usable save name")
    with pytest.raises(SaveError) as e:
        slot_path("a\x00b")   # a control character is shown escaped, never raw
    assert str(e.value).startswith("'a\\x00b' is not")
    with pytest.raises(SaveError) as e:
        slot_path("/" + "x" * 99)   # a long name is cut at 64 characters, and says so
    assert str(e.value).startswith("'/" + "x" * 63 + "…' is not")


def test_a_save_label_shows_its_slot_sim_time_and_local_save_time(tmp_path):
    saved = datetime(2024, 5, 6, 7, 8, tzinfo=UTC)
    info = SaveInfo(tmp_path / "x.sqlite", "x", saved_at=saved, sim_time=datetime(2023, 2, 13, 8, 5))
    local = saved.astimezone().strftime("%Y-%m-%d %H:%M")
    assert info.label() == f"x: Mon 13 Feb 2023 08:05 (saved {local})"
    assert SaveInfo(tmp_path / "y.sqlite", "y").label() == "y: ? (saved ?)"
    assert SaveInfo(tmp_path / "z.sqlite", "z", broken="not a save").label() == "z: unreadable (not a save)"


def test_list_saves_and_read_info(tmp_path):
    for i, name in enumerate(["first", "second", "third"]):
        save_state(tmp_path / f"{name}.sqlite", {"clock": {"n": i}},
                   {"sim_time": datetime(2023, 2, 13, 7 + i), "world": "the Ville"})
        time.sleep(0.01)
    (tmp_path / "junk.sqlite").write_bytes(os.urandom(5000))
    (tmp_path / "notes.txt").write_text("not a save")
    (tmp_path / ".saving-x.999999.abcd.tmp").write_bytes(b"half a save")
    saves = list_saves(tmp_path)
    assert [s.slot for s in saves if s.ok] == ["third", "second", "first"]
    broken = [s for s in saves if not s.ok]
    assert [s.slot for s in broken] == ["junk"] and "not a Smallville save" in broken[0].broken
    info = read_info(tmp_path / "second.sqlite")
    assert info.sim_time == datetime(2023, 2, 13, 8) and info.size > 0 and info.saved_at is not None
    assert "second" in info.label() and "unreadable" in broken[0].label()
    assert list_saves(tmp_path / "nowhere") == []
    odd = tmp_path / "a folder #1 %20?"
    info = save_state(slot_path("My save 2", folder=odd), {"clock": {"n": 9}}, {})
    assert info.slot == "My save 2" and load_state(odd / "My save 2.sqlite")[0]["clock"] == {"n": 9}
    assert load_state(odd / "My save 2")[0]["clock"] == {"n": 9}  # the suffix may be left off


def test_autosave_keeps_the_last_k(tmp_path):
    for i in range(5):
        info = autosave({"clock": {"i": i}}, {"world": "the Ville"}, folder=tmp_path, keep=3)
        assert info.slot == f"autosave-{i + 1}"
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["autosave-3.sqlite", "autosave-4.sqlite", "autosave-5.sqlite"]
    assert load_state(tmp_path / "autosave-5.sqlite")[0]["clock"] == {"i": 4}
    assert read_info(tmp_path / "autosave-5.sqlite").meta["autosave"] is True
    assert read_info(tmp_path / "autosave-5.sqlite").world == "the Ville"   # the caller's meta is kept
    autosave({"clock": {"i": 5}}, None, folder=tmp_path, keep=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["autosave-6.sqlite"]
    # The player's own saves, even ones named like autosaves, are never rotated away.
    for mine in ("mine", "autosave-notes", "12345"):
        save_state(tmp_path / f"{mine}.sqlite", {"clock": {"mine": 1}}, {})
    autosave({"clock": {"i": 6}}, None, folder=tmp_path, keep=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["12345.sqlite", "autosave-7.sqlite",
                                                           "autosave-notes.sqlite", "mine.sqlite"]


def test_list_saves_reads_the_saves_folder_and_steps_over_what_is_not_a_save(tmp_path, monkeypatch):
    monkeypatch.setattr(folders, "saves_dir", lambda: tmp_path)
    (tmp_path / "a folder.sqlite").mkdir()             # sorts first: a folder, not a save
    (tmp_path / "b.txt").write_text("notes")
    (tmp_path / ".saving-c.1.x.tmp").write_bytes(b"")
    save_state(tmp_path / "d.sqlite", {"clock": {}}, {})
    save_state(tmp_path / "e.sqlite", {"clock": {}}, {})
    assert sorted(s.slot for s in list_saves()) == ["d", "e"]


def test_list_saves_lists_a_save_it_cannot_read_for_any_reason_with_its_size_and_file_time(tmp_path, monkeypatch):
    save_state(tmp_path / "good.sqlite", {"clock": {}}, {})
    (tmp_path / "odd.sqlite").write_bytes(b"x" * 100)
    real = disk.read_info

    def read_info_that_trips(p):
        if p.name == "odd.sqlite":
            raise RuntimeError("something unforeseen")
        return real(p)

    monkeypatch.setattr(disk, "read_info", read_info_that_trips)
    listed = {s.slot: s for s in list_saves(tmp_path)}   # never raises: the menu must open
    odd = listed["odd"]
    assert odd.path == tmp_path / "odd.sqlite" and odd.broken == "RuntimeError: something unforeseen"
    assert odd.size == 100
    mtime = datetime.fromtimestamp((tmp_path / "odd.sqlite").stat().st_mtime, UTC)
    assert odd.saved_at == mtime and odd.saved_at.tzinfo is not None
    assert listed["good"].ok


def test_autosave_defaults_to_the_saves_folder_and_the_last_three(tmp_path, monkeypatch):
    monkeypatch.setattr(folders, "saves_dir", lambda: tmp_path)
    for i in range(5):
        autosave({"clock": {"i": i}}, None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["autosave-3.sqlite", "autosave-4.sqlite",
                                                            "autosave-5.sqlite"]


def test_stale_temporary_files_go_only_when_their_writer_is_gone_or_they_are_old(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    files = {name: tmp_path / name for name in (
        f".saving-a.{dead}.r1.tmp",            # its writer died: removed
        f".saving-b.{os.getpid()}.r2.tmp",     # this process is still writing it: kept
        f".saving-c.{os.getppid()}.r3.tmp",    # another live process's: kept while fresh
        ".saving-d.notapid.r4.tmp",            # no pid to ask about: kept while fresh
        ".saving-e.sqlite-journal",            # sqlite's journal beside a temp: kept while fresh
        "keep.sqlite", ".saving-f.txt")}       # not a save temp at all
    for p in files.values():
        p.write_bytes(b"x")
    assert clean_stale_temps(tmp_path) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(list(files)[1:])
    old = time.time() - 7200
    for p in tmp_path.iterdir():
        os.utime(p, (old, old))
    assert clean_stale_temps(tmp_path) == 3   # old leftovers of other processes go too, never our own
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f".saving-b.{os.getpid()}.r2.tmp",
                                                                 "keep.sqlite", ".saving-f.txt"])
    assert clean_stale_temps(tmp_path / "nowhere") == 0


def test_a_save_makes_its_folders_reports_its_size_and_sweeps_dead_writers_temps(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    folder = tmp_path / "new" / "nested"
    p = folder / "s.sqlite"
    info = save_state(p, {"clock": {"n": 1}}, {})
    assert p.exists() and info.size == p.stat().st_size == read_info(p).size
    leftover = folder / f".saving-s.{dead}.r1.tmp"  # a writer that died mid-save
    leftover.write_bytes(b"x")
    save_state(p, {"clock": {"n": 2}}, {})
    assert not leftover.exists() and load_state(p)[0] == {"clock": {"n": 2}}


# ------------------------------------------------------------------ bad input

@pytest.fixture
def good_save(tmp_path):
    p = tmp_path / "good.sqlite"
    save_state(p, synthetic_state(residents=2, memories=300), {"world": "the Ville", "map_path": str(MAP)})
    return p


def _err(path, **kw) -> str:
    with pytest.raises(SaveError) as e:
        load_state(path, **kw)
    assert isinstance(e.value, UserError)
    return str(e.value)


def test_missing_file(tmp_path):
    msg = _err(tmp_path / "nope.sqlite")
    assert "there is no save at" in msg and "nope.sqlite" in msg
    with pytest.raises(SaveError):
        read_info(tmp_path / "nope.sqlite")


def test_truncated_files(good_save, tmp_path):
    data = good_save.read_bytes()
    for cut in [0, 50, 100, 4096, len(data) // 3, len(data) // 2, len(data) - 70000]:
        p = tmp_path / f"cut{cut}.sqlite"
        p.write_bytes(data[:cut])
        msg = _err(p)
        assert str(p) in msg and ("damaged" in msg or "not a Smallville save" in msg or "incomplete" in msg), msg


def test_random_bytes(tmp_path):
    p = tmp_path / "noise.sqlite"
    p.write_bytes(os.urandom(100_000))
    msg = _err(p)
    assert "is not a Smallville save" in msg and str(p) in msg


def test_foreign_sqlite(tmp_path):
    p = tmp_path / "other.sqlite"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    assert "SQLite file but not a Smallville save" in _err(p)


def test_a_part_edited_behind_its_checksum_is_refused(good_save):
    """The crc32 of every part is compared on load: a byte changed in a part's JSON
    (a disk error, a hand edit) is a damaged save, never a silently different game."""
    con = sqlite3.connect(good_save)
    name, text = con.execute("SELECT name, json FROM state ORDER BY name LIMIT 1").fetchone()
    edited = text.replace("1", "2", 1) if "1" in text else text + " "
    assert edited != text
    con.execute("UPDATE state SET json = ? WHERE name = ?", (edited, name))
    con.commit()
    con.close()
    msg = _err(good_save)
    assert f"part '{name}' fails its checksum" in msg and "damaged" in msg


def test_array_blobs_that_do_not_match_their_shape_are_damage(good_save, tmp_path):
    """Both length checks of an array row: its bytes against its nbytes, and nbytes
    against dtype x shape (found unguarded by the mutation pass)."""
    cut = tmp_path / "cut.sqlite"
    shutil.copy(good_save, cut)
    con = sqlite3.connect(cut)
    part, idx = con.execute("SELECT part, idx FROM arrays WHERE nbytes > 16 LIMIT 1").fetchone()
    con.execute("UPDATE arrays SET data = substr(data, 1, 16) WHERE part = ? AND idx = ?", (part, idx))
    con.commit()
    con.close()
    assert "damaged" in _err(cut) and "expected" in _err(cut)
    shape = tmp_path / "shape.sqlite"
    shutil.copy(good_save, shape)
    con = sqlite3.connect(shape)
    con.execute("UPDATE arrays SET shape = '[1, 1]' WHERE part = ? AND idx = ?", (part, idx))
    con.commit()
    con.close()
    assert "damaged" in _err(shape)


def test_empty_arrays_keep_their_shape_and_dtype(tmp_path):
    """A mind with no memories yet: its (0, 384) float32 rows come back as such."""
    p = tmp_path / "empty.sqlite"
    save_state(p, {"m": {"rows": np.zeros((0, 384), dtype=np.float32), "ids": np.zeros(0, dtype=np.int64)}}, {})
    got = load_state(p)[0]["m"]
    assert got["rows"].shape == (0, 384) and got["rows"].dtype == np.float32
    assert got["ids"].shape == (0,) and got["ids"].dtype == np.int64


def test_views_of_arrays_are_saved_as_their_values_and_object_arrays_are_refused(tmp_path):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    views = {"t": base.T, "step": base[:, ::2], "f": np.asfortranarray(base)}  # none C-contiguous
    p = tmp_path / "views.sqlite"
    save_state(p, {"v": views}, {})
    got = load_state(p)[0]["v"]
    for k, a in views.items():
        assert np.array_equal(got[k], a) and got[k].shape == a.shape and got[k].flags.c_contiguous
    for bad in (np.array([object()], dtype=object), np.zeros(2, dtype=[("x", "i4"), ("y", "f4")])):
        with pytest.raises(SaveError, match="cannot store"):
            save_state(tmp_path / "bad.sqlite", {"v": {"a": bad}}, {})
    assert not (tmp_path / "bad.sqlite").exists()


def test_a_meta_that_says_newer_is_refused_by_read_info_too(good_save):
    con = sqlite3.connect(good_save)
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA + 1),))
    con.commit()
    con.close()
    with pytest.raises(SaveError, match="newer Smallville"):
        read_info(good_save)
    assert "newer Smallville" in _err(good_save)


def test_newer_schema(good_save):
    con = sqlite3.connect(good_save)
    con.execute(f"PRAGMA user_version = {SCHEMA + 1}")
    con.commit()
    con.close()
    msg = _err(good_save)
    assert f"newer Smallville (schema {SCHEMA + 1}; this one reads up to {SCHEMA}); update the game" in msg
    with pytest.raises(SaveError):
        read_info(good_save)


def test_another_map(good_save, tmp_path):
    other = tmp_path / "other_town.tmx"
    other.write_bytes(MAP.read_bytes().replace(b'value="the Ville"', b'value="Elsewhere"', 1))

    class FakeTown:
        path = other
        world = "Elsewhere"
    msg = _err(good_save, expect_map=FakeTown())
    assert "'the Ville'" in msg and "'Elsewhere'" in msg and "other_town.tmx" in msg and "the_ville.tmx" in msg
    msg = _err(good_save, expect_map=other)
    assert "other_town.tmx" in msg and "the_ville.tmx" in msg
    load_state(good_save, expect_map=MAP)  # the right map is fine


def test_missing_and_damaged_parts(good_save, tmp_path):
    p2 = tmp_path / "copy.sqlite"
    shutil.copy(good_save, p2)
    con = sqlite3.connect(good_save)
    con.execute("DELETE FROM state WHERE name = 'clock'")
    con.commit()
    con.close()
    msg = _err(good_save)
    assert "incomplete" in msg and "'clock'" in msg
    assert "'weather'" in _err(p2, require=["weather"])
    con = sqlite3.connect(p2)
    con.execute("UPDATE state SET json = '{\"now\": 1}' WHERE name = 'clock'")
    con.execute("DELETE FROM arrays WHERE idx = 0 AND part LIKE 'minds/%'")
    con.commit()
    con.close()
    assert "damaged" in _err(p2)


def test_failed_save_keeps_the_old_one(tmp_path):
    p = tmp_path / "keep.sqlite"
    save_state(p, {"clock": {"n": 1}}, {})
    with pytest.raises(SaveError) as e:
        save_state(p, {"clock": {"n": 2}, "bad": {"x": object()}}, {})
    assert "bad" in str(e.value)
    assert load_state(p)[0] == {"clock": {"n": 1}}
    assert [x.name for x in tmp_path.iterdir()] == ["keep.sqlite"]  # no temp left behind


def test_cannot_write_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(SaveError) as e:
        save_state(blocker / "s.sqlite", {"a": 1}, {})
    assert "save folder" in str(e.value) or "could not write" in str(e.value)


def test_a_save_path_that_is_a_folder_is_refused_and_the_folder_untouched(tmp_path):
    folder = tmp_path / "quick.sqlite"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    with pytest.raises(SaveError) as e:
        save_state(folder, {"a": 1}, {})
    assert str(folder) in str(e.value) and "previous save" in str(e.value)
    assert (folder / "keep.txt").read_text() == "mine"
    assert "is a folder" in _err(folder)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_folder_keeps_the_previous_save(tmp_path):
    p = tmp_path / "ro" / "keep.sqlite"
    save_state(p, {"clock": {"n": 1}}, {})
    p.parent.chmod(0o500)
    try:
        with pytest.raises(SaveError, match="folder is writable"):
            save_state(p, {"clock": {"n": 2}}, {})
    finally:
        p.parent.chmod(0o700)
    assert load_state(p)[0] == {"clock": {"n": 1}}


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_a_full_disk_keeps_the_previous_save(tmp_path, monkeypatch, where):
    """ENOSPC at each step of the write: one clear message, the old save loads, no temp left."""
    import errno

    from game.saves import disk

    p = tmp_path / "keep.sqlite"
    save_state(p, {"clock": {"n": 1}}, {})
    full = OSError(errno.ENOSPC, "No space left on device")

    def boom(*a, **k):
        raise full
    if where == "write":
        real_connect = sqlite3.connect

        def connect(*a, **k):
            con = real_connect(*a, **k)
            return _FullDisk(con)
        monkeypatch.setattr(disk.sqlite3, "connect", connect)
    elif where == "fsync":
        monkeypatch.setattr(disk.os, "fsync", boom)
    else:
        monkeypatch.setattr(disk.os, "replace", boom)
    with pytest.raises(SaveError) as e:
        save_state(p, {"clock": {"n": 2}}, {})
    msg = str(e.value)
    assert str(p) in msg and "unchanged" in msg and ("space" in msg.lower() or "full" in msg.lower()), msg
    monkeypatch.undo()
    assert load_state(p)[0] == {"clock": {"n": 1}}
    assert [x.name for x in tmp_path.iterdir()] == ["keep.sqlite"]


class _FullDisk:
    """A sqlite3 connection whose COMMIT fails as on a full disk."""

    def __init__(self, con):
        self._con = con

    def execute(self, sql, *a):
        if sql.strip().upper() == "COMMIT":
            raise sqlite3.OperationalError("database or disk is full")
        return self._con.execute(sql, *a)

    def __getattr__(self, name):
        return getattr(self._con, name)


# ------------------------------------------------------------------ secrets

def test_api_keys_never_reach_the_file(tmp_path):
    key = "sk-proj-" + "A1b2C3d4" * 6
    anthropic = "sk-ant-api03-" + "x9Y8" * 10
    state = {
        "config": {"model": "gpt-4o-mini", "api_key": key, "api_base": "http://localhost:11434",
                   "OPENAI_API_KEY": anthropic, "extra_headers": {"Authorization": "Bearer " + "t0k3n" * 8},
                   "max_tokens": 256, "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG", "token": ""},
        "accounting": {"prompt_tokens": 1234, "completion_tokens": 56, "tokens_by_purpose": {"decide": 7}},
        "minds/A": {"memory": {"nodes": [{"id": i, "description": f"note {i}: my key is {key}" if i == 3 else f"n{i}"}
                                         for i in range(20)]}},
        "chat": ["Here is ghp_" + "Z" * 36 + " for you", "AKIAIOSFODNN7EXAMPLE is a key"],
    }
    p = tmp_path / "k.sqlite"
    save_state(p, state, {"world": "the Ville", "api_key": key})
    raw = p.read_bytes()
    for secret in (key, anthropic, "t0k3nt0k3n", "wJalrXUtnFEMI", "ghp_ZZZZ", "AKIAIOSFODNN7EXAMPLE"):
        assert secret.encode() not in raw, secret
    loaded, info = load_state(p)
    cfg = loaded["config"]
    assert cfg["api_key"] is None and cfg["OPENAI_API_KEY"] is None and cfg["aws_secret_access_key"] is None
    assert cfg["model"] == "gpt-4o-mini" and cfg["api_base"] == "http://localhost:11434" and cfg["max_tokens"] == 256
    assert cfg["extra_headers"]["Authorization"] is None and cfg["token"] == ""
    assert loaded["accounting"] == state["accounting"]
    assert loaded["minds/A"]["memory"]["nodes"][3]["description"] == "note 3: my key is [redacted]"
    assert loaded["chat"][0] == "Here is [redacted] for you"
    assert info.meta.get("api_key") is None and info.meta["scrubbed_secrets"] >= 6


def test_secrets_in_long_lists_of_rows_are_scrubbed_too(tmp_path):
    # Eight or more dicts with the same keys are written as columns; a column whose key
    # names a secret is emptied there (its values match no known key pattern, so nothing
    # later in the writer would catch them), and its empty strings stay empty.
    aws = "wJalrXUtnFEMI/K7MDENG"
    rows = [{"who": f"r{i}", "aws_secret_access_key": aws if i % 3 == 0 else "", "n": i,
             "path": [[i, i + 1]] if i % 2 else None, "when": datetime(2023, 2, 13, 7, i)} for i in range(12)]
    p = tmp_path / "rows.sqlite"
    save_state(p, {"log": {"rows": rows}}, {})
    assert aws.encode() not in p.read_bytes()
    back, info = load_state(p)
    got = back["log"]["rows"]
    assert [r["aws_secret_access_key"] for r in got] == [None if i % 3 == 0 else "" for i in range(12)]
    assert [r["who"] for r in got] == [f"r{i}" for i in range(12)] and got[5]["path"] == [[5, 6]]
    assert got[4]["path"] is None and got[7]["when"] == datetime(2023, 2, 13, 7, 7)
    assert info.meta["scrubbed_secrets"] == 4


# ------------------------------------------------------------------ off the frame

def test_save_writer_status_and_deferred_parts(tmp_path):
    seen = []
    w = SaveWriter(on_done=lambda kind, r: seen.append(kind))
    assert w.status.state == "idle"
    gate = threading.Event()

    def slow_part():
        gate.wait(5)
        return {"rendered": "off the main thread", "thread": threading.current_thread().name}
    fut = w.save(tmp_path / "quick.sqlite", {"clock": {"n": 1}, "minds/A": slow_part}, {"world": "the Ville"})
    assert w.busy() and w.status.text == "saving…"
    gate.set()
    assert w.wait(10)
    info = fut.result()
    assert info.slot == "quick" and w.status.state == "saved" and w.status.text == "saved slot quick"
    assert w.status.seconds is not None
    lf = w.load(tmp_path / "quick.sqlite")
    w.wait(10)
    parts, info = lf.result()
    assert parts["minds/A"]["thread"].startswith("saves") and w.status.text == "loaded slot quick"
    bad = w.save(tmp_path / "quick.sqlite", {"x": {"y": object()}}, {})
    w.wait(10)
    assert w.status.state == "failed" and w.status.text.startswith("save failed: ")
    with pytest.raises(SaveError):
        bad.result()
    assert load_state(tmp_path / "quick.sqlite")[0]["clock"] == {"n": 1}
    af = w.autosave({"clock": {"n": 2}}, {}, folder=tmp_path, keep=2)
    w.wait(10)
    assert af.result().slot == "autosave-1" and w.status.text == "autosaved (autosave-1)"
    bad_load = w.load(tmp_path / "missing.sqlite")
    w.wait(10)
    assert w.status.text.startswith("load failed: there is no save")
    with pytest.raises(SaveError):
        bad_load.result()
    assert seen == ["save", "load", "save"]
    w.close()


def test_save_writer_is_done_only_once_its_status_says_so(tmp_path):
    """The race a headless run hit ("save": null): the writer counted a save as
    finished before its status said "saved". Here the final status is held back;
    wait() and the future must still only return once it is set."""

    class SlowStatus(SaveWriter):
        def _set(self, state, text, seconds=None):
            if state in ("saved", "loaded", "failed"):
                time.sleep(0.2)  # a descheduled writer thread, between the write and the status
            super()._set(state, text, seconds)

    w = SlowStatus()
    fut = w.save(tmp_path / "race.sqlite", {"clock": {"n": 1}}, {})
    assert w.wait(10)
    assert w.status.state == "saved" and not w.busy()
    assert fut.result().slot == "race"
    bad = w.save(tmp_path / "race.sqlite", {"x": {"y": object()}}, {})
    assert w.wait(10) and w.status.state == "failed"
    with pytest.raises(SaveError):
        bad.result()
    w.close()


# ------------------------------------------------------------------ kill -9

def test_killed_saves_leave_the_previous_save_loadable(tmp_path, request):
    """SIGKILL a process in the middle of saving a 25 x 3000 x 384 town, ``kills`` times
    at spread-out moments: the file is absent (first save) or a complete save."""
    import pickle

    import save_worker

    base = save_worker.base_state(25, 3000)
    # The workers read the state built here rather than each building it again (seconds each).
    pickled = tmp_path / "worker" / "state.pickle"
    pickled.parent.mkdir()
    pickled.write_bytes(pickle.dumps(base, protocol=pickle.HIGHEST_PROTOCOL))
    rng = random.Random(1234)
    # Kill after 0.1 .. 2.1 save-durations (in a seeded random order): most kills
    # land inside a save (encoding, SQLite writing, fsync, rename), some between.
    kills = 14  # spread over the whole save and after it; each is a worker's life (about a second)
    spread = [0.1 + 2.0 * i / (kills - 1) for i in range(kills)]
    rng.shuffle(spread)
    save_seconds = [2.0]   # first guess; then what the worker reports
    gen = 0
    current: dict[Path, int | None] = {}
    phases = {"absent": 0, "last finished": 0, "finished unreported": 0}
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    # a fresh file every 5 kills: the first-save case too
    targets = [tmp_path / f"town{k // 5}.sqlite" for k in range(kills)]

    def start(target: Path) -> subprocess.Popen:
        # Its first generation comes on stdin once the last worker is killed and checked;
        # it says "ready" as it begins to save it.
        proc = subprocess.Popen([sys.executable, str(WORKER), str(target), "-", str(pickled)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        request.addfinalizer(proc.kill)  # a failed check leaves no worker waiting
        return proc

    following = start(targets[0])
    for k in range(kills):
        target = targets[k]
        prev = current.get(target)
        proc = following
        proc.stdin.write(f"{gen}\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "ready"  # and saving
        time.sleep(spread[k] * sorted(save_seconds)[len(save_seconds) // 2])
        proc.kill()
        # The next worker starts up (imports, reads the state) while this one's file is checked,
        # not while it saves: the saves are timed alone.
        following = start(targets[k + 1]) if k + 1 < kills else None
        out, _ = proc.communicate()
        done = [line.split() for line in out.splitlines() if line.startswith("saved")]
        saved = [int(x[1]) for x in done]
        save_seconds += [float(x[2]) for x in done]
        last_done = saved[-1] if saved else prev
        in_progress = (saved[-1] + 1) if saved else gen
        if not target.exists():
            assert last_done is None, f"kill {k}: the file vanished after generation {last_done}"
            phases["absent"] += 1
        else:
            parts, _info = load_state(target)
            g = parts["clock"]["generation"]
            assert g in (last_done, in_progress), f"kill {k}: generation {g}, expected {last_done} or {in_progress}"
            phases["last finished" if g == last_done else "finished unreported"] += 1
            assert states_equal(parts, save_worker.set_generation(base, g)), state_diff(parts, base)
            current[target] = g
        gen = in_progress + 1
    pickled.unlink()
    listed = list_saves(tmp_path)
    assert all(s.ok for s in listed) and {s.path.name for s in listed} == {p.name for p in current}
    # stale temporary files of the killed writers go away at the next save
    save_state(tmp_path / "after.sqlite", {"clock": {}}, {})
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".saving-")]
    assert clean_stale_temps(tmp_path) == 0
    print(f"\n[saves] kill test outcomes: {phases}")
