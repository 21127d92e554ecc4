"""Questions from outside the town, and the evaluation's model judge.

A question put to a resident (an interview's, a visitor's) answered from everything
the respond prompt (agents/prompts/respond.txt) holds, as a capable model would:
who the resident is ("About you: ..."), what it is doing now, what it remembers (its
day's plan among them) and the conversation so far. Each part becomes a sentence in
the resident's own words; the one that speaks most of what the question asks
answers it, and the next best adds to it. What the prompt does not hold is not made
up: a question about someone or something it never mentions is answered "I haven't
heard ...", and a question of common sense (a fire, an empty fridge) by common sense.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from lab.competent.happenings import TIME_RE, find_happenings
from lab.competent.prompt import (
    Prompt,
    clip_words,
    clock_minutes,
    first_name,
    in_my_words,
    minutes_of,
    overlap,
    pretty_time,
    stems,
    tokens,
    topics,
)

MAX_WORDS = 40  # an answer of one or two sentences, as the prompt asks
# What one says one does when the day has no plan (the interview of a mind without one)
NO_PLAN = "going about the day"
_EVENTS = r"party|celebration|gathering|concert|festival|wedding|election|mayor|candida|campaign|meeting"
# The topics (prompt.SYNONYMS) of questions about what happened: talks, meetings
_HAPPENED = {"talk", "met"}
_PRIORITY = {"about": 0, "lately": 1, "heard": 2, "memory": 3, "plan": 4, "now": 5}


@dataclass
class Piece:
    """One thing the prompt says, as the resident would say it."""

    text: str
    source: str  # about (the summary), lately (its recent part), memory, plan, now, heard
    match: str  # the words weighed against the question

    def score(self, question: str, focus: list[str]) -> float:
        if focus and not any(f in self.match.lower() for f in focus):
            return 0.0  # a question about someone or something: only what speaks of it answers
        s = overlap(question, self.match)
        if self.text.startswith("Earlier I was"):  # one's own doings, seen: the least telling
            return s - 1.0
        return s - 0.5 if self.text.startswith("Earlier I saw") else s  # what one knows of them comes first


@dataclass
class Asked:
    """The respond prompt, read."""

    me: str
    age: str
    speaker: str
    question: str
    now: int | None  # minutes after midnight
    pieces: list[Piece]
    plan: list[tuple[int, int, str]]  # the day's plan, if the prompt holds it: (start, end, what)
    doing: str  # what the resident is doing now ("" when the prompt does not say)


def read(p: Prompt) -> Asked:
    """The parts of the respond prompt, each as the resident would say it."""
    me = p.find(r"^You are ([^,]+),", "", re.M)
    age = p.find(r"^You are [^,]+, (\d+),", "", re.M)
    traits = p.find(r"^You are [^,]+, \d+, (.*?)\. About you:", "", re.M)
    said = re.findall(r'^(.+?) says: "(.*)"\s*$', p.text, re.M)
    speaker, question = said[-1] if said else ("", "")
    now = p.find(r"It is (\d{1,2}:\d{2}) on")
    pieces = _about(p.find(r"About you: (.*?)\nIt is ", "", re.S), me, traits)
    doing, place = "", ""
    m = re.search(r"and you are (.+) \(([^()]*)\)\.\s*$", p.text, re.M)
    if m and m.group(1) != NO_PLAN:
        doing, place = m.group(1).strip(), m.group(2).split(":")[0].strip().replace(f"{me}'s ", "my ")
        at = f" at {place}" if place and place != "somewhere in town" else ""
        pieces.append(Piece(f"Right now I'm {doing}{at}.", "now", f"doing now {doing}{at}"))
    plan: list[tuple[int, int, str]] = []
    for mem in p.block(r"^You remember:"):
        items = _plan_items(mem)
        if items:
            plan = plan or items
            said_plan = _plan_in_words(items)
            pieces.append(Piece(said_plan, "plan", "plan schedule day routine"))  # what a day holds, not a job
        else:
            pieces.append(_memory(mem, me))
    pieces += [Piece(f'{who} told me: "{clip_words(line, 25)}"', "heard", line)
               for who, line in _transcript(p) if who not in ("You", me)]
    return Asked(me, age, speaker, question, minutes_of(now) if now else None, pieces, plan, doing)


def _about(summary: str, me: str, traits: str) -> list[Piece]:
    """The summary's clauses, each a sentence of its own ("I run the bakery ...")."""
    first = first_name(me)
    out = []
    text = " ".join(summary.split())
    lately = ""
    if "Lately:" in text:
        text, lately = text.split("Lately:", 1)
    for part in re.split(r"(?<=[.;])\s+", text):
        part = part.strip(" .;")
        if not part or ", age " in part or part == traits.strip(" ."):
            continue
        out.append(Piece(in_my_words(part, me), "about", f"yourself {part}"))
    # "Ann is busy with what Ann does: runs the bakery ... and is looking forward to ..."
    lately = re.sub(rf"\b{re.escape(first)} is busy with what {re.escape(first)} does:\s*", f"{first} ", lately)
    for part in re.split(r"(?<=[.;])\s+|,? and (?=is |has )", lately.strip()):
        part = part.strip(" .;")
        if not part:
            continue
        if not re.match(rf"({re.escape(me)}|{re.escape(first)}|she|he|I)\b", part):
            part = f"{first} {part}"
        said = in_my_words(part, me)
        if not any(said.rstrip(".") in x.text for x in out):
            out.append(Piece(said, "lately", f"yourself lately {part}"))
    return out


