"""Grounded answers and lines: a small model as a chooser, not a writer.

A 135M model writes poor sentences but can pick from a short list. In the
grounded mode (``ModelConfig.grounded``: on for the embedded model) an answer
or a line of dialogue is built in three steps:

1. **Retrieve** as the paper does (recency, importance, relevance), then keep
   the few memories whose relevance to the question clears a floor, as short
   numbered facts (``candidates``).
2. **Choose**: the model answers with the number of the fact that answers the
   question, or "none"; decoding is constrained to those choices (an enum in
   the schema), so its answer is always one of them (``choose``).
3. **Word** the chosen fact by rule in the first person: "Isabella Rodriguez
   runs Hobbs Cafe, the cafe she owns" -> "I run Hobbs Cafe, the cafe I own"
   (``first_person``). Nothing fits: the resident says so in character
   (``dont_know``) instead of inventing.

Provenance (agents/explain/provenance.py): a chosen fact is "repaired: grounded: memory
#12 (Isabella Rodriguez runs Hobbs Cafe...)": the model chose, a rule worded.
"none", or no fact at all, is "rule: grounded: ...". ``memory_of(source)``
reads the memory id back for the inspector and the timeline.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, Literal, Protocol

import numpy as np
from pydantic import BaseModel, create_model

from agents.explain import provenance as pv
from agents.model.services import Asker, ask_model
from agents.recall.memory import MemoryNode
from agents.words import dated as dt

MAX_FACTS = 5
FACT_CHARS = 220  # one fact in a list, and in an answer (a whole description is no answer)
# Cosine floor between a question and a fact (all-MiniLM-L6-v2): below it the fact is
# not offered, and with nothing left the answer is "I don't know" without a call.
MIN_RELEVANCE = 0.22
# A choice is not a piece of writing: at the configured temperature (0.7) the 135M model
# picked the second of two facts as often as the first; at 0 it picks what it rates best.
CHOOSER_TEMPERATURE = 0.0
GROUNDED = "grounded"
# What a resident thinks, was told, planned or concluded: durable facts about its life.
DURABLE_KINDS = ("thought", "chat", "reflection", "plan")
# What it merely saw ("Klaus Mueller is having breakfast") names people as well as a durable
# fact does; it ranks this much lower, so "who is Klaus?" is answered by who he is.
SEEN_PENALTY = 0.2
NONE = "none"
_MEMORY = re.compile(r"grounded: memory #(\d+)")


@dataclass
class Fact:
    """A memory offered to the chooser."""

    node_id: int
    text: str  # the memory's description
    relevance: float
    worded: str = ""  # ... in the resident's own words, as the chooser sees it


@dataclass
class Grounded:
    """What grounding made of a question: the chosen fact (None: none fits) and its provenance."""

    fact: Fact | None
    source: str
    why: str | None = None  # the gateway's outcome when the model's answer was unusable


def chooses(m: Any) -> bool:
    """Whether the mind's model chooses from candidates instead of writing words: the
    guided mode with grounded answers (the embedded model's default). A capable model
    (the paper's mode, or grounded off) always writes its own words."""
    return bool(getattr(m, "guided", False)) and bool(getattr(m, "grounded", False))


@lru_cache(maxsize=16)
def choice_schema(n: int) -> type[BaseModel]:
    """{"fact": "1" | ... | "n" | "none"}: the only answers the grammar lets the model give."""
    options = tuple(str(i) for i in range(1, n + 1)) + (NONE,)
    fields: dict[str, Any] = {"fact": (Literal[options], ...)}
    return create_model("FactChoice", **fields)


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]", "", str(text).lower()).strip()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b) / (na * nb) if na > 0 and nb > 0 else 0.0


def _short(text: str) -> str:
    t = " ".join(str(text).split())
    return t if len(t) <= FACT_CHARS else t[:FACT_CHARS].rsplit(" ", 1)[0] + "..."


def third_person_question(question: str, name: str) -> str:
    """ "What's your occupation?" -> "What is Isabella Rodriguez's occupation?": a query
    that lands near facts written about the resident (the descriptions are in the third person)."""
    q = re.sub(r"\b([Ww])hat's\b", r"\1hat is", question)
    subs = [(r"\byourself\b", name), (r"\byour\b", f"{name}'s"), (r"\bare you\b", f"is {name}"),
            (r"\bdo you\b", f"does {name}"), (r"\bhave you\b", f"has {name}"), (r"\byou\b", name)]
    for rx, rep in subs:
        q = re.sub(rx, rep, q, flags=re.I)
    return q


def my_question(question: str) -> str:
    """ "What's your occupation?" -> "What is my occupation?": the question in the resident's
    own words, to compare with facts in the first person (no names: a name in both texts
    makes every fact about the resident look relevant)."""
    q = re.sub(r"\b([Ww])hat's\b", r"\1hat is", str(question))
    subs = [(r"\byourself\b", "myself"), (r"\byours\b", "mine"), (r"\byour\b", "my"), (r"\bare you\b", "am I"),
            (r"\byou are\b", "I am"), (r"\byou're\b", "I'm"), (r"\byou\b", "I")]
    for rx, rep in subs:
        q = re.sub(rx, rep, q, flags=re.I)
    return q


# What a question's key word is usually answered with: the descriptions say "runs Hobbs Cafe",
# not "occupation", and small embedders miss that. A fact (in the first person) that says
# it gets HINT_BONUS on its relevance.
_HINTS = (
    (r"\boccupation|\bjob\b|\bprofession|\bfor a living|\bwork\b|\bwhat do i do\b|\bcareer",
     r"^I (run|own|work|study|teach|am an? |write|paint|build)"),
    (r"\binterest|\bhobb|\bfree time|\bpassion|\benjoy|\blike to\b|\bfun\b", r"^I (\w+ )?(like|love|enjoy|dream)"),
    (r"\blive\b|\bhome\b|\bhouse\b", r"^I (\w+ )?(live|share)"),
    (r"\bfriend", r"\bfriend|^I know\b|\bget along|\bmentor"),
    (r"\bfamily|\bwife|\bhusband|\bmarried|\bchild|\bson\b|\bdaughter|\bparent",
     r"\bmy (wife|husband|son|daughter|parents|family)\b"),
    (r"\bstud(y|ies)|\bschool|\bcollege|\bclass|\bmajor", r"^I study\b|\bthesis\b|\bclass"),
)
HINT_BONUS = 0.15


def hint_bonus(question: str, fact_in_my_words: str) -> float:
    """HINT_BONUS when ``fact_in_my_words`` says what ``question`` asks for (by rule)."""
    for q, f in _HINTS:
        if re.search(q, question, re.I) and re.search(f, fact_in_my_words, re.I):
            return HINT_BONUS
    return 0.0


def candidates(nodes: Sequence[MemoryNode], vectors: Sequence[np.ndarray], query_vec: np.ndarray | Sequence[np.ndarray],
               *, floor: float = MIN_RELEVANCE, k: int = MAX_FACTS, skip: Sequence[str] = (),
               bonus: Sequence[float] = (), worded: Sequence[str] = ()) -> list[Fact]:
    """The retrieved memories worth offering, most relevant first (the best cosine to any
    of the query vectors): relevance at least ``floor``, no two alike, none of ``skip``
    (lines already said)."""
    queries = [np.asarray(q, dtype=np.float32) for q in
               (query_vec if isinstance(query_vec, (list, tuple)) else [query_vec])]
    said = {_norm(s) for s in skip}
    out: list[Fact] = []
    seen: set[str] = set()
    for i, (node, vec) in enumerate(zip(nodes, vectors)):
        key = _norm(node.description)
        if not key or key in seen or any(key in s or s in key for s in said if s):
            continue
        seen.add(key)
        rel = max(cosine(np.asarray(vec, dtype=np.float32), q) for q in queries) + (bonus[i] if i < len(bonus) else 0)
        if rel >= floor:
            out.append(Fact(node.id, _short(node.description), rel, _short(worded[i]) if i < len(worded) else ""))
    out.sort(key=lambda f: -f.relevance)
    return out[:k]


_ECHO = re.compile(r"\bsalient\b|\bhigh-level question|\binsights? from the records\b|^\s*\d+\.\s|"
                   r"\babout \d+\.?$|\bthe records? (for|of|above|below|shown) |\brows? of (the )?data\b|"
                   r"\bthe data (represents|shows)\b|\bthe (questions?|insights?|records?) above\b", re.I)


def echoes_prompt(text: str) -> bool:
    """A memory that repeats a prompt's words ("The most salient high-level questions ...",
    "In the record for 1, the number of rows of the data represents ...": a 135M model's
    reflection) or ends in a list number: it states no fact."""
    return bool(_ECHO.search(str(text or "")))


class Remembered(Protocol):
    """What ``offered`` reads of a memory (a MemoryNode, or a stand-in for a seed phrase)."""

    description: str
    kind: str
    source: str
    created: datetime


def offered(node: Remembered, now: datetime | None = None) -> bool:
    """Whether a memory may be offered as a fact, a topic or a reflection's evidence in
    the grounded mode: no prompt's echo, and no reflection the model wrote freely. A
    small model's free reflections are often false ("Maria's favorite food is pizza"), and
    told as news they spread; grounded ones (agents/recall/reflect.py: derived from memories by
    rule, chosen by the model) are offered. With ``now``, nothing dated that is over by then
    either ("I want to host a party ... on February 14", told on Feb 15, was news of a party
    to come): time passes in memory. Nothing is deleted: the memory stays."""
    if echoes_prompt(node.description):
        return False
    if now is not None and dt.ended(node.description, node.created, now):
        return False
    return node.kind != "reflection" or pv.why_of(node.source).startswith(f"{GROUNDED}:")


def fact_list(facts: Sequence[Fact]) -> str:
    """The numbered list the chooser sees (in the resident's own words where known: a small
    model matches "your occupation" to "I run Hobbs Cafe" better than to "Isabella runs ...")."""
    return "\n".join(f"{i}. {f.worded or f.text}" for i, f in enumerate(facts, 1))


def choose(asker: Asker, facts: Sequence[Fact], *, name: str, question: str, asked_by: str, purpose: str,
           now: datetime | None = None, fallback_first: bool = False) -> Grounded:
    """The model picks the fact that answers ``question`` (or none), at the chooser's
    temperature. ``asker``: the gateway, or a mind's budget; ``now``: the sim time, for
    the decision record. Without facts no call is made. When the model's answer is
    unusable: none, or with ``fallback_first`` the most relevant fact (said so)."""
    if not facts:
        return Grounded(None, pv.tag(pv.RULE, f"{GROUNDED}: no memory fits"))
    schema = choice_schema(len(facts))
    values = dict(full_name=name, asked_by=asked_by, question=question, facts=fact_list(facts))
    got, why = ask_model(asker, schema, "choose_fact", values, purpose=purpose, resident=name, now=now,
                         fallback=schema(fact=NONE), temperature=CHOOSER_TEMPERATURE)
    return outcome(facts, got, why, fallback_first=fallback_first)


def outcome(facts: Sequence[Fact], got: Any, why: str | None, *, fallback_first: bool = False) -> Grounded:
    """What the model's choice (``got.fact``: a number or "none"; ``why``: the gateway's
    outcome) makes of ``facts``."""
    if why is not None:
        if fallback_first and facts:
            return Grounded(facts[0], pv.tag(pv.RULE, f"{GROUNDED}: {source_note(facts[0])}; "
                                             f"{pv.reason_of_failure(why)}"), why)
        return Grounded(None, pv.tag(pv.RULE, f"{GROUNDED}: {pv.reason_of_failure(why)}"), why)
    choice = str(getattr(got, "fact", NONE))
    if choice == NONE or not choice.isdigit() or not 1 <= int(choice) <= len(facts):
        return Grounded(None, pv.tag(pv.MODEL, f"{GROUNDED}: none of the memories fits"))
    fact = facts[int(choice) - 1]
    return Grounded(fact, pv.tag(pv.REPAIRED, f"{GROUNDED}: {source_note(fact)}"))


def source_note(fact: Fact) -> str:
    """ "memory #12 (Isabella Rodriguez runs Hobbs Cafe...)": the provenance's reason."""
    t = fact.text if len(fact.text) <= 60 else fact.text[:60].rsplit(" ", 1)[0] + "..."
    if fact.node_id < 0:  # a phrase of the description before the mind stored it (agents/mind/interview.py)
        return f"its description ({t.replace(':', ' -')})"
    return f"memory #{fact.node_id} ({t.replace(':', ' -')})"


def memory_of(source: str | None) -> int | None:
    """The memory id a grounded answer or line came from, or None."""
    m = _MEMORY.search(str(source or ""))
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------------------- wording

_ADVERBS = {"often", "sometimes", "also", "still", "always", "never", "usually", "really", "just", "rarely",
            "mostly", "now", "already", "secretly", "even", "only"}
_VERBS = {"tends", "runs", "works", "plays", "walks", "reads", "writes", "paints", "makes", "cooks", "likes",
          "loves", "helps", "takes", "keeps", "knows", "sees", "enjoys", "wants", "gets", "shops", "trains",
          "teaches", "prepares", "practises", "composes", "opens", "closes", "stays", "tries", "is", "has", "does",
          "builds", "draws", "animates", "dreams", "performs", "rehearses", "grew", "follows", "values", "thinks",
          "buys", "photographs", "edits", "gardens", "avoids", "dislikes", "unwinds", "studies", "streams",
          "spends", "cares", "shares", "counts"}
_IRREGULAR = {"is": "am", "has": "have", "does": "do", "was": "was", "goes": "go", "isn't": "am not",
              "doesn't": "don't", "hasn't": "haven't", "wasn't": "wasn't"}


def base_verb(word: str) -> str:
    """The first-person form of a third-person verb: runs -> run, studies -> study, is -> am."""
    low = word.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if not low.endswith("s") or low.endswith("ss") or len(low) < 3:
        return word
    if low.endswith("ies") and len(low) > 4:
        return word[:-3] + "y"
    if low.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return word[:-2]
    return word[:-1]


def _fix_verbs(text: str) -> str:
    """After every "I": the verb (past an adverb) in the first person, and verbs joined by "and"."""
    words = text.split(" ")
    i = 0
    while i < len(words):
        if words[i] == "I":
            j = i + 1
            while j < len(words) and words[j].lower() in _ADVERBS:
                j += 1
            if j < len(words):
                words[j] = base_verb(words[j])
            i = j
        elif words[i] == "and" and i > 1:
            # "I open the cafe ... and close it", "I own and tend the bar": a verb after "and" in a
            # sentence with an "I" before it (a plural noun rarely ends in -es in a description)
            j = i + 1
            while j < len(words) and words[j].lower() in _ADVERBS:
                j += 1
            if j < len(words) and "I" in words[:i] and (words[j] in _VERBS or re.fullmatch(r"[a-z]+(ies|[^s]es)",
                                                                                        words[j])):
                words[j] = base_verb(words[j])
            i = j
            continue
        i += 1
    return " ".join(words)


# What someone is helped (let, made, taught) to do: "helping her settle in" is about another.
_HELPED_TO = r"(?:settle|get|find|move|learn|study|feel|pack|cook|open|run|carry|set|fix|start|prepare|practi[cs]e)\b"


def first_person(fact: str, name: str) -> str:
    """A fact about ``name`` in ``name``'s own words: "Isabella Rodriguez runs Hobbs Cafe;
    she lives alone in her apartment" -> "I run Hobbs Cafe; I live alone in my apartment".
    A fact about someone else keeps its subject; only ``name`` becomes "I"/"me"."""
    t = " ".join(str(fact or "").split()).strip()
    if not t:
        return ""
    first = name.split()[0]
    about_me = bool(re.match(rf"^({re.escape(name)}|{re.escape(first)}|she|he|i)\b", t, re.I))
    for who in (re.escape(name), re.escape(first)):
        t = re.sub(rf"\b{who}'s\b", "my", t)
        t = re.sub(rf"^{who}\b", "I", t)
        t = re.sub(rf"([.;:!?]\s+|\band\s+|\bbut\s+|\bthat\s+|\bwhen\s+|\"\s*){who}\b(?!')", r"\1I", t)
        t = re.sub(rf"\b{who}\b", "me", t)
    if about_me:
        t = re.sub(r"(^|[.;!?]\s+|\band\s+|\bbut\s+|\bthat\s+|\bwhere\s+|\bwhen\s+|\bthe \w+ )(she|he)\b",
                   r"\1I", t, flags=re.I)
        t = re.sub(r"\b(she|he)\b", "I", t, flags=re.I)
        # "helping her settle in": "her" after a verb of helping or letting is someone else
        t = re.sub(r"\b(help(?:s|ing)?|let(?:s|ting)?|mak(?:e|es|ing)|watch(?:es|ing)?|teach(?:es|ing)?) (her|him)"
                   rf"(?= {_HELPED_TO})", r"\1 \2_", t, flags=re.I)  # marked, kept below
        # "sees Sam Moore as a mentor and values his advice": after another's name, Sam's
        if re.search(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b.*\b(?:values?|admires?|trusts?|respects?|seeks?) (?:her|his)\b",
                     re.sub(rf"^{re.escape(name)}\b", "", t)):
            t = re.sub(r"\b(values?|admires?|trusts?|respects?|seeks?) (her|his)\b", r"\1 \2_", t)
        t = re.sub(r"\b(her|his)\b(?!_)", "my", t, flags=re.I)
        if not re.search(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b", re.sub(rf"^{re.escape(name)}\b", "", t)):
            t = re.sub(r"\bhim\b", "me", t, flags=re.I)  # "avoids him" after another's name is about them
        t = re.sub(r"\b(her|him|his)_", r"\1", t)
        t = re.sub(r"\b(herself|himself)\b", "myself", t, flags=re.I)
    if re.search(r"\bmy (wife|husband|partner)\b", t):
        t = re.sub(r"\btheir\b", "our", t)
    t = re.sub(r"\bme and\b", "I and", t)
    t = re.sub(r"^I and (\w+(?: \w+)?) (are|were)\b", r"\1 and I \2", t)
    t = re.sub(r"\bi\b", "I", t)
    t = _fix_verbs(t)
    t = re.sub(r"\bI am not\b", "I'm not", t)
    t = t[0].upper() + t[1:]
    return t if t.endswith((".", "!", "?", '"')) else t + "."


# Words that make what someone says worth remembering (the rule when the model gives no rating).
NEWS_WORDS = ("party", "love", "secret", "news", "married", "wedding", "died", "pregnant", "baby", "job", "hired",
              "fired", "election", "mayor", "moving", "opening", "new ", "won ", "lost", "fire", "accident",
              "tomorrow", "tonight", "next week", "valentine", "help", "invite", "sick", "birthday", "crush")


def news_importance(text: str) -> int:
    """How memorable a line someone said to you is, by rule (1-10)."""
    t = str(text or "").lower()
    # Someone talking to you directly is more memorable than what you merely see (observations: 1-3).
    score = 4 + min(2, len(t) // 80) + (2 if any(w in t for w in NEWS_WORDS) else 0)
    return max(1, min(10, score))


def is_question(text: str) -> bool:
    t = str(text or "").strip().lower()
    return t.endswith("?") or bool(re.match(r"^(who|what|when|where|why|how|which|do|does|did|are|is|can|could|"
                                            r"would|will|have|has|tell me|describe|give)\b", t))


def is_greeting(text: str) -> bool:
    return bool(re.match(r"^\s*(hi|hello|hey|good (morning|afternoon|evening|day)|greetings|howdy)\b",
                         str(text or ""), re.I))


_DONT_KNOW = ("I don't know much about that, {sp}.", "I'm afraid I don't know, {sp}.",
              "I couldn't tell you, {sp}; I haven't heard anything about that.")


def dont_know(speaker_first: str, turn: int = 0) -> str:
    """In character, without inventing: nothing the resident remembers answers it."""
    return _DONT_KNOW[turn % len(_DONT_KNOW)].format(sp=speaker_first)


__all__ = [
    "DURABLE_KINDS",
    "GROUNDED",
    "MAX_FACTS",
    "MIN_RELEVANCE",
    "NEWS_WORDS",
    "SEEN_PENALTY",
    "Fact",
    "Grounded",
    "base_verb",
    "candidates",
    "choice_schema",
    "choose",
    "dont_know",
    "echoes_prompt",
    "fact_list",
    "first_person",
    "hint_bonus",
    "is_greeting",
    "is_question",
    "memory_of",
    "my_question",
    "news_importance",
    "offered",
    "outcome",
    "source_note",
    "third_person_question",
]
