"""The memory stream and retrieval (Park et al. 2023, section 4.1).

Nodes live in a Python list; what retrieval scores lives in parallel numpy
arrays (one embedding matrix, importance, last-access hour) so one query is a
handful of vectorised operations over the whole stream, never a loop per node.
"""
from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter
from typing import Any, Literal

import numpy as np

from agents.explain import why

simsimd: Any
try:
    import simsimd  # SIMD int8 dot products for big streams (see _Int8Rows)
except ImportError:  # an install without it: the scan stays float32
    simsimd = None

log = logging.getLogger(__name__)

Kind = Literal["observation", "reflection", "plan", "chat", "thought"]
KINDS = ("observation", "reflection", "plan", "chat", "thought")
# What counts toward the next reflection: what is perceived and heard, as in the original
# (its perceive step alone drains the trigger). A plan, a seed phrase or a given thought
# is no new experience; counting them (34 per resident at the first wake from the seed
# phrases alone) made reflections come sooner than the paper's two or three a day.
TRIGGER_KINDS = ("observation", "chat")

_LAST_ACCESSED = attrgetter("last_accessed")
_RATED = attrgetter("importance", "importance_source")  # what rerate changes after a node is appended

# Sim times become float hours since this instant, so recency is arithmetic.
_EPOCH = datetime(2000, 1, 1)


def sim_hours(t: datetime) -> float:
    return (t - _EPOCH).total_seconds() / 3600.0


class EmbeddingMismatch(ValueError):
    """Vectors from another embedding model (or of another size) than the stream's."""


@dataclass
class MemoryNode:
    id: int
    kind: str
    description: str
    created: datetime
    last_accessed: datetime
    importance: int
    evidence: list[int] = field(default_factory=list)  # node ids (reflections)
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    expires: datetime | None = None
    source: str = ""  # who wrote the description (agents/explain/provenance.py); "" for what was perceived
    importance_source: str = ""  # who rated it: "model", or "rule: <why>"

    @property
    def embedding_row(self) -> int:
        return self.id  # ids are dense: node i is row i of the matrix

    def to_dict(self, last_accessed: datetime | None = None) -> dict:
        """Plain data (times as ISO text); hand-written: asdict is ten times slower.
        ``last_accessed``: the value to write instead of the node's own (a snapshot's)."""
        la = self.last_accessed if last_accessed is None else last_accessed
        return {
            "id": self.id, "kind": self.kind, "description": self.description,
            "created": self.created.isoformat(), "last_accessed": la.isoformat(),
            "importance": self.importance, "evidence": list(self.evidence),
            "subject": self.subject, "predicate": self.predicate, "object": self.object,
            "expires": self.expires.isoformat() if self.expires is not None else None,
            "source": self.source, "importance_source": self.importance_source,
        }

    @classmethod
    def from_dict(cls, d: dict) -> MemoryNode:
        d = dict(d)
        for k in ("created", "last_accessed", "expires"):
            d[k] = datetime.fromisoformat(d[k]) if d.get(k) else None
        d["evidence"] = [int(e) for e in d.get("evidence") or []]
        d["source"] = str(d.get("source") or "")  # saves from before provenance have none
        d["importance_source"] = str(d.get("importance_source") or "")
        return cls(**d)


def minmax(x: np.ndarray) -> np.ndarray:
    """Scale to [0,1]. A constant column carries no ranking information; it
    becomes 0.5 everywhere (as the original does), so it shifts every score
    equally and changes no order."""
    if x.size == 0:
        return x
    lo, hi = float(x.min()), float(x.max())
    if hi - lo < 1e-12:
        return np.full_like(x, 0.5)
    return (x - lo) / (hi - lo)


# The relevance scan is bound by memory bandwidth: 100k x 384 float32 rows are
# 154 MB per query. Big streams also keep a scalar-quantised int8 copy of their
# rows (one scale per row, a quarter of the bytes), scanned with simsimd's SIMD
# int8 dot products; the best few candidates are then re-scored with their exact
# float32 cosines (``MemoryStream.retrieve``), so the top results are those of
# the paper's formula. Measured here (AMD EPYC, 100k rows, one thread): int8
# 1.5 ms, float32 (BLAS, two threads) 6.1 ms, one plain pass over the float32
# bytes 6.1 ms. Where simsimd is missing or has no SIMD int8 path for the CPU,
# float32 wins the measurement that ``scan_kernel`` makes once per process.
COMPACT_FROM = 4_000  # below, an exact float32 scan costs about what the int8 scan and re-scoring do
PROBE_ROWS = 20_000  # the block scan_kernel times each kernel on
KERNELS = ("float32", "int8")
_kernel: str | None = None


