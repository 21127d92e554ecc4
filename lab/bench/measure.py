"""What every benchmark shares: its context (quick or full, the map, the seed,
notes), the way it says it cannot run here (Skipped), and the statistics
figures are made of (medians and percentiles, never single runs)."""
from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from game.support import folders

ROOT = Path(__file__).resolve().parents[2]


MAP = folders.default_map()


class Skipped(Exception):
    """A benchmark that cannot run here (a missing part); str() is the reason."""


@dataclass
class Context:
    quick: bool = False
    map_path: Path = MAP
    economy_run: str | None = None
    economy_hours: float | None = None
    seed: int = 0
    out_dir: Path | None = None  # where results (and plots) go
    notes: list[str] = field(default_factory=list)

    def n(self, full: int, quick: int) -> int:
        return quick if self.quick else full

    def note(self, text: str) -> None:
        self.notes.append(text)


def percentile(values: Iterable[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100) of a non-empty sequence."""
    xs = sorted(float(v) for v in values)
    if not xs:
        raise ValueError("percentile of nothing")
    pos = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summarise_ms(values: list[float], prefix: str = "") -> dict[str, float]:
    """median, p90, p99, max (ms, 3 decimals) and the count."""
    return {
        f"{prefix}median_ms": round(statistics.median(values), 3),
        f"{prefix}p90_ms": round(percentile(values, 90), 3),
        f"{prefix}p99_ms": round(percentile(values, 99), 3),
        f"{prefix}max_ms": round(max(values), 3),
        f"{prefix}n": len(values),
    }
