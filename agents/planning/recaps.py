"""How a gathering went, remembered when it is over (issue 45: time passes in memory).

When a gathering in today's plan ends (one the resident hosted or went to: "hosting
the Valentine's Day party at Hobbs Cafe", "attending the photo walk at Johnson Park")
and the resident was there, it keeps a thought of who came, from what it saw there:

    "I hosted the Valentine's Day party at Hobbs Cafe on February 14; Klaus Mueller
    and Maria Lopez came."

The thought is in the past tense and names no hour, so it is never read as an event
to come (agents/words/dated.py); dialogue tells it as "... yesterday" the day after
(``dated.past_days``). A rule writes it from what the resident saw: no model call.

Its guests: who said they would come is in the host's memories of a yes to its invitation
("Alex said they would come to the Valentine's Day party at Hobbs Cafe on February 14,
from 5 pm to 7 pm": agents/talk/converse.py ``remember_guests``, the visitor's yes).
While the gathering goes on, the host greets such a guest there by name, naming it
(``welcome``: the game asks when the visitor is near); when it is over, one who did not
come is remembered ("Alex said they would come to the Valentine's Day party at Hobbs Cafe
on February 14, but never came."), so the host can say so later.
"""
from __future__ import annotations

import re
import zlib
from datetime import datetime
from typing import Any, Protocol

from agents.explain import provenance as pv
from agents.planning.arrangements import keywords_overlap
from agents.planning.plan import PlanItem, item_at
from agents.planning.today import Today
from agents.recall.memory import MemoryNode, MemoryStream
from agents.support.types import Utterance
from agents.words import dated as dt

RECAP = pv.tag(pv.RULE, pv.RECAP)
IMPORTANCE = 6  # the rule's, until the model rates it with the next observations
MAX_NAMED = 5  # "A, B, C, D and E came": a longer list is no sentence one says
_GATHERING = re.compile(r"^(hosting|attending) the (.+?)(?: at (.+))?$")
_LOGGED = re.compile(r"^(\d\d):(\d\d) (.*)$")
AGREED_TO_COME = "said they would come"  # the predicate of a guest's yes, remembered by its host
WELCOME = "a guest who said they would come is here"  # the host's greeting's provenance
MISSED = f"{pv.RECAP}: a guest who said they would come did not"
MISSED_IMPORTANCE = 5


class Recalling(Protocol):
    name: str
    today: Today

    @property
    def now(self) -> datetime:
        ...

    @property
    def memory(self) -> MemoryStream:
        ...

    def remember(self, kind: str, text: str, importance: int, **fields: Any) -> MemoryNode | None:
        ...


def gathering(item: PlanItem) -> tuple[bool, str, str] | None:
    """(hosting, what, where) of a plan item that is a gathering ("hosting the Valentine's Day
    party at Hobbs Cafe"), or None for anything else (a meal, work, a walk)."""
    m = _GATHERING.match(item.description)
    if m is None or not dt.names_event(m.group(2)):
        return None  # not a named event: "attending the lecture" is a class, not a gathering
    # the place its words name, else the item's own ("hosting the Valentine's Day party" at Hobbs Cafe:
    # the chooser's words had lost the place, and the party had no recap)
    where = m.group(3) or (item.address.split(":")[1] if item.address.count(":") >= 1 else "")
    return m.group(1) == "hosting", m.group(2), re.sub(r"\s*\(.*\)$", "", where)


def was_there(today: Today, item: PlanItem, what: str, where: str = "") -> bool:
    """Whether the resident's actions during the item were the gathering itself (it may have
    been held up elsewhere, or changed its plan): named so, or at its place (a party broken
    into steps is "greeting the guests at the door (Hobbs Cafe:cafe)")."""
    for line in today.log:
        m = _LOGGED.match(line)
        if m is None:
            continue
        t = item.start.replace(hour=int(m.group(1)), minute=int(m.group(2)))
        doing = m.group(3).lower()
        at = doing.rsplit("(", 1)[-1] if doing.endswith(")") else ""
        if item.start <= t < item.end and (what.lower() in doing or (where and where.lower() in at)):
            return True
    return False


def who_came(memory: MemoryStream, me: str, item: PlanItem) -> list[str]:
    """The people the resident saw while the gathering went on, first seen first."""
    out: list[str] = []
    for x in memory.by_kind("observation"):
        if (item.start <= x.created <= item.end and x.subject and ":" not in x.subject
                and x.subject != me and x.subject not in out):
            out.append(x.subject)
    return out


