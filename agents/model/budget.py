"""A resident's call budget: a layer of the model road (agents/model/asking.py) that
wraps the mind's model and withholds calls once the sim day's budget
(ModelConfig.budget) or a purpose's loop guard (MindSettings.loop_guards) is
spent. A withheld call makes no model call and answers ``(fallback, "budget")``,
so the caller's rule stands in and says so.

Every call of a mind goes through it, the interviews' included (agents/mind/interview.py).
A step that must leave the mind as it was (an interview that remembers nothing,
the chat's answer beside the mind's own job) asks through ``checking(now)``:
withheld as the budget would withhold it, counted nowhere; the chat's own job
counts its call after (``count``).

The counts are per sim day: ``at(now)`` is called at the start of every job of
the mind and rolls the day over (yesterday's counts go to the history).
Its state is part of the mind's save, under the mind's own keys (``calls_day``,
``calls``, ``skipped``, ``budget_hit``, ``calls_per_day``, ``calls_history``).
"""
from __future__ import annotations

from collections import Counter
from datetime import date, datetime
from typing import Any

from agents.explain import provenance as pv
from agents.model.asking import Asks, Reply, Request
from agents.model.services import Asker


class Budget(Asks):
    """Model calls of one resident per sim day, counted per purpose."""

    def __init__(self, asker: Asker, guards: dict[str, int] | None = None) -> None:
        self.asker = asker
        self.guards = guards if guards is not None else {}  # purpose -> calls a day; shared with MindSettings
        self.day: date | None = None
        self.now: datetime | None = None  # the sim time of the job at hand (when the budget runs out)
        self.calls: Counter = Counter()  # calls made today, per purpose
        self.skipped: Counter = Counter()  # calls withheld today, per purpose
        self.spent_at: datetime | None = None  # when today's budget ran out
        self.per_day: dict[str, int] = {}  # history: ISO date -> calls
        self.history: dict[str, dict] = {}  # history: ISO date -> calls per purpose

    @property
    def limit(self) -> int:
        """Calls per sim day (0: no limit), the model configuration's ``budget``."""
        return int(getattr(getattr(self.asker, "config", None), "budget", 0) or 0)

    @property
    def calls_today(self) -> int:
        return sum(self.calls.values())

    def at(self, now: datetime) -> None:
        """The sim time of the job at hand; a new sim day starts fresh counts."""
        self.now = now
        day = now.date()
        if day != self.day:
            if self.day is not None:
                self.per_day[self.day.isoformat()] = self.calls_today
                self.history[self.day.isoformat()] = dict(self.calls)
            self.day, self.calls, self.skipped, self.spent_at = day, Counter(), Counter(), None

    def allows(self, purpose: str) -> bool:
        limit, guard = self.limit, self.guards.get(purpose)
        return not (limit > 0 and self.calls_today >= limit) and (guard is None or self.calls[purpose] < guard)

    def ask_once(self, request: Request) -> Reply:
        """The wrapped model's reply, counted; or, when the budget or the purpose's
        loop guard is spent, a reply without a value ("budget") and no call made."""
        if not self.allows(request.purpose):
            self.count(request.purpose, withheld=True)
            return Reply(error=pv.BUDGET)
        self.count(request.purpose)
        return self.asker.ask_once(request)

    def checking(self, now: datetime) -> BudgetCheck:
        """This budget read at ``now``, never written: for a step that must leave the mind as it was."""
        return BudgetCheck(self, now)

    def count(self, purpose: str, *, withheld: bool = False) -> None:
        """Count a call of ``purpose`` (``withheld``: one the budget withheld). Besides
        ``ask_once``, for the chat's job, which counts the call its answer made while it
        could only read the budget (agents/mind/interview.py ``keep_exchange``)."""
        if not withheld:
            self.calls[purpose] += 1
            return
        self.skipped[purpose] += 1
        if self.limit > 0 and self.calls_today >= self.limit and self.spent_at is None:
            self.spent_at = self.now

    # -- the state contract (agents/support/stateful.py): a save's plain JSON, hence Any -----------
    def to_state(self) -> dict[str, Any]:
        iso = lambda t: t.isoformat() if t else None  # noqa: E731
        return {"calls_day": iso(self.day), "calls": dict(self.calls), "skipped": dict(self.skipped),
                "budget_hit": iso(self.spent_at), "calls_per_day": dict(self.per_day),
                "calls_history": {k: dict(v) for k, v in self.history.items()}}

    def from_state(self, state: dict[str, Any]) -> None:
        day = state["calls_day"]
        self.day = date.fromisoformat(day) if day else None
        self.calls, self.skipped = Counter(state["calls"]), Counter(state["skipped"])
        hit = state.get("budget_hit")  # saves from before the budget have none
        self.spent_at = datetime.fromisoformat(hit) if hit else None
        self.per_day, self.history = dict(state["calls_per_day"]), dict(state["calls_history"])


class BudgetCheck(Asks):
    """A budget read, never written: a call is withheld when the budget would withhold
    it at ``now`` (a later sim day starts afresh), and nothing is counted."""

    def __init__(self, budget: Budget, now: datetime) -> None:
        self.budget = budget
        self.now = now

    @property
    def asker(self) -> Asker:
        """The model the budget wraps (where a decision record finds the log: agents/explain/why.py ``log_of``)."""
        return self.budget.asker

    def ask_once(self, request: Request) -> Reply:
        b = self.budget
        if b.day == self.now.date() and not b.allows(request.purpose):
            return Reply(error=pv.BUDGET)
        return b.asker.ask_once(request)
