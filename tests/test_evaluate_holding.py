"""lab/evaluate/holding.py: whether talk holds together, on small hand-written event logs with
known answers, and the near misses each measure must not count."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from agents.residents.persona import load_cast
from lab.evaluate.holding import echoes, holding_markdown, holding_measures, holding_summary, recital

MAP = Path(__file__).resolve().parents[1] / "maps/the_ville/the_ville.tmx"
RS = ["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller", "Sam Moore"]
CAFE, DORM, COLLEGE = "the Ville:Hobbs Cafe:cafe", "the Ville:Dorm for Oak Hill College:common room", \
    "the Ville:Oak Hill College:classroom"
DAY = "2023-02-14"


@pytest.fixture(scope="module")
def personas():
    cast, _ = load_cast(MAP.parent)
    return {p.name: p for p in cast}


def at(hm: str) -> str:
    return f"{DAY} {hm}:00"


def arrive(hm: str, who: str, addr: str) -> dict:
    return {"time": at(hm), "resident": who, "kind": "arrive", "text": f"arrives at {addr}", "address": addr}


def act(hm: str, who: str, addr: str, text: str) -> dict:
    return {"time": at(hm), "resident": who, "kind": "action", "text": text, "address": addr}


def line(hm: str, who: str, to: str, text: str, conv: int = 1, act: str | None = None, addr: str = DORM) -> dict:
    return {"time": at(hm), "resident": who, "kind": "line", "text": text, "address": addr, "conversation": conv,
            "partner": to, "source": f"rule: grounded: test; act {act}" if act else "model"}


def arrange(hm: str, who: str, to: str, text: str, addr: str, start: str, minutes: int = 60) -> dict:
    return {"time": at(hm), "resident": who, "kind": "arrange", "text": text, "address": addr, "partner": to,
            "start": f"{DAY} {start}:00", "minutes": minutes}


def measure(events, personas=None, start="07:00", end="19:00", **kw):
    return holding_measures(events, RS, personas, datetime.fromisoformat(at(start)),
                            datetime.fromisoformat(at(end)), **kw)


def lunch(klaus_arrives: str) -> list[dict]:
    """Maria and Klaus agree lunch at Hobbs Cafe at noon (both sides log it); Klaus comes when given."""
    return [arrange("08:00", "Maria Lopez", "Klaus Mueller", "having lunch", CAFE, "12:00"),
            arrange("08:00", "Klaus Mueller", "Maria Lopez", "having lunch", CAFE, "12:00"),
            act("11:40", "Maria Lopez", CAFE, "walking to the cafe"), arrive("11:55", "Maria Lopez", CAFE),
            act("11:00", "Klaus Mueller", DORM, "reading in the dorm"),
            act(klaus_arrives, "Klaus Mueller", CAFE, "walking to the cafe"),
            arrive(klaus_arrives, "Klaus Mueller", CAFE)]


def test_a_meeting_kept_20_minutes_late_is_kept_45_is_not():
    a = measure(lunch("12:20"))["arrangements"]
    assert (a["meetings"], a["kept"], a["share"], a["logged"]) == (1, 1, 1.0, 1)  # both sides logged it: one meeting
    a = measure(lunch("12:45"))["arrangements"]
    assert (a["meetings"], a["kept"]) == (1, 0)
    miss = a["unkept"][0]
    assert miss["pair"] == ["Klaus Mueller", "Maria Lopez"] and miss["where"] == ["Hobbs Cafe"]
    assert miss["was"]["Klaus Mueller"].startswith("Dorm for Oak Hill College (reading")
    assert miss["was"]["Maria Lopez"].startswith("Hobbs Cafe")


def test_meetings_outside_the_run_and_with_the_visitor_are_not_judged():
    events = lunch("12:00") + [
        arrange("09:00", "Sam Moore", "Maria Lopez", "having a drink", CAFE, "18:50"),  # its window ends after 19:00
        arrange("09:00", "Sam Moore", "Alex", "having a coffee", CAFE, "10:00")]         # the visitor
    a = measure(events)["arrangements"]
    assert (a["meetings"], a["kept"], a["outside_run"], a["with_visitor"]) == (1, 1, 1, 1)


def test_a_yes_said_to_an_offer_with_a_place_and_an_hour_is_a_meeting():
    events = [line("08:00", "Maria Lopez", "Klaus Mueller",
                   "Klaus, I'll be having lunch at Hobbs Cafe today at 12 pm. Would you like to join me?", act="meet"),
              line("08:01", "Klaus Mueller", "Maria Lopez", "Sure, Maria, I'll join you today at 12 pm.", act="accept"),
              arrive("11:55", "Maria Lopez", CAFE), act("12:00", "Klaus Mueller", DORM, "eating lunch at the table")]
    a = measure(events)["arrangements"]
    assert (a["meetings"], a["kept"], a["only_said"]) == (1, 0, 1)
    assert a["unkept"][0]["what"] == ["having lunch"]


def test_the_party_yes_then_came():
    events = [line("09:00", "Isabella Rodriguez", "Maria Lopez", "Maria, I'm hosting a Valentine's Day party at "
                   "Hobbs Cafe on February 14, from 5 pm to 7 pm. Would you like to come?", act="invite"),
              line("09:01", "Maria Lopez", "Isabella Rodriguez", "I'd love to! See you there.", act="accept"),
              arrange("10:00", "Klaus Mueller", "Sam Moore", "attending the Valentine's Day party", CAFE, "17:00", 120),
              # a yes to something else is no yes to the party
              line("11:00", "Sam Moore", "Klaus Mueller", "Sam, would you like to come to the study group?", 2,
                   act="invite"),
              line("11:01", "Klaus Mueller", "Sam Moore", "Count me in!", 2, act="accept"),
              arrive("17:10", "Maria Lopez", CAFE), arrive("17:00", "Isabella Rodriguez", CAFE),
              act("17:00", "Klaus Mueller", DORM, "sleeping")]
    p = measure(events)["party"]
    assert list(p["said_yes"]) == ["Klaus Mueller", "Maria Lopez"]  # the host's own yes is no guest's
    assert p["came"] == ["Maria Lopez"]
    assert p["missed"] == {"Klaus Mueller": "Dorm for Oak Hill College (sleeping)"}
    assert measure(events, end="16:00")["party"]["came"] is None  # the run never reached the party


def test_contradictions_against_an_agreement_and_against_ones_own_words(personas):
    events = [
        line("08:00", "Maria Lopez", "Klaus Mueller",
             "Klaus, I'll be having lunch at Hobbs Cafe today at 12 pm. Would you like to join me?", act="meet"),
        line("08:01", "Klaus Mueller", "Maria Lopez", "Sure, Maria, I'll join you today at 12 pm.", act="accept"),
        # said next: lunch at home at the hour agreed (the Maria)
        line("08:02", "Klaus Mueller", "Maria Lopez", "Maria, at 12 pm I'm having lunch at home.", act="answer"),
        # near misses: another hour; a question about the other; one's own place again
        line("08:03", "Klaus Mueller", "Maria Lopez", "At 1 pm I'm studying sociology at Oak Hill College.",
             act="tell"),
        line("08:04", "Klaus Mueller", "Maria Lopez", "Maria, you'll be at home at 12 pm?", act="ask"),
        line("08:05", "Klaus Mueller", "Maria Lopez", "I'll be having lunch at Hobbs Cafe at 12 pm.", act="tell"),
        line("08:06", "Klaus Mueller", "Maria Lopez", 'Sam Moore told me: "I\'m going to the pub; at 12 pm I\'m '
             'having lunch at The Rose and Crown Pub."', act="tell"),  # another's words, quoted
        # the Eddy: the party at 5 pm, then a lecture elsewhere at 5 pm
        line("09:00", "Sam Moore", "Isabella Rodriguez", "Next I'm attending the Valentine's Day party at Hobbs Cafe "
             "at 5 pm.", 2, act="answer"),
        line("09:01", "Sam Moore", "Isabella Rodriguez", "I am looking forward to the physics lecture at Oak Hill "
             "College at 5 pm.", 2, act="tell"),
        arrive("07:00", "Sam Moore", COLLEGE), arrive("07:00", "Isabella Rodriguez", CAFE)]
    c = measure(events, personas)["contradictions"]
    assert [(x["resident"], x["time"][11:16]) for x in c["examples"]] == [("Klaus Mueller", "08:02"),
                                                                           ("Sam Moore", "09:01")]
    assert "agreed with Maria Lopez" in c["examples"][0]["against"]
    assert "Valentine's Day party" in c["examples"][1]["against"]


def test_echoes_and_their_near_misses():
    assert echoes("Tom, you're having breakfast today? I didn't know that about you.", "Tom, I'm having breakfast "
                  "today; at 8 am I'm running the counter at The Willows Market.")
    assert echoes("Giorgio, you see a lot of me? That's really interesting!", "Hailey, I see a lot of you.")
    assert echoes("Klaus, you'll be having dinner at home at 5:30 pm? I'm glad to hear it.",
                  "Ayesha, I'll be having dinner at home at 5:30 pm. What about you?")
    # a question that merely names the same topic
    assert not echoes("Are you going to the party?", "I'm hosting a Valentine's Day party at Hobbs Cafe on February 14")
    # an answer that repeats the question, then asks back
    assert not echoes("Ayesha, I'm having a drink at the bar today. And you?",
                      "How is having a drink at the bar going?")
    # handed back, but with news of one's own
    assert not echoes("You're having lunch at Hobbs Cafe? I'll bring the chess board and some puzzles.",
                      "I'm having lunch at Hobbs Cafe.")
    assert not echoes("You're having lunch?", None)


def test_recitals_and_their_near_misses(personas):
    feud = ["he has a long feud with his neighbour Giorgio Rossi", "he studies physics at Oak Hill College"]
    assert recital("Good morning, Isabella. I have a long feud with my neighbour Giorgio Rossi.", feud).startswith(
        "persona")
    assert recital("Hailey, I see a lot of you.", []) == "tally"
    assert recital("The study group keeps coming up.", []) == "tally"
    assert recital("I'm studying physics at Oak Hill College today.", feud) is None  # what one does today
    assert recital("Giorgio is my neighbour, he said hello.", feud) is None  # a word or two is no recital
    asked = [line("08:00", "Klaus Mueller", "Maria Lopez", "Maria, what do you do?", act="ask"),
             line("08:01", "Maria Lopez", "Klaus Mueller", "I study physics at Oak Hill College.", act="answer")]
    assert measure(asked, personas)["recitals"] == 0  # an answer to "what do you do?" is no recital
    unasked = [line("08:00", "Klaus Mueller", "Maria Lopez", "Good morning, Maria.", act="tell"),
               line("08:01", "Maria Lopez", "Klaus Mueller", "Klaus, I study physics at Oak Hill College.", act="tell")]
    h = measure(unasked, personas)
    assert (h["recitals"], h["recital_share"]) == (1, 0.5)
    assert h["recital_examples"][0]["what"] == "persona: Maria Lopez studies physics at Oak Hill College"


def test_news_told_back_and_told_new():
    party = "a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm"
    events = [line("08:00", "Isabella Rodriguez", "Maria Lopez", f"Maria, I'm hosting {party}.", act="tell"),
              line("08:01", "Maria Lopez", "Isabella Rodriguez", f"Isabella, I heard there's {party}.", act="tell"),
              # a parallel answer tells the speaker's own news
              line("09:00", "Klaus Mueller", "Sam Moore", "Sam, at 8 am I'm studying sociology at Oak Hill College.",
                   2, act="answer"),
              line("09:01", "Sam Moore", "Klaus Mueller", "Klaus, at 8 am I'm walking in the park at Johnson Park.",
                   2, act="answer"),
              # the party again to Maria, who has heard it: nothing new
              line("10:00", "Klaus Mueller", "Maria Lopez", f"Maria, I heard Isabella is hosting {party}.", 3,
                   act="tell")]
    h = measure(events)
    assert h["told_back"] == 1 and h["told_back_examples"][0]["resident"] == "Maria Lopez"
    assert (h["conversations"], h["told_new"]) == (3, 2)


def test_any_run_even_an_empty_one():
    for events in (None, []):
        h = holding_measures(events, [])
        assert (h["lines"], h["echo_share"], h["arrangements"]["meetings"], h["arrangements"]["share"]) == (0, 0, 0,
                                                                                                            None)
        assert h["party"]["came"] is None
        assert "## 6. Whether talk holds together" in holding_markdown(h)
        assert "0/0 meetings kept" in holding_summary(h)
    h = measure(lunch("12:45"), passing={"with_a_new_fact": 1, "conversations": 2, "rate": 0.5})
    text = "\n".join(holding_markdown(h))
    assert "Meetings not kept" in text and "a scenario fact new to it" in text
