"""The state of a resident's day: the plan and the day it is for, the actions
of the chunk at hand, arrangements for later, and what happened so far (the
actions' log and the conversations, tomorrow's "yesterday"). The functions
that change it are in agents/planning/day.py; this is only the data and its save."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any

from agents.explain import provenance as pv
from agents.planning.arrangements import Arrangement
from agents.planning.object_use import make_action
from agents.planning.plan import PlanItem, item_at
from agents.support.types import Action


@dataclass
class Today:
    plan: list[PlanItem] = field(default_factory=list)
    planned_for: date | None = None  # the day ``plan`` is for
    pending: list[Action] = field(default_factory=list)  # decomposed actions of the chunk at hand
    arrangements: list[Arrangement] = field(default_factory=list)  # plans made in conversation, for later
    log: list[str] = field(default_factory=list)  # "HH:MM what (where)" of today's actions
    chats: list[str] = field(default_factory=list)  # "with Maria Lopez: ..." of today's conversations
    considered: list[str] = field(default_factory=list)  # engagements heard of today and replanned for (keys)
    recapped: list[str] = field(default_factory=list)  # gatherings of the plan remembered once over (recaps.py)
    # The steps made today for each plan item (agents/planning/decompose.py reuse_key -> actions):
    # the same activity at the same place later today takes them again, without a call.
    steps_made: dict[str, list[Action]] = field(default_factory=dict)
    # When the last step handed out (agents/planning/day.py next_action) ends: with none waiting, the
    # chunk after it may be broken into steps ahead (prepare_chunk). Not saved: after a load
    # that chunk is decided when due.
    handed_until: datetime | None = None

    # -- the state contract (agents/support/stateful.py), under the mind's keys -------------------
    def to_state(self) -> dict[str, Any]:
        return {
            "plan": [x.to_dict() for x in self.plan],
            "plan_day": self.planned_for.isoformat() if self.planned_for else None,
            "arrangements": [x.to_dict() for x in self.arrangements],
            "day_log": list(self.log),
            "pending": [a.to_dict() for a in self.pending],
            "chats_today": list(self.chats),
            "considered": list(self.considered),
            "recapped": list(self.recapped),
            "steps_made": {k: [a.to_dict() for a in v] for k, v in self.steps_made.items()},
        }

    def from_state(self, state: dict[str, Any]) -> None:
        self.plan = [PlanItem.from_dict(x) for x in state["plan"]]
        self.planned_for = date.fromisoformat(state["plan_day"]) if state["plan_day"] else None
        # Saves from before provenance lack these; they start empty.
        self.arrangements = [Arrangement.from_dict(x) for x in state.get("arrangements") or []]
        self.log = [str(x) for x in state.get("day_log") or []]
        self.pending = [Action.from_dict(x) for x in state["pending"]]
        self.chats = list(state["chats_today"])
        self.considered = [str(x) for x in state.get("considered") or []]  # saves from before issue 33: none
        self.recapped = [str(x) for x in state.get("recapped") or []]  # saves from before issue 45: none
        made = state.get("steps_made") or {}  # saves from before issue 34: none (the next chunk makes a call)
        if not isinstance(made, dict):
            raise ValueError(f"steps_made must map plan items to steps, not {type(made).__name__}")
        self.steps_made = {str(k): [Action.from_dict(x) for x in v] for k, v in made.items()}


FOLLOWED = "its plan, followed while the mind thinks"


def planned_step(day: date | None, plan: list[PlanItem], pending: list[Action], t: datetime) -> Action | None:
    """What a plan (made for ``day``, with its decomposed steps ``pending``) has the
    resident do at ``t``: the step, else the plan item at its place; None without a
    plan for that day. Marked as the plan's, followed without the mind's decision."""
    for a in pending:
        if a.start <= t < a.end:
            return replace(a, start=t, duration_min=max(1, int((a.end - t).total_seconds() // 60)),
                           source=followed(a.source))
    if day != t.date():
        return None
    item = item_at(plan, t)
    if item is None:
        return None
    return make_action(None, item.description, item.address, t, max(1, int((item.end - t).total_seconds() // 60)),
                       source=followed(item.source))


def followed(source: str) -> str:
    """The provenance of a plan step followed without the mind's decision: the model's
    plan stays the model's (repaired), a rule's or the routine's stays theirs."""
    kind = pv.kind_of(source)
    if kind in (pv.MODEL, pv.REPAIRED):
        return pv.tag(pv.REPAIRED, FOLLOWED)
    return pv.tag(kind if kind in pv.KINDS else pv.ROUTINE, FOLLOWED)

