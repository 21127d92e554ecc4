"""What the game may ask of a resident's mind: ``ResidentMind``, one protocol.

The simulation (game/sim), a run (game/runs, game/headless.py) and the views hold the
residents' minds as this and nothing more: no member is looked up by name. ``Mind``
(agents/mind/core.py) implements it; so do the stand-ins a test or a benchmark gives
the game instead (lab/standins.py ``StandInMind``), with the answers of a mind that
keeps no plan of steps.

Threads: ``decide``, ``utter``, ``end_conversation``, ``welcome`` and ``prepare`` are
jobs, run on the worker pool, one at a time per mind. ``queue_thought``, ``inner_voice``,
``inspect``, ``memory_text``, ``planned_action`` and ``steps_end`` may be called from
any thread, beside a job. ``chunk_asks`` and ``decompose_afresh`` read or change the
plan itself: only while no job of the mind runs.

What is not here on purpose: a fallback action of the mind's own. When a decision
fails, the routine stands in (game/sim/decisions.py ``fallback``), marked as the
routine's with the reason, so the failure shows; while the mind still thinks, its
plan's step at that time does (``planned_action``). Saving (``snapshot``,
``to_state``) and the visitor's chat (agents/mind/interview.py) need a whole ``Mind``.
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from agents.mind.inspection import Inspection
from agents.planning.arrangements import Arrangement
from agents.residents.persona import Persona
from agents.support.types import Action, Conversation, Decision, Situation, Utterance


@runtime_checkable
class ResidentMind(Protocol):
    """A resident's mind as the game sees it (see the module for the threads' rules)."""

    @property
    def name(self) -> str: ...  # the resident's full name

    @property
    def persona(self) -> Persona | None: ...  # who it is (the routine's fallback reads it); None: a stand-in given none

    # ---- jobs (on the pool, one at a time)
    def decide(self, situation: Situation) -> Decision:
        """The next decision: an action, or someone to talk to."""
        ...

    def utter(self, conversation: Conversation, now: datetime, partner_doing: str) -> Utterance:
        """The next line of a conversation."""
        ...

    def end_conversation(self, conversation: Conversation, now: datetime) -> Sequence[Arrangement]:
        """Remember a finished conversation; the plans it made (logged as ``arrange`` events)."""
        ...

    def welcome(self, guest: str, now: datetime) -> Utterance | None:
        """The host's greeting to a guest of the gathering it hosts now, else None."""
        ...

    def prepare(self, at: datetime, now: datetime) -> int:
        """Break the plan's chunk at ``at`` into steps ahead of time; how many were added."""
        ...

    # ---- any thread
    def queue_thought(self, text: str, importance: int = 8) -> None:
        """A thought folded into memory at the next job."""
        ...

    def inner_voice(self, text: str, now: datetime | None = None, importance: int = 9) -> str:
        """The player as the resident's inner voice; the thought as stored."""
        ...

    def inspect(self) -> Inspection:
        """What the last job published (panels, timelines, the reflections logged)."""
        ...

    def memory_text(self, node_id: int) -> str | None:
        """A cited memory's words (the panels), None when there is none."""
        ...

    def planned_action(self, t: datetime) -> Action | None:
        """What the resident's own plan has it do at ``t`` (followed while the mind thinks)."""
        ...

    def steps_end(self) -> datetime | None:
        """When the steps decided ahead run out, None when none wait."""
        ...

    # ---- between jobs
    def chunk_asks(self, at: datetime) -> bool:
        """Whether breaking the plan's chunk at ``at`` into steps would ask the model."""
        ...

    def decompose_afresh(self) -> None:
        """The next decision decomposes the plan's current item again (after the player played it)."""
        ...


__all__ = ["ResidentMind"]
