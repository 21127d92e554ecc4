"""Stories the residents start themselves (issue 45): a gathering of one's own.

The scenario seeds the first stories (Isabella's party, Sam's candidacy); the town
must start the rest. On some mornings a resident may decide to host something the
next day (a day to invite people: the paper's party was decided the day before), drawn from
who it is and what it remembers:

- its work and interests ("a photographer" -> a photo walk in Johnson Park; "studies
  physics" -> a study group at Oak Hill College; "a poet" -> a poetry reading);
- its own aims ("I have decided to run for mayor" -> a campaign rally);
- what anyone can host (a game night at The Rose and Crown Pub).

Rules derive the candidates, each with a place the resident knows, an hour clear of its
own engagements, and words the town's reader of dated events reads back
(agents/words/dated.py); the model chooses one, or none, as it chooses reflections. The
choice becomes the resident's dated intention, a thought in the same words as the
scenario's seed ("I want to host a photo walk at Johnson Park on February 15, from 4 pm
to 6 pm, and to invite my friends"), so everything the party has follows: the day plan
holds the hosting and the inviting (agents/planning/agenda.py), dialogue tells and
invites, the listeners plan to come, and afterwards those who came remember it
(agents/planning/recaps.py).

Who considers it on a day is decided by the name and the day alone (about one resident in
``SHARE``; one with a campaign of its own every other day), so a mind's choice never hangs
on another's order; and nothing for a day it already knows of a gathering on (the seeded
party's day stays the party's).
"""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, Protocol

from agents.explain import provenance as pv
from agents.planning import agenda
from agents.planning.plan import Planner
from agents.planning.today import Today
from agents.recall import grounding as gr
from agents.recall.memory import MemoryNode, MemoryStream
from agents.words import dated as dt

SHARE = 4  # about one resident in four considers hosting something on a given day
IMPORTANCE = 7  # an intention of one's own (the party's seed is 8)
MAX_OPTIONS = 3  # a small choice: the 135M model picks well among few

# (what in its description or its own thoughts suggests it, the gathering, where, from, to)
IDEAS: tuple[tuple[str, str, str, int, int], ...] = (
    (r"\b(mayor|election|campaign)\b", "campaign rally", "Johnson Park", 16, 17),
    (r"\bphotograph", "photo walk", "Johnson Park", 15, 17),
    (r"\b(paints?|painter|watercolou?rs?|artist|draws?|animat\w*)\b", "sketching session", "Johnson Park", 14, 16),
    (r"\b(poet|poems?)\b", "poetry reading", "Hobbs Cafe", 18, 20),
    (r"\b(writer|writes books|novel|literature|author)\b", "book reading", "Hobbs Cafe", 16, 18),
    (r"\b(music|composing|compose|guitar|piano)\b", "jam session", "The Rose and Crown Pub", 19, 21),
    (r"\b(comedian|comedy|actor)\b", "comedy night", "The Rose and Crown Pub", 19, 21),
    (r"\b(studies|student|studying)\b", "study group", "Oak Hill College", 15, 17),
    (r"\b(philosoph\w*|professor|research\w*|mathematician)\b", "discussion evening", "Hobbs Cafe", 18, 20),
    (r"\b(pub|bar|gatherings|sociable|neighbours)\b", "game night", "The Rose and Crown Pub", 19, 21),
)
ANYONE = ("game night", "The Rose and Crown Pub", 19, 21)


@dataclass(frozen=True)
class Idea:
    """A gathering the resident could host today, with the intention that would say so."""

    what: str
    place: str
    day: date
    start: int  # hour
    end: int

    def intention(self) -> str:
        """Its words as the resident's own dated intention (the scenario's form)."""
        ev = dt.DatedEvent(self.what, self.place, self.day, self.start * 60, self.end * 60)
        return f"I want to host {ev.words()}, and to invite my friends"

    def option(self) -> str:
        return f"host {dt.DatedEvent(self.what, self.place, self.day, self.start * 60, self.end * 60).words()}"


class Storyteller(Planner, Protocol):
    """What starting a story needs of a mind (besides planning's needs)."""

    today: Today

    @property
    def memory(self) -> MemoryStream:
        ...

    def remember(self, kind: str, text: str, importance: int, **fields: Any) -> MemoryNode | None:
        ...


