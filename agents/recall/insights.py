"""Candidate insights for a grounded reflection, derived by rule from memories.

The embedded 135M model writes reflections poorly ("Giorgio Rossi has been a
victim of the HIV/AIDS epidemic", "In the record for 1, the number of rows ...")
and they enter the memory stream as if true. In the grounded mode a reflection
is chosen, not written (agents/recall/reflect.py): these rules read the recent memories
and offer what they show, each citing the memories it rests on:

- ``people``: whom one talks with ("I often talk with Maria Lopez"), or sees a lot of ("I see a lot of Klaus Mueller");
- ``places``: where one spends one's days ("Lately I spend most of my time at Hobbs Cafe");
- ``topic``: what keeps coming up ("The Valentine's Day party keeps coming up");
- ``ahead``: what one is looking forward to: a dated intention, an event heard of or
  an arrangement ("I am looking forward to the Valentine's Day party at Hobbs Cafe
  on February 14").

A candidate is in the resident's voice, as its own thoughts are stored ("I want to
host ..."), and names only people the mind knows (``Known``) and places in its
spatial memory; one that names anyone or anywhere else is not offered.
"""
from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from agents.explain import provenance as pv
from agents.recall import grounding as gr
from agents.recall.memory import MemoryNode
from agents.recall.spatial import SpatialMemory
from agents.words import activity
from agents.words import dated as dt

KINDS = ("ahead", "people", "topic", "places")
TALLIES = ("people", "topic", "places")  # kinds that count what happened: true, but no news to tell
_KIND_IN_SOURCE = re.compile(r"\binsights \((\w+), from memories\b")
MAX_CANDIDATES = 6  # what the chooser sees: each costs prompt tokens and a branch of the grammar
MAX_EVIDENCE = 8  # memories a candidate cites (the most recent of those it rests on)
TALKS_OFTEN = 2  # conversations with someone that make "I often talk with ..."
SEEN_OFTEN = 4  # sightings of someone that make "I see a lot of ..." (household too)
TOPIC_MEMORIES = 3  # memories a topic must come up in
PLACE_SIGHTINGS = 3  # things seen at a place that make it one where the days are spent
CONVERSATION_GAP = timedelta(minutes=30)  # chat memories further apart are another conversation
# The importance a rule gives each kind (the model rates it later, as it does observations).
IMPORTANCE = {"ahead": 6, "people": 5, "topic": 5, "places": 4}

MONTHS = ("January February March April May June July August September October November December").split()
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
CALENDAR = set(MONTHS) | set(WEEKDAYS) | {"Valentine", "Valentines", "Day", "Christmas", "Easter", "Eve", "New",
                                          "Year"}
EVENT_NOUNS = ("game night", "study group", "photo walk", "book reading", "poetry reading", "jam session",  # first:
               "sketching session", "comedy night", "discussion evening", "campaign rally",  # not "the game"
               "party", "celebration", "gathering", "festival", "concert", "show", "exhibition", "exhibit",
               "performance", "recital", "reading", "match", "tournament", "meeting", "dinner", "lunch", "breakfast",
               "election", "debate", "rally", "fair", "opening", "wedding", "birthday", "picnic", "lecture",
               "seminar", "workshop", "competition", "game", "meetup", "get-together", "ceremony", "screening")
