"""Planning: the model's day validated and repaired item by item (each says where it
came from), the routine only where the model's plan is unusable, decomposition at
known objects, replanning the rest of the day, both planning modes."""
import itertools
from collections import Counter
from datetime import datetime, timedelta
from types import SimpleNamespace as NS

import pytest
from pydantic import ValidationError

from agents import provenance as pv
from agents.planning import plan as P
from agents.planning.decompose import steps_schema, validate_steps
from agents.planning.object_use import is_sleep
from agents.planning.replan import replan_rest
from agents.recall.spatial import SpatialMemory
from agents.residents.mind_settings import MindSettings
from tests.scripted_minds import garbage, make_mind, persona, plausible, situation

DAY = datetime(2023, 2, 13, 6, 0)
NEXT_WAKE = DAY + timedelta(days=1)
HOME = "Isabella Rodriguez's apartment:main room"
BATH = "Isabella Rodriguez's apartment:bathroom"


def world():
    who = persona()
    sp = SpatialMemory()
    sp.seed(who)
    labels = [sp.label(a) for a in sp.arenas()]
    resolve = dict(zip(labels, sp.arenas())).get
    return who, sp, resolve


def item(start, minutes, activity, place="Hobbs Cafe:cafe"):
    return NS(start=start, minutes=minutes, activity=activity, place=place)


def repair(raw, counts=None):
    who, sp, resolve = world()
    routine = P.routine(who, sp, DAY, MindSettings())
    return P.repair_plan(raw, who, sp, DAY, NEXT_WAKE, MindSettings(), resolve, routine, counts)


def check_day(items, who):
    for a, b in itertools.pairwise(items):
        assert a.end == b.start  # ordered, no overlaps, no gaps
    assert items[0].start == DAY.replace(hour=who.wake_hour)
    night = items[-1]
    assert is_sleep(night.description) and night.address == who.home
    assert DAY.replace(hour=20) <= night.start <= DAY.replace(hour=0) + timedelta(days=1)
    assert night.end == NEXT_WAKE


def by_time(items):
    return {f"{x.start:%H:%M}": x for x in items}


def test_a_good_plan_is_the_models_own():
    who, _sp, _ = world()
    got = repair([item("06:00", 60, "wake up and shower", BATH), item("07:00", 60, "have breakfast", HOME),
                  item("08:00", 240, "open the cafe and serve customers"), item("12:00", 60, "have lunch"),
                  item("13:00", 240, "bake pastries for tomorrow"), item("17:00", 120, "cook dinner", HOME),
                  item("19:00", 180, "walk in the park", "Johnson Park:park"), item("22:00", 480, "go to bed", HOME)])
    check_day(got, who)
    assert [x.source for x in got] == [pv.MODEL] * 8
    assert [x.description for x in got][:3] == ["waking up and shower", "having breakfast",
                                                       "opening the cafe and serve customers"]


def test_garbage_plan_falls_back_to_routine_and_says_so():
    who, sp, _resolve = world()
    assert repair([item("banana", 3, "??")]) is None
    m, _ = make_mind(garbage)
    m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    routine = P.routine(who, sp, DAY, MindSettings())
    assert [x.line() for x in m.plan] == [x.line() for x in routine]
    assert {x.source for x in m.plan} == {"routine: invalid answer"}
    assert m.fallbacks["day plan: invalid answer"] == 1


def test_unusable_items_are_replaced_by_the_routines_and_the_rest_is_kept():
    who, _, _ = world()
    counts = Counter()
    got = repair([
        item("13:00", 300, "serve customers"),
        item("09:30", 60, "bake pastries"),
        item("10:00", 60, "having dinner"),  # dinner at 10 am: not usable
        item("06:00", 120, "open the cafe"),
        item("12:00", 60, "lunch at the counter"),
        item("12:00", 30, "duplicate start"),  # two items at one time: the first given wins
        item("14:00", 90, "take a nap"),  # sleeping by day: not usable
        item("17:30", 60, "dinner", HOME),
        item("19:00", 60, "walk in the park", "Johnson Park:park"),
        item("03:00", 60, "before wake-up"),
        item("25:00", 60, "no such hour"),
    ], counts)
    check_day(got, who)
    t = by_time(got)
    assert t["06:00"].description == "opening the cafe" and t["06:00"].source == pv.MODEL
    assert t["10:00"].source.startswith("routine: having dinner at 10:00")
    assert t["13:00"].description == "serving customers" and t["13:00"].source == pv.MODEL
    assert t["14:00"].source.startswith("routine: sleeping at 14:00")
    assert got[-1].source == "rule: sleep at night" and got[-1].start == DAY.replace(hour=22)
    assert counts["plan item rejected"] >= 5


