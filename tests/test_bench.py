"""`smallville bench`: the runner writes results.json and results.md, and one
broken or skipped benchmark is recorded without stopping the others. (No
timings are asserted: figures depend on the machine.)"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import ClassVar

import pytest

from game.support.errors import UserError
from lab.bench import economy, report, runner
from lab.bench.measure import Context, Skipped, percentile
from smallville.cli import main

REPO = Path(__file__).resolve().parent.parent
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"


@pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")
def test_quick_astar_and_retrieval_write_json_and_markdown(tmp_path):
    out = tmp_path / "bench" / "results.json"
    assert main(["bench", "--quick", "--only", "astar,retrieval", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["quick"] is True
    for key in ("date", "machine", "load_before", "load_after", "results", "goals"):
        assert key in doc
    m = doc["machine"]
    for key in ("cpu", "cores", "ram_gib", "python", "versions"):
        assert key in m
    assert "numpy" in m["versions"] and "pygame-ce" in m["versions"]
    assert list(doc["results"]) == ["astar", "retrieval"]
    a = doc["results"]["astar"]
    assert a["status"] == "ok", a
    for key in ("median_ms", "p90_ms", "p99_ms", "paths", "median_path_tiles"):
        assert key in a["figures"]
    assert a["figures"]["unreachable"] == 0
    assert a["figures"]["median_path_tiles"] >= 80  # long paths
    r = doc["results"]["retrieval"]
    assert r["status"] == "ok", r
    for key in ("ms_1k", "ms_10k", "ms_100k", "ratio_100k_vs_1k", "scan_floor_ms_100k", "ratio_100k_vs_floor",
                "scan_kernel", "speedup_vs_loop_1k", "speedup_vs_loop_100k"):
        assert key in r["figures"]
    assert r["figures"]["scan_kernel"] in ("float32", "int8")
    md = out.with_suffix(".md").read_text()
    assert "| benchmark | figure | value | goal | met? |" in md
    assert "retrieval at 100k / that floor" in md and "<= 1.50 x" in md and ">= 100 x" in md
    assert r["figures"]["embedding_mb_100k"] == 153.6
    assert "A* long path" in md
    assert m["cpu"] in md


def test_a_failing_benchmark_is_recorded_not_fatal(tmp_path, monkeypatch):
    def boom(ctx):
        raise RuntimeError("kaput")

    def absent(ctx):
        raise Skipped("game.saves is not written yet")

    def fine(ctx):
        return {"p50_ms": 1.0, "p99_ms": 20.0, "note": "a fake"}

    monkeypatch.setattr(runner, "BENCHMARKS", {"boom": boom, "saves": absent, "frame": fine})
    out = tmp_path / "results.json"
    code = main(["bench", "--only", "boom,saves,frame", "--out", str(out)])
    assert code == 1  # a broken benchmark shows in the exit status, after everything ran
    doc = json.loads(out.read_text())
    res = doc["results"]
    assert res["boom"]["status"] == "error" and "kaput" in res["boom"]["error"]
    assert "RuntimeError" in res["boom"]["traceback"]
    assert res["saves"]["status"] == "skipped" and "not written" in res["saves"]["reason"]
    assert res["frame"]["status"] == "ok" and res["frame"]["figures"]["p99_ms"] == 20.0
    assert res["frame"]["note"] == "a fake"
    md = out.with_suffix(".md").read_text()
    assert "| boom | error: RuntimeError: kaput |" in md
    assert "| saves | skipped: game.saves is not written yet |" in md
    assert "| frame | frame time p99 (25 residents, minds busy) | 20.0 ms | <= 16.7 ms | **no** |" in md
    assert "| frame | frame time p50 (25 residents, minds busy) | 1.00 ms | — | — |" in md


def test_only_rejects_unknown_names_and_percentiles_interpolate():
    with pytest.raises(UserError, match="known: astar"):
        runner.parse_only("astar,warp")
    assert runner.parse_only(None) == [n for n in runner.BENCHMARKS if n != "scale"]  # hours: only when named
    assert runner.parse_only("scale") == ["scale"]
    assert runner.parse_only("retrieval, astar,retrieval") == ["retrieval", "astar"]
    assert percentile([1, 2, 3, 4, 5], 50) == 3
    assert percentile([0, 10], 90) == pytest.approx(9.0)
    assert report.goal_met(4.0, ("<=", 5.0)) is True
    assert report.goal_met(6.0, ("<=", 5.0)) is False
    assert report.goal_met(6.0, None) is None


def test_economy_reads_a_run_folder(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    summary = {
        "model": "embedded", "planning": "guided", "sim_hours": 24.0, "start": "2023-02-13 07:00", "wall_s": 100.0,
        "residents": {"A": {"calls_per_sim_day": 100.0, "tokens_per_sim_day": 40000.0, "reflections_per_sim_day": 2,
                            "fallbacks": {"day plan: invalid answer": 1}},
                      "B": {"calls_per_sim_day": 140.0, "tokens_per_sim_day": 50000.0, "reflections_per_sim_day": 3,
                            "fallbacks": {"day plan: invalid answer": 2, "line: model error (timeout)": 1}}},
        "totals": {"calls": 240, "tokens": 90000, "fallback": 4, "model_led_share": 0.8},
    }
    (run / "summary.json").write_text(json.dumps(summary))
    out = economy.bench_economy(Context(economy_run=str(run)))
    assert out["guided_calls_per_resident_per_sim_day"] == 120.0  # 240 calls / 2 residents / 1 day
    assert out["guided_tokens_per_resident_per_sim_day"] == 45000.0
    assert out["guided_max_resident_calls_per_sim_day"] == 140.0
    assert out["guided_model_led_share"] == 0.8 and out["guided_reflections_per_resident_per_sim_day"] == 2.5
    assert out["guided_fallbacks"] == {"day plan: invalid answer": 3, "line: model error (timeout)": 1}
    with pytest.raises(UserError):
        economy.bench_economy(Context(economy_run=str(tmp_path / "nowhere")))


def test_the_side_by_side_loop_ranks_like_the_stream():
    """The per-node loop the retrieval bench compares with computes the same formula."""
    from datetime import datetime, timedelta

    import numpy as np

    from agents.recall.memory import MemoryStream
    from lab.bench.retrieval import per_node_retrieve

    rng = np.random.default_rng(3)
    start = datetime(2023, 2, 13, 7)
    s = MemoryStream("m", 16)
    vecs = rng.standard_normal((300, 16)).astype(np.float32)
    for i in range(300):
        s.add("observation", f"m{i}", start + timedelta(minutes=7 * i), 1 + (i * 7) % 10, vecs[i])
    q = rng.standard_normal(16).astype(np.float32)
    now = start + timedelta(hours=40)
    assert per_node_retrieve(s, q, now, 300) == [n.id for n in s.retrieve(q, now, k=12, touch=False)]


def test_the_soak_records_each_sim_hour_and_finds_slopes(tmp_path):
    from types import SimpleNamespace

    from lab.bench import soak

    assert soak.slope_per_day([1, 2, 3], [10, 11, 12]) == pytest.approx(24.0)
    assert soak.slope_per_day([1], [5]) == 0.0
    assert soak.rss_mb() > 10
    (tmp_path / "saves").mkdir()
    (tmp_path / "saves" / "autosave-1.sqlite").write_bytes(b"x" * 2_000_000)
    sim = SimpleNamespace(now=datetime_at(8), minds={"a": SimpleNamespace(memory=[1, 2, 3])}, events=[{}] * 5,
                          paths=SimpleNamespace(stats=SimpleNamespace(max_ms=1.5)))
    rec = soak._Recorder(tmp_path / "saves")
    for _ in range(1 + 2 * soak.STEPS_PER_HOUR):  # the first step starts the clock
        rec(sim)
    assert [r["hour"] for r in rec.rows] == [1, 2]
    row = rec.rows[0]
    assert row["memories"] == 3 and row["events_total"] == 5 and row["save_mb"] == 2.0 and row["path_ms_max"] == 1.5
    assert row["step_ms"] >= 0 and row["rss_mb"] > 0


def datetime_at(hour):
    from datetime import datetime

    return datetime(2023, 2, 13, hour)


@pytest.mark.slow
def test_the_gc_bench_measures_what_the_freeze_holds_and_leaves_the_collector_as_it_was(tmp_path, monkeypatch):
    import gc

    from lab.bench import gcheld, headless_run
    from lab.bench.measure import Context

    monkeypatch.setattr(headless_run, "ROOT", tmp_path)
    before = (gc.get_threshold(), gc.get_freeze_count())
    out = gcheld.bench_gcheld(Context(quick=True))
    assert out["residents"] == 5 and out["freezes"] >= 2  # at install, and once the town was built
    assert out["frozen_objects"] > 10_000 and out["held_garbage_objects"] >= 0 and out["full_collection_ms"] > 0
    assert (gc.get_threshold(), gc.get_freeze_count()) == before  # the policy is uninstalled


def test_simspeed_reports_how_busy_the_model_was_and_the_bound_it_sets(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from lab.bench import frame_real
    from lab.bench.measure import Context

    class Pool:  # two instances that answered for 900 s in all, 300 s of it during the run
        size = 2
        spent: ClassVar[list[float]] = [600.0, 1500.0]

        def busy_s(self):
            return self.spent.pop(0)

    monkeypatch.setattr(frame_real, "_need_embedded_model", lambda: None)
    monkeypatch.setattr(frame_real.local_model, "model", lambda: Pool())
    monkeypatch.setattr(frame_real, "run_folder", lambda name: tmp_path / name)
    summary = {"wall_s": 600.0, "totals": {"calls": 50, "tokens": 20_000}}
    asked: list[dict] = []
    monkeypatch.setattr(frame_real, "run_town", lambda *a, **k: asked.append(k) or SimpleNamespace(summary=summary))
    out = frame_real.bench_simspeed(Context(quick=True))  # 5 residents, 1 sim hour
    assert asked[0]["out_of_order"] is True and "out of order" in out["note"]  # as smallville sim steps
    assert out["sim_speed_x"] == 6.0  # 3600 sim s in 600 s
    assert out["model_instances"] == 2
    assert out["model_busy_share"] == 0.75  # 900 s of answering over 2 x 600 s
    assert out["model_bound_x"] == 8.0  # 3600 sim s over 450 s of answering per instance
    assert out["calls_per_resident_per_sim_day"] == 240.0  # 50 calls / 5 residents / (1/24) day


@pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")
def test_play_real_asks_residents_through_the_real_loop_and_reports_each_phase(monkeypatch):
    """bench_play_real in quick mode on a scripted model: 3 residents, two short phases
    (one and two model instances), the visitor's questions answered in the chat window."""
    from types import SimpleNamespace

    from agents import local_model
    from game.runs.session import Session
    from lab.bench import play_real
    from tests.fakes import HashEmbedder, make_gateway
    from tests.scripted_minds import plausible

    def respond(purpose, messages, schema):
        if purpose == "respond":
            return {"answer": "I run the cafe, and I love it."}
        return plausible(purpose, messages, schema)

    def small_town(ctx):
        session = Session.create(ctx.map_path, agents=3, seed=ctx.seed, visitor_name=play_real.VISITOR,
                                 gateway=make_gateway(respond, via_litellm=False), embedder=HashEmbedder(64))
        if not hasattr(session, "pace_status"):  # the pacing API, until the game has it
            session.pace_status = lambda: SimpleNamespace(pace="minds", chosen=1.0, reached=0.5, lag_min=3.0,
                                                          holding=["Isabella Rodriguez"], limited=True)
        if not hasattr(session.sim, "late"):
            session.sim.late = lambda minutes=15: []
        return session

    monkeypatch.setattr(play_real, "_need_embedded_model", lambda: None)
    monkeypatch.setattr(play_real, "warm_up", lambda: pytest.importorskip("litellm"))  # not the embedded model
    monkeypatch.setattr(play_real, "open_session", small_town)
    monkeypatch.setattr(play_real, "PHASE_S", (240.0, 1.5))
    monkeypatch.setattr(play_real, "ASK_EVERY_S", (60.0, 0.4))
    monkeypatch.setattr(play_real, "FIRST_ASK_S", 0.1)
    monkeypatch.setattr(play_real, "WINDOW_S", (480.0, 1.5))
    size = local_model.model().size
    out = play_real.bench_play_real(Context(quick=True))
    assert local_model.model().size == size  # the process's model pool as it was
    assert out["residents"] == 3 and out["phase_s"] == 1.5
    assert "NAME, what do you do for a living?" in out["note"]
    xvfb = shutil.which("Xvfb") is not None
    if xvfb:  # the real-window phase: an X window on a virtual screen, SDL's x11 driver
        assert out["window_xvfb"].startswith("Xvfb :") and "SDL driver x11" in out["window_xvfb"], out["window_xvfb"]
        assert out["clock_slowest_5min_first8_s_xvfb"] is None or out["clock_slowest_5min_first8_s_xvfb"] > 0
    else:
        assert out["window_xvfb"].startswith("skipped: Xvfb is not installed")
    rows = [key for bench, key, *_ in report.HEADLINES if bench == "play_real"]
    missing = [key for key in rows if key not in out and (xvfb or not key.endswith("_xvfb"))]
    assert not missing, missing  # every row of the table names a figure the benchmark reports
    for tag in ("_1inst", "_2inst", *(["_xvfb"] if xvfb else [])):
        asked = out[f"questions_asked{tag}"]
        assert out[f"questions{tag}"] == len(asked) >= 2, asked
        # Only the last question may go unanswered: on a loaded machine it can be asked as the phase ends.
        answered = [a for a in asked if a["wait_s"] is not None]
        assert out[f"chats_lost{tag}"] == 0 and out[f"unanswered{tag}"] == len(asked) - len(answered)
        assert all(a["wait_s"] is not None for a in asked[:-1]), asked
        assert all(0 <= a["wait_s"] < 1.5 and a["answer"] for a in answered)  # the resident's line in the chat
        assert sum(out[f"answers_by_source{tag}"].values()) == len(answered)
        assert out[f"answer_model_share{tag}"] == 1.0 and out[f"answers_by_source{tag}"] == {"model": len(answered)}
        assert out[f"answer_p95_s_model_led{tag}"] == out[f"answer_p95_s{tag}"]
        assert len({a["resident"] for a in asked[:3]}) == min(3, len(asked))  # the least asked first
        assert 0 <= out[f"answer_p50_s{tag}"] <= out[f"answer_p95_s{tag}"] <= out[f"answer_max_s{tag}"]
        assert out[f"pace_reached{tag}"] > 0 and out[f"sim_minutes{tag}"] > 0
        assert out[f"pace_chosen{tag}"] == 1.0  # speed 1
        assert out[f"pace_status_reached_median{tag}"] is not None
        assert out[f"late_max{tag}"] is not None and out[f"late_at_end{tag}"] is not None
        assert out[f"frame_p99_ms{tag}"] >= out[f"frame_p50_ms{tag}"] > 0
        share = out[f"model_led_share{tag}"]
        assert share is None or 0 <= share <= 1
        assert out[f"sim{tag}"].startswith("07:00-")  # each phase a fresh game from the scenario's start


