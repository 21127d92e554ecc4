"""What the speaker tells: news, most important first (``tells``), invitations to the dated
events it hosts or goes to (``invite``), and offers to meet where its plan goes later today
(``meet``); with the builders that offer them each turn (agents/talk/acts.py ``offered``)."""
from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from agents.explain import provenance as pv
from agents.recall import grounding as gr
from agents.recall.memory import MemoryNode
from agents.support.types import Conversation, Utterance
from agents.talk import wording as wd
from agents.talk.acts import INVITE, MEET, OFFERS, TELL, Option, offered
from agents.talk.knowing import (
    HEARD_LINE,
    NEWS_QUERY,
    Known,
    Turn,
    clash,
    converse_words,
    fact_of,
    insight_not_news,
    own_description,
    plan_today,
    quotes_you,
    same_news,
    told_to,
    unsayable,
    untold_note_dropped,
)
from agents.talk.speaker import Talker
from agents.words import activity
from agents.words import dated as dt

HOSTING = "its own event"  # an invitation's note when the speaker hosts the event


RECAP_FRESH = timedelta(hours=30)  # a gathering's recap is told first until the day after it is out


SOCIAL = re.compile(r"\b(lunch|dinner|breakfast|brunch|coffee|tea|drink|drinks|meal|walk|stroll|picnic|snack)\b", re.I)


_HABIT = re.compile(r'told \w+: "(?:[^".!?]*[.!?] |[A-Z][a-z]+, )?I (?:often |usually |always |really )?'
                    r'(?:love|like|enjoy|walk|work|live|study|run|own|teach|write|paint|spend|go|care|prefer|know|'
                    r'am a|am an)\b')


def invite(m: Talker, v: wd.Voice, known: list[Known], now: datetime, lines: list[Utterance],
           turn: int) -> Option | None:
    """An invitation to the first event the speaker hosts or goes to that it has not invited the
    listener to (telling the news first is no invitation), that the listener does not host, and
    that the listener did not say it goes to."""
    theirs = " ".join(u.text for u in lines if u.speaker == v.other).lower()
    here = " ".join(u.text for u in lines).lower()
    going = re.search(r"\b(i'm going|i'll be there|see you there|i'm coming)\b", theirs)
    for k in known:
        ev = k.event
        if not k.going or ev.host == v.other or v.other in k.tellers or f"event:{ev.key}" in told_to(m, v.other):
            continue
        if _told_of_first(lines, ev, v.other, now):
            continue  # they spoke of it in this talk: inviting them to it tells it back (Ayesha to Klaus;
            # John to Tom, who had said "I am looking forward to the campaign rally on February 15")
        if going and ev.place.lower() in here:
            continue  # "Yes, I'll be there too!" to its news: they go, no invitation (Giorgio then declined it)
        if not k.hosting and clash(m, ev.starts(), ev.minutes(), ev.what, ev.place)[0]:
            continue  # busy then oneself: no invitation to go together
        host_first = ev.host.split()[0] if ev.host and ev.host != m.name else None
        text = wd.invitation(v, ev.words(), host_first, k.hosting, turn)
        return Option(INVITE, text, fact_of(k.node), f"event:{ev.key}", note=HOSTING if k.hosting else "")
    return None


def _told_of_first(lines: list[Utterance], ev: dt.DatedEvent, other: str, now: datetime) -> bool:
    """Whether ``other`` spoke of the event in this talk before the speaker did (by its name or
    as a dated event): its news, not a reaction to the speaker's."""
    for u in lines:
        e = dt.parse(u.text, now, teller=u.speaker)
        if ev.what.lower() in u.text.lower() or (e is not None and e.key == ev.key):
            return u.speaker == other
    return False


