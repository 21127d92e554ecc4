"""Structured output by token masks: llguidance computes, before each token the
embedded model writes, which tokens keep the answer inside the JSON schema, and a
llama-cpp-python logits processor forbids the others.

This replaces llama.cpp's GBNF grammar sampler, which checks every one of the
49k candidate tokens against the grammar at each step (about 20 ms a token here,
more than the model's own 16 ms); llguidance's mask takes well under a
millisecond. The answer is the same kind: JSON that fits the schema, ended by the
model's end-of-sequence token once the schema is complete (the mask then allows
nothing else).

``SMALLVILLE_MASKS=gbnf`` keeps llama.cpp's grammar; so does a machine without
llguidance, and a schema llguidance rejects (agents/local_model.py logs why).
"""
from __future__ import annotations

import ctypes
import json
import logging
import os
import time
from typing import Any

import numpy as np

try:
    import llguidance
except ImportError as _err:  # an optional engine: llama.cpp's grammar still works without it
    llguidance = None  # type: ignore[assignment]
    MISSING_REASON = f"llguidance is not installed ({_err})"
else:
    MISSING_REASON = ""

log = logging.getLogger(__name__)

ENGINES = ("llguidance", "gbnf")


def engine() -> str:
    """The engine asked for: SMALLVILLE_MASKS (llguidance | gbnf), llguidance by default."""
    asked = os.environ.get("SMALLVILLE_MASKS", "").strip().lower() or "llguidance"
    return asked if asked in ENGINES else "llguidance"


# Compact JSON, as the GBNF path writes it: free whitespace lets a small model
# spend its tokens on newlines and indentation.
_JSON_OPTIONS: Any = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}


def closed_schema(schema: Any) -> Any:
    """A copy of ``schema`` whose objects allow no properties beyond those named (as
    llama.cpp's converter reads a schema; JSON Schema's default would let the model
    add keys of its own, which the callers ignore and pay tokens for)."""
    if isinstance(schema, list):
        return [closed_schema(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: closed_schema(v) if k not in ("properties", "enum", "const") else v for k, v in schema.items()}
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {k: closed_schema(v) for k, v in schema["properties"].items()}
        if "additionalProperties" not in out:
            out["additionalProperties"] = False
    return out


class Rejected(ValueError):
    """llguidance could not compile a schema (the caller uses the GBNF grammar)."""


def tokenizer_for(llm: Any) -> Any:
    """llguidance's tokenizer for a loaded ``llama_cpp.Llama``: the GGUF's own token
    pieces (control tokens marked as special), and llama.cpp's tokenizer for text.
    Valid while ``llm`` is open (it keeps llama.cpp's vocabulary pointer)."""
    import llama_cpp  # lazy: llama.cpp loads native code

    if llguidance is None:
        raise RuntimeError(MISSING_REASON)
    vocab = llm._model.vocab
    n = llama_cpp.llama_vocab_n_tokens(vocab)
    buf = ctypes.create_string_buffer(16 * 1024 + 1)
    pieces: list[bytes] = []
    for token in range(n):
        size = llama_cpp.llama_token_to_piece(vocab, token, buf, 16 * 1024, 0, True)
        if size < 0:
            raise ValueError(f"token {token} has no piece ({size})")
        piece = buf.raw[:size]
        attr = llama_cpp.llama_vocab_get_attr(vocab, token)
        if attr & llama_cpp.LLAMA_TOKEN_ATTR_CONTROL or (
            attr & llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED and piece.startswith(b"<") and piece.endswith(b">")
        ):
            piece = b"\xff" + piece  # llguidance's mark for a special token
        pieces.append(piece)
    tokenize = ctypes.cast(llama_cpp.llama_cpp._lib.llama_tokenize, ctypes.c_void_p).value
    return llguidance.LLTokenizer.from_llamacpp(  # type: ignore[attr-defined]
        tokens=pieces, vocab_ptr=vocab, tokenize_fptr=tokenize, eos_token=llama_cpp.llama_vocab_eos(vocab),
        slices=None,
    )


def compile_schema(schema: dict, tokenizer: Any) -> str:
    """llguidance's grammar for ``schema`` (closed, compact JSON); raises Rejected
    with the engine's message when it cannot take the schema."""
    if llguidance is None:
        raise Rejected(MISSING_REASON)
    try:
        grammar = llguidance.LLMatcher.grammar_from_json_schema(closed_schema(schema), overrides=_JSON_OPTIONS)
    except (ValueError, TypeError) as err:
        raise Rejected(str(err)) from None
    is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(grammar, tokenizer)
    if is_error:
        raise Rejected("; ".join(messages) or "rejected")
    return grammar


class MaskProcessor:
    """A llama-cpp-python logits processor for one generation: it feeds the tokens
    written since its last call to the matcher, asks for the next mask, and sets
    every forbidden token's logit to -inf. When the schema is complete the matcher
    allows only end-of-sequence, so the model stops there.

    ``times_ms`` holds its own cost per token (feeding, mask, applying)."""

    def __init__(self, tokenizer: Any, grammar: str, eos: int) -> None:
        if llguidance is None:
            raise RuntimeError(MISSING_REASON)
        self.matcher = llguidance.LLMatcher(tokenizer, grammar, log_level=0)
        if self.matcher.is_error():
            raise Rejected(self.matcher.get_error())
        self.eos = eos
        self._seen: int | None = None  # tokens in the sequence at the last call
        self._bits = np.zeros((tokenizer.vocab_size + 31) // 32, dtype=np.int32)
        self.times_ms: list[float] = []
        self.failed = ""

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        t0 = time.perf_counter()
        n = len(input_ids)
        if self._seen is None:
            self._seen = n  # the prompt
        elif n > self._seen:
            for token in input_ids[self._seen:n]:
                if not self.matcher.consume_token(int(token)) and not self.failed:
                    self.failed = self.matcher.get_error() or "a token outside the mask"
            self._seen = n
        if self.failed:
            # Cannot happen while the mask is applied; if it does, end the answer now
            # (the caller's validation turns it into the fallback, counted).
            allowed = np.zeros(scores.shape[0], dtype=bool)
            allowed[self.eos] = True
        else:
            self.matcher.unsafe_compute_mask_ptr(self._bits.ctypes.data, self._bits.nbytes)
            allowed = np.unpackbits(self._bits.view(np.uint8), bitorder="little")[: scores.shape[0]].view(bool)
        out = np.where(allowed, scores, np.float32(-np.inf))
        self.times_ms.append((time.perf_counter() - t0) * 1000.0)
        return out


def describe(schema: dict) -> str:
    """A short form of a schema for a log line."""
    return json.dumps(schema, sort_keys=True)[:200]