def test_play_real_without_xvfb_says_why_and_a_bad_window_choice_is_refused(monkeypatch):
    """No Xvfb: the real-window phase is skipped with the reason (and how to get it), not failed;
    SMALLVILLE_PLAY_REAL_WINDOW names only windows there are."""
    from lab.bench import play_real, xvfb

    monkeypatch.setattr(xvfb.shutil, "which", lambda name: None)
    ctx = Context(quick=True)
    out = play_real._real_window(ctx, 1, 0.4)
    assert out == {"window_xvfb": "skipped: Xvfb is not installed (Debian: apt-get install xvfb), so no real-window "
                                  "phase ran"}
    assert any("no real-window phase" in n for n in ctx.notes)
    monkeypatch.setenv("SMALLVILLE_PLAY_REAL_WINDOW", "xvfb,wayland")
    with pytest.raises(SystemExit, match="SMALLVILLE_PLAY_REAL_WINDOW must list dummy or xvfb"):
        play_real._windows()
    monkeypatch.setenv("SMALLVILLE_PLAY_REAL_WINDOW", " xvfb ")
    assert play_real._windows() == ("xvfb",)


def test_a_virtual_display_that_never_comes_up_is_skipped_with_what_it_printed(monkeypatch, tmp_path):
    from lab.bench import xvfb

    fake = tmp_path / "Xvfb"
    fake.write_text("#!/bin/sh\necho 'Fatal server error: no screens found' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(xvfb.shutil, "which", lambda name: str(fake))
    with pytest.raises(Skipped, match="did not start within .*no screens found"), xvfb.virtual_display((64, 64)):
        pass


def _small_sweep(tmp_path, monkeypatch, **env):
    """A scale sweep narrowed by the environment (``agents=3`` sets SMALLVILLE_SCALE_AGENTS), its
    home and run folders under ``tmp_path``."""
    from lab.bench import scale

    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path / "home"))
    for key, value in env.items():
        monkeypatch.setenv(f"SMALLVILLE_SCALE_{key.upper()}", str(value))
    monkeypatch.setattr(scale, "run_folder", lambda name: tmp_path / "runs" / name)


@pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")
def test_scale_runs_a_town_against_the_standin_server_and_keeps_every_row(tmp_path, monkeypatch):
    from lab.bench import scale

    _small_sweep(tmp_path, monkeypatch, agents=3, slots=2, hours=0.05, latency=0.02, stepping="lockstep")  # 18 steps
    old = {"stepping": "lockstep", "residents": 500, "slots": 8, "latency_s": 1.5, "sim_hours": 1.0,
           "wall_per_sim_hour_s": 600.0, "sim_speed_x": 6.0, "calls": 3000, "slot_utilisation": 0.9,
           **{f"{k}_ms_per_step_resident": 0.1 for k in ("own_cpu", "main_cpu", "perception", "pathing", "retrieval",
                                                         "embeddings", "model")}}
    (tmp_path / "scale_runs.json").write_text(json.dumps({"runs": [old]}))
    figures = scale.bench_scale(Context(out_dir=tmp_path))
    (row,) = figures["runs"]
    assert (row["residents"], row["slots"], row["steps"], row["town"]) == (3, 2, 18, "the_ville")
    assert row["calls"] > 0 and row["server_calls"] >= row["calls"]  # the real road: HTTP to the server
    assert row["server_errors"] == 0 and row["peak_in_flight"] <= 2
    assert row["own_cpu_ms_per_step_resident"] > 0 and row["perception_ms_per_step_resident"] >= 0
    assert figures["lock_3r_2s_wall_per_sim_hour_s"] == row["wall_per_sim_hour_s"]
    # the floors no stepping beats sit beside the wall time, at or under it
    assert 0 < row["floor_one_mind_s"] <= row["wall_per_sim_hour_s"] + 0.1
    assert 0 < row["floor_server_s"] <= row["wall_per_sim_hour_s"] + 0.1
    assert row["most_calls_one_resident"] >= 1 and row["groups_per_step"] == 1.0
    summary = json.loads((Path(row["folder"]) / "summary.json").read_text())
    assert summary["stepping"]["mode"] == "lockstep"  # the arm's stepping reached the run
    assert 1 <= row["waves"] <= row["calls"]
    kept = json.loads((tmp_path / "scale_runs.json").read_text())["runs"]
    assert [r["residents"] for r in kept] == [3, 500]  # the earlier run's row is kept beside this one's
    assert "| lockstep | 3 | 2 answering in 0.02 s |" in scale.scale_table(kept)  # not the sweep's 1.5 s a call


