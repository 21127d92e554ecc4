"""Reflection (paper section 4.2): when the importance of what happened since
the last reflection sums past a threshold, ask 3 salient questions of the 100
most recent records, retrieve for each, and store insights that cite their
evidence. Retrieval includes earlier reflections, so reflections form trees."""
from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, conlist

import re

from agents.plan import clean_text, short_text


class Questions(BaseModel):
    questions: conlist(short_text(100), min_length=3, max_length=3)


class Insight(BaseModel):
    insight: short_text(160)
    evidence: conlist(int, min_length=1, max_length=5)  # record numbers as shown


@lru_cache(maxsize=16)
def insights_schema(n: int) -> type[BaseModel]:
    class Insights(BaseModel):
        insights: conlist(Insight, min_length=1, max_length=n)

    return Insights


def should_reflect(m) -> bool:
    return m.memory.importance_since_reflection > m.settings.reflection_threshold


def fallback_questions(m) -> Questions:
    n = m.name
    return Questions(questions=[f"What matters most to {n} right now?",
                                f"Who has {n} been spending time with?",
                                f"How does {n} feel about {n.split()[0]}'s work lately?"])


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


def reflect(m) -> list:
    """Run one reflection; returns the new reflection nodes."""
    s = m.settings
    recent = m.memory.recent(s.reflection_window, kinds=("observation", "chat", "thought", "reflection"))
    m.memory.importance_since_reflection = 0.0  # reset first: a failed reflection must not loop
    if not recent:
        return []
    # The window is the paper's 100 records; a small model's context holds about 30 of
    # them, so the prompt shows the most important 30, in the order they happened.
    shown = sorted(sorted(recent, key=lambda x: -x.importance)[: s.reflection_prompt_records], key=lambda x: x.id)
    listing = "\n".join(f"- {x.description}" for x in shown)
    qs = m.ask(Questions, "reflect_questions", "reflect_questions", fallback_questions(m), records=listing)
    made = []
    spare = fallback_questions(m).questions
    for k, q in enumerate(qs.questions[: s.reflection_questions]):
        q = clean_text(q, 200)
        if not question_ok(q):
            m.rejected["reflect_question"] += 1
            q = spare[k % len(spare)]
        nodes = m.retrieve(q, k=8)
        if not nodes:
            continue
        numbered = "\n".join(f"{i + 1}. {x.description}" for i, x in enumerate(nodes))
        schema = insights_schema(s.insights_per_question)
        fb = schema(insights=[Insight(insight=f"{m.name} keeps thinking about this: {nodes[0].description}"[:200],
                                      evidence=[1])])
        got = m.ask(schema, "reflect_insights", "reflect_insights", fb, question=q, records=numbered,
                    count=s.insights_per_question)
        texts = []
        for ins in got.insights:
            text = clean_text(ins.insight, 200)
            # Citations must point at records we showed; drop the rest, and an
            # insight left with no evidence at all.
            ids = sorted({nodes[i - 1].id for i in ins.evidence if 1 <= i <= len(nodes)})
            if not text or not ids or text in texts or not insight_ok(text, m.name, [x.description for x in nodes]):
                m.rejected["reflect_insight"] += 1
                continue
            texts.append(text)
            ev = [m.memory.get(i) for i in ids]
            importance = min(10, round(sum(x.importance for x in ev) / len(ev)) + 1)
            made.append((text, importance, ids))
    if not made:
        return []
    vecs = m.embed([t for t, _, _ in made])
    return [m.memory.add("reflection", t, m.now, imp, vecs[i], evidence=ids)
            for i, (t, imp, ids) in enumerate(made)]
