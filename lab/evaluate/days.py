"""Day by day (issue 45): what a long run did on each sim day, so that a week can be read
as a table and growth seen at a glance.

Per day of the run (24 sim hours from the hour it began, game/runs/days.py: a run from 07:00
has days from 07:00 to 07:00), from the run folder's events and its end state (and, where the
run wrote them, the wall time, calls and tokens of each day from ``summary.json``'s ``days``):

- wall time, model calls, mean tokens per call (the ledger of game/headless.py);
- memories per resident at the day's end (the end state's memories by when they were made);
- conversations, lines and distinct lines;
- gatherings the residents started (a resident "hosting the ..." a named event), and
  who came: other residents in the same place while it went on, and of those, how many
  had heard of it (a line naming it said by or to them before it began);
- the share of a resident's activities that it also did the day before;
- lines that speak of a dated thing that was already over as still to come (read by
  agents/words/dated.py as of the moment it was said);
- residents whose day plan is the same as the day before.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict
from datetime import date, datetime, timedelta
from pathlib import Path
from statistics import mean
from typing import Any

from agents import dated as dt
from game.saves.saved_run import Target, parse_time
from lab.evaluate.coordination import presence, sector_of

_HOSTING = re.compile(r"^hosting (?:the|a|an|my) (.+?)(?: (?:at|in) .+)?$")
_PLAN = re.compile(r"'s plan for \w+ (\w+ \d{1,2}): (.*)$", re.S)


def _day_of(e: dict, offset: timedelta = timedelta(0)) -> date | None:
    t = parse_time(e.get("time"))
    return (t - offset).date() if t is not None else None


def _offset(ledger: dict[str, dict]) -> timedelta:
    """The hour the run's days begin at, as its ledger says (midnight for runs from before)."""
    begins = {str(d.get("from")) for d in ledger.values() if d.get("from")}
    try:
        h, m = (int(x) for x in min(begins).split(":")) if begins else (0, 0)
    except ValueError:
        return timedelta(0)
    return timedelta(hours=h, minutes=m) if 0 <= h < 24 and 0 <= m < 60 else timedelta(0)


def _ledger(folder: Path | None) -> dict[str, dict]:
    """The run's own record of each sim day's wall time, calls and tokens, when it kept one."""
    if folder is None or not (folder / "summary.json").is_file():
        return {}
    try:
        days = json.loads((folder / "summary.json").read_text(encoding="utf-8")).get("days") or []
    except (OSError, ValueError, AttributeError, RecursionError):
        return {}
    return {str(d.get("day")): d for d in days if isinstance(d, dict) and d.get("day")}


_PLANNED = re.compile(r"(\d\d):(\d\d)-(\d\d):(\d\d) hosting (?:the|a|an|my) (.+?) at ([^;()]+)")


def planned_gatherings(states: dict[str, dict]) -> dict[tuple[str, str, date], tuple[datetime, datetime, str]]:
    """(host, what, day) -> (from, to, place) of every gathering a day plan hosted, from the plan
    memories (a day's last plan wins: a replan keeps what it kept)."""
    out: dict[tuple[str, str, date], tuple[datetime, datetime, str]] = {}
    for host, state in states.items():
        nodes = sorted((n for n in (state.get("memory") or {}).get("nodes") or [] if n.get("kind") == "plan"),
                       key=lambda n: str(n.get("created")))
        for n in nodes:
            made = parse_time(n.get("created"))
            text = str(n.get("description") or "")
            if made is None or "'s plan for " not in text:
                continue
            for m in _PLANNED.finditer(text):
                if not dt.names_event(m.group(5)):
                    continue
                begin = made.replace(hour=int(m.group(1)), minute=int(m.group(2)), second=0)
                end = made.replace(hour=int(m.group(3)), minute=int(m.group(4)), second=0)
                out[(host, m.group(5), made.date())] = (begin, max(end, begin + timedelta(minutes=15)),
                                                        m.group(6).strip())
    return out


