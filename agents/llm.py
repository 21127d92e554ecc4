"""The one gateway to language models.

Every model call in the game goes through ``Gateway.ask``: one place for the
model string, structured output, retries, time-outs, accounting and caching.
Calls go through ``litellm.completion``; the embedded default model is a
litellm custom provider (``agents.local_model``), so it takes the same road
as Ollama, OpenAI-compatible servers and hosted providers.

``ask`` never raises for model trouble: an invalid, empty or failed answer
gets one retry with the problem shown to the model, then the caller's
fallback. Transient errors (rate limits, time-outs, connection trouble,
5xx) are retried with exponential backoff and jitter inside an overall
deadline, so nothing hangs.
"""
from __future__ import annotations

import os

# Before litellm is imported anywhere: no price-list download, no hub lookups.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import logging
import random
import re
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, TypeVar

from pydantic import BaseModel

from agents import home, scripted, why
from agents.accounting import Accounting, CallRecord
from agents.answers import compact_schema, parse_json_answer, validate_answer
from agents.cache import ResponseCache, cache_key
from agents.config import EMBEDDED_MODEL, EMBEDDED_PROVIDER, ConfigError, ModelConfig, load_config
from agents.dialects import Dialects, StructuredCall, answer_kind, endpoint_label
from agents.local_model import handler as local_handler
from agents.router import ModelRouter

__all__ = [
    "Gateway",
    "ModelConfig",
    "load_config",
    "ConfigError",
    "EMBEDDED_MODEL",
    "register_provider",
    "current_call",
    "parse_json_answer",
    "compact_schema",
]

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

SYSTEM_PROMPT = (
    "You are the inner voice of a resident of a small town called the Ville. "
    "Stay in character, be brief and concrete. Answer with one JSON object only."
)

# --------------------------------------------------------------------------------------
# litellm, imported lazily (it costs seconds) and with our providers registered
# --------------------------------------------------------------------------------------
_litellm: ModuleType | None = None
_litellm_lock = threading.RLock()
_providers: dict[str, Any] = {}


def _lm() -> Any:
    """The litellm module, imported once, with our custom providers registered."""
    global _litellm
    if _litellm is None:
        with _litellm_lock:
            if _litellm is None:
                # litellm's own types trip a harmless pydantic warning; keep the player's terminal clean.
                warnings.filterwarnings("ignore", message=r".*is using the `ReadOnly` qualifier", category=UserWarning)
                import litellm  # lazy: importing litellm costs seconds

                litellm.telemetry = False
                litellm.suppress_debug_info = True
                _litellm = litellm
                register_provider(EMBEDDED_PROVIDER, local_handler())
                register_provider(scripted.PROVIDER, scripted.handler())
    return _litellm


def register_provider(name: str, handler: Any) -> None:
    """Register (or replace) a ``litellm.CustomLLM`` under the provider prefix ``name``."""
    lm = _lm()
    with _litellm_lock:
        _providers[name] = handler
        others = [p for p in (lm.custom_provider_map or []) if p.get("provider") != name]
        lm.custom_provider_map = others + [{"provider": name, "custom_handler": handler}]
        try:
            from litellm.utils import custom_llm_setup  # lazy: part of litellm (seconds to import)

            custom_llm_setup()
        except ImportError:  # pragma: no cover - older litellm sets up inside completion()
            pass


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
    """The ask() in progress on this thread, for in-process providers; None outside one."""
    return getattr(_ctx, "call", None)


# --------------------------------------------------------------------------------------
# error kinds
# --------------------------------------------------------------------------------------
TRANSIENT = {"rate_limit", "timeout", "connection", "server"}


