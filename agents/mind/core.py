"""A resident's mind: ties memory, perception, reflection, planning, reacting
and dialogue together behind the small API the simulation calls (agents/mind/api.py
``ResidentMind``; contract section 10). Methods run on the worker pool, at most one job per mind at a
time; inspect(), queue_thought() and inner_voice() may be called from any thread.

Each part of the architecture is a module that takes the mind as a narrow
protocol (agents/recall/thinking.py): perceive, reflect, day, decompose, react, converse,
inner_voice, and deciding (a decide job's steps, in their order). The state is
grouped alike: ``today`` (agents/planning/today.py), ``social`` (agents/talk/converse.py),
``senses`` (agents/recall/perceive.py), ``budget`` (agents/model/budget.py), each with the contract of
agents/support/stateful.py; the mind's save is their states in one flat dict (the shape saves always had).

Two jobs of the mind live beside it, each in its own module: its memory as the parts
use it (remembering.py: storing in batches, retrieval) and what other threads and saves
see of it (keeping.py: the published copy, the capture as each job begins, the state
round trip). This module is the thinking: the jobs, and the services they give the parts."""
from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from agents.explain import provenance as pv
from agents.mind import deciding
from agents.mind.job_tags import job_tag
from agents.mind.keeping import SAID_KEPT, Keeping
from agents.mind.remembering import Remembering
from agents.model.services import Asker, Embedder, ask_model
from agents.planning import inner_voice as voice
from agents.planning import plan as planning
from agents.planning import recaps
from agents.planning.arrangements import Arrangement
from agents.planning.day import chunk_asks, consider_news, prepare_chunk
from agents.planning.object_use import is_sleep
from agents.recall import grounding
from agents.recall.perceive import rate_waiting
from agents.residents.mind_settings import MindSettings
from agents.residents.persona import Persona
from agents.support.types import Conversation, Decision, Situation, Utterance
from agents.talk import converse
from agents.threads import priority
from agents.threads.beside import Beside, Done

if TYPE_CHECKING:
    from agents.mind.api import ResidentMind


