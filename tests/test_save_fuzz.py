# ruff: noqa: F811 - the fixtures imported from test_savegame are the tests' arguments
"""A fuzz harness over saves (issue 25): a real save, made from a short session on
the scripted model, damaged in every way a disk or a hand edit can, then loaded
into a running game. Every case must end as a SaveError (the game untouched) or
a clean load; never another exception, never a hang.

The damage: random byte flips and truncations of the file; byte flips,
truncations and swaps of the parts' JSON texts (their checksums made to match, so
the damage reaches the decoder); a value anywhere in a part or the meta turned
into another type (a text, a huge number, a deep nest, a malformed tag, ...).
A few hundred cases run with every test run; the ``slow`` test runs three thousand
(``SMALLVILLE_SAVE_FUZZ_CASES=20000`` for a longer hunt).
"""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from savetools import part_names, part_text, set_part_text
from test_savegame import DORM, MAP, sessions  # noqa: F401 - fixture

from game.saves.store import SaveError, save_state

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")

ODD_VALUES: list[Any] = [
    "", "text", "2023-02-13T25:99:00", -1, 0, 2**70, 1e308, -1e308, 3.5, True, None, [], [1, "a"], {}, {"x": 1},
    [[[[[]]]]], {"__td__": [1e10, 0, 0]}, {"__dt__": "yesterday"}, {"__nd__": 99}, {"__rows__": 3},
    {"__d__": [[1]]}, {"__t__": {}}, {"__set__": [[]]}, {"__b__": -1}, {"__date__": 5},
]


def _nodes(data: Any, path: tuple = ()) -> list[tuple]:
    """Every path into a raw JSON structure."""
    out = [path]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _nodes(v, path + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _nodes(v, path + (i,))
    return out


def _replace(data: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    data[path[0]] = _replace(data[path[0]], path[1:], value)
    return data


DEEP = "__deeply nested__"  # stands for a nest too deep to build as data: spliced into the text


def _odd(rng: random.Random) -> Any:
    v = rng.choice(ODD_VALUES)
    if v == [[[[[]]]]] and rng.random() < 0.3:
        return DEEP
    return json.loads(json.dumps(v))


def _dumps(data: Any) -> str:
    return json.dumps(data).replace(json.dumps(DEEP), "[" * 5000 + "]" * 5000)


KINDS = ["flip", "truncate", "text_flip", "text_truncate", "swap", "type", "type", "meta"]


def damage(good: Path, out: Path, rng: random.Random, case: int = 0) -> str:
    """Write a damaged copy of ``good`` to ``out``; returns what was done. The parts
    take turns (case by case), so every part of the save meets every kind of damage."""
    shutil.copy(good, out)
    kind = KINDS[case % len(KINDS)]
    names = part_names(out)
    if kind == "flip":
        b = bytearray(out.read_bytes())
        spots = [rng.randrange(len(b)) for _ in range(rng.randint(1, 8))]
        for i in spots:
            b[i] ^= 1 << rng.randrange(8)
        out.write_bytes(bytes(b))
        return f"flip bytes {spots}"
    if kind == "truncate":
        b = out.read_bytes()
        n = rng.randrange(len(b))
        out.write_bytes(b[:n])
        return f"truncate to {n} bytes"
    name = names[(case // len(KINDS)) % len(names)]
    if kind == "text_flip":
        t = list(part_text(out, name))
        spots = [rng.randrange(len(t)) for _ in range(rng.randint(1, 4))]
        for i in spots:
            t[i] = rng.choice('{}[]",:0123456789.eE-tfn\\ax')
        set_part_text(out, name, "".join(t))
        return f"part {name}: characters {spots} changed"
    if kind == "text_truncate":
        t = part_text(out, name)
        n = rng.randrange(len(t))
        set_part_text(out, name, t[:n])
        return f"part {name}: cut to {n} characters"
    if kind == "swap":
        other = rng.choice(names)
        a, b = part_text(out, name), part_text(out, other)
        set_part_text(out, name, b)
        set_part_text(out, other, a)
        return f"parts {name} and {other} swapped"
    if kind == "type":
        data = json.loads(part_text(out, name))
        path = rng.choice(_nodes(data))
        set_part_text(out, name, _dumps(_replace(data, path, _odd(rng))))
        return f"part {name}: {list(path)[:8]} replaced"
    con = sqlite3.connect(out)  # meta
    try:
        keys = [r[0] for r in con.execute("SELECT key FROM meta")]
        key = rng.choice(keys)
        value = _odd(rng)
        con.execute("UPDATE meta SET value = ? WHERE key = ?", (_dumps(value), key))
        con.commit()
    finally:
        con.close()
    return f"meta {key} replaced"


@pytest.fixture
def real_save(tmp_path, sessions):
    """A save of a short session on the scripted model (two residents, the start of
    their morning), and the session to load into."""
    from game.saves.saveload import capture

    s = sessions(DORM[:2])
    for _ in range(150):
        s.sim.step()
    s.minds[DORM[0]].queue_thought("I should call my sister tonight", 6)
    parts, meta = capture(s)
    good = tmp_path / "good.sqlite"
    save_state(good, parts, meta)
    return s, good


def fuzz(session: Any, good: Path, folder: Path, cases: int, seed: int, steps: int = 0) -> dict[str, int]:
    """Load ``cases`` damaged copies of ``good`` into ``session`` (a clean load then runs
    ``steps`` steps: the loaded game must run, not just load); counts of outcomes."""
    from game.saves.saveload import REQUIRED, commit, prepare
    from game.saves.store import load_state

    rng = random.Random(seed)
    seen = {"refused": 0, "loaded": 0}
    for i in range(cases):
        bad = folder / f"case-{i % 4}.sqlite"
        what = damage(good, bad, rng, i)
        try:
            parts, info = load_state(bad, expect_map=session.town, require=REQUIRED)
            commit(session, prepare(session, parts, info))
            for _ in range(steps):
                session.sim.step()
        except SaveError as err:
            assert str(err), what
            part = what.split(":")[0].removeprefix("part ") if what.startswith("part ") else None
            if part is not None:  # damage inside one part: the message names that part (issue 35)
                assert re.search(rf"\b{re.escape(part)}\b", str(err)), f"case {i}: {what}: {err}"
            seen["refused"] += 1
            continue
        except BaseException as err:  # anything else is the bug this harness looks for
            raise AssertionError(f"case {i} (seed {seed}): {what}: {type(err).__name__}: {err}") from err
        seen["loaded"] += 1
    return seen


def test_damaged_saves_are_refused_or_load_cleanly(real_save, tmp_path):
    s, good = real_save
    seen = fuzz(s, good, tmp_path, cases=300, seed=25, steps=3)
    assert seen["refused"] > 100 and seen["loaded"] > 10, seen  # both outcomes are exercised


@pytest.mark.slow
def test_thousands_of_damaged_saves(real_save, tmp_path):
    """Three thousand cases (under a minute; SMALLVILLE_SAVE_FUZZ_CASES asks for more)."""
    s, good = real_save
    cases = int(os.environ.get("SMALLVILLE_SAVE_FUZZ_CASES") or 3000)
    seen = fuzz(s, good, tmp_path, cases=cases, seed=2025, steps=3)
    assert seen["refused"] > cases // 3 and seen["loaded"] > cases // 30, seen
