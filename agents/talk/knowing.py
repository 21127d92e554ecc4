"""What the speaker knows at a turn of a grounded conversation (agents/talk/dialogue.py): the
memories one retrieval brings, the dated events among them (``Known``), which memories no
line may say (``unsayable``), today's plan with its arrangements and the yeses given in this
talk, and the people and places a text names. ``Turn`` holds it all for the acts' builders
(agents/talk/acts.py ``offered``)."""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from agents.explain import provenance as pv
from agents.planning import agenda
from agents.planning.arrangements import Arrangement, keep_arrangements, keywords_overlap
from agents.planning.items import PlanItem
from agents.recall import grounding as gr
from agents.recall import insights
from agents.recall.memory import MemoryNode, MemoryStream
from agents.support.types import Conversation, Utterance
from agents.talk import wording as wd
from agents.talk.acts import ACCEPT, Act, act_of_line, content_words, offered_in
from agents.talk.speaker import Talker
from agents.words import activity
from agents.words import dated as dt

NEWS_QUERY = "upcoming events, parties, plans and news worth telling {other}"


HEARD_LINE = re.compile(r'^([A-Z][a-z]+ [A-Z][a-z]+) told \w+: "')


# Not news to pass on: hearsay of hearsay ('... told me: "... told me: ...') and what someone
# said of their own habits ('... told me: "I love organising gatherings"'), which retold
# nested quotes into garble ('Latoya told me: "I, hello there. You told me: "I ...').
_RETOLD = re.compile(r'told \w+: "[^"]*\btold \w+:|\byou told me\b', re.I)


# A secret is kept ("a secret crush ... I have not told anyone"); news nobody knows *yet* (Sam's
# candidacy) is news to tell: keeping it too stopped the candidacy spreading (4% of the town).
SECRET = re.compile(r"\bsecret|\bnot told anyone|\bhave not told|\bnobody knows\b(?! yet)", re.I)
# "...; nobody knows yet": news until it is told, and no longer true once it is (Sam said it to
# each of those he told, and Maria passed it on with it)
NOT_YET_KNOWN = re.compile(r"[;,]?\s*(?:but\s+)?(?:nobody|no one|no-one) knows(?: (?:it|about it|this))? yet\b", re.I)


def untold_note_dropped(text: str) -> str:
    """The news without its note that nobody knows it yet."""
    return NOT_YET_KNOWN.sub("", text)


_TIMES = re.compile(r"\b\d{1,2}:\d\d\b")


PLACE_WORDS = {"Cafe", "Park", "Pub", "Store", "College", "Market", "Pharmacy", "House", "Apartment", "Dorm",
               "Hall", "Library", "Shop", "Bar", "Street", "Square", "School", "Supply"}


@dataclass
class Known:
    """A dated event the speaker knows of, and whether it is going (hosts it or agreed)."""

    event: dt.DatedEvent
    node: MemoryNode
    going: bool = False
    hosting: bool = False
    tellers: set[str] = field(default_factory=set)


@dataclass
class Turn:
    """A turn of the speaker's: the conversation, what it knows now, and the line before it
    answers (``last``: the other's, with its act and topic). The acts' builders read it."""

    m: Talker
    c: Conversation
    now: datetime
    v: wd.Voice
    partner_doing: str
    doing: str
    nodes: list[MemoryNode]  # the turn's one retrieval (``recall``)
    known: list[Known]  # the dated events among them (``events_known``)
    agreed: list[Arrangement]  # the yeses given in this talk (``agreed_here``)
    last: Utterance | None
    last_act: Act | None
    last_topic: str

    @property
    def lines(self) -> list[Utterance]:
        return self.c.lines

    @property
    def turn(self) -> int:
        return len(self.c.lines)

    @property
    def room(self) -> bool:
        """An offer leaves the other a line to answer it."""
        return self.turn + 2 < self.m.settings.max_conversation_lines

    def said(self, act: Act | tuple[Act, ...], mine: bool = False) -> bool:
        """Whether a line of ``act`` was said in this talk (by the speaker, with ``mine``)."""
        return offered_in(self.lines, act, self.m.name if mine else None)


def recall(m: Talker, c: Conversation, doing: str) -> list[MemoryNode]:
    """One retrieval for the turn (one batch of embeddings): news, events, the other, the last line."""
    other = c.other(m.name)
    last = c.lines[-1].text if c.lines else ""
    queries = [q for q in (NEWS_QUERY.format(other=other), other, f"{m.name} is {doing}", last) if q]
    try:
        return list(m.search(queries, m.now, k=8, char_budget=5000, kinds=gr.DURABLE_KINDS))
    except Exception:  # noqa: BLE001 - an embedding server down: small talk from the plan only
        m.note_fallback("line", "error")
        return []


