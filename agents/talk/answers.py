"""How the speaker answers: a question just asked (``answer``: its day, its plans, someone,
the place; ``question_topic`` tells which), and an invitation or an offer to meet just made
(``answers_to_offer``: accept, or decline with its own plan as the reason). These are the
turn's replies (agents/talk/dialogue.py ``offers``): when one fits, nothing else is offered."""
from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from agents.explain import provenance as pv
from agents.planning import agenda
from agents.planning.arrangements import Arrangement, keywords_overlap
from agents.planning.items import item_at
from agents.recall import grounding as gr
from agents.recall.memory import MemoryNode
from agents.support.types import Utterance
from agents.talk import wording as wd
from agents.talk.acts import ACCEPT, ANSWER, DECLINE, FOLLOW_UP, Option
from agents.talk.knowing import (
    SECRET,
    Known,
    clash,
    common_doing,
    converse_words,
    fact_of,
    gr_names,
    offered_event,
    own_description,
    plan_today,
    quotes_you,
    same_doing,
    unsayable,
    when_where,
)
from agents.talk.speaker import Talker
from agents.words import activity
from agents.words import dated as dt

CO_HOSTING = "cohost"  # a yes's topic when it hosts the gathering too ("act accept (cohost)"): the inviter reads it


def answers_to_offer(m: Talker, v: wd.Voice, last: Utterance, now: datetime, turn: int,
                     known: list[Known] | None = None, agreed: list[Arrangement] | None = None) -> list[Option]:
    """Accept or decline the invitation (or the offer to meet) just made; a refusal gives the
    speaker's own plan for that time as its reason; to what it already goes to, yes (and to what
    it hosts too, that they host it together)."""
    ev = offered_event(last, now)
    if ev is None:
        return []
    mine = [k for k in known or [] if k.going and k.event.key == ev.key] if not ev.meeting else []
    if any(k.hosting for k in mine):
        return [Option(ACCEPT, wd.co_hosting(v, ev.what, turn), topic=CO_HOSTING,
                       note=f"the invitation to {ev.short()}; it hosts it too")]
    if mine:
        return [Option(ACCEPT, wd.already_going(v, turn), note=f"the invitation to {ev.short()}; it goes already")]
    item = item_at(plan_today(m, now), ev.starts()) if ev.day == now.date() else None
    busy, at = clash(m, ev.starts(), ev.minutes(), ev.what, ev.place, agreed)
    reason = ""
    if item is not None and not same_doing(item, ev.what, ev.place):
        d = item.description
        reason = d if d and activity.is_gerund(d.split()[0]) else ""
        if reason and keywords_overlap(d, ev.what, ignore="having going attending"):
            reason = when_where(m, item)[1]  # "I'm having lunch at home then", not "having lunch" to lunch
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


def _declined_before(m: Talker, ev: dt.DatedEvent, now: datetime) -> bool:
    """Whether the speaker declined an invitation to this event (a refusal it remembers)."""
    for x in m.memory.by_kind("chat"):
        if x.predicate == "declined" and x.subject == m.name:
            said = dt.parse(x.description, now)
            if said is not None and said.key == ev.key:
                return True
    return False


RECAP_DAYS = 3  # how long a gathering's recap answers "How did it go?"


_ABOUT_THE = re.compile(r"\babout the (.+?)(?:\s+(?:yesterday|earlier|the other day))?[.?]")


def how_it_went(m: Talker, asked: str, now: datetime) -> MemoryNode | None:
    """The speaker's recap of the gathering a follow-up asks about ("... about the study group.
    How did it go?"; agents/planning/recaps.py: "I hosted the study group at Oak Hill College on
    February 15; Klaus Mueller came."), the newest that names it, or None (a follow-up on what
    one was doing: "you were researching english literature" is no gathering)."""
    about = _ABOUT_THE.search(asked)
    what = f"the {about.group(1).lower()} at " if about else ""
    return next((x for x in _recaps(m, now) if what and what in x.description.lower()), None)


def _recaps(m: Talker, now: datetime) -> list[MemoryNode]:
    """The speaker's recaps of gatherings (agents/planning/recaps.py) from the last RECAP_DAYS, newest first."""
    return sorted((x for x in m.memory.by_kind("thought") if pv.why_of(x.source).startswith(pv.RECAP)
                   and now - x.created <= timedelta(days=RECAP_DAYS)), key=lambda x: -x.id)


# "Who came to your party last night?", "How was the study group?": a question about a gathering that is over
_HOW_WENT = re.compile(r"\b(how (?:did|was|were)|who (?:came|was there|were there|showed up|went)|"
                       r"did (?:anyone|many|people|they) (?:come|show)|go well|went well)\b", re.I)
