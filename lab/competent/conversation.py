"""The conversation tasks: whether to talk, what one knows of the other, the
next line (news and invitations passed on, invitations answered), and the
memo of a finished conversation with any arrangement it made."""
from __future__ import annotations

import re
import zlib

from lab.competent.happenings import EVENT_WORDS, MONTHS, NEWS_WORDS, find_happenings, label_for, today_of
from lab.competent.prompt import Prompt, clip_words, first_name, hhmm, minutes_of


def talk(p: Prompt) -> dict:
    """Friends and acquaintances are greeted more often than strangers; someone with news or
    an invitation to give (it is in the summary of their concerns) tells it to whoever it has
    not talked of it with (the memories about them do not mention it), and talks more."""
    other = p.find(r"\. ([A-Z][a-z]+ [A-Z][a-z]+) is nearby")
    doing = p.find(r"It is \d{2}:\d{2}\. \w+ is (.+?)\. ")
    mems = p.block(r"remembers about")
    acquainted = any(first_name(other) in x and not re.match(rf"{other} is ", x) for x in mems)
    news = EVENT_WORDS + r"|mayor|election"
    has_news = bool(re.search(news, p.text.split("\n", 1)[0], re.I))
    if re.search(r"\b(sleep|class|lecture|teaching|exam)\b", doing):
        return {"talk": False}
    if has_news and not any(re.search(news, x, re.I) and first_name(other) in x for x in mems):
        return {"talk": True}  # news they have not talked of with this one yet: a competent host tells it
    chance = 2 if has_news else (3 if acquainted else 6)  # one in N
    return {"talk": p.rng("talk") % chance == 0}


def relationship(p: Prompt) -> dict:
    me = p.find(r"what is ([A-Z][a-z]+ [A-Z][a-z]+)'s relationship") or "They"
    other = p.find(r"relationship with ([A-Z][a-z]+ [A-Z][a-z]+)")
    mems = [x for x in p.block(r"remembers:$") if other and first_name(other) in x]
    if not mems:
        return {"summary": f"{first_name(me)} does not know {other} well yet."}
    return {"summary": f"{first_name(me)} knows {other}: {clip_words(mems[0], 24)}"}


def _said(transcript: list[str]) -> str:
    return " ".join(transcript).lower()


def utterance(p: Prompt) -> dict:
    me = p.find(r"What does (\w+) say next")
    other = p.find(r"say next to ([A-Z][a-z]+ [A-Z][a-z]+)")
    other_first = first_name(other)
    lines = [x for x in p.text.split("Conversation so far:\n", 1)[-1].split("\n\nWhat does")[0].splitlines()
             if ": " in x]
    mine = [x for x in lines if x.startswith(me)]
    theirs = [x.split(": ", 1)[1] for x in lines if not x.startswith(me)]
    said = _said(lines)
    mems = p.block(r"remembers:$")
    today = today_of(p)
    now = minutes_of(p.find(r"It is (\d{2}:\d{2})", "00:00"))
    news = [h for h in find_happenings(mems)
            if (h.month_day is None or today is None or h.month_day > today)
            or (h.month_day == today and h.start is not None and h.start > now)]
    # News the partner does not know yet (no memory of telling them, not said in this talk),
    # the most precise first (the host's own plan, then day, time and place given).
    told = " ".join(x.lower() for x in mems if other_first.lower() in x.lower())
    fresh = [h for h in news if h.what.lower() not in said and h.what.lower() not in told]
    fresh.sort(key=lambda h: (not h.hosting, h.month_day is None, h.start is None, h.place is None))
    last = theirs[-1] if theirs else ""
    if re.search(r"(would you like to come|want to come|you should come|join us)", last, re.I):
        h = (find_happenings([last]) or [None])[0]
        details = f"{h.where()}{h.when()}" if h else ""
        # Not everyone can or wants to come (the paper: 5 of 12 invitees came); the same
        # person gives the same answer to the same event, however often invited.
        mood = zlib.crc32(f"{me}|{h.what if h else last}".encode()) % 5
        if mood < 2:
            return {"utterance": f"I'd love to come! I'll be there{details}.", "ends": False}
        if mood < 4:
            return {"utterance": "That sounds lovely, but I'm not sure I can make it. I'll see.", "ends": False}
        return {"utterance": "Thanks, but I already have plans then.", "ends": False}
    head = p.text.split("\n", 1)[0]  # the speaker's summary: its current concerns
    mayoral = [x for x in mems + [head] if re.search(r"\b(running for|run for) mayor\b|\bcandida|\belection\b", x,
                                                      re.I) and "mayor" not in said and "mayor" not in told]
    own = next((m for g in mayoral for m in [re.search(r"\bI (?:have decided|decided|am going) to (run for [^;.,]+)", g)
                                             or re.search(rf"\b{me} has decided on (running for [^;.,]+)", g)] if m),
               None)
    who = next((m.group(1) for g in mayoral for m in [re.search(
        r"([A-Z][a-z]+ [A-Z][a-z]+) (?:is|has decided to|decided to|will be) (?:running|run)", g)]
        if m and first_name(m.group(1)) != other_first), None)

    def share() -> dict | None:
        """The news worth telling, one's own first (a sensible person leads with it)."""
        if own:
            run = re.sub(r"^running", "run", own.group(1))
            return {"utterance": f"I have some news: I've decided to {run}.", "ends": False}
        if fresh:
            h = fresh[0]
            if h.hosting:
                return {"utterance": f"I'm hosting a {h.what}{h.where()}{h.when()}. Would you like to come?",
                        "ends": False}
            host = f" {h.host} is hosting it." if h.host and first_name(h.host) != other_first else ""
            return {"utterance": f"Have you heard? There's a {h.what}{h.where()}{h.when()}.{host} You should come!",
                    "ends": False}
        if who:
            return {"utterance": f"Did you know {who} is running for mayor?", "ends": False}
        return None

    if len(mine) >= 3 or len(lines) >= 7:
        return {"utterance": f"It was great talking with you, {other_first}. See you soon!", "ends": True}
    if re.search(r"I'd love to come|I'll be there|count me in", last, re.I):
        return share() or {"utterance": f"Wonderful! See you there, {other_first}.", "ends": True}
    if re.search(r"not sure I can make it|already have plans", last, re.I):
        return share() or {"utterance": f"No worries, {other_first}. Come by if you can!", "ends": True}
    if len(mine) >= 2:
        return {"utterance": f"It was great talking with you, {other_first}. See you soon!", "ends": True}
    news_now = share()
    if news_now:
        return news_now
    if not lines:
        return {"utterance": f"Hi {other_first}! How are you doing today?", "ends": False}
    if re.search(r"running for mayor|decided to run", last, re.I):
        return {"utterance": "That's big news! I'll think about my vote.", "ends": False}
    if re.search(r"how are you|how's it going", last, re.I):
        doing = p.find(r"\. \w+ is (.+?); ", "keeping busy")
        return {"utterance": f"I'm doing well, thanks! I'm {doing}.", "ends": False}
    if re.search(r"^I'm doing well", last):
        return {"utterance": f"Glad to hear it, {other_first}. I'd better get back to it. Talk later!", "ends": True}
    return {"utterance": f"That's good to hear, {other_first}.", "ends": len(lines) >= 3}


