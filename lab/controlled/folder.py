"""The evaluation folder, the one place its files are named, read and written:

    answers.json          what the interviews gave: every resident's questions and each
                          condition's answer (with the conditions, the model, and the save,
                          named from this folder, with its sha256: origin.py)
    interviews.jsonl      the same answers, each written as it came (journal.py): an
                          evaluation cut short goes on where it stopped
    human/NAME.json       one author's answers for the human condition (kept when the
                          folder is evaluated again: reusable across runs of the same town);
                          older folders have everyone's in one human.json, still read
    ratings/people/NAME.jsonl   one rater's rankings, a line per question, as they go
    ratings/judges/MODEL.jsonl  a judge model's rankings, apart from people's
    measures.json, report.md, report.json, ratings.png   what the report made of them

A missing or damaged file is refused by name with what to do; a rankings file with
bad lines keeps its good ones, and the bad ones are counted and reported.
"""
from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from game.support.errors import UserError
from lab.controlled.conditions import Condition, condition_of

ANSWERS = "answers.json"
HUMAN = "human.json"  # older folders: every author's answers in one file (read, never written)
HUMANS = Path("human")  # human/NAME.json: one author's answers
MAX_NAME_BYTES = 200  # file systems allow 255 bytes a name; room for the suffix and a temporary copy's
PEOPLE = Path("ratings") / "people"
JUDGES = Path("ratings") / "judges"
KIND = "smallville controlled evaluation"

log = logging.getLogger(__name__)


def item_key(resident: str, question: str) -> str:
    return f"{resident} | {question}"


def write_json(path: Path, data: Any) -> None:
    """Whole or not at all: a crash mid-write leaves the old file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, ensure_ascii=False, default=str)
        f.write("\n")
    os.replace(tmp, path)


def slug(name: str) -> str:
    """A model's name as a file name (a judge's file; "ollama/qwen2.5:7b" -> "ollama-qwen2.5-7b")."""
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", name.strip()).strip("-.")
    if not s:
        raise UserError(f"{name!r} cannot name a ratings file: use letters or digits")
    return s[:80]


def person_file_name(name: str, where: str = "--rater") -> str:
    """A person's name as the name of their file, kept as given ("Zoë", "李明", "Ann Smith"), so
    two names never share a file; refused, saying why, only when it cannot name a file."""
    s = unicodedata.normalize("NFC", name.strip())  # the same letters typed two ways are one name
    if not s:
        why = "it is empty"
    elif s in (".", ".."):
        why = f"{s!r} names a folder"
    elif "/" in s or "\\" in s:
        why = "a slash would make it a folder"
    elif any(unicodedata.category(c) in ("Cc", "Cs") for c in s):
        why = "it holds a control character (or bytes that are not text)"
    elif len(s.encode("utf-8")) > MAX_NAME_BYTES:
        why = f"it is longer than {MAX_NAME_BYTES} bytes"
    else:
        return s
    raise UserError(f"{where} {name!r} cannot name a file: {why}; give another name (letters of any "
                    "alphabet, digits, spaces and most punctuation are fine)")


def check_own_file(path: Path, name: str, by: set[str]) -> None:
    """Refuse a file of another person's (``by``: the names in it): on a file system that ignores
    case, "ann" and "Ann" share one file, and the second would be told the first's work is done."""
    mine = unicodedata.normalize("NFC", name.strip())
    others = sorted(b for b in by if unicodedata.normalize("NFC", b.strip()) != mine)
    if others:
        raise UserError(f"{path} holds the work of {', '.join(map(repr, others))}, not of {name!r} (this file "
                        "system may not tell those names apart); give a name of your own with --rater")


@dataclass
class Evaluation:
    """An evaluation folder as read: its answers (people's merged in) and conditions."""

    folder: Path
    data: dict
    conditions: list[Condition]
    human: dict[str, dict[str, dict]] = field(default_factory=dict)

    @property
    def items(self) -> list[dict]:
        return self.data["items"]

    def answers(self, item: dict) -> dict[str, str]:
        """condition -> the answer text for one item; the human condition when people wrote one."""
        out = {c: a["text"] for c, a in item["answers"].items() if a.get("text")}
        h = self.human.get(item["resident"], {}).get(item["question"])
        if h and any(c.people for c in self.conditions):
            out[next(c.name for c in self.conditions if c.people)] = h["text"]
        return out

    def choices(self, item: dict, conditions: list[str]) -> list[list[str]]:
        """The distinct answers among ``conditions`` as groups of the conditions that gave
        them (the same words, whatever the case and spacing): a rater ranks each text once,
        and conditions that answered alike share its place."""
        answers = self.answers(item)
        groups: dict[str, list[str]] = {}
        for c in conditions:
            if c in answers:
                groups.setdefault(" ".join(answers[c].lower().split()), []).append(c)
        return list(groups.values())

    def condition_names(self, with_people: bool | None = None) -> list[str]:
        """The conditions in the report: the people's one only when some answer was written."""
        has_people = any(self.human.values()) if with_people is None else with_people
        return [c.name for c in self.conditions if not c.people or has_people]


