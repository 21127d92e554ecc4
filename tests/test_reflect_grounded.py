"""Grounded reflections (agents/recall/reflect.py, agents/recall/insights.py): in the guided and grounded
mode candidate insights are derived by rule from the memories they cite, the model picks
one, and what it picks names only people and places the mind knows. The paper's mode keeps
its free reflections. The real embedded model at the end."""
from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

import pytest

from agents import provenance as pv
from agents.mind.core import Mind
from agents.recall import grounding as gr
from agents.recall import insights
from agents.recall.reflect import reflect
from agents.residents.mind_settings import MindSettings
from tests.fakes import HashEmbedder, make_gateway
from tests.real_model import needs_model
from tests.scripted_minds import persona, plausible, situation

NOW = datetime(2023, 2, 14, 12, 0)
ME = "Isabella Rodriguez"
CHOOSING = MindSettings(planning="guided", grounded=True)
GIVEN = pv.tag(pv.RULE, "a thought given to the resident")


def answering(choice="1"):
    """A model that picks ``choice`` among the insights (and answers the rest plausibly)."""
    def responder(purpose, messages, schema):
        if purpose == "reflect_choose":
            return {"fact": choice(messages) if callable(choice) else choice}
        return plausible(purpose, messages, schema)
    return responder


def make_mind(responder, settings=CHOOSING, who=None):
    # a loaded machine (tests beside model runs) can take seconds per answer: generous time-outs
    gw = make_gateway(responder, via_litellm=False, timeout=30.0, deadline=60.0)
    return Mind(who or persona(), gw, HashEmbedder(64), settings), gw


def mind(choice="1", settings=CHOOSING):
    m, gw = make_mind(answering(choice), settings)
    m.start_turn(NOW - timedelta(hours=6))  # the seed phrases
    m.now = NOW
    m.spatial.add("the Ville:Hobbs Cafe:cafe", with_defaults=True)
    return m, gw


def at(h, mi=0):
    return NOW.replace(hour=h, minute=mi).isoformat()


def talk(m, other, h, about="the week"):
    return dict(kind="chat", text=f"conversed with {other} about {about}", importance=4, subject=m.name,
                predicate="conversed with", object=other, created=at(h))


def told(m, other, h, said, mi=5):
    return dict(kind="chat", text=f'{other} told {m.persona.first_name}: "{said}"', importance=5, subject=other,
                predicate="told", object=m.name, created=at(h, mi))


def seen(who, h, mi, doing="reading a book"):
    return dict(kind="observation", text=f"{who} is {doing}", importance=2, subject=who, predicate="is",
                object=doing, created=at(h, mi))


def thing(address, h, mi, state="idle"):
    return dict(kind="observation", text=f"{address.rsplit(':', 1)[-1]} is {state}", importance=1, subject=address,
                predicate="is", object=state, created=at(h, mi))


def thought(text, h, importance=8):
    return dict(kind="thought", text=text, importance=importance, subject=ME, source=GIVEN, created=at(h))


def derive(m, said_before=()):
    known = insights.known_of(m.name, m.known_people, m.memory.by_kind("thought"), m.spatial,
                              home=m.persona.home.split(":")[1])
    return insights.derive(m.memory.recent(100), known, m.spatial.world, m.now, said_before=said_before)


def texts(cands, kind=None):
    return [c.text for c in cands if kind is None or c.kind == kind]


def cited(m, cand):
    return [m.memory.get(i).description for i in cand.evidence]


# ---------------------------------------------------------------------------- each kind of insight

def test_looking_forward_to_ones_own_dated_intention():
    m, _ = mind()
    m.remember_many([thought("I want to host a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to "
                             "7 pm, and to invite as many friends and customers as I can", 6)])
    cands = derive(m)
    assert texts(cands, "ahead") == ["I am looking forward to hosting the Valentine's Day party at Hobbs Cafe on "
                                     "February 14 from 5 pm to 7 pm."]


def test_looking_forward_to_an_event_heard_of_and_not_to_a_past_one():
    m, _ = mind()
    m.known_people |= {"Maria Lopez"}
    m.remember_many([told(m, "Maria Lopez", 9, "There is a poetry reading at Hobbs Cafe on February 16 at 6 pm"),
                     told(m, "Maria Lopez", 9, "The bake sale meeting at Hobbs Cafe was on February 10", mi=10)])
    assert texts(derive(m), "ahead") == ["I am looking forward to the poetry reading at Hobbs Cafe on February 16 at "
                                         "6 pm."]


