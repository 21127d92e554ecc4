"""Grounded conversation as dialogue acts (the embedded model's mode; the paper's free
lines stay in agents/talk/converse.py).

Each turn the speaker is offered only the acts that make sense now, each already
worded by rule from its memories (agents/talk/wording.py), and the model chooses one
under a grammar (an enum of their numbers), as it chooses a fact for an answer:

- answer the question just asked (its day, its plans, someone both know);
- react to news just heard, naming it;
- ask about the other's day, plans or a shared acquaintance;
- tell news, most important first;
- invite to a dated event it hosts or is going to, that the listener was not told of;
- accept or decline an invitation (only right after one);
- make a plan to meet (join it at a public place later today);
- say goodbye (from the third line on; the only act at the turn limit).

The line's provenance records the act and the memory it came from, in the form
agents/explain/provenance.py and ``grounding.memory_of`` read: "repaired: grounded: memory #12
(...); act tell". ``act_of`` reads the act back; ``act_by_rule`` guesses it for lines
of runs that recorded none. What an invitation and its answer agreed becomes an
arrangement on both sides (``agreements``, called from converse.end_conversation).
"""
from __future__ import annotations

import itertools
import re
import zlib
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, create_model

from agents.explain import provenance as pv
from agents.planning import agenda
from agents.planning.arrangements import Arrangement, keep_arrangements, keywords_overlap
from agents.planning.plan import item_at
from agents.recall import grounding as gr
from agents.recall import insights
from agents.recall.memory import MemoryNode
from agents.support.types import Conversation, Utterance
from agents.talk import wording as wd
from agents.words import activity
from agents.words import dated as dt

ANSWER, REACT, ASK, TELL, INVITE, ACCEPT, DECLINE, MEET, GOODBYE = ACTS = (
    "answer", "react", "ask", "tell", "invite", "accept", "decline", "meet", "goodbye")
OFFERS = (INVITE, MEET)  # acts that the other answers with accept or decline
HOSTING = "its own event"  # an invitation's note when the speaker hosts the event
RESPONSIVE = (ANSWER, REACT, ACCEPT, DECLINE)  # acts that respond to the line before
MAX_OPTIONS = 5  # a small choice: the 135M model picks well among few
LINES_EACH = 4  # a side's lines before its goodbye is the only act left
GOODBYE_FROM = 3  # goodbye is offered once this many lines were said
RECAP_FRESH = timedelta(hours=30)  # a gathering's recap is told first until the day after it is out
NEWS_QUERY = "upcoming events, parties, plans and news worth telling {other}"
_ACT = re.compile(r"\bact (" + "|".join(ACTS) + r")(?: \(([^)]*)\))?\s*$")
SOCIAL = re.compile(r"\b(lunch|dinner|breakfast|brunch|coffee|tea|drink|drinks|meal|walk|stroll|picnic|snack)\b", re.I)
_HEARD = re.compile(r'^([A-Z][a-z]+ [A-Z][a-z]+) told \w+: "')
# Not news to pass on: hearsay of hearsay ('... told me: "... told me: ...') and what someone
# said of their own habits ('... told me: "I love organising gatherings"'), which retold
# nested quotes into garble ('Latoya told me: "I, hello there. You told me: "I ...').
_RETOLD = re.compile(r'told \w+: "[^"]*\btold \w+:|\byou told me\b', re.I)
_HABIT = re.compile(r'told \w+: "(?:[^".!?]*[.!?] |[A-Z][a-z]+, )?I (?:often |usually |always |really )?'
                    r'(?:love|like|enjoy|walk|work|live|study|run|own|teach|write|paint|spend|go|care|prefer|know|'
                    r'am a|am an)\b')
# A secret is kept ("a secret crush ... I have not told anyone"); news nobody knows *yet* (Sam's
# candidacy) is news to tell: keeping it too stopped the candidacy spreading (4% of the town).
_SECRET = re.compile(r"\bsecret|\bnot told anyone|\bhave not told|\bnobody knows\b(?! yet)", re.I)
_TIMES = re.compile(r"\b\d{1,2}:\d\d\b")
# What one does not ask someone about, seen doing it
_PRIVATE = re.compile(r"\b(toilet|bathroom|shower\w*|bath|washing up|brushing (?:my |his |her )?teeth|undress\w*)\b",
                      re.I)


@dataclass
class Option:
    """One thing the speaker could say now, worded."""

    act: str
    text: str
    fact: gr.Fact | None = None  # the memory it came from
    topic: str = ""  # ask/answer: day | plans | person; tell/invite: what the listener is told
    ends: bool = False
    note: str = ""  # where the words came from when no memory did ("today's plan")


@dataclass
class Known:
    """A dated event the speaker knows of, and whether it is going (hosts it or agreed)."""

    event: dt.DatedEvent
    node: MemoryNode
    going: bool = False
    hosting: bool = False
    tellers: set[str] = field(default_factory=set)


@lru_cache(maxsize=256)
def reply_schema(texts: tuple[str, ...]) -> type[BaseModel]:
    """{"reply": one of the offered lines, word for word}: the grammar lets the model write
    nothing else. The model writes the line it chooses, so its choice follows what the lines
    say: asked for a number, the 135M model took the last one listed whatever it said (on
    40 recorded turns asked in both orders, 27 took the last both times and none kept its
    choice; written out, 24 kept the same line in both orders)."""
    fields: dict[str, Any] = {"reply": (Literal[texts], ...)}
    return create_model("ReplyChoice", **fields)


def act_of(source: str | None) -> tuple[str | None, str]:
    """(act, topic) a grounded line's provenance records, or (None, "")."""
    m = _ACT.search(str(source or ""))
    return (m.group(1), m.group(2) or "") if m else (None, "")


_BYE = re.compile(r"\b(bye|goodbye|see you|take care|talk soon|catch up (?:again )?soon|get going|get back to|"
                  r"let you get on|must go|have to go)\b", re.I)
_ACCEPT = re.compile(r"\b(i'd love to|i'd love that|count me in|i'll be there|i will be there|i'll come|i will come|"
                     r"wouldn't miss it|of course i'll|yes,? i'll|gladly|i'll join you|that sounds nice)\b", re.I)
_DECLINE = re.compile(r"\b(can't make it|can't come|cannot come|won't be able|i wish i could)\b", re.I)
_INVITE = re.compile(r"\b(would you like to (?:come|join)|want to come|will you come|you're invited|join me|"
                     r"come along|invite you)\b", re.I)


def act_by_rule(text: str, previous: str | None) -> str:
    """The act of a line that recorded none (a run before acts, the paper's mode), by rule."""
    t = str(text or "").strip()
    if _DECLINE.search(t):
        return DECLINE
    if _ACCEPT.search(t):
        return ACCEPT
    if _INVITE.search(t):
        return INVITE
    if previous and gr.is_question(previous) and not gr.is_question(t):
        return ANSWER
    if previous and _echoes(t, previous):
        return REACT  # it names what was just said ("A party? ..."); "Oh, I did not know that!" alone does not
    if _BYE.search(t):
        return GOODBYE
    if gr.is_question(t):
        return ASK
    return TELL


def _echoes(text: str, previous: str) -> bool:
    """Does ``text`` name something of ``previous`` (a content word of four letters or more)?"""
    words = lambda s: {w for w in re.findall(r"[a-z']{4,}", s.lower())} - _STOP  # noqa: E731
    return bool(words(text) & words(previous))


_STOP = set("that this with have your you're what when where about there their they them from been were will "
            "would could should just really very much today hello nice good well going doing thanks thank "
            "know like time here".split())


