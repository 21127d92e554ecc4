"""The forecast (calls, tokens, wall time, money before a run starts, from measured
per-resident rates kept per model) and the ceiling (--max-cost / --max-tokens
stop a run cleanly, with its end save): game/runs/forecast.py and its hooks in
game/headless.py."""
from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

import lab.competent  # noqa: F401 - registers scripted/competent
from agents.model.accounting import Accounting, CallRecord
from agents.model.config import ModelConfig
from agents.model.gateway import Gateway
from agents.residents.persona import load_cast
from game.headless import run_headless
from game.runs import forecast
from game.runs.forecast import Ceiling, day_starts, learn, rates_for
from game.world.map_reader import load_town

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "maps" / "the_ville" / "the_ville.tmx"
START = datetime(2023, 2, 13, 7, 0)


def _summary(by_purpose: dict[str, tuple[int, int, int]]) -> dict:
    return {"by_purpose": {p: {"calls": c, "prompt_tokens": pt, "completion_tokens": ct}
                           for p, (c, pt, ct) in by_purpose.items()}}


def test_day_starts_count_a_new_runs_planning_and_each_morning_it_passes():
    assert day_starts(START, 2, fresh=True) == 1
    assert day_starts(START, 2, fresh=False) == 0
    assert day_starts(START, 24, fresh=True) == 2  # and the next morning at 06:00
    assert day_starts(datetime(2023, 2, 13, 22), 10, fresh=False) == 1


def test_learned_rates_split_the_days_start_from_the_hours_and_forecast_from_them(tmp_path):
    rates = tmp_path / "rates.json"
    after = _summary({"day_plan": (4, 4000, 2000), "summary": (4, 800, 200), "decompose": (16, 8000, 800)})
    learn("scripted/x", None, after, residents=4, hours=2, start=START, fresh=True, wall_s=8, path=rates)
    r = rates_for("scripted/x", rates)
    assert r.day == {"calls": 2.0, "prompt_tokens": 1200.0, "completion_tokens": 550.0}
    assert r.hour == {"calls": 2.0, "prompt_tokens": 1000.0, "completion_tokens": 100.0}
    assert r.wall_s_per_resident_hour == 1.0 and "measured over 1 run" in r.basis
    f = forecast.forecast(ModelConfig(model="scripted/x", embedding_cache=None), residents=10, hours=3,
                          start=datetime(2023, 2, 13, 12), fresh=False, path=rates)
    assert (f.calls, f.prompt_tokens, f.completion_tokens) == (60, 30000, 3000)  # no morning in 12:00-15:00
    assert f.free and f.cost_usd == 0.0 and f.wall_s == 30.0
    assert "~60 calls" in f.line() and "free" in f.line()
    # A resumed run's earlier calls are not its own: only the difference is learned.
    learn("scripted/x", after, after, residents=4, hours=2, start=START, fresh=False, wall_s=8, path=rates)
    assert json.loads(rates.read_text())["scripted/x"]["runs"] == 2


def test_a_model_never_measured_gets_its_kinds_default_and_says_so(tmp_path):
    f = forecast.forecast(ModelConfig(model="smallville/smollm2-135m", embedding_cache=None), residents=3, hours=2,
                          start=START, path=tmp_path / "none.json")
    assert f.calls > 0 and f.free and "default for embedded models" in f.line()


def test_a_damaged_rates_file_falls_back_to_the_defaults_and_is_rewritten_by_the_next_run(tmp_path):
    rates = tmp_path / "rates.json"
    rates.write_text("{not json")
    assert "default" in rates_for("scripted/competent", rates).basis
    learn("scripted/competent", None, _summary({"react": (3, 300, 30)}), residents=1, hours=1, start=START,
          fresh=False, wall_s=1, path=rates)
    assert rates_for("scripted/competent", rates).hour["calls"] == 3.0


def test_a_hosted_model_is_priced_from_litellms_local_cost_map(tmp_path):
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    cfg = ModelConfig(model="gpt-4o-mini", embedding_cache=None)
    f = forecast.forecast(cfg, residents=25, hours=24, start=START, path=tmp_path / "r.json")
    assert not f.free and f.cost_usd is not None and f.cost_usd > 0
    assert f"${f.cost_usd:,.2f}" in f.line()
    unknown = forecast.forecast(ModelConfig(model="openai/no-such-model-xyz", embedding_cache=None), residents=1,
                                hours=1, start=START, path=tmp_path / "r.json")
    assert unknown.cost_usd is None and "price unknown" in unknown.line()


