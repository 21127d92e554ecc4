"""A resident's mind: ties memory, perception, reflection, planning, reacting
and dialogue together behind the small API the simulation calls (contract
section 10). Methods run on the worker pool, at most one job per mind at a
time; inspect() and queue_thought() may be called from any thread."""
from __future__ import annotations

import copy
import logging
import threading
from collections import Counter, deque
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from agents import activity, converse
from agents import inner_voice as voice
from agents import plan as planning
from agents import provenance as pv
from agents.decompose import chunk_end, decompose, fallback_actions
from agents.memory import EmbeddingMismatch, MemoryStream
from agents.objects import is_sleep, make_action, pick_object, unusual_state
from agents.perceive import perceive, rate
from agents.persona import Persona
from agents.reflect import reflect, should_reflect
from agents.settings import MindSettings
from agents.spatial import SpatialMemory
from agents.text import clean_text
from agents.types import Action, Conversation, Decision, Situation, Utterance

log = logging.getLogger(__name__)

MAX_TOKENS = {"day_plan": 420, "replan": 420, "decompose": 360, "utterance": 90, "reflect_insights": 400,
              "summary": 110, "yesterday": 140, "relationship": 90, "chat_summary": 160, "reflect_questions": 120,
              "react": 50, "talk_decision": 12}


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
        self.seen_at: dict[str, datetime] = {}  # "subject|predicate|object" -> last perceived
        self.object_states: dict[str, str] = {}
        self.known_people: set[str] = set()
        self.last_talked: dict[str, datetime] = {}
        self.last_conversation: datetime | None = None
        self.rel_cache: dict[str, tuple[datetime, str]] = {}  # partner -> (when, relationship summary)
        self.chats_today: list[str] = []
        self.day_log: list[str] = []  # "HH:MM what (where)" of today's actions: tomorrow's "yesterday"
        self.plan: list[planning.PlanItem] = []
        self.plan_day = None
        self.arrangements: list[planning.Arrangement] = []  # plans made in conversation, for later
        self.pending: list[Action] = []  # decomposed actions of the chunk at hand
        self.identity = f"{persona.name}, age {persona.age}; {persona.traits}."
        self.summary = f"{self.identity} {'; '.join(persona.phrases[:3])}."
        self.summary_day = None
        self.yesterday = "this is the first day of the story"
        self.now: datetime | None = None
        self.action: Action | None = None
        self.last_react: datetime | None = None
        self.seeded = False
        self.unrated: list[int] = []  # memory ids a rule rated, waiting for the model's rating
        self.unembedded: list[dict] = []  # memories whose embedding failed: stored on a later try
        self.calls_day = None
        self.calls: Counter = Counter()  # model calls today, per purpose
        self.skipped: Counter = Counter()  # calls the budget (or a loop guard) replaced by a rule
        self.budget_hit: datetime | None = None  # when today's budget ran out
        self.rejected: Counter = Counter()  # answers (or parts) that parsed but failed validation
        self.fallbacks: Counter = Counter()  # "what: why" -> how often a rule stood in for the model
        self.calls_per_day: dict[str, int] = {}  # history: date -> calls
        self.calls_history: dict[str, dict] = {}  # history: date -> calls per purpose
        self._publish()

    # ------------------------------------------------------------------ plumbing
    @property
    def memory(self) -> MemoryStream:
        if self._memory is None:
            self._memory = MemoryStream(self.embedder.model_name, self.embedder.dim)
        return self._memory

    @property
    def planning_mode(self) -> str:
        """"paper" or "guided" (MindSettings.planning, else the model configuration's)."""
        mode = self.settings.planning or getattr(getattr(self.gateway, "config", None), "planning", None)
        return mode if mode in ("paper", "guided") else "paper"

    @property
    def guided(self) -> bool:
        return self.planning_mode == "guided"

    @property
    def budget(self) -> int:
        """Model calls per sim day (0: no budget)."""
        return int(getattr(getattr(self.gateway, "config", None), "budget", 0) or 0)

    def _roll_day(self) -> None:
        day = self.now.date()
        if day != self.calls_day:
            if self.calls_day is not None:
                self.calls_per_day[self.calls_day.isoformat()] = sum(self.calls.values())
                self.calls_history[self.calls_day.isoformat()] = dict(self.calls)
            self.calls_day, self.calls, self.skipped, self.budget_hit = day, Counter(), Counter(), None

    def ask(self, schema, prompt: str, purpose: str, fallback=None, **values):
        """One model call: ``(answer, None)``, or ``(fallback, why)`` when the model's
        answer is unusable ("invalid", "timeout", ...) or the day's budget (or a loop
        guard) is spent ("budget": no call is made)."""
        guard = self.settings.loop_guards.get(purpose)
        over_budget = self.budget > 0 and sum(self.calls.values()) >= self.budget
        if over_budget or (guard is not None and self.calls[purpose] >= guard):
            self.skipped[purpose] += 1
            if over_budget and self.budget_hit is None:
                self.budget_hit = self.now
            value = fallback() if callable(fallback) else fallback
            return value, pv.BUDGET
        self.calls[purpose] += 1
        from agents.prompts import render

        p = self.persona
        base = dict(full_name=p.name, first_name=p.first_name, age=p.age, traits=p.traits, summary=self.summary,
                    identity=self.identity)
        text = render(prompt, **{**base, **values})
        return self.gateway.ask_traced(schema, text, purpose=purpose, resident=self.name,
                                       fallback=fallback if fallback is not None else (lambda: None),
                                       max_tokens=MAX_TOKENS.get(purpose, 160))

    def note_fallback(self, what: str, why: str) -> None:
        """Count a rule standing in for the model: "day plan: invalid answer"."""
        self.fallbacks[f"{what}: {pv.reason_of_failure(why)}"] += 1

    def embed(self, texts: list[str]):
        return self.embedder.embed(list(texts))

    def retrieve(self, query: str, k: int | None = None):
        """The paper's retrieval; nothing (and a note in the log) when the query cannot be
        embedded: a prompt without memories beats a resident that stops."""
        if len(self.memory) == 0:
            return []
        s = self.settings
        try:
            vec = self.embed([query])[0]
        except Exception as err:  # noqa: BLE001 - an embedding server down must not stop the mind
            log.warning("%s: retrieval without memories, the query could not be embedded (%s)", self.name, err)
            self.fallbacks["retrieval: embedding failed"] += 1
            return []
        return self.memory.retrieve(vec, self.now, k=k or s.retrieve_k,
                                    char_budget=s.retrieve_chars, decay=s.recency_decay,
                                    weights=(s.w_recency, s.w_importance, s.w_relevance))

    @staticmethod
    def sleeping(doing: str | None) -> bool:
        return bool(doing) and is_sleep(doing)

    def doing(self) -> str:
        return self.action.description if self.action else "just arriving"

    def _arena_here(self, address: str | None) -> str:
        for a in (address, self.action.address if self.action else None):
            if a and self.spatial.knows(self.spatial.arena_of(a)):
                return self.spatial.arena_of(a)
        return self.persona.home

    # ------------------------------------------------------------------ memories in
    def remember(self, kind: str, text: str, importance: int, **fields):
        """Store one memory (see remember_many); the node, or None when it waits for
        its embedding."""
        got = self.remember_many([dict(kind=kind, text=text, importance=importance, **fields)])
        return got[0] if got else None

    def remember_many(self, items: list[dict]) -> list:
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
            rate = x.pop("rate", False)
            kind, text, importance = x.pop("kind"), x.pop("text"), x.pop("importance")
            created = datetime.fromisoformat(x.pop("created"))
            node = self.memory.add(kind, text, created, importance, v, **x)
            if rate:
                self.unrated.append(node.id)
            nodes.append(node)
        return nodes

    def _retry_embeddings(self) -> None:
        if self.unembedded:
            waiting, self.unembedded = self.unembedded, []
            self.remember_many(waiting)

    def rate_waiting(self, force: bool = False) -> None:
        """The paper's importance, rated by the model for what a rule rated first
        (observations, plans, the visitor's words), in one call for up to a dozen:
        when enough wait, or the oldest has waited long enough. If the model gives
        no usable answer the rule's rating stays, and says so."""
        s = self.settings
        nodes = [n for n in (self.memory.get(i) for i in self.unrated[:12]) if n is not None]
        if not nodes or self.sleeping(self.doing()) and not force:
            return
        oldest = min(n.created for n in nodes)
        if not force and len(nodes) < s.rate_batch and self.now - oldest < timedelta(minutes=s.rate_wait_min):
            return
        ratings, why = rate(self, [n.description for n in nodes])
        for k, n in enumerate(nodes):
            if ratings is not None:
                self.memory.rerate(n.id, ratings[k], pv.MODEL)
            else:
                n.importance_source = pv.tag(pv.RULE, pv.reason_of_failure(why))
        done = {n.id for n in nodes}
        self.unrated = [i for i in self.unrated if i not in done]

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

    def _take_directives(self) -> list[str]:
        with self._lock:
            got, self.directives = self.directives, []
        return got

    def _follow_directives(self, directives: list[str], address: str | None, replan: bool) -> None:
        """Make room in today's plan for each directive: the model rewrites the rest of
        the day with the directives in the prompt (``replan``); where its plan still
        does not mention one, a rule puts it in the next free slot (and says so)."""
        now = self.now
        if replan:
            if self.guided:
                self.plan = planning.replan_guided(self, now, voice.directive_line(self.persona, directives))
            else:
                said = "; ".join(f'"{d}"' for d in directives)
                self.plan = planning.replan_rest(self, now, f"{self.persona.first_name} has decided: {said}.")
        for d in directives:
            if voice.mentions(self.plan, d, after=now) is not None:
                continue
            text = voice.directive_activity(d, self.persona.first_name)
            slot = voice.free_slot(self.plan, now)
            where = planning.place_from_text(text, self.spatial, self.persona) or (
                slot.address if slot is not None else self._arena_here(address))
            self.plan = voice.insert_directive(self.plan, now, text, where, pv.tag(pv.RULE, "the inner voice"))
        self.pending = []  # the chunk at hand is decomposed afresh

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
        got, why = self.ask(Summary, "summary", "summary", fb, memories=memories)
        if why is not None:
            self.note_fallback("summary", why)
        text = clean_text(got.summary, 200) or fb.summary
        # Identity and occupation stay the seed's words; the model adds current concerns,
        # so a weak model's slip cannot erase who the resident is.
        self.summary = f"{self.identity} {core}. Lately: {text}"
        self.summary_day = self.now.date()

    def _summarise_yesterday(self) -> None:
        """What actually happened yesterday (actions and conversations), in the model's words."""
        if not self.day_log and not self.chats_today:
            return
        rule = planning.yesterday_rule(self.day_log, self.chats_today)
        day = self.now - timedelta(days=1)
        got, why = self.ask(Summary, "yesterday", "yesterday", Summary(summary=rule), date=f"{day:%A %B %d}",
                            log=planning.log_lines(self.day_log),
                            chats="\n".join(f"- {c}" for c in self.chats_today[-8:]) or "- (none)")
        if why is not None:
            self.note_fallback("yesterday", why)
        self.yesterday = clean_text(got.summary, 400) or rule

    def _needs_day_plan(self) -> bool:
        if self.plan_day == self.now.date():
            return False
        wake = self.now.replace(hour=self.persona.wake_hour, minute=0, second=0, microsecond=0)
        return self.now >= wake or not self.plan  # wake-up, or the story starts

    def _new_day(self, directives=()) -> None:
        if self.plan:
            self._summarise_yesterday()
        self.chats_today, self.day_log = [], []
        self.arrangements = [a for a in self.arrangements if a.start.date() >= self.now.date()]
        self._refresh_summary()
        day = planning.wake_time(self.persona, self.now)
        routine = planning.routine(self.persona, self.spatial, day, self.settings, pv.GUIDED if self.guided else "")
        directive = voice.directive_line(self.persona, directives)
        if self.guided:
            self.plan = planning.guided_day_plan(self, day, routine, directive)
            self.plan = planning.keep_arrangements(self.plan, self.arrangements, self.now)
        else:
            n = self.name
            seen: dict[int, object] = {}
            for q in (f"{n}'s plans for {day:%A %B %d}", f"events and meetings on {day:%A %B %d}"):
                for x in self.retrieve(q, k=5):
                    seen.setdefault(x.id, x)
            memories = "\n".join(f"- {x.description}" for x in list(seen.values())[:8]) or "- (nothing)"
            arranged = planning.arranged_lines(self.arrangements, day.date())
            self.plan = planning.paper_day_plan(self, day, routine, memories, arranged, directive)
        self.plan_day = self.now.date()
        self.pending = []
        if directives:
            self._follow_directives(list(directives), None, replan=False)
        text = f"{self.name}'s plan for {self.now:%A %B %d}: " + "; ".join(x.line() for x in self.plan)
        self.remember("plan", text, 5, subject=self.name, source=planning.plan_source(self.plan), rate=True,
                      importance_source=pv.tag(pv.RULE, "until the model rates it"))

    def _sleep_action(self, until: datetime) -> Action:
        bed = pick_object(self.spatial, self.persona.home, "sleep")
        minutes = max(1, int((until - self.now).total_seconds() // 60))
        return make_action(self.spatial, "sleeping", bed, self.now, minutes, source=pv.tag(pv.RULE, "asleep"))

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
        if is_sleep(item.description):
            return self._sleep_action(item.end)  # no call to decompose a night
        end = chunk_end(item, now)
        minutes = int((end - now).total_seconds() // 60)
        if minutes < 15:  # too short to ask about: the plan item itself
            acts = fallback_actions(self.spatial, item, now, end)
        else:
            acts = decompose(self, item, now, end, minutes)
        self.pending = acts[1:]
        return acts[0]

    # ------------------------------------------------------------------ reacting
    def _react(self, salient, address: str) -> Decision | None:
        """The paper's "should X react to the observation, and if so, what is an
        appropriate reaction"; a reaction rewrites the rest of the day (paper mode)."""
        s = self.settings
        # An object in a state nobody's ordinary use explains (a world edit: "the stove
        # is burning") always gets a reaction at that object, throttle or not.
        urgent = [e for e in salient if ":" in e.subject and e.subject.count(":") >= 3
                  and unusual_state(e.object)]
        if not urgent and self.last_react and self.now - self.last_react < timedelta(minutes=s.react_interval_min):
            return None  # throttled: most perceptions don't deserve a second thought
        self.last_react = self.now
        salient = urgent + [e for e in salient if e not in urgent]
        observed = "; ".join(e.description for e in salient[:3])
        mems = "\n".join(f"- {x.description}" for x in self.retrieve(observed, k=4)) or "- (nothing)"
        got, why = self.ask(React, "react", "react", React(react=False), time=f"{self.now:%H:%M}",
                            doing=self.doing(), observed=observed, memories=mems)
        if why is not None:
            self.note_fallback("reaction", why)
        text = activity.clean_activity(got.activity, self.name) if got.react else None
        minutes, source = got.minutes, pv.MODEL
        if urgent:
            ev = urgent[0]
            obj = ev.subject.rsplit(":", 1)[-1]
            if not text or obj.split()[-1].lower() not in text.lower():
                if got.react:
                    self.rejected["react"] += 1  # junk, or not about the thing on fire: the rule acts
                why = why or "invalid"
                text, minutes = f"dealing with the {obj} ({ev.object})", 10
                source = pv.tag(pv.RULE, f"{pv.reason_of_failure(why)}: the {obj} is {ev.object}")
                self.note_fallback("reaction", why)
            where, arena = ev.subject, ":".join(ev.subject.split(":")[:3])
            self.spatial.add(ev.subject)
        else:
            arena = self._arena_here(address)
            if got.react and (not text or not activity.fits_place(text, arena)):
                self.rejected["react"] += 1  # "5 minutes", "life": continue what it was doing
                text = None
            if not text:
                return None
            where = pick_object(self.spatial, arena, text)
        first = planning.PlanItem(self.now, minutes, text, arena, source)
        if self.guided:
            self.plan = planning.cut_in(self.plan, first)
        else:
            self.plan = planning.replan_rest(self, self.now, f"{self.persona.first_name} notices: {observed}.", first)
        act = make_action(self.spatial, text, where, self.now, minutes, source=source)
        if urgent:
            act.object_state = urgent[0].object  # it stays so while dealt with; idle once done
        self.pending = []  # the chunk after the reaction is decomposed afresh
        return Decision(action=act, note=f"reacted to: {observed}")

    def _take_arrangement(self, arrangement, other: str) -> None:
        """A plan made in conversation: for later today, the rest of the day is
        rewritten around it (by the model in the paper's mode); for another day it is
        kept, and remembered as a planning thought."""
        a = arrangement
        first = self.persona.first_name
        thought = (f"{first}'s plan for {a.start:%A %B %d} at {a.start:%H:%M}: {a.description} at "
                   f"{self.spatial.label(a.address)} ({a.made})")
        self.remember("plan", thought, 6, subject=self.name, source=a.source, rate=True,
                      importance_source=pv.tag(pv.RULE, "until the model rates it"))
        if a.start.date() == self.now.date() and self.plan_day == self.now.date():
            if self.guided:
                self.plan = planning.keep_arrangements(self.plan, [a], self.now)
            else:
                self.plan = planning.replan_rest(
                    self, self.now, f"{first} just agreed with {other}: {a.description} at "
                    f"{self.spatial.label(a.address)} from {a.start:%H:%M} for {a.minutes} minutes.")
            self.pending = []
        else:
            self.arrangements.append(a)
        self.chats_today.append(f"arranged: {a.line()}")

    # ------------------------------------------------------------------ the API
    def decide(self, situation: Situation) -> Decision:
        self._begin(job_tag("decide", now=situation.now))
        sit = situation
        self.now = sit.now
        self.action = sit.action
        self._roll_day()
        self._retry_embeddings()
        self._fold_queue()
        for a in sit.seen_addresses:
            self.spatial.add(a)
        self.spatial.add(sit.address)
        salient = perceive(self, sit.events)
        self.rate_waiting()
        notes = []
        if should_reflect(self):
            made = reflect(self)
            if made:
                notes.append(f"reflected: {made[0].description}")
        decision: Decision | None = None
        doing = self.doing()
        talking = sit.action is not None and bool(sit.action.talking_to)
        if self._needs_day_plan():
            directives = [] if talking else self._take_directives()
            self._new_day(directives)
            notes.append("planned the day" + (" around the inner voice" if directives else ""))
        if talking:
            return self._done(Decision(note="; ".join(notes)))
        cur = planning.item_at(self.plan, self.now)
        if self.directives and not self.sleeping(doing) and cur is not None and not is_sleep(cur.description):
            directives = self._take_directives()
            self._follow_directives(directives, sit.address, replan=True)
            notes.append("replanned for the inner voice: " + "; ".join(directives))
            cur = planning.item_at(self.plan, self.now)
            if cur is not None and voice.mentions([cur], directives[0]) is not None or sit.action is None:
                act = self._next_action()  # act on it now
                decision = Decision(action=act, note=f"inner voice -> {act.description}")
        if decision is None and sit.can_talk_to and not self.sleeping(doing):
            their = {e.subject: e.object for e in sit.events}
            for other in sit.can_talk_to:
                if converse.may_talk(self, other, self.now, doing):
                    talk, source = converse.decide_to_talk(self, other, self.now, doing, their.get(other, ""))
                    if talk:
                        decision = Decision(talk_to=other, note=f"decided to talk with {other}", source=source)
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
            a = decision.action
            self.day_log.append(f"{self.now:%H:%M} {a.description} ({self.spatial.label(self.spatial.arena_of(a.address))})")
            del self.day_log[:-120]
        decision.note = "; ".join(notes + ([decision.note] if decision.note else []))
        return self._done(decision)

    def _done(self, decision: Decision) -> Decision:
        self._publish()
        return decision

    def utter(self, conversation: Conversation, now: datetime, partner_doing: str) -> Utterance:
        self._begin(job_tag("utter", conversation=conversation))
        self.now = now
        self._roll_day()
        self._retry_embeddings()
        self._fold_queue()
        u = converse.utter(self, conversation, now, partner_doing, self.doing())
        self._publish()
        return u

    def end_conversation(self, conversation: Conversation, now: datetime) -> None:
        self._begin(job_tag("end_conversation", conversation=conversation, now=now))
        self.now = now
        self._roll_day()
        arrangement = converse.end_conversation(self, conversation, now)
        if arrangement is not None:
            self._take_arrangement(arrangement, conversation.other(self.name))
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
            "plan_sources": [x.source for x in self.plan],
            "arrangements": [x.line() for x in self.arrangements],
            "planning": self.planning_mode,
            "action": None if a is None else {
                "description": a.description, "address": a.address, "start": a.start.isoformat(),
                "duration_min": a.duration_min, "emoji": a.emoji, "object_state": a.object_state,
                "source": a.source},
            "pending": [f"{x.start:%H:%M} {x.description}" for x in self.pending],
            "memories": [x.to_dict() for x in nodes],
            "reflections": [x.to_dict() for x in refl],
            "memory_count": len(mem) if mem else 0,
            "known_people": sorted(self.known_people),
            "calls_today": sum(self.calls.values()),
            "calls_by_purpose": dict(self.calls),
            "budget": self.budget,
            "budget_hit": self.budget_hit.isoformat() if self.budget_hit else None,
            "budget_fallbacks": dict(self.skipped),
            "rejected_answers": dict(self.rejected),
            "fallbacks": dict(self.fallbacks),
            "waiting_for_embedding": len(self.unembedded),
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
            "plan": [x.to_dict() for x in self.plan],
            "plan_day": iso(self.plan_day),
            "arrangements": [x.to_dict() for x in self.arrangements],
            "day_log": list(self.day_log),
            "unrated": list(self.unrated),
            "unembedded": [dict(x) for x in self.unembedded],
            "fallbacks": dict(self.fallbacks),
            "budget_hit": iso(self.budget_hit),
            "pending": [_action_dict(a) for a in self.pending],
            "action": _action_dict(self.action) if self.action else None,
            "summary": self.summary, "summary_day": iso(self.summary_day), "yesterday": self.yesterday,
            "known_people": sorted(self.known_people),
            "last_talked": {k: v.isoformat() for k, v in self.last_talked.items()},
            "retained": [list(x) for x in self.retained],
            "seen_at": {k: v.isoformat() for k, v in self.seen_at.items()},
            "object_states": dict(self.object_states),
            "chats_today": list(self.chats_today),
            "seeded": self.seeded, "queue": [list(x) for x in self._queue], "now": iso(self.now),
            "directives": list(self.directives),
            "last_react": iso(self.last_react),
            "calls_day": iso(self.calls_day), "calls": dict(self.calls), "skipped": dict(self.skipped),
            "rejected": dict(self.rejected),
            "calls_per_day": dict(self.calls_per_day),
            "calls_history": {k: dict(v) for k, v in self.calls_history.items()},
            "rel_cache": {k: [t.isoformat(), v] for k, (t, v) in self.rel_cache.items()},
            "last_conversation": iso(self.last_conversation),
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
        m.plan = [planning.PlanItem.from_dict(x) for x in state["plan"]]
        m.plan_day = d(state["plan_day"])
        # Saves from before provenance lack these; they start empty.
        m.arrangements = [planning.Arrangement.from_dict(x) for x in state.get("arrangements") or []]
        m.day_log = [str(x) for x in state.get("day_log") or []]
        m.unrated = [int(x) for x in state.get("unrated") or [] if 0 <= int(x) < len(mem)]
        m.unembedded = [dict(x) for x in state.get("unembedded") or []]
        m.fallbacks = Counter(state.get("fallbacks") or {})
        m.budget_hit = dt(state.get("budget_hit"))
        m.pending = [_action_from(x) for x in state["pending"]]
        m.action = _action_from(state["action"]) if state["action"] else None
        m.summary, m.summary_day, m.yesterday = state["summary"], d(state["summary_day"]), state["yesterday"]
        m.known_people = set(state["known_people"])
        m.last_talked = {k: dt(v) for k, v in state["last_talked"].items()}
        m.retained.extend(tuple(x) for x in state["retained"])
        m.seen_at = {k: dt(v) for k, v in (state.get("seen_at") or {}).items()}
        m.object_states = dict(state["object_states"])
        m.chats_today = list(state["chats_today"])
        m.seeded, m._queue = state["seeded"], [(str(x[0]), int(x[1])) for x in state["queue"]]
        m.rejected = Counter(state.get("rejected") or {})
        m.directives = [str(x) for x in state.get("directives") or []]
        rel = state.get("rel_cache")
        m.rel_cache = {k: (dt(t), v) for k, (t, v) in rel.items()} if isinstance(rel, dict) else {}
        m.last_conversation = dt(state.get("last_conversation"))
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
    return a.to_dict()


def _action_from(x: dict) -> Action:
    return Action.from_dict(x)
