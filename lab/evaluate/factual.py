"""The factual score: questions about a resident's own life (occupation, studies,
family, home, workplace, friends) whose answers are in the resident's own
description, checked by a rule.

An answer is **correct** when it matches the expected pattern (words of the
description that answer the question), is brief (at most ``MAX_WORDS`` words and
not a dump of the description: at most ``MAX_PHRASES`` of its phrases), and does
not deny knowing. The questions cover the first eight residents of the Ville's
scenario (the residents of an 8-resident run); ``factual_rows`` asks only those
in the minds given, in the interview path (``remember=False``: the minds are
left as they were).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from agents import respond_traced
from lab.evaluate.interviews import INTERVIEWER, INTERVIEWER_IS
from lab.evaluate.judge import _DENY

MAX_WORDS = 40
MAX_PHRASES = 2  # more of the description's phrases in one answer is a dump, not an answer

# resident -> [(category, question, expected pattern)]
FACTUAL: dict[str, list[tuple[str, str, str]]] = {
    "Isabella Rodriguez": [
        ("occupation", "What's your occupation?", r"hobbs|\bcaf[eé]\b"),
        ("workplace", "Where do you work?", r"hobbs|\bcaf[eé]\b"),
        ("home", "Who do you live with?", r"\balone\b|\bapartment\b"),
        ("friends", "Who is Maria Lopez?", r"\bfriend"),
        ("friends", "Who is Arthur Burton?", r"\bfriend|\bpub\b"),
    ],
    "Maria Lopez": [
        ("occupation", "What's your occupation?", r"physics|\bstud(y|ent|ies)\b"),
        ("studies", "What do you study?", r"physics"),
        ("home", "Where do you live?", r"\bdorm"),
        ("friends", "Who is Isabella Rodriguez?", r"\bfriend"),
        ("friends", "Who is Klaus Mueller?", r"\bdorm\b|\bknow|\bfriend"),
    ],
    "Klaus Mueller": [
        ("occupation", "What's your occupation?", r"sociology|\bstud(y|ent|ies)\b|research"),
        ("studies", "What do you study?", r"sociology"),
        ("home", "Where do you live?", r"\bdorm"),
        ("workplace", "What are you working on?", r"gentrification|research paper"),
        ("friends", "Who is Maria Lopez?", r"\bdorm\b|\bknow|\bfriend"),
    ],
    "Ayesha Khan": [
        ("occupation", "What's your occupation?", r"literature|\bstud(y|ent|ies)\b|thesis"),
        ("studies", "What do you study?", r"literature|english"),
        ("home", "Where do you live?", r"\bdorm"),
        ("workplace", "What are you working on?", r"thesis|shakespeare"),
        ("friends", "Who is Wolfgang Schulz?", r"\bfriend"),
    ],
    "Wolfgang Schulz": [
        ("occupation", "What's your occupation?", r"chemistry|\bstud(y|ent|ies)\b"),
        ("studies", "What do you study?", r"chemistry"),
        ("home", "Who do you live with?", r"\bdorm\b|klaus|maria"),
        ("friends", "Who is Ayesha Khan?", r"\bfriend"),
        ("friends", "Who is Klaus Mueller?", r"\bdorm\b|\bshare"),
    ],
    "Arthur Burton": [
        ("occupation", "What's your occupation?", r"\bpub\b|\bbar\b|rose and crown"),
        ("workplace", "Where do you work?", r"\bpub\b|\bbar\b|rose and crown"),
        ("home", "Who do you live with?", r"\balone\b|\bapartment\b"),
        ("friends", "Who is Isabella Rodriguez?", r"\bfriend"),
    ],
    "Sam Moore": [
        ("occupation", "What's your occupation?", r"\bnavy\b|\bretired\b|\bofficer\b"),
        ("home", "Who do you live with?", r"\bwife\b|jennifer"),
        ("family", "Who is Jennifer Moore?", r"\bwife\b|\blive"),
        ("friends", "Who is Adam Smith?", r"\bmentor"),
        ("friends", "Who is Yuriko Yamamoto?", r"\bfriend"),
    ],
    "Jennifer Moore": [
        ("occupation", "What's your occupation?", r"\bpaint|watercolou?r"),
        ("home", "Who do you live with?", r"\bhusband\b|\bsam\b"),
        ("family", "Who is Sam Moore?", r"\bhusband\b|\blive"),
        ("interests", "What do you love doing?", r"\bpaint|watercolou?r|showing"),
    ],
}


def _words(text: str) -> set[str]:
    """Longer words, crudely stemmed ("lives" and "live" are one)."""
    return {re.sub(r"s$", "", w) for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3}


def phrases_in(answer: str, phrases: list[str], name: str = "") -> int:
    """How many of the description's phrases the answer repeats (most of their longer words,
    the resident's own name aside)."""
    got = _words(answer)
    n = 0
    for ph in phrases:
        w = _words(ph) - _words(name) - {"with"}
        if len(w) >= 2 and len(w & got) / len(w) >= 0.7:
            n += 1
    return n