def test_a_place_that_does_not_fit_is_repaired():
    got = repair([item("06:00", 60, "take a shower", "Hobbs Cafe:cafe"), item("07:00", 60, "have breakfast", HOME),
                  item("08:00", 240, "serve customers"), item("12:00", 60, "have lunch"),
                  item("13:00", 240, "serve customers at the counter"), item("22:00", 480, "sleep", "Hobbs Cafe:cafe")])
    t = by_time(got)
    assert t["06:00"].address.endswith("bathroom") and t["06:00"].source.startswith("repaired: Hobbs Cafe:cafe ->")
    assert got[-1].address.endswith(HOME) and got[-1].source == "repaired: sleeps at home"
    assert pv.model_led(t["06:00"].source)


def test_gaps_and_a_late_start_are_filled_from_the_routine():
    who, _, _ = world()
    got = repair([item("08:00", 60, "open the cafe"), item("12:00", 60, "have lunch"),
                  item("19:00", 60, "walk in the park", "Johnson Park:park"), item("22:00", 480, "sleep", HOME)])
    check_day(got, who)
    t = by_time(got)
    assert t["06:00"].source == "routine: the model's day began at 08:00"
    assert t["09:00"].source == "routine: the model left 09:00-12:00 open"
    assert t["13:00"].source == "routine: the model left 13:00-19:00 open"
    assert t["08:00"].source == t["12:00"].source == pv.MODEL


def test_half_a_day_of_one_thing_is_cut():
    got = repair([item("06:00", 60, "get ready", BATH), item("07:00", 780, "serve customers"),
                  item("22:00", 480, "sleep", HOME)])
    assert got is None  # two usable strokes for a whole day: the routine's day
    got = repair([item("06:00", 60, "get ready", BATH), item("07:00", 60, "have breakfast", HOME),
                  item("08:00", 60, "open the cafe"), item("09:00", 720, "serve customers"),
                  item("22:00", 480, "sleep", HOME)])
    long = by_time(got)["09:00"]
    after = got[got.index(long) + 1]
    assert long.minutes == 6 * 60 and after.source.startswith("routine: serving customers ran too long")


def test_schema_enumerates_known_places_times_and_durations():
    _who, sp, _ = world()
    labels = tuple(sp.label(a) for a in sp.arenas())
    Schema = P.day_plan_schema(labels, P.plan_hours(DAY))
    ok = [{"start": "07:00", "minutes": 60, "activity": "x", "place": labels[0]}] * 5
    Schema(items=ok)
    for bad in ({"place": "Moon Base:crater"}, {"start": "29:00"}, {"minutes": 7}):
        with pytest.raises(ValidationError):
            Schema(items=[{**ok[0], **bad}] * 5)
    assert P.plan_hours(datetime(2023, 2, 13, 9, 12))[:3] == ("09:12", "09:30", "10:00")
    Steps = steps_schema(labels, 4)
    with pytest.raises(ValidationError):
        Steps(steps=[{"activity": "x", "minutes": 10, "place": "Nowhere"}])


def test_steps_tile_the_chunk_and_keep_the_models_objects_where_they_fit():
    who, sp, _resolve = world()
    it = P.PlanItem(DAY.replace(hour=8), 240, "making coffee for customers", "the Ville:Hobbs Cafe:cafe")
    start, end = DAY.replace(hour=8, minute=10), DAY.replace(hour=9, minute=10)
    objs = {o.rsplit(":", 1)[1]: o for o in sp.objects(it.address)}
    raw = [NS(activity="brew coffee", minutes=40, place="coffee machine"),
           NS(activity="greet a customer", minutes=5, place="piano"),  # the piano is not for greeting
           NS(activity="wipe the counter", minutes=10, place="cafe counter"),
           NS(activity="5 minutes", minutes=10, place="cafe counter")]  # junk
    acts = validate_steps(raw, sp, it, start, end, objs.get, persona=who)
    assert acts[0].start == start and acts[-1].end == end
    for a, b in itertools.pairwise(acts):
        assert a.end == b.start
    assert [a.duration_min for a in acts[:3]] == [15, 5, 10]  # clamped to 5-15
    assert acts[0].address.endswith("coffee machine") and acts[0].object_state == "brewing coffee"
    assert acts[0].source == pv.MODEL and acts[0].emoji == "☕"
    assert acts[1].source.startswith("repaired: piano ->")
    assert acts[2].address.endswith("cafe counter") and acts[2].source == pv.MODEL
    # the junk step and the rest of the chunk: the plan item's own words, by rule
    assert acts[3].source.startswith("rule: invalid answer") and acts[3].description == it.description
    assert acts[3].end == end


def test_cut_in_keeps_the_rest_of_the_day():
    who, sp, _ = world()
    plan = P.routine(who, sp, DAY, MindSettings())
    now = DAY.replace(hour=9, minute=30)
    new = P.cut_in(plan, P.PlanItem(now, 20, "chatting with Maria", "the Ville:Hobbs Cafe:cafe", pv.MODEL))
    work = [x for x in new if x.description.startswith("running")]
    assert P.item_at(new, now + timedelta(minutes=5)).description == "chatting with Maria"
    assert P.item_at(new, now - timedelta(minutes=5)).description.startswith("running")
    assert P.item_at(new, now + timedelta(minutes=25)).description.startswith("running")
    assert len(work) == 3  # morning work split around it, afternoon untouched
    for a, b in itertools.pairwise(new):
        assert a.end == b.start


