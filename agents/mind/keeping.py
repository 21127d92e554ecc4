"""A mind as other threads and saves see it: what the last job published for the panels
(``publish``, ``inspect``, ``planned_action``, ``steps_end``), the capture taken as each
job begins (``begin_job``), a save's consistent picture while a job runs (``snapshot``)
and the state round trip (``to_state``, ``from_state``: the contract of
agents/support/stateful.py). All of it works on copies under the mind's lock, beside
the mind's jobs. The mind's whole state is set up here (``Keeping.__init__``), with which
thread may touch what; core.py's ``Mind`` is a ``Keeping``, and what a job does is there."""
from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.mind.inspection import Inspection, SaidLine
from agents.mind.owed import OwedExchanges
from agents.model.budget import Budget
from agents.model.services import Asker, Embedder
from agents.planning.today import Today, planned_step
from agents.recall.memory import EmbeddingMismatch, MemoryStream
from agents.recall.perceive import Senses
from agents.recall.spatial import SpatialMemory
from agents.residents.mind_settings import MindSettings
from agents.residents.persona import Persona
from agents.support.types import Action
from agents.talk.converse import Social

SAID_KEPT = 6  # lines kept for the inspector
StateBuilder = Callable[[], dict]


class Keeping:
    """What other threads and saves see of a mind (see the module)."""

    def __init__(self, persona: Persona, gateway: Asker, embedder: Embedder, settings: MindSettings | None = None):
        """A mind's whole state, in one place. Threads: a job of the mind (on the worker pool,
        one at a time per mind) owns all of it while it runs; any other thread (the window,
        the simulation, a save) reads only what ``publish`` copied (``_snapshot``,
        ``_plan_view``) and adds only to what ``_lock`` guards (the queue of thoughts, the
        directives), both under ``_lock``."""
        # who it is and what it uses
        self.persona = persona
        self.name = persona.name
        self.embedder = embedder
        self.settings = settings or MindSettings()
        self.budget = Budget(gateway, self.settings.loop_guards)  # every model call of the mind goes through it
        # what other threads touch, under _lock
        self._lock = threading.Lock()
        self._queue: list[tuple[str, int]] = []  # thoughts queued by any thread, folded in by the next job
        self.directives: list[str] = []  # inner-voice thoughts the plan has not made room for yet
        self._since_begin: list[tuple[str, int]] = []  # thoughts queued since the job at hand began ...
        self._dir_since_begin: list[str] = []  # ... and directives (a save's snapshot adds them back)
        self._job_tag: tuple | None = None  # the job that began last (see snapshot())
        self._before: StateBuilder | None = None  # a capture of this mind as that job began
        self._snapshot = Inspection()  # what inspect() gives (published at the end of each job)
        self._plan_view: tuple[date | None, list, list] = (None, [], [])  # (day, plan, pending), at publish
        self.owed = OwedExchanges()  # exchanges with the visitor not yet kept (its own lock: agents/mind/owed.py)
        # what only the mind's jobs touch
        self._memory: MemoryStream | None = None  # made, and seeded, by the first job
        self.spatial = SpatialMemory(persona.home.split(":")[0])
        self.spatial.seed(persona)
        self.senses = Senses(self.settings.retention)
        self.social = Social()
        self.today = Today()
        self.identity = f"{persona.name}, age {persona.age}; {persona.traits}."
        self.summary = f"{self.identity} {'; '.join(persona.phrases[:3])}."
        self.summary_day: date | None = None
        self.yesterday = "this is the first day of the story"
        self._now: datetime | None = None  # the sim time of the job at hand
        self.action: Action | None = None
        self.seeded = False
        self.unrated: list[int] = []  # memory ids a rule rated, waiting for the model's rating
        self.unembedded: list[dict] = []  # memories whose embedding failed: stored on a later try
        self.rejected: Counter = Counter()  # answers (or parts) that parsed but failed validation
        self.fallbacks: Counter = Counter()  # "what: why" -> how often a rule stood in for the model
        self.said: list[dict] = []  # the last lines it said, with where each came from (the inspector)

    if TYPE_CHECKING:
        @property
        def planning_mode(self) -> str: ...

        @property
        def grounded(self) -> bool: ...

    def steps_end(self) -> datetime | None:
        """When the steps decided for the chunk at hand run out (from the last publish,
        any thread), or None when none wait."""
        with self._lock:
            _, _, pending = self._plan_view
        return pending[-1].end if pending else None

    def publish(self) -> None:
        """Copy what panels and timelines show (agents/mind/inspection.py), under the lock, at
        the end of a job (and of jobs other modules run on this mind)."""
        mem = self._memory
        nodes = mem.recent(20) if mem else []
        refl = mem.recent(10, kinds=("reflection",)) if mem else []
        a, today, budget = self.action, self.today, self.budget
        snap = Inspection(
            name=self.name,
            now=self._now,
            summary=self.summary,
            plan=tuple(x.line() for x in today.plan),
            plan_sources=tuple(x.source for x in today.plan),
            arrangements=tuple(x.line() for x in today.arrangements),
            planning=self.planning_mode,
            grounded=self.grounded,
            said=tuple(SaidLine.of(x) for x in self.said),
            action=None if a is None else replace(a),
            pending=tuple(f"{x.start:%H:%M} {x.description}" for x in today.pending),
            memories=tuple(replace(x, evidence=list(x.evidence)) for x in nodes),
            reflections=tuple(replace(x, evidence=list(x.evidence)) for x in refl),
            memory_count=len(mem) if mem else 0,
            known_people=tuple(sorted(self.social.known_people)),
            calls_today=budget.calls_today,
            calls_by_purpose=dict(budget.calls),
            budget=budget.limit,
            budget_hit=budget.spent_at,
            budget_fallbacks=dict(budget.skipped),
            rejected_answers=dict(self.rejected),
            fallbacks=dict(self.fallbacks),
            waiting_for_embedding=len(self.unembedded),
            places_known=len(self.spatial.arenas()),
        )
        view = (today.planned_for, list(today.plan), [replace(x) for x in today.pending])
        with self._lock:
            self._snapshot = snap
            self._plan_view = view

    def planned_action(self, t: datetime) -> Action | None:
        """What the resident's own plan has it do at ``t``, from the last publish (any
        thread: the simulation asks while the mind is still thinking; agents/planning/today.py)."""
        with self._lock:
            day, plan, pending = self._plan_view
        return planned_step(day, plan, pending, t)

    def inspect(self) -> Inspection:
        """What the last job published (any thread; frozen, so readers share it)."""
        with self._lock:
            return self._snapshot

    def _begin(self, tag: tuple) -> None:
        """At the start of each job: remember the mind as it is now (a cheap
        capture) and which job this is, so a save taken while the job runs uses
        this state and has the job asked again after loading."""
        with self._lock:
            self._before = self._capture()
            self.owed.begin()
            self._job_tag = tag
            self._since_begin = []
            self._dir_since_begin = []

    def begin_job(self, tag: tuple) -> None:
        """For jobs other modules run on this mind (the visitor's chat: call it
        first, with a tag such as ``job_tag("respond")``, then ``start_turn(now)``),
        so a save taken meanwhile sees the mind as it was before the job."""
        self._begin(tag)

    def snapshot(self, in_flight: Any = None) -> StateBuilder:
        """A consistent picture of this mind for a save, taken on the main thread in about a
        millisecond (3000 memories); returns a zero-argument callable that builds
        ``to_state()``'s dict (on any thread, e.g. the save writer's). ``in_flight``: the
        ``job_tag`` of the simulation's job for this mind not applied yet (or a predicate
        over tags; None: none). If that job has begun (running, or finished with its
        result unread), the capture from just before it began is used, so the saved mind
        and world agree and the job is asked again after loading; if not, the mind is idle
        and captured as it is. Keeping an exchange (agents/mind/owed.py): before it while it runs."""
        with self._lock:
            keeping, owed, owed_changed = self.owed.view(self._job_tag)
            begun = in_flight is not None and self._job_tag is not None and (
                in_flight(self._job_tag) if callable(in_flight) else self._job_tag == in_flight)
            if self._before is not None and (keeping or (begun and keeping is None)):
                before, extra, extra_dir = self._before, [list(x) for x in self._since_begin], [*self._dir_since_begin]
                if not extra and not owed_changed:
                    return before

                def with_thoughts() -> dict:  # thoughts queued and exchanges owed meanwhile are not lost
                    d = before()
                    d["queue"] = d["queue"] + extra
                    d["directives"] = list(d.get("directives") or []) + [x for x in extra_dir
                                                                          if x not in (d.get("directives") or [])]
                    d["owed"] = owed
                    return d
                return with_thoughts
            for attempt in range(3):
                try:
                    return self._capture()
                except RuntimeError:  # a job from elsewhere (an interview) changed a set meanwhile
                    if attempt == 2:
                        raise
            raise AssertionError("unreachable")

    def _capture(self) -> StateBuilder:
        """Copy every small part now (plain data) and the memory stream's cheap
        snapshot; the returned callable assembles the dict. The caller holds
        self._lock or is the mind's own job."""
        iso = lambda t: t.isoformat() if t else None  # noqa: E731
        small = {
            "spatial": self.spatial.to_state(),
            **self.today.to_state(),
            **self.social.to_state(),
            **self.senses.to_state(),
            **self.budget.to_state(),
            "unrated": list(self.unrated),
            "unembedded": [dict(x) for x in self.unembedded],
            "fallbacks": dict(self.fallbacks),
            "rejected": dict(self.rejected),
            "action": self.action.to_dict() if self.action else None,
            "summary": self.summary, "summary_day": iso(self.summary_day), "yesterday": self.yesterday,
            "seeded": self.seeded, "queue": [list(x) for x in self._queue], "now": iso(self._now),
            "directives": list(self.directives),
            "said": [dict(x) for x in self.said],
            "owed": self.owed.copy(),
        }
        mem = self._memory
        if mem is not None:
            memory = mem.snapshot()
        else:
            model, dim = self.embedder.model_name, int(self.embedder.dim)

            def memory() -> dict:
                return {"model": model, "dim": dim, "nodes": [],
                        "embeddings": np.zeros((0, dim), dtype=np.float32), "importance_since_reflection": 0.0}

        def build() -> dict:
            return {"memory": memory(), **small}
        return build

    def to_state(self) -> dict:
        """Everything to rebuild this mind (call between jobs): plain data plus
        the memory stream's embedding matrix (a read-only numpy array)."""
        with self._lock:
            build = self._capture()
        return build()

    def from_state(self, state: dict) -> None:
        """The state contract's ``from_state`` (agents/support/stateful.py): this mind, built with
        its persona and services, continues where ``to_state`` left off. Raises
        EmbeddingMismatch when the saved memories were embedded by another model."""
        saved = state["memory"]
        model, dim = saved["model"], int(saved["dim"])
        if model != self.embedder.model_name or dim != self.embedder.dim:
            raise EmbeddingMismatch(
                f"{self.name}'s saved memories were embedded with {model} ({dim} dims); "
                f"the embedder now is {self.embedder.model_name} ({self.embedder.dim} dims)")
        dt = lambda v: datetime.fromisoformat(v) if v else None  # noqa: E731
        mem = MemoryStream(model, dim)
        mem.from_state(saved)
        self._memory = mem
        self.spatial.from_state(state["spatial"])
        self.today.from_state(state)
        self.social.from_state(state)
        self.senses.from_state(state)
        self.budget.from_state(state)
        self.unrated = [int(x) for x in state.get("unrated") or [] if 0 <= int(x) < len(mem)]
        self.unembedded = [dict(x) for x in state.get("unembedded") or []]
        self.fallbacks = Counter(state.get("fallbacks") or {})
        self.rejected = Counter(state.get("rejected") or {})
        self.action = Action.from_dict(state["action"]) if state["action"] else None
        self.summary, self.yesterday = state["summary"], state["yesterday"]
        self.summary_day = date.fromisoformat(state["summary_day"]) if state["summary_day"] else None
        self.seeded = state["seeded"]
        said = state.get("said")  # saves from before grounding have none
        self.said = [dict(x) for x in said if isinstance(x, dict)][-SAID_KEPT:] if isinstance(said, list) else []
        with self._lock:
            self._queue = [(str(x[0]), int(x[1])) for x in state["queue"]]
            self.directives = [str(x) for x in state.get("directives") or []]
            self.owed.restore(state.get("owed"))  # kept by the loader (agents/mind/interview.py keep_owed)
        self._now = dt(state["now"])
        self.budget.now = self._now
        self.publish()