def _row(residents: int, stepping: str = "lockstep") -> dict:
    return {"stepping": stepping, "residents": residents, "slots": 8, "latency_s": 1.5, "sim_hours": 1.0,
            "wall_per_sim_hour_s": 600.0, "sim_speed_x": 6.0, "calls": 3000, "slot_utilisation": 0.9,
            **{f"{k}_ms_per_step_resident": 0.1 for k in ("own_cpu", "main_cpu", "perception", "pathing", "retrieval",
                                                          "embeddings", "model")}}


def test_scale_keeps_each_row_as_it_is_measured(tmp_path, monkeypatch):
    """Ctrl-C in the third run of a sweep: the two runs before it are in scale_runs.json."""
    from lab.bench import scale

    monkeypatch.setenv("SMALLVILLE_SCALE_AGENTS", "25,100,250")
    monkeypatch.setenv("SMALLVILLE_SCALE_SLOTS", "8")
    monkeypatch.setenv("SMALLVILLE_SCALE_STEPPING", "lockstep")
    monkeypatch.setenv("SMALLVILLE_SCALE_LATENCY", "1.5")
    monkeypatch.setenv("SMALLVILLE_SCALE_HOURS", "1")

    def run_one(ctx, stepping, residents, slots, latency, hours, servers=1):
        if residents == 250:
            raise KeyboardInterrupt
        return _row(residents, stepping)

    monkeypatch.setattr(scale, "run_one", run_one)
    with pytest.raises(KeyboardInterrupt):
        scale.bench_scale(Context(out_dir=tmp_path))
    kept = json.loads((tmp_path / "scale_runs.json").read_text())["runs"]
    assert [r["residents"] for r in kept] == [25, 100]