def _memory(mem: str, me: str) -> Piece:
    first = first_name(me)
    m = re.match(r"^([A-Z][a-z]+ [A-Z][a-z]+) is (\w+ing\b.*)$", mem)
    if m and m.group(1) == me:
        return Piece(f"Earlier I was {m.group(2)}.", "memory", f"Earlier I was {m.group(2)}")
    if m:
        return Piece(f"Earlier I saw {m.group(1)} {m.group(2)}.", "memory", mem)
    if re.match(r"^(conversed|talked|chatted) with", mem):
        mem = f"{first} {mem.replace('conversed with', 'talked with', 1)}"
    # an arrangement: "X's plan for Tuesday February 14 at 17:00-19:00: hosting the party at Town Bakery:shop
    # (agreed with Y on Monday February 13)"
    arranged = re.match(r"^.+?'s plan for (\w+ \w+ \d+) at (\d{1,2}:\d{2})-(\d{1,2}:\d{2}): (.+?)(?: \((.+)\))?$",
                        mem)
    if arranged:
        day, start, end, what, why = arranged.groups()
        what = re.sub(r"(\b[A-Z][\w' ]*?):[\w' ]+", r"\1", what)  # "Town Bakery:shop" -> "Town Bakery"
        because = in_my_words(why, me).rstrip(".") if why else ""
        said = (f"On {day} from {pretty_time(minutes_of(start))} to {pretty_time(minutes_of(end))} I'll be {what}"
                + (f", as {because[0].lower()}{because[1:]}" if because else "") + ".")
        return Piece(said, "memory", mem)
    # "the party Ann is hosting": the resident itself, in the middle of a sentence
    mem = re.sub(rf"\b{re.escape(first)} (is|was|has)\b", lambda m: {"is": "I am", "was": "I was", "has": "I have"}[
        m.group(1)], mem)
    return Piece(in_my_words(mem, me), "memory", mem)


def _transcript(p: Prompt) -> list[tuple[str, str]]:
    m = re.search(r"Your conversation with .+? so far:\n(.*?)(?:\n\s*\n|\nThe person talking)", p.text, re.S)
    if not m:
        return []
    return [(a.strip(), b.strip()) for a, b in re.findall(r"^([^:\n]+): (.+)$", m.group(1), re.M)]


def _plan_items(mem: str) -> list[tuple[int, int, str]]:
    """"X's plan for Monday February 13: 06:00-06:30 waking up; ..." -> [(360, 390, "waking up"), ...]."""
    if not re.search(r"'s plan for [^:]+:", mem):
        return []
    body = mem.split(":", 1)[1]
    return [(minutes_of(a), minutes_of(b), what.strip(" .")) for a, b, what in
            re.findall(r"(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s+([^;]+)", body)]


def _plan_in_words(items: list[tuple[int, int, str]]) -> str:
    seen, parts = set(), []
    for start, _end, what in items:
        if what in seen or re.search(r"\b(bed|sleep)", what):
            continue
        seen.add(what)
        parts.append(f"{what} at {pretty_time(start)}")
    parts = parts[:5]
    if len(parts) > 1:
        parts[-1] = "and " + parts[-1]
    return f"My day: {', '.join(parts)}." if parts else ""


def _at(items: list[tuple[int, int, str]], t: int, finished: bool) -> int | None:
    """The index of the plan's item under way at ``t`` (or just finished by then)."""
    if finished:
        done = [i for i, (_s, end, _w) in enumerate(items) if end == t] or [
            i for i, (_s, end, _w) in enumerate(items) if end < t]
        return done[-1] if done else None
    for i, (start, end, _what) in enumerate(items):
        if start <= t < end or (end < start and (t >= start or t < end)):  # 22:00-06:00 wraps past midnight
            return i
    return None


