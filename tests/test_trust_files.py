"""Files the game writes for itself (issue 35): a damaged cache is "no cache" (one
log line, the work runs again), copies are whole or not at all, and two runs never
share a folder."""
from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from fake_openai import FakeOpenAI
from fakes import HashEmbedder, chatty, make_gateway
from pydantic import BaseModel

REPO = Path(__file__).resolve().parent.parent
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
needs_map = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")

# What a crafted or half-written cache can hold: every one of these once raised.
DAMAGE = {
    "a time that is text": lambda key: json.dumps({key: {"dialect": "json_schema", "at": "x"}}),
    "a time that is a list": lambda key: json.dumps({key: {"dialect": "json_schema", "at": [1]}}),
    "nested too deep": lambda key: "[" * 200_000 + "]" * 200_000,
    "not a table": lambda key: "[1, 2, 3]",
    "an entry that is text": lambda key: json.dumps({key: "json_schema"}),
    "not UTF-8": lambda key: b"\xff\xfe{".decode("latin-1"),
    "half a file": lambda key: json.dumps({key: {"dialect": "json_schema", "at": 1.0}})[:17],
}


class Say(BaseModel):
    text: str


@pytest.fixture
def server():
    s = FakeOpenAI("cache")
    yield s
    s.kill()


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_dialect_memory_is_no_memory_and_is_written_whole_again(tmp_path, monkeypatch, caplog, server,
                                                                          damage):
    """.cache/dialects.json damaged: the calls to the server still answer, one log line
    says so, and the endpoint is remembered again, in a whole file."""
    from agents.model.config import load_config
    from agents.model.dialects import memory_key
    from agents.model.gateway import Gateway

    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path))
    cache = tmp_path / ".cache" / "dialects.json"
    cache.parent.mkdir(parents=True)
    key = memory_key("openai/m", server.api_base)
    raw = DAMAGE[damage](key)
    cache.write_bytes(raw.encode("latin-1") if damage == "not UTF-8" else raw.encode("utf-8"))
    gw = Gateway(load_config({"model": "openai/m", "api_base": server.api_base, "retries": 0, "timeout": 10},
                             env={}, toml_path=None))
    with caplog.at_level(logging.WARNING, logger="agents.model.dialects"):
        for i in range(3):
            value, why = gw.ask_traced(Say, f"hi {i}", purpose="t", fallback=Say(text="F"))
            assert why is None and value.text == "hello from cache", (damage, why)
    assert caplog.text.count("dialects.json") == 1, caplog.text
    assert json.loads(cache.read_text(encoding="utf-8"))[key]["dialect"]  # remembered again


RATES_DAMAGE = {
    "text for a number": {"M": {"resident_hours": "x", "day_starts": 1}},
    "a list for a table": {"M": {"resident_hours": 2, "day_starts": 1, "day": [], "hour": 3}},
    "infinite": {"M": {"resident_hours": 1e999, "day_starts": 1}},
    "not a table": [1, 2],
    "an entry that is text": {"M": "fast"},
    "a table of text": {"M": {"resident_hours": 2, "day_starts": 1, "day": {"calls": "many"}, "hour": {}}},
}


def _write_rates(path: Path, damage: str, model: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(json.dumps(RATES_DAMAGE[damage]).replace('"M"', json.dumps(model)).replace(
        "Infinity", "1e999"))
    path.write_text(json.dumps(data).replace("Infinity", "1e999"), encoding="utf-8")


@needs_map
@pytest.mark.parametrize("damage", list(RATES_DAMAGE))
def test_a_damaged_forecast_rates_file_stops_no_run_and_is_written_whole_again(tmp_path, monkeypatch, caplog,
                                                                               damage):
    """.cache/forecast_rates.json damaged: the run starts (its forecast from the defaults),
    ends with its summary and timeline, and the file is whole again, with its measurement."""
    import lab.competent  # noqa: F401 - registers scripted/competent
    from agents.model.config import ModelConfig
    from agents.model.gateway import Gateway
    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.runs import forecast
    from game.world.map_reader import load_town

    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path))
    monkeypatch.setattr(forecast, "_warned", set())
    rates = tmp_path / ".cache" / "forecast_rates.json"
    _write_rates(rates, damage, "scripted/competent")
    cfg = ModelConfig(model="scripted/competent", embedding_cache=None)
    with caplog.at_level(logging.WARNING, logger="game.runs.forecast"):
        assert "default" in forecast.forecast(cfg, residents=1, hours=1, start=forecast.datetime(2023, 2, 13, 7)).basis
        cast, scenario = load_cast(MAP.parent)
        out = tmp_path / "run"
        run_headless(load_town(MAP), cast[:1], start=scenario.start, hours=0.5, out=out, scenario=scenario,
                     gateway=Gateway(cfg), embedder=HashEmbedder(), progress=False, echo=None, autosave_min=None)
    assert (out / "summary.json").exists() and (out / "timeline.md").read_text().strip()
    assert caplog.text.count("forecast_rates.json") == 1, caplog.text
    assert json.loads(rates.read_text())["scripted/competent"]["runs"] == 1  # measured afresh, the file whole