def judge_factual(answer: str, expected: str, phrases: list[str], name: str = "") -> tuple[str, str]:
    """("correct" | "wrong" | "long" | "denies", why)."""
    a = " ".join(str(answer or "").split())
    if not a:
        return "wrong", "empty"
    if len(a.split()) > MAX_WORDS:
        return "long", f"{len(a.split())} words"
    k = phrases_in(a, phrases, name)
    if k > MAX_PHRASES:
        return "long", f"repeats {k} phrases of the description"
    if re.search(expected, a, re.I):
        return "correct", f"says {re.search(expected, a, re.I).group(0)!r}"  # type: ignore[union-attr]
    if _DENY.search(a):
        return "denies", "says it does not know"
    return "wrong", "does not say it"


def factual_rows(minds: dict[str, Any], now: datetime, echo: Callable[[str], None] | None = None) -> list[dict]:
    """Every factual question of the residents among ``minds``, asked fresh (no history)."""
    rows = []
    for name, mind in minds.items():
        phrases = list(mind.persona.phrases)
        for cat, q, expected in FACTUAL.get(name, []):
            r = respond_traced(mind, INTERVIEWER, q, now=now, speaker_is=INTERVIEWER_IS, remember=False)
            verdict, why = judge_factual(r.text, expected, phrases, name)
            rows.append({"resident": name, "category": cat, "question": q, "answer": r.text, "verdict": verdict,
                         "why": why, "mode": r.mode, "source": r.source, "memory_id": r.memory_id})
            if echo is not None:
                echo(f"  {name} [{cat}] {q} -> {r.text[:90]} ({verdict})")
    return rows


def factual_score(rows: list[dict]) -> dict:
    """{"questions", "correct", "share", "long", "by_category": {cat: [correct, asked]}}."""
    by: dict[str, list[int]] = {}
    for r in rows:
        c = by.setdefault(r["category"], [0, 0])
        c[0] += r["verdict"] == "correct"
        c[1] += 1
    n = len(rows)
    ok = sum(1 for r in rows if r["verdict"] == "correct")
    return {"questions": n, "correct": ok, "share": round(ok / n, 4) if n else 0.0,
            "long": sum(1 for r in rows if r["verdict"] == "long"), "by_category": by,
            "mode": rows[0]["mode"] if rows else None}


def factual_markdown(rows: list[dict], score: dict) -> list[str]:
    if not rows:
        return ["## Factual questions", "", "None of these residents has factual questions "
                "(lab/evaluate/factual.py covers the scenario's first eight).", ""]
    cats = ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in score["by_category"].items())
    L = ["## Factual questions", "",
         f"**{score['correct']} of {score['questions']} correct ({score['share']:.0%})**, mode {score['mode']}; "
         f"{score['long']} too long. By category: {cats}. Correct = names what the description says, in at most "
         f"{MAX_WORDS} words, without repeating more than {MAX_PHRASES} of its phrases.", "",
         "| resident | question | answer | verdict | from |", "|---|---|---|---|---|"]
    for r in rows:
        src = f"memory #{r['memory_id']}" if r["memory_id"] is not None else r["source"]
        L.append(f"| {r['resident']} | {r['question']} | {r['answer'].replace('|', '/')} | {r['verdict']} | {src} |")
    L.append("")
    return L


__all__ = ["FACTUAL", "factual_markdown", "factual_rows", "factual_score", "judge_factual"]
