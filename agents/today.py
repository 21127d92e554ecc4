"""The state of a resident's day: the plan and the day it is for, the actions
of the chunk at hand, arrangements for later, and what happened so far (the
actions' log and the conversations, tomorrow's "yesterday"). The functions
that change it are in agents/day.py; this is only the data and its save."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from agents.arrangements import Arrangement
from agents.plan import PlanItem
from agents.types import Action


@dataclass
class Today:
    plan: list[PlanItem] = field(default_factory=list)
    planned_for: date | None = None  # the day ``plan`` is for
    pending: list[Action] = field(default_factory=list)  # decomposed actions of the chunk at hand
    arrangements: list[Arrangement] = field(default_factory=list)  # plans made in conversation, for later
    log: list[str] = field(default_factory=list)  # "HH:MM what (where)" of today's actions
    chats: list[str] = field(default_factory=list)  # "with Maria Lopez: ..." of today's conversations

    # -- the state contract (agents/state.py), under the mind's keys -------------------
    def to_state(self) -> dict[str, Any]:
        return {
            "plan": [x.to_dict() for x in self.plan],
            "plan_day": self.planned_for.isoformat() if self.planned_for else None,
            "arrangements": [x.to_dict() for x in self.arrangements],
            "day_log": list(self.log),
            "pending": [a.to_dict() for a in self.pending],
            "chats_today": list(self.chats),
        }

    def from_state(self, state: dict[str, Any]) -> None:
        self.plan = [PlanItem.from_dict(x) for x in state["plan"]]
        self.planned_for = date.fromisoformat(state["plan_day"]) if state["plan_day"] else None
        # Saves from before provenance lack these; they start empty.
        self.arrangements = [Arrangement.from_dict(x) for x in state.get("arrangements") or []]
        self.log = [str(x) for x in state.get("day_log") or []]
        self.pending = [Action.from_dict(x) for x in state["pending"]]
        self.chats = list(state["chats_today"])
