"""Facts passed on in conversation: how often a resident's line tells a partner one
of the scenario's facts (Sam Moore's candidacy, Isabella's party) that the partner
did not know before, and whether the partner remembers it at the end.

Read from the event log (``line`` events of resident conversations, in time order)
and the end save's memory streams, by rule (judge.py's topic and detail patterns),
with no model: the same on every run.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from game.saves.saved_run import parse_time
from lab.evaluate.judge import FACTS, Fact
from lab.evaluate.memories import MemoryView


def tells(fact: Fact, text: str, speaker: str) -> bool:
    """Does a line state ``fact``: its topic and a detail (the holder speaking of its own
    news need not name itself)?"""
    t = str(text or "")
    return bool(re.search(fact.topic, t, re.I)) and (bool(re.search(fact.detail, t, re.I)) or speaker == fact.holder)


def remembers(fact: Fact, view: MemoryView | None, since: datetime | None) -> bool:
    """Does the listener's memory hold ``fact`` in a memory made at or after ``since``?"""
    if view is None:
        return False
    for text, created in zip(view.texts, view.created):
        if since is not None and created is not None and created < since.replace(second=0, microsecond=0):
            continue
        if re.search(fact.topic, text, re.I) and re.search(fact.detail, text, re.I):
            return True
    return False


def fact_passing(events: Sequence[dict] | None, residents: Sequence[str], views: dict[str, MemoryView]) -> dict:
    """{"conversations", "with_a_new_fact", "rate", "passes": [...], "new", "remembered"}: each pass is a
    line that told a partner a fact new to them (the partner neither held it nor had said or heard it)."""
    lines = [e for e in (events or []) if e.get("kind") == "line" and e.get("conversation") is not None
             and e.get("resident") in residents and e.get("partner") in residents]
    lines.sort(key=lambda e: str(e.get("time", "")))
    knows: dict[str, set[str]] = {f.key: {f.holder} for f in FACTS}
    conversations: dict[Any, bool] = {}
    passes: list[dict] = []
    for e in lines:
        cid, speaker, partner, text = e.get("conversation"), e["resident"], e["partner"], str(e.get("text", ""))
        conversations.setdefault(cid, False)
        for fact in FACTS:
            if not tells(fact, text, speaker):
                continue
            known = knows[fact.key]
            if partner not in known:
                t = parse_time(e.get("time"))
                passes.append({"fact": fact.key, "from": speaker, "to": partner, "time": e.get("time"),
                               "line": text[:200], "remembered": remembers(fact, views.get(partner), t),
                               "source": e.get("source")})
                conversations[cid] = True
            known.update((speaker, partner))
    n = len(conversations)
    new = sum(1 for v in conversations.values() if v)
    return {"conversations": n, "with_a_new_fact": new, "rate": round(new / n, 4) if n else 0.0,
            "passes": passes, "new": len(passes), "remembered": sum(1 for p in passes if p["remembered"])}


def passing_markdown(fp: dict) -> list[str]:
    L = ["## 4. Facts passed on in conversation", "",
         f"{fp['with_a_new_fact']} of {fp['conversations']} conversations between residents told the listener "
         f"a fact they did not know ({fp['rate']:.0%}); {fp['new']} such lines, {fp['remembered']} of them "
         "in the listener's memory at the end.", ""]
    if fp["passes"]:
        L += ["| time | fact | from | to | in memory | line |", "|---|---|---|---|---|---|"]
        for p in fp["passes"]:
            line = p["line"].replace("|", "/")
            L.append(f"| {p['time']} | {p['fact']} | {p['from']} | {p['to']} | {'yes' if p['remembered'] else 'no'} "
                     f"| {line} |")
        L.append("")
    return L


__all__ = ["fact_passing", "passing_markdown", "remembers", "tells"]
