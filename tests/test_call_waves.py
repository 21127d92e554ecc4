"""lab/bench/waves.py and scripts/call_waves.py: a run's calls in waves, and those that had the model alone."""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import call_waves  # after the path is set: scripts/ is not a package

from lab.bench.waves import alone, by_wall_slice, in_flight, sim_times, waves


def _call(end: float, purpose: str, who: str, latency: float = 1.5) -> dict:
    return {"time": end, "latency_s": latency, "purpose": purpose, "resident": who}


def test_waves_and_calls_alone_on_a_small_run(tmp_path, capsys):
    calls = [_call(101.5, "day_plan", "Ann Lee"), _call(101.6, "day_plan", "Bo Tan"),  # a wave of two
             _call(103.2, "utterance", "Ann Lee"),  # alone: a line waits for the one before
             _call(104.8, "utterance", "Bo Tan")]
    (tmp_path / "llm_calls.jsonl").write_text("\n".join(map(json.dumps, calls)) + "\nnot json\n")
    assert [len(w) for _, w in waves(calls)] == [2, 1, 1]
    assert alone(calls) == {"utterance": 2}
    assert call_waves.main([str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "4 calls in 3 waves; 2 with the model to themselves: utterance 2" in out
    assert "llm_calls.jsonl:5: not a call record, skipped" in err


def test_a_folder_without_calls_says_so(tmp_path, capsys):
    assert call_waves.main([str(tmp_path)]) == 2
    assert "no such file" in capsys.readouterr().err


def test_how_busy_the_model_was_in_flight_and_over_the_run(tmp_path, capsys):
    # two instances: 0-2 s two calls, 2-3 s one, 3-4 s none, 4-5 s one
    calls = [_call(2.0, "day_plan", "Ann Lee", 2.0), _call(3.0, "day_plan", "Bo Tan", 3.0),
             _call(5.0, "utterance", "Ann Lee", 1.0)]
    assert in_flight(calls, 2) == {0: 1.0, 1: 2.0, 2: 2.0}
    when = ["2023-02-14T07:00:00", "2023-02-14T07:00:00", "2023-02-14T07:10:00"]
    assert sim_times(calls, [{"resident": "Bo Tan", "purpose": "day_plan", "time": when[1]},
                             {"resident": "Ann Lee", "purpose": "day_plan", "time": when[0]},
                             {"resident": "Ann Lee", "purpose": "utterance", "time": when[2]}]) == when
    first, second = by_wall_slice(calls, when, 2, 3.0)
    assert first["calls"] == 2 and first["model_s"] == 5.0 and abs(first["busy"] - 5 / 6) < 1e-9
    assert second["wall"] == (3.0, 5.0) and second["model_s"] == 1.0 and second["sim"] == (when[2], when[2])
    # the script: the instances from summary.json, the times from the decision records
    (tmp_path / "llm_calls.jsonl").write_text("\n".join(map(json.dumps, calls)) + "\n")
    (tmp_path / "summary.json").write_text(json.dumps({"stepping": {"model_instances": 2}}))
    assert call_waves.main([str(tmp_path), "--profile"]) == 0
    out = capsys.readouterr().out
    assert "no decision records" in out and "busy 60.0%" in out and "1 2.0 s (40%)" in out
    with gzip.open(tmp_path / "why.jsonl.gz", "wt") as fh:
        for c, w in zip(calls, when):
            fh.write(json.dumps({"resident": c["resident"], "purpose": c["purpose"], "time": w}) + "\n")
    assert call_waves.main([str(tmp_path), "--profile", "--slice", "3"]) == 0
    out = capsys.readouterr().out
    assert "07:00-07:00" in out and "07:10-07:10" in out
