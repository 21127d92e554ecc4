"""How the speaker takes up what was said, and what it asks: a reaction that names the line
before and adds to it (``react``, ``related``: one's own plan or memory on the same topic;
``topic_of`` finds what a line is about), a question not asked yet in this talk (``ask``), and
a follow-up on what the listener told in an earlier one (``follow_up``); with the builders that
offer them each turn (agents/talk/acts.py ``offered``)."""
from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from agents.planning.arrangements import keywords_overlap
from agents.recall import grounding as gr
from agents.recall.memory import MemoryNode
from agents.support.types import Conversation, Utterance
from agents.talk import wording as wd
from agents.talk.acts import ACCEPT, ANSWER, ASK, DECLINE, FOLLOW_UP, HEARD, REACT, Act, Option, act_and_note, offered
from agents.talk.answers import CO_HOSTING, empty_answer
from agents.talk.knowing import (
    PLACE_WORDS,
    SECRET,
    Known,
    Turn,
    common_doing,
    converse_words,
    fact_of,
    gr_names,
    own_description,
    plan_today,
    quotes_you,
    same_news,
    told_to,
    unsayable,
)
from agents.talk.speaker import Talker
from agents.words import activity
from agents.words import dated as dt

# What one does not ask someone about, seen doing it
_PRIVATE = re.compile(r"\b(toilet|bathroom|shower\w*|bath|washing up|brushing (?:my |his |her )?teeth|undress\w*)\b",
                      re.I)


def react(v: wd.Voice, last: Utterance, last_act: Act | None, now: datetime, turn: int,
          hosting: frozenset[str] = frozenset(), known: list[Known] | tuple[Known, ...] = ()) -> Option:
    """A reaction that names what was just said in a word or two and adds to it, a question
    mostly ("A party! Who else is coming?"), or answers an acceptance or a refusal. It does not
    say the line back with "?": 8% of a run's lines did ("Tom, you're having breakfast today?
    I didn't know that about you.")."""
    f = v.first
    if last_act is ACCEPT and act_and_note(last)[1] == CO_HOSTING:  # the other hosts it too (answers.py)
        return Option(REACT, v.pick((f"Wonderful, {f}! We'll do it together, then.",
                                     f"{f}, even better! We'll host it together.",
                                     f"Perfect, {f}! Two hosts will make it twice the fun."), "react", "cohost", turn),
                      note="the acceptance as a host too")
    if last_act is ACCEPT:
        return Option(REACT, v.pick((f"Wonderful, {f}! I'm so glad you can come.", f"{f}, I'm so glad! See you there.",
                                     f"{f}, that makes me happy. See you then!"), "react", "accepted", turn),
                      note="the acceptance")
    if last_act is DECLINE:
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
        hosts = ev.host == last.speaker
        kind = ("going" if mine is not None and mine.going else ("heard-hosted" if hosts else "heard") if tellers
                else "hosted" if hosts else "event")
        teller = tellers[0].split()[0] if tellers else ""
        return Option(REACT, wd.reaction(v, _event_word(ev.what), kind, turn, teller), note="the line before")
    sad = bool(wd._SAD.search(wd.first_clause(last.text)))
    topic = topic_of(last.text, v.my_first)
    doing = bool(topic) and (last_act == ANSWER or bool(re.search(r"\bI(?:'m| am)\b", last.text))) \
        and bool(_GERUND_TOPIC.search(last.text))
    kind = "sad" if sad else "doing" if doing else "news"
    if doing and re.search(r"\b(?:hosting|attending|going to)\s+(?:the |a |an )?" + re.escape(topic), last.text):
        kind = "hosted" if re.search(r"\bhosting\b", last.text) else "event"  # a gathering, not a chore
    elif kind == "doing" and _NEXT_TOLD.search(last.text):
        kind = "day told"
    return Option(REACT, wd.reaction(v, topic, kind, turn), note="the line before")


# "...; at 12 pm I'm having lunch at Hobbs Cafe": the day told, what is next in it
_NEXT_TOLD = re.compile(r"\bat \d{1,2}(?::\d\d)? ?[ap]m I(?:'m| am| will|'ll)\b", re.I)


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
        if PLACE_WORDS.intersection(run.split()):
            return run
    names = gr_names(clause)
    return names[0].split()[0] if names else ""


_BEFORE_DOING = {"i'm", "am", "be", "been", "was", "were", "is", "are", "still", "just", "you're", "we're", "and",
                 "now", "busy", "enjoy", "enjoying", "love", "like", "started", "keep", "finished"}