_RECAP_WHAT = re.compile(r"^I (?:hosted|went to) the (.+?) at ")


def recap_asked(m: Talker, asked: str, now: datetime) -> MemoryNode | None:
    """The speaker's recap (agents/planning/recaps.py) of the gathering a question about one
    that is over names ("Who came to your Valentine's Day party last night?" names the party of
    "I hosted the Valentine's Day party at Hobbs Cafe on February 14; ... came."), the newest,
    or None. Asked so by the visitor, Isabella had answered with her day's plan."""
    if not _HOW_WENT.search(asked):
        return None
    words = set(re.findall(r"[a-z']{4,}", asked.lower()))
    for x in _recaps(m, now):
        what = _RECAP_WHAT.match(x.description)
        if what and words & set(re.findall(r"[a-z']{4,}", what.group(1).lower())):
            return x
    return None


def recap_words(m: Talker, recap: MemoryNode, now: datetime, other: str) -> str:
    """A recap said to ``other`` the days after: "I hosted the party at Hobbs Cafe yesterday; you came"."""
    return converse_words(gr.first_person(dt.past_days(recap.description, now), m.name), other)


def answer(m: Talker, v: wd.Voice, asked: str, topic: str, now: datetime, nodes: list[MemoryNode],
           known: list[Known], turn: int, avoid: list[str] | tuple[str, ...] = (),
           agreed: list[Arrangement] | None = None) -> Option | None:
    """The answer to the question just asked: about the speaker's day, its plans, or a person."""
    topic = topic or question_topic(asked, m.name, v.other)
    recap = recap_asked(m, asked, now) if not topic.startswith(FOLLOW_UP) else None
    if recap is not None:
        return Option(ANSWER, f"{v.first}, {recap_words(m, recap, now, v.other)}", fact_of(recap), topic)
    if topic.startswith(FOLLOW_UP):
        recap = how_it_went(m, asked, now) if topic != f"{FOLLOW_UP}on" else None
        if recap is not None:  # what it remembers of the gathering, not a stock "it went all right"
            text = recap_words(m, recap, now, v.other)
            return Option(ANSWER, f"{v.first}, {text}", fact_of(recap), topic)  # "I hosted ...": "I" stays
        return Option(ANSWER, wd.followed_up(v, topic != f"{FOLLOW_UP}on", turn), topic=topic, note="the question")
    if topic == "you":  # asked what one does: one's own description, the one place it is said
        for x in sorted(m.memory.nodes, key=lambda x: -x.importance):
            if own_description(x) and not SECRET.search(x.description) and v.other not in x.description:
                text = converse_words(gr.first_person(x.description, m.name), v.other)
                if not wd.fragment(text) and re.match(r"^I\b", text):
                    return Option(ANSWER, f"{v.first}, {text}", fact_of(x), topic)
        topic = "day"
    if topic.startswith("place:"):
        return _place_answer(m, v, topic, now, nodes, turn, asked)
    if topic.startswith("person"):
        person = topic.split(":", 1)[1] if ":" in topic else ""
        first = person.split()[0] if person else ""
        mem = m.memory
        for x in sorted(nodes, key=lambda x: -x.importance):
            # not one's description ("How is Eddy?" - "I live with you and our son Eddy Lin"), nor
            # a memory naming the listener: that comes out as "you", news to nobody
            d = x.description
            if first and first in d and not unsayable(x, now, v.other, mem) and not own_description(x, mem) \
                    and v.other not in d and not quotes_you(d):
                text = converse_words(gr.first_person(x.description, m.name), v.other)
                if not wd.fragment(text):
                    return Option(ANSWER, text, fact_of(x), topic)
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
        return Option(ANSWER, f"{v.first}, {verb} {k.event.words(art)}.", fact_of(k.node), topic or "day")
    return day


def _said_already(text: str, said: str, place: str = "") -> bool:
    """Whether every word of three letters or more in ``text``, the place's name aside, is in
    ``said``: told back, word for word."""
    words = {w for w in re.findall(r"[a-z']+", text.lower()) if len(w) > 2} - set(place.lower().split())
    return bool(words - {"the", "and"}) and words <= set(re.findall(r"[a-z']+", said.lower()))


