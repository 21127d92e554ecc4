"""What a run will cost before it starts, learned from the runs before it, and
the ceiling that stops a run when it has spent what it may.

    forecast: ~310 calls, ~118k tokens, ~2 min wall, free (scripted/competent; measured over 3 runs)

A resident's model use has two parts: what a day's start costs (the summary of
who they are, yesterday, the day plan: once per resident per sim day) and what
an hour costs (actions, reactions, conversations, importance, reflections).
Every headless run measures both for its model, per resident, and adds them to
``forecast_rates.json`` in the cache folder (``agents.home.cache_dir()``), the
older runs weighing less (``DECAY``); a model not measured yet gets the default
of its kind (the embedded model, the scripted stand-ins, a hosted model).
Money comes from litellm's cost map (local: ``LITELLM_LOCAL_MODEL_COST_MAP``)
for hosted models; local models are free.

``Ceiling`` is ``--max-cost`` / ``--max-tokens``: counted from the run's start
(a resumed run's earlier spending is not counted twice), checked after every
step; a headless run that reaches it stops there and saves.
"""
from __future__ import annotations

import json
import logging
import math
import os
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from agents import EMBEDDED_PROVIDER, Accounting, ModelConfig, home

try:
    import fcntl  # parallel branches finishing together must not lose each other's measurement
except ImportError:  # Windows: the process-local lock only
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

RATES_FILE = "forecast_rates.json"
DECAY = 0.8  # a new run's measurement counts fully, each older one 0.8 times less than the one after it
MIN_HOURS = 0.25  # a run shorter than this (sim hours) teaches nothing: its first step would weigh too much
DAILY_PURPOSES = ("summary", "yesterday", "day_plan")  # by prefix: once per resident per sim day
WAKE_HOUR = 6  # a day's start is counted when a run passes this hour (residents wake 5-8 am)
KEYS = ("calls", "prompt_tokens", "completion_tokens")

# Per resident: a day's start and a sim hour, by model kind, until a run of the model is measured.
# Measured on this project's own runs (2026-11-25, from 07:00 on the first day): the competent
# stand-in over 8 residents x 6 sim hours; the embedded model over 2 residents x 2 sim hours (its
# wall time is between that run's 65 s per resident-hour, on two cores shared with other work and
# paying for the model's loading, and the 7 s of a whole unhurried day); hosted: the competent
# stand-in's counts (a model that talks and plans as much) at a hosted model's latency.
DEFAULTS: dict[str, dict[str, Any]] = {
    "scripted": {"day": {"calls": 2.0, "prompt_tokens": 510.0, "completion_tokens": 260.0},
                 "hour": {"calls": 5.5, "prompt_tokens": 1530.0, "completion_tokens": 185.0},
                 "wall_s_per_resident_hour": 1.0},
    "embedded": {"day": {"calls": 2.0, "prompt_tokens": 620.0, "completion_tokens": 140.0},
                 "hour": {"calls": 5.75, "prompt_tokens": 1950.0, "completion_tokens": 137.0},
                 "wall_s_per_resident_hour": 20.0},
    "hosted": {"day": {"calls": 2.0, "prompt_tokens": 510.0, "completion_tokens": 260.0},
               "hour": {"calls": 5.5, "prompt_tokens": 1530.0, "completion_tokens": 185.0},
               "wall_s_per_resident_hour": 12.0},
}
_lock = threading.Lock()


def kind_of(model: str) -> str:
    provider = model.split("/", 1)[0] if "/" in model else ""
    if provider == EMBEDDED_PROVIDER:
        return "embedded"
    if provider == "scripted":
        return "scripted"
    return "hosted"


def rates_path(folder: str | Path | None = None) -> Path:
    return Path(folder) if folder is not None and Path(folder).suffix == ".json" else \
        Path(folder or home.cache_dir()) / RATES_FILE


