"""Judging whether a resident knows a fact (no pygame): the facts of the Ville's
scenario, a deterministic rule judge of interview answers, an optional
model judge, and a memory judge over a memory stream.

The paper (Park et al. 2023, section 7) asked each agent "Did you know there
is a Valentine's Day party?" and "Do you know who is running for mayor?" and
counted who knew. Here the same questions go through the interview path
(``agents.interview.respond(..., remember=False)``) and the answers are
classified:

- ``rule_judge(fact, answer)`` (the default; deterministic): an answer knows
  the fact when it names a detail only someone who heard it could give (Sam
  for the candidacy; Isabella, Hobbs Cafe, the 14th or 5 pm for the party)
  and does not deny knowing (a bare "yes" adds nothing the question did not
  say, and weak models say yes to anything: it is "unclear", not counted);
- ``model_judge(gateway, fact, answer)``: the model reads the answer and says
  yes or no (a one-field schema; the rule verdict is the fallback).

Independently, ``memory_knows(fact, texts, vectors, fact_vector)`` says which
memories hold the fact: a memory counts when it names the topic (keyword) and
its embedding is near the fact statement (cosine >= ``SIM_WITH_KEYWORD``), or
when it is very near without the keyword (>= ``SIM_ALONE``).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from pydantic import BaseModel

from agents import render

# Cosine thresholds for the memory judge (all-MiniLM-L6-v2; the hashing test
# embedder lands in the same ranges for texts that share their key words).
SIM_WITH_KEYWORD = 0.40
SIM_ALONE = 0.85


@dataclass(frozen=True)
class Fact:
    key: str                   # "candidacy" | "party"
    label: str                 # for tables
    holder: str                # who knows it at the start (the scenario's seed)
    statement: str             # the fact in one sentence (embedded for the memory judge)
    question: str              # the interview question
    topic: str                 # regex: the memory or answer is about this
    detail: str                # regex: a detail only someone who heard the news gives
    paper: tuple[float, float] = (0.0, 0.0)   # the paper's share at the start and end of its two days
    paper_counts: tuple[int, int] = (0, 0)    # ... as agents out of 25
    needs_detail: bool = False  # a memory must also name a detail (the candidate), unless it is the holder's


CANDIDACY = Fact(
    key="candidacy",
    label="Sam Moore's candidacy for mayor",
    holder="Sam Moore",
    statement="Sam Moore is running for mayor of the Ville in the local election",
    question="Do you know who is running for mayor?",
    topic=r"\bmayor|\belection|\bcandida|\bcampaign|\brunning for\b|\bvote for\b|\bballot",
    detail=r"\bsam\b|\bmoore\b",
    paper=(0.04, 0.32), paper_counts=(1, 8), needs_detail=True,
)
PARTY = Fact(
    key="party",
    label="Isabella's Valentine's Day party",
    holder="Isabella Rodriguez",
    statement="Isabella Rodriguez is hosting a Valentine's Day party at Hobbs Cafe on February 14 from 5 pm to 7 pm",
    question="Did you know there is a Valentine's Day party?",
    topic=r"\bparty\b|\bparties\b|\bvalentine",
    # Details that pin the party down; not "tonight" or "tomorrow" (a made-up "I'm going to the party
    # tonight" is what a weak model says to anything).
    detail=(r"\bisabella\b|\bhobbs\b|\bcafe\b|\bcaf\u00e9\b|\bfeb(ruary|\.)?\s*14|\b14th\b|\b5 ?pm\b|\b5 ?p\.m\b|"
            r"\bat five\b|\b17:00\b|\b7 ?pm\b"),
    paper=(0.04, 0.52), paper_counts=(1, 13),
)
FACTS = (CANDIDACY, PARTY)

# What the party is, for coordination.
PARTY_HOST = "Isabella Rodriguez"
PARTY_SECTOR = "Hobbs Cafe"
PARTY_START = datetime(2023, 2, 14, 17, 0)
PARTY_END = datetime(2023, 2, 14, 19, 0)
PARTY_TOPIC = r"\bparty\b|\bvalentine"

_DENY = re.compile(
    r"\b(i\s+)?(don't|do not|didn't|did not)\s+(know|think so|hear|recall|remember)|\bno idea\b|\bnot sure\b|"
    r"\bhaven't heard\b|\bhave not heard\b|\bhadn't heard\b|\bnever heard\b|\bnot aware\b|\bunaware\b|"
    r"\bnot that i know\b|\bcan't say\b|\bcannot say\b|\bcouldn't say\b|\bno clue\b|\bnobody told me\b|"
    r"\bi'd have to think\b|\bi'm not certain\b|\bnot heard\b|\bwhat party\b|\bis there\?|\bis there one\b|"
    r"^\s*(no|nope|nah)\b", re.I)
_YES = re.compile(r"^\s*(oh,?\s+)?(yes|yeah|yep|of course|absolutely|definitely|sure|indeed|i did|i do|i have|"
                  r"i heard|i've heard|i know)\b", re.I)


@dataclass
class Verdict:
    knows: bool
    label: str          # "yes" | "no" | "unclear" | "wrong" (a made-up candidate: the paper's hallucination)
    reason: str
    extra: dict = field(default_factory=dict)


def _low(text: str) -> str:
    return " ".join(str(text or "").lower().replace("\u2019", "'").split())


def rule_judge(fact: Fact, answer: str, *, speaker: str | None = None) -> Verdict:
    """Does ``answer`` (to ``fact.question``) show the resident knows ``fact``?
    Deterministic. ``speaker``: who answered (the holder answering about its
    own news need not name itself)."""
    t = _low(answer)
    if not t:
        return Verdict(False, "no", "empty answer")
    detail = re.search(fact.detail, t, re.I)
    topic = re.search(fact.topic, t, re.I)
    deny = _DENY.search(t)
    yes = _YES.search(t)
    holder_self = speaker == fact.holder and (topic or yes)
    if fact is CANDIDACY or fact.key == "candidacy":
        # Only someone who heard the news can name the candidate.
        if detail and not (deny and deny.start() < detail.start()):
            return Verdict(True, "yes", f"names the candidate ({detail.group(0)!r})")
        if holder_self and re.search(r"\b(i am|i'm|i have decided|me)\b", t) and not deny:
            return Verdict(True, "yes", "the candidate speaks of running")
        if deny:
            return Verdict(False, "no", f"denies knowing ({deny.group(0).strip()!r})")
        other = re.search(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b", str(answer))
        not_people = ("The", "Oak", "Hobbs", "Johnson", "Interviewer", "Willows", "Harvey", "Rose", "Valentine")
        if topic and other and other.group(0).split()[0] not in not_people:
            return Verdict(False, "wrong", f"names someone else ({other.group(0)!r}): made up")
        return Verdict(False, "unclear", "names no candidate")
    if deny and not (detail and deny.start() > detail.start() and yes):
        return Verdict(False, "no", f"denies knowing ({deny.group(0).strip()!r})")
    if detail and (topic or yes):
        return Verdict(True, "yes", f"names a detail of the party ({detail.group(0)!r})")
    if holder_self:
        return Verdict(True, "yes", "the host speaks of her party")
    if yes:
        # The question already says "Valentine's Day party": a yes that adds nothing may be an echo
        # (weak models say yes to anything), so it is not counted.
        return Verdict(False, "unclear", "says yes but adds no detail the question did not give")
    return Verdict(False, "unclear", "no sign of knowing")


class JudgeAnswer(BaseModel):
    knows: bool




def model_judge(gateway: Any, fact: Fact, answer: str, *, speaker: str | None = None) -> Verdict:
    """The model reads the answer; the rule verdict is the fallback (a failed call
    never decides for the model)."""
    rule = rule_judge(fact, answer, speaker=speaker)
    prompt = render("judge", statement=fact.statement, question=fact.question, answer=str(answer)[:400])
    got = gateway.ask(JudgeAnswer, prompt, purpose="judge", resident=speaker, fallback=JudgeAnswer(knows=rule.knows),
                      max_tokens=12)
    return Verdict(bool(got.knows), "yes" if got.knows else "no", "model judge",
                   extra={"rule": rule.label})


# ---------------------------------------------------------------------------- memories


def mentions_topic(fact: Fact, text: str) -> bool:
    return bool(re.search(fact.topic, _low(text), re.I))


def memory_knows(fact: Fact, texts: Sequence[str], vectors: np.ndarray | None,
                 fact_vector: np.ndarray | None, owner: str | None = None) -> list[bool]:
    """For each memory of ``owner``: does it hold ``fact``? It names the topic
    (and, for a fact that ``needs_detail``, the detail, unless ``owner`` is the
    holder) and its cosine to the fact statement is at least
    ``SIM_WITH_KEYWORD``; or its cosine is at least ``SIM_ALONE``. Without
    vectors: the topic and the detail."""
    out = []
    sims = None
    if vectors is not None and fact_vector is not None and len(texts):
        v = np.asarray(vectors, dtype=np.float32)
        q = np.asarray(fact_vector, dtype=np.float32).reshape(-1)
        if v.ndim == 2 and v.shape[1] == q.shape[0]:
            vn = np.linalg.norm(v, axis=1)
            vn[vn == 0] = 1.0
            sims = (v @ q) / vn / max(float(np.linalg.norm(q)), 1e-9)
    for i, t in enumerate(texts):
        low = _low(t)
        topic = mentions_topic(fact, low)
        detail = bool(re.search(fact.detail, low, re.I))
        if fact.needs_detail and owner != fact.holder:
            topic = topic and detail
        if sims is not None:
            s = float(sims[i])
            out.append((topic and s >= SIM_WITH_KEYWORD) or s >= SIM_ALONE)
        else:
            out.append(topic and (detail or owner == fact.holder))
    return out


__all__ = [
    "CANDIDACY",
    "FACTS",
    "PARTY",
    "PARTY_END",
    "PARTY_HOST",
    "PARTY_SECTOR",
    "PARTY_START",
    "PARTY_TOPIC",
    "SIM_ALONE",
    "SIM_WITH_KEYWORD",
    "Fact",
    "Verdict",
    "memory_knows",
    "mentions_topic",
    "model_judge",
    "rule_judge",
]