def read(folder: Path) -> Evaluation:
    folder = Path(folder)
    path = folder / ANSWERS
    if not folder.is_dir():
        raise UserError(f"{folder}: no such evaluation folder; make one with "
                        "`smallville evaluate RUN --ablations --out FOLDER`")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{folder}: no {ANSWERS}, so not an evaluation folder (or its interviews never finished); "
                        "run `smallville evaluate RUN --ablations --out FOLDER`") from None
    except (OSError, ValueError, RecursionError) as err:  # RecursionError: nested too deep
        raise UserError(f"{path} is damaged ({err}); run the interviews again with "
                        "`smallville evaluate RUN --ablations` (people's written answers are kept)") from None
    if not isinstance(data, dict) or data.get("kind") != KIND or not isinstance(data.get("items"), list):
        raise UserError(f"{path} is not a controlled evaluation's answers (no \"kind\": {KIND!r} and items); "
                        "run `smallville evaluate RUN --ablations` again")
    conds = [condition_of(d, f"{path} conditions") for d in data.get("conditions") or []]
    for i, it in enumerate(data["items"]):
        if not (isinstance(it, dict) and isinstance(it.get("answers"), dict) and isinstance(it.get("resident"), str)
                and it["resident"] and isinstance(it.get("question"), str) and it["question"]):
            raise UserError(f"{path}: item {i + 1} is damaged (needs resident, question and answers); "
                            "run the interviews again")
    _drop_damaged_answers(path, data["items"])
    return Evaluation(folder, data, conds, read_human(folder))


def _drop_damaged_answers(path: Path, items: list[dict]) -> None:
    """Leave out the answers that are not {"text": "..."} (every reader of an item's answers
    takes them for such), and say how many."""
    bad = 0
    for it in items:
        good = {c: a for c, a in it["answers"].items() if isinstance(a, dict) and isinstance(a.get("text", ""), str)}
        bad += len(it["answers"]) - len(good)
        it["answers"] = good
    if bad:
        log.warning("%s: %d damaged answer(s) (not {\"text\": ...}) left out; run the interviews again "
                    "to have them", path, bad)


def human_files(folder: Path) -> list[Path]:
    """Every file of people's answers in ``folder``: an older folder's shared human.json first."""
    folder = Path(folder)
    return ([folder / HUMAN] if (folder / HUMAN).is_file() else []) + sorted((folder / HUMANS).glob("*.json"))


def read_human(folder: Path) -> dict[str, dict[str, dict]]:
    """resident -> question -> {"text", "by", "at"}: every author's answers together; a damaged
    file is refused (people's work is never overwritten silently)."""
    return merge_human([read_human_file(p) for p in human_files(folder)])


def merge_human(parts: list[dict[str, dict[str, dict]]]) -> dict[str, dict[str, dict]]:
    """Several authors' answers as one; where two answered the same question, the first written counts."""
    merged: dict[str, dict[str, dict]] = {}
    for answers in parts:
        for r, qs in answers.items():
            for q, a in qs.items():
                have = merged.setdefault(r, {}).get(q)
                if have is None or str(a.get("at", "")) < str(have.get("at", "")):
                    merged[r][q] = a
    return merged


