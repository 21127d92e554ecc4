"""Structured output in each model server's own dialect, negotiated per endpoint.

Every server asks for a JSON answer its own way:

- ``json_schema``: OpenAI's ``response_format`` (LM Studio, newer vLLM, hosted APIs);
- ``json_object_schema``: ``{"type": "json_object", "schema": ...}``, the dialect of
  llama-cpp-python's server (it turns the schema into a grammar);
- ``guided_json``: vLLM's extra body field;
- ``prompt``: no structured output at all, the schema written into the prompt.

An ``Endpoint`` (one api_base and model) starts with the richest dialect (or the
one that worked last time) and steps down to the next when the server refuses
it (an error naming ``response_format``; llama-cpp-python answers 500 to
``json_schema``, others 400 or 422) or ignores it: an answer that is not a JSON
object at all (prose, a fence) is proof the constraint was not applied, and
answers that keep failing the schema (``STEP_DOWN_AFTER`` calls in a row) are
a sign of it. A dialect that gave a valid answer is settled: logged and
announced once, and remembered in ``<cache>/dialects.json`` by endpoint and
model for ``REMEMBER_DAYS``, so the next game starts with it.

Ollama (litellm turns ``json_schema`` into its ``format``) and the in-process
providers take the schema as they are: their endpoints are fixed, not
negotiated. ``StructuredCall`` is one ask's request: the gateway and the
Router (per deployment) shape it for the endpoint that serves it.
"""
from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DIALECTS = ("json_schema", "json_object_schema", "guided_json", "prompt")
SAY = {
    "json_schema": "response_format json_schema",
    "json_object_schema": "json_object with schema",
    "guided_json": "guided_json",
    "prompt": "the schema in the prompt only (no structured output)",
}
STEP_DOWN_AFTER = 2  # calls in a row whose answers all failed the schema, in a dialect not yet settled
NEVER_FIT = 4  # calls in a row with no answer fitting the schema, in the last dialect: say so
REMEMBER_DAYS = 7  # then richer dialects are tried again (the server may have been upgraded)
HINT = "\n\nAnswer with a JSON object that follows this JSON schema:\n"


def schema_hint(js: dict) -> str:
    return HINT + json.dumps(js, separators=(",", ":"))


def with_hint(messages: list[dict], js: dict) -> list[dict]:
    """``messages`` with the schema appended to the last user message (a copy)."""
    out = [dict(m) for m in messages]
    hint = schema_hint(js)
    for m in reversed(out):
        if m.get("role") == "user" and isinstance(m.get("content"), str):
            if "follows this JSON schema" not in m["content"]:
                m["content"] = m["content"] + hint
            return out
    return out + [{"role": "user", "content": hint.strip()}]


def refusal(err: BaseException) -> bool:
    """Whether ``err`` is a server turning down the structured-output field itself
    (not a connection, time-out or rate-limit trouble)."""
    text = f"{type(err).__name__} {err}".lower()
    if any(w in text for w in ("connection", "timed out", "timeout", "rate limit", "ratelimit")):
        return False
    return any(w in text for w in ("response_format", "guided_json", "json_schema"))


def endpoint_label(model: str, api_base: str | None) -> str:
    """The server as a player knows it: the host of api_base, else the model."""
    if api_base:
        host = api_base.split("://", 1)[-1].split("/", 1)[0].split("?", 1)[0].rsplit("@", 1)[-1]
        return host or model
    return model


def memory_key(model: str, api_base: str | None) -> str:
    """How an endpoint is named in the memory file: no credentials (``user:pass@``, a
    ``?key=`` query) ever reach it."""
    base = "-"
    if api_base:
        scheme, _, rest = api_base.partition("://")
        rest = rest.split("?", 1)[0].split("#", 1)[0]
        host, slash, path = rest.partition("/")
        base = f"{scheme}://{host.rsplit('@', 1)[-1]}{slash}{path}" if rest else api_base.split("?", 1)[0]
    return f"{model} @ {base}"