def _third_person(sentence: str, speaker: str) -> str:
    """A speaker's line as a memo: "I'm hosting ..." -> "Ann Baker is hosting ..."."""
    s = sentence.strip()
    s = re.sub(r"\bI'm\b|\bI am\b", f"{speaker} is", s)
    s = re.sub(r"\bI've\b|\bI have\b", f"{speaker} has", s)
    s = re.sub(r"\bI\b", speaker, s)
    s = re.sub(r"\bmy\b", "their", s)
    return s


def chat_summary(p: Prompt) -> dict:
    me = p.find(r"what did (\w+) learn")
    other = p.find(r"Conversation between [A-Z][a-z]+ [A-Z][a-z]+ and ([A-Z][a-z]+ [A-Z][a-z]+):")
    lines = [x for x in p.text.split("Conversation between", 1)[-1].splitlines()[1:] if ": " in x]
    lines = lines[: next((i for i, x in enumerate(lines) if x.startswith("1. ")), len(lines))]
    theirs = [x.split(": ", 1)[1] for x in lines if x.startswith(other)]
    mine = [x.split(": ", 1)[1] for x in lines if not x.startswith(other)]
    events = find_happenings(theirs + mine)
    news = [s for s in theirs if re.search(NEWS_WORDS, s, re.I) and not re.search(EVENT_WORDS, s, re.I)]
    mine_news = [s for s in mine if re.search(NEWS_WORDS, s, re.I) and not re.search(EVENT_WORDS, s, re.I)]
    told = [s for s in mine if re.search(EVENT_WORDS, s, re.I)]
    coming = any(re.search(r"I'd love to come|I'll be there|count me in", s, re.I) for s in theirs)
    parts, importance = [], 2  # a memo keeps every topic: the party and the election may come up together
    if events:
        h = events[0]
        host = other if any(re.search(r"I'm hosting|I am hosting", s) for s in theirs) else (
            me if any(re.search(r"I'm hosting|I am hosting", s) for s in mine) else h.host)
        topic = f"the {h.what}" + (f" {host} is hosting" if host else "") + f"{h.where()}{h.when()}"
        if told:
            parts.append(f"{topic}; {me} invited {other}" + (f", and {other} will come" if coming else ""))
        else:
            parts.append(f"{topic}; {other} invited {me}" if re.search(r"come|join", " ".join(theirs), re.I)
                         else topic)
        importance = 7
    for line, who in [(x, other) for x in news[:1]] + [(x, me) for x in mine_news[:1]]:
        sentence = next((x for x in re.split(r"(?<=[.!?])\s+", line) if re.search(NEWS_WORDS, x, re.I)), line)
        parts.append(_third_person(re.sub(r"^I have some news:\s*", "", sentence), who))
        importance = max(importance, 7 if re.search(r"mayor|election|candida", line, re.I) else 5)
    summary = "; ".join(parts) or f"how {me} and {other} are doing"
    out: dict = {"summary": summary[:158], "importance": importance, "plans": False}
    accepted = any(re.search(r"I'd love to come|I'll be there|count me in|I will come", s, re.I) for s in mine)
    hosting = any(re.search(r"I'm hosting|I am hosting", s) for s in mine)
    if events and (accepted or hosting):
        h = events[0]
        days = p.enum("day")
        day = next((d for d in days
                    if (h.month_day and d.endswith(f"{MONTHS[h.month_day[0] - 1]} {h.month_day[1]:02d}"))
                    or (h.month_day and d.endswith(f"{MONTHS[h.month_day[0] - 1]} {h.month_day[1]}"))), None)
        labels = p.enum("place")
        place = label_for(h.place, labels)
        hours = p.enum("start")
        start = hhmm(h.start) if h.start is not None else None
        if day and place and start in hours:
            minutes = (h.end - h.start) if h.end else 120
            allowed = [int(x) for x in p.enum("minutes")] or [120]
            out.update(plans=True, day=day, start=start, minutes=min(allowed, key=lambda x: abs(x - minutes)),
                       activity=clip_words(f"{'hosting' if hosting else 'attending'} the {h.what}", 8), place=place)
    return out
