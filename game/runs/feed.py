"""The town feed: what just happened worth noticing, read off the event log (no pygame).

The simulation's event log (game/sim/eventlog.py) says everything; a player wants
the few things that show the town living: who talked to whom and what news
passed ("Isabella told Maria about the Valentine's Day party at Hobbs Cafe"),
plans made in conversation and plans changed by what was heard or seen
(arrangements, reactions, the inner voice), reflections, gatherings (several
residents in one public place at once, not at home nor at their own work: the
students in class are none, the cafe's guests are) and reactions to the
world's edits.

``FeedBuilder.add(event)`` folds one event into the feed, oldest first; it is
the only reader of events here, so the game's live feed (game/runs/live_feed.py)
and a replay's (built from the recording) say the same. Each ``Entry`` is one
short line; the feed keeps the newest ``MAX_ENTRIES``. Repeats fold: the same
two talking again within ``FOLD_MIN`` sim minutes is one entry ("×2"), and the
reflections one resident makes at once are one entry. An event that is not an
event (not a dict, no kind, no time) is skipped and counted (``skipped``),
never a crash.

``to_state()`` / ``from_state()``: the feed and what it is in the middle of
(open conversations, who is where), for the save.
"""
from __future__ import annotations

import logging
import re
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any  # in signatures: a value from an event or a save (JSON), checked where read

from agents import Persona
from game.world.town import Town

log = logging.getLogger(__name__)

MAX_ENTRIES = 300  # the feed's length (older entries drop off)
FOLD_MIN = 30  # the same two talking again within this many sim minutes: one entry
GATHER_MIN = 3  # residents in one public place at once: a gathering ...
GATHER_MEAL = 5  # ... at meal times in a place to eat (a cafe or a pub fills anyway)
GATHER_END = 2  # ... over when fewer than this remain
MEAL_HOURS = ((7, 9), (12, 14), (18, 20))  # [from, to) in sim hours
EATING = re.compile(r"cafe|café|pub\b|restaurant|diner|bistro|bar\b|tavern", re.I)  # places to eat, by name
EDIT_REACT_MIN = 120  # a reaction this soon after an edit, naming its object or state, is a reaction to it
TEXT_CHARS = 110  # an entry's text, at most
QUOTE = 60  # characters of a line quoted

# kind -> (emoji, topic): the topic is what the filter offers
KINDS: dict[str, tuple[str, str]] = {
    "talk": ("💬", "talk"),
    "news": ("📣", "talk"),
    "arrangement": ("📅", "plans"),
    "replan": ("🔁", "plans"),
    "reaction": ("❗", "plans"),
    "inner voice": ("🗣️", "plans"),
    "reflection": ("💭", "reflections"),
    "gathering": ("🎉", "gatherings"),
    "edit": ("🔥", "world"),
    "edit reaction": ("🚒", "world"),
}
TOPICS = ("talk", "plans", "reflections", "gatherings", "world")

# what makes a line news: an event, named (the words before it with capitals: "Valentine's Day party")
_EVENT_WORDS = (r"party|parties|election|campaign|exhibition|exhibit|concert|gig|festival|show|opening|open mic|"
                r"reading|meeting|wedding|birthday|celebration|performance|competition|tournament|match|lecture|"
                r"fundraiser|sale|market|dinner party|potluck|recital|screening|game night")
# An event is a noun after a determiner ("a Valentine's Day party", "the big opening", "Sam's
# campaign"): "Still reading about a paper" and "I'm meeting Klaus" are no news.
_DETERMINER = r"\b(?i:a|an|the|my|our|his|her|their|this|that|[\w]+['’]s)\s+(?:[a-z][\w-]*\s+){0,2}"
_EVENT = re.compile(rf"{_DETERMINER}((?:[A-Z][\w'’]*\s+){{0,3}})((?i:{_EVENT_WORDS}))\b")


_NAME = r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)?"
_ARRANGED = re.compile(rf"arrangement (?:agreed )?with ({_NAME})")
_HEARD = re.compile(rf"from memory #(\d+) \(({_NAME}) told [^:]*:?\s*[\"“]?([^\"”)]{{0,40}})")


