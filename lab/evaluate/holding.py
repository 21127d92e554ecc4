"""Whether talk holds together: residents do what they agree to, and say things worth hearing.

Read from a run's event log by rule, with no model, on any run (no events, no party, other days):

- arrangements kept: each meeting agreed at a place and an hour (``arrange`` events, and a yes,
  an ``accept`` line, to an offer naming a place, a day and an hour), once per pair and start; kept
  when both residents were in its sector (``coordination.presence``) at some time within
  ``LATE_MIN`` minutes either side of its start. Only meetings whose window ends inside the run
  count; meetings with the visitor are counted apart, never judged (its whereabouts are not logged).
- the party's yes-then-came: who said yes to the Valentine's Day party and was at Hobbs Cafe in it.
- contradictions: a line in which the speaker says where it will be at an hour (a place or home,
  a clock time, a day) that puts it in another sector than an arrangement of its own made before
  the line covers, or than its own latest line about the same hour of the same day said (unless an
  arrangement made since moved it there).
- echoes: a line handing the other's last line back as a question (``echoes``).
- recitals: an unasked line that is a tally ("I see a lot of you") or a sentence of the speaker's
  own persona description (``recital``).
- news told back: a line telling the listener what the listener itself said earlier in the
  conversation (``told_back``).
- told something new: conversations in which a telling line's clause (two content words or more)
  was new to the listener: no clause it said or heard before in the run held all its words
  (beside the scenario facts of ``passing.fact_passing``, section 4).
"""
from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from agents import dated, dialogue
from game.saves.saved_run import parse_time
from lab.evaluate.coordination import at_party, presence, sector_of
from lab.evaluate.dialogue import conversations_of
from lab.evaluate.judge import PARTY_END, PARTY_HOST, PARTY_SECTOR, PARTY_START, PARTY_TOPIC

LATE_MIN = 30  # minutes either side of a meeting's start in which both must be at its place
ECHO_SHARE = 0.6  # of a clause of the other's last line's content words handed back ...
ECHO_NEW = 1  # ... adding at most this many content words of one's own
RECITAL_COVER = 0.7  # of a persona phrase's content words a sentence repeats ...
RECITAL_OWN = 0.6  # ... which are this much of the sentence's own
EXAMPLES = 8

_STOP = set("""a an the and or but if so of to in on at for from with by as is am are was were be been being do does
did done have has had having i me my mine myself you your yours yourself we our us he she him her his they them their
it its this that these those there here what when where who whom which how why not no yes oh ah hey hi hello well just
really very too also then than now today tonight tomorrow yesterday again still all any some more most much many can
could will would shall should may might must i'm i'll i'd i've you're you'll you've you'd it's that's there's let's
don't didn't doesn't isn't aren't wasn't won't can't about into up out over am pm get got go going come coming
one thing things lot bit sure right nothing anything something everything yet""".split())
# words a reaction adds that say nothing of its own ("That's really interesting!", "I'm glad to hear it")
_FILLER = set("""interesting glad hear heard know knew sound sounds great wonderful lovely nice fun good love amazing
exciting awesome cool fantastic pleased happy tell told think idea wow indeed true impressed""".split())
_VOCATIVE = re.compile(r"^(?:[\w']+,\s*){1,2}")  # "Ah, Tom, ...": whom a line speaks to is no content
_ASKING = re.compile(r"(?:what|how|who|whom|where|when|why|which|are|is|am|do|does|did|will|would|can|could|have|"
                     r"has|had|shall|should|may|any|anything|want|fancy|care)\b", re.I)
_BACK_TO = re.compile(r"\b(?:get|go|head)(?:ing)? back to\b", re.I)  # "I should get back to studying ...": a goodbye
_TALLY = re.compile(r"\b(?:I|we) (?:often|always|usually) (?:talk|chat|speak|spend time)\b|\bsee a lot of\b|"
                    r"\bkeeps? coming up\b|\bspend most of my time\b", re.I)
_FIRST = re.compile(r"\b(?:I'm|I am|I'll|I will|I'd be|I've got)\b")
_NOT_MINE = re.compile(r"\b(?:I heard|I hope|I wish|I wonder|I'm glad|I'm sure|said|told)\b", re.I)
_PAST = re.compile(r"\b(?:yesterday|was|were|went|hosted|had)\b", re.I)
_PLACE = re.compile(r"\bat (home|(?:[Tt]he )?[A-Z][\w']*(?:\s+(?:[A-Z][\w']*|and|of|for))*)")
_PROGRESSIVE = re.compile(r"\b(?:I'm|I am) \w+ing\b|\b(?:today|tonight|tomorrow|now|\d{1,2}\s*(?:am|pm))\b", re.I)


