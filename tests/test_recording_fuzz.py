"""Damaged recordings play as far as they can (issue 25; README: "a damaged or cut-off
recording plays up to where it breaks").

A real recording (a scripted headless run) is damaged in every way a disk, an
editor or a stranger can: byte flips, truncations, blocks that claim a
trillion frames, headers a thousand years ahead, tiles past int16, values of
the wrong type, lines nested a hundred thousand deep. Every case either loads
what it can (and every accessor the replay uses works on it) or raises the
module's RecordingError; none allocates more than the recording can hold."""
from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from game.replay.reader import ABSENT, RecordingError, read_recording

REPO = Path(__file__).resolve().parent.parent
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
PEAK_LIMIT = 48 * 2**20  # bytes: the recording below holds a few hundred kB of frames

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")


@pytest.fixture(scope="module")
def recording(tmp_path_factory) -> bytes:
    from fakes import HashEmbedder, chatty, make_gateway

    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.world.map_reader import load_town

    out = tmp_path_factory.mktemp("fuzz") / "run"
    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    run_headless(town, cast[:3], start=scenario.start, hours=1, out=out, scenario=scenario,
                 gateway=make_gateway(chatty), embedder=HashEmbedder(), progress=False, echo=None,
                 autosave_min=None)
    return (out / "recording.jsonl").read_bytes()


def _lines(raw: bytes) -> list[dict]:
    return [json.loads(x) for x in raw.decode().splitlines() if x.strip()]


def _join(recs: list) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in recs).encode()


