"""The memory stream and retrieval (Park et al. 2023, section 4.1).

Nodes live in a Python list; what retrieval scores lives in parallel numpy
arrays (one embedding matrix, importance, last-access hour) so one query is a
handful of vectorised operations over the whole stream, never a loop per node.
"""
from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter
from typing import Any, Iterable, Literal

import numpy as np

from agents.torch_threads import limit_torch_threads

log = logging.getLogger(__name__)

Kind = Literal["observation", "reflection", "plan", "chat", "thought"]
KINDS = ("observation", "reflection", "plan", "chat", "thought")

_LAST_ACCESSED = attrgetter("last_accessed")

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
    source: str = ""  # who wrote the description (agents/provenance.py); "" for what was perceived
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
    def from_dict(cls, d: dict) -> "MemoryNode":
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


def _add_scaled(score: np.ndarray, x: np.ndarray, w: float) -> None:
    """score += w * minmax(x), in place, without minmax's temporaries."""
    lo, hi = float(x.min()), float(x.max())
    if hi - lo < 1e-12:
        score += np.float32(0.5 * w)  # minmax's constant column
        return
    t = np.subtract(x, np.float32(lo), dtype=np.float32)
    t *= np.float32(w / (hi - lo))
    score += t


# The relevance scan is bound by memory bandwidth: 100k x 384 float32 rows are
# 154 MB per query. A 16-bit copy halves the bytes; which 16-bit format scans
# fast depends on the CPU: torch's bfloat16 kernels are quick where the CPU has
# AMX/AVX512-BF16 paths for them (an Intel Xeon here: 4 ms), but ran at 40 ms on
# this AMD EPYC, whose float16 scan took 9 ms against a 7 ms pass over the same
# bytes. So the kernel is chosen by measuring, once per process (``scan_kernel``):
# the fastest of float32 (numpy), float16 and bfloat16 (torch) on a synthetic
# block. Cosines then differ by under 1e-3 (bf16) or 2e-4 (f16), so the top
# results are the same; small streams, where speed is no issue, keep the exact
# float32 product.
HALF_PRECISION_FROM = 20_000
KERNELS = ("float32", "float16", "bfloat16")
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