def responds(text: str, source: str | None, previous: str | None) -> bool:
    """Does a line answer or react to the line before it (its recorded act, else by rule)?"""
    act, _ = act_of(source)
    if act is None:
        act = act_by_rule(text, previous)
    return act in RESPONSIVE and previous is not None


# ---------------------------------------------------------------------------- the turn

def line(m: Any, c: Conversation, now: datetime, partner_doing: str, doing: str) -> Utterance:
    """The speaker's next line: the acts that fit, worded; the model chooses one."""
    options = offers(m, c, now, partner_doing, doing)
    if len(options) == 1:
        chosen, kind, why = options[0], pv.RULE, "the only act that fits"
    else:
        other = c.other(m.name)
        # Listed in a seeded order and answered with the line's own words (reply_schema): asked for
        # a number, the 135M model took the last of the listed acts in 101 of 128 choices (never the
        # first), so a fixed order would have decided for it.
        v = voice(m, c)
        shown = sorted(options, key=lambda o: zlib.crc32(f"{v.salt}|{m.name}|{len(c.lines)}|{o.text}".encode()))
        schema = reply_schema(tuple(dict.fromkeys(o.text for o in shown)))
        transcript = "\n".join(f"{u.speaker}: {u.text}" for u in c.lines[-4:]) or "(nobody has spoken yet)"
        got, failed = m.ask(schema, "choose_act", "choose_line", None, temperature=gr.CHOOSER_TEMPERATURE,
                            other=other, time=f"{now:%H:%M}",
                            transcript=transcript,
                            options="\n".join(f"{i}. {o.text}" for i, o in enumerate(shown, 1)))
        if failed is not None:
            m.note_fallback("line", failed)
            chosen, kind, why = options[0], pv.RULE, pv.reason_of_failure(failed)
        else:
            chosen = next(o for o in options if o.text == got.reply)
            kind, why = pv.REPAIRED, f"chosen from {len(options)} acts"
    note = gr.source_note(chosen.fact) if chosen.fact is not None else chosen.note
    act = f"act {chosen.act}" + (f" ({chosen.topic})" if chosen.act in (ASK, ANSWER) and chosen.topic else "")
    source = pv.tag(kind, f"{gr.GROUNDED}: " + "; ".join(x for x in (note, why, act) if x))
    if chosen.topic and chosen.act in (TELL, INVITE):
        told = m.social.told.setdefault(c.other(m.name), [])
        if chosen.topic not in told:
            told.append(chosen.topic)
            del told[:-60]
    ends = chosen.ends or len(c.lines) + 1 >= m.settings.max_conversation_lines
    return Utterance(m.name, chosen.text, ends, source)


def voice(m: Any, c: Conversation) -> wd.Voice:
    other = c.other(m.name)
    seed = getattr(getattr(getattr(m, "gateway", None), "config", None), "seed", 0)
    salt = f"{seed}|{c.started.isoformat()}"
    known = other in m.social.known_people or other in m.social.last_talked
    return wd.voice_of(m.name, other, m.persona.traits, m.persona.description, known, salt)


def offers(m: Any, c: Conversation, now: datetime, partner_doing: str, doing: str) -> list[Option]:
    """The acts that fit now, worded, in a sensible order (the first is the fallback)."""
    other = c.other(m.name)
    v = voice(m, c)
    lines = c.lines
    turn = len(lines)
    mine = [u for u in lines if u.speaker == m.name]
    said = [u.text for u in lines]
    bye = Option(GOODBYE, wd.goodbye(v, _own_doing(m, now), turn, avoid=said), ends=True)
    last = lines[-1] if lines and lines[-1].speaker == other else None
    last_act, last_topic = act_of(last.source) if last else (None, "")
    if last is not None and last_act is None:
        last_act = act_by_rule(last.text, lines[-2].text if len(lines) > 1 else None)
    limit = turn + 1 >= m.settings.max_conversation_lines
    if limit or len(mine) >= LINES_EACH:
        # An invitation made at one's last line is still answered (a goodbye was its answer).
        answers = answers_to_offer(m, v, last, now, turn) if last is not None and last_act in OFFERS else []
        return [replace(o, ends=True) for o in answers] or [bye]
    if last_act == GOODBYE:
        return [Option(GOODBYE, wd.goodbye(v, "", turn, avoid=said), ends=True)]
    nodes = recall(m, c, doing)
    known = events_known(m, nodes, now)
    agreed = agreed_here(m, lines, now)  # a yes given in this talk holds for its later lines
    opts: list[Option] = []
    mine_offered = any(act_of(u.source)[0] in OFFERS for u in mine)
    pending = last_act not in OFFERS + (ASK,) and not (last_act == ANSWER and last is not None
                                                      and last.text.rstrip().endswith("?"))
    inviting = invite(m, v, known, now, lines, turn) if pending and not mine_offered else None
    if inviting is not None and (turn == 0 or inviting.note == HOSTING):
        # The talk began for an invitation, or the host means to invite everyone it meets: the
        # invitation, or the event's news first, is what the host says now.
        key = inviting.topic.split(":", 1)[1]
        # The host invites (its news is in the invitation); another opens with the invitation or the news.
        news = [] if inviting.note == HOSTING else [o for o in tells(m, v, c, nodes, known, now)
                                                    if o.topic == f"news:{key}"]
        hello = wd.greeting(v, now.hour, turn) if turn == 0 else ""
        opts = [Option(o.act, f"{hello} {_drop_name(o.text, v.first)}" if hello else o.text, o.fact, o.topic,
                       o.ends, o.note) for o in [inviting] + news[:1]]
        return _usable(opts, said, v, turn)
    if last is not None and last_act in OFFERS:
        opts += answers_to_offer(m, v, last, now, turn, known, agreed)
    asked_back = last is not None and last_act == ANSWER and last.text.rstrip().endswith("?")
    if last is not None and (last_act == ASK or asked_back):
        said_answer = answer(m, v, last.text, last_topic, now, nodes, known, turn, avoid=said, agreed=agreed)
        if said_answer is not None and last_act == ASK and last_topic.startswith("followup"):
            opts += [said_answer]  # "How did it go?" is not asked back
        elif said_answer is not None and last_act == ASK:  # answered plainly, or with the question back
            named = said_answer.text.startswith(f"{v.first},")  # "Carlos, I'm ... What about you, Carlos?" names twice
            back = Option(said_answer.act, f"{said_answer.text} {ask_back(v, last_topic, turn, named)}",
                          said_answer.fact,
                          said_answer.topic, note=said_answer.note)
            opts += [said_answer, back]
        elif said_answer is not None:  # "..., and you?": answered, or their answer reacted to first
            opts += [said_answer] + ([] if empty_answer(last) else [react(v, last, ANSWER, now, turn)])
    if opts:
        return _usable(opts, said, v, turn)  # only an answer fits after a question or an invitation
    empty = last is not None and (empty_answer(last) or last_topic.startswith("followup"))  # "It went fine": no news
    if last is not None and last_act in (TELL, ANSWER, ACCEPT, DECLINE) and not empty:
        hosted = frozenset(k.event.key for k in known if k.hosting)
        # "nothing planned" is no news to react to; a reaction adds to it: a question, or one's own on the same topic
        opts.append(react(v, last, last_act, now, turn, hosted, known))
        opts += [o for o in [related(m, v, c, last, now, turn, nodes)] if o and last_act in (TELL, ANSWER)]
    offered = any(act_of(u.source)[0] in OFFERS for u in lines if u.speaker == m.name)  # one offer each
    room = turn + 2 < m.settings.max_conversation_lines  # an offer leaves the other a line to answer it
    if not offered and last_act not in OFFERS and room:
        opts += [o for o in [invite(m, v, known, now, lines, turn)] if o]
    opts += tells(m, v, c, nodes, known, now)[:2]
    opts += [o for o in [follow_up(m, v, c, now, turn), ask(m, v, lines, turn, nodes, partner_doing,
                                                           _public_place(m, c))] if o]
    if not any(act_of(u.source)[0] == MEET for u in lines) and last_act not in OFFERS and room:
        opts += [o for o in [meet(m, v, now, turn)] if o]  # one plan to meet a conversation: no offer back
    if turn >= GOODBYE_FROM or not opts:
        opts.append(bye)
    if turn == 0:
        hello = wd.greeting(v, now.hour, turn)
        opts = [Option(o.act, f"{hello} {_drop_name(o.text, v.first)}", o.fact, o.topic, o.ends, o.note)
                for o in opts if o.act != GOODBYE]
        opts = opts or [Option(ASK, f"{hello} {wd.question(v, 'day', turn)}", topic="day")]
    return _usable(opts, said, v, turn)


