"""The game's clock keeps pace with its minds (DESIGN.md, Pacing). No pygame.

In play the town runs at the chosen speed only while the awake residents' next
decisions keep up. The lag is the longest any of them has waited for its
mind's decision (``Simulation.decision_lag``). Up to half of ``LAG_MIN`` the
clock runs at full speed; from there it slows linearly and stands still at
``LAG_MIN`` sim minutes, until the minds catch up. The frame never waits:
walking is drawn between steps, and the visitor walks in real time.

``pace = "clock"`` keeps the chosen speed whatever the minds manage (a fast
show on routines); headless lockstep runs never come here.

``PaceStatus`` is what the HUD and the benchmark read: the pace chosen and the
pace reached (sim minutes per real second, over the last few seconds), the
lag, and who holds the clock.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
    planning: int = 0  # residents with no action yet: waiting for their first decision of the game


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
        self._samples: list[tuple[float, float]] = []  # (real seconds, sim minutes) per frame, newest last
        self._window_s = 0.0
        self._window_min = 0.0

    def toggle(self) -> str:
        self.pace = "clock" if self.pace == "minds" else "minds"
        return self.pace

    def factor(self, sim: Any) -> float:
        """0..1: the share of the chosen speed the clock may run at now."""
        lag, who = sim.decision_lag()
        self.lag = lag
        if self.pace == "clock":
            self.holding = []
            self.factor_now = 1.0
            return 1.0
        half = self.lag_min / 2.0
        f = 1.0 if lag <= half else max(0.0, (self.lag_min - lag) / half)
        limit = self.lag_min if f == 0.0 else half
        self.holding = [n for n in who if _waited(sim, n) >= limit] if f < 1.0 else []
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

    def status(self, chosen: float, sim: Any) -> PaceStatus:
        planning = sum(1 for b in sim.bodies.values() if not b.visitor and not b.controlled and b.action is None)
        return PaceStatus(pace=self.pace, chosen=chosen, reached=round(self.reached(), 3), lag_min=round(self.lag, 2),
                          holding=list(self.holding), limited=self.pace == "minds" and self.factor_now < 1.0,
                          planning=planning)


def _waited(sim: Any, name: str) -> float:
    b = sim.bodies.get(name)
    if b is None or b.waiting_since is None:
        return 0.0
    return (sim.now - b.waiting_since).total_seconds() / 60.0


def describe(status: PaceStatus) -> str:
    """The HUD's line: the pace reached, and who sets it when the minds do."""
    if status.pace == "clock":
        return f"pace: clock ({status.chosen:g} min/s, routines fill in)"
    if not status.limited:
        return f"pace: minds keep up ({status.reached:.2g} min/s)"
    if status.planning:
        return f"clock waits: the minds plan the morning ({status.planning} to go)"
    who = ", ".join(n.split()[0] for n in status.holding[:3])
    more = f" +{len(status.holding) - 3}" if len(status.holding) > 3 else ""
    return f"clock at {status.reached:.1f} min/s: waiting for {who or 'the minds'}{more}"


__all__ = ["PACES", "LAG_MIN", "PaceStatus", "Pacer", "describe"]
