"""The paper's interviews under each condition: every resident of a save is asked the
battery's 25 questions (lab/evaluate/battery.py) once per condition, by a mind rebuilt
from its saved state with the condition's memory kinds hidden (conditions.py), through
the interview path (``remember=False``: nothing changes). The questions are chosen once
per resident, from its full mind (whom it knows), so every condition answers the same
ones. The factual questions (lab/evaluate/factual.py) are asked the same way, for the
automatic measures. Each answer goes to the journal (journal.py) as it comes, and what
the journal holds already is not asked again.
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
from lab.controlled.journal import Journal
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


def question_rows(tg: Target, personas: dict[str, Any], gateway: Any, embedder: Any, names: Sequence[str],
                  per_category: int | None) -> dict[str, list[dict[str, Any]]]:
    """resident -> its items, the answers still to come; the questions chosen from its full mind."""
    out = {}
    for name in names:
        full = Mind.restore(personas[name], gateway, embedder, tg.states[name])
        qs = questions_for(name, full, tg.residents, list(personas), per_category)
        out[name] = [{"key": item_key(name, q), "resident": name, "category": cat, "question": q, "answers": {}}
                     for cat, q in qs]
    return out


def say_resumed(journal: Journal, rows: dict[str, list[dict]], minded: Sequence[Condition],
                echo: Callable[[str], None]) -> None:
    """How much of the work an earlier run wrote already (nothing said on a fresh start)."""
    wanted = [(row["key"], c.name) for rs in rows.values() for row in rs for c in minded]
    done = sum(1 for k in wanted if journal.answered(*k))
    stand_ins = sum(1 for k in wanted if k in journal.answers and not journal.answered(*k))
    if done:
        echo(f"resuming: {done} of {len(wanted)} answers already written (in {journal.path}); asking the rest")
    if stand_ins:
        echo(f"{stand_ins} answers written were the stand-in line (the model failed then): asked again")
    if journal.damaged:
        echo(f"{journal.path}: {journal.damaged} damaged lines skipped (cut short by a crash?): asked again")


def _full_id(mid: int | None, ids: list[int]) -> int | None:
    """The full stream's id of a memory the ablated mind numbered ``mid``."""
    return ids[mid] if mid is not None and 0 <= mid < len(ids) else mid


def _ask(mind: Mind, question: str, now: datetime, ids: list[int]) -> dict[str, Any]:
    """One answer, with where it came from (the memory named by the full stream's id)."""
    r = ask_traced(mind, question, now)
    return {"text": r.text, "source": r.source, "mode": r.mode, "memory": r.memory,
            "memory_id": _full_id(r.memory_id, ids), "fallback": is_fallback(mind, question, r.text)}


def interview_conditions(tg: Target, personas: dict[str, Any], scenario: Any, gateway: Any, embedder: Any,
                         conditions: Sequence[Condition], *, names: Sequence[str] | None = None,
                         per_category: int | None = None, factual: bool = True,
                         echo: Callable[[str], None] | None = None, journal: Journal | None = None) -> dict:
    """answers.json's content: the items (a resident's question and each condition's answer)."""
    now = tg.end
    if now is None:
        raise ValueError("the save has no sim time")
    journal = journal or Journal(None)
    names = list(names or tg.states)
    minded = [c for c in conditions if not c.people]
    rows = question_rows(tg, personas, gateway, embedder, names, per_category)
    if echo is not None:
        say_resumed(journal, rows, minded, echo)
    factual_out: dict[str, list[dict]] = {c.name: [] for c in minded}
    hidden: dict[str, dict[str, int]] = {c.name: {} for c in minded}
    t0 = time.monotonic()
    for name in names:
        state, persona = tg.states[name], personas[name]
        seeds = scenario_seeds(scenario, name)
        for cond in minded:
            mind, ids, n_hidden = ablated_mind(persona, state, cond, gateway, embedder, seeds)
            hidden[cond.name][name] = n_hidden
            for row in rows[name]:
                if not journal.answered(row["key"], cond.name):
                    answer = _ask(mind, row["question"], now, ids)
                    journal.add_answer(row["key"], cond.name, answer)
                    if echo is not None:
                        echo(f"  [{cond.name}] {name}: {row['question']} -> {answer['text'][:90]}")
                row["answers"][cond.name] = journal.answers[(row["key"], cond.name)]
            if factual and (name, cond.name) not in journal.factual:
                frs = factual_rows({name: mind}, now)
                for fr in frs:
                    fr["memory_id"] = _full_id(fr.get("memory_id"), ids)
                journal.add_factual(name, cond.name, frs)
            factual_out[cond.name] += journal.factual.get((name, cond.name), [])
    items = [row for name in names for row in rows[name]]
    model = getattr(getattr(gateway, "config", None), "model", None)
    return {"kind": KIND, "target": str(tg.given),
            "time": now.isoformat(sep=" "), "start": tg.start.isoformat(sep=" ") if tg.start else None,
            "model": model, "grounded": getattr(getattr(gateway, "config", None), "grounded", None),
            "conditions": [c.to_dict() for c in conditions], "residents": names,
            "descriptions": {n: personas[n].description for n in names},
            "identities": {n: f"{personas[n].name}, age {personas[n].age}; {personas[n].traits}" for n in names},
            "hidden_memories": hidden, "items": items, "factual": factual_out,
            "seconds": round(time.monotonic() - t0, 1), "made": datetime.now().isoformat(timespec="seconds")}


__all__ = ["ablated_mind", "interview_conditions", "question_rows", "questions_for", "say_resumed",
           "scenario_seeds"]