def _usable(opts: list[Option], said: list[str], v: wd.Voice, turn: int) -> list[Option]:
    """No line twice in one conversation and no fragment; at most MAX_OPTIONS (goodbye if none is left)."""
    out: list[Option] = []
    seen = {wd.norm(s) for s in said}
    for o in opts:
        key = wd.norm(o.text)
        if not key or key in seen or wd.fragment(o.text):
            continue  # nothing twice in one conversation, and no fragment
        seen.add(key)
        out.append(o)
    return out[:MAX_OPTIONS] if out else [Option(GOODBYE, wd.goodbye(v, "", turn + 1, avoid=said), ends=True)]


def empty_answer(u: Utterance) -> bool:
    """An answer that said there was nothing to tell ("It's a quiet day for me")."""
    return bool(re.search(r"grounded: nothing (planned|remembered)", u.source or ""))


def ask_back(v: wd.Voice, topic: str, turn: int, named: bool = False) -> str:
    """The same question back, after answering it (without the name when the answer began with it)."""
    if topic.startswith("person"):
        who = topic.split(":", 1)[1].split()[0] if ":" in topic else ""
        return v.pick((f"Have you seen {who}?" if who else "Have you?", "Why do you ask?"), "back", topic, turn)
    yours = ("And yours?",) if topic in ("day", "plans") else ()  # "What do you do?" - "... And yours?" was odd
    if named:
        return v.pick(("And you?", "How about you?", "What about you?", *yours), "back", topic, turn)
    return v.pick((f"And you, {v.first}?", "How about you?", f"What about you, {v.first}?", *yours),
                  "back", topic, turn)


def _drop_name(text: str, first: str) -> str:
    """After a greeting that named the listener, the line does not name them again."""
    t = re.sub(rf"^{re.escape(first)},\s+(\w)", lambda x: x.group(1).upper(), text)
    t = re.sub(rf",\s+{re.escape(first)}([.!?,])", r"\1", t)
    return t


def _own_doing(m: Any, now: datetime) -> str:
    item = item_at(_plan(m, now), now)
    d = item.description if item is not None else ""
    return d if d and activity.is_gerund(d.split()[0]) else ""


def recall(m: Any, c: Conversation, doing: str) -> list[MemoryNode]:
    """One retrieval for the turn (one batch of embeddings): news, events, the other, the last line."""
    other = c.other(m.name)
    last = c.lines[-1].text if c.lines else ""
    queries = [q for q in (NEWS_QUERY.format(other=other), other, f"{m.name} is {doing}", last) if q]
    try:
        return list(m.search(queries, m.now, k=8, char_budget=5000, kinds=gr.DURABLE_KINDS))
    except Exception:  # noqa: BLE001 - an embedding server down: small talk from the plan only
        m.note_fallback("line", "error")
        return []


# ---------------------------------------------------------------------------- what the speaker knows

def events_known(m: Any, nodes: list[MemoryNode], now: datetime) -> list[Known]:
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
        made = getattr(x, "created", None)
        ev = dt.parse(d, made if isinstance(made, datetime) and made > datetime.min else now, teller=teller)
        if ev is None or ev.starts() + timedelta(minutes=ev.minutes()) <= now:
            continue
        k = by.get(ev.key)
        heard = _HEARD.match(d)
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


def _fact(x: MemoryNode) -> gr.Fact:
    return gr.Fact(x.id, gr._short(x.description), float(x.importance))


def _told(m: Any, other: str) -> list[str]:
    return m.social.told.get(other, [])


def invite(m: Any, v: wd.Voice, known: list[Known], now: datetime, lines: list[Utterance], turn: int) -> Option | None:
    """An invitation to the first event the speaker hosts or goes to that it has not invited the
    listener to (telling the news first is no invitation), that the listener does not host, and
    that the listener did not say it goes to."""
    theirs = " ".join(u.text for u in lines if u.speaker == v.other).lower()
    here = " ".join(u.text for u in lines).lower()
    going = re.search(r"\b(i'm going|i'll be there|see you there|i'm coming)\b", theirs)
    for k in known:
        ev = k.event
        if not k.going or ev.host == v.other or v.other in k.tellers or f"event:{ev.key}" in _told(m, v.other):
            continue
        if _told_of_first(lines, ev, v.other, now):
            continue  # they spoke of it in this talk: inviting them to it tells it back (Ayesha to Klaus;
            # John to Tom, who had said "I am looking forward to the campaign rally on February 15")
        if going and ev.place.lower() in here:
            continue  # "Yes, I'll be there too!" to its news: they go, no invitation (Giorgio then declined it)
        if not k.hosting and _clash(m, ev.starts(), ev.minutes(), ev.what, ev.place)[0]:
            continue  # busy then oneself: no invitation to go together
        host_first = ev.host.split()[0] if ev.host and ev.host != m.name else None
        text = wd.invitation(v, ev.words(), host_first, k.hosting, turn)
        return Option(INVITE, text, _fact(k.node), f"event:{ev.key}", note=HOSTING if k.hosting else "")
    return None


def _told_of_first(lines: list[Utterance], ev: dt.DatedEvent, other: str, now: datetime) -> bool:
    """Whether ``other`` spoke of the event in this talk before the speaker did (by its name or
    as a dated event): its news, not a reaction to the speaker's."""
    for u in lines:
        e = dt.parse(u.text, now, teller=u.speaker)
        if ev.what.lower() in u.text.lower() or (e is not None and e.key == ev.key):
            return u.speaker == other
    return False


