"""Test doubles for the minds backend: a scripted model and a hashing embedder.

``make_gateway(responder)`` builds a real ``agents.llm.Gateway`` whose model
is a scripted fake registered with litellm as the custom provider
``scripted`` (model string ``scripted/fake-<n>``), so tests take the same road
as the game: ``litellm.completion`` -> provider -> text -> lenient parse ->
validation -> retry / fallback -> accounting. No network, no model load.

``responder(purpose, messages, schema)`` returns a str (the raw answer), a
dict or list (sent as JSON), a pydantic instance (sent as JSON), None (an
empty answer), or raises (``litellm.RateLimitError``, ``TimeoutError``, ...).
A responder that sleeps longer than the gateway's timeout times out. Without
a responder, every answer is a minimal schema-valid instance.
"""
from __future__ import annotations

import sys

# Tests import this module as `fakes` (tests/ is on sys.path) or as `tests.fakes`;
# both names must be the same module, or there would be two scripted-provider registries.
for _alias in ("fakes", "tests.fakes"):
    sys.modules.setdefault(_alias, sys.modules[__name__])
try:
    import tests as _tests_pkg

    _tests_pkg.fakes = sys.modules[__name__]  # type: ignore[attr-defined]
except ImportError:  # tests/ alone on sys.path
    pass

import itertools
import json
import re
import threading
import zlib
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
from pydantic import BaseModel

from agents import scripted
from agents.model.config import ModelConfig
from agents.model.gateway import Gateway, compact_schema, current_call

Responder = Callable[[str, list, type], Any]

# --------------------------------------------------------------------------------------
# minimal schema-valid instances
# --------------------------------------------------------------------------------------


def _resolve(node: dict, root: dict) -> dict:
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        target: Any = root
        for part in ref.lstrip("#/").split("/"):
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _minimal(node: dict, root: dict, name: str = "") -> Any:
    node = _resolve(node, root)
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return node["enum"][0]
    if "default" in node:
        return node["default"]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in node:
            options = [_resolve(o, root) for o in node[key]]
            non_null = [o for o in options if o.get("type") != "null"]
            if key == "allOf":
                merged: dict = {}
                for o in options:
                    merged.update(o)
                return _minimal(merged, root, name)
            return _minimal((non_null or options)[0], root, name)
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in node:
        props = node.get("properties", {})
        out = {}
        for key in node.get("required", []):
            out[key] = _minimal(props.get(key, {}), root, key)
        return out
    if kind == "array":
        n = int(node.get("minItems", 0))
        items = node.get("items", {})
        return [_minimal(items, root, name) for _ in range(n)]
    if kind == "integer" or kind == "number":
        lo = node.get("minimum")
        if lo is None and "exclusiveMinimum" in node:
            lo = node["exclusiveMinimum"] + 1
        hi = node.get("maximum")
        if hi is None and "exclusiveMaximum" in node:
            hi = node["exclusiveMaximum"] - 1
        value = lo if lo is not None else (0 if hi is None or hi >= 0 else hi)
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    if kind == "string" or not kind:
        fmt = node.get("format")
        if fmt == "date-time":
            return "2023-02-13T07:00:00"
        if fmt == "date":
            return "2023-02-13"
        if fmt == "time":
            return "07:00:00"
        pattern = node.get("pattern", "")
        if pattern and re.search(r"\\d", pattern) and ":" in pattern:
            return "07:00"
        lo = int(node.get("minLength", 1))
        hi = node.get("maxLength")
        text = (name.replace("_", " ") or "something") if lo <= 1 else "x" * lo
        text = text if len(text) >= lo else text + "x" * (lo - len(text))
        return text[:hi] if hi else text
    return None


def minimal_instance(schema: type[BaseModel]) -> BaseModel | dict:
    """A small instance of ``schema`` built from its JSON schema (a dict if it will not validate)."""
    js = schema.model_json_schema()
    data = _minimal(js, js)
    try:
        return schema.model_validate(data)
    except Exception:  # noqa: BLE001 - an exotic validator: send the dict and let the gateway judge
        return data


def default_responder(purpose: str, messages: list, schema: type[BaseModel]) -> Any:
    return minimal_instance(schema)


# --------------------------------------------------------------------------------------
# the scripted model and its litellm provider
# --------------------------------------------------------------------------------------


def _as_text(answer: Any) -> str:
    if answer is None:
        return ""
    if isinstance(answer, BaseModel):
        return answer.model_dump_json()
    if isinstance(answer, (dict, list, int, float, bool)):
        return json.dumps(answer, default=str)
    return str(answer)


