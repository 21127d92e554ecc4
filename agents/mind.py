"""A resident's mind: ties memory, perception, reflection, planning, reacting
and dialogue together behind the small API the simulation calls (contract
section 10). Methods run on the worker pool, at most one job per mind at a
time; inspect() and queue_thought() may be called from any thread."""
from __future__ import annotations

import copy
import json
import threading
from collections import Counter, deque
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from agents import converse
from agents import plan as planning
from agents.memory import EmbeddingMismatch, MemoryStream
from agents.perceive import perceive
from agents.persona import Persona
from agents.reflect import reflect, should_reflect
from agents.settings import MindSettings
from agents.spatial import SpatialMemory
from agents.types import Action, Conversation, Decision, Situation, Utterance

MAX_TOKENS = {"day_plan": 400, "decompose": 360, "utterance": 90, "reflect_insights": 240, "summary": 110,
              "relationship": 90, "chat_summary": 60, "reflect_questions": 120, "react": 50, "talk_decision": 12}


class Summary(BaseModel):
    summary: str  # truncated by the caller (a maxLength grammar is slow)


class React(BaseModel):
    react: bool
    activity: str = ""
    minutes: int = Field(default=10, ge=5, le=60)


class Mind:
    def __init__(self, persona: Persona, gateway, embedder, settings: MindSettings | None = None):
        # Cheap: no model call, no embedding; memories are seeded in the first job.
        self.persona = persona
        self.name = persona.name
        self.gateway = gateway
        self.embedder = embedder
        self.settings = settings or MindSettings()
        self._lock = threading.Lock()  # guards _queue and _snapshot (shared with the main thread)
        self._job_tag: tuple | None = None  # the job that began last (see snapshot())
        self._before = None  # a capture of this mind as that job began
        self._since_begin: list[tuple[str, int]] = []  # thoughts queued since then
        self._queue: list[tuple[str, int]] = []
        self.directives: list[str] = []  # inner-voice thoughts the plan has not made room for yet (under _lock)
        self._dir_since_begin: list[str] = []
        self._snapshot: dict = {}
        self._memory: MemoryStream | None = None
        self.spatial = SpatialMemory(persona.home.split(":")[0])
        self.spatial.seed(persona)
        self.retained: deque = deque(maxlen=self.settings.retention)
        self.object_states: dict[str, str] = {}
        self.known_people: set[str] = set()
        self.last_talked: dict[str, datetime] = {}
        self.rel_cache: dict = {}
        self.chats_today: list[str] = []
        self.plan: list[planning.PlanItem] = []
        self.plan_day = None
        self.pending: list[Action] = []  # decomposed actions of the chunk at hand
        self.identity = f"{persona.name}, age {persona.age}; {persona.traits}."
        self.summary = f"{self.identity} {'; '.join(persona.phrases[:3])}."
        self.summary_day = None
        self.yesterday = "this is the first day of the story"
        self.now: datetime | None = None
        self.action: Action | None = None
        self.last_react: datetime | None = None
        self.seeded = False
        self.calls_day = None
        self.calls: Counter = Counter()  # model calls today, per purpose
        self.skipped: Counter = Counter()  # calls the budget replaced by a fallback
        self.rejected: Counter = Counter()  # answers that parsed but failed validation
        self.calls_per_day: dict[str, int] = {}  # history: date -> calls
        self.calls_history: dict[str, dict] = {}  # history: date -> calls per purpose
        self._publish()

    # ------------------------------------------------------------------ plumbing
    @property
    def memory(self) -> MemoryStream:
        if self._memory is None:
            self._memory = MemoryStream(self.embedder.model_name, self.embedder.dim)
        return self._memory

    def _roll_day(self) -> None:
        day = self.now.date()
        if day != self.calls_day:
            if self.calls_day is not None:
                self.calls_per_day[self.calls_day.isoformat()] = sum(self.calls.values())
                self.calls_history[self.calls_day.isoformat()] = dict(self.calls)
            self.calls_day, self.calls, self.skipped = day, Counter(), Counter()

    def ask(self, schema, prompt: str, purpose: str, fallback, **values):
        """One model call within the day's budget; past it, the fallback without a call."""
        s = self.settings
        if sum(self.calls.values()) >= s.calls_per_day or self.calls[purpose] >= s.purpose_caps.get(purpose, 10**9):
            self.skipped[purpose] += 1
            return fallback() if callable(fallback) else fallback
        self.calls[purpose] += 1
        from agents.prompts import render

        p = self.persona
        base = dict(full_name=p.name, first_name=p.first_name, age=p.age, traits=p.traits, summary=self.summary)
        text = render(prompt, **{**base, **values})
        return self.gateway.ask(schema, text, purpose=purpose, resident=self.name, fallback=fallback,
                                max_tokens=MAX_TOKENS.get(purpose, 160))

    def embed(self, texts: list[str]):
        return self.embedder.embed(list(texts))

    def retrieve(self, query: str, k: int | None = None):
        if len(self.memory) == 0:
            return []
        s = self.settings
        return self.memory.retrieve(self.embed([query])[0], self.now, k=k or s.retrieve_k,
                                    char_budget=s.retrieve_chars, decay=s.recency_decay,
                                    weights=(s.w_recency, s.w_importance, s.w_relevance))

    @staticmethod
    def sleeping(doing: str | None) -> bool:
        return bool(doing) and planning.is_sleep(doing)

    def _doing(self) -> str:
        return self.action.description if self.action else "just arriving"

    def _arena_here(self, address: str | None) -> str:
        for a in (address, self.action.address if self.action else None):
            if a and self.spatial.knows(self.spatial.arena_of(a)):
                return self.spatial.arena_of(a)
        return self.persona.home

    # ------------------------------------------------------------------ memories in
    def queue_thought(self, text: str, importance: int = 8) -> None:
        with self._lock:
            self._queue.append((str(text), int(importance)))
            self._since_begin.append((str(text), int(importance)))

    def inner_voice(self, text: str, now: datetime | None = None, importance: int = 9) -> str:
        """The user as the resident's inner voice (paper 3.1.2): thread-safe. Stored
        at the next job as the resident's own high-importance thought ("I am going to
        ..."); the next decide replans from then on so the plan makes room for it.
        Returns the thought as stored."""
        thought = planning.first_person(text)
        if not thought:
            return ""
        with self._lock:
            self._queue.append((thought, int(importance)))
            self._since_begin.append((thought, int(importance)))
            self.directives.append(thought)
            self._dir_since_begin.append(thought)
        return thought

    def _take_directives(self) -> list[str]:
        with self._lock:
            got, self.directives = self.directives, []
        return got

    def _follow_directives(self, directives: list[str], address: str | None, replan: bool) -> None:
        """Make room in today's plan for each directive: the plan asked again from
        now with the directives in the prompt (``replan``), and where the model's
        plan still does not mention one, an item for it in the next free slot."""
        now = self.now
        if replan:
            self.plan = planning.replan_from_now(self, now, directives)
        for d in directives:
            if planning.mentions(self.plan, d, after=now) is not None:
                continue
            text = planning.directive_activity(d, self.persona.first_name)
            slot = planning.free_slot(self.plan, now)
            where = planning.place_from_text(text, self.spatial, self.persona) or (
                slot.address if slot is not None else self._arena_here(address))
            self.plan = planning.insert_directive(self.plan, now, text, where)
        self.pending = []  # the chunk at hand is decomposed afresh

    def _fold_queue(self) -> None:
        with self._lock:
            queued, self._queue = self._queue, []
        items: list[tuple[str, int]] = []
        if not self.seeded:
            # Each phrase of the seed description is a first memory (importance
            # by rule: they are who the resident is, not news).
            items += [(ph, 5) for ph in self.persona.phrases]
            self.seeded = True
        items += queued
        if not items:
            return
        vecs = self.embed([t for t, _ in items])
        for (t, imp), v in zip(items, vecs):
            self.memory.add("thought", t, self.now, imp, v, subject=self.name)

    # ------------------------------------------------------------------ the day
    def _refresh_summary(self) -> None:
        n = self.name
        seen: dict[int, object] = {}
        for q in (f"{n}'s core characteristics", f"{n}'s current daily occupation",
                  f"{n}'s feeling about recent progress in life"):
            for x in self.retrieve(q, k=4):
                seen.setdefault(x.id, x)
        memories = "\n".join(f"- {x.description}" for x in list(seen.values())[:10]) or "- (nothing yet)"
        core = "; ".join(self.persona.phrases[:2])
        fb = Summary(summary="; ".join(self.persona.phrases[2:4]))
        got = self.ask(Summary, "summary", "summary", fb, memories=memories)
        text = planning.clean_text(got.summary, 200) or fb.summary
        # Identity and occupation stay the seed's words; the model adds current concerns,
        # so a weak model's slip cannot erase who the resident is.
        self.summary = f"{self.identity} {core}. Lately: {text}"
        self.summary_day = self.now.date()

    def _needs_day_plan(self) -> bool:
        if self.plan_day == self.now.date():
            return False
        wake = self.now.replace(hour=self.persona.wake_hour, minute=0, second=0, microsecond=0)
        return self.now >= wake or not self.plan  # wake-up, or the story starts

    def _new_day(self, directives=()) -> None:
        if self.plan:
            self.yesterday = planning.yesterday_summary(self.plan, self.chats_today)
        self.chats_today = []
        self._refresh_summary()
        day = self.now.replace(hour=self.persona.wake_hour, minute=0, second=0, microsecond=0)
        routine = planning.routine(self.persona, self.spatial, day, self.settings)
        # The model rewords the routine's slots; unusable slots keep the routine's words.
        self.plan = planning.make_day_plan(self, day, routine, directives)
        self.plan_day = self.now.date()
        self.pending = []
        if directives:
            self._follow_directives(list(directives), None, replan=False)
        text = f"{self.name}'s plan for {self.now:%A %B %d}: " + "; ".join(x.line() for x in self.plan)
        self.memory.add("plan", text, self.now, 5, self.embed([text])[0], subject=self.name)

    def _sleep_action(self, until: datetime) -> Action:
        bed = planning.pick_object(self.spatial, self.persona.home, "sleep")
        minutes = max(1, int((until - self.now).total_seconds() // 60))
        return planning.make_action(self.spatial, "sleeping", bed, self.now, minutes)

    def _next_action(self) -> Action:
        now = self.now
        # Drop queued actions whose time has passed; start the next one now.
        while self.pending and self.pending[0].end <= now:
            self.pending.pop(0)
        if self.pending:
            a = self.pending.pop(0)
            a.duration_min = max(1, int((a.end - now).total_seconds() // 60))
            a.start = now
            return a
        item = planning.item_at(self.plan, now)
        if item is None:  # before the day's first item (or after the last): asleep
            later = [x.start for x in self.plan if x.start > now]
            wake = now.replace(hour=self.persona.wake_hour, minute=0, second=0, microsecond=0)
            if wake <= now:
                wake += timedelta(days=1)
            return self._sleep_action(min(later) if later else wake)
        if planning.is_sleep(item.description):
            return self._sleep_action(item.end)  # no call to decompose a night
        end = planning.chunk_end(item, now)
        minutes = int((end - now).total_seconds() // 60)
        if minutes < 15:
            acts = planning.fallback_actions(self.spatial, item, now, end)  # too short to ask about
        else:
            acts = self._decompose(item, now, end, minutes)
        self.pending = acts[1:]
        return acts[0]

    def _decompose(self, item, start: datetime, end: datetime, minutes: int) -> list[Action]:
        return planning.decompose(self, item, start, end, minutes)  # validated, with persona fallbacks

    # ------------------------------------------------------------------ reacting
    def _react(self, salient, address: str) -> Decision | None:
        s = self.settings
        # An object in a state nobody's ordinary use explains (a world edit: "the stove
        # is burning") always gets a reaction at that object, throttle or not.
        urgent = [e for e in salient if ":" in e.subject and e.subject.count(":") >= 3
                  and planning.unusual_state(e.object)]
        if not urgent and self.last_react and self.now - self.last_react < timedelta(minutes=s.react_interval_min):
            return None  # throttled: most perceptions don't deserve a second thought
        self.last_react = self.now
        salient = urgent + [e for e in salient if e not in urgent]
        observed = "; ".join(e.description for e in salient[:3])
        mems = "\n".join(f"- {x.description}" for x in self.retrieve(observed, k=4)) or "- (nothing)"
        got = self.ask(React, "react", "react", React(react=False), time=f"{self.now:%H:%M}",
                       doing=self._doing(), observed=observed, memories=mems)
        activity = planning.activity.clean_activity(got.activity, self.name) if got.react else None
        if urgent:
            ev = urgent[0]
            obj = ev.subject.rsplit(":", 1)[-1]
            if not activity or obj.split()[-1].lower() not in activity.lower():
                if got.react:
                    self.rejected["react"] += 1  # junk, or not about the thing on fire: the rule acts
                activity = f"dealing with the {obj} ({ev.object})"
                minutes = 10
            else:
                minutes = got.minutes
            arena = ":".join(ev.subject.split(":")[:3])
            self.spatial.add(ev.subject)
            act = planning.make_action(self.spatial, activity, ev.subject, self.now, minutes)
            act.object_state = ev.object  # it stays so while dealt with; idle once done
            self.plan = planning.insert_reaction(self.plan, self.now, activity, minutes, arena)
            self.pending = []
            return Decision(action=act, note=f"reacted to: {observed}")
        if got.react and (not activity or not planning.activity.fits_place(activity, self._arena_here(address))):
            self.rejected["react"] += 1  # "5 minutes", "life": continue what it was doing
            activity = None
        if not activity:
            return None
        arena = self._arena_here(address)
        where = planning.pick_object(self.spatial, arena, activity)
        act = planning.make_action(self.spatial, activity, where, self.now, got.minutes)
        self.plan = planning.insert_reaction(self.plan, self.now, activity, got.minutes, arena)
        self.pending = []  # replan from now: the chunk is decomposed afresh afterwards
        return Decision(action=act, note=f"reacted to: {observed}")

    # ------------------------------------------------------------------ the API
    def decide(self, situation: Situation) -> Decision:
        self._begin(job_tag("decide", now=situation.now))
        sit = situation
        self.now = sit.now
        self.action = sit.action
        self._roll_day()
        self._fold_queue()
        for a in sit.seen_addresses:
            self.spatial.add(a)
        self.spatial.add(sit.address)
        salient = perceive(self, sit.events)
        notes = []
        if should_reflect(self):
            made = reflect(self)
            if made:
                notes.append(f"reflected: {made[0].description}")
        decision: Decision | None = None
        doing = self._doing()
        talking = sit.action is not None and bool(sit.action.talking_to)
        if self._needs_day_plan():
            directives = [] if talking else self._take_directives()
            self._new_day(directives)
            notes.append("planned the day" + (" around the inner voice" if directives else ""))
        if talking:
            return self._done(Decision(note="; ".join(notes)))
        cur = planning.item_at(self.plan, self.now)
        if self.directives and not self.sleeping(doing) and cur is not None and not planning.is_sleep(cur.description):
            directives = self._take_directives()
            self._follow_directives(directives, sit.address, replan=True)
            notes.append("replanned for the inner voice: " + "; ".join(directives))
            cur = planning.item_at(self.plan, self.now)
            if cur is not None and planning.mentions([cur], directives[0]) is not None or sit.action is None:
                act = self._next_action()  # act on it now
                decision = Decision(action=act, note=f"inner voice -> {act.description}")
        if decision is None and sit.can_talk_to and not self.sleeping(doing):
            their = {e.subject: e.object for e in sit.events}
            for other in sit.can_talk_to:
                if converse.may_talk(self, other, self.now, doing):
                    if converse.decide_to_talk(self, other, self.now, doing, their.get(other, "")):
                        decision = Decision(talk_to=other, note=f"decided to talk with {other}")
                    else:
                        self.last_talked[other] = self.now  # asked once; don't ask again at once
                    break  # at most one talk decision per job
        if decision is None and salient and not self.sleeping(doing):
            decision = self._react(salient, sit.address)
        if decision is None and (sit.action is None or sit.action_done or sit.action.end <= self.now):
            act = self._next_action()
            decision = Decision(action=act, note=f"next: {act.description}")
        decision = decision or Decision()
        if decision.action is not None:
            self.action = decision.action
        decision.note = "; ".join(notes + ([decision.note] if decision.note else []))
        return self._done(decision)

    def _done(self, decision: Decision) -> Decision:
        self._publish()
        return decision

    def utter(self, conversation: Conversation, now: datetime, partner_doing: str) -> Utterance:
        self._begin(job_tag("utter", conversation=conversation))
        self.now = now
        self._roll_day()
        self._fold_queue()
        u = converse.utter(self, conversation, now, partner_doing, self._doing())
        self._publish()
        return u

    def end_conversation(self, conversation: Conversation, now: datetime) -> None:
        self._begin(job_tag("end_conversation", conversation=conversation, now=now))
        self.now = now
        self._roll_day()
        converse.end_conversation(self, conversation, now)
        self._publish()

    # ------------------------------------------------------------------ looking in
    def _publish(self) -> None:
        """Copy what panels and timelines show, under the lock, at the end of a job."""
        mem = self._memory
        nodes = mem.recent(20) if mem else []
        refl = mem.recent(10, kinds=("reflection",)) if mem else []
        a = self.action
        snap = {
            "name": self.name,
            "now": self.now.isoformat() if self.now else None,
            "summary": self.summary,
            "plan": [x.line() for x in self.plan],
            "action": None if a is None else {
                "description": a.description, "address": a.address, "start": a.start.isoformat(),
                "duration_min": a.duration_min, "emoji": a.emoji, "object_state": a.object_state},
            "pending": [f"{x.start:%H:%M} {x.description}" for x in self.pending],
            "memories": [x.to_dict() for x in nodes],
            "reflections": [x.to_dict() for x in refl],
            "memory_count": len(mem) if mem else 0,
            "known_people": sorted(self.known_people),
            "calls_today": sum(self.calls.values()),
            "calls_by_purpose": dict(self.calls),
            "budget_fallbacks": dict(self.skipped),
            "rejected_answers": dict(self.rejected),
            "places_known": len(self.spatial.arenas()),
        }
        with self._lock:
            self._snapshot = snap

    def inspect(self) -> dict:
        with self._lock:
            return copy.deepcopy(self._snapshot)

    # ------------------------------------------------------------------ saving
    def _begin(self, tag: tuple) -> None:
        """At the start of each job: remember the mind as it is now (a cheap
        capture) and which job this is, so a save taken while the job runs uses
        this state and has the job asked again after loading."""
        with self._lock:
            self._before = self._capture()
            self._job_tag = tag
            self._since_begin = []
            self._dir_since_begin = []

    def begin_job(self, tag: tuple) -> None:
        """For jobs other modules run on this mind (the visitor's chat: call it
        first, with a tag such as ``("respond", now.isoformat())``), so a save
        taken meanwhile sees the mind as it was before the job."""
        self._begin(tag)

    def snapshot(self, in_flight=None):
        """A consistent picture of this mind for a save, taken on the main thread
        in about a millisecond (3000 memories); returns a zero-argument callable that
        builds ``to_state()``'s dict (on any thread, e.g. the save writer's).

        ``in_flight``: the ``job_tag`` of the simulation's job for this mind
        that has not been applied yet (or a predicate over tags; None when
        there is none). If that job has begun (it is running, or finished with its result still unread),
        the capture from just before it began is used, so the saved mind and
        the saved world agree and the job is simply asked again after loading;
        if it has not begun, the mind is idle and is captured as it is."""
        with self._lock:
            if in_flight is not None and self._job_tag is not None and self._before is not None and (
                    in_flight(self._job_tag) if callable(in_flight) else self._job_tag == in_flight):
                before, extra = self._before, [list(x) for x in self._since_begin]
                extra_dir = list(self._dir_since_begin)
                if not extra:
                    return before

                def with_thoughts() -> dict:  # thoughts queued while the job ran are not lost
                    d = before()
                    d["queue"] = d["queue"] + extra
                    d["directives"] = list(d.get("directives") or []) + [x for x in extra_dir
                                                                          if x not in (d.get("directives") or [])]
                    return d
                return with_thoughts
            for attempt in range(3):
                try:
                    return self._capture()
                except RuntimeError:  # a job from elsewhere (an interview) changed a set meanwhile
                    if attempt == 2:
                        raise

    def _capture(self):
        """Copy every small part now (plain data) and the memory stream's cheap
        snapshot; the returned callable assembles the dict. The caller holds
        self._lock or is the mind's own job."""
        iso = lambda t: t.isoformat() if t else None  # noqa: E731
        small = {
            "spatial": self.spatial.to_state(),
            "plan": [dict(start=x.start.isoformat(), minutes=x.minutes, description=x.description,
                          address=x.address) for x in self.plan],
            "plan_day": iso(self.plan_day),
            "pending": [_action_dict(a) for a in self.pending],
            "action": _action_dict(self.action) if self.action else None,
            "summary": self.summary, "summary_day": iso(self.summary_day), "yesterday": self.yesterday,
            "known_people": sorted(self.known_people),
            "last_talked": {k: v.isoformat() for k, v in self.last_talked.items()},
            "retained": [list(x) for x in self.retained],
            "object_states": dict(self.object_states),
            "chats_today": list(self.chats_today),
            "seeded": self.seeded, "queue": [list(x) for x in self._queue], "now": iso(self.now),
            "directives": list(self.directives),
            "last_react": iso(self.last_react),
            "calls_day": iso(self.calls_day), "calls": dict(self.calls), "skipped": dict(self.skipped),
            "rejected": dict(self.rejected),
            "calls_per_day": dict(self.calls_per_day),
            "calls_history": {k: dict(v) for k, v in self.calls_history.items()},
            "rel_cache": [[list(k[0]), k[1].isoformat(), v] for k, v in self.rel_cache.items()],
        }
        mem = self._memory
        if mem is not None:
            memory = mem.snapshot()
        else:
            model, dim = self.embedder.model_name, int(self.embedder.dim)

            def memory() -> dict:
                import numpy as np

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

    @classmethod
    def from_state(cls, persona: Persona, gateway, embedder, state: dict,
                   settings: MindSettings | None = None) -> "Mind":
        from datetime import date

        dt = lambda v: datetime.fromisoformat(v) if v else None  # noqa: E731
        d = lambda v: date.fromisoformat(v) if v else None  # noqa: E731
        m = cls(persona, gateway, embedder, settings)
        mem = MemoryStream.from_state(state["memory"])
        if mem.model != embedder.model_name or mem.dim != embedder.dim:
            raise EmbeddingMismatch(
                f"{persona.name}'s saved memories were embedded with {mem.model} ({mem.dim} dims); "
                f"the embedder now is {embedder.model_name} ({embedder.dim} dims)")
        m._memory = mem
        m.spatial = SpatialMemory.from_state(state["spatial"])
        m.plan = [planning.PlanItem(dt(x["start"]), x["minutes"], x["description"], x["address"])
                  for x in state["plan"]]
        m.plan_day = d(state["plan_day"])
        m.pending = [_action_from(x) for x in state["pending"]]
        m.action = _action_from(state["action"]) if state["action"] else None
        m.summary, m.summary_day, m.yesterday = state["summary"], d(state["summary_day"]), state["yesterday"]
        m.known_people = set(state["known_people"])
        m.last_talked = {k: dt(v) for k, v in state["last_talked"].items()}
        m.retained.extend(tuple(x) for x in state["retained"])
        m.object_states = dict(state["object_states"])
        m.chats_today = list(state["chats_today"])
        m.seeded, m._queue = state["seeded"], [(str(x[0]), int(x[1])) for x in state["queue"]]
        m.rejected = Counter(state.get("rejected") or {})
        m.directives = [str(x) for x in state.get("directives") or []]
        m.rel_cache = {(tuple(p), dt(t)): v for p, t, v in state.get("rel_cache") or []}
        m.now, m.last_react = dt(state["now"]), dt(state["last_react"])
        m.calls_day, m.calls, m.skipped = d(state["calls_day"]), Counter(state["calls"]), Counter(state["skipped"])
        m.calls_per_day, m.calls_history = dict(state["calls_per_day"]), dict(state["calls_history"])
        m._publish()
        return m


def job_tag(kind: str, *, conversation: Conversation | None = None, now: datetime | None = None) -> tuple:
    """Names one job of a mind: ``decide`` at a sim time, ``utter`` the next
    line of a conversation, ``end_conversation`` of a conversation at a time.
    The simulation's record of a job in flight maps onto the same tag (see
    game/savegame.py), which is how a save knows whether that job has begun."""
    if kind == "decide":
        return ("decide", now.isoformat())
    c = conversation
    if kind == "utter":
        return ("utter", tuple(c.participants), c.started.isoformat(), len(c.lines))
    if kind == "end_conversation":
        return ("end_conversation", tuple(c.participants), c.started.isoformat(), now.isoformat())
    return (kind,)


def _action_dict(a: Action) -> dict:
    return dict(description=a.description, address=a.address, start=a.start.isoformat(),
                duration_min=a.duration_min, emoji=a.emoji, object_state=a.object_state, talking_to=a.talking_to)


def _action_from(x: dict) -> Action:
    return Action(**{**x, "start": datetime.fromisoformat(x["start"])})