def _places(text: str) -> list[str]:
    """The places a line names ("Hobbs Cafe", "The Rose and Crown Pub" as "Rose and Crown Pub")."""
    return [p for p in re.findall(r"\b[A-Z][a-z]+(?:\s+(?:and\s+)?[A-Z][a-z]+)+\b", text or "")
            if PLACE_WORDS.intersection(p.split())]


def related(m: Talker, v: wd.Voice, c: Conversation, last: Utterance, now: datetime, turn: int,
            nodes: list[MemoryNode]) -> Option | None:
    """A reaction with something of one's own on the same place, person or event: one's plan
    there later today ("Oh, Hobbs Cafe! I'll be there myself at 12 pm, having lunch."), else a
    memory naming it (no tally, no secret, no description of oneself, nothing the listener told)."""
    places = _places(last.text)
    ev = dt.parse(last.text, now, teller=last.speaker)
    if ev is not None:
        places = [ev.place] + places
    for place in places:
        for item in plan_today(m, now):
            names = [n.lower() for n in item.address.split(":")[1:3]]  # the place and its room by name
            if item.start <= now or item.start.date() != now.date() or place.lower() not in names or item.sleep:
                continue  # not the dorm for "Oak Hill College", nor one's bed: "I'll be there myself, sleeping"
            d = item.description
            if not activity.is_gerund(d.split()[0]) or (ev is not None and keywords_overlap(d, ev.what)):
                continue  # the same event: "going" says so
            d = re.sub(rf"\s+(?:at|in) (?:the )?{re.escape(place)}$", "", d)
            said = f"I'll be there myself at {dt.clock(item.start.hour * 60 + item.start.minute)}, {d}."
            return Option(REACT, wd.related(v, place, said, turn), topic=f"plan:{item.start:%H:%M}",
                          note="today's plan")
    people = [n for n in gr_names(last.text) if n not in (m.name, v.other)]
    keys = [k for k in places + people + ([ev.what] if ev is not None else []) if k]
    said_here = " ".join(u.text for u in c.lines)
    for x in sorted(nodes, key=lambda x: -x.importance):
        d = x.description
        key = next((k for k in keys if k in d), None)
        mem = m.memory
        if key is None or unsayable(x, now, v.other, mem) or own_description(x, mem) or quotes_you(d) \
                or dt.parse(d, now) is not None \
                or same_news(d.replace(key, ""), said_here) or f"mem:{x.id}" in told_to(m, v.other):
            continue  # not the news just told again (its name aside), nor what was told them before
        text = converse_words(gr.first_person(dt.past_days(d, now), m.name), v.other)
        if len(text.split()) > 22 or wd.fragment(text) or not re.match(r"^I\b", text):
            continue  # one's own memory, short: "I was at ...", "I know ..."
        topic = key.split()[0] if key in people else key if key in places else _event_word(key)
        return Option(REACT, wd.related(v, topic, text.rstrip(".") + ".", turn), fact_of(x), f"mem:{x.id}")
    return None


# A meal, a drink or a coffee is no pursuit to ask after ("you told me yesterday you were cooking
# breakfast. How did it go?", asked twice in a day of a 25-resident week)
_REFRESHMENT = re.compile(r"\b(breakfast|lunch|dinner|brunch|snack|meal|drink|drinks|coffee|tea|eating|drinking|"
                          r"sipping)\b", re.I)


def followed_up_on(day: date) -> str:
    """The mark, among what was told to a listener, of a follow-up asked of them that day."""
    return f"{FOLLOW_UP}day:{day.isoformat()}"


def follow_up(m: Talker, v: wd.Voice, c: Conversation, now: datetime, turn: int) -> Option | None:
    """A question on what the listener told in an earlier conversation ("Maria, you told me
    yesterday about the party. How did it go?"): an event it told of, or what it said it was
    doing; once a conversation."""
    if any(act_and_note(u)[1].startswith(FOLLOW_UP) for u in c.lines):
        return None
    asked = m.social.told.get(v.other, [])  # what was asked after in an earlier talk is not asked again
    if followed_up_on(now.date()) in asked:
        return None  # one a day of each listener (a pair asked three in a day, of different things)
    chats = m.memory.by_kind("chat")
    for x in sorted(chats, key=lambda x: -x.id)[:40]:
        made = x.created
        if f"{FOLLOW_UP}mem:{x.id}" in asked:
            continue
        if x.subject != v.other or x.predicate != "told" or not isinstance(made, datetime) \
                or made >= c.started - timedelta(minutes=30) or now - made > timedelta(days=3):
            continue
        q = re.search(r'told \w+: "(.*)"$', x.description)
        said = q.group(1) if q else ""
        if not said or "?" in said or SECRET.search(said):
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
            return Option(ASK, text, fact_of(x), f"{FOLLOW_UP}{'over' if over else 'on'}")
        doing = re.search(r"\bI(?:'m| am)\s+(\w+ing\b(?:\s+(?!at\b|today\b|this\b|now\b)[a-z]+){0,3})", said)
        if doing and activity.is_gerund(doing.group(1).split()[0]) and when != "earlier" \
                and not _PRIVATE.search(doing.group(1)) and not _REFRESHMENT.search(doing.group(1)) \
                and not common_doing(doing.group(1)) \
                and doing.group(1).split()[0] != "doing":  # "I'm doing all right" is no pursuit
            text = wd.follow_up(v, f"you were {wd.in_your_words(doing.group(1))}", when, turn)
            if not wd.fragment(text):
                return Option(ASK, text, fact_of(x), f"{FOLLOW_UP}over")
    return None


