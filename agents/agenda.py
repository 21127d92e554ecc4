"""A resident's agenda: the dated engagements its memories hold, so that its day
is its own and not only its routine (issue 33).

Three kinds, each with a time and a place checked against what the resident knows:

- **intention**: its own dated plan ("I want to host a Valentine's Day party at
  Hobbs Cafe on February 14, from 5 pm to 7 pm"): *hosting the Valentine's Day
  party at Hobbs Cafe*, 17:00-19:00; and, when it means to invite people, *inviting
  friends and customers to the Valentine's Day party* before it;
- **event**: one it has heard of ("Isabella Rodriguez told Maria: ... party at Hobbs
  Cafe on February 14 from 5 pm to 7 pm"): *attending the Valentine's Day party at
  Hobbs Cafe*;
- **arrangement**: a plan made in conversation (agents/arrangements.py).

The guided planner offers each as a choice in the slot at its time (agents/plan.py
chosen_day_plan); the model chooses whether to go, and the provenance of a chosen
engagement names the memory it came from (``memory #N``). Parsing is by rule, from
the memory's words: a date, a time, a known place and an event word must all be
there, or the memory holds no engagement.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from agents import activity
from agents.memory import MemoryNode
from agents.persona import Persona
from agents.spatial import SpatialMemory

if TYPE_CHECKING:  # agents.arrangements imports the planner, which imports this module
    from agents.arrangements import Arrangement

INTENTION, EVENT, ARRANGEMENT = "intention", "event", "arrangement"
# Memories that can hold an engagement: what one thinks, was told or concluded (a plan
# memory is a whole day's timetable; an observation is what someone else does now).
AGENDA_KINDS = ("thought", "chat", "reflection")
EVENT_WORDS = (r"party|parties|gathering|get-together|celebration|festival|fair|concert|recital|reading|"
               r"open mic|game night|tournament|fundraiser|rally|debate|town hall|lecture|workshop|exhibition|"
               r"screening|picnic|potluck|barbecue|wedding|birthday|meeting|meetup")
_EVENT = re.compile(rf"\b(?:an?|the|my|our|his|her|their)\s+((?:[\w'’-]+\s+){{0,4}}?(?:{EVENT_WORDS}))\b", re.I)
_MEET = re.compile(r"\bmeet(?:ing)?\s+(?:up\s+)?(?:with\s+)?([A-Z][a-z]+)\b")
# "host a", "throwing the", "planning my": the resident's own event (not "I plan to go to the party").
_HOST = re.compile(r"\b(host|hosting|throw|throwing|organi[sz]e|organi[sz]ing|hold|holding|give|giving|planning)"
                   r"\s+(?:an?|the|my|our)\b", re.I)
_TOLD = re.compile(r"\b(told|said|says|invited|heard|mentioned)\b", re.I)
_INVITE = re.compile(r"\binvit\w*\b", re.I)
_PEOPLE = re.compile(r"\binvite\s+(?:as many\s+)?([a-z ,]*?(?:friends|customers|neighbou?rs|everyone|people)"
                     r"(?:\s+and\s+(?:friends|customers|neighbou?rs))?)", re.I)
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_MD = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b", re.I)
_DATE_DM = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b", re.I)
HOLIDAYS = {"valentine": (2, 14), "christmas eve": (12, 24), "christmas": (12, 25), "new year's eve": (12, 31),
            "halloween": (10, 31)}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_AMPM = r"(am|pm|a\.m\.|p\.m\.|o'clock)"
_RANGE_12 = re.compile(rf"\b(\d{{1,2}})(?::(\d\d))?\s*{_AMPM}?\s*(?:to|-|–|until|till)\s*"
                       rf"(\d{{1,2}})(?::(\d\d))?\s*{_AMPM}", re.I)
_RANGE_24 = re.compile(r"\b(\d{1,2}):(\d\d)\s*(?:to|-|–|until|till)\s*(\d{1,2}):(\d\d)\b")
_AT = re.compile(rf"\b(?:at|from|starting at)\s+(\d{{1,2}})(?::(\d\d))?\s*{_AMPM}", re.I)
_AT_24 = re.compile(r"\b(?:at|from)\s+(\d{1,2}):(\d\d)\b")
EVENT_MINUTES = 120  # an event whose end nobody said: a party's length
MEET_MINUTES = 60


@dataclass(frozen=True)
class Engagement:
    """Something dated the resident means to do, or could go to."""

    start: datetime
    minutes: int
    description: str  # the activity, as a plan item words it
    address: str  # an arena the resident knows
    kind: str  # INTENTION, EVENT or ARRANGEMENT
    memory_id: int | None = None  # the memory it came from
    memory: str = ""  # its words (for the provenance)
    invites: str = ""  # an intention to invite: whom ("friends and customers"), "" for none
    event: str = ""  # the event's name ("Valentine's Day party")

    @property
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.minutes)

    @property
    def key(self) -> str:
        """The same engagement whoever told of it: its start and place."""
        return f"{self.start:%Y-%m-%d %H:%M}|{self.address}"

    def origin(self) -> str:
        """Where the choice came from, for its provenance: ``memory #N (...)`` or the arrangement."""
        if self.memory_id is not None:
            return f"memory #{self.memory_id} ({self.memory[:70]})"
        return f"an arrangement {self.memory}" if self.memory else "an arrangement"

    def covered_by(self, words: str) -> bool:
        """Whether a plan item's words already hold this engagement (its event by name)."""
        w = words.lower()
        return w == self.description.lower() or (bool(self.event) and self.event.lower() in w)

    def invitation(self) -> str:
        """What it does before the event when it means to invite people."""
        return f"inviting {self.invites} to the {self.event}" if self.invites and self.event else ""


