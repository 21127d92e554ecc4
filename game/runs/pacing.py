"""The game's clock keeps pace with its minds (DESIGN.md, Pacing). No pygame.

In play the town runs at the chosen speed only while the awake residents' next
decisions keep up. The lag is the longest any of them has waited for its
mind's decision, or for its next line in a conversation
(``Simulation.decision_lag``): a talk is paced as the headless runs pace it, a
line at a time, not spread over hours of the clock while the lines are
written. Up to half of ``LAG_MIN`` the clock runs at full speed; from there it
slows linearly and stands still at ``LAG_MIN`` sim minutes, until the minds
catch up. The frame never waits:
walking is drawn between steps, and the visitor walks in real time.

The clock also slows early and smoothly rather than running into a wall
(``steady_pace``): from the minds' measured seconds per job
(``Simulation.throughput``) and the jobs queued, each with the sim time it is
needed by, the pace at which every one of them can still be done by then (plus
``LAG_MIN``) caps the clock. The HUD says the pace the minds allow.

``pace = "clock"`` keeps the chosen speed whatever the minds manage (a fast
show on routines); headless lockstep runs never come here.

``PaceStatus`` is what the HUD and the benchmark read: the pace chosen and the
pace reached (sim minutes per real second, over the last few seconds), the
lag, and who holds the clock.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from game.sim import Job, Simulation
from game.sim.jobs import END_CONVERSATION, MEMO_WAIT, UTTER
from game.sim.throughput import kind_of

PACES = ("minds", "clock")
LAG_MIN = 2.0  # sim minutes: the clock stands still when a decision is this late
REACHED_WINDOW_S = 4.0  # real seconds the reached pace is averaged over


@dataclass
class PaceStatus:
    pace: str  # "minds" | "clock"
    chosen: float  # sim minutes per real second at the chosen speed
    reached: float  # sim minutes per real second actually reached lately
    lag_min: float  # the longest wait for a decision (sim minutes)
    holding: list[str] = field(default_factory=list)  # residents the clock waits for, the latest first
    limited: bool = False  # the minds set the pace now (below the chosen speed)
    planning: int = 0  # residents whose first decision of the game has not landed (no action, or lying in)
    allowed: float | None = None  # the pace the minds' measured work allows (sim min/s), None: unmeasured
    steady: bool = False  # the clock runs at ``allowed`` (slowed early), not held by a late decision
    first_up: str | None = None  # "06:00": when the first resident gets up, while the whole town sleeps


class Pacer:
    """How fast the clock may run this frame, and what it reached."""

    def __init__(self, pace: str = "minds", lag_min: float = LAG_MIN) -> None:
        if pace not in PACES:
            raise ValueError(f"pace must be one of {PACES}, not {pace!r}")
        self.pace = pace
        self.lag_min = float(lag_min)
        self.lag = 0.0
        self.holding: list[str] = []
        self.factor_now = 1.0
        self.allowed: float | None = None  # steady_pace at the last factor()
        self.steady = False  # the last factor() was set by steady_pace, not by the lag
        self._samples: list[tuple[float, float]] = []  # (real seconds, sim minutes) per frame, newest last
        self._window_s = 0.0
        self._window_min = 0.0

    def toggle(self) -> str:
        self.pace = "clock" if self.pace == "minds" else "minds"
        return self.pace

    def factor(self, sim: Simulation, chosen: float | None = None) -> float:
        """0..1: the share of the chosen speed (``chosen`` sim minutes per real second)
        the clock may run at now: held by a late decision, or capped by the pace the
        minds' queued work allows (``steady_pace``)."""
        lag, who = sim.decision_lag()
        self.lag = lag
        self.allowed = steady_pace(sim, self.lag_min)
        self.steady = False
        if self.pace == "clock":
            self.holding = []
            self.factor_now = 1.0
            return 1.0
        half = self.lag_min / 2.0
        f = 1.0 if lag <= half else max(0.0, (self.lag_min - lag) / half)
        limit = self.lag_min if f == 0.0 else half
        self.holding = [n for n in who if _waited(sim, n) >= limit] if f < 1.0 else []
        if chosen and chosen > 0 and self.allowed is not None and self.allowed / chosen < f:
            f = self.allowed / chosen
            self.steady = True
        self.factor_now = f
        return f

    def note(self, real_s: float, sim_min: float) -> None:
        """A frame's real seconds and the sim minutes the clock advanced in it."""
        self._samples.append((real_s, sim_min))
        self._window_s += real_s
        self._window_min += sim_min
        while len(self._samples) > 1 and self._window_s - self._samples[0][0] > REACHED_WINDOW_S:
            s, m = self._samples.pop(0)
            self._window_s -= s
            self._window_min -= m

    def reached(self) -> float:
        return max(0.0, self._window_min / self._window_s) if self._window_s > 0 else 0.0

    def reset(self) -> None:
        """A load or a pause: the reached pace starts afresh."""
        self._samples = []
        self._window_s = self._window_min = 0.0

    def status(self, chosen: float, sim: Simulation) -> PaceStatus:
        residents = [b for b in sim.bodies.values() if not b.visitor and not b.controlled]
        planning = sum(1 for b in residents if b.action is None or getattr(b, "lying_in", False))
        sleeping = [b.action.end for b in residents if getattr(b, "asleep", False) and b.action is not None]
        first_up = min(sleeping).strftime("%H:%M") if residents and len(sleeping) == len(residents) else None
        return PaceStatus(pace=self.pace, chosen=chosen, reached=round(self.reached(), 3), lag_min=round(self.lag, 2),
                          holding=list(self.holding), limited=self.pace == "minds" and self.factor_now < 1.0,
                          planning=planning, allowed=None if self.allowed is None else round(self.allowed, 3),
                          steady=self.steady, first_up=first_up)


