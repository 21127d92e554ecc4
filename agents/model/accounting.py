"""Every model call, counted: tokens, latency, cost and outcome, per resident and purpose.

Thread-safe: worker threads record, the HUD and headless runs read ``summary()``.
``open_jsonl(path)`` streams each record as one JSON line as it happens, redacted
(agents/support/redact.py): a run folder may be shared. ``Accounted`` is the ledger as a
layer of the model road (agents/model/asking.py): every ask that reaches the gateway
is one record, and the decision record gets the call (agents/explain/why.py).
"""
from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from agents.explain import why
from agents.model.asking import LanguageModel, Reply, Request
from agents.support.redact import redact

log = logging.getLogger(__name__)

OUTCOMES = ("ok", "retried", "fallback")


@dataclass
class CallRecord:
    time: float  # wall-clock seconds (time.time()) when the call finished
    model: str
    purpose: str
    resident: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0
    outcome: str = "ok"  # ok | retried (valid after a retry) | fallback
    error: str | None = None  # kind of the last problem: invalid, empty, timeout, rate_limit, connection, ...
    attempts: int = 1  # model calls made (including transient-error retries)
    cached: bool = False  # answered from the response cache

    # dict[str, Any] here and below: the ledger as plain JSON (run files, saves, the HUD), read back by key
    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Totals:
    calls: int = 0
    ok: int = 0
    retried: int = 0
    fallback: int = 0
    cached: int = 0
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)

    def add(self, r: CallRecord) -> None:
        self.calls += 1
        if r.outcome == "ok":
            self.ok += 1
        elif r.outcome == "retried":
            self.retried += 1
        else:
            self.fallback += 1
        self.cached += int(r.cached)
        self.attempts += r.attempts
        self.prompt_tokens += r.prompt_tokens
        self.completion_tokens += r.completion_tokens
        self.latency_s += r.latency_s
        self.cost_usd += r.cost_usd
        if r.error:
            self.errors[r.error] = self.errors.get(r.error, 0) + 1

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["tokens"] = self.tokens
        d["latency_s"] = round(self.latency_s, 3)
        d["mean_latency_s"] = round(self.latency_s / self.calls, 3) if self.calls else 0.0
        d["cost_usd"] = round(self.cost_usd, 6)
        return d