class Endpoint:
    """One server of one model and the dialect it speaks (thread-safe)."""

    def __init__(self, owner: Dialects, model: str, api_base: str | None, *, fixed: bool,
                 start: str = DIALECTS[0], label: str | None = None) -> None:
        self.owner = owner
        self.model = model
        self.api_base = api_base
        self.fixed = fixed  # Ollama and in-process providers: json_schema as litellm hands it on
        self.label = label or endpoint_label(model, api_base)
        self.dialect = start if start in DIALECTS else DIALECTS[0]
        self.settled = False  # a valid answer came back in the current dialect
        self.streak = 0  # calls in a row whose answers all failed the schema
        self.stepped: list[tuple[str, str]] = []  # (dialect left, why), for the log and the HUD
        self._lock = threading.Lock()

    @property
    def key(self) -> str:
        return memory_key(self.model, self.api_base)

    # dict[str, Any]: litellm's completion kwargs, each of its own type
    def request(self, dialect: str, messages: list[dict], js: dict, name: str) -> dict[str, Any]:
        """The completion kwargs that carry ``js`` in ``dialect``."""
        if dialect == "prompt":
            return {"messages": with_hint(messages, js)}
        if dialect == "json_object_schema":
            return {"messages": messages, "response_format": {"type": "json_object", "schema": js}}
        if dialect == "guided_json":
            return {"messages": messages, "extra_body": {"guided_json": js}}
        form = {"name": name, "schema": js, "strict": False}
        return {"messages": messages, "response_format": {"type": "json_schema", "json_schema": form}}

    def _step_down(self, dialect: str, why: str) -> bool:
        """Leave ``dialect`` for the next one. True: ask again (in the dialect now current,
        also when another call moved on already); False at the last one."""
        with self._lock:
            if self.fixed:
                return False
            if dialect != self.dialect:
                return True
            if dialect == DIALECTS[-1]:
                return False
            self.dialect = DIALECTS[DIALECTS.index(dialect) + 1]
            self.settled = False
            self.streak = 0
            self.stepped.append((dialect, why))
        log.info("model server %s (%s) %s %s; now trying %s", self.label, self.model, why, SAY[dialect],
                 SAY[self.dialect])
        return True

    def refused(self, dialect: str, err: BaseException) -> bool:
        """The server turned the request down: True when it names the structured-output
        field (then the next dialect is tried; ask again)."""
        if self.fixed or dialect == "prompt" or not refusal(err):
            return False
        return self._step_down(dialect, "refused")

    def answered(self, dialect: str, kind: str) -> bool:
        """One answer came back: "valid", "valid_prose" (usable, read out of prose),
        "not_json" (prose: the constraint was not applied), "cut_off" or "invalid".
        True when the dialect was ignored and the next one should be asked at once."""
        if self.fixed:
            return False
        if kind == "valid_prose":  # fine in the prompt; elsewhere the server ignored the form
            kind = "valid" if dialect == "prompt" else "not_json"
        if kind == "valid":
            with self._lock:
                if dialect != self.dialect:
                    return False
                self.streak = 0
                if self.settled:
                    return False
                self.settled = True
            self.owner.settled(self)
            return False
        with self._lock:
            if dialect != self.dialect:
                return True  # another call moved on meanwhile: ask again in the dialect now current
            settled = self.settled
        if kind == "not_json" and not settled and dialect != "prompt":
            return self._step_down(dialect, "ignored")
        return False

    def call_failed_schema(self, dialect: str) -> None:
        """A whole call (its answer and the retry) failed the schema."""
        if self.fixed:
            return
        with self._lock:
            if dialect != self.dialect:
                return
            self.streak += 1
            give_up = not self.settled and self.streak >= STEP_DOWN_AFTER and dialect != "prompt"
        if give_up:
            self._step_down(dialect, "answered off the schema in")

    def problem(self) -> str | None:
        """What is wrong with this server's answers, with the fix; None when all is well."""
        with self._lock:
            dialect, streak, stepped = self.dialect, self.streak, list(self.stepped)
        if self.fixed:
            return None
        if streak >= NEVER_FIT and (dialect == "prompt" or not stepped):
            return (f"{self.label}: {streak} calls in a row with no answer that fits the schema "
                    f"({SAY[dialect]}); try a larger model or a server with structured output")
        if dialect == "prompt" and stepped:
            why = stepped[-1][1].removesuffix(" in")
            return (f"{self.label}: no structured output (forms {why}); schema in the prompt only; "
                    "a server with json_schema fixes it")
        return None


def _whole_entry(entry: object) -> bool:  # read from a file: anything
    """A remembered dialect as settled() writes it: a known dialect and a finite time."""
    if not isinstance(entry, dict) or not isinstance(entry.get("dialect"), str) or entry["dialect"] not in DIALECTS:
        return False
    at = entry.get("at")
    return isinstance(at, (int, float)) and not isinstance(at, bool) and math.isfinite(at)


