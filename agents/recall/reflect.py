"""Reflection (paper section 4.2): when the importance of what happened since
the last reflection sums past a threshold, ask 3 salient questions of the 100
most recent records, retrieve for each, and store insights that cite their
evidence. Retrieval includes earlier reflections, so reflections form trees.

A model that chooses rather than writes (agents/recall/grounding.py chooses: the guided and
grounded modes, the embedded model's) reflects as grounded answers are made
(agents/recall/grounding.py): rules derive candidate insights from what those 100 records
and the resident's description say of people (agents/recall/insights.py: what someone cares
about, works towards, how two stand, what one wants), each citing the memories it rests on,
and the model picks the one that matters most under a grammar; the rule's words are stored. Nothing
to derive, no reflection (counted): the small model's own words were too often
false ("Maria's favorite food is pizza") to enter the memory stream."""
from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta
from functools import lru_cache
from typing import Annotated, Protocol

from pydantic import BaseModel, Field

from agents.explain import provenance as pv
from agents.recall import grounding as gr
from agents.recall import insights
from agents.recall.grounding import chooses
from agents.recall.memory import MemoryNode, MemoryStream
from agents.recall.thinking import Thinking
from agents.words.text import Text100, Text160, clean_text

KINDS = ("observation", "chat", "thought", "reflection", "plan")  # what a reflection looks back on
EARLIER = 12  # a grounded insight among this many latest reflections is not concluded again


class Questions(BaseModel):
    questions: Annotated[list[Text100], Field(min_length=3, max_length=3)]


class Insight(BaseModel):
    insight: Text160
    evidence: Annotated[list[int], Field(min_length=1, max_length=5)]  # record numbers as shown
    importance: int = Field(default=5, ge=1, le=10)  # the model rates its own insight


@lru_cache(maxsize=16)
def insights_schema(n: int) -> type[BaseModel]:
    class Insights(BaseModel):
        insights: Annotated[list[Insight], Field(min_length=1, max_length=n)]

    return Insights


class Reflector(Thinking, Protocol):
    """What reflection needs of a mind (besides agents.model.services.Thinking)."""

    @property
    def memory(self) -> MemoryStream:
        ...

    @property
    def known_people(self) -> set[str]:
        ...

    fallbacks: Counter  # "what: why" -> how often a rule stood in for the model

    def remember_many(self, items: list[dict]) -> list[MemoryNode]:
        ...


QUIET_SUM = 20  # summed importance of a quiet day worth a reflection: a few records, not none


def should_reflect(m: Reflector) -> bool:
    """The paper's trigger; a choosing model (the embedded one) also waits
    ``reflection_gap_h`` sim hours after its last reflection: its conversations are many and
    short, and each heard line counts, so the sum alone fired 4-6 times in 12 sim hours for
    some residents (the paper: 2-3 a day). And it reflects after ``reflection_quiet_h``
    hours even below the sum, when anything happened (``QUIET_SUM``)."""
    s, summed = m.settings, m.memory.importance_since_reflection
    if not chooses(m):
        return summed > s.reflection_threshold
    last = m.memory.recent(1, kinds=("reflection",))
    first = m.memory.nodes[0].created if m.memory.nodes else m.now
    since = m.now - (last[0].created if last else first)
    if summed > s.reflection_threshold:
        return since >= timedelta(hours=s.reflection_gap_h)
    # A quiet day (alone at home) never reaches the sum: it reflects once in reflection_quiet_h
    # hours on what little happened, as the paper's residents reflect two or three times a day.
    return summed >= QUIET_SUM and since >= timedelta(hours=s.reflection_quiet_h)


def question_ok(q: str) -> bool:
    """A question of a few words (not "?", not a copied record)."""
    words = q.split()
    return 3 <= len(words) <= 25 and (q.endswith("?") or words[0].lower() in (
        "what", "who", "how", "why", "which", "when", "where", "does", "is", "are", "do", "can"))


def insight_ok(text: str, name: str, records: list[str]) -> bool:
    """A sentence of 4-40 words that names nobody absent from its records and the
    resident (a small model mixes surnames) and is not a bare copy of a record."""
    words = text.split()
    if not 4 <= len(words) <= 40 or text.rstrip(".") in {r.rstrip(".") for r in records}:
        return False
    allowed = {name} | {f"{a} {b}" for r in records for a, b in re.findall(r"\b([A-Z][a-z]+)\s+([A-Z][a-z]+)\b", r)}
    firsts, lasts = {n.split()[0] for n in allowed}, {n.split()[-1] for n in allowed}
    for a, b in re.findall(r"\b([A-Z][a-z]+)\s+([A-Z][a-z]+)\b", text):
        if f"{a} {b}" not in allowed and a in firsts and b in lasts:
            return False  # "Maria Rodriguez"
    return True


