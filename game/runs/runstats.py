"""What a run's event log says about who led each resident's day (no pygame).

``model_led(events, end)`` gives, per resident, the paper's question made
measurable: of the minutes a resident was awake, how many did it spend on an
action the model chose (as written, or repaired from its answer), and how many
on one a rule or the routine chose, by reason. An action lasts from its
``action`` event until the resident's next action or conversation (walking
there included); a conversation counts as the talk decision's. Sleep is not
awake time.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime

from agents import provenance as pv

_SLEEP_RE = re.compile(r"\b(asleep|sleep|sleeping|slept|napping|nap|going to bed|in bed)\b", re.I)
_NOT_SLEEP_RE = re.compile(r"\b(ready|prepar\w*|wak\w*|before|after|trouble|can't|cannot)\b", re.I)


def _t(v) -> datetime | None:
    try:
        return datetime.fromisoformat(str(v))
    except (TypeError, ValueError):
        return None


def _asleep(text: str) -> bool:
    return bool(_SLEEP_RE.search(text or "")) and not _NOT_SLEEP_RE.search(text or "")


def model_led(events: Iterable[dict], end: datetime | None = None) -> dict[str, dict]:
    """resident -> {awake_min, model_min, share, by_kind: {kind: minutes}, by_reason: {reason: minutes}}."""
    spans: dict[str, list[tuple[datetime, str, str]]] = defaultdict(list)  # resident -> (start, source, text)
    last_time = None
    for e in events:
        t = _t(e.get("time"))
        if t is None:
            continue
        last_time = t
        who, kind = e.get("resident"), e.get("kind")
        if not who:
            continue
        if kind == "action":
            spans[who].append((t, str(e.get("source") or ""), str(e.get("text") or "")))
        elif kind == "chat" and not e.get("ended") and not e.get("greeting"):
            src = str(e.get("source") or "")
            spans[who].append((t, src, "conversing"))
            partner = e.get("partner")
            if partner:
                spans[partner].append((t, src, "conversing"))
    end = end or last_time
    out: dict[str, dict] = {}
    for who, rows in spans.items():
        rows.sort(key=lambda r: r[0])
        by_kind: Counter = Counter()
        by_reason: Counter = Counter()
        for (t, src, text), nxt in zip(rows, rows[1:] + [(end, "", "")]):
            stop = nxt[0] if nxt[0] is not None else t
            minutes = max(0.0, (stop - t).total_seconds() / 60.0)
            if minutes <= 0 or _asleep(text):
                continue
            k = pv.kind_of(src)
            by_kind[k] += minutes
            if not pv.model_led(src):
                by_reason[f"{k}: {pv.why_of(src) or 'no reason given'}"] += minutes
        awake = sum(by_kind.values())
        led = by_kind[pv.MODEL] + by_kind[pv.REPAIRED]
        out[who] = {
            "awake_min": round(awake, 1),
            "model_min": round(led, 1),
            "share": round(led / awake, 4) if awake else None,
            "by_kind": {k: round(v, 1) for k, v in sorted(by_kind.items())},
            "by_reason": {k: round(v, 1) for k, v in by_reason.most_common()},
        }
    return out


def share_of_all(per_resident: dict[str, dict]) -> float | None:
    awake = sum(r["awake_min"] for r in per_resident.values())
    led = sum(r["model_min"] for r in per_resident.values())
    return round(led / awake, 4) if awake else None


def reflections_per_day(events: Iterable[dict], sim_days: float) -> dict[str, dict]:
    """resident -> {"sessions": reflections per sim day (the paper: two or three),
    "insights": insights stored per sim day}. One session stores its insights at one time."""
    sessions: dict[str, set] = defaultdict(set)
    insights: Counter = Counter()
    for e in events:
        if e.get("kind") == "reflect" and e.get("resident"):
            sessions[e["resident"]].add(e.get("time"))
            insights[e["resident"]] += 1
    per = (lambda c: round(c / sim_days, 2)) if sim_days > 0 else float
    return {who: {"sessions": per(len(sessions[who])), "insights": per(insights[who])} for who in insights}


def lines_by_source(events: Iterable[dict]) -> dict[str, Counter]:
    """resident -> provenance kind -> dialogue lines."""
    out: dict[str, Counter] = defaultdict(Counter)
    for e in events:
        if e.get("kind") == "line" and e.get("resident"):
            out[e["resident"]][pv.kind_of(e.get("source"))] += 1
    return out
