"""interviews.jsonl: the interviews' answers written one by one as they come (appended,
flushed and synced), so an evaluation cut short by Ctrl+C, a crash or a model outage loses
at most the answer being asked, and the same command run again asks only the rest.

Its first line says what the answers are answers to: the save (its sha256), the model and
its settings, and the conditions (what each hides). Answers to another state of the save,
from another model, or under a condition of the same name that hides other things, would
be mixed in silently; such a journal is refused, saying what differs and what to do.
A line cut short by a crash, or damaged, is skipped and counted: its answer is asked again,
as is the interview's stand-in line (given when the model failed: a server down, a budget spent).
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from game.support.errors import UserError
from lab.controlled.conditions import Condition

JOURNAL = "interviews.jsonl"
JOURNAL_KIND = "smallville controlled interviews"
SETTINGS = ("model", "grounded", "temperature")  # the model's settings that change an answer


def journal_header(save_sha256: str, gateway: Any, conditions: Sequence[Condition]) -> dict[str, Any]:
    config = getattr(gateway, "config", None)
    return {"kind": JOURNAL_KIND, "save_sha256": save_sha256,
            **{k: getattr(config, k, None) for k in SETTINGS},
            "conditions": {c.name: {"hide": sorted(c.hide), "summary": c.summary} for c in conditions if not c.people}}


@dataclass
class Journal:
    """What the journal holds; ``path`` None keeps it in memory only."""

    path: Path | None
    answers: dict[tuple[str, str], dict] = field(default_factory=dict)  # (item key, condition) -> answer
    factual: dict[tuple[str, str], list[dict]] = field(default_factory=dict)  # (resident, condition) -> rows
    damaged: int = 0

    def answered(self, key: str, condition: str) -> bool:
        """Whether the journal holds a real answer: the interview's stand-in line (the model
        failed: down, out of budget) is asked again."""
        answer = self.answers.get((key, condition))
        return answer is not None and not answer.get("fallback")

    def add_answer(self, key: str, condition: str, answer: dict) -> None:
        self._append({"item": key, "condition": condition, "answer": answer})
        self.answers[(key, condition)] = answer

    def add_factual(self, resident: str, condition: str, rows: list[dict]) -> None:
        self._append({"factual": resident, "condition": condition, "rows": rows})
        self.factual[(resident, condition)] = rows

    def _append(self, record: dict) -> None:
        """One line, flushed and synced at once: a crash loses at most the line being written."""
        if self.path is None:
            return
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            f.flush()
            os.fsync(f.fileno())


def open_journal(folder: Path, header: dict[str, Any]) -> Journal:
    """``folder``'s journal with what it holds, begun (its header first) when there is none;
    a UserError when it holds answers to another save, model or condition."""
    path = Path(folder) / JOURNAL
    journal = Journal(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        journal._append(header)
        return journal
    lines = _lines(path)
    begun = _record(lines[0]) if lines else None
    if not begun or begun.get("kind") != JOURNAL_KIND or not isinstance(begun.get("conditions"), dict):
        raise UserError(f"{path}: its first line is not the interviews' header (damaged?); delete the file to "
                        "ask every question again, or give another --out")
    known = dict(begun["conditions"])
    for line in lines[1:]:
        x = _record(line)
        if x is not None and x.get("kind") == JOURNAL_KIND and isinstance(x.get("conditions"), dict):
            known.update(x["conditions"])  # conditions added on a later run
        elif x is None or not _keep(journal, x):
            journal.damaged += 1
    _check_same(path, begun, known, header)
    if set(header["conditions"]) - set(known):
        journal._append(header)
    return journal


def _lines(path: Path) -> list[str]:
    """The journal's lines; a last line cut short by a crash is ended, so the next is whole."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise UserError(f"{path} cannot be read ({err})") from None
    if text and not text.endswith("\n"):
        with path.open("a", encoding="utf-8") as f:
            f.write("\n")
    return [x for x in text.splitlines() if x.strip()]


def _record(line: str) -> dict | None:
    try:
        x = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: nested too deep to be ours
        return None
    return x if isinstance(x, dict) else None


def _keep(journal: Journal, x: dict) -> bool:
    """An answer or a resident's factual rows into ``journal``; False when the line is neither."""
    cond = x.get("condition")
    if not isinstance(cond, str):
        return False
    if isinstance(x.get("item"), str) and isinstance(x.get("answer"), dict) and isinstance(x["answer"].get("text"),
                                                                                          str):
        journal.answers[(x["item"], cond)] = x["answer"]
        return True
    rows = x.get("rows")
    if isinstance(x.get("factual"), str) and isinstance(rows, list) and all(isinstance(r, dict) for r in rows):
        journal.factual[(x["factual"], cond)] = rows
        return True
    return False


def _check_same(path: Path, begun: dict, known: dict, header: dict) -> None:
    """Refuse to go on with answers to something else, saying what differs."""
    what = "give another --out, or delete it to ask every question again"
    if begun.get("save_sha256") != header["save_sha256"]:
        raise UserError(f"{path} holds answers to another state of the save: the save changed since these "
                        f"interviews began (a newer autosave, or end.sqlite after `sim --resume`?); {what}")
    for k in SETTINGS:
        if begun.get(k) != header[k]:
            raise UserError(f"{path} holds answers with {k} {begun.get(k)!r}, and this run has {header[k]!r}: "
                            f"they would be mixed. To go on, give the {k} it began with; otherwise {what}")
    for name, hides in header["conditions"].items():
        if name in known and known[name] != hides:
            raise UserError(f"{path} holds answers under a condition {name!r} that was {_hiding(known[name])}; "
                            f"this run's {name!r} is {_hiding(hides)}: name the new one otherwise, or {what}")


def _hiding(definition: Any) -> str:
    if not isinstance(definition, dict):
        return "damaged"
    return f"hiding {', '.join(definition.get('hide') or []) or 'nothing'} (summary: {definition.get('summary')})"


__all__ = ["JOURNAL", "Journal", "journal_header", "open_journal"]
