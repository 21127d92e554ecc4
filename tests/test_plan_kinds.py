"""A plan item says what kind it is (agents/planning/items.py): set where the item is made,
read wherever behaviour depends on it; words are read only for a model's free text and
for saves from before items had a kind."""
from __future__ import annotations

from datetime import datetime

from agents.planning import items as I
from agents.planning import plan as P
from agents.planning.day import next_action
from agents.recall.spatial import SpatialMemory
from agents.residents.mind_settings import MindSettings
from tests.scripted_minds import make_mind, persona

DAY = datetime(2023, 2, 14, 6)


def test_the_routine_says_what_each_of_its_items_is_whatever_the_words(monkeypatch):
    # a cook whose work is lunch: by its words a meal, by the routine work (an activity)
    monkeypatch.setattr(P.activity, "work_title", lambda who: "preparing lunch for the customers")
    cook = persona()
    sp = SpatialMemory()
    sp.seed(cook)
    day = P.routine(cook, sp, DAY, MindSettings())
    kinds = {x.description: x.kind for x in day}
    assert kinds["having breakfast"] == I.MEAL and kinds["going to bed and sleeping"] == I.SLEEP
    work = [x for x in day if x.description == "preparing lunch for the customers"]
    assert work and all(x.kind == I.ACTIVITY and I.kind_of_words(x.description) == I.MEAL for x in work)


def test_a_models_free_text_and_an_old_save_are_read_from_their_words():
    assert I.kind_of_words("taking a nap on the sofa") == I.SLEEP
    assert I.kind_of_words("having dinner with Klaus") == I.MEAL
    assert I.kind_of_words("painting in the studio") == I.ACTIVITY
    old = {"start": "2023-02-14T22:00:00", "minutes": 480, "description": "going to bed", "address": "a:b:c"}
    assert I.PlanItem.from_dict(old).kind == I.SLEEP  # a save from before kinds
    item = I.PlanItem(DAY, 60, "resting for the night", "a:b:c", kind=I.SLEEP)
    assert I.PlanItem.from_dict(item.to_dict()) == item  # the kind is saved, not re-read from the words


def test_a_plan_edited_by_rule_keeps_each_items_kind():
    night = I.PlanItem(datetime(2023, 2, 14, 21), 600, "resting for the night", "a:b:c", kind=I.SLEEP)
    talk = I.PlanItem(datetime(2023, 2, 14, 22), 30, "talking with Klaus", "a:b:d")
    out = I.cut_in([night], talk)
    assert [x.kind for x in out] == [I.SLEEP, I.ACTIVITY, I.SLEEP]
    assert night.moved(datetime(2023, 2, 14, 23)).sleep


def test_an_item_of_the_kind_sleep_is_slept_through_without_a_call_whatever_its_words():
    m, gw = make_mind()
    m.now = datetime(2023, 2, 14, 13, 0)
    m.today.planned_for = m.now.date()
    m.today.plan = [I.PlanItem(datetime(2023, 2, 14, 6), 420, "running the cafe", m.persona.workplace),
                    I.PlanItem(datetime(2023, 2, 14, 13), 60, "lying down for a while", m.persona.home,
                               kind=I.SLEEP),
                    I.PlanItem(datetime(2023, 2, 14, 14), 60, "running the cafe", m.persona.workplace)]
    calls = len(gw.fake.calls)
    act = next_action(m)
    assert act.description == "sleeping" and act.end == datetime(2023, 2, 14, 14)
    assert len(gw.fake.calls) == calls  # no call to break a sleep into steps


def test_the_body_sleeps_as_the_actions_kind_says_and_reads_words_only_without_one():
    from agents.support.types import Action
    from game.sim.bodies import is_sleep

    m, _ = make_mind()
    m.now = datetime(2023, 2, 14, 13, 0)
    m.today.planned_for = m.now.date()
    m.today.plan = [I.PlanItem(datetime(2023, 2, 14, 13), 60, "lying down for a while", m.persona.home,
                               kind=I.SLEEP)]
    nap = next_action(m)
    assert nap.kind == I.SLEEP and is_sleep(nap)
    at = datetime(2023, 2, 14, 22)
    assert is_sleep(Action("sleeping", "a:b:c:bed", at, 60))  # a stand-in's action, an old save: its words
    assert not is_sleep(Action("getting ready for bed", "a:b:c", at, 10))
    assert not is_sleep(Action("napping", "a:b:c", at, 10, kind=I.ACTIVITY))  # the kind, not the words
    old = {k: v for k, v in nap.to_dict().items() if k != "kind"}
    assert Action.from_dict(old).kind == "" and Action.from_dict(nap.to_dict()).kind == I.SLEEP
