"""Knobs of the architecture. Defaults are the paper's (and the original's
25-resident settings); the call budget is this project's own."""
from __future__ import annotations

from dataclasses import dataclass, field

# The sim owns conversation cooldowns; this is the default it should use. The
# original kept a pair apart for 800 steps of 10 s (about 2.2 sim hours).
CONVERSATION_COOLDOWN_MIN = 120


@dataclass
class MindSettings:
    # Perception (original n25 base: vision 8, bandwidth 8, retention 8).
    vision_radius: int = 8  # tiles; the sim applies it, kept here so one place holds it
    attention_bandwidth: int = 8
    retention: int = 8

    # Retrieval: score = w_rec*recency + w_imp*importance + w_rel*relevance.
    recency_decay: float = 0.995  # per sim hour since last access
    w_recency: float = 1.0
    w_importance: float = 1.0
    w_relevance: float = 1.0
    retrieve_k: int = 12  # nodes per query for prompts (weak models, short context)
    retrieve_chars: int = 900  # character budget of retrieved memories in a prompt

    # Reflection.
    reflection_threshold: int = 150  # summed importance since the last one
    reflection_window: int = 100  # most recent records that suggest questions
    reflection_prompt_records: int = 30  # of those, the most important shown (short contexts)
    reflection_questions: int = 3
    insights_per_question: int = 3

    # Planning.
    plan_min_items: int = 5
    plan_max_items: int = 8
    action_min_minutes: int = 5
    action_max_minutes: int = 15
    bedtime_hour: int = 22  # sleep starts no earlier than this (unless the plan says later)
    bedtime_latest: int = 24  # ... and no later than this

    # Reacting and talking.
    react_interval_min: int = 30  # at most one continue-or-react call per this many sim minutes
    talk_cooldown_min: int = CONVERSATION_COOLDOWN_MIN  # mind-side guard per partner
    max_conversation_lines: int = 8
    talk_hours: tuple[int, int] = (8, 22)  # no new conversations outside these hours

    # Budget: hard cap of model calls per resident per sim day, and per-purpose
    # caps inside it. Past a cap the rule-based fallback is used without a call.
    calls_per_day: int = 150
    purpose_caps: dict[str, int] = field(
        default_factory=lambda: {
            "summary": 2,
            "day_plan": 2,
            "decompose": 30,
            "importance": 30,
            "reflect_questions": 3,
            "reflect_insights": 9,
            "react": 12,
            "talk_decision": 10,
            "relationship": 8,
            "utterance": 32,
            "chat_summary": 8,
        }
    )
