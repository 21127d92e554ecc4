"""Scripted models: programs that answer prompts, served through litellm as the
custom provider ``scripted`` (model string ``scripted/<name>``), so they take
the same road as any model: ``litellm.completion`` -> provider -> text ->
the gateway's parsing, validation, retries, accounting.

``scripted/competent`` (lab/competent/) stands in for a capable model in
tests and headless runs: importing ``lab.competent`` registers it here (the
`smallville` command does), so the minds never depend on the lab. The test
suite registers its own fakes here too.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

PROVIDER = "scripted"

# What an answerer gives: the answer's text, or (text, prompt_tokens, completion_tokens).
Answered = str | tuple[str, int, int]
# name -> answer(messages, response_format, timeout); one registered ``with_purpose`` is also
# told the request's purpose (agents/explain/purposes.py): answer(..., purpose=...).
Answerer = Callable[..., Answered]
_registry: dict[str, Answerer] = {}
_told_purpose: set[str] = set()
_lock = threading.Lock()
# The request's purpose travels to a scripted model in litellm's metadata under this key
# (agents/model/send.py); no other provider is sent it.
PURPOSE_KEY = "purpose"


def register(name: str, answer: Answerer, *, with_purpose: bool = False) -> str:
    """Serve ``answer`` as ``scripted/<name>``; returns the model string. ``with_purpose``:
    ``answer`` takes the request's purpose too (``purpose=``, None when unknown)."""
    with _lock:
        _registry[name] = answer
        if with_purpose:
            _told_purpose.add(name)
        else:
            _told_purpose.discard(name)
    return f"{PROVIDER}/{name}"


def unregister(name: str) -> None:
    with _lock:
        _registry.pop(name, None)
        _told_purpose.discard(name)


def wants_purpose(name: str) -> bool:
    with _lock:
        return name in _told_purpose


def lookup(name: str) -> Answerer | None:
    with _lock:
        return _registry.get(name)


def known() -> list[str]:
    """The names registered so far."""
    with _lock:
        return sorted(_registry)


def estimate_tokens(text: str) -> int:
    """About four characters per token (English text, common tokenizers)."""
    return max(1, round(len(text) / 4)) if text else 0


def handler() -> Any:  # Any: a litellm.CustomLLM, whose class is made on first use
    """The litellm provider (a ``litellm.CustomLLM``), built on first use."""
    # Lazy: litellm is slow to import, and only a run on a scripted model needs it.
    import litellm
    from litellm import CustomLLM
    from litellm.types.utils import ModelResponse, Usage

    class ScriptedProvider(CustomLLM):
        def completion(self, *args, **kwargs) -> ModelResponse:  # type: ignore[override]
            name = str(kwargs.get("model") or "").split("/")[-1]
            answer = lookup(name)
            if answer is None:
                have = ", ".join(known()) or "none"
                raise litellm.NotFoundError(
                    message=f"no scripted model {name!r} (registered: {have}; scripted/competent is registered by "
                            "importing lab.competent, as the smallville command does)",
                    model=name, llm_provider=PROVIDER)
            timeout = kwargs.get("timeout")
            timeout = getattr(timeout, "read", timeout)
            messages = kwargs.get("messages") or []
            optional = kwargs.get("optional_params") or {}
            response_format = kwargs.get("response_format") or optional.get("response_format")
            wait = float(timeout) if timeout else None
            try:
                if wants_purpose(name):
                    metadata = (kwargs.get("litellm_params") or {}).get("metadata") or {}
                    got = answer(messages, response_format, wait, purpose=metadata.get(PURPOSE_KEY))
                else:
                    got = answer(messages, response_format, wait)
            except TimeoutError as err:
                raise litellm.Timeout(message=str(err), model=name, llm_provider=PROVIDER) from None
            if isinstance(got, tuple):
                text, pt, ct = got
            else:
                text = got
                pt = sum(estimate_tokens(str(m.get("content", ""))) for m in messages)
                ct = estimate_tokens(text)
            resp = kwargs.get("model_response") or ModelResponse()
            resp.model = f"{PROVIDER}/{name}"
            resp.choices[0].message.content = text
            resp.usage = Usage(prompt_tokens=pt, completion_tokens=ct, total_tokens=pt + ct)  # type: ignore[attr-defined,union-attr]
            return resp

    return ScriptedProvider()
