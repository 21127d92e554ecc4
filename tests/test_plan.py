"""Planning: validation of day plans and steps, fallbacks, known places only."""
from datetime import datetime, timedelta
from types import SimpleNamespace as NS

import pytest
from pydantic import ValidationError

from agents import plan as P
from agents.settings import MindSettings
from agents.spatial import SpatialMemory
from tests.scripted_minds import garbage, make_mind, persona, plausible, situation

DAY = datetime(2023, 2, 13, 6, 0)


def world():
    who = persona()
    sp = SpatialMemory()
    sp.seed(who)
    labels = [sp.label(a) for a in sp.arenas()]
    resolve = dict(zip(labels, sp.arenas())).get
    return who, sp, resolve


def item(start, minutes, activity, place="Hobbs Cafe:cafe"):
    return NS(start=start, minutes=minutes, activity=activity, place=place)


def check_day(items, who):
    assert 5 <= len(items) <= 8
    for a, b in zip(items, items[1:]):
        assert a.end == b.start  # ordered, no overlaps, no gaps
    assert items[0].start == DAY.replace(hour=who.wake_hour)
    night = items[-1]
    assert P.is_sleep(night.description) and night.address == who.home
    assert DAY.replace(hour=20) <= night.start <= DAY.replace(hour=0) + timedelta(days=1)
    assert night.end == DAY.replace(hour=who.wake_hour) + timedelta(days=1)


def test_garbage_plan_falls_back_to_routine():
    who, sp, resolve = world()
    assert P.validate_day_plan([item("banana", 3, "??")], who, sp, DAY, MindSettings(), resolve) is None
    routine = P.routine(who, sp, DAY, MindSettings())
    check_day(routine, who)
    assert any(x.address == who.workplace for x in routine)
    m, _ = make_mind(garbage)
    m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    assert [x.line() for x in m.plan] == [x.line() for x in routine]


def test_overlaps_order_and_sleep_are_fixed():
    who, sp, resolve = world()
    raw = [
        item("13:00", 300, "serve customers"),
        item("09:30", 60, "bake pastries"),
        item("10:00", 60, "having dinner"),  # dinner at 10 am: dropped
        item("07:00", 600, "open the cafe"),  # overlaps everything after it
        item("12:00", 60, "lunch"),
        item("12:00", 30, "duplicate start"),
        item("14:00", 90, "take a nap"),  # sleeping by day: dropped
        item("17:30", 60, "dinner", "Isabella Rodriguez's apartment:main room"),
        item("19:00", 60, "walk in the park", "Johnson Park:park"),
        item("03:00", 60, "before wake-up"),
        item("25:00", 60, "no such hour"),
    ]
    got = P.validate_day_plan(raw, who, sp, DAY, MindSettings(), resolve)
    check_day(got, who)
    assert [x.description for x in got][:6] == ["open the cafe", "bake pastries", "lunch", "serve customers",
                                                "dinner", "walk in the park"]
    assert got[-1].start == DAY.replace(hour=22)  # no sleep item: bedtime at 22:00


def test_nonsense_plans_are_rejected():
    who, sp, resolve = world()
    S = MindSettings()
    looping = [item(f"{h:02d}:00", 60, "having coffee") for h in (6, 9, 12, 15, 18)]
    assert P.validate_day_plan(looping, who, sp, DAY, S, resolve) is None
    long_lunch = [item("06:00", 60, "wake up"), item("07:00", 60, "dress"), item("08:00", 60, "work"),
                  item("09:00", 60, "read"), item("11:30", 60, "lunch"), item("21:00", 60, "tv")]
    assert P.validate_day_plan(long_lunch, who, sp, DAY, S, resolve) is None  # a 9.5-hour lunch
    late = [item(f"{h:02d}:00", 60, f"t{h}") for h in (11, 13, 15, 17, 19)]
    assert P.validate_day_plan(late, who, sp, DAY, S, resolve) is None  # no morning


def test_a_skipped_working_day_is_filled_from_the_routine():
    who, sp, resolve = world()
    S = MindSettings()
    routine = P.routine(who, sp, DAY, S)
    raw = [item("06:00", 60, "waking up", "Isabella Rodriguez's apartment:bathroom"),
           item("07:00", 60, "having breakfast", "Isabella Rodriguez's apartment:main room"),
           item("12:00", 60, "having lunch"),
           item("19:00", 60, "unwinding", "Johnson Park:park"),
           item("22:00", 60, "going to bed and sleeping")]
    assert P.validate_day_plan(raw, who, sp, DAY, S, resolve) is None  # 07:00-12:00, 12:00-19:00
    got = P.validate_day_plan(raw, who, sp, DAY, S, resolve, routine)
    check_day(got, who)
    assert [x.description for x in got] == ["waking up", "having breakfast", "running the cafe", "having lunch",
                                            "running the cafe", "having dinner", "unwinding",
                                            "going to bed and sleeping"]