def tells(m: Talker, v: wd.Voice, c: Conversation, nodes: list[MemoryNode], known: list[Known],
          now: datetime) -> list[Option]:
    """News the speaker could tell, most important first: no secret about the listener, no
    timetable, no prompt echo, no fragment, nothing told to them before or said here."""
    other = v.other
    said = {wd.norm(u.text) for u in c.lines}
    told = told_to(m, other)
    events = {k.node.id: k for k in known}
    out: list[Option] = []
    # what the listener said here is no news to them (it is remembered only when the talk ends)
    theirs = [u.text for u in c.lines if u.speaker == other]
    their_events = {e.key for e in (dt.parse(t, now, teller=other) for t in theirs) if e is not None}
    # how a gathering went, the day after, first: what happened yesterday is what one talks of
    fresh = {x.id for x in nodes if pv.why_of(x.source).startswith(pv.RECAP) and now - x.created < RECAP_FRESH}
    for x in sorted(nodes, key=lambda x: (x.id not in fresh, -x.importance, -x.id)):
        d = x.description
        if unsayable(x, now, other, m.memory):
            continue
        k = events.get(x.id) or _event_of(d, now, m.name, known)
        heard = HEARD_LINE.match(d)
        if k is None and heard and ("?" in d or _HABIT.search(d) or not any(w in d.lower() for w in gr.NEWS_WORDS)):
            continue  # what someone said of their day or habits, or asked, is no news to pass on
        if k is None and quotes_you(d):
            continue  # said to oneself ("... Klaus and you came"): retold, "you" named the wrong one
        if k is None and insight_not_news(x):
            continue  # what someone is like, unasked, was a recital
        if k is None and own_description(x, m.memory):
            continue  # "I have a long feud with my neighbour", unasked, was a recital: said when asked (answer)
        if k is not None and (k.event.key in their_events or _spoke_of(k.event.what, theirs)):
            continue  # told of it by the listener in this very conversation ("at 3 pm I'm attending the study group")
        if k is None and any(same_news(d, t) for t in theirs):
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
            text, topic = _memory_news(m, v, x, now), f"mem:{x.id}"
        key = wd.norm(text)
        if any(key and (key in s or s in key) for s in said if len(s) > 12) or wd.fragment(text):
            continue
        if any(o.topic == topic for o in out):
            continue
        out.append(Option(TELL, text, fact_of(x), topic))
    return out


def _memory_news(m: Talker, v: wd.Voice, x: MemoryNode, now: datetime) -> str:
    """A memory told as news to ``v.other``, in the speaker's words."""
    # 'Isabella told Klaus: "Klaus, I love ..."' retold by Klaus was '... told me: "I, I love ..."'
    d = re.sub(r'(told \w+: ")[A-Z][a-z]+, (\w)', lambda g: g.group(1) + g.group(2).upper(), x.description)
    d = dt.past_days(untold_note_dropped(d), now)  # the day after: "yesterday's" party
    return _addressed(v, converse_words(gr.first_person(d, m.name), v.other), x.id)


def own_news_for(m: Talker, other: str, now: datetime) -> MemoryNode | None:
    """A thought the resident was given that is news of its own, not a secret nor a gathering
    (those are invitations), and not yet told to ``other``: Sam's "I have decided to run for mayor"
    raises his will to talk as the party raises Isabella's (he told 2 residents in 27 hours)."""
    try:
        nodes = m.search([NEWS_QUERY.format(other=other)], now, k=4, char_budget=2000, touch=False,
                         kinds=("thought",))
    except Exception:  # noqa: BLE001 - an embedding server down: the model decides as usual
        return None
    told = m.social.told.get(other, [])
    for x in nodes:
        if x.source == pv.GIVEN_THOUGHT and x.subject == m.name and f"mem:{x.id}" not in told \
                and not dt.parse(x.description, now, teller=m.name) and not unsayable(x, now, other, m.memory):
            return x
    return None


def opening_news(t: Turn) -> Option | None:
    """What a talk its speaker began opens with when it has news of its own for the listener
    (``own_news_for``), as a host's opens with the invitation: offered among other lines, Sam chose
    his candidacy 4 times in 21 (25 residents, two days), and it reached 7 of 25."""
    x = own_news_for(t.m, t.v.other, t.now) if t.turn == 0 else None
    return None if x is None else Option(TELL, _memory_news(t.m, t.v, x, t.now), fact_of(x), f"mem:{x.id}")


_AT_HOUR = re.compile(r"\bat (\d{1,2})(?::(\d\d))? ?([ap]m) I(?:'m| am|'ll| will)\b", re.I)


