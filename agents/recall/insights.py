"""Candidate insights for a grounded reflection, derived by rule from memories.

The embedded 135M model writes reflections poorly ("Giorgio Rossi has been a
victim of the HIV/AIDS epidemic", "In the record for 1, the number of rows ...")
and they enter the memory stream as if true. In the grounded mode a reflection
is chosen, not written (agents/recall/reflect.py): these rules read what the recent
memories SAY (and the resident's description) and offer what it shows of people, as the
paper's reflections do ("Klaus Mueller is dedicated to his research on gentrification"),
each citing the memories it rests on:

- ``character``: what someone is like or cares about: a pursuit seen or told of again and
  again ("Ayesha Khan is dedicated to researching english literature."), what one's own
  description says one cares about ("I care a lot about fairness and community.");
- ``aims``: what someone else is working towards, in their own words ("Sam Moore is working
  towards running for mayor of the Ville in the coming local election."), a gathering they
  host ("Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe on February 14.");
- ``bond``: how people stand with each other: friendships told of, guests who came to what
  one hosted, invitations again and again ("Maria Lopez wants to spend time with me.");
- ``wants``: what the resident itself wants ("I want my study group to be a success.",
  "I want to get to know Klaus Mueller better.", "I want to finish my research paper on ...");
- ``ahead``: what one is looking forward to: a dated intention, an event heard of or
  an arrangement ("I am looking forward to the Valentine's Day party at Hobbs Cafe
  on February 14").

The rule builds each sentence from the memory's own words (the object of what someone said
they are doing, decided, host); the model only chooses. Counts of meetings, places and words
(the ``TALLIES`` of old: "I often talk with Ayesha Khan.") are no longer derived: true, but
no insight; such reflections in older saves are still known by their kind (``kind_of``).

A candidate is in the resident's voice, as its own thoughts are stored ("I want to
host ..."), and names only people the mind knows (``Known``) and places in its
spatial memory; one that names anyone or anywhere else is not offered.
"""
from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta

from agents.explain import provenance as pv
from agents.recall import grounding as gr
from agents.recall.memory import MemoryNode
from agents.recall.spatial import SpatialMemory
from agents.words import activity
from agents.words import dated as dt

KINDS = ("character", "aims", "bond", "wants", "ahead")
# kinds of old that counted what happened ("I often talk with ...", "The coffee keeps coming up",
# "I often spend time at home"): no longer derived, but older saves hold them (agents/talk/dialogue.py)
TALLIES = ("people", "topic", "places")
_KIND_IN_SOURCE = re.compile(r"\binsights \((\w+), from memories\b")
MAX_CANDIDATES = 6  # what the chooser sees: each costs prompt tokens and a branch of the grammar
MAX_EVIDENCE = 8  # memories a candidate cites (the most recent of those it rests on)
PURSUIT_MEMORIES = 3  # memories of a pursuit that show someone is dedicated to it ...
PURSUIT_SESSIONS = 2  # ... at separate times (one long afternoon seen 3 times is one session)
SESSION_GAP = timedelta(hours=2)
DESCRIBED = 1.0  # the weight of what only the description says: what happened comes first
# The importance a rule gives each kind (the model rates it later, as it does observations).
IMPORTANCE = {"character": 6, "aims": 6, "bond": 6, "wants": 6, "ahead": 6}

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
_GOING_ON = re.compile(r"\b(?:just now|right now|is what I'm doing|keeps me busy)\b|\bI'm attending\b[^;]*\btoday\b",
                       re.I)