def tells(m: Any, v: wd.Voice, c: Conversation, nodes: list[MemoryNode], known: list[Known],
          now: datetime) -> list[Option]:
    """News the speaker could tell, most important first: no secret about the listener, no
    timetable, no prompt echo, no fragment, nothing told to them before or said here."""
    other = v.other
    said = {wd.norm(u.text) for u in c.lines}
    told = _told(m, other)
    events = {k.node.id: k for k in known}
    out: list[Option] = []
    # what the listener said here is no news to them (it is remembered only when the talk ends)
    theirs = [u.text for u in c.lines if u.speaker == other]
    their_events = {e.key for e in (dt.parse(t, now, teller=other) for t in theirs) if e is not None}
    # how a gathering went, the day after, first: what happened yesterday is what one talks of
    fresh = {x.id for x in nodes if pv.why_of(x.source).startswith(pv.RECAP) and now - x.created < RECAP_FRESH}
    for x in sorted(nodes, key=lambda x: (x.id not in fresh, -x.importance, -x.id)):
        d = x.description
        if _unsayable(x, now, other, getattr(m, "memory", None)):
            continue
        k = events.get(x.id) or _event_of(d, now, m.name, known)
        heard = _HEARD.match(d)
        if k is None and heard and ("?" in d or _HABIT.search(d) or not any(w in d.lower() for w in gr.NEWS_WORDS)):
            continue  # what someone said of their day or habits, or asked, is no news to pass on
        if k is None and _quotes_you(d):
            continue  # said to oneself ("... Klaus and you came"): retold, "you" named the wrong one
        if k is None and _own_description(x, getattr(m, "memory", None)):
            continue  # "I have a long feud with my neighbour", unasked, was a recital: said when asked (answer)
        if k is not None and k.event.key in their_events:
            continue  # told of it by the listener in this very conversation
        if k is None and any(_same_news(d, t) for t in theirs):
            continue
        if k is not None:
            if f"event:{k.event.key}" in told or f"news:{k.event.key}" in told or k.event.host == other \
                    or other in k.tellers:  # the news is not told back to whoever told it
                continue
            text, topic = _event_news(m, v, k), f"news:{k.event.key}"
        else:
            if f"mem:{x.id}" in told:
                continue
            # 'Isabella told Klaus: "Klaus, I love ..."' retold by Klaus was '... told me: "I, I love ..."'
            d = re.sub(r'(told \w+: ")[A-Z][a-z]+, (\w)', lambda g: g.group(1) + g.group(2).upper(), d)
            d = dt.past_days(d, now)  # "the party on February 14" the day after is "yesterday's"
            text, topic = _addressed(v, converse_words(gr.first_person(d, m.name), other), x.id), f"mem:{x.id}"
        key = wd.norm(text)
        if any(key and (key in s or s in key) for s in said if len(s) > 12) or wd.fragment(text):
            continue
        if any(o.topic == topic for o in out):
            continue
        out.append(Option(TELL, text, _fact(x), topic))
    return out


def _unsayable(x: MemoryNode, now: datetime, other: str, memory: Any = None) -> bool:
    """A memory no line may say, whatever the act (tell, a reaction's own memory, an answer
    about someone): a memo, a timetable, a secret (or a reflection resting on one: Maria's
    crush made "I want to get to know Klaus better"), a tally ("I often talk with you": true,
    and recited it was filler, issue 45), a refusal, babble, or what the listener told."""
    d = x.description
    if x.kind not in gr.DURABLE_KINDS or d.startswith("conversed with") or not gr.offered(x, now):
        return True
    if is_timetable(d) or _SECRET.search(d) or x.predicate == "declined" or _babble(d):
        return True
    if any(_SECRET.search(e.description) for e in _cited(x, memory)):
        return True
    if x.kind == "reflection" and (insights.kind_of(x.source) in insights.TALLIES or other in d):
        return True  # nor an insight about the listener: "You are planning a study group", to Klaus
    heard = _HEARD.match(d)
    return bool(heard and (heard.group(1) == other or _RETOLD.search(d)))  # not back to whoever told it


def _same_news(memory: str, said: str) -> bool:
    """Whether a memory says what a line said (three content words in common)."""
    words = lambda s: {w for w in re.findall(r"[a-z']{4,}", s.lower())} - _STOP  # noqa: E731
    return len(words(memory) & words(said)) >= 3


_GIVEN = (pv.tag(pv.RULE, pv.SEED), pv.tag(pv.RULE, "a thought given to the resident"))


def _quotes_you(d: str) -> bool:
    """A line heard that says "you": retold word for word, "you" names the wrong one."""
    return bool(_HEARD.match(d) and re.search(r'told \w+: "[^"]*\byou\b', d, re.I))


def _cited(x: MemoryNode, memory: Any) -> list[MemoryNode]:
    """The memories a reflection rests on (none known without the memory stream)."""
    if memory is None or not x.evidence:
        return []
    return [e for e in (memory.get(i) for i in x.evidence) if e is not None]


def _own_description(x: MemoryNode, memory: Any = None) -> bool:
    """A line of the resident's own description, known by its source (the model may have
    re-rated its importance since), or a reflection resting on nothing else ("I care a lot
    about fairness and community."): said unasked, either is a recital (issue 46)."""
    if x.source == pv.tag(pv.RULE, pv.SEED):
        return True
    cited = _cited(x, memory)
    return x.kind == "reflection" and bool(cited) and all(e.source in _GIVEN for e in cited)


def _addressed(v: wd.Voice, text: str, key: int) -> str:
    """ "I often talk with Klaus Mueller." said to Maria: mostly "Maria, I often talk with ...".
    Every resident's reflections and description begin with "I" ("I often talk", "I am a"),
    which opened a run's lines alike; a fact that begins otherwise stays as it is."""
    if not re.match(r"^I\b", text) or v.pick(("named", "named", "plain"), "addressed", key) == "plain":
        return text
    return f"{v.first}, {text}"


def _babble(text: str) -> bool:
    """A memory that says one sentence twice: a small model's loop, not a fact."""
    sentences = [wd.norm(s) for s in re.split(r"(?<=[.!?])\s+", text) if wd.norm(s)]
    return len(sentences) != len(set(sentences))


def _event_of(text: str, now: datetime, me: str, known: list[Known]) -> Known | None:
    ev = dt.parse(text, now)
    if ev is None:
        return None
    return next((k for k in known if k.event.key == ev.key), None)


def _event_news(m: Any, v: wd.Voice, k: Known) -> str:
    """An event as news: the host's own, one it goes to, or one it heard of (from whom)."""
    ev = k.event
    f = v.first  # the same news told all over town: the listener's name first, not "I heard ..."
    if k.hosting:
        return v.pick((f"{f}, I'm hosting {ev.words()}.", f"{f}, I'm getting ready to host {ev.words()}."),
                      "news", ev.key)
    host = ev.host.split()[0] if ev.host and ev.host != m.name else None
    if k.going:
        return f"{f}, I'm going to {ev.words('the')}" + (f"; {host} is hosting it." if host else ".")
    if host:  # the full name where it says who hosts: the listener's memory then knows the host
        return v.pick((f"{f}, {host} told me there's {ev.words()}.", f"{f}, I heard {ev.host} is hosting {ev.words()}.",
                       f"{f}, did you hear? {ev.host} is hosting {ev.words()}."), "news", ev.key)
    return v.pick((f"{f}, I heard there's {ev.words()}.", f"{f}, did you hear? There's {ev.words()}."),
                  "news", ev.key)


def converse_words(text: str, other: str) -> str:
    """A fact in the speaker's words, said to the listener ("Maria Lopez is ..." -> "you are ...")."""
    return wd.to_listener(text, other)


def answers_to_offer(m: Any, v: wd.Voice, last: Utterance, now: datetime, turn: int,
                     known: list[Known] | None = None, agreed: list[Arrangement] | None = None) -> list[Option]:
    """Accept or decline the invitation (or the offer to meet) just made; a refusal gives the
    speaker's own plan for that time as its reason; to what it already goes to, yes."""
    ev = offered_event(last, now)
    if ev is None:
        return []
    if not ev.meeting and any(k.going and k.event.key == ev.key for k in known or []):
        return [Option(ACCEPT, wd.already_going(v, turn), note=f"the invitation to {ev.short()}; it goes already")]
    item = item_at(_plan(m, now), ev.starts()) if ev.day == now.date() else None
    busy, at = _clash(m, ev.starts(), ev.minutes(), ev.what, ev.place, agreed)
    reason = ""
    if item is not None and not _same_doing(item, ev.what, ev.place):
        d = item.description
        reason = d if d and activity.is_gerund(d.split()[0]) else ""
        if reason and keywords_overlap(d, ev.what, ignore="having going attending"):
            reason = _when_where(m, item)[1]  # "I'm having lunch at home then", not "having lunch" to lunch
    what = "" if ev.meeting else ev.what
    when = ev.when().replace(f"on {dt.MONTHS[now.month - 1]} {now.day} at", "today at") if ev.meeting else ev.when()
    note = f"the invitation to {ev.short()}"
    yes = Option(ACCEPT, wd.acceptance(v, what, when, turn), note=note)
    there = item is not None and ev.place.lower() in f"{item.address} {item.description}".lower()
    if there:  # its own plan takes it there then: declining would make no sense
        return [Option(ACCEPT, yes.text, note=f"{note}; its plan is there then")]
    if busy:  # an engagement then (an arrangement, one's own gathering): no, with it as the reason
        return [Option(DECLINE, wd.refusal(v, what, busy, turn, at), note=f"{note}; it is {busy} at {at}")]
    no = Option(DECLINE, wd.refusal(v, what, reason, turn), note=note)
    if not ev.meeting and _declined_before(m, ev, now):  # said no to Isabella, then yes to Carlos: not again
        return [Option(DECLINE, no.text, note=f"{note}; it declined this event before")]
    return [yes, no]


