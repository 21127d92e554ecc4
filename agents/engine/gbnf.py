"""llama.cpp's GBNF grammar for a JSON schema: how the embedded model holds an
answer to its schema when llguidance's token masks cannot (SMALLVILLE_MASKS=gbnf,
llguidance missing, or a schema it rejects). Slower: llama.cpp checks every
candidate token against the grammar at each step.
"""
from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # named for the type checker only: importing llama.cpp loads native code
    from llama_cpp import Llama, LlamaGrammar


def grammar_ok(llm: Llama, text: str) -> bool:
    """Whether llama.cpp accepts a GBNF grammar (a rejected one would crash it at sampling)."""
    import llama_cpp  # lazy: llama.cpp loads native code

    sampler = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, text.encode("utf-8"), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


def grammar_for(llm: Llama, schema: dict) -> LlamaGrammar | None:
    """A llama.cpp grammar for ``schema`` on the loaded ``llm``, or None when none can
    be built (logged; the caller then asks for plain JSON).

    Patterns llama.cpp cannot take are dropped, small integer ranges become enums;
    pydantic validation checks the rest afterwards.
    """
    from llama_cpp import LlamaGrammar  # lazy: llama.cpp loads native code
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    for candidate in (grammar_schema(schema), grammar_schema(schema, keep_patterns=False)):
        try:
            text = json_schema_to_gbnf(json.dumps(candidate))
        except Exception as err:  # noqa: BLE001 - the converter's own limits
            log.debug("no grammar for schema (%s)", err)
            continue
        if grammar_ok(llm, text):
            return LlamaGrammar.from_string(text)
    log.warning("no llama.cpp grammar for a schema; using plain JSON mode: %.200s", json.dumps(schema, sort_keys=True))
    return None


_CLASSES = {r"\d": "[0-9]", r"\w": "[A-Za-z0-9_]", r"\s": "[ ]"}


def grammar_schema(schema: object, keep_patterns: bool = True, max_enum: int = 1500) -> object:
    """A copy of ``schema`` that llama.cpp's JSON-schema-to-grammar converter handles.

    Integer ranges of up to ``max_enum`` values become enums (the converter ignores
    minimum/maximum); regex shorthands become classes; other patterns are dropped.
    """
    if isinstance(schema, list):
        return [grammar_schema(x, keep_patterns, max_enum) for x in schema]
    if not isinstance(schema, dict):
        return schema
    # A JSON schema's values are whatever JSON holds: read by key below as the schema's own rules say.
    out: dict[str, Any] = {k: grammar_schema(v, keep_patterns, max_enum) if k != "properties" else v
                           for k, v in schema.items()}
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {k: grammar_schema(v, keep_patterns, max_enum) for k, v in schema["properties"].items()}
    if out.get("type") == "integer" and "enum" not in out:
        lo = out.get("minimum", out["exclusiveMinimum"] + 1 if "exclusiveMinimum" in out else None)
        hi = out.get("maximum", out["exclusiveMaximum"] - 1 if "exclusiveMaximum" in out else None)
        if lo is not None and hi is not None and 0 <= hi - lo < max_enum:
            out = {"enum": list(range(int(lo), int(hi) + 1))}
    if "pattern" in out:
        pattern = out["pattern"]
        for short, cls in _CLASSES.items():
            pattern = pattern.replace(short, cls)
        if not keep_patterns or "\\" in pattern or "(?" in pattern:
            out.pop("pattern")
        else:
            out["pattern"] = pattern
    return out
