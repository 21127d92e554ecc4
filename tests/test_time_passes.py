"""A town that lives on (issue 45): time passes in memory, gatherings are remembered as
they went, and residents start stories of their own."""
from __future__ import annotations

from datetime import datetime, timedelta

from agents import dialogue as dg
from agents.explain import provenance as pv
from agents.mind.core import Mind
from agents.planning import day as days
from agents.planning import recaps, stories
from agents.planning.plan import PlanItem
from agents.recall import grounding as gr
from agents.recall import insights, reflect
from agents.recall.memory import MemoryNode
from agents.residents.mind_settings import MindSettings
from agents.residents.persona import Persona
from agents.support.types import Conversation
from agents.talk import reactions
from agents.words import dated as dt
from tests.fakes import HashEmbedder, make_gateway
from tests.scripted_minds import persona, plausible

FEB13, FEB14, FEB15 = datetime(2023, 2, 13, 7), datetime(2023, 2, 14, 9), datetime(2023, 2, 15, 9)
PARTY = ("I want to host a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm, "
         "and to invite as many friends and customers as I can")


def node(text: str, made: datetime, kind: str = "thought", source: str = "") -> MemoryNode:
    return MemoryNode(1, kind, text, made, made, 8, subject="Isabella Rodriguez", source=source)


# ------------------------------------------------------------------------- what is past
def test_a_dated_intention_is_past_once_its_event_ends():
    assert not dt.ended(PARTY, FEB13, datetime(2023, 2, 14, 18, 59))
    assert dt.ended(PARTY, FEB13, datetime(2023, 2, 14, 19, 0))
    assert dt.ended(PARTY, FEB13, FEB15)


def test_today_and_tomorrow_are_read_as_of_when_they_were_said():
    heard = 'Isabella Rodriguez told Maria: "I\'m hosting a Valentine\'s Day party at Hobbs Cafe tomorrow at 5 pm"'
    assert not dt.ended(heard, FEB13, datetime(2023, 2, 14, 16))
    assert dt.ended(heard, FEB13, datetime(2023, 2, 14, 20))


def test_looking_forward_without_an_hour_is_past_the_day_after_and_a_recap_never_is():
    ahead = "I am looking forward to the Valentine's Day party at Hobbs Cafe on February 14."
    assert not dt.ended(ahead, FEB14, datetime(2023, 2, 14, 20)) and dt.ended(ahead, FEB14, FEB15)
    recap = "I hosted the Valentine's Day party at Hobbs Cafe on February 14; Klaus Mueller came."
    assert not dt.ended(recap, datetime(2023, 2, 14, 19), FEB15)


def test_what_is_past_is_not_offered_but_stays_in_memory():
    x = node(PARTY, FEB13)
    assert gr.offered(x) and gr.offered(x, FEB14) and not gr.offered(x, FEB15)
    assert x.description == PARTY  # nothing is deleted


def test_past_days_are_said_as_one_says_them():
    said = "I hosted the party at Hobbs Cafe on February 14; Klaus came."
    assert dt.past_days(said, FEB15) == "I hosted the party at Hobbs Cafe yesterday; Klaus came."
    assert dt.past_days(said, FEB14) == "I hosted the party at Hobbs Cafe today; Klaus came."
    assert dt.past_days("a picnic on February 20", FEB15) == "a picnic on February 20"  # still to come


def test_no_reflection_looks_forward_to_what_is_over():
    known = insights.Known("Isabella Rodriguez", set(), {"Hobbs Cafe"})
    nodes = [node(PARTY, FEB13)]
    assert insights.ahead(nodes, known, FEB14)  # the day of the party: looked forward to
    assert insights.ahead(nodes, known, FEB15) == []
    recap = node("I hosted the Valentine's Day party at Hobbs Cafe on February 14; Klaus Mueller came.",
                 datetime(2023, 2, 14, 19, 5), source=recaps.RECAP)
    assert insights.ahead([recap], known, datetime(2023, 2, 14, 20)) == []