def considers(name: str, day: date, driven: bool = False) -> bool:
    """Whether the resident thinks of hosting something on ``day``: by its name and the day;
    one ``driven`` by an aim of its own (Sam's campaign) every other day."""
    return zlib.crc32(f"{name}|{day.isoformat()}".encode()) % (2 if driven else SHARE) == 0


def aims(m: Storyteller) -> str:
    """Its own given aims and intentions (the scenario's seeds: "I have decided to run for mayor")."""
    return " ".join(x.description for x in m.memory.by_kind("thought")
                    if x.subject in (None, m.name) and pv.kind_of(x.source) == pv.RULE)


def ideas(m: Storyteller, wake: datetime) -> list[Idea]:
    """What the resident could host tomorrow: from its description and its own thoughts, at a
    place it knows, clear of its engagements that day; each read back as its own intention by
    the agenda (so that day's plan will hold it, and today's afternoon the inviting)."""
    about = f"{m.persona.description}; {m.persona.traits}; {aims(m)}"
    day = wake.date() + timedelta(days=1)
    busy = agenda.engagements(m.memory.nodes, m.today.arrangements, m.persona, m.spatial, day)
    out: list[Idea] = []
    for pattern, what, place, start, end in (*IDEAS, (r"", *ANYONE)):
        if not re.search(pattern, about, re.I) or any(i.what == what for i in out):
            continue
        idea = Idea(what, place, day, start, end)
        begins = datetime.combine(day, datetime.min.time()) + timedelta(hours=start)
        ends = begins + timedelta(hours=end - start)
        if any(e.start < ends and begins < e.end for e in busy):
            continue
        node = MemoryNode(-1, "thought", idea.intention(), wake, wake, IMPORTANCE, subject=m.name)
        e = agenda.engagement_of(node, m.persona, m.spatial)
        if e is not None and e.kind == agenda.INTENTION:
            out.append(idea)
    return out[:MAX_OPTIONS]


def knows_of_a_gathering(m: Storyteller, day: date) -> bool:
    """Whether the resident already hosts or knows of a gathering that day (the seeded party)."""
    return any(e.kind in (agenda.INTENTION, agenda.EVENT)
               for e in agenda.engagements(m.memory.nodes, [], m.persona, m.spatial, day))


def maybe_start(m: Storyteller, wake: datetime) -> str | None:
    """On a day it considers it, the model chooses one gathering to host tomorrow (or none); the
    choice is kept as the resident's intention. Its words, or None."""
    driven = bool(re.search(IDEAS[0][0], aims(m), re.I))  # an aim to campaign for
    tomorrow = wake.date() + timedelta(days=1)
    if not considers(m.name, wake.date(), driven) or knows_of_a_gathering(m, tomorrow):
        return None
    found = ideas(m, wake)
    if not found:
        return None
    schema = gr.choice_schema(len(found))
    memories = "\n".join(f"- {x.description}" for x in m.retrieve(f"{m.name}'s interests, friends and plans", k=4)
                         if gr.offered(x, wake)) or "- (nothing)"
    got, why = m.ask(schema, "story_choose", "story_choose", schema(fact=gr.NONE), date=f"{wake:%A %B %d}",
                     tomorrow=f"{tomorrow:%A %B %d}",
                     memories=memories, options="\n".join(f"{i}. {x.option()}" for i, x in enumerate(found, 1)))
    if why is not None:
        m.note_fallback("story", why)
        return None
    choice = str(got.fact)
    if not choice.isdigit() or not 1 <= int(choice) <= len(found):
        return None  # the model chose to host nothing today
    text = found[int(choice) - 1].intention()
    m.remember("thought", text, IMPORTANCE, subject=m.name, rate=True,
               source=pv.tag(pv.REPAIRED, f"{gr.GROUNDED}: chosen from {len(found)} gatherings it could host"),
               importance_source=pv.UNRATED)
    return text


__all__ = ["IDEAS", "SHARE", "Idea", "considers", "ideas", "maybe_start"]