@dataclass(eq=False)  # entries are found by identity (a field-by-field compare made the feed 10x slower)
class Entry:
    """One line of the feed."""
    id: int  # the builder's count: an entry updated in place keeps its id
    time: str  # sim time, ISO ("2023-02-13 09:12:00"): when it happened (its latest part, when folded)
    kind: str  # a key of KINDS
    who: tuple[str, ...]  # the residents in it, the one to follow first
    text: str  # one short line, without the time
    topic: str = ""  # the news, when a line passed some ("the Valentine's Day party at Hobbs Cafe")
    place: str = ""  # an address
    times: int = 1  # repeats folded into it
    why: tuple[str, str, str] | None = None  # (act kind, sim time, text): the Why? panel's question
    frame: int | None = None  # a replay's frame

    @property
    def emoji(self) -> str:
        return KINDS.get(self.kind, ("•", ""))[0]

    @property
    def category(self) -> str:
        return KINDS.get(self.kind, ("", ""))[1]

    @property
    def when(self) -> datetime | None:
        return _time(self.time)

    def line(self) -> str:
        """What the feed shows: "09:12 Isabella and Maria talk at Hobbs Cafe (×2)" (the panels'
        fonts have no emoji)."""
        more = f" (×{self.times})" if self.times > 1 else ""
        hm = self.time[11:16]  # "2023-02-13 07:33:00" -> "07:33" (drawn often: no parsing)
        return f"{hm} {self.text}{more}" if len(hm) == 5 and hm[2] == ":" else f"{self.text}{more}"

    def matches(self, resident: str | None = None, topic: str | None = None) -> bool:
        """The filter: one resident (a full or first name; any word of the line too), one topic."""
        if topic and topic not in (self.category, self.kind):
            return False
        r = " ".join(str(resident or "").split()).casefold()
        if not r:
            return True
        if any(r == w.casefold() or r == w.split()[0].casefold() for w in self.who):
            return True
        return r in self.text.casefold() or r in self.topic.casefold()

    def to_dict(self) -> dict:
        return {"id": self.id, "time": self.time, "kind": self.kind, "who": list(self.who), "text": self.text,
                "topic": self.topic, "place": self.place, "times": self.times,
                "why": list(self.why) if self.why else None, "frame": self.frame}

    @classmethod
    def from_dict(cls, d: Any) -> Entry:
        """An entry from a save, every field checked (the views draw them every frame: a time
        that is a number, a text that is not one, would crash them); ValueError naming what is
        wrong."""
        if not isinstance(d, dict):
            raise ValueError(f"a feed entry must be a mapping, not {type(d).__name__}")
        missing = [k for k in ("id", "time", "kind", "who", "text") if k not in d]
        if missing:
            raise ValueError(f"a feed entry lacks {', '.join(missing)}")
        problem = _entry_problem(d)
        if problem:
            raise ValueError(f"a feed entry of kind {str(d.get('kind'))[:20]!r} at {str(d.get('time'))[:30]!r}: "
                             f"{problem}")
        why = d.get("why")
        return cls(id=d["id"], time=d["time"], kind=d["kind"], who=tuple(d["who"]), text=d["text"],
                   topic=d.get("topic", ""), place=d.get("place", ""), times=d.get("times", 1),
                   why=tuple(why) if why else None, frame=d.get("frame"))


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _entry_problem(d: dict) -> str:
    """What is wrong with a saved entry's fields ("" when nothing): each of the kind ``to_dict`` writes."""
    why, times, frame = d.get("why"), d.get("times", 1), d.get("frame")
    checks = ((isinstance(d["kind"], str) and d["kind"] in KINDS, "not a kind this game makes"),
              (isinstance(d["time"], str) and _time(d["time"]) is not None, "its time is not an ISO time"),
              (_whole(d["id"]), "its id is not a whole number"),
              (isinstance(d["who"], (list, tuple)) and all(isinstance(w, str) for w in d["who"]),
               "who is not a list of names"),
              (all(isinstance(d.get(k, ""), str) for k in ("text", "topic", "place")),
               "its text, topic or place is not text"),
              (_whole(times) and times >= 1, "times is not a count"),
              (why is None or (isinstance(why, (list, tuple)) and len(why) == 3
                               and all(isinstance(x, str) for x in why)), "why is not three texts"),
              (frame is None or _whole(frame), "its frame is not a whole number"))
    return next((problem for ok, problem in checks if not ok), "")


def _time(text: Any) -> datetime | None:
    if isinstance(text, datetime):
        return text
    try:
        return datetime.fromisoformat(str(text))
    except (TypeError, ValueError):
        return None


