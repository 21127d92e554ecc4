"""A stand-in model server on loopback: the competent stand-in (lab/competent)
behind an OpenAI-compatible HTTP API, with a set latency and a set number of
calls served at once.

It stands for a GPU server, or a cluster behind the Router, when measuring what
a bigger machine does for a bigger town (`smallville bench --only scale`,
docs/scale.md): the game reaches it by the real road (the gateway, litellm's
``openai/`` provider, HTTP), exactly as it reaches vLLM or LM Studio::

    python -m lab.standin_server --latency 1.5 --slots 32 --port 8765
    smallville sim --model openai/competent --api-base http://127.0.0.1:8765/v1 \\
        --concurrency 32 --agents 100 --hours 1

Every call holds one of ``slots`` for ``latency`` seconds (the answer's own
computing included); calls past ``slots`` queue in arrival order, as on a
server whose batch is full. The answers are the competent stand-in's, read from
the prompt and the JSON schema (``response_format`` json_schema, llama.cpp's
``json_object`` with a schema, vLLM's ``guided_json``, or the schema written
into the prompt), so a seeded lockstep run on it tells the same story as on
``scripted/competent``. ``GET /stats`` (and ``stats()``) says how busy it was.

Stdlib only (``http.server``), on 127.0.0.1 with an ephemeral port by default.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from lab.competent import MODEL, dispatch
from lab.competent.prompt import Prompt

LATENCY_S = 1.5
SLOTS = 8
_SCHEMA_IN_PROMPT = re.compile(r"follows this JSON schema:\s*(\{.*\})\s*$", re.S)


class Slots:
    """``n`` calls served at once, the rest waiting in arrival order (a fair queue:
    a ``threading.Semaphore`` wakes waiters in no promised order)."""

    def __init__(self, n: int) -> None:
        if n < 1:
            raise ValueError(f"slots must be at least 1, not {n}")
        self.n = n
        self.busy = 0
        self.peak = 0
        self._waiting: deque[threading.Event] = deque()
        self._lock = threading.Lock()

    def acquire(self) -> None:
        with self._lock:
            if self.busy < self.n and not self._waiting:
                self._take()
                return
            turn = threading.Event()
            self._waiting.append(turn)
        turn.wait()  # release() took the slot for us

    def release(self) -> None:
        with self._lock:
            self.busy -= 1
            if self._waiting:
                self._take()
                self._waiting.popleft().set()

    def _take(self) -> None:
        self.busy += 1
        self.peak = max(self.peak, self.busy)

    @property
    def queued(self) -> int:
        with self._lock:
            return len(self._waiting)


def _last_user(messages: list[Any]) -> str:
    for m in reversed(messages or []):
        if isinstance(m, dict) and m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, list):  # content parts
                return " ".join(str(p.get("text", "")) for p in c if isinstance(p, dict))
            return str(c or "")
    return ""


def schema_of(body: dict) -> tuple[dict | None, str]:
    """The JSON schema a request asks its answer to follow, and its name, in any of
    the dialects the gateway speaks (agents/model/dialects.py)."""
    rf = body.get("response_format")
    if isinstance(rf, dict):
        if rf.get("type") == "json_schema" and isinstance(rf.get("json_schema"), dict):
            js = rf["json_schema"]
            schema = js.get("schema")
            return (schema if isinstance(schema, dict) else None), str(js.get("name") or "")
        if isinstance(rf.get("schema"), dict):  # llama-cpp-python's json_object with a schema
            return rf["schema"], ""
    if isinstance(body.get("guided_json"), dict):  # vLLM's extra body field
        return body["guided_json"], ""
    m = _SCHEMA_IN_PROMPT.search(_last_user(body.get("messages") or []))
    if m:
        try:
            found = json.loads(m.group(1))
        except ValueError:
            return None, ""
        return (found if isinstance(found, dict) else None), ""
    return None, ""


def answer(body: dict) -> str:
    """The competent stand-in's answer to one chat request, as JSON text."""
    schema, name = schema_of(body)
    text = _last_user(body.get("messages") or [])
    return json.dumps(dispatch(Prompt(text, schema, name)), ensure_ascii=False)


