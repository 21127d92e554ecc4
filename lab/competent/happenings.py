"""What a resident's memories in a prompt speak of: events (what, when, where,
who hosts), whether the resident means to go, its work and its intentions."""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field

from lab.competent.prompt import Prompt, clip_words, clock_minutes, gerund_phrase, pretty_time

EVENT_WORDS = (r"party|celebration|gathering|get-together|meeting|concert|festival|dinner party|"
               r"potluck|debate|rally|wedding|exhibition|game night|open mic")


NEWS_WORDS = (r"decided|running for|run for|candidate|campaign|election|mayor|engaged|pregnant|moving|new job|"
              r"hosting|host a|invite|secret|crush|won|award")


MONTHS = ("January February March April May June July August September October November December").split()

MONTH_RE = r"(January|February|March|April|May|June|July|August|September|October|November|December)\s+(\d{1,2})"

TIME_RE = r"(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)"

RANGE_RE = TIME_RE + r"\s*(?:to|-|until|till|and)\s*" + TIME_RE


@dataclass
class Happening:
    """An event a text speaks of: what, when, where, who hosts."""

    what: str
    month_day: tuple[int, int] | None
    start: int | None  # minutes after midnight
    end: int | None
    place: str | None  # a place name as written
    host: str | None
    text: str
    hosting: bool = False  # the text is the host's own intention
    extra: dict = field(default_factory=dict)

    def when(self) -> str:
        day = f" on {MONTHS[self.month_day[0] - 1]} {self.month_day[1]}" if self.month_day else ""
        hours = ""
        if self.start is not None and self.end is not None:
            hours = f" from {pretty_time(self.start)} to {pretty_time(self.end)}"
        elif self.start is not None:
            hours = f" at {pretty_time(self.start)}"
        return day + hours

    def where(self) -> str:
        return f" at {self.place}" if self.place else ""


def find_happenings(lines: list[str]) -> list[Happening]:
    out = []
    for line in lines:
        if re.search(r"'s plan for \w+day \w+ \d+:", line) and not re.search(r"\b(party|celebration|gathering)\b",
                                                                               line, re.I):
            continue  # one's own timetable is not news
        m = re.search(rf"((?:[A-Z][\w']+\s+){{0,3}}(?i:{EVENT_WORDS}))", line)
        if not m:
            continue
        what = m.group(1).strip()
        what = re.sub(r"^(a|an|the|her|his|their|my|our)\s+", "", what, flags=re.I)
        if re.match(r"^(to|at|in|for|on)\s", what, re.I):
            what = what.split(" ", 1)[1]
        md = re.search(MONTH_RE, line)
        month_day = (MONTHS.index(md.group(1)) + 1, int(md.group(2))) if md else None
        start = end = None
        r = re.search(RANGE_RE, line, re.I)
        if r:
            start = clock_minutes(r.group(1), r.group(2), r.group(3))
            end = clock_minutes(r.group(4), r.group(5), r.group(6))
        else:
            t = re.search(TIME_RE, line, re.I)
            if t:
                start = clock_minutes(t.group(1), t.group(2), t.group(3))
            else:
                t = re.search(r"\b(\d{2}):(\d{2})\b(?:\s*-\s*(\d{2}):(\d{2}))?", line)
                if t:
                    start = int(t.group(1)) * 60 + int(t.group(2))
                    if t.group(3):
                        end = int(t.group(3)) * 60 + int(t.group(4))
        place = None
        p = re.search(r"\bat\s+((?:the\s+)?[A-Z][\w']*(?:\s+(?:[A-Z][\w']*|and|of|for))*)", line)
        if p:
            place = p.group(1).strip()
            place = re.sub(r"\s+(on|from|at)$", "", place)
            if place.split()[0] in MONTHS or re.match(r"^\d", place):
                place = None
        host = None
        h = re.search(r"([A-Z][a-z]+ [A-Z][a-z]+)(?: is| will be)? (?:hosting|throwing|organi[sz]ing|holding)", line)
        if h:
            host = h.group(1)
        hosting = bool(re.search(r"\bI (?:want to|will|am going to|plan to|'m going to|am) (?:host|throw|hold|organi)"
                                 r"|\bmy (?:\w+\s+){0,3}(?:" + EVENT_WORDS + r")", line, re.I))
        if month_day or start is not None or place:
            out.append(Happening(what, month_day, start, end, place, host, line, hosting))
    return _merged(out)


def _merged(found: list[Happening]) -> list[Happening]:
    """Details of one event spread over several memories, put together (one line gives
    the place, another the time)."""
    by: dict[str, Happening] = {}
    for h in found:
        key = re.sub(r"[^a-z ]", "", h.what.lower()).split()[-1:]  # "party"
        key = " ".join(key) + (f"{h.month_day}" if h.month_day else "")
        g = by.get(key)
        if g is None:
            by[key] = h
            continue
        for f in ("month_day", "start", "end", "place", "host"):
            if getattr(g, f) is None and getattr(h, f) is not None:
                setattr(g, f, getattr(h, f))
        g.hosting = g.hosting or h.hosting
        if len(h.what) > len(g.what):
            g.what = h.what
    return list(by.values())


def wants_to_go(first: str, h: Happening, lines: list[str]) -> bool:
    """Whether the resident means to go: it hosts the event, arranged or agreed to go,
    or (having only heard of it) fancies going all the same, as some people do."""
    key = h.what.lower().split()[-1]
    for line in lines:
        low = line.lower()
        if key not in low:
            continue
        if h.hosting or re.search(rf"{first.lower()}'s plan for|agreed with|{first.lower()} will come|"
                                  rf"i'll be there|i will come|going to attend", low):
            return True
    return zlib.crc32(f"{first}|{h.what}|maybe".encode()) % 5 == 0


def today_of(p: Prompt) -> tuple[int, int] | None:
    """The prompt's own date: "Today is Monday February 13" or "It is 09:30 on Monday February 13"."""
    m = re.search(r"(?:Today is|It is \d{2}:\d{2} on) (?:\w+day )?" + MONTH_RE, p.text)
    return (MONTHS.index(m.group(1)) + 1, int(m.group(2))) if m else None


def label_for(place: str | None, labels: list[str]) -> str | None:
    """The schema's place label that names ``place`` ("Corner Bakery" -> "Corner Bakery:shop")."""
    if not place:
        return None
    want = place.lower().removeprefix("the ").strip()
    for lab in labels:
        parts = [x.strip().lower() for x in lab.split(":")]
        if want == parts[0] or want == parts[-1] or want in lab.lower():
            return lab
    return None


def occupation(lines: list[str]) -> str:
    """What the resident does for a living, as written in its description."""
    for line in lines:
        m = re.search(r"\b(runs|owns|studies|teaches|works as|works at|works on|is an? [\w' -]+?(?:who|;|,|$))"
                      r"([^;.]*)", line)
        if m:
            return clip_words((m.group(1) + m.group(2)).strip(" ,;"), 8)
    return "the usual work"


def intentions(lines: list[str]) -> list[str]:
    """"I have decided to run for mayor ..." -> "working on running for mayor"."""
    out = []
    for line in lines:
        m = re.search(r"\bI (?:have decided|decided|want|am going|plan|intend|hope) to ([^;,.]+)", line)
        if m and not re.search(EVENT_WORDS, m.group(1), re.I):
            out.append(clip_words(gerund_phrase(m.group(1)), 6))
    return out