def error_kind(err: BaseException) -> str:
    """A short name for what went wrong: rate_limit, timeout, connection, server, auth, ..."""
    text = str(err).lower()
    if "missing credentials" in text or "api_key" in text and ("missing" in text or "must be set" in text):
        return "auth"  # litellm reports a missing key as a server error; retrying cannot help
    if "connection error" in text or "connection refused" in text or "connecterror" in text:
        return "connection"  # litellm reports a refused connection as an InternalServerError
    lm = _litellm
    if lm is not None:
        checks = [
            ("context_window", getattr(lm, "ContextWindowExceededError", None)),
            ("rate_limit", getattr(lm, "RateLimitError", None)),
            ("timeout", getattr(lm, "Timeout", None)),
            ("server", getattr(lm, "ServiceUnavailableError", None)),
            ("server", getattr(lm, "InternalServerError", None)),
            ("auth", getattr(lm, "AuthenticationError", None)),
            ("auth", getattr(lm, "PermissionDeniedError", None)),
            ("not_found", getattr(lm, "NotFoundError", None)),
            ("bad_request", getattr(lm, "BadRequestError", None)),
            ("connection", getattr(lm, "APIConnectionError", None)),
        ]
        for kind, cls in checks:
            if cls is not None and isinstance(err, cls):
                if kind == "connection" and "timed out" in str(err).lower():
                    return "timeout"
                return kind
    if isinstance(err, TimeoutError):
        return "timeout"
    if isinstance(err, ConnectionError):
        return "connection"
    name = type(err).__name__.lower()
    for kind, words in (
        ("rate_limit", ("ratelimit",)),
        ("timeout", ("timeout",)),
        ("connection", ("connection",)),
        ("server", ("serviceunavailable", "internalserver")),
    ):
        if any(w in name for w in words):
            return kind
    return "error"


