"""Dialogue (paper section 4.4 / the original's agent_chat_v2, one line per job):
each utterance is conditioned on the speaker's summary of the other (the two
retrieval queries, cached per conversation) and the dialogue so far."""
from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from agents.explain import provenance as pv
from agents.planning import recaps
from agents.planning.agenda import agreed_place
from agents.planning.arrangements import Arrangement, day_labels, keep_arrangements, keywords_overlap
from agents.planning.plan import PLAN_MINUTES, place_for
from agents.planning.replan import replan_rest
from agents.recall import grounding as gr
from agents.recall.memory import MemoryNode
from agents.support.types import Conversation, Utterance
from agents.talk import acts, dialogue, knowing, news
from agents.talk.speaker import Social as Social  # a mind's conversation state (agents/mind/keeping.py keeps it here)
from agents.talk.speaker import Talker
from agents.words import activity
from agents.words import dated as dt
from agents.words.text import Text160, Text200, clean_text, short_text


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


def talk_block(m: Talker, other: str, now: datetime, doing: str) -> str | None:
    """Which cheap rule keeps the resident from talking to ``other`` now, or None: the
    hours, sleep, straight after another conversation (nobody chats all day), or
    having just talked to (or decided against talking to) them."""
    s = m.settings
    lo, hi = s.talk_hours
    if not lo <= now.hour < hi:
        return "hours"
    if m.sleeping(doing):
        return "asleep"
    since = m.social.last_conversation
    if since is not None and timedelta(0) <= now - since < timedelta(minutes=s.talk_gap_min):
        return "gap"
    last = m.social.last_talked.get(other)
    if last is not None and now - last < timedelta(minutes=s.talk_cooldown_min):
        return "cooldown"
    return None


def may_talk(m: Talker, other: str, now: datetime, doing: str) -> bool:
    """The cheap rule before any call (``talk_block``); what blocked it is counted."""
    block = talk_block(m, other, now, doing)
    if block is not None:
        m.social.talk_stats[f"blocked: {block}"] += 1
    return block is None


def decide_to_talk(m: Talker, other: str, now: datetime, doing: str, their_doing: str) -> tuple[bool, str]:
    """(talk?, provenance): without a usable answer the resident keeps to itself. In the
    grounded mode a resident with an invitation to make (an event it hosts or goes to, not
    yet told to ``other``) starts the conversation without asking: it means to invite
    everyone it meets; so does one with news of its own to tell (``news.own_news_for``), and it
    opens with that news (dialogue._host_opening). Past its
    day's conversations it starts none, without asking."""
    stats = m.social.talk_stats
    if m.grounded:
        pending = invitation_for(m, other, now)
        if pending is not None:
            stats["talked: an invitation to make"] += 1
            return True, pv.tag(pv.RULE, f"{gr.GROUNDED}: an invitation to make: {gr.source_note(pending)}")
        mine = news.own_news_for(m, other, now)
        if mine is not None:
            stats["talked: news of its own to tell"] += 1
            note = gr.source_note(knowing.fact_of(mine))
            return True, pv.tag(pv.RULE, f"{gr.GROUNDED}: news of its own to tell: {note}")
    if talked_enough_today(m):
        stats["refused: enough talk today"] += 1
        return False, pv.tag(pv.RULE, "enough talk today")
    nodes = m.retrieve(f"{other}", k=4)
    context = "\n".join(f"- {x.description}" for x in nodes) or "- (nothing)"
    # Grounded mode (the small model): at the chooser's temperature. Sampled with the run's one
    # seed, the 135M model gave every resident the same answer (seed 41: no to 16 of 16
    # meetings, seed 0: yes to 16 of 16): the seed decided, not the situation.
    temperature = gr.CHOOSER_TEMPERATURE if m.grounded else None
    got, why = m.ask(Talk, "talk_decision", "talk_decision", None, temperature=temperature, other=other,
                     doing=doing, their_doing=their_doing or "here", memories=context, time=f"{now:%H:%M}")
    if why is not None:
        m.note_fallback("talk decision", why)
        stats["refused: no usable answer"] += 1
        return False, pv.tag(pv.RULE, pv.reason_of_failure(why))
    stats["talked" if got.talk else "refused"] += 1
    return bool(got.talk), pv.MODEL


def talked_enough_today(m: Talker) -> bool:
    """Whether the resident has had its day's conversations (MindSettings.talks_a_day)."""
    limit = m.settings.talks_a_day
    return bool(limit) and sum(c.startswith("with ") for c in m.today.chats) >= limit