_MEALS = {"breakfast", "lunch", "dinner"}
_EVENT = re.compile(rf"\b({'|'.join(re.escape(n) for n in EVENT_NOUNS)})\b", re.I)
_DATE = re.compile(rf"\b(?:(?:{'|'.join(WEEKDAYS)}),?\s+)?({'|'.join(MONTHS)})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b")
_RELATIVE = re.compile(r"\b(today|tonight|this evening|this afternoon|tomorrow)\b", re.I)
_SOON = re.compile(r"\b(coming|upcoming|next)\b", re.I)
_SPAN = re.compile(r"\bfrom (\d{1,2}(?::\d\d)?\s*(?:am|pm)) (?:to|until|till) (\d{1,2}(?::\d\d)?\s*(?:am|pm))\b", re.I)
_AT_TIME = re.compile(r"\bat (\d{1,2}(?::\d\d)?\s*(?:am|pm)|\d{1,2}:\d\d)\b", re.I)
_HOST = re.compile(r"\b(host|hosting|throw|throwing|organi[sz]e|organi[sz]ing)\b", re.I)
# "Maria's plan for Tuesday February 14 at 15:00: meeting Klaus at Oak Hill College:library (agreed with ...)"
# (agents/talk/converse.py take_arrangement)
_ARRANGED = re.compile(r"plan for (\w+ \w+ \d{1,2}) at (\d\d:\d\d): (.+?) at ([^()]+?) \(agreed with ([^()]+?) on ")
_TIMES = re.compile(r"\b\d{1,2}:\d\d\b")
# after a noun, a word in -s is most often a verb ("the garden looks lovely"; not physics, campus, class)
_VERB_S = re.compile(r"[a-z]+(?<![su'i])(?<!ic)s")
_ARTICLE = r"\b(?:the|a|an|this|that|our|my|his|her|their)\s+"
_NAME_RUN = re.compile(r"[A-Z][\w'-]*(?:\s+(?:of|and|the|de|van|von)?\s*[A-Z][\w'-]*)*")

_STOP = set("""a an the and or but if of to in on at by for with from into about over after before as is are was were be
been being am do does did has have had i me my mine we our you your he him his she her they them their it its this
that these those there here what who whom which when where why how not no yes so very just also too than then now
today tonight tomorrow yesterday morning afternoon evening night day week some any all each every more most much many
told tell tells said says say answered asked ask talked talk talking conversed conversation plan plans planning
will would can could should may might must want wants wanted going go goes went get gets got make makes made know knows
knew think thinks thought like likes really lot lots thing things time times new good great nice well oh hi hello
hey thanks thank sure okay ok see seen one two three first last other others own same still again always often
usually sometimes never ever let us around next coming up down out off anyone someone everyone anybody somebody
everybody nobody anything something everything nothing else""".split()) | {m.lower() for m in CALENDAR}


@dataclass(frozen=True)
class Candidate:
    """One insight the chooser may pick: its words, what kind of rule made it, the
    memories it rests on and how many of them (its weight)."""

    kind: str
    text: str
    evidence: tuple[int, ...]
    weight: float = 0.0


@dataclass
class Known:
    """Whom and where a mind may name: the people it knows (met, seen, or named in its
    own description and given thoughts) and the places of its spatial memory."""

    me: str
    people: set[str] = field(default_factory=set)
    places: set[str] = field(default_factory=set)  # sector names
    home: str = ""  # the sector it lives in

    def first_names(self) -> set[str]:
        return {p.split()[0] for p in self.people | {self.me}}

    def unknown(self, text: str) -> str | None:
        """The first name-like words in ``text`` that are no person or place the mind knows
        (None: it names only what it knows). The first word of a sentence may be capitalised."""
        t = str(text)
        for name in sorted(self.people | {self.me} | self.places, key=len, reverse=True):
            if name:
                t = re.sub(rf"\b{re.escape(name)}\b", " ", t)
        firsts = self.first_names()
        for m in _NAME_RUN.finditer(t):
            words = [w for w in re.split(r"\s+", m.group(0)) if w and w[0].isupper()]
            before = t[:m.start()].rstrip()
            if not before or before.endswith((".", "!", "?", ":", '"')):
                words = words[1:]  # a sentence begins with a capital
            bare = [re.sub(r"'s$", "", w) for w in words]
            if not bare:
                continue
            if len(bare) == 1 and bare[0] in firsts:
                continue  # a first name alone: someone it knows
            if any(w not in CALENDAR and w != "I" for w in bare):
                return m.group(0)  # an unknown name, or a mix ("Maria Rodriguez": a small model mixes surnames)
        return None