class StandinServer:
    """The competent stand-in served over HTTP on ``host``:``port`` (0: a free one),
    ``slots`` calls at once, each ``latency`` seconds. A context manager; or
    ``start()``/``stop()``."""

    def __init__(self, latency: float = LATENCY_S, slots: int = SLOTS, host: str = "127.0.0.1", port: int = 0,
                 models: tuple[str, ...] = (MODEL,)) -> None:
        if latency < 0:
            raise ValueError(f"latency must be at least 0 s, not {latency}")
        self.latency = float(latency)
        self.slots = Slots(int(slots))
        self.models = list(models)
        self.calls = 0
        self.errors = 0
        self.busy_s = 0.0  # slot-seconds spent serving
        self.wait_s = 0.0  # seconds calls spent queued for a slot
        self.compute_s = 0.0  # seconds spent making the answers themselves
        self.over = 0  # calls whose answer alone took longer than the latency
        self._started = 0.0
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer((host, port), self._handler())
        self.httpd.daemon_threads = True
        self.host, self.port = self.httpd.server_address[:2]
        self._thread: threading.Thread | None = None

    @property
    def base(self) -> str:
        """The api_base to give the game (``--api-base``)."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def model(self) -> str:
        """The litellm model string that reaches it (``--model``)."""
        return f"openai/{self.models[0]}"

    def start(self) -> StandinServer:
        if self._thread is None:
            self._started = time.monotonic()
            self._thread = threading.Thread(target=self.httpd.serve_forever, name="standin-server", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self.httpd.server_close()

    def __enter__(self) -> StandinServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stats(self) -> dict[str, Any]:
        """Calls served, the most at once, and how busy the slots were since start."""
        wall = max(1e-9, time.monotonic() - self._started) if self._started else 0.0
        with self._lock:
            return {
                "calls": self.calls, "errors": self.errors, "slots": self.slots.n, "latency_s": self.latency,
                "peak_in_flight": self.slots.peak, "queued_now": self.slots.queued,
                "busy_slot_s": round(self.busy_s, 3), "queue_wait_s": round(self.wait_s, 3),
                "compute_s": round(self.compute_s, 3), "over_latency": self.over, "wall_s": round(wall, 3),
                "utilisation": round(self.busy_s / (wall * self.slots.n), 4) if wall else 0.0,
            }

    # ---------------------------------------------------------------- one request
    def serve(self, body: dict) -> tuple[int, dict]:
        """One chat completion: wait for a slot, hold it ``latency`` seconds, answer."""
        name = str(body.get("model") or "")
        if name not in self.models:
            return 404, {"error": {"message": f"The model `{name}` does not exist.", "type": "invalid_request_error",
                                   "param": "model", "code": "model_not_found"}}
        queued = time.monotonic()
        self.slots.acquire()
        began = time.monotonic()
        try:
            content = answer(body)
            made = time.monotonic()
            rest = self.latency - (made - began)
            if rest > 0:
                time.sleep(rest)
        finally:
            self.slots.release()
        done = time.monotonic()
        with self._lock:
            self.calls += 1
            self.busy_s += done - began
            self.wait_s += began - queued
            self.compute_s += made - began
            self.over += rest < 0
        text = _last_user(body.get("messages") or [])
        pt, ct = max(1, len(text) // 4), max(1, len(content) // 4)
        return 200, {"id": f"chatcmpl-standin-{self.calls}", "object": "chat.completion", "created": int(time.time()),
                     "model": name, "system_fingerprint": "standin",
                     "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                                  "message": {"role": "assistant", "content": content}}],
                     "usage": {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}}

    def route(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        if method == "GET" and path in ("/v1/models", "/models"):
            return 200, {"object": "list", "data": [{"id": m, "object": "model", "created": 0, "owned_by": "standin"}
                                                    for m in self.models]}
        if method == "GET" and path in ("/stats", "/health"):
            return 200, self.stats()
        if method == "POST" and path in ("/v1/chat/completions", "/chat/completions"):
            if not isinstance(body, dict):
                return 400, {"error": {"message": "the body must be a JSON object", "type": "invalid_request_error"}}
            if body.get("stream"):
                return 400, {"error": {"message": "this stand-in does not stream", "type": "invalid_request_error",
                                       "param": "stream"}}
            return self.serve(body)
        return 404, {"error": {"message": f"no route {method} {path}", "type": "invalid_request_error"}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(JsonHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: the client reuses its connections, as with a real server

            def respond(self, method: str, path: str, body: Any) -> tuple[int, Any]:
                try:
                    return outer.route(method, path.split("?")[0], body)
                except Exception as err:  # noqa: BLE001 - a stand-in's own bug is a 500, as a server's would be
                    with outer._lock:
                        outer.errors += 1
                    return 500, {"error": {"message": f"{type(err).__name__}: {err}", "type": "server_error"}}

        return Handler


class JsonHandler(BaseHTTPRequestHandler):
    """A quiet handler that reads a request's JSON body (None when there is none or it is
    not JSON) and answers ``respond(method, path, body)``'s (status, reply) as JSON."""

    def log_message(self, *a: Any) -> None:  # quiet
        pass

    def respond(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        raise NotImplementedError

    def _handle(self, method: str) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        status, reply = self.respond(method, self.path, body)
        data = json.dumps(reply).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m lab.standin_server", description=__doc__.split("\n\n")[0])
    p.add_argument("--latency", type=float, default=LATENCY_S, help="seconds each call holds its slot")
    p.add_argument("--slots", type=int, default=SLOTS, help="calls served at once (more queue)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0: a free port (printed)")
    p.add_argument("--watch-stdin", action="store_true",
                   help="stop when standard input closes (for a parent process that started it)")
    args = p.parse_args(argv)
    server = StandinServer(latency=args.latency, slots=args.slots, host=args.host, port=args.port)
    # The first line says where it listens, for whoever started it (lab/bench/scale.py reads it).
    print(f"standin {server.base} model {server.model} slots {args.slots} latency {args.latency:g}", flush=True)
    server.start()
    try:
        if args.watch_stdin:
            while sys.stdin.readline():
                pass
        else:
            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