def test_replanning_keeps_what_is_done_and_starts_with_the_reaction():
    m, gw = make_mind(plausible)
    m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    now = datetime(2023, 2, 13, 9, 15)
    m.now = now
    done = [(x.start, x.description) for x in m.plan if x.start < now]
    first = P.PlanItem(now, 20, "helping a customer who fell", "the Ville:Hobbs Cafe:cafe", pv.MODEL)
    m.plan = replan_rest(m, now, "Isabella notices: a customer fell", first)
    assert [(x.start, x.description) for x in m.plan if x.start < now] == done  # the past is kept
    assert max(x.end for x in m.plan if x.start < now) == now
    cur = P.item_at(m.plan, now)
    assert cur.description == "helping a customer who fell" and cur.start == now
    assert "replan" in [c[0] for c in gw.fake.calls]
    prompt = next(c[1][-1]["content"] for c in gw.fake.calls if c[0] == "replan")
    assert "a customer fell" in prompt and "helping a customer who fell for 20 minutes" in prompt
    assert is_sleep(m.plan[-1].description)


def test_a_failed_replan_cuts_the_reaction_in_by_rule():
    def no_replan(purpose, messages, schema):
        return "nonsense" if purpose == "replan" else plausible(purpose, messages, schema)

    m, _ = make_mind(no_replan)
    m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    now = datetime(2023, 2, 13, 9, 15)
    m.now = now
    before = len(m.plan)
    m.plan = replan_rest(m, now, "something happened",
                           P.PlanItem(now, 20, "calling for help", "the Ville:Hobbs Cafe:cafe", pv.MODEL))
    assert P.item_at(m.plan, now).description == "calling for help" and len(m.plan) >= before
    assert m.fallbacks["replan: invalid answer"] == 1


def test_guided_mode_puts_the_models_words_on_the_routines_times():
    m, gw = make_mind(plausible, settings=MindSettings(planning="guided"))
    m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    routine = P.routine(m.persona, m.spatial, DAY, MindSettings())
    assert [x.start for x in m.plan] == [x.start for x in routine]
    assert any(x.description == "working on projects" and x.source == "repaired: guided mode" for x in m.plan)
    prompt = next(c[1][-1]["content"] for c in gw.fake.calls if c[0] == "day_plan")
    assert "usual day" in prompt


def test_mind_sleeps_at_night_and_decomposes_lazily():
    m, gw = make_mind(plausible)
    d = m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    assert d.action is not None and 5 <= d.action.duration_min <= 15
    assert m.spatial.knows(d.action.address) and pv.kind_of(d.action.source) != "unknown"
    plans = m.memory.by_kind("plan")
    assert len(plans) == 1 and "plan for Monday February 13" in plans[0].description
    calls = len(gw.fake.calls)
    d = m.decide(situation(datetime(2023, 2, 13, 23, 30), action=d.action, done=True))
    assert d.action.description == "sleeping" and d.action.address.endswith(":bed")
    assert d.action.end == datetime(2023, 2, 14, 6, 0) and d.action.emoji == "😴"
    assert d.action.object_state == "occupied"
    assert [c[0] for c in gw.fake.calls[calls:]] in ([], ["importance"])  # sleeping needs no model call


def test_late_riser_sleeps_until_wake_at_story_start():
    m, _ = make_mind(plausible, who=persona(wake=9))
    d = m.decide(situation(datetime(2023, 2, 13, 7, 0)))
    assert d.action.description == "sleeping" and d.action.end == datetime(2023, 2, 13, 9, 0)


def test_the_routines_lunch_is_spread_over_the_cafe_the_pub_and_home():
    """Every routine's lunch at the cafe put 21 of 25 at Hobbs Cafe at noon."""
    from agents.residents.persona import load_cast
    from game.world.map_reader import load_town
    from tests.test_play import MAP

    town = load_town(MAP)
    people, _ = load_cast(MAP.parent)
    places = Counter()
    for p in people:
        sp = SpatialMemory()
        for sector, arenas in town.tree.items():
            for arena in arenas:
                sp.add(f"the Ville:{sector}:{arena}")
        day = P.routine(p, sp, datetime(2023, 2, 13), MindSettings())
        lunch = next(i for i in day if i.description == "having lunch")
        kind = "home" if lunch.address.split(":")[1] == p.home.split(":")[1] else lunch.address.split(":")[2]
        places[kind] += 1
        if p.workplace.endswith((":cafe", ":pub")):
            assert lunch.address == p.workplace  # Isabella lunches at her cafe, Arthur at his pub
    assert places == Counter(home=10, cafe=8, pub=7)
    assert max(places.values()) <= len(people) / 2