def day_starts(start: datetime, hours: float, fresh: bool) -> int:
    """Day starts per resident in the span: a new run's first (it plans at once), then one
    each time the span passes WAKE_HOUR."""
    end = start + timedelta(hours=max(0.0, hours))
    n = 1 if fresh else 0
    wake = start.replace(hour=WAKE_HOUR, minute=0, second=0, microsecond=0)
    if wake <= start:
        wake += timedelta(days=1)
    while wake < end:
        n += 1
        wake += timedelta(days=1)
    return n


# ---------------------------------------------------------------------------- the measured rates


# Any: JSON, as the rates file holds it (checked here)
def read_rates(path: str | Path | None = None) -> dict[str, Any]:
    """model -> its measured sums, only the entries that are whole; {} when there is none.
    The file is a cache: any damage means "not measured" for what it touches (one log line
    per file), and the next run's measurement writes it whole again."""
    p = rates_path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError, MemoryError) as err:  # RecursionError: nested too deep
        _damaged(p, f"{type(err).__name__}: {str(err)[:80]}")
        return {}
    if not isinstance(data, dict):
        _damaged(p, "not a table of models")
        return {}
    good = {m: e for m, e in data.items() if _whole_entry(e)}
    if len(good) < len(data):
        _damaged(p, f"{len(data) - len(good)} model entr{'y' if len(data) - len(good) == 1 else 'ies'} unusable")
    return good


_warned: set[str] = set()  # damaged rates files already logged (once per file and process)


def _damaged(p: Path, why: str) -> None:
    if str(p) not in _warned:
        _warned.add(str(p))
        log.warning("forecast rates %s are damaged (%s); using the defaults where they are, "
                    "and the next run measures afresh", p, why)


# Any: JSON, as the rates file holds it (checked here)
def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


# Any: JSON, as the rates file holds it (checked here)
def _whole_entry(entry: Any) -> bool:
    """A model's rates as _learn writes them: non-negative finite sums, and day/hour tables of them."""
    if not isinstance(entry, dict):
        return False
    if not all(_number(entry.get(k, 0)) for k in ("runs", "day_starts", "resident_hours", "wall_s")):
        return False
    return all(isinstance(entry.get(part, {}), dict) and all(_number(entry.get(part, {}).get(k, 0)) for k in KEYS)
               for part in ("day", "hour"))


def _usage(summary: dict) -> tuple[dict[str, float], dict[str, float]]:
    """(a day's-start part, the rest) of an accounting summary's by_purpose."""
    day = dict.fromkeys(KEYS, 0.0)
    hour = dict.fromkeys(KEYS, 0.0)
    for purpose, t in (summary.get("by_purpose") or {}).items():
        into = day if str(purpose).startswith(DAILY_PURPOSES) else hour
        for k in KEYS:
            into[k] += float(t.get(k, 0) or 0)
    return day, hour


# Any: JSON, as the rates file holds it (checked here)
def learn(model: str, before: dict | None, after: dict, *, residents: int, hours: float, start: datetime,
          fresh: bool, wall_s: float, path: str | Path | None = None) -> dict[str, Any] | None:
    """Add one run to the model's rates: ``before`` and ``after`` are the accounting's
    summaries at the run's start and end (a resumed run's earlier calls are not its own).
    Returns the model's new entry; None when the run was too short to teach anything
    (or the rates file cannot be written: logged, the run goes on)."""
    if residents < 1 or hours < MIN_HOURS:
        return None
    try:
        return _learn(model, before, after, residents=residents, hours=hours, start=start, fresh=fresh,
                      wall_s=wall_s, path=path)
    except Exception as err:  # noqa: BLE001 - a forecast must never stop a run before its summary is written
        log.warning("forecast rates for %s cannot be kept: %s", model, err)
        return None


