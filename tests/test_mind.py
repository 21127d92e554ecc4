"""The Mind as a whole: a busy scripted day within the call budget, thread-safe
inspection, cheap construction, the cast files."""
import dataclasses
import json
import threading
from datetime import datetime, timedelta

import pytest

from agents.mind.core import Mind
from agents.residents.persona import CastError, load_cast
from agents.support.types import Conversation, Utterance
from tests.fakes import HashEmbedder, make_gateway
from tests.scripted_minds import event, garbage, make_mind, plausible, situation

START = datetime(2023, 2, 13, 7, 0)
OTHERS = [f"Neighbour{i} Person" for i in range(24)]


def eager(purpose, messages, schema):
    """Says yes to everything: the worst case for the budget."""
    if purpose == "react":
        return {"react": True, "activity": "go and see what is happening", "minutes": 10}
    return plausible(purpose, messages, schema)


def live_a_day(m, hours=24, step_min=10):
    """Drive one mind like the sim would, with a crowd around it all day."""
    now, act, k = START, None, 0
    while now < START + timedelta(hours=hours):
        evs = [event(OTHERS[(k + j) % 24], f"doing thing {k + j}") for j in range(10)]
        k += 3
        d = m.decide(situation(now, action=act, events=evs, can_talk_to=[OTHERS[k % 24]],
                               done=act is None or act.end <= now))
        if d.action:
            act = d.action
        if d.talk_to:
            c = Conversation((m.name, d.talk_to), "the Ville:Hobbs Cafe:cafe", now)
            while True:
                u = m.utter(c, now, "chatting")
                c.lines.append(u)
                if u.ends:
                    break
                c.lines.append(Utterance(d.talk_to, f"Reply number {len(c.lines)} about the news"))
                now += timedelta(minutes=1)
            m.end_conversation(c, now)
        now += timedelta(minutes=step_min)


@pytest.mark.parametrize("responder", [eager, plausible, garbage])
def test_a_daily_budget_binds_visibly(responder):
    """A day far busier than any in the town (ten new people every ten minutes, a chat
    offered each time): with a budget of 150 calls, the 150th is the last, and the
    rules that stand in after it say so."""
    from agents.mind.core import Mind

    gw = make_gateway(responder, via_litellm=False, budget=150)
    m = Mind(make_mind(responder)[0].persona, gw, HashEmbedder(64))
    live_a_day(m)
    budget = m.budget
    day1 = budget.per_day.get("2023-02-13", budget.calls_today)
    assert day1 <= 150 and gw.accounting.summary()["by_resident"][m.name]["calls"] <= 150 + budget.calls_today
    info = m.inspect()
    assert info.plan and info.memory_count > 100
    if responder is not garbage:
        assert budget.history["2023-02-13"] and sum(budget.history["2023-02-13"].values()) == 150
        assert any(k.endswith(": budget") for k in m.fallbacks), m.fallbacks
        purposes = {p for p, _, _ in gw.fake.calls}
        assert {"day_plan", "decompose", "importance", "reflect_questions", "reflect_insights",
                "talk_decision", "relationship", "utterance", "chat_summary", "summary"} <= purposes
        assert info.reflections


def test_without_a_budget_nothing_is_withheld():
    m, _gw = make_mind(plausible)
    assert m.budget.limit == 0  # a scripted (local) model: no budget by default
    live_a_day(m, hours=6)
    assert not m.budget.skipped and not any(k.endswith(": budget") for k in m.fallbacks)
    assert m.inspect().budget_hit is None


def test_construction_is_cheap_and_thoughts_are_folded_in():
    gw = make_gateway(plausible, via_litellm=False)
    emb = HashEmbedder(32)
    cast, scenario = load_cast("maps/the_ville")
    m = Mind(cast[0], gw, emb)
    assert gw.fake.calls == [] and emb.calls == 0
    for who, text, imp in scenario.seeds:
        if who == m.name:
            m.queue_thought(text, imp)
    m.decide(situation(scenario.start, address="the Ville:Isabella Rodriguez's apartment:main room"))
    thoughts = [x.description for x in m.memory.by_kind("thought")]
    assert len(thoughts) == len(cast[0].phrases) + 1 and any("Valentine" in t for t in thoughts)
    assert m.memory.get(len(thoughts) - 1).importance == 8


def test_inspect_returns_copies_while_a_job_runs():
    m, _ = make_mind(plausible)
    m.decide(situation(START))
    snap = m.inspect()
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.plan = ()  # type: ignore[misc]
    assert isinstance(snap.plan, tuple) and isinstance(snap.memories, tuple)
    snap.memories[-1].description = "junk"  # the memories shown are copies: the mind's are untouched
    snap.action.description = "junk"
    assert m.memory.get(snap.memories[-1].id).description != "junk" and m.action.description != "junk"
    seen, stop = [], threading.Event()

    def reader():
        while not stop.is_set():
            seen.append(m.inspect().memory_count)

    t = threading.Thread(target=reader)
    t.start()
    try:
        live_a_day(m, hours=2)
    finally:
        stop.set()
        t.join()
    assert seen and seen == sorted(seen)  # never a torn or shrinking view


