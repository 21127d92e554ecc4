"""The conditions of the controlled evaluation, as data: each is a named set of memory
kinds hidden from the resident being interviewed (Park et al. 2023, section 6).

The kinds are the memory stream's (observation, reflection, plan, chat, thought)
plus ``seed``: the resident's description and the scenario's thoughts it starts
with, whatever kind they are stored as. The seed is never hidden by the paper's
conditions; a researcher's condition may hide it too.

A condition hides its kinds from everything an interview retrieves and reads by
building the resident's mind anew from its saved state without them
(``ablated_state``): the memory stream (so retrieval, the grounded mode's fact
choice and its seed phrases all see only what is left), and what other parts of
the state were made of them: the day's plan and current action (plan), the people
met and the relationship notes (observation and chat), the "lately" summary and
yesterday's summary (anything hidden: the seed's summary stands in, unless the
condition says ``"summary": "kept"``).

``human`` is the paper's fifth condition: answers written by people
(lab/controlled/people.py), not a mind; with none written it is left out.
"""
from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents import memory, provenance
from game.support.errors import UserError

SEED = "seed"
HIDEABLE = (*memory.KINDS, SEED)
HUMAN = "human"
FULL = "full"


@dataclass(frozen=True)
class Condition:
    """One arm of the evaluation: ``hide`` the memory kinds the interview must not see;
    ``people``: the answers are people's (no mind); ``summary``: "seed" (the seed's
    summary when anything is hidden) or "kept"; ``paper``: the paper's TrueSkill mu."""

    name: str
    label: str
    hide: frozenset[str] = frozenset()
    people: bool = False
    summary: str = "seed"
    paper: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "label": self.label, "hide": sorted(self.hide)}
        if self.people:
            d["people"] = True
        if self.summary != "seed":
            d["summary"] = self.summary
        if self.paper is not None:
            d["paper"] = self.paper
        return d


# The paper's five (Figure 8: TrueSkill mu; the full architecture's sigma was 0.72).
PAPER_CONDITIONS = (
    Condition(FULL, "full architecture", frozenset(), paper=29.89),
    Condition("no_reflection", "no reflection", frozenset({"reflection"}), paper=26.88),
    Condition("no_reflection_planning", "no reflection, no planning", frozenset({"reflection", "plan"}), paper=25.64),
    Condition(HUMAN, "human-written", people=True, paper=22.95),
    Condition("seed_only", "no observation, no reflection, no planning (seed only)",
              frozenset({"observation", "reflection", "plan", "chat", "thought"}), paper=21.21),
)
PAPER_FULL_SIGMA = 0.72


def condition_of(d: Any, where: str) -> Condition:
    """One condition from plain data; a UserError names the file, the entry and the fix."""
    if not isinstance(d, dict):
        raise UserError(f"{where}: a condition must be an object like "
                        '{"name": "no_chat", "label": "no conversations", "hide": ["chat"]}, not ' f"{d!r:.60}")
    name = d.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,40}", name):
        raise UserError(f"{where}: condition name {name!r} must be a short lower-case word (a-z, 0-9, _)")
    hide = d.get("hide", [])
    if not isinstance(hide, list) or not all(isinstance(k, str) for k in hide):
        raise UserError(f"{where}: condition {name}: hide must be a list of memory kinds")
    bad = [k for k in hide if k not in HIDEABLE]
    if bad:
        raise UserError(f"{where}: condition {name} hides {', '.join(map(repr, bad))}: not a memory kind "
                        f"(the kinds are {', '.join(HIDEABLE)})")
    summary = d.get("summary", "seed")
    if summary not in ("seed", "kept"):
        raise UserError(f"{where}: condition {name}: summary must be \"seed\" or \"kept\", not {summary!r}")
    paper = d.get("paper")
    if paper is not None and not isinstance(paper, (int, float)):
        raise UserError(f"{where}: condition {name}: paper must be a number (the paper's mu) or absent")
    people = bool(d.get("people", False))
    if people and hide:
        raise UserError(f"{where}: condition {name} is people's answers: it cannot hide memory kinds")
    return Condition(name, str(d.get("label") or name.replace("_", " ")), frozenset(hide), people, summary,
                     float(paper) if paper is not None else None)


