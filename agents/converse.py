"""Dialogue (paper section 4.4 / the original's agent_chat_v2, one line per job):
each utterance is conditioned on the speaker's summary of the other (the two
retrieval queries, cached per conversation) and the dialogue so far."""
from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field, create_model

from agents import activity
from agents import grounding as gr
from agents import provenance as pv
from agents.arrangements import Arrangement, day_labels, keep_arrangements
from agents.memory import MemoryNode
from agents.plan import PLAN_MINUTES, Planner, place_for, replan_rest
from agents.text import Text160, Text200, clean_text, short_text
from agents.today import Today
from agents.types import Conversation, Utterance


class Social:
    """Whom a resident knows and when it last talked with them: the conversation
    state a mind keeps between conversations (its save under the mind's keys)."""

    def __init__(self) -> None:
        self.known_people: set[str] = set()
        self.last_talked: dict[str, datetime] = {}
        self.last_conversation: datetime | None = None
        self.rel_cache: dict[str, tuple[datetime, str]] = {}  # partner -> (when, relationship summary)

    def to_state(self) -> dict[str, Any]:
        return {
            "known_people": sorted(self.known_people),
            "last_talked": {k: v.isoformat() for k, v in self.last_talked.items()},
            "rel_cache": {k: [t.isoformat(), v] for k, (t, v) in self.rel_cache.items()},
            "last_conversation": self.last_conversation.isoformat() if self.last_conversation else None,
        }

    def from_state(self, state: dict[str, Any]) -> None:
        dt = lambda v: datetime.fromisoformat(v) if v else None  # noqa: E731
        self.known_people = set(state["known_people"])
        self.last_talked = {k: datetime.fromisoformat(v) for k, v in state["last_talked"].items()}
        rel = state.get("rel_cache")  # saves from before the cache have none
        self.rel_cache = ({k: (datetime.fromisoformat(t), v) for k, (t, v) in rel.items()}
                          if isinstance(rel, dict) else {})
        self.last_conversation = dt(state.get("last_conversation"))


class Talker(Planner, Protocol):
    """What dialogue needs of a mind (besides agents.seams.Thinking and planning)."""

    social: Social
    today: Today

    def remember(self, kind: str, text: str, importance: int, **fields: Any) -> MemoryNode | None:
        ...

    @staticmethod
    def sleeping(doing: str | None) -> bool:
        ...

    @property
    def grounded(self) -> bool:
        ...

    def search(self, queries: list[str], now: datetime, *, k: int, char_budget: int, touch: bool = True,
               kinds: tuple[str, ...] | None = None) -> list[MemoryNode]:
        ...


class Talk(BaseModel):
    talk: bool


class Relationship(BaseModel):
    summary: Text200  # maxLength in the grammar only (measured no slower): a small model stops in time


class Line(BaseModel):
    utterance: Text160 = Field(min_length=1)
    ends: bool


@lru_cache(maxsize=256)
def chat_summary_schema(days: tuple[str, ...], hours: tuple[str, ...], labels: tuple[str, ...]) -> type[BaseModel]:
    """The memo of a conversation, its importance, and the plan it made, if any (the
    original's "planning thought"): a day, time and place from enumerations."""
    fields: dict[str, Any] = dict(
        summary=(short_text(160), ...),
        importance=(int, Field(ge=1, le=10)),
        plans=(bool, False),
        day=(Literal[days] | None, None),
        start=(Literal[hours] | None, None),
        minutes=(Literal[PLAN_MINUTES] | None, None),
        activity=(short_text(60) | None, None),
        place=(Literal[labels] | None, None),
    )
    return create_model("ChatSummary", **fields)


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]", "", text.lower()).strip()


def may_talk(m: Talker, other: str, now: datetime, doing: str) -> bool:
    """The cheap rule before any call: awake, daytime, not just talked to them, and
    not straight after another conversation (nobody chats all day)."""
    s = m.settings
    lo, hi = s.talk_hours
    if not lo <= now.hour < hi or m.sleeping(doing):
        return False
    since = m.social.last_conversation
    if since is not None and timedelta(0) <= now - since < timedelta(minutes=s.talk_gap_min):
        return False
    last = m.social.last_talked.get(other)
    return last is None or now - last >= timedelta(minutes=s.talk_cooldown_min)


