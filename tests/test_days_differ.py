"""No day like the day before (issue 45): the embedded model, choosing each slot of its day
among candidates, took the first every day (90% of a week's activities were the day
before's). A meal or free time spent yesterday at that hour is not offered again while
something else is, and what was not done lately comes first; work stays; what was
arranged still comes in (agents/planning/plan.py fresh_first)."""
from __future__ import annotations

import itertools
from datetime import datetime

from agents.planning import day as days
from agents.planning.arrangements import Arrangement
from agents.planning.plan import PlanItem, days_before, fresh_first, item_at
from agents.residents.mind_settings import MindSettings
from tests.scripted_minds import make_mind, persona, plausible
from tests.test_candidates import CHOOSING, PUB, picker

STORE = "the Ville:The Willows Market and Pharmacy:store"


def week(n: int, arrangement: Arrangement | None = None) -> list[list[PlanItem]]:
    """``n`` days of a resident whose model always chooses the first option."""
    m, _gw = make_mind(picker(0), settings=CHOOSING)
    m.spatial.add(PUB, with_defaults=True)
    m.spatial.add(STORE, with_defaults=True)
    if arrangement is not None:
        m.today.arrangements.append(arrangement)
    out = []
    for d in range(n):
        m.start_turn(datetime(2023, 2, 13 + d, 7, 0))
        days.new_day(m)
        out.append(list(m.today.plan))
    return out


def words(plan: list[PlanItem]) -> list[str]:
    return [x.description for x in plan]


def test_no_day_plan_is_the_day_befores_and_work_stays():
    plans = week(4)
    for before, after in itertools.pairwise(plans):
        assert words(after) != words(before)
        noon, evening = (after[0].start.replace(hour=h) for h in (12, 19))
        for t in (noon, evening):  # lunch and the evening: not as yesterday
            assert item_at(after, t).description != item_at(before, t.replace(day=before[0].start.day)).description
        assert [item_at(after, after[0].start.replace(hour=h)).description for h in (8, 13)] == ["running the cafe"] * 2
    # over the days, lunch is had in more than two ways, and the evening too: no two-day round
    assert len({item_at(p, p[0].start.replace(hour=12)).description for p in plans}) >= 3
    assert len({item_at(p, p[0].start.replace(hour=19)).description for p in plans}) >= 3


def test_an_arrangement_still_comes_in_whatever_yesterday_was():
    lunch = Arrangement(datetime(2023, 2, 15, 12), 60, "having lunch with Maria Lopez", PUB,
                        "agreed with Maria Lopez on Monday February 13")
    plans = week(3, lunch)
    got = item_at(plans[2], datetime(2023, 2, 15, 12))
    assert got is not None and (got.description, got.address) == ("having lunch with Maria Lopez", PUB)


def test_yesterday_is_read_from_the_plan_memory_and_the_fresh_comes_first():
    m, _gw = make_mind(picker(0), settings=CHOOSING)
    m.start_turn(datetime(2023, 2, 14, 5))
    m.remember("plan", f"{m.name}'s plan for Monday February 13: 06:00-12:00 running the cafe; "
               "12:00-13:00 having lunch at Hobbs Cafe; 13:00-22:00 running the cafe; 22:00-06:00 sleeping", 5,
               subject=m.name)
    before = days_before(m, datetime(2023, 2, 14, 6))
    assert [x.description for x in before[0]][:2] == ["running the cafe", "having lunch at Hobbs Cafe"]
    slot = PlanItem(datetime(2023, 2, 14, 12), 60, "having lunch", persona().home)
    options = [("having lunch at Hobbs Cafe", "a"), ("cooking lunch", "b"),
               ("having lunch at The Rose and Crown Pub", "c")]
    assert sorted(o[0] for o in fresh_first(options, slot, persona(), before)) == [
        "cooking lunch", "having lunch at The Rose and Crown Pub"]
    # with one thing else only, yesterday's stays, last (a slot of one option is no choice)
    assert fresh_first(options[:2], slot, persona(), before) == [options[1], options[0]]


def test_inviting_people_and_the_inner_voices_wishes_are_offered_again_as_yesterday():
    m, _gw = make_mind(picker(0), settings=CHOOSING)
    m.start_turn(datetime(2023, 2, 14, 5))
    m.remember("plan", f"{m.name}'s plan for Monday February 13: 06:00-13:00 running the cafe; "
               "13:00-17:00 inviting friends to the Valentine's Day party; 17:00-06:00 sleeping", 5, subject=m.name)
    before = days_before(m, datetime(2023, 2, 14, 6))
    slot = PlanItem(datetime(2023, 2, 14, 13), 60, "taking a walk", "the Ville:Johnson Park:park")
    options = [("taking a walk", "a"), ("inviting friends to the Valentine's Day party", "b"), ("reading", "c")]
    invite = ["inviting friends to the Valentine's Day party"]
    got = [o[0] for o in fresh_first(options, slot, persona(), before, keep=invite)]
    assert got[1] == invite[0] and sorted(got) == sorted(o[0] for o in options)  # where it was offered
    assert "inviting friends to the Valentine's Day party" not in [o[0] for o in fresh_first(options, slot, persona(),
                                                                                             before)]


