"""The memory tasks: importance ratings, the summary description, and
reflection (salient questions, then insights that cite their evidence)."""
from __future__ import annotations

import re

from lab.competent.happenings import (
    EVENT_WORDS,
    MONTHS,
    NEWS_WORDS,
    find_happenings,
    intentions,
    occupation,
    wants_to_go,
)
from lab.competent.prompt import Prompt, first_name


def rate(p: Prompt) -> dict:
    """Importance 1-10 of each numbered item, as the prompt's scale says."""
    out = []
    for item in p.numbered():
        t = item.lower()
        if re.search(r"burning|on fire|fire\b|flood|leak|accident|injur|died|break.?up|engaged|pregnant|crush|"
                     r"in love|accept", t) or (
                re.search(EVENT_WORDS, t) and re.search(r"invit|host|plan|going|come|will|agreed", t)):
            score = 8
        elif re.search(r"mayor|election|candida|campaign", t):
            score = 7
        elif re.search(r"conversed|told|said|talked|asked", t):
            score = 6 if re.search(EVENT_WORDS + "|" + NEWS_WORDS, t) else 4
        elif re.search(r"plan for|'s plan", t):
            score = 5 if re.search(EVENT_WORDS, t) else 3
        elif re.search(r"sleep|brush|shower|toilet|wash|idle|getting ready|dress", t):
            score = 1
        elif re.search(r"eat|breakfast|lunch|dinner|coffee|snack", t):
            score = 2
        elif re.search(r"is \w+ing", t):
            score = 3
        else:
            score = 3
        out.append(score)
    n = p.min_items("ratings") or len(out)
    out = (out + [3] * n)[:n]
    return {"ratings": out}


def summarise(p: Prompt) -> dict:
    first = p.find(r"what is (\w+) busy with") or p.find(r"in (\w+)'s day") or "They"
    mems = p.block(r"remembers:$") or p.block(r"did on")
    if "what happened in" in p.text:  # yesterday
        did = [re.sub(r"^\d{2}:\d{2}\s+", "", x).split(" (")[0] for x in p.block(r"did on")]
        did = list(dict.fromkeys(d for d in did if d and "sleep" not in d))[:3]
        chats = p.block(r"conversations that day")
        talk = ""
        if chats:
            who = [re.sub(r"^with ([^:]+):.*$", r"\1", c) for c in chats if c.startswith("with ")]
            topics = [c.split(":", 1)[1].strip() for c in chats if ":" in c][:1]
            talk = f" {first} talked with {', '.join(dict.fromkeys(who))}" + (f" ({topics[0]})" if topics else "") + "."
        arranged = [c.removeprefix("arranged: ") for c in chats if c.startswith("arranged:")]
        plans = f" {first} arranged {arranged[0]}." if arranged else ""
        return {"summary": f"{first} spent the day {', '.join(did) or 'as usual'}.{talk}{plans}"[:390]}
    events = [h for h in find_happenings(mems) if h.month_day or h.start is not None]
    work = occupation(mems + [p.text.splitlines()[0]])
    ahead = f" and is looking forward to the {events[0].what}{events[0].when()}" if events else ""
    plans = intentions(mems)
    decided = f"; {first} has decided on {plans[0]}" if plans else ""
    return {"summary": f"{first} is busy with what {first} does: {work}{ahead}{decided}."[:200]}


def questions(p: Prompt) -> dict:
    first = p.find(r"Recent memories of (\w+):") or p.find(r"questions we can answer about (\w+)")
    records = p.block(r"Recent memories of")
    names = {}
    for r in records:
        for n in re.findall(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b", r):
            if first_name(n) != first:
                names[n] = names.get(n, 0) + 1
    top = max(names, key=names.get) if names else None
    qs = [f"What is {first} looking forward to these days?",
          f"How does {first} feel about {top}?" if top else f"Who has {first} been spending time with?",
          f"What matters most to {first} in their work right now?"]
    return {"questions": qs}


WEEKDAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}


def insights(p: Prompt) -> dict:
    """Insights that answer the question, each citing the records it rests on."""
    records = p.numbered()
    first = p.find(r"Records of (\w+)")
    question = p.find(r"Question: (.+)")
    n = int(p.find(r"What up to (\d+) high-level", "3"))
    people: dict[str, list[int]] = {}
    for i, r in enumerate(records, 1):
        for name in re.findall(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b", r):
            a, b = name.split()
            if a != first and a not in WEEKDAYS and a not in MONTHS and b not in ("Cafe", "Park", "Day", "Pub"):
                people.setdefault(name, []).append(i)
    about_people = [{"insight": f"{first} has been spending time with {name} and values their company.",
                     "evidence": ids[:5], "importance": 5}
                    for name, ids in sorted(people.items(), key=lambda kv: -len(kv[1]))]
    asked = next((name for name in people if name in question or name.split()[0] in question), None)
    if asked:
        about_people.insert(0, {"insight": f"{first} feels close to {asked}, who often comes up in {first}'s days.",
                                "evidence": people[asked][:5], "importance": 6})
    ev = [(i, h) for i, r in enumerate(records, 1) for h in find_happenings([r])]
    about_events = [{"insight": (f"{first} is looking forward to the {h.what}{h.when()}."
                                 if wants_to_go(first, h, records) else f"{first} has heard about the {h.what}"
                                 f"{h.when()}."), "evidence": [i], "importance": 6} for i, h in ev[:1]]
    work = [i for i, r in enumerate(records, 1) if re.search(r"work|stud|class|cafe|counter|research|writ|paint|serv",
                                                             r)]
    about_work = [{"insight": f"{first} is dedicated to their work and keeps a steady routine.",
                   "evidence": work[:5], "importance": 4}] if work else []
    q = question.lower()
    if "forward" in q or "plan" in q:
        order = about_events + about_people + about_work
    elif "feel" in q or "who" in q or "spending time" in q:
        order = about_people + about_events + about_work
    else:
        order = about_work + about_events + about_people
    out = order[:max(1, min(n, 2))]
    if not out and records:
        out = [{"insight": f"{first}'s days have been quiet and ordinary.", "evidence": [1], "importance": 2}]
    return {"insights": out}
