"""A mind's memory, as its parts use it: the stream (made on first use), memories stored
embedded in one batch, those that wait for their embedding (``unembedded``) or for the
model's rating (``unrated``), and the paper's retrieval weighed by the resident's settings.
One half of a mind's plumbing (core.py's ``Mind`` is a ``Remembering``); what a job
decides with these memories is the parts' (agents/recall/, agents/planning/, ...)."""
from __future__ import annotations

import logging
from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.model.services import Embedder
from agents.recall import perceive
from agents.recall.memory import MemoryNode, MemoryStream
from agents.residents.mind_settings import MindSettings

log = logging.getLogger(__name__)


class Remembering:
    """Storing and retrieving a resident's memories (see the module)."""

    # What remembering uses of the mind (agents/mind/keeping.py, Keeping.__init__, sets them).
    name: str
    settings: MindSettings
    embedder: Embedder
    _memory: MemoryStream | None
    unrated: list[int]  # memory ids a rule rated, waiting for the model's rating
    unembedded: list[dict]  # memories whose embedding failed: stored on a later try
    fallbacks: Counter

    if TYPE_CHECKING:
        @property
        def now(self) -> datetime: ...

    @property
    def stream(self) -> MemoryStream | None:
        """The memory stream if it exists yet (never creates it: safe for a reader beside a job)."""
        return self._memory

    @property
    def memory(self) -> MemoryStream:
        if self._memory is None:
            self._memory = MemoryStream(self.embedder.model_name, self.embedder.dim)
        return self._memory

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    def retrieve(self, query: str, k: int | None = None) -> list[MemoryNode]:
        """The paper's retrieval; nothing (and a note in the log) when the query cannot be
        embedded: a prompt without memories beats a resident that stops."""
        if len(self.memory) == 0:
            return []
        try:
            vec = self.embed([query])[0]
        except Exception as err:  # noqa: BLE001 - an embedding server down must not stop the mind
            log.warning("%s: retrieval without memories, the query could not be embedded (%s)", self.name, err)
            self.fallbacks["retrieval: embedding failed"] += 1
            return []
        return self.memory.retrieve(vec, self.now, k=k or self.settings.retrieve_k,
                                    char_budget=self.settings.retrieve_chars, query_text=query, **self._scoring())

    def _scoring(self) -> dict[str, Any]:
        """The paper's retrieval score as this resident's settings weigh it."""
        s = self.settings
        return dict(decay=s.recency_decay, weights=(s.w_recency, s.w_importance, s.w_relevance))

    def search(self, queries: list[str], now: datetime, *, k: int, char_budget: int,
               touch: bool = True, kinds: tuple[str, ...] | None = None) -> list[MemoryNode]:
        """Retrieval for several queries, embedded in one batch, their results merged
        in order; ``touch=False`` leaves last-access times as they are (an interview).
        Never creates the memory stream. ``kinds``: only memories of these kinds."""
        mem = self._memory
        if mem is None or len(mem) == 0:
            return []
        seen: dict[int, MemoryNode] = {}
        for q, v in zip(queries, self.embed(queries)):
            for x in mem.retrieve(v, now, k=k, char_budget=char_budget, touch=touch, kinds=kinds, query_text=q,
                                  **self._scoring()):
                seen.setdefault(x.id, x)
        return list(seen.values())

    def memory_text(self, node_id: int) -> str | None:
        """The description of memory ``node_id``, or None (a read-only peek for panels:
        never creates the stream, never raises)."""
        mem = self._memory
        try:
            node = mem.get(int(node_id)) if mem is not None else None
        except (TypeError, ValueError, IndexError):
            return None
        return node.description if node is not None else None

    def remember(self, kind: str, text: str, importance: int, **fields: Any) -> MemoryNode | None:
        """Store one memory (see remember_many); the node, or None when it waits for
        its embedding."""
        got = self.remember_many([dict(kind=kind, text=text, importance=importance, **fields)])
        return got[0] if got else None

    def remember_many(self, items: list[dict]) -> list[MemoryNode]:
        """Store memories, embedded in one batch. ``items``: dicts of kind, text,
        importance and MemoryStream.add's keywords, plus ``rate=True`` for an importance
        a rule set that the model should rate later (batched with observations). When
        the embedding fails, nothing is lost: they wait in ``unembedded`` and are
        stored by a later job."""
        items = [dict(x, created=x.get("created") or self.now.isoformat()) for x in items]
        if not items:
            return []
        try:
            vecs = self.embed([x["text"] for x in items])
        except Exception as err:  # noqa: BLE001 - an embedding server down must not lose memories
            log.warning("%s: embedding failed (%s); %d memories wait for a retry", self.name, err, len(items))
            self.unembedded.extend(items)
            return []
        nodes = []
        for x, v in zip(items, vecs):
            x = dict(x)
            rate_later = x.pop("rate", False)
            kind, text, importance = x.pop("kind"), x.pop("text"), x.pop("importance")
            created = datetime.fromisoformat(x.pop("created"))
            earlier = perceive.rated_before(self.memory, kind, text) if rate_later else None
            node = self.memory.add(kind, text, created, importance, v, **x)
            if earlier is not None:
                self.memory.rerate(node.id, earlier.importance, perceive.same_rating(earlier))
            elif rate_later:
                self.unrated.append(node.id)
            nodes.append(node)
        return nodes

    def _retry_embeddings(self) -> None:
        if self.unembedded:
            waiting, self.unembedded = self.unembedded, []
            self.remember_many(waiting)
