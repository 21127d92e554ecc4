"""Small text helpers shared by the minds' modules: a model's free text made fit
for a timeline, and free-text schema fields with a length the grammar enforces."""
from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import WithJsonSchema


def clean_text(text: str, limit: int = 80) -> str:
    """A model's free text, fit for a timeline: one line, no stray JSON punctuation."""
    t = re.sub(r"[{}\[\]\"\\]+", "", str(text)).replace("_", " ")
    t = " ".join(t.split()).strip(" ,;:")
    return t[:limit].rstrip(" ,;:")


# A free-text field whose JSON schema carries maxLength (llama.cpp's grammar then
# stops a rambling small model; measured no slower per token here) while
# validation stays lenient: a hosted model's longer answer is trimmed, not refused.
def short_text(n: int) -> Any:
    """The field type for schemas built at run time (``create_model``)."""
    return Annotated[str, WithJsonSchema({"type": "string", "maxLength": n})]


# The same as types a type checker can read, for schemas written as classes.
Text60 = Annotated[str, WithJsonSchema({"type": "string", "maxLength": 60})]
Text100 = Annotated[str, WithJsonSchema({"type": "string", "maxLength": 100})]
Text160 = Annotated[str, WithJsonSchema({"type": "string", "maxLength": 160})]
Text200 = Annotated[str, WithJsonSchema({"type": "string", "maxLength": 200})]
