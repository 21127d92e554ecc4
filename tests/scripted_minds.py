"""Scripted model answers for the minds' tests: plausible, schema-shaped answers
per purpose (read from the schema the mind declared), and helpers to build
minds and situations."""
from __future__ import annotations

import re
from datetime import datetime

from agents.mind.core import Mind
from agents.residents.persona import Persona
from agents.support.types import Conversation, Event, Situation
from tests.fakes import HashEmbedder, make_gateway


def _enum(schema, *path) -> list[str]:
    """Allowed values of a Literal field nested in a schema (places)."""
    js = schema.model_json_schema()
    node = js
    for p in path:
        node = node["properties"][p] if "properties" in node else node
        if "$ref" in node:
            node = js["$defs"][node["$ref"].split("/")[-1]]
        if node.get("type") == "array":
            node = node["items"]
            if "$ref" in node:
                node = js["$defs"][node["$ref"].split("/")[-1]]
    return node.get("enum", [])


def _count(schema, field) -> int:
    js = schema.model_json_schema()
    return int(js["properties"][field].get("minItems", 1))


def _user(messages) -> str:
    return next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")


def plausible(purpose: str, messages: list, schema) -> dict:
    """A well-formed, sensible answer for each prompt a mind sends."""
    text = _user(messages)
    if purpose == "importance":
        n = _count(schema, "ratings")
        return {"ratings": [6 if "party" in text.lower() else 4] * n}
    if purpose in ("summary", "yesterday"):
        return {"summary": "Busy with work and looking forward to seeing friends this week."}
    if purpose == "day_plan" and "items" not in schema.model_json_schema()["properties"]:
        # the guided mode's slots ({"07:00": activity, ...}): a plausible day in the model's words
        words = {"07": "get ready for the day", "08": "work on the day's tasks", "12": "have lunch with a friend",
                 "13": "work on projects", "17": "have dinner at home", "19": "read a book"}
        return {k: words.get(k[:2], "work on the day's tasks") for k in schema.model_json_schema()["properties"]}
    if purpose == "day_plan":
        places = _enum(schema, "items", "place")
        work = next((p for p in places if "cafe" in p or "library" in p or "classroom" in p), places[0])
        home = next((p for p in places if "main room" in p or "room" in p), places[0])
        return {"items": [
            {"start": "07:00", "minutes": 60, "activity": "get ready and have breakfast", "place": home},
            {"start": "08:00", "minutes": 240, "activity": "work", "place": work},
            {"start": "12:00", "minutes": 60, "activity": "have lunch", "place": work},
            {"start": "13:00", "minutes": 240, "activity": "work on projects", "place": work},
            {"start": "17:00", "minutes": 120, "activity": "have dinner and relax", "place": home},
            {"start": "19:00", "minutes": 180, "activity": "read a book", "place": home},
            {"start": "22:30", "minutes": 300, "activity": "sleep", "place": home},
        ]}
    if purpose == "replan":
        places = _enum(schema, "items", "place")
        starts = _enum(schema, "items", "start")
        m = re.search(r"does now: (.+?) for (\d+) minutes", text)
        first = m.group(1) if m else "carry on with the day"
        minutes = min((15, 30, 45, 60), key=lambda x: abs(x - int(m.group(2)))) if m else 60
        return {"items": [{"start": starts[0], "minutes": minutes, "activity": first, "place": places[0]}]
                + [{"start": t, "minutes": 60, "activity": "work on projects", "place": places[0]}
                   for t in starts[2:6:2]]}
    if purpose == "decompose":
        places = _enum(schema, "steps", "place")
        m = re.search(r"\((\d+) minutes\)", text)
        minutes = int(m.group(1)) if m else 60
        steps, left, i = [], minutes, 0
        while left > 0 and len(steps) < 6:
            d = min(15, max(5, left))
            steps.append({"activity": f"step {i + 1} of the task", "minutes": d, "place": places[0], "emoji": "💼"})
            left -= d
            i += 1
        return {"steps": steps}
    if purpose == "react":
        return {"react": False, "activity": "", "minutes": 10}
    if purpose == "story_choose":
        return {"fact": "none"}  # hosts nothing of its own (tests/test_time_passes.py chooses one)
    if purpose == "talk_decision":
        return {"talk": True}
    if purpose == "relationship":
        return {"summary": "They are friendly neighbours who chat now and then."}
    if purpose == "utterance":
        n = text.count("\n") % 7
        return {"utterance": f"That is interesting, tell me more ({n}).", "ends": False}
    if purpose == "chat_summary":
        return {"summary": "the week ahead", "importance": 4, "plans": False}
    if purpose == "reflect_questions":
        return {"questions": ["What does she care about?", "Who are her friends?", "What is her work like?"]}
    if purpose == "reflect_insights":
        q = re.search(r"Question: (.*)", text)
        return {"insights": [{"insight": f"She cares about her community ({q.group(1) if q else ''}).",
                              "evidence": [1, 2, 99], "importance": 6}]}
    raise AssertionError(f"unexpected purpose {purpose}")