# ------------------------------------------------------------------------------ parsing
def _hour(h: str, m: str | None, ampm: str | None) -> tuple[int, int] | None:
    hh, mm = int(h), int(m or 0)
    a = (ampm or "").lower().replace(".", "")
    if a == "pm" and hh < 12:
        hh += 12
    elif a == "am" and hh == 12:
        hh = 0
    elif a == "o'clock" and hh < 8:
        hh += 12  # "at 5 o'clock" is an afternoon's
    return (hh, mm) if 0 <= hh <= 23 and 0 <= mm <= 59 else None


def parse_time(text: str) -> tuple[tuple[int, int], int | None] | None:
    """((hour, minute), minutes or None) of the first time the text names: "from 5 pm to
    7 pm" -> ((17, 0), 120); "at 3 pm" -> ((15, 0), None); "17:00-19:00" too."""
    m = _RANGE_24.search(text)
    if m:
        a, b = _hour(m.group(1), m.group(2), None), _hour(m.group(3), m.group(4), None)
    else:
        m = _RANGE_12.search(text)
        if m:
            second = m.group(6)
            a = _hour(m.group(1), m.group(2), m.group(3) or second)
            b = _hour(m.group(4), m.group(5), second)
        else:
            a = b = None
    if a is not None and b is not None:
        minutes = (b[0] - a[0]) * 60 + b[1] - a[1]
        return (a, minutes) if 0 < minutes <= 6 * 60 else (a, None)
    m = _AT.search(text)
    if m:
        a = _hour(m.group(1), m.group(2), m.group(3))
        return (a, None) if a else None
    m = _AT_24.search(text)
    if m:
        a = _hour(m.group(1), m.group(2), None)
        return (a, None) if a else None
    return None


def _month(word: str) -> int | None:
    w = word.lower().rstrip(".")[:3]
    return next((i + 1 for i, name in enumerate(MONTHS) if name.startswith(w)), None)


def parse_date(text: str, said: datetime) -> date | None:
    """The day the text names, relative to when it was ``said``: "February 14", "14th of
    February", "Valentine's Day", "on Tuesday" (the next one), "today", "tonight", "tomorrow"."""
    t = text.lower()
    for rx, order in ((_DATE_MD, (1, 2)), (_DATE_DM, (2, 1))):
        m = rx.search(text)
        if m:
            month, day = _month(m.group(order[0])), int(m.group(order[1]))
            if month:
                try:
                    return date(said.year, month, day)
                except ValueError:
                    return None
    for word, (month, day) in HOLIDAYS.items():
        if word in t:
            return date(said.year, month, day)
    if re.search(r"\b(today|tonight|this (morning|afternoon|evening))\b", t):
        return said.date()
    if re.search(r"\btomorrow\b", t):
        return said.date() + timedelta(days=1)
    for i, name in enumerate(WEEKDAYS):
        if re.search(rf"\b(on|this|next) {name}\b", t):
            ahead = (i - said.weekday()) % 7
            return said.date() + timedelta(days=ahead)
    return None


def event_name(text: str) -> str | None:
    """ "a Valentine's Day party at Hobbs Cafe" -> "Valentine's Day party"; "meet Maria" -> "meeting with Maria"."""
    m = _EVENT.search(text)
    if m:
        return " ".join(m.group(1).split())
    m = _MEET.search(text)
    return f"meeting with {m.group(1)}" if m else None