def test_an_everyday_meal_heard_of_is_not_looked_forward_to():
    m, _ = mind()
    m.known_people |= {"Maria Lopez"}
    m.remember_many([told(m, "Maria Lopez", 9, "I'll be having dinner at Hobbs Cafe on February 14 at 6 pm")])
    assert not texts(derive(m), "ahead")  # it was "I am looking forward to the having dinner ...", told as news


def test_looking_forward_to_an_arrangement():
    m, _ = mind()
    m.known_people |= {"Klaus Mueller"}
    m.remember_many([dict(kind="plan", text="Isabella's plan for Wednesday February 15 at 15:00: meeting Klaus for "
                          "coffee at Hobbs Cafe:cafe (agreed with Klaus Mueller on Tuesday February 14)",
                          importance=6, subject=ME, created=at(9))])
    assert texts(derive(m), "ahead") == ["I am looking forward to meeting Klaus for coffee at Hobbs Cafe on "
                                         "February 15 at 15:00."]


def test_an_unknown_place_is_left_out_of_the_words():
    m, _ = mind()
    m.remember_many([thought("I want to go to the jazz concert at Moonlight Hall on February 15", 9)])
    assert texts(derive(m), "ahead") == ["I am looking forward to the jazz concert on February 15."]


# ---------------------------------------------------------------------------- names, nonsense, repeats

def test_no_unknown_names_or_free_reflections_become_insights():
    m, _ = mind()
    m.known_people |= {"Eddy Lin"}
    bad = [told(m, "Eddy Lin", h, "Eduardo Schulz is a master of chemistry at Oak Hill College") for h in (8, 9, 10)]
    free = [dict(kind="reflection", text=t, importance=7, source=pv.MODEL, created=at(h)) for h, t in (
        (8, "Maria's favorite food is pizza"), (9, "Maria's favorite food is pizza, she said"),
        (10, "Maria's favorite food is pizza again"),
        (10, "In the record for 1, the number of rows of the data represents the records"))]
    m.remember_many(bad + free)
    for c in derive(m):
        assert "Eduardo" not in c.text and "pizza" not in c.text and "Oak Hill" not in c.text
        assert all(m.memory.get(i).kind != "reflection" for i in c.evidence)


def test_the_name_check():
    known = insights.Known(ME, {"Maria Lopez", "Klaus Mueller"}, {"Hobbs Cafe", "The Rose and Crown Pub"})
    assert known.unknown("I often talk with Maria Lopez.") is None
    assert known.unknown("The Valentine's Day party at Hobbs Cafe on February 14 keeps coming up.") is None
    assert known.unknown("I met Maria at The Rose and Crown Pub.") is None
    assert known.unknown("I often talk with Maria Rodriguez.") == "Maria Rodriguez"  # mixed surnames
    assert known.unknown("Eduardo Schulz keeps coming up.") == "Eduardo Schulz"
    assert known.unknown("I spend my days at Oak Hill College.") == "Oak Hill College"


def test_what_was_concluded_before_is_not_offered_again():
    m, _ = mind()
    m.known_people |= {"Maria Lopez"}
    m.remember_many([told(m, "Maria Lopez", 8, "I am good friends with Klaus Mueller"),
                     talk(m, "Maria Lopez", 8), talk(m, "Maria Lopez", 10)])
    m.known_people |= {"Klaus Mueller"}
    said = "Maria Lopez and Klaus Mueller are good friends."
    assert said in texts(derive(m))
    assert said not in texts(derive(m, said_before=[said]))


def test_offered_keeps_prompt_echoes_and_free_reflections_from_talk_and_answers():
    m, _ = mind()
    grounded = pv.tag(pv.REPAIRED, "grounded: chosen from 3 insights (people, from memories #1, #2)")
    nodes = m.remember_many([
        dict(kind="reflection", text="Maria's favorite food is pizza", importance=7, source=pv.MODEL),
        dict(kind="reflection", text="Giorgio Rossi has been a victim of an epidemic", importance=7, source=""),
        dict(kind="reflection", text="I often talk with Maria Lopez.", importance=5, source=grounded),
        dict(kind="chat", text="In the record for 1, the number of rows of the data represents it", importance=5),
        dict(kind="thought", text="The most salient high-level question regarding Giorgio's life", importance=5),
        dict(kind="thought", text="I love organising gatherings", importance=5)])
    assert [gr.offered(x) for x in nodes] == [False, False, True, False, False, True]