def decide_to_talk(m: Talker, other: str, now: datetime, doing: str, their_doing: str) -> tuple[bool, str]:
    """(talk?, provenance): without a usable answer the resident keeps to itself."""
    nodes = m.retrieve(f"{other}", k=4)
    context = "\n".join(f"- {x.description}" for x in nodes) or "- (nothing)"
    got, why = m.ask(Talk, "talk_decision", "talk_decision", None, other=other, doing=doing,
                     their_doing=their_doing or "here", memories=context, time=f"{now:%H:%M}")
    if why is not None:
        m.note_fallback("talk decision", why)
        return False, pv.tag(pv.RULE, pv.reason_of_failure(why))
    return bool(got.talk), pv.MODEL


def relationship(m: Talker, c: Conversation, partner_doing: str) -> str:
    """The speaker's summary of the other (the paper's two retrieval queries), asked
    once and reused for the next few hours' conversations with them (economy)."""
    other = c.other(m.name)
    hit = m.social.rel_cache.get(other)
    if hit is not None and timedelta(0) <= m.now - hit[0] < timedelta(hours=m.settings.relationship_hours):
        return hit[1]
    seen: dict[int, MemoryNode] = {}
    for q in (f"What is {m.name}'s relationship with {other}?", f"{other} is {partner_doing}"):
        for x in m.retrieve(q, k=6):
            seen.setdefault(x.id, x)
    nodes = list(seen.values())
    about = [x for x in nodes if other.split()[0] in x.description]
    fb = (f"{m.name} knows this about {other}: {about[0].description}" if about
          else f"{m.name} does not know {other} well yet.")[:240]
    if not nodes:
        m.social.rel_cache[other] = (m.now, fb)
        return fb
    listing = "\n".join(f"- {x.description}" for x in nodes[:10])
    got, why = m.ask(Relationship, "relationship", "relationship", Relationship(summary=fb),
                     other=other, memories=listing)
    if why is not None:
        m.note_fallback("relationship", why)
    text = clean_text(got.summary, 240)
    places = {w for a in m.spatial.arenas() for w in a.replace("'s", " ").replace(":", " ").split()}
    if relationship_problem(text, m.name, other, [x.description for x in nodes], set(m.social.known_people), places):
        m.rejected["relationship"] += 1
        text = fb
    m.social.rel_cache[other] = (m.now, text)
    return text


NAME = re.compile(r"\b([A-Z][a-z]+)\s+([A-Z][a-z]+)\b")


def names_in(text: str) -> set[str]:
    return {f"{a} {b}" for a, b in NAME.findall(text or "")}


CALENDAR = set("Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July "
               "August September October November December Valentine Valentines".split())


def relationship_problem(text: str, me: str, other: str, memories: list[str], cast: AbstractSet[str],
                         place_words: AbstractSet[str] = frozenset()) -> str | None:
    """Why a relationship summary cannot be used: it must name the other person and
    no one who is neither in the retrieved memories nor known by full name (a small
    model mixes surnames: "Maria Rodriguez" from Maria Lopez and Isabella Rodriguez)."""
    if not text or len(text.split()) < 4:
        return "too short"
    if other.split()[0] not in text:
        return f"does not mention {other}"
    allowed = {me, other} | cast
    for mem in memories:
        allowed |= names_in(mem)
    firsts = {n.split()[0] for n in allowed}
    lasts = {n.split()[-1] for n in allowed}
    for n in names_in(text):
        a, b = n.split()
        if n in allowed:
            continue
        if a in firsts or b in lasts:
            return f"mixes up names: {n}"
        if not ({a, b} & (set(place_words) | CALENDAR)):
            return f"names someone unknown: {n}"
    return None


def fallback_line(m: Talker, c: Conversation, doing: str) -> Line:
    other = c.other(m.name).split()[0]
    n = len(c.lines)
    if n == 0:
        return Line(utterance=f"Hi {other}! How are you doing today?", ends=False)
    if n == 1:
        return Line(utterance=f"Hi {other}, I'm well, thanks. I'm {doing or 'keeping busy'}.", ends=False)
    return Line(utterance=f"It was nice to talk, {other}. See you around!", ends=True)


NEWS_QUERY = "upcoming events, plans and news worth telling {other}"


