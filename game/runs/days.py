"""A run's ledger of sim days: the wall time, model calls and tokens each sim day took,
noted as the run's clock (out of order: its slowest residents') passes the hour the run
began, so that a long run's days can be compared (`smallville evaluate`'s day-by-day table,
lab/evaluate/days.py).

A run's day is 24 sim hours from the hour it began: a run from Feb 14 07:00 has the days
Feb 14 07:00-Feb 15 07:00 and Feb 15 07:00-Feb 16 07:00, each with its waking hours and a
night. Split at midnight, its first day would have 17 hours and its second 24, and the
second would look dearer by the hours alone. A run from midnight has calendar days.

A resumed run carries the days it had on: a day split by a resume is one row."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta

from agents import Accounting


class DayLedger:
    """Fed the run's clock after each step (``see``); ``rows`` are the days so far."""

    def __init__(self, accounting: Accounting, now: datetime, earlier: Iterable[object] = (),
                 clock: Callable[[], float] = time.monotonic, began: datetime | None = None) -> None:
        self.accounting = accounting
        self.clock = clock
        # the run's days begin at the hour it began (its first start, not a resume's)
        self.offset = (began - datetime.combine(began.date(), datetime.min.time())) if began else timedelta(0)
        self.done: list[dict] = [dict(x) for x in earlier if isinstance(x, dict) and x.get("day")]
        self._open(self.day_of(now))

    def day_of(self, now: datetime) -> date:
        """The run's day that ``now`` falls in (the date it began on)."""
        return (now - self.offset).date()

    def _totals(self) -> tuple[int, int]:
        tot = self.accounting.summary()["total"]
        return int(tot.get("calls") or 0), int(tot.get("tokens") or 0)

    def _open(self, day: date) -> None:
        self.day, self.t0 = day, self.clock()
        self.calls0, self.tokens0 = self._totals()

    def _row(self) -> dict:
        calls, tokens = self._totals()
        row = {"day": self.day.isoformat(), "wall_s": round(self.clock() - self.t0, 1),
               "calls": calls - self.calls0, "tokens": tokens - self.tokens0}
        if self.offset:
            row["from"] = f"{datetime.min + self.offset:%H:%M}"
        return row

    def see(self, now: datetime) -> None:
        day = self.day_of(now)
        if day != self.day:
            self.done.append(self._row())
            self._open(day)

    def rows(self) -> list[dict]:
        """Every day so far, the one under way included; a day begun before a resume is summed."""
        out: dict[str, dict] = {}
        for r in [*self.done, self._row()]:
            old = out.get(r["day"])
            out[r["day"]] = r if old is None else {
                **r, "wall_s": round(float(old.get("wall_s") or 0) + float(r.get("wall_s") or 0), 1),
                **{k: int(old.get(k) or 0) + int(r.get(k) or 0) for k in ("calls", "tokens")}}
        return list(out.values())


__all__ = ["DayLedger"]
