"""The one gateway to language models.

Every model call in the game goes through the ``Gateway``: one place for the
model string, structured output, retries, time-outs, accounting and caching.
Calls go through ``litellm.completion``; the embedded default model is a
litellm custom provider (``agents.engine.local_model``), so it takes the same road
as Ollama, OpenAI-compatible servers and hosted providers.

The road is a stack of layers, each a small wrapper around the one protocol of
agents/model/asking.py (a ``Request`` in, a ``Reply`` out), composed in one place
(``Gateway._road``); a mind's budget wraps the gateway from outside:

    Mind.ask -> Budget (agents/model/budget.py) -> Gateway.ask_once: its settings, then
      Accounted  every ask one record in the ledger (llm_calls.jsonl), and the why-record's call
      Healthy    whether the model answers (the HUD's "model unreachable")
      Cached     a stored answer that still validates (agents/model/cache.py)
      Validated  the answer checked against the schema; one retry with the problem shown
      Retried    transient errors retried with backoff inside the deadline
      InContext  the call, for in-process providers on this thread (``current_call``)
      Sent | Routed  one request to the server, or to the router's pick of several

``ask`` never raises for model trouble: an invalid, empty or failed answer
gets one retry with the problem shown to the model, then the caller's
fallback (agents/model/asking.py ``answer``). Transient errors (rate limits,
time-outs, connection trouble, 5xx) are retried with exponential backoff and
jitter inside an overall deadline, so nothing hangs.
"""
from __future__ import annotations

import os

# Before litellm is imported anywhere: no price-list download, no hub lookups.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from agents.explain import provenance as pv
from agents.explain import why
from agents.model import providers
from agents.model.accounting import Accounted, Accounting
from agents.model.answers import compact_schema, parse_json_answer
from agents.model.asking import Asks, LanguageModel, Reply, Request
from agents.model.cache import Cached, ResponseCache, open_cache
from agents.model.config import EMBEDDED_MODEL, ModelConfig, load_config
from agents.model.dialects import Dialects
from agents.model.health import Health, Healthy
from agents.model.providers import register_provider
from agents.model.retry import Retried
from agents.model.router import ModelRouter
from agents.model.send import Routed, Sent
from agents.model.validation import Validated
from agents.support import home
from agents.support.errors import ConfigError

__all__ = [
    "EMBEDDED_MODEL",
    "ConfigError",
    "Gateway",
    "ModelConfig",
    "compact_schema",
    "current_call",
    "load_config",
    "parse_json_answer",
    "register_provider",
]

T = TypeVar("T", bound=BaseModel)


# --------------------------------------------------------------------------------------
# per-call context for in-process providers (the scripted fake reads purpose and schema)
# --------------------------------------------------------------------------------------
@dataclass
class CallContext:
    purpose: str
    resident: str | None
    schema: type[BaseModel]
    deadline: float  # time.monotonic() by which the answer must be back
    timeout: float


_ctx = threading.local()


def current_call() -> CallContext | None:
    """The request in progress on this thread, for in-process providers; None outside one."""
    return getattr(_ctx, "call", None)


class InContext:
    """The request on this thread's ``current_call`` while the server answers it."""

    def __init__(self, inner: LanguageModel) -> None:
        self.inner = inner

    def ask_once(self, request: Request) -> Reply:
        prev = getattr(_ctx, "call", None)
        _ctx.call = CallContext(purpose=request.purpose, resident=request.resident, schema=request.schema,
                                deadline=request.deadline, timeout=request.timeout)
        try:
            return self.inner.ask_once(request)
        finally:
            _ctx.call = prev


