"""Plain data exchanged between the simulation (main thread) and the minds
(worker threads). Nothing here holds a reference to live world state."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta


@dataclass(frozen=True)
class Event:
    """Something perceivable: a resident doing something, or an object's state."""

    subject: str  # "Isabella Rodriguez" or an object address "the Ville:Hobbs Cafe:cafe:stove"
    predicate: str  # "is"
    object: str  # "making coffee"
    description: str  # "Isabella Rodriguez is making coffee"
    address: str  # where it happens, as deep as known


@dataclass
class Action:
    """What a resident is doing, where, and for how long."""

    description: str  # "making espresso for a customer"
    address: str  # "the Ville:Hobbs Cafe:cafe:coffee machine" (object or arena level)
    start: datetime
    duration_min: int
    emoji: str = "🙂"
    object_state: str | None = None  # the object's state while this lasts ("brewing coffee")
    talking_to: str | None = None  # set while this action is a conversation
    source: str = ""  # who chose it: "model", "repaired: ...", "rule: ...", "routine: ..." (explain/provenance.py)
    kind: str = ""  # "sleep" for a night or a nap the plan holds (agents/planning/items.py); "" from the words

    @property
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.duration_min)

    def to_dict(self) -> dict:
        return dict(description=self.description, address=self.address, start=self.start.isoformat(),
                    duration_min=self.duration_min, emoji=self.emoji, object_state=self.object_state,
                    talking_to=self.talking_to, source=self.source, kind=self.kind)

    @classmethod
    def from_dict(cls, d: dict) -> Action:
        d = dict(d)
        d["start"] = datetime.fromisoformat(d["start"])
        d["source"] = str(d.get("source") or "")  # saves from before provenance have none
        return cls(**d)


@dataclass
class Situation:
    """What the simulation tells a mind when it asks for a decision."""

    now: datetime
    address: str  # deepest address of the tile the resident stands on
    action: Action | None  # what the resident is doing now (None at start)
    events: list[Event] = field(default_factory=list)  # in vision radius, same arena, nearest first
    seen_addresses: list[str] = field(default_factory=list)  # places in view (spatial memory grows)
    can_talk_to: list[str] = field(default_factory=list)  # nearby, awake, free, out of cooldown
    action_done: bool = False  # the current action has run its course
    # Asked ahead: the current action ends then, and the next action is planned for
    # that time (the day plan too, when it is a new day by then); the rest of the
    # decision (perceiving, talking, reacting) is about now.
    plan_at: datetime | None = None


@dataclass
class Decision:
    """A mind's answer. None fields mean: keep what you have."""

    action: Action | None = None  # start this now (walk there first)
    talk_to: str | None = None  # start a conversation with this resident
    note: str = ""  # why, for the timeline ("reacted to ...")
    source: str = ""  # who decided to talk (the action carries its own)
    # When the action starts: None for the time asked about (now, or Situation.plan_at
    # when asked ahead); a mind asked ahead that acts at once (a reaction) says now.
    at: datetime | None = None


@dataclass
class Utterance:
    speaker: str
    text: str
    ends: bool = False  # the speaker ends the conversation with this line
    source: str = ""  # who wrote the line (agents/explain/provenance.py)
    # The dialogue act it was (agents/talk/acts.py, by name) and what it records beside it (an
    # ask's topic); None for a line of no act (the paper's mode) or made without the field
    act: str | None = None
    act_note: str = ""


@dataclass
class Conversation:
    participants: tuple[str, str]  # (initiator, partner)
    address: str
    started: datetime
    lines: list[Utterance] = field(default_factory=list)

    def other(self, name: str) -> str:
        a, b = self.participants
        return b if name == a else a

    def transcript(self) -> str:
        return "\n".join(f"{u.speaker}: {u.text}" for u in self.lines)