def _place_answer(m: Talker, v: wd.Voice, topic: str, now: datetime, nodes: list[MemoryNode], turn: int,
                  asked: str = "") -> Option:
    """Asked if one comes to a place often: what one's memories (one's description too: asked,
    it is said) hold of it, else what one does there today, else "now and then"."""
    place = topic.split(":", 1)[1]
    memory = m.memory
    own = [x for x in memory.nodes if own_description(x)]
    for x in own + sorted(nodes, key=lambda x: -x.importance):
        if place in x.description and (own_description(x) or not unsayable(x, now, v.other, memory)) \
                and dt.parse(x.description, now) is None and not SECRET.search(x.description):
            text = converse_words(gr.first_person(x.description, m.name), v.other)
            if re.match(r"^I\b", text) and not wd.fragment(text) and len(text.split()) <= 25:
                if _said_already(text, asked, place):  # "I write in the library", to who just said so
                    return Option(ANSWER, v.pick((f"So do I, {v.first}! We should sit together next time.",
                                                  f"Me too, {v.first}! I'll look out for you there."), "same", turn),
                                  fact_of(x), topic)
                return Option(ANSWER, f"{v.first}, {text}", fact_of(x), topic)
    item = item_at(plan_today(m, now), now)
    if item is not None and place in item.address and activity.is_gerund(item.description.split()[0]):
        doing = re.sub(rf"\s+(?:at|in) (?:the )?{re.escape(place)}$", "", item.description)
        return Option(ANSWER, f"{v.first}, I'm {doing} here today.", topic=topic, note="today's plan")
    return Option(ANSWER, v.pick((f"{v.first}, I come here now and then. I like it.",
                                  f"I come here now and then, {v.first}. It's a nice place."), "place", turn),
                  topic=topic, note="nothing remembered")


def _day_answer(m: Talker, v: wd.Voice, now: datetime, topic: str, turn: int, avoid: Sequence[str] = (),
                after: datetime | None = None, agreed: list[Arrangement] | None = None) -> Option:
    plan = plan_today(m, now, agreed)
    cur = item_at(plan, now)
    start = max(now, after - timedelta(seconds=1)) if after is not None else now
    nxt = next((x for x in plan if x.start > start and "sleep" not in x.description.lower()), None)
    parts = []
    f = v.first  # the doing first, else the asker's name: "at the moment I'm" opened every answer alike
    if cur is not None and activity.is_gerund(cur.description.split()[0]) and topic == "day":
        d = _you(cur.description, v.other)
        named = (f"{f}, I'm {d} today", f"{f}, I'm {d} just now")
        parts.append(v.pick(named if common_doing(d) else (f"{d} keeps me busy today",
                                                            f"{d} is what I'm doing right now", *named), "day", turn))
    if nxt is not None and activity.is_gerund(nxt.description.split()[0]):
        t, d = when_where(m, nxt)
        d = _you(d, v.other)
        named = (f"{f}, I'll be {d} at {t}", f"{f}, next I'm {d} at {t}")
        parts.append(v.pick(named if common_doing(d) else (f"{d} at {t} is next for me", *named), "next", topic, turn)
                     if not parts else f"at {t} I'm {d}")
    # an engagement later today (the party one hosts, an arrangement) is what the day is about
    later = next((x for x in plan if x.start > max(start, nxt.start if nxt else start)
                  and x.start.date() == now.date() and agenda.is_engagement(x)), None)
    if later is not None and parts:
        t, d = when_where(m, later)
        parts.append(f"and at {t} I'm {_you(d, v.other)}")
    if not parts:
        pool = ((f"{f}, nothing planned for later, I think.", f"{f}, I haven't made any plans yet.",
                 f"{f}, I'll see how the day goes, nothing fixed.") if topic == "plans" else
                (f"{f}, nothing special, it's just the usual.", f"{f}, it's a quiet day for me.",
                 f"{f}, I'm keeping busy, as always."))
        return Option(ANSWER, v.pick(pool, "answer", topic, turn, avoid=avoid), topic=topic, note="nothing planned")
    text = "; ".join(parts)
    return Option(ANSWER, text[0].upper() + text[1:] + ".", topic=topic, note="today's plan")


def _you(doing: str, listener: str) -> str:
    """A doing told to someone in it: "having lunch with Ayesha Khan", said to Ayesha, is
    "having lunch with you"."""
    return re.sub(rf"\b{re.escape(listener)}\b", "you", doing) if listener else doing


def day_in_words(m: Talker, asker: str, now: datetime, turn: int) -> str:
    """What a resident says of its day to ``asker`` (the player asking it): what it does
    now, what is next, and an engagement later on, as it would tell a resident."""
    v = wd.Voice(m.name, asker, asker in m.social.known_people, False, f"{asker}|{now:%Y-%m-%d}")
    return _day_answer(m, v, now, "day", turn).text


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


def empty_answer(u: Utterance) -> bool:
    """An answer that said there was nothing to tell ("It's a quiet day for me")."""
    return bool(re.search(r"grounded: nothing (planned|remembered)", u.source or ""))



__all__ = ["answer", "answers_to_offer", "ask_back", "day_in_words", "empty_answer", "question_topic", "recap_asked",
           "recap_words"]