def read_human_file(path: Path) -> dict[str, dict[str, dict]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        answers = data["answers"]
        ok = isinstance(answers, dict) and all(
            isinstance(qs, dict) and all(isinstance(a, dict) and isinstance(a.get("text"), str) for a in qs.values())
            for qs in answers.values())
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as err:  # RecursionError: nested too deep
        raise UserError(f"{path} is damaged ({err!r}); fix it by hand or move it away "
                        "(it holds people's answers: nothing overwrites it)") from None
    if not ok:
        raise UserError(f"{path}: answers must map resident -> question -> {{\"text\": ...}}; fix it by hand "
                        "or move it away")
    return answers


def human_file(folder: Path, author: str, where: str = "--rater") -> Path:
    """human/<author>.json, checked to be the author's own: each author writes only their own
    file, so nobody's answers replace another's."""
    path = Path(folder) / HUMANS / f"{person_file_name(author, where)}.json"
    if path.exists():
        answers = read_human_file(path)
        check_own_file(path, author, {str(a["by"]) for qs in answers.values() for a in qs.values() if a.get("by")})
    return path


def add_human_answers(folder: Path, author: str, answers: dict[str, dict[str, dict]],
                      where: str = "--rater") -> Path:
    """``answers`` (resident -> question -> answer) added to the author's own file, whole or not at all."""
    path = human_file(folder, author, where)
    mine = read_human_file(path) if path.exists() else {}
    for r, qs in answers.items():
        mine.setdefault(r, {}).update(qs)
    write_json(path, {"author": author, "answers": mine})
    return path


def add_human(folder: Path, resident: str, question: str, text: str, by: str) -> Path:
    at = datetime.now().isoformat(timespec="seconds")
    return add_human_answers(folder, by, {resident: {question: {"text": text, "by": by, "at": at}}})


Tiers = list[list[str]]  # a ranking: conditions best first, those that answered alike together


def reuse_human(source: Path, folder: Path, items: list[dict]) -> tuple[int, int]:
    """People's answers from another evaluation (its folder, or one file of it) copied into
    ``folder`` for the questions asked here (same resident, same words), each into its
    author's own file; answers already here are kept. Returns (copied, the source's answers)."""
    source = Path(source)
    files = human_files(source) if source.is_dir() else [source] if source.is_file() else []
    if not files:
        raise UserError(f"--human {source}: no people's answers there (give an evaluation folder, or one of its "
                        f"{HUMANS}/NAME.json files or an older {HUMAN})")
    src = merge_human([read_human_file(p) for p in files])
    mine = read_human(folder)
    asked = {(it["resident"], it["question"]) for it in items}
    by_author: dict[str, dict[str, dict[str, dict]]] = {}
    for r, qs in src.items():
        for q, a in qs.items():
            if (r, q) in asked and q not in mine.get(r, {}):
                by_author.setdefault(str(a.get("by") or "unknown"), {}).setdefault(r, {})[q] = a
    for author, answers in by_author.items():
        add_human_answers(folder, author, answers, where=f"--human {source}: the author")
    copied = sum(len(qs) for answers in by_author.values() for qs in answers.values())
    return copied, sum(len(qs) for qs in src.values())


@dataclass
class Rankings:
    """One file's rankings: ``orders`` (tiers of condition names, best first) by item key."""

    path: Path
    who: str
    orders: dict[str, Tiers]
    bad_lines: int = 0
    fallbacks: int = 0
    authors: set[str] = field(default_factory=set)  # every "by" in it


def ranking_files(folder: Path, kind: Path) -> list[Path]:
    d = Path(folder) / kind
    return sorted(d.glob("*.jsonl")) if d.is_dir() else []


def read_rankings(path: Path, conditions: list[str]) -> Rankings:
    """Every good line of a rankings file; a line that is not JSON, names no item, or whose
    order is not a list of distinct known conditions (with ``ranks``, one whole number
    each: equal ranks answered alike) is counted in ``bad_lines``."""
    orders: dict[str, Tiers] = {}
    authors: set[str] = set()
    bad = fallbacks = 0
    who = path.stem
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as err:
        raise UserError(f"{path} cannot be read ({err})") from None
    for line in lines:
        if not line.strip():
            continue
        try:
            x = json.loads(line)
            if not isinstance(x, dict):
                raise ValueError("not an object")
            order = x["order"]
            key = x["item"]
            ranks = x.get("ranks", list(range(1, len(order) + 1)) if isinstance(order, list) else None)
            if not (isinstance(key, str) and isinstance(order, list) and len(order) >= 2
                    and all(isinstance(c, str) and c in conditions for c in order) and len(set(order)) == len(order)
                    and isinstance(ranks, list) and len(ranks) == len(order)
                    and all(isinstance(r, int) and not isinstance(r, bool) for r in ranks) and len(set(ranks)) >= 2):
                raise ValueError("not a ranking of known conditions")
        except (ValueError, KeyError, TypeError, RecursionError):  # RecursionError: nested too deep
            bad += 1
            continue
        if x.get("fallback"):
            fallbacks += 1
            continue
        who = str(x.get("by") or who)
        if x.get("by"):
            authors.add(who)
        tiers: dict[int, list[str]] = {}
        for c, r in zip(order, ranks):
            tiers.setdefault(r, []).append(c)
        orders[key] = [tiers[r] for r in sorted(tiers)]  # a question rated again: the latest ranking counts
    return Rankings(path, who, orders, bad, fallbacks, authors)


def rankings_file(folder: Path, rater: str, conditions: list[str]) -> Path:
    """ratings/people/<rater>.jsonl, the rater's own. A rater who began when names were cut to
    ASCII ("Ann Smith" -> Ann-Smith.jsonl) goes on in that older file when it is theirs alone."""
    path = Path(folder) / PEOPLE / f"{person_file_name(rater)}.jsonl"
    if not path.exists():
        older = Path(folder) / PEOPLE / f"{slug(rater)}.jsonl" if re.search(r"[A-Za-z0-9]", rater) else path
        if older.exists() and read_rankings(older, conditions).authors == {rater}:
            path = older
    if path.exists():
        check_own_file(path, rater, read_rankings(path, conditions).authors)
    return path


def append_ranking(path: Path, record: dict) -> None:
    """One ranking, appended and flushed at once: quitting halfway loses nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")
        f.flush()
        os.fsync(f.fileno())


__all__ = ["ANSWERS", "HUMAN", "HUMANS", "JUDGES", "KIND", "PEOPLE", "Evaluation", "Rankings", "Tiers",
           "add_human", "add_human_answers", "append_ranking", "check_own_file", "human_file", "human_files",
           "item_key", "merge_human", "person_file_name", "ranking_files", "rankings_file", "read", "read_human",
           "read_human_file", "read_rankings", "reuse_human", "slug", "write_json"]