# Any: JSON, as the rates file holds it (checked here)
def _learn(model: str, before: dict | None, after: dict, *, residents: int, hours: float, start: datetime,
           fresh: bool, wall_s: float, path: str | Path | None) -> dict[str, Any]:
    d1, h1 = _usage(after)
    d0, h0 = _usage(before or {})
    starts = day_starts(start, hours, fresh) * residents
    p = rates_path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with _lock, open(p.with_suffix(".lock"), "a") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        data = read_rates(p)
        old = data.get(model) or {}
        keep = DECAY if old else 0.0
        new = {
            "runs": int(old.get("runs", 0)) + 1,
            "day_starts": keep * float(old.get("day_starts", 0)) + starts,
            "resident_hours": keep * float(old.get("resident_hours", 0)) + residents * hours,
            "wall_s": keep * float(old.get("wall_s", 0)) + max(0.0, wall_s),
            "day": {k: keep * float((old.get("day") or {}).get(k, 0)) + d1[k] - d0[k] for k in KEYS},
            "hour": {k: keep * float((old.get("hour") or {}).get(k, 0)) + h1[k] - h0[k] for k in KEYS},
            "updated": datetime.now().isoformat(timespec="seconds"),
        }
        data[model] = new
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".rates-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
        os.replace(tmp, p)  # whole or not at all: parallel branches never read half a file
    return new


@dataclass
class Rates:
    """Per resident: a day's start and a sim hour; wall seconds per resident-hour."""
    day: dict[str, float]
    hour: dict[str, float]
    wall_s_per_resident_hour: float
    basis: str


def rates_for(model: str, path: str | Path | None = None) -> Rates:
    entry = read_rates(path).get(model) or {}
    rh, ds = float(entry.get("resident_hours", 0) or 0), float(entry.get("day_starts", 0) or 0)
    default = DEFAULTS[kind_of(model)]
    if rh <= 0:
        return Rates(dict(default["day"]), dict(default["hour"]), default["wall_s_per_resident_hour"],
                     f"the default for {kind_of(model)} models: no run of it measured yet")
    day = {k: float((entry.get("day") or {}).get(k, 0)) / ds for k in KEYS} if ds > 0 else dict(default["day"])
    hour = {k: max(0.0, float((entry.get("hour") or {}).get(k, 0))) / rh for k in KEYS}
    runs = int(entry.get("runs", 1))
    return Rates(day, hour, float(entry.get("wall_s", 0)) / rh,
                 f"measured over {runs} run{'s' if runs != 1 else ''}")


# ---------------------------------------------------------------------------- the forecast


@dataclass
class Forecast:
    model: str
    residents: int
    hours: float
    calls: int
    prompt_tokens: int
    completion_tokens: int
    wall_s: float
    cost_usd: float | None  # None: a hosted model litellm has no price for
    free: bool
    basis: str

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def line(self, what: str = "") -> str:
        money = "free" if self.free else ("price unknown" if self.cost_usd is None else f"~${self.cost_usd:,.2f}")
        return (f"forecast{(' ' + what) if what else ''}: ~{self.calls:,} calls, ~{_k(self.tokens)} tokens, "
                f"~{_duration(self.wall_s)} wall, {money} ({self.model}; {self.basis})")

    # Any: JSON, as the rates file holds it (checked here)
    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "residents": self.residents, "hours": self.hours, "calls": self.calls,
                "tokens": self.tokens, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "wall_s": round(self.wall_s, 1),
                "cost_usd": self.cost_usd, "free": self.free, "basis": self.basis}


def _k(n: float) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.0f}k" if n >= 1e4 else f"{n:,.0f}"


