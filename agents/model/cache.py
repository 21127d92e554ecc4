"""An optional SQLite response cache, so a seeded headless run replays exactly and free.

Keyed by sha256 of (model, messages, schema, temperature, seed). Only answers
that validated are stored. Thread-safe: one connection per thread, WAL mode.
``Cached`` is the cache as a layer of the model road (agents/model/asking.py): a hit
that still validates is the reply, with no request sent.

The cache is a hint: ``open_cache`` gives None, with a warning naming the file, when the
file cannot be used (not SQLite, damaged, unreadable), and the run goes on without it.
"""
from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from agents.model.answers import compact_schema, validate_answer
from agents.model.asking import Heard, LanguageModel, Reply, Request, Usage

log = logging.getLogger(__name__)


def cache_key(model: str, messages: list[dict], schema: dict | None, temperature: float | None,
              seed: int | None) -> str:
    blob = json.dumps(
        {"model": model, "messages": messages, "schema": schema, "temperature": temperature, "seed": seed},
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _set_wal(conn: sqlite3.Connection, tries: int = 100) -> None:
    """WAL mode, which stays with the file once set. Two processes opening the cache at
    once (experiment workers) can find it locked while the other switches: SQLite answers
    "database is locked" at once there, without waiting its timeout, so try again a little later."""
    for attempt in range(tries):
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) and "busy" not in str(err):
                raise
            if attempt == tries - 1:
                log.warning("response cache: could not switch to WAL mode (%s); going on without", err)
                return
            time.sleep(0.05)


class ResponseCache:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._lock = threading.RLock()  # guards writes and the connection list
        self._conns: list[sqlite3.Connection] = []
        self._memory = str(path) == ":memory:"
        if self._memory:  # one shared connection: a :memory: database is per connection
            self._shared = sqlite3.connect(":memory:", check_same_thread=False)
            self._init(self._shared)
        else:
            try:
                self._init(self._conn())
            except sqlite3.Error:
                self.close()  # no connection left open on a file we cannot use
                raise
        self.hits = 0
        self.misses = 0

    def _init(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, content TEXT,"
            " prompt_tokens INTEGER, completion_tokens INTEGER, created REAL)"
        )
        conn.commit()

    def _conn(self) -> sqlite3.Connection:
        if self._memory:
            return self._shared
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False)
            _set_wal(conn)
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
            with self._lock:
                self._conns.append(conn)
        return conn

    def get(self, key: str) -> dict[str, Any] | None:  # Any: an answer's JSON, read back from the file
        try:
            with self._lock if self._memory else _nolock:
                row = self._conn().execute(
                    "SELECT content, prompt_tokens, completion_tokens FROM responses WHERE key = ?", (key,)
                ).fetchone()
        except sqlite3.Error as err:
            log.warning("response cache %s: %s", self.path, err)
            return None
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return {"content": row[0], "prompt_tokens": row[1] or 0, "completion_tokens": row[2] or 0}

    def put(self, key: str, model: str, content: str, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        try:
            with self._lock:
                conn = self._conn()
                conn.execute(
                    "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                    (key, model, content, prompt_tokens, completion_tokens, time.time()),
                )
                conn.commit()
        except sqlite3.Error as err:
            log.warning("response cache %s: %s", self.path, err)

    def __len__(self) -> int:
        with self._lock:
            return self._conn().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            conns = [self._shared] if self._memory else list(self._conns)
            self._conns.clear()
        for c in conns:
            try:
                c.close()
            except sqlite3.Error:
                pass
        self._local = threading.local()


def open_cache(path: str | Path) -> ResponseCache | None:
    """The response cache at ``path``, or None (with a warning naming the file and the fix)
    when the file cannot be used: the cache only saves calls, so the run goes on without it."""
    try:
        return ResponseCache(path)
    except (sqlite3.Error, OSError) as err:  # sqlite3.DatabaseError: "file is not a database"
        log.warning("response cache %s cannot be used (%s); this run goes on without it, asking the model "
                    "anew. Delete the file or move it away to start a fresh cache", path, err)
        return None


class Cached:
    """Answers from the cache when it has a valid one; else asks, and keeps what may be kept."""

    def __init__(self, cache: ResponseCache, model: str, inner: LanguageModel) -> None:
        self.cache = cache
        self.model = model
        self.inner = inner

    def ask_once(self, request: Request) -> Reply:
        key = cache_key(self.model, request.messages, compact_schema(request.schema), request.temperature,
                        request.seed)
        hit = self.cache.get(key)
        if hit is not None:
            try:
                value = validate_answer(request.schema, hit["content"])
            except ValueError:  # a row damaged or edited by hand: a miss
                value = None
            if value is not None:
                usage = Usage(hit["prompt_tokens"], hit["completion_tokens"])
                return Reply(value=value, heard=(Heard(hit["content"], usage),), cached=True)
        reply = self.inner.ask_once(request)
        if reply.cacheable:
            last = reply.heard[-1]
            self.cache.put(key, self.model, last.text or "", last.usage.prompt_tokens, last.usage.completion_tokens)
        return reply


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_nolock = _NoLock()