def steady_pace(sim: Simulation, lag_min: float = LAG_MIN) -> float | None:
    """The fastest pace (sim minutes per real second) at which every queued job that a
    resident waits for is done by the time it is needed plus ``lag_min``, the jobs taken
    in the order the pool runs them (by that time), each costing its kind's measured
    seconds (``sim.throughput``; before the first is back, as long as they have been out).
    None when no job went out yet or nothing waits."""
    tp = getattr(sim, "throughput", None)
    if tp is None or not tp.measuring:
        return None
    work = []
    for name, job in [*sim.jobs.running().items(), *sim.jobs.waiting()]:
        if job.urgent:
            continue  # the player's work runs on an instance of its own
        due = _due(sim, name, job)
        # Work nothing waits on (a reply asked ahead, a memo) still takes the pool's time, in the pool's order.
        order = due if due is not None else _order(sim, job)
        work.append((order, due is not None, tp.expected(kind_of(job)) or 0.0))
    work.sort(key=lambda x: x[0])
    cap: float | None = None
    cum = 0.0
    for due, waited_for, seconds in work:
        cum += seconds / tp.workers
        if not waited_for:
            continue
        slack = (due - sim.now).total_seconds() / 60.0 + lag_min
        if slack <= 0 or cum <= 0:
            continue  # already late: the lag holds the clock
        cap = slack / cum if cap is None else min(cap, slack / cum)
    return cap


def _order(sim: Simulation, job: Job) -> datetime:
    """Where a job nothing waits on runs among the rest: by the sim time it is ranked
    by (``Simulation.rank_of``: when it was asked; a memo of a talk half an hour on)."""
    if job.kind == END_CONVERSATION:
        return sim.now + MEMO_WAIT
    return job.need or job.at or sim.now


def _due(sim: Simulation, name: str, job: Job) -> datetime | None:
    """When a job's answer is needed (sim time), or None for work nothing waits on."""
    if job.kind == "prepare" or (job.kind == "decide" and job.ahead):
        return job.need
    if job.kind == "decide" and job.reason in ("start", "done"):
        b = sim.bodies.get(name)
        return getattr(b, "waiting_since", None)
    if job.kind == UTTER:  # a line its talk waits for (not a reply asked ahead: its talk awaits none of it yet)
        b = sim.bodies.get(name)
        return sim.awaited_since(b) if b is not None and b.conversation == job.chat else None
    return None


def _waited(sim: Simulation, name: str) -> float:
    b = sim.bodies.get(name)
    since = None if b is None else sim.awaited_since(b)
    return 0.0 if since is None else (sim.now - since).total_seconds() / 60.0


def describe(status: PaceStatus) -> str:
    """The HUD's line: the pace reached, and who sets it when the minds do."""
    if status.pace == "clock":
        return f"pace: clock ({status.chosen:g} min/s, routines fill in)"
    if status.first_up and (not status.limited or status.steady):
        return f"the town sleeps: the first get up at {status.first_up} ({status.reached:.2g} min/s)"
    if status.planning and (not status.limited or status.steady):
        return f"the town wakes: {status.planning} in bed while their day is planned ({status.reached:.2g} min/s)"
    if not status.limited:
        return f"pace: minds keep up ({status.reached:.2g} min/s)"
    if status.steady:
        return f"pace {status.reached:.2g} min/s: what the minds allow"
    if status.planning:
        return f"clock waits: the minds plan the morning ({status.planning} to go)"
    who = ", ".join(n.split()[0] for n in status.holding[:3])
    more = f" +{len(status.holding) - 3}" if len(status.holding) > 3 else ""
    return f"clock at {status.reached:.1f} min/s: waiting for {who or 'the minds'}{more}"


__all__ = ["LAG_MIN", "PACES", "PaceStatus", "Pacer", "describe", "steady_pace"]
