"""The typed seams between a mind and its two services (issue 13).

- ``Asker``: what minds need of a language model: the road's one request
  (``ask_once``, agents/model/asking.py) and the structured question with its fallback
  (``ask_traced``). ``agents.model.gateway.Gateway`` is one; ``agents.model.budget.Budget`` wraps
  one and is one too.
- ``Embedder``: what minds need of an embedding model (``agents.recall.embeddings``).

What the parts of a mind need of the mind itself is ``agents.recall.thinking.Thinking``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar, runtime_checkable

import numpy as np
from pydantic import BaseModel

from agents.model.asking import LanguageModel

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
