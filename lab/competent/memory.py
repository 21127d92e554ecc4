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
from lab.competent.prompt import Prompt, clip_words, first_name, gerund_phrase


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
    text = f"{first} {work}{ahead}{decided}"
    more = pursuit(first, mems, work)
    if more and len(text) + len(more) + 2 <= 200:  # what else fills these days, as the memories say
        text += f"; {more}"
    return {"summary": f"{text}."[:200]}


# What one is at besides one's work: a project first, then a pastime
_PROJECT = r"\b(is writing|is working on|is preparing|is training|is learning|is planning|is saving|is building)\b"
_PASTIME = r"\b(streams|paints|writes|plays|loves|enjoys|likes|reads|practises|composes|cares)\b"


def _own(first: str, line: str) -> str:
    """A record about oneself with one's first name as its subject ("he is writing" -> "Bo is writing")."""
    return re.sub(rf"^(she|he|{re.escape(first)}(?: [A-Z][a-z]+)?)\b", first, line.strip().rstrip("."))


def _same(first: str, record: str, said: str) -> bool:
    return _own(first, record).startswith(said.removesuffix("..."))


def _gerund(first: str, said: str) -> str:
    """"Bo is writing a paper" -> "writing a paper"; "Ann streams games" -> "streaming games";
    "Ann likes to make ..." -> "making ..."."""
    rest = re.sub(rf"^{re.escape(first)} (is )?", "", said)
    if re.match(r"cares (a lot )?about ", rest):
        return re.sub(r"^cares (a lot )?about ", "", rest)
    rest = re.sub(r"^(loves|likes|enjoys)\s+(to\s+)?", "", rest)
    verb, _, tail = rest.partition(" ")
    if verb.endswith("s") and not verb.endswith("ss"):
        verb = verb[:-3] + "y" if verb.endswith("ies") else verb[:-1]
    return gerund_phrase(f"{verb} {tail}".strip()) if not verb.endswith("ing") else rest


def pursuit(first: str, mems: list[str], work: str) -> str:
    """The resident's own project or pastime among its memories, in the third person
    ("Bo is writing a research paper on ..."), or ""."""
    mine = []
    for m in mems:
        if not re.match(r"(she|he)\b", m.strip()):  # the description's phrases; "X Y is cooking" is only seen
            continue
        t = _own(first, m)
        if t.startswith(f"{first} ") and work not in t and not re.search(r"\blives?\b|'s plan for", t):
            mine.append(t)
    found = next((t for t in mine if re.search(_PROJECT, t)), None) or next(
        (t for t in mine if re.search(_PASTIME, t)), None)
    return clip_words(found, 14) if found else ""


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


# The last word of a place's name, not a person's ("Elm Hill", "Town Cafe")
PLACE_WORDS = {"Cafe", "Park", "Day", "Pub", "Hill", "College", "Market", "Store", "Street", "Pharmacy", "Supply"}
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
            if a != first and a not in WEEKDAYS and a not in MONTHS and a != "The" and b not in PLACE_WORDS:
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
    about_work = [{"insight": f"{first} is dedicated to {first}'s work and keeps a steady routine.",
                   "evidence": work[:5], "importance": 4}] if work else []
    passion = pursuit(first, records, occupation(records))
    if passion:  # what the records say one gives oneself to, named: a capable model's insight is specific
        about_work.insert(0, {"insight": f"{first} is passionate about {_gerund(first, passion)}.",
                              "evidence": [next(i for i, r in enumerate(records, 1) if _same(first, r, passion))],
                              "importance": 5})
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