def _when(a: Asked) -> str | None:
    """A question about what one does at an hour, answered from the day's plan (or the
    time of day, without one)."""
    m = re.search(TIME_RE, a.question, re.I)
    if not m:
        return None
    t = clock_minutes(m.group(1), m.group(2), m.group(3))
    q = a.question.lower()
    finished = bool(re.search(r"\b(finish|finished|done with|just)\b", q))
    tomorrow = "tomorrow" in q
    hour = pretty_time(t)
    i = _at(a.plan, t, finished) if a.plan else None
    if i is None:
        if t < 7 * 60 or t >= 22 * 60:
            what = "at home, asleep or getting ready for bed" if t >= 22 * 60 else "just waking up at home"
            return f"At {hour} I'm usually {what}."
        work = next((x.text for x in a.pieces if x.source == "about" and "work" in topics(x.match)), "")
        return f"At {hour} I'm most likely busy with my usual day{': ' + work if work else '.'}"
    start, _end, what = a.plan[i]
    if t != start and re.search(r"\b(bed|sleep)", what):
        what = "asleep"
    # and what comes next in the plan, as one tells one's day
    after = next(((s, w) for s, _e, w in a.plan[i + 1:] if w != what and not re.search(r"\b(bed|sleep)", w)), None)
    then = f", then {after[1]} at {pretty_time(after[0])}" if after and not finished else ""
    if tomorrow:
        return f"Tomorrow at {hour} I'll probably be {what}, as I was today{then}."
    past = a.now is not None and t <= a.now
    if finished:
        return f"At {hour} I had just finished {what}." if past else f"By {hour} I'll have just finished {what}."
    return f"At {hour} today I was {what}{then}." if past else f"At {hour} I'll be {what}{then}."


# Common sense about a situation put to one (the paper's "reactions"): what anyone would do.
_SITUATIONS = [
    (r"\bfire\b.*\b(street|outside|road|building|town)\b|\b(street|outside|road|building)\b.*\bfire\b",
     "I'd call the fire department right away and keep people back from it"),
    (r"burn|smok|on fire", "I'd turn off the stove, take the pan off the heat and open a window"),
    (r"occupied|in use|\btaken\b", "I'd knock, wait a few minutes for my turn"),
    (r"empty|ran out|run out|out of food", "I'd go out and buy groceries"),
    (r"leak|flood", "I'd turn off the water and call someone to fix it"),
    (r"\bfriend\b", "I'd wave, say hi and stop for a chat"),
]


def _situation(a: Asked) -> str | None:
    q = a.question.lower()
    act = next((do for rx, do in _SITUATIONS if re.search(rx, q)), None)
    if act is None:
        return None
    news = [h for x in a.pieces if x.source in ("about", "lately", "memory", "heard")
            for h in find_happenings([x.match])]
    if "friend" in q and news:
        h = news[0]
        return f"{act}, and ask if they're coming to the {h.what}{h.where()}{h.when()}."
    return f"{act}, then get back to {a.doing}." if a.doing else f"{act}."