# --------------------------------------------------------------------------------------
# the gateway
# --------------------------------------------------------------------------------------
class Gateway(Asks):
    """Structured model calls that always come back with an instance of the schema.

    ``completion`` replaces ``litellm.completion`` (tests may inject one); by
    default litellm is imported on the first call.
    """

    def __init__(
        self,
        config: ModelConfig | None = None,
        accounting: Accounting | None = None,
        cache: ResponseCache | str | Path | None = None,
        completion: Callable[..., Any] | None = None,
        dialects: Dialects | None = None,
    ) -> None:
        self.config = config or load_config()
        self.accounting = accounting if accounting is not None else Accounting()
        if cache is None and self.config.cache:
            cache = self.config.cache
        self.cache: ResponseCache | None = open_cache(cache) if isinstance(cache, (str, Path)) else cache
        # what a run tells its user at the end (the log holds why): a cache that could not be used
        self.cache_problem = (f"the response cache {cache} could not be used, so this run went on without it; "
                              "delete the file or move it away to start a fresh one"
                              if isinstance(cache, (str, Path)) and self.cache is None else None)
        # Several servers ([[models]] / --router): the router places each call (agents/model/router.py).
        self.router: ModelRouter | None = None
        if self.config.deployments and completion is None:
            self.router = ModelRouter(self.config.deployments)
        self._completion = completion
        self.health = Health(self.config.model)
        # Each server's structured-output dialect, negotiated and remembered (agents/model/dialects.py).
        self.dialects = dialects if dialects is not None else Dialects(home.cache_dir() / "dialects.json")
        self._fixed: bool | None = None  # Ollama and in-process providers take the schema as it is
        self.stopped: str | None = None  # why no call is made any more (``stop_calls``)
        self.why_log: why.WhyLog | None = None  # where the minds' decision records go (why.attach)

    # -- status for the HUD ------------------------------------------------------------
    @property
    def model(self) -> str:
        return self.config.model

    @property
    def status(self) -> str:
        """"ok", or "model unreachable: <why> (since HH:MM)" after calls that got no answer."""
        return self.health.status

    def deployment_lines(self) -> list[tuple[str, bool]]:
        """Per-server health when several serve the model ([[models]]), and what is wrong
        with a server's answers (no structured output, answers that never fit)."""
        lines = self.router.status_lines() if self.router is not None else []
        return lines + [(p, False) for p in self.dialects.problems()]

    def server_problems(self) -> list[str]:
        """One line per thing wrong with the model server(s), naming it and the fix."""
        out = [] if self.healthy else [self.status]
        if self.router is not None:
            out += [text for text, ok in self.router.status_lines() if not ok]
        return out + self.dialects.problems()

    def server_report(self) -> dict:
        """For a run's summary: what is wrong, and the dialect each server settled on."""
        spoken = {ep.label: ep.dialect for ep in self.dialects.endpoints() if not ep.fixed and ep.settled}
        return {"problems": self.server_problems(), "dialects": spoken}

    @property
    def healthy(self) -> bool:
        return self.health.healthy

    # -- request shape -----------------------------------------------------------------
    def _is_fixed(self) -> bool:
        """In-process providers and Ollama take the schema as it is; other servers negotiate."""
        if self._fixed is None:
            provider = self.config.provider
            if not self.config.is_embedded:
                # Registers the in-process providers (scripted/...) before we look them up, also
                # for an injected completion: else the request would hang on whether litellm was
                # already imported (a loaded game's prompts then differed from the saved one's).
                providers.lm()
            self._fixed = (providers.in_process(provider) or self.config.is_embedded
                           or provider in ("ollama", "ollama_chat"))
        return self._fixed

    # -- the road ------------------------------------------------------------------------
    def _road(self) -> LanguageModel:
        """Every call's road, outermost first (the module's docstring says what each layer does)."""
        cfg = self.config
        server = Routed(cfg, self.router) if self.router is not None else Sent(cfg, self._completion)
        model: LanguageModel = Validated(self.dialects, self._is_fixed, Retried(cfg, self.health, InContext(server)))
        if self.cache is not None:
            model = Cached(self.cache, cfg.model, model)
        return Accounted(self.accounting, cfg.model, self, Healthy(self.health, model))

    def stop_calls(self, why: str) -> None:
        """No model call from now on: every ask answers at once without a value ("ceiling"),
        so the caller's rule or routine stands in and says so. A run that reached its
        ``--max-cost`` / ``--max-tokens`` (game/headless.py) spends nothing more."""
        self.stopped = why

    def ask_once(self, request: Request) -> Reply:
        """The road for ``request``, with this gateway's settings: its temperature unless the
        request names one, its seed, its time-out per request and its deadline for the ask."""
        if self.stopped is not None:
            return Reply(error=pv.CEILING, why=self.stopped)
        cfg = self.config
        temperature = cfg.temperature if request.temperature is None else request.temperature
        request = replace(request, temperature=temperature, seed=cfg.seed, timeout=cfg.timeout,
                          deadline=time.monotonic() + cfg.deadline)
        return self._road().ask_once(request)

    def ask(
        self,
        schema: type[T],
        prompt: str | list[dict],
        *,
        purpose: str,
        resident: str | None = None,
        fallback: T | Callable[[], T],
        temperature: float | None = None,
        max_tokens: int = 256,
    ) -> T:
        """An instance of ``schema`` from the model, or ``fallback`` (never raises for model trouble)."""
        return self.ask_traced(schema, prompt, purpose=purpose, resident=resident, fallback=fallback,
                               temperature=temperature, max_tokens=max_tokens)[0]

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
        self.accounting.close()
