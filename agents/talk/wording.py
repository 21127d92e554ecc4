"""How a resident words a line in the grounded mode: the voice (first name or full,
warm or plain, from its traits and how well it knows the listener), several
phrasings per dialogue act picked by a seeded choice (the same run says the same
things; no randomness without the sim's seed), the news named back in the
listener's words, and the rule that tells a sentence from a fragment.

Every phrasing carries the listener's name or a fact (the news, the doing, the event,
the person asked about) in its first three words: a line whose first words are fixed
whatever is said ("At the moment I'm ...", "Goodbye for now, ...") is a canned opener,
and the evaluation counts them (lab/evaluate/dialogue.py). In a run of 866 lines with
fixed openers, 35% of lines began with a phrase used more than five times.

Nothing here calls a model: agents/talk/dialogue.py offers what this module words, and
the model chooses among them.
"""
from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

WARM_TRAITS = re.compile(r"\b(warm|friendly|sociable|cheerful|outgoing|kind|caring|gregarious|affectionate|"
                         r"bubbly|enthusiastic|generous|talkative|playful|charming)\b", re.I)
# Who the listener is to the speaker, read from the speaker's description.
CLOSE_WORDS = re.compile(r"\b(friend|friends|wife|husband|son|daughter|mother|father|partner|mentor|roommate|"
                         r"neighbour|neighbor|housemate|crush)\b", re.I)


@dataclass(frozen=True)
class Voice:
    """How one speaker addresses one listener in one conversation."""

    me: str  # the speaker's full name
    other: str  # the listener's full name
    known: bool  # they have met (first names) or not (the full name once, and an introduction)
    warm: bool  # warm traits or a close tie: warmer phrasings
    salt: str  # the sim's seed and the conversation: the seeded choice's key

    @property
    def first(self) -> str:
        return self.other.split()[0]

    @property
    def my_first(self) -> str:
        return self.me.split()[0]

    def pick(self, options: Sequence[str], *key: object, avoid: Sequence[str] = ()) -> str:
        """One of ``options``, chosen by a hash of the voice's salt and ``key``: the same
        run picks the same phrasing, another conversation another. Phrasings whose
        normalised text is in ``avoid`` (said already) are skipped while others remain."""
        if not options:
            return ""
        n = len(options)
        start = zlib.crc32("|".join([self.salt, self.me, self.other, *map(str, key)]).encode()) % n
        taken = [norm(a) for a in avoid]
        for i in range(n):
            text = options[(start + i) % n]
            said = norm(text)
            if not any(said == t or (len(said) > 12 and said in t) for t in taken):
                return text  # neither said already nor part of a line said (an echo of the other's answer)
        return options[start]


def voice_of(me: str, other: str, traits: str, description: str, known: bool, salt: str) -> Voice:
    """Someone the speaker's description names is known from the start (dorm mates, colleagues:
    "I study chemistry" is no news to them); a close tie there (a friend, a wife) is also warm."""
    named = bool(other and other in description)
    close = bool(other and (named or other.split()[0] in description) and CLOSE_WORDS.search(description))
    return Voice(me, other, known or named or close, bool(WARM_TRAITS.search(traits or "")) or close, salt)


def norm(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]", "", str(text or "").lower()).strip()


def opening(text: str, n: int = 3) -> str:
    """A line's first ``n`` words, normalised: what the canned-phrase measure counts."""
    return " ".join(norm(re.sub(r"[^\w' ]", " ", str(text or ""))).split()[:n])


# ---------------------------------------------------------------------------- phrasings

def greeting(v: Voice, hour: int, turn: int) -> str:
    """The first words of a conversation: a stranger gets the full name and an introduction."""
    if not v.known:
        return v.pick((f"Hello, {v.other}! I'm {v.my_first}.", f"{v.other}, isn't it? I'm {v.my_first}.",
                       f"Excuse me, {v.other}? I'm {v.my_first}, nice to meet you.",
                       f"Hi {v.other}, I'm {v.my_first}."), "greet", turn)
    part = "morning" if hour < 12 else "afternoon" if hour < 18 else "evening"
    f = v.first
    if v.warm:
        return v.pick((f"{f}! So good to see you.", f"Oh, {f}, hello!", f"Hey {f}!", f"Good {part}, {f}!",
                       f"{f}, there you are!", f"Hi {f}, lovely to see you."), "greet", turn)
    return v.pick((f"Hello, {f}.", f"Hi {f}.", f"Good {part}, {f}.", f"{f}, hello there."), "greet", turn)


