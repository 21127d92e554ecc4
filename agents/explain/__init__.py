"""Why a resident did what it did.

    provenance.py  where each plan item, action, line and memory came from: model | repaired | rule | routine
    why.py         decision records: the memories retrieval brought up, the prompt, the raw and validated answer
    purposes.py    why a mind asks its model: each purpose of a call, its prompts, token limit, daily guard
                   and the acts it explains, declared once
"""

# The room's modules: its public face inside the minds (game/, lab/ and smallville/ use agents.__all__).
__all__ = [
    "provenance", "purposes", "why",
]
