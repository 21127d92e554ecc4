"""The play speeds (no pygame): sim minutes per real second for keys 1-5, and the
morning a skip runs to. The window's session, its saves and the replay share them."""
from __future__ import annotations

from datetime import datetime, timedelta

from game.sim.settings import STEP

SPEEDS: dict[int, float] = {1: 1.0, 2: 5.0, 3: 15.0, 4: 30.0, 5: 60.0}  # sim minutes per real second
DEFAULT_SPEED = 1
MORNING_HOUR = 7
STEP_S = STEP.total_seconds()


def steps_per_second(speed: int) -> float:
    return SPEEDS[speed] * 60.0 / STEP_S


def next_morning(now: datetime, hour: int = MORNING_HOUR) -> datetime:
    """The next ``hour``:00 after ``now`` (at 02:00 that is today's, at 08:00 tomorrow's)."""
    t = now.replace(hour=hour, minute=0, second=0, microsecond=0)
    return t if t > now else t + timedelta(days=1)
