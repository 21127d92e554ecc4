"""What a mind shows the panels: ``Inspection``, the typed snapshot ``Mind.inspect()``
returns (published at the end of each job; agents/mind/core.py ``publish``), read by the
inspector, the Why? panel, the replay, the run's summary and the event log's
reflections. Frozen, and never changed once published: readers share it."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agents.recall.memory import MemoryNode
from agents.support.types import Action


def _time(text: Any) -> datetime | None:
    """An ISO time as kept in the mind's state (None when there is none or it is unreadable)."""
    try:
        return datetime.fromisoformat(str(text)) if text else None
    except ValueError:
        return None


@dataclass(frozen=True)
class SaidLine:
    """A line the resident said lately, to whom, and who chose it (agents/explain/provenance.py)."""

    time: datetime | None
    to: str
    text: str
    source: str
    memory: int | None = None  # the memory a grounded line was chosen from

    @classmethod
    def of(cls, kept: dict) -> SaidLine:
        """From the mind's kept line (``Mind.note_said``'s dict; saves hold the same)."""
        memory = kept.get("memory")
        return cls(time=_time(kept.get("time")), to=str(kept.get("to") or ""), text=str(kept.get("text") or ""),
                   source=str(kept.get("source") or ""), memory=memory if isinstance(memory, int) else None)


@dataclass(frozen=True)
class Inspection:
    """A resident's mind as of its last job (every field has a default: a stand-in
    mind or a replay without a save fills in what it has)."""

    name: str = ""
    now: datetime | None = None  # the sim time of the job that published it
    summary: str = ""  # who the resident is, in a few sentences
    plan: tuple[str, ...] = ()  # today's plan, "HH:MM-HH:MM description" lines
    plan_sources: tuple[str, ...] = ()  # who wrote each plan line (agents/explain/provenance.py)
    arrangements: tuple[str, ...] = ()  # what was arranged with others
    planning: str = ""  # "paper" or "guided"
    grounded: bool = False  # lines and answers chosen from the resident's memories
    said: tuple[SaidLine, ...] = ()  # the last lines said, oldest first
    action: Action | None = None  # a copy of the current action
    pending: tuple[str, ...] = ()  # the plan item's next steps, "HH:MM description"
    memories: tuple[MemoryNode, ...] = ()  # copies of the newest memories, oldest first
    reflections: tuple[MemoryNode, ...] = ()  # copies of the newest reflections, oldest first
    memory_count: int = 0
    known_people: tuple[str, ...] = ()  # sorted
    calls_today: int = 0  # model calls this sim day
    calls_by_purpose: Mapping[str, int] = field(default_factory=dict)
    budget: int = 0  # calls per sim day (0: no limit)
    budget_hit: datetime | None = None  # when today's budget ran out
    budget_fallbacks: Mapping[str, int] = field(default_factory=dict)  # calls the budget withheld, by purpose
    rejected_answers: Mapping[str, int] = field(default_factory=dict)  # answers that failed validation, by what
    fallbacks: Mapping[str, int] = field(default_factory=dict)  # "what: why" -> times a rule stood in
    waiting_for_embedding: int = 0  # memories whose embedding failed, stored on a later try
    places_known: int = 0  # arenas in the spatial memory
    note: str = ""  # where it comes from, when not the live mind (a replay's save)