def _duration(s: float) -> str:
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def price(model: str, prompt_tokens: float, completion_tokens: float) -> float | None:
    """Dollars for these tokens from litellm's (local) cost map; None when it has no price."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm  # lazy: heavy, and only hosted models need a price

    entry = litellm.model_cost.get(model) or litellm.model_cost.get(model.split("/", 1)[-1])
    if not entry:
        return None
    return (prompt_tokens * float(entry.get("input_cost_per_token") or 0)
            + completion_tokens * float(entry.get("output_cost_per_token") or 0))


def forecast(config: ModelConfig | str | None, *, residents: int, hours: float, start: datetime, fresh: bool = True,
             runs: int = 1, path: str | Path | None = None) -> Forecast:
    """What ``runs`` runs of ``residents`` residents for ``hours`` sim hours from ``start`` will
    use with ``config``'s model (``fresh``: a new run, which plans the day at once)."""
    model = str(getattr(config, "model", config))
    r = rates_for(model, path)
    starts = day_starts(start, hours, fresh) * residents * runs
    rh = residents * hours * runs
    use = {k: r.day[k] * starts + r.hour[k] * rh for k in KEYS}
    local = getattr(config, "is_local", None)
    free = bool(local) if local is not None else kind_of(model) != "hosted"
    cost = 0.0 if free else price(model, use["prompt_tokens"], use["completion_tokens"])
    return Forecast(model, residents, hours, round(use["calls"]), round(use["prompt_tokens"]),
                    round(use["completion_tokens"]), r.wall_s_per_resident_hour * rh, cost, free, r.basis)


def announce_in_background(config: ModelConfig | None, residents: int, say: Callable[[str], None]) -> threading.Thread:
    """The game's start line, worked out off the main thread (it reads the rates file and
    maybe litellm's cost map): per sim hour and per sim day of this town, handed to ``say``."""
    def work() -> None:
        try:
            hour = forecast(config, residents=residents, hours=1.0, start=datetime(2023, 2, 13, 12), fresh=False)
            day = forecast(config, residents=residents, hours=24.0, start=datetime(2023, 2, 13, 7), fresh=True)
            money = "free" if day.free else ("price unknown" if day.cost_usd is None else f"~${day.cost_usd:,.2f}")
            say(f"forecast ({residents} residents, {day.model}): ~{hour.calls:,} calls and ~{_k(hour.tokens)} tokens "
                f"per sim hour; a sim day ~{day.calls:,} calls, ~{_k(day.tokens)} tokens, {money} ({day.basis})")
        except Exception:  # a forecast must never stop the game
            log.exception("the start-up forecast failed")

    t = threading.Thread(target=work, name="forecast", daemon=True)
    t.start()
    return t


# ---------------------------------------------------------------------------- the ceiling


@dataclass
class Ceiling:
    """``--max-cost`` (dollars) and ``--max-tokens``, counted from ``start(accounting)``."""
    max_cost: float | None = None
    max_tokens: int | None = None
    _tokens0: int = 0
    _cost0: float = 0.0

    def __post_init__(self) -> None:
        if self.max_cost is not None and self.max_cost <= 0:
            raise ValueError(f"--max-cost must be more than 0 dollars, not {self.max_cost}")
        if self.max_tokens is not None and self.max_tokens <= 0:
            raise ValueError(f"--max-tokens must be more than 0, not {self.max_tokens}")

    @property
    def active(self) -> bool:
        return self.max_cost is not None or self.max_tokens is not None

    def start(self, accounting: Accounting) -> None:
        t = accounting.total
        self._tokens0, self._cost0 = t.tokens, t.cost_usd

    def reached(self, accounting: Accounting) -> str | None:
        """Why the run must stop now, or None."""
        t = accounting.total
        if self.max_tokens is not None and t.tokens - self._tokens0 >= self.max_tokens:
            return f"the token ceiling ({self.max_tokens:,}) was reached: {t.tokens - self._tokens0:,} tokens used"
        if self.max_cost is not None and t.cost_usd - self._cost0 >= self.max_cost:
            return f"the cost ceiling (${self.max_cost:,.2f}) was reached: ${t.cost_usd - self._cost0:,.4f} spent"
        return None


__all__ = [
    "RATES_FILE",
    "Ceiling",
    "Forecast",
    "Rates",
    "announce_in_background",
    "day_starts",
    "forecast",
    "kind_of",
    "learn",
    "price",
    "rates_for",
    "read_rates",
]