def _declined_before(m: Any, ev: dt.DatedEvent, now: datetime) -> bool:
    """Whether the speaker declined an invitation to this event (a refusal it remembers)."""
    memory = getattr(m, "memory", None)
    for x in (memory.by_kind("chat") if memory is not None else []):
        if x.predicate == "declined" and x.subject == m.name:
            said = dt.parse(x.description, now)
            if said is not None and said.key == ev.key:
                return True
    return False


def offered_event(u: Utterance, now: datetime) -> dt.DatedEvent | None:
    """The event an invitation names, or the plan an offer to meet names."""
    return dt.parse_meeting(u.text, now, teller=u.speaker) or dt.parse(u.text, now, teller=u.speaker)


def answer(m: Any, v: wd.Voice, asked: str, topic: str, now: datetime, nodes: list[MemoryNode],
           known: list[Known], turn: int, avoid: list[str] | tuple[str, ...] = (),
           agreed: list[Arrangement] | None = None) -> Option | None:
    """The answer to the question just asked: about the speaker's day, its plans, or a person."""
    topic = topic or question_topic(asked, m.name, v.other)
    if topic.startswith("followup"):
        return Option(ANSWER, wd.followed_up(v, topic != "followup:on", turn), topic=topic, note="the question")
    if topic == "you":  # asked what one does: one's own description, the one place it is said
        for x in sorted(m.memory.nodes if getattr(m, "memory", None) is not None else [], key=lambda x: -x.importance):
            if _own_description(x) and not _SECRET.search(x.description) and v.other not in x.description:
                text = converse_words(gr.first_person(x.description, m.name), v.other)
                if not wd.fragment(text) and re.match(r"^I\b", text):
                    return Option(ANSWER, f"{v.first}, {text}", _fact(x), topic)
        topic = "day"
    if topic.startswith("place:"):
        return _place_answer(m, v, topic, now, nodes, turn, asked)
    if topic.startswith("person"):
        person = topic.split(":", 1)[1] if ":" in topic else ""
        first = person.split()[0] if person else ""
        mem = getattr(m, "memory", None)
        for x in sorted(nodes, key=lambda x: -x.importance):
            # not one's description ("How is Eddy?" - "I live with you and our son Eddy Lin"), nor
            # a memory naming the listener: that comes out as "you", news to nobody
            d = x.description
            if first and first in d and not _unsayable(x, now, v.other, mem) and not _own_description(x, mem) \
                    and v.other not in d and not _quotes_you(d):
                text = converse_words(gr.first_person(x.description, m.name), v.other)
                if not wd.fragment(text):
                    return Option(ANSWER, text, _fact(x), topic)
        if first:
            return Option(ANSWER, v.pick((f"I haven't seen {first} today, actually.",
                                          f"I haven't heard from {first} lately."), "answer", topic, turn,
                                         avoid=avoid),
                          topic=topic, note="nothing remembered of them")
    said = " ".join(avoid).lower()
    going = [k for k in known if k.going and not (k.event.place.lower() in said and k.event.what.lower() in said)]
    # "What are you doing this evening?" is answered with the evening, not with lunch
    evening = now.replace(hour=17, minute=0, second=0) if re.search(r"\b(evening|tonight)\b", asked, re.I) else None
    day = _day_answer(m, v, now, topic or "day", turn, avoid, after=evening, agreed=agreed)
    if going and (topic == "plans" or day.note == "nothing planned"):
        k = going[0]  # what one looks forward to is the answer to "any plans?"
        verb, art = ("I'm hosting", "a") if k.hosting else ("I'm going to", "the")
        return Option(ANSWER, f"{v.first}, {verb} {k.event.words(art)}.", _fact(k.node), topic or "day")
    return day


def _plan(m: Any, now: datetime, agreed: list[Arrangement] | None = None) -> list[Any]:
    """Today's plan with today's arrangements cut in at their times: an arrangement made since
    the plan was made wins over the item it replaces (lunch at Hobbs Cafe at 12, agreed at 10),
    and so does a yes given earlier in this talk (``agreed``, taken when the talk ends)."""
    plan = list(getattr(m, "plan", []) or [])
    today = getattr(m, "today", None)
    if today is None:
        return plan
    return keep_arrangements(plan, list(getattr(today, "arrangements", []) or []) + list(agreed or []), now)


def agreed_here(m: Any, lines: list[Utterance], now: datetime) -> list[Arrangement]:
    """The yeses the speaker gave in this talk to today's offers, as arrangements at the place
    the offer names: Eddy said yes to the party at 5 pm, then told Mei of dinner at home at 5:30
    in the same talk (the yes is taken only when the talk ends)."""
    out: list[Arrangement] = []
    spatial = getattr(m, "spatial", None)
    for offer, yes in itertools.pairwise(lines):
        if yes.speaker != m.name or offer.speaker == m.name or act_of(yes.source)[0] != ACCEPT:
            continue
        ev = offered_event(offer, now)
        if ev is None or ev.day != now.date() or spatial is None:
            continue
        where = agenda.agreed_place(spatial, m.persona, ev)  # a pub not yet been to, too (Tamara)
        if where is not None:
            what = ev.what if activity.is_gerund(ev.what.split()[0]) else f"going to the {ev.what}"
            out.append(Arrangement(ev.starts(), ev.minutes(), what, where, "agreed in this talk", pv.tag(pv.RULE, "")))
    return out


def _clash(m: Any, start: datetime, minutes: int, what: str, place: str = "",
           agreed: list[Arrangement] | None = None) -> tuple[str, str]:
    """An engagement of the speaker's overlapping [start, start + minutes) that is not ``what``
    (at ``place``) itself: an arrangement (any day) or an agenda item of today's plan, as
    (doing, clock) or ("", ""). Lunch with Ayesha at the pub is not lunch at Hobbs Cafe."""
    end = start + timedelta(minutes=minutes)
    today = getattr(m, "today", None)
    items = [a.item() for a in [*(getattr(today, "arrangements", []) or []), *(agreed or [])]]
    items += [x for x in _plan(m, start) if x.start.date() == start.date() and _engagement(x)]
    for x in items:
        d = x.description
        if x.start < end and start < x.end and not _same_doing(x, what, place) and activity.is_gerund(d.split()[0]):
            return d, dt.clock(x.start.hour * 60 + x.start.minute)
    return "", ""


def _same_doing(x: Any, what: str, place: str = "") -> bool:
    """Whether plan item ``x`` is ``what`` (at ``place``): lunch at home is not lunch at Hobbs Cafe."""
    return keywords_overlap(x.description, what, ignore="having going attending") and (
        not place or place.lower() in f"{x.address} {x.description}".lower())


