"""The call budget (agents/model/budget.py): a layer of the model road around the
gateway that withholds calls past the day's budget or a purpose's loop guard,
with no call made, and counts per sim day; its read-only check; and the typed
seams it sits on (agents/model/services.py, agents/model/asking.py)."""
from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel

from agents.mind.core import Mind
from agents.model.asking import LanguageModel, Request
from agents.model.budget import Budget
from agents.model.services import Asker, Embedder
from agents.recall.embeddings import LocalEmbedder
from tests.fakes import HashEmbedder, make_gateway
from tests.scripted_minds import make_mind, plausible, situation

NOW = datetime(2023, 2, 13, 9, 0)


class Word(BaseModel):
    word: str


def hello_gateway(**config):
    """A gateway that always says hello. These tests count calls, not time: generous
    limits, so a slow first answer on a loaded machine is not taken for a timeout."""
    return make_gateway(lambda *a: {"word": "hello"}, via_litellm=False, timeout=30.0, deadline=60.0, **config)


def ask(b: Budget, purpose: str = "summary"):
    return b.ask_traced(Word, "Say a word.", purpose=purpose, resident="Ann Lee", fallback=Word(word="rule"))


def test_the_gateway_the_budget_and_the_embedders_fit_the_seams():
    gw = hello_gateway()
    assert isinstance(gw, Asker) and isinstance(Budget(gw), Asker) and isinstance(Budget(gw).checking(NOW), Asker)
    assert isinstance(gw, LanguageModel)
    assert isinstance(HashEmbedder(8), Embedder) and isinstance(LocalEmbedder(cache_path=None), Embedder)


def test_a_spent_budget_withholds_calls_until_the_next_day():
    gw = hello_gateway(budget=2)
    b = Budget(gw)
    b.at(NOW)
    assert b.limit == 2 and ask(b) == (Word(word="hello"), None) and ask(b)[1] is None
    assert ask(b) == (Word(word="rule"), "budget")  # withheld: the caller's rule stands in
    assert len(gw.fake.calls) == 2 and b.calls_today == 2 and b.skipped == {"summary": 1}
    assert b.spent_at == NOW
    b.count("respond")  # the chat's call, counted by its job after its answer only read the budget
    assert b.calls["respond"] == 1
    b.at(NOW + timedelta(days=1))
    assert b.per_day == {"2023-02-13": 3} and b.history["2023-02-13"] == {"summary": 2, "respond": 1}
    assert b.spent_at is None and not b.skipped and ask(b)[1] is None


def test_a_loop_guard_binds_one_purpose_only():
    gw = hello_gateway()
    b = Budget(gw, {"react": 1})
    b.at(NOW)
    assert ask(b, "react")[1] is None and ask(b, "react")[1] == "budget"
    assert ask(b, "summary")[1] is None
    assert b.spent_at is None  # a loop guard is not the day's budget
    assert b.skipped == {"react": 1}


def test_a_callable_fallback_is_made_only_when_needed():
    gw = hello_gateway(budget=1)
    b = Budget(gw)
    b.at(NOW)
    made = []
    fallback = lambda: made.append(1) or Word(word="rule")  # noqa: E731
    assert b.ask_traced(Word, "x", purpose="p", fallback=fallback)[0] == Word(word="hello") and not made
    assert b.ask_traced(Word, "x", purpose="p", fallback=fallback) == (Word(word="rule"), "budget") and made


def test_the_mind_publishes_its_budget():
    m, gw = make_mind(plausible)
    assert isinstance(m.budget, Budget) and m.budget.asker is gw
    m.decide(situation(NOW))
    info = m.inspect()
    assert info.calls_today == m.budget.calls_today > 0 and info.calls_by_purpose == dict(m.budget.calls)
    assert info.budget == 0 and info.budget_hit is None and info.budget_fallbacks == {}
    m.budget_hit = NOW  # the HUD's reading (agents.mind.Mind.budget_hit)
    assert m.budget.spent_at == NOW and isinstance(m, Mind)


def test_a_withheld_call_is_a_reply_without_a_value_and_no_record():
    gw = hello_gateway(budget=1)
    b = Budget(gw)
    b.at(NOW)
    request = Request.of(Word, "Say a word.", purpose="summary", resident="Ann Lee")
    assert b.ask_once(request).value == Word(word="hello")
    reply = b.ask_once(request)
    assert reply.value is None and reply.error == "budget" and reply.outcome == "fallback" and reply.attempts == 0
    assert gw.accounting.counts()["calls"] == 1  # the ledger has the call made, not the one withheld


def test_the_read_only_check_withholds_as_the_budget_would_and_counts_nothing():
    gw = hello_gateway(budget=1)
    b = Budget(gw)
    b.at(NOW)
    assert ask(b)[1] is None
    state = b.to_state()
    assert b.checking(NOW).ask_traced(Word, "x", purpose="respond", fallback=Word(word="rule")) == (
        Word(word="rule"), "budget")
    # a later sim day starts afresh: the check does not hold yesterday's spent budget against it
    assert b.checking(NOW + timedelta(days=1)).ask_traced(Word, "x", purpose="respond",
                                                          fallback=Word(word="rule"))[1] is None
    assert b.to_state() == state and len(gw.fake.calls) == 2
    b.count("respond", withheld=True)  # what the chat's job counts for a withheld answer
    assert b.skipped == {"respond": 1} and b.calls_today == 1 and b.spent_at == NOW
