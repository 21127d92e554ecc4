"""Where a piece of a resident's life came from: the model, the model repaired,
a rule, or the routine, and why (DESIGN.md: the model leads; rules catch, and
say so).

A provenance is a short string, so it travels unchanged through actions, plan
items, memories, the event log, saves and panels:

    "model"
    "repaired: moved to 12:00 (lunch at 09:00)"
    "rule: invalid answer"
    "routine: model error (timeout)"

The first word is the kind; what follows the colon is the reason.
"""
from __future__ import annotations

MODEL = "model"  # the model wrote it and it was used as written
REPAIRED = "repaired"  # the model wrote it; a rule fixed a detail (a time, a place, an object)
RULE = "rule"  # a rule wrote it (the model's answer was unusable, or no call was made)
ROUTINE = "routine"  # the resident's hand-written routine stood in
KINDS = (MODEL, REPAIRED, RULE, ROUTINE)

# Reasons a rule or the routine stood in.
INVALID = "invalid answer"  # the model answered, but nothing usable
ERROR = "model error"  # no answer: time-out, connection, server, ...
BUDGET = "budget"  # the daily call budget was spent; no call was made
CEILING = "ceiling"  # the run reached its --max-cost / --max-tokens; no call was made
GUIDED = "guided mode"  # the guided planning mode: the routine's times, the model's words
SEED = "seed"  # the resident's description or the scenario
RECAP = "how it went"  # a gathering's end, remembered from what was seen there (agents/planning/recaps.py)
PLAYER = "player"  # the player typed it (inner voice, a chat line)


def tag(kind: str, why: str = "") -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown provenance kind {kind!r}")
    why = " ".join(str(why or "").split())
    return f"{kind}: {why}" if why else kind


# A rule's importance, waiting for the model's rating with the next batch (agents/recall/perceive.py).
UNRATED = tag(RULE, "until the model rates it")
# A thought the scenario (or a script) gave the resident: "I have decided to run for mayor ..."
GIVEN_THOUGHT = tag(RULE, "a thought given to the resident")


def kind_of(source: str | None) -> str:
    """"model", "repaired", "rule", "routine", or "unknown" (data from before provenance)."""
    k = str(source or "").split(":", 1)[0].strip()
    return k if k in KINDS else "unknown"


def why_of(source: str | None) -> str:
    parts = str(source or "").split(":", 1)
    return parts[1].strip() if len(parts) == 2 else ""


def model_led(source: str | None) -> bool:
    """Written by the model (as is, or repaired from its answer)."""
    return kind_of(source) in (MODEL, REPAIRED)


def reason_of_failure(outcome: str | None) -> str:
    """A gateway outcome ("invalid", "empty", "timeout", ...) as a reason for a fallback."""
    o = str(outcome or "").strip()
    if o in ("invalid", "empty"):
        return INVALID
    if o in (BUDGET, CEILING):
        return o
    return f"{ERROR} ({o})" if o and o != "error" else ERROR


def no_answer(source: str | None) -> bool:
    """A rule or the routine stood in because the model gave no usable answer, or no call was made."""
    why = why_of(source)
    return kind_of(source) in (RULE, ROUTINE) and why.startswith((INVALID, ERROR, BUDGET, CEILING))


def fallback(why: str, kind: str = RULE) -> str:
    """The provenance of what a rule (or the routine) wrote because the model's answer was unusable."""
    return tag(kind, why)


def short_label(source: str | None) -> str:
    """A few characters for panels and timelines: "" for the model, else the kind and reason."""
    k = kind_of(source)
    if k == MODEL or k == "unknown":
        return ""
    why = why_of(source)
    return f"{k}: {why}" if why else k


def combine(*sources: str | None) -> str:
    """The weakest of several provenances (a plan item with the model's words at a routine's
    time is "repaired"; anything with a rule in it is the rule's)."""
    order = {ROUTINE: 0, RULE: 1, REPAIRED: 2, MODEL: 3, "unknown": 4}
    best = min((s for s in sources if s), key=lambda s: order[kind_of(s)], default=MODEL)
    return best