def _clip(text: str, n: int = TEXT_CHARS) -> str:
    t = " ".join(str(text or "").split())
    return t if len(t) <= n else t[: n - 1].rstrip() + "…"


def _quote(text: str) -> str:
    return "“" + _clip(text, QUOTE) + "”"


def first(name: str) -> str:
    return name.split()[0] if name else "?"


def sector(address: Any) -> str:
    """'the Ville:Hobbs Cafe:cafe:counter' -> 'the Ville:Hobbs Cafe' ('' outdoors)."""
    parts = str(address or "").split(":")
    return ":".join(parts[:2]) if len(parts) > 1 else ""


def place_name(address: Any) -> str:
    """'the Ville:Hobbs Cafe:cafe:counter' -> 'Hobbs Cafe'."""
    parts = str(address or "").split(":")
    return parts[1] if len(parts) > 1 else "outdoors"


def news_topic(text: str, places: Iterable[str] = ()) -> str:
    """The news a line carries, in a few words ("the Valentine's Day party at Hobbs Cafe"),
    or "" when it names no event: an event word, the capitalised words before it, and a
    place the line names."""
    m = _EVENT.search(text or "")
    if m is None:
        return ""
    lead = [w for w in m.group(1).split() if w.casefold() not in ("i", "i'm", "my", "our", "the", "a", "an")]
    topic = " ".join([*lead, m.group(2).lower()])
    where = next((p for p in places if p and p.casefold() in text.casefold() and p.casefold() not in topic.casefold()),
                 "")
    return f"the {topic}" + (f" at {where}" if where else "")


def news_word(topic: str) -> str:
    """The word a piece of news turns on, to follow it from teller to teller ("the Valentine's
    Day party at Hobbs Cafe" -> "party"); "" for none."""
    m = _EVENT.search(str(topic or "").split(" at ", 1)[0])
    return m.group(2).lower() if m else ""


@dataclass
class _Talk:
    """A conversation under way: its entry and what was said."""
    a: str
    b: str
    entry: int  # the entry's id
    lines: int = 0
    news: list[tuple[str, str, str]] = field(default_factory=list)  # (teller, listener, topic)
    first_line: str = ""


