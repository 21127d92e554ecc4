"""A long run read day by day (issue 45): the run's ledger of each sim day's wall time,
calls and tokens, and `smallville evaluate`'s day-by-day table."""
from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from game.runs.days import DayLedger
from game.saves.saved_run import Target
from lab.evaluate.days import days_markdown, days_report, gatherings, stale_lines

REPO = Path(__file__).resolve().parent.parent
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"


class Accounting:
    def __init__(self):
        self.calls = self.tokens = 0

    def summary(self):
        return {"total": {"calls": self.calls, "tokens": self.tokens}}


def test_the_ledger_closes_a_day_at_midnight_and_a_resume_sums_a_split_day():
    acc, wall = Accounting(), [100.0]
    ledger = DayLedger(acc, datetime(2023, 2, 14, 22), clock=lambda: wall[0])
    acc.calls, acc.tokens, wall[0] = 10, 1000, 160.0
    ledger.see(datetime(2023, 2, 14, 23, 59))
    ledger.see(datetime(2023, 2, 15, 0, 0))
    acc.calls, acc.tokens, wall[0] = 14, 1300, 200.0
    rows = ledger.rows()
    assert rows == [{"day": "2023-02-14", "wall_s": 60.0, "calls": 10, "tokens": 1000},
                    {"day": "2023-02-15", "wall_s": 40.0, "calls": 4, "tokens": 300}]
    resumed = DayLedger(acc, datetime(2023, 2, 15, 3), earlier=rows + ["damaged", {"no": "day"}],
                        clock=lambda: wall[0])
    acc.calls, wall[0] = 20, 230.0
    assert resumed.rows()[-1] == {"day": "2023-02-15", "wall_s": 70.0, "calls": 10, "tokens": 300}


def ev(time, who, kind, text, address="", **extra):
    return {"time": time, "resident": who, "kind": kind, "text": text, "address": address, **extra}


PARK = "the Ville:Johnson Park:park"
EVENTS = [
    ev("2023-02-14 09:00:00", "Latoya Williams", "line",
       "Maria, I'm hosting a photo walk at Johnson Park on February 14, from 3 pm to 5 pm.", PARK,
       partner="Maria Lopez", conversation="c1"),
    ev("2023-02-14 09:01:00", "Maria Lopez", "line", "I'd love to come!", PARK, partner="Latoya Williams",
       conversation="c1"),
    ev("2023-02-14 15:00:00", "Latoya Williams", "action", "hosting the photo walk at Johnson Park", PARK),
    ev("2023-02-14 15:05:00", "Maria Lopez", "arrive", "arrived", PARK),
    ev("2023-02-14 15:10:00", "Klaus Mueller", "arrive", "arrived", PARK),
    ev("2023-02-14 16:45:00", "Latoya Williams", "action", "hosting the photo walk at Johnson Park", PARK),
    ev("2023-02-14 17:00:00", "Maria Lopez", "action", "reading a book", "the Ville:Dorm:room"),
    ev("2023-02-15 10:00:00", "Latoya Williams", "line",
       "Maria, I'm hosting a photo walk at Johnson Park on February 14, from 3 pm to 5 pm.", PARK,
       partner="Maria Lopez", conversation="c2"),
    ev("2023-02-15 11:00:00", "Maria Lopez", "action", "reading a book", "the Ville:Dorm:room"),
]


def test_a_gathering_is_its_host_its_hours_and_who_came_and_had_heard():
    (g,) = gatherings(EVENTS)
    assert (g["host"], g["what"], g["where"], g["from"]) == ("Latoya Williams", "photo walk", "Johnson Park",
                                                              "2023-02-14 15:00")
    assert g["came"] == ["Klaus Mueller", "Maria Lopez"] and g["heard_and_came"] == ["Maria Lopez"]


def test_a_line_about_something_over_as_if_to_come_is_stale():
    (s,) = stale_lines(EVENTS)
    assert s["time"].startswith("2023-02-15") and s["resident"] == "Latoya Williams"
    # asking how it went speaks of it as over (a two-day run counted five follow-ups as stale)
    asked = ev("2023-02-15 10:00:00", "Maria Lopez", "line", "Latoya, you told me yesterday about the photo walk "
               "at Johnson Park on February 14, from 3 pm to 5 pm. How did it go?", PARK, partner="Latoya Williams",
               conversation="c9")
    assert stale_lines([asked]) == []


def test_the_day_by_day_table():
    state = {"memory": {"nodes": [
        {"kind": "plan", "created": "2023-02-14 07:00:00",
         "description": "Maria Lopez's plan for Tuesday February 14: 07:00-08:00 waking up; 08:00-12:00 studying"},
        {"kind": "plan", "created": "2023-02-15 07:00:00",
         "description": "Maria Lopez's plan for Wednesday February 15: 07:00-08:00 waking up; 08:00-12:00 studying"},
        {"kind": "thought", "created": "2023-02-15 09:00:00", "description": "a thought"},
    ]}}
    tg = Target(given=Path("run"), events=EVENTS, parts={"minds/Maria Lopez": state}, residents=["Maria Lopez"])
    report = days_report(tg)
    d14, d15 = report["rows"]
    assert (d14["gatherings_started"], d14["guests_who_had_heard"], d14["lines"], d14["conversations"]) == (1, 1, 2, 1)
    assert d14["memories_per_resident"] == 1 and d15["memories_per_resident"] == 3
    assert d15["repeated_share"] == 1.0 and d15["stale_lines"] == 1
    assert d15["same_plan_as_day_before"] == ["Maria Lopez"]
    text = "\n".join(days_markdown(report))
    assert "| 2023-02-15 |" in text and "photo walk at Johnson Park" in text


