"""``scripted/competent``: a stand-in for a capable language model.

There is no capable model on the machines this game is built and tested on,
so the paper's behaviour (an invitation spreads through conversation, memory,
retrieval and planning until guests turn up) could not be tested at all. This
program answers every prompt the minds send as a sensible model would, **from
the prompt text and its JSON schema alone**: it never reads game state, knows
no resident by name and knows nothing of the scenario except what the prompt
says. For example: a day plan includes an event whose day, time and place the
prompt's memories give; a line of dialogue passes on what the speaker's
retrieved memories say about an upcoming event; the reaction to a burning
stove is to put it out.

It is served through litellm like any model (agents/model/scripted.py), so the
gateway parses, validates, retries and counts its answers as it does a real
model's. Deterministic: the same prompt gives the same answer. Use it with
``smallville sim --model scripted/competent``.

Importing this package registers it (``agents.scripted.register``); the
`smallville` command does so. One module per group of tasks: ``prompt`` reads
the prompt, ``happenings`` what its memories speak of, then ``planning``,
``conversation``, ``memory`` and ``interview`` answer; ``dispatch`` below picks
the task from the answer's schema.
"""
from __future__ import annotations

import json

from agents import scripted
from lab.competent.conversation import chat_summary, relationship, talk, utterance
from lab.competent.interview import answer, choose, judge, rank
from lab.competent.memory import insights, questions, rate, summarise
from lab.competent.planning import day_plan, guided_plan, react, replan, steps
from lab.competent.prompt import Prompt

MODEL = "competent"


def dispatch(p: Prompt) -> dict:
    name = p.name
    props = set(((p.schema or {}).get("properties") or {}).keys())
    if "ratings" in props:
        return rate(p)
    if "items" in props:
        return replan(p) if "Rewrite" in p.text else day_plan(p)
    if name == "DayPlan":
        return guided_plan(p)
    if "steps" in props:
        return steps(p)
    if "react" in props:
        return react(p)
    if "talk" in props:
        return talk(p)
    if "utterance" in props:
        return utterance(p)
    if "plans" in props:
        return chat_summary(p)
    if "questions" in props:
        return questions(p)
    if "insights" in props:
        return insights(p)
    if "answer" in props:
        return answer(p)
    if "fact" in props:
        return choose(p)
    if "knows" in props:
        return judge(p)
    if "ranking" in props:
        return rank(p)
    if "summary" in props:
        return relationship(p) if "relationship with" in p.text else summarise(p)
    return {}


def respond(messages: list, response_format: dict | None, timeout: float | None) -> str:
    text = next((str(m.get("content", "")) for m in reversed(messages) if m.get("role") == "user"), "")
    js = (response_format or {}).get("json_schema") or {}
    return json.dumps(dispatch(Prompt(text, js.get("schema"), str(js.get("name") or ""))), ensure_ascii=False)


scripted.register(MODEL, respond)

__all__ = ["MODEL", "Prompt", "dispatch", "respond"]
