"""Reading a model's answer: the schema shown to the model (without titles),
lenient JSON parsing (code fences and prose around the JSON ignored, a bare
value for a one-field schema accepted) and validation with a short reason a
model can read when it is asked again. Used by the gateway (agents/model/gateway.py)."""
from __future__ import annotations

import copy
import json
import re
import threading
from typing import TypeVar, cast

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_schema_cache: dict[type, dict] = {}
_schema_lock = threading.Lock()


def _strip_titles(node: object) -> object:
    if isinstance(node, dict):
        out: dict[str, object] = {}
        for k, v in node.items():
            if k == "title" and isinstance(v, str):
                continue
            if k == "properties" and isinstance(v, dict):
                out[k] = {pk: _strip_titles(pv) for pk, pv in v.items()}  # keep a field named "title"
            else:
                out[k] = _strip_titles(v)
        return out
    if isinstance(node, list):
        return [_strip_titles(x) for x in node]
    return node


def compact_schema(schema: type[BaseModel]) -> dict:
    """The schema's JSON schema without titles (they cost tokens and say nothing)."""
    with _schema_lock:
        cached = _schema_cache.get(schema)
        if cached is None:
            cached = cast(dict, _strip_titles(schema.model_json_schema()))  # a dict's copy
            _schema_cache[schema] = cached
    return copy.deepcopy(cached)


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)


def parse_json_answer(text: str | None) -> object:
    """The first JSON value in a model's answer: code fences stripped, prose around it ignored.

    Raises ValueError when there is none.
    """
    if text is None or not text.strip():
        raise ValueError("the answer was empty")
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for cand in candidates:
        cand = cand.strip()
        try:
            return json.loads(cand)
        except ValueError:
            pass
        for i, ch in enumerate(cand):
            if ch in "{[":
                try:
                    value, _ = decoder.raw_decode(cand, i)
                    return value
                except ValueError:
                    continue
    raise ValueError("the answer held no JSON object")


def _single_field(schema: type[BaseModel]) -> str | None:
    required = [n for n, f in schema.model_fields.items() if f.is_required()]
    if len(schema.model_fields) == 1:
        return next(iter(schema.model_fields))
    if len(required) == 1:
        return required[0]
    return None


def _cut_off(text: str | None) -> bool:
    """An answer that opens a JSON object or list and never closes it (hit max_tokens)."""
    t = _FENCE.sub(lambda m: m.group(1), text or "").strip()
    if not t.startswith(("{", "[")):
        return False
    try:
        json.JSONDecoder().raw_decode(t)
        return False
    except ValueError as err:
        return getattr(err, "pos", 0) >= len(t) - 2 or "Unterminated" in str(err)


def validate_answer(schema: type[T], text: str | None) -> T:
    """Parse leniently and validate; raises ValueError with a short, model-readable reason,
    whatever the answer holds (a thousand brackets deep, a number too big for a float)."""
    try:
        return _validate(schema, text)
    except (RecursionError, OverflowError, TypeError, UnicodeError) as err:
        raise ValueError(f"the answer could not be read ({type(err).__name__}); "
                         "answer again with a short, flat JSON object") from None


# A prose answer cut off by max_tokens keeps its whole sentences, when its schema says a
# shorter answer is as good (a summary): the embedded model ran past the limit on half its
# summaries of yesterday, and asking again cost as much as the first answer.
KEEPS_SENTENCES = "cut_off_keeps_sentences"
_OPEN_STRING = re.compile(r'^\{\s*"(\w+)"\s*:\s*"((?:[^"\\]|\\.)*)$', re.S)
_SENTENCE_END = re.compile(r'[.!?](?=\s|$)')
MIN_KEPT_CHARS = 20


def _sentences_before_cut(schema: type[BaseModel], text: str | None) -> BaseModel | None:
    """The cut-off answer's whole sentences, as the schema's one text field, or None."""
    field = _single_field(schema)
    match = _OPEN_STRING.match(_FENCE.sub(lambda m: m.group(1), text or "").strip())
    if not getattr(schema, KEEPS_SENTENCES, False) or match is None or match.group(1) != field:
        return None
    ends = [m.end() for m in _SENTENCE_END.finditer(match.group(2))]
    if not ends or ends[-1] < MIN_KEPT_CHARS:
        return None
    try:
        kept = json.loads(f'"{match.group(2)[:ends[-1]]}"')
        return schema.model_validate({field: kept})
    except (ValueError, ValidationError):
        return None


def _validate(schema: type[T], text: str | None) -> T:
    if _cut_off(text):
        kept = _sentences_before_cut(schema, text)
        if kept is not None:
            return kept  # type: ignore[return-value]
        raise ValueError("the JSON was cut off before it ended; answer again, much more briefly")
    try:
        value = parse_json_answer(text)
    except ValueError:
        # A bare value ("7") for a one-field schema is a fair answer from a small model.
        field = _single_field(schema)
        if field is None or text is None or not text.strip():
            raise
        stripped = text.strip().strip("`").strip()
        try:
            value = {field: json.loads(stripped)}
        except ValueError:
            value = {field: stripped}
    if not isinstance(value, dict):
        field = _single_field(schema)
        if field is None:
            raise ValueError(f"expected a JSON object, got {type(value).__name__}")
        value = {field: value}
    try:
        return schema.model_validate(value)
    except ValidationError as err:
        raise ValueError(_describe_validation(err)) from None


def _describe_validation(err: ValidationError) -> str:
    parts = []
    for e in err.errors()[:6]:
        loc = ".".join(str(x) for x in e.get("loc", ())) or "(root)"
        parts.append(f"{loc}: {e.get('msg', 'invalid')}")
    more = len(err.errors()) - 6
    if more > 0:
        parts.append(f"... and {more} more")
    return "; ".join(parts)
