"""Loopback stand-ins for the model servers players actually run, for tests.

- ``OllamaServer``: Ollama's HTTP API as litellm's ``ollama/`` and
  ``ollama_chat/`` providers use it: ``POST /api/chat`` (messages, a JSON-schema
  ``format``), ``POST /api/generate`` (a prompt), ``POST /api/show`` and
  ``GET /api/tags`` (the pulled models). A model that is not pulled gets
  Ollama's own 404: ``model "x" not found, try pulling it first``.
- ``ProseServer``: an OpenAI-compatible server (``/v1/chat/completions``,
  ``/v1/models``) that ignores ``response_format`` and answers in prose around
  fenced JSON (or bare prose JSON), as many local servers and small models do.
  A model it does not serve gets a 404 ``model_not_found``. With
  ``refuse_forms=True`` it turns down every structured-output form (any
  ``response_format`` but text, ``guided_json``) with OpenAI's own 400, as
  servers without structured output do; plain requests still get prose.

Their shapes are checked against the published ones in tests/test_model_servers.py:
the OpenAI SDK's types (``openai.types``) and the Ollama client's (``ollama._types``).

The answers come from the competent stand-in (lab/competent), read from the
prompt and the schema as the real servers would see them: Ollama gets the
schema as ``format``; the prose server finds it in the prompt (the gateway's
json_object mode writes it there). Both count their requests (``requests``).
Run in a thread on 127.0.0.1 with an ephemeral port; use as context managers.
"""
from __future__ import annotations

import json
import re
import threading
import time
from http.server import ThreadingHTTPServer
from typing import Any

from lab.competent import dispatch
from lab.competent.prompt import Prompt
from lab.standin_server import JsonHandler

_SCHEMA_IN_PROMPT = re.compile(r"follows this JSON schema:\s*(\{.*\})\s*$", re.S)


def competent_answer(text: str, schema: dict | None) -> dict:
    """What the competent stand-in answers to a prompt and (maybe) its schema."""
    if schema is None:
        m = _SCHEMA_IN_PROMPT.search(text)
        if m:
            try:
                schema = json.loads(m.group(1))
            except ValueError:
                schema = None
    return dispatch(Prompt(text, schema if isinstance(schema, dict) else None, ""))


def _last_user(messages: list[dict]) -> str:
    for m in reversed(messages or []):
        if m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, list):  # content parts
                return " ".join(str(p.get("text", "")) for p in c if isinstance(p, dict))
            return str(c or "")
    return ""


class _Server:
    """A ThreadingHTTPServer on 127.0.0.1:<free port> serving ``self.route``."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, Any]] = []  # (method, path, body)
        outer = self

        class Handler(JsonHandler):
            def respond(self, method: str, path: str, body: Any) -> tuple[int, Any]:
                outer.requests.append((method, path, body))
                return outer.route(method, path.split("?")[0], body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        # serve_forever checks for shutdown() every poll_interval (0.5 s by default): each
        # server's end would wait that long.
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="model-standin", daemon=True)

    def route(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        raise NotImplementedError

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def calls(self, path: str) -> list[Any]:
        return [b for m, p, b in self.requests if p.split("?")[0] == path]


class OllamaServer(_Server):
    def __init__(self, models: tuple[str, ...] = ("qwen2.5:7b",)) -> None:
        super().__init__()
        self.models = list(models)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _known(self, name: str) -> bool:
        return name in self.models or f"{name}:latest" in self.models

    def _missing(self, name: str) -> tuple[int, Any]:
        return 404, {"error": f'model "{name}" not found, try pulling it first'}

    def route(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        body = body if isinstance(body, dict) else {}
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        if path == "/api/tags":
            return 200, {"models": [{"name": m, "model": m, "size": 4_700_000_000,
                                     "details": {"family": "qwen2", "parameter_size": "7.6B"}} for m in self.models]}
        if path == "/api/show":
            name = str(body.get("name") or body.get("model") or "")
            if not self._known(name):
                return self._missing(name)
            return 200, {"modelfile": "", "parameters": "", "template": "{{ .Prompt }}",
                         "details": {"family": "qwen2"}, "model_info": {"qwen2.context_length": 32768}}
        if path in ("/api/chat", "/api/generate"):
            name = str(body.get("model") or "")
            if not self._known(name):
                return self._missing(name)
            fmt = body.get("format")
            text = _last_user(body.get("messages") or []) if path == "/api/chat" else str(body.get("prompt") or "")
            answer = json.dumps(competent_answer(text, fmt if isinstance(fmt, dict) else None))
            counts = {"prompt_eval_count": max(1, len(text) // 4), "eval_count": max(1, len(answer) // 4),
                      "total_duration": 1_000_000, "done": True, "done_reason": "stop"}
            if path == "/api/chat":
                return 200, {"model": name, "created_at": now, "message": {"role": "assistant", "content": answer},
                             **counts}
            return 200, {"model": name, "created_at": now, "response": answer, **counts}
        return 404, {"error": f"no route {path}"}


class ProseServer(_Server):
    """OpenAI-compatible, but deaf to response_format: prose and fenced JSON."""

    def __init__(self, models: tuple[str, ...] = ("local-model",), style: str = "fenced",
                 refuse_forms: bool = False) -> None:
        super().__init__()
        self.models = list(models)
        self.style = style  # "fenced": ```json ... ``` in prose; "inline": prose, then the bare object
        self.refuse_forms = refuse_forms

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def route(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        body = body if isinstance(body, dict) else {}
        if path == "/v1/models":
            return 200, {"object": "list", "data": [{"id": m, "object": "model", "created": 0, "owned_by": "local"}
                                                    for m in self.models]}
        if path == "/v1/chat/completions":
            name = str(body.get("model") or "")
            if name not in self.models:
                return 404, {"error": {"message": f"The model `{name}` does not exist.",
                                       "type": "invalid_request_error", "param": "model",
                                       "code": "model_not_found"}}
            form = (body.get("response_format") or {}).get("type", "text")
            if self.refuse_forms and (form != "text" or "guided_json" in body):
                param = "response_format" if form != "text" else "guided_json"
                return 400, {"error": {"message": f"Invalid parameter: '{param}' is not supported by this server.",
                                       "type": "invalid_request_error", "param": param, "code": None}}
            text = _last_user(body.get("messages") or [])
            obj = json.dumps(competent_answer(text, None), indent=2)
            if self.style == "fenced":
                content = f"Sure! Here is my answer:\n\n```json\n{obj}\n```\n\nLet me know if you need anything else."
            else:
                content = f"Here you go: {obj} I hope this fits."
            pt, ct = max(1, len(text) // 4), max(1, len(content) // 4)
            return 200, {"id": "chatcmpl-standin", "object": "chat.completion", "created": int(time.time()),
                         "model": name, "choices": [{"index": 0, "finish_reason": "stop",
                                                     "message": {"role": "assistant", "content": content}}],
                         "usage": {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}}
        return 404, {"error": {"message": f"no route {path}", "type": "invalid_request_error"}}


__all__ = ["OllamaServer", "ProseServer", "competent_answer"]