def invitation_for(m: Talker, other: str, now: datetime) -> gr.Fact | None:
    """The memory of an event the resident hosts or goes to that ``other`` has not been told
    of by it (and does not host), or None."""
    try:
        nodes = m.search([knowing.NEWS_QUERY.format(other=other)], now, k=8, char_budget=4000, touch=False,
                         kinds=gr.DURABLE_KINDS)
    except Exception:  # noqa: BLE001 - an embedding server down: the model decides as usual
        return None
    told = m.social.told.get(other, [])
    for k in knowing.events_known(m, nodes, now):
        if k.going and k.event.host != other and f"event:{k.event.key}" not in told:
            return gr.Fact(k.node.id, gr._short(k.node.description), float(k.node.importance))
    return None


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


TOPIC_KINDS = gr.DURABLE_KINDS  # what residents tell each other (not what they saw)


def topics(m: Talker, c: Conversation, partner_doing: str, doing: str) -> list[gr.Fact]:
    """The memories the speaker could tell the other as news (agents/talk/news.py ``tells``),
    most important first, none already said in this conversation or told to them before."""
    nodes = knowing.recall(m, c, doing)
    v = dialogue.voice(m, c)
    found = news.tells(m, v, c, nodes, knowing.events_known(m, nodes, m.now), m.now)
    return [o.fact for o in found if o.fact is not None][:gr.MAX_FACTS]


def grounded_line(m: Talker, c: Conversation, now: datetime, partner_doing: str, doing: str) -> Utterance:
    """The grounded mode's line: a dialogue act the model chooses among those that fit,
    worded by rule from the speaker's memories (agents/talk/dialogue.py). What the other told
    is remembered by the listener (``end_conversation``)."""
    return dialogue.line(m, c, now, partner_doing, doing)


_GREETING = re.compile(r"^(?:hi|hello|hey|oh|good (?:morning|afternoon|evening)|excuse me|there you are)\b"
                       r"[^.!?]*[.!?]\s+"
                       r"(?:I'm \w+(?:, nice to meet you)?[.!?]\s+)?", re.I)
_GLAD = re.compile(r"^(?:so |it's |always )?(?:good|nice|lovely|great) to (?:see|catch up with) you\b[^.!?]*[.!?]\s+",
                   re.I)


def heard_words(text: str, listener: str) -> str:
    """A line's news without its opening: the greeting, and the listener's name it was said
    to ("Klaus, Isabella told me ...", "Wolfgang! So good to see you. I heard ..."), which
    the listener retelling it would make "I, Isabella told me ..."."""
    first = re.escape(listener.split()[0]) if listener else ""
    t = text.strip()
    for _ in range(3):  # "Oh, Klaus! So good to see you. ..." is three openings
        before = t
        t = _GREETING.sub("", t)
        t = _GLAD.sub("", t)
        if first:
            t = re.sub(rf"^{first}\s*[,!.]\s+", "", t)
        if t == before:
            break
    t = t.strip()
    return t[0].upper() + t[1:] if t else text.strip()


def remember_heard(m: Talker, c: Conversation, now: datetime) -> None:
    """Grounded mode: what the other told (news, an invitation, an answer, an offer to meet)
    becomes the listener's own memory, in their words with the event's date, time and place
    intact ("Isabella Rodriguez told Maria: \"I'm hosting a Valentine's Day party at Hobbs
    Cafe on February 14, from 5 pm to 7 pm ...\""), so it can be retrieved and passed on."""
    other = c.other(m.name)
    me = m.name.split()[0]
    for u in c.lines:
        act = acts.act_of_line(u)
        if u.speaker != other or not (act in acts.HEARD_ACTS or (act is None and gr.memory_of(u.source) is not None)):
            continue
        text = heard_words(u.text, m.name)
        importance = gr.news_importance(text)
        if act in acts.OFFERS or dt.parse(text, now) is not None:
            importance = max(importance, 6)  # an invitation, a dated event: worth keeping
        m.remember("chat", f"{other} told {me}: \"{text[:300]}\"", importance, subject=other,
                   predicate="told", object=m.name, source=pv.tag(pv.RULE, f"{gr.GROUNDED}: heard from {other}"),
                   rate=True, importance_source=pv.UNRATED)