def events_known(m: Talker, nodes: list[MemoryNode], now: datetime) -> list[Known]:
    """Dated events in the retrieved memories that have not ended, one per event (details
    merged), the speaker's own and those it agreed to go to marked ``going``."""
    by: dict[str, Known] = {}
    for x in sorted(nodes, key=lambda x: x.id):
        d = x.description
        if d.startswith("conversed with"):
            continue  # a memo repeats what was told; the memory of the telling itself counts
        own = x.kind in ("thought", "plan")
        teller = m.name if own and dt.hosting(d) else None
        # read as of when it was heard: the visitor's "tomorrow at noon" is the next day's noon
        made = x.created
        ev = dt.parse(d, made if isinstance(made, datetime) and made > datetime.min else now, teller=teller)
        if ev is None or ev.starts() + timedelta(minutes=ev.minutes()) <= now:
            continue
        k = by.get(ev.key)
        heard = HEARD_LINE.match(d)
        going = ev.host == m.name or (x.kind == "plan" and bool(re.search(r"plan for|agreed with", d)))
        if k is None:
            k = by[ev.key] = Known(ev, x, going, ev.host == m.name)
        else:
            merged = dt.DatedEvent(max(k.event.what, ev.what, key=len), k.event.place, k.event.day, k.event.start,
                                   k.event.end if k.event.end is not None else ev.end, k.event.host or ev.host)
            k.event, k.going, k.hosting = merged, k.going or going, k.hosting or ev.host == m.name
            if x.importance > k.node.importance:
                k.node = x
        if heard:
            k.tellers.add(heard.group(1))  # who told it knows it
    return sorted(by.values(), key=lambda k: (not k.hosting, not k.going, -k.node.importance))


def fact_of(x: MemoryNode) -> gr.Fact:
    return gr.Fact(x.id, gr._short(x.description), float(x.importance))


def told_to(m: Talker, other: str) -> list[str]:
    return m.social.told.get(other, [])


def unsayable(x: MemoryNode, now: datetime, other: str, memory: MemoryStream | None = None) -> bool:
    """A memory no line may say, whatever the act (tell, a reaction's own memory, an answer
    about someone): a memo, a timetable, a secret (or a reflection resting on one: Maria's
    crush made "I want to get to know Klaus better"), a tally ("I often talk with you": true,
    and recited it was filler, issue 45), a refusal, babble, or what the listener told."""
    d = x.description
    if x.kind not in gr.DURABLE_KINDS or d.startswith("conversed with") or not gr.offered(x, now):
        return True
    if is_timetable(d) or SECRET.search(d) or x.predicate == "declined" or _babble(d):
        return True
    if any(SECRET.search(e.description) for e in _cited(x, memory)):
        return True
    if x.kind == "reflection" and (insights.kind_of(x.source) in insights.TALLIES or other in d):
        return True  # nor an insight about the listener: "You are planning a study group", to Klaus
    heard = HEARD_LINE.match(d)
    return bool(heard and (heard.group(1) == other or _RETOLD.search(d)))  # not back to whoever told it


# What someone is like, how people stand, what one wants: said when asked about them, never told as
# news ("Hi Ayesha. Mei Lin is dedicated to teaching classes.", "Hello, Klaus. I am dedicated to ...")
NOT_NEWS_INSIGHTS = ("character", "bond", "wants")


def insight_not_news(x: MemoryNode) -> bool:
    """A reflection whose kind is no news to tell (``NOT_NEWS_INSIGHTS``)."""
    return x.kind == "reflection" and insights.kind_of(x.source) in NOT_NEWS_INSIGHTS


def same_news(memory: str, said: str) -> bool:
    """Whether a memory says what a line said (three content words in common)."""
    return len(content_words(memory) & content_words(said)) >= 3


_GIVEN = (pv.tag(pv.RULE, pv.SEED), pv.GIVEN_THOUGHT)


def quotes_you(d: str) -> bool:
    """A line heard that says "you": retold word for word, "you" names the wrong one."""
    return bool(HEARD_LINE.match(d) and re.search(r'told \w+: "[^"]*\byou\b', d, re.I))


def _cited(x: MemoryNode, memory: MemoryStream | None) -> list[MemoryNode]:
    """The memories a reflection rests on (none known without the memory stream)."""
    if memory is None or not x.evidence:
        return []
    return [e for e in (memory.get(i) for i in x.evidence) if e is not None]


def own_description(x: MemoryNode, memory: MemoryStream | None = None) -> bool:
    """A line of the resident's own description, known by its source (the model may have
    re-rated its importance since), or a reflection resting on nothing else ("I care a lot
    about fairness and community."): said unasked, either is a recital (issue 46)."""
    if x.source == pv.tag(pv.RULE, pv.SEED):
        return True
    cited = _cited(x, memory)
    return x.kind == "reflection" and bool(cited) and all(e.source in _GIVEN for e in cited)


def _babble(text: str) -> bool:
    """A memory that says one sentence twice: a small model's loop, not a fact."""
    sentences = [wd.norm(s) for s in re.split(r"(?<=[.!?])\s+", text) if wd.norm(s)]
    return len(sentences) != len(set(sentences))


def converse_words(text: str, other: str) -> str:
    """A fact in the speaker's words, said to the listener ("Maria Lopez is ..." -> "you are ...")."""
    return wd.to_listener(text, other)


