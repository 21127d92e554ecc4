"""Headless runs (`smallville sim`): a scripted-fake run of the whole town, and
an end-to-end run with the real embedded model (slow)."""
from __future__ import annotations

import importlib.util
import json
import time
from argparse import Namespace
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import pytest

from game.headless import economy_text, parse_start, select_residents
from game.support.errors import UserError

REPO = Path(__file__).resolve().parent.parent
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
START = datetime(2023, 2, 13, 7, 0)

HAVE_MINDS = importlib.util.find_spec("agents.mind.core") is not None
needs_minds = pytest.mark.skipif(not HAVE_MINDS, reason="agents.mind (the minds) is not written yet")
needs_map = pytest.mark.skipif(not MAP.exists(), reason=f"{MAP.relative_to(REPO)} is not built yet")


class P:
    def __init__(self, name):
        self.name = name


CAST = [P("Isabella Rodriguez"), P("Maria Lopez"), P("Klaus Mueller")]


def test_select_residents_by_count_and_name():
    assert [p.name for p in select_residents(CAST, 2)] == ["Isabella Rodriguez", "Maria Lopez"]
    assert [p.name for p in select_residents(CAST, None, "klaus mueller, Isabella Rodriguez")] == [
        "Klaus Mueller",
        "Isabella Rodriguez",
    ]
    assert len(select_residents(CAST)) == 3


def test_unknown_resident_names_list_the_known_ones():
    with pytest.raises(UserError) as err:
        select_residents(CAST, None, "Isabella Rodriguez,Bob Nobody")
    msg = str(err.value)
    assert "Bob Nobody" in msg and "Known residents: Isabella Rodriguez, Maria Lopez, Klaus Mueller" in msg
    with pytest.raises(UserError):
        select_residents(CAST, 4)
    with pytest.raises(UserError):
        parse_start("tomorrow morning", START)
    assert parse_start("2023-02-14 06:30", START) == datetime(2023, 2, 14, 6, 30)


def _town_and_cast():
    from agents.residents.persona import load_cast
    from game.world.map_reader import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    return town, cast, scenario