def test_the_ceiling_counts_from_the_runs_start_and_rejects_nonsense():
    acc = Accounting()
    acc.record(CallRecord(time=0, model="m", purpose="p", prompt_tokens=500, completion_tokens=500, cost_usd=1.0))
    c = Ceiling(max_tokens=1500, max_cost=2.5)
    c.start(acc)  # a resumed run: what the save had spent is not counted again
    acc.record(CallRecord(time=0, model="m", purpose="p", prompt_tokens=700, completion_tokens=700, cost_usd=1.0))
    assert c.reached(acc) is None
    acc.record(CallRecord(time=0, model="m", purpose="p", prompt_tokens=50, completion_tokens=50, cost_usd=0.1))
    assert "token ceiling (1,500)" in c.reached(acc)
    with pytest.raises(ValueError, match="--max-tokens must be more than 0"):
        Ceiling(max_tokens=0)
    with pytest.raises(ValueError, match="--max-cost"):
        Ceiling(max_cost=-1.0)


def _run(out, names, hours, *, ceiling=None, seed=0):
    cast, scenario = load_cast(MAP.parent)
    people = [p for p in cast if p.name in names]
    gw = Gateway(ModelConfig(model="scripted/competent", embedding_cache=None))
    return run_headless(load_town(MAP), people, start=scenario.start, hours=hours, out=out, scenario=scenario,
                        gateway=gw, progress=False, echo=None, autosave_min=None, seed=seed, ceiling=ceiling)


def test_a_token_ceiling_stops_the_run_cleanly_with_an_end_save(tmp_path):
    res = _run(tmp_path / "run", ["Isabella Rodriguez", "Maria Lopez"], 2, ceiling=Ceiling(max_tokens=3000))
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert "token ceiling (3,000)" in s["stopped"]
    assert s["sim_hours"] < 2 and not res.interrupted
    assert 3000 <= s["totals"]["tokens"] < 3000 + 6000  # stopped on the step that crossed it
    assert (tmp_path / "run" / "saves" / "end.sqlite").exists()


def test_the_forecast_of_a_two_hour_scripted_run_is_within_30_percent(tmp_path, monkeypatch):
    """Rates learned from one run (other residents, 3 sim hours) forecast a 2-hour run
    of four others; the forecast is checked against what that run then used."""
    rates = tmp_path / "rates.json"
    monkeypatch.setattr(forecast, "rates_path", lambda folder=None: rates)
    _run(tmp_path / "learn", ["Klaus Mueller", "Ayesha Khan", "Wolfgang Schulz"], 3)
    assert json.loads(rates.read_text())["scripted/competent"]["runs"] == 1
    names = ["Isabella Rodriguez", "Maria Lopez", "Sam Moore", "Jennifer Moore"]
    f = forecast.forecast(ModelConfig(model="scripted/competent", embedding_cache=None), residents=len(names),
                          hours=2, start=START, fresh=True)
    actual = _run(tmp_path / "two", names, 2, seed=1).summary["totals"]
    print(f"forecast {f.calls} calls / {f.tokens} tokens; actual {actual['calls']} / {actual['tokens']}")
    assert abs(f.calls - actual["calls"]) <= 0.3 * actual["calls"]
    assert abs(f.tokens - actual["tokens"]) <= 0.3 * actual["tokens"]


def test_sim_dry_run_prints_the_forecast_and_runs_nothing(tmp_path, capsys):
    from smallville.cli import main

    out = tmp_path / "never"
    code = main(["sim", "--map", str(MAP), "--agents", "3", "--hours", "2", "--model", "scripted/competent",
                 "--dry-run", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0 and "forecast: ~" in err and "calls" in err and "tokens" in err and "wall" in err
    assert not out.exists()
    assert main(["sim", "--map", str(MAP), "--agents", "1", "--hours", "1", "--model", "scripted/competent",
                 "--max-tokens", "0", "--out", str(out)]) == 2
    assert "--max-tokens must be more than 0" in capsys.readouterr().err


def test_the_games_start_line_is_worked_out_off_the_main_thread(tmp_path):
    import threading

    said: list[str] = []
    main = threading.get_ident()
    where: list[int] = []

    def say(line):
        where.append(threading.get_ident())
        said.append(line)

    t = forecast.announce_in_background(ModelConfig(model="scripted/competent", embedding_cache=None), 25, say)
    t.join(10)
    assert said and where[0] != main
    assert "25 residents" in said[0] and "per sim hour" in said[0] and "a sim day" in said[0]


def test_a_rates_file_that_cannot_be_written_never_stops_a_run_and_short_runs_teach_nothing(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    after = _summary({"react": (3, 300, 30)})
    assert learn("m/x", None, after, residents=1, hours=1, start=START, fresh=False, wall_s=1,
                 path=blocker / "rates.json") is None
    rates = tmp_path / "rates.json"
    assert learn("m/x", None, after, residents=3, hours=10 / 3600, start=START, fresh=True, wall_s=1,
                 path=rates) is None  # one step: its morning planning would pass for an hour's rate
    assert not rates.exists()