def kernel_timings(rows: int = HALF_PRECISION_FROM, dim: int = 384, repeat: int = 5) -> dict[str, float]:
    """ms per scan of ``rows`` unit vectors with each kernel (the median of ``repeat``);
    a kernel that cannot run here (no torch) is left out."""
    import torch  # lazy: importing torch costs seconds, and only big streams need it

    limit_torch_threads()
    rng = np.random.default_rng(0)
    emb = rng.standard_normal((rows, dim), dtype=np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    q = emb[0].copy()
    out = {"float32": median_ms(lambda: emb @ q, repeat)}
    for name in ("float16", "bfloat16"):
        dtype = getattr(torch, name)
        try:
            m, v = torch.from_numpy(emb).to(dtype), torch.from_numpy(q).to(dtype)
            out[name] = median_ms(lambda m=m, v=v: torch.mv(m, v), repeat)
        except (RuntimeError, TypeError):  # pragma: no cover - a torch build without that kernel
            continue
    return out


def scan_kernel() -> str:
    """The fastest relevance-scan kernel on this CPU, measured once (a few tens of ms);
    SMALLVILLE_SCAN_KERNEL (float32, float16, bfloat16) overrides."""
    global _kernel
    if _kernel is None:
        forced = os.environ.get("SMALLVILLE_SCAN_KERNEL", "").strip().lower()
        if forced in KERNELS:
            _kernel = forced
        else:
            try:
                timings = kernel_timings()
            except ImportError:  # embeddings from a litellm model: torch may be absent
                timings = {"float32": 0.0}
            _kernel = min(timings, key=lambda k: timings[k])
            log.info("relevance scan kernel: %s (ms per %d rows: %s)", _kernel, HALF_PRECISION_FROM,
                     ", ".join(f"{k} {v:.2f}" for k, v in timings.items()))
    return _kernel


class _HalfMirror:
    """A 16-bit copy of a stream's embedding rows (float16 or bfloat16, whichever
    ``scan_kernel`` found fastest), extended as rows are added (rows never change
    once written). Where float32 is fastest, or without torch, no copy is kept."""

    def __init__(self) -> None:
        self._rows: Any = None  # torch 16-bit tensor with spare capacity (torch is imported lazily)
        self._count = 0

    def cosines(self, emb: np.ndarray, n: int, q: np.ndarray) -> np.ndarray:
        kernel = scan_kernel()
        if kernel == "float32":
            return emb[:n] @ q
        import torch  # lazy: importing torch costs seconds, and only big streams need it

        dtype = getattr(torch, kernel)
        if self._rows is None or self._rows.shape[0] < n or self._rows.shape[1] != emb.shape[1] \
                or self._rows.dtype != dtype:
            grown = torch.empty((max(n, 2 * self._count), emb.shape[1]), dtype=dtype)
            if self._rows is not None and self._rows.shape[1] == emb.shape[1] and self._rows.dtype == dtype:
                grown[: self._count] = self._rows[: self._count]
            else:
                self._count = 0
            self._rows = grown
        if self._count < n:
            self._rows[self._count:n] = torch.from_numpy(emb[self._count:n]).to(dtype)
            self._count = n
        query = torch.from_numpy(np.ascontiguousarray(q, dtype=np.float32)).to(dtype)
        return torch.mv(self._rows[:n], query).float().numpy()

    @staticmethod
    def top(score: np.ndarray, k: int) -> np.ndarray:
        """The indices of the k highest scores (any order)."""
        import torch  # lazy: loaded already by cosines (big streams only)

        return torch.topk(torch.from_numpy(np.ascontiguousarray(score)), k, sorted=False).indices.numpy()


class MemoryStream:
    def __init__(self, model: str, dim: int, capacity: int = 256):
        self.model = model  # which embedding model made every vector here
        self.dim = int(dim)
        self.nodes: list[MemoryNode] = []
        self._allocate(capacity)
        # Summed importance of everything stored since the last reflection.
        self.importance_since_reflection = 0.0

    def _allocate(self, capacity: int) -> None:
        """Empty arrays for ``capacity`` rows (the nodes are the caller's to set)."""
        self._emb = np.zeros((capacity, self.dim), dtype=np.float32)
        self._half = _HalfMirror()  # bfloat16 copy of the rows, for big streams only
        self._imp = np.zeros(capacity, dtype=np.float32)
        self._last = np.zeros(capacity, dtype=np.float64)  # sim hours of last access
        self._kind = np.zeros(capacity, dtype=np.int8)
        self._exp = np.full(capacity, np.inf, dtype=np.float64)  # sim hours; inf = never

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
        importance = int(min(10, max(1, round(importance))))
        valid = [int(e) for e in evidence if 0 <= int(e) < n]  # evidence must already exist
        node = MemoryNode(n, kind, description, created, created, importance, valid,
                          subject, predicate, object, expires, source, importance_source)
        norm = float(np.linalg.norm(v))
        self._emb[n] = v / norm if norm > 0 else v  # unit rows: cosine is a dot product
        self._imp[n] = importance
        self._last[n] = sim_hours(created)
        self._kind[n] = KINDS.index(kind)
        self._exp[n] = sim_hours(expires) if expires else np.inf
        self.nodes.append(node)  # last: a snapshot taken meanwhile never sees a node without its row
        if kind != "reflection":
            self.importance_since_reflection += importance
        return node

    def rerate(self, node_id: int, importance: int, source: str) -> None:
        """A new importance for a node (the model's rating of what a rule rated first)."""
        node = self.nodes[node_id]
        importance = int(min(10, max(1, round(importance))))
        if node.kind != "reflection":
            self.importance_since_reflection += importance - node.importance
        node.importance = importance
        node.importance_source = source
        self._imp[node_id] = importance

    # -- reading ----------------------------------------------------------
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
        over the candidates; weights are (recency, importance, relevance)."""
        n = len(self.nodes)
        q = self.check_vector(query)
        qn = float(np.linalg.norm(q))
        q = q / qn if qn > 0 else q
        h_now = sim_hours(now)
        if kinds or float(self._exp[:n].min(initial=np.inf)) <= h_now:
            mask = self._exp[:n] > h_now  # expired memories are forgotten
            if kinds:
                mask &= np.isin(self._kind[:n], [KINDS.index(k) for k in kinds])
            ids = np.nonzero(mask)[0]
        else:  # every memory is a candidate: slices, no gathered copies
            ids = np.arange(n)
        if ids.size == 0:
            return ids, np.zeros(0)
        every = ids.size == n
        last = self._last[:n] if every else self._last[ids]
        # decay ** hours: exp of a product is four times faster than np.power; float32
        # is plenty for scores that are min-max scaled to [0, 1].
        recency = np.minimum(last - h_now, 0.0).astype(np.float32)
        recency *= np.float32(-np.log(decay))
        np.exp(recency, out=recency)
        importance = self._imp[:n] if every else self._imp[ids]
        # One matrix-vector product over the contiguous block (no fancy-indexed
        # copy of the matrix), then pick the candidates' cosines.
        cos = self._half.cosines(self._emb, n, q) if n >= HALF_PRECISION_FROM else self._emb[:n] @ q
        relevance = cos if every else cos[ids]
        w_rec, w_imp, w_rel = weights
        score = np.zeros(ids.size, dtype=np.float32)
        for x, w in ((recency, w_rec), (importance, w_imp), (relevance, w_rel)):
            _add_scaled(score, x, w)
        return ids, score

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
    ) -> list[MemoryNode]:
        """The top-k nodes by score (best first), cut to fit char_budget;
        the returned nodes' last access becomes `now`."""
        ids, score = self.scores(query, now, weights=weights, decay=decay, kinds=kinds)
        if ids.size == 0 or k <= 0:
            return []
        k = min(k, ids.size)
        if k >= ids.size:
            top = np.arange(ids.size)
        elif ids.size >= HALF_PRECISION_FROM and scan_kernel() != "float32":
            top = self._half.top(score, k)  # torch is loaded already: its top-k is 5x numpy's argpartition
        else:
            top = np.argpartition(score, ids.size - k)[ids.size - k:]
        top = top[np.argsort(-score[top], kind="stable")]
        chosen = ids[top]
        if char_budget is not None:
            lengths = np.array([len(self.nodes[i].description) + 1 for i in chosen])
            keep = np.cumsum(lengths) <= char_budget
            keep[0] = True  # always at least one
            chosen = chosen[keep]
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
        thousand nodes): the node list, each node's last access and a read-only
        view of the embedding rows (rows are written once, before their node is
        appended, and never change). Returns a zero-argument callable that
        builds ``to_state()``'s dict later, on any thread."""
        nodes = list(self.nodes)
        n = len(nodes)
        last = list(map(_LAST_ACCESSED, nodes))
        emb = self._emb[:n]
        emb.flags.writeable = False  # the view only; the stream's own array stays writable
        model, dim, isr = self.model, self.dim, self.importance_since_reflection

        def build() -> dict:
            return {
                "model": model,
                "dim": dim,
                "nodes": [x.to_dict(t) for x, t in zip(nodes, last)],
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
        self.nodes = nodes
        self.importance_since_reflection = float(state.get("importance_since_reflection", 0.0))