class Accounting:
    """Thread-safe ledger of model calls."""

    def __init__(self, keep_recent: int = 200) -> None:
        self._lock = threading.Lock()
        self.total = Totals()
        self.by_resident: dict[str, Totals] = {}
        self.by_purpose: dict[str, Totals] = {}
        self.recent: deque[CallRecord] = deque(maxlen=keep_recent)
        self._jsonl: IO[str] | None = None
        self._jsonl_path: Path | None = None
        self.started = time.time()

    # -- recording ---------------------------------------------------------------
    def record(self, rec: CallRecord) -> None:
        with self._lock:
            self.total.add(rec)
            self.by_resident.setdefault(rec.resident or "-", Totals()).add(rec)
            self.by_purpose.setdefault(rec.purpose, Totals()).add(rec)
            self.recent.append(rec)
            if self._jsonl is not None:
                try:
                    self._jsonl.write(redact(json.dumps(rec.to_dict(), ensure_ascii=False)) + "\n")
                    self._jsonl.flush()
                except (OSError, ValueError) as err:  # a full disk must not stop the town
                    log.warning("accounting: cannot write %s: %s", self._jsonl_path, err)
                    self._jsonl = None

    def open_jsonl(self, path: str | Path, append: bool = True) -> Path:
        """Stream every following record to ``path`` as one JSON object per line."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        fh = p.open("a" if append else "w", encoding="utf-8")
        with self._lock:
            if self._jsonl is not None:
                self._jsonl.close()
            self._jsonl, self._jsonl_path = fh, p
        return p

    def close(self) -> None:
        with self._lock:
            if self._jsonl is not None:
                self._jsonl.close()
                self._jsonl = None

    # -- reading -----------------------------------------------------------------
    @property
    def calls(self) -> int:
        with self._lock:
            return self.total.calls

    def counts(self) -> dict[str, int]:
        """calls, ok, retried, fallback, cached (cheap, for tests and the HUD)."""
        with self._lock:
            t = self.total
            return {"calls": t.calls, "ok": t.ok, "retried": t.retried, "fallback": t.fallback, "cached": t.cached}

    def summary(self) -> dict[str, Any]:
        with self._lock:
            return {
                "total": self.total.to_dict(),
                "by_resident": {k: v.to_dict() for k, v in sorted(self.by_resident.items())},
                "by_purpose": {k: v.to_dict() for k, v in sorted(self.by_purpose.items())},
                "elapsed_s": round(time.time() - self.started, 1),
            }

    def records(self) -> list[CallRecord]:
        with self._lock:
            return list(self.recent)

    # -- saving ------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        """The totals and recent records as plain data (for a save; cheap)."""
        with self._lock:
            return {
                "total": _totals_state(self.total),
                "by_resident": {k: _totals_state(v) for k, v in self.by_resident.items()},
                "by_purpose": {k: _totals_state(v) for k, v in self.by_purpose.items()},
                "recent": [dict(r.__dict__) for r in self.recent],  # asdict is 20x slower
            }

    def from_state(self, state: dict[str, Any]) -> None:
        """Replace the totals with a save's (the open JSONL stream, if any, stays).
        Everything is parsed before anything changes: a bad state raises
        (ValueError/TypeError/KeyError) and leaves this ledger as it was."""
        total = _totals_from(state["total"])
        by_res = {str(k): _totals_from(v) for k, v in (state.get("by_resident") or {}).items()}
        by_pur = {str(k): _totals_from(v) for k, v in (state.get("by_purpose") or {}).items()}
        recent = [CallRecord(**r) for r in (state.get("recent") or [])]
        with self._lock:
            self.total, self.by_resident, self.by_purpose = total, by_res, by_pur
            self.recent = deque(recent, maxlen=self.recent.maxlen)


class Accounted:
    """Records every ask in ``accounting`` (cached, answered or fallen back) and hands
    the call to the decision record of ``gateway`` (its ``why_log``, agents/explain/why.py)."""

    def __init__(self, accounting: Accounting, model: str, gateway: why.Logged, inner: LanguageModel) -> None:
        self.accounting = accounting
        self.model = model
        self.gateway = gateway
        self.inner = inner

    def ask_once(self, request: Request) -> Reply:
        t0 = time.monotonic()
        reply = self.inner.ask_once(request)
        usage = reply.usage
        rec = CallRecord(time=0.0, model=self.model, purpose=request.purpose, resident=request.resident,
                         prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                         cost_usd=usage.cost_usd, outcome=reply.outcome, error=reply.ledger_error,
                         attempts=reply.attempts, cached=reply.cached)
        rec.latency_s = time.monotonic() - t0
        rec.time = time.time()
        self.accounting.record(rec)
        why.note_call(self.gateway, request.messages, reply.raws, reply.value, rec)
        return replace(reply, latency_s=rec.latency_s)


_TOTAL_FIELDS = ("calls", "ok", "retried", "fallback", "cached", "attempts", "prompt_tokens", "completion_tokens",
                 "latency_s", "cost_usd")


def _totals_state(t: Totals) -> dict[str, Any]:
    d = {k: getattr(t, k) for k in _TOTAL_FIELDS}
    d["errors"] = dict(t.errors)
    return d


def _totals_from(d: dict[str, Any]) -> Totals:
    t = Totals()
    for k in _TOTAL_FIELDS:
        if k in d:
            setattr(t, k, type(getattr(t, k))(d[k]))
    t.errors = {str(k): int(v) for k, v in (d.get("errors") or {}).items()}
    return t
