"""Structured output by token masks: llguidance computes, before each token the
embedded model writes, which tokens keep the answer inside the JSON schema (the
writing loop, agents/engine/guided_decode.py, forbids the others), and which tokens the
schema forces outright (read in one batch, not written one by one).

This replaces llama.cpp's GBNF grammar sampler, which checks every one of the
49k candidate tokens against the grammar at each step (about 20 ms a token here,
more than the model's own 16 ms); llguidance's mask takes well under a
millisecond. The answer is the same kind: JSON that fits the schema, ended by the
model's end-of-sequence token once the schema is complete (the mask then allows
nothing else).

``SMALLVILLE_MASKS=gbnf`` keeps llama.cpp's grammar; so does a machine without
llguidance, and a schema llguidance rejects (agents/engine/local_model.py logs why).
"""
from __future__ import annotations

import ctypes
import json
import logging
import os
from typing import TYPE_CHECKING, Any, cast

import numpy as np

try:
    import llguidance
except ImportError as _err:  # an optional engine: llama.cpp's grammar still works without it
    llguidance = None  # type: ignore[assignment]
    MISSING_REASON = f"llguidance is not installed ({_err})"
else:
    MISSING_REASON = ""

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # named for the type checker only: importing llama.cpp loads native code
    from llama_cpp import Llama

ENGINES = ("llguidance", "gbnf")


def engine() -> str:
    """The engine asked for: SMALLVILLE_MASKS (llguidance | gbnf), llguidance by default."""
    asked = os.environ.get("SMALLVILLE_MASKS", "").strip().lower() or "llguidance"
    return asked if asked in ENGINES else "llguidance"


# Compact JSON, as the GBNF path writes it: free whitespace lets a small model
# spend its tokens on newlines and indentation.
_JSON_OPTIONS: Any = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}


def closed_schema(schema: object) -> object:
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


def tokenizer_for(llm: Llama) -> llguidance.LLTokenizer:
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


def compile_schema(schema: dict, tokenizer: llguidance.LLTokenizer) -> str:
    """llguidance's grammar for ``schema`` (closed, compact JSON); raises Rejected
    with the engine's message when it cannot take the schema."""
    if llguidance is None:
        raise Rejected(MISSING_REASON)
    try:
        grammar = llguidance.LLMatcher.grammar_from_json_schema(cast(dict, closed_schema(schema)),  # a dict's copy
                                                                  overrides=_JSON_OPTIONS)
    except (ValueError, TypeError) as err:
        raise Rejected(str(err)) from None
    is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(grammar, tokenizer)
    if is_error:
        raise Rejected("; ".join(messages) or "rejected")
    return grammar


class Matcher:
    """The schema's state over one answer (agents/engine/guided_decode.py drives it): which
    tokens it forces next, which it allows, and whether it is complete. A token
    outside the mask (which the mask itself prevents) ends the answer at once,
    with the reason in ``failed``; the caller's validation then counts it."""

    def __init__(self, tokenizer: llguidance.LLTokenizer, grammar: str) -> None:
        if llguidance is None:
            raise RuntimeError(MISSING_REASON)
        self._matcher = llguidance.LLMatcher(tokenizer, grammar, log_level=0)
        if self._matcher.is_error():
            raise Rejected(self._matcher.get_error())
        self._bits = np.zeros((tokenizer.vocab_size + 31) // 32, dtype=np.int32)
        self.failed = ""

    @property
    def done(self) -> bool:
        return bool(self.failed) or self._matcher.is_stopped()

    def forced(self) -> list[int]:
        """The tokens the schema allows no alternative to, next (often none)."""
        if self.done:
            return []
        return list(self._matcher.compute_ff_tokens())

    def consume(self, tokens: list[int]) -> None:
        for token in tokens:
            if not self._matcher.consume_token(int(token)):
                self.failed = self._matcher.get_error() or "a token outside the mask"
                return

    def apply(self, logits: np.ndarray) -> np.ndarray:
        """A copy of ``logits`` with every token the schema forbids at -inf."""
        self._matcher.unsafe_compute_mask_ptr(self._bits.ctypes.data, self._bits.nbytes)
        allowed = np.unpackbits(self._bits.view(np.uint8), bitorder="little")[: logits.shape[0]].view(bool)
        return np.where(allowed, logits, np.float32(-np.inf))


def describe(schema: dict) -> str:
    """A short form of a schema for a log line."""
    return json.dumps(schema, sort_keys=True)[:200]