def agreed(memory: MemoryStream, item: PlanItem) -> list[str]:
    """Who said they would come to the plan item's gathering: the host's memories of a yes to
    its invitation (converse.remember_guests), read as of when they were made."""
    out: list[str] = []
    for x in memory.by_kind("chat"):
        if x.predicate != AGREED_TO_COME or not x.subject or x.subject in out:
            continue
        ev = dt.parse(x.description, x.created)
        if ev is not None and item.start <= ev.starts() < item.end and keywords_overlap(ev.what, item.description):
            out.append(x.subject)
    return out


def came(memory: MemoryStream, me: str, item: PlanItem) -> list[str]:
    """Who was there: seen while the gathering went on (``who_came``), or talked with then."""
    out = who_came(memory, me, item)
    for x in memory.by_kind("chat"):
        if item.start <= x.created <= item.end:
            for who in (x.subject, x.object):
                if who and who != me and ":" not in who and who not in out:
                    out.append(who)
    return out


def welcome(m: Recalling, guest: str, now: datetime) -> Utterance | None:
    """The host's greeting to ``guest``, who said they would come to the gathering it hosts now
    and is here: by name, naming the gathering ("Alex, you came! Welcome to the Valentine's Day
    party."); None when it hosts nothing now or ``guest`` did not agree to come. Reads only."""
    item = item_at(m.today.plan, now)
    found = gathering(item) if item is not None else None
    if item is None or found is None or not found[0] or guest not in agreed(m.memory, item):
        return None
    what = found[1]
    first = guest.split()[0]
    lines = (f"{first}, you came! Welcome to the {what}.",
             f"{first}, welcome to the {what}! I'm so glad you could make it.",
             f"There you are, {first}! Welcome to the {what}.")
    text = lines[zlib.crc32(f"{m.name}|{guest}|{what}".encode()) % len(lines)]
    return Utterance(m.name, text, True, pv.tag(pv.RULE, f"{WELCOME}; act tell"), "tell")


def words(hosting: bool, what: str, where: str, day_said: str, people: list[str]) -> str:
    """The thought, in the past tense and without an hour."""
    named = people[:MAX_NAMED]
    listed = ", ".join(named[:-1]) + f" and {named[-1]}" if len(named) > 1 else "".join(named)
    if hosting:
        return (f"I hosted the {what} at {where} {day_said}; {listed} came." if named
                else f"I hosted the {what} at {where} {day_said}, but nobody came.")
    return (f"I went to the {what} at {where} {day_said}; {listed} {'was' if len(named) == 1 else 'were'} there."
            if named else f"I went to the {what} at {where} {day_said}, but it was quiet.")


def remember_how_it_went(m: Recalling) -> list[str]:
    """A thought for each gathering of today's plan that is over, once; the thoughts made."""
    made = []
    for item in m.today.plan:
        found = gathering(item)
        key = f"{item.start:%Y-%m-%d %H:%M}|{item.description}"
        if found is None or item.end > m.now or key in m.today.recapped:
            continue
        m.today.recapped.append(key)
        hosting, what, where = found
        if not was_there(m.today, item, what, where):
            continue
        day_said = f"on {dt.MONTHS[item.start.month - 1]} {item.start.day}"
        text = words(hosting, what, where, day_said, who_came(m.memory, m.name, item))
        m.remember("thought", text, IMPORTANCE, subject=m.name, source=RECAP, rate=True,
                   importance_source=pv.UNRATED)
        made.append(text)
        there = came(m.memory, m.name, item) if hosting else []
        for guest in agreed(m.memory, item) if hosting else []:
            if guest in there:
                continue
            # "never came": in the past tense, so it is no dated thing to come the day after (dated.ended)
            text = f"{guest} said they would come to the {what} at {where} {day_said}, but never came."
            m.remember("thought", text, MISSED_IMPORTANCE, subject=guest, predicate="did not come", object=what,
                       source=pv.tag(pv.RULE, MISSED), rate=True,
                       importance_source=pv.UNRATED)
            made.append(text)
    return made


__all__ = ["RECAP", "agreed", "came", "gathering", "remember_how_it_went", "welcome", "who_came", "words"]
