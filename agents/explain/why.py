"""Why a resident did what it did: one decision record per model question.

A record holds what went into a decision and what came out of it:

- ``retrievals``: each query the mind asked its memory stream for this decision,
  and each memory retrieval brought up, with its three terms (recency,
  importance, relevance), each min-max scaled over the candidates as the paper
  does, and the weighted total (``scaled`` and ``total``); ``bounds`` are the
  [min, max] of each term over the candidates, so anyone can recompute a score
  from the raw terms;
- ``call``: the prompt as sent (the messages), every raw answer as received
  (a rejected one, then the retry's), model, tokens, latency, cache hit,
  attempts and outcome;
- ``answer``: the validated answer (or null: a rule stood in), and ``fallback``:
  why the model's answer was not used ("invalid", "timeout", "budget", ...).

How records are made, without spreading code over the minds: a worker thread
runs one resident's job at a time, so what belongs to one decision is what
happens on one thread between two questions. ``MemoryStream.retrieve`` calls
``note_retrieval`` (kept on the thread until the question), ``Mind.ask`` calls
``begin`` and ``end`` around the question, and the gateway calls
``note_call`` with the messages and raw answers. A gateway with no ``WhyLog``
attached (``attach``) records nothing, and retrievals cost nothing extra while
no log is open anywhere.

Where they go: a ``WhyLog`` appends one JSON line per record to a gzip file
(``why.jsonl.gz`` in a run folder, ``recordings/<stamp>.why.jsonl.gz`` beside
the game's recording) and keeps the newest records of each resident in memory
for the inspector. The setting ``why`` (smallville.toml / SMALLVILLE_WHY:
full | hashes | off) keeps, with ``hashes``, the prompts, raw answers, queries and
memory texts only as SHA-256 hashes, plus the retrieved memory ids and scores and
the validated answer (the act itself, as the event log has it anyway).

The act (a line said, an action, a plan item) finds its record with ``find``:
the resident's record of the act's kind at the act's sim time (acts are made
by the job that asked), preferring one whose answer holds the act's words.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import logging
import math
import re
import threading
import zlib
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from agents.explain import purposes

log = logging.getLogger(__name__)

FILE = "why.jsonl.gz"  # in a run folder
GAME_SUFFIX = ".why.jsonl.gz"  # beside the game's recording: recordings/<stamp>.why.jsonl.gz
FORMAT = 1
MODES = ("full", "hashes", "off")
KEEP_PER_RESIDENT = 400  # records kept in memory per resident, for the inspector
FLUSH_EVERY = 32  # records between flushes of the gzip stream (what a killed run may lose)

# The model questions behind each kind of act (each purpose says which acts it explains:
# agents/explain/purposes.py).
ACT_PURPOSES: dict[str, tuple[str, ...]] = {kind: purposes.explaining(kind) for kind in purposes.ACT_KINDS}
KINDS = tuple(ACT_PURPOSES)



class Remembered(Protocol):
    """What a retrieval's record reads of a memory (agents/recall/memory.py ``MemoryNode``)."""

    kind: str
    description: str
    created: datetime
    last_accessed: datetime
    importance: int
    importance_source: str


class Stream(Protocol):
    """What a retrieval's record reads of the memory stream (agents/recall/memory.py ``MemoryStream``)."""

    @property
    def nodes(self) -> Sequence[Remembered]: ...

    def embedding(self, node_id: int) -> np.ndarray: ...


class CallFacts(Protocol):
    """What a decision record keeps of the ledger's record of a call (agents/model/accounting.py ``CallRecord``)."""

    model: str
    purpose: str
    resident: str | None
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cached: bool
    attempts: int
    outcome: str
    error: str | None


class Logged(Protocol):
    """A gateway that may carry a log of decision records (agents/model/gateway.py ``Gateway``)."""

    why_log: WhyLog | None


_local = threading.local()  # .pending: retrievals waiting for their question; .decision: the open record
_active_lock = threading.Lock()
_active = 0  # open logs in this process: retrievals note nothing while there are none


# ------------------------------------------------------------------ the paper's score
def scaled(x: float, lo: float, hi: float) -> float:
    """One term min-max scaled over the candidates (a flat term is 0.5, as agents/recall/memory.py's minmax)."""
    return 0.5 if hi - lo < 1e-12 else (x - lo) / (hi - lo)


