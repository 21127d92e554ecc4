"""A resident's memory stream as plain data (from a save's state or from the
story's start), and embeddings for the memory judge."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from game.saves.saved_run import parse_time


@dataclass
class MemoryView:
    """One resident's memory stream as plain data."""
    texts: list[str]
    kinds: list[str]
    created: list[datetime | None]
    subjects: list[str | None]
    objects: list[str | None]
    vectors: np.ndarray | None
    model: str | None


def view_of_state(state: dict) -> MemoryView:
    """A saved mind's memory stream (``Mind.to_state()["memory"]``); vectors only when they match the nodes."""
    mem = state.get("memory") or {}
    nodes = list(mem.get("nodes") or [])
    emb = mem.get("embeddings")
    vecs = np.asarray(emb, dtype=np.float32) if emb is not None and len(nodes) else None
    if vecs is not None and (vecs.ndim != 2 or vecs.shape[0] < len(nodes)):
        vecs = None
    elif vecs is not None:
        vecs = vecs[: len(nodes)]
    return MemoryView([str(n.get("description", "")) for n in nodes], [n.get("kind", "") for n in nodes],
                      [parse_time(n.get("created")) for n in nodes], [n.get("subject") for n in nodes],
                      [n.get("object") for n in nodes], vecs, mem.get("model"))


def initial_texts(persona: Any, scenario: Any) -> list[str]:
    """What a resident's memory holds when the story starts: its description's
    phrases and its seeded thoughts (agents.mind.Mind.start_turn)."""
    out = list(persona.phrases)
    for who, thought, _imp in getattr(scenario, "seeds", None) or []:
        if who == persona.name:
            out.append(thought)
    return out


class Vectors:
    """Embeds through the run's embedder, when it is the model the saved streams used."""

    def __init__(self, embedder: Any, model: str | None):
        self.embedder = embedder
        self.ok = embedder is not None and (model is None or getattr(embedder, "model_name", None) == model)

    def __call__(self, texts: Sequence[str]) -> np.ndarray | None:
        if not self.ok or not texts:
            return None
        return np.asarray(self.embedder.embed(list(texts)), dtype=np.float32)