def _said_already(text: str, said: str, place: str = "") -> bool:
    """Whether every word of three letters or more in ``text``, the place's name aside, is in
    ``said``: told back, word for word."""
    words = {w for w in re.findall(r"[a-z']+", text.lower()) if len(w) > 2} - set(place.lower().split())
    return bool(words - {"the", "and"}) and words <= set(re.findall(r"[a-z']+", said.lower()))


def _place_answer(m: Any, v: wd.Voice, topic: str, now: datetime, nodes: list[MemoryNode], turn: int,
                  asked: str = "") -> Option:
    """Asked if one comes to a place often: what one's memories (one's description too: asked,
    it is said) hold of it, else what one does there today, else "now and then"."""
    place = topic.split(":", 1)[1]
    memory = getattr(m, "memory", None)
    own = [x for x in (memory.nodes if memory is not None else []) if _own_description(x)]
    for x in own + sorted(nodes, key=lambda x: -x.importance):
        if place in x.description and (_own_description(x) or not _unsayable(x, now, v.other, memory)) \
                and dt.parse(x.description, now) is None and not _SECRET.search(x.description):
            text = converse_words(gr.first_person(x.description, m.name), v.other)
            if re.match(r"^I\b", text) and not wd.fragment(text) and len(text.split()) <= 25:
                if _said_already(text, asked, place):  # "I write in the library", to who just said so
                    return Option(ANSWER, v.pick((f"So do I, {v.first}! We should sit together next time.",
                                                  f"Me too, {v.first}! I'll look out for you there."), "same", turn),
                                  _fact(x), topic)
                return Option(ANSWER, f"{v.first}, {text}", _fact(x), topic)
    item = item_at(_plan(m, now), now)
    if item is not None and place in item.address and activity.is_gerund(item.description.split()[0]):
        doing = re.sub(rf"\s+(?:at|in) (?:the )?{re.escape(place)}$", "", item.description)
        return Option(ANSWER, f"{v.first}, I'm {doing} here today.", topic=topic, note="today's plan")
    return Option(ANSWER, v.pick((f"{v.first}, I come here now and then. I like it.",
                                  f"I come here now and then, {v.first}. It's a nice place."), "place", turn),
                  topic=topic, note="nothing remembered")


def _day_answer(m: Any, v: wd.Voice, now: datetime, topic: str, turn: int, avoid: Any = (),
                after: datetime | None = None, agreed: list[Arrangement] | None = None) -> Option:
    plan = _plan(m, now, agreed)
    cur = item_at(plan, now)
    start = max(now, after - timedelta(seconds=1)) if after is not None else now
    nxt = next((x for x in plan if x.start > start and "sleep" not in x.description.lower()), None)
    parts = []
    f = v.first  # the doing first, else the asker's name: "at the moment I'm" opened every answer alike
    if cur is not None and activity.is_gerund(cur.description.split()[0]) and topic == "day":
        d = cur.description
        named = (f"{f}, I'm {d} today", f"{f}, I'm {d} just now")
        parts.append(v.pick(named if _common(d) else (f"{d} keeps me busy today", f"{d} is what I'm doing right now",
                                                       *named), "day", turn))
    if nxt is not None and activity.is_gerund(nxt.description.split()[0]):
        t, d = _when_where(m, nxt)
        named = (f"{f}, I'll be {d} at {t}", f"{f}, next I'm {d} at {t}")
        parts.append(v.pick(named if _common(d) else (f"{d} at {t} is next for me", *named), "next", topic, turn)
                     if not parts else f"at {t} I'm {d}")
    # an engagement later today (the party one hosts, an arrangement) is what the day is about
    later = next((x for x in plan if x.start > max(start, nxt.start if nxt else start)
                  and x.start.date() == now.date() and _engagement(x)), None)
    if later is not None and parts:
        t, d = _when_where(m, later)
        parts.append(f"and at {t} I'm {d}")
    if not parts:
        pool = ((f"{f}, nothing planned for later, I think.", f"{f}, I haven't made any plans yet.",
                 f"{f}, I'll see how the day goes, nothing fixed.") if topic == "plans" else
                (f"{f}, nothing special, it's just the usual.", f"{f}, it's a quiet day for me.",
                 f"{f}, I'm keeping busy, as always."))
        return Option(ANSWER, v.pick(pool, "answer", topic, turn, avoid=avoid), topic=topic, note="nothing planned")
    text = "; ".join(parts)
    return Option(ANSWER, text[0].upper() + text[1:] + ".", topic=topic, note="today's plan")


def is_timetable(text: str) -> bool:
    """A whole day's timetable ("Isabella's plan for Monday February 13: 06:00-06:30 waking
    up ..."): a memory to plan by, not words to say."""
    return len(_TIMES.findall(text)) >= 3 or bool(re.search(r"'s plan for \w+day \w+ \d+(?::| at) \d", text))


def day_in_words(m: Any, asker: str, now: datetime, turn: int) -> str:
    """What a resident says of its day to ``asker`` (the player asking it): what it does
    now, what is next, and an engagement later on, as it would tell a resident."""
    v = wd.Voice(m.name, asker, asker in m.social.known_people, False, f"{asker}|{now:%Y-%m-%d}")
    return _day_answer(m, v, now, "day", turn).text


def _when_where(m: Any, x: Any) -> tuple[str, str]:
    """A plan item's time, and its doing with where ("at 5 pm", "having lunch at Hobbs Cafe")."""
    where = m.spatial.label(m.spatial.arena_of(x.address)).split(":")[0]
    home = m.spatial.label(str(getattr(m.persona, "home", "") or "")).split(":")[0]
    where = "home" if where and where == home else where  # not "at Carlos Gomez's apartment", said by Carlos
    at = f" at {where}" if where.lower() not in x.description.lower() else ""
    return dt.clock(x.start.hour * 60 + x.start.minute), f"{x.description}{at}"


_engagement = agenda.is_engagement


def _common(doing: str) -> bool:
    """A doing half the town shares at once (lunch at Hobbs Cafe, the party, "working at the ..."):
    said first, it opened a run's answers alike ("attending the Valentine's ..." 15 times), so
    those answers name the asker first."""
    return doing.split()[0].lower() in ("having", "attending", "eating", "working", "going", "getting", "taking")


def question_topic(text: str, me: str, other: str) -> str:
    """What a question asks about: a person named in it, plans, or the day."""
    for name in gr_names(text):
        if name not in (me, other) and name.split()[0] not in (me.split()[0], other.split()[0]):
            return f"person:{name}"
    for first in re.findall(r"\b(?:seen|from|is|about) ([A-Z][a-z]+)\b", text):
        if first not in (me.split()[0], other.split()[0]):
            return f"person:{first}"
    at = re.search(r"\b(?:come to|brings you to|often at) ((?:[A-Z][a-z]+ )*[A-Z][a-z]+)", text)
    if at:
        return f"place:{at.group(1)}"
    if re.search(r"\bwhat do you do\b|\bwhat keeps you busy\b|\babout yourself\b", text, re.I):
        return "you"
    if re.search(r"\b(plan|plans|planned|later|evening|tonight|tomorrow|next)\b", text, re.I):
        return "plans"
    return "day"


_PLACE_WORDS = {"Cafe", "Park", "Pub", "Store", "College", "Market", "Pharmacy", "House", "Apartment", "Dorm",
                "Hall", "Library", "Shop", "Bar", "Street", "Square", "School", "Supply"}