class FeedBuilder:
    """Events in, entries out (see the module's notes). One thread at a time."""

    def __init__(self, residents: Iterable[str] = (), homes: Iterable[str] = (), places: Iterable[str] = (),
                 *, workplaces: dict[str, str] | None = None, gatherings: bool = True,
                 moves_from_actions: bool = True, max_entries: int = MAX_ENTRIES) -> None:
        self.residents = set(residents)  # empty: anyone named is a resident
        self.homes = {sector(h) for h in homes if sector(h)}
        # where each works or studies: the students in class, the cafe's owner at work, are no gathering
        self.workplaces = {n: sector(w) for n, w in (workplaces or {}).items() if sector(w)}
        self.places = sorted({p for p in places if p}, key=len, reverse=True)  # sector names lines may name
        self.track_gatherings = gatherings
        self.moves_from_actions = moves_from_actions  # an action elsewhere takes them away (a replay: tiles say)
        self.entries: deque[Entry] = deque(maxlen=max_entries)
        self._by_id: dict[int, Entry] = {}  # the entries by id (those still in the feed)
        self.skipped = 0  # events that were not events
        self.dropped = 0  # damaged entries of a loaded save, left out
        self.seen = 0  # events read (the live feed's place in the event log)
        self._next = 1
        self._talks: dict[str, _Talk] = {}  # conversation id -> what is under way
        self._pairs: dict[tuple[str, str], int] = {}  # (a, b) sorted -> their last talk's entry id
        self._where: dict[str, str] = {}  # resident -> the sector they arrived at
        self._gathered: dict[str, int] = {}  # sector -> its gathering's entry id, while it lasts
        self._edits: deque[tuple[str, str, str, str]] = deque(maxlen=20)  # (time, address, object, state)
        self._reflected: dict[str, int] = {}  # resident -> the entry of their reflections at one time
        self._arranged: dict[tuple[str, str, str], int] = {}  # (resident, partner, start) -> its entry
        self._acted: dict[str, str] = {}  # resident -> the origin of the plan they last acted on

    def blank(self) -> FeedBuilder:
        """A new, empty builder for the same town."""
        b = FeedBuilder(self.residents, (), (), gatherings=self.track_gatherings,
                        moves_from_actions=self.moves_from_actions, max_entries=self.entries.maxlen or MAX_ENTRIES)
        b.homes, b.places, b.workplaces = set(self.homes), list(self.places), dict(self.workplaces)
        return b

    # ---- reading ------------------------------------------------------------------------------
    def newest(self, resident: str | None = None, topic: str | None = None, limit: int | None = None) -> list[Entry]:
        """The entries, newest first, through the filter."""
        out = []
        for e in reversed(self.entries):
            if e.matches(resident, topic):
                out.append(e)
                if limit is not None and len(out) >= limit:
                    break
        return out

    def entry(self, entry_id: int) -> Entry | None:
        return self._by_id.get(entry_id)

    def _append(self, e: Entry) -> None:
        if self.entries.maxlen is not None and len(self.entries) == self.entries.maxlen:
            self._by_id.pop(self.entries[0].id, None)  # the oldest drops off
        self.entries.append(e)
        self._by_id[e.id] = e

    # ---- writing ------------------------------------------------------------------------------
    def extend(self, events: Iterable[Any]) -> None:
        for ev in events:
            self.add(ev)

    def add(self, ev: Any) -> Entry | None:
        """Fold one event in; the entry it made or changed, if any. Garbage is counted, never raised."""
        self.seen += 1
        if not isinstance(ev, dict) or not isinstance(ev.get("kind"), str) or _time(ev.get("time")) is None:
            self.skipped += 1
            return None
        try:
            return self._add(ev)
        except (KeyError, TypeError, ValueError, AttributeError) as err:  # a field of the wrong shape
            self.skipped += 1
            log.debug("feed: an event skipped (%s): %r", err, ev)
            return None

    def _add(self, ev: dict) -> Entry | None:
        kind, t = ev["kind"], str(ev["time"])
        who = ev.get("resident")
        if kind == "edit":
            return self._edit(ev, t)
        if not isinstance(who, str) or not who:
            self.skipped += 1  # every other kind is somebody's
            return None
        if self.residents and who not in self.residents:
            return None  # the visitor's own doings: the player knows them
        if kind == "chat":
            return self._chat(ev, who, t)
        if kind == "line":
            return self._line(ev, who, t)
        if kind == "reflect":
            return self._reflect(ev, who, t)
        if kind == "arrange":
            return self._arrange(ev, who, t)
        if kind == "inner_voice":
            return self._new(t, "inner voice", (who,), f"{first(who)} hears an inner voice: {_quote(ev['text'])}",
                             place=str(ev.get("address") or ""), why=("action", t, ""))
        if kind == "action":
            if self.moves_from_actions:
                self._moved(who, ev.get("address"), t, arrived=False)
            return self._action(ev, who, t)
        if kind == "arrive":
            return self._moved(who, ev.get("address"), t, arrived=True)
        return None

    def _new(self, t: str, kind: str, who: tuple[str, ...], text: str, **kw: Any) -> Entry:
        e = Entry(self._next, t, kind, who, _clip(text), **kw)
        self._next += 1
        self._append(e)
        return e

    def _touch(self, e: Entry, t: str) -> Entry:
        """An entry changed: it moves to the top, at the time of the change."""
        e.time = t
        if self.entries and self.entries[-1] is e:
            return e
        try:
            self.entries.remove(e)
        except ValueError:
            pass
        self._append(e)
        return e

    # ---- conversations ------------------------------------------------------------------------
    def _chat(self, ev: dict, who: str, t: str) -> Entry | None:
        partner = str(ev.get("partner") or "")
        cid = str(ev.get("conversation") or "")
        if ev.get("greeting"):
            return None  # a greeting for the visitor: the player is there
        if ev.get("ended"):
            talk = self._talks.pop(cid, None)
            e = self.entry(talk.entry) if talk is not None else None
            if talk is not None and e is not None:
                self._word_talk(e, talk, ended=True)  # "talked" now: the entry changed
            return e
        if not partner or not cid:
            raise ValueError("a conversation without a partner or an id")
        place = str(ev.get("address") or "")
        x, y = sorted((who, partner))
        pair = (x, y)
        last = self.entry(self._pairs.get(pair, -1))
        talk = _Talk(who, partner, 0)
        if last is not None and last.kind in ("talk", "news") and last.when is not None \
                and _time(t) - last.when <= timedelta(minutes=FOLD_MIN):  # type: ignore[operator]
            last.times += 1  # the same two again: one entry
            talk.entry = last.id
            e = self._touch(last, t)
            talk.news = [(a, b, x) for a, b, x in _news_of(last)]
        else:
            e = self._new(t, "talk", (who, partner), "", place=place, why=("line", t, ""))
            talk.entry = e.id
        self._pairs[pair] = e.id
        self._talks[cid] = talk
        self._word_talk(e, talk)
        return e

    def _line(self, ev: dict, who: str, t: str) -> Entry | None:
        talk = self._talks.get(str(ev.get("conversation") or ""))
        if talk is None:
            return None  # a line to the visitor, or of a conversation begun before the feed
        text = str(ev["text"])
        listener = talk.b if who == talk.a else talk.a
        talk.lines += 1
        e = self.entry(talk.entry)
        if e is None:
            return None
        if not talk.first_line:
            talk.first_line = text
            if who == e.who[0] and e.kind == "talk":
                e.why = ("line", t, text)  # the Why? of a talk: its first line
        topic = news_topic(text, self.places)
        if topic and not any(x == topic for _, _, x in talk.news):
            talk.news.append((who, listener, topic))
            e.why = ("line", t, text)  # the Why? of a talk with news: the line that carried it
            self._touch(e, t)
        self._word_talk(e, talk)
        return e

    def _word_talk(self, e: Entry, talk: _Talk, ended: bool = False) -> None:
        """"Isabella told Maria about the party at Hobbs Cafe", else "Isabella and Maria talk at ..."."""
        if talk.news:
            teller, listener, topic = talk.news[0]
            more = f" (+{len(talk.news) - 1} more)" if len(talk.news) > 1 else ""
            e.kind, e.topic = "news", topic
            e.text = _clip(f"{first(teller)} told {first(listener)} about {topic}{more}")
            e.who = (teller, listener)
            return
        said = f": {_quote(talk.first_line)}" if talk.first_line else ""
        verb = "talked" if ended else "talk"
        e.text = _clip(f"{first(talk.a)} and {first(talk.b)} {verb} at {place_name(e.place)}{said}")

    # ---- plans, reflections -------------------------------------------------------------------
    def _arrange(self, ev: dict, who: str, t: str) -> Entry:
        partner = str(ev.get("partner") or "")
        start = _time(ev.get("start"))
        when = f" {start:%a %H:%M}" if start else ""
        with_ = f" with {first(partner)}" if partner else ""
        what = f"{ev['text']} at {place_name(ev.get('address'))}{when}"
        both = self.entry(self._arranged.get((partner, who, str(ev.get("start"))), -1))
        if both is not None:  # the other side of the same plan: one entry for the two
            both.text = _clip(f"{first(partner)} and {first(who)} arranged: {what}")
            return self._touch(both, t)
        text = f"{first(who)} arranged{with_}: {what}"
        self._arranged[(who, partner, str(ev.get("start")))] = self._next
        return self._new(t, "arrangement", (who, partner) if partner else (who,), text,
                         topic=news_topic(str(ev["text"]), self.places), place=str(ev.get("address") or ""),
                         why=("line", t, ""))

    def _action(self, ev: dict, who: str, t: str) -> Entry | None:
        note, text = str(ev.get("note") or ""), str(ev.get("text") or "")
        source = str(ev.get("source") or "")
        m = re.search(r"reacted to:\s*(.*)$", note)
        if m:
            seen = m.group(1).strip()
            edit = self._edit_seen(seen, t)
            if edit is not None:
                obj, state = edit
                return self._new(t, "edit reaction", (who,), f"{first(who)} reacts to the {obj} ({state}): {text}",
                                 place=str(ev.get("address") or ""), why=("reaction", t, ""))
            # the Why? of a reaction is the decision to react (a rule may word the action itself)
            return self._new(t, "reaction", (who,), f"{first(who)} reacts to {_quote(seen)}: {text}",
                             place=str(ev.get("address") or ""), why=("reaction", t, ""))
        if "replanned for the inner voice" in note or note.startswith("inner voice"):
            return self._new(t, "replan", (who,), f"{first(who)} changes plans (inner voice): {text}",
                             place=str(ev.get("address") or ""), why=("action", t, text))
        if ev.get("controlled"):
            return None
        # a plan item's provenance names where it came from (agents/planning/plan.py chosen_tag): an
        # arrangement, or a memory of being told; every step of it says so, the first is news
        place = place_name(ev.get("address"))
        m = _ARRANGED.search(source)
        if m:
            origin, line = f"arrangement with {m.group(1)}", f"keeps a plan made with {first(m.group(1))}"
        else:
            m = _HEARD.search(source)
            if m is None:
                return None
            origin, line = f"memory #{m.group(1)}", f"acts on what {first(m.group(2))} told: “{m.group(3)}”"
        if self._acted.get(who) == origin:
            return None  # the next step of the same plan
        self._acted[who] = origin
        kind = "arrangement" if origin.startswith("arrangement") else "replan"
        return self._new(t, kind, (who,), f"{first(who)} {line}: {text} at {place}",
                         place=str(ev.get("address") or ""), why=("action", t, text))

    def _reflect(self, ev: dict, who: str, t: str) -> Entry:
        last = self.entry(self._reflected.get(who, -1))
        if last is not None and last.time == t and last.kind == "reflection":
            last.times += 1  # the insights of one reflection: one entry
            return last
        e = self._new(t, "reflection", (who,), f"{first(who)} reflects: {_quote(ev['text'])}",
                      why=("reflection", t, str(ev["text"])))
        self._reflected[who] = e.id
        return e

    # ---- the world ----------------------------------------------------------------------------
    def _edit(self, ev: dict, t: str) -> Entry:
        address = str(ev.get("address") or "")
        obj = address.split(":")[-1] if address else "something"
        state = str(ev.get("state") or "")
        self._edits.append((t, address, obj, state))
        by = str(ev.get("by") or "someone")
        return self._new(t, "edit", (), f"{by[:1].upper()}{by[1:]} set the {obj} to {state or ev['text']} "
                         f"({place_name(address)})", place=address)

    def _edit_seen(self, seen: str, t: str) -> tuple[str, str] | None:
        """The edit a reaction saw (its object or state named, soon after), or None."""
        now = _time(t)
        low = seen.casefold()
        for when, _address, obj, state in reversed(self._edits):
            w = _time(when)
            if now is None or w is None or now - w > timedelta(minutes=EDIT_REACT_MIN):
                continue
            if (obj and obj.casefold() in low) or (state and state.casefold() in low):
                return obj, state
        return None

    def _moved(self, who: str, address: Any, t: str, arrived: bool) -> Entry | None:
        """Who is where (an arrival puts them there; an action elsewhere takes them away), and
        a gathering when a public place fills."""
        if not self.track_gatherings:
            return None
        s = sector(address)
        before = self._where.get(who)
        if arrived and s:
            self._where[who] = s
        elif before is not None and before != s:
            del self._where[who]  # on their way elsewhere
        out = None
        for place in {before, self._where.get(who)} - {None, ""}:
            out = self._gathering(str(place), t) or out
        return out

    def _gathering(self, place: str, t: str) -> Entry | None:
        if place in self.homes:
            return None
        here = sorted(n for n, s in self._where.items() if s == place and self.workplaces.get(n) != place)
        now = _time(t)
        meal = now is not None and any(a <= now.hour < b for a, b in MEAL_HOURS) and bool(EATING.search(place))
        need = GATHER_MEAL if meal else GATHER_MIN
        e = self.entry(self._gathered.get(place, -1))
        if e is not None and place in self._gathered:
            if len(here) < GATHER_END:
                del self._gathered[place]
                return None
            if len(here) > len(e.who):  # it grows: the names who came
                e.who = tuple(sorted(set(e.who) | set(here)))
                e.text = _gather_text(place, e.who)
                return self._touch(e, t)
            return None
        self._gathered.pop(place, None)
        if len(here) >= need:
            e = self._new(t, "gathering", tuple(here), _gather_text(place, here), place=place)
            self._gathered[place] = e.id
            return e
        return None

    # ---- the save -----------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {
            "version": 1,
            "entries": [e.to_dict() for e in self.entries],
            "seen": self.seen, "skipped": self.skipped, "next": self._next,
            "talks": {cid: {"a": x.a, "b": x.b, "entry": x.entry, "lines": x.lines, "first_line": x.first_line,
                            "news": [list(n) for n in x.news]} for cid, x in self._talks.items()},
            "pairs": [[a, b, i] for (a, b), i in self._pairs.items()],
            "where": dict(self._where), "gathered": dict(self._gathered),
            "edits": [list(x) for x in self._edits], "reflected": dict(self._reflected),
            "arranged": [[a, b, c, i] for (a, b, c), i in self._arranged.items()],
            "acted": dict(self._acted),
        }

    def from_state(self, state: Any) -> None:
        """Put a saved feed back; ValueError naming what is wrong (the caller falls back). A
        damaged entry is dropped, logged and counted in ``dropped``; the rest are kept."""
        if not isinstance(state, dict) or not isinstance(state.get("entries"), list):
            raise ValueError("the saved feed is not a mapping with a list of entries")
        entries = self._good_entries(state["entries"])
        try:
            talks = {str(cid): _Talk(str(x["a"]), str(x["b"]), int(x["entry"]), int(x.get("lines") or 0),
                                     [(str(a), str(b), str(c)) for a, b, c in x.get("news") or []],
                                     str(x.get("first_line") or ""))
                     for cid, x in (state.get("talks") or {}).items()}
            pairs = {(str(a), str(b)): int(i) for a, b, i in state.get("pairs") or []}
            where = {str(k): str(v) for k, v in (state.get("where") or {}).items()}
            gathered = {str(k): int(v) for k, v in (state.get("gathered") or {}).items()}
            edits = [(str(a), str(b), str(c), str(d)) for a, b, c, d in state.get("edits") or []]
            reflected = {str(k): int(v) for k, v in (state.get("reflected") or {}).items()}
            arranged = {(str(a), str(b), str(c)): int(i) for a, b, c, i in state.get("arranged") or []}
            acted = {str(k): str(v) for k, v in (state.get("acted") or {}).items()}
            seen, skipped = int(state.get("seen") or 0), int(state.get("skipped") or 0)
            nxt = int(state.get("next") or 0)
        except (TypeError, ValueError, KeyError, AttributeError) as err:
            raise ValueError(f"the saved feed's state is damaged ({type(err).__name__}: {err})") from None
        self.entries.clear()
        self._by_id.clear()
        for e in entries[-(self.entries.maxlen or len(entries) or 1):]:
            self._append(e)
        self._talks, self._pairs, self._where, self._gathered = talks, pairs, where, gathered
        self._edits.clear()
        self._edits.extend(edits)
        self._reflected, self._arranged, self._acted = reflected, arranged, acted
        self.seen, self.skipped = max(0, seen), max(0, skipped)
        self._next = max(nxt, max((e.id for e in entries), default=0) + 1)

    def _good_entries(self, saved: list) -> list[Entry]:
        """The saved entries that are whole (``Entry.from_dict``), each id once; the rest are
        dropped, counted in ``dropped`` and logged once with the first reason."""
        good: dict[int, Entry] = {}
        first_problem = ""
        for d in saved:
            try:
                e = Entry.from_dict(d)
                if e.id in good:
                    raise ValueError(f"a second feed entry with id {e.id}")
                good[e.id] = e
            except ValueError as err:
                first_problem = first_problem or str(err)
        self.dropped = len(saved) - len(good)
        if self.dropped:
            log.warning("the saved town feed: %d damaged entr%s left out (the first: %s)", self.dropped,
                        "y" if self.dropped == 1 else "ies", first_problem)
        return list(good.values())


