"""Secrets out of everything the game writes or shows: one ``redact`` for all.

An ``api_base`` may carry credentials (``http://user:pass@host/v1``,
``...?key=...``), and an error message may repeat it, or an API key. Every file
(the log, saves, run folders, recordings) and every screen line that can hold
such text goes through ``redact`` (text) or ``redact_data`` (JSON-like data):
credentials in a URL, secret query parameters, anything shaped like an API key,
and the values of the environment's own key variables become ``[redacted]``;
the rest (host, port, path) stays readable, so a message still says where."""
from __future__ import annotations

import os
import re
from typing import Any

REDACTED = "[redacted]"

# The user part of a URL (``scheme://user:pass@`` or ``scheme://token@``).
_URL_CREDENTIALS = re.compile(r"(?<=://)[^/\s@\"'<>\\]+@")
_SECRET_PARAM = re.compile(
    r"(?i)((?:^|[?&;\s,(])(?:api[_-]?key|key|token|access[_-]?token|secret|password|passwd|sig|signature|auth)=)"
    r"[^&\s'\"<>\\]+")  # no quote or backslash: redacting JSON text keeps it JSON
# Names of variables (and dict keys) that hold a secret.
SECRET_NAME = re.compile(
    r"api[_-]?key|apikey|secret|passw(?:or)?d|token|authori[sz]ation|credential|private[_-]?key|cookie",
    re.IGNORECASE)
# Things shaped like keys wherever they appear (game/saves/codec.py scrubs saves with these too).
SECRET_VALUE = re.compile(
    r"\bsk-[A-Za-z0-9_\-]{16,}"                 # OpenAI / Anthropic (sk-ant-...) / sk-proj-...
    r"|\bAKIA[0-9A-Z]{16}\b"                    # AWS access key id
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}"            # GitHub tokens
    r"|\bgithub_pat_[A-Za-z0-9_]{30,}"
    r"|\bxox[abprs]-[A-Za-z0-9\-]{10,}"         # Slack
    r"|\bAIza[0-9A-Za-z_\-]{35}"                # Google
    r"|\bhf_[A-Za-z0-9]{30,}"                   # Hugging Face
    r"|\bgsk_[A-Za-z0-9]{30,}"                  # Groq
    r"|\br8_[A-Za-z0-9]{30,}"                   # Replicate
    r"|\bBearer\s+[A-Za-z0-9._~+/=\-]{16,}")
# What every pattern above starts with: text without any skips the full pattern (most text).
_VALUE_START = re.compile(r"sk-|AKIA|gh[pousr]_|github_pat_|xox|AIza|hf_|gsk_|r8_|Bearer")
_MIN_ENV_SECRET = 8  # shorter values ("1", "yes") would redact ordinary words
_env_cache: tuple[dict, list[str]] | None = None  # (the environment seen, its secrets)


def name_is_secret(name: str) -> bool:
    """Whether a variable or key of this name holds a secret (``OPENAI_API_KEY``, ``password``)."""
    return bool(SECRET_NAME.search(name))


def _env_secrets() -> list[str]:
    """The environment's own secrets, longest first; found again whenever the
    environment changes (comparing its raw table costs well under a microsecond,
    reading it through os.environ a few hundred)."""
    global _env_cache
    raw = getattr(os.environ, "_data", None)
    cached = _env_cache
    if raw is not None and cached is not None and cached[0] == raw:
        return cached[1]
    found = sorted({v for k, v in os.environ.items() if len(v) >= _MIN_ENV_SECRET and name_is_secret(k)},
                   key=len, reverse=True)
    if isinstance(raw, dict):
        _env_cache = (dict(raw), found)
    return found


def redact(text: str) -> str:
    """``text`` with every secret we can recognise replaced by ``[redacted]``."""
    if not text:
        return text
    if "://" in text:
        text = _URL_CREDENTIALS.sub(REDACTED + "@", text)
    if "=" in text:
        text = _SECRET_PARAM.sub(lambda m: m.group(1) + REDACTED, text)
    for value in _env_secrets():  # the user's own keys, whatever their shape
        if value in text:
            text = text.replace(value, REDACTED)
    if _VALUE_START.search(text):
        text = SECRET_VALUE.sub(REDACTED, text)
    return text


def redact_data(value: Any) -> Any:
    """A copy of JSON-like ``value`` (dicts, lists, strings, numbers) with every string
    redacted, and the value under a secret-named key (``api_key``) dropped to None."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: (None if isinstance(k, str) and name_is_secret(k) and isinstance(v, str) and v
                    else redact_data(v)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(v) for v in value]
    return value


__all__ = ["REDACTED", "name_is_secret", "redact", "redact_data"]
