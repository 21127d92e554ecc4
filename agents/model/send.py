"""The innermost layer of the model road: one request to the server, through
``litellm.completion`` (or a completion a test injects), or through the router
when several servers serve the model (``Routed``, agents/model/router.py).

A request that fails comes back as a reply with the kind of trouble in a word
(``error_kind``: rate_limit, timeout, connection, server, auth, ...) and in a
sentence for the HUD and the log (``trouble``); a server that turns the
structured-output form down comes back ``REFUSED`` (the retry layer sends the
next form; agents/model/dialects.py)."""
from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from typing import Any

from agents.model import providers, scripted
from agents.model.asking import Heard, Reply, Request, Usage
from agents.model.config import ModelConfig
from agents.model.dialects import StructuredCall, endpoint_label
from agents.model.router import ModelRouter

REFUSED = "refused"  # the server turned the request's structured-output form down


class Sent:
    """One request to the configured server (``completion``: litellm's by default). Any, here and
    below: litellm's completion kwargs and response, which it does not type."""

    def __init__(self, config: ModelConfig, completion: Callable[..., Any] | None = None) -> None:
        self.config = config
        self.completion = completion

    def ask_once(self, request: Request) -> Reply:
        cfg = self.config
        form = request.form
        if form is None:
            raise ValueError("a request reaches the server shaped: the validation layer gives it its form")
        kwargs: dict[str, Any] = dict(
            model=cfg.model,
            temperature=request.temperature,
            max_tokens=request.max_tokens,
            timeout=request.timeout,
            num_retries=0,
            drop_params=True,
        )
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if cfg.provider == scripted.PROVIDER:  # a program answering may answer by purpose (lab/competent)
            kwargs["metadata"] = {scripted.PURPOSE_KEY: request.purpose}
        if cfg.api_base:
            kwargs["api_base"] = cfg.api_base
            if cfg.provider in ("openai", "") and not os.environ.get("OPENAI_API_KEY"):
                # Local OpenAI-compatible servers want no key, but the client insists on one.
                kwargs["api_key"] = "no-key-needed"
        try:
            self.shape(kwargs, form)  # inside: whatever goes wrong shaping is one failed call, not every call
            resp = self.send(kwargs)
        except Exception as err:  # noqa: BLE001 - model trouble of every kind ends here
            if self.refused(form, err):
                return Reply(attempts=1, error=REFUSED)
            kind = error_kind(err)
            return Reply(attempts=1, error=kind, why=trouble(kind, err, cfg.model, cfg.api_base))
        text, pt, ct = content_and_usage(resp)
        return Reply(heard=(Heard(text, Usage(pt, ct, cost(resp, cfg))),), attempts=1)

    def shape(self, kwargs: dict[str, Any], form: StructuredCall) -> None:
        kwargs.update(form.shape(self.config.model, self.config.api_base))

    def refused(self, form: StructuredCall, err: BaseException) -> bool:
        return form.refused(err)

    def send(self, kwargs: dict[str, Any]) -> Any:
        return (self.completion or providers.lm().completion)(**kwargs)


class Routed(Sent):
    """Several servers of one model: the router picks one per request, shapes the
    request for it and falls over to the next (agents/model/router.py)."""

    def __init__(self, config: ModelConfig, router: ModelRouter) -> None:
        super().__init__(config, router.completion)
        self.router = router

    def shape(self, kwargs: dict[str, Any], form: StructuredCall) -> None:
        kwargs["structured"] = form  # the router shapes it for the server it picks

    def refused(self, form: StructuredCall, err: BaseException) -> bool:
        return False  # the router asks a server that refused a form again in its next one


# --------------------------------------------------------------------------------------
# error kinds
# --------------------------------------------------------------------------------------
def error_kind(err: BaseException) -> str:
    """A short name for what went wrong: rate_limit, timeout, connection, server, auth, ..."""
    text = str(err).lower()
    if "missing credentials" in text or ("api_key" in text and ("missing" in text or "must be set" in text)):
        return "auth"  # litellm reports a missing key as a server error; retrying cannot help
    if "connection error" in text or "connection refused" in text or "connecterror" in text:
        return "connection"  # litellm reports a refused connection as an InternalServerError
    if getattr(err, "status_code", None) in (401, 403):
        return "auth"  # a 403 reaches us as a BadRequestError from some providers: the key is refused all the same
    lm = providers.loaded()
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


def trouble(kind: str, err: BaseException, model: str, api_base: str | None) -> str:
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


# --------------------------------------------------------------------------------------
# what came back
# --------------------------------------------------------------------------------------
def content_and_usage(resp: Any) -> tuple[str | None, int, int]:
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
        pt, ct = _count(get("prompt_tokens", 0)), _count(get("completion_tokens", 0))
    return text, pt, ct


def _count(value: Any) -> int:
    """A server's token count as a whole number; 0 (counted as unknown) for anything else
    (inf, nan, a list, words, a negative number): the answer is kept either way."""
    if isinstance(value, bool):
        return 0
    try:
        n = float(value or 0)
    except (TypeError, ValueError, OverflowError):
        return 0
    return int(n) if math.isfinite(n) and 0 <= n < 1e12 else 0


def cost(resp: Any, config: ModelConfig) -> float:
    """What the answer cost in dollars, by litellm's price list; 0 for our own providers."""
    if providers.in_process(config.provider) or config.is_embedded:
        return 0.0
    try:
        return float(providers.lm().completion_cost(completion_response=resp) or 0.0)
    except Exception:  # noqa: BLE001 - unknown price: count tokens, not dollars
        return 0.0


__all__ = ["REFUSED", "Routed", "Sent", "content_and_usage", "cost", "error_kind", "trouble"]