def _clause_about(text: str) -> str:
    """The clause that tells of the event: what someone said ("X told Maria: '...'") or the thought."""
    quoted = re.search(r"[\"“](.+)[\"”]", text)
    return quoted.group(1) if quoted else text


def engagement_of(node: MemoryNode, persona: Persona, spatial: SpatialMemory) -> Engagement | None:
    """The engagement a memory holds, or None: it needs a date, a time, an event and a
    place the resident knows where the event can happen."""
    if node.kind not in AGENDA_KINDS:
        return None
    text = " ".join(str(node.description or "").split())
    clause = _clause_about(text)
    event = event_name(clause)
    when = parse_time(clause)
    day = parse_date(clause, node.created)
    if not event or when is None or day is None:
        return None
    place = activity_place(clause, spatial, persona)
    if place is None:
        return None
    (hh, mm), minutes = when
    start = datetime(day.year, day.month, day.day, hh, mm)
    own = node.kind == "thought" and node.subject in (None, persona.name) and not _TOLD.search(text)
    hosting = own and bool(_HOST.search(clause))
    sector = place.split(":")[1]
    if event.startswith("meeting with"):
        words, default = f"{event}", MEET_MINUTES
    elif hosting:
        words, default = f"hosting the {event} at {sector}", EVENT_MINUTES
    else:
        words, default = f"attending the {event} at {sector}", EVENT_MINUTES
    words = activity.clean_activity(words, persona.name) or ""
    if not words or not activity.fits_place(words, place):
        return None
    invites = ""
    if hosting and _INVITE.search(clause):  # whom, in a word: a plan item is a short phrase
        found = _PEOPLE.search(clause)
        who = found.group(0).lower() if found else "friends"
        invites = next((w for w in ("customers", "neighbours", "neighbors", "friends") if w in who), "people")
    return Engagement(start, minutes or default, words, place, INTENTION if own else EVENT, node.id, text,
                      invites, event if not event.startswith("meeting with") else "")


def activity_place(text: str, spatial: SpatialMemory, persona: Persona) -> str | None:
    """The known arena the text names by its place's name ("at Hobbs Cafe"); a bare kind of
    place ("the park") is too vague for an event."""
    t = text.lower()
    for a in spatial.arenas():
        sector = a.split(":")[1].lower()
        if len(sector) > 4 and sector in t:
            same = [x for x in spatial.arenas() if x.split(":")[1].lower() == sector]
            arena = next((x for x in same if x.split(":")[2].lower() in t), None)
            return arena or (persona.workplace if persona.workplace in same else same[0])
    return None


def from_arrangement(a: Arrangement) -> Engagement:
    return Engagement(a.start, a.minutes, a.description, a.address, ARRANGEMENT, None, a.made)


PRIORITY = {INTENTION: 0, ARRANGEMENT: 1, EVENT: 2}


def engagements(nodes: Iterable[MemoryNode], arrangements: Sequence[Arrangement], persona: Persona,
                spatial: SpatialMemory, day: date) -> list[Engagement]:
    """The resident's engagements on ``day``, by start; one per start and place (its own
    intention first, then an arrangement, then what it heard; the newest memory of each)."""
    found: dict[str, Engagement] = {}
    candidates = [from_arrangement(a) for a in arrangements if a.start.date() == day]
    for node in nodes:
        if node.kind in AGENDA_KINDS and re.search(r"\d", node.description or ""):
            e = engagement_of(node, persona, spatial)
            if e is not None and e.start.date() == day:
                candidates.append(e)
    for e in candidates:
        old = found.get(e.key)
        if old is None or (PRIORITY[e.kind], -(e.memory_id or 0)) < (PRIORITY[old.kind], -(old.memory_id or 0)):
            found[e.key] = e
    return sorted(found.values(), key=lambda e: (e.start, PRIORITY[e.kind]))


def invitations(nodes: Iterable[MemoryNode], persona: Persona, spatial: SpatialMemory,
                now: datetime) -> list[Engagement]:
    """Intentions still to come for which the resident means to invite people."""
    out = []
    for node in nodes:
        if node.kind == "thought" and _INVITE.search(node.description or ""):
            e = engagement_of(node, persona, spatial)
            if e is not None and e.kind == INTENTION and e.invites and e.start > now:
                out.append(e)
    return out


_ORIGIN = re.compile(r"\b(memory #\d+\b.*|an arrangement\b.*)$")


def origin_in(source: str | None) -> str:
    """The memory a plan item was chosen from, as its provenance names it ("memory #7 (...)"), or ""."""
    m = _ORIGIN.search(str(source or "")) if "chosen from" in str(source or "") else None
    return m.group(1) if m else ""