_TIMES = re.compile(r"\b\d{1,2}:\d\d\b")
_NAME_RUN = re.compile(r"[A-Z][\w'-]*(?:\s+(?:of|and|the|de|van|von)?\s*[A-Z][\w'-]*)*")
_NAME = r"[A-Z][a-z]+ [A-Z][a-z]+"
_RELAYED = re.compile(rf'^({_NAME}) told me: "?(.*?)"?$')  # a line passed on: the quoted one's words
_DOING = re.compile(r"\b(?:I'm|I am|I'll be)\s+([a-z][\w' ]+)")  # "at 8 am I'm studying physics at ..."
_DOING_FIRST = re.compile(r"^([A-Z][a-z]+ing\b[\w' ]*?) (?:is what I'm doing|keeps me busy)")
# Activities that show what someone cares about; the rest (meals, drinks, chores, talk) are everyday.
# (in the order its words are preferred: "researching gentrification", not "taking notes on" it)
PURSUITS = ("researching", "studying", "writing", "working on", "painting", "composing", "training for",
            "practising", "practicing", "rehearsing", "preparing for", "campaigning for", "designing", "teaching",
            "tutoring", "experimenting with", "photographing", "sketching", "drawing", "coding", "reading about",
            "reading up on", "taking notes on")
_PURSUIT = re.compile(rf"^({'|'.join(PURSUITS)})\s+(.+)$", re.I)
_PLACE_TAIL = re.compile(r"\s+(?:at|in|on|from|until|with|today|tonight|tomorrow|now|just|right|this|next|every|"
                         r"each|and|but|so|because|while|later)\b", re.I)
_EVERYDAY_OBJECTS = {"notes", "emails", "email", "messages", "menu", "list", "letter", "letters", "tasks", "task",
                     "things", "stuff", "chores", "work", "it", "something"}
_GOAL = re.compile(r"\b(?:I(?:'ve| have) decided|my goal is|I hope|I plan|I(?:'m| am) planning|I intend|I aim)"
                   r" to ([a-z][^;,.!?]+)")
_FRIEND = re.compile(rf"\bI(?:'m| am) (?:a |an )?(?:very |really )?(good |close |best |old |dear )?friends? "
                     rf"(?:of|with) ({_NAME})")
_COUNTS_FRIEND = re.compile(rf"\bI count ({_NAME}) among my (?:closest |best |good )?friends")
_INVITE = re.compile(r"\b(?:would you like to (?:join|come)|join me\b|come along|want to come|why don't you join|"
                     r"will you come|care to join)", re.I)