def test_the_whole_cast_decides():
    cast, scenario = load_cast("maps/the_ville")
    assert len(cast) == 25 and [p.name for p in cast[:3]] == ["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"]
    assert scenario.start == datetime(2023, 2, 13, 7, 0)
    assert {s[0] for s in scenario.seeds} == {"Isabella Rodriguez", "Maria Lopez", "Sam Moore"}
    gw = make_gateway(plausible, via_litellm=False)
    for p in cast:
        m = Mind(p, gw, HashEmbedder(32))
        d = m.decide(situation(scenario.start, address=p.home))
        assert d.action is not None and m.spatial.knows(d.action.address), p.name
        assert d.action.address.startswith("the Ville:")


def test_bad_cast_files_name_the_problem(tmp_path):
    good = json.loads(open("maps/the_ville/residents.json").read())
    (tmp_path / "scenario.json").write_text(json.dumps({"start": "2023-02-13 07:00", "seeds": []}))
    bad = [dict(good[0]), dict(good[1])]
    bad[1]["home"] = "Hobbs Cafe"
    (tmp_path / "residents.json").write_text(json.dumps(bad))
    with pytest.raises(CastError, match=r"residents.json.*Maria Lopez.*'home'"):
        load_cast(tmp_path)
    del bad[1]["age"]
    bad[1]["home"] = good[1]["home"]
    (tmp_path / "residents.json").write_text(json.dumps(bad))
    with pytest.raises(CastError, match=r"Maria Lopez.*missing field 'age'"):
        load_cast(tmp_path)
    (tmp_path / "residents.json").write_text(json.dumps(good[:2]))
    (tmp_path / "scenario.json").write_text(json.dumps({"start": "2023-02-13 07:00",
                                                        "seeds": [{"resident": "Nobody Here", "thought": "x"}]}))
    with pytest.raises(CastError, match=r"scenario.json: seed 1.*Nobody Here"):
        load_cast(tmp_path)


def test_state_round_trip_continues_the_same_day():
    from agents.recall.memory import EmbeddingMismatch

    m, gw = make_mind(plausible)
    live_a_day(m, hours=3)
    state = m.to_state()
    n = m.inspect()
    m2 = Mind.restore(m.persona, gw, HashEmbedder(64), state)
    assert m2.inspect() == n
    assert len(m2.memory) == len(m.memory) and m2.today.planned_for == m.today.planned_for
    calls = len(gw.fake.calls)
    t = START + timedelta(hours=3, minutes=5)
    m2.decide(situation(t, action=m2.action, done=True))
    assert "day_plan" not in [p for p, _, _ in gw.fake.calls[calls:]]  # same day: no new plan
    with pytest.raises(EmbeddingMismatch, match="hash-test"):
        Mind.restore(m.persona, gw, HashEmbedder(32), state)


def test_a_failed_embedding_loses_nothing():
    """Perceived and told things wait for their embedding when the embedder fails,
    survive a save, and are stored by a later job."""
    from agents.mind.core import Mind

    class Flaky(HashEmbedder):
        down = False

        def embed(self, texts):
            if self.down:
                raise ConnectionError("embedding server down")
            return super().embed(texts)

    emb = Flaky(64)
    gw = make_gateway(plausible, via_litellm=False)
    m = Mind(make_mind(plausible)[0].persona, gw, emb)
    m.decide(situation(START))
    before = len(m.memory)
    emb.down = True
    t = START + timedelta(minutes=20)
    m.decide(situation(t, events=[event("Maria Lopez", "painting a mural")], done=True))
    assert len(m.memory) == before and any("painting a mural" in x["text"] for x in m.unembedded)
    m2 = Mind.restore(m.persona, gw, emb, m.to_state())
    assert [x["text"] for x in m2.unembedded] == [x["text"] for x in m.unembedded]
    emb.down = False
    m2.decide(situation(t + timedelta(minutes=20), action=m2.action, done=True))
    assert not m2.unembedded
    stored = [x for x in m2.memory.nodes if x.description == "Maria Lopez is painting a mural"]
    assert stored and stored[0].created == t  # remembered as of when it was seen


def test_public_methods_for_jobs_and_panels_from_elsewhere():
    """What other modules use instead of the mind's own steps: begin_job + start_turn
    (a job run from elsewhere), memory_text (the inspector), decompose_afresh (after
    the player played the resident)."""
    from agents.mind.job_tags import job_tag

    m, gw = make_mind(plausible)
    assert m.memory_text(0) is None  # no memories yet, and none created by looking
    m.queue_thought("I should repaint the cafe sign", 7)
    m.begin_job(job_tag("respond"))
    m.start_turn(START)
    assert gw.fake.calls == []  # seeds and thoughts are folded in without a model call
    texts = [x.description for x in m.memory.by_kind("thought")]
    assert texts[-1] == "I should repaint the cafe sign" and m.memory_text(len(texts) - 1) == texts[-1]
    assert m.memory_text(10_000) is None and m.memory_text("junk") is None  # a bad id from a panel
    d = m.decide(situation(START + timedelta(minutes=5)))
    assert d.action is not None and m.today.pending
    m.decompose_afresh()
    assert m.today.pending == []
