"""A resident's own life in its day (issue 33, agents/planning/agenda.py): dated intentions,
events heard of and arrangements become slots of the guided day plan, offered as
choices; the model chooses whether to go, and a chosen one names its memory. Bad
memories (no date, no time, an unknown place, garbage) hold no engagement."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from agents import provenance as pv
from agents.planning import agenda
from agents.planning import plan as P
from agents.planning.arrangements import Arrangement
from agents.planning.day import consider_news
from agents.recall.memory import MemoryNode
from agents.recall.spatial import SpatialMemory
from agents.residents.mind_settings import MindSettings
from agents.support.types import Conversation, Utterance
from agents.words import dated as dt
from tests.scripted_minds import make_mind, persona, plausible, situation

FEB13 = datetime(2023, 2, 13, 9, 0)
CAFE = "the Ville:Hobbs Cafe:cafe"
PARK = "the Ville:Johnson Park:park"
PARTY = ("I want to host a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm, "
         "and to invite as many friends and customers as I can")
CHOOSING = MindSettings(planning="guided", grounded=True)


def node(text: str, kind: str = "thought", subject: str | None = "Isabella Rodriguez", i: int = 3,
         when: datetime = FEB13) -> MemoryNode:
    return MemoryNode(i, kind, text, when, when, 8, subject=subject)


def world(name: str = "Isabella Rodriguez"):
    who = persona(name)
    sp = SpatialMemory()
    sp.seed(who)
    return who, sp


# ------------------------------------------------------------------------------ reading (agents/words/dated.py)
@pytest.mark.parametrize("words, start, minutes", [
    ("from 5 pm to 7 pm", (17, 0), 120),
    ("5-7 pm", (17, 0), 120),
    ("17:00-19:00", (17, 0), 120),
    ("at 3 pm", (15, 0), dt.DEFAULT_MINUTES),
    ("at 10:30 am", (10, 30), dt.DEFAULT_MINUTES),
    ("at 14:00", (14, 0), dt.DEFAULT_MINUTES),
    ("at 5 o'clock", (17, 0), dt.DEFAULT_MINUTES),
    ("from 11 am to 1 pm", (11, 0), 120),
])
def test_times_are_read_from_the_words_people_use(words, start, minutes):
    ev = dt.parse(f"a party at Hobbs Cafe on February 14 {words}", FEB13)
    assert ev is not None and divmod(ev.start, 60) == start and ev.minutes() == minutes


@pytest.mark.parametrize("words", ["around noon", "at 27 pm", ""])
def test_no_time_no_event(words):
    assert dt.parse(f"a party at Hobbs Cafe on February 14 {words}", FEB13) is None


@pytest.mark.parametrize("words, want", [
    ("on February 14", (2, 14)), ("on Feb 14th", (2, 14)), ("the 14th of February", (2, 14)),
    ("on Valentine's Day", (2, 14)), ("tonight", (2, 13)), ("tomorrow", (2, 14)),
    ("on Wednesday", (2, 15)), ("on February 31", None), ("some day", None), ("on March 30", None),
])
def test_dates_are_read_relative_to_when_it_was_said_within_a_week(words, want):
    ev = dt.parse(f"a party at Hobbs Cafe {words} at 5 pm", FEB13)  # said on a Monday
    assert (ev.day.month, ev.day.day) == want if want else ev is None


def test_the_hosts_intention_is_hosting_at_its_time_and_place_with_invitations_before_it():
    who, sp = world()
    e = agenda.engagement_of(node(PARTY), who, sp)
    assert e is not None and e.kind == agenda.INTENTION
    assert (e.start, e.minutes, e.address) == (datetime(2023, 2, 14, 17), 120, CAFE)
    assert e.description == "hosting the Valentine's Day party at Hobbs Cafe"
    assert e.invitation() == "inviting customers to the Valentine's Day party"
    assert e.origin().startswith("memory #3 (I want to host")


def test_an_event_heard_of_is_attending_it_and_a_relayed_one_too():
    who, sp = world("Maria Lopez")
    told = node('Isabella Rodriguez told Maria: "I am hosting a Valentine\'s Day party at Hobbs Cafe on '
                'February 14, from 5 pm to 7 pm."', kind="chat", subject="Isabella Rodriguez", i=9)
    e = agenda.engagement_of(told, who, sp)
    assert e is not None and e.kind == agenda.EVENT and e.memory_id == 9
    assert e.description == "attending the Valentine's Day party at Hobbs Cafe" and not e.invites
    relayed = node("Klaus Mueller told Maria: \"There is a party at Hobbs Cafe tomorrow at 5 pm.\"", kind="chat",
                   subject="Klaus Mueller")
    e2 = agenda.engagement_of(relayed, who, sp)
    assert e2 is not None and e2.start == datetime(2023, 2, 14, 17) and e2.minutes == dt.DEFAULT_MINUTES


@pytest.mark.parametrize("text, kind", [
    ("I want to host a party at Hobbs Cafe", "thought"),  # no date, no time
    ("I want to host a party on February 14 at 5 pm", "thought"),  # no place
    ("I want to host a party at the Moon Base on February 14 at 5 pm", "thought"),  # a place nobody knows
    ("Isabella Rodriguez is at Hobbs Cafe on February 14 at 5 pm", "thought"),  # no event
    ("Maria Lopez is going to a party at Hobbs Cafe on February 14 at 5 pm", "observation"),  # merely seen
    ("Isabella's plan for Tuesday February 14: 17:00-19:00 a party at Hobbs Cafe", "plan"),  # a timetable
    ("\x00\x01 party 99:99 Hobbs Cafe Feb 99", "thought"),  # garbage
])
def test_memories_without_a_date_a_time_a_known_place_and_an_event_hold_none(text, kind):
    who, sp = world()
    assert agenda.engagement_of(node(text, kind=kind), who, sp) is None


def test_the_agenda_of_a_day_keeps_one_per_time_and_place_the_hosts_own_first():
    who, sp = world()
    heard = node('Maria Lopez told Isabella: "There is a Valentine\'s Day party at Hobbs Cafe on February 14 '
                 'at 5 pm."', kind="chat", subject="Maria Lopez", i=7)
    meet = Arrangement(datetime(2023, 2, 14, 15), 60, "meeting Maria in the park", PARK, "agreed with Maria Lopez")
    got = agenda.engagements([node(PARTY), heard], [meet], who, sp, datetime(2023, 2, 14).date())
    assert [(e.start.hour, e.kind) for e in got] == [(15, agenda.ARRANGEMENT), (17, agenda.INTENTION)]
    assert agenda.engagements([node(PARTY)], [meet], who, sp, FEB13.date()) == []  # another day


# ------------------------------------------------------------------------------ the day plan
def picker(choose):
    """A model that picks, in each slot, the option ``choose(options)`` returns."""
    def answer(purpose, messages, schema):
        if purpose == "day_plan" and "items" not in schema.model_json_schema()["properties"]:
            props = schema.model_json_schema()["properties"]
            return {k: choose(v["enum"]) for k, v in props.items()}
        return plausible(purpose, messages, schema)
    return answer


def chooser_mind(choose, name="Isabella Rodriguez"):
    m, gw = make_mind(picker(choose), CHOOSING, persona(name))
    m.decide(situation(datetime(2023, 2, 13, 6, 0)))  # seeds its memories, plans Monday
    return m, gw


def plan_feb14(m):
    m.today.planned_for = None
    m.decide(situation(datetime(2023, 2, 14, 6, 0), address=m.persona.home))
    return m.today.plan


def test_the_host_is_offered_her_party_at_its_time_and_chooses_it_with_its_memory_named():
    m, gw = chooser_mind(lambda opts: opts[0])
    m.queue_thought(PARTY, 8)
    plan = plan_feb14(m)
    at5 = P.item_at(plan, datetime(2023, 2, 14, 17, 30))
    assert at5.description == "hosting the Valentine's Day party at Hobbs Cafe" and at5.address == CAFE
    assert at5.start == datetime(2023, 2, 14, 17) and at5.end >= datetime(2023, 2, 14, 19)
    assert pv.model_led(at5.source) and "memory #" in at5.source and "Valentine" in at5.source
    prompt = [c for c in gw.fake.calls if c[0] == "day_plan"][-1][1][-1]["content"]
    assert "17:00: hosting the Valentine's Day party at Hobbs Cafe |" in prompt
    assert "inviting customers to the Valentine's Day party" in prompt  # before it, at work
    evening = next(line for line in prompt.splitlines() if line.startswith("19:00: "))
    assert "inviting" not in evening  # not after it
    after = P.item_at(plan, datetime(2023, 2, 14, 19, 30))
    assert "party" not in after.description  # the usual evening resumes after it


def test_a_resident_who_declines_keeps_the_usual_day():
    m, _ = chooser_mind(lambda opts: opts[1] if len(opts) > 1 else opts[0])
    m.queue_thought(PARTY, 8)
    plan = plan_feb14(m)
    at5 = P.item_at(plan, datetime(2023, 2, 14, 17, 30))
    assert "party" not in at5.description and "memory #" not in at5.source


def test_a_capable_model_is_not_offered_choices_and_keeps_its_own_words():
    m, gw = make_mind(plausible, MindSettings(planning="paper"))
    m.queue_thought(PARTY, 8)
    m.decide(situation(datetime(2023, 2, 14, 6, 0)))
    assert not any("hosting the Valentine" in x.description for x in m.today.plan)
    assert not any(c[0] == "day_plan" and "options" in c[1][-1]["content"] for c in gw.fake.calls)


def told_of_the_party_at_noon():
    """Maria, a chooser, with her day planned at 6 am and told of Isabella's party at noon: (mind,
    gateway, the plan before the news)."""
    m, gw = chooser_mind(lambda opts: opts[0], "Maria Lopez")
    m.today.planned_for = None
    m.decide(situation(datetime(2023, 2, 14, 6, 0), address=m.persona.home))
    before = list(m.today.plan)
    m.now = datetime(2023, 2, 14, 12, 0)
    m.remember("chat", 'Isabella Rodriguez told Maria: "I am hosting a Valentine\'s Day party at Hobbs Cafe '
               'tonight from 5 pm to 7 pm."', 7, subject="Isabella Rodriguez")
    return m, gw, before


def test_news_heard_today_has_the_chooser_reconsider_the_rest_of_the_day_once():
    m, gw, before = told_of_the_party_at_noon()
    assert not any("party" in x.description for x in before)
    calls = len(gw.fake.calls)
    assert consider_news(m) is True
    at5 = P.item_at(m.today.plan, datetime(2023, 2, 14, 17, 30))
    assert at5.description == "attending the Valentine's Day party at Hobbs Cafe"
    assert "memory #" in at5.source
    assert [x for x in m.today.plan if x.end <= m.now]  # the morning stays as it was
    assert consider_news(m) is False and len(gw.fake.calls) > calls  # once per engagement


def test_news_has_only_its_own_hours_chosen_and_the_rest_of_the_day_stays():
    # the whole rest of the day chosen anew cost the second day of a run a third more day-plan
    # calls, and broke up steps already made
    m, gw, before = told_of_the_party_at_noon()
    assert consider_news(m) is True
    prompt = [c for c in gw.fake.calls if c[0] == "day_plan"][-1][1][-1]["content"]
    offered = [line for line in prompt.splitlines() if line[:2].isdigit() and line[2] == ":"]
    assert offered and all(line.startswith("17:00: ") for line in offered)
    party = (datetime(2023, 2, 14, 17), datetime(2023, 2, 14, 19))
    untouched = [(x.start, x.description) for x in before if x.end <= party[0] or x.start >= party[1]]
    assert untouched and set(untouched) <= {(x.start, x.description) for x in m.today.plan}
    assert P.item_at(m.today.plan, datetime(2023, 2, 14, 17, 30)).description.startswith("attending the Valentine")


def test_what_was_chosen_before_stands_when_later_news_has_the_day_chosen_anew():
    # a 25-resident run: Adam's plan held the party at 5 pm and he said so; a drink agreed later had
    # the chooser choose the rest of his day anew, the party was gone, and he said "at 5 pm I'm
    # reading a book at the library"
    m, gw, _ = told_of_the_party_at_noon()
    assert consider_news(m) is True
    assert P.item_at(m.today.plan, datetime(2023, 2, 14, 17, 30)).description.startswith("attending the Valentine")
    # later news: this time the chooser takes the last option of every slot (not the party)
    gw.fake.responder = picker(lambda opts: opts[-1])
    m.now = datetime(2023, 2, 14, 14, 0)
    m.remember("chat", 'Klaus Mueller told Maria: "I am hosting a picnic at Johnson Park tonight at 8 pm."', 7,
               subject="Klaus Mueller")
    assert consider_news(m) is True
    assert P.item_at(m.today.plan, datetime(2023, 2, 14, 17, 30)).description.startswith("attending the Valentine")


def test_the_conversation_that_brings_the_news_ends_with_the_plan_reconsidered():
    m, _ = chooser_mind(lambda opts: opts[0], "Maria Lopez")
    m.today.planned_for = None
    m.decide(situation(datetime(2023, 2, 14, 6, 0), address=m.persona.home))
    m.now = datetime(2023, 2, 14, 11, 0)
    m.remember("chat", 'Isabella Rodriguez told Maria: "Come to the party at Hobbs Cafe tonight at 6 pm."', 7,
               subject="Isabella Rodriguez")
    c = Conversation(("Isabella Rodriguez", "Maria Lopez"), CAFE, datetime(2023, 2, 14, 10, 55))
    c.lines.append(Utterance("Isabella Rodriguez", "Come to the party at Hobbs Cafe tonight at 6 pm.", False, "model"))
    m.end_conversation(c, datetime(2023, 2, 14, 11, 0))
    assert "party" in P.item_at(m.today.plan, datetime(2023, 2, 14, 18, 30)).description
    assert m.today.considered and m.to_state()["considered"] == m.today.considered


def test_the_party_slot_has_party_steps():
    from agents.words.activity import item_steps
    for name in ("Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"):
        hosting = item_steps("hosting the Valentine's Day party at Hobbs Cafe", "cafe", persona(name))
        attending = item_steps("attending the Valentine's Day party at Hobbs Cafe", "cafe", persona(name))
        assert len(hosting) >= 3 and any("guests" in s for s in hosting)
        assert len(attending) >= 3 and all("party" not in s or "host" in s for s in attending)
        assert "working" not in " ".join(hosting + attending)


def test_an_engagement_past_bedtime_or_before_waking_gets_no_slot():
    who, sp = world()
    day = datetime(2023, 2, 14, 6)
    routine = P.routine(who, sp, day, MindSettings())
    late = agenda.Engagement(datetime(2023, 2, 14, 23, 30), 60, "attending the party at Hobbs Cafe", CAFE,
                             agenda.EVENT, 1, "x")
    early = agenda.Engagement(datetime(2023, 2, 14, 4, 0), 60, "attending the party at Hobbs Cafe", CAFE,
                              agenda.EVENT, 2, "x")
    skeleton, placed = P.with_engagements(routine, [late, early])
    assert placed == [] and [x.start for x in skeleton] == [x.start for x in routine]
    ok = agenda.Engagement(day + timedelta(hours=11), 120, "attending the party at Hobbs Cafe", CAFE,
                           agenda.EVENT, 3, "x")
    inside = agenda.Engagement(day + timedelta(hours=12), 60, "meeting with Maria", PARK, agenda.ARRANGEMENT)
    skeleton, placed = P.with_engagements(routine, [ok, inside])
    assert placed == [ok] and any(x.start == ok.start for x in skeleton)


def test_the_steps_of_a_chosen_engagement_name_its_memory_for_why_and_the_timeline():
    m, _ = chooser_mind(lambda opts: opts[0])
    m.queue_thought(PARTY, 8)
    plan_feb14(m)
    d = m.decide(situation(datetime(2023, 2, 14, 17, 0), address=CAFE))
    assert "party" in P.item_at(m.today.plan, m.now).description
    assert "memory #" in d.action.source and pv.kind_of(d.action.source) in pv.KINDS
    assert agenda.origin_in(P.item_at(m.today.plan, m.now).source).startswith("memory #")


def test_a_line_that_mixes_the_event_with_the_next_plan_item_keeps_the_events_own_time_and_place():
    said = "I'm attending the Valentine's Day party at Hobbs Cafe today; at 2 pm I'm running the cafe at Hobbs Cafe."
    assert dt.parse(said, FEB13) is None  # no time in the event's own clause: no guess
    told = ('Eddy Lin told Maria: "I study at Oak Hill College. Isabella is hosting a Valentine\'s Day party at '
            'Hobbs Cafe on February 14, from 5 pm to 7 pm."')
    who, sp = world("Maria Lopez")
    sp.add("the Ville:Oak Hill College:library", with_defaults=True)
    e = agenda.engagement_of(node(told, kind="chat", subject="Eddy Lin"), who, sp)
    assert e is not None and e.address == CAFE and e.start == datetime(2023, 2, 14, 17)


def test_what_one_agreed_to_is_in_the_plan_even_when_the_chooser_would_keep_the_usual_day():
    """An accepted invitation was the model's yes already (issue 46): it is not offered again as a
    choice the chooser could turn down, later that day or on the day it is for."""
    usual = lambda opts: opts[-1]  # noqa: E731 - the routine's words, never the engagement
    for when in (datetime(2023, 2, 14, 11, 0), datetime(2023, 2, 13, 11, 0)):
        m, _ = chooser_mind(usual, "Maria Lopez")
        plan_feb14(m) if when.day == 14 else None
        m.now = when
        m.today.arrangements.append(Arrangement(datetime(2023, 2, 14, 17), 120,
                                                "attending the Valentine's Day party at Hobbs Cafe", CAFE,
                                                "with Isabella Rodriguez on Tuesday February 14"))
        if when.day == 14:
            consider_news(m)
        else:
            plan_feb14(m)
        at5 = P.item_at(m.today.plan, datetime(2023, 2, 14, 17, 30))
        assert at5.description == "attending the Valentine's Day party at Hobbs Cafe" and at5.address == CAFE
