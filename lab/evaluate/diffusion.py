"""1. Information diffusion, judged from memories and the event log: who knew
Sam Moore's candidacy and Isabella's party at the start and the end, and when
each resident first heard it. (The interview judgement is in interviews.py.)"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from game.saves.saved_run import Target, parse_time
from lab.evaluate.judge import FACTS, Fact, memory_knows
from lab.evaluate.memories import MemoryView, Vectors, initial_texts, view_of_state
from lab.evaluate.paper import PAPER_N


def share(n: int, total: int) -> float:
    return round(n / total, 4) if total else 0.0


def line_mentions(events: Iterable[dict], pattern: str) -> list[dict]:
    """Dialogue lines (kind ``line``) whose text matches ``pattern``."""
    rx = re.compile(pattern, re.I)
    return [e for e in events if e.get("kind") == "line" and rx.search(str(e.get("text", "")))]


def first_heard(fact: Fact, residents: Sequence[str], start: datetime | None, events: list[dict] | None,
                views: dict[str, MemoryView], judged: dict[str, list[bool]]) -> dict[str, dict]:
    """resident -> {"time", "how", "from"}: the first time each resident knew
    ``fact``: the holder at the start; anyone who said or heard a line about it;
    anyone with a memory that holds it (the memory's creation time)."""
    out: dict[str, dict] = {}

    def note(who: str, t: datetime | None, how: str, src: str | None = None) -> None:
        if who not in residents or t is None:
            return
        if who not in out or t < out[who]["time"]:
            out[who] = {"time": t, "how": how, "from": src}

    if fact.holder in residents and start is not None:
        note(fact.holder, start, "seed")
    for e in line_mentions(events or [], fact.topic):
        if (fact.needs_detail and e.get("resident") != fact.holder
                and not re.search(fact.detail, str(e.get("text")), re.I)):
            continue  # "the election" without the candidate is not the news
        t = parse_time(e.get("time"))
        note(e.get("resident"), t, "said it")
        if e.get("partner"):
            note(e["partner"], t, "heard it", e.get("resident"))
    for who, view in views.items():
        for i, hit in enumerate(judged.get(who, [])):
            if hit:
                note(who, view.created[i], f"{view.kinds[i]} memory")
    return out


def diffusion(tg: Target, personas: dict[str, Any], scenario: Any, embedder: Any) -> dict:
    """The memory-based judgement of each fact at the start and the end, and the curve over time."""
    residents = tg.residents
    n = len(residents)
    states = tg.states
    views = {r: view_of_state(states[r]) for r in residents if r in states}
    model = next((v.model for v in views.values() if v.model), None)
    vec = Vectors(embedder, model)
    notes = []
    if views and not vec.ok:
        notes.append("memory judge by keyword and detail only (no embedder for the save's embedding model)")
    init = {r: initial_texts(personas[r], scenario) for r in residents if r in personas}
    flat = [t for r in init for t in init[r]]
    flat_vecs = vec(flat)
    res: dict[str, Any] = {"residents": n, "notes": notes, "facts": {}}
    for fact in FACTS:
        fv = vec([fact.statement])
        fvec = fv[0] if fv is not None else None
        # start: what the story begins with
        start_knows, k = [], 0
        for r in residents:
            texts = init.get(r, [])
            vs = flat_vecs[k:k + len(texts)] if flat_vecs is not None else None
            k += len(texts)
            if any(memory_knows(fact, texts, vs, fvec, owner=r)):
                start_knows.append(r)
        # end: the save's memory streams
        judged = {r: memory_knows(fact, v.texts, v.vectors if vec.ok else None, fvec, owner=r)
                  for r, v in views.items()}
        end_knows = [r for r in residents if any(judged.get(r, []))] if views else None
        evidence = {r: [v.texts[i] for i, h in enumerate(judged[r]) if h][:3]
                    for r, v in views.items() if any(judged[r])}
        heard = first_heard(fact, residents, tg.start, tg.events, views, judged)
        curve = sorted((h["time"], r) for r, h in heard.items())
        res["facts"][fact.key] = {
            "label": fact.label, "holder": fact.holder,
            "memory_start": {"knows": start_knows, "count": len(start_knows), "share": share(len(start_knows), n)},
            "memory_end": None if end_knows is None else
            {"knows": end_knows, "count": len(end_knows), "share": share(len(end_knows), n), "evidence": evidence},
            "heard_over_time": [{"time": t.isoformat(sep=" "), "resident": r, "how": heard[r]["how"],
                                 "from": heard[r]["from"]} for t, r in curve],
            "heard_end": {"count": len(heard), "share": share(len(heard), n)},
            "paper": {"start": fact.paper[0], "end": fact.paper[1], "start_count": fact.paper_counts[0],
                      "end_count": fact.paper_counts[1], "of": PAPER_N},
        }
    return res