def _news_of(e: Entry) -> list[tuple[str, str, str]]:
    return [(e.who[0], e.who[1], e.topic)] if e.kind == "news" and len(e.who) > 1 and e.topic else []


def _gather_text(place: str, who: Iterable[str]) -> str:
    names = [first(n) for n in who]
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return f"{len(names)} residents gather at {place_name(place)}: {shown}"


def builder_for(personas: Mapping[str, Persona | None], town: Town | None = None, **kw: Any) -> FeedBuilder:
    """A builder for a town's cast: its residents, their homes (no gathering there), where they
    work (no gathering of those at work) and the town's sector names (the places a line of news
    may name)."""
    homes = [str(getattr(p, "home", "") or "") for p in personas.values()]
    work = {n: str(getattr(p, "workplace", "") or "") for n, p in personas.items()}
    sectors = getattr(town, "sectors", None)
    places = [place_name(s) for s in sectors()] if callable(sectors) else []
    return FeedBuilder(personas.keys(), homes, places, workplaces=work, **kw)  # kw: FeedBuilder's own options


__all__ = ["FOLD_MIN", "GATHER_MIN", "KINDS", "MAX_ENTRIES", "TOPICS", "Entry", "FeedBuilder", "builder_for",
           "news_topic", "news_word", "place_name", "sector"]
