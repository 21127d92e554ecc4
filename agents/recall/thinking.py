"""What every part of the architecture (perceive, plan, decompose, reflect, converse)
needs of the mind it works for (issue 13): ``Thinking``. Each of those modules narrows
it with what else it reads (``plan.Planner``, ``converse.Talker`` ...), so a reader
sees at a glance which part of a mind a function touches. (What a mind needs of its
services, a language model and an embedder, is agents/model/services.py.)"""
from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any, Protocol

from agents.recall.memory import MemoryNode
from agents.recall.spatial import SpatialMemory
from agents.residents.mind_settings import MindSettings
from agents.residents.persona import Persona


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
