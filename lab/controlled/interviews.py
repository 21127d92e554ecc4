"""The paper's interviews under each condition: every resident of a save is asked the
battery's 25 questions (lab/evaluate/battery.py) once per condition, by a mind rebuilt
from its saved state with the condition's memory kinds hidden (conditions.py), through
the interview path (``remember=False``: nothing changes). The questions are chosen once
per resident, from its full mind (whom it knows), so every condition answers the same
ones. The factual questions (lab/evaluate/factual.py) are asked the same way, for the
automatic measures.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from agents import Mind
from game.saves.saved_run import Target
from lab.controlled.conditions import Condition, ablated_state
from lab.controlled.folder import KIND, item_key
from lab.evaluate.battery import BATTERY, battery_names
from lab.evaluate.factual import factual_rows
from lab.evaluate.interviews import ask_traced, is_fallback


def scenario_seeds(scenario: Any, resident: str) -> set[str]:
    return {t for who, t, _imp in getattr(scenario, "seeds", None) or [] if who == resident}


def ablated_mind(persona: Any, state: dict, cond: Condition, gateway: Any, embedder: Any,
                 seeds: set[str]) -> tuple[Mind, list[int], int]:
    """(the mind under ``cond``, new memory id -> the full stream's id, memories hidden)."""
    ab = ablated_state(state, cond, seeds)
    mind = Mind.restore(persona, gateway, embedder, ab.state)
    if cond.hide and cond.summary == "seed":
        mind.summary = Mind(persona, gateway, embedder).summary  # the seed's: what a new mind starts with
    return mind, ab.ids, ab.hidden


def questions_for(name: str, mind: Any, residents: Sequence[str], cast: Sequence[str],
                  per_category: int | None = None) -> list[tuple[str, str]]:
    n1, n2 = battery_names(name, mind, residents, cast)
    return [(cat, q.format(name1=n1, name2=n2)) for cat, qs in BATTERY.items() for q in qs[:per_category]]


def interview_conditions(tg: Target, personas: dict[str, Any], scenario: Any, gateway: Any, embedder: Any,
                         conditions: Sequence[Condition], *, names: Sequence[str] | None = None,
                         per_category: int | None = None, factual: bool = True,
                         echo: Callable[[str], None] | None = None) -> dict:
    """answers.json's content: the items (a resident's question and each condition's answer)."""
    now = tg.end
    if now is None:
        raise ValueError("the save has no sim time")
    minded = [c for c in conditions if not c.people]
    items: list[dict] = []
    factual_out: dict[str, list[dict]] = {c.name: [] for c in minded}
    hidden: dict[str, dict[str, int]] = {c.name: {} for c in minded}
    t0 = time.monotonic()
    for name in names or list(tg.states):
        state, persona = tg.states[name], personas[name]
        seeds = scenario_seeds(scenario, name)
        full = Mind.restore(persona, gateway, embedder, state)
        qs = questions_for(name, full, tg.residents, list(personas), per_category)
        rows: list[dict[str, Any]] = [
            {"key": item_key(name, q), "resident": name, "category": cat, "question": q, "answers": {}}
            for cat, q in qs]
        for cond in minded:
            mind, ids, n_hidden = ablated_mind(persona, state, cond, gateway, embedder, seeds)
            hidden[cond.name][name] = n_hidden
            for row in rows:
                r = ask_traced(mind, row["question"], now)
                mid = r.memory_id
                row["answers"][cond.name] = {
                    "text": r.text, "source": r.source, "mode": r.mode, "memory": r.memory,
                    "memory_id": ids[mid] if mid is not None and 0 <= mid < len(ids) else mid,
                    "fallback": is_fallback(mind, row["question"], r.text)}
                if echo is not None:
                    echo(f"  [{cond.name}] {name}: {row['question']} -> {r.text[:90]}")
            if factual:
                for fr in factual_rows({name: mind}, now):
                    mid = fr.get("memory_id")
                    fr["memory_id"] = ids[mid] if mid is not None and 0 <= mid < len(ids) else mid
                    factual_out[cond.name].append(fr)
        items += rows
    model = getattr(getattr(gateway, "config", None), "model", None)
    return {"kind": KIND, "version": 1, "target": str(tg.given), "save": str(tg.save) if tg.save else None,
            "time": now.isoformat(sep=" "), "start": tg.start.isoformat(sep=" ") if tg.start else None,
            "model": model, "grounded": getattr(getattr(gateway, "config", None), "grounded", None),
            "conditions": [c.to_dict() for c in conditions], "residents": list(names or tg.states),
            "descriptions": {n: personas[n].description for n in (names or tg.states)},
            "identities": {n: f"{personas[n].name}, age {personas[n].age}; {personas[n].traits}"
                           for n in (names or tg.states)},
            "hidden_memories": hidden, "items": items, "factual": factual_out,
            "seconds": round(time.monotonic() - t0, 1), "made": datetime.now().isoformat(timespec="seconds")}


__all__ = ["ablated_mind", "interview_conditions", "questions_for", "scenario_seeds"]