# ------------------------------------------------------------------------- minds
def chooser(story: str = "none", pick=lambda options: 1):
    def responder(purpose, messages, schema):
        if purpose == "story_choose":
            return {"fact": story}
        props = schema.model_json_schema().get("properties", {})
        if purpose == "day_plan" and all("enum" in v for v in props.values()):  # the chooser takes one's own first
            return {k: next((o for o in v["enum"] if "photo walk" in o), v["enum"][0]) for k, v in props.items()}
        if purpose == "choose_line":
            options = [ln.split(". ", 1)[1] for ln in messages[-1]["content"].splitlines() if ln[:1].isdigit()]
            return {"reply": options[pick(options) - 1]}
        return plausible(purpose, messages, schema)
    return responder


def mind(who: Persona | None = None, thoughts=(), story: str = "none", at: datetime = FEB13) -> Mind:
    gw = make_gateway(chooser(story), timeout=30.0, deadline=60.0)
    m = Mind(who or persona(), gw, HashEmbedder(64), MindSettings(planning="guided", grounded=True))
    for t in thoughts:
        m.queue_thought(t, 8)
    m.start_turn(at)
    return m


def test_the_day_after_the_party_the_host_neither_tells_nor_invites_to_it():
    isabella = mind(thoughts=[PARTY])
    maria = mind(who=persona("Maria Lopez"))
    for who in (isabella, maria):
        who.start_turn(FEB15)
    c = Conversation((isabella.name, maria.name), "the Ville:Hobbs Cafe:cafe", FEB15)
    offered = dg.offers(isabella, c, FEB15, "chatting", "working")
    assert offered
    assert not [o.text for o in offered if "party" in o.text.lower()]
    # the day before, it was the first thing she said
    c = Conversation((isabella.name, maria.name), "the Ville:Hobbs Cafe:cafe", FEB14)
    assert any("party" in o.text for o in dg.offers(isabella, c, FEB14, "chatting", "working"))


def test_a_gathering_that_is_over_is_remembered_with_who_came_and_told_as_yesterdays():
    m = mind()
    start = datetime(2023, 2, 14, 17)
    m.today.plan = [PlanItem(start, 120, "hosting the Valentine's Day party at Hobbs Cafe", "the Ville:Hobbs Cafe:cafe",
                             pv.tag(pv.REPAIRED, "chosen from 3 options"))]
    m.today.log = ["17:00 hosting the Valentine's Day party at Hobbs Cafe (Hobbs Cafe:cafe)"]
    m.remember_many([dict(kind="observation", text=f"{who} is attending the party", importance=3, subject=who,
                          created=(start + timedelta(minutes=20 + i)).isoformat())
                     for i, who in enumerate(("Klaus Mueller", "Maria Lopez", "Klaus Mueller"))])
    m.now = datetime(2023, 2, 14, 18, 30)
    assert recaps.remember_how_it_went(m) == []  # not over yet
    m.now = datetime(2023, 2, 14, 19, 5)
    (made,) = recaps.remember_how_it_went(m)
    assert made == ("I hosted the Valentine's Day party at Hobbs Cafe on February 14; "
                    "Klaus Mueller and Maria Lopez came.")
    assert recaps.remember_how_it_went(m) == []  # once
    kept = [x for x in m.memory.nodes if x.description == made]
    assert kept and kept[0].source == recaps.RECAP and gr.offered(kept[0], FEB15)
    # the day after, she tells it to someone who was not there, as yesterday's
    m.start_turn(FEB15)
    c = Conversation((m.name, "Ayesha Khan"), "the Ville:Hobbs Cafe:cafe", FEB15)
    texts = [o.text for o in dg.tells(m, dg.voice(m, c), c, m.memory.nodes, [], FEB15)]
    assert any("Valentine's Day party at Hobbs Cafe yesterday" in t and "Klaus Mueller" in t for t in texts)


