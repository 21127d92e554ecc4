"""How fast the minds work, measured (DESIGN.md, Pacing): the wall seconds a job
of each kind took on the worker pool lately, and from them the work queued
ahead of a new job. The window's clock and its look-ahead read it; a lockstep
run records it but never lets it decide anything (wall time is not reproducible).

A job's kind here is what it does, since their costs differ by two orders:
``decide:start`` (a day plan, several calls), ``prepare`` (one chunk broken
into steps), ``decide:ahead`` (the next step already decided: no call, or a
rating), ``decide:chunk`` (asked ahead for a time no step is decided for: the
answer breaks the next chunk into steps, a call like ``prepare``'s), a line of
a conversation. Measured as one, the cheap and the dear steps ahead averaged
to a tenth of a second, and the clock ran at full speed into the top of the
hour, where every resident's next chunk falls due at once. The work ahead is the sum of their expected seconds over the
pool's town workers (jobs waiting for a model instance run longer, so the sum
over workers is still the queue's wall time).
"""
from __future__ import annotations

import time
from collections.abc import Iterable

from game.sim.jobs import Job

ALPHA = 0.3  # weight of the newest job in a kind's running mean: recent load matters most
CHUNK = "decide:chunk"
ALIKE = {CHUNK: "prepare", "prepare": CHUNK}  # kinds doing the same work: one stands in for the other unmeasured


def kind_of(job: Job) -> str:
    """The measured kind of a job."""
    kind = job.kind or ""
    reason = job.reason or ""
    if kind == "decide" and job.ahead and job.chunk:
        return CHUNK
    return f"{kind}:{reason}" if kind == "decide" and reason else kind


class Throughput:
    """Running means of job seconds by kind, and the work queued ahead."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, int(workers))
        self._mean: dict[str, float] = {}
        self.jobs = 0  # jobs measured
        self._since: float | None = None  # wall time the first jobs went out, while none is back

    def started(self, now: float | None = None) -> None:
        """Jobs are out. Until the first is back, each is taken to last at least as long
        as they have been out (a game's first minutes: 25 day plans, none done yet)."""
        if self._since is None and not self.jobs:
            self._since = time.monotonic() if now is None else now

    @property
    def measuring(self) -> bool:
        """Whether there is anything to go by yet."""
        return bool(self.jobs) or self._since is not None

    def note(self, kind: str, seconds: float) -> None:
        """A job of ``kind`` ran ``seconds`` on its worker (a negative or absurd figure is ignored)."""
        try:
            s = float(seconds)
        except (TypeError, ValueError):
            return
        if not 0.0 <= s < 3600.0:  # a clock jump or a job stuck for an hour says nothing of the pace
            return
        old = self._mean.get(kind)
        self._mean[kind] = s if old is None else old + ALPHA * (s - old)
        self.jobs += 1

    def expected(self, kind: str, now: float | None = None) -> float | None:
        """Seconds a job of ``kind`` is expected to take: its own mean, else that of a
        kind doing the same work (``ALIKE``), else the mean of the kinds measured (a first
        guess), else how long the first jobs have been out (``started``), else None (no
        job yet)."""
        if kind in self._mean:
            return self._mean[kind]
        if ALIKE.get(kind) in self._mean:
            return self._mean[ALIKE[kind]]
        if self._mean:
            return sum(self._mean.values()) / len(self._mean)
        if self._since is not None:
            return max(0.0, (time.monotonic() if now is None else now) - self._since)
        return None

    def seconds_ahead(self, kinds: Iterable[str]) -> float:
        """Wall seconds the pool needs for jobs of ``kinds`` (unmeasured kinds count 0)."""
        return sum(self.expected(k) or 0.0 for k in kinds) / self.workers

    def to_dict(self) -> dict[str, float]:
        return {k: round(v, 3) for k, v in sorted(self._mean.items())}


__all__ = ["ALIKE", "ALPHA", "CHUNK", "Throughput", "kind_of"]