def known_of(me: str, people: Iterable[str], nodes: Iterable[MemoryNode], spatial: SpatialMemory,
             home: str = "") -> Known:
    """Whom and where ``me`` may name: ``people`` (those it met or saw), the people its
    description and given thoughts name (the town's cast file, the scenario, the player),
    and the sectors of its spatial memory."""
    named: set[str] = set()
    for x in nodes:
        if x.kind == "thought" and pv.kind_of(x.source) == pv.RULE:
            named |= {f"{a} {b}" for a, b in re.findall(r"\b([A-Z][a-z]+)\s+([A-Z][a-z]+)\b", x.description)}
    places = set(spatial.tree)
    named = {n for n in named if not any(n in p for p in places) and not set(n.split()) & CALENDAR}
    return Known(me, {p for p in people if p and p != me} | named - {me}, places, home)


# ---------------------------------------------------------------------------- the rules

def kind_of(source: str | None) -> str | None:
    """The kind of rule a grounded reflection came from, as its provenance records it
    (agents/recall/reflect.py ``grounded_source``: "... chosen from 4 insights (people, from
    memories #3, #9)"), or None."""
    m = _KIND_IN_SOURCE.search(str(source or ""))
    return m.group(1) if m else None


def _offered(x: MemoryNode) -> bool:
    """A memory a rule may read: not a prompt's echo, and no reflection the model wrote
    freely (grounding.offered says why)."""
    return gr.offered(x)


def _cite(nodes: Iterable[MemoryNode]) -> tuple[int, ...]:
    ids = sorted({x.id for x in nodes})
    return tuple(ids[-MAX_EVIDENCE:])


def people(nodes: Sequence[MemoryNode], known: Known) -> list[Candidate]:
    """Whom one talks with (chat memories: the memo of a talk, a line one was told, the
    visitor's words) and whom one keeps seeing (observations of a person)."""
    chats: dict[str, list[MemoryNode]] = defaultdict(list)
    seen: dict[str, list[MemoryNode]] = defaultdict(list)
    for x in nodes:
        if x.kind == "chat":
            other = x.object if x.predicate == "conversed with" else x.subject
            if other and other != known.me:
                chats[other].append(x)
        elif x.kind == "observation" and x.subject and ":" not in x.subject and x.subject != known.me:
            seen[x.subject].append(x)
    out = []
    for other, xs in chats.items():
        xs.sort(key=lambda x: x.created)
        talks = 1 + sum(1 for a, b in itertools.pairwise(xs) if b.created - a.created > CONVERSATION_GAP)
        if talks >= TALKS_OFTEN:
            out.append(Candidate("people", f"I often talk with {other}.", _cite(xs), float(talks * 2)))
    for other, xs in seen.items():
        if len(xs) >= SEEN_OFTEN and other not in chats:
            out.append(Candidate("people", f"I see a lot of {other}.", _cite(xs), float(len(xs)) / 2))
    return out


def place_words(sector: str, known: Known) -> str:
    """How the resident names a sector: "home" for its own, else the sector's name."""
    return "home" if sector == known.home else sector


def places(nodes: Sequence[MemoryNode], known: Known, world: str) -> list[Candidate]:
    """Where one spends one's days: the places of the things one saw there (an object's
    observation names its address; the sim shows only what is in one's own arena)."""
    at: dict[str, list[MemoryNode]] = defaultdict(list)
    for x in nodes:
        if x.kind == "observation" and x.subject and x.subject.startswith(f"{world}:"):
            parts = x.subject.split(":")
            if len(parts) >= 2 and parts[1] in known.places:
                at[parts[1]].append(x)
    total = sum(len(v) for v in at.values())
    out = []
    for rank, (sector, xs) in enumerate(sorted(at.items(), key=lambda kv: -len(kv[1]))):
        share = len(xs) / total
        if len(xs) < PLACE_SIGHTINGS or share < 0.25:
            continue
        where = place_words(sector, known)
        at_where = "at home" if where == "home" else f"at {where}"
        most = rank == 0 and share >= 0.5
        text = f"Lately I spend most of my time {at_where}." if most else f"I often spend time {at_where}."
        out.append(Candidate("places", text, _cite(xs), float(len(xs)) * share))
    return out