def median_ms(f, repeat: int = 5) -> float:
    """The median wall time of ``f()`` in milliseconds, after one warm-up call."""
    f()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return 1000.0 * sorted(times)[len(times) // 2]


def kernel_timings(rows: int = PROBE_ROWS, dim: int = 384, repeat: int = 5) -> dict[str, float]:
    """ms per scan of ``rows`` unit vectors with each kernel (the median of ``repeat``);
    a kernel that cannot run here (no simsimd) is left out."""
    rng = np.random.default_rng(0)
    emb = rng.standard_normal((rows, dim), dtype=np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    q = emb[0].copy()
    out = {"float32": median_ms(lambda: emb @ q, repeat)}
    if simsimd is not None:
        compact = _Int8Rows()
        compact.cosines(emb, rows, q)  # quantises the rows once
        out["int8"] = median_ms(lambda: compact.cosines(emb, rows, q), repeat)
    return out


def scan_kernel() -> str:
    """The relevance-scan kernel for big streams on this CPU, measured once (a few
    tens of ms); int8 only when clearly faster (a 20k block may sit in cache, which
    flatters float32 less than it does the copy). SMALLVILLE_SCAN_KERNEL overrides."""
    global _kernel
    if _kernel is None:
        forced = os.environ.get("SMALLVILLE_SCAN_KERNEL", "").strip().lower()
        if forced == "int8" and simsimd is None:
            log.warning("SMALLVILLE_SCAN_KERNEL=int8 but simsimd is not installed: scanning in float32")
            _kernel = "float32"
        elif forced in KERNELS:
            _kernel = forced
        else:
            timings = kernel_timings()
            int8 = timings.get("int8")
            _kernel = "int8" if int8 is not None and int8 < 0.8 * timings["float32"] else "float32"
            log.info("relevance scan kernel: %s (ms per %d rows: %s)", _kernel, PROBE_ROWS,
                     ", ".join(f"{k} {v:.2f}" for k, v in timings.items()))
    return _kernel


class _Int8Rows:
    """A scalar-quantised int8 copy of a stream's unit embedding rows (code =
    round(x / scale), scale = max|x| / 127 per row), extended as rows are added
    (rows never change once written)."""

    def __init__(self) -> None:
        self._codes = np.zeros((0, 0), dtype=np.int8)
        self._scale = np.zeros(0, dtype=np.float32)
        self._count = 0

    @staticmethod
    def quantise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(int8 codes, float32 scale per row) of the rows of ``x``."""
        peak = np.abs(x).max(axis=-1, keepdims=True)
        scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
        return np.rint(x / scale).astype(np.int8), scale[..., 0]

    def cosines(self, emb: np.ndarray, n: int, q: np.ndarray) -> np.ndarray:
        """Approximate ``emb[:n] @ q`` (within about 3e-3 for unit rows and query)."""
        dim = emb.shape[1]
        if self._codes.shape[0] < n or self._codes.shape[1] != dim:
            codes = np.zeros((max(n, 2 * self._count), dim), dtype=np.int8)
            scale = np.zeros(codes.shape[0], dtype=np.float32)
            if self._codes.shape[1] == dim:
                codes[: self._count], scale[: self._count] = self._codes[: self._count], self._scale[: self._count]
            else:
                self._count = 0
            self._codes, self._scale = codes, scale
        if self._count < n:
            self._codes[self._count:n], self._scale[self._count:n] = self.quantise(emb[self._count:n])
            self._count = n
        q_codes, q_scale = self.quantise(np.asarray(q, dtype=np.float32)[None, :])
        dots = np.asarray(simsimd.cdist(q_codes, self._codes[:n], metric="dot", dtype="int8"))[0]
        cos = dots.astype(np.float32)
        cos *= self._scale[:n]
        cos *= q_scale[0]
        return cos


def top_indices(score: np.ndarray, k: int) -> np.ndarray:
    """The indices of the k highest scores, in no order (exact). On big arrays the
    k-th best of a strided sample is a bar that at least k scores clear, so the
    partition runs over the few that clear it (0.06 ms instead of 0.75 at 100k)."""
    n = score.size
    if k >= n:
        return np.arange(n)
    sample = score[::16]
    if n >= 4096 and sample.size > 4 * k:
        bar = np.partition(sample, sample.size - k)[sample.size - k]
        few = np.flatnonzero(score >= bar)
        return few[np.argpartition(score[few], few.size - k)[few.size - k:]]
    return np.argpartition(score, n - k)[n - k:]


@dataclass
class _Scored:
    """One query's scores over the candidates, and what re-scoring needs."""
    ids: np.ndarray
    score: np.ndarray
    query: np.ndarray  # unit length
    relevance: np.ndarray  # the cosines that went into score (int8 scan: approximate), less their minimum
    relevance_min: float  # that minimum
    relevance_factor: float  # score per unit of cosine (the min-max scaling times its weight)
    approximate: bool
    bounds: tuple = ()  # (min, max) of each term over the candidates (agents/explain/why.py records them)


class MemoryStream:
    """A resident's memory stream: every observation, thought and plan, with its embedding,
    importance and times, retrieved by the paper's recency, importance and relevance."""

    def __init__(self, model: str, dim: int, capacity: int = 256):
        self.model = model  # which embedding model made every vector here
        self.dim = int(dim)
        self.nodes: list[MemoryNode] = []
        self._newest_with_words: dict[str, int] = {}  # a description -> the newest node that says it
        self._allocate(capacity)
        # Summed importance of what was perceived and heard since the last reflection (TRIGGER_KINDS).
        self.importance_since_reflection = 0.0

    def _allocate(self, capacity: int) -> None:
        """Empty arrays for ``capacity`` rows (the nodes are the caller's to set)."""
        self._emb = np.zeros((capacity, self.dim), dtype=np.float32)
        self._compact = _Int8Rows()  # int8 copy of the rows, for big streams only
        self._imp = np.zeros(capacity, dtype=np.float32)
        self._last = np.zeros(capacity, dtype=np.float64)  # sim hours of last access
        self._kind = np.zeros(capacity, dtype=np.int8)
        self._exp = np.full(capacity, np.inf, dtype=np.float64)  # sim hours; inf = never
        self._soonest_expiry = np.inf  # min of _exp: whether a query must filter at all

    def __len__(self) -> int:
        return len(self.nodes)

    # -- adding -----------------------------------------------------------
    def _grow(self, need: int) -> None:
        cap = self._emb.shape[0]
        if need <= cap:
            return
        new = max(need, cap * 2)  # amortised: doubling keeps appends O(1) on average

        def grow(a: np.ndarray, fill=0.0) -> np.ndarray:
            b = np.full((new,) + a.shape[1:], fill, dtype=a.dtype)
            b[:cap] = a
            return b

        self._emb = grow(self._emb)
        self._imp = grow(self._imp)
        self._last = grow(self._last)
        self._kind = grow(self._kind, 0)
        self._exp = grow(self._exp, np.inf)

    def check_vector(self, vec: np.ndarray, model: str | None = None) -> np.ndarray:
        v = np.asarray(vec, dtype=np.float32).reshape(-1)
        if model is not None and model != self.model:
            raise EmbeddingMismatch(
                f"memory stream holds vectors of {self.model!r}; refusing one from {model!r} "
                "(re-embed the stream or use the same embedding model)"
            )
        if v.shape[0] != self.dim:
            raise EmbeddingMismatch(
                f"memory stream holds {self.dim}-dim vectors of {self.model!r}; got a {v.shape[0]}-dim one"
            )
        return v

    def add(
        self,
        kind: str,
        description: str,
        created: datetime,
        importance: int,
        embedding: np.ndarray,
        *,
        evidence: Iterable[int] = (),
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,
        expires: datetime | None = None,
        model: str | None = None,
        source: str = "",
        importance_source: str = "",
    ) -> MemoryNode:
        if kind not in KINDS:
            raise ValueError(f"unknown memory kind {kind!r}")
        v = self.check_vector(embedding, model)
        n = len(self.nodes)
        self._grow(n + 1)
        importance = int(min(10, max(1, importance)))
        valid = [int(e) for e in evidence if 0 <= int(e) < n]  # evidence must already exist
        node = MemoryNode(n, kind, description, created, created, importance, valid,
                          subject, predicate, object, expires, source, importance_source)
        norm = float(np.linalg.norm(v))
        self._emb[n] = v / norm if norm > 0 else v  # unit rows: cosine is a dot product
        self._imp[n] = importance
        self._last[n] = sim_hours(created)
        self._kind[n] = KINDS.index(kind)
        self._exp[n] = sim_hours(expires) if expires else np.inf
        self._soonest_expiry = min(self._soonest_expiry, float(self._exp[n]))
        self.nodes.append(node)  # last: a snapshot taken meanwhile never sees a node without its row
        self._newest_with_words[description] = n
        if kind in TRIGGER_KINDS:
            self.importance_since_reflection += importance
        return node

    def rerate(self, node_id: int, importance: int, source: str) -> None:
        """A new importance for a node (the model's rating of what a rule rated first)."""
        node = self.nodes[node_id]
        importance = int(min(10, max(1, importance)))
        if node.kind in TRIGGER_KINDS:
            self.importance_since_reflection += importance - node.importance
        node.importance = importance
        node.importance_source = source
        self._imp[node_id] = importance

    # -- reading ----------------------------------------------------------
    def newest_with_words(self, description: str) -> MemoryNode | None:
        """The newest memory in exactly these words, or None."""
        i = self._newest_with_words.get(description)
        return self.nodes[i] if i is not None else None

    def recent(self, n: int, kinds: Iterable[str] | None = None) -> list[MemoryNode]:
        """The n newest nodes (of these kinds), oldest first."""
        sel = [x for x in self.nodes if x.kind in set(kinds)] if kinds else self.nodes
        return list(sel[-n:]) if n > 0 else []

    def by_kind(self, kind: str) -> list[MemoryNode]:
        return [x for x in self.nodes if x.kind == kind]

    def get(self, node_id: int) -> MemoryNode | None:
        return self.nodes[node_id] if 0 <= node_id < len(self.nodes) else None

    def embedding(self, node_id: int) -> np.ndarray:
        return self._emb[node_id].copy()

    def scores(
        self,
        query: np.ndarray,
        now: datetime,
        *,
        weights: tuple[float, float, float] = (1.0, 1.0, 1.0),
        decay: float = 0.995,
        kinds: Iterable[str] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(candidate node ids, their scores). Each term is min-max scaled
        over the candidates; weights are (recency, importance, relevance). In big
        streams scanned in int8 the relevance term is approximate (see retrieve)."""
        scored = self._scored(query, now, weights, decay, kinds)
        return scored.ids, scored.score

    def _scored(self, query: np.ndarray, now: datetime, weights: tuple[float, float, float], decay: float,
                kinds: Iterable[str] | None) -> _Scored:
        n = len(self.nodes)
        q = self.check_vector(query)
        qn = float(np.sqrt(q @ q))
        q = q / qn if qn > 0 else q
        h_now = sim_hours(now)
        if kinds or self._soonest_expiry <= h_now:
            mask = self._exp[:n] > h_now  # expired memories are forgotten
            if kinds:
                mask &= np.isin(self._kind[:n], [KINDS.index(k) for k in kinds])
            ids = np.nonzero(mask)[0]
        else:  # every memory is a candidate: slices, no gathered copies
            ids = np.arange(n)
        if ids.size == 0:
            return _Scored(ids, np.zeros(0, dtype=np.float32), q, np.zeros(0, dtype=np.float32), 0.0, 0.0, False)
        every = ids.size == n
        # The three terms as the rows of one matrix, so min-max scaling and weighting
        # take a handful of vectorised calls whatever the stream's size.
        terms = np.empty((3, ids.size), dtype=np.float32)
        # decay ** hours: exp of a product is four times faster than np.power; float32
        # is plenty for scores that are min-max scaled to [0, 1].
        np.subtract(self._last[:n] if every else self._last[ids], h_now, out=terms[0], casting="same_kind")
        np.minimum(terms[0], 0.0, out=terms[0])
        terms[0] *= np.float32(-np.log(decay))
        np.exp(terms[0], out=terms[0])
        terms[1] = self._imp[:n] if every else self._imp[ids]
        # One scan over the contiguous block (no fancy-indexed copy of the matrix),
        # then pick the candidates' cosines.
        approximate = n >= COMPACT_FROM and scan_kernel() == "int8"
        cos = self._compact.cosines(self._emb, n, q) if approximate else self._emb[:n] @ q
        terms[2] = cos if every else cos[ids]
        lo = terms.min(axis=1)
        bounds = tuple(zip(lo.tolist(), terms.max(axis=1).tolist()))
        scale, constant = [], 0.0
        for w, (low, high) in zip(weights, bounds):
            flat = high - low < 1e-12  # no ranking information: 0.5 everywhere, as minmax says
            scale.append(0.0 if flat else w / (high - low))
            constant += 0.5 * w if flat else 0.0
        terms -= lo[:, None]
        score = np.asarray(scale, dtype=np.float32) @ terms
        if constant:
            score += np.float32(constant)
        return _Scored(ids, score, q, terms[2], float(lo[2]), scale[2], approximate, bounds)

    def retrieve(
        self,
        query: np.ndarray,
        now: datetime,
        *,
        k: int = 12,
        char_budget: int | None = None,
        weights: tuple[float, float, float] = (1.0, 1.0, 1.0),
        decay: float = 0.995,
        kinds: Iterable[str] | None = None,
        touch: bool = True,
        query_text: str | None = None,
    ) -> list[MemoryNode]:
        """The top-k nodes by score (best first), cut to fit char_budget;
        the returned nodes' last access becomes `now`. ``query_text``: the query's
        words, for the decision record (agents/explain/why.py) while one is being kept."""
        scored = self._scored(query, now, weights, decay, kinds)
        ids, score = scored.ids, scored.score
        if ids.size == 0 or k <= 0:
            return []
        k = min(k, ids.size)
        if scored.approximate:
            # The best 4k by the int8 scan, re-scored with their exact cosines (the
            # min-max bounds stay the scan's, within 3e-3), then the best k of those.
            pool = top_indices(score, min(ids.size, 4 * k))
            exact = self._emb[ids[pool]] @ scored.query
            exact -= np.float32(scored.relevance_min)
            score[pool] += np.float32(scored.relevance_factor) * (exact - scored.relevance[pool])
            top = pool[top_indices(score[pool], k)]
        else:
            top = top_indices(score, k)
        top = top[np.argsort(-score[top], kind="stable")]
        chosen = ids[top]
        if char_budget is not None:
            lengths = np.array([len(self.nodes[i].description) + 1 for i in chosen])
            keep = np.cumsum(lengths) <= char_budget
            keep[0] = True  # always at least one
            chosen = chosen[keep]
        if why.recording():  # before the touch: the access times the scores were made of
            why.note_retrieval(self, query_text, scored.query, now, weights, decay, ids.size, scored.bounds,
                               chosen.tolist(), kinds)
        if touch:
            self._last[chosen] = sim_hours(now)
            for i in chosen:
                self.nodes[i].last_accessed = now
        return [self.nodes[i] for i in chosen]

    # -- persistence ------------------------------------------------------
    def to_state(self) -> dict:
        """Everything needed to rebuild the stream: plain dicts plus arrays."""
        return self.snapshot()()

    def snapshot(self):
        """A consistent, cheap picture of the stream now (about 0.1 ms per
        thousand nodes): the node list, each node's last access and rating, and a read-only
        view of the embedding rows (rows are written once, before their node is
        appended, and never change). Returns a zero-argument callable that
        builds ``to_state()``'s dict later, on any thread."""
        nodes = list(self.nodes)
        n = len(nodes)
        last = list(map(_LAST_ACCESSED, nodes))
        rated = list(map(_RATED, nodes))  # a rating after now must not reach this picture
        emb = self._emb[:n]
        emb.flags.writeable = False  # the view only; the stream's own array stays writable
        model, dim, isr = self.model, self.dim, self.importance_since_reflection

        def build() -> dict:
            return {
                "model": model,
                "dim": dim,
                "nodes": [x.to_dict(t) | {"importance": r[0], "importance_source": r[1]}
                          for x, t, r in zip(nodes, last, rated)],
                "embeddings": emb,
                "importance_since_reflection": isr,
            }
        return build

    def from_state(self, state: dict) -> None:
        """Restore, in place, what ``to_state`` wrote: the stream takes the state's
        embedding model and size. Everything is parsed before anything changes."""
        nodes = [MemoryNode.from_dict(d) for d in state["nodes"]]
        dim, n = int(state["dim"]), len(nodes)
        emb = np.asarray(state["embeddings"], dtype=np.float32).reshape(n, dim)
        for i, x in enumerate(nodes):
            if x.id != i or x.kind not in KINDS:
                raise ValueError(f"memory state is corrupt: node {i} has id {x.id}, kind {x.kind!r}")
        self.model, self.dim = state["model"], dim
        self._allocate(max(256, n))
        self._emb[:n] = emb
        for i, x in enumerate(nodes):
            self._imp[i] = x.importance
            self._last[i] = sim_hours(x.last_accessed)
            self._kind[i] = KINDS.index(x.kind)
            self._exp[i] = sim_hours(x.expires) if x.expires else np.inf
        self._soonest_expiry = float(self._exp[:n].min(initial=np.inf))
        self.nodes = nodes
        self._newest_with_words = {x.description: x.id for x in nodes}
        self.importance_since_reflection = float(state.get("importance_since_reflection", 0.0))