def test_a_gathering_whose_words_lost_its_place_is_remembered_at_the_items_place():
    """A 25-resident week: Isabella's party item came from an arrangement worded "hosting the
    Valentine's Day party" (no place), so it had no recap, and the day after nobody heard of it."""
    m = mind()
    start = datetime(2023, 2, 14, 17)
    m.today.plan = [PlanItem(start, 120, "hosting the Valentine's Day party", "the Ville:Hobbs Cafe:cafe",
                             pv.tag(pv.RULE, "guided mode: an arrangement agreed with Carlos Gomez"))]
    m.today.log = ["17:00 greeting the guests at the door (Hobbs Cafe:cafe)"]
    m.remember_many([dict(kind="observation", text="Carlos Gomez is attending the party", importance=3,
                          subject="Carlos Gomez", created=(start + timedelta(minutes=20)).isoformat())])
    m.now = datetime(2023, 2, 14, 19, 5)
    assert recaps.remember_how_it_went(m) == [
        "I hosted the Valentine's Day party at Hobbs Cafe on February 14; Carlos Gomez came."]


def test_a_gathering_one_did_not_go_to_is_not_remembered_as_attended():
    m = mind()
    start = datetime(2023, 2, 14, 17)
    m.today.plan = [PlanItem(start, 120, "attending the Valentine's Day party at Hobbs Cafe",
                             "the Ville:Hobbs Cafe:cafe", "")]
    m.today.log = ["17:00 reading a book at home (apartment:main room)"]
    m.now = datetime(2023, 2, 14, 19, 30)
    assert recaps.remember_how_it_went(m) == []


# ------------------------------------------------------------------------- stories
def latoya() -> Persona:
    return Persona(name="Latoya Williams", age=25, traits="creative, curious",
                   description="Latoya Williams is a photographer; she lives in the artist's co-living space; "
                               "she photographs people and places in Johnson Park",
                   home="the Ville:artist's co-living space:Latoya Williams's room",
                   workplace="the Ville:Johnson Park:park", wake_hour=7,
                   places=["the Ville:Hobbs Cafe:cafe", "the Ville:The Rose and Crown Pub:pub"])


def a_day_she_considers(name: str) -> datetime:
    day = FEB15
    while not stories.considers(name, day.date()):
        day += timedelta(days=1)
    return day.replace(hour=7)


def test_ideas_come_from_who_one_is_at_places_one_knows_and_hours_one_is_free():
    m = mind(who=latoya())
    wake = a_day_she_considers(m.name)
    m.now = wake
    found = stories.ideas(m, wake)
    assert found and found[0].what == "photo walk" and found[0].place == "Johnson Park"
    assert all(i.start >= 7 and i.end <= 22 and i.day == wake.date() + timedelta(days=1) for i in found)
    assert dt.parse(found[0].intention(), wake, teller=m.name).host == m.name


def test_a_chosen_story_is_an_intention_invited_to_today_and_hosted_tomorrow():
    m = mind(who=latoya(), story="1")
    wake = a_day_she_considers(m.name)
    m.start_turn(wake)
    m.now = wake
    days.new_day(m)
    intentions = [x for x in m.memory.nodes if x.kind == "thought" and "I want to host a photo walk" in x.description]
    assert len(intentions) == 1 and "chosen from" in intentions[0].source
    inviting = [x for x in m.today.plan if x.description.startswith("inviting friends to the photo walk")]
    assert inviting and all(12 <= x.start.hour < 19 for x in inviting)
    m.now = wake + timedelta(days=1)
    days.new_day(m)
    assert any(x.description.startswith("hosting the photo walk") for x in m.today.plan)


def test_no_story_on_a_day_one_does_not_consider_or_already_has_a_gathering():
    m = mind(who=latoya(), story="1")
    day = FEB15
    while stories.considers(m.name, day.date()):
        day += timedelta(days=1)
    m.now = day.replace(hour=7)
    assert stories.maybe_start(m, day.replace(hour=7)) is None
    wake = a_day_she_considers(m.name)
    after = wake + timedelta(days=1)
    picnic = f"I want to host a picnic at Johnson Park on {after:%B} {after.day}, from 12 pm to 2 pm"
    busy = mind(who=latoya(), story="1", thoughts=[picnic])
    busy.start_turn(wake)
    busy.now = wake
    assert stories.maybe_start(busy, wake) is None