def _timetable(x: MemoryNode) -> bool:
    return len(_TIMES.findall(x.description)) >= 2  # a whole day's plan is no topic


def _said(x: MemoryNode) -> str:
    """The words a memory holds: a quoted line without "X told Maria:"."""
    d = x.description
    if x.kind == "chat" and x.predicate in ("told", "said"):
        quoted = re.findall(r'"([^"]*)"', d)
        return " ".join(quoted) if quoted else d
    return d


def _phrases(text: str, known: Known) -> set[str]:
    """The word runs of ``text`` that could be a topic: one to four words, no function word
    in them (but "of" inside), no verb in -s after the first, none a person's name."""
    names = {w.lower() for p in known.people | {known.me} for w in p.split()}
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", text)
    out = set()
    for i in range(len(words)):
        for n in range(1, 5):
            run = words[i:i + n]
            if len(run) < n:
                break
            low = [w.lower() for w in run]
            if (low[0] in _STOP or low[-1] in _STOP or any(w in _STOP - {"of"} for w in low[1:-1])
                    or (n > 1 and any(_VERB_S.fullmatch(w) for w in low))
                    or any(w in names or w.removesuffix("'s") in names for w in low)):
                continue
            if n == 1 and (len(low[0]) < 5 or not run[0].islower()):
                continue  # a short or capitalised word alone says little
            out.add(" ".join(run))
    return out


def topics(nodes: Sequence[MemoryNode], known: Known) -> list[Candidate]:
    """What keeps coming up: a phrase in at least TOPIC_MEMORIES of what one was told,
    thought or planned (not what one saw, nor whole timetables); the longest phrase that
    comes up nearly as often as its words do."""
    place_low = {p.lower() for p in known.places} | {"home"}
    df: Counter = Counter()
    where: dict[str, list[MemoryNode]] = defaultdict(list)
    for x in nodes:
        if x.kind not in ("chat", "thought", "plan") or _timetable(x):
            continue
        for ph in _phrases(_said(x), known):
            key = ph.lower()
            df[key] += 1
            where[key].append(x)
    common = [k for k, c in df.items() if c >= TOPIC_MEMORIES and k not in place_low
              and not any(k == p or k in p.split() for p in place_low)
              and (" " in k or any(re.search(_ARTICLE + re.escape(k) + r"\b", _said(x), re.I) for x in where[k]))]
    # (a word alone is a topic only where a memory names it as a thing: "the party", not "anyone")
    # the longest phrases first; a shorter one inside a kept phrase that comes up little more often is the same topic
    kept: list[str] = []
    for k in sorted(common, key=lambda k: (-len(k.split()), -df[k], k)):
        if any(f" {k} " in f" {o} " and df[k] <= df[o] + 1 for o in kept):
            continue
        kept.append(k)
    out = []
    cited: set[tuple[int, ...]] = set()
    # of phrases from the same memories, one a memory names as a thing ("the garden") first, then the longest
    kept.sort(key=lambda k: (not any(re.search(_ARTICLE + re.escape(k) + r"\b", _said(x), re.I) for x in where[k]),
                             -len(k.split())))
    for k in kept:
        xs = where[k]
        if re.match(r"^(i|i'?m|you|you'?re|we|we're|it's|there's|he|she|they)\b", k) or re.match(
                r"^(having|eating|going|getting|taking|doing)\b", k):
            continue  # "I'm having lunch", "You're free", "Having lunch": a way of talking or a routine, no topic
        if _cite(xs) in cited:
            continue  # the same memories: the same topic in other words
        cited.add(_cite(xs))
        said = _said(xs[-1])
        ph = next(p for p in _phrases(said, known) if p.lower() == k)  # its own capitals
        # "the party" where the memory says "a party" or "the party"; "Physics", "Running for mayor" as they are
        named = re.search(_ARTICLE + re.escape(ph), said, re.I)
        lead = f"The {ph}" if named else ph[0].upper() + ph[1:]
        plural = named and re.search(r"[^s]s$", ph) and not re.search(r"(news|ss|us|is|ics)$", ph.lower())
        verb = "keep" if plural else "keeps"  # "The paintings keep coming up"; "Studying physics keeps ..."
        out.append(Candidate("topic", f"{lead} {verb} coming up.", _cite(xs), float(df[k]) * len(k.split())))
    return out


