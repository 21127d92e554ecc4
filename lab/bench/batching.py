"""The embedded model's pool shape: instances × sequences, by measurement (for `make bench`).

llama.cpp can write several sequences' next tokens in one pass over the
weights (one batch, one sequence id each). Whether that beats running
instances side by side depends on the machine: a pass over a batch of several
tokens takes ggml's matrix-matrix path, which costs more per pass than the
one-token path. This reads a recorded resident's prompt into each of B
sequences of one context (the answers' context, as in play), then times
passes that write one token for each of them, and times two one-sequence
instances writing side by side on two threads (ctypes lets go of the GIL, so
they run on two cores). Reported: the written tokens/s of each shape, medians.

    python -m lab.bench.batching [PASSES]     # as JSON (default 40 passes a shape)
"""
from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import importlib.util
import json
import statistics
import sys
import threading
import time
from typing import Any

from agents import local_model as lm
from lab.bench.measure import Context, Skipped
from lab.bench.replay_calls import load_calls

SHAPES = ((1, 1), (2, 1), (4, 1), (8, 1), (4, 2), (8, 2))  # (sequences, threads) in one context


class _Batcher:
    """One llama.cpp context of ``seqs`` sequences on the weights ``llm`` loaded."""

    def __init__(self, llm: Any, seqs: int, threads: int) -> None:
        import llama_cpp  # lazy: native code
        from llama_cpp import _internals

        self._api = llama_cpp
        params = llama_cpp.llama_context_default_params()
        params.n_ctx, params.n_batch, params.n_ubatch = 1024 * seqs, 512, 512
        params.n_seq_max = seqs
        params.n_threads = params.n_threads_batch = threads
        self._ctx = _internals.LlamaContext(model=llm._model, params=params, verbose=False)
        self._batch = llama_cpp.llama_batch_init(512, 0, seqs)
        self.seqs = seqs
        self.pos = [0] * seqs

    def _decode(self, items: list[tuple[int, int, int, bool]]) -> None:
        b = self._batch
        b.n_tokens = len(items)
        for i, (token, pos, seq, logits) in enumerate(items):
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = token, pos, 1, logits
            b.seq_id[i][0] = seq
        code = self._api.llama_decode(self._ctx.ctx, b)
        if code != 0:
            raise RuntimeError(f"llama_decode failed ({code}) on {len(items)} tokens")

    def read(self, seq: int, tokens: list[int]) -> None:
        for start in range(0, len(tokens), 512):
            chunk = tokens[start:start + 512]
            self._decode([(t, self.pos[seq] + start + i, seq, start + i == len(tokens) - 1)
                          for i, t in enumerate(chunk)])
        self.pos[seq] += len(tokens)

    def step(self, token: int) -> None:
        """One pass: the next token of every sequence, with each sequence's logits."""
        self._decode([(token, self.pos[s], s, True) for s in range(self.seqs)])
        self.pos = [p + 1 for p in self.pos]

    def close(self) -> None:
        self._api.llama_batch_free(self._batch)
        self._ctx.close()


def _passes(batcher: _Batcher, passes: int) -> list[float]:
    times = []
    for k in range(passes):
        t = time.perf_counter()
        batcher.step(100 + k)
        times.append(time.perf_counter() - t)
    return times


def batching_speed(passes: int = 40) -> dict[str, Any]:
    model = lm.LocalModel(n_ctx=512)
    model.prefixes = None
    llm = model.load()
    prompts = [model._prompt_tokens(c["messages"]) or [] for c in load_calls(limit=8)]
    out: dict[str, Any] = {"batching_passes": passes}
    try:
        for seqs, threads in SHAPES:
            batcher = _Batcher(llm, seqs, threads)
            try:
                for s in range(seqs):
                    batcher.read(s, prompts[s][:700])
                ms = statistics.median(_passes(batcher, passes)) * 1000
            finally:
                batcher.close()
            out[f"batching_{seqs}seq_{threads}thr_pass_ms"] = round(ms, 1)
            out[f"batching_{seqs}seq_{threads}thr_tokens_per_s"] = round(seqs / ms * 1000, 1)
        # Two one-sequence instances side by side, one thread each (today's headless shape).
        pair = [_Batcher(llm, 1, 1) for _ in range(2)]
        try:
            for i, b in enumerate(pair):
                b.read(0, prompts[i][:700])
            medians: list[float] = []
            threads_ = [threading.Thread(target=lambda b=b: medians.append(statistics.median(_passes(b, passes))))
                        for b in pair]
            for t in threads_:
                t.start()
            for t in threads_:
                t.join()
        finally:
            for b in pair:
                b.close()
        out["batching_2x1seq_tokens_per_s"] = round(sum(1 / m for m in medians), 1)
    finally:
        model.close()
    one = out["batching_1seq_1thr_tokens_per_s"]
    out["batching_4seq_over_1seq"] = round(out["batching_4seq_1thr_tokens_per_s"] / one, 2)
    out["batching_4seq_over_2_instances"] = round(out["batching_4seq_1thr_tokens_per_s"]
                                                  / out["batching_2x1seq_tokens_per_s"], 2)
    return out


def bench_batching(ctx: Context) -> dict:
    """Written tokens/s of one context with 1-8 sequences against two instances side by side."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise Skipped("needs llama-cpp-python (make play installs it)")
    try:
        lm.find_gguf()
    except lm.ModelNotInstalled as err:
        raise Skipped(str(err)) from None
    return batching_speed(ctx.n(40, 5))


if __name__ == "__main__":
    print(json.dumps(batching_speed(int(sys.argv[1]) if len(sys.argv) > 1 else 40), indent=2))
