"""Saved prompt prefixes for one llama.cpp instance, so a call reads only its new tail.

Most of the embedded model's time goes to reading prompts, and a resident's
prompts begin alike: the same system line, the same "who I am" paragraph, often
the same instructions. llama.cpp already keeps the previous prompt in its
KV cache, but the previous call on an instance is usually another resident's.
This keeps a few dozen prefixes' KV states (about 23 kB a token for SmolLM2,
about 1 ms to restore 400 tokens) and, before each call, puts back the one that
shares the most tokens with the new prompt.

One store serves all of the embedded model's instances (a state moves between
contexts of the same weights), so a resident's head read on one instance is
restored on another.

Which prefixes: after each call, its whole prompt is kept; and where it shares a
long head with a prompt kept before (another call by the same resident, or the
same purpose), that head is kept on its own too. Heads are short and shared, so
they outlive whole prompts: over the byte budget, the least recently used whole
prompt goes first, and a head only when no whole prompt is left.

``SMALLVILLE_PREFIX_STATES=off`` turns it off; ``SMALLVILLE_PREFIX_MB`` sets the
budget (default 256).
"""
from __future__ import annotations

import ctypes
import logging
import math
import os
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # named for the type checker only: importing llama.cpp loads native code
    from llama_cpp import Llama

log = logging.getLogger(__name__)

MIN_HEAD = 48  # tokens: a shorter shared head is not worth a state of its own
MIN_GAIN = 16  # tokens: restore only when it saves at least this much reading
DEFAULT_MB = 256


def enabled() -> bool:
    """Whether prefix states are on (SMALLVILLE_PREFIX_STATES, on by default)."""
    return os.environ.get("SMALLVILLE_PREFIX_STATES", "on").strip().lower() not in ("off", "0", "no", "false")


def budget_bytes() -> int:
    """SMALLVILLE_PREFIX_MB in bytes; a bad value falls back to the default, logged."""
    raw = os.environ.get("SMALLVILLE_PREFIX_MB", "").strip()
    if not raw:
        return DEFAULT_MB << 20
    try:
        mb = float(raw)
        if not math.isfinite(mb) or mb < 0 or mb * (1 << 20) > 1 << 50:  # nan, inf, 1e300: no budget at all
            raise ValueError
    except ValueError:
        log.warning("SMALLVILLE_PREFIX_MB=%r is not a number of megabytes; using %d", raw, DEFAULT_MB)
        return DEFAULT_MB << 20
    return int(mb * (1 << 20))