def _event_phrase(text: str) -> tuple[str, int] | None:
    """The event a text speaks of ("Valentine's Day party") and where it ends."""
    m = _EVENT.search(text)
    if m is None:
        return None
    before = re.findall(r"[A-Za-z][A-Za-z'-]*", text[: m.start()])
    lead: list[str] = []
    for w in reversed(before[-3:]):
        if w.lower() in _STOP - {m.lower() for m in CALENDAR} - {"coming", "next"} or _HOST.fullmatch(w):
            break
        lead.insert(0, w)
    return " ".join([*lead, m.group(1).lower()]), m.end()


def _when(text: str, created: datetime, now: datetime) -> tuple[str, date | None] | None:
    """When an event is: ("on February 14", that day), ("", None) when the text gives no
    day but says it is coming, None when it is past or gives no hint of when."""
    m = _DATE.search(text)
    if m:
        try:
            day = date(now.year, MONTHS.index(m.group(1)) + 1, int(m.group(2)))
        except ValueError:
            return None
        return (f"on {m.group(1)} {int(m.group(2))}", day) if day >= now.date() else None
    r = _RELATIVE.search(text)
    if r:
        day = created.date() + (timedelta(days=1) if r.group(1).lower() == "tomorrow" else timedelta(0))
        return (f"on {day:%B} {day.day}", day) if day >= now.date() else None
    return ("", None) if _SOON.search(text) else None


def _clock(said: str) -> int:
    """Minutes after midnight of "5 pm", "7:30 am" or "17:00"."""
    m = re.match(r"(\d{1,2})(?::(\d\d))?\s*(am|pm)?", said.strip(), re.I)
    if m is None:
        return 24 * 60
    h, mm, half = int(m.group(1)), int(m.group(2) or 0), (m.group(3) or "").lower()
    h = h % 12 + (12 if half == "pm" else 0) if half else h
    return h * 60 + mm


def _place_in(text: str, known: Known) -> str | None:
    for p in sorted(known.places, key=len, reverse=True):
        if re.search(rf"\b{re.escape(p)}\b", text):
            return p
    return None