def gatherings(events: list[dict], states: dict[str, dict] | None = None) -> list[dict]:
    """Each gathering a resident hosted: host, what, where, from, to; who came, and who of them
    had heard of it before it began. Its hours are its day plan's (the end state's plan memories),
    else the host's "hosting ..." actions (a decomposed party's steps name it only at times)."""
    spans: dict[tuple[str, str, date], tuple[datetime, datetime, str]] = planned_gatherings(states or {})
    acted: dict[tuple[str, str, date], list[tuple[datetime, str]]] = defaultdict(list)
    for e in events:
        m = _HOSTING.match(str(e.get("text") or "")) if e.get("kind") == "action" else None
        t = parse_time(e.get("time"))
        if m is None or t is None or not dt.names_event(m.group(1)) or not sector_of(e.get("address")):
            continue
        acted[(str(e.get("resident")), m.group(1), t.date())].append((t, str(sector_of(e.get("address")))))
    for key, seen in acted.items():
        if key not in spans:
            spans[key] = (min(t for t, _ in seen), max(t for t, _ in seen) + timedelta(minutes=15), seen[0][1])
    out = []
    for (host, what, _day), (start, end, sector) in spans.items():
        stays = presence(events, sector)
        if not any(a < end and (b is None or b > start) for a, b in stays.get(host, [])):
            continue  # planned, but the host was not there
        came = sorted(who for who, spans_of in stays.items()
                      if who != host and any(a < end and (b is None or b > start) for a, b in spans_of))
        word, before = what.lower().split()[-1], start.isoformat(sep=" ")
        told = {who for e in events if e.get("kind") == "line" and str(e.get("time")) < before
                and word in str(e.get("text") or "").lower() for who in (e.get("resident"), e.get("partner"))}
        heard = sorted(who for who in came if who in told)  # said it, or was told it, before it began
        out.append({"host": host, "what": what, "where": sector, "from": f"{start:%Y-%m-%d %H:%M}",
                    "to": f"{end:%H:%M}", "came": came, "heard_and_came": heard,
                    "scenario": what.lower() == "valentine's day party"})
    return sorted(out, key=lambda g: g["from"])


# Words that speak of a thing as over: "You told me yesterday about the party. How did it go?"
# names a party that is over, and asks of it as past
_AS_PAST = re.compile(r"\b(did it go|it went|went (?:well|fine|all right)|was (?:lovely|great|fun|nice|a success)|"
                      r"last night|yesterday's)\b", re.I)


def stale_lines(events: list[dict]) -> list[dict]:
    """Lines that speak of a dated thing already over when they were said, as if to come."""
    out = []
    for e in events:
        t = parse_time(e.get("time"))
        text = str(e.get("text") or "")
        if e.get("kind") == "line" and t is not None and dt.ended(text, t, t) and not _AS_PAST.search(text):
            out.append({"time": str(e.get("time")), "resident": e.get("resident"), "text": text[:200]})
    return out


def _plans_by_day(states: dict[str, dict]) -> dict[str, dict[str, str]]:
    """resident -> month-day words -> its day plan's items (without times), from its plan memories."""
    out: dict[str, dict[str, str]] = {}
    for who, state in states.items():
        for n in (state.get("memory") or {}).get("nodes") or []:
            m = _PLAN.search(str(n.get("description") or "")) if n.get("kind") == "plan" else None
            if m:
                items = re.sub(r"\b\d\d:\d\d(?:-\d\d:\d\d)?\s*", "", m.group(2))
                out.setdefault(who, {})[m.group(1)] = items
    return out