def test_sim_dry_run_with_a_damaged_rates_file_is_a_real_process_that_starts(tmp_path):
    home = tmp_path / "home"
    _write_rates(home / ".cache" / "forecast_rates.json", "a list for a table", "smallville/smollm2-135m")
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("SMALLVILLE_")}
    env.update(SMALLVILLE_HOME=str(home), PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "smallville", "sim", "--dry-run", "--hours", "1", "--agents", "1"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "forecast: ~" in proc.stderr and "unexpected error" not in proc.stderr


# ------------------------------------------------------------------ copies whole or not at all

def test_a_history_save_that_cannot_be_copied_keeps_the_one_kept_before(tmp_path):
    """The replay's history: the old file was unlinked before the new one was linked or
    copied, so a copy that failed lost both."""
    from datetime import datetime

    from game.runs.recording import HISTORY_NAME, SaveHistory
    from game.saves.store import save_state

    folder = tmp_path / "history"
    history = SaveHistory(folder)
    when = datetime(2023, 2, 13, 9)
    folder.mkdir()
    kept = folder / f"{when:{HISTORY_NAME}}.sqlite"
    save_state(kept, {"clock": {"n": 1}}, {})
    before = kept.read_bytes()
    gone = SimpleNamespace(sim_time=when, path=tmp_path / "autosave-that-was-rotated-away.sqlite")
    assert history.keep(gone) is None
    assert kept.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == [kept.name]  # no temporary file left


def test_an_atomic_copy_that_fails_leaves_the_target_and_no_temporary(tmp_path):
    from game.saves.store import copy_atomically, save_state

    target = tmp_path / "start.sqlite"
    save_state(target, {"clock": {"n": 1}}, {})
    before = target.read_bytes()
    (tmp_path / "a folder").mkdir()
    for src in (tmp_path / "missing.sqlite", tmp_path / "a folder"):
        with pytest.raises(OSError):
            copy_atomically(src, target)
        assert target.read_bytes() == before
    src = tmp_path / "new.sqlite"
    save_state(src, {"clock": {"n": 2}}, {})
    copy_atomically(src, target)
    assert target.read_bytes() == src.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a folder", "new.sqlite", "start.sqlite"]


@needs_map
def test_fork_copies_its_start_save_whole(tmp_path, monkeypatch):
    """fork's start.sqlite is written as a save is: no partial file under its name, ever
    (the copy goes through a temporary beside it)."""
    from argparse import Namespace

    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.saves.store import read_info
    from game.world.map_reader import load_town
    from lab.experiment import fork

    cast, scenario = load_cast(MAP.parent)
    run = tmp_path / "run"
    run_headless(load_town(MAP), cast[:2], start=scenario.start, hours=0.1, out=run, scenario=scenario,
                 gateway=make_gateway(chatty), embedder=HashEmbedder(), progress=False, echo=None, autosave_min=0)
    copies = []
    real = fork.copy_atomically

    def watch(src, dst, **kw):
        copies.append(Path(dst).name)
        return real(src, dst, **kw)

    monkeypatch.setattr(fork, "copy_atomically", watch)
    args = Namespace(source=str(run), at=None, hours=0.1, branches=1, seed=0, whisper=[["Isabella Rodriguez", "hi"]],
                     event=None, remove=None, add_persona=None, model=None, cache=None, out=str(tmp_path / "exp"),
                     workers=1, ray=None, map=str(MAP), max_cost=None, max_tokens=None)
    fork.main_fork(args, echo=lambda s: None, run=lambda spec: {"name": spec["name"], "run": spec["out"]})
    (start,) = (tmp_path / "exp").rglob("start.sqlite")
    assert copies == ["start.sqlite"] and read_info(start).ok
    assert not [p for p in start.parent.iterdir() if p.name.startswith(".saving-")]


# ------------------------------------------------------------------ a run folder of its own

def test_runs_started_in_the_same_second_never_share_a_folder(tmp_path, monkeypatch):
    from game.headless import claim_run_folder

    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path))
    got: list[Path] = []
    go = threading.Barrier(6)

    def claim():
        go.wait()
        got.append(claim_run_folder(None))

    threads = [threading.Thread(target=claim) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(got)) == 6 and all(p.parent == tmp_path / "runs" for p in got)
    assert all((p / "events.jsonl").exists() for p in got)


def test_a_given_out_folder_is_claimed_once(tmp_path):
    from game.headless import claim_run_folder
    from game.support.errors import UserError

    out = tmp_path / "mine"
    assert claim_run_folder(out) == out
    with pytest.raises(UserError, match="already holds a run"):
        claim_run_folder(out)
