"""The typed seams between a mind and its two services (issue 13).

- ``Asker``: what minds need of a language model: the road's one request
  (``ask_once``, agents/model/asking.py) and the structured question with its fallback
  (``ask_traced``). ``agents.model.gateway.Gateway`` is one; ``agents.model.budget.Budget`` wraps
  one and is one too.
- ``Embedder``: what minds need of an embedding model (``agents.recall.embeddings``).
- ``ask_model``: the one road from a mind to its model. ``Mind.ask``, the visitor's chat and
  interviews (agents/mind/interview.py) and grounded choices (agents/recall/grounding.py) all ask
  through it, so each question is rendered from its template, limited by its purpose's tokens
  (agents/explain/purposes.py), counted and guarded by the asker it is given (the mind's budget,
  or the budget only read), and kept as a decision record (agents/explain/why.py).

What the parts of a mind need of the mind itself is ``agents.recall.thinking.Thinking``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Protocol, TypeVar, cast, overload, runtime_checkable

import numpy as np
from pydantic import BaseModel

from agents.explain import purposes, why
from agents.model.asking import LanguageModel
from agents.prompts import render

T = TypeVar("T", bound=BaseModel)


@runtime_checkable
class Asker(LanguageModel, Protocol):
    """One structured model call: ``(value, None)`` when the value is the model's,
    ``(fallback, why)`` when it is not ("invalid", "timeout", "budget", ...);
    ``temperature`` None is the model's configured one. Never raises for model
    trouble. ``ask_once`` is the same call as the road's request and reply."""

    def ask_traced(self, schema: type[T], prompt: str | list[dict], *, purpose: str, resident: str | None = None,
                   fallback: T | Callable[[], T], temperature: float | None = None,
                   max_tokens: int = 256) -> tuple[T, str | None]:
        ...


@runtime_checkable
class Embedder(Protocol):
    """Text to vectors: ``embed(texts)`` is float32 of shape (n, dim), rows L2-normalised."""

    model_name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        ...


@overload
def ask_model(asker: Asker, schema: type[T], template: str, values: Mapping[str, object], *, purpose: str,
              resident: str, now: datetime | None, fallback: T | Callable[[], T],
              temperature: float | None = None) -> tuple[T, str | None]:
    ...


@overload
def ask_model(asker: Asker, schema: type[T], template: str, values: Mapping[str, object], *, purpose: str,
              resident: str, now: datetime | None, fallback: None = None,
              temperature: float | None = None) -> tuple[T | None, str | None]:
    ...


def ask_model(asker: Asker, schema: type[T], template: str, values: Mapping[str, object], *, purpose: str,
              resident: str, now: datetime | None, fallback: T | Callable[[], T] | None = None,
              temperature: float | None = None) -> tuple[T | None, str | None]:
    """One question of a mind: ``template`` (agents/prompts/) filled with ``values``, asked
    through ``asker`` under ``purpose``'s token limit and kept as a decision record.
    ``(answer, None)``, or ``(fallback, why)`` when the model's answer is unusable or the
    asker withheld the call ("budget"); no fallback is None. ``temperature``: a chooser's
    own (None: the configuration's)."""
    text = render(template, **values)
    record = why.begin(asker, resident, now, purpose, template)  # the decision record, if a log is kept
    # No fallback: None, which ask_traced's type (an instance of the schema) leaves out.
    none = cast(Callable[[], T], lambda: None)
    got = asker.ask_traced(schema, text, purpose=purpose, resident=resident,
                           fallback=fallback if fallback is not None else none,
                           max_tokens=purposes.max_tokens(purpose), temperature=temperature)
    why.end(record, got)
    return got
