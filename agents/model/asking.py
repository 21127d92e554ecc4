"""Ask the model once: the typed request and reply every layer of the model road
speaks, the protocol they share (``LanguageModel``), and the fallback that ends
the road.

As in Google DeepMind's Concordia (one language-model protocol; retries, call
limits and profiling are wrappers around it), each concern of a model call is a
small wrapper that takes a ``LanguageModel`` and is one: the budget
(agents/model/budget.py), accounting (agents/model/accounting.py), health (agents/model/health.py),
the cache (agents/model/cache.py), validation (agents/model/validation.py), transient-error
retries (agents/model/retry.py) and the server or the router (agents/model/send.py). The
gateway composes them in one place (agents/model/gateway.py ``Gateway._road``).

A ``Request`` is the messages, the answer's schema, who asks and why, the
sampling settings and the time allowed; a ``Reply`` is every answer heard (text,
tokens, cost), the validated value or None, how many requests it took and what
went wrong. ``answer`` turns a reply into what callers use: ``(value, None)``,
or ``(fallback, why)`` when there is no usable value.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from agents.model.dialects import StructuredCall

T = TypeVar("T", bound=BaseModel)

SYSTEM_PROMPT = (
    "You are the inner voice of a resident of a small town called the Ville. "
    "Stay in character, be brief and concrete. Answer with one JSON object only."
)


@dataclass(frozen=True)
class Request:
    """One question to the model, as every layer of the road sees it."""

    schema: type[BaseModel]  # what the answer must validate as
    messages: list[dict]
    purpose: str  # "day_plan", "respond", ...: the ledger's and the budget's key
    resident: str | None = None
    temperature: float | None = None  # None: the gateway's configured temperature
    max_tokens: int = 256
    seed: int | None = None  # the gateway's
    timeout: float = 60.0  # seconds one request may take (the gateway's; the retry layer narrows it to the time left)
    deadline: float = math.inf  # time.monotonic() by which the whole ask ends (the gateway's)
    form: StructuredCall | None = None  # the messages shaped for each server's dialect (the validation layer's)

    @classmethod
    def of(cls, schema: type[BaseModel], prompt: str | list[dict], *, purpose: str, resident: str | None = None,
           temperature: float | None = None, max_tokens: int = 256) -> Request:
        """A request for ``prompt``: a text becomes the resident's inner voice's system line
        and the text; a list of messages is taken as it is."""
        if isinstance(prompt, str):
            messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}]
        else:
            messages = [dict(m) for m in prompt]
        return cls(schema, messages, purpose, resident, temperature, max_tokens)


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


@dataclass(frozen=True)
class Heard:
    """One answer as the server sent it (None: no text at all), with what it cost."""

    text: str | None
    usage: Usage = Usage()


@dataclass(frozen=True)
class Reply:
    """What came back of a request."""

    value: Any = None  # the validated answer (an instance of the request's schema), or None
    heard: tuple[Heard, ...] = ()  # every answer as received, in order
    attempts: int = 0  # requests sent: transient-error retries, the validation retry and dialect changes included
    error: str | None = None  # the kind of the last problem: invalid, empty, timeout, rate_limit, budget, ...
    why: str | None = None  # what went wrong, for people ("connection: refused"), when a request failed
    cached: bool = False  # read from the response cache: no request was sent
    cacheable: bool = False  # valid, and asked without a retry's turns: what a cache may keep
    latency_s: float = 0.0

    @property
    def text(self) -> str | None:
        """The last answer's text."""
        return self.heard[-1].text if self.heard else None

    @property
    def raws(self) -> list[str]:
        return [h.text or "" for h in self.heard]

    @property
    def usage(self) -> Usage:
        """The tokens and cost of every answer heard."""
        pt = ct = 0
        cost = 0.0
        for h in self.heard:
            pt += h.usage.prompt_tokens
            ct += h.usage.completion_tokens
            cost += h.usage.cost_usd
        return Usage(pt, ct, cost)

    @property
    def answered(self) -> bool:
        """The server answered (something, valid or not) in this ask."""
        return bool(self.heard) and not self.cached

    @property
    def outcome(self) -> str:
        """The ledger's word: ok, retried (valid after more than one request) or fallback."""
        if self.value is None:
            return "fallback"
        return "ok" if self.attempts <= 1 else "retried"

    @property
    def ledger_error(self) -> str | None:
        """The error as the ledger keeps it: none for an answer at the first request,
        the last problem for a retried one, and for no value always a reason."""
        if self.value is None:
            return self.error or "error"
        return self.error if self.attempts > 1 else None


@runtime_checkable
class LanguageModel(Protocol):
    """Ask the model once: a request in, a reply out. Never raises for model trouble."""

    def ask_once(self, request: Request) -> Reply:
        ...


def answer(model: LanguageModel, request: Request, fallback: T | Callable[[], T]) -> tuple[T, str | None]:
    """The road's last step: ``(value, None)`` when the model's answer is usable, else
    ``(fallback, why)`` (a callable fallback is made only then)."""
    reply = model.ask_once(request)
    if reply.value is not None:
        return reply.value, None
    value = fallback() if callable(fallback) and not isinstance(fallback, BaseModel) else fallback
    return value, reply.ledger_error


class Asks:
    """``ask_traced`` on top of ``ask_once``: the structured question with the caller's
    fallback, as minds ask it (agents/model/services.py ``Asker``)."""

    def ask_once(self, request: Request) -> Reply:
        raise NotImplementedError

    def ask_traced(self, schema: type[T], prompt: str | list[dict], *, purpose: str, resident: str | None = None,
                   fallback: T | Callable[[], T], temperature: float | None = None,
                   max_tokens: int = 256) -> tuple[T, str | None]:
        """An instance of ``schema`` and ``None`` when the value is the model's;
        ``(fallback, why)`` when it is not, where ``why`` is the kind of trouble
        ("invalid", "empty", "timeout", "connection", "budget", ...)."""
        request = Request.of(schema, prompt, purpose=purpose, resident=resident, temperature=temperature,
                             max_tokens=max_tokens)
        return answer(self, request, fallback)


__all__ = ["SYSTEM_PROMPT", "Asks", "Heard", "LanguageModel", "Reply", "Request", "Usage", "answer"]
