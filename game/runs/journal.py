"""The visitor's journal (issue 45): what residents invited the visitor to, what the
visitor agreed to, and the dated events they were told of, each with its time and place.

It is read off what residents say to the visitor (the simulation's ``line`` events whose
partner is the visitor: chat answers and greetings, as they are logged) with the reader
the minds use for invitations (``agents.dialogue.offered_event``: ``dated.parse_meeting``,
else ``dated.parse``), so an entry says what a resident's memory of the same line says.
A line that names no day, time or place is no entry.

- ``invited``: the line offered (its dialogue act is an invitation or an offer to meet,
  or it reads as one: "Would you like to come?"), or the speaker hosts the event.
- ``told``: someone else's event, heard of.
- ``agreed``: the visitor answered it with a yes (``said``); for an invitation the town
  then has the resident remember the acceptance as residents remember theirs
  (game/runs/commands.py ``say``, game/sim/visitor.py ``agree``).

``due(now)`` is the entry starting within the hour (the HUD's reminder); an entry is past
once it has ended. The journal is the visitor's, saved in the save's ``visitor`` part
(``to_state`` / ``from_state``; an older save has none: an empty journal). Main thread only.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from agents import Utterance, dated, dialogue

log = logging.getLogger(__name__)

INVITED, TOLD, AGREED = "invited", "told", "agreed"
RANK = {TOLD: 0, INVITED: 1, AGREED: 2}  # an entry only moves up: told -> invited -> agreed
DUE_LEAD = timedelta(hours=1)  # the HUD reminds this long before an entry starts
OFFER_FRESH = timedelta(minutes=30)  # a yes answers the resident's last line only while it is this fresh
# Players answer shortly ("Yes!", "Sure, see you there"): these open an acceptance too.
_YES = re.compile(r"^\s*(yes|yeah|yep|sure|ok|okay|definitely|absolutely|of course|count me in|gladly|"
                  r"i'd love|i would love|i'll be there|i will)\b", re.I)


def clock(t: datetime) -> str:
    """17:00 -> "5 pm"; 17:30 -> "5:30 pm" (as residents say hours: agents' dated.clock)."""
    return dated.clock(t.hour * 60 + t.minute)


def first(name: str | None) -> str:
    return (name or "").split()[0] if (name or "").split() else ""


@dataclass
class Entry:
    """One dated thing in the journal."""

    kind: str  # INVITED | TOLD | AGREED
    what: str  # "Valentine's Day party", "having lunch"
    place: str  # "Hobbs Cafe", as said
    start: datetime
    minutes: int
    who: str  # the resident who invited or told
    host: str | None  # who hosts it, when the line says
    said: str  # the line, as said
    heard: datetime  # sim time it was said
    meeting: bool = False  # a plan to meet (the resident's own doing, with the visitor)

    @property
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.minutes)

    @property
    def key(self) -> str:
        """Two mentions of one event share this (its last word, day and place; dated.DatedEvent.key's)."""
        return f"{self.what.lower().split()[-1]}|{self.start.date().isoformat()}|{self.place.lower()}"

    def title(self) -> str:
        """ "Valentine's Day party at Hobbs Cafe"; "having lunch with Isabella at Hobbs Cafe"."""
        if self.meeting:
            return f"{self.what} with {first(self.who)} at {self.place}"
        return f"{self.what} at {self.place}"

    def by(self) -> str:
        """Whose it is, by first name: the host's, else the one who told of it."""
        return first(self.host or self.who)

    def due_line(self) -> str:
        """The HUD's reminder: "Due at 5 pm: Valentine's Day party at Hobbs Cafe (Isabella)"."""
        return f"Due at {clock(self.start)}: {self.title()} ({self.by()})"

    def when(self) -> str:
        """ "Tue Feb 14, 5 pm - 7 pm"."""
        return f"{self.start:%a %b} {self.start.day}, {clock(self.start)} - {clock(self.end)}"

    # Any: JSON, as a save holds it (checked as it is read back)
    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["start"], d["heard"] = self.start.isoformat(), self.heard.isoformat()
        return d

    # Any: JSON, as a save holds it (checked as it is read back)
    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Entry:
        kind = str(d.get("kind") or TOLD)
        return cls(kind if kind in RANK else TOLD, str(d["what"]), str(d["place"]),
                   datetime.fromisoformat(str(d["start"])), int(d.get("minutes") or 60), str(d.get("who") or ""),
                   d.get("host") or None, str(d.get("said") or ""), datetime.fromisoformat(str(d["heard"])),
                   bool(d.get("meeting")))


@dataclass
class Heard:
    """A resident's latest line to the visitor, which the visitor's next line answers."""

    resident: str
    text: str
    source: str
    when: datetime
    entry: Entry | None  # the entry it named
    offered: bool  # it invited (or offered to meet): a yes is an arrangement on the resident's side too


