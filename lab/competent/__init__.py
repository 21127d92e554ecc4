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
the task from the request's purpose (agents/explain/purposes.py), which the model
road tells a scripted model, and where the purpose leaves it open from the answer's
schema. The purpose says only why the mind asks, as the prompt itself does.
"""
from __future__ import annotations

import json
from collections.abc import Callable

from agents import scripted
from lab.competent.conversation import chat_summary, relationship, talk, utterance
from lab.competent.interview import answer, choose, judge, rank
from lab.competent.memory import insights, questions, rate, summarise
from lab.competent.planning import day_plan, guided_plan, react, replan, steps
from lab.competent.prompt import Prompt

MODEL = "competent"


# The answer to each purpose's question where the purpose alone says which (the purposes are
# agents/explain/purposes.py's; tests/test_purposes.py checks each is declared there). The
# rest ask with templates that want different answers (a day plan written, laid on the usual
# day's hours or chosen slot by slot; an observation rated or picked out), or the stand-in has
# no answer for them (a grounded line's choice): those, and a prompt whose purpose is not told
# (the stand-in server, lab/standin_server.py), are told apart by the answer's schema.
BY_PURPOSE: dict[str, Callable[[Prompt], dict]] = {
    "summary": summarise,
    "yesterday": summarise,
    "replan": replan,
    "decompose": steps,
    "react": react,
    "reflect_questions": questions,
    "reflect_insights": insights,
    "reflect_choose": choose,
    "story_choose": choose,
    "talk_decision": talk,
    "relationship": relationship,
    "utterance": utterance,
    "chat_summary": chat_summary,
    "respond": answer,
    "choose_fact": choose,
    "judge": judge,
    "rank_answers": rank,
}


def dispatch(p: Prompt, purpose: str | None = None) -> dict:
    """The answer to prompt ``p``: by its purpose where that says which, else by its schema."""
    by_purpose = BY_PURPOSE.get(purpose or "")
    return by_purpose(p) if by_purpose is not None else by_schema(p)


def by_schema(p: Prompt) -> dict:
    """The answer the schema's fields ask for (and the prompt's words, where two tasks share a schema)."""
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


def respond(messages: list[dict], response_format: dict | None, timeout: float | None,
            purpose: str | None = None) -> str:
    text = next((str(m.get("content", "")) for m in reversed(messages) if m.get("role") == "user"), "")
    js = (response_format or {}).get("json_schema") or {}
    prompt = Prompt(text, js.get("schema"), str(js.get("name") or ""))
    return json.dumps(dispatch(prompt, purpose), ensure_ascii=False)


scripted.register(MODEL, respond, with_purpose=True)

__all__ = ["BY_PURPOSE", "MODEL", "Prompt", "by_schema", "dispatch", "respond"]
