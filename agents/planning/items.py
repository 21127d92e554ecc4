"""A plan item: what a resident means to do, from when, for how long, where, and
why (its provenance); and the rules' edits of a plan made of them (no model call).
The plans themselves are made in agents/planning/plan.py."""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from agents.explain import provenance as pv
from agents.planning.object_use import is_sleep

MEAL_HOURS = {"breakfast": (5, 11), "lunch": (11, 15), "dinner": (16, 23)}

# What a plan item is, where behaviour depends on it: a night (or a nap) is slept through
# with no call to break it into steps; a meal is short and keeps its place; anything else
# is an activity. Set where the item is made; words are read only for a model's free text
# and for saves from before items had a kind (kind_of_words).
SLEEP, MEAL, ACTIVITY = "sleep", "meal", "activity"
KINDS = (SLEEP, MEAL, ACTIVITY)


@dataclass
class PlanItem:
    start: datetime
    minutes: int
    description: str
    address: str  # an arena this mind knows
    source: str = pv.MODEL  # agents/explain/provenance.py
    kind: str = ""  # one of KINDS; when not given, read from the words (kind_of_words)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            self.kind = kind_of_words(self.description)

    @property
    def sleep(self) -> bool:
        return self.kind == SLEEP

    @property
    def meal(self) -> bool:
        return self.kind == MEAL

    def moved(self, start: datetime, minutes: int = 0, source: str | None = None) -> PlanItem:
        """The same doing at another time (its length set later by close_times when 0)."""
        return replace(self, start=start, minutes=minutes, source=self.source if source is None else source)

    @property
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.minutes)

    def line(self) -> str:
        return f"{self.start:%H:%M}-{self.end:%H:%M} {self.description}"

    def to_dict(self) -> dict:
        return dict(start=self.start.isoformat(), minutes=self.minutes, description=self.description,
                    address=self.address, source=self.source, kind=self.kind)

    @classmethod
    def from_dict(cls, d: dict) -> PlanItem:
        return cls(datetime.fromisoformat(d["start"]), int(d["minutes"]), str(d["description"]), str(d["address"]),
                   str(d.get("source") or ""), str(d.get("kind") or ""))  # saves from before kinds: from the words


def plan_source(plan: list[PlanItem]) -> str:
    """One provenance for a whole plan: the model's if any item came from it."""
    if any(pv.model_led(x.source) for x in plan):
        return pv.MODEL
    return next((x.source for x in plan if pv.kind_of(x.source) == pv.ROUTINE), pv.tag(pv.ROUTINE))


def item_at(plan: list[PlanItem], t: datetime) -> PlanItem | None:
    for it in plan:
        if it.start <= t < it.end:
            return it
    return None


def is_meal(text: str) -> bool:
    return any(w in text.lower() for w in MEAL_HOURS)


def kind_of_words(text: str) -> str:
    """The kind a doing's words say (a model's free text, an old save's item)."""
    return SLEEP if is_sleep(text) else MEAL if is_meal(text) else ACTIVITY


def close_times(items: list[PlanItem], next_wake: datetime) -> list[PlanItem]:
    """Each item lasts until the next starts; the last (sleep) until the next wake-up."""
    for a, b in zip(items, items[1:] + [None]):
        end = b.start if b else next_wake
        a.minutes = max(1, int((end - a.start).total_seconds() // 60))
    return items


def cut_in(plan: list[PlanItem], new: PlanItem) -> list[PlanItem]:
    """``new`` takes [new.start, new.end): what it overlaps is cut around it, what
    comes after keeps its times (no model call: a rule's edit of the plan)."""
    out: list[PlanItem] = []
    for it in plan:
        if it.end <= new.start or it.start >= new.end:
            out.append(it)
            continue
        if it.start < new.start:
            out.append(it.moved(it.start, int((new.start - it.start).total_seconds() // 60)))
        if it.end > new.end:
            out.append(it.moved(new.end, int((it.end - new.end).total_seconds() // 60)))
    out.append(new)
    out.sort(key=lambda x: x.start)
    return [x for x in out if x.minutes > 0]