class ScriptedModel:
    """Answers with ``responder``; remembers every call in ``calls`` as (purpose, messages, schema)."""

    _ids = itertools.count(1)

    def __init__(self, responder: Responder | None = None) -> None:
        self.responder = responder or default_responder
        self.name = f"fake-{next(self._ids)}"
        self.calls: list[tuple[str, list, type]] = []
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        return f"scripted/{self.name}"

    def answer(self, messages: list, timeout: float | None) -> str:
        ctx = current_call()
        purpose = ctx.purpose if ctx else "?"
        schema = ctx.schema if ctx else BaseModel
        msgs = [dict(m) for m in messages]
        with self._lock:
            self.calls.append((purpose, msgs, schema))
        if not timeout or timeout <= 0:
            return _as_text(self.responder(purpose, msgs, schema))
        box: dict[str, Any] = {}

        def run() -> None:
            try:
                box["value"] = self.responder(purpose, msgs, schema)
            except BaseException as err:  # noqa: BLE001 - handed back to the caller's thread
                box["error"] = err

        worker = threading.Thread(target=run, name=f"{self.name}-responder", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            raise TimeoutError(f"{self.model} gave no answer within {timeout:.2f}s")
        if "error" in box:
            raise box["error"]
        return _as_text(box.get("value"))


def _register(fake: ScriptedModel) -> None:
    """Serve the fake as ``scripted/<name>`` through the game's own scripted provider
    (agents/model/scripted.py); token counts are words, as the tests expect."""
    def answer(messages: list, response_format, timeout):
        text = fake.answer(messages, timeout)
        pt = sum(len(str(m.get("content", "")).split()) for m in messages)
        return text, pt, len(text.split())

    scripted.register(fake.name, answer)


class _DirectCompletion:
    """A stand-in for litellm.completion (via_litellm=False): same answers, no litellm import."""

    def __init__(self, fake: ScriptedModel) -> None:
        self.fake = fake

    def __call__(self, *, model: str, messages: list, timeout: float | None = None, **_: Any):
        text = self.fake.answer(messages, timeout)
        pt = sum(len(str(m.get("content", "")).split()) for m in messages)
        ct = len(text.split())
        msg = SimpleNamespace(content=text)
        return SimpleNamespace(
            choices=[SimpleNamespace(message=msg, finish_reason="stop")],
            usage=SimpleNamespace(prompt_tokens=pt, completion_tokens=ct, total_tokens=pt + ct),
        )


def make_gateway(responder: Responder | None = None, *, via_litellm: bool = True, accounting=None,
                 **config_overrides) -> Gateway:
    """A Gateway on a scripted fake. ``gateway.fake`` is the ScriptedModel (its ``calls``).

    Test-friendly defaults: timeout 2 s, 2 retries, 10 ms backoff, 10 s deadline.
    Any ModelConfig field can be overridden (``timeout=0.2``, ``cache=":memory:"``, ...).
    """
    fake = ScriptedModel(responder)
    values: dict[str, Any] = dict(
        model=fake.model, timeout=2.0, retries=2, backoff=0.01, deadline=10.0, concurrency=2, seed=0,
        embedding_cache=None,
    )
    values.update(config_overrides)
    config = ModelConfig(**values)
    if via_litellm:
        _register(fake)
        gw = Gateway(config, accounting=accounting)
    else:
        gw = Gateway(config, accounting=accounting, completion=_DirectCompletion(fake))
    gw.fake = fake  # type: ignore[attr-defined]
    return gw


# --------------------------------------------------------------------------------------
# embeddings
# --------------------------------------------------------------------------------------
_STOP = frozenset(
    "a an and are as at be by for from has have he her his i in is it its of on or she that the their them "
    "they this to was were will with you your".split()
)
_WORD = re.compile(r"[a-z0-9']+")


class HashEmbedder:
    """Deterministic hashed bag-of-words vectors, L2-normalised. Shared words -> similar vectors."""

    model_name = "hash-test"

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim
        self.calls = 0
        self.texts_embedded = 0

    def _vector(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        words = [w for w in _WORD.findall(text.lower()) if w not in _STOP] or ["<empty>"]
        for w in words:
            w = w.rstrip("s") if len(w) > 3 else w  # "coffees" ~ "coffee"
            h = zlib.crc32(w.encode("utf-8"))
            v[h % self.dim] += 1.0 if (h >> 16) & 1 else -1.0
        n = float(np.linalg.norm(v))
        if n == 0.0:  # hash collisions cancelled out
            v[0] = 1.0
            n = 1.0
        return v / n

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts]).astype(np.float32)

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


__all__ = ["HashEmbedder", "ScriptedModel", "compact_schema", "default_responder", "make_gateway", "minimal_instance"]


def chatty(purpose, messages, schema):
    """A scripted model: residents talk when they meet, say a few lines, the rest minimal."""
    if purpose == "talk_decision":
        return {"talk": True}
    if purpose == "utterance":
        n = sum(1 for m in messages if "utterance" in str(m.get("content", "")))
        return {"utterance": "Good morning! How are you today?", "ends": n > 2 or len(str(messages)) > 3000}
    return minimal_instance(schema)
