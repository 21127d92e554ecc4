"""A body: where a resident (or the visitor) is and what it is doing."""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from datetime import datetime

from agents import Action, is_engagement
from game.world.grid import Tile

_SLEEP_RE = re.compile(r"\b(asleep|sleep|sleeping|slept|napping|nap)\b", re.I)
_NOT_SLEEP_RE = re.compile(r"\b(ready|prepar\w*|wak\w*|before|after|trouble|can't|cannot)\b", re.I)

# How many times any body's tile was set (a new body's too): spatial indexes (game/sim/nearby.py)
# rebuild when it moved on. Under a lock, so the count only ever grows.
_moves = 0
_moves_lock = threading.Lock()


def moves() -> int:
    """The number of tile assignments so far, in every simulation of this process."""
    return _moves


def _moved() -> None:
    global _moves
    with _moves_lock:
        _moves += 1


def is_sleep(action: Action | None) -> bool:
    """Whether an action is sleeping (perception off, no decisions until it ends): as its kind
    says (a mind's night or nap), else as its words say (a stand-in's action, an old save)."""
    if action is None or action.talking_to:
        return False
    if action.kind:
        return action.kind == "sleep"
    d = action.description
    return bool(_SLEEP_RE.search(d)) and not _NOT_SLEEP_RE.search(d)


@dataclass
class Body:
    """Where a resident (or the visitor) is and what it is doing."""

    name: str
    tile: Tile
    path: list[Tile] = field(default_factory=list)  # tiles still to walk (excluding the current one)
    routing: bool = False  # waiting for its path (game/sim/path_service.py): on its way, not yet walking
    prev_tile: Tile | None = None  # where it stood before this step's move (for smooth drawing)
    facing: str = "down"  # down | left | right | up (the character sheet's rows)
    action: Action | None = None
    target: str | None = None  # resolved address of the action's place
    arrived_at: datetime | None = None  # when it reached the action's place
    held_object: str | None = None  # object address whose state this body set
    conversation: int | None = None  # id of the conversation it is in
    prev_action: Action | None = None  # what it did before the conversation
    visitor: bool = False
    controlled: bool = False  # the player walks it (``take_control``): no decisions, no own walking
    seen: dict[str, datetime] = field(default_factory=dict)  # event key -> last seen (retention)
    new_events: bool = False  # new salient events in view since the last decision
    last_decide: datetime | None = None
    waiting_since: datetime | None = None  # needs a decision since
    not_before: datetime | None = None  # no decision before this (error back-off)
    asked_day: str | None = None  # the date of the last decision (a new day asks again)
    next_action: Action | None = None  # decided ahead: starts when the current action ends
    ahead_for: datetime | None = None  # the end of the action a decision was asked ahead for
    urgent: bool = False  # the player waits for its next decision (an inner voice, handed back)
    standing_in: bool = False  # following its plan while its mind thinks (decisions.stand_in)
    lying_in: bool = False  # its first decision of the game not in yet; it lay in meanwhile (decisions.lie_in)
    prepared_for: datetime | None = None  # the chunk start its mind was last asked to break into steps ahead
    fallbacks: int = 0
    errors: int = 0

    def __setattr__(self, name: str, value: object) -> None:
        if name == "tile":
            _moved()
        object.__setattr__(self, name, value)

    @property
    def walking(self) -> bool:
        """On its way: walking its path, or waiting for the path service to find it."""
        return bool(self.path) or self.routing

    @property
    def hurrying(self) -> bool:
        """On its way to a meeting it agreed to or a gathering it goes to: it does not stop to
        chat on the road (two guests who met on the way talked through a picnic they never reached)."""
        return self.walking and self.action is not None and not self.action.talking_to and is_engagement(self.action)

    @property
    def asleep(self) -> bool:
        return is_sleep(self.action)

    @property
    def emoji(self) -> str:
        if self.conversation is not None:
            return "💬"
        return self.action.emoji if self.action else ""

    @property
    def doing(self) -> str:
        return self.action.description if self.action else "idle"
