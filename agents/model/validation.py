"""A layer of the model road: an answer must validate as the request's schema
(lenient JSON, agents/model/answers.py). An invalid or empty answer gets one retry
with the problem shown to the model; past that, the reply has no value and the
caller's fallback stands in.

The layer also gives the request its form for each server's structured-output
dialect (agents/model/dialects.py ``StructuredCall``) and tells the dialects how each
answer came back: a server that ignored the form is asked afresh in the next
one (that is no retry of the answer), and a form whose answers never fit is
noted."""
from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from agents.model.answers import compact_schema, validate_answer
from agents.model.asking import Heard, LanguageModel, Reply, Request
from agents.model.dialects import Dialects, StructuredCall, answer_kind

log = logging.getLogger("agents.model.gateway")  # the gateway's log (gateway.py): one name for every line of the road

DEADLINE = "timeout: no answer before the deadline"


class Validated:
    """Answers validated as the request's schema: the answer, then one retry with the problem shown."""

    def __init__(self, dialects: Dialects, fixed: Callable[[], bool], inner: LanguageModel) -> None:
        self.dialects = dialects
        self.fixed = fixed  # whether the server takes the schema as it is (no dialect to negotiate)
        self.inner = inner

    def ask_once(self, request: Request) -> Reply:
        schema = request.schema
        name = re.sub(r"[^A-Za-z0-9_-]", "_", schema.__name__)[:64] or "answer"
        form = StructuredCall(self.dialects, request.messages, compact_schema(schema), name, fixed=self.fixed())
        asked = replace(request, form=form)
        heard: list[Heard] = []
        attempts = 0
        error: str | None = None
        why: str | None = None
        value: Any = None
        cacheable = False
        round_ = 0
        while round_ < 2:  # the answer, then one retry with the problem shown
            got = self.inner.ask_once(asked)
            attempts += got.attempts
            if got.error is not None:
                error, why = got.error, got.why
            if not got.answered:  # a lasting error, the retries used up, or the deadline
                error, why = error or "timeout", why or DEADLINE
                break
            heard += got.heard
            text = got.text
            try:
                value = validate_answer(schema, text)
            except ValueError as err:
                problem = str(err)
                error = "empty" if not (text or "").strip() else "invalid"
                log.debug("%s/%s invalid answer (%s): %.200r", request.purpose, request.resident, problem, text)
                if form.answered(answer_kind(text, problem)):
                    form.extra = []  # the server ignored the form: ask afresh in the next one
                    continue
                round_ += 1
                form.extra = form.extra + [
                    {"role": "assistant", "content": (text or "")[:1500]},
                    {
                        "role": "user",
                        "content": f"That answer was not valid: {problem}. "
                        "Answer again with only the corrected JSON object.",
                    },
                ]
                continue
            form.answered(answer_kind(text, None))  # usable; settles the form, or shows it was ignored
            cacheable = not form.extra
            break
        if heard and value is None:
            form.failed_schema()
        return Reply(value=value, heard=tuple(heard), attempts=attempts, error=error, why=why, cacheable=cacheable)


__all__ = ["DEADLINE", "Validated"]
