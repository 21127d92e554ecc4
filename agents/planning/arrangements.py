"""Arrangements: plans a resident made in conversation ("the party at Hobbs Cafe
on Tuesday at 17:00"), kept for later today or another day and worked into
the day's plan (by the model in the paper's mode, by rule in the guided one)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from agents.explain import provenance as pv
from agents.planning.plan import PlanItem, cut_in


@dataclass
class Arrangement:
    start: datetime
    minutes: int
    description: str
    address: str
    made: str  # "with Isabella Rodriguez on Monday February 13"
    source: str = pv.MODEL

    def item(self, source: str | None = None) -> PlanItem:
        return PlanItem(self.start, self.minutes, self.description, self.address, source or self.source)

    def line(self) -> str:
        return f"{self.start:%A %B %d %H:%M}-{self.start + timedelta(minutes=self.minutes):%H:%M} {self.description}"

    def to_dict(self) -> dict:
        return dict(start=self.start.isoformat(), minutes=self.minutes, description=self.description,
                    address=self.address, made=self.made, source=self.source)

    @classmethod
    def from_dict(cls, d: dict) -> Arrangement:
        return cls(datetime.fromisoformat(d["start"]), int(d["minutes"]), str(d["description"]), str(d["address"]),
                   str(d.get("made") or ""), str(d.get("source") or ""))


def day_labels(now: datetime, days: int = 7) -> tuple[str, ...]:
    return tuple(f"{now + timedelta(days=i):%A %B %d}" for i in range(days))


def arranged_lines(arrangements: list[Arrangement], day: date) -> str:
    today = [a for a in arrangements if a.start.date() == day]
    if not today:
        return ""
    return "Already arranged for today:\n" + "\n".join(
        f"- {a.start:%H:%M}-{a.start + timedelta(minutes=a.minutes):%H:%M} {a.description} ({a.made})"
        for a in today) + "\n"


def keep_arrangements(plan: list[PlanItem], arrangements: list[Arrangement], now: datetime) -> list[PlanItem]:
    """The guided mode's rule: today's arrangements cut into the plan at their times
    (the paper mode leaves that to the model, which sees them in its prompt)."""
    for a in arrangements:
        if a.start.date() == now.date() and a.start + timedelta(minutes=a.minutes) > now:
            # the same doing, not merely the same place ("running Hobbs Cafe" is no party at Hobbs Cafe)
            place = a.address.split(":")[1] if a.address.count(":") >= 1 else ""
            covered = any(x.start <= a.start < x.end and x.address == a.address
                          and keywords_overlap(x.description, a.description, ignore=place) for x in plan)
            if not covered:
                plan = cut_in(plan, a.item(pv.tag(pv.RULE, f"{pv.GUIDED}: an arrangement {a.made}")))
    return plan


# Words any two doings may share: "chatting with Klaus" is no "having lunch with Maria"
COMMON = "with having going attending hosting from about into their there this that then"


def keywords_overlap(a: str, b: str, ignore: str = "") -> bool:
    """Whether two doings share a word of four letters or more (not one of ``ignore``'s, nor
    a word any two doings may share)."""
    words = lambda t: {w for w in re.findall(r"[a-z']+", t.lower()) if len(w) > 3}  # noqa: E731
    return bool(words(a) & words(b) - words(ignore) - words(COMMON))
