"""Prompt templates: one file per prompt, ``agents/prompts/<name>.txt``, str.format placeholders.

``render("importance", memory="...")``. Literal braces in a template are
written ``{{`` and ``}}``. A missing value or file raises PromptError naming
the file and the placeholder.
"""
from __future__ import annotations

import string
import threading
from pathlib import Path

PROMPT_DIR = Path(__file__).resolve().parent

_cache: dict[str, str] = {}
_lock = threading.Lock()


class PromptError(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return str(self.args[0]) if self.args else ""


def path_of(name: str) -> Path:
    return PROMPT_DIR / f"{name}.txt"


def template(name: str) -> str:
    """The raw text of a prompt template (read once, then cached)."""
    with _lock:
        text = _cache.get(name)
    if text is None:
        p = path_of(name)
        if "/" in name or "\\" in name or name.startswith("."):
            raise PromptError(f"bad prompt name {name!r}")
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise PromptError(f"no prompt template {p}") from None
        with _lock:
            _cache[name] = text
    return text


def placeholders(name: str) -> set[str]:
    """The field names a template expects."""
    out = set()
    for _lit, field, _spec, _conv in string.Formatter().parse(template(name)):
        if field:
            out.add(field.split(".")[0].split("[")[0])
    return out


def render(name: str, /, **values: object) -> str:
    """The template filled in; PromptError names the file and any missing placeholder."""
    text = template(name)
    try:
        return text.format(**values).strip()
    except KeyError as err:
        missing = sorted(placeholders(name) - set(values))
        raise PromptError(
            f"prompt {path_of(name)} needs {', '.join(missing) or err.args[0]!s} "
            f"(given: {', '.join(sorted(values)) or 'nothing'})"
        ) from None
    except (IndexError, ValueError) as err:
        raise PromptError(f"prompt {path_of(name)} is not a valid template: {err}") from None


def clear_cache() -> None:
    with _lock:
        _cache.clear()

__all__ = ["clear_cache", "path_of", "placeholders", "render", "template"]
