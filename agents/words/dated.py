"""Dated events in words: "a Valentine's Day party at Hobbs Cafe on February 14, from
5 pm to 7 pm" read from a memory (what, where, the day, the hours, who hosts) and
written back the same way, so an invitation carries the event verbatim and the
listener's memory of it can be read again when it passes the news on.

Read by rule from the forms the town's memories take: a host's intention ("I want to
host a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm"), a
line heard ('Isabella Rodriguez told Maria: "I'm hosting ..."') and a plan made in
conversation ("Maria's plan for Tuesday February 14 at 17:00: attending the
Valentine's Day party at Hobbs Cafe (agreed with ...)").
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

# What makes a phrase an event one can go to (not a routine activity).
# The gatherings residents start themselves (agents/planning/stories.py) are named here too, with
# their first word: "reading" or "walk" alone is an activity, "a poetry reading" an event.
EVENT_WORDS = (r"party|celebration|gathering|get-together|concert|festival|potluck|picnic|barbecue|fundraiser|"
               r"debate|rally|wedding|exhibition|game night|open mic|screening|recital|tournament|"
               r"campaign rally|study group|photo walk|poetry reading|book reading|jam session|book club|"
               r"sketching session|comedy night|discussion evening|town hall")
MONTHS = ("January February March April May June July August September October November December").split()
_MONTH_NAME = r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_MONTH = _MONTH_NAME + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b"  # "February 14", "Feb 14th"
_DAY_MONTH = r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_NAME  # "14th of February"
HOLIDAYS = {"valentine": (2, 14), "christmas eve": (12, 24), "christmas": (12, 25), "new year's eve": (12, 31),
            "halloween": (10, 31)}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CLOCK = r"(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.|o'clock)"
_RANGE = (r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.|o'clock)?\s*(?:to|-|–|until|till)\s*"
          + _CLOCK)  # "5 pm to 7 pm", "5-7 pm": the first takes the second's am/pm
_HHMM = r"\b([01]?\d|2[0-3]):([0-5]\d)\b(?:\s*(?:-|–|to|until)\s*([01]?\d|2[0-3]):([0-5]\d)\b)?"
# Up to three capitalised words before the event word: "Valentine's Day party".
_WHAT = re.compile(rf"((?:[A-Z][\w']*\s+){{0,3}}(?i:{EVENT_WORDS}))\b")
_PLACE = re.compile(r"\bat\s+((?:the\s+)?[A-Z][\w']*(?:\s+(?:[A-Z][\w']*|and|of|for))*)")
# "I heard Isabella is hosting ...": someone else hosts; the words between "I" and "host" hold no "is".
_HOSTING = re.compile(r"\b(?:I|I'm|I am)\s+(?:(?!(?:is|was|will|are)\b)\w+\s+){0,3}"
                      r"(?:host|hosting|throw|throwing|hold|holding|organi[sz]e|"
                      r"organi[sz]ing)\b|\bmy (?:\w+\s+){0,2}(?:" + EVENT_WORDS + r")\b"
                      # "I'm having a picnic at Johnson Park": the visitor hosting, in a player's words
                      # ("having" with an article and the event word next: "I'm having a great time" is none)
                      r"|\b(?:I'm|I am|we're|we are)\s+having\s+(?:a|an|my|our)\s+(?:[\w']+\s+){0,2}(?:"
                      + EVENT_WORDS + r")\b", re.I)
_HOST_NAMED = re.compile(r"\b([A-Z][a-z]+ [A-Z][a-z]+)(?: is| will be)? (?:hosting|throwing|holding|organi[sz]ing)\b")
# A resident's full name, or the visitor's one name ('Alex told Isabella: "..."').
_TOLD = re.compile(r"^([A-Z][a-z]+(?: [A-Z][a-z]+)?) told \w+: \"")
# "tomorrow at noon" is 12 pm ("around noon" is no hour, as "around 5" is none)
_NOON = re.compile(r"\b(at\s+)?(?:12\s*)?(?:noon|midday)\b", re.I)


def _noon(m: re.Match) -> str:
    return f"{m.group(1) or ''}12 pm" if m.group(1) or m.group(0)[:2] == "12" else m.group(0)
_AHEAD = re.compile(r"\b(looking forward|want to|going to|plan(?:ning)? to|invit\w*|host(?:ing)?)\b", re.I)
_PAST_TENSE = re.compile(r"\b(hosted|went|came|was|were|enjoyed|missed|had)\b", re.I)
DEFAULT_MINUTES = 120  # an event whose end no memory states lasts this long


@dataclass(frozen=True)
class DatedEvent:
    """An event a memory speaks of, with everything needed to go there."""

    what: str  # "Valentine's Day party"
    place: str  # "Hobbs Cafe", as written
    day: date
    start: int  # minutes after midnight
    end: int | None  # minutes after midnight, when stated
    host: str | None = None  # full name, when known
    meeting: bool = False  # a plan to meet ("having lunch at Hobbs Cafe"), not an event one is invited to

    @property
    def key(self) -> str:
        """Two memories of one event share this: its last word, day and place."""
        return f"{self.what.lower().split()[-1]}|{self.day.isoformat()}|{self.place.lower()}"

    def starts(self) -> datetime:
        return datetime.combine(self.day, datetime.min.time()) + timedelta(minutes=self.start)

    def minutes(self) -> int:
        return (self.end - self.start) if self.end is not None and self.end > self.start else DEFAULT_MINUTES

    def when(self) -> str:
        """ "on February 14, from 5 pm to 7 pm" (or "at 5 pm" without an end)."""
        day = f"on {MONTHS[self.day.month - 1]} {self.day.day}"
        if self.meeting:
            return f"{day} at {clock(self.start)}"
        if self.end is not None and self.end > self.start:
            return f"{day}, from {clock(self.start)} to {clock(self.end)}"
        return f"{day}, at {clock(self.start)}"

    def words(self, article: str = "a") -> str:
        """ "a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm"."""
        lead = f"{article} " if article and not self.meeting else ""
        return f"{lead}{self.what} at {self.place} {self.when()}"

    def short(self) -> str:
        """ "a Valentine's Day party at Hobbs Cafe" (a reaction names it)."""
        if self.meeting:
            return f"{self.what} at {self.place}"
        return f"{'an' if self.what[:1].lower() in 'aeiou' else 'a'} {self.what} at {self.place}"


def clock(minutes: int) -> str:
    """17*60 -> "5 pm"; 17*60+30 -> "5:30 pm"."""
    h, m = divmod(int(minutes) % (24 * 60), 60)
    suffix = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return f"{h12}:{m:02d} {suffix}" if m else f"{h12} {suffix}"


def _clock_minutes(h: str, m: str | None, ampm: str) -> int:
    pm = ampm.lower().startswith("p") or (ampm.lower() == "o'clock" and int(h) < 8)  # "5 o'clock": the afternoon's
    return (int(h) % 12 + (12 if pm else 0)) * 60 + int(m or 0)


def parse(text: str, now: datetime, *, teller: str | None = None) -> DatedEvent | None:
    """The dated event ``text`` speaks of, or None when it names no event, no day it can
    place in the coming week, no time or no place. ``teller``: who said it (a heard line
    in the host's own words names the teller as host)."""
    whole = _NOON.sub(_noon, " ".join(str(text or "").split()))
    w = _WHAT.search(whole)
    if not w:
        return None
    # Only the clause that names the event tells its time and place: "I'm going to the party
    # today; at 2 pm I'm running the cafe" is no party at 2 pm.
    lo = max(whole.rfind(";", 0, w.start()), whole.rfind(". ", 0, w.start()), -1) + 1
    hi = min([i for i in (whole.find(";", w.end()), whole.find(". ", w.end())) if i >= 0] or [len(whole)])
    t = whole[lo:hi]
    w = _WHAT.search(t)
    if not w:
        return None
    what = w.group(1).strip()
    while re.match(r"^(?:A|An|The|I|I'm|My|Our|Her|His|Their|Your|There|It|It's)\s", what):
        what = what.split(" ", 1)[1]  # a sentence's first word, not the event's name
    day = _day(t, now)
    start, end = _hours(t)
    p = _PLACE.search(t)
    place = re.sub(r"\s+(?:on|from|at|and)$", "", p.group(1).strip()) if p else ""
    if place.split(" ")[0] in MONTHS or place.lower().startswith("the ville"):
        place = ""
    if day is None or start is None or not place:
        return None
    told = _TOLD.match(whole)
    teller = teller or (told.group(1) if told else None)
    host_named = _HOST_NAMED.search(t)
    host = host_named.group(1) if host_named else None
    if host is None and teller and _HOSTING.search(t):
        host = teller
    return DatedEvent(what, place, day, start, end, host)


_MEET = (re.compile(r"\bI'll be (?P<what>[a-z][\w' ]+?) at (?P<place>[A-Z][\w' ]+?) (?P<day>today|tomorrow) at "
                    + _CLOCK),
         re.compile(r"\bJoin me at (?P<place>[A-Z][\w' ]+?) (?P<day>today|tomorrow) at " + _CLOCK
                    + r"[^?]*\? I'll be (?P<what>[a-z][\w' ]+?) there\b"))


def meeting_words(what: str, place: str, day: str, start: int) -> str:
    """ "having lunch at Hobbs Cafe today at 12 pm": a plan to meet, as said (``parse_meeting`` reads it)."""
    return f"{what} at {place} {day} at {clock(start)}"


def parse_meeting(text: str, now: datetime, *, teller: str | None = None) -> DatedEvent | None:
    """A plan to meet as an offer to meet words it ("I'll be having lunch at Hobbs Cafe today at
    12 pm"), or None."""
    t = " ".join(str(text or "").split())
    for rx in _MEET:
        m = rx.search(t)
        if m:
            g = [x for x in m.groups()]
            clock_at = next(i for i, x in enumerate(g) if x and re.fullmatch(r"\d{1,2}", x))
            start = _clock_minutes(g[clock_at], g[clock_at + 1], g[clock_at + 2])
            day = now.date() + timedelta(days=1 if m.group("day") == "tomorrow" else 0)
            return DatedEvent(m.group("what"), m.group("place"), day, start, None, teller, meeting=True)
    return None


def names_event(text: str) -> bool:
    """Whether ``text`` names an event one goes to ("the Valentine's Day party"), not an activity."""
    return bool(_WHAT.search(str(text or "")))


def past_days(text: str, now: datetime) -> str:
    """A memory's past days as one says them at ``now``: "on February 14" the day after is
    "yesterday", the same day "today"."""
    def said(m: re.Match) -> str:
        try:
            day = date(now.year, _month(m.group(1)), int(m.group(2)))
        except ValueError:
            return m.group(0)
        return day_words(day, now) if day <= now.date() else m.group(0)
    return re.sub(r"\bon " + _MONTH, said, str(text or ""))


def read_as_made(text: str, made: datetime, *, teller: str | None = None) -> DatedEvent | None:
    """The dated thing a memory speaks of (an event or a plan to meet), read as of when the
    memory was made, so that its "today" and "tomorrow" are that day's."""
    if not re.search(r"\d", str(text or "")):
        return None  # no hour, no dated thing: most memories, read cheaply
    return parse_meeting(text, made, teller=teller) or parse(text, made, teller=teller)


def ended(text: str, made: datetime, now: datetime) -> bool:
    """Whether a memory made at ``made`` speaks of a dated thing that is over by ``now``
    (an invitation, an intention, an arrangement, a looking forward to it): it is then
    past, never offered as news to come, a plan or an invitation."""
    ev = read_as_made(text, made)
    if ev is not None:
        return ev.starts() + timedelta(minutes=ev.minutes()) <= now
    # No hour: "I am looking forward to the party at Hobbs Cafe on February 14" is over the day after
    # (unless it says so itself: "I hosted the party on February 14; Klaus came").
    # Nor any dated thing looked forward to, whatever it is called ("hosting the game at the pub on
    # February 14 from 7 pm to 9 pm": "game" is no event word, but it was over the day after).
    t = " ".join(str(text or "").split())
    day = _day(t, made) if _WHAT.search(t) or _AHEAD.search(t) else None
    return day is not None and day < now.date() and not _PAST_TENSE.search(t)


def day_words(day: date, now: datetime) -> str:
    """ "today", "yesterday" or "on February 14": a past day as one says it at ``now``."""
    if day == now.date():
        return "today"
    if day == now.date() - timedelta(days=1):
        return "yesterday"
    return f"on {MONTHS[day.month - 1]} {day.day}"


def hosting(text: str) -> bool:
    """Whether ``text`` is in the host's own words ("I want to host ...", "my party")."""
    return bool(_HOSTING.search(str(text or "")))


def _month(word: str) -> int:
    return next(i + 1 for i, name in enumerate(MONTHS) if name.lower().startswith(word.lower().rstrip(".")[:3]))


def _day(text: str, now: datetime) -> date | None:
    """The day named ("February 14", "Feb 14th", "the 14th of February", "Valentine's Day",
    "today", "tonight", "tomorrow", "on Wednesday": the next one), within a week of ``now``'s."""
    d: date | None = None
    m, dm = re.search(_MONTH, text, re.I), re.search(_DAY_MONTH, text, re.I)
    holiday = next((md for word, md in HOLIDAYS.items() if word in text.lower()), None)
    try:
        if m:
            d = date(now.year, _month(m.group(1)), int(m.group(2)))
        elif dm:
            d = date(now.year, _month(dm.group(2)), int(dm.group(1)))
        elif holiday:
            d = date(now.year, *holiday)
    except ValueError:
        return None
    if d is not None:
        return d if -1 <= (d - now.date()).days <= 7 else None
    if re.search(r"\btomorrow\b", text, re.I):
        return now.date() + timedelta(days=1)
    if re.search(r"\b(today|tonight|this (?:morning|afternoon|evening))\b", text, re.I):
        return now.date()
    for i, name in enumerate(WEEKDAYS):
        if re.search(rf"\b(?:on|this|next) {name}\b", text, re.I):
            return now.date() + timedelta(days=(i - now.weekday()) % 7)
    return None


def _hours(text: str) -> tuple[int | None, int | None]:
    """(start, end) in minutes after midnight; a 12-hour clock past 12 ("27 pm") is no time."""
    r = re.search(_RANGE, text, re.I)
    if r and 1 <= int(r.group(1)) <= 12 and 1 <= int(r.group(4)) <= 12:
        start = _clock_minutes(r.group(1), r.group(2), r.group(3) or r.group(6))
        return start, _clock_minutes(r.group(4), r.group(5), r.group(6))
    c = re.search(_CLOCK, text, re.I)
    if c:
        if not 1 <= int(c.group(1)) <= 12:
            return None, None
        return _clock_minutes(c.group(1), c.group(2), c.group(3)), None
    h = re.search(_HHMM, text)
    if h:
        end = int(h.group(3)) * 60 + int(h.group(4)) if h.group(3) else None
        return int(h.group(1)) * 60 + int(h.group(2)), end
    return None, None


__all__ = ["DEFAULT_MINUTES", "DatedEvent", "clock", "day_words", "ended", "hosting", "meeting_words", "names_event",
           "parse", "parse_meeting", "past_days", "read_as_made"]
