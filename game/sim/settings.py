"""The simulation's constants and tunables: the step, the event kinds, ``SimSettings``."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

STEP = timedelta(seconds=10)  # one sim step; a walking body moves one tile per step

# Event-log kinds (the timeline and the HUD read these).
KINDS = ("action", "chat", "line", "arrive", "reflect", "error", "edit")


@dataclass
class SimSettings:
    vision_radius: int = 8  # tiles (square box), same arena only
    max_events: int = 16  # events handed to a mind per decision (it applies its own bandwidth)
    retention_min: int = 60  # an event seen again within this is not "new"
    react_cooldown_min: int = 10  # at most one reaction decision per resident per this
    react_max_in_flight: int = 8  # reactions wait while this many jobs are sent and not yet applied
    talk_radius: int = 6  # tiles: who is near enough to be offered for a conversation
    conversation_cooldown_min: int = 120  # the same pair does not talk again within this
    max_conversation_lines: int = 8
    approach_max_steps: int = 30  # the initiator stops walking to the partner after this
    min_stay_min: int = 1  # an action that ended while walking lasts this long after arrival
    behind_min: int = 10  # behind(): waiting for a decision longer than this
    # Ask for the next action this long before the current one ends (twice that before
    # waking: a day plan takes several calls). Long enough that a whole town's hour
    # boundaries (everyone's next hour to break into steps) spread over the model's time.
    lookahead_min: int = 20
    # The window only: a resident whose first plan of the game has not landed stays in bed
    # this long (the clock moves on meanwhile) before the clock waits for it.
    morning_grace_min: int = 45
    lookahead_max_min: int = 120  # the load-based look-ahead never reaches further than this
    focus_lead_min: int = 10  # residents the player watches: their jobs as if needed this much sooner
    error_backoff_min: int = 10  # after a failed decision, no new one for this long
    path_budget_ms: float = 3.0  # realtime: A* work per step (the rest waits for the next step; lockstep: none)
    # Lockstep runs: sim seconds from a mind's job going out to its answer landing.
    # One step (10) waits for every answer at the end of the step it was asked in;
    # longer lets the clock run on while one resident's chain of model calls
    # finishes, so others' calls keep the model busy. Still reproducible: each
    # answer lands exactly this long after it was asked, however long it took.
    lockstep_think_s: int = 10