def test_free_reflections_are_no_topic_and_no_answer_but_stay_in_memory():
    from agents.mind.interview import grounded_facts
    from agents.support.types import Conversation
    from agents.talk.converse import topics

    m, _ = mind()
    m.remember_many([dict(kind="reflection", text="Maria Lopez's favorite food is pizza", importance=10,
                          source=pv.MODEL)])
    c = Conversation((m.name, "Maria Lopez"), "the Ville:Hobbs Cafe:cafe", NOW)
    assert all("pizza" not in f.text for f in topics(m, c, "eating pizza", "working"))
    assert all("pizza" not in f.text for f in grounded_facts(m, "What is Maria Lopez's favorite food?", NOW,
                                                            touch=False))
    assert any("pizza" in x.description for x in m.memory.nodes)  # never deleted


# ---------------------------------------------------------------------------- the reflection

def seeded(m):
    m.known_people |= {"Maria Lopez"}
    m.remember_many([talk(m, "Maria Lopez", 8, "the Valentine's Day party"),
                     told(m, "Maria Lopez", 8, "I will come to the Valentine's Day party"),
                     talk(m, "Maria Lopez", 10, "the Valentine's Day party"),
                     thought("I want to host a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm",
                             6)])


def test_the_model_chooses_and_a_rule_words_it_with_its_evidence():
    m, gw = mind("2")
    seeded(m)
    (r,) = reflect(m)
    shown = [c[1][-1]["content"] for c in gw.fake.calls if c[0] == "reflect_choose"]
    assert len(shown) == 1 and [c[0] for c in gw.fake.calls].count("reflect_questions") == 0
    second = next(line for line in shown[0].splitlines() if line.startswith("2. "))
    assert r.description == second[3:] and r.kind == "reflection"
    assert pv.kind_of(r.source) == pv.REPAIRED and pv.why_of(r.source).startswith("grounded: chosen from")
    assert r.evidence and all(0 <= e < r.id for e in r.evidence)
    assert all(f"#{e}" in r.source for e in r.evidence) and gr.offered(r)
    assert r.id in m.unrated  # the model rates its importance with the next observations
    assert m.memory.importance_since_reflection == 0


def test_nothing_to_derive_no_reflection_no_call_and_counted():
    # (its description says nothing it cares about, works at or wants, and nothing happened:
    # talks counted are no insight since the tallies went)
    who = dataclasses.replace(persona(), description=f"{ME} lives in her apartment")
    m, gw = make_mind(answering("1"), CHOOSING, who)
    m.start_turn(NOW - timedelta(hours=6))
    m.now = NOW
    m.known_people |= {"Maria Lopez"}
    m.remember_many([talk(m, "Maria Lopez", 8), talk(m, "Maria Lopez", 10)])
    assert reflect(m) == []
    assert not [c for c in gw.fake.calls if c[0].startswith("reflect")]
    assert m.fallbacks["reflection: nothing to derive"] == 1


def test_none_or_a_failed_answer_makes_no_reflection_and_is_counted():
    m, _ = mind("none")
    seeded(m)
    assert reflect(m) == [] and m.fallbacks["reflection: the model chose none"] == 1

    def broken(purpose, messages, schema):
        if purpose == "reflect_choose":
            return "I am a small model and I like turtles."
        return plausible(purpose, messages, schema)
    m2, _ = make_mind(broken, CHOOSING)
    m2.start_turn(NOW)
    seeded(m2)
    assert reflect(m2) == [] and any(k.startswith("reflection:") for k in m2.fallbacks)
    assert not m2.memory.by_kind("reflection")


def test_decide_reflects_grounded_past_the_threshold():
    m, _gw = mind("1")
    seeded(m)
    m.memory.importance_since_reflection = 151
    m.decide(situation(NOW))
    (r,) = m.memory.by_kind("reflection")
    assert pv.why_of(r.source).startswith("grounded:")
    assert m.inspect().reflections[-1].description == r.description