def test_a_run_across_midnight_keeps_each_days_ledger_through_the_real_path(tmp_path):
    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.world.map_reader import load_town
    from tests.fakes import HashEmbedder, chatty, make_gateway

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    result = run_headless(town, cast[:2], start=datetime(2023, 2, 13, 23, 30), hours=1, out=tmp_path / "run",
                          scenario=scenario, gateway=make_gateway(chatty), embedder=HashEmbedder(), seed=1,
                          progress=False, echo=None, out_of_order=True)
    days = json.loads((result.out / "summary.json").read_text())["days"]
    # the run's day begins at the hour it began: past midnight is still its first day
    assert [(d["day"], d["from"]) for d in days] == [("2023-02-13", "23:30")]
    assert sum(d["calls"] for d in days) == result.summary["totals"]["calls"]
    assert all(d["wall_s"] >= 0 for d in days)


def test_a_runs_day_is_24_hours_from_the_hour_it_began():
    """From 07:00, a day closes at the next 07:00, not at midnight (a first day of 17 hours
    made the second look dearer by its hours alone); the table reads the same days."""
    acc, wall = Accounting(), [0.0]
    began = datetime(2023, 2, 14, 7)
    ledger = DayLedger(acc, began, clock=lambda: wall[0], began=began)
    acc.calls, wall[0] = 5, 50.0
    ledger.see(datetime(2023, 2, 15, 6, 59))
    assert len(ledger.rows()) == 1
    ledger.see(datetime(2023, 2, 15, 7, 0))
    acc.calls, wall[0] = 8, 80.0
    assert ledger.rows() == [{"day": "2023-02-14", "wall_s": 50.0, "calls": 5, "tokens": 0, "from": "07:00"},
                             {"day": "2023-02-15", "wall_s": 30.0, "calls": 3, "tokens": 0, "from": "07:00"}]
    resumed = DayLedger(acc, datetime(2023, 2, 16, 3), earlier=ledger.rows(), clock=lambda: wall[0], began=began)
    assert resumed.day.isoformat() == "2023-02-15"  # 03:00 on the 16th is still the run's day of the 15th


def test_the_table_reads_the_runs_days(tmp_path):
    (tmp_path / "summary.json").write_text(json.dumps({"days": [
        {"day": "2023-02-14", "from": "07:00", "wall_s": 50.0, "calls": 5, "tokens": 500},
        {"day": "2023-02-15", "from": "07:00", "wall_s": 30.0, "calls": 3, "tokens": 300}]}))
    late = ev("2023-02-15 01:00:00", "Maria Lopez", "line", "Good night!", PARK, partner="Latoya Williams",
              conversation="c3")
    tg = Target(given=tmp_path, events=[*EVENTS, late], parts={}, residents=["Maria Lopez"], folder=tmp_path)
    d14, d15 = days_report(tg)["rows"]
    assert (d14["day"], d14["from"], d14["wall_s"], d14["lines"]) == ("2023-02-14", "07:00", 50.0, 3)  # 01:00 too
    assert (d15["wall_s"], d15["lines"], d15["stale_lines"]) == (30.0, 1, 1)
    assert "| 2023-02-14 07:00 | 50.0 |" in "\n".join(days_markdown(days_report(tg)))


def test_a_gatherings_hours_are_its_day_plans_when_the_state_has_them():
    """A party decomposed into steps ("greeting the guests at the door") names itself only at
    times; its day plan holds its hours."""
    events = [ev("2023-02-14 14:55:00", "Latoya Williams", "arrive", "arrived", PARK),
              ev("2023-02-14 15:00:00", "Latoya Williams", "action", "greeting the guests", PARK),
              ev("2023-02-14 15:40:00", "Maria Lopez", "arrive", "arrived", PARK),
              ev("2023-02-14 16:50:00", "Latoya Williams", "action", "hosting the photo walk at Johnson Park", PARK)]
    plan = {"kind": "plan", "created": "2023-02-14 07:00:00",
            "description": "Latoya Williams's plan for Tuesday February 14: 07:00-08:00 waking up; "
                           "15:00-17:00 hosting the photo walk at Johnson Park; 17:00-22:00 reading"}
    (g,) = gatherings(events, {"Latoya Williams": {"memory": {"nodes": [plan]}}})
    assert (g["from"], g["to"], g["came"]) == ("2023-02-14 15:00", "17:00", ["Maria Lopez"])
    # planned, but its host was never there: no gathering
    assert gatherings(events[2:3], {"Latoya Williams": {"memory": {"nodes": [plan]}}}) == []
