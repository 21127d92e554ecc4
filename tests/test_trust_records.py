"""Decision records and recordings read back bounded and checked (issue 35): a
crafted ``why.jsonl.gz`` is skipped record by record with a count, a gzip bomb stops
at a bound, and the recording reader holds one line at a time."""
from __future__ import annotations

import gzip
import json
import logging
import shutil
import tracemalloc
from pathlib import Path

import pytest
from fakes import HashEmbedder, chatty, make_gateway

from agents import why

REPO = Path(__file__).resolve().parent.parent
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")
WHO = "Isabella Rodriguez"


@pytest.fixture(scope="module")
def _made_run(tmp_path_factory):
    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.world.map_reader import load_town

    cast, scenario = load_cast(MAP.parent)
    out = tmp_path_factory.mktemp("records") / "run"
    run_headless(load_town(MAP), cast[:2], start=scenario.start, hours=0.5, out=out, scenario=scenario,
                 gateway=make_gateway(chatty), embedder=HashEmbedder(), progress=False, echo=None, autosave_min=0)
    return out


@pytest.fixture
def run(_made_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(_made_run, out)
    return out


def _crafted(at: str) -> list[str]:
    """Records as a stranger could write them, each aimed at a field a reader uses."""
    mem = {"id": 1, "total": 0.5, "scaled": [0.1, 0.2, 0.3], "recency": 1.0, "importance": 3, "relevance": 0.2}
    base = {"resident": WHO, "purpose": "decompose", "time": at, "call": None, "answer": {"x": 1}}
    bad = [
        {**base, "time": 5},
        {**base, "time": "teatime"},
        {**base, "time": [at]},
        {**base, "retrievals": "everything"},
        {**base, "retrievals": [{"query": "q", "memories": [{**mem, "id": "one"}]}]},
        {**base, "retrievals": [{"query": "q", "memories": [{**mem, "total": "high"}]}]},
        {**base, "retrievals": [{"query": "q", "memories": [{**mem, "scaled": [1]}]}]},
        {**base, "retrievals": [{"query": "q", "memories": [{**mem, "relevance": None}]}]},
        {**base, "retrievals": [{"query": "q", "memories": [{**mem, "total": 10 ** 400}]}]},
        {**base, "call": {"raw": 5}},
        {**base, "resident": {"name": WHO}},
        [1, 2, 3],
    ]
    lines = [json.dumps(d) for d in bad]
    lines.append("[" * 100_000 + "]" * 100_000)  # nested too deep for the decoder
    return lines


def test_smallville_why_skips_crafted_records_with_a_count(run, capsys):
    from smallville.cli import main

    at = json.loads((run / "events.jsonl").read_text().splitlines()[-1])["time"]
    crafted = _crafted(at.replace(" ", "T"))
    with gzip.open(run / why.FILE, "ab") as fh:  # a member added to the run's own records
        fh.write(("\n".join(crafted) + "\n").encode())
    assert main(["why", str(run), WHO, "--at", at]) == 0, capsys.readouterr().err[-2000:]
    err = capsys.readouterr().err
    assert f"{len(crafted)} damaged decision record(s) skipped" in err
    assert main(["why", str(run), WHO, "--at", at, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["resident"] == WHO


def test_every_record_the_log_writes_passes_the_check(run):
    counts: dict[str, int] = {}
    got = list(why.read_records(run / why.FILE, counts))
    assert got and counts == {"read": len(got), "skipped": 0}
    assert all(why.check_record(d) is None for d in got)


def test_a_gzip_bomb_is_read_only_up_to_its_bound(tmp_path, monkeypatch, caplog):
    """A small file that decompresses without end (here: 50 MB of records from 50 kB)
    stops at MAX_RATIO times its size, plus a slack (lowered here to keep the test small)."""
    monkeypatch.setattr(why, "SLACK_BYTES", 1 << 20)
    line = json.dumps({"resident": WHO, "purpose": "importance", "time": "2023-02-13T08:00:00"}) + "\n"
    n = (50 << 20) // len(line)
    bomb = tmp_path / why.FILE
    with gzip.open(bomb, "wb", compresslevel=9) as fh:
        for _ in range(n // 10_000):
            fh.write(line.encode() * 10_000)
    size = bomb.stat().st_size
    with caplog.at_level(logging.WARNING, logger="agents.explain.why"):
        read = sum(1 for _ in why.read_records(bomb))
    assert read * len(line) <= why.MAX_RATIO * size + why.SLACK_BYTES + len(line)
    assert read < n // 2 and "reading stopped" in caplog.text


def test_a_record_longer_than_its_limit_is_skipped_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(why, "MAX_LINE", 1000)
    good = json.dumps({"resident": WHO, "purpose": "importance", "time": "2023-02-13T08:00:00"})
    long = json.dumps({"resident": WHO, "purpose": "importance", "time": "2023-02-13T08:00:00", "pad": "x" * 5000})
    path = tmp_path / why.FILE
    path.write_bytes(gzip.compress(f"{good}\n{long}\n{good}\n".encode()))
    counts: dict[str, int] = {}
    assert len(list(why.read_records(path, counts))) == 2 and counts["skipped"] == 1


def test_the_recording_reader_holds_one_line_at_a_time(run):
    """A recording of 4 MB more (400,000 records of a kind this version does not
    know: a long game's size): read one line at a time, never the whole file."""
    from game.replay.reader import read_recording

    path = run / "recording.jsonl"
    whole = read_recording(path)
    size = 4 << 20
    with path.open("ab") as fh:
        fh.write(b'{"k":"z"}\n' * (size // 10))
    tracemalloc.start()
    try:
        got = read_recording(path)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(got.tiles) == len(whole.tiles)
    assert peak < size // 4  # the file is never held (reading it whole held it twice over)


def test_a_line_beyond_the_line_limit_is_skipped_unread(run, monkeypatch):
    from game.replay import reader

    monkeypatch.setattr(reader, "MAX_LINE", 1 << 20)
    path = run / "recording.jsonl"
    whole = reader.read_recording(path)
    with path.open("ab") as fh:
        fh.write(b"x" * (8 << 20) + b"\n")
    tracemalloc.start()
    try:
        got = reader.read_recording(path)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(got.tiles) == len(whole.tiles) and "damaged" in (got.stopped or "")
    assert peak < 6 << 20