def remember_guests(m: Talker, c: Conversation, now: datetime) -> None:
    """The visitor said yes to this resident's invitation (the player's line: its provenance
    says so): the host remembers who said they would come ("Alex said they would come to the
    Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm"), so it greets
    them there and notices if they did not come (agents/planning/recaps.py). In both modes:
    the host may have planned its gathering already, so no arrangement of its own records it."""
    for u, reply in zip(c.lines, c.lines[1:]):
        if u.speaker != m.name or reply.speaker == m.name or not pv.why_of(reply.source).startswith(pv.PLAYER):
            continue
        if acts.act_of_line(u) not in acts.OFFERS or acts.act_of_line(reply) is not acts.ACCEPT:
            continue
        ev = knowing.offered_event(u, now)
        if ev is None or ev.meeting or ev.host != m.name:
            continue
        m.remember("chat", f"{reply.speaker} {recaps.AGREED_TO_COME} to {ev.words('the')}", 5,
                   subject=reply.speaker, predicate=recaps.AGREED_TO_COME, object=m.name,
                   source=pv.tag(pv.RULE, f"{pv.PLAYER}: an invitation accepted"), rate=True,
                   importance_source=pv.UNRATED)


def agreements(m: Talker, c: Conversation, now: datetime) -> list[Arrangement]:
    """Grounded mode: each invitation (or offer to meet) and the answer to it. An acceptance
    is an arrangement for this side (the other side makes its own from the same lines); a
    refusal is remembered. Returns the arrangements, checked like any other: every one (Wolfgang
    said yes to the study group and to a drink at 7 pm in one talk, and only the first was kept)."""
    other = c.other(m.name)
    out: list[Arrangement] = []
    for i, u in enumerate(c.lines[:-1]):
        if acts.act_of_line(u) not in acts.OFFERS:
            continue
        reply = c.lines[i + 1]
        answer = acts.act_of_line(reply)
        ev = knowing.offered_event(u, now)
        if ev is None or reply.speaker == u.speaker or answer is None or not answer.answers_offer:
            continue
        if answer.leaves == acts.REFUSAL:
            who = "I" if reply.speaker == m.name else other
            whose = "my" if u.speaker == m.name else f"{other}'s"
            m.remember("chat", f"{who} declined {whose} invitation ({ev.words('the')})", 4,
                       subject=reply.speaker, predicate="declined", object=u.speaker,
                       source=pv.tag(pv.RULE, f"{gr.GROUNDED}: a refusal"), rate=True,
                       importance_source=pv.UNRATED)
            continue
        if (a := event_arrangement(m, ev, other, now)) is not None:
            out.append(a)
    return out


def event_arrangement(m: Talker, ev: dt.DatedEvent, other: str, now: datetime) -> Arrangement | None:
    """An event agreed on in conversation as an arrangement: the host hosts it, a guest goes
    (a plan to meet: its activity, with the other); checked as every arrangement is."""
    if ev.meeting:  # "having lunch with Maria Lopez", offered on: "... with Maria Lopez and Klaus Mueller"
        text = f"{ev.what} and {other}" if re.search(r"\bwith [A-Z]", ev.what) else f"{ev.what} with {other}"
    elif ev.host == m.name:
        text = f"hosting the {ev.what}"
    else:
        text = f"going to the {ev.what}"
    made = f"agreed with {other} on {now:%A %B %d}"
    near = agreed_place(m.spatial, m.persona, ev)
    if near is None:  # a place it does not know: no arrangement at a place it does (the study group at its cafe)
        m.rejected["arrangement"] += 1
        return None
    minutes = 60 if ev.meeting and ev.end is None else ev.minutes()  # lunch together: an hour, not an evening
    a = checked_arrangement(m, now, ev.starts(), minutes, text, near, made,
                            pv.tag(pv.REPAIRED, f"{gr.GROUNDED}: an invitation accepted"))
    if a is None:
        return None
    # Agreed before (invited twice): one arrangement. Only the same doing at the same place is
    # the same: lunch at home in the plan is no lunch at Hobbs Cafe with Maria (issue 46: the
    # yes never entered the plan). What the plan holds already is still an arrangement, so
    # that a later replan keeps it.
    for x in m.today.arrangements:
        if x.start == a.start and x.address == a.address and keywords_overlap(x.description, a.description):
            return None
    # A yes that clashes with one given before: the first stands, and the resident knows why
    # it will not be at the second (two yeses at noon had it at neither, or at the later)
    end = a.start + timedelta(minutes=a.minutes)
    first = next((x for x in m.today.arrangements
                  if x.start < end and a.start < x.start + timedelta(minutes=x.minutes)), None)
    if first is not None:
        m.remember("plan", f"I won't be {a.description} at {a.address.split(':')[1]} at {a.start:%H:%M} on "
                   f"{a.start:%A %B %d} ({a.made}): I will be {first.description} then ({first.made} before)",
                   5, subject=m.name, predicate="cannot keep", object=other,
                   source=pv.tag(pv.RULE, f"{gr.GROUNDED}: a clash with an earlier arrangement"), rate=True,
                   importance_source=pv.UNRATED)
        return None
    return a


