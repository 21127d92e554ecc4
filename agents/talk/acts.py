"""The dialogue acts as values: each ``Act`` says what it does, how it is worded, what it
leaves behind when the talk ends, whether it responds to the line before or is an offer
answered by accept or decline, and how a line records it. ``ACTS`` is the one registry;
every other module reads its flags instead of listing acts by hand.

When an act is offered: the answers (to a question, to an offer) are the turn's own rules
(agents/talk/dialogue.py ``offers``); every other act is offered by the builder registered
for it with ``@offered(ACT)`` (a function of the ``Turn``, agents/talk/knowing.py), asked in
the registry's order, after the reply to the line before and before the goodbye.

A line made by an act carries it as data (``Utterance.act`` and ``.act_note``, set in
``dialogue.line``) and, for the reader, at the end of its provenance text ("...; act ask
(day)"), which agents/explain/provenance.py, the timeline and the events file show. The
text is read back (``act_of``) only for lines that carry no act: old saves and run folders,
and lines remade without the field (``said``); ``act_by_rule`` guesses the act of a line
that recorded none (a run from before acts, the paper's mode).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.recall import grounding as gr
from agents.support.types import Utterance
from agents.talk import wording as wd

if TYPE_CHECKING:  # the turn knows the speaker's memories (agents/talk/knowing.py), which read these acts
    from agents.talk.knowing import Turn

# What an act leaves behind when the talk ends (agents/talk/converse.py end_conversation)
NOTHING = "nothing"
HEARD = "the listener's memory of what was said"  # remember_heard, and the memo
ARRANGEMENT = "an arrangement on both sides"  # agreements: a yes to an offer
REFUSAL = "a remembered refusal"  # agreements: a no to an offer


@dataclass(frozen=True, eq=False)
class Act:
    """One dialogue act. Acts compare by identity: there is one value of each, in ``ACTS``."""

    name: str  # as recorded ("act invite") and saved (Utterance.act)
    what: str  # what the act does, in a line
    words: Callable[..., str] | None  # its wording in agents/talk/wording.py (None: worded where it is built)
    leaves: str = NOTHING  # NOTHING, HEARD, ARRANGEMENT or REFUSAL
    responds: bool = False  # it answers or reacts to the line before (the evaluation's "responsive")
    offer: bool = False  # an offer the other answers with accept or decline (one a side a conversation)
    answers_offer: bool = False  # accept or decline: offered only right after an offer
    records_topic: bool = False  # its topic goes into the record: "act ask (day)"
    keeps_told: bool = False  # its topic is kept as told to the listener (``Social.told``): not told twice

    def __str__(self) -> str:  # "act {INVITE}" in a provenance reads "act invite"
        return self.name

    @property
    def reacted_to(self) -> bool:
        """A line of this act may be reacted to: it told, answered, accepted or declined something."""
        return self.leaves != NOTHING and not self.offer

    def note_of(self, topic: str) -> str:
        """What a line of this act records beside the act: its topic, for the acts that record one."""
        return topic if self.records_topic else ""

    def recorded(self, topic: str = "") -> str:
        """The act as the end of a line's provenance text: "act tell", "act ask (day)"."""
        note = self.note_of(topic)
        return f"act {self.name}" + (f" ({note})" if note else "")

    def offers(self, turn: Turn) -> list[Option]:
        """The options its builder offers this turn (none without a builder)."""
        build = _BUILDERS.get(self.name)
        return build(turn) if build is not None else []


FOLLOW_UP = "followup:"  # the topic of a question after what the listener told in an earlier talk ("followup:over")


@dataclass
class Option:
    """One thing the speaker could say now, worded."""

    act: Act
    text: str
    fact: gr.Fact | None = None  # the memory it came from
    topic: str = ""  # ask/answer: day | plans | person; tell/invite: what the listener is told; accept: cohost
    ends: bool = False
    note: str = ""  # where the words came from when no memory did ("today's plan")


ANSWER = Act("answer", "answer the question just asked: one's day, plans, a person, a place", None,
             leaves=HEARD, responds=True, records_topic=True)
REACT = Act("react", "react to what was just told, answered, accepted or declined, naming it", wd.reaction,
            responds=True)
INVITE = Act("invite", "invite to a dated event one hosts or goes to", wd.invitation, leaves=HEARD, offer=True,
             keeps_told=True)
TELL = Act("tell", "tell news, most important first", None, leaves=HEARD, keeps_told=True)
ASK = Act("ask", "ask about the other's day, plans, a shared acquaintance, the place", wd.question,
          records_topic=True)
MEET = Act("meet", "offer to meet at a public place one's plan goes to later today", wd.meeting, leaves=HEARD,
           offer=True)
ACCEPT = Act("accept", "say yes to the invitation or offer just made", wd.acceptance, leaves=ARRANGEMENT,
             responds=True, answers_offer=True, records_topic=True)  # "act accept (cohost)": a host too