def load_conditions(path: Path) -> list[Condition]:
    """A conditions file: a JSON list of conditions (``Condition.to_dict``'s form)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"conditions file {path} not found") from None
    except (OSError, ValueError, RecursionError) as err:  # RecursionError: nested too deep
        raise UserError(f"conditions file {path} is not readable JSON ({err}); "
                        "write a list of conditions, e.g. [{\"name\": \"full\", \"hide\": []}]") from None
    if not isinstance(data, list) or not data:
        raise UserError(f"conditions file {path}: expected a non-empty JSON list of conditions")
    out = [condition_of(d, f"{path} entry {i + 1}") for i, d in enumerate(data)]
    names = [c.name for c in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise UserError(f"conditions file {path}: the name {', '.join(dup)} is used twice")
    return out


def conditions_json(conditions: list[Condition]) -> str:
    return json.dumps([c.to_dict() for c in conditions], indent=2) + "\n"


# ---------------------------------------------------------------------------- hiding


@dataclass
class Ablated:
    """A mind's state with a condition's kinds hidden, and where its memories came from:
    ``ids[new] = the memory's id in the full stream`` (reports name the full ids)."""

    state: dict
    ids: list[int] = field(default_factory=list)
    hidden: int = 0


def kind_for_hiding(node: dict, seeds: Collection[str]) -> str:
    """A memory's kind as conditions see it: ``seed`` for the description's phrases and the
    scenario's own thoughts, else its stream kind."""
    if provenance.why_of(node.get("source")) == provenance.SEED or str(node.get("description", "")) in seeds:
        return SEED
    return str(node.get("kind", ""))


def ablated_state(state: dict, cond: Condition, seeds: Collection[str] = frozenset()) -> Ablated:
    """``state`` (``Mind.to_state()``'s) without the memories of ``cond.hide`` and what was
    made of them. ``seeds``: the scenario's thoughts for this resident (they count as seed).
    The given state is not changed."""
    mem = state.get("memory") or {}
    nodes = list(mem.get("nodes") or [])
    hide = cond.hide
    if not hide:
        return Ablated(state, list(range(len(nodes))), 0)
    keep = [i for i, n in enumerate(nodes) if kind_for_hiding(n, seeds) not in hide]
    new_id = {old: new for new, old in enumerate(keep)}
    kept = []
    for old in keep:
        n = dict(nodes[old])
        n["id"] = new_id[old]
        # a reflection's evidence that is hidden is not there to point at
        n["evidence"] = [new_id[e] for e in n.get("evidence") or [] if e in new_id]
        kept.append(n)
    emb = mem.get("embeddings")
    rows = None
    if emb is not None:
        rows = (np.asarray(emb, dtype=np.float32)[keep] if keep
                else np.zeros((0, int(mem.get("dim") or 0)), dtype=np.float32))
    out = dict(state)
    out["memory"] = {**mem, "nodes": kept, "embeddings": rows, "importance_since_reflection": 0.0}
    out["unrated"] = [new_id[i] for i in state.get("unrated") or [] if i in new_id]
    out["unembedded"] = []
    out["said"] = []
    out["owed"] = []
    out["queue"] = []
    out["directives"] = []
    if "plan" in hide:  # the day's plan and what it made: the current action, the steps ahead
        out.update(plan=[], plan_day=None, arrangements=[], pending=[], action=None)
    if "observation" in hide:
        out["day_log"] = []
    if "chat" in hide:
        out["chats_today"] = []
        out["last_talked"] = {}
        out["last_conversation"] = None
    if {"observation", "chat"} <= hide:
        out["known_people"] = []
    out["rel_cache"] = {}  # relationship notes are made of all the memories
    if cond.summary == "seed":
        out["summary_day"] = None  # the summary itself is the persona's: set where the mind is built
        out["yesterday"] = "this is the first day of the story"
    return Ablated(out, keep, len(nodes) - len(keep))


__all__ = ["FULL", "HIDEABLE", "HUMAN", "PAPER_CONDITIONS", "PAPER_FULL_SIGMA", "SEED", "Ablated", "Condition",
           "ablated_state", "condition_of", "conditions_json", "kind_for_hiding", "load_conditions"]