def ahead(nodes: Sequence[MemoryNode], known: Known, now: datetime) -> list[Candidate]:
    """What one is looking forward to: an arrangement made in conversation, one's own
    dated intention ("I want to host a party ... on February 14") or an event one heard of,
    still to come. Its place is named only when the mind knows it."""
    found: dict[str, tuple[str, list[MemoryNode], int]] = {}
    for x in nodes:
        if x.kind not in ("chat", "thought", "plan") or _timetable(x) or x.source == pv.tag(pv.RULE, pv.RECAP):
            continue  # (a gathering remembered as it went is past, whatever day it names)
        d = _said(x) if x.kind == "chat" else x.description
        if dt.ended(d, x.created, now):
            continue  # over: nothing to look forward to
        arranged = _ARRANGED.search(x.description) if x.kind == "plan" else None
        if arranged:
            day_words, hhmm, doing, place, _with = arranged.groups()
            m = _DATE.search(day_words)
            try:
                day = date(now.year, MONTHS.index(m.group(1)) + 1, int(m.group(2))) if m else None
            except ValueError:
                day = None
            if day is None or day < now.date():
                continue
            sector = place.split(":")[0].strip()
            where = f" at {place_words(sector, known)}" if sector in known.places else ""
            key = f"{doing.lower()}|{day}"
            text = f"I am looking forward to {doing}{where} on {day:%B} {day.day} at {hhmm}."
            found.setdefault(key, (text, [], 3))[1].append(x)
            continue
        ev = _event_phrase(d)
        if ev is None:
            continue
        phrase, _end = ev
        if phrase.split()[-1] in _MEALS:
            continue  # a lunch heard of is everyday; one arranged with someone is looked forward to (above)
        when = _when(d, x.created, now)
        if when is None:
            continue
        on, day = when
        if not on and not _SOON.search(phrase):
            continue  # "the coming election" says when; a bare "party" does not
        sector = _place_in(d, known)
        span = _SPAN.search(d) or _AT_TIME.search(d)
        ends = _clock(span.group(span.lastindex or 1)) if span is not None else 24 * 60
        if day == now.date() and ends <= now.hour * 60 + now.minute:
            continue  # today, and already over
        hour = (f" from {span.group(1)} to {span.group(2)}" if span and span.re is _SPAN
                else f" at {span.group(1)}" if span else "")
        mine = x.kind == "thought" and x.subject == known.me and _HOST.search(d[: d.lower().find(phrase.split()[-1])])
        what = (f"hosting the {phrase}" if mine else phrase if activity.is_gerund(phrase.split()[0])
                else f"the {phrase}")  # "having lunch at Hobbs Cafe", not "the having lunch"
        where = f" at {place_words(sector, known)}" if sector else ""
        text = f"I am looking forward to {what}{where}{(' ' + on) if on else ''}{hour if on else ''}."
        key = f"{phrase.lower()}|{day}"
        score = 1 + (1 if sector else 0) + (1 if on else 0) + (1 if hour else 0)
        old = found.get(key)
        if old is None or score > old[2]:
            found[key] = (text, (old[1] if old else []) + [x], score)
        else:
            old[1].append(x)
    out = []
    for key, (text, xs, score) in found.items():
        # ... and every other memory that speaks of the same event
        phrase = key.split("|")[0]
        also = [x for x in nodes if x.kind in ("chat", "thought", "plan") and phrase in x.description.lower()]
        out.append(Candidate("ahead", text, _cite([*xs, *also]), float(len({x.id for x in [*xs, *also]}) + score)))
    return out


def derive(nodes: Sequence[MemoryNode], known: Known, world: str, now: datetime,
           said_before: Iterable[str] = ()) -> list[Candidate]:
    """The candidate insights of ``nodes`` (a reflection's recent memories), the best of
    each kind first, then the rest by weight; none naming anyone or anywhere the mind does
    not know, none it concluded before (``said_before``), at most MAX_CANDIDATES."""
    usable = [x for x in nodes if _offered(x)]
    old = {gr._norm(t) for t in said_before}
    by_kind = {"ahead": ahead(usable, known, now), "people": people(usable, known),
               "topic": topics(usable, known), "places": places(usable, known, world)}
    fine: dict[str, list[Candidate]] = {}
    for kind, cands in by_kind.items():
        fine[kind] = sorted((c for c in cands if c.evidence and gr._norm(c.text) not in old
                             and known.unknown(c.text) is None and not gr.echoes_prompt(c.text)),
                            key=lambda c: -c.weight)
    first = [cs[0] for k in KINDS if (cs := fine[k])]
    rest = sorted((c for k in KINDS for c in fine[k][1:]), key=lambda c: -c.weight)
    return (first + rest)[:MAX_CANDIDATES]


__all__ = [
    "IMPORTANCE",
    "KINDS",
    "MAX_CANDIDATES",
    "Candidate",
    "Known",
    "ahead",
    "derive",
    "kind_of",
    "known_of",
    "people",
    "places",
    "topics",
]