def question(v: Voice, topic: str, turn: int, person: str = "", avoid: Sequence[str] = (),
             their_doing: str = "") -> str:
    """A question about the listener's day (what they are seen doing, when it is known), plans,
    or someone both know."""
    f = v.first
    if topic == "person" and person:
        p = person.split()[0]
        return v.pick((f"{f}, have you seen {p} lately?", f"How is {p} doing these days, {f}?",
                       f"{f}, have you heard from {p} today?", f"Seen {p} around lately, {f}?"),
                      "ask", topic, turn, avoid=avoid)
    if topic == "you":  # a stranger asked who one is: one's own description is said only when asked
        return v.pick((f"So, {f}, what do you do?", f"{f}, what keeps you busy these days?",
                       f"{f}, what do you do around here?"), "ask", topic, turn, avoid=avoid)
    if topic == "place" and person:  # ``person`` is the place both are at
        return v.pick((f"{f}, do you come to {person} often?", f"So, {f}, what brings you to {person} today?",
                       f"Do you often come to {person}, {f}?"), "ask", topic, turn, avoid=avoid)
    if topic == "plans":
        return v.pick((f"{f}, any plans for later today?", f"{f}, what are you doing this evening?",
                       f"So, {f}, anything planned for later?", f"{f}, what's next for you today?"),
                      "ask", topic, turn, avoid=avoid)
    if their_doing:
        d = their_doing
        return v.pick((f"{d[0].upper()}{d[1:]}, {f}? How is it going?", f"How is {d} going, {f}?",
                       f"{f}, still {d}?", f"{f}, how is {d} going?"), "ask", topic, turn, avoid=avoid)
    return v.pick((f"{f}, how is your day going?", f"{f}, what are you up to today?", f"{f}, keeping busy today?",
                   f"Busy day, {f}?", f"So, {f}, how has your day been?"), "ask", topic, turn, avoid=avoid)


# Bad news is not met with "Good for you": a feud, an illness, a loss.
_SAD = re.compile(r"\b(feud\w*|sick|ill|illness|lost|los(e|ing)|died|death|dead|fight\w*|argu\w+|broke\w*|sad|"
                  r"worr\w+|accident|fired|fire|problem\w*|trouble\w*|lonely|hurt|miss(ing)?|divorce\w*|crush)\b",
                  re.I)


def _a(what: str) -> str:
    """ "a party", "an art show"; "the party", "my party" stay."""
    if re.match(r"^(a|an|the|my|your|his|her|their|our)\b", what, re.I):
        return what
    return f"{'an' if what[:1].lower() in 'aeiou' else 'a'} {what}"


_MEAL = re.compile(r"\b(breakfast|lunch|dinner|supper|brunch)\b", re.I)


