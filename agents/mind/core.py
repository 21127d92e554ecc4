"""A resident's mind: ties memory, perception, reflection, planning, reacting
and dialogue together behind the small API the simulation calls (contract
section 10). Methods run on the worker pool, at most one job per mind at a
time; inspect(), queue_thought() and inner_voice() may be called from any thread.

Each part of the architecture is a module that takes the mind as a narrow
protocol (agents/model/services.py): perceive, reflect, day, decompose, react, converse,
inner_voice, and deciding (a decide job's steps, in their order). The state is
grouped alike: ``today`` (agents/planning/today.py), ``social`` (agents/talk/converse.py),
``senses`` (agents/recall/perceive.py), ``budget`` (agents/model/budget.py), each with the contract of
agents/support/stateful.py; the mind's save is their states in one flat dict (the shape saves always had)."""
from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime
from typing import Any

import numpy as np

from agents.explain import provenance as pv
from agents.explain import why
from agents.mind import deciding
from agents.mind.inspection import Inspection, SaidLine
from agents.mind.job_tags import job_tag
from agents.mind.owed import OwedExchanges
from agents.model.budget import Budget
from agents.model.services import Asker, Embedder
from agents.planning import inner_voice as voice
from agents.planning import plan as planning
from agents.planning.arrangements import Arrangement
from agents.planning.day import chunk_asks, consider_news, prepare_chunk
from agents.planning.object_use import is_sleep
from agents.planning.today import Today, planned_step
from agents.prompts import render
from agents.recall import grounding
from agents.recall.memory import EmbeddingMismatch, MemoryNode, MemoryStream
from agents.recall.perceive import Senses, rate_waiting
from agents.recall.spatial import SpatialMemory
from agents.residents.mind_settings import MAX_TOKENS, MindSettings
from agents.residents.persona import Persona
from agents.support.types import Action, Conversation, Decision, Situation, Utterance
from agents.talk import converse

log = logging.getLogger(__name__)

SAID_KEPT = 6  # lines kept for the inspector
StateBuilder = Callable[[], dict]