def _short(err: BaseException, limit: int = 100) -> str:
    text = str(err).split("Traceback (most recent call last)")[0]
    text = " ".join(text.split()) or type(err).__name__
    text = re.sub(r"^((litellm\.)?\w+(Error|Exception)(:| -)\s*)+", "", text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _why(kind: str, err: BaseException, model: str, api_base: str | None) -> str:
    """What went wrong, for the HUD and the log. A model the server does not have is
    the commonest first-run mistake with a local server: say what to do."""
    if kind == "auth":
        where = endpoint_label(model, api_base)
        return f"{where} refused the API key ({_short(err, 60)}); set the right key in the provider's variable"
    if kind == "bad_request":
        where = endpoint_label(model, api_base)
        return f"{where} turns the calls down ({_short(err, 60)}); check --model and the server's own log"
    if kind == "not_found":
        provider, _, name = model.partition("/")
        if provider in ("ollama", "ollama_chat"):
            return f'Ollama has no model "{name}"; run: ollama pull {name}'
        if "model" in str(err).lower():
            where = f" at {api_base}" if api_base else ""
            return f'the server{where} does not serve "{name or model}"; check --model (its /v1/models lists them)'
    return f"{kind.replace('_', ' ')}: {_short(err)}"


class _Deadline(Exception):
    pass


# --------------------------------------------------------------------------------------
# the gateway
# --------------------------------------------------------------------------------------
class Gateway:
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
        self.cache: ResponseCache | None = ResponseCache(cache) if isinstance(cache, (str, Path)) else cache
        # Several servers ([[models]] / --router): the router places each call (agents/router.py).
        self.router: ModelRouter | None = None
        if self.config.deployments and completion is None:
            self.router = ModelRouter(self.config.deployments)
            completion = self.router.completion
        self._completion = completion
        self._lock = threading.Lock()
        self._fail_streak = 0
        self._fail_since: float | None = None
        self._last_error: str | None = None
        # Each server's structured-output dialect, negotiated and remembered (agents/dialects.py).
        self.dialects = dialects if dialects is not None else Dialects(home.cache_dir() / "dialects.json")
        self._fixed: bool | None = None  # Ollama and in-process providers take the schema as it is

    # -- status for the HUD ------------------------------------------------------------
    @property
    def model(self) -> str:
        return self.config.model

    @property
    def status(self) -> str:
        """"ok", or "model unreachable: <why> (since HH:MM)" after calls that got no answer."""
        with self._lock:
            if self._fail_streak == 0:
                return "ok"
            since = time.strftime("%H:%M", time.localtime(self._fail_since or time.time()))
            return f"model unreachable: {self._last_error} (since {since})"

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
        with self._lock:
            return self._fail_streak == 0

    def _note_success(self) -> None:
        with self._lock:
            if self._fail_streak:
                log.info("model %s answers again", self.config.model)
            self._fail_streak = 0
            self._fail_since = None
            self._last_error = None

    def _note_failure(self, why: str) -> None:
        with self._lock:
            if self._fail_streak == 0:
                self._fail_since = time.time()
                log.warning("model %s unreachable: %s", self.config.model, why)
            self._fail_streak += 1
            self._last_error = why

    # -- request shape -----------------------------------------------------------------
    def _is_fixed(self) -> bool:
        """In-process providers and Ollama take the schema as it is; other servers negotiate."""
        if self._fixed is None:
            provider = self.config.provider
            if not self.config.is_embedded:
                # Registers the in-process providers (scripted/...) before we look them up, also
                # for an injected completion: else the request would hang on whether litellm was
                # already imported (a loaded game's prompts then differed from the saved one's).
                _lm()
            self._fixed = provider in _providers or self.config.is_embedded or provider in ("ollama", "ollama_chat")
        return self._fixed

    def _messages(self, prompt: str | list[dict]) -> list[dict]:
        if isinstance(prompt, str):
            return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}]
        return [dict(m) for m in prompt]

    # -- one model call with transient-error retries -------------------------------------
    def _complete(self, call: StructuredCall, temperature, max_tokens, deadline, ctx, tally) -> Any:
        cfg = self.config
        completion = self._completion or _lm().completion
        attempt = 0
        with self._lock:
            # A model that has been down for several asks gets one try per ask, not a
            # full backoff series: residents fall back fast, and the next ask probes again.
            retries = 0 if self._fail_streak >= 2 else cfg.retries
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0.05:
                raise _Deadline()
            timeout = min(cfg.timeout, remaining)
            ctx.timeout = timeout
            kwargs: dict[str, Any] = dict(
                model=cfg.model,
                temperature=temperature,
                max_tokens=max_tokens,
                timeout=timeout,
                num_retries=0,
                drop_params=True,
            )
            if cfg.seed is not None:
                kwargs["seed"] = cfg.seed
            if self.router is not None and self._completion == self.router.completion:
                kwargs["structured"] = call  # the router shapes it for the server it picks
            else:
                kwargs.update(call.shape(cfg.model, cfg.api_base))
            if cfg.api_base:
                kwargs["api_base"] = cfg.api_base
                if cfg.provider in ("openai", "") and not os.environ.get("OPENAI_API_KEY"):
                    # Local OpenAI-compatible servers want no key, but the client insists on one.
                    kwargs["api_key"] = "no-key-needed"
            tally["attempts"] += 1
            try:
                return completion(**kwargs)
            except Exception as err:  # noqa: BLE001 - model trouble of every kind ends here
                if "structured" not in kwargs and call.refused(err):
                    continue  # the server turned the structured-output form down: the next one
                kind = error_kind(err)
                tally["error"] = kind
                tally["why"] = _why(kind, err, cfg.model, cfg.api_base)
                if kind not in TRANSIENT or attempt >= retries:
                    raise
                attempt += 1
                delay = min(30.0, cfg.backoff * (2 ** (attempt - 1))) * (0.5 + random.random())
                delay = min(delay, max(0.0, deadline - time.monotonic() - 0.1))
                log.debug("%s: %s; retry %d in %.2fs", cfg.model, kind, attempt, delay)
                time.sleep(delay)

    # -- the public call -----------------------------------------------------------------
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

    def ask_traced(
        self,
        schema: type[T],
        prompt: str | list[dict],
        *,
        purpose: str,
        resident: str | None = None,
        fallback: T | Callable[[], T],
        temperature: float | None = None,
        max_tokens: int = 256,
    ) -> tuple[T, str | None]:
        """Like ``ask``, and says whether the model answered: ``(value, None)`` when
        the value is the model's, ``(fallback, why)`` when it is not, where ``why``
        is the kind of trouble ("invalid", "empty", "timeout", "connection", ...)."""
        cfg = self.config
        t0 = time.monotonic()
        deadline = t0 + cfg.deadline
        temperature = cfg.temperature if temperature is None else temperature
        js = compact_schema(schema)
        messages = self._messages(prompt)
        rec = CallRecord(time=0.0, model=cfg.model, purpose=purpose, resident=resident, attempts=0)

        key = None
        if self.cache is not None:
            key = cache_key(cfg.model, messages, js, temperature, cfg.seed)
            hit = self.cache.get(key)
            if hit is not None:
                try:
                    value = validate_answer(schema, hit["content"])
                except ValueError:
                    value = None
                if value is not None:
                    rec.cached = True
                    rec.prompt_tokens = hit["prompt_tokens"]
                    rec.completion_tokens = hit["completion_tokens"]
                    rec.latency_s = time.monotonic() - t0
                    rec.time = time.time()
                    self.accounting.record(rec)
                    why.note_call(self, messages, [hit["content"]], value, rec)  # the decision record's call
                    return value, None

        ctx = CallContext(purpose=purpose, resident=resident, schema=schema, deadline=deadline, timeout=cfg.timeout)
        tally: dict[str, Any] = {"attempts": 0, "error": None, "why": None}
        result: T | None = None
        raws: list[str] = []  # every answer as received (agents/why.py)
        answered = False
        name = re.sub(r"[^A-Za-z0-9_-]", "_", schema.__name__)[:64] or "answer"
        call = StructuredCall(self.dialects, messages, js, name, fixed=self._is_fixed())
        prev = getattr(_ctx, "call", None)
        _ctx.call = ctx
        try:
            round_ = 0
            while round_ < 2:  # the answer, then one retry with the problem shown
                try:
                    resp = self._complete(call, temperature, max_tokens, deadline, ctx, tally)
                except _Deadline:
                    tally["error"] = tally["error"] or "timeout"
                    tally["why"] = tally["why"] or "timeout: no answer before the deadline"
                    break
                except Exception:  # noqa: BLE001 - permanent error or retries used up
                    break
                answered = True
                text, pt, ct = _content_and_usage(resp)
                raws.append(text or "")
                rec.prompt_tokens += pt
                rec.completion_tokens += ct
                rec.cost_usd += self._cost(resp)
                try:
                    result = validate_answer(schema, text)
                except ValueError as err:
                    problem = str(err)
                    tally["error"] = "empty" if not (text or "").strip() else "invalid"
                    log.debug("%s/%s invalid answer (%s): %.200r", purpose, resident, problem, text)
                    if call.answered(answer_kind(text, problem)):
                        call.extra = []  # the server ignored the form: ask afresh in the next one
                        continue
                    round_ += 1
                    call.extra = call.extra + [
                        {"role": "assistant", "content": (text or "")[:1500]},
                        {
                            "role": "user",
                            "content": f"That answer was not valid: {problem}. "
                            "Answer again with only the corrected JSON object.",
                        },
                    ]
                    continue
                call.answered(answer_kind(text, None))  # usable; settles the form, or shows it was ignored
                if self.cache is not None and key is not None and not call.extra:
                    self.cache.put(key, cfg.model, text or "", pt, ct)
                break
            if answered and result is None:
                call.failed_schema()
        finally:
            _ctx.call = prev

        if answered:
            self._note_success()
        elif tally["why"]:
            self._note_failure(tally["why"])

        rec.attempts = tally["attempts"]
        rec.latency_s = time.monotonic() - t0
        rec.time = time.time()
        if result is not None:
            rec.outcome = "ok" if tally["attempts"] <= 1 else "retried"
            rec.error = tally["error"] if rec.outcome == "retried" else None
        else:
            rec.outcome = "fallback"
            rec.error = tally["error"] or "error"
            result = fallback() if callable(fallback) and not isinstance(fallback, BaseModel) else fallback
        self.accounting.record(rec)
        why.note_call(self, messages, raws, result, rec)
        return result, (rec.error if rec.outcome == "fallback" else None)  # type: ignore[return-value]

    def _cost(self, resp: Any) -> float:
        if self.config.provider in _providers or self.config.is_embedded:
            return 0.0
        try:
            return float(_lm().completion_cost(completion_response=resp) or 0.0)
        except Exception:  # unknown price: count tokens, not dollars
            return 0.0

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
        self.accounting.close()


def _content_and_usage(resp: Any) -> tuple[str | None, int, int]:
    try:
        choice = resp["choices"][0] if isinstance(resp, dict) else resp.choices[0]
        msg = choice["message"] if isinstance(choice, dict) else choice.message
        text = msg.get("content") if isinstance(msg, dict) else msg.content
    except (AttributeError, IndexError, KeyError, TypeError):
        text = None
    usage = getattr(resp, "usage", None)
    if usage is None and isinstance(resp, dict):
        usage = resp.get("usage")
    pt = ct = 0
    if usage is not None:
        get = usage.get if isinstance(usage, dict) else (lambda k, d=0: getattr(usage, k, d))
        pt = int(get("prompt_tokens", 0) or 0)
        ct = int(get("completion_tokens", 0) or 0)
    return text, pt, ct