def reaction(v: Voice, topic: str, kind: str, turn: int, teller: str = "") -> str:
    """A reaction that names what it reacts to in a word or two (``topic``: "party", "breakfast",
    "Hobbs Cafe") and adds to it, a question mostly, never the line said back with "?" (8% of a
    run's lines were "Tom, you're having breakfast today? I didn't know that about you.").
    ``kind``: hosted (the teller hosts an event), event, going (one goes too), heard (one heard
    of it from ``teller``), heard-hosted (... and the one telling hosts it), doing (what the
    teller does), day told (what it does and what is next), sad, or news."""
    f, x = v.first, topic
    big = x[:1].upper() + x[1:]
    if kind == "hosted":
        pool: tuple[str, ...] = (f"{f}, {_a(x)}! Is anyone else coming?", f"{f}, {_a(x)}! Can I bring anything?",
                                 f"{f}, how exciting! Is it your first time hosting one?",
                                 f"{f}, {_a(x)}, how lovely! How many people are coming?")
    elif kind == "event":
        pool = (f"{f}, {_a(x)}! Is anyone else going?", f"{f}, {_a(x)}, how fun! Do you think many will come?",
                f"{f}, that sounds like fun! Have you been to one before?")
    elif kind == "going":
        pool = (f"{f}, I'm going too! See you there.", f"{f}, yes, I'll be there too! Is anyone else coming?",
                f"{f}, I know, I'm going as well. It should be fun!")
    elif kind == "heard" and teller:
        pool = (f"{f}, yes, {teller} told me about it. Are you going?",
                f"{f}, I heard about it from {teller}. Is anyone else going?")
    elif kind == "heard-hosted" and teller:  # of the host: not "Are you going?" (asked of Isabella, of her party)
        pool = (f"{f}, yes, {teller} told me about it. Is anyone else coming?",
                f"{f}, I heard about it from {teller}. How many people are coming?")
    elif kind == "sad" or _SAD.search(x):
        pool = (f"Oh no, {f}, I'm sorry to hear that. How are you holding up?",
                f"{f}, that sounds hard. Is there anything I can do?", f"I'm sorry, {f}. Do you want to talk about it?")
    elif kind == "day told":  # they said what is next already: not "What's next for you?" (Ayesha to Adam)
        pool = (f"{f}, that's a full day! Is it always this busy?", f"{f}, busy day! Do you enjoy the busy ones?",
                f"{f}, sounds like a good day. Do you like days like that?")
    elif kind == "doing" and (not x or x.split()[0].endswith("ing")):  # "waking up": no object to name
        pool = (f"{f}, busy day! What's next for you?", f"{f}, sounds good. Anything fun planned for later?",
                f"{f}, that sounds nice. Is it a day like any other for you?")
    elif kind == "doing" and (meal := _MEAL.search(x)):  # "Dinner, nice! Do you enjoy it?" was odd of a meal
        pool = (f"Enjoy your {meal.group(0).lower()}, {f}! What's after that?",
                f"{big} sounds good, {f}. Anything else planned today?")
    elif kind == "doing":
        pool = (f"{big} sounds good, {f}. What's after that?", f"{big}, nice! Do you enjoy it, {f}?",
                f"Enjoy {x}, {f}! Anything else planned today?")
    elif x:
        pool = (f"{f}, I didn't know that. How did that come about?", f"Really, {f}? Tell me more about {x}.",
                f"{f}, that's news to me. What do you make of it?", f"{big}, really? Tell me more, {f}.")
    else:
        pool = (f"{f}, I didn't know that. How did that come about?",
                f"{f}, that's news to me. What do you make of it?", f"Really, {f}? Tell me more.")
    return v.pick(pool, "react", kind, turn)


def follow_up(v: Voice, told: str, when: str, turn: int, over: bool = True, event: bool = False,
              hosting: bool = False) -> str:
    """A question on what the listener told in an earlier conversation: ``told`` is "about the
    party" or "you were painting a mural"; ``when`` "yesterday", "earlier", "the other day";
    ``hosting``: the listener hosts it (a host is not asked whether it is still going)."""
    f = v.first
    if event and not over:
        ahead = f"{f}, about {told[6:] if told.startswith('about ') else told}: is it still going ahead?"
        if hosting:
            return v.pick((ahead, f"{f}, you told me {when} {told}. Is everything ready?"), "follow", turn)
        return v.pick((f"{f}, you told me {when} {told}. Are you still going?", ahead), "follow", turn)
    return v.pick((f"{f}, you told me {when} {told}. How did it go?", f"{f}, how did it go? You told me {when} {told}.",
                   f"{f}, you told me {told} {when}. Did it go well?"), "follow", turn)


def followed_up(v: Voice, over: bool, turn: int) -> str:
    """The answer to a follow-up question: kind, and no made-up details."""
    f = v.first
    if not over:
        return v.pick((f"{f}, yes, it's still going ahead. Thanks for remembering!",
                       f"{f}, it's still going ahead. Nice of you to ask."),
                      "followed", turn)
    return v.pick((f"{f}, it went all right, thanks for remembering!", f"Nice of you to remember, {f}. It went fine.",
                   f"{f}, it went well enough, thank you for asking."), "followed", turn)


def related(v: Voice, topic: str, said: str, turn: int) -> str:
    """A reaction that adds something of one's own on the same person, place or event
    ("Oh, Hobbs Cafe! I'll be there myself at 12 pm, having lunch.")."""
    f = v.first
    pool = ((f"{f}, speaking of {topic}: {said}", f"Oh, {topic}! {said}", f"{f}, that reminds me: {said}")
            if topic else (f"{f}, that reminds me: {said}",))
    return v.pick(pool, "related", turn)


