"""``scripted/competent``: a stand-in for a capable language model.

There is no capable model on the machines this game is built and tested on,
so the paper's behaviour (an invitation spreads through conversation, memory,
retrieval and planning until guests turn up) could not be tested at all. This
program answers every prompt the minds send as a sensible model would, **from
the prompt text and its JSON schema alone**: it never reads game state, knows
no resident by name and knows nothing of the scenario except what the prompt
says. For example: a day plan includes an event whose day, time and place the
prompt's memories give; a line of dialogue passes on what the speaker's
retrieved memories say about an upcoming event; the reaction to a burning
stove is to put it out.

It is served through litellm like any model (agents/scripted.py), so the
gateway parses, validates, retries and counts its answers as it does a real
model's. Deterministic: the same prompt gives the same answer. Use it with
``smallville sim --model scripted/competent``.
"""
from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from agents import scripted

EVENT_WORDS = (r"party|celebration|gathering|get-together|meeting|concert|festival|dinner party|"
               r"potluck|debate|rally|wedding|exhibition|game night|open mic")
NEWS_WORDS = (r"decided|running for|run for|candidate|campaign|election|mayor|engaged|pregnant|moving|new job|"
              r"hosting|host a|invite|secret|crush|won|award")
MONTHS = ("January February March April May June July August September October November December").split()
MONTH_RE = r"(January|February|March|April|May|June|July|August|September|October|November|December)\s+(\d{1,2})"
TIME_RE = r"(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)"
RANGE_RE = TIME_RE + r"\s*(?:to|-|until|till|and)\s*" + TIME_RE


# ------------------------------------------------------------------------------ reading the prompt
@dataclass
class Prompt:
    text: str
    schema: dict | None
    name: str

    def find(self, rx: str, default: str = "", flags: int = 0) -> str:
        m = re.search(rx, self.text, flags)
        return m.group(1).strip() if m else default

    def block(self, heading_rx: str) -> list[str]:
        """The "- item" lines right after a heading line matching ``heading_rx``."""
        lines = self.text.splitlines()
        out: list[str] = []
        for i, line in enumerate(lines):
            if re.search(heading_rx, line):
                for nxt in lines[i + 1:]:
                    s = nxt.strip()
                    if s.startswith("- "):
                        out.append(s[2:].strip())
                    elif s and not s.startswith("-"):
                        break
                break
        return [x for x in out if x and not x.startswith("(")]

    def numbered(self) -> list[str]:
        return [m.group(2).strip() for m in re.finditer(r"^\s*(\d+)\.\s+(.*)$", self.text, re.M)]

    def enum(self, *path: str) -> list[str]:
        """The allowed values of a field of the schema (places, times, days)."""
        node = self.schema or {}
        for p in path:
            node = _resolve(node, self.schema)
            if node.get("type") == "array":
                node = _resolve(node.get("items", {}), self.schema)
            node = node.get("properties", {}).get(p, {})
        node = _resolve(node, self.schema)
        for alt in node.get("anyOf", []):
            alt = _resolve(alt, self.schema)
            if "enum" in alt:
                return list(alt["enum"])
        return list(node.get("enum", []))

    def max_items(self, *path: str) -> int:
        node = self.schema or {}
        for p in path:
            node = _resolve(node, self.schema).get("properties", {}).get(p, {})
        return int(_resolve(node, self.schema).get("maxItems", 8))

    def min_items(self, *path: str) -> int:
        node = self.schema or {}
        for p in path:
            node = _resolve(node, self.schema).get("properties", {}).get(p, {})
        return int(_resolve(node, self.schema).get("minItems", 1))

    def rng(self, salt: str = "") -> int:
        """A stable pseudo-random number from the prompt (a model's sampling, made repeatable)."""
        return zlib.crc32((self.text + salt).encode("utf-8"))


def _resolve(node: dict, root: dict | None) -> dict:
    while isinstance(node, dict) and "$ref" in node and root:
        target = root
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node or {}


def _first(name: str) -> str:
    return name.split()[0] if name else name


def _hm(t: int) -> str:
    return f"{t // 60:02d}:{t % 60:02d}"


def _minutes(hhmm: str) -> int:
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


def _clock(h: str, m: str | None, ampm: str) -> int:
    hour = int(h) % 12 + (12 if ampm.lower().startswith("p") else 0)
    return hour * 60 + int(m or 0)