def utter(m: Talker, c: Conversation, now: datetime, partner_doing: str, doing: str) -> Utterance:
    """The next line: retrieval on the relationship, the partner's doing, the last line
    (the paper's focal points) and on news worth passing on."""
    if m.grounded:
        return grounded_line(m, c, now, partner_doing, doing)
    other = c.other(m.name)
    rel = relationship(m, c, partner_doing)
    last = c.lines[-1].text if c.lines else ""
    seen: dict[int, MemoryNode] = {}
    for q in (f"{rel} {last}".strip(), f"{other} is {partner_doing}", NEWS_QUERY.format(other=other)):
        for x in m.retrieve(q, k=4):
            seen.setdefault(x.id, x)
    memories = "\n".join(f"- {x.description}" for x in list(seen.values())[:8]) or "- (nothing)"
    transcript = "\n".join(f"{u.speaker}: {u.text}" for u in c.lines[-6:]) or "(nobody has spoken yet)"
    got, why = m.ask(Line, "utterance", "utterance", lambda: fallback_line(m, c, doing),
                     other=other, relationship=rel, memories=memories, transcript=transcript,
                     doing=doing or "here", partner_doing=partner_doing or "here", time=f"{now:%H:%M}",
                     date=f"{now:%A %B %d}")
    source = pv.MODEL
    if why is not None:
        m.note_fallback("line", why)
        source = pv.tag(pv.RULE, pv.reason_of_failure(why))
    text = clean_text(got.utterance, 200)
    ends = bool(got.ends)
    # "Klaus Mueller: What a pleasure" / "Maria, I'm glad" said by Maria: the speaker's own name is not the line
    text = re.sub(rf"^(?:{re.escape(m.name)}|{re.escape(m.name.split()[0])})\s*[:,]\s*", "", text).strip()
    if len(text.split()) < 2 or names_in(text) >= {text} or text.lower().startswith(other.lower()):
        m.rejected["utterance"] += 1  # a bare name or a stage direction is not a line
        m.note_fallback("line", "invalid")
        fb = fallback_line(m, c, doing)
        text, ends, source = fb.utterance, fb.ends or ends, pv.tag(pv.RULE, pv.INVALID)
    # Guards the original lacked (issue #113): a repeated line ends the talk,
    # and so does the turn limit.
    if not text or _norm(text) in {_norm(u.text) for u in c.lines}:
        text, ends, source = f"Well, I should get going, {other.split()[0]}. Talk soon!", True, pv.tag(
            pv.RULE, "the line repeated an earlier one")
    if len(c.lines) + 1 >= m.settings.max_conversation_lines:
        ends = True
    return Utterance(speaker=m.name, text=text, ends=ends, source=source)


_TIMES = re.compile(r"\b\d{1,2}:\d\d\b")
_SECRET = re.compile(r"\bsecret|\bnobody knows|\bnot told anyone|\bhave not told", re.I)
GROUNDED_LINES = 2  # lines each side says in a grounded conversation (then one closes it)
TOPIC_KINDS = gr.DURABLE_KINDS  # what residents tell each other (not what they saw)


def topics(m: Talker, c: Conversation, partner_doing: str, doing: str) -> list[gr.Fact]:
    """What the speaker could tell the other: its memories of news and upcoming events, of
    the other and of what it is doing (the paper's focal points), most important first,
    none already said in this conversation."""
    other = c.other(m.name)
    last = c.lines[-1].text if c.lines else ""
    queries = [q for q in (NEWS_QUERY.format(other=other), f"{other}", f"{m.name} is {doing}", last) if q]
    # only what one thinks, was told, planned or concluded (what one saw crowds those out otherwise)
    try:
        seen = {x.id: x for x in m.search(queries, m.now, k=6, char_budget=4000, kinds=TOPIC_KINDS)}
    except Exception:  # noqa: BLE001 - an embedding server down: nothing to tell, small talk
        m.note_fallback("line", "error")
        return []
    said = {_norm(u.text) for u in c.lines}
    out: list[gr.Fact] = []
    for x in sorted(seen.values(), key=lambda x: (-x.importance, -x.id)):
        d = x.description
        if (x.kind not in TOPIC_KINDS or d.startswith("conversed with") or len(_TIMES.findall(d)) >= 2
                or not gr.offered(x)):
            continue  # what one saw, a memo of a talk, a whole day's timetable or a free reflection is no topic
        if _SECRET.search(d) and (other in d or other.split()[0] in d):
            continue  # a secret about the listener is not told to them

        worded = _norm(gr.first_person(x.description, m.name))
        if any(worded and (worded in s or s in worded) for s in said if len(s) > 12):
            continue
        out.append(gr.Fact(x.id, gr._short(x.description), float(x.importance)))
    return out[:gr.MAX_FACTS]