@pytest.mark.parametrize("settings", [MindSettings(planning="paper", grounded=True),
                                      MindSettings(planning="guided", grounded=False),
                                      MindSettings(planning="paper", grounded=False)])
def test_the_papers_mode_keeps_free_reflections(settings):
    m, gw = mind("1", settings)
    seeded(m)
    made = reflect(m)
    purposes = [c[0] for c in gw.fake.calls]
    assert "reflect_choose" not in purposes and purposes.count("reflect_questions") == 1
    assert made and all(x.source == pv.MODEL for x in made)


# ---------------------------------------------------------------------------- the real model

@pytest.mark.slow
@needs_model
@pytest.mark.timeout(600)
def test_a_reflection_on_the_embedded_model_names_only_what_exists():
    """Isabella's small seeded stream (talks with Maria, the party, the cafe, and a free
    reflection of the old kind with an invented name), reflected on by the real embedded
    model: one reflection, citing real memories, naming only people and places she knows."""
    from agents.mind.core import Mind
    from agents.model.gateway import Gateway, load_config
    from agents.recall.embeddings import make_embedder
    from agents.residents.persona import load_cast

    config = load_config({"seed": 0}, env={}, toml_path=None)
    assert config.grounded == "on" and config.planning == "guided"
    cast, _ = load_cast("maps/the_ville")
    persona = next(p for p in cast if p.name == ME)
    m = Mind(persona, Gateway(config), make_embedder(config))
    m.start_turn(NOW - timedelta(hours=6))
    m.now = NOW
    m.spatial.add("the Ville:Hobbs Cafe:cafe", with_defaults=True)
    seeded(m)
    cafe = "the Ville:Hobbs Cafe:cafe:"
    m.remember_many([thing(cafe + o, 9, i) for i, o in enumerate(("piano", "cafe counter", "coffee machine"))]
                    + [dict(kind="reflection", text="Eduardo Schulz is a master of chemistry at Oak Hill College",
                            importance=9, source=pv.MODEL, created=at(11))])
    assert m.guided and m.grounded
    made = reflect(m)
    assert len(made) == 1, dict(m.fallbacks)
    r = made[0]
    print("\n" + r.description, r.source)
    known = insights.known_of(m.name, m.known_people, m.memory.by_kind("thought"), m.spatial,
                              home=persona.home.split(":")[1])
    assert known.unknown(r.description) is None and "Eduardo" not in r.description
    assert r.evidence and all(0 <= e < r.id and m.memory.get(e).kind != "reflection" for e in r.evidence)
    assert pv.why_of(r.source).startswith("grounded: chosen from")


# ---------------------------------------------------------------------------- the rate: importance by choice

def observed(m, n, start=0):
    from agents.recall.perceive import perceive
    from tests.scripted_minds import event
    perceive(m, [event(f"Person {i} Smith", f"doing task {i}") for i in range(start, start + n)])
    return [x for x in m.memory.nodes if x.kind == "observation"][-n:]


def test_a_choosing_model_picks_what_matters_most_and_the_rest_stay_everyday():
    m, gw = mind()

    def responder(purpose, messages, schema):
        if purpose == "importance":
            assert "ratings" not in schema.model_json_schema()["properties"]  # no list of numbers to pattern
            return {"fact": next(line.split(".")[0] for line in messages[-1]["content"].splitlines()
                                 if "task 5" in line)}
        return plausible(purpose, messages, schema)
    gw.fake.responder = responder
    obs = observed(m, 8)
    m.rate_waiting()
    assert [c[0] for c in gw.fake.calls] == ["importance"]
    (chosen,) = [x for x in obs if x.description == "Person 5 Smith is doing task 5"]
    assert chosen.importance == 6 and pv.kind_of(chosen.importance_source) == pv.REPAIRED
    rest = [x for x in obs if x is not chosen]
    assert all(x.importance == 3 and x.importance_source.startswith("rule: everyday") for x in rest)
    assert m.unrated == []
    assert m.memory.importance_since_reflection == sum(x.importance for x in obs)