def test_the_model_may_host_nothing_and_a_failed_answer_is_counted():
    m = mind(who=latoya(), story="none")
    wake = a_day_she_considers(m.name)
    m.now = wake
    assert stories.maybe_start(m, wake) is None

    def broken(purpose, messages, schema):
        if purpose == "story_choose":
            return "I like turtles"
        return plausible(purpose, messages, schema)
    gw = make_gateway(broken, timeout=30.0, deadline=60.0, retries=0)
    m2 = Mind(latoya(), gw, HashEmbedder(64), MindSettings(planning="guided", grounded=True))
    m2.start_turn(wake)
    m2.now = wake
    assert stories.maybe_start(m2, wake) is None
    assert any("story" in k for k in m2.fallbacks)


def test_a_reflection_that_counts_is_not_recited_as_news():
    m = mind()
    m.start_turn(FEB14)
    m.remember_many([dict(kind="reflection", text=c.text, importance=6, subject=m.name,
                          source=reflect.grounded_source(c, 4))
                     for c in (insights.Candidate("people", "I often talk with Klaus Mueller.", (1, 2)),
                               insights.Candidate("topic", "The coffee keeps coming up.", (1, 3)),
                               insights.Candidate("places", "Lately I spend most of my time at Hobbs Cafe.", (2,)))])
    c = Conversation((m.name, "Klaus Mueller"), "the Ville:Hobbs Cafe:cafe", FEB14)
    texts = " ".join(o.text for o in dg.tells(m, dg.voice(m, c), c, m.memory.nodes, [], FEB14))
    assert "often talk" not in texts and "coming up" not in texts and "most of my time" not in texts


def test_what_was_said_to_one_about_oneself_is_not_retold_with_its_you():
    """Ayesha retold Isabella's 'Wolfgang Schulz, Klaus Mueller and you came' to Klaus as
    '... Wolfgang Schulz, you and you came'."""
    ayesha = mind(who=persona("Ayesha Khan"))
    ayesha.start_turn(datetime(2023, 2, 14, 20))
    ayesha.remember("chat", 'Isabella Rodriguez told Ayesha: "I hosted the Valentine\'s Day party at Hobbs Cafe '
                    'today; Wolfgang Schulz, Klaus Mueller and you came."', 6, subject="Isabella Rodriguez")
    c = Conversation((ayesha.name, "Klaus Mueller"), "the Ville:Hobbs Cafe:cafe", datetime(2023, 2, 14, 20, 30))
    texts = [o.text for o in dg.tells(ayesha, dg.voice(ayesha, c), c, ayesha.memory.nodes, [],
                                      datetime(2023, 2, 14, 20, 30))]
    assert not [t for t in texts if "came" in t]


def test_the_day_after_how_a_gathering_went_is_told_first():
    m = mind()
    m.start_turn(datetime(2023, 2, 14, 19, 10))
    m.remember("thought", "I hosted the Valentine's Day party at Hobbs Cafe on February 14; Klaus Mueller came.", 5,
               subject=m.name, source=recaps.RECAP)
    m.remember("thought", "Sam Moore is running for mayor of the Ville and needs votes", 9, subject=m.name)
    m.start_turn(FEB15)
    c = Conversation((m.name, "Ayesha Khan"), "the Ville:Hobbs Cafe:cafe", FEB15)
    first = dg.tells(m, dg.voice(m, c), c, m.memory.nodes, [], FEB15)[0]
    assert "party at Hobbs Cafe yesterday" in first.text
    later = datetime(2023, 2, 16, 9)
    c = Conversation((m.name, "Ayesha Khan"), "the Ville:Hobbs Cafe:cafe", later)
    assert "party" not in dg.tells(m, dg.voice(m, c), c, m.memory.nodes, [], later)[0].text