class Dialects:
    """The endpoints a gateway talks to, their dialects, and the memory of what worked."""

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._lock = threading.Lock()
        self._endpoints: dict[tuple[str, str | None], Endpoint] = {}
        self.announcements: list[str] = []  # "host: using json_object with schema", once per endpoint
        self._warned = False  # the memory's damage was logged

    def endpoint(self, model: str, api_base: str | None, *, fixed: bool = False, label: str | None = None) -> Endpoint:
        with self._lock:
            ep = self._endpoints.get((model, api_base))
            if ep is None:
                start = DIALECTS[0] if fixed else self._remembered(memory_key(model, api_base))
                ep = Endpoint(self, model, api_base, fixed=fixed, start=start, label=label)
                self._endpoints[(model, api_base)] = ep
            return ep

    def endpoints(self) -> list[Endpoint]:
        with self._lock:
            return list(self._endpoints.values())

    def problems(self) -> list[str]:
        return [p for ep in self.endpoints() if (p := ep.problem())]

    # -- the memory ------------------------------------------------------------------------
    def _damaged(self, why: str) -> None:
        """One log line per cache file: a cache is a hint, its damage costs a negotiation."""
        if not self._warned:
            self._warned = True
            log.warning("structured-output memory %s unreadable or damaged (%s); negotiating afresh", self.path, why)

    def _read(self) -> dict:
        """The remembered dialects, only the entries that are whole: {key: {dialect, at}}."""
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError, MemoryError) as err:  # RecursionError: nested too deep
            self._damaged(f"{type(err).__name__}: {str(err)[:80]}")
            return {}
        if not isinstance(data, dict):
            self._damaged("not a table of servers")
            return {}
        good = {k: v for k, v in data.items() if _whole_entry(v)}
        if len(good) < len(data):
            self._damaged(f"{len(data) - len(good)} entr{'y' if len(data) - len(good) == 1 else 'ies'} unusable")
        return good

    def _remembered(self, key: str) -> str:
        entry = self._read().get(key)
        if entry is not None:
            age_days = (time.time() - float(entry["at"])) / 86400
            if 0 <= age_days <= REMEMBER_DAYS:
                return str(entry["dialect"])
        return DIALECTS[0]

    def settled(self, ep: Endpoint) -> None:
        """``ep`` gave a valid answer in its dialect: say so once, and remember it."""
        text = f"{ep.label}: using {SAY[ep.dialect]}"
        with self._lock:
            if text in self.announcements:
                return
            self.announcements.append(text)
        log.info("model server %s (%s): using %s for structured output", ep.label, ep.model, SAY[ep.dialect])
        if self.path is None:
            return
        with self._lock:
            try:
                data = self._read()
                data[ep.key] = {"dialect": ep.dialect, "at": time.time()}
                self.path.parent.mkdir(parents=True, exist_ok=True)
                tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
                tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
                os.replace(tmp, self.path)
            except OSError as err:  # a read-only cache costs a negotiation next time, nothing more
                log.warning("cannot remember the structured-output dialect in %s: %s", self.path, err)


class StructuredCall:
    """One ask's request, shaped for whichever endpoint serves it (the Router picks it late)."""

    def __init__(self, dialects: Dialects, messages: list[dict], js: dict, name: str, *, fixed: bool) -> None:
        self.dialects = dialects
        self.messages = messages
        self.js = js
        self.name = name
        self.fixed = fixed
        self.extra: list[dict] = []  # the retry's turns: the invalid answer and what was wrong with it
        self.used: tuple[Endpoint, str] | None = None  # the endpoint and dialect of the last request

    # dict[str, Any]: litellm's completion kwargs, each of its own type
    def shape(self, model: str, api_base: str | None, label: str | None = None) -> dict[str, Any]:
        """The kwargs (messages, response_format or extra_body) for this endpoint's dialect."""
        ep = self.dialects.endpoint(model, api_base, fixed=self.fixed, label=label)
        dialect = ep.dialect
        self.used = (ep, dialect)
        kw = ep.request(dialect, self.messages, self.js, self.name)
        kw["messages"] = kw["messages"] + self.extra
        return kw

    def refused(self, err: BaseException) -> bool:
        return self.used is not None and self.used[0].refused(self.used[1], err)

    def answered(self, kind: str) -> bool:
        return self.used is not None and self.used[0].answered(self.used[1], kind)

    def failed_schema(self) -> None:
        if self.used is not None:
            self.used[0].call_failed_schema(self.used[1])


def answer_kind(text: str | None, problem: str | None) -> str:
    """"valid", "valid_prose", "cut_off", "not_json" or "invalid", for ``Endpoint.answered``."""
    if problem is None:
        return "valid" if (text or "").strip().startswith("{") else "valid_prose"
    if "cut off" in problem:
        return "cut_off"
    if not (text or "").strip().startswith("{"):
        return "not_json" if (text or "").strip() else "invalid"
    return "invalid"


__all__ = [
    "DIALECTS",
    "SAY",
    "Dialects",
    "Endpoint",
    "StructuredCall",
    "answer_kind",
    "endpoint_label",
    "refusal",
    "with_hint",
]