def gr_names(text: str) -> list[str]:
    """The people a text names ("Isabella Rodriguez"), in the order it names them: the last
    two of capitalised words in a row, not a place's ("Johnson Park", "Harvey Oak Supply
    Store": a run asked "How is Harvey doing?" of a shop's name)."""
    out: list[str] = []
    for run in re.findall(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b", text or ""):
        words = run.split()
        if _PLACE_WORDS.intersection(words) or words[-2] == "The":
            continue
        name = f"{words[-2]} {words[-1]}"  # "Yesterday Isabella Rodriguez": the name is the last two
        if name not in out:
            out.append(name)
    return out


def react(v: wd.Voice, last: Utterance, last_act: str, now: datetime, turn: int,
          hosting: frozenset[str] = frozenset(), known: list[Known] | tuple[Known, ...] = ()) -> Option:
    """A reaction that names what was just said in a word or two and adds to it, a question
    mostly ("A party! Who else is coming?"), or answers an acceptance or a refusal. It does not
    say the line back with "?": 8% of a run's lines did ("Tom, you're having breakfast today?
    I didn't know that about you.")."""
    f = v.first
    if last_act == ACCEPT:
        return Option(REACT, v.pick((f"Wonderful, {f}! I'm so glad you can come.", f"{f}, I'm so glad! See you there.",
                                     f"{f}, that makes me happy. See you then!"), "react", "accepted", turn),
                      note="the acceptance")
    if last_act == DECLINE:
        return Option(REACT, v.pick((f"{f}, that's a shame. Maybe next time!", f"Oh, {f}, I understand. Another time!",
                                     f"No worries, {f}. We'll find another time."), "react", "declined", turn),
                      note="the refusal")
    ev = dt.parse(last.text, now, teller=last.speaker)
    if ev is not None and ev.key in hosting:  # one's own party told back: no "That sounds wonderful!"
        return Option(REACT, v.pick((f"{f}, yes, that's my party! I hope you can come.",
                                     f"{f}, that's right, I'm hosting it. I'd love to see you there."),
                                    "react", "own", turn), note="its own event")
    if ev is not None:
        mine = next((k for k in known if k.event.key == ev.key), None)
        tellers = sorted(t for t in (mine.tellers if mine else ()) if t != last.speaker)
        kind = ("going" if mine is not None and mine.going else "heard" if tellers
                else "hosted" if ev.host == last.speaker else "event")
        teller = tellers[0].split()[0] if tellers else ""
        return Option(REACT, wd.reaction(v, _event_word(ev.what), kind, turn, teller), note="the line before")
    sad = bool(wd._SAD.search(wd.first_clause(last.text)))
    topic = topic_of(last.text, v.my_first)
    doing = bool(topic) and (last_act == ANSWER or bool(re.search(r"\bI(?:'m| am)\b", last.text))) \
        and bool(_GERUND_TOPIC.search(last.text))
    kind = "sad" if sad else "doing" if doing else "news"
    if doing and re.search(r"\b(?:hosting|attending|going to)\s+(?:the |a |an )?" + re.escape(topic), last.text):
        kind = "hosted" if re.search(r"\bhosting\b", last.text) else "event"  # a gathering, not a chore
    return Option(REACT, wd.reaction(v, topic, kind, turn), note="the line before")


def _event_word(what: str) -> str:
    """An event named in a word or two: "Valentine's Day party" -> "party"; "game night" stays."""
    words = what.split()
    return " ".join(words[-2:]) if len(words) > 1 and words[-1].lower() in ("night", "show", "session", "day") \
        else words[-1] if words else what


_GERUND_TOPIC = re.compile(r"\b[a-z]{2,}ing\b")
_AFTER_DOING = {"at", "in", "on", "today", "tonight", "tomorrow", "this", "with", "for", "to", "from", "and", "then",
                "until", "before", "after", "now", "just", "right", "all", "every", "is", "so", "keeps", "later",
                "but", "because", "while", "as", "since", "when", "here", "there"}
_PARTICLES = {"up", "out", "down", "ready", "around", "over", "off", "back", "about", "through"}


def topic_of(text: str, listener_first: str = "") -> str:
    """What a line is about, in a word or two: the object of its doing ("I'm having a drink" ->
    "a drink", "I'm attending the Valentine's Day party" -> "Valentine's Day party", "waking up"
    stays), else news it names ("mayor"), a place, a person (first name)."""
    clause = re.sub(rf"^{re.escape(listener_first)},\s*|,\s*{re.escape(listener_first)}$", "",
                    wd.first_clause(text)) if listener_first else wd.first_clause(text)
    words = clause.split()
    for i, w in enumerate(words):
        lw = w.lower().strip(",.!?;:")
        before = words[i - 1].lower() if i else ""
        if not activity.is_gerund(lw) or (i and before not in _BEFORE_DOING):
            continue  # a doing is what one is doing ("I'm having"), not "in the coming election"
        rest: list[str] = []
        for x in words[i + 1:i + 6]:
            lx = x.lower().strip(",.!?;:")
            if lx in _AFTER_DOING or re.match(r"\d", lx) or activity.is_gerund(lx):
                break
            rest.append(x.strip(",.!?;:"))
            if x[-1:] in ",.!?;:":
                break
        while rest and rest[-1].lower() in ("the", "a", "an", "my", "your", "some", "of"):
            rest.pop()
        if rest and rest[0].lower() not in _PARTICLES:
            return " ".join(rest if len(rest) <= 3 else rest[-3:])  # the head noun is last
        return " ".join([lw] + rest[:1])
    news = [w for w in gr.NEWS_WORDS if w.strip() and re.search(rf"\b{w.strip()}\b", clause, re.I)]
    if news:
        return news[0].strip()
    for run in re.findall(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b", clause):
        if _PLACE_WORDS.intersection(run.split()):
            return run
    names = gr_names(clause)
    return names[0].split()[0] if names else ""


_BEFORE_DOING = {"i'm", "am", "be", "been", "was", "were", "is", "are", "still", "just", "you're", "we're", "and",
                 "now", "busy", "enjoy", "enjoying", "love", "like", "started", "keep", "finished"}


def _places(text: str) -> list[str]:
    """The places a line names ("Hobbs Cafe", "The Rose and Crown Pub" as "Rose and Crown Pub")."""
    return [p for p in re.findall(r"\b[A-Z][a-z]+(?:\s+(?:and\s+)?[A-Z][a-z]+)+\b", text or "")
            if _PLACE_WORDS.intersection(p.split())]


def related(m: Any, v: wd.Voice, c: Conversation, last: Utterance, now: datetime, turn: int,
            nodes: list[MemoryNode]) -> Option | None:
    """A reaction with something of one's own on the same place, person or event: one's plan
    there later today ("Oh, Hobbs Cafe! I'll be there myself at 12 pm, having lunch."), else a
    memory naming it (no tally, no secret, no description of oneself, nothing the listener told)."""
    places = _places(last.text)
    ev = dt.parse(last.text, now, teller=last.speaker)
    if ev is not None:
        places = [ev.place] + places
    for place in places:
        for x in _plan(m, now):
            if x.start <= now or x.start.date() != now.date() or place.lower() not in x.address.lower():
                continue
            d = x.description
            if not activity.is_gerund(d.split()[0]) or (ev is not None and keywords_overlap(d, ev.what)):
                continue  # the same event: "going" says so
            d = re.sub(rf"\s+(?:at|in) (?:the )?{re.escape(place)}$", "", d)
            said = f"I'll be there myself at {dt.clock(x.start.hour * 60 + x.start.minute)}, {d}."
            return Option(REACT, wd.related(v, place, said, turn), topic=f"plan:{x.start:%H:%M}", note="today's plan")
    people = [n for n in gr_names(last.text) if n not in (m.name, v.other)]
    keys = [k for k in places + people + ([ev.what] if ev is not None else []) if k]
    said_here = " ".join(u.text for u in c.lines)
    for x in sorted(nodes, key=lambda x: -x.importance):
        d = x.description
        key = next((k for k in keys if k in d), None)
        mem = getattr(m, "memory", None)
        if key is None or _unsayable(x, now, v.other, mem) or _own_description(x, mem) or _quotes_you(d) \
                or dt.parse(d, now) is not None \
                or _same_news(d.replace(key, ""), said_here) or f"mem:{x.id}" in _told(m, v.other):
            continue  # not the news just told again (its name aside), nor what was told them before
        text = converse_words(gr.first_person(dt.past_days(d, now), m.name), v.other)
        if len(text.split()) > 22 or wd.fragment(text) or not re.match(r"^I\b", text):
            continue  # one's own memory, short: "I was at ...", "I know ..."
        topic = key.split()[0] if key in people else key if key in places else _event_word(key)
        return Option(REACT, wd.related(v, topic, text.rstrip(".") + ".", turn), _fact(x), f"mem:{x.id}")
    return None


def follow_up(m: Any, v: wd.Voice, c: Conversation, now: datetime, turn: int) -> Option | None:
    """A question on what the listener told in an earlier conversation ("Maria, you told me
    yesterday about the party. How did it go?"): an event it told of, or what it said it was
    doing; once a conversation."""
    if any(act_of(u.source)[1].startswith("followup") for u in c.lines):
        return None
    memory = getattr(m, "memory", None)
    chats = memory.by_kind("chat") if memory is not None else []
    for x in sorted(chats, key=lambda x: -x.id)[:40]:
        made = getattr(x, "created", None)
        if x.subject != v.other or x.predicate != "told" or not isinstance(made, datetime) \
                or made >= c.started - timedelta(minutes=30) or now - made > timedelta(days=3):
            continue
        q = re.search(r'told \w+: "(.*)"$', x.description)
        said = q.group(1) if q else ""
        if not said or "?" in said or _SECRET.search(said):
            continue
        when = ("earlier" if made.date() == now.date() else "yesterday" if (now.date() - made.date()).days == 1
                else "the other day")
        ev = dt.parse(said, made, teller=v.other)
        if ev is not None and not ev.meeting and (ev.host == v.other or re.search(r"\bI'm going\b", said)):
            theirs = " ".join(u.text for u in c.lines if u.speaker == v.other)
            if ev.what.lower() in theirs.lower():
                continue  # told of it again in this talk: asking about it tells it back (Hailey to Isabella)
            over = ev.starts() + timedelta(minutes=ev.minutes()) <= now
            text = wd.follow_up(v, f"about the {ev.what}", when, turn, over=over, event=True,
                                hosting=ev.host == v.other)
            return Option(ASK, text, _fact(x), f"followup:{'over' if over else 'on'}")
        doing = re.search(r"\bI(?:'m| am)\s+(\w+ing\b(?:\s+(?!at\b|today\b|this\b|now\b)[a-z]+){0,3})", said)
        if doing and activity.is_gerund(doing.group(1).split()[0]) and when != "earlier" \
                and not _PRIVATE.search(doing.group(1)) and not _common(doing.group(1)) \
                and doing.group(1).split()[0] != "doing":  # "I'm doing all right" is no pursuit
            text = wd.follow_up(v, f"you were {wd.in_your_words(doing.group(1))}", when, turn)
            if not wd.fragment(text):
                return Option(ASK, text, _fact(x), "followup:over")
    return None


def ask(m: Any, v: wd.Voice, lines: list[Utterance], turn: int, nodes: list[MemoryNode],
        partner_doing: str = "", place: str = "") -> Option | None:
    """One question not asked yet in this conversation: its day (about what the other was seen
    doing), what a stranger does, what both share (someone both know, the public place both are
    at), its plans."""
    asked = {act_of(u.source)[1].split(":")[0] for u in lines if act_of(u.source)[0] == ASK}
    for topic in ("day", "you", "person", "place", "plans"):
        if topic == "place":
            if place and topic not in asked:
                return Option(ASK, wd.question(v, "place", turn, place, avoid=[u.text for u in lines]),
                              topic=f"place:{place}")
            continue
        if topic == "you" and (v.known or topic in asked):
            continue  # a stranger is asked what they do (their description is said only when asked)
        if topic == "you":
            return Option(ASK, wd.question(v, "you", turn, avoid=[u.text for u in lines]), topic="you")
        if topic in asked:
            continue
        if topic == "person":
            person = shared_acquaintance(m, v.other, nodes)
            if person is None:
                continue
            return Option(ASK, wd.question(v, "person", turn, person, avoid=[u.text for u in lines]),
                          topic=f"person:{person}")
        seen = partner_doing if topic == "day" and _askable(partner_doing) else ""
        return Option(ASK, wd.question(v, topic, turn, avoid=[u.text for u in lines], their_doing=seen), topic=topic)
    return None


def _askable(doing: str) -> bool:
    """What the other was seen doing is worth asking about: an activity, not a walk or the talk."""
    first = doing.split()[0].lower() if doing.split() else ""
    return (activity.is_gerund(first) and first not in ("chatting", "talking", "conversing", "walking", "going",
                                                        "heading", "sleeping", "waiting", "idling")
            and not _PRIVATE.search(doing))  # "How is using the toilet going?"


def _public_place(m: Any, c: Conversation) -> str:
    """The public place the two talk at ("Hobbs Cafe"), or "" (a home, a dorm, the street)."""
    parts = c.address.split(":")
    sector = parts[1] if len(parts) > 1 else ""
    public = _PLACE_WORDS - {"House", "Apartment", "Dorm", "Hall", "Street", "Square"}
    if not public.intersection(sector.split()) or any(n.split()[-1] in sector for n in c.participants):
        return ""
    return sector


def shared_acquaintance(m: Any, other: str, nodes: list[MemoryNode]) -> str | None:
    """Someone the speaker's memories name together with the listener, or that both its
    description and known people hold (not either of them)."""
    firsts = {m.name.split()[0], other.split()[0]}
    for x in sorted(nodes, key=lambda x: -x.importance):
        if other.split()[0] not in x.description or _SECRET.search(x.description):
            continue
        for name in gr_names(x.description):
            if name.split()[0] not in firsts and (name in m.social.known_people
                                                  or name in gr_names(m.persona.description)):
                return name
    for name in gr_names(m.persona.description):
        if name.split()[0] not in firsts and name in m.social.known_people:
            return name
    return None


def meet(m: Any, v: wd.Voice, now: datetime, turn: int) -> Option | None:
    """An offer to meet at a public place the speaker's plan takes it to later today."""
    home = m.persona.home.split(":")[1]
    for x in _plan(m, now):
        if not (now + timedelta(minutes=30) <= x.start and x.start.date() == now.date() and x.start.hour < 21):
            continue
        sector = x.address.split(":")[1] if x.address.count(":") >= 1 else ""
        d = x.description
        if not sector or sector == home or not activity.is_gerund(d.split()[0]) or not SOCIAL.search(d):
            continue  # one asks others along to a meal, a coffee, a walk; not to one's work
        what = re.sub(rf"\s+(?:at|in) (?:the )?{re.escape(sector)}$", "", d)
        if re.search(r"\b(at|in)\b [A-Z]", what):
            continue  # another place named in the words: no clear place to meet
        if _clash(m, x.start, x.minutes, d, sector)[0]:
            continue  # an arrangement or a gathering then: the plan item is no longer what one does
        words = dt.meeting_words(what, sector, "today", x.start.hour * 60 + x.start.minute)
        return Option(MEET, wd.meeting(v, words, d, turn), topic=f"meet:{x.start:%H:%M}", note="today's plan")
    return None


__all__ = ["ACTS", "OFFERS", "RESPONSIVE", "Option", "act_by_rule", "act_of", "line", "offers", "responds"]