class Mind(Remembering, Keeping):
    """One resident's mind: the paper's memory stream, retrieval, reflection, planning,
    reacting and dialogue, asked for a decision by the simulation (see the module). It is
    the game's ``ResidentMind`` (agents/mind/api.py; mypy checks it, below the class)."""

    def __init__(self, persona: Persona, gateway: Asker, embedder: Embedder, settings: MindSettings | None = None):
        # Cheap: no model call, no embedding; memories are seeded in the first job. The state
        # itself, and which thread may touch what, is agents/mind/keeping.py's Keeping.__init__.
        super().__init__(persona, gateway, embedder, settings)
        self.publish()

    # ------------------------------------------------------------------ plumbing
    @property
    def gateway(self) -> Asker:  # the mind's language model, which its budget wraps
        return self.budget.asker

    @gateway.setter
    def gateway(self, asker: Asker) -> None:
        self.budget.asker = asker

    @property
    def now(self) -> datetime:
        """The sim time of the job at hand (set by every job before anything reads it)."""
        if self._now is None:
            raise RuntimeError(f"{self.name}'s mind has not begun a job yet: it has no time")
        return self._now

    @now.setter
    def now(self, t: datetime) -> None:
        self._now = t

    @property
    def plan(self) -> list[planning.PlanItem]:  # today.plan
        return self.today.plan

    @plan.setter
    def plan(self, items: list[planning.PlanItem]) -> None:
        self.today.plan = items

    @property
    def known_people(self) -> set[str]:  # social.known_people
        return self.social.known_people

    @known_people.setter
    def known_people(self, names: set[str]) -> None:
        self.social.known_people = names

    @property
    def budget_hit(self) -> datetime | None:  # budget.spent_at: when today's budget ran out (the HUD reads it)
        return self.budget.spent_at

    @budget_hit.setter
    def budget_hit(self, t: datetime | None) -> None:
        self.budget.spent_at = t

    @property
    def planning_mode(self) -> str:
        """"paper" or "guided" (MindSettings.planning, else the model configuration's)."""
        mode = self.settings.planning or getattr(getattr(self.gateway, "config", None), "planning", None)
        return mode if mode in ("paper", "guided") else "paper"

    @property
    def guided(self) -> bool:
        return self.planning_mode == "guided"

    @property
    def grounded(self) -> bool:
        """Answers and lines from the resident's own memories (agents/recall/grounding.py):
        MindSettings.grounded, else the model configuration's (on for the embedded model)."""
        if self.settings.grounded is not None:
            return bool(self.settings.grounded)
        return getattr(getattr(self.gateway, "config", None), "grounded", "off") == "on"

    def _roll_day(self) -> None:
        self.budget.at(self.now)

    def start_turn(self, now: datetime) -> None:
        """What a job from elsewhere does first, after ``begin_job``: the sim time,
        today's call counts, and the seed memories and thoughts queued meanwhile
        (agents/mind/interview.py; an evaluation's fresh minds)."""
        self.now = now
        self._roll_day()
        self._fold_queue()

    def decompose_afresh(self) -> None:
        """The next decision decomposes the plan's current item again (after the
        player played this resident). Call it between jobs."""
        self.today.pending = []

    def ask(self, schema: Any, prompt: str, purpose: str, fallback: Any = None, *,
            temperature: float | None = None, **values: Any) -> tuple[Any, str | None]:
        """One model call: ``(answer, None)``, or ``(fallback, why)`` when the model's
        answer is unusable ("invalid", "timeout", ...) or the day's budget (or a loop
        guard) is spent ("budget": no call is made). ``temperature``: a chooser's own
        (None: the configuration's)."""
        return ask_model(self.budget, schema, prompt, self._filled(values), purpose=purpose, resident=self.name,
                         now=self._now, fallback=fallback, temperature=temperature)

    def _filled(self, values: dict[str, Any]) -> dict[str, Any]:
        """A prompt's values: who the resident is, then the question's own."""
        p = self.persona
        return dict(full_name=p.name, first_name=p.first_name, age=p.age, traits=p.traits, summary=self.summary,
                    identity=self.identity, **values)

    def ask_beside(self, schema: Any, prompt: str, purpose: str, fallback: Any = None,
                   **values: Any) -> Beside[tuple[Any, str | None]] | Done[tuple[Any, str | None]]:
        """``ask`` on a thread of its own while the job goes on; ``result()`` gives its
        ``(answer, why)``. The budget counts the call here, on the job's thread, so the
        job's order decides what the budget allows, never the threads'; a call the
        budget withholds is ``ask``'s answer at once."""
        if not self.budget.allows(purpose):
            return Done(self.ask(schema, prompt, purpose, fallback, **values))
        self.budget.count(purpose)
        filled, now, asker, rank = self._filled(values), self._now, self.budget.asker, priority.current()

        def ask() -> tuple[Any, str | None]:
            with priority.ranked(rank):  # waits for the model as the job that asked it would
                return ask_model(asker, schema, prompt, filled, purpose=purpose, resident=self.name, now=now,
                                 fallback=fallback)

        return Beside(ask, name=f"{purpose} for {self.name}")

    def note_said(self, to: str, text: str, source: str) -> None:
        """Keep a line this resident said (to a resident or the visitor) for the inspector."""
        self.said.append({"time": self._now.isoformat() if self._now else None, "to": to, "text": text,
                          "source": source, "memory": grounding.memory_of(source)})
        del self.said[:-SAID_KEPT]

    def note_fallback(self, what: str, why: str) -> None:
        """Count a rule standing in for the model: "day plan: invalid answer"."""
        self.fallbacks[f"{what}: {pv.reason_of_failure(why)}"] += 1

    @staticmethod
    def sleeping(doing: str | None) -> bool:
        return bool(doing) and is_sleep(doing or "")

    def doing(self) -> str:
        return self.action.description if self.action else "just arriving"

    def arena_here(self, address: str | None) -> str:
        """The known arena of ``address`` or of the current action, else home."""
        for a in (address, self.action.address if self.action else None):
            if a and self.spatial.knows(self.spatial.arena_of(a)):
                return self.spatial.arena_of(a)
        return self.persona.home

    # ------------------------------------------------------------------ memories in
    def rate_waiting(self, force: bool = False) -> None:
        """The model's importance for what a rule rated first (agents/recall/perceive.py)."""
        rate_waiting(self, force)

    def queue_thought(self, text: str, importance: int = 8) -> None:
        with self._lock:
            self._queue.append((str(text), int(importance)))
            self._since_begin.append((str(text), int(importance)))

    def inner_voice(self, text: str, now: datetime | None = None, importance: int = 9) -> str:
        """The user as the resident's inner voice (paper 3.1.2): thread-safe. Stored
        at the next job as the resident's own high-importance thought ("I am going to
        ..."); the next decide replans from then on so the plan makes room for it.
        Returns the thought as stored."""
        thought = voice.first_person(text)
        if not thought:
            return ""
        with self._lock:
            self._queue.append((thought, int(importance)))
            self._since_begin.append((thought, int(importance)))
            self.directives.append(thought)
            self._dir_since_begin.append(thought)
        return thought

    def take_directives(self) -> list[str]:
        """The inner voice's thoughts the plan has not made room for yet, taken (thread-safe)."""
        with self._lock:
            got, self.directives = self.directives, []
        return got

    def _fold_queue(self) -> None:
        with self._lock:
            queued, self._queue = self._queue, []
        items: list[dict] = []
        if not self.seeded:
            # Each phrase of the seed description is a first memory (importance
            # by rule: they are who the resident is, not news).
            items += [dict(kind="thought", text=ph, importance=5, subject=self.name, source=pv.tag(pv.RULE, pv.SEED),
                           importance_source=pv.tag(pv.RULE, pv.SEED)) for ph in self.persona.phrases]
            self.seeded = True
        items += [dict(kind="thought", text=t, importance=imp, subject=self.name,
                       source=pv.GIVEN_THOUGHT,
                       importance_source=pv.tag(pv.RULE, "set with the thought")) for t, imp in queued]
        self.remember_many(items)

    # ------------------------------------------------------------------ the API
    def decide(self, situation: Situation) -> Decision:
        """The next decision: agents/mind/deciding.py's steps, in order."""
        self._begin(job_tag("decide", now=situation.now))
        self.now = situation.now
        self.action = situation.action
        self._roll_day()
        self._retry_embeddings()
        self._fold_queue()
        decision = deciding.decide(self, situation)
        self.publish()
        return decision

    def prepare(self, at: datetime, now: datetime) -> int:
        """Break the plan's chunk beginning at ``at`` into steps now, ahead of time
        (agents/planning/day.py ``prepare_chunk``); how many steps were added."""
        self._begin(job_tag("prepare", now=at))
        self.now = now
        self._roll_day()
        added = prepare_chunk(self, at)
        self.publish()
        return added

    def chunk_asks(self, at: datetime) -> bool:
        """Whether breaking the plan's chunk at ``at`` into steps would ask the model
        (agents/planning/day.py ``chunk_asks``). Reads the plan itself: call it only while no job
        of this mind runs (the simulation asks while the resident's key is free)."""
        return chunk_asks(self, at)

    def utter(self, conversation: Conversation, now: datetime, partner_doing: str) -> Utterance:
        self._begin(job_tag("utter", conversation=conversation))
        self.now = now
        self._roll_day()
        self._retry_embeddings()
        self._fold_queue()
        u = converse.utter(self, conversation, now, partner_doing, self.doing())
        self.note_said(conversation.other(self.name), u.text, u.source)
        self.publish()
        return u

    def welcome(self, guest: str, now: datetime) -> Utterance | None:
        """The host's greeting to a guest who said they would come to the gathering it hosts now
        (agents/planning/recaps.py ``welcome``), or None. Reads only: remember it with
        ``end_conversation``."""
        return recaps.welcome(self, guest, now)

    def end_conversation(self, conversation: Conversation, now: datetime) -> list[Arrangement]:
        """Remember a finished conversation; the plans it made (the town's feed shows them)."""
        self._begin(job_tag("end_conversation", conversation=conversation, now=now))
        self.now = now
        self._roll_day()
        arrangements = converse.end_conversation(self, conversation, now)
        for a in arrangements:
            converse.take_arrangement(self, a, conversation.other(self.name))
        consider_news(self)  # an event for later today, just heard of: the chooser may go
        self.publish()
        return arrangements

    @classmethod
    def restore(cls, persona: Persona, gateway: Asker, embedder: Embedder, state: dict,
                settings: MindSettings | None = None) -> Mind:
        """A mind built with its services, then restored from ``state`` (``to_state``'s)."""
        mind = cls(persona, gateway, embedder, settings)
        mind.from_state(state)
        return mind


if TYPE_CHECKING:
    _implements: type[ResidentMind] = Mind  # Mind has every member the game may ask of a mind