class Mind:
    """One resident's mind: the paper's memory stream, retrieval, reflection, planning,
    reacting and dialogue, asked for a decision by the simulation (see the module)."""

    def __init__(self, persona: Persona, gateway: Asker, embedder: Embedder, settings: MindSettings | None = None):
        # Cheap: no model call, no embedding; memories are seeded in the first job.
        self.persona = persona
        self.name = persona.name
        self.embedder = embedder
        self.settings = settings or MindSettings()
        self.budget = Budget(gateway, self.settings.loop_guards)  # every model call of the mind goes through it
        self._lock = threading.Lock()  # guards _queue, directives, the since-begin lists and _snapshot
        self._job_tag: tuple | None = None  # the job that began last (see snapshot())
        self._before: StateBuilder | None = None  # a capture of this mind as that job began
        self._since_begin: list[tuple[str, int]] = []  # thoughts queued since then
        self._queue: list[tuple[str, int]] = []
        self.directives: list[str] = []  # inner-voice thoughts the plan has not made room for yet (under _lock)
        self._dir_since_begin: list[str] = []
        self._snapshot = Inspection()  # what inspect() gives (published at the end of each job)
        self.owed = OwedExchanges()  # exchanges with the visitor not yet kept (agents/mind/owed.py)
        self._plan_view: tuple[date | None, list, list] = (None, [], [])  # (day, plan, pending), at publish
        self._memory: MemoryStream | None = None
        self.spatial = SpatialMemory(persona.home.split(":")[0])
        self.spatial.seed(persona)
        self.senses = Senses(self.settings.retention)
        self.social = converse.Social()
        self.today = Today()
        self.identity = f"{persona.name}, age {persona.age}; {persona.traits}."
        self.summary = f"{self.identity} {'; '.join(persona.phrases[:3])}."
        self.summary_day: date | None = None
        self.yesterday = "this is the first day of the story"
        self._now: datetime | None = None
        self.action: Action | None = None
        self.seeded = False
        self.unrated: list[int] = []  # memory ids a rule rated, waiting for the model's rating
        self.unembedded: list[dict] = []  # memories whose embedding failed: stored on a later try
        self.rejected: Counter = Counter()  # answers (or parts) that parsed but failed validation
        self.fallbacks: Counter = Counter()  # "what: why" -> how often a rule stood in for the model
        # The last lines this resident said, with where each came from (the inspector shows the
        # memory a grounded line was chosen from).
        self.said: list[dict] = []
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
    def stream(self) -> MemoryStream | None:
        """The memory stream if it exists yet (never creates it: safe for a reader beside a job)."""
        return self._memory

    @property
    def memory(self) -> MemoryStream:
        if self._memory is None:
            self._memory = MemoryStream(self.embedder.model_name, self.embedder.dim)
        return self._memory

    @property
    def plan(self) -> list[planning.PlanItem]:  # today.plan
        return self.today.plan

    @plan.setter
    def plan(self, items: list[planning.PlanItem]) -> None:
        self.today.plan = items

    @property
    def pending(self) -> list[Action]:  # today.pending, for game/runs/session.py until it calls decompose_afresh()
        return self.today.pending

    @pending.setter
    def pending(self, actions: list[Action]) -> None:
        self.today.pending = actions

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
        p = self.persona
        base = dict(full_name=p.name, first_name=p.first_name, age=p.age, traits=p.traits, summary=self.summary,
                    identity=self.identity)
        text = render(prompt, **{**base, **values})
        record = why.begin(self.gateway, self.name, self._now, purpose, prompt)  # the decision record, if kept
        got = self.budget.ask_traced(schema, text, purpose=purpose, resident=self.name,
                                     fallback=fallback if fallback is not None else (lambda: None),
                                     max_tokens=MAX_TOKENS.get(purpose, 160), temperature=temperature)
        why.end(record, got)
        return got

    def note_said(self, to: str, text: str, source: str) -> None:
        """Keep a line this resident said (to a resident or the visitor) for the inspector."""
        self.said.append({"time": self._now.isoformat() if self._now else None, "to": to, "text": text,
                          "source": source, "memory": grounding.memory_of(source)})
        del self.said[:-SAID_KEPT]

    def note_fallback(self, what: str, why: str) -> None:
        """Count a rule standing in for the model: "day plan: invalid answer"."""
        self.fallbacks[f"{what}: {pv.reason_of_failure(why)}"] += 1

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    def retrieve(self, query: str, k: int | None = None) -> list[MemoryNode]:
        """The paper's retrieval; nothing (and a note in the log) when the query cannot be
        embedded: a prompt without memories beats a resident that stops."""
        if len(self.memory) == 0:
            return []
        try:
            vec = self.embed([query])[0]
        except Exception as err:  # noqa: BLE001 - an embedding server down must not stop the mind
            log.warning("%s: retrieval without memories, the query could not be embedded (%s)", self.name, err)
            self.fallbacks["retrieval: embedding failed"] += 1
            return []
        return self.memory.retrieve(vec, self.now, k=k or self.settings.retrieve_k,
                                    char_budget=self.settings.retrieve_chars, query_text=query, **self._scoring())

    def _scoring(self) -> dict[str, Any]:
        """The paper's retrieval score as this resident's settings weigh it."""
        s = self.settings
        return dict(decay=s.recency_decay, weights=(s.w_recency, s.w_importance, s.w_relevance))

    def search(self, queries: list[str], now: datetime, *, k: int, char_budget: int,
               touch: bool = True, kinds: tuple[str, ...] | None = None) -> list[MemoryNode]:
        """Retrieval for several queries, embedded in one batch, their results merged
        in order; ``touch=False`` leaves last-access times as they are (an interview).
        Never creates the memory stream. ``kinds``: only memories of these kinds."""
        mem = self._memory
        if mem is None or len(mem) == 0:
            return []
        seen: dict[int, MemoryNode] = {}
        for q, v in zip(queries, self.embed(queries)):
            for x in mem.retrieve(v, now, k=k, char_budget=char_budget, touch=touch, kinds=kinds, query_text=q,
                                  **self._scoring()):
                seen.setdefault(x.id, x)
        return list(seen.values())

    def memory_text(self, node_id: int) -> str | None:
        """The description of memory ``node_id``, or None (a read-only peek for panels:
        never creates the stream, never raises)."""
        mem = self._memory
        try:
            node = mem.get(int(node_id)) if mem is not None else None
        except (TypeError, ValueError, IndexError):
            return None
        return node.description if node is not None else None

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
    def remember(self, kind: str, text: str, importance: int, **fields: Any) -> MemoryNode | None:
        """Store one memory (see remember_many); the node, or None when it waits for
        its embedding."""
        got = self.remember_many([dict(kind=kind, text=text, importance=importance, **fields)])
        return got[0] if got else None

    def remember_many(self, items: list[dict]) -> list[MemoryNode]:
        """Store memories, embedded in one batch. ``items``: dicts of kind, text,
        importance and MemoryStream.add's keywords, plus ``rate=True`` for an importance
        a rule set that the model should rate later (batched with observations). When
        the embedding fails, nothing is lost: they wait in ``unembedded`` and are
        stored by a later job."""
        items = [dict(x, created=x.get("created") or self.now.isoformat()) for x in items]
        if not items:
            return []
        try:
            vecs = self.embed([x["text"] for x in items])
        except Exception as err:  # noqa: BLE001 - an embedding server down must not lose memories
            log.warning("%s: embedding failed (%s); %d memories wait for a retry", self.name, err, len(items))
            self.unembedded.extend(items)
            return []
        nodes = []
        for x, v in zip(items, vecs):
            x = dict(x)
            rate_later = x.pop("rate", False)
            kind, text, importance = x.pop("kind"), x.pop("text"), x.pop("importance")
            created = datetime.fromisoformat(x.pop("created"))
            node = self.memory.add(kind, text, created, importance, v, **x)
            if rate_later:
                self.unrated.append(node.id)
            nodes.append(node)
        return nodes

    def _retry_embeddings(self) -> None:
        if self.unembedded:
            waiting, self.unembedded = self.unembedded, []
            self.remember_many(waiting)

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
                       source=pv.tag(pv.RULE, "a thought given to the resident"),
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

    def steps_end(self) -> datetime | None:
        """When the steps decided for the chunk at hand run out (from the last publish,
        any thread), or None when none wait."""
        with self._lock:
            _, _, pending = self._plan_view
        return pending[-1].end if pending else None

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

    def end_conversation(self, conversation: Conversation, now: datetime) -> Arrangement | None:
        """Remember a finished conversation; the plan it made, if any (the town's feed shows it)."""
        self._begin(job_tag("end_conversation", conversation=conversation, now=now))
        self.now = now
        self._roll_day()
        arrangement = converse.end_conversation(self, conversation, now)
        if arrangement is not None:
            converse.take_arrangement(self, arrangement, conversation.other(self.name))
        consider_news(self)  # an event for later today, just heard of: the chooser may go
        self.publish()
        return arrangement

    # ------------------------------------------------------------------ looking in
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

    # ------------------------------------------------------------------ saving
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

    @classmethod
    def restore(cls, persona: Persona, gateway: Asker, embedder: Embedder, state: dict,
                settings: MindSettings | None = None) -> Mind:
        """A mind built with its services, then restored from ``state`` (``to_state``'s)."""
        mind = cls(persona, gateway, embedder, settings)
        mind.from_state(state)
        return mind
