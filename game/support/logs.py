"""One log file for the whole game; people see short messages, the file keeps traces.

The file is ``<logs>/smallville.log`` (game/support/folders.py: the checkout's ``logs/``
when run from a checkout, else the per-user data folder; ``$SMALLVILLE_LOG_DIR``
overrides), so it is the same file whatever folder the command starts in.

Secrets never reach the file: every line (traces included) is redacted on the
way out (``redact``): credentials in a URL (``user:pass@``), secret query
parameters (``?key=``, ``api_key=``, ``token=``), anything shaped like an API
key, and the values of the environment's own key variables (agents/support/redact.py,
the one redaction of every file and screen)."""
from __future__ import annotations

import logging
from pathlib import Path

from agents import redact
from game.support import folders

HANDLER_NAME = "smallville"  # our file handler, added once
LOG_NAME = "smallville.log"


class RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def log_file() -> Path:
    return folders.logs_dir() / LOG_NAME


def setup_logging(level: int = logging.INFO) -> Path:
    """Send every module's log to the log file (created on demand) and return its path.
    When the folder cannot be written, the log goes nowhere rather than stopping the game."""
    root = logging.getLogger()
    existing = next((h for h in root.handlers if h.get_name() == HANDLER_NAME), None)
    target = log_file()
    if existing is not None and Path(getattr(existing, "baseFilename", "")) != target.resolve():
        root.removeHandler(existing)  # $SMALLVILLE_HOME changed (tests): follow it
        existing.close()
        existing = None
    if existing is None:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handler: logging.Handler = logging.FileHandler(target, encoding="utf-8")
        except OSError:
            handler = logging.NullHandler()
        handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler.set_name(HANDLER_NAME)
        root.addHandler(handler)
    root.setLevel(level)
    # litellm and httpx are chatty at INFO; keep their warnings only.
    for noisy in ("LiteLLM", "litellm", "httpx", "httpcore", "sentence_transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return target