def goodbye(v: Voice, doing: str, turn: int, avoid: Sequence[str] = ()) -> str:
    f = v.first
    back = doing if doing and not doing.startswith(("convers", "talk", "chat")) else ""
    options = [f"{f}, it was good to talk. See you around!", f"{f}, I'll let you get on with your day. Take care!",
               f"{f}, let's catch up again soon.", f"Take care, {f}. Talk soon!", f"Well, {f}, see you later!",
               f"{f}, it's been nice chatting. Bye for now.", f"{f}, I enjoyed talking to you. See you!",
               f"See you, {f}. Have a good day!", f"Bye, {f}! Enjoy your day.", f"{f}, always nice to catch up. Bye!"]
    if back:
        options += [f"{f}, I should get back to {back}. See you soon!",
                    f"Sorry, {f}, I should get back to {back}. Bye!"]
    if v.warm:
        options += [f"{f}, lovely to see you! Take care.", f"{f}, it's always a pleasure. See you soon!"]
    return v.pick(options, "bye", turn, avoid=avoid)


def invitation(v: Voice, event_words: str, host_first: str | None, hosting: bool, turn: int) -> str:
    """An invitation carrying the event verbatim: "I'm hosting a Valentine's Day party at Hobbs
    Cafe on February 14, from 5 pm to 7 pm. Would you like to come?" """
    f, ev = v.first, event_words
    if hosting:
        return v.pick((f"{f}, I'm hosting {ev}. Would you like to come?",
                       f"{f}, I'd love for you to come: I'm hosting {ev}.",
                       f"You're invited, {f}! I'm hosting {ev}.",
                       f"{f}, would you like to come to {ev}? I'm hosting it.",
                       f"{f}, there's {ev}, and I'm hosting it. Will you come?"), "invite", turn)
    host = f"{host_first} is hosting it" if host_first else "I'm going"
    both = f"{host}, and I'm going" if host_first else host  # not "I'm going, and I'm going"
    return v.pick((f"{f}, there's {ev}. {both}. Would you like to come?",
                   f"{f}, would you like to come with me to {ev}? {host}.",
                   f"{f}, I'm going to {ev}. Want to come along?",
                   f"{f}, come along to {ev}! {host}."), "invite", turn)


def acceptance(v: Voice, what: str, when: str, turn: int) -> str:
    """Yes to an invitation (``what``: the event's name) or to an offer to meet (``what`` empty)."""
    f = v.first
    if not what:
        return v.pick((f"{f}, I'd love that! See you {when}.", f"Sure, {f}, I'll join you {when}.",
                       f"{f}, count me in for it! See you {when}.", f"{f}, that sounds nice. See you {when}!",
                       f"Gladly, {f}! I'll join you {when}."), "accept", turn)
    return v.pick((f"{f}, I'd love to come! I'll be there {when}.", f"{f}, count me in for it! See you {when}.",
                   f"Yes, {f}, I'll come to the {what}. Thank you!", f"{f}, of course I'll come to the {what}!",
                   f"{f}, I wouldn't miss it. See you {when}!", f"{f}, thank you, I'll be there {when}."),
                  "accept", turn)


def already_going(v: Voice, turn: int) -> str:
    """Yes to an invitation to what one goes to already."""
    f = v.first
    return v.pick((f"{f}, I'm going already! See you there.", f"Anyway, {f}, I'll be there. See you!",
                   f"{f}, yes, I'm already going. Let's go together!"), "accept", "already", turn)


def co_hosting(v: Voice, what: str, turn: int) -> str:
    """Yes to an invitation to the gathering one hosts too: two residents chose the same one
    (agents/planning/stories.py: each chooses alone), and the town reads both as one event."""
    f = v.first
    return v.pick((f"{f}, I'm hosting the {what} too! Let's host it together.",
                   f"Oh, {f}, me too: I'm hosting the {what} then. Let's make it one!",
                   f"{f}, so am I! Let's host the {what} together."), "accept", "cohost", turn)


def refusal(v: Voice, what: str, reason: str, turn: int, at: str = "") -> str:
    """No, with the reason: what one does then ("I'm hosting the party at 5 pm.")."""
    f = v.first
    why = f" I'm {reason} {'at ' + at if at else 'then'}." if reason else ""
    it = f"the {what}" if what else "it"
    return v.pick((f"I'm sorry, {f}, I can't make {it}.{why}", f"Thank you, {f}, but I can't come.{why}",
                   f"Oh, {f}, I wish I could come, but I can't.{why}"), "decline", turn)