DECLINE = Act("decline", "say no to the invitation or offer just made, with one's reason", wd.refusal,
              leaves=REFUSAL, responds=True, answers_offer=True)
GOODBYE = Act("goodbye", "say goodbye (from the third line on; the only act at the turn limit)", wd.goodbye)

# The registry. Builders of the acts that are not answers are asked in this order each turn.
ACTS: tuple[Act, ...] = (ANSWER, REACT, INVITE, TELL, ASK, MEET, ACCEPT, DECLINE, GOODBYE)
BY_NAME = {a.name: a for a in ACTS}
OFFERS = tuple(a for a in ACTS if a.offer)  # acts that the other answers with accept or decline
RESPONSIVE = tuple(a for a in ACTS if a.responds)  # acts that respond to the line before
HEARD_ACTS = tuple(a for a in ACTS if a.leaves == HEARD)  # what the listener remembers as told

Builder = Callable[["Turn"], list[Option]]
_BUILDERS: dict[str, Builder] = {}


def offered(act: Act) -> Callable[[Builder], Builder]:
    """Registers ``build(turn) -> options`` as when and how ``act`` is offered."""
    def register(build: Builder) -> Builder:
        _BUILDERS[act.name] = build
        return build
    return register


# ---------------------------------------------------------------------------- reading acts back

def act_and_note(u: Utterance) -> tuple[Act | None, str]:
    """(act, its note) a line carries: its ``act`` field; a line without one (an old save, a
    run folder, a line remade without the field) by its provenance text."""
    if u.act is not None:
        return BY_NAME.get(u.act), u.act_note
    return act_of(u.source)


def act_of_line(u: Utterance) -> Act | None:
    return act_and_note(u)[0]


_ACT = re.compile(r"\bact (" + "|".join(a.name for a in ACTS) + r")(?: \(([^)]*)\))?\s*$")


def act_of(source: str | None) -> tuple[Act | None, str]:
    """(act, topic) a grounded line's provenance text records, or (None, ""): for lines read
    from files written before lines carried their act (saves, run folders)."""
    m = _ACT.search(str(source or ""))
    return (BY_NAME[m.group(1)], m.group(2) or "") if m else (None, "")


_BYE = re.compile(r"\b(bye|goodbye|see you|take care|talk soon|catch up (?:again )?soon|get going|get back to|"
                  r"let you get on|must go|have to go)\b", re.I)
_ACCEPT = re.compile(r"\b(i'd love to|i'd love that|count me in|i'll be there|i will be there|i'll come|i will come|"
                     r"wouldn't miss it|of course i'll|yes,? i'll|gladly|i'll join you|that sounds nice)\b", re.I)
_DECLINE = re.compile(r"\b(can't make it|can't come|cannot come|won't be able|i wish i could)\b", re.I)
_INVITE = re.compile(r"\b(would you like to (?:come|join)|want to come|will you come|you're invited|join me|"
                     r"come along|invite you)\b", re.I)


def act_by_rule(text: str, previous: str | None) -> Act:
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


def content_words(text: str) -> set[str]:
    """A line's words of four letters or more, not the commonest."""
    return {w for w in re.findall(r"[a-z']{4,}", text.lower())} - STOP_WORDS


def _echoes(text: str, previous: str) -> bool:
    """Does ``text`` name something of ``previous`` (a content word of four letters or more)?"""
    return bool(content_words(text) & content_words(previous))


STOP_WORDS = set("that this with have your you're what when where about there their they them from been were will "
                 "would could should just really very much today hello nice good well going doing thanks thank "
                 "know like time here".split())


def responds(text: str, source: str | None, previous: str | None) -> bool:
    """Does a line of a run folder answer or react to the line before it (its recorded act, else by rule)?"""
    act, _ = act_of(source)
    if act is None:
        act = act_by_rule(text, previous)
    return act.responds and previous is not None


def offered_in(lines: Sequence[Utterance], act: Act | tuple[Act, ...], speaker: str | None = None) -> bool:
    """Whether a line of ``act`` (one of them) was said in ``lines`` (by ``speaker``)."""
    wanted = act if isinstance(act, tuple) else (act,)
    return any(act_of_line(u) in wanted for u in lines if speaker is None or u.speaker == speaker)


__all__ = ["ACCEPT", "ACTS", "ANSWER", "ARRANGEMENT", "ASK", "BY_NAME", "DECLINE", "GOODBYE", "HEARD", "HEARD_ACTS",
           "INVITE", "MEET", "NOTHING", "OFFERS", "REACT", "REFUSAL", "RESPONSIVE", "TELL", "Act", "Option",
           "act_and_note", "act_by_rule", "act_of", "act_of_line", "offered", "offered_in", "responds"]