def test_none_chosen_or_a_failed_answer_keeps_the_rules_ratings():
    m, gw = mind()

    def none(purpose, messages, schema):
        return {"fact": "none"} if purpose == "importance" else plausible(purpose, messages, schema)
    gw.fake.responder = none
    obs = observed(m, 8)
    m.rate_waiting()
    assert all(x.importance == 3 and "chose none of 8" in x.importance_source for x in obs)

    def broken(purpose, messages, schema):
        return "turtles" if purpose == "importance" else plausible(purpose, messages, schema)
    gw.fake.responder = broken
    obs = observed(m, 8, start=20)
    m.rate_waiting()
    assert all(x.importance == 3 and x.importance_source == "rule: invalid answer" for x in obs)
    assert m.fallbacks["importance: invalid answer"] == 1 and m.unrated == []


def test_the_papers_mode_still_rates_each_one():
    m, gw = mind(settings=MindSettings(planning="paper", grounded=False))
    obs = observed(m, 8)
    m.rate_waiting()
    (call,) = gw.fake.calls
    assert call[0] == "importance" and "ratings" in call[2].model_json_schema()["properties"]
    assert [x.importance for x in obs] == [4] * 8 and {x.importance_source for x in obs} == {"model"}


def test_an_event_today_that_is_over_is_not_looked_forward_to():
    m, _ = mind()
    m.remember_many([thought("I want to host a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to "
                             "7 pm", 6)])
    m.now = NOW.replace(hour=16, minute=30)
    assert texts(derive(m), "ahead")
    m.now = NOW.replace(hour=19, minute=5)
    assert not texts(derive(m), "ahead")


def test_only_what_is_perceived_and_heard_counts_toward_a_reflection():
    m, _ = mind()  # its seed phrases are stored: they do not count
    assert m.memory.importance_since_reflection == 0
    m.remember_many([thought("I am going to paint the cafe", 9), talk(m, "Maria Lopez", 9),
                     dict(kind="plan", text="Isabella's plan for today: work", importance=5, created=at(7)),
                     seen("Klaus Mueller", 9, 1)])
    assert m.memory.importance_since_reflection == 4 + 2  # the talk and the sight
    m.memory.rerate(m.memory.nodes[-2].id, 9, pv.MODEL)  # the plan, rated later: still no experience
    m.memory.rerate(m.memory.nodes[-1].id, 5, pv.MODEL)
    assert m.memory.importance_since_reflection == 4 + 5


def test_a_choosing_model_reflects_at_most_once_in_the_gap_and_the_paper_mode_is_not_held():
    from agents.recall.reflect import should_reflect
    m, _ = mind()
    m.remember_many([dict(kind="reflection", text="I often talk with Maria Lopez.", importance=5, created=at(9))])
    m.memory.importance_since_reflection = m.settings.reflection_threshold + 1
    m.now = NOW.replace(hour=11)
    assert m.settings.reflection_gap_h == 4 and not should_reflect(m)  # two hours after the last
    m.now = NOW.replace(hour=13, minute=30)
    assert should_reflect(m)
    paper, _ = mind(settings=MindSettings(planning="paper"))
    paper.remember_many([dict(kind="reflection", text="I often talk with Maria Lopez.", importance=5, created=at(9))])
    paper.memory.importance_since_reflection = paper.settings.reflection_threshold + 1
    paper.now = NOW.replace(hour=10)
    assert should_reflect(paper)


def test_a_quiet_day_still_gets_a_reflection_and_an_empty_one_does_not():
    from agents.recall.reflect import QUIET_SUM, should_reflect
    m, _ = mind()  # its seed memories were made at 06:00
    m.memory.importance_since_reflection = QUIET_SUM
    m.now = NOW.replace(hour=13)
    assert m.settings.reflection_quiet_h == 8 and not should_reflect(m)  # seven hours: not yet
    m.now = NOW.replace(hour=14, minute=30)
    assert should_reflect(m)
    m.memory.importance_since_reflection = QUIET_SUM - 1
    assert not should_reflect(m)  # nothing much happened: nothing to reflect on
    paper, _ = mind(settings=MindSettings(planning="paper"))
    paper.memory.importance_since_reflection = QUIET_SUM
    paper.now = NOW.replace(hour=23)
    assert not should_reflect(paper)  # the paper's mode keeps the paper's trigger