def test_asked_the_day_after_who_came_the_host_tells_how_it_went():
    """The visitor asked Isabella, the morning after, "Who came to your Valentine's Day party last
    night?" and she told her day's plan; now the recap answers it, from the visitor and from a
    resident, and a question about something else does not get it."""
    from agents.mind.interview import answer_now
    m = mind()
    m.start_turn(datetime(2023, 2, 14, 19, 10))
    m.remember("thought", "I hosted the Valentine's Day party at Hobbs Cafe on February 14; Klaus Mueller and "
               "Maria Lopez came.", 5, subject=m.name, source=recaps.RECAP)
    m.start_turn(FEB15)
    for asked in ("Who came to your Valentine's Day party last night?", "How was the party yesterday?"):
        got = answer_now(m, "Alex", asked, now=FEB15)
        assert got.text == "I hosted the Valentine's Day party at Hobbs Cafe yesterday; Klaus Mueller and Maria " \
            "Lopez came.", (asked, got)
        assert "the gathering asked about" in got.source and got.memory_id is not None
    assert "hosted" not in answer_now(m, "Alex", "How was the study group?", now=FEB15).text
    assert "hosted" not in answer_now(m, "Alex", "Is the party still on?", now=FEB15).text
    c = Conversation(("Ayesha Khan", m.name), "the Ville:Hobbs Cafe:cafe", FEB15)
    said = dg.answer(m, dg.voice(m, c), "Isabella, how did the party go?", "day", FEB15, [], [], 1)
    assert said is not None and said.text.startswith("Ayesha, I hosted the Valentine's Day party at Hobbs Cafe "
                                                     "yesterday")
    days_on = dg.answer(m, dg.voice(m, c), "Isabella, how was the party?", "day", datetime(2023, 2, 18, 9), [], [], 1)
    assert days_on is None or "hosted" not in days_on.text  # three days on, the recap no longer answers


def test_one_is_not_asked_about_the_toilet_nor_invited_twice_over():
    assert not reactions._askable("using the toilet") and reactions._askable("painting a watercolour")
    m = mind(who=persona("Maria Lopez"))
    v = dg.voice(m, Conversation((m.name, "Arthur Burton"), "x", FEB14))
    for turn in range(12):
        assert "I'm going, and I'm going" not in dg.wd.invitation(v, "a study group at Oak Hill College", None,
                                                                  False, turn)


def test_a_party_broken_into_steps_at_its_place_was_attended():
    m = mind()
    start = datetime(2023, 2, 14, 17)
    m.today.plan = [PlanItem(start, 120, "hosting the Valentine's Day party at Hobbs Cafe", "the Ville:Hobbs Cafe:cafe",
                             "")]
    m.today.log = ["17:00 greeting the guests at the door (Hobbs Cafe:cafe)"]
    m.now = datetime(2023, 2, 14, 19, 5)
    assert recaps.remember_how_it_went(m)
    m.today.recapped, m.today.log = [], ["17:00 reading a book (Isabella Rodriguez's apartment:main room)"]
    assert recaps.remember_how_it_went(m) == []


def test_a_gathering_of_ones_own_is_looked_forward_to_by_its_whole_name():
    known = insights.Known("Sam Moore", set(), {"The Rose and Crown Pub"})
    x = MemoryNode(1, "thought", "I want to host a game night at The Rose and Crown Pub on February 16, from 7 pm to "
                   "9 pm, and to invite my friends", FEB15, FEB15, 7, subject="Sam Moore")
    (c,) = insights.ahead([x], known, FEB15)
    assert "hosting the game night at The Rose and Crown Pub on February 16" in c.text


def test_whatever_it_is_called_a_thing_looked_forward_to_is_over_the_day_after():
    """Arthur on Feb 15: "I am looking forward to hosting the game at The Rose and Crown Pub yesterday ..." """
    said = "I am looking forward to hosting the game at The Rose and Crown Pub on February 14 from 7 pm to 9 pm."
    assert not dt.ended(said, FEB14, datetime(2023, 2, 14, 18)) and dt.ended(said, FEB14, FEB15)
    assert not dt.ended("I painted the garden on February 14.", FEB14, FEB15)  # a fact of the past is no plan
