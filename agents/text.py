"""Small text helpers shared by the minds' modules: a model's free text made fit
for a timeline, and free-text schema fields with a length the grammar enforces."""
from __future__ import annotations

import re
from typing import Annotated

from pydantic import WithJsonSchema


def clean_text(text: str, limit: int = 80) -> str:
    """A model's free text, fit for a timeline: one line, no stray JSON punctuation."""
    t = re.sub(r"[{}\[\]\"\\]+", "", str(text)).replace("_", " ")
    t = " ".join(t.split()).strip(" ,;:")
    return t[:limit].rstrip(" ,;:")


# A free-text field whose JSON schema carries maxLength (llama.cpp's grammar then
# stops a rambling small model; measured no slower per token here) while
# validation stays lenient: a hosted model's longer answer is trimmed, not refused.
def short_text(n: int):
    return Annotated[str, WithJsonSchema({"type": "string", "maxLength": n})]
