"""The two tools people use in a terminal (rich): ``rate`` shows a rater one question at
a time, the conditions' answers shuffled and lettered, never named, and takes a
ranking; ``write_answers`` shows a resident's description and a question and keeps
what a person writes as the human condition's answer. Both read lines from standard
input, save each answer as it is given (quitting halfway loses nothing) and resume
where the person stopped.
"""
from __future__ import annotations

import random
import re
import string
from collections.abc import Callable
from datetime import datetime
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from lab.controlled.folder import Evaluation, add_human, append_ranking, human_file, rankings_file, read_rankings

QUIT = {"q", "quit", "exit"}
SKIP = {"s", "skip"}


def _read(console: Console, prompt: str, read: Callable[[], str] | None) -> str | None:
    """One line from the person, or None at the end of input."""
    console.print(prompt, end="")
    try:
        return (read or input)()
    except EOFError:
        console.print()
        return None


def parse_ranking(text: str, letters: str) -> tuple[list[int] | None, str]:
    """"C A B" or "cab" or "C>A>B" -> indexes best first; or None and what is wrong."""
    got = [c for c in text.upper() if c.isalpha()]
    if not got:
        return None, (f"type the letters {', '.join(letters)} from the most to the least believable, "
                      f"e.g. {letters[::-1]}")
    unknown = sorted({c for c in got if c not in letters})
    if unknown:
        return None, f"{', '.join(unknown)}: no such answer here (the answers are {', '.join(letters)})"
    twice = sorted({c for c in got if got.count(c) > 1})
    if twice:
        return None, f"{', '.join(twice)} given twice: each answer once"
    missing = [c for c in letters if c not in got]
    if missing:
        return None, f"rank every answer: {', '.join(missing)} missing"
    return [letters.index(c) for c in got], ""


def ranked_record(order: list[int], shown: list[list[str]]) -> dict[str, Any]:
    """The conditions best first, with their ranks (conditions that answered alike share one)."""
    flat = [c for i in order for c in shown[i]]
    ranks = [k + 1 for k, i in enumerate(order) for _c in shown[i]]
    return {"order": flat, "ranks": ranks, "shown": shown}


def _header(console: Console, ev: Evaluation, item: dict, n: int, total: int) -> None:
    r = item["resident"]
    desc = ev.data.get("descriptions", {}).get(r, "")
    console.print(Panel(f"[bold]{escape(ev.data.get('identities', {}).get(r, r))}[/bold]\n{escape(desc)}",
                        title=f"question {n} of {total}", title_align="left"))
    console.print(f"[bold]Asked:[/bold] {escape(item['question'])}\n")


def rate(ev: Evaluation, rater: str, *, console: Console | None = None, read: Callable[[], str] | None = None,
         seed: int | None = None) -> dict[str, Any]:
    """One rater's blind rankings into ratings/people/<rater>.jsonl; returns {"path", "ranked", "left"}."""
    console = console or Console(highlight=False)
    conds = ev.condition_names()
    path = rankings_file(ev.folder, rater, conds)
    done = read_rankings(path, conds).orders if path.exists() else {}
    rng = random.Random(f"{seed if seed is not None else 0}:{rater}")
    items = list(ev.items)
    rng.shuffle(items)  # raters meet the questions in their own order
    todo = [it for it in items if it["key"] not in done and len(ev.choices(it, conds)) >= 2]
    console.print(f"Rating {ev.folder} as {escape(rater)}: {len(todo)} questions to go ({len(done)} done). "
                  "Rank each question's answers from the most believable to the least: type their letters, best "
                  "first (e.g. CAEBD). [bold]s[/bold] skips a question, [bold]q[/bold] stops (what you ranked is "
                  "kept; run again to go on).\n")
    ranked = 0
    for n, item in enumerate(todo, 1):
        answers = ev.answers(item)
        shown = ev.choices(item, conds)  # each distinct answer once
        rng.shuffle(shown)
        letters = string.ascii_uppercase[:len(shown)]
        _header(console, ev, item, n, len(todo))
        for letter, group in zip(letters, shown):
            console.print(f"  [bold]{letter}[/bold]  {escape(' '.join(answers[group[0]].split()))}")
        while True:
            line = _read(console, "\nyour ranking, best first: ", read)
            if line is None or line.strip().lower() in QUIT:
                console.print(f"stopped; {ranked} rankings saved to {path}")
                return {"path": path, "ranked": ranked, "left": len(todo) - n + 1}
            if line.strip().lower() in SKIP:
                break
            order, why = parse_ranking(line, letters)
            if order is not None:
                append_ranking(path, {"item": item["key"], "by": rater, **ranked_record(order, shown),
                                      "at": datetime.now().isoformat(timespec="seconds")})
                ranked += 1
                break
            console.print(f"[red]{escape(why)}[/red]")
        console.print()
    console.print(f"done: {ranked} rankings saved to {path}")
    return {"path": path, "ranked": ranked, "left": 0}


def write_answers(ev: Evaluation, author: str, *, console: Console | None = None,
                  read: Callable[[], str] | None = None, resident: str | None = None) -> dict[str, Any]:
    """A person writes the human condition's answers into their own human/<author>.json, one
    question at a time; questions someone has answered already are not asked."""
    console = console or Console(highlight=False)
    path = human_file(ev.folder, author)
    if not any(c.people for c in ev.conditions):
        console.print("[red]this evaluation's conditions have no people's condition (\"people\": true): "
                      "nothing to write[/red]")
        return {"written": 0, "left": 0}
    items = [it for it in ev.items if resident is None or it["resident"].casefold() == resident.casefold()
             or it["resident"].split()[0].casefold() == resident.casefold()]
    todo = [it for it in items if not ev.human.get(it["resident"], {}).get(it["question"])]
    console.print(f"Writing the human condition's answers for {ev.folder} as {escape(author)}: {len(todo)} to go. "
                  "Answer as the resident would, from their description alone (as the paper's role-players did). "
                  "Enter alone skips a question, [bold]q[/bold] stops (what you wrote is kept).\n")
    written = 0
    for n, item in enumerate(todo, 1):
        _header(console, ev, item, n, len(todo))
        line = _read(console, f"{item['resident'].split()[0]}: ", read)
        if line is None or line.strip().lower() in QUIT:
            console.print(f"stopped; {written} answers saved to {path}")
            return {"written": written, "left": len(todo) - n + 1}
        text = " ".join(line.split())
        if not text or re.fullmatch(r"[\W_]*", text):
            continue
        add_human(ev.folder, item["resident"], item["question"], text[:600], author)
        written += 1
    console.print(f"done: {written} answers saved to {path}")
    return {"written": written, "left": 0}


__all__ = ["parse_ranking", "ranked_record", "rate", "write_answers"]