def _focus(a: Asked) -> list[str]:
    """What the question is about that an answer must speak of: people it names, events."""
    names = [n for n in re.findall(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b", a.question) if n != a.me]
    if names:
        return [n.lower() for n in names]
    return [w.lower() for w in re.findall(rf"\b(?:{_EVENTS})\w*", a.question, re.I)]


def answer_question(p: Prompt) -> str:
    """The answer: a time asked about, from the plan; a situation, by common sense and
    what one was doing; then the parts of the prompt that speak most of the question,
    best first (two sentences; three, after one's name, for an introduction)."""
    a = read(p)
    if not a.question:
        return ""
    sp = first_name(a.speaker)
    direct = _when(a) or _situation(a)
    focus = _focus(a)
    scored = [(x.score(a.question, focus), i, x) for i, x in enumerate(a.pieces)]
    ranked = [x for s, _i, x in sorted(scored, key=lambda t: (-t[0], _PRIORITY[t[2].source], t[1])) if s >= 1]
    said: list[str] = [direct] if direct else []
    intro = "self" in topics(a.question) and not focus  # "introduce yourself": who one is, in three sentences
    best = max((s for s, _i, _x in scored), default=0.0)
    for x in ranked:
        if len(said) >= (3 if intro else 2):
            break
        if said and x.score(a.question, focus) < best / 2:  # a second sentence must speak to the question too
            break
        if any(stems(x.text) <= stems(s) or stems(s) <= stems(x.text) for s in said):
            continue
        if said and len(" ".join(said + [x.text]).split()) > MAX_WORDS:  # a few sentences, not a recital
            continue
        seen = re.match(r"Earlier I saw [A-Z][a-z]+ [A-Z][a-z]+", x.text)
        if seen and any(s.startswith(seen.group(0)) for s in said):  # one sighting of someone is enough
            continue
        said.append(x.text)
    if intro:
        said.insert(0, f"I'm {a.me}" + (f", {a.age}." if a.age else "."))
    if not said:
        if focus:
            return f"I haven't heard anything about {_focus_words(a)}, {sp}."
        fallback = next((x.text for x in a.pieces if x.source == "lately"), None) or next(
            (x.text for x in a.pieces if x.source in ("about", "now")), None)
        greeting = re.match(r"\s*(hi|hello|hey|good (morning|afternoon|evening))\b", a.question, re.I)
        lead = f"Hi {sp}! " if greeting else ""
        if not lead and topics(a.question) & _HAPPENED:  # what happened to one: the prompt shows nothing
            return f"Nothing special comes to mind, {sp}."
        return lead + (fallback or "It's been an ordinary day for me.")
    return " ".join(clip_words(s, MAX_WORDS).rstrip(".") + "." for s in said)


def _focus_words(a: Asked) -> str:
    """What the question asks about, as it says it: a name, "the Spring Fair party"."""
    names = [n for n in re.findall(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b", a.question) if n != a.me]
    if names:
        return names[0]
    m = re.search(rf"(?:[A-Z][\w']*\s+)*(?:{_EVENTS})\w*", a.question)
    return f"the {m.group(0)}" if m else "that"


def answer(p: Prompt) -> dict:
    """A visitor's or an interviewer's question, answered from everything the prompt holds
    (``answer_question``)."""
    return {"answer": answer_question(p) or "Hello!"}


_STOP = {"what", "your", "with", "about", "have", "does", "this", "that", "from", "they", "there", "would", "tell"}


def choose(p: Prompt) -> dict:
    """The grounded mode's chooser (agents/recall/grounding.py): the numbered fact that shares the
    most words with the question, else the first (the list comes most relevant first, and
    only facts relevant enough are listed); asked what to tell someone, the first (most
    important first)."""
    facts = p.numbered()
    question = p.find(r'asks: "(.*)"', "")
    if not facts:
        return {"fact": "none"}
    if question.startswith("What would you tell"):
        return {"fact": "1"}
    words = {w for w in re.findall(r"[a-z]+", question.lower()) if len(w) > 3} - _STOP
    hits = [len(words & set(re.findall(r"[a-z]+", f.lower()))) for f in facts]
    best = max(range(len(facts)), key=lambda i: hits[i])
    return {"fact": str(best + 1)} if hits[best] > 0 else {"fact": "1"}


def judge(p: Prompt) -> dict:
    fact = p.find(r"The fact: (.+?)\.\n")
    said = p.find(r'answered: "(.*)"', "")
    words = {w for w in re.findall(r"[a-z]+", fact.lower()) if len(w) > 3}
    hit = len(words & set(re.findall(r"[a-z]+", said.lower())))
    return {"knows": hit >= 2 and not re.search(r"don't know|not sure|no idea", said, re.I)}


# Ways of not answering: a denial, a polite dodge, nothing heard
NON_ANSWER = (r"don't know|not sure|no idea|have to think|couldn't say|what's on your mind|haven't heard|"
              r"nothing special comes to mind")


HEDGE = r"\b(most likely|probably|usually|i guess|maybe|perhaps)\b"


def rank(p: Prompt) -> dict:
    """The controlled evaluation's judge (lab/controlled/judge.py), as a careful reader
    ranks: an answer to what was asked (its words or their topic) first; then one that
    is specific (an hour, a name, a place: something the person would know) and fits
    who they are (shares something with their description; echoing it more adds
    nothing); a longer answer, to a few sentences, above a curt one; a denial or a
    polite non-answer last; a guess ("probably") below a plain answer. It sees only the
    question, the person and the answers."""
    who = p.find(r"Who they are: (.+)")
    question = p.find(r'They were asked: "(.*)"')
    answers = p.numbered()
    described = stems(who)

    def score(i: int) -> float:
        a = answers[i]
        n = len(tokens(a))
        fits = min(2, len(stems(a) & described))
        s = 2.0 * overlap(question, a) + fits + min(3, len(_specifics(a, question))) + min(n, 40) / 10
        if re.search(NON_ANSWER, a, re.I):
            s -= 10
        if re.search(HEDGE, a, re.I):  # a guess at what one should know
            s -= 1
        return s

    order = sorted(range(len(answers)), key=lambda i: (-score(i), i))
    return {"ranking": [i + 1 for i in order]}


def _specifics(answer: str, question: str) -> set[str]:
    """The hours and the names (people, places, events) an answer gives that the question did not."""
    hours = set(re.findall(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\b\d{1,2}:\d{2}\b", answer))
    names = {m for m in re.findall(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z']+(?: [A-Z][a-z']+)*", answer)
             if m not in ("I", "I'm", "I'd", "I'll") and m not in question}
    return hours - set(re.findall(r"\d{1,2}(?::\d{2})?\s*(?:am|pm)", question)) | names