@pytest.mark.parametrize("text", ["[1, 2, 3]", '"runs"', '{"runs": {"a": 1}}', '{"runs": [{"stepping": "lockstep"}]}',
                                  "{not json"])
def test_scale_rows_of_another_shape_are_kept_aside_not_overwritten(tmp_path, capsys, text):
    from lab.bench import scale

    path = tmp_path / "scale_runs.json"
    path.write_text(text)
    rows = scale.merge_rows(path, [_row(25)])
    assert [r["residents"] for r in rows] == [25]
    assert json.loads(path.read_text())["runs"] == rows
    (aside,) = tmp_path.glob("scale_runs.json.damaged-*")
    assert aside.read_text() == text  # the file as it was, whole
    err = capsys.readouterr().err
    assert str(path) in err and str(aside) in err


def test_scale_rows_of_two_towns_are_kept_apart(tmp_path):
    """A run in the suburbs does not replace the Ville's of the same size; a row from before
    rows named their town ran in the Ville; the table and the curve tell them apart."""
    from lab.bench import scale

    path = tmp_path / "scale_runs.json"
    scale.merge_rows(path, [_row(500)])  # no town: the Ville's
    rows = scale.merge_rows(path, [{**_row(500), "town": "the_ville_suburbs", "wall_per_sim_hour_s": 150.0},
                                   {**_row(500), "town": "the_ville", "wall_per_sim_hour_s": 400.0}])
    assert sorted((r.get("town"), r["wall_per_sim_hour_s"]) for r in rows) == [
        ("the_ville", 400.0), ("the_ville_suburbs", 150.0)]
    table = scale.scale_table(rows)
    assert "| lockstep | 500 | 8 |" in table and "| lockstep | 500 in the_ville_suburbs | 8 |" in table
    assert scale.plot(rows, tmp_path / "scale.png") is None or (tmp_path / "scale.png").stat().st_size > 0