def score(raw: tuple[float, float, float], bounds: Iterable, weights: Iterable[float]) -> tuple[list[float], float]:
    """(the three scaled terms, the weighted total) of raw (recency, importance, relevance)."""
    s = [scaled(float(x), float(b[0]), float(b[1])) for x, b in zip(raw, bounds)]
    return s, sum(w * v for w, v in zip(weights, s))


def recency(now: datetime, accessed: datetime, decay: float) -> float:
    """decay ** (sim hours since the memory was last accessed), as the paper's recency."""
    return float(decay) ** max(0.0, (now - accessed).total_seconds() / 3600.0)


def relevance(row: np.ndarray, query: np.ndarray) -> float:
    """The cosine of a unit embedding row and the unit query, in float64 (both as the stream holds them)."""
    return float(np.dot(np.asarray(row, dtype=np.float64), np.asarray(query, dtype=np.float64)))


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------ the hooks
def recording() -> bool:
    """Whether any log is open (retrieval's hook returns at once when not)."""
    return _active > 0


def note_retrieval(stream: Stream, query_text: str | None, query: np.ndarray, now: datetime, weights: Iterable[float],
                   decay: float, candidates: int, bounds: Iterable, chosen: Iterable[int],
                   kinds: Iterable[str] | None = None) -> None:
    """A retrieval on this thread (``MemoryStream.retrieve``, before it touches the
    chosen memories' access times): kept until the thread's next model question.
    ``stream`` (the stream's length then) and ``kinds`` say which memories were the
    candidates: the first ``stream`` nodes of those kinds that had not expired."""
    weights = [float(w) for w in weights]
    memories = []
    for i in chosen:
        node = stream.nodes[int(i)]
        raw = (recency(now, node.last_accessed, decay), float(node.importance),
               relevance(stream.embedding(int(i)), query))
        s, total = score(raw, bounds, weights)
        memories.append({
            "id": int(i), "kind": node.kind, "text": node.description, "created": node.created.isoformat(),
            "accessed": node.last_accessed.isoformat(), "importance_source": node.importance_source,
            "recency": raw[0], "importance": raw[1], "relevance": raw[2], "scaled": s, "total": total})
    pending = getattr(_local, "pending", None)
    if pending is None:
        pending = _local.pending = []
    pending.append({"query": query_text or "", "now": now.isoformat(), "weights": weights, "decay": float(decay),
                    "stream": len(stream.nodes), "kinds": sorted(kinds) if kinds else None,
                    "candidates": int(candidates), "bounds": [[float(lo), float(hi)] for lo, hi in bounds],
                    "memories": memories})
    del pending[:-16]  # a job that retrieves without asking never grows this


def log_of(asker: object) -> WhyLog | None:
    """The log attached to a gateway (or to what a budget wraps), if any. Any object: a
    gateway, a budget, a stand-in of the tests; the log is found by its attributes."""
    for _ in range(3):
        got = getattr(asker, "why_log", None)
        if isinstance(got, WhyLog):
            return got
        asker = getattr(asker, "asker", None)
        if asker is None:
            return None
    return None


def _take_pending() -> list[dict]:
    pending = getattr(_local, "pending", None) or []
    _local.pending = []
    return pending


def begin(asker: object, resident: str | None, now: datetime | None, purpose: str, prompt: str) -> dict | None:
    """A question begins (``Mind.ask``): the record that collects it, or None when nothing records."""
    wlog = log_of(asker)
    if wlog is None or wlog.mode == "off":
        _local.pending = []
        _local.decision = None
        return None
    d = {"resident": resident, "time": now.isoformat() if now else None, "purpose": purpose, "prompt_name": prompt,
         "retrievals": _take_pending(), "call": None, "answer": None, "fallback": None}
    _local.decision, _local.wlog = d, wlog
    return d