def test_a_model_that_writes_its_day_sees_yesterdays_plan():
    m, gw = make_mind(plausible, settings=MindSettings(planning="guided", grounded=False))
    for d in (13, 14):
        m.start_turn(datetime(2023, 2, d, 7, 0))
        days.new_day(m)
    first, second = [c[1][-1]["content"] for c in gw.fake.calls if c[0] == "day_plan"]
    assert "Yesterday's plan: (none)" in first
    assert "Yesterday's plan: 06:00 " in second and "12:00 having lunch with a friend" in second
    assert "do not repeat yesterday" in second


def test_what_the_yesterday_prompt_reads_stays_bounded_however_full_the_day_was():
    m, gw = make_mind(plausible, settings=MindSettings(planning="guided", grounded=False))
    m.start_turn(datetime(2023, 2, 13, 7, 0))
    days.new_day(m)
    m.today.log = [f"{h:02d}:{mi:02d} doing thing number {h * 60 + mi} (a place:a room)"
                   for h in range(7, 23) for mi in range(0, 60, 5)]
    m.today.chats = [f"with Person {i}: I said " + "a long story about the day " * 20 for i in range(40)]
    m.start_turn(datetime(2023, 2, 14, 7, 0))
    days.new_day(m)
    asked = [c[1][-1]["content"] for c in gw.fake.calls if c[0] == "yesterday"]
    assert len(asked) == 1
    assert asked[0].count("doing thing number") == days.YESTERDAY_LOG
    assert asked[0].count("with Person") == days.YESTERDAY_CHATS and "with Person 39" in asked[0]
    assert len(asked[0]) < 3000  # it read 24 log lines and 8 whole chats before


def test_the_same_choices_come_in_an_order_of_each_residents_own_for_the_day():
    """In one order for all, the whole town took the first: on the second day of a run all eight
    residents spent the evening over a drink at the same pub (52 conversations against 37)."""
    import dataclasses
    slot = PlanItem(datetime(2023, 2, 15, 19), 180, "spending the evening unwinding",
                    "the Ville:The Rose and Crown Pub:pub")
    yesterday = [[PlanItem(datetime(2023, 2, 14, 19), 180, "attending the party", "the Ville:Hobbs Cafe:cafe")]]
    options = [("spending the evening unwinding", "a"), ("having a drink at The Rose and Crown Pub", "b"),
               ("taking a walk in Johnson Park", "c"), ("having a coffee at Hobbs Cafe", "d"), ("reading a book", "e")]
    names = ["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller", "Sam Moore", "Ayesha Khan", "Arthur Burton"]
    firsts = {fresh_first(options, slot, dataclasses.replace(persona(), name=n), yesterday)[0][0] for n in names}
    assert len(firsts) >= 3  # the evening spread over the town
    again = fresh_first(options, slot, persona(), yesterday)
    assert again == fresh_first(options, slot, persona(), yesterday) and sorted(again) == sorted(options)
    tomorrow = dataclasses.replace(slot, start=datetime(2023, 2, 16, 19))
    assert any(fresh_first(options, tomorrow, dataclasses.replace(persona(), name=n), yesterday)
               != fresh_first(options, slot, dataclasses.replace(persona(), name=n), yesterday) for n in names)


def test_a_grounded_mind_says_yesterday_by_rule_without_asking():
    """The embedded model's summaries of yesterday were made up ("2019-02-07: Isabella Rodriguez ...
    wanted to spend more time with her children") and half ran past their limit: the grounded mode
    says what the resident did and whom it talked with, with no call."""
    m, gw = make_mind(picker(0), settings=CHOOSING)
    m.start_turn(datetime(2023, 2, 13, 7, 0))
    days.new_day(m)
    m.today.log = ["07:00 having breakfast (Hobbs Cafe:cafe)", "08:00 running the cafe (Hobbs Cafe:cafe)",
                   "09:00 running the cafe (Hobbs Cafe:cafe)",
                   "17:00 hosting the Valentine's Day party (Hobbs Cafe:cafe)"]
    m.today.chats = ["with Klaus Mueller: the party", "with Maria Lopez: lunch", "with Klaus Mueller: books"]
    m.start_turn(datetime(2023, 2, 14, 7, 0))
    days.new_day(m)
    assert not [c for c in gw.fake.calls if c[0] == "yesterday"]
    assert m.yesterday == ("having breakfast, running the cafe, hosting the Valentine's Day party; "
                           "talked with Klaus Mueller and Maria Lopez")
