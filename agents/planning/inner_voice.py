"""The inner voice (paper section 3.1.2): a directive the player gives a resident
("You are going to run for mayor") becomes the resident's own thought, and the
words of a plan item that makes time for it."""
from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

from agents.explain import provenance as pv
from agents.planning.items import PlanItem, cut_in, kind_of_words
from agents.planning.plan import Planner, place_from_text
from agents.planning.replan import replan_guided, replan_rest
from agents.planning.today import Today
from agents.residents.persona import Persona
from agents.words.text import clean_text

_STOPWORDS = frozenset(
    "a an and are as at be by for from has have he her his i in is it its of on or she that the their them they "
    "this to was were will with you your my me am going want need about into some today tonight tomorrow".split())
_LEADS = re.compile(r"^(?:i am|i'm|i will|i'll|i shall|i must|i should|i need to|i want to|i have to|i plan to|"
                    r"i have decided to|i've decided to|i decide to|i|to)\s+(?:going to\s+|gonna\s+|to\s+)?", re.I)
_DOUBLE = {"run", "plan", "stop", "sit", "get", "shop", "put", "set", "swim", "win", "begin", "chat", "jog", "hug",
           "cut", "hit", "let", "dig", "drop", "skip", "clap", "spin", "grab", "map", "admit", "forget", "prefer"}


def first_person(text: str) -> str:
    """The inner voice in the resident's own words: "You are going to run ..." -> "I am going to run ..."."""
    t = " ".join(str(text or "").split()).strip().rstrip(".!")
    if not t:
        return ""
    subs = [(r"^you are\b", "I am"), (r"^you're\b", "I'm"), (r"^you will\b", "I will"), (r"^you'll\b", "I'll"),
            (r"^you\b", "I"), (r"\byourself\b", "myself"), (r"\byours\b", "mine"), (r"\byour\b", "my"),
            (r"\byou are\b", "I am"), (r"\byou\b", "me")]
    for rx, rep in subs:
        t = re.sub(rx, rep, t, flags=re.I)
    if not re.match(r"^(i|i'm|i'll|i've|my)\b", t, re.I):
        t = "I am going to " + t[0].lower() + t[1:]  # an order ("Run for mayor") becomes an intention
    return t[0].upper() + t[1:]


def _gerund(verb: str) -> str:
    v = verb.lower()
    if v.endswith("ing") and len(v) > 4:
        return v
    if v in ("be",):
        return "being"
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v in _DOUBLE:
        return v + v[-1] + "ing"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")):
        return v[:-1] + "ing"
    return v + "ing"


def directive_activity(thought: str, first_name: str = "") -> str:
    """A plan item's words for a directive: "I am going to run against Sam in the election"
    -> "running against Sam in the election"."""
    t = _LEADS.sub("", thought.strip().rstrip(".!"), count=1).strip()
    if not t:
        return clean_text(thought, 80)
    words = t.split()
    if words[0].lower() in ("a", "an", "the", "my") or words[0][:1].isupper():  # "I am a candidate ..."
        words = ["working", "on", "being"] + words if words[0].lower() in ("a", "an") else ["thinking", "about"] + words
    else:
        words[0] = _gerund(words[0])
    own = f"{first_name}'s" if first_name else "their"
    out = " ".join(own if w.lower() == "my" else (first_name or "them") if w.lower() == "me" else
                   "themselves" if w.lower() == "myself" else w for w in words)
    return clean_text(out, 80)


def keywords(text: str) -> set[str]:
    return {w.rstrip("s") for w in re.findall(r"[a-z0-9']+", text.lower()) if len(w) > 2 and w not in _STOPWORDS}


def mentions(plan: list[PlanItem], thought: str, after: datetime | None = None) -> PlanItem | None:
    """The first plan item (from `after` on) whose words share a key word of the thought."""
    # The words after the verb: "running" alone would match "running the cafe".
    act = directive_activity(thought).split()
    keys = keywords(" ".join(act[1:])) or keywords(" ".join(act))
    keys -= {"working", "thinking", "being", "plan", "planning", "on", "about"}
    for it in plan:
        if after is not None and it.end <= after:
            continue
        if keys & keywords(it.description):
            return it
    return None


def free_slot(plan: list[PlanItem], now: datetime) -> PlanItem | None:
    """The first awake, non-meal plan item that has time left from `now` on."""
    for it in plan:
        if it.end <= now + timedelta(minutes=10) or it.sleep or it.meal:
            continue
        return it
    return None


def insert_directive(plan: list[PlanItem], now: datetime, text: str, address: str, source: str,
                     minutes: int = 60) -> list[PlanItem]:
    """The directed activity into the next free slot (what it overlaps is cut)."""
    slot = free_slot(plan, now)
    if slot is None:
        return plan
    start = max(now, slot.start)
    minutes = max(10, min(minutes, int((slot.end - start).total_seconds() // 60)))
    return cut_in(plan, PlanItem(start, minutes, text, address, source, kind_of_words(text)))  # the voice's words


def directive_line(persona: Persona, thoughts: Sequence[str]) -> str:
    if not thoughts:
        return ""
    said = "; ".join(f'"{t}"' for t in thoughts)
    return (f"Something special today: {persona.first_name} has decided {said}. "
            f"{persona.first_name}'s plan must make time for it.\n")


class Directed(Planner, Protocol):
    """What following the inner voice needs of a mind (besides planning)."""

    today: Today

    def arena_here(self, address: str | None) -> str:
        ...


def follow_directives(m: Directed, directives: list[str], address: str | None, replan: bool) -> None:
    """Make room in today's plan for each directive: the model rewrites the rest of
    the day with the directives in the prompt (``replan``); where its plan still
    does not mention one, a rule puts it in the next free slot (and says so)."""
    now, today, first = m.now, m.today, m.persona.first_name
    if replan:
        if m.guided:
            today.plan = replan_guided(m, now, directive_line(m.persona, directives))
        else:
            said = "; ".join(f'"{d}"' for d in directives)
            today.plan = replan_rest(m, now, f"{first} has decided: {said}.")
    for d in directives:
        if mentions(today.plan, d, after=now) is not None:
            continue
        text = directive_activity(d, first)
        slot = free_slot(today.plan, now)
        where = place_from_text(text, m.spatial, m.persona) or (
            slot.address if slot is not None else m.arena_here(address))
        today.plan = insert_directive(today.plan, now, text, where, pv.tag(pv.RULE, "the inner voice"))
    today.pending = []  # the chunk at hand is decomposed afresh
