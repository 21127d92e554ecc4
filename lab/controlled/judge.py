"""A judge model ranks each question's answers, as the paper's raters did, through the
project's one model road (any litellm model; the gateway's cache, retries and
accounting). The prompt (agents/prompts/rank_answers.txt) shows the resident's
description, the question and the answers, shuffled and numbered; it never names a
condition. An answer that is not a ranking of every answer (a number missing, twice,
or out of range) is not repaired: it is stored as a fallback, counted, and left out
of the ratings.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from agents import render
from lab.controlled.folder import JUDGES, Evaluation, append_ranking, read_rankings, slug
from lab.controlled.terminal import ranked_record


class Ranking(BaseModel):
    ranking: list[int]


def _one_line(text: str, limit: int = 400) -> str:
    return " ".join(str(text).split())[:limit]


def judge_prompt(ev: Evaluation, item: dict, shown: list[list[str]], answers: dict[str, str]) -> str:
    r = item["resident"]
    return render("rank_answers", identity=ev.data.get("identities", {}).get(r, r),
                  description=_one_line(ev.data.get("descriptions", {}).get(r, ""), 900),
                  question=item["question"], count=len(shown), first_name=r.split()[0],
                  answers="\n".join(f"{i + 1}. {_one_line(answers[g[0]])}" for i, g in enumerate(shown)))


def as_order(ranking: list[int], shown: list) -> list[int] | None:
    """The answers' indexes best first, or None when ``ranking`` is not a ranking of every answer."""
    if sorted(ranking) != list(range(1, len(shown) + 1)):
        return None
    return [i - 1 for i in ranking]


def judge_rankings(ev: Evaluation, gateway: Any, *, seed: int = 0,
                   echo: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Rank every item not yet ranked by this model; returns {"path", "ranked", "fallbacks"}."""
    model = str(getattr(getattr(gateway, "config", None), "model", None) or "judge")
    path = ev.folder / JUDGES / f"{slug(model)}.jsonl"
    conds = ev.condition_names()
    done = read_rankings(path, conds).orders if path.exists() else {}
    rng = random.Random(f"{seed}:{model}")
    ranked = fallbacks = 0
    for item in ev.items:
        answers = ev.answers(item)
        shown = ev.choices(item, conds)  # each distinct answer once
        rng.shuffle(shown)  # drawn for every item, so a resumed run shows the rest as the first would have
        if item["key"] in done or len(shown) < 2:
            continue
        got, why = gateway.ask_traced(Ranking, judge_prompt(ev, item, shown, answers), purpose="rank_answers",
                                      resident=item["resident"], fallback=Ranking(ranking=[]),
                                      max_tokens=40)
        order = as_order(list(got.ranking), shown) if why is None else None
        record: dict[str, Any] = {"item": item["key"], "by": model, "at": datetime.now().isoformat(timespec="seconds")}
        if order is None:
            fallbacks += 1
            record.update(ranked_record(list(range(len(shown))), shown), fallback=True,
                          why=why or f"not a ranking of {len(shown)} answers: {list(got.ranking)[:10]}")
        else:
            ranked += 1
            record.update(ranked_record(order, shown))
        append_ranking(path, record)
        if echo is not None:
            echo(f"  judge {model}: {item['key']} -> "
                 + ("not a ranking" if order is None else " > ".join("=".join(shown[i]) for i in order)))
    return {"path": path, "ranked": ranked, "fallbacks": fallbacks}


__all__ = ["Ranking", "as_order", "judge_prompt", "judge_rankings"]
