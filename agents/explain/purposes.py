"""Why a mind asks its model: every purpose of a model call, declared once.

A purpose is the key the ledger, the budget and the decision records file a call
under ("day_plan", "utterance", ...). Each one here says:

- ``templates``: the prompt files it is asked with (agents/prompts/<name>.txt);
- ``max_tokens``: the most tokens its answer may take (None: the caller's own, for
  the lab's questions);
- ``daily_guard``: its loop guard, the calls a resident may make of it per sim day
  (agents/model/budget.py), which no ordinary day comes near: one that binds is a
  runaway loop, stopped and reported like the budget. None, and ``no_guard`` says why;
- ``explains``: the kinds of act whose decision record it is (agents/explain/why.py
  ``ACT_PURPOSES``: a line said, an action, a plan item, ...);
- ``asked_by``: who asks it: a mind's own job (``MIND``), a visitor's chat or an
  interview (``VISITOR``), or the lab's evaluations (``LAB``, through a gateway
  with no budget).

The settings' defaults (agents/residents/mind_settings.py ``MAX_TOKENS`` and
``MindSettings.loop_guards``), Why's kinds of act and the competent stand-in
(lab/competent) read this table; tests/test_purposes.py checks that every
purpose the code asks with is here and every template named exists.
"""
from __future__ import annotations

from dataclasses import dataclass

MIND, VISITOR, LAB = "mind", "visitor", "lab"
DEFAULT_MAX_TOKENS = 160  # a purpose with no limit of its own (none here: an unknown one)

# The kinds of act a decision record explains (agents/explain/why.py ``find``).
LINE, ACTION, PLAN, REACTION, REFLECTION, IMPORTANCE, TALK = (
    "line", "action", "plan", "reaction", "reflection", "importance", "talk")
ACT_KINDS = (LINE, ACTION, PLAN, REACTION, REFLECTION, IMPORTANCE, TALK)

_VISITORS = "asked for a line the visitor said (the player's chat, an interview): no loop of the mind's own"
_LABS = "asked by the lab's evaluation through its own gateway, which has no budget"


@dataclass(frozen=True)
class Purpose:
    """One purpose of a model call (see the module)."""

    name: str
    templates: tuple[str, ...]
    max_tokens: int | None
    daily_guard: int | None = None
    no_guard: str = ""  # why it has no daily guard (daily_guard None)
    explains: tuple[str, ...] = ()
    asked_by: str = MIND


PURPOSES: dict[str, Purpose] = {p.name: p for p in (
    # The day: what the resident remembers of itself and of yesterday, then its plan.
    Purpose("summary", ("summary",), 110, 6),
    Purpose("yesterday", ("yesterday",), 110, 4),
    Purpose("day_plan", ("day_plan", "day_plan_guided", "day_plan_choose"), 420, 6, explains=(ACTION, PLAN)),
    Purpose("story_choose", ("story_choose",), 12, 2, explains=(PLAN,)),  # one a day; two after a load that replans
    Purpose("replan", ("replan",), 420, 24, explains=(ACTION, PLAN)),
    Purpose("decompose", ("decompose", "decompose_choose"), 360, 60, explains=(ACTION,)),
    Purpose("react", ("react",), 50, 48, explains=(ACTION, REACTION)),
    # Memory: how much an observation matters, and reflecting.
    Purpose("importance", ("importance", "importance_choose"), 160, 120, explains=(IMPORTANCE,)),
    Purpose("reflect_questions", ("reflect_questions",), 120, 8, explains=(REFLECTION,)),
    Purpose("reflect_insights", ("reflect_insights",), 400, 24, explains=(REFLECTION,)),
    Purpose("reflect_choose", ("reflect_choose",), 12, 8, explains=(REFLECTION,)),
    # Talking to another resident.
    Purpose("talk_decision", ("talk_decision",), 12, 48, explains=(TALK,)),
    Purpose("relationship", ("relationship",), 90, 24),
    Purpose("utterance", ("utterance",), 90, 120, explains=(LINE,)),
    # The grounded mode's line (agents/talk/dialogue.py): the same act as "utterance" in the
    # other mode, so the same guard (the 25-resident day asked it about 25 times a resident).
    Purpose("choose_line", ("choose_act",), 96, 120, explains=(LINE,)),
    Purpose("chat_summary", ("chat_summary",), 160, 24),
    # The visitor's chat and interviews (agents/mind/interview.py).
    Purpose("respond", ("respond",), 120, no_guard=_VISITORS, asked_by=VISITOR),
    Purpose("choose_fact", ("choose_fact",), 8, no_guard=_VISITORS, asked_by=VISITOR),
    Purpose("choose_act", ("choose_act",), 80, no_guard=_VISITORS, asked_by=VISITOR),
    # The lab's questions (lab/evaluate/judge.py, lab/controlled/judge.py, lab/bench/models.py).
    Purpose("judge", ("judge",), 12, no_guard=_LABS, asked_by=LAB),
    Purpose("rank_answers", ("rank_answers",), 40, no_guard=_LABS, asked_by=LAB),
    Purpose("bench", (), None, no_guard=_LABS, asked_by=LAB),
)}


def max_tokens(purpose: str) -> int:
    """The most tokens an answer of ``purpose`` may take."""
    p = PURPOSES.get(purpose)
    return p.max_tokens if p is not None and p.max_tokens is not None else DEFAULT_MAX_TOKENS


def token_limits() -> dict[str, int]:
    """purpose -> its token limit, for every purpose that has one."""
    return {p.name: p.max_tokens for p in PURPOSES.values() if p.max_tokens is not None}


def daily_guards() -> dict[str, int]:
    """purpose -> its loop guard (calls per resident per sim day), for every purpose that has one."""
    return {p.name: p.daily_guard for p in PURPOSES.values() if p.daily_guard is not None}


def explaining(kind: str) -> tuple[str, ...]:
    """The purposes whose decision records explain an act of ``kind``."""
    return tuple(p.name for p in PURPOSES.values() if kind in p.explains)


__all__ = [
    "ACT_KINDS", "DEFAULT_MAX_TOKENS", "LAB", "MIND", "PURPOSES", "VISITOR", "Purpose", "daily_guards",
    "explaining", "max_tokens", "token_limits",
]