def reflect(m: Reflector) -> list[MemoryNode]:
    """Run one reflection; returns the new reflection nodes. A reflection the model
    failed to write is skipped (and counted), never invented."""
    s = m.settings
    recent = m.memory.recent(s.reflection_window, kinds=KINDS)
    m.memory.importance_since_reflection = 0.0  # reset first: a failed reflection must not loop
    if not recent:
        return []
    if chooses(m):
        return reflect_grounded(m, recent)
    # The window is the paper's 100 records; a small model's context holds about 30 of
    # them, so the prompt shows the most important 30, in the order they happened.
    shown = sorted(sorted(recent, key=lambda x: -x.importance)[: s.reflection_prompt_records], key=lambda x: x.id)
    listing = "\n".join(f"- {x.description}" for x in shown)
    qs, why = m.ask(Questions, "reflect_questions", "reflect_questions", None, records=listing)
    if why is not None:
        m.note_fallback("reflection", why)
        return []
    made = []
    texts: list[str] = []  # one insight once, whichever question it answers
    for q in qs.questions[: s.reflection_questions]:
        q = clean_text(q, 200)
        if not question_ok(q):
            m.rejected["reflect_question"] += 1
            continue
        nodes = m.retrieve(q, k=8)
        if not nodes:
            continue
        numbered = "\n".join(f"{i + 1}. {x.description}" for i, x in enumerate(nodes))
        schema = insights_schema(s.insights_per_question)
        got, why = m.ask(schema, "reflect_insights", "reflect_insights", None, question=q, records=numbered,
                         count=s.insights_per_question)
        if why is not None:
            m.note_fallback("insight", why)
            continue
        for ins in got.insights:
            text = clean_text(ins.insight, 200)
            # Citations must point at records we showed; drop the rest, and an
            # insight left with no evidence at all.
            ids = sorted({nodes[i - 1].id for i in ins.evidence if 1 <= i <= len(nodes)})
            if not text or not ids or text in texts or not insight_ok(text, m.name, [x.description for x in nodes]):
                m.rejected["reflect_insight"] += 1
                continue
            texts.append(text)
            made.append((text, int(ins.importance), ids))
    if not made:
        m.note_fallback("reflection", "invalid")
        return []
    return m.remember_many([dict(kind="reflection", text=t, importance=imp, evidence=ids, source=pv.MODEL,
                                 importance_source=pv.MODEL) for t, imp, ids in made])


def insight_list(cands: list[insights.Candidate]) -> str:
    return "\n".join(f"{i}. {c.text}" for i, c in enumerate(cands, 1))


def grounded_source(chosen: insights.Candidate, offered: int) -> str:
    """ "repaired: grounded: chosen from 4 insights (people, from memories #3, #9)": the
    model chose, a rule derived and worded it."""
    cited = ", ".join(f"#{i}" for i in chosen.evidence)
    return pv.tag(pv.REPAIRED, f"{gr.GROUNDED}: chosen from {offered} insights ({chosen.kind}, from memories {cited})")


def reflect_grounded(m: Reflector, recent: list[MemoryNode]) -> list[MemoryNode]:
    """A reflection for a model that chooses: candidate insights derived from the recent
    records by rule (agents/recall/insights.py), one chosen by the model. Nothing to derive, a
    "none" or an unusable answer: no reflection, counted in the mind's fallbacks."""
    stream = m.memory
    known = insights.known_of(m.name, m.known_people, stream.by_kind("thought"), m.spatial,
                              home=m.persona.home.split(":")[1] if ":" in m.persona.home else "")
    earlier = [x.description for x in stream.by_kind("reflection")[-EARLIER:]]
    # the description too (what it cares about, works at, who its friends are), long out of the window
    shown = {x.id for x in recent}
    about_me = [x for x in stream.by_kind("thought") if insights.described(x) and x.id not in shown]
    cands = insights.derive(about_me + recent, known, m.spatial.world, m.now, said_before=earlier)
    if not cands:
        m.fallbacks["reflection: nothing to derive"] += 1
        return []
    schema = gr.choice_schema(len(cands))
    got, why = m.ask(schema, "reflect_choose", "reflect_choose", schema(fact=gr.NONE), insights=insight_list(cands))
    if why is not None:
        m.note_fallback("reflection", why)
        return []
    choice = str(got.fact)
    if not choice.isdigit() or not 1 <= int(choice) <= len(cands):
        m.fallbacks["reflection: the model chose none"] += 1
        return []
    c = cands[int(choice) - 1]
    # the rule's importance until the model rates it with the next observations (agents/recall/perceive.py)
    return m.remember_many([dict(kind="reflection", text=c.text, importance=insights.IMPORTANCE[c.kind],
                                 evidence=list(c.evidence), source=grounded_source(c, len(cands)), rate=True,
                                 importance_source=pv.UNRATED)])
