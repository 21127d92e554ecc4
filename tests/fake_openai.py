"""A fake OpenAI-compatible chat server on loopback, for router tests.

Standard library only (``http.server`` in a thread). It answers
``POST /v1/chat/completions`` with a fixed JSON answer and counts what it
served; ``kill()`` closes the socket mid-run, so the next call finds nobody
listening, and drops connections already open (kept alive by the client)
without an answer, the way a machine that died would look. ``hang=True``: it
takes every request and never answers (a wedged machine, until ``kill()``);
``status=401``/``404``: it answers every call with that error, in OpenAI's
error shape (a wrong key; a model it does not serve). ``keys`` holds the
Authorization header of every request (None: none sent), for the tests of where a
user's key goes; ``host`` another loopback address (127.0.0.2 is loopback but not
"local" to the game, so a model there counts as hosted: its budget and price).
"""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAI:
    def __init__(self, name: str, answer: str | None = None, delay: float = 0.0, hang: bool = False,
                 status: int = 200, host: str = "127.0.0.1") -> None:
        self.name = name
        self.host = host
        self.keys: list[str | None] = []  # each request's Authorization header
        self.hang = hang
        self.status = status
        self.asked = 0  # requests received, answered or not
        self._released = threading.Event()
        self.answer = answer if answer is not None else json.dumps({"text": f"hello from {name}"})
        self.delay = delay
        self.served = 0
        self.dead = False
        self.active = 0
        self.peak = 0  # most requests in progress at once
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, out: dict) -> None:
                data = json.dumps(out).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                if fake.dead:  # a kept-alive connection to a dead machine: dropped, never answered
                    self.close_connection = True
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.asked += 1
                    fake.keys.append(self.headers.get("Authorization"))
                if fake.hang:
                    fake._released.wait(120)
                    self.close_connection = True
                    return
                if fake.status != 200:
                    code = {401: "invalid_api_key", 403: "permission_denied",
                            404: "model_not_found"}.get(fake.status, "error")
                    text = {401: "Incorrect API key provided: sk-wrong.",
                            403: "Your key may not use this model (permission denied).",
                            404: f"The model `{body.get('model')}` does not exist."}.get(fake.status, "error")
                    self._send(fake.status, {"error": {"message": text, "type": "invalid_request_error",
                                                       "param": None, "code": code}})
                    return
                with fake._lock:
                    fake.active += 1
                    fake.peak = max(fake.peak, fake.active)
                try:
                    if fake.delay:
                        time.sleep(fake.delay)
                    out = {
                        "id": f"chatcmpl-{fake.name}-{fake.served}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "fake"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": fake.answer}}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }
                    self._send(200, out)
                    with fake._lock:
                        fake.served += 1
                finally:
                    with fake._lock:
                        fake.active -= 1

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        # serve_forever checks for shutdown() every poll_interval (0.5 s by default): each
        # kill() would wait that long.
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02},
                                       name=f"fake-{name}", daemon=True)
        self.thread.start()

    @property
    def api_base(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def kill(self) -> None:
        """Stop listening: later connections are refused, open ones dropped."""
        self.dead = True
        self._released.set()
        self.server.shutdown()
        self.server.server_close()
