"""Grounded conversation as dialogue acts (the embedded model's mode; the paper's free
lines stay in agents/talk/converse.py): a turn.

Each turn the speaker is offered only the acts that make sense now, each already
worded by rule from its memories (agents/talk/wording.py), and the model chooses one
under a grammar (the offered lines, word for word), as it chooses a fact for an answer.
The acts and what each carries are in agents/talk/acts.py; what the speaker knows at a
turn in knowing.py; news, invitations and offers to meet in news.py; answers to questions
and offers in answers.py; reactions and questions in reactions.py:

- answer the question just asked (its day, its plans, someone both know);
- react to news just heard, naming it;
- ask about the other's day, plans or a shared acquaintance;
- tell news, most important first;
- invite to a dated event it hosts or is going to, that the listener was not told of;
- accept or decline an invitation (only right after one);
- make a plan to meet (join it at a public place later today);
- say goodbye (from the third line on; the only act at the turn limit).

The line carries its act (``Utterance.act``) and its provenance records the act and the
memory it came from, in the form agents/explain/provenance.py and ``grounding.memory_of``
read: "repaired: grounded: memory #12 (...); act tell". What an invitation and its answer
agreed becomes an arrangement on both sides (converse.agreements, called from
converse.end_conversation). This module is also the acts' face to the rest of the minds and
the game (``agents.dialogue``): it names what they use of the room.
"""
from __future__ import annotations

import re
import zlib
from dataclasses import replace
from datetime import datetime
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, create_model

from agents.explain import provenance as pv
from agents.planning.items import item_at
from agents.recall import grounding as gr
from agents.support.types import Conversation, Utterance
from agents.talk import wording as wd
from agents.talk.acts import (
    ACCEPT,
    ACTS,
    ANSWER,
    ASK,
    DECLINE,
    FOLLOW_UP,
    GOODBYE,
    HEARD_ACTS,
    INVITE,
    MEET,
    OFFERS,
    REACT,
    RESPONSIVE,
    TELL,
    Act,
    Option,
    act_and_note,
    act_by_rule,
    act_of,
    responds,
)
from agents.talk.answers import (
    answer,
    answers_to_offer,
    ask_back,
    day_in_words,
    empty_answer,
    question_topic,
    recap_asked,
    recap_words,
)
from agents.talk.knowing import (
    NEWS_QUERY,
    Known,
    Turn,
    agreed_here,
    events_known,
    fact_of,
    gr_names,
    is_timetable,
    offered_event,
    plan_today,
    recall,
)

# news and reactions register the builders of invite, tell, meet, react and ask (acts.offered)
from agents.talk.news import HOSTING, invite, meet, opening_news, tells
from agents.talk.reactions import ask, follow_up, followed_up_on, react, related, shared_acquaintance, topic_of
from agents.talk.speaker import Talker
from agents.words import activity

MAX_OPTIONS = 5  # a small choice: the 135M model picks well among few


LINES_EACH = 4  # a side's lines before its goodbye is the only act left


GOODBYE_FROM = 3  # goodbye is offered once this many lines were said


@lru_cache(maxsize=256)
def reply_schema(texts: tuple[str, ...]) -> type[BaseModel]:
    """{"reply": one of the offered lines, word for word}: the grammar lets the model write
    nothing else. The model writes the line it chooses, so its choice follows what the lines
    say: asked for a number, the 135M model took the last one listed whatever it said (on
    40 recorded turns asked in both orders, 27 took the last both times and none kept its
    choice; written out, 24 kept the same line in both orders)."""
    fields: dict[str, Any] = {"reply": (Literal[texts], ...)}
    return create_model("ReplyChoice", **fields)