def common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    """How many leading tokens ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    differ = np.flatnonzero(a[:n] != b[:n])
    return int(differ[0]) if differ.size else n


class PrefixStates:
    """The kept prefixes, shared by instances of the same weights (each call holds
    its own instance's lock; the store's lock guards the store)."""

    def __init__(self, budget: int | None = None) -> None:
        self.budget = budget_bytes() if budget is None else budget
        # (weights file, tokens) -> tokens, state data, its size
        self._kept: OrderedDict[tuple[str, bytes], tuple[np.ndarray, Any, int]] = OrderedDict()
        self.bytes = 0
        self.reused = 0  # prompt tokens not read again, over this instance's life
        self.read = 0  # prompt tokens in all
        self._heads: set[tuple[str, bytes]] = set()  # the kept entries that are shared heads
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def _best(self, weights: str, tokens: np.ndarray) -> tuple[tuple[str, bytes] | None, int]:
        best, best_k = None, 0
        for key, (kept, _data, _size) in self._kept.items():
            if key[0] != weights:  # a state belongs to the weights that made it
                continue
            k = common_prefix(kept, tokens)
            if k > best_k or (k == best_k and best is not None and len(kept) < len(self._kept[best][0])):
                best, best_k = key, k
        return best, best_k

    def restore(self, llm: Llama, tokens: list[int]) -> int:
        """Before a call: load the kept prefix that shares most with ``tokens`` into
        sequence 0, when it beats what the context already holds. Returns the
        tokens of the prompt the context now holds (not to be read again)."""
        with self._lock:
            return self._restore(llm, tokens)

    def keep(self, llm: Llama, tokens: list[int]) -> None:
        """After a call: keep the prompt's state, and its head shared with an earlier
        prompt. Trims the context to the prompt (the answer is not reused)."""
        with self._lock:
            self._keep(llm, tokens)

    def _restore(self, llm: Llama, tokens: list[int]) -> int:
        import llama_cpp  # lazy: llama.cpp loads native code

        want = np.asarray(tokens, dtype=np.intc)
        live = common_prefix(np.asarray(llm.input_ids[: llm.n_tokens], dtype=np.intc), want)
        key, k = self._best(llm.model_path, want)
        usable = min(k, len(want) - 1)  # at least one token is read, for the next logits
        if key is not None and usable >= live + MIN_GAIN:
            kept, data, size = self._kept[key]
            ctx = llm._ctx.ctx
            llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(ctx), 0, -1, -1)
            if llama_cpp.llama_state_seq_set_data(ctx, data, size, 0) == size:
                llm.input_ids[: len(kept)] = kept
                llm.n_tokens = len(kept)
                llm._requires_eval = True  # the logits are not this state's: read a token first
                self._kept.move_to_end(key)
                live = usable
            else:  # cannot happen with states this instance made; start clean rather than guess
                log.warning("embedded model: a kept prompt state did not load; reading the prompt in full")
                self._drop(key)
                llm.reset()
                live = 0
        live = min(live, len(want) - 1)
        self.reused += max(0, live)
        self.read += len(want)
        return max(0, live)

    def _keep(self, llm: Llama, tokens: list[int]) -> None:
        import llama_cpp  # lazy: llama.cpp loads native code

        want = np.asarray(tokens, dtype=np.intc)
        if self.budget <= 0 or llm.n_tokens < len(want):
            return
        if common_prefix(np.asarray(llm.input_ids[: len(want)], dtype=np.intc), want) < len(want):
            return  # the context holds another tokenisation of the prompt: nothing to trust
        mem = llama_cpp.llama_get_memory(llm._ctx.ctx)
        llama_cpp.llama_memory_seq_rm(mem, 0, len(want), -1)
        llm.n_tokens = len(want)
        llm._requires_eval = True  # the logits left are the answer's, not the prompt's
        _best, head = self._best(llm.model_path, want)
        self._save(llm, want, head=False)
        if MIN_HEAD <= head < len(want) and (llm.model_path, want[:head].tobytes()) not in self._kept:
            llama_cpp.llama_memory_seq_rm(mem, 0, head, -1)
            llm.n_tokens = head
            self._save(llm, want[:head], head=True)

    def _save(self, llm: Llama, tokens: np.ndarray, head: bool) -> None:
        import llama_cpp  # lazy: llama.cpp loads native code

        key = (llm.model_path, tokens.tobytes())
        if key in self._kept:
            self._kept.move_to_end(key)
            return
        ctx = llm._ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        if size > self.budget:
            return
        data = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, data, size, 0)
        if written != size:
            log.debug("prefix state: %d of %d bytes written; not kept", written, size)
            return
        self._kept[key] = (tokens.copy(), data, size)
        if head:
            self._heads.add(key)
        self.bytes += size
        while self.bytes > self.budget and self._kept:
            # Whole prompts go first (large, and rarely asked again), then heads, each oldest first.
            whole = next((k for k in self._kept if k not in self._heads), None)
            self._drop(whole if whole is not None else next(iter(self._kept)))

    def _drop(self, key: tuple[str, bytes]) -> None:
        _tokens, _data, size = self._kept.pop(key)
        self._heads.discard(key)
        self.bytes -= size

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self._heads.clear()
            self.bytes = 0
