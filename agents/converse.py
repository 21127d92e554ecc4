"""Dialogue (paper section 4.4 / the original's agent_chat_v2, one line per job):
each utterance is conditioned on the speaker's summary of the other (the two
retrieval queries, cached per conversation) and the dialogue so far."""
from __future__ import annotations

import re
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from agents.plan import clean_text, short_text
from agents.types import Conversation, Utterance


class Talk(BaseModel):
    talk: bool


class Relationship(BaseModel):
    summary: short_text(200)  # maxLength in the grammar only (measured no slower): a small model stops in time


class Line(BaseModel):
    utterance: short_text(160) = Field(min_length=1)
    ends: bool


class ChatSummary(BaseModel):
    summary: short_text(80)
    importance: int = Field(ge=1, le=10)


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]", "", text.lower()).strip()


def _key(c: Conversation) -> tuple:
    return (c.participants, c.started)


def may_talk(m, other: str, now: datetime, doing: str) -> bool:
    """The cheap rule before any call: awake, daytime, not just talked to them."""
    lo, hi = m.settings.talk_hours
    if not lo <= now.hour < hi or m.sleeping(doing):
        return False
    last = m.last_talked.get(other)
    return last is None or now - last >= timedelta(minutes=m.settings.talk_cooldown_min)


def decide_to_talk(m, other: str, now: datetime, doing: str, their_doing: str) -> bool:
    nodes = m.retrieve(f"{other}", k=4)
    context = "\n".join(f"- {x.description}" for x in nodes) or "- (nothing)"
    got = m.ask(Talk, "talk_decision", "talk_decision", Talk(talk=False),  # fallback: keep to oneself
                other=other, doing=doing, their_doing=their_doing or "here", memories=context,
                time=f"{now:%H:%M}")
    return bool(got.talk)


def relationship(m, c: Conversation, partner_doing: str) -> str:
    key = _key(c)
    if key in m.rel_cache:
        return m.rel_cache[key]  # once per conversation: saves a call per line
    other = c.other(m.name)
    seen: dict[int, object] = {}
    for q in (f"What is {m.name}'s relationship with {other}?", f"{other} is {partner_doing}"):
        for x in m.retrieve(q, k=6):
            seen.setdefault(x.id, x)
    nodes = list(seen.values())
    about = [x for x in nodes if other.split()[0] in x.description]
    fb = (f"{m.name} knows this about {other}: {about[0].description}" if about
          else f"{m.name} does not know {other} well yet.")[:240]
    if not nodes:
        m.rel_cache[key] = fb
        return fb
    listing = "\n".join(f"- {x.description}" for x in nodes[:10])
    got = m.ask(Relationship, "relationship", "relationship", Relationship(summary=fb),
                other=other, memories=listing)
    text = clean_text(got.summary, 240)
    places = {w for a in m.spatial.arenas() for w in a.replace("'s", " ").replace(":", " ").split()}
    if relationship_problem(text, m.name, other, [x.description for x in nodes], set(m.known_people), places):
        m.rejected["relationship"] += 1
        text = fb
    m.rel_cache[key] = text
    return text


NAME = re.compile(r"\b([A-Z][a-z]+)\s+([A-Z][a-z]+)\b")


def names_in(text: str) -> set[str]:
    return {f"{a} {b}" for a, b in NAME.findall(text or "")}


CALENDAR = set("Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July "
               "August September October November December Valentine Valentines".split())


def relationship_problem(text: str, me: str, other: str, memories: list[str], cast: set[str],
                         place_words: set[str] = frozenset()) -> str | None:
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


def fallback_line(m, c: Conversation, doing: str) -> Line:
    other = c.other(m.name).split()[0]
    n = len(c.lines)
    if n == 0:
        return Line(utterance=f"Hi {other}! How are you doing today?", ends=False)
    if n == 1:
        return Line(utterance=f"Hi {other}, I'm well, thanks. I'm {doing or 'keeping busy'}.", ends=False)
    return Line(utterance=f"It was nice to talk, {other}. See you around!", ends=True)


def utter(m, c: Conversation, now: datetime, partner_doing: str, doing: str) -> Utterance:
    other = c.other(m.name)
    rel = relationship(m, c, partner_doing)
    last = c.lines[-1].text if c.lines else ""
    nodes = m.retrieve(f"{rel} {last}".strip(), k=5)
    memories = "\n".join(f"- {x.description}" for x in nodes) or "- (nothing)"
    transcript = "\n".join(f"{u.speaker}: {u.text}" for u in c.lines[-6:]) or "(nobody has spoken yet)"
    got = m.ask(Line, "utterance", "utterance", lambda: fallback_line(m, c, doing),
                other=other, relationship=rel, memories=memories, transcript=transcript,
                doing=doing or "here", partner_doing=partner_doing or "here", time=f"{now:%H:%M}")
    text = clean_text(got.utterance, 200)
    ends = bool(got.ends)
    # "Klaus Mueller: What a pleasure" / "Maria, I'm glad" said by Maria: the speaker's own name is not the line
    text = re.sub(rf"^(?:{re.escape(m.name)}|{re.escape(m.name.split()[0])})\s*[:,]\s*", "", text).strip()
    if len(text.split()) < 2 or names_in(text) >= {text} or text.lower().startswith(other.lower()):
        m.rejected["utterance"] += 1  # a bare name or a stage direction is not a line
        fb = fallback_line(m, c, doing)
        text, ends = fb.utterance, fb.ends or ends
    # Guards the original lacked (issue #113): a repeated line ends the talk,
    # and so does the turn limit.
    if not text or _norm(text) in {_norm(u.text) for u in c.lines}:
        text, ends = f"Well, I should get going, {other.split()[0]}. Talk soon!", True
    if len(c.lines) + 1 >= m.settings.max_conversation_lines:
        ends = True
    return Utterance(speaker=m.name, text=text, ends=ends)


def end_conversation(m, c: Conversation, now: datetime):
    other = c.other(m.name)
    m.rel_cache.pop(_key(c), None)
    m.last_talked[other] = now
    m.known_people.add(other)
    if not c.lines:
        return None
    theirs = [u.text for u in c.lines if u.speaker != m.name]
    fb_text = ("; ".join(theirs) or c.lines[0].text)[:150]
    got = m.ask(ChatSummary, "chat_summary", "chat_summary", ChatSummary(summary=fb_text, importance=4),
                other=other, transcript=c.transcript()[-1500:])
    summary = clean_text(got.summary, 160) or fb_text
    text = f"conversed with {other} about {summary}"
    vec = m.embed([text])[0]
    node = m.memory.add("chat", text, now, got.importance, vec, subject=m.name, predicate="conversed with",
                        object=other)
    m.chats_today.append(f"with {other}: {summary}")
    return node