def _pretty(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    suffix = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return f"{h12}:{m:02d} {suffix}" if m else f"{h12} {suffix}"


# ------------------------------------------------------------------------------ events in memories
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
            hours = f" from {_pretty(self.start)} to {_pretty(self.end)}"
        elif self.start is not None:
            hours = f" at {_pretty(self.start)}"
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
            start, end = _clock(r.group(1), r.group(2), r.group(3)), _clock(r.group(4), r.group(5), r.group(6))
        else:
            t = re.search(TIME_RE, line, re.I)
            if t:
                start = _clock(t.group(1), t.group(2), t.group(3))
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
    return zlib.crc32(f"{first}|{h.what}|maybe".encode("utf-8")) % 5 == 0


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


def gerund_phrase(text: str) -> str:
    """"run for mayor" -> "running for mayor"."""
    words = text.strip().split()
    if not words:
        return text
    v = words[0].lower()
    if v.endswith("ing"):
        return text
    if v == "be":
        g = "being"
    elif v.endswith("ie"):
        g = v[:-2] + "ying"
    elif v.endswith("e") and not v.endswith("ee"):
        g = v[:-1] + "ing"
    elif len(v) <= 4 and re.match(r".*[^aeiou][aeiou][bdgmnprt]$", v):
        g = v + v[-1] + "ing"
    else:
        g = v + "ing"
    return " ".join([g] + words[1:])


STOP_END = {"a", "an", "the", "at", "in", "on", "of", "for", "to", "and", "with", "by", "from"}


def clip_words(text: str, n: int) -> str:
    """The first ``n`` words, without a dangling "at the"."""
    words = text.split()[:n]
    while len(words) > 1 and words[-1].lower().strip(",;") in STOP_END:
        words.pop()
    return " ".join(words).strip(" ,;")


# ------------------------------------------------------------------------------ the tasks
def rate(p: Prompt) -> dict:
    """Importance 1-10 of each numbered item, as the prompt's scale says."""
    out = []
    for item in p.numbered():
        t = item.lower()
        if re.search(r"burning|on fire|fire\b|flood|leak|accident|injur|died|break.?up|engaged|pregnant|crush|"
                     r"in love|accept", t):
            score = 8
        elif re.search(EVENT_WORDS, t) and re.search(r"invit|host|plan|going|come|will|agreed", t):
            score = 8
        elif re.search(r"mayor|election|candida|campaign", t):
            score = 7
        elif re.search(r"conversed|told|said|talked|asked", t):
            score = 6 if re.search(EVENT_WORDS + "|" + NEWS_WORDS, t) else 4
        elif re.search(r"plan for|'s plan", t):
            score = 5 if re.search(EVENT_WORDS, t) else 3
        elif re.search(r"sleep|brush|shower|toilet|wash|idle|getting ready|dress", t):
            score = 1
        elif re.search(r"eat|breakfast|lunch|dinner|coffee|snack", t):
            score = 2
        elif re.search(r"is \w+ing", t):
            score = 3
        else:
            score = 3
        out.append(score)
    n = p.min_items("ratings") or len(out)
    out = (out + [3] * n)[:n]
    return {"ratings": out}


def occupation(lines: list[str]) -> str:
    """What the resident does for a living, as written in its description."""
    for line in lines:
        m = re.search(r"\b(runs|owns|studies|teaches|works as|works at|works on|is an? [\w' -]+?(?:who|;|,|$))"
                      r"([^;.]*)", line)
        if m:
            return clip_words((m.group(1) + m.group(2)).strip(" ,;"), 8)
    return "the usual work"


def summarise(p: Prompt) -> dict:
    first = p.find(r"what is (\w+) busy with") or p.find(r"in (\w+)'s day") or "They"
    mems = p.block(r"remembers:$") or p.block(r"did on")
    if "what happened in" in p.text:  # yesterday
        did = [re.sub(r"^\d{2}:\d{2}\s+", "", x).split(" (")[0] for x in p.block(r"did on")]
        did = list(dict.fromkeys(d for d in did if d and "sleep" not in d))[:3]
        chats = p.block(r"conversations that day")
        talk = ""
        if chats:
            who = [re.sub(r"^with ([^:]+):.*$", r"\1", c) for c in chats if c.startswith("with ")]
            topics = [c.split(":", 1)[1].strip() for c in chats if ":" in c][:1]
            talk = f" {first} talked with {', '.join(dict.fromkeys(who))}" + (f" ({topics[0]})" if topics else "") + "."
        arranged = [c.removeprefix("arranged: ") for c in chats if c.startswith("arranged:")]
        plans = f" {first} arranged {arranged[0]}." if arranged else ""
        return {"summary": f"{first} spent the day {', '.join(did) or 'as usual'}.{talk}{plans}"[:390]}
    events = [h for h in find_happenings(mems) if h.month_day or h.start is not None]
    work = occupation(mems + [p.text.splitlines()[0]])
    ahead = f" and is looking forward to the {events[0].what}{events[0].when()}" if events else ""
    plans = _intentions(mems)
    decided = f"; {first} has decided on {plans[0]}" if plans else ""
    return {"summary": f"{first} is busy with what {first} does: {work}{ahead}{decided}."[:200]}


def _labels_of(p: Prompt) -> list[str]:
    return p.enum("items", "place")


def _home_labels(p: Prompt, labels: list[str]) -> tuple[str, str, str]:
    """(bathroom, kitchen, bedroom) labels of the resident's home, read from "lives at X"."""
    home = p.find(r"lives at ([^.;]+?) and works")
    sector = home.split(":")[0].strip() if home else ""
    mine = [x for x in labels if sector and x.startswith(sector)]
    first = p.find(r"lives at [^.]+? and works or studies at [^;.]+[;.] (\w+) wakes") or p.find(r"(\w+)'s plan")
    bath = next((x for x in mine if "bathroom" in x and (first in x or "'s bathroom" not in x)), None) or next(
        (x for x in mine if "bathroom" in x), home)
    kitchen = next((x for x in mine if "kitchen" in x), None) or next((x for x in mine if "main room" in x), home)
    return bath or home, kitchen or home, home


def _work_words(p: Prompt) -> str:
    head = p.text.splitlines()[0] if p.text else ""
    occ = occupation([head])
    m = re.match(r"(runs|owns|studies|teaches|works at|works on|works as) (.*)", occ)
    if m:
        verb = {"runs": "running", "owns": "running", "studies": "studying", "teaches": "teaching",
                "works at": "working at", "works on": "working on", "works as": "working as"}[m.group(1)]
        return clip_words(f"{verb} {m.group(2)}", 6)
    m = re.match(r"is an? ([\w' -]+)", occ)
    if m:
        role = m.group(1).split(" who")[0].strip()
        return clip_words(f"working as a {role}", 6)
    return "working on the day's tasks"


def _intentions(lines: list[str]) -> list[str]:
    """"I have decided to run for mayor ..." -> "working on running for mayor"."""
    out = []
    for line in lines:
        m = re.search(r"\bI (?:have decided|decided|want|am going|plan|intend|hope) to ([^;,.]+)", line)
        if m and not re.search(EVENT_WORDS, m.group(1), re.I):
            out.append(clip_words(gerund_phrase(m.group(1)), 6))
    return out


def day_plan(p: Prompt) -> dict:
    """The paper's day plan: a resident's ordinary day around what the prompt says is
    special today (an event it remembers or arranged, at its time and place)."""
    labels = _labels_of(p)
    starts = p.enum("items", "start")
    wake = _minutes(starts[0])
    bed = _minutes(p.find(r"bed around (\d{2}:\d{2})", "22:00"))
    bath, kitchen, home = _home_labels(p, labels)
    work = p.find(r"works or studies at ([^;.]+)[;.]") or home
    work_label = work if work in labels else (label_for(work, labels) or home)
    cafe = next((x for x in labels if x.lower().endswith(":cafe")), kitchen)
    today = today_of(p)
    memories = p.block(r"remembers about plans for today") + p.block(r"Already arranged for today")
    first = p.find(r"Write (\w+)'s plan")
    events = [h for h in find_happenings(memories)
              if h.start is not None and (h.month_day is None or h.month_day == today) and wake < h.start < bed
              and wants_to_go(first, h, memories)]
    future = [h for h in find_happenings(memories) if h.month_day and today and h.month_day > today]
    doing = _work_words(p)
    extra = _intentions(memories)
    if future and future[0].hosting:  # the afternoon goes to inviting people
        extra = [clip_words(f"inviting people to the {future[0].what}", 8)] + extra
    items = [(wake, 30, "waking up and getting ready", bath), (wake + 30, 30, "having breakfast", kitchen)]
    t = max(wake + 60, 8 * 60)
    items.append((t, 12 * 60 - t, doing, work_label))
    items.append((12 * 60, 60, "having lunch", cafe))
    if extra:
        items.append((13 * 60, 300, extra[0], work_label))
    else:
        items.append((13 * 60, 300, doing, work_label))
    evening = ["reading a book", "relaxing at home", "taking an evening walk"][p.rng("evening") % 3]
    items.append((18 * 60, 60, "having dinner", kitchen))
    items.append((19 * 60, 180, evening, home if "walk" not in evening else (
        next((x for x in labels if x.lower().endswith(":park")), home))))
    for h in events[:2]:
        place = label_for(h.place, labels) or work_label
        end = h.end if h.end is not None else h.start + 120
        verb = "hosting" if h.hosting or (h.host and h.host.split()[0] in p.text.splitlines()[0]) else "attending"
        ev = (h.start, end - h.start, clip_words(f"{verb} the {h.what}", 8), place)
        kept = []
        for it in items:  # what the event overlaps gives way
            s, e = it[0], it[0] + it[1]
            if e <= ev[0] or s >= ev[0] + ev[1]:
                kept.append(it)
            elif s < ev[0]:
                kept.append((s, ev[0] - s, it[2], it[3]))
            elif e > ev[0] + ev[1]:
                kept.append((ev[0] + ev[1], e - ev[0] - ev[1], it[2], it[3]))
        items = kept + [ev]
    items.sort()
    items.append((bed, 480, "going to bed", home))
    allowed = set(starts)
    out = []
    for s, mins, what, where in items:
        hh = _hm(s)
        if hh not in allowed:
            hh = min(allowed, key=lambda x: abs(_minutes(x) - s))
        out.append({"start": hh, "minutes": _nearest_minutes(p, mins), "activity": what, "place": where})
    dedup = {}
    for it in out:
        dedup.setdefault(it["start"], it)
    items = list(dedup.values())[: p.max_items("items")]
    if items[-1]["activity"] != "going to bed":
        items[-1] = out[-1]
    return {"items": items}


def _nearest_minutes(p: Prompt, minutes: int) -> int:
    allowed = [int(x) for x in p.enum("items", "minutes")] or [30, 60, 120, 180, 240]
    return min(allowed, key=lambda x: abs(x - minutes))


def guided_plan(p: Prompt) -> dict:
    """The guided mode's slots: the usual day's words, with today's events in their slots."""
    typical = json.loads(p.find(r"usual day:\n(\{.*\})", "{}", re.S) or "{}")
    today = today_of(p)
    events = [h for h in find_happenings(p.block(r"remembers") + [p.text]) if h.start is not None
              and (h.month_day is None or h.month_day == today)]
    out = dict(typical)
    for h in events[:1]:
        slot = max((k for k in out if _minutes(k) <= h.start), default=None, key=_minutes)
        if slot:
            out[slot] = clip_words(f"attending the {h.what}", 8)
    return out


def replan(p: Prompt) -> dict:
    """The rest of the day rewritten: what the resident does now first, then an
    arrangement at its time and place, then what still makes sense of the old plan."""
    labels = _labels_of(p)
    starts = p.enum("items", "start")
    now = _minutes(starts[0])
    bed = _minutes(p.find(r"until bedtime at (\d{2}:\d{2})", "22:00"))
    rest = []
    for line in p.block(r"plan for the rest of today was"):
        m = re.match(r"(\d{2}:\d{2})-(\d{2}:\d{2}) (.*?)(?: \(([^()]*)\))?$", line)
        if m:
            rest.append((_minutes(m.group(1)), _minutes(m.group(2)) or 24 * 60, m.group(3), m.group(4)))
    items: list[tuple[int, int, str, str | None]] = []
    first = re.search(r"does now: (.+?) for (\d+) minutes at ([^.]+)\.", p.text)
    if first:
        items.append((now, int(first.group(2)), first.group(1), first.group(3).strip()))
    agreed = re.search(r"agreed with [^:]+: (.+?) at ([^.]+?) from (\d{2}:\d{2}) for (\d+) minutes", p.text)
    if agreed:
        s = _minutes(agreed.group(3))
        items.append((s, int(agreed.group(4)), agreed.group(1), agreed.group(2).strip()))
    taken = [(s, s + m) for s, m, _, _ in items]
    for s, e, what, where in rest:
        if "bed" in what or "sleep" in what:
            continue
        s = max(s, now)
        for a, b in sorted(taken):
            if a <= s < b:
                s = b
        cut = min([a for a, _ in taken if a > s] + [e])
        if cut - s >= 15:
            items.append((s, cut - s, what, where))
            taken.append((s, cut))
    items.sort()
    allowed = set(starts)
    out = []
    for s, mins, what, where in items:
        if s >= bed:
            continue
        hh = _hm(s) if _hm(s) in allowed else min(allowed, key=lambda x: abs(_minutes(x) - s))
        place = where if where in labels else (label_for(where, labels) or labels[0])
        out.append({"start": hh, "minutes": _nearest_minutes(p, mins), "activity": clip_words(what, 9), "place": place})
    dedup = {}
    for it in out:
        dedup.setdefault(it["start"], it)
    out = list(dedup.values())[: p.max_items("items")] or [{"start": starts[0], "minutes": 60,
                                                             "activity": "carrying on", "place": labels[0]}]
    return {"items": out}


STEP_TEMPLATES = [
    (r"breakfast|lunch|dinner|meal|snack", lambda w, meal: [f"preparing {meal}", f"eating {meal}",
                                                              "cleaning up after the meal"]),
    (r"wak|getting ready|morning routine", lambda w, meal: ["using the toilet", "taking a shower", "brushing teeth",
                                                             "getting dressed"]),
    (r"inviting|telling people", lambda w, meal: ["serving customers at the counter", "telling customers about it",
                                                   "chatting with regular customers", "inviting friends over"]),
    (r"hosting", lambda w, meal: ["welcoming the guests", "chatting with guests", "serving drinks to guests",
                                   "thanking guests for coming"]),
    (r"party|celebration|gathering|attending", lambda w, meal: ["greeting friends at the party",
                                                                 "chatting with other guests", "enjoying a drink",
                                                                 "dancing with friends"]),
    (r"\b(running|serving|working) (the|a|at the)\b.*\b(counter|store|shop|pub|cafe|bar|market|pharmacy)\b|"
     r"\b(counter|cafe|pub|bar)\b", lambda w, meal: [
        "serving customers at the counter", "tidying up the counter", "restocking supplies",
        "chatting with customers", "making fresh coffee", "wiping down the tables"]),
    (r"studying|class|lecture|homework|thesis|research", lambda w, meal: [
        "reviewing notes", "working through problems", "reading the course material", "writing up notes"]),
    (r"teaching", lambda w, meal: ["giving a lecture", "answering students' questions", "writing on the blackboard"]),
    (r"paint|draw|art|animat|sketch", lambda w, meal: ["sketching ideas", "painting at the easel", "reviewing the work"]),
    (r"writ|poem|novel|book", lambda w, meal: ["drafting new pages", "rereading the draft", "editing the draft"]),
    (r"read", lambda w, meal: ["reading a book", "making a cup of tea", "reading a few more chapters"]),
    (r"walk|stroll|park", lambda w, meal: ["taking a walk", "sitting on a bench", "watching the pond"]),
    (r"campaign|mayor|election", lambda w, meal: ["writing a campaign speech", "making a list of supporters",
                                                  "thinking about the town's problems"]),
    (r"relax|unwind|tv|rest", lambda w, meal: ["relaxing on the sofa", "watching tv", "listening to music"]),
]


def steps(p: Prompt) -> dict:
    """A plan item's chunk as 5-15 minute steps at fitting objects."""
    m = re.search(r"\((\d+) minutes\) (\w+) is (.+?) at (.+?)\.\n", p.text)
    minutes = int(m.group(1)) if m else 60
    activity = m.group(3) if m else "carrying on"
    objects = p.enum("steps", "place")
    n = max(1, min(p.max_items("steps"), -(-minutes // 15)))
    meal = next((w for w in ("breakfast", "lunch", "dinner") if w in activity), "a meal")
    texts = None
    for rx, make in STEP_TEMPLATES:
        if re.search(rx, activity, re.I):
            texts = make(activity, meal)
            break
    if texts is None:
        texts = [activity, f"taking a short break from {clip_words(gerund_phrase(activity), 4)}", activity]
    # A later chunk of the same activity goes on where the last one left off.
    shift = int(p.find(r"From (\d{2}):", "0")) % len(texts)
    texts = texts[shift:] + texts[:shift]
    texts = (texts * n)[:n] if len(texts) < n else texts[:n]
    out, left = [], minutes
    for i, text in enumerate(texts):
        d = 15 if left >= 15 else (10 if left >= 10 else 5)
        left -= d
        out.append({"activity": text, "minutes": d, "place": _object_for(text, objects)})
    return {"steps": out}


OBJECT_WORDS = [
    (r"coffee|espresso", ("coffee machine", "cafe counter", "bar counter")),
    (r"serv|counter|customer|restock|supplies",
     ("cafe counter", "bar counter", "grocery counter", "pharmacy counter", "supply store counter",
      "grocery shelves", "supply store shelves")),
    (r"tables", ("cafe customer seating", "pub tables", "dining table")),
    (r"preparing|cook", ("stove", "refrigerator")),
    (r"eating|meal|guests|welcoming|chatting", ("dining table", "cafe customer seating", "pub tables")),
    (r"cleaning up|dishes", ("kitchen sink",)),
    (r"toilet", ("toilet",)),
    (r"shower", ("shower",)),
    (r"brushing|washing", ("bathroom sink",)),
    (r"dressed", ("closet", "bathroom sink")),
    (r"lecture|blackboard", ("lecturer's podium", "blackboard")),
    (r"notes|problems|course|reading|draft|pages|writing|editing", ("desk", "library tables", "classroom student seating")),
    (r"paint|sketch|reviewing the work", ("easel", "desk")),
    (r"sofa|relax|tv|music", ("sofa", "tv")),
    (r"bench|pond|walk", ("park bench", "pond", "park garden")),
    (r"book|tea", ("bookshelves", "desk", "sofa")),
]


def _object_for(text: str, objects: list[str]) -> str:
    for rx, names in OBJECT_WORDS:
        if re.search(rx, text, re.I):
            for n in names:
                if n in objects:
                    return n
    general = [o for o in objects if any(w in o for w in ("desk", "table", "seating", "sofa", "counter", "bench"))]
    return (general or objects or [""])[0]


URGENT = r"(burning|on fire|smoking|leaking|flooding|overflowing|broken|sparking)"


def react(p: Prompt) -> dict:
    noticed = p.find(r"notices: (.+)")
    m = re.search(r"([\w' ]+?) is " + URGENT, noticed)
    if m:
        obj, state = m.group(1).strip(), m.group(2)
        fix = {"burning": f"putting out the fire on the {obj}", "on fire": f"putting out the fire on the {obj}",
               "smoking": f"turning off the smoking {obj}"}.get(state, f"fixing the {state} {obj}")
        return {"react": True, "activity": fix, "minutes": 15}
    return {"react": False, "activity": "", "minutes": 10}


def talk(p: Prompt) -> dict:
    """Friends and acquaintances are greeted more often than strangers; someone with
    news or an invitation to give (it is in the summary of their concerns) talks more."""
    other = p.find(r"\. ([A-Z][a-z]+ [A-Z][a-z]+) is nearby")
    doing = p.find(r"It is \d{2}:\d{2}\. \w+ is (.+?)\. ")
    mems = p.block(r"remembers about")
    acquainted = any(_first(other) in x and not re.match(rf"{other} is ", x) for x in mems)
    has_news = bool(re.search(EVENT_WORDS + r"|mayor|election", p.text.split("\n", 1)[0], re.I))
    if re.search(r"\b(sleep|class|lecture|teaching|exam)\b", doing):
        return {"talk": False}
    chance = 2 if has_news else (3 if acquainted else 6)  # one in N
    return {"talk": p.rng("talk") % chance == 0}


def relationship(p: Prompt) -> dict:
    me = p.find(r"what is ([A-Z][a-z]+ [A-Z][a-z]+)'s relationship") or "They"
    other = p.find(r"relationship with ([A-Z][a-z]+ [A-Z][a-z]+)")
    mems = [x for x in p.block(r"remembers:$") if other and _first(other) in x]
    if not mems:
        return {"summary": f"{_first(me)} does not know {other} well yet."}
    return {"summary": f"{_first(me)} knows {other}: {clip_words(mems[0], 24)}"}


def _said(transcript: list[str]) -> str:
    return " ".join(transcript).lower()


def utterance(p: Prompt) -> dict:
    me = p.find(r"What does (\w+) say next")
    other = p.find(r"say next to ([A-Z][a-z]+ [A-Z][a-z]+)")
    other_first = _first(other)
    lines = [x for x in p.text.split("Conversation so far:\n", 1)[-1].split("\n\nWhat does")[0].splitlines()
             if ": " in x]
    mine = [x for x in lines if x.startswith(me)]
    theirs = [x.split(": ", 1)[1] for x in lines if not x.startswith(me)]
    said = _said(lines)
    mems = p.block(r"remembers:$")
    today = today_of(p)
    now = _minutes(p.find(r"It is (\d{2}:\d{2})", "00:00"))
    news = [h for h in find_happenings(mems)
            if (h.month_day is None or today is None or h.month_day > today)
            or (h.month_day == today and h.start is not None and h.start > now)]
    # News the partner does not know yet (no memory of telling them, not said in this talk),
    # the most precise first (the host's own plan, then day, time and place given).
    told = " ".join(x.lower() for x in mems if other_first.lower() in x.lower())
    fresh = [h for h in news if h.what.lower() not in said and h.what.lower() not in told]
    fresh.sort(key=lambda h: (not h.hosting, h.month_day is None, h.start is None, h.place is None))
    last = theirs[-1] if theirs else ""
    if re.search(r"(would you like to come|want to come|you should come|join us)", last, re.I):
        h = (find_happenings([last]) or [None])[0]
        details = f"{h.where()}{h.when()}" if h else ""
        # Not everyone can or wants to come (the paper: 5 of 12 invitees came); the same
        # person gives the same answer to the same event, however often invited.
        mood = zlib.crc32(f"{me}|{h.what if h else last}".encode("utf-8")) % 5
        if mood < 2:
            return {"utterance": f"I'd love to come! I'll be there{details}.", "ends": False}
        if mood < 4:
            return {"utterance": "That sounds lovely, but I'm not sure I can make it. I'll see.", "ends": False}
        return {"utterance": "Thanks, but I already have plans then.", "ends": False}
    if re.search(r"I'd love to come|I'll be there|count me in", last, re.I):
        return {"utterance": f"Wonderful! See you there, {other_first}.", "ends": True}
    if re.search(r"not sure I can make it|already have plans", last, re.I):
        return {"utterance": f"No worries, {other_first}. Come by if you can!", "ends": True}
    if len(mine) >= 2 or len(lines) >= 6:
        return {"utterance": f"It was great talking with you, {other_first}. See you soon!", "ends": True}
    if fresh:
        h = fresh[0]
        if h.hosting:
            return {"utterance": f"I'm hosting a {h.what}{h.where()}{h.when()}. Would you like to come?", "ends": False}
        host = f" {h.host} is hosting it." if h.host and _first(h.host) != other_first else ""
        return {"utterance": f"Have you heard? There's a {h.what}{h.where()}{h.when()}.{host} You should come!",
                "ends": False}
    head = p.text.split("\n", 1)[0]  # the speaker's summary: its current concerns
    gossip = [x for x in mems + [head] if re.search(r"\b(running for|run for) mayor\b|\bcandida|\belection\b", x,
                                                     re.I) and "mayor" not in said]
    if gossip:
        g = gossip[0]
        mine_news = re.search(r"\bI (?:have decided|decided|am going) to (run for [^;.,]+)", g) or re.search(
            rf"\b{me} has decided on (running for [^;.,]+)", g)
        if mine_news:
            run = re.sub(r"^running", "run", mine_news.group(1))
            return {"utterance": f"I have some news: I've decided to {run}.", "ends": False}
        who = re.search(r"([A-Z][a-z]+ [A-Z][a-z]+) (?:is|has decided to|decided to|will be) (?:running|run)", g)
        if who and _first(who.group(1)) != other_first:
            return {"utterance": f"Did you know {who.group(1)} is running for mayor?", "ends": False}
    if not lines:
        return {"utterance": f"Hi {other_first}! How are you doing today?", "ends": False}
    if re.search(r"running for mayor|decided to run", last, re.I):
        return {"utterance": "That's big news! I'll think about my vote.", "ends": False}
    if re.search(r"how are you|how's it going", last, re.I):
        doing = p.find(r"\. \w+ is (.+?); ", "keeping busy")
        return {"utterance": f"I'm doing well, thanks! I'm {doing}.", "ends": False}
    if re.search(r"^I'm doing well", last):
        return {"utterance": f"Glad to hear it, {other_first}. I'd better get back to it. Talk later!", "ends": True}
    return {"utterance": f"That's good to hear, {other_first}.", "ends": len(lines) >= 3}


def _third_person(sentence: str, speaker: str) -> str:
    """A speaker's line as a memo: "I'm hosting ..." -> "Ann Baker is hosting ..."."""
    s = sentence.strip()
    s = re.sub(r"\bI'm\b|\bI am\b", f"{speaker} is", s)
    s = re.sub(r"\bI've\b|\bI have\b", f"{speaker} has", s)
    s = re.sub(r"\bI\b", speaker, s)
    s = re.sub(r"\bmy\b", "their", s)
    return s


def chat_summary(p: Prompt) -> dict:
    me = p.find(r"what did (\w+) learn")
    other = p.find(r"Conversation between [A-Z][a-z]+ [A-Z][a-z]+ and ([A-Z][a-z]+ [A-Z][a-z]+):")
    lines = [x for x in p.text.split("Conversation between", 1)[-1].splitlines()[1:] if ": " in x]
    lines = lines[: next((i for i, x in enumerate(lines) if x.startswith("1. ")), len(lines))]
    theirs = [x.split(": ", 1)[1] for x in lines if x.startswith(other)]
    mine = [x.split(": ", 1)[1] for x in lines if not x.startswith(other)]
    events = find_happenings(theirs + mine)
    news = [s for s in theirs if re.search(EVENT_WORDS + "|" + NEWS_WORDS, s, re.I)]
    told = [s for s in mine if re.search(EVENT_WORDS, s, re.I)]
    coming = any(re.search(r"I'd love to come|I'll be there|count me in", s, re.I) for s in theirs)
    if events:
        h = events[0]
        host = other if any(re.search(r"I'm hosting|I am hosting", s) for s in theirs) else (
            me if any(re.search(r"I'm hosting|I am hosting", s) for s in mine) else h.host)
        topic = f"the {h.what}" + (f" {host} is hosting" if host else "") + f"{h.where()}{h.when()}"
        if told and not news:
            summary = f"{topic}; {me} invited {other}" + (f", and {other} will come" if coming else "")
        else:
            summary = f"{topic}; {other} invited {me}" if re.search(r"come|join", " ".join(theirs), re.I) else topic
        importance = 7
    elif news:
        summary = _third_person(re.split(r"(?<=[.!?])\s+", news[0])[0], other)
        importance = 7 if re.search(r"mayor|election|candida", summary, re.I) else 5
    else:
        summary = f"how {me} and {other} are doing"
        importance = 2
    out: dict = {"summary": summary[:158], "importance": importance, "plans": False}
    accepted = any(re.search(r"I'd love to come|I'll be there|count me in|I will come", s, re.I) for s in mine)
    hosting = any(re.search(r"I'm hosting|I am hosting", s) for s in mine)
    if events and (accepted or hosting):
        h = events[0]
        days = p.enum("day")
        day = next((d for d in days if h.month_day and d.endswith(f"{MONTHS[h.month_day[0] - 1]} {h.month_day[1]:02d}")
                    or h.month_day and d.endswith(f"{MONTHS[h.month_day[0] - 1]} {h.month_day[1]}")), None)
        labels = p.enum("place")
        place = label_for(h.place, labels)
        hours = p.enum("start")
        start = _hm(h.start) if h.start is not None else None
        if day and place and start in hours:
            minutes = (h.end - h.start) if h.end else 120
            allowed = [int(x) for x in p.enum("minutes")] or [120]
            out.update(plans=True, day=day, start=start, minutes=min(allowed, key=lambda x: abs(x - minutes)),
                       activity=clip_words(f"{'hosting' if hosting else 'attending'} the {h.what}", 8), place=place)
    return out


def questions(p: Prompt) -> dict:
    first = p.find(r"Recent memories of (\w+):") or p.find(r"questions we can answer about (\w+)")
    records = p.block(r"Recent memories of")
    names = {}
    for r in records:
        for n in re.findall(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b", r):
            if _first(n) != first:
                names[n] = names.get(n, 0) + 1
    top = max(names, key=names.get) if names else None
    qs = [f"What is {first} looking forward to these days?",
          f"How does {first} feel about {top}?" if top else f"Who has {first} been spending time with?",
          f"What matters most to {first} in their work right now?"]
    return {"questions": qs}


WEEKDAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}


def insights(p: Prompt) -> dict:
    """Insights that answer the question, each citing the records it rests on."""
    records = p.numbered()
    first = p.find(r"Records of (\w+)")
    question = p.find(r"Question: (.+)")
    n = int(p.find(r"What up to (\d+) high-level", "3"))
    people: dict[str, list[int]] = {}
    for i, r in enumerate(records, 1):
        for name in re.findall(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b", r):
            a, b = name.split()
            if a != first and a not in WEEKDAYS and a not in MONTHS and b not in ("Cafe", "Park", "Day", "Pub"):
                people.setdefault(name, []).append(i)
    about_people = [{"insight": f"{first} has been spending time with {name} and values their company.",
                     "evidence": ids[:5], "importance": 5}
                    for name, ids in sorted(people.items(), key=lambda kv: -len(kv[1]))]
    asked = next((name for name in people if name in question or name.split()[0] in question), None)
    if asked:
        about_people.insert(0, {"insight": f"{first} feels close to {asked}, who often comes up in {first}'s days.",
                                "evidence": people[asked][:5], "importance": 6})
    ev = [(i, h) for i, r in enumerate(records, 1) for h in find_happenings([r])]
    about_events = [{"insight": (f"{first} is looking forward to the {h.what}{h.when()}."
                                 if wants_to_go(first, h, records) else f"{first} has heard about the {h.what}"
                                 f"{h.when()}."), "evidence": [i], "importance": 6} for i, h in ev[:1]]
    work = [i for i, r in enumerate(records, 1) if re.search(r"work|stud|class|cafe|counter|research|writ|paint|serv",
                                                             r)]
    about_work = [{"insight": f"{first} is dedicated to their work and keeps a steady routine.",
                   "evidence": work[:5], "importance": 4}] if work else []
    q = question.lower()
    if "forward" in q or "plan" in q:
        order = about_events + about_people + about_work
    elif "feel" in q or "who" in q or "spending time" in q:
        order = about_people + about_events + about_work
    else:
        order = about_work + about_events + about_people
    out = order[:max(1, min(n, 2))]
    if not out and records:
        out = [{"insight": f"{first}'s days have been quiet and ordinary.", "evidence": [1], "importance": 2}]
    return {"insights": out}


def answer(p: Prompt) -> dict:
    """A visitor's or an interviewer's question, answered from the memories in the prompt."""
    said = p.find(r'says: "(.*)"\s*$', "", re.S) or ""
    mems = p.block(r"You remember:")
    words = {w for w in re.findall(r"[a-z]+", said.lower()) if len(w) > 3}
    best = max(mems, key=lambda x: len(words & set(re.findall(r"[a-z]+", x.lower()))), default="")
    overlap = len(words & set(re.findall(r"[a-z]+", best.lower())))
    me = p.find(r"You are ([A-Z][a-z]+ [A-Z][a-z]+)")
    if overlap == 0:
        return {"answer": "I'm not sure, I don't know much about that."}
    text = best.replace(me, "I").replace(f"{_first(me)} ", "I ") if me else best
    return {"answer": f"Yes: {clip_words(text, 40)}"}


def judge(p: Prompt) -> dict:
    fact = p.find(r"The fact: (.+?)\.\n")
    said = p.find(r'answered: "(.*)"', "")
    words = {w for w in re.findall(r"[a-z]+", fact.lower()) if len(w) > 3}
    hit = len(words & set(re.findall(r"[a-z]+", said.lower())))
    return {"knows": hit >= 2 and not re.search(r"don't know|not sure|no idea", said, re.I)}


def dispatch(p: Prompt) -> dict:
    name = p.name
    props = set(((p.schema or {}).get("properties") or {}).keys())
    if "ratings" in props:
        return rate(p)
    if "items" in props:
        return replan(p) if "Rewrite" in p.text else day_plan(p)
    if name == "DayPlan":
        return guided_plan(p)
    if "steps" in props:
        return steps(p)
    if "react" in props:
        return react(p)
    if "talk" in props:
        return talk(p)
    if "utterance" in props:
        return utterance(p)
    if "plans" in props:
        return chat_summary(p)
    if "questions" in props:
        return questions(p)
    if "insights" in props:
        return insights(p)
    if "answer" in props:
        return answer(p)
    if "knows" in props:
        return judge(p)
    if "summary" in props:
        return relationship(p) if "relationship with" in p.text else summarise(p)
    return {}


def respond(messages: list, response_format: dict | None, timeout: float | None) -> str:
    text = next((str(m.get("content", "")) for m in reversed(messages) if m.get("role") == "user"), "")
    js = (response_format or {}).get("json_schema") or {}
    return json.dumps(dispatch(Prompt(text, js.get("schema"), str(js.get("name") or ""))), ensure_ascii=False)


scripted.register("competent", respond)