def to_listener(line: str, other: str) -> str:
    """A line about the listener, said to them: "Maria Lopez is ..." -> "you are ..."."""
    first = other.split()[0]
    for who in (re.escape(other), re.escape(first)):
        line = re.sub(rf"\b(of|like) {who}\b", r"\1 yours" if "friend" in line else r"\1 you", line)
        line = re.sub(rf"\b{who} is\b", "you are", line)
        line = re.sub(rf"\b{who}'s\b", "your", line)
        line = re.sub(rf"\b{who}\b", "you", line)
    return line[0].upper() + line[1:] if line else line


def grounded_line(m: Talker, c: Conversation, now: datetime, partner_doing: str, doing: str) -> Utterance:
    """The grounded mode's line: the model chooses which of the speaker's memories to tell
    (news, the other, what it is doing; or none), a rule words it. Facts passed on this
    way are remembered by the listener (``end_conversation``)."""
    other = c.other(m.name)
    first = other.split()[0]
    mine = [u for u in c.lines if u.speaker == m.name]
    closing = f"It was nice to talk, {first}. See you around!"
    if len(mine) >= GROUNDED_LINES:
        return Utterance(m.name, closing, True, pv.tag(pv.RULE, f"{gr.GROUNDED}: the talk has run its course"))
    facts = topics(m, c, partner_doing, doing)
    got = gr.Grounded(None, pv.tag(pv.RULE, f"{gr.GROUNDED}: nothing to tell"))
    if facts:
        schema = gr.choice_schema(len(facts))
        answer, why = m.ask(schema, "choose_fact", "choose_line", schema(fact=gr.NONE), asked_by="You",
                            question=f"What would you tell {other} now?", facts=gr.fact_list(facts))
        if why is not None:
            m.note_fallback("line", why)
        got = gr.outcome(facts, answer, why, fallback_first=True)
    heard = bool(c.lines) and gr.GROUNDED in c.lines[-1].source and "memory #" in c.lines[-1].source
    if got.fact is None:
        if not c.lines:
            line, ends = f"Hi {first}! How are you doing today?", False
        elif len(mine) == 0:
            line, ends = f"Hi {first}, I'm well, thanks. I'm {doing or 'keeping busy'}.", False
        else:
            line, ends = (f"Oh, I didn't know that, {first}. " if heard else "") + closing, True
        return Utterance(m.name, line, ends, got.source)
    line = to_listener(gr.first_person(got.fact.text, m.name), other)
    if not c.lines:
        line = f"Hi {first}! {line}"
    elif heard:
        about_me = re.search(r"\byou\b|\byours\b", c.lines[-1].text, re.I)
        line = f"{'That is nice to hear!' if about_me else 'Oh, I did not know that!'} {line}"
    ends = len(c.lines) + 1 >= m.settings.max_conversation_lines
    return Utterance(m.name, line, ends, got.source)


def remember_heard(m: Talker, c: Conversation, now: datetime) -> None:
    """Grounded mode: what the other told from their memories becomes the listener's own
    memory ("Isabella Rodriguez told Maria: ..."), so it can be retrieved and passed on."""
    other = c.other(m.name)
    me = m.name.split()[0]
    for u in c.lines:
        if u.speaker == other and gr.memory_of(u.source) is not None:
            text = re.sub(r"^(Hi \w+! |Oh, I did not know that! |That is nice to hear! )", "", u.text)
            m.remember("chat", f"{other} told {me}: \"{text[:300]}\"", gr.news_importance(text), subject=other,
                       predicate="told", object=m.name, source=pv.tag(pv.RULE, f"{gr.GROUNDED}: heard from {other}"),
                       rate=True, importance_source=pv.tag(pv.RULE, "until the model rates it"))


