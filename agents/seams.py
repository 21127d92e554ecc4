"""The typed seams between a mind and its services, and between the parts of a
mind (issue 13).

- ``Asker``: what minds need of a language model: the road's one request
  (``ask_once``, agents/asking.py) and the structured question with its fallback
  (``ask_traced``). ``agents.llm.Gateway`` is one; ``agents.budget.Budget`` wraps
  one and is one too.
- ``Embedder``: what minds need of an embedding model (``agents.embeddings``).
- ``Thinking``: what every part of the architecture (perceive, plan, decompose,
  reflect, converse) needs of the mind it works for. Each of those modules
  narrows it with what else it reads (``plan.Planner``, ``converse.Talker`` ...),
  so a reader sees at a glance which part of a mind a function touches.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np
from pydantic import BaseModel

from agents.asking import LanguageModel
from agents.memory import MemoryNode
from agents.persona import Persona
from agents.settings import MindSettings
from agents.spatial import SpatialMemory

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


class Thinking(Protocol):
    """What every part of the architecture needs of its mind: who it is, its
    knobs and places, the sim time, one model call and the tallies of rules
    standing in for the model."""

    name: str
    persona: Persona
    settings: MindSettings
    spatial: SpatialMemory
    rejected: Counter  # answers (or parts) that parsed but failed validation, by what

    @property
    def now(self) -> datetime:
        ...

    def ask(self, schema: Any, prompt: str, purpose: str, fallback: Any = None,
            **values: Any) -> tuple[Any, str | None]:
        ...

    def note_fallback(self, what: str, why: str) -> None:
        ...

    def retrieve(self, query: str, k: int | None = None) -> list[MemoryNode]:
        ...

    def doing(self) -> str:
        ...