def meeting(v: Voice, plan_words: str, doing: str, turn: int) -> str:
    """An offer to meet: ``plan_words`` is agents.words.dated.meeting_words ("having lunch at Hobbs Cafe
    today at 12 pm"), which the listener's side reads back."""
    f = v.first
    return v.pick((f"{f}, I'll be {plan_words}. Would you like to join me?",
                   f"Join me, {f}? I'll be {plan_words}.",
                   f"{f}, why don't you join me? I'll be {plan_words}.",
                   f"{f}, would you like to join me later? I'll be {plan_words}.",
                   f"{f}, if you're free, come along! I'll be {plan_words}."), "meet", turn)


# ---------------------------------------------------------------------------- the listener's words

def to_listener(line: str, other: str) -> str:
    """A line about the listener, said to them: "Maria Lopez is ..." -> "you are ..."."""
    first = other.split()[0]
    for who in (re.escape(other), re.escape(first)):
        line = re.sub(rf"\b(?:my|our) (?:wife|husband|son|daughter|child|partner|mother|father|brother|sister|friend) "
                      rf"{who}\b", "you", line)
        line = re.sub(rf"\b(of|like) {who}\b", r"\1 yours" if "friend" in line else r"\1 you", line)
        line = re.sub(rf"\b{who} is\b", "you are", line)
        line = re.sub(rf"\b{who}'s\b", "your", line)
        line = re.sub(rf"\b{who}\b", "you", line)
    return line[0].upper() + line[1:] if line else line


_FLIP = (("I am", "you are"), ("I'm", "you're"), ("I was", "you were"), ("I have", "you have"), ("I've", "you've"),
         ("I will", "you will"), ("I'll", "you'll"), ("I", "you"), ("me", "you"), ("my", "your"), ("mine", "yours"),
         ("myself", "yourself"), ("we", "you"), ("our", "your"), ("us", "you"),
         # and back: "I share the house with you" said back is "you share the house with me"
         ("you are", "I am"), ("you're", "I'm"), ("your", "my"), ("yours", "mine"), ("you", "me"))


def in_your_words(text: str) -> str:
    """What someone said of themselves, said back to them: "I run Hobbs Cafe" -> "you run Hobbs Cafe"."""
    t = re.sub(r"\byours\b", "#3#", str(text or ""), flags=re.I)  # "you" said to them is "me" now
    t = re.sub(r"\byour\b", "#2#", t, flags=re.I)
    t = re.sub(r"\byou\b", "#1#", t, flags=re.I)
    table = {a.lower(): b for a, b in _FLIP}
    rx = re.compile(r"\b(" + "|".join(re.escape(a) for a, _ in sorted(_FLIP, key=lambda p: -len(p[0]))) + r")\b",
                    re.I)
    t = rx.sub(lambda m: table.get(m.group(0).lower(), m.group(0)), t)
    return t.replace("#1#", "me").replace("#2#", "my").replace("#3#", "mine")


def first_clause(text: str, max_words: int = 14) -> str:
    """The first clause of a line, without its greeting or a trailing question."""
    t = " ".join(str(text or "").split())
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", t) if s.strip()]
    for s in sentences:
        greets = any(re.match(r"^(hi|hello|hey|oh|good (morning|afternoon|evening)|excuse me)\b", t, re.I)
                     for t in (s, _VOCATIVE.sub("", s)))  # "Ayesha, hello there." too
        if (greets and len(s.split()) <= 6) or re.match(r"^I'm [A-Z][a-z]+\b(?:[,.!]|$)", s):
            continue  # a greeting, or "I'm John, nice to meet you", names no news
        s = re.split(r";|:(?!\d\d)|,\s+(?:and|but|so)\s+|\.\s", s)[0].strip(" .!?,")  # "5:30 pm" stays whole
        words = s.split()
        if len(words) > max_words:
            s = " ".join(words[:max_words])
            s = re.sub(r"\s+(and|or|but|of|to|the|a|an|at|in|on|with|for|from|who|which|that)$", "", s)
        return s
    return ""


# ---------------------------------------------------------------------------- fragments

_AUX = {"am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "do", "does", "did", "will",
        "would", "can", "could", "shall", "should", "may", "might", "must", "i'm", "you're", "we're", "they're",
        "he's", "she's", "it's", "there's", "that's", "what's", "i've", "you've", "i'll", "you'll", "i'd", "you'd",
        "let's", "we'll", "we'd", "they'll", "she'll", "he'll", "it'll", "that'll", "isn't", "aren't", "don't",
        "doesn't", "didn't", "won't", "can't", "couldn't", "wasn't",
        "haven't", "hasn't", "wouldn't", "shouldn't", "here's", "who's", "how's", "where's"}
