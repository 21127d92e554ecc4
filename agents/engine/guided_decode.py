"""The embedded model's own writing loop for answers under a JSON schema.

llama-cpp-python's chat completion samples one token per pass over the weights,
even where the schema leaves a single choice: the ``{"summary": "`` an answer
opens with, the key names between values, an enum's only remaining spelling.
Here llguidance says which tokens the schema forces next, and all of them are
read in one batch (a batch of tokens costs little more than one); the model
samples only where it has a choice, under the schema's mask. Sampling is
llama.cpp's default chain as the chat completion used it: top-k 40, top-p 0.95,
min-p 0.05, then the temperature.

The caller holds the instance's lock and has put the prompt's best kept prefix
in place (agents/engine/prefix_states.py); this reads the rest of the prompt.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

TOP_K = 40
TOP_P = 0.95
MIN_P = 0.05

if TYPE_CHECKING:  # named for the type checker only: importing llama.cpp loads native code
    from llama_cpp import Llama

    from agents.engine.masks import Matcher


class Expired(Exception):
    """The deadline passed while writing."""


@dataclass
class Written:
    tokens: list[int]
    finish_reason: str  # "stop" (the schema or the model ended it) or "length"
    forced: int = 0  # tokens the schema forced, read in batches
    mask_ms: list[float] = field(default_factory=list)  # the mask's cost per sampled token


def sample(logits: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """One token from ``logits`` (-inf for forbidden ones), as llama.cpp's chain does."""
    if temperature <= 0:
        return int(np.argmax(logits))
    finite = int(np.isfinite(logits).sum())
    k = max(1, min(TOP_K, finite))
    top = np.argpartition(-logits, k - 1)[:k]
    top = top[np.argsort(-logits[top], kind="stable")]
    chosen = logits[top].astype(np.float64)
    p = np.exp(chosen - chosen[0])
    p /= p.sum()
    cut = int(np.searchsorted(np.cumsum(p), TOP_P)) + 1  # the smallest set holding top-p
    top, chosen = top[:cut], chosen[:cut]
    keep = chosen >= chosen[0] + np.log(MIN_P)  # min-p: at least 5 % of the likeliest
    top, chosen = top[keep], chosen[keep]
    p = np.exp((chosen - chosen[0]) / temperature)
    p /= p.sum()
    return int(top[rng.choice(len(top), p=p)])


def write(llm: Llama, prompt: list[int], held: int, matcher: Matcher, *, max_tokens: int, temperature: float,
          seed: int | None, deadline: float | None = None) -> Written:
    """Read ``prompt`` past its first ``held`` tokens (already in the context), then
    write an answer the ``matcher`` (agents/engine/masks.py Matcher) allows."""
    import llama_cpp  # lazy: llama.cpp loads native code

    llm.n_tokens = held  # llm.eval drops the context's cells from here on
    llm.eval(prompt[held:])
    rng = np.random.default_rng(seed)
    n_vocab = llm.n_vocab()
    eos = llm.token_eos()
    out = Written(tokens=[], finish_reason="length")
    while len(out.tokens) < max_tokens:
        if deadline is not None and time.monotonic() > deadline:
            raise Expired()
        forced = matcher.forced()[: max_tokens - len(out.tokens)]
        if forced:
            matcher.consume(forced)
            out.tokens.extend(forced)
            out.forced += len(forced)
            llm.eval(forced)
            if matcher.done:
                out.finish_reason = "stop"
                break
            continue
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(n_vocab,))
        t0 = time.perf_counter()
        masked = matcher.apply(logits)
        out.mask_ms.append((time.perf_counter() - t0) * 1000.0)
        token = sample(masked, temperature, rng)
        if token == eos:
            out.finish_reason = "stop"
            break
        matcher.consume([token])
        out.tokens.append(token)
        if matcher.done:
            out.finish_reason = "stop"
            break
        llm.eval([token])
    return out
