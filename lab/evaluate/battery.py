"""The paper's interview battery (section 6): 25 questions in five categories,
asked fresh to each resident, written to interviews.md."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from lab.evaluate.interviews import ask_traced, is_fallback

BATTERY: dict[str, list[str]] = {
    "self-knowledge": [
        "Give an introduction of yourself.",
        "What's your occupation?",
        "What is your interest?",
        "Who do you live with?",
        "Describe your typical weekday schedule in broad strokes.",
    ],
    "memory": [
        "Who is {name1}?",
        "Who is running for the election?",
        "Was there a Valentine's Day party?",
        "Who is {name2}?",
        "What did you talk about in your last conversation?",
    ],
    "plans": [
        "What will you be doing at 6 am today?",
        "What will you be doing at 6 pm today?",
        "What will you have just finished doing at 1 pm today?",
        "What will you be doing at 10 pm today?",
        "What will you be doing at 10 am tomorrow?",
    ],
    "reactions": [
        "Your breakfast is burning! What would you do?",
        "The bathroom is occupied. What would you do?",
        "You need to cook dinner but your refrigerator is empty. What would you do?",
        "You see your friend walking by the street. What would you do or say to your friend?",
        "You see fire on the street. What would you do?",
    ],
    "reflections": [
        "What inspires you in life the most right now, and why?",
        "If you had to guess given what you know about {name1}, what book do you think they will like and why?",
        "If you had to get something {name1} likes for their birthday, what would you get them?",
        "What would you say to {name2} to compliment them?",
        "If you could spend time with one person you met recently, who would it be and why?",
    ],
}


def battery_names(name: str, mind: Any, residents: Sequence[str], cast_names: Sequence[str]) -> tuple[str, str]:
    known = [p for p in sorted(getattr(mind, "known_people", ())) if p in cast_names and p != name]
    others = [r for r in residents if r != name and r not in known] + [c for c in cast_names if c != name]
    pool = known + [o for o in others if o not in known]
    a = pool[0] if pool else "Isabella Rodriguez"
    b = pool[1] if len(pool) > 1 else a
    return a, b


def run_battery(minds: dict[str, Any], now: datetime, residents: Sequence[str], cast_names: Sequence[str],
                echo: Callable[[str], None] | None = None) -> dict:
    out = {}
    for name, mind in minds.items():
        n1, n2 = battery_names(name, mind, residents, cast_names)
        out[name] = {}
        for cat, qs in BATTERY.items():
            rows = []
            for q in qs:
                text = q.format(name1=n1, name2=n2)
                t0 = time.monotonic()
                r = ask_traced(mind, text, now)
                a = r.text
                rows.append({"question": text, "answer": a, "seconds": round(time.monotonic() - t0, 2),
                             "fallback": is_fallback(mind, text, a), "source": r.source, "memory_id": r.memory_id,
                             "memory": r.memory})
                if echo is not None:
                    echo(f"  {name} [{cat}] {text} -> {a[:100]}")
            out[name][cat] = rows
    return out


def battery_markdown(battery: dict, title: str, now: datetime, model: str | None) -> str:
    L = [f"# Interviews: {title}", "", f"Sim time {now:%A %B %d %Y %H:%M} · model `{model}` · "
         "each question asked fresh (no history), the resident's mind left untouched (remember=False). "
         "Categories and questions follow the paper's believability interviews (Park et al. 2023, section 6).", ""]
    for name, cats in battery.items():
        L += [f"## {name}", ""]
        for cat, rows in cats.items():
            L += [f"### {cat}", ""]
            for r in rows:
                fb = (" *(the interview path's stand-in line: the model's answer was unusable)*"
                      if r.get("fallback") else "")
                mem = (f" *(from memory #{r['memory_id']}: {r.get('memory', '')})*" if r.get("memory_id") is not None
                       else "")
                L += [f"**Q:** {r['question']}  ", f"**A:** {r['answer']}{fb}{mem}", ""]
    rows = [r for cats in battery.values() for rs in cats.values() for r in rs]
    if rows:
        L += [f"{sum(1 for r in rows if r.get('fallback'))} of {len(rows)} answers were stand-in lines; "
              f"median {sorted(r['seconds'] for r in rows)[len(rows) // 2]:.1f} s per answer.", ""]
    return "\n".join(L)
