"""lab/bench/waves.py and scripts/call_waves.py: a run's calls in waves, and those that had the model alone."""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import call_waves  # after the path is set: scripts/ is not a package

from lab.bench.waves import alone, waves


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