_SUBJECTS = {"i", "you", "we", "they", "he", "she", "it", "who", "people", "everyone", "nobody", "somebody", "that",
             "this", "everything", "nothing"}
_COMMON_VERBS = {"run", "own", "work", "study", "teach", "write", "paint", "live", "love", "like", "enjoy", "know",
                 "want", "think", "hope", "see", "come", "go", "meet", "join", "take", "make", "help", "tell", "told",
                 "said", "say", "invite", "host", "plan", "count", "care", "need", "share", "miss", "wish", "sounds",
                 "thank", "thanks", "talk", "catch", "bye", "wait", "look", "keep", "get", "let", "try",
                 "play", "read", "cook", "sing", "dance", "spend", "believe", "feel", "visit", "open", "close"}
# Short sentences that need no verb: greetings, thanks, farewells, interjections.
_INTERJECTION = re.compile(r"^(hi|hello|hey|good (morning|afternoon|evening|day|night)|bye|goodbye|thanks|sorry|oh|"
                           r"well|yes|no|sure|wonderful|welcome|there you are|excuse me|take care|cheers|of course|"
                           r"always a pleasure|lovely|great|congratulations|really|indeed|okay|ok|no worries|"
                           r"another time)\b", re.I)
_VOCATIVE = re.compile(r"^[A-Z][a-z]+(?: [A-Z][a-z]+)?,\s+(?=\w)")
_DANGLING_START = re.compile(r"^(despite|although|though|because|while|whereas|unless|if|since|after|before|when|"
                             r"whenever|as if|even though|in spite of|which|who|whose|whom)\b", re.I)
_DANGLING_END = re.compile(r"\b(and|or|but|of|to|the|a|an|with|for|from|because|at|in|on|my|your|his|their|our|"
                           r"its)$", re.I)


def _has_verb(words: list[str], raw: list[str]) -> bool:
    for i, w in enumerate(words):
        if w in _AUX or w in _COMMON_VERBS:
            return True
        if i > 0 and (words[i - 1] in _SUBJECTS or (raw[i - 1][:1].isupper() and i - 1 > 0)) and \
                re.fullmatch(r"[a-z]+(s|ed)", w):
            return True  # "Isabella Rodriguez runs ...", "she opened ..."
        if re.fullmatch(r"[a-z]+ed", w) and i > 0 and words[i - 1] in _SUBJECTS:
            return True
        if i > 0 and words[i - 1] in _SUBJECTS and re.fullmatch(r"[a-z]+", w) and w not in ("and", "or"):
            return True  # "I run", "they study": a subject and the word after it
    return False


def fragment(line: str) -> str | None:
    """Why ``line`` is not a complete utterance, or None. Every sentence must be whole: a
    statement needs a verb, none may start with a subordinate clause that has no main
    clause ("Despite his fear of them."), and none may end on a dangling word or "...".
    Short questions and exclamations ("A party at Hobbs Cafe? How lovely!") pass."""
    t = " ".join(str(line or "").split())
    if not t:
        return "empty"
    if t.endswith(("...", "…")):
        return "cut off"
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", t) if s.strip()]
    any_verb = False
    for s in sentences:
        body = s.rstrip(".!?\"' ")
        raw = re.findall(r"[A-Za-z][\w']*", body)
        words = [w.lower() for w in raw]
        if not words:
            return f"no words: {s!r}"
        if _DANGLING_END.search(body):
            return f"ends on a dangling word: {s!r}"
        verb = _has_verb(words, raw)
        any_verb = any_verb or verb
        if _DANGLING_START.match(body) and "," not in body:
            return f"a clause without a main clause: {s!r}"
        # "Maria, hello there.": an interjection after the listener's name is one too
        if s.endswith(".") and not verb and not _INTERJECTION.match(body) and \
                not _INTERJECTION.match(_VOCATIVE.sub("", body)):
            return f"no verb: {s!r}"  # "Insight1.", "A master of chemistry at Oak Hill College."
    if not any_verb and len(t.split()) > 6:
        return "no verb"
    return None


__all__ = ["Voice", "acceptance", "first_clause", "follow_up", "followed_up", "fragment", "goodbye", "greeting",
           "in_your_words", "invitation", "meeting", "norm", "opening", "question", "reaction", "refusal", "related",
           "to_listener", "voice_of"]