def days_report(tg: Target) -> dict[str, Any]:
    """The table, a row per sim day, with the run's totals of what the issue asks stay flat."""
    events = tg.events or []
    ledger = _ledger(tg.folder)
    offset = _offset(ledger)
    by_day: dict[date, list[dict]] = defaultdict(list)
    for e in events:
        d = _day_of(e, offset)
        if d is not None:
            by_day[d].append(e)
    created = defaultdict(list)
    for who, state in (tg.states or {}).items():
        for n in (state.get("memory") or {}).get("nodes") or []:
            t = parse_time(n.get("created"))
            if t is not None:
                created[who].append(t)
    plans = _plans_by_day(tg.states or {})
    all_gatherings = gatherings(events, tg.states or {})
    stale = stale_lines(events)
    rows = []
    previous: dict[str, set[str]] = {}
    for d in sorted(by_day):
        evs = by_day[d]
        lines = [e for e in evs if e.get("kind") == "line"]
        doing: dict[str, set[str]] = defaultdict(set)
        for e in evs:
            if e.get("kind") == "action" and e.get("resident"):
                doing[str(e["resident"])].add(re.sub(r"\s+", " ", str(e.get("text") or "").lower()).strip())
        repeated = [len(doing[r] & previous[r]) / len(doing[r]) for r in doing if r in previous and doing[r]]
        begin = datetime.combine(d, datetime.min.time()) + offset
        end = begin + timedelta(days=1)
        memories = [sum(1 for t in ts if t < end) for ts in created.values()]
        said = f"{dt.MONTHS[d.month - 1]} {d.day}"
        before = f"{dt.MONTHS[(d - timedelta(days=1)).month - 1]} {(d - timedelta(days=1)).day}"
        same_plan = sorted(r for r, p in plans.items() if said in p and before in p and p[said] == p[before])
        g = [x for x in all_gatherings if begin <= datetime.fromisoformat(x["from"]) < end]
        led = ledger.get(d.isoformat(), {})
        calls, tokens = led.get("calls"), led.get("tokens")
        rows.append({
            "day": d.isoformat(), "from": f"{begin:%H:%M}", "wall_s": led.get("wall_s"), "calls": calls,
            "tokens_per_call": round(tokens / calls, 1) if calls and tokens is not None else None,
            "memories_per_resident": round(mean(memories), 1) if memories else None,
            "conversations": len({e.get("conversation") for e in lines if e.get("conversation") is not None}),
            "lines": len(lines), "distinct_lines": len({str(e.get("text")) for e in lines}),
            "gatherings_started": sum(1 for x in g if not x["scenario"]),
            "guests_who_had_heard": max((len(x["heard_and_came"]) for x in g if not x["scenario"]), default=0),
            "repeated_share": round(mean(repeated), 3) if repeated else None,
            "stale_lines": sum(1 for s in stale if _day_of(s, offset) == d),
            "same_plan_as_day_before": same_plan,
        })
        previous = dict(doing)
    return {"rows": rows, "gatherings": all_gatherings, "stale_examples": stale[:10]}


def days_markdown(report: dict[str, Any]) -> list[str]:
    """The table and the gatherings, as the evaluation's markdown prints them."""
    out = ["## Day by day", "",
           "| day | wall s | calls | tokens/call | memories/resident | talks | lines (distinct) | gatherings started"
           " | most guests who had heard | repeated | stale lines | same plan |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        def f(v: Any) -> str:
            return "-" if v is None else str(v)
        rep = "-" if r["repeated_share"] is None else format(r["repeated_share"], ".0%")
        day = r["day"] if r.get("from", "00:00") == "00:00" else f"{r['day']} {r['from']}"
        out.append(f"| {day} | {f(r['wall_s'])} | {f(r['calls'])} | {f(r['tokens_per_call'])} | "
                   f"{f(r['memories_per_resident'])} | {r['conversations']} | {r['lines']} ({r['distinct_lines']}) | "
                   f"{r['gatherings_started']} | {r['guests_who_had_heard']} | {rep} | "
                   f"{r['stale_lines']} | {len(r['same_plan_as_day_before'])} |")
    out += ["", "Gatherings:"] + [
        f"- {g['from']}-{g['to']} {g['host']}: {g['what']} at {g['where']}; came: {', '.join(g['came']) or 'nobody'}"
        f" (had heard: {len(g['heard_and_came'])})" for g in report["gatherings"]] + [""]
    if report["stale_examples"]:
        out += ["Lines that spoke of something over as still to come:"] + [
            f"- {s['time']} {s['resident']}: \"{s['text']}\"" for s in report["stale_examples"]] + [""]
    return out


__all__ = ["days_markdown", "days_report", "gatherings", "stale_lines"]