def accepts(text: str, previous: str | None = None) -> bool:
    """Whether the visitor's line says yes (the dialogue's rule, and the short yeses players type)."""
    act = dialogue.act_by_rule(text, previous)
    if act == dialogue.DECLINE or re.search(r"\b(no|not|can't|cannot|won't|sorry)\b", text, re.I):
        return False
    return act == dialogue.ACCEPT or bool(_YES.search(text))


class Journal:
    """The visitor's journal (see the module's notes)."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.version = 0  # changes whenever the entries do (the panel redraws)
        self.loads = 0  # changes when a save's entries replace these (what they hold is not news)
        self._last: dict[str, Heard] = {}  # resident -> its latest line to the visitor

    # ---- hearing ------------------------------------------------------------------------
    def listener(self, visitor: Callable[[], str | None]) -> Callable[[dict], None]:
        """An event listener (``sim.listeners``) feeding the journal the lines residents say to
        the visitor; ``visitor()`` names the visitor (it may be renamed)."""
        def hear_event(ev: dict) -> None:
            name = visitor()
            if ev.get("kind") != "line" or not name or ev.get("partner") != name or ev.get("resident") == name:
                return
            try:
                when = datetime.fromisoformat(str(ev["time"]))
            except (KeyError, ValueError):
                return
            self.hear(str(ev.get("resident") or ""), str(ev.get("text") or ""), when, str(ev.get("source") or ""))
        return hear_event

    def hear(self, resident: str, text: str, when: datetime, source: str = "") -> Entry | None:
        """A resident said ``text`` to the visitor: a dated event in it goes in the journal."""
        if not resident or not text:
            return None
        ev = dialogue.offered_event(Utterance(resident, text), when)
        act, _ = dialogue.act_of(source)
        offered = ev is not None and (act in dialogue.OFFERS or ev.meeting or ev.host == resident
                                      or dialogue.act_by_rule(text, None) == dialogue.INVITE)
        entry = None
        if ev is not None and ev.starts() + timedelta(minutes=ev.minutes()) > when:  # not one already over
            entry = self._add(Entry(INVITED if offered else TOLD, ev.what, ev.place, ev.starts(), ev.minutes(),
                                    resident, ev.host, text, when, ev.meeting))
        self._last[resident] = Heard(resident, text, source, when, entry, offered and entry is not None)
        return entry

    def _add(self, new: Entry) -> Entry:
        old = next((e for e in self.entries if e.key == new.key), None)
        if old is None:
            self.entries.append(new)
            self.entries.sort(key=lambda e: e.start)
            self.version += 1
            return new
        if RANK[new.kind] > RANK[old.kind]:  # told of it, now invited: the invitation is what counts
            old.kind, old.who, old.said, old.heard = new.kind, new.who, new.said, new.heard
            old.host = old.host or new.host
            self.version += 1
        return old

    def said(self, resident: str, text: str, when: datetime) -> Heard | None:
        """The visitor said ``text`` to ``resident``: a yes to the resident's last line, when that
        named an event, marks it agreed and is returned (an invitation's: ``offered``)."""
        heard = self._last.pop(resident, None)
        if heard is None or heard.entry is None or when - heard.when > OFFER_FRESH or not accepts(text, heard.text):
            return None
        entry = heard.entry
        if entry not in self.entries:  # a load replaced the entries meanwhile
            return None
        if entry.kind != AGREED:
            entry.kind = AGREED
            self.version += 1
        return heard

    # ---- reading ------------------------------------------------------------------------
    def due(self, now: datetime) -> Entry | None:
        """The entry starting within the hour (agreed first, then the soonest), or None."""
        soon = [e for e in self.entries if e.start - DUE_LEAD <= now < e.start]
        return min(soon, key=lambda e: (-RANK[e.kind], e.start)) if soon else None

    def upcoming(self, now: datetime) -> list[Entry]:
        """Entries not yet over (under way included), soonest first."""
        return [e for e in self.entries if e.end > now]

    def past(self, now: datetime) -> list[Entry]:
        """Entries over, the latest first."""
        return [e for e in reversed(self.entries) if e.end <= now]

    # ---- saving -------------------------------------------------------------------------
    def to_state(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.entries]

    # Any: JSON, as a save holds it (checked as it is read back)
    def from_state(self, state: Any) -> None:
        """Restore ``to_state``'s entries (none: an older save, an empty journal). The journal
        is the visitor's notes, not the town: an entry that cannot be read is left out (and
        logged) rather than refusing the save."""
        entries = []
        for d in state if isinstance(state, list) else []:
            try:
                entries.append(Entry.from_dict(d))
            except (KeyError, TypeError, ValueError, AttributeError):
                log.warning("a journal entry of the save could not be read; left out: %.120r", d)
        self.entries = sorted(entries, key=lambda e: e.start)
        self._last = {}
        self.version += 1
        self.loads += 1


__all__ = ["AGREED", "DUE_LEAD", "INVITED", "TOLD", "Entry", "Heard", "Journal", "accepts", "clock"]
