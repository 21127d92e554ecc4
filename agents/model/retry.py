"""A layer of the model road: transient trouble (rate limits, time-outs, connection
trouble, 5xx) is asked again with exponential backoff and jitter, inside the
ask's deadline, so nothing hangs. A model that has been down for several asks
gets one request per ask, not a full backoff series (agents/model/health.py): residents
fall back fast, and the next ask probes again. A server that turns the
structured-output form down is asked again at once in the next form."""
from __future__ import annotations

import logging
import random
import time
from dataclasses import replace

from agents.model.asking import LanguageModel, Reply, Request
from agents.model.config import ModelConfig
from agents.model.health import Health
from agents.model.send import REFUSED

log = logging.getLogger("agents.model.gateway")  # the gateway's log (gateway.py): one name for every line of the road

TRANSIENT = {"rate_limit", "timeout", "connection", "server"}


class Retried:
    """Transient errors retried within the request's deadline."""

    def __init__(self, config: ModelConfig, health: Health, inner: LanguageModel) -> None:
        self.config = config
        self.health = health
        self.inner = inner

    def ask_once(self, request: Request) -> Reply:
        """The first answer; or no answer, with the last problem (none named: the
        deadline came before any request failed)."""
        cfg = self.config
        retries = self.health.retries(cfg.retries)
        attempt = attempts = 0
        error: str | None = None
        why: str | None = None
        while True:
            remaining = request.deadline - time.monotonic()
            if remaining <= 0.05:
                return Reply(attempts=attempts, error=error, why=why)
            got = self.inner.ask_once(replace(request, timeout=min(request.timeout, remaining)))
            attempts += got.attempts
            if got.error == REFUSED:
                continue  # the server turned the structured-output form down: the next one
            if got.answered:
                return replace(got, attempts=attempts, error=error, why=why)
            error, why = got.error, got.why
            if error not in TRANSIENT or attempt >= retries:
                return Reply(attempts=attempts, error=error, why=why)
            attempt += 1
            delay = min(30.0, cfg.backoff * (2 ** (attempt - 1))) * (0.5 + random.random())
            delay = min(delay, max(0.0, request.deadline - time.monotonic() - 0.1))
            log.debug("%s: %s; retry %d in %.2fs", cfg.model, error, attempt, delay)
            time.sleep(delay)


__all__ = ["TRANSIENT", "Retried"]