def _read_jsonl(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


@needs_minds
@needs_map
def test_scripted_run_of_all_25_for_two_sim_hours(tmp_path, capsys):
    from fakes import HashEmbedder, chatty, make_gateway

    from game.headless import run_headless

    town, cast, scenario = _town_and_cast()
    assert len(cast) == 25
    gateway = make_gateway(chatty)
    t0 = time.monotonic()
    result = run_headless(
        town, cast, start=scenario.start, hours=2, out=tmp_path / "run", scenario=scenario,
        gateway=gateway, embedder=HashEmbedder(), seed=1, progress=False,
    )
    wall = time.monotonic() - t0
    assert not result.interrupted
    for f in ("timeline.md", "events.jsonl", "llm_calls.jsonl", "summary.json"):
        assert (tmp_path / "run" / f).stat().st_size > 0, f
    events = _read_jsonl(tmp_path / "run" / "events.jsonl")
    acting = {e["resident"] for e in events if e["kind"] == "action"}
    assert acting == {p.name for p in cast}, sorted({p.name for p in cast} - acting)
    assert events == result.sim.events
    calls = _read_jsonl(tmp_path / "run" / "llm_calls.jsonl")
    assert calls and all(c["purpose"] for c in calls)
    assert {c["resident"] for c in calls} <= {p.name for p in cast} | {None}
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert set(summary["residents"]) == {p.name for p in cast}
    assert summary["totals"]["calls"] == len(calls)
    assert summary["sim_hours"] == pytest.approx(2.0, abs=0.01)
    assert summary["seed"] == 1 and summary["wall_s"] >= 0
    for r in summary["residents"].values():
        assert {"calls", "tokens", "fallbacks"} <= set(r)
    timeline = (tmp_path / "run" / "timeline.md").read_text()
    assert "## 2023-02-13" in timeline and "### 07:00" in timeline
    out = capsys.readouterr().out
    assert "calls/day" in out and "Isabella Rodriguez" in out
    print(f"\n25 residents x 2 sim hours (scripted model): {wall:.1f} s wall, {len(calls)} calls, {len(events)} events")


@needs_minds
@needs_map
@pytest.mark.parametrize("stepping", ["--lockstep", "--out-of-order"])
def test_ctrl_c_in_the_middle_of_a_step_writes_what_it_has_and_the_run_resumes(tmp_path, stepping):
    """The real `smallville sim` in a process of its own, sent a real SIGINT while the
    minds are working (lockstep: the main thread waits inside a step for their model
    calls; out of order: between groups' steps, and those behind are brought up to
    the others for the end save): it ends with 130, writes the run's files and an
    end save that loads, and ``--resume`` continues the run from it."""
    import signal
    import subprocess
    import sys

    from fakes import HashEmbedder, make_gateway
    from scripted_minds import plausible

    from game.headless import resume_sim
    from game.saves.store import load_state

    run = tmp_path / "run"
    worker = Path(__file__).resolve().parent / "sim_sigint_worker.py"
    proc = subprocess.Popen([sys.executable, str(worker), str(run), stepping], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # "busy": a model call is in flight
        assert line.strip() == "busy", proc.stderr.read()[-2000:] if proc.poll() is not None else line
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)  # a hang guard, not a speed test
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err[-3000:]
    if stepping == "--lockstep":
        assert "inside a step" in out  # the interrupt landed in the middle of a step
    assert "Traceback" not in err
    summary = json.loads((run / "summary.json").read_text())
    assert summary["interrupted"] and summary["save"] and 0 < summary["steps"] < 6 * 360
    assert _read_jsonl(run / "events.jsonl") and (run / "timeline.md").read_text().strip()
    _parts, info = load_state(Path(summary["save"]), require=("sim", "session"))
    assert info.sim_time is not None and sorted(info.residents) == sorted(summary["residents"])
    # and the run goes on from the end save
    args = Namespace(resume=str(run), hours=0.1, map=str(MAP), autosave_min=10, model=None, api_base=None,
                     concurrency=None, cache=None, seed=0, agents=None, residents=None)
    assert resume_sim(args, gateway=make_gateway(plausible, via_litellm=False), embedder=HashEmbedder(64),
                      progress=False, echo=None) == 0
    resumed = json.loads((run / "summary.json").read_text())
    assert not resumed["interrupted"] and resumed["steps"] > summary["steps"]


def test_economy_text_lists_every_resident():
    summary = {
        "sim_hours": 2.0,
        "wall_s": 3.0,
        "residents": {
            "A B": dict(calls=10, tokens=1000, calls_per_sim_day=120.0, tokens_per_sim_day=12000.0,
                        model_led_share=0.97, reflections_per_sim_day=2.5, fallbacks={"day plan: invalid answer": 1}),
        },
        "totals": dict(calls=10, tokens=1000, calls_per_resident_per_sim_day=120.0,
                       tokens_per_resident_per_sim_day=12000.0, fallback=1, model_led_share=0.97),
    }
    text = economy_text(summary)
    assert "A B" in text and "120.0" in text and "calls/day" in text
    assert "97%" in text and "model-led" in text and "day plan: invalid answer x1" in text


@needs_minds
@needs_map
def test_main_sim_cli_with_unknown_resident(tmp_path, monkeypatch, capsys):
    from smallville.cli import main

    monkeypatch.chdir(tmp_path)
    code = main(["sim", "--map", str(MAP), "--residents", "Nobody Here", "--hours", "0.1",
                 "--out", str(tmp_path / "x")])
    assert code == 2
    assert "Known residents: Isabella Rodriguez" in capsys.readouterr().err


@needs_map
def test_sim_refuses_an_out_folder_that_holds_a_run(tmp_path, monkeypatch, capsys):
    """--out on an earlier run's folder truncated its events and rotated its saves away:
    refused by name, with what to do instead, and the old run left as it was."""
    from smallville.cli import main

    monkeypatch.chdir(tmp_path)
    run = tmp_path / "runs" / "old"
    (run / "saves").mkdir(parents=True)
    (run / "events.jsonl").write_text('{"kind": "action"}\n')
    code = main(["sim", "--map", str(MAP), "--agents", "1", "--hours", "0.1", "--model", "scripted/competent",
                 "--out", str(run)])
    assert code == 2
    err = capsys.readouterr().err
    assert str(run) in err and "--resume" in err and "already holds a run" in err
    assert (run / "events.jsonl").read_text() == '{"kind": "action"}\n'


# ---------------------------------------------------------------------------- the real model


def _arena(addr):
    return ":".join(addr.split(":")[:3]) if addr else ""


@pytest.mark.slow
@needs_minds
@needs_map
def test_real_embedded_model_three_residents_two_hours(real_run):
    _out, result, town, people = real_run
    wall = result.wall_s
    assert not result.interrupted
    events = result.sim.events
    by = defaultdict(list)
    for e in events:
        if e["kind"] == "action":
            by[e["resident"]].append(e)
    known = set(town.addresses())
    from agents.support.types import Action
    from game.sim import is_sleep

    for p in people:
        acts = by[p.name]
        assert acts, f"{p.name} never acted"
        awake = [a for a in acts if not is_sleep(Action(a["text"], a["address"], START, 1))]
        assert awake, f"{p.name} never woke: {[a['text'] for a in acts]}"
        assert all(a["address"] in known for a in acts), [a["address"] for a in acts]
        arenas = {_arena(a["address"]) for a in acts}
        arenas.add(_arena(town.address_at(*town.spawns[p.name])))  # where it woke up
        home_sector = ":".join(p.home.split(":")[:2])
        sensible = [a for a in awake if a["address"].startswith((home_sector, p.workplace))]
        assert sensible, f"{p.name} never acted at home or work: {arenas}"
        assert len(arenas) >= 2, f"{p.name} never changed place: {arenas}"
    s = result.summary
    assert s["stepping"]["mode"] == "out-of-order" and s["stepping"]["groups_per_step"] >= 1
    print(
        f"\nembedded model, 3 residents x 2 sim hours: {wall:.0f} s wall, {s['totals']['calls']} calls, "
        f"{s['totals']['tokens']} tokens, {s['totals'].get('fallback', 0)} fallbacks"
    )
    print(economy_text(s))
    print((result.out / "timeline.md").read_text()[:3000])
    # Its speed is `make bench`'s (lab/bench/models.py), not asserted here; that the run
    # went through the model (not only its fallbacks) is.
    assert s["totals"]["calls"] > 0 and s["totals"].get("fallback", 0) < s["totals"]["calls"]