def ask(m: Talker, v: wd.Voice, lines: list[Utterance], turn: int, nodes: list[MemoryNode],
        partner_doing: str = "", place: str = "") -> Option | None:
    """One question not asked yet in this conversation: its day (about what the other was seen
    doing), what a stranger does, what both share (someone both know, the public place both are
    at), its plans."""
    asked = {note.split(":")[0] for act, note in map(act_and_note, lines) if act is ASK}
    for topic in ("day", "you", "person", "place", "plans"):
        if topic == "place":
            theirs = [u.text for u in lines if u.speaker == v.other]
            if any(_AT_WORK.search(t) for t in [partner_doing, *theirs]):
                continue  # not "do you come to The Rose and Crown Pub often?" to the one running it
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


# Working where both are: the place is no question to them
_AT_WORK = re.compile(r"\b(running|working|serving|tending|teaching|managing|restocking|brewing|opening|closing)\b",
                      re.I)


def _askable(doing: str) -> bool:
    """What the other was seen doing is worth asking about: an activity, not a walk or the talk."""
    first = doing.split()[0].lower() if doing.split() else ""
    return (activity.is_gerund(first) and first not in ("chatting", "talking", "conversing", "walking", "going",
                                                        "heading", "sleeping", "waiting", "idling")
            and not _PRIVATE.search(doing)  # "How is using the toilet going?"
            and not _REFRESHMENT.search(doing))  # "How is having a drink at the bar going?"


def _public_place(m: Talker, c: Conversation) -> str:
    """The public place the two talk at ("Hobbs Cafe"), or "" (a home, a dorm, the street)."""
    parts = c.address.split(":")
    sector = parts[1] if len(parts) > 1 else ""
    public = PLACE_WORDS - {"House", "Apartment", "Dorm", "Hall", "Street", "Square"}
    if not public.intersection(sector.split()) or any(n.split()[-1] in sector for n in c.participants):
        return ""
    return sector


def shared_acquaintance(m: Talker, other: str, nodes: list[MemoryNode]) -> str | None:
    """Someone the speaker's memories name together with the listener, or that both its
    description and known people hold (not either of them)."""
    firsts = {m.name.split()[0], other.split()[0]}
    for x in sorted(nodes, key=lambda x: -x.importance):
        if other.split()[0] not in x.description or SECRET.search(x.description):
            continue
        for name in gr_names(x.description):
            if name.split()[0] not in firsts and (name in m.social.known_people
                                                  or name in gr_names(m.persona.description)):
                return name
    for name in gr_names(m.persona.description):
        if name.split()[0] not in firsts and name in m.social.known_people:
            return name
    return None



# ---------------------------------------------------------------------------- when each is offered

@offered(REACT)
def _reactions(t: Turn) -> list[Option]:
    """After news, an answer, a yes or a no (not an answer that said there was nothing, nor
    one to a follow-up): a reaction; after news or an answer, one's own on the same topic too."""
    last, act = t.last, t.last_act
    if last is None or act is None or not act.reacted_to or empty_answer(last) or t.last_topic.startswith(FOLLOW_UP):
        return []
    hosted = frozenset(k.event.key for k in t.known if k.hosting)
    opts = [react(t.v, last, act, t.now, t.turn, hosted, t.known)]
    if act.leaves == HEARD:
        opts += [o for o in [related(t.m, t.v, t.c, last, t.now, t.turn, t.nodes)] if o]
    return opts


@offered(ASK)
def _questions(t: Turn) -> list[Option]:
    """A follow-up on an earlier talk, and a question not asked yet."""
    return [o for o in [follow_up(t.m, t.v, t.c, t.now, t.turn),
                        ask(t.m, t.v, t.lines, t.turn, t.nodes, t.partner_doing, _public_place(t.m, t.c))] if o]


__all__ = ["ask", "follow_up", "react", "related", "shared_acquaintance", "topic_of"]