def checked_arrangement(m: Talker, now: datetime, start: datetime, minutes: int, words: str, addr: str | None,
                        made: str, source: str) -> Arrangement | None:
    """An arrangement, or None (counted as rejected) unless its activity is one, its place a
    known arena where it can happen (the one named, else one that fits) and it lies ahead."""
    text = activity.clean_activity(words, m.name)
    if text and (addr is None or not activity.fits_place(text, addr)):
        addr = place_for(text, m.spatial, m.persona, near=addr)
    if text is None or addr is None or start <= now:
        m.rejected["arrangement"] += 1
        return None
    return Arrangement(start, int(minutes or 60), text, addr, made, source)


def memo(m: Talker, c: Conversation) -> tuple[str, int]:
    """Grounded mode: the memo of a conversation by rule, from what was told and agreed (the
    small model's summaries are poor, and one call per side is saved): its topics and an
    importance by rule (the model rates it later)."""
    parts: list[str] = []
    for u in c.lines:
        act = acts.act_of_line(u)
        if act is not None and act.leaves != acts.NOTHING:  # what was told, offered or agreed
            who = "I" if u.speaker == m.name else u.speaker.split()[0]
            said = heard_words(u.text, c.other(u.speaker))
            parts.append(f'{who} said "{said}"')
    text = "; ".join(parts) or "small talk"
    return clean_text(text, 200), max(2, min(8, gr.news_importance(text)))


def end_conversation(m: Talker, c: Conversation, now: datetime) -> list[Arrangement]:
    """Both sides remember the conversation (a memo, rated by the model); the plans it
    made are returned as arrangements (the mind plans around them)."""
    other = c.other(m.name)
    m.social.last_talked[other] = now
    m.social.last_conversation = now
    m.social.known_people.add(other)
    if not c.lines:
        return []
    remember_guests(m, c, now)
    if m.grounded:
        remember_heard(m, c, now)
        summary, importance = memo(m, c)
        src = pv.tag(pv.RULE, f"{gr.GROUNDED}: the memo of what was told")
        m.remember("chat", f"conversed with {other} about {summary}", importance, subject=m.name,
                   predicate="conversed with", object=other, source=src, rate=True,
                   importance_source=pv.UNRATED)
        m.today.chats.append(f"with {other}: {summary}")
        return agreements(m, c, now)
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
        a = arrangement_from(m, got, now, other, dict(zip(labels, arenas)), c.transcript())
        return [a] if a is not None else []
    return []


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
    addr = resolve.get(got.place) if got.place else None
    made = f"agreed with {other} on {now:%A %B %d}"
    a = checked_arrangement(m, now, start, int(got.minutes or 60), got.activity, addr, made, pv.MODEL)
    if a is None:
        return None
    said = transcript.lower()
    hour12 = f"{h % 12 or 12}"
    grounded = a.address.split(":")[1].lower() in said or re.search(
        rf"\b({got.start}|{hour12}(:{mm:02d})?\s*(am|pm|o'clock|in the)|{hour12}\s*(-|to)\s*\d)", said)
    if not grounded:
        m.rejected["arrangement"] += 1
        return None
    return a


def take_arrangement(m: Talker, arrangement: Arrangement, other: str) -> None:
    """A plan made in conversation: for later today, the rest of the day is
    rewritten around it (by the model in the paper's mode); for another day it is
    kept, and remembered as a planning thought."""
    a, today = arrangement, m.today
    first = m.persona.first_name
    until = a.start + timedelta(minutes=a.minutes)
    thought = (f"{first}'s plan for {a.start:%A %B %d} at {a.start:%H:%M}-{until:%H:%M}: {a.description} at "
               f"{m.spatial.label(a.address)} ({a.made})")
    m.remember("plan", thought, 6, subject=m.name, source=a.source, rate=True,
               importance_source=pv.UNRATED)
    # Kept for today too: every replan, reaction or later plan of the day cuts it in again
    # (a yes cut into the plan once was lost to the next replan)
    today.arrangements.append(a)
    if a.start.date() == m.now.date() and today.planned_for == m.now.date():
        if m.guided:
            today.plan = keep_arrangements(today.plan, [a], m.now)
        else:
            today.plan = replan_rest(
                m, m.now, f"{first} just agreed with {other}: {a.description} at "
                f"{m.spatial.label(a.address)} from {a.start:%H:%M} for {a.minutes} minutes.")
            today.plan = keep_arrangements(today.plan, [a], m.now)
        today.pending = []
    today.chats.append(f"arranged: {a.line()}")