def _hours_taken(lines: Sequence[str]) -> list[int]:
    """The hours (minutes of the day) someone's lines say they are busy at ("at 7 pm I'm ...")."""
    out = []
    for t in lines:
        for h, mm, ap in _AT_HOUR.findall(t):
            hour = int(h) % 12 + (12 if ap.lower() == "pm" else 0)
            out.append(hour * 60 + int(mm or 0))
    return out


def _spoke_of(what: str, lines: list[str]) -> bool:
    """Whether one of ``lines`` names the gathering ``what`` ("the study group"): the listener
    who said they are going to it has no news of it to hear."""
    return bool(what) and any(re.search(rf"\b(?:the|a|an|my) {re.escape(what)}\b", t, re.I) for t in lines)


def _addressed(v: wd.Voice, text: str, key: int) -> str:
    """ "I often talk with Klaus Mueller." said to Maria: mostly "Maria, I often talk with ...".
    Every resident's reflections and description begin with "I" ("I often talk", "I am a"),
    which opened a run's lines alike; a fact that begins otherwise stays as it is."""
    if not re.match(r"^I\b", text) or v.pick(("named", "named", "plain"), "addressed", key) == "plain":
        return text
    return f"{v.first}, {text}"


def _event_of(text: str, now: datetime, me: str, known: list[Known]) -> Known | None:
    ev = dt.parse(text, now)
    if ev is None:
        return None
    return next((k for k in known if k.event.key == ev.key), None)


def _event_news(m: Talker, v: wd.Voice, k: Known) -> str:
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


def meet(m: Talker, v: wd.Voice, now: datetime, turn: int, their_lines: Sequence[str] = ()) -> Option | None:
    """An offer to meet at a public place the speaker's plan takes it to later today, not at an
    hour the listener has just said is taken ("at 7 pm I'm having a drink at the bar")."""
    home = m.persona.home.split(":")[1]
    taken = _hours_taken(their_lines)
    for x in plan_today(m, now):
        if not (now + timedelta(minutes=30) <= x.start and x.start.date() == now.date() and x.start.hour < 21):
            continue
        if any(abs(x.start.hour * 60 + x.start.minute - t) < 60 for t in taken):
            continue  # asked along at an hour they just said is taken, they could only decline
        sector = x.address.split(":")[1] if x.address.count(":") >= 1 else ""
        d = x.description
        if not sector or sector == home or not activity.is_gerund(d.split()[0]) or not SOCIAL.search(d):
            continue  # one asks others along to a meal, a coffee, a walk; not to one's work
        what = re.sub(rf"\s+(?:at|in) (?:the )?{re.escape(sector)}$", "", d)
        if re.search(r"\b(at|in)\b [A-Z]", what):
            continue  # another place named in the words: no clear place to meet
        if clash(m, x.start, x.minutes, d, sector)[0]:
            continue  # an arrangement or a gathering then: the plan item is no longer what one does
        words = dt.meeting_words(what, sector, "today", x.start.hour * 60 + x.start.minute)
        return Option(MEET, wd.meeting(v, words, d, turn), topic=f"meet:{x.start:%H:%M}", note="today's plan")
    return None



# ---------------------------------------------------------------------------- when each is offered

@offered(INVITE)
def _invitations(t: Turn) -> list[Option]:
    """One offer a side a conversation, not in answer to one, and only with a line left to answer it."""
    if t.said(OFFERS, mine=True) or t.last_act in OFFERS or not t.room:
        return []
    return [o for o in [invite(t.m, t.v, t.known, t.now, t.lines, t.turn)] if o]


@offered(TELL)
def _news(t: Turn) -> list[Option]:
    """The two most important pieces of news."""
    return tells(t.m, t.v, t.c, t.nodes, t.known, t.now)[:2]


@offered(MEET)
def _meetings(t: Turn) -> list[Option]:
    """One plan to meet a conversation (no offer back), and not in answer to an offer."""
    if t.said(MEET) or t.last_act in OFFERS or not t.room:
        return []
    theirs = [u.text for u in t.c.lines if u.speaker == t.v.other]
    return [o for o in [meet(t.m, t.v, t.now, t.turn, theirs)] if o]


__all__ = ["HOSTING", "invite", "meet", "opening_news", "own_news_for", "tells"]