_HOSTED = re.compile(r"^I hosted the (.+?) at .+? on \w+ \d{1,2}; (.+?) came\.?$")  # agents/planning/recaps.py
_FEELINGS = re.compile(rf"\bI have (?:a )?(?:secret )?(?:crush on|feelings for) ({_NAME})")
_WORK = re.compile(r"^I am (writing|working on|preparing) (?:a|an|the|my) (.+?)\.?$")
_CARES = re.compile(r"^I (care (?:a lot |deeply |very much |so much )?about|love|like|enjoy) (.+?)\.?$")
_DESCRIPTION = (pv.tag(pv.RULE, pv.SEED), pv.GIVEN_THOUGHT)

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
    terms: set[str] = field(default_factory=set)  # other names it may use: the town's, its description's

    def first_names(self) -> set[str]:
        return {p.split()[0] for p in self.people | {self.me}}

    def unknown(self, text: str) -> str | None:
        """The first name-like words in ``text`` that are no person or place the mind knows
        (None: it names only what it knows). The first word of a sentence may be capitalised."""
        t = str(text)
        for name in sorted(self.people | {self.me} | self.places | self.terms, key=len, reverse=True):
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
    the sectors of its spatial memory, and the other names its description uses
    ("Shakespeare's use of language")."""
    named: set[str] = set()
    terms: set[str] = set()
    for x in nodes:
        if x.kind == "thought" and pv.kind_of(x.source) == pv.RULE:
            named |= {f"{a} {b}" for a, b in re.findall(r"\b([A-Z][a-z]+)\s+([A-Z][a-z]+)\b", x.description)}
        if x.kind == "thought" and x.source in _DESCRIPTION:
            terms |= {w for w in re.findall(r"(?<=[a-z,] )([A-Z][a-z]+)(?:'s)?\b", x.description)}
    places = set(spatial.tree)
    named = {n for n in named if not any(n in p for p in places) and not set(n.split()) & CALENDAR}
    return Known(me, {p for p in people if p and p != me} | named - {me}, places, home, terms)


# ---------------------------------------------------------------------------- the rules

def kind_of(source: str | None) -> str | None:
    """The kind of rule a grounded reflection came from, as its provenance records it
    (agents/recall/reflect.py ``grounded_source``: "... chosen from 4 insights (bond, from
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


def _timetable(x: MemoryNode) -> bool:
    return len(_TIMES.findall(x.description)) >= 2  # a whole day's plan


def _said(x: MemoryNode) -> str:
    """The words a memory holds: a quoted line without "X told Maria:"."""
    d = x.description
    if x.kind == "chat" and x.predicate in ("told", "said"):
        quoted = re.findall(r'"([^"]*)"', d)
        return " ".join(quoted) if quoted else d
    return d


def _voices(x: MemoryNode, me: str) -> list[tuple[str, str]]:
    """Who said what in a memory, as (speaker, words): a heard line is its teller's, and a
    line it passes on ("Sam Moore told me: "I have decided ..."") is the one it quotes; the
    resident's own thoughts and plans are its own. Memos of a talk mix voices: none."""
    d = " ".join(x.description.split())
    if x.kind == "chat" and x.predicate == "told" and x.subject and x.subject != me:
        m = re.match(r'^[^"]*?told \w+: "(.*)"$', d)
        words = m.group(1) if m else _said(x)
        relayed = _RELAYED.match(words)
        if relayed:
            return [(relayed.group(1), relayed.group(2))]
        return [(x.subject, words)]
    if x.kind in ("thought", "plan") and x.subject in (me, None) and not _timetable(x):
        return [(me, d)]
    return []


def _clauses(words: str) -> list[str]:
    return [c.strip() for c in re.split(r"[;.!?]\s*|,\s+(?:and|but)\s+", words) if c.strip()]


def described(x: MemoryNode) -> bool:
    """A line of the resident's description, or a thought given to it (the scenario's)."""
    return x.kind == "thought" and x.source in _DESCRIPTION


def _own_words(text: str, me: str) -> str:
    """A line of one's description in one's own voice: "he cares a lot about fairness" ->
    "I care a lot about fairness"; "she loves showing her paintings" -> "I love showing my
    paintings". A line already in the first person is left as it is."""
    t = " ".join(str(text).split()).rstrip(".")
    m = re.match(rf"^(?:he|she|they|{re.escape(me)}|{re.escape(me.split()[0])})\s+(\w+)\b(.*)$", t, re.I)
    if m is None:
        return t
    verb, rest = m.group(1).lower(), m.group(2)
    irregular = {"is": "am", "are": "am", "has": "have", "does": "do", "was": "was"}
    if verb in irregular:
        verb = irregular[verb]
    elif verb.endswith("ies"):
        verb = verb[:-3] + "y"
    elif verb.endswith(("ches", "shes", "sses", "xes", "oes")):
        verb = verb[:-2]
    elif verb.endswith("s"):
        verb = verb[:-1]
    rest = re.sub(r"\b(?:his|her|their)\b", "my", rest)
    rest = re.sub(r"\b(?:himself|herself|themselves)\b", "myself", rest)
    return f"I {verb}{rest}"


def _friendship(words: str) -> tuple[str, str] | None:
    """(how, whom) of a friendship said in the first person: "I am a good friend of Ayesha
    Khan" -> ("good", "Ayesha Khan"); "I count Maria Lopez among my closest friends" -> ("close", ...)."""
    m = _FRIEND.search(words)
    if m:
        return (m.group(1) or "").strip(), m.group(2)
    m = _COUNTS_FRIEND.search(words)
    return ("close", m.group(1)) if m else None


def _gerund_phrase(verb_phrase: str) -> str | None:
    """ "run for mayor of the Ville in the coming local election" -> "running for mayor of
    the Ville in the coming local election"; None for a phrase that is no doing."""
    words = verb_phrase.strip().split()
    if len(words) < 2 or words[0].lower() in _STOP or re.search(r"\d", verb_phrase):
        return None
    return " ".join([activity.gerund(words[0]), *words[1:]])


def _pursuit(doing: str) -> tuple[str, str] | None:
    """An activity that shows what someone cares about, as (its words, its subject):
    "reading about gentrification at a library table" -> ("reading about gentrification",
    "gentrification"); an everyday one ("having a drink at the bar") -> None."""
    t = " ".join(doing.split()).rstrip(".")
    m = _PURSUIT.match(t)
    if m is None:
        return None
    verb, rest = m.group(1).lower(), m.group(2)
    rest = _PLACE_TAIL.split(rest, maxsplit=1)[0].strip()
    words = rest.split()
    if not words or re.search(r"\d", rest) or words[0].lower() in _STOP - {"a", "an", "the", "my", "his", "her"}:
        return None
    subject = " ".join(w for w in words if w.lower() not in ("a", "an", "the", "my", "his", "her", "their"))
    if not subject or any(w.removesuffix("'s") in _STOP | _EVERYDAY_OBJECTS for w in subject.lower().split()[-1:]):
        return None  # "working on the day's tasks": no pursuit
    return f"{verb} {rest}", subject.lower()


def _activities(x: MemoryNode, me: str) -> list[tuple[str, str]]:
    """(whose, activity) a memory shows: an observation of someone, or a heard line in which
    the teller says what they are doing ("I'm researching english literature at the library")."""
    if x.kind == "observation" and x.subject and ":" not in x.subject and x.predicate == "is" and x.object:
        return [(x.subject, x.object)]
    out = []
    for who, words in _voices(x, me):
        if x.kind != "chat":
            continue
        for c in _clauses(words):
            m = _DOING_FIRST.match(c) or _DOING.search(c)
            if m:
                out.append((who, m.group(1)))
    return out


def character(nodes: Sequence[MemoryNode], known: Known) -> list[Candidate]:
    """What someone is like, or cares about: a pursuit seen or told of again and again, at
    separate times ("Ayesha Khan is dedicated to researching english literature."); and
    what the resident's own description says it cares about or loves ("I care a lot about
    fairness and community.")."""
    by: dict[tuple[str, str], list[tuple[str, MemoryNode]]] = defaultdict(list)
    for x in nodes:
        for who, doing in _activities(x, known.me):
            p = _pursuit(doing)
            if p is not None and who:
                by[(who, p[1])].append((p[0], x))
    out = []
    for (who, _topic), seen in by.items():
        times = sorted(x.created for _w, x in seen)
        sessions = 1 + sum(1 for a, b in itertools.pairwise(times) if b - a > SESSION_GAP)
        if len(seen) < PURSUIT_MEMORIES or sessions < PURSUIT_SESSIONS:
            continue
        said = Counter(w for w, _x in seen)
        words = min(said, key=lambda w: (next(i for i, v in enumerate(PURSUITS) if w.startswith(v)), -said[w]))
        text = f"I am dedicated to {words}." if who == known.me else f"{who} is dedicated to {words}."
        out.append(Candidate("character", text, _cite(x for _w, x in seen), float(len(seen)) / 2 + sessions))
    for x in nodes:
        if described(x):
            m = _CARES.match(_own_words(x.description, known.me))
            if m:
                out.append(Candidate("character", f"I {m.group(1)} {m.group(2)}.", (x.id,), DESCRIBED))
    return out


def aims(nodes: Sequence[MemoryNode], known: Known, now: datetime) -> list[Candidate]:
    """What someone else is working towards: a decision or goal in their own words ("I have
    decided to run for mayor ..." -> "Sam Moore is working towards running for mayor ..."), a
    gathering they host, still to come ("Isabella Rodriguez is planning a Valentine's Day party
    at Hobbs Cafe on February 14.")."""
    found: dict[str, tuple[str, list[MemoryNode]]] = {}
    for x in nodes:
        if x.kind != "chat" or x.predicate != "told":
            continue
        for who, words in _voices(x, known.me):
            if who == known.me:
                continue
            for c in _clauses(words):
                m = _GOAL.search(c)
                if m:
                    aim = _gerund_phrase(m.group(1))
                    if aim:
                        found.setdefault(f"{who}|{aim}", (f"{who} is working towards {aim}.", []))[1].append(x)
            if dt.ended(words, x.created, now):
                continue
            ev = dt.read_as_made(words, x.created, teller=who)
            if ev is None or ev.meeting or not ev.host or ev.host == known.me or ev.day < now.date():
                continue
            text = f"{ev.host} is planning {ev.short()} on {ev.day:%B} {ev.day.day}."
            found.setdefault(f"{ev.host}|{ev.key}", (text, []))[1].append(x)
    return [Candidate("aims", text, _cite(xs), float(len(xs)) + 2) for text, xs in found.values()]


def bonds(nodes: Sequence[MemoryNode], known: Known) -> list[Candidate]:
    """How people stand with each other, from what was said and done: friendships told of
    ("I am a good friend of Ayesha Khan" -> "Wolfgang Schulz and Ayesha Khan are good
    friends."), guests who came to what one hosted ("Ayesha Khan is a good friend who came to
    my discussion evening."), invitations again and again ("Maria Lopez wants to spend time
    with me."), and one's own description's friends."""
    found: dict[str, tuple[str, list[MemoryNode], float]] = {}

    def add(key: str, text: str, x: MemoryNode, weight: float) -> None:
        old = found.setdefault(key, (text, [], weight))
        old[1].append(x)
        found[key] = (text, old[1], max(old[2], weight))

    invited: dict[str, list[MemoryNode]] = defaultdict(list)
    hosted: dict[str, list[tuple[str, MemoryNode]]] = defaultdict(list)
    for x in nodes:
        for who, words in _voices(x, known.me):
            if who == known.me:
                f = _friendship(_own_words(words, known.me)) if described(x) else None
                if f and f[1] != known.me:
                    add(f"friend|{f[1]}", f"{f[1]} is a {f[0] + ' ' if f[0] else ''}friend of mine.", x, DESCRIBED)
                continue
            f = _friendship(words)
            if f and f[1] == known.me:
                add(f"friend|{who}", f"{who} is a {f[0] + ' ' if f[0] else ''}friend of mine.", x, 4.0)
            elif f and f[1] != who:
                pair = "|".join(sorted((who, f[1])))
                add(f"pair|{pair}", f"{who} and {f[1]} are {f[0] + ' ' if f[0] else ''}friends.", x, 3.0)
            if x.kind == "chat" and _INVITE.search(words):
                invited[who].append(x)
        if x.kind == "thought" and x.source == pv.tag(pv.RULE, pv.RECAP):
            m = _HOSTED.match(x.description)
            if m:
                for guest in re.findall(_NAME, m.group(2)):
                    hosted[guest].append((m.group(1), x))
    for guest, went in hosted.items():
        what = " and ".join(dict.fromkeys(f"my {w}" for w, _x in went))
        add(f"came|{guest}", f"{guest} is a good friend who came to {what}.", went[0][1], 4.0 + len(went))
        for _w, x in went[1:]:
            found[f"came|{guest}"][1].append(x)
    for who, xs in invited.items():
        if len({x.created.date() for x in xs}) >= 2 or len(xs) >= 3:
            for x in xs:
                add(f"invites|{who}", f"{who} wants to spend time with me.", x, 2.0 + len(xs) / 2)
    return [Candidate("bond", text, _cite(xs), weight) for text, xs, weight in found.values()]


def wants(nodes: Sequence[MemoryNode], known: Known, now: datetime) -> list[Candidate]:
    """What the resident itself wants: a gathering it means to host, still to come ("I want
    my discussion evening to be a success."), someone it has feelings for ("I want to get to
    know Klaus Mueller better."), what it decided to do, and the work its description says it
    is doing ("I want to finish my research paper on how gentrification changes poor
    neighbourhoods.")."""
    found: dict[str, tuple[str, list[MemoryNode], float]] = {}
    for x in nodes:
        if x.kind not in ("thought", "plan") or x.subject not in (known.me, None) or _timetable(x):
            continue
        d = " ".join(x.description.split())
        if x.source == pv.tag(pv.RULE, pv.RECAP):
            continue  # how a gathering went: past
        arranged = _ARRANGED.search(d) if x.kind == "plan" else None
        hosting = (arranged.group(3).lower().startswith("hosting") if arranged
                   else x.kind == "thought" and dt.hosting(d))
        if hosting and not dt.ended(d, x.created, now):
            ev = dt.read_as_made(d, x.created)
            what = ev.what if ev is not None else (_event_phrase(d) or ("", 0))[0]
            if what:
                key = f"host|{what.lower()}|{ev.day if ev else ''}"
                found.setdefault(key, (f"I want my {what} to be a success.", [], 5.0))[1].append(x)
            continue
        own = _own_words(d, known.me)
        m = _FEELINGS.search(own)
        if m:
            text = f"I want to get to know {m.group(1)} better."
            found.setdefault(f"know|{m.group(1)}", (text, [], 5.0))[1].append(x)
        m = _GOAL.search(own)
        if m and not hosting and x.kind == "thought" and not _HOST.search(m.group(1)):
            aim = _gerund_phrase(m.group(1))
            if aim:
                found.setdefault(f"aim|{aim}", (f"I am working towards {aim}.", [], 4.0))[1].append(x)
        m = _WORK.match(own) if described(x) else None
        if m:
            found.setdefault(f"work|{m.group(2)}", (f"I want to finish my {m.group(2)}.", [], DESCRIBED))[1].append(x)
    return [Candidate("wants", text, _cite(xs), weight) for text, xs, weight in found.values()]


def place_words(sector: str, known: Known) -> str:
    """How the resident names a sector: "home" for its own, else the sector's name."""
    return "home" if sector == known.home else sector




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


def _clause_of_event(text: str) -> str:
    """The clause of ``text`` that names its first event (as agents/words/dated.py parse reads it)."""
    m = _EVENT.search(text)
    if m is None:
        return text
    cuts = r"[;!?]\s|\.\s"
    lo = max((c.end() for c in re.finditer(cuts, text[: m.start()])), default=0)
    hi = re.search(cuts, text[m.end():])
    return text[lo: m.end() + hi.start() if hi else len(text)]


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


def _arranged(x: MemoryNode, known: Known, now: datetime) -> tuple[str, str] | None:
    """An arrangement's plan memory, still to come, as (key, "I am looking forward to ...")."""
    arranged = _ARRANGED.search(x.description)
    if arranged is None:
        return None
    day_words, hhmm, doing, place, _with = arranged.groups()
    m = _DATE.search(day_words)
    try:
        day = date(now.year, MONTHS.index(m.group(1)) + 1, int(m.group(2))) if m else None
    except ValueError:
        day = None
    if day is None or day < now.date():
        return None
    sector = place.split(":")[0].strip()
    where = f" at {place_words(sector, known)}" if sector in known.places else ""
    return f"{doing.lower()}|{day}", f"I am looking forward to {doing}{where} on {day:%B} {day.day} at {hhmm}."


def ahead(nodes: Sequence[MemoryNode], known: Known, now: datetime) -> list[Candidate]:
    """What one is looking forward to: an arrangement made in conversation, one's own
    dated intention ("I want to host a party ... on February 14") or an event one heard of,
    still to come. Its place is named only when the mind knows it; one it declined is not
    looked forward to."""
    found: dict[str, tuple[str, list[MemoryNode], int]] = {}
    declined: set[str] = set()
    for x in nodes:
        if x.kind not in ("chat", "thought", "plan") or _timetable(x) or x.source == pv.tag(pv.RULE, pv.RECAP):
            continue  # (a gathering remembered as it went is past, whatever day it names)
        d = _said(x) if x.kind == "chat" else x.description
        if x.kind == "chat" and x.predicate == "declined" and x.subject == known.me:
            # "I declined Carmen Ortiz's invitation (the game night at The Rose and Crown Pub on February 15, ...)"
            ev, when = _event_phrase(d), _when(d, x.created, now)
            if ev is not None and when is not None:
                declined.add(f"{ev[0].lower()}|{when[1]}")
            continue
        if dt.ended(d, x.created, now):
            continue  # over: nothing to look forward to
        if x.kind == "plan" and _ARRANGED.search(x.description):
            if (got := _arranged(x, known, now)) is not None:
                found.setdefault(got[0], (got[1], [], 3))[1].append(x)
            continue
        d = _clause_of_event(d)  # its own time and place, not the next clause's ("...; at 7 pm I'm at the pub")
        if _GOING_ON.search(d):
            continue  # under way when it was said ("I'm attending the game night just now"): nothing ahead
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
        what = (f"hosting the {phrase}" if mine
                else phrase if activity.is_gerund(phrase.split()[0]) and not _SOON.fullmatch(phrase.split()[0])
                and not any(phrase.lower().startswith(n) for n in EVENT_NOUNS if " " in n)
                else f"the {phrase}")  # "having lunch at Hobbs Cafe", not "the having lunch"; "the coming election",
        # "the sketching session"
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
        if key in declined:
            continue
        # ... and every other memory that speaks of the same event
        phrase = key.split("|")[0]
        also = [x for x in nodes if x.kind in ("chat", "thought", "plan") and phrase in x.description.lower()]
        out.append(Candidate("ahead", text, _cite([*xs, *also]), float(len({x.id for x in [*xs, *also]}) + score)))
    return out




def derive(nodes: Sequence[MemoryNode], known: Known, world: str, now: datetime,
           said_before: Iterable[str] = ()) -> list[Candidate]:
    """The candidate insights of ``nodes`` (a reflection's recent memories and the
    resident's description), the best of each kind first, then the rest by weight; none
    naming anyone or anywhere the mind does not know, none it concluded before
    (``said_before``), at most MAX_CANDIDATES. The tallies of old ("I often talk with
    Maria Lopez.", "The coffee keeps coming up.") are no candidates: a count is true but
    tells nothing about anyone; retrieval finds the meetings themselves."""
    usable = [x for x in nodes if _offered(x)]
    old = {gr._norm(t) for t in said_before}
    known = replace(known, terms=known.terms | {world})
    by_kind = {"character": character(usable, known), "aims": aims(usable, known, now), "bond": bonds(usable, known),
               "wants": wants(usable, known, now), "ahead": ahead(usable, known, now)}
    fine: dict[str, list[Candidate]] = {}
    for kind, cands in by_kind.items():
        fine[kind] = sorted((c for c in cands if c.evidence and gr._norm(c.text) not in old
                             and known.unknown(c.text) is None and not gr.echoes_prompt(c.text)),
                            key=lambda c: -c.weight)
    # The best of each kind first: what happened before what only the description says, then
    # insights about people before plans (a small model mostly picks the first or second).
    first = sorted((cs[0] for k in KINDS if (cs := fine[k])),
                   key=lambda c: (c.weight <= DESCRIBED, KINDS.index(c.kind), -c.weight))
    rest = sorted((c for k in KINDS for c in fine[k][1:]), key=lambda c: -c.weight)
    return (first + rest)[:MAX_CANDIDATES]


__all__ = [
    "IMPORTANCE",
    "KINDS",
    "MAX_CANDIDATES",
    "TALLIES",
    "Candidate",
    "Known",
    "ahead",
    "aims",
    "bonds",
    "character",
    "derive",
    "described",
    "kind_of",
    "known_of",
    "wants",
]
