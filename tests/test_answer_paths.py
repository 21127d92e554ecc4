"""Every path that reads a model's text ends as a validated answer or a marked
fallback (issue 25), however large, deep or oddly typed the text: answers from
the model (through litellm's scripted provider, and through an injected
completion) and answers read back from a response cache on disk whose rows were
damaged or edited by hand."""
from __future__ import annotations

import sqlite3
from types import SimpleNamespace

import pytest
from fakes import make_gateway
from pydantic import BaseModel, Field


class Rating(BaseModel):
    rating: int = Field(ge=1, le=10)


FALLBACK = Rating(rating=4)
DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE = [
    DEEP,
    '{"rating": ' + "[" * 5000 + "7" + "]" * 5000 + "}",
    '{"rating": 1e999999}',
    '{"rating": "' + "x" * 2_000_000 + '"}',
    "{" * 50_000,                                     # never closed: read as cut off
    '{"rating": 7' + " " * 1_000_000,                 # a megabyte of padding, never closed
]


def _ask(gw):
    return gw.ask_traced(Rating, "How poignant is 'ate breakfast'?", purpose="importance", resident="Isabella",
                         fallback=FALLBACK)


@pytest.mark.parametrize("via_litellm", [True, False])
@pytest.mark.parametrize("answer", HOSTILE, ids=["deep", "deep-field", "huge-number", "huge-text", "open",
                                                   "padded"])
def test_hostile_answers_end_as_a_marked_fallback_on_every_completion_path(answer, via_litellm):
    gw = make_gateway(lambda p, m, s: answer, via_litellm=via_litellm)
    value, why = _ask(gw)
    assert value is FALLBACK and why == "invalid"
    rec = gw.accounting.records()[0]
    assert rec.outcome == "fallback" and rec.error == "invalid"
    retry = gw.fake.calls[1][1]  # the answer shown back to the model is cut short
    assert len(retry[-2]["content"]) <= 1500 and "not valid" in retry[-1]["content"]


@pytest.mark.parametrize("stored", [*HOSTILE, b"\x00\xff\xfe binary", 12345, None, "", "not json at all"],
                         ids=["deep", "deep-field", "huge-number", "huge-text", "open", "padded", "blob", "integer",
                              "null", "empty", "prose"])
def test_a_damaged_cache_row_is_asked_again_never_raised(tmp_path, stored):
    """The cache on disk (agents/model/cache.py) keeps validated answers only, but the file
    can be edited or damaged: a row that does not validate is a miss, and the model
    is asked again (its answer is the one used)."""
    answers = iter([{"rating": 3}, {"rating": 8}])
    gw = make_gateway(lambda p, m, s: next(answers), cache=str(tmp_path / "cache.sqlite"))
    assert _ask(gw) == (Rating(rating=3), None)  # asked, validated, stored
    assert _ask(gw) == (Rating(rating=3), None) and gw.accounting.records()[-1].cached  # a hit
    gw.cache.close()
    with sqlite3.connect(tmp_path / "cache.sqlite") as conn:
        conn.execute("UPDATE responses SET content = ?", (stored,))
    value, why = _ask(gw)
    assert (value, why) == (Rating(rating=8), None)  # the row did not validate: the model answered again
    assert not gw.accounting.records()[-1].cached and len(gw.fake.calls) == 2


@pytest.mark.parametrize("usage", [{"prompt_tokens": float("inf")}, {"prompt_tokens": [1]},
                                   {"completion_tokens": "lots"}, {"prompt_tokens": float("nan")},
                                   {"completion_tokens": -5}, {"prompt_tokens": True}])
def test_a_servers_odd_token_counts_do_not_lose_its_answer(usage):
    from agents.model.config import ModelConfig
    from agents.model.gateway import Gateway

    def completion(**_):
        msg = SimpleNamespace(content='{"rating": 6}')
        return SimpleNamespace(choices=[SimpleNamespace(message=msg, finish_reason="stop")], usage=usage)

    gw = Gateway(ModelConfig(model="openai/x", retries=0, timeout=2, deadline=4, cache=None), completion=completion)
    assert _ask(gw) == (Rating(rating=6), None)