def end_conversation(m: Talker, c: Conversation, now: datetime) -> Arrangement | None:
    """Both sides remember the conversation (a memo, rated by the model); when it
    made a plan, the arrangement is returned (the mind plans around it)."""
    other = c.other(m.name)
    m.social.last_talked[other] = now
    m.social.last_conversation = now
    m.social.known_people.add(other)
    if not c.lines:
        return None
    if m.grounded:
        remember_heard(m, c, now)
    theirs = [u.text for u in c.lines if u.speaker != m.name]
    fb_text = ("; ".join(theirs) or c.lines[0].text)[:150]
    sp = m.spatial
    arenas = sp.arenas()
    labels = tuple(sp.label(a) for a in arenas)
    days = day_labels(now)
    hours = tuple(f"{h:02d}:{mm:02d}" for h in range(6, 24) for mm in (0, 30))
    schema = chat_summary_schema(days, hours, labels)
    got, why = m.ask(schema, "chat_summary", "chat_summary", None, other=other, transcript=c.transcript()[-1500:],
                     time=f"{now:%H:%M}", date=f"{now:%A %B %d}", days=", ".join(days))
    if why is not None:
        m.note_fallback("conversation memory", why)
        summary, importance = fb_text, 4
        src, imp_src = pv.tag(pv.RULE, pv.reason_of_failure(why)), pv.tag(pv.RULE, pv.reason_of_failure(why))
    else:
        summary = clean_text(got.summary, 200) or fb_text
        importance, src, imp_src = got.importance, pv.MODEL, pv.MODEL
    text = f"conversed with {other} about {summary}"
    m.remember("chat", text, importance, subject=m.name, predicate="conversed with", object=other,
               source=src, importance_source=imp_src)
    m.today.chats.append(f"with {other}: {summary}")
    if why is None and got.plans:
        return arrangement_from(m, got, now, other, dict(zip(labels, arenas)), c.transcript())
    return None


def arrangement_from(m: Talker, got: Any, now: datetime, other: str, resolve: dict,
                     transcript: str) -> Arrangement | None:
    """The plan a conversation made, validated: a day, a time, a place the resident
    knows, in the future, and grounded in what was said (its time or its place
    appears in the conversation: a small model ticks "plans" at random)."""
    if not (got.day and got.start and got.activity):
        m.rejected["arrangement"] += 1
        return None
    try:
        day = datetime.strptime(f"{got.day} {now.year}", "%A %B %d %Y")
        h, mm = (int(x) for x in got.start.split(":"))
    except ValueError:
        m.rejected["arrangement"] += 1
        return None
    start = day.replace(hour=h, minute=mm)
    text = activity.clean_activity(got.activity, m.name)
    addr = resolve.get(got.place) if got.place else None
    if text and (addr is None or not activity.fits_place(text, addr)):
        addr = place_for(text, m.spatial, m.persona, near=addr)
    said = transcript.lower()
    hour12 = f"{h % 12 or 12}"
    grounded = (addr is not None and addr.split(":")[1].lower() in said) or re.search(
        rf"\b({got.start}|{hour12}(:{mm:02d})?\s*(am|pm|o'clock|in the)|{hour12}\s*(-|to)\s*\d)", said)
    if text is None or addr is None or start <= now or not grounded:
        m.rejected["arrangement"] += 1
        return None
    made = f"agreed with {other} on {now:%A %B %d}"
    return Arrangement(start, int(got.minutes or 60), text, addr, made, pv.MODEL)


def take_arrangement(m: Talker, arrangement: Arrangement, other: str) -> None:
    """A plan made in conversation: for later today, the rest of the day is
    rewritten around it (by the model in the paper's mode); for another day it is
    kept, and remembered as a planning thought."""
    a, today = arrangement, m.today
    first = m.persona.first_name
    thought = (f"{first}'s plan for {a.start:%A %B %d} at {a.start:%H:%M}: {a.description} at "
               f"{m.spatial.label(a.address)} ({a.made})")
    m.remember("plan", thought, 6, subject=m.name, source=a.source, rate=True,
               importance_source=pv.tag(pv.RULE, "until the model rates it"))
    if a.start.date() == m.now.date() and today.planned_for == m.now.date():
        if m.guided:
            today.plan = keep_arrangements(today.plan, [a], m.now)
        else:
            today.plan = replan_rest(
                m, m.now, f"{first} just agreed with {other}: {a.description} at "
                f"{m.spatial.label(a.address)} from {a.start:%H:%M} for {a.minutes} minutes.")
        today.pending = []
    else:
        today.arrangements.append(a)
    today.chats.append(f"arranged: {a.line()}")
