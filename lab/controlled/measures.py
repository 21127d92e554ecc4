"""Measures of the answers that need no rater, per condition and per category:

- **grounded**: the answer says what one of the resident's own records says (its whole
  memory stream as saved, and its description): most of the record's longer words are
  in the answer, the test the factual judge uses for repeated phrases
  (lab/evaluate/factual.py ``phrases_in``), or most of the answer's are in one record;
- **no claim**: it says it does not know (the factual judge's denial words), or is the
  interview path's stand-in line: nothing to ground, nothing made up;
- **made up**: it names a person or a place that is neither in the resident's records
  nor in the town (its residents, its places), or an event (a party, a concert, ...)
  that none of its records and not the question speak of;
- **factual**: the factual judge's score on the factual questions (the scenario's first
  eight residents), asked under each condition.

Rules, not a model: they miss a paraphrase with other words, and a made-up fact in
words that happen to be in the records. They are the same rules for every condition.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from lab.evaluate.factual import factual_score, phrases_in
from lab.evaluate.judge import _DENY

COVER = 0.7  # share of one side's longer words found in the other

EVENT_WORDS = ("party", "parties", "concert", "festival", "wedding", "election", "exhibition", "exhibit", "fair",
               "gala", "ceremony", "funeral", "conference", "tournament", "recital", "celebration", "parade",
               "meeting", "debate", "rally", "competition", "contest", "premiere", "show", "fundraiser", "match",
               "game night", "open mic", "reading", "launch", "workshop", "lecture", "marathon", "picnic")
_EVENT = re.compile(r"\b(" + "|".join(re.escape(w) for w in EVENT_WORDS) + r")\b", re.I)

# Capitalised words that are not names of people or places.
_COMMON = frozenset("""i i'm i've i'd i'll im a an the and but or so if as at by for from in into of on to with my
me mine our we you your he she it they them their his her hi hello hey yes no oh well okay ok sure maybe
thanks thank please sorry what who when where why how which that this these those there here then now today
tonight tomorrow yesterday monday tuesday wednesday thursday friday saturday sunday january february march april
may june july august september october november december valentine valentine's day mr mrs ms dr mom dad
mother father god english am pm let let's it's that's what's i'll just also really great good nice
interviewer""".split())

_NAME = re.compile(r"\b[A-Z][a-z'\u2019]+(?:\s+[A-Z][a-z'\u2019]+)*")


def _words(text: str) -> set[str]:
    return {re.sub(r"s$", "", w) for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3}


def grounded_in(answer: str, records: Sequence[str], name: str) -> bool:
    """Does the answer say what one of the records says (either side's longer words mostly in the other)?"""
    if phrases_in(answer, list(records), name) >= 1:
        return True
    own = _words(answer) - _words(name)
    if not own:  # nothing said ("Sure, hi!")
        return False
    return any(len(own & _words(r)) / len(own) >= COVER for r in records)


def no_claim(answer: str, fallback: bool) -> bool:
    return fallback or not answer.strip() or bool(_DENY.search(answer))


def names_in(text: str) -> list[str]:
    """Capitalised words and runs of them that may name a person or a place (a sentence's
    first word only when another capitalised word follows it)."""
    out = []
    for m in _NAME.finditer(text):
        words = [w for w in m.group(0).split() if w.lower().replace("\u2019", "'") not in _COMMON]
        start = m.start()
        at_sentence_start = start == 0 or bool(re.search(r"[.!?:;\"]\s*$", text[:start]))
        if at_sentence_start and len(m.group(0).split()) == 1:
            continue
        if words:
            out.append(" ".join(words))
    return out


def known_words(texts: Iterable[str]) -> set[str]:
    return {w.lower().replace("\u2019", "'") for t in texts for w in re.findall(r"[A-Za-z'\u2019]+", t)}


def made_up(answer: str, question: str, known: set[str], records_low: str) -> list[str]:
    """The people, places and events the answer names that nobody gave it."""
    q = question.lower()
    out = [n for n in names_in(answer)
           if any(w.lower().replace("\u2019", "'") not in known for w in n.split()) and n.lower() not in q]
    for m in _EVENT.finditer(answer):
        w = m.group(0).lower()
        if w not in q and not re.search(rf"\b{re.escape(w)}", records_low):
            out.append(w)
    return out


def town_words(states: dict[str, dict], personas: dict[str, Any]) -> set[str]:
    """Every word of the town's residents' names and of the places any resident knows."""
    texts: list[str] = []
    for p in personas.values():
        texts += [p.name, p.home, p.workplace, *p.places]
    for s in states.values():
        for sector, arenas in ((s.get("spatial") or {}).get("tree") or {}).items():
            texts.append(sector)
            for arena, objects in arenas.items():
                texts += [arena, *objects]
    return known_words(texts)


def records_of(state: dict, persona: Any) -> list[str]:
    nodes = (state.get("memory") or {}).get("nodes") or []
    return [str(n.get("description", "")) for n in nodes] + list(persona.phrases)


def measure(data: dict, states: dict[str, dict], personas: dict[str, Any], human: dict | None = None) -> dict:
    """Per answer a verdict; per condition and per category the shares (a share: of all
    the condition's answers in it)."""
    town = town_words(states, personas)
    per_resident = {}
    for r in data["residents"]:
        recs = records_of(states.get(r, {}), personas[r])
        per_resident[r] = (recs, town | known_words(recs), " ".join(recs).lower())
    verdicts: list[dict] = []
    for it in data["items"]:
        recs, known, low = per_resident[it["resident"]]
        answers = {c: (a.get("text") or "", bool(a.get("fallback"))) for c, a in it["answers"].items()}
        h = (human or {}).get(it["resident"], {}).get(it["question"])
        people = next((c["name"] for c in data["conditions"] if c.get("people")), None)
        if h and people:
            answers[people] = (h["text"], False)
        for cond, (text, fb) in answers.items():
            nc = no_claim(text, fb)
            g = not nc and grounded_in(text, recs, it["resident"])
            mu = [] if fb else made_up(text, it["question"], known, low)
            verdicts.append({"key": it["key"], "condition": cond, "category": it["category"], "grounded": g,
                             "no_claim": nc, "made_up": mu})
    out: dict[str, Any] = {"conditions": {}, "by_category": {}, "answers": verdicts}
    conds = [c["name"] for c in data["conditions"]]
    for c in conds:
        vs = [v for v in verdicts if v["condition"] == c]
        if not vs:
            continue
        out["conditions"][c] = _shares(vs)
        out["by_category"][c] = {cat: _shares([v for v in vs if v["category"] == cat])
                                 for cat in dict.fromkeys(v["category"] for v in vs)}
        rows = (data.get("factual") or {}).get(c)
        if rows:
            out["conditions"][c]["factual"] = factual_score(rows)
    return out


def _shares(vs: list[dict]) -> dict[str, Any]:
    n = len(vs)
    return {"answers": n, "grounded": sum(v["grounded"] for v in vs) / n,
            "no_claim": sum(v["no_claim"] for v in vs) / n,
            "made_up": sum(bool(v["made_up"]) for v in vs) / n,
            "grounded_count": sum(v["grounded"] for v in vs), "made_up_count": sum(bool(v["made_up"]) for v in vs)}


__all__ = ["EVENT_WORDS", "grounded_in", "made_up", "measure", "names_in", "no_claim", "records_of", "town_words"]
