"""3. Coordination: who was invited to the Valentine's Day party, who planned
to go, and who was at Hobbs Cafe between 17:00 and 19:00 on Feb 14."""
from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any

from game.saves.saved_run import Target, parse_time
from lab.evaluate.diffusion import line_mentions
from lab.evaluate.judge import PARTY_END, PARTY_HOST, PARTY_SECTOR, PARTY_START, PARTY_TOPIC
from lab.evaluate.paper import PAPER_ATTENDED, PAPER_INVITED, PAPER_N

PLAN_WORDS = (r"\b(going to|will go|plan(ning)? to|attend|see you there|i'll be there|will be there|"
              r"looking forward|can't wait|count me in|i'll come|will come|join)\b")


def sector_of(address: str | None) -> str | None:
    parts = str(address or "").split(":")
    return parts[1] if len(parts) > 1 else None


def presence(events: list[dict], sector: str) -> dict[str, list[tuple[datetime, datetime | None]]]:
    """resident -> intervals [arrived, left) spent in ``sector``, from the event
    log: an ``arrive`` (or a dialogue line) there puts them in; an ``action``
    elsewhere takes them out (they set off). None: still there at the log's end."""
    where: dict[str, str | None] = {}
    since: dict[str, datetime] = {}
    out: dict[str, list] = {}
    for e in sorted(events, key=lambda e: str(e.get("time", ""))):
        who, t, kind = e.get("resident"), parse_time(e.get("time")), e.get("kind")
        if not who or t is None:
            continue
        sec = sector_of(e.get("address"))
        if kind in ("arrive", "line", "chat") and sec:
            if where.get(who) != sec:
                if where.get(who) == sector:
                    out.setdefault(who, []).append((since[who], t))
                where[who], since[who] = sec, t
        elif kind == "action" and sec and sec != where.get(who):
            if where.get(who) == sector:
                out.setdefault(who, []).append((since[who], t))
            where[who] = None
    for who, sec in where.items():
        if sec == sector:
            out.setdefault(who, []).append((since[who], None))
    return out


def at_party(events: list[dict], start: datetime = PARTY_START, end: datetime = PARTY_END,
             sector: str = PARTY_SECTOR) -> dict[str, list[str]]:
    """Who was in the sector at some time in [start, end): resident -> the intervals (text)."""
    out = {}
    for who, spans in presence(events, sector).items():
        hits = [(a, b) for a, b in spans if a < end and (b is None or b > start)]
        if hits:
            out[who] = [f"{a:%a %H:%M}-{(b.strftime('%H:%M') if b else 'end')}" for a, b in hits]
    return out


PARTY_DAY = PARTY_START.date()


def plan_mentions_party(state: dict, day: date = PARTY_DAY) -> list[str]:
    """Evidence that a resident planned to go: plan items of the party's day that
    overlap the party and are at Hobbs Cafe or name the party; plan memories that
    name the party; other memories that name it with an intent to go."""
    hits = []
    for x in state.get("plan") or []:
        s = parse_time(x.get("start"))
        if s is None or s.date() != day:
            continue
        e = s + timedelta(minutes=int(x.get("minutes") or 0))
        if s < PARTY_END and e > PARTY_START and (sector_of(x.get("address")) == PARTY_SECTOR
                                                     or re.search(PARTY_TOPIC, str(x.get("description")), re.I)):
            hits.append(f"plan item {s:%H:%M} {x.get('description')} @ {sector_of(x.get('address'))}")
    for n in (state.get("memory") or {}).get("nodes") or []:
        d = str(n.get("description", ""))
        if not re.search(PARTY_TOPIC, d, re.I):
            continue
        if n.get("kind") == "plan":
            hits.append(f"plan memory: {d[:160]}")
        elif re.search(PLAN_WORDS, d, re.I):
            hits.append(f"{n.get('kind')} memory: {d[:160]}")
    return hits


def coordination(tg: Target) -> dict:
    rs = set(tg.residents)
    res: dict[str, Any] = {"host": PARTY_HOST,
                           "party": f"{PARTY_SECTOR}, {PARTY_START:%a %b %d %H:%M}-{PARTY_END:%H:%M}",
                           "paper": {"invited": PAPER_INVITED, "attended": PAPER_ATTENDED, "of": PAPER_N},
                           "notes": []}
    invited: dict[str, list[str]] = {}
    if tg.events is not None:
        for e in line_mentions(tg.events, PARTY_TOPIC):
            who, to = e.get("resident"), e.get("partner")
            if to in rs and to != PARTY_HOST:
                invited.setdefault(to, []).append(f"{e.get('time')} {who}: {str(e.get('text'))[:120]}")
    for r, s in tg.states.items():
        if r == PARTY_HOST:
            continue
        for n in (s.get("memory") or {}).get("nodes") or []:
            d = str(n.get("description", ""))
            if n.get("kind") == "chat" and re.search(PARTY_TOPIC, d, re.I):
                invited.setdefault(r, []).append(f"{n.get('created')} chat memory: {d[:120]}")
    planned = {r: ev for r, s in tg.states.items() if r != PARTY_HOST and (ev := plan_mentions_party(s))}
    res["invited"] = {r: v[:3] for r, v in sorted(invited.items())}
    res["planned"] = {r: v[:3] for r, v in sorted(planned.items())}
    res["host_planned"] = plan_mentions_party(tg.states[PARTY_HOST])[:3] if PARTY_HOST in tg.states else None
    if not tg.states:
        res["notes"].append("no save: plans are not known")
    reached = tg.end is not None and tg.end >= PARTY_START
    res["reached"] = reached
    if tg.events is None:
        res["attended"] = None
        res["notes"].append("no event log: attendance is not known")
    elif not reached:
        res["attended"] = None
        res["notes"].append(f"the run did not reach {PARTY_START:%b %d %H:%M} (it ends {tg.end:%a %b %d %H:%M})"
                            if tg.end else f"the run did not reach {PARTY_START:%b %d %H:%M}")
    else:
        if tg.end < PARTY_END:
            res["notes"].append(f"the run ends during the party ({tg.end:%H:%M})")
        came = at_party(tg.events)
        res["attended"] = {r: v for r, v in sorted(came.items()) if r in rs}
    att = res["attended"]
    res["counts"] = {
        "residents": len(rs),
        "invited": len(invited),
        "planned": len(planned),
        "attended": None if att is None else len([r for r in att if r != PARTY_HOST]),
        "invited_and_attended": None if att is None else len([r for r in att if r in invited]),
        "planned_and_attended": None if att is None else len([r for r in att if r in planned]),
        "host_attended": None if att is None else PARTY_HOST in att,
    }
    return res