def _stem(w: str) -> str:
    """A crude stem that says "studies" and "study", "dislikes" and "dislike" alike."""
    w = w[:-2] if w.endswith("'s") else w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    for suffix in ("ing", "ed", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    return w[:-1] if w.endswith("e") and len(w) > 3 else w  # "live" and "living" alike: -ing and -ed take the e too


def content(text: str, names: Iterable[str] = ()) -> set[str]:
    """The content words of a text, stemmed: no stop words, no pronouns (so "I"/"you" and
    "my"/"your" swap freely), no residents' names."""
    drop = {p.lower() for n in names for p in n.split()}
    words = re.findall(r"[a-z][a-z']*|\d+", str(text or "").lower())
    return {_stem(w) for w in words if w not in _STOP and w not in drop and _stem(w) not in _STOP}


def _clauses(text: str) -> list[str]:
    return [c for c in re.split(r"(?<=[.!?;])\s+", str(text or "").strip()) if c]


def _act(e: dict, previous: str | None) -> dialogue.Act:
    """The act a line of the run folder recorded in its provenance text, else by rule."""
    act, _ = dialogue.act_of(e.get("source"))
    return act or dialogue.act_by_rule(str(e.get("text", "")), previous)


def _asked_about(previous: str | None, speaker: str, asker: str) -> bool:
    """Was the line before a question to the speaker about itself (not about a third person)?"""
    if not previous or "?" not in previous:
        return False
    topic = dialogue.question_topic(previous, asker, speaker)
    return not topic.startswith("person:") or topic[7:].split()[0] == speaker.split()[0]


# ---------------------------------------------------------------------------- the measures by line

def echoes(text: str, previous: str | None, names: Iterable[str] = ()) -> bool:
    """Does ``text`` hand ``previous`` back as a question: its first question is a statement
    with a "?" (no question word or verb first: "Tom, you're having breakfast today?", not "Are
    you going to the party?") that repeats most (``ECHO_SHARE``) of the content words of a clause
    of ``previous``, and the line adds at most ``ECHO_NEW`` content words of its own (reaction
    filler aside)? (agents' ``_echoes`` asks another thing: whether a line names anything of the
    one before, which makes it a reaction.)"""
    if not previous or "?" not in text:
        return False
    head, _, rest = str(text).partition("?")
    asked = re.split(r"[.!;]\s+", head)[-1]
    asked = _VOCATIVE.sub("", asked.strip())
    if _ASKING.match(asked):
        return False
    said = content(previous, names)
    mine = content(asked, names)
    if not mine:
        return False
    for clause in _clauses(previous):
        c = content(_VOCATIVE.sub("", clause), names)
        if c and len(c & mine) >= ECHO_SHARE * len(c):
            new = (mine | content(rest, names)) - said - _FILLER
            return len(new) <= ECHO_NEW
    return False


def recital(text: str, phrases: Sequence[str], names: Iterable[str] = ()) -> str | None:
    """What ``text`` recites, or None: a tally ("I see a lot of you") or one of the speaker's own
    persona phrases said of itself (a first-person sentence, not one of what it does today, that
    repeats ``RECITAL_COVER`` of a phrase's content words, which are ``RECITAL_OWN`` of its own)."""
    names = list(names)
    for s in _clauses(text):
        if "?" in s:
            continue
        if _TALLY.search(s):
            return "tally"
        if not re.search(r"\b(?:I|I'm|I've|my|me)\b", s) or _PROGRESSIVE.search(s) or _BACK_TO.search(s):
            continue
        mine = content(s, names)
        for p in phrases:
            c = content(p, names)
            if len(c) >= 2 and mine and len(c & mine) >= RECITAL_COVER * len(c) \
                    and len(c & mine) >= RECITAL_OWN * len(mine):
                return f"persona: {p}"
    return None


_TELLING = dialogue.HEARD_ACTS  # acts that can tell news: what the listener remembers as told
_OWN_DOING = re.compile(r"\b(?:I'm|I am|I'll be|I will be|I'll|I will)\s+(?!glad|sure)\w+(?:ing)?\b")


def told_back_from(text: str, before: Sequence[dict], speaker: str, listener: str,
                   names: Iterable[str] = ()) -> str | None:
    """The listener's earlier line (in ``before``, the conversation so far) that ``text`` tells
    back to it, or None: a statement whose content words (four or more; what the speaker says
    of its own doings left out) all but one are in that line, and that the speaker had not said
    first itself. A parallel answer ("I'm studying sociology ...") tells its own news."""
    told = [c for c in _clauses(text) if "?" not in c and not _OWN_DOING.search(c)]
    mine = content(" ".join(told), names) - _FILLER
    if len(mine) < 4:  # "nothing planned for later" is one's own state, not news
        return None
    for j, x in enumerate(before):
        if x.get("resident") != listener:
            continue
        theirs = content(str(x.get("text", "")), names)
        if len(mine & theirs) >= 3 and len(mine - theirs - _FILLER) <= 1 and not any(
                len(mine - content(str(y.get("text", "")), names) - _FILLER) <= 1
                for y in before[:j] if y.get("resident") == speaker):
            return str(x.get("text", ""))
    return None


# ---------------------------------------------------------------------------- meetings

@dataclass
class Meeting:
    """A meeting two sides agreed: its pair, hour, the sectors either side recorded, and how."""

    pair: tuple[str, str]
    start: datetime
    minutes: int
    agreed: datetime
    sectors: list[str] = field(default_factory=list)
    what: list[str] = field(default_factory=list)
    how: set[str] = field(default_factory=set)  # "arrange" (an event logged it), "line" (a yes said)


def sector_names(events: Sequence[dict], personas: dict[str, Any]) -> dict[str, str]:
    """A place as said ("Hobbs Cafe", "the Rose and Crown Pub") -> its sector, for the town's sectors."""
    out: dict[str, str] = {}
    addrs = [e.get("address") for e in events] + [getattr(p, a, "") for p in personas.values()
                                                  for a in ("home", "workplace")]
    for a in addrs:
        s = sector_of(a)
        if s:
            out[_place_key(s)] = s
    return out


def _place_key(place: str) -> str:
    return re.sub(r"^the\s+", "", place.strip().lower())


def meetings(events: Sequence[dict], residents: Sequence[str], places: dict[str, str]) -> tuple[list[Meeting], int]:
    """(meetings between residents, how many were agreed with someone else: the visitor)."""
    rs = set(residents)
    out: dict[tuple, Meeting] = {}
    visitor: set[tuple] = set()

    def add(a: str, b: str, start: datetime, minutes: int, sector: str | None, what: str, when: datetime,
            how: str) -> None:
        pair = tuple(sorted((a, b)))
        if a not in rs or b not in rs:
            visitor.add((pair, start))
            return
        m = out.setdefault((pair, start), Meeting(pair, start, minutes, when))  # type: ignore[arg-type]
        m.agreed = min(m.agreed, when)
        m.minutes = max(m.minutes, minutes)
        if sector and sector not in m.sectors:
            m.sectors.append(sector)
        if what not in m.what:
            m.what.append(what)
        m.how.add(how)

    for e in events:
        if e.get("kind") != "arrange":
            continue
        start, when = parse_time(e.get("start")), parse_time(e.get("time"))
        if start is None or when is None or not e.get("resident") or not e.get("partner"):
            continue
        add(e["resident"], e["partner"], start, int(e.get("minutes") or 60), sector_of(e.get("address")),
            str(e.get("text", "")), when, "arrange")
    # a yes said to an offer naming a place, a day and an hour, logged or not
    for ls in _all_conversations(events):
        prev: dict | None = None
        for e in ls:
            if prev is not None and prev.get("resident") != e.get("resident") \
                    and _act(e, str(prev.get("text", ""))) == dialogue.ACCEPT:
                when = parse_time(e.get("time"))
                ev = dated.read_as_made(str(prev.get("text", "")), when, teller=prev.get("resident")) \
                    if when else None
                sector = places.get(_place_key(ev.place)) if ev else None
                if ev is not None and sector and when is not None:
                    add(e["resident"], prev["resident"], ev.starts(), ev.minutes(), sector, ev.what, when, "line")
            prev = e
    return sorted(out.values(), key=lambda m: (m.start, m.pair)), len(visitor)


def _all_conversations(events: Sequence[dict]) -> list[list[dict]]:
    """Lines of every conversation, the visitor's too, in time order."""
    out: dict[Any, list[dict]] = defaultdict(list)
    for e in sorted((e for e in events if e.get("kind") == "line"), key=lambda e: str(e.get("time", ""))):
        if e.get("conversation") is not None and e.get("resident"):
            out[e["conversation"]].append(e)
    return list(out.values())


class Whereabouts:
    """Where each resident was at a time: the sector of its last logged step (arriving, acting, talking)."""

    def __init__(self, events: Sequence[dict]) -> None:
        self.steps: dict[str, list[tuple[datetime, str, str]]] = defaultdict(list)
        for e in sorted(events, key=lambda e: str(e.get("time", ""))):
            t = parse_time(e.get("time"))
            if t is None or e.get("kind") not in ("arrive", "action", "line", "chat") or not e.get("resident"):
                continue
            sec = sector_of(e.get("address"))
            if sec:
                doing = str(e.get("text", "")) if e.get("kind") == "action" else ""
                self.steps[e["resident"]].append((t, sec, doing))
        self.times = {r: [s[0] for s in v] for r, v in self.steps.items()}

    def at(self, who: str, t: datetime) -> str:
        i = bisect.bisect_right(self.times.get(who, []), t) - 1
        if i < 0:
            return "unknown"
        _, sec, _ = self.steps[who][i]
        doing = next((d for _, s, d in reversed(self.steps[who][: i + 1]) if d), "")
        return f"{sec}{f' ({doing})' if doing else ''}"


def _there(spans: list[tuple[datetime, datetime | None]], lo: datetime, hi: datetime) -> bool:
    return any(a <= hi and (b is None or b >= lo) for a, b in spans)


def kept_measures(events: Sequence[dict], ms: Sequence[Meeting], with_visitor: int,
                  start: datetime | None, end: datetime | None) -> dict:
    """Of the meetings whose window lies inside the run, those both sides were at (see the module's doc)."""
    late = timedelta(minutes=LATE_MIN)
    inside = [m for m in ms if (start is None or m.start >= start) and (end is None or m.start + late <= end)]
    spans: dict[str, dict] = {}
    where = Whereabouts(events)
    kept: list[dict] = []
    unkept: list[dict] = []
    for m in inside:
        ok = False
        for sec in m.sectors:
            if sec not in spans:
                spans[sec] = presence(list(events), sec)
            if all(_there(spans[sec].get(r, []), m.start - late, m.start + late) for r in m.pair):
                ok = True
                break
        row = {"pair": list(m.pair), "start": f"{m.start:%Y-%m-%d %H:%M}", "minutes": m.minutes,
               "where": m.sectors, "what": m.what, "agreed": f"{m.agreed:%Y-%m-%d %H:%M}", "how": sorted(m.how),
               "was": {r: where.at(r, m.start + timedelta(minutes=15)) for r in m.pair}}
        (kept if ok else unkept).append(row)
    n = len(inside)
    return {"meetings": n, "kept": len(kept), "share": round(len(kept) / n, 4) if n else None,
            "logged": sum(1 for m in inside if "arrange" in m.how),
            "only_said": sum(1 for m in inside if m.how == {"line"}),
            "outside_run": len(ms) - n, "with_visitor": with_visitor, "unkept": unkept}


def party_measures(events: Sequence[dict], residents: Sequence[str], end: datetime | None) -> dict:
    """Who said yes to the party (an accept answering a line that names it, or an arrangement
    naming it or at its place and hour), and which of them were at Hobbs Cafe during it."""
    rs = set(residents)
    yes: dict[str, str] = {}
    for e in events:
        if e.get("kind") == "arrange" and e.get("resident") in rs:
            start = parse_time(e.get("start"))
            if re.search(PARTY_TOPIC, str(e.get("text", "")), re.I) or (
                    start == PARTY_START and sector_of(e.get("address")) == PARTY_SECTOR):
                yes.setdefault(e["resident"], f"{e.get('time')} arranged: {e.get('text')}")
    for ls in _all_conversations(events):
        prev: dict | None = None
        for e in ls:
            if prev is not None and e.get("resident") in rs and _act(e, str(prev.get("text", ""))) == dialogue.ACCEPT \
                    and (re.search(PARTY_TOPIC, str(prev.get("text", "")), re.I)
                         or re.search(PARTY_TOPIC, dialogue.act_of(e.get("source"))[1] or "", re.I)
                         or re.search(r"invitation to [^;]*(?:" + PARTY_TOPIC + ")", str(e.get("source")), re.I)):
                yes.setdefault(e["resident"], f"{e.get('time')} said: {str(e.get('text'))[:120]}")
            prev = e
    yes = {r: v for r, v in yes.items() if v[:19] < f"{PARTY_END:%Y-%m-%d %H:%M:%S}"}  # a yes once it is over is none
    yes.pop(PARTY_HOST, None)
    res: dict[str, Any] = {"said_yes": dict(sorted(yes.items())), "came": None, "missed": None}
    if end is None or end < PARTY_START:
        return res
    came = at_party(list(events))
    where = Whereabouts(events)
    res["came"] = sorted(r for r in yes if r in came)
    res["missed"] = {r: where.at(r, PARTY_START + timedelta(minutes=30)) for r in sorted(yes) if r not in came}
    return res


# ---------------------------------------------------------------------------- contradictions

@dataclass
class Claim:
    """Where a line or an arrangement puts its speaker at an hour."""

    lo: datetime
    hi: datetime  # the end stated, else half an hour on (two lines naming the same hour meet)
    sector: str
    made: datetime
    text: str


def claims(text: str, now: datetime, speaker: str, places: dict[str, str], home: str | None) -> list[Claim]:
    """Where the speaker says it will be: each clause not a question, in its own words ("I'm", "I'll"),
    naming a clock time and a place it can put in a sector (or "home"); a past one says nothing."""
    out = []
    text = re.sub(r'"[^"]*"?', "", text)  # 'Wolfgang told me: "I'm at the party ..."' puts Wolfgang there
    meet = dated.parse_meeting(text, now, teller=speaker)  # "Join me at Hobbs Cafe today at 7 pm? I'll be ..."
    if meet is not None and (sec := places.get(_place_key(meet.place))):
        out.append(Claim(meet.starts(), meet.starts() + timedelta(minutes=LATE_MIN), sec, now, text))
    for c in _clauses(text):
        if c.endswith("?") or not _FIRST.search(c) or _NOT_MINE.search(c) or _PAST.search(c):
            continue
        start, end = dated._hours(c)  # the minds' own reading of hours and days
        if start is None:
            continue
        day = dated._day(c, now) or now.date()
        sec = None
        for p in _PLACE.findall(c):
            sec = home if p == "home" else places.get(_place_key(p))
            if sec:
                break
        if not sec:
            continue
        lo = datetime.combine(day, datetime.min.time()) + timedelta(minutes=start)
        hi = lo + timedelta(minutes=end - start if end is not None and end > start else LATE_MIN)
        if not any(x.lo == lo and x.sector == sec for x in out):
            out.append(Claim(lo, hi, sec, now, c))
    return out


def _overlaps(a: Claim, b: Claim) -> bool:
    return a.lo < b.hi and b.lo < a.hi


def contradictions(events: Sequence[dict], residents: Sequence[str], places: dict[str, str],
                   homes: dict[str, str | None], agreed: Sequence[Meeting]) -> dict:
    """Lines that put their speaker in another sector than a meeting it agreed before (over the
    meeting's hours: none of its meetings then is there), or than its own latest line about the
    same hour (within half an hour) said, unless a meeting agreed since put it there."""
    made: dict[str, list[Claim]] = defaultdict(list)
    for m in agreed:
        # an event's hours as agreed; a meeting's ("lunch at 12 pm") its first hour: 120 minutes by default
        # would make "at 1 pm I'm at the college", said after lunch at noon was agreed, a contradiction
        minutes = m.minutes if any(dated.names_event(w) for w in m.what) else min(m.minutes, 60)
        for who in m.pair:
            for sec in m.sectors:
                made[who].append(Claim(m.start, m.start + timedelta(minutes=minutes), sec, m.agreed,
                                       f"agreed with {next(r for r in m.pair if r != who)}: {' / '.join(m.what)}"))
    said: dict[str, list[Claim]] = defaultdict(list)
    found: list[dict] = []
    lines = 0
    for e in sorted((e for ls in conversations_of(events, residents).values() for e in ls),
                    key=lambda e: str(e.get("time", ""))):
        now, who = parse_time(e.get("time")), e["resident"]
        if now is None:
            continue
        cs = claims(str(e.get("text", "")), now, who, places, homes.get(who))
        lines += bool(cs)
        why = None
        for c in cs:
            arr = [a for a in made[who] if a.made <= now and _overlaps(a, c)]
            if any(a.sector == c.sector for a in arr):
                continue  # where it agreed to be, whatever it said before
            if arr:
                why = arr[-1]
                break
            before = [x for x in said[who] if _overlaps(x, c)]
            if before and before[-1].sector != c.sector and not any(
                    a.sector == c.sector and a.made >= before[-1].made for a in arr):
                why = before[-1]
                break
        if why is not None:
            found.append({"resident": who, "time": e.get("time"), "to": e.get("partner"),
                          "text": str(e.get("text", ""))[:200],
                          "against": f"{why.made:%m-%d %H:%M} {why.text[:160]}"})
        said[who] += cs
    return {"lines_with_a_place_and_hour": lines, "contradictions": len(found), "examples": found}


# ---------------------------------------------------------------------------- the whole

def holding_measures(events: Sequence[dict] | None, residents: Sequence[str], personas: dict[str, Any] | None = None,
                     start: datetime | None = None, end: datetime | None = None,
                     passing: dict | None = None) -> dict:
    """Every measure of whether talk holds together, as a JSON-able dict (see the module's doc)."""
    events = list(events or [])
    personas = personas or {}
    rs = list(residents)
    names = list(rs) + [str(getattr(p, "name", n)) for n, p in personas.items()]
    places = sector_names(events, personas)
    times = [t for t in (parse_time(e.get("time")) for e in events) if t is not None]
    start = start or (min(times) if times else None)
    end = end or (max(times) if times else None)
    homes = {n: sector_of(getattr(p, "home", None)) for n, p in personas.items()}
    phrases = {n: [p for p in getattr(per, "phrases", []) if not dated.names_event(p)] for n, per in personas.items()}
    convs = conversations_of(events, rs)
    n = new_conv = 0
    echo_ex: list[dict] = []
    recite_ex: list[dict] = []
    back_ex: list[dict] = []
    known: dict[str, list[set[str]]] = defaultdict(list)  # resident -> each clause it said or heard, as words
    for cid, ls in sorted(convs.items(), key=lambda kv: str(kv[1][0].get("time", ""))):
        prev: dict | None = None
        told_new = told_back = False
        for i, e in enumerate(ls):
            n += 1
            text, who, to = str(e.get("text", "")), e["resident"], e["partner"]
            p_text = str(prev.get("text", "")) if prev is not None and prev.get("resident") != who else None
            row = {"conversation": cid, "time": e.get("time"), "resident": who, "to": to, "text": text[:200]}
            if echoes(text, p_text, names):
                echo_ex.append({**row, "previous": (p_text or "")[:160]})
            this = _act(e, p_text)
            if this != dialogue.GOODBYE and not _asked_about(p_text, who, to):
                what = recital(text, phrases.get(who, []), names)
                if what:
                    recite_ex.append({**row, "what": what[:160], "previous": (p_text or "")[:160]})
            if not told_back and not this.answers_offer and this is not dialogue.GOODBYE:
                back = told_back_from(text, ls[:i], who, to, names)
                if back is not None:
                    told_back = True
                    back_ex.append({**row, "listener_said": back[:160]})
            facts = [c - _FILLER for c in (content(x, names) for x in _clauses(text) if "?" not in x)]
            facts = [c for c in facts if len(c) >= 2]
            told_new = told_new or (this in _TELLING and any(not any(f <= k for k in known[to]) for f in facts))
            for f in (content(x, names) for x in _clauses(text)):
                known[to].append(f)
                known[who].append(f)
            prev = e
        new_conv += told_new
    share = lambda a, b: round(a / b, 4) if b else 0.0  # noqa: E731
    agreed, with_visitor = meetings(events, rs, places)
    return {
        "lines": n, "conversations": len(convs),
        "arrangements": kept_measures(events, agreed, with_visitor, start, end),
        "party": party_measures(events, rs, end),
        "contradictions": contradictions(events, rs, places, homes, agreed),
        "echoes": len(echo_ex), "echo_share": share(len(echo_ex), n), "echo_examples": echo_ex[:EXAMPLES],
        "recitals": len(recite_ex), "recital_share": share(len(recite_ex), n),
        "recital_examples": recite_ex[:EXAMPLES],
        "told_back": len(back_ex), "told_back_examples": back_ex[:EXAMPLES],
        "told_new": new_conv, "told_new_share": share(new_conv, len(convs)),
        "scenario_facts": None if passing is None else {k: passing.get(k) for k in
                                                         ("with_a_new_fact", "conversations", "rate")},
    }


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def holding_markdown(h: dict) -> list[str]:
    a, p, c = h["arrangements"], h["party"], h["contradictions"]
    came = "n/a (the run did not reach the party)" if p["came"] is None else f"{len(p['came'])} of {len(p['said_yes'])}"
    L = ["## 6. Whether talk holds together", "",
         "| measure | value |", "|---|---|",
         f"| meetings agreed at a place and an hour, kept (both there within {LATE_MIN} min of the start) | "
         f"{a['kept']} of {a['meetings']} ({_pct(a['share'])}) |",
         f"| the party: said yes, then at Hobbs Cafe during it | {came} |",
         f"| lines contradicting the speaker's own arrangements or earlier lines | {c['contradictions']} of "
         f"{c['lines_with_a_place_and_hour']} lines naming a place and an hour |",
         f"| echoes (the other's line handed back as a question) | {h['echoes']} of {h['lines']} lines "
         f"({h['echo_share']:.1%}) |",
         f"| recitals (an unasked tally or persona sentence) | {h['recitals']} of {h['lines']} lines "
         f"({h['recital_share']:.1%}) |",
         f"| conversations telling the listener back what it said | {h['told_back']} of {h['conversations']} |",
         f"| conversations telling the listener words it had not said or heard before | {h['told_new']} of "
         f"{h['conversations']} ({h['told_new_share']:.0%}) |"]
    if h.get("scenario_facts"):
        s = h["scenario_facts"]
        L.append(f"| conversations telling the listener a scenario fact new to it (section 4) | "
                 f"{s['with_a_new_fact']} of {s['conversations']} ({_pct(s['rate'])}) |")
    L += ["", f"Meetings: {a['logged']} logged by an arrange event, {a['only_said']} only said yes to in a line; "
          f"{a['outside_run']} outside the run's hours; {a['with_visitor']} with the visitor (not judged).", ""]
    if a["unkept"]:
        L += ["Meetings not kept:", ""] + [
            f"- {' and '.join(m['pair'])}: {' / '.join(m['what'])} at {' / '.join(m['where'])}, {m['start']} "
            f"(agreed {m['agreed']}); at {m['start'][11:]}+15 min: "
            + "; ".join(f"{r.split()[0]} at {w}" for r, w in m["was"].items()) for m in a["unkept"][:EXAMPLES]] + [""]
    if p["said_yes"]:
        L += ["Said yes to the party: " + ", ".join(p["said_yes"]) + "."]
        if p["missed"]:
            L += ["Said yes but not there (where at 17:30): "
                  + "; ".join(f"{r} at {w}" for r, w in p["missed"].items()) + "."]
        L.append("")
    for key, title, extra in (("examples", "Contradictions", "against"), ):
        if c[key]:
            L += [f"{title}:", ""] + [f"- {x['time'][5:16]} {x['resident']} to {x['to']}: \"{x['text']}\" "
                                      f"(against {x[extra]})" for x in c[key][:EXAMPLES]] + [""]
    for key, title, extra in (("echo_examples", "Echoes", "previous"), ("recital_examples", "Recitals", "what"),
                              ("told_back_examples", "Told back", "listener_said")):
        if h[key]:
            L += [f"{title}:", ""] + [f"- {x['resident']}: \"{x['text']}\" ({extra.replace('_', ' ')}: {x[extra]})"
                                      for x in h[key]] + [""]
    return L


def holding_summary(h: dict) -> str:
    a, p = h["arrangements"], h["party"]
    party = "n/a" if p["came"] is None else f"{len(p['came'])}/{len(p['said_yes'])}"
    return (f"  holding    {a['kept']}/{a['meetings']} meetings kept; party yes-then-came {party}; "
            f"{h['contradictions']['contradictions']} contradictions; {h['echo_share']:.1%} echoes; "
            f"{h['recital_share']:.1%} recitals; {h['told_back']} told back; {h['told_new_share']:.0%} told new")


__all__ = ["Meeting", "claims", "content", "contradictions", "echoes", "holding_markdown", "holding_measures",
           "holding_summary", "meetings", "recital"]