def line(m: Talker, c: Conversation, now: datetime, partner_doing: str, doing: str) -> Utterance:
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
    act = chosen.act.recorded(chosen.topic)
    source = pv.tag(kind, f"{gr.GROUNDED}: " + "; ".join(x for x in (note, why, act) if x))
    kept = [chosen.topic] if chosen.act.keeps_told else []
    if chosen.topic.startswith(FOLLOW_UP) and chosen.fact is not None:  # asked once, not again in the next talk,
        kept = [f"{FOLLOW_UP}mem:{chosen.fact.node_id}", followed_up_on(m.now.date())]  # and one a day of each
    told = m.social.told.setdefault(c.other(m.name), []) if kept else []
    for k in kept:
        if k not in told:
            told.append(k)
            del told[:-60]
    ends = chosen.ends or len(c.lines) + 1 >= m.settings.max_conversation_lines
    return Utterance(m.name, chosen.text, ends, source, chosen.act.name, chosen.act.note_of(chosen.topic))


def voice(m: Talker, c: Conversation) -> wd.Voice:
    """How the speaker words its lines to the other in this conversation (seeded by the run and the talk)."""
    other = c.other(m.name)
    seed = getattr(getattr(m.gateway, "config", None), "seed", 0)  # a stand-in's road has no config
    salt = f"{seed}|{c.started.isoformat()}"
    known = other in m.social.known_people or other in m.social.last_talked
    return wd.voice_of(m.name, other, m.persona.traits, m.persona.description, known, salt)


def offers(m: Talker, c: Conversation, now: datetime, partner_doing: str, doing: str) -> list[Option]:
    """The acts that fit now, worded, in a sensible order (the first is the fallback): at the
    limit a goodbye (or the answer to an offer); the host's invitation; the answer to an offer or
    a question, alone; else what the acts' builders offer (agents/talk/acts.py) and a goodbye."""
    other = c.other(m.name)
    v = voice(m, c)
    lines = c.lines
    turn = len(lines)
    mine = [u for u in lines if u.speaker == m.name]
    said_here = [u.text for u in lines]
    bye = Option(GOODBYE, wd.goodbye(v, _own_doing(m, now), turn, avoid=said_here), ends=True)
    last = lines[-1] if lines and lines[-1].speaker == other else None
    last_act, last_topic = act_and_note(last) if last else (None, "")
    if last is not None and last_act is None:
        last_act = act_by_rule(last.text, lines[-2].text if len(lines) > 1 else None)
    limit = turn + 1 >= m.settings.max_conversation_lines
    if limit or len(mine) >= LINES_EACH:
        # An invitation made at one's last line is still answered (a goodbye was its answer).
        answers = answers_to_offer(m, v, last, now, turn) if last is not None and last_act in OFFERS else []
        return [replace(o, ends=True) for o in answers] or [bye]
    if last_act is GOODBYE:
        return [Option(GOODBYE, wd.goodbye(v, "", turn, avoid=said_here), ends=True)]
    nodes = recall(m, c, doing)
    known = events_known(m, nodes, now)
    agreed = agreed_here(m, lines, now)  # a yes given in this talk holds for its later lines
    t = Turn(m, c, now, v, partner_doing, doing, nodes, known, agreed, last, last_act, last_topic)
    opening = _host_opening(t)
    if opening:
        return _usable(opening, said_here, v, turn)
    opts = _replies(t)
    if opts:
        return _usable(opts, said_here, v, turn)  # only an answer fits after a question or an invitation
    for act in ACTS:
        opts += act.offers(t)
    if turn >= GOODBYE_FROM or not opts:
        opts.append(bye)
    if turn == 0:
        hello = wd.greeting(v, now.hour, turn)
        opts = [Option(o.act, f"{hello} {_drop_name(o.text, v.first)}", o.fact, o.topic, o.ends, o.note)
                for o in opts if o.act != GOODBYE]
        opts = opts or [Option(ASK, f"{hello} {wd.question(v, 'day', turn)}", topic="day")]
    return _usable(opts, said_here, v, turn)