def garbage(purpose: str, messages: list, schema) -> str:
    """A model that answers nonsense every time (then the fallbacks act)."""
    return "I am a small model and I like turtles."


def persona(name="Isabella Rodriguez", wake=6) -> Persona:
    return Persona(
        name=name, age=34, traits="warm, sociable",
        description=(f"{name} runs Hobbs Cafe; she lives in her apartment; she is a friend of Maria Lopez; "
                     "she loves gatherings"),
        home=f"the Ville:{name}'s apartment:main room",
        workplace="the Ville:Hobbs Cafe:cafe", wake_hour=wake,
        places=[f"the Ville:{name}'s apartment:bathroom", "the Ville:Johnson Park:park"],
    )


def make_mind(responder=plausible, settings=None, who=None):
    gw = make_gateway(responder, via_litellm=False)
    return Mind(who or persona(), gw, HashEmbedder(64), settings), gw


def event(subject, obj, address="the Ville:Hobbs Cafe:cafe", predicate="is") -> Event:
    return Event(subject, predicate, obj, f"{subject} {predicate} {obj}", address)


def situation(now: datetime, action=None, events=(), can_talk_to=(), done=False,
              address="the Ville:Hobbs Cafe:cafe") -> Situation:
    return Situation(now=now, address=address, action=action, events=list(events),
                     can_talk_to=list(can_talk_to), action_done=done)


def first_line(purpose: str, messages: list, schema) -> dict:
    """A grounded chooser that takes the first line listed (plausible answers otherwise)."""
    if purpose == "choose_line":
        return {"reply": next(ln.split(". ", 1)[1] for ln in messages[-1]["content"].splitlines() if ln[:1].isdigit())}
    return plausible(purpose, messages, schema)


def grounded_mind(name: str, now: datetime, thoughts: tuple[str, ...] = ()) -> Mind:
    """A grounded mind whose chooser takes the first line, its thoughts given, at ``now``."""
    from agents.residents.mind_settings import MindSettings
    m = Mind(persona(name), make_gateway(first_line, timeout=30.0, deadline=60.0), HashEmbedder(64),
             MindSettings(grounded=True))
    for t in thoughts:
        m.queue_thought(t, 8)
    m.start_turn(now)
    return m


def talk(a: Mind, b: Mind, now: datetime, limit: int = 8) -> Conversation:
    """A conversation of the two at Hobbs Cafe, line by line, until one ends it (or ``limit`` lines)."""
    c = Conversation((a.name, b.name), "the Ville:Hobbs Cafe:cafe", now)
    for turn in range(limit):
        u = (a, b)[turn % 2].utter(c, now, "chatting")
        c.lines.append(u)
        if u.ends:
            break
    return c