def note_call(gateway: object, messages: list[dict], raws: list[str], value: object, rec: CallFacts) -> None:
    """The gateway's part (agents/model/gateway.py ``ask_traced``): the prompt as sent, the raw
    answers, the ledger's record."""
    d = getattr(_local, "decision", None)
    if d is None:  # a question asked around Mind.ask (an interview, an evaluation): a record of its own
        wlog = log_of(gateway)
        if wlog is None or wlog.mode == "off":
            return
        d = {"resident": rec.resident, "time": None, "purpose": rec.purpose,
             "prompt_name": "", "retrievals": _take_pending(), "call": None, "answer": None, "fallback": None}
        d["call"] = _call(messages, raws, rec)
        failed = rec.outcome == "fallback"
        d["answer"], d["fallback"] = (None, rec.error) if failed else (_answer(value), None)
        wlog.write(d)
        return
    d["call"] = _call(messages, raws, rec)


def _call(messages: list[dict], raws: list[str], rec: CallFacts) -> dict:
    return {"model": rec.model, "messages": [dict(m) for m in messages], "raw": [str(r or "") for r in raws],
            "prompt_tokens": rec.prompt_tokens, "completion_tokens": rec.completion_tokens,
            "latency_s": round(rec.latency_s, 4), "cached": rec.cached, "attempts": rec.attempts,
            "outcome": rec.outcome, "error": rec.error}


def _answer(value: object) -> object:
    if value is None:
        return None
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="json")
        except Exception:  # noqa: BLE001 - an odd fallback object: its text
            return str(value)
    return value if isinstance(value, (str, int, float, bool, list, dict)) else str(value)


def end(d: dict | None, got: tuple[object, str | None]) -> None:
    """The question is answered (``Mind.ask``): the record is complete and written."""
    wlog = getattr(_local, "wlog", None)
    _local.decision = _local.wlog = None
    if d is None or wlog is None:
        return
    value, why = got
    d["answer"] = _answer(value) if why is None else None
    d["fallback"] = why
    wlog.write(d)


def attach(gateway: Logged, wlog: WhyLog) -> WhyLog:
    """Record the decisions of every mind on ``gateway`` into ``wlog`` (replacing any log it had)."""
    old = getattr(gateway, "why_log", None)
    if old is not None and old is not wlog:
        old.close()
    gateway.why_log = wlog
    return wlog


# ------------------------------------------------------------------ the log
class RecordIndex:
    """Records by resident, each kept as compressed JSON (about a tenth of its size as
    Python objects) with its sim time and purpose, so a lookup decodes only the few
    records that may be the act's. ``keep``: the newest kept per resident (None: all)."""

    def __init__(self, keep: int | None = None) -> None:
        self.keep = keep
        self._lock = threading.Lock()
        self._by: dict[str, deque] = {}

    def add(self, d: dict, line: str | None = None) -> None:
        """``line``: the record as JSON already (the log's file line)."""
        blob = zlib.compress((line if line is not None else json.dumps(d, ensure_ascii=False)).encode("utf-8"), 3)
        try:
            t = datetime.fromisoformat(d["time"]) if d.get("time") else None
        except (TypeError, ValueError):
            t = None
        who = str(d.get("resident") or "-")
        with self._lock:
            q = self._by.get(who)
            if q is None:
                q = self._by[who] = deque(maxlen=self.keep)
            q.append((t, d.get("purpose"), blob))

    def recent(self, resident: str) -> list[dict]:
        """Every record kept of ``resident``, oldest first (decoded)."""
        with self._lock:
            rows = list(self._by.get(resident, ()))
        return [json.loads(zlib.decompress(b)) for _, _, b in rows]

    def find(self, resident: str, kind: str, at: datetime, text: str = "") -> dict | None:
        """``find`` over the kept records of ``resident``, decoding only those of the act's
        kind and time window."""
        lo, hi = window(kind, at)
        purposes = ACT_PURPOSES[kind]
        with self._lock:
            rows = [b for t, p, b in self._by.get(resident, ()) if p in purposes and t is not None and lo <= t <= hi]
        return find([json.loads(zlib.decompress(b)) for b in rows], resident, kind, at, text)


def _hashed(d: dict) -> dict:
    """A record with the prompt, the raw answers, the queries and the memories' texts as
    hashes (``why = "hashes"``); ids, scores and the validated answer (the act) stay."""
    out = dict(d)
    out["retrievals"] = [{**r, "query": None, "query_sha256": sha(r.get("query") or ""),
                          "memories": [{k: v for k, v in m.items() if k != "text"} for m in r.get("memories", [])]}
                         for r in d.get("retrievals") or []]
    call = d.get("call")
    if call:
        text = json.dumps(call.get("messages"), ensure_ascii=False, sort_keys=True)
        out["call"] = {**{k: v for k, v in call.items() if k not in ("messages", "raw")},
                       "prompt_sha256": sha(text), "prompt_chars": len(text),
                       "raw_sha256": [sha(r) for r in call.get("raw") or []]}
    return out  # the validated answer stays: it is the act itself, which the event log keeps in the clear


