"""Whether the model answers: "ok", or "model unreachable: <why> (since HH:MM)"
after asks that got no answer at all (the HUD's line, the log's warning). A
layer of the model road (``Healthy``) notes each ask's outcome; an answer from
the response cache says nothing about the server and is not noted."""
from __future__ import annotations

import logging
import threading
import time

from agents.model.asking import LanguageModel, Reply, Request

log = logging.getLogger("agents.model.gateway")  # the gateway's log (gateway.py): one name for every line of the road

DOWN_AFTER = 2  # asks in a row without an answer before the model counts as down (one request per ask)


class Health:
    """The model's health over the asks so far (thread-safe)."""

    def __init__(self, model: str) -> None:
        self.model = model
        self._lock = threading.Lock()
        self._fail_streak = 0
        self._fail_since: float | None = None
        self._last_error: str | None = None

    @property
    def status(self) -> str:
        with self._lock:
            if self._fail_streak == 0:
                return "ok"
            since = time.strftime("%H:%M", time.localtime(self._fail_since or time.time()))
            return f"model unreachable: {self._last_error} (since {since})"

    @property
    def healthy(self) -> bool:
        with self._lock:
            return self._fail_streak == 0

    def retries(self, configured: int) -> int:
        """Transient-error retries for the next request: none while the model is down."""
        with self._lock:
            return 0 if self._fail_streak >= DOWN_AFTER else configured

    def answered(self) -> None:
        with self._lock:
            if self._fail_streak:
                log.info("model %s answers again", self.model)
            self._fail_streak = 0
            self._fail_since = None
            self._last_error = None

    def failed(self, why: str) -> None:
        with self._lock:
            if self._fail_streak == 0:
                self._fail_since = time.time()
                log.warning("model %s unreachable: %s", self.model, why)
            self._fail_streak += 1
            self._last_error = why


class Healthy:
    """Notes whether each ask got an answer (valid or not) from the server."""

    def __init__(self, health: Health, inner: LanguageModel) -> None:
        self.health = health
        self.inner = inner

    def ask_once(self, request: Request) -> Reply:
        reply = self.inner.ask_once(request)
        if reply.answered:
            self.health.answered()
        elif reply.why:
            self.health.failed(reply.why)
        return reply


__all__ = ["Health", "Healthy"]