def test_unknown_place_and_too_many_items():
    who, sp, resolve = world()
    raw = [item(f"{h:02d}:00", 60, f"task {h}", "Mars:crater") for h in range(7, 21)]
    raw.append(item("23:00", 420, "sleep"))
    got = P.validate_day_plan(raw, who, sp, DAY, MindSettings(), resolve)
    check_day(got, who)
    assert len(got) == 8
    assert [x.description for x in got[:7]] == [f"task {h}" for h in (7, 9, 11, 13, 16, 18, 20)]  # spread out
    assert all(sp.knows(x.address) for x in got)
    assert got[0].address == who.workplace  # an unknown place falls back to a known one


def test_schema_enumerates_known_places():
    who, sp, _ = world()
    labels = tuple(sp.label(a) for a in sp.arenas())
    Schema = P.day_plan_schema(labels, P.plan_hours(6))
    ok = [{"start": "07:00", "activity": "x", "place": labels[0]}] * 5
    Schema(items=ok)
    with pytest.raises(ValidationError):
        Schema(items=[{**ok[0], "place": "Moon Base:crater"}] * 5)
    with pytest.raises(ValidationError):
        Schema(items=[{**ok[0], "start": "29:00"}] * 5)  # times are enumerated too
    Steps = P.steps_schema(labels, 4)
    with pytest.raises(ValidationError):
        Steps(steps=[{"activity": "x", "minutes": 10, "place": "Nowhere", "emoji": "x"}])


def test_steps_tile_the_chunk_at_known_places():
    who, sp, resolve = world()
    it = P.PlanItem(DAY.replace(hour=8), 240, "making coffee for customers", "the Ville:Hobbs Cafe:cafe")
    start, end = DAY.replace(hour=8, minute=10), DAY.replace(hour=9, minute=10)
    raw = [NS(activity="brew coffee", minutes=40, place="Hobbs Cafe:cafe:coffee machine", emoji="☕"),
           NS(activity="greet a customer", minutes=2, place="Atlantis:palace", emoji="x"),
           NS(activity="wipe the counter", minutes=10, place="Hobbs Cafe:cafe", emoji="🧽")]
    acts = P.validate_steps(raw, sp, it, start, end, resolve)
    assert acts[0].start == start and acts[-1].end == end
    for a, b in zip(acts, acts[1:]):
        assert a.end == b.start
    assert [a.duration_min for a in acts[:3]] == [15, 5, 10]  # clamped to 5-15
    assert all(sp.knows(a.address) for a in acts)
    assert acts[0].address.endswith("coffee machine") and acts[0].object_state == "brewing coffee"
    assert acts[0].emoji == "☕" and acts[1].emoji != "x"
    assert acts[2].address.endswith("cafe counter")  # arena named: the object that suits is picked
    assert acts[-1].description == it.description  # the rest continues the plan item


def test_insert_reaction_replans_from_now():
    who, sp, _ = world()
    plan = P.routine(who, sp, DAY, MindSettings())
    now = DAY.replace(hour=9, minute=30)
    new = P.insert_reaction(plan, now, "chat with Maria", 20, "the Ville:Hobbs Cafe:cafe")
    work = [x for x in new if x.description.startswith("running")]
    assert P.item_at(new, now + timedelta(minutes=5)).description == "chat with Maria"
    assert P.item_at(new, now - timedelta(minutes=5)).description.startswith("running")
    assert P.item_at(new, now + timedelta(minutes=25)).description.startswith("running")
    assert len(work) == 3  # morning work split around the reaction, afternoon untouched
    for a, b in zip(new, new[1:]):
        assert a.end == b.start


def test_mind_sleeps_at_night_and_decomposes_lazily():
    m, gw = make_mind(plausible)
    d = m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    assert d.action is not None and 5 <= d.action.duration_min <= 15
    assert m.spatial.knows(d.action.address)
    plans = m.memory.by_kind("plan")
    assert len(plans) == 1 and "plan for Monday February 13" in plans[0].description
    calls = len(gw.fake.calls)
    d = m.decide(situation(datetime(2023, 2, 13, 23, 30), action=d.action, done=True))
    assert d.action.description == "sleeping" and d.action.address.endswith(":bed")
    assert d.action.end == datetime(2023, 2, 14, 6, 0) and d.action.emoji == "😴"
    assert d.action.object_state == "occupied"
    assert len(gw.fake.calls) == calls  # sleeping needs no model call


def test_late_riser_sleeps_until_wake_at_story_start():
    m, _ = make_mind(plausible, who=persona(wake=9))
    d = m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    assert d.action.description == "sleeping" and d.action.end == datetime(2023, 2, 13, 9, 0)
