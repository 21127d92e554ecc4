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
- **arrangement**: a plan made in conversation (agents/planning/arrangements.py).

The guided planner offers each as a choice in the slot at its time (agents/planning/plan.py
chosen_day_plan); the model chooses whether to go, and the provenance of a chosen
engagement names the memory it came from (``memory #N``). The event is read from the
memory's words by agents/words/dated.py (the same reader dialogue uses to pass it on): a
day, a time, a place the resident knows and an event word must all be there, or the
memory holds no engagement.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from agents.recall.memory import MemoryNode
from agents.recall.spatial import SpatialMemory
from agents.residents.persona import Persona
from agents.words import activity
from agents.words import dated as dt

if TYPE_CHECKING:  # agents.planning.arrangements imports the planner, which imports this module
    from agents.planning.arrangements import Arrangement

INTENTION, EVENT, ARRANGEMENT = "intention", "event", "arrangement"
# Memories that can hold an engagement: what one thinks, was told or concluded (a plan
# memory is a whole day's timetable; an observation is what someone else does now).
AGENDA_KINDS = ("thought", "chat", "reflection")
_TOLD = re.compile(r"\b(told|said|says|invited|heard|mentioned)\b", re.I)
_INVITE = re.compile(r"\binvit\w*\b", re.I)
_PEOPLE = re.compile(r"\binvite\s+(?:as many\s+)?([a-z ,]*?(?:friends|customers|neighbou?rs|everyone|people)"
                     r"(?:\s+and\s+(?:friends|customers|neighbou?rs))?)", re.I)


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


# ------------------------------------------------------------------------------ reading memories
def _clause_about(text: str) -> str:
    """The clause that tells of the event: what someone said ("X told Maria: '...'") or the thought."""
    quoted = re.search(r"[\"“](.+)[\"”]", text)
    return quoted.group(1) if quoted else text


def engagement_of(node: MemoryNode, persona: Persona, spatial: SpatialMemory) -> Engagement | None:
    """The engagement a memory holds, or None: agents/words/dated.py must read an event with a
    day, a time and a place in it, and the place must be one the resident knows where the
    event can happen."""
    if node.kind not in AGENDA_KINDS:
        return None
    text = " ".join(str(node.description or "").split())
    clause = _clause_about(text)
    own = node.kind == "thought" and node.subject in (None, persona.name) and not _TOLD.search(text)
    ev = dt.parse(clause, node.created, teller=persona.name if own and dt.hosting(clause) else None)
    place = activity_place(ev.place, spatial, persona, ev.what) if ev is not None else None  # where the event is
    if ev is None or place is None:
        return None
    hosting = ev.host == persona.name
    sector = place.split(":")[1]
    words = f"{'hosting' if hosting else 'attending'} the {ev.what} at {sector}"
    words = activity.clean_activity(words, persona.name) or ""
    if not words or not activity.fits_place(words, place):
        return None
    invites = ""
    if hosting and _INVITE.search(clause):  # whom, in a word: a plan item is a short phrase
        found = _PEOPLE.search(clause)
        who = found.group(0).lower() if found else "friends"
        invites = next((w for w in ("customers", "neighbours", "neighbors", "friends") if w in who), "people")
    return Engagement(ev.starts(), ev.minutes(), words, place, INTENTION if own else EVENT, node.id, text,
                      invites, ev.what)


def activity_place(text: str, spatial: SpatialMemory, persona: Persona, doing: str = "") -> str | None:
    """The known arena the text names by its place's name ("at Hobbs Cafe"); a bare kind of
    place ("the park") is too vague for an event. Of a place with several arenas, the one
    the text names, else the first by name where ``doing`` fits: the same for host and guests
    whatever their workplaces (the study group at Oak Hill College had its host in the
    classroom and its guest in the library)."""
    t = text.lower()
    for a in spatial.arenas():
        sector = a.split(":")[1].lower()
        if len(sector) > 4 and sector in t:
            same = sorted(x for x in spatial.arenas() if x.split(":")[1].lower() == sector)
            arena = next((x for x in same if x.split(":")[2].lower() in t), None)
            return arena or next((x for x in same if activity.fits_place(doing, x)), same[0])
    return None


def agreed_place(spatial: SpatialMemory, persona: Persona, ev: dt.DatedEvent) -> str | None:
    """The arena of the place an invitation or an offer names, chosen as the other side
    chooses it (``activity_place``); a place the resident has not been to is learnt from
    the words when its name says its kind ("The Rose and Crown Pub": its pub): a yes to
    lunch there had taken the acceptor to lunch at its own workplace."""
    found = activity_place(f"at {ev.place}", spatial, persona, ev.what)
    if found is not None or not ev.place[:1].isupper():
        return found
    kinds = next((k for rx, k in activity.PLACE_WORDS if re.search(rx, ev.place.lower())), set())
    public = kinds & {"cafe", "pub", "park", "library", "store", "supply store"}
    if len(kinds) != 1 or not public:
        return None
    spatial.add(f"{spatial.world}:{ev.place}:{public.pop()}", with_defaults=True)
    return activity_place(f"at {ev.place}", spatial, persona, ev.what)


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


def is_engagement(x: Any) -> bool:
    """A plan item chosen from the resident's agenda (a dated intention, an event heard of, an
    arrangement), not its routine or a call to invite."""
    source = str(getattr(x, "source", None) or "")
    return ((bool(origin_in(source)) or "an arrangement" in source)
            and activity.is_gerund(x.description.split()[0]) and not x.description.startswith("inviting"))


def origin_in(source: str | None) -> str:
    """The memory a plan item was chosen from, as its provenance names it ("memory #7 (...)"), or ""."""
    m = _ORIGIN.search(str(source or "")) if "chosen from" in str(source or "") else None
    return m.group(1) if m else ""

