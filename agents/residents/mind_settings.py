"""Knobs of the architecture. Defaults are the paper's (and the original's
25-resident settings); the call budget is this project's own."""
from __future__ import annotations

from dataclasses import dataclass, field

from agents.explain import purposes

# The sim owns conversation cooldowns; this is the default it should use. The
# original kept a pair apart for 800 steps of 10 s (about 2.2 sim hours).
CONVERSATION_COOLDOWN_MIN = 120
# The most tokens an answer may take, by purpose (agents/explain/purposes.py; 160 for any other).
MAX_TOKENS = purposes.token_limits()


@dataclass
class MindSettings:
    # Perception (original n25 base: vision 8, bandwidth 8, retention 8).
    vision_radius: int = 8  # tiles; the sim applies it, kept here so one place holds it
    attention_bandwidth: int = 8
    retention: int = 8
    retention_min: int = 60  # ... and what was perceived within this many sim minutes is not new either
    # Retrieval: score = w_rec*recency + w_imp*importance + w_rel*relevance.
    recency_decay: float = 0.995  # per sim hour since last access
    w_recency: float = 1.0
    w_importance: float = 1.0
    w_relevance: float = 1.0
    retrieve_k: int = 12  # nodes per query for prompts (weak models, short context)
    retrieve_chars: int = 900  # character budget of retrieved memories in a prompt

    # Reflection.
    reflection_threshold: int = 150  # summed importance since the last one
    reflection_gap_h: float = 4.0  # a choosing model reflects at most once in this many sim hours
    # ... and at least once in this many, when anything happened: a quiet day at home never
    # reached the sum (3 of 25 residents reflected 0 times in 12 sim hours)
    reflection_quiet_h: float = 8.0
    reflection_window: int = 100  # most recent records that suggest questions
    reflection_prompt_records: int = 30  # of those, the most important shown (short contexts)
    reflection_questions: int = 3
    insights_per_question: int = 5  # the paper's number

    # Planning. None: the model configuration's mode (agents/model/config.py planning).
    planning: str | None = None  # "paper" | "guided"
    # Grounded answers and dialogue (agents/recall/grounding.py). None: the model configuration's.
    grounded: bool | None = None
    plan_min_items: int = 5
    plan_max_items: int = 8
    action_min_minutes: int = 5
    action_max_minutes: int = 15
    bedtime_hour: int = 22  # sleep starts no earlier than this (unless the plan says later)
    bedtime_latest: int = 24  # ... and no later than this

    # Reacting and talking.
    react_interval_min: int = 60  # at most one continue-or-react call per this many sim minutes (urgent ones always)
    talk_cooldown_min: int = CONVERSATION_COOLDOWN_MIN  # mind-side guard per partner
    talk_gap_min: int = 45  # no new conversation this soon after the last one ended
    # Past this many conversations in a day a resident starts no more, unless it has an invitation
    # to make: the small model says yes to nine in ten chances to talk, so without it talk grew with
    # every person and story the residents came to know (an 8-resident run: 34 conversations on
    # its first day, 52 on its second, 4 pairs talking 4-7 times). 0: no limit.
    talks_a_day: int = 8
    relationship_hours: float = 3.0  # a relationship summary is reused for this long (one call, several talks)
    rate_batch: int = 8  # observations wait for the model's importance rating until this many ...
    rate_wait_min: int = 60  # ... or the oldest has waited this long (one call rates them all)
    max_conversation_lines: int = 8
    talk_hours: tuple[int, int] = (7, 22)  # no new conversations outside these hours (breakfast at home counts)

    # Loop guards: calls per purpose per resident per sim day that no ordinary day
    # comes near; one that binds is a runaway loop, stopped and reported like the
    # budget (the daily budget itself is ModelConfig.budget). Each purpose's guard, or
    # why it has none, is declared with the purpose (agents/explain/purposes.py).
    loop_guards: dict[str, int] = field(default_factory=purposes.daily_guards)
