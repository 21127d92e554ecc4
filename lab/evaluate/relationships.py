"""2. Relationship formation: the density of the who-knows-whom graph at the
start (who the seed descriptions name) and the end (whom each mind knows, whom
it talked with)."""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from game.saves.saved_run import Target
from lab.evaluate.paper import PAPER_DENSITY, PAPER_N


def _name_patterns(names: Sequence[str]) -> dict[str, re.Pattern]:
    firsts = [n.split()[0] for n in names]
    out = {}
    for n in names:
        f = n.split()[0]
        alts = [re.escape(n)] + ([rf"\b{re.escape(f)}\b"] if firsts.count(f) == 1 else [])
        out[n] = re.compile("|".join(alts))
    return out


def names_in(text: str, names: Sequence[str], pats: dict[str, re.Pattern] | None = None) -> set[str]:
    pats = pats or _name_patterns(names)
    return {n for n in names if pats[n].search(text or "")}


def start_graph(residents: Sequence[str], personas: dict[str, Any]) -> dict[str, set[str]]:
    """A knows B at the start when A's seed description names B."""
    pats = _name_patterns(residents)
    out = {}
    for r in residents:
        desc = getattr(personas.get(r), "description", "") if r in personas else ""
        out[r] = names_in(desc, residents, pats) - {r}
    return out


def end_graph(residents: Sequence[str], start: dict[str, set[str]], states: dict[str, dict],
              events: list[dict] | None) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(knows, talked): A knows B at the end when A knew B at the start, or A's mind
    knows B (met, talked with or seen), or A's memories of talks name B, or the
    event log has them in a conversation; ``talked`` is the conversations alone."""
    rs = set(residents)
    knows = {r: set(start.get(r, ())) for r in residents}
    talked: dict[str, set[str]] = {r: set() for r in residents}
    for r, s in states.items():
        if r not in knows:
            continue
        knows[r] |= set(s.get("known_people") or ()) & rs
        for n in (s.get("memory") or {}).get("nodes") or []:
            if n.get("kind") == "chat":
                for who in (n.get("subject"), n.get("object")):
                    if who in rs and who != r:
                        knows[r].add(who)
                        talked[r].add(who)
    for e in events or []:
        if e.get("kind") in ("chat", "line") and e.get("resident") in rs and e.get("partner") in rs:
            a, b = e["resident"], e["partner"]
            for x, y in ((a, b), (b, a)):
                knows[x].add(y)
                talked[x].add(y)
    for r in knows:
        knows[r].discard(r)
        talked[r].discard(r)
    return knows, talked


def undirected(graph: dict[str, set[str]], mutual: bool = False) -> set[tuple[str, str]]:
    edges = set()
    for a, bs in graph.items():
        for b in bs:
            if a == b or b not in graph:
                continue
            if mutual and a not in graph.get(b, ()):
                continue
            edges.add(tuple(sorted((a, b))))
    return edges


def density(graph: dict[str, set[str]], mutual: bool = False) -> float:
    """Undirected: edges / (n(n-1)/2), as the paper."""
    n = len(graph)
    if n < 2:
        return 0.0
    return round(len(undirected(graph, mutual)) / (n * (n - 1) / 2), 4)


def relationships(tg: Target, personas: dict[str, Any]) -> dict:
    rs = tg.residents
    start = start_graph(rs, personas)
    everyone = list(personas)
    res = {
        "cast_size": len(everyone), "cast_start_density": density(start_graph(everyone, personas)),
        "residents": len(rs),
        "start": {"density": density(start), "edges": sorted(map(list, undirected(start))),
                  "mutual_density": density(start, mutual=True)},
        "paper": {"start": PAPER_DENSITY[0], "end": PAPER_DENSITY[1], "of": PAPER_N},
        "end": None,
    }
    if tg.states or tg.events:
        knows, talked = end_graph(rs, start, tg.states, tg.events)
        res["end"] = {"density": density(knows), "edges": sorted(map(list, undirected(knows))),
                      "mutual_density": density(knows, mutual=True), "talked_density": density(talked),
                      "knows": {r: sorted(v) for r, v in knows.items()}}
        if not tg.states:
            res["end"]["note"] = "from the event log only (no save)"
    return res