def _host_opening(t: Turn) -> list[Option]:
    """The talk began for an invitation, or the host means to invite everyone it meets: the
    invitation, or the event's news first, is what the speaker says now (nothing when no
    invitation is pending: not in answer to an offer or a question, one offer a side). A talk
    begun with news of one's own to tell (Sam's candidacy) opens with it."""
    m, v, last, last_act, turn = t.m, t.v, t.last, t.last_act, t.turn
    pending = last_act not in (*OFFERS, ASK) and not (last_act is ANSWER and last is not None
                                                      and last.text.rstrip().endswith("?"))
    inviting = invite(m, v, t.known, t.now, t.lines, turn) if pending and not t.said(OFFERS, mine=True) else None
    if inviting is None or not (turn == 0 or inviting.note == HOSTING):
        own = opening_news(t)  # or the talk began for news of one's own (converse.decide_to_talk)
        return [] if own is None else [replace(own, text=f"{wd.greeting(v, t.now.hour, turn)} "
                                                         f"{_drop_name(own.text, v.first)}")]
    key = inviting.topic.split(":", 1)[1]
    # The host invites (its news is in the invitation); another opens with the invitation or the news.
    news = [] if inviting.note == HOSTING else [o for o in tells(m, v, t.c, t.nodes, t.known, t.now)
                                                if o.topic == f"news:{key}"]
    hello = wd.greeting(v, t.now.hour, turn) if turn == 0 else ""
    return [Option(o.act, f"{hello} {_drop_name(o.text, v.first)}" if hello else o.text, o.fact, o.topic,
                   o.ends, o.note) for o in [inviting] + news[:1]]


def _replies(t: Turn) -> list[Option]:
    """The answer to an offer just made (accept or decline), or to a question just asked (or
    asked back: "..., and you?"); none else."""
    m, v, last, last_act, topic, turn = t.m, t.v, t.last, t.last_act, t.last_topic, t.turn
    if last is None:
        return []
    opts: list[Option] = []
    if last_act in OFFERS:
        opts += answers_to_offer(m, v, last, t.now, turn, t.known, t.agreed)
    asked_back = last_act is ANSWER and last.text.rstrip().endswith("?")
    if last_act is ASK or asked_back:
        said_answer = answer(m, v, last.text, topic, t.now, t.nodes, t.known, turn,
                             avoid=[u.text for u in t.lines], agreed=t.agreed)
        if said_answer is not None and last_act is ASK and topic.startswith(FOLLOW_UP):
            opts += [said_answer]  # "How did it go?" is not asked back
        elif said_answer is not None and last_act is ASK:  # answered plainly, or with the question back
            named = said_answer.text.startswith(f"{v.first},")  # "Carlos, I'm ... What about you, Carlos?" names twice
            back = Option(said_answer.act, f"{said_answer.text} {ask_back(v, topic, turn, named)}",
                          said_answer.fact, said_answer.topic, note=said_answer.note)
            opts += [said_answer, back]
        elif said_answer is not None:  # "..., and you?": answered, or their answer reacted to first
            opts += [said_answer] + ([] if empty_answer(last) else [react(v, last, ANSWER, t.now, turn)])
    return opts


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


def _drop_name(text: str, first: str) -> str:
    """After a greeting that named the listener, the line does not name them again."""
    t = re.sub(rf"^{re.escape(first)},\s+(\w)", lambda x: x.group(1).upper(), text)
    t = re.sub(rf",\s+{re.escape(first)}([.!?,])", r"\1", t)
    return t


def _own_doing(m: Talker, now: datetime) -> str:
    item = item_at(plan_today(m, now), now)
    d = item.description if item is not None else ""
    return d if d and activity.is_gerund(d.split()[0]) else ""


__all__ = [
    "ACCEPT",
    "ACTS",
    "ANSWER",
    "ASK",
    "DECLINE",
    "GOODBYE",
    "HEARD_ACTS",
    "INVITE",
    "MEET",
    "NEWS_QUERY",
    "OFFERS",
    "REACT",
    "RESPONSIVE",
    "TELL",
    "Act",
    "Known",
    "Option",
    "act_and_note",
    "act_by_rule",
    "act_of",
    "answer",
    "answers_to_offer",
    "ask",
    "day_in_words",
    "events_known",
    "fact_of",
    "follow_up",
    "gr_names",
    "is_timetable",
    "line",
    "meet",
    "offered_event",
    "offers",
    "question_topic",
    "react",
    "recall",
    "recap_asked",
    "recap_words",
    "related",
    "reply_schema",
    "responds",
    "shared_acquaintance",
    "tells",
    "topic_of",
    "voice",
]
