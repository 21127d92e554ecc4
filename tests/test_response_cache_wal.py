"""The response cache's WAL switch when another process holds the file (experiment workers
opening one cache at once): SQLite says "database is locked" at once there, so it tries again."""
from __future__ import annotations

import sqlite3

import pytest

from agents.model import cache


class _Conn:
    def __init__(self, failures: int, message: str = "database is locked") -> None:
        self.failures, self.message, self.calls = failures, message, 0

    def execute(self, sql: str) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            raise sqlite3.OperationalError(self.message)


def test_a_locked_file_is_tried_again_until_wal_is_set(monkeypatch):
    monkeypatch.setattr(cache.time, "sleep", lambda s: None)
    conn = _Conn(failures=3)
    cache._set_wal(conn)
    assert conn.calls == 4


def test_a_file_locked_throughout_goes_on_without_wal_and_says_so(monkeypatch, caplog):
    monkeypatch.setattr(cache.time, "sleep", lambda s: None)
    conn = _Conn(failures=10**6)
    cache._set_wal(conn, tries=5)
    assert conn.calls == 5 and "could not switch to WAL mode" in caplog.text


def test_another_error_is_not_hidden():
    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        cache._set_wal(_Conn(failures=1, message="disk I/O error"))


def test_two_caches_on_one_file_both_work(tmp_path):
    a, b = cache.ResponseCache(tmp_path / "c.sqlite"), cache.ResponseCache(tmp_path / "c.sqlite")
    assert a.get("k") is None and b.get("k") is None