def test_scale_rows_are_written_whole_or_not_at_all(tmp_path):
    """merge_rows writes a new file and renames it over the old one: a reader of the old
    file (or a merge cut short) never sees half of it."""
    from lab.bench import scale

    path = tmp_path / "scale_runs.json"
    scale.merge_rows(path, [_row(25)])
    before = path.read_text()
    with path.open(encoding="utf-8") as reader:
        scale.merge_rows(path, [_row(100)])
        assert reader.read() == before  # the old file untouched, not rewritten in place
    assert [r["residents"] for r in json.loads(path.read_text())["runs"]] == [25, 100]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scale_runs.json"]  # no temporary file left


@pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")
def test_scale_waiting_is_the_main_threads_wait_for_answers_out_of_order(tmp_path, monkeypatch):
    """Out of order the town waits for answers in the pool's ``wait_any`` (game/sim/clocks.py),
    not in lockstep's waits: the bench's waiting_s counts it."""
    from lab.bench import scale

    _small_sweep(tmp_path, monkeypatch, agents=3, slots=2, hours=0.05, latency=0.3, stepping="out-of-order")
    (row,) = scale.bench_scale(Context(out_dir=tmp_path))["runs"]
    assert row["calls"] >= 3
    assert row["waiting_s"] >= 0.5 * row["wall_s"], row  # a slow server: the town mostly waits for it


def test_scale_uncoupled_joins_nobody_while_inside_only():
    """The ``uncoupled`` bound: two residents on one tile are apart and not joined while
    inside ``uncoupled()``; the clocks' own rule is back after it."""
    import numpy as np

    from game.sim.clocks import Reach
    from lab.bench import scale

    rule = Reach.apart, Reach.joined
    tiles, moves, clock = np.array([[5, 5], [5, 5]]), np.array([1, 1]), np.array([3, 3])
    with scale.uncoupled():
        assert Reach.joined(None, tiles, moves, clock).shape == (0, 2)
        assert Reach.apart(None, tiles, tiles, np.ones((2, 2)), moves).all()
    assert (Reach.apart, Reach.joined) == rule
    with scale.uncoupled(False):
        assert (Reach.apart, Reach.joined) == rule


@pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")
def test_scale_uncoupled_runs_every_resident_as_its_own_group(tmp_path, monkeypatch):
    """The bound through the real road: a run against the stand-in server where nobody is
    joined to anyone, so the town steps as many groups as it has residents."""
    from game.sim.clocks import Reach
    from lab.bench import scale

    rule = Reach.apart, Reach.joined
    _small_sweep(tmp_path, monkeypatch, agents=3, slots=2, hours=0.05, latency=0.02, stepping="uncoupled")
    (row,) = scale.bench_scale(Context(out_dir=tmp_path))["runs"]
    assert row["stepping"] == "uncoupled" and row["calls"] > 0 and row["groups_per_step"] == 3.0, row
    assert (Reach.apart, Reach.joined) == rule  # the clocks' own rule is back


def test_scale_is_narrowed_by_the_environment():
    from lab.bench import scale

    env = {"SMALLVILLE_SCALE_AGENTS": "25,100", "SMALLVILLE_SCALE_SLOTS": "8", "SMALLVILLE_SCALE_STEPPING": "lockstep"}
    todo = scale.plan(Context(), env)
    assert todo["agents"] == (25, 100) and todo["slots"] == (8,) and todo["steppings"] == ["lockstep"]
    assert todo["latency"] == 1.5 and todo["hours"] == 1.0
    full = scale.plan(Context(), {})
    assert full["agents"] == (25, 100, 250, 500) and full["slots"] == (8, 32, 128)
    assert full["steppings"] == ["lockstep", "out-of-order"]
    with pytest.raises(ValueError, match="not a list of numbers"):
        scale.plan(Context(), {"SMALLVILLE_SCALE_AGENTS": "many"})


def test_scale_steppings_are_named_in_the_environment():
    from lab.bench import scale

    assert scale.steppings({}) == ["lockstep", "out-of-order"]
    assert scale.steppings({"SMALLVILLE_SCALE_STEPPING": "out-of-order"}) == ["out-of-order"]
    assert scale.steppings({"SMALLVILLE_SCALE_STEPPING": "lockstep, out-of-order"}) == ["lockstep", "out-of-order"]
    assert scale.steppings({"SMALLVILLE_SCALE_STEPPING": "out-of-order,uncoupled"}) == ["out-of-order", "uncoupled"]
    with pytest.raises(ValueError, match="unknown stepping"):
        scale.steppings({"SMALLVILLE_SCALE_STEPPING": "sideways"})


@pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")
def test_scale_runs_against_a_fleet_through_the_router(tmp_path, monkeypatch):
    """SMALLVILLE_SCALE_SERVERS: the slots split over stand-in servers on ports of their own,
    reached through the Router by the litellm router file docs/models.md shows for a fleet;
    every server takes calls, and the row says it ran on a fleet."""
    from agents.model.router import load_router_yaml
    from lab.bench import scale

    _small_sweep(tmp_path, monkeypatch, agents=4, slots=4, servers=2, hours=0.05, latency=0.05,
                 stepping="out-of-order")
    (row,) = scale.bench_scale(Context(out_dir=tmp_path))["runs"]
    assert row["servers"] == 2 and row["server_errors"] == 0
    assert len(row["calls_per_server"]) == 2 and min(row["calls_per_server"]) > 0  # the Router spread them
    assert sum(row["calls_per_server"]) >= row["calls"] > 0
    fleet = load_router_yaml(Path(row["folder"]) / "router.yaml")  # as a fleet's file is read
    assert [(d.concurrency, d.label) for d in fleet] == [(2, "standin-1"), (2, "standin-2")]
    assert "| out-of-order | 4 | 4 on 2 servers answering in 0.05 s |" in scale.scale_table([row])
    with pytest.raises(ValueError, match="do not split evenly"):
        scale.Fleet(0.05, 3, 2, tmp_path / "odd")