def _check(path: Path, data: bytes):
    """Read ``data`` as a recording: a Recording every accessor works on, or RecordingError;
    never another exception, never more than PEAK_LIMIT bytes."""
    path.write_bytes(data)
    tracemalloc.start()
    try:
        rec = read_recording(path)
    except RecordingError as err:
        assert str(path) in str(err)
        return None
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < PEAK_LIMIT, f"reading took {peak >> 20} MB"
    from game.replay.moments import moments

    frames, bodies, two = rec.tiles.shape
    assert two == 2 and rec.tiles.dtype == np.int16 and rec.facing.shape == (frames, bodies)
    assert bodies == len(rec.names) and frames == rec.last + 1
    for f in {0, rec.last // 2, rec.last}:
        for i in range(bodies):
            rec.tile(i, f), rec.facing_at(i, f), rec.action_at(i, f)
        rec.objects_at(f), rec.visitor_at(f), rec.calls_at(f)
    assert all(0 <= e["s"] <= rec.last for e in rec.events_between(-1, rec.last))
    rec.summary(), rec.wall_span(), moments(rec)
    rec.hide_off_map(140, 100)
    x, y = rec.tiles[..., 0], rec.tiles[..., 1]
    assert ((x == ABSENT) | ((x >= 0) & (x < 140) & (y >= 0) & (y < 100))).all()
    return rec


def test_the_undamaged_recording_reads_whole(tmp_path, recording):
    rec = _check(tmp_path / "r.jsonl", recording)
    assert rec is not None and rec.stopped is None and rec.ended == "finished" and rec.last == 360


def test_a_block_that_claims_a_trillion_frames_stops_the_replay_there(tmp_path, recording):
    recs = _lines(recording)
    blocks = [i for i, r in enumerate(recs) if r["k"] == "m"]
    for count in (10**12, 10**7, 31, 2**63):
        bad = [dict(r) for r in recs]
        bad[blocks[4]]["n"] = count
        rec = _check(tmp_path / "r.jsonl", _join(bad))
        assert rec is not None and rec.last == 4 * 30, count  # the four blocks before it play
        assert f"line {blocks[4] + 1}" in rec.stopped and "damaged block" in rec.stopped


def test_a_header_far_in_the_future_stops_the_replay_there(tmp_path, recording):
    recs = _lines(recording)
    header = dict(recs[0], time="9999-12-31 23:59:00")
    rec = _check(tmp_path / "r.jsonl", _join(recs[:-1] + [header] + recs[1:2]))
    assert rec is not None and rec.last == 360 and "more than 1 day after the last frame" in rec.stopped
    for step in (0, -10, 10**12):
        assert _check(tmp_path / "r.jsonl", _join([dict(recs[0], step_s=step)] + recs[1:])) is None


def test_tiles_past_int16_stop_the_replay_there_and_off_map_tiles_are_hidden(tmp_path, recording):
    recs = _lines(recording)
    key = next(i for i, r in enumerate(recs) if r["k"] == "key")
    bad = [dict(r) for r in recs]
    bad[key] = dict(recs[key], tiles=[[40000, 5, "down"]] + recs[key]["tiles"][1:])
    assert _check(tmp_path / "r.jsonl", _join(bad)) is None
    with pytest.raises(RecordingError, match=r"holds no frame: line \d+: a damaged key frame \(a tile \(40000, 5\)"):
        read_recording(tmp_path / "r.jsonl")
    moved = next(i for i, r in enumerate(recs) if r["k"] == "m" and r["p"] and i > key + 5)
    bad = [dict(r) for r in recs]
    body, entry = next(iter(recs[moved]["p"].items()))
    bad[moved] = dict(recs[moved], p={body: [1e300, entry[1], *entry[2:]]})
    rec = _check(tmp_path / "r.jsonl", _join(bad))
    assert rec is not None and "off any map" in rec.stopped and rec.last == recs[moved]["s"]
    bad[moved] = dict(recs[moved], p={body: [500, 400, *entry[2:]]})  # on no map of this size
    (tmp_path / "r.jsonl").write_bytes(_join(bad))
    rec = read_recording(tmp_path / "r.jsonl")
    assert rec.stopped is None and rec.hide_off_map(140, 100) > 0
    assert any("off this 140 x 100 map" in n for n in rec.notes)


_ODD_VALUES = [None, True, -1, 0, 2**70, 1e308, float("inf"), float("nan"), "", "x" * 50, "2023-02-13 07:00",
               [], [1, 2], [[1, 2, "down"]] * 3, {}, {"0": [1, 2, "UUU"]}, {"a": {"b": []}}]


def _damage(rng: random.Random, raw: bytes) -> bytes:
    """One random kind of damage to a recording."""
    kind = rng.randrange(6)
    if kind == 0:  # flipped bytes
        data = bytearray(raw)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if kind == 1:  # cut off anywhere
        return raw[: rng.randrange(len(raw))]
    recs = _lines(raw)
    i = rng.randrange(len(recs))
    rec = dict(recs[i])
    if kind == 2:  # a field of the wrong type or size
        rec[rng.choice(sorted(rec))] = rng.choice(_ODD_VALUES)
    elif kind == 3:  # a huge count, a far frame or a far time
        field, value = rng.choice([("n", 10**rng.randint(3, 15)), ("s", 10**rng.randint(3, 15)),
                                   ("time", "2999-01-01 00:00:00"), ("block", 10**9), ("bodies", ["x"] * 5000)])
        rec[field] = value
    elif kind == 4:  # a line swapped with another
        j = rng.randrange(len(recs))
        recs[i], recs[j] = recs[j], recs[i]
        return _join(recs)
    else:  # a line that is not what it seems
        recs.insert(i, rng.choice(["[" * 100_000 + "]" * 100_000, "[1, 2]", '{"k": "m"}', "\x00\xff", "null"]))
        return _join(recs)
    recs[i] = rec
    return _join(recs)


@pytest.mark.parametrize("seed", range(4))
def test_fuzzed_recordings_load_what_they_can_or_say_why(tmp_path, recording, seed):
    rng = random.Random(seed)
    loaded = 0
    for _ in range(60):
        loaded += _check(tmp_path / "r.jsonl", _damage(rng, recording)) is not None
    assert loaded > 0  # most damage leaves something to play


@pytest.mark.slow
def test_many_fuzzed_recordings(tmp_path, recording):
    rng = random.Random(1234)
    for _ in range(2000):
        _check(tmp_path / "r.jsonl", _damage(rng, recording))