def is_timetable(text: str) -> bool:
    """A whole day's timetable ("Isabella's plan for Monday February 13: 06:00-06:30 waking
    up ..."): a memory to plan by, not words to say."""
    return len(_TIMES.findall(text)) >= 3 or bool(re.search(r"'s plan for \w+day \w+ \d+(?::| at) \d", text))


def gr_names(text: str) -> list[str]:
    """The people a text names ("Isabella Rodriguez"), in the order it names them: the last
    two of capitalised words in a row, not a place's ("Johnson Park", "Harvey Oak Supply
    Store": a run asked "How is Harvey doing?" of a shop's name)."""
    out: list[str] = []
    for run in re.findall(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b", text or ""):
        words = run.split()
        if PLACE_WORDS.intersection(words) or words[-2] == "The":
            continue
        name = f"{words[-2]} {words[-1]}"  # "Yesterday Isabella Rodriguez": the name is the last two
        if name not in out:
            out.append(name)
    return out


def offered_event(u: Utterance, now: datetime) -> dt.DatedEvent | None:
    """The event an invitation names, or the plan an offer to meet names."""
    return dt.parse_meeting(u.text, now, teller=u.speaker) or dt.parse(u.text, now, teller=u.speaker)


def plan_today(m: Talker, now: datetime, agreed: list[Arrangement] | None = None) -> list[PlanItem]:
    """Today's plan with today's arrangements cut in at their times: an arrangement made since
    the plan was made wins over the item it replaces (lunch at Hobbs Cafe at 12, agreed at 10),
    and so does a yes given earlier in this talk (``agreed``, taken when the talk ends)."""
    return keep_arrangements(list(m.plan), list(m.today.arrangements) + list(agreed or []), now)


def agreed_here(m: Talker, lines: list[Utterance], now: datetime) -> list[Arrangement]:
    """The yeses the speaker gave in this talk to today's offers, as arrangements at the place
    the offer names: Eddy said yes to the party at 5 pm, then told Mei of dinner at home at 5:30
    in the same talk (the yes is taken only when the talk ends)."""
    out: list[Arrangement] = []
    for offer, yes in itertools.pairwise(lines):
        if yes.speaker != m.name or offer.speaker == m.name or act_of_line(yes) is not ACCEPT:
            continue
        ev = offered_event(offer, now)
        if ev is None or ev.day != now.date():
            continue
        where = agenda.agreed_place(m.spatial, m.persona, ev)  # a pub not yet been to, too (Tamara)
        if where is not None:
            what = ev.what if activity.is_gerund(ev.what.split()[0]) else f"going to the {ev.what}"
            out.append(Arrangement(ev.starts(), ev.minutes(), what, where, "agreed in this talk", pv.tag(pv.RULE, "")))
    return out


def clash(m: Talker, start: datetime, minutes: int, what: str, place: str = "",
          agreed: list[Arrangement] | None = None) -> tuple[str, str]:
    """An engagement of the speaker's overlapping [start, start + minutes) that is not ``what``
    (at ``place``) itself: an arrangement (any day) or an agenda item of today's plan, as
    (doing, clock) or ("", ""). Lunch with Ayesha at the pub is not lunch at Hobbs Cafe."""
    end = start + timedelta(minutes=minutes)
    items = [a.item() for a in [*m.today.arrangements, *(agreed or [])]]
    items += [x for x in plan_today(m, start) if x.start.date() == start.date() and agenda.is_engagement(x)]
    for x in items:
        d = x.description
        if x.start < end and start < x.end and not same_doing(x, what, place) and activity.is_gerund(d.split()[0]):
            return d, dt.clock(x.start.hour * 60 + x.start.minute)
    return "", ""


def same_doing(x: PlanItem, what: str, place: str = "") -> bool:
    """Whether plan item ``x`` is ``what`` (at ``place``): lunch at home is not lunch at Hobbs Cafe."""
    return keywords_overlap(x.description, what, ignore="having going attending") and (
        not place or place.lower() in f"{x.address} {x.description}".lower())


def when_where(m: Talker, x: PlanItem) -> tuple[str, str]:
    """A plan item's time, and its doing with where ("at 5 pm", "having lunch at Hobbs Cafe")."""
    where = m.spatial.label(m.spatial.arena_of(x.address)).split(":")[0]
    home = m.spatial.label(m.persona.home).split(":")[0]
    where = "home" if where and where == home else where  # not "at Carlos Gomez's apartment", said by Carlos
    at = f" at {where}" if where.lower() not in x.description.lower() else ""
    return dt.clock(x.start.hour * 60 + x.start.minute), f"{x.description}{at}"


def common_doing(doing: str) -> bool:
    """A doing half the town shares at once (lunch at Hobbs Cafe, the party, "working at the ..."):
    said first, it opened a run's answers alike ("attending the Valentine's ..." 15 times), so
    those answers name the asker first."""
    return doing.split()[0].lower() in ("having", "attending", "eating", "working", "going", "getting", "taking")

