"""One log file for the whole game; people see short messages, the file keeps traces."""
from __future__ import annotations

import logging
import os
from pathlib import Path

LOG_DIR = Path(os.environ.get("SMALLVILLE_LOG_DIR", "logs"))
LOG_FILE = LOG_DIR / "smallville.log"
HANDLER_NAME = "smallville"  # our file handler, added once


def setup_logging(level: int = logging.INFO) -> Path:
    """Send every module's log to logs/smallville.log (created on demand)."""
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    if not any(h.get_name() == HANDLER_NAME for h in root.handlers):
        handler = logging.FileHandler(LOG_FILE, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler.set_name(HANDLER_NAME)
        root.addHandler(handler)
    root.setLevel(level)
    # litellm and httpx are chatty at INFO; keep their warnings only.
    for noisy in ("LiteLLM", "litellm", "httpx", "httpcore", "sentence_transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return LOG_FILE