class WhyLog:
    """Decision records: appended to a gzip JSON-lines file (when ``path``) and the
    newest of each resident kept in memory. Thread-safe (the workers write; the
    inspector reads ``recent``)."""

    def __init__(self, path: str | Path | None = None, *, mode: str = "full", append: bool = True,
                 keep: int = KEEP_PER_RESIDENT) -> None:
        global _active
        mode = str(mode or "full").strip().lower()
        if mode not in MODES:
            raise ValueError(f"why must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self.path = Path(path) if path is not None else None
        self.keep = keep
        self._lock = threading.Lock()
        self.index = RecordIndex(keep)  # the newest of each resident, for the inspector
        self._fh: Any = None
        self.count = 0
        self._unflushed = 0
        self.error: str | None = None
        if self.path is not None and mode != "off":
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fh = gzip.open(self.path, "ab" if append else "wb", compresslevel=6)  # noqa: SIM115 - open for the run
            except OSError as err:  # an unwritable folder must not stop the run: records stay in memory
                log.warning("why: cannot write %s (%s); decision records are kept in memory only", self.path, err)
                self.error = str(err)
        self._open = mode != "off"
        if self._open:
            with _active_lock:
                _active += 1

    def write(self, d: dict) -> None:
        if not self._open:
            return
        with self._lock:
            self.count += 1
            d = {"v": FORMAT, "n": self.count, **d}
            if self.mode == "hashes":
                d = _hashed(d)
            line = json.dumps(d, ensure_ascii=False)
            self.index.add(d, line)
            if self._fh is not None:
                try:
                    self._fh.write((line + "\n").encode("utf-8"))
                    self._unflushed += 1
                    if self._unflushed >= FLUSH_EVERY:
                        self._fh.flush()
                        self._unflushed = 0
                except (OSError, ValueError) as err:  # a full disk must not stop the town
                    log.warning("why: cannot write %s: %s", self.path, err)
                    self.error = str(err)
                    self._fh = None

    def recent(self, resident: str) -> list[dict]:
        """The newest records of ``resident`` kept in memory, oldest first."""
        return self.index.recent(resident)

    def find(self, resident: str, kind: str, at: datetime, text: str = "") -> dict | None:
        """The record behind an act, among those kept in memory (``find``)."""
        return self.index.find(resident, kind, at, text)

    def flush(self) -> None:
        with self._lock:
            if self._fh is not None:
                self._fh.flush()
                self._unflushed = 0

    def close(self) -> None:
        global _active
        with self._lock:
            if self._fh is not None:
                try:
                    self._fh.close()
                except OSError as err:
                    log.warning("why: closing %s: %s", self.path, err)
                self._fh = None
            was_open, self._open = self._open, False
        if was_open:
            with _active_lock:
                _active -= 1

    def stats(self, residents: int, sim_hours: float) -> dict:
        """The file's size: bytes, records, and bytes per resident per sim day (the
        whole file: a resumed run's too)."""
        size = self.bytes_written
        per = size / residents / (sim_hours / 24.0) if residents and sim_hours > 0 else None
        return {"file": self.path.name if self.path else None, "mode": self.mode, "records": self.count,
                "bytes": size, "bytes_per_resident_per_sim_day": round(per) if per is not None else None}

    @property
    def bytes_written(self) -> int:
        try:
            return self.path.stat().st_size if self.path is not None else 0
        except OSError:
            return 0


def game_path(recording: str | Path) -> Path:
    """Where the game's records go beside its recording (``recordings/<stamp>.jsonl``)."""
    p = Path(recording)
    return p.with_name(p.name[: -len(".jsonl")] + GAME_SUFFIX if p.name.endswith(".jsonl") else p.name + GAME_SUFFIX)


# ------------------------------------------------------------------ reading
MAX_LINE = 8 << 20  # characters of one record: a prompt and its retrievals are a few kilobytes
MAX_RATIO = 50  # decompressed bytes per byte on disk; JSON lines compress about 10:1, a gzip bomb 1000:1
SLACK_BYTES = 64 << 20  # a small file may still hold this much


def _finite(v: object) -> bool:  # a value read from a file: anything
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:  # a whole number too large for a float
        return False


def _memory_problem(m: object) -> str | None:  # read from a file: anything
    if not isinstance(m, dict):
        return "a memory that is not a table"
    if not isinstance(m.get("id"), int) or isinstance(m.get("id"), bool):
        return "a memory without a whole-number id"
    if not _finite(m.get("total")):
        return "a memory without a total score"
    sc = m.get("scaled")
    if not (isinstance(sc, list) and len(sc) == 3 and all(_finite(x) for x in sc)):
        return "a memory without its three scaled scores"
    if any(k in m and not _finite(m[k]) for k in ("recency", "importance", "relevance")):
        return "a memory score that is not a number"
    if any(m.get(k) is not None and not isinstance(m[k], str) for k in ("text", "kind", "created", "accessed")):
        return "a memory field that is not text"
    return None


def check_record(d: object) -> str | None:
    """What is wrong with a decision record read from a file (None: nothing): every field
    the readers use (``why``, the replay, the Why panel) has the type the log writes."""
    if not isinstance(d, dict):
        return "not a table"
    for key in ("resident", "purpose", "prompt_name", "fallback"):
        if d.get(key) is not None and not isinstance(d[key], str):
            return f"{key} is not text"
    t = d.get("time")
    if t is not None:
        if not isinstance(t, str) or len(t) > 40:
            return "time is not a time"
        try:
            datetime.fromisoformat(t)
        except ValueError:
            return "time is not a time"
    if "n" in d and (not isinstance(d["n"], int) or isinstance(d["n"], bool)):
        return "n is not a whole number"
    call = d.get("call")
    if call is not None:
        if not isinstance(call, dict):
            return "call is not a table"
        if call.get("raw") is not None and not (isinstance(call["raw"], list)
                                                and all(isinstance(r, str) for r in call["raw"])):
            return "call.raw is not a list of texts"
        if call.get("messages") is not None and not (isinstance(call["messages"], list)
                                                     and all(isinstance(m, dict) for m in call["messages"])):
            return "call.messages is not a list of messages"
    rets = d.get("retrievals")
    if rets is not None:
        if not isinstance(rets, list) or not all(isinstance(r, dict) for r in rets):
            return "retrievals is not a list of tables"
        for r in rets:
            if r.get("query") is not None and not isinstance(r["query"], str):
                return "a retrieval's query is not text"
            mems = r.get("memories")
            if mems is not None and not isinstance(mems, list):
                return "a retrieval's memories are not a list"
            for m in mems or []:
                why = _memory_problem(m)
                if why:
                    return why
    return None


def read_records(path: str | Path, counts: dict[str, int] | None = None) -> Iterator[dict]:
    """The records of a why file, oldest first, each checked (``check_record``). A file
    cut short (a killed run) gives what was flushed; a record that is not JSON, too long
    or damaged is skipped, counted (``counts["skipped"]``) and logged once; reading stops
    once the file has decompressed to ``MAX_RATIO`` times its size (a gzip bomb)."""
    p = Path(path)
    try:
        limit = MAX_RATIO * p.stat().st_size + SLACK_BYTES
        fh = gzip.open(p, "rt", encoding="utf-8", errors="replace")  # noqa: SIM115 - closed below, after the read
    except OSError as err:
        raise ValueError(f"{p}: cannot read the decision records ({err})") from None
    counts = counts if counts is not None else {}
    counts.setdefault("read", 0)
    counts.setdefault("skipped", 0)
    seen = 0
    why: dict[str, int] = {}
    try:
        with fh:
            while True:
                try:
                    line = fh.readline(MAX_LINE + 1)
                    seen += len(line)
                    if len(line) > MAX_LINE and not line.endswith("\n"):  # too long: skip to its end
                        why["a record longer than its limit"] = why.get("a record longer than its limit", 0) + 1
                        while line and not line.endswith("\n") and seen <= limit:
                            line = fh.readline(MAX_LINE + 1)
                            seen += len(line)
                        line = ""
                        if seen <= limit:
                            continue
                except (EOFError, zlib.error, OSError) as err:  # cut short: keep what was read
                    log.info("%s ends early after %d records (%s)", p, counts["read"], err)
                    return
                if seen > limit:
                    log.warning("%s decompresses to more than %d times its size; reading stopped after %d records "
                                "(a damaged or crafted file)", p, MAX_RATIO, counts["read"])
                    return
                if not line:
                    return
                if not line.endswith("\n"):  # a half-written last line
                    return
                try:
                    d = json.loads(line)
                except (ValueError, RecursionError):
                    why["not JSON"] = why.get("not JSON", 0) + 1
                    continue
                problem = check_record(d)
                if problem:
                    why[problem] = why.get(problem, 0) + 1
                    continue
                counts["read"] += 1
                yield d
    finally:
        n = sum(why.values())
        if n:
            counts["skipped"] += n
            log.warning("%s: %d damaged decision record(s) skipped (%s)", p, n,
                        "; ".join(f"{k}: {v}" for k, v in list(why.items())[:3]))


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", str(text or "").lower()))


def _holds(d: dict, text: str) -> bool:
    """Whether the record's answer (or raw answer) holds the act's words."""
    want = _words(text)[:60]
    if not want:
        return False
    got = json.dumps(d.get("answer"), ensure_ascii=False) if d.get("answer") is not None else ""
    call = d.get("call") or {}
    got += " ".join(call.get("raw") or [])
    return want in _words(got)


def window(kind: str, at: datetime) -> tuple[datetime, datetime]:
    """The sim times an act's record may have: a line's question is asked at most a step or
    two before it is said; an action's up to two hours before it begins (decomposed ahead);
    a plan item's on its day (planned before waking)."""
    if kind not in ACT_PURPOSES:
        raise ValueError(f"unknown kind of act {kind!r} (one of {', '.join(KINDS)})")
    if kind == "line":
        return at - timedelta(minutes=2), at
    if kind == "plan":
        return datetime.combine(at.date(), datetime.min.time()) - timedelta(hours=6), at + timedelta(hours=24)
    return at - timedelta(hours=2), at + timedelta(minutes=1)


def find(records: Iterable[dict], resident: str, kind: str, at: datetime, text: str = "") -> dict | None:
    """The decision record behind an act of ``resident``: a line said at ``at``, an action
    begun at ``at``, a plan item of ``at``'s day. The record of the act's kind made at the
    act's time (a line) or the newest before it (an action: within the hour before it
    began; a plan item: that day), preferring one whose answer holds ``text``."""
    purposes, (lo, hi) = ACT_PURPOSES.get(kind, ()), window(kind, at)
    cands = []
    for d in records:
        if d.get("resident") != resident or d.get("purpose") not in purposes or not d.get("time"):
            continue
        try:
            t = datetime.fromisoformat(d["time"])
        except ValueError:
            continue
        if lo <= t <= hi:
            cands.append((t, d))
    if not cands:
        return None
    if text:
        held = [(t, d) for t, d in cands if _holds(d, text)]
        if held or kind not in ("line", "talk"):  # an action or plan item no answer holds came from a rule
            cands = held
    if not cands:
        return None
    if kind == "line":  # the same job's question, else the nearest before
        exact = [(t, d) for t, d in cands if t == at]
        cands = exact or cands
    return max(cands, key=lambda x: (x[0], x[1].get("n", 0)))[1]


def memories_of(d: dict) -> list[dict]:
    """Every memory a record's retrievals brought up, best total first (one entry per id)."""
    seen: dict[int, dict] = {}
    for r in d.get("retrievals") or []:
        for m in r.get("memories") or []:
            if m["id"] not in seen or m["total"] > seen[m["id"]]["total"]:
                seen[m["id"]] = {**m, "query": r.get("query")}
    return sorted(seen.values(), key=lambda m: -m["total"])


__all__ = [
    "ACT_PURPOSES",
    "FILE",
    "GAME_SUFFIX",
    "KINDS",
    "MODES",
    "RecordIndex",
    "WhyLog",
    "attach",
    "begin",
    "check_record",
    "end",
    "find",
    "game_path",
    "memories_of",
    "note_call",
    "note_retrieval",
    "read_records",
    "recency",
    "recording",
    "relevance",
    "scaled",
    "score",
    "sha",
    "window",
]
