"""Perception: events in view -> observation memories (paper section 4; the
original's perceive.py). The sim already keeps only events in the same arena,
nearest first; here: own events out, attention bandwidth, retention, one
batched importance call for everything new.

A model that chooses rather than writes (agents/recall/grounding.py chooses: the embedded 135M
model) does not rate a batch number by number: asked for a list of ratings it
wrote a pattern, not a judgement ("1, 2, 3, ..., 9" or "2, 2, 2, 3, 4, 4, 4,
5, 5" whatever the things were; mean 4.2 over 408 ratings of a morning where
the rules give 1-3), which brought reflections sooner. It chooses instead which
one of the batch matters most (or none); that one is rated STANDS_OUT or more, the
rest keep the rule's everyday rating."""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Annotated, Any, Protocol

from pydantic import BaseModel, Field

from agents.explain import provenance as pv
from agents.recall import grounding as gr
from agents.recall.grounding import chooses
from agents.recall.memory import MemoryNode, MemoryStream
from agents.recall.thinking import Thinking
from agents.support.types import Action, Event

IDLE_WORDS = ("idle", "sleeping", "asleep", "walking", "is walking", "in bed")


# The importance of what a choosing model picked as mattering most in a batch (the paper's
# scale: 1 brushing teeth, 10 a break-up): above every everyday rule's rating (1-3).
STANDS_OUT = 6

SEEN_LIMIT = 4000  # subjects remembered as seen; past it the longest unseen are forgotten


class Senses:
    """What a resident perceived lately: the last few events (the paper's retention),
    what each subject (object or person) was last seen doing and when, objects'
    states as seen, and when it last weighed a reaction (its save under the mind's keys).

    ``seen_at`` holds one entry per subject, its latest "subject|predicate|object",
    so it is bounded by what there is to see in the town, not by time: an idle
    object seen unchanged is never stored again, however often it is passed by."""

    def __init__(self, retention: int = 8) -> None:
        self.retained: deque[tuple[str, ...]] = deque(maxlen=retention)
        self.seen_at: dict[str, datetime] = {}  # "subject|predicate|object" -> last perceived
        self._key_of: dict[str, str] = {}  # subject -> its key in seen_at (derived; not saved)
        self.object_states: dict[str, str] = {}
        self.last_react: datetime | None = None

    def saw(self, subject: str, key: str, now: datetime) -> datetime | None:
        """Note that ``subject`` was seen as ``key`` now; when it was last seen so (None:
        never, or it has changed since)."""
        old = self._key_of.get(subject)
        if old is not None and old != key:
            self.seen_at.pop(old, None)  # its state changed: what it was is no longer what it is
        last = self.seen_at.pop(key, None)  # re-inserted last: the dict stays in order of sight
        self.seen_at[key] = now
        self._key_of[subject] = key
        if len(self.seen_at) > SEEN_LIMIT:
            for k in list(self.seen_at)[: len(self.seen_at) - SEEN_LIMIT]:
                del self.seen_at[k]
                self._key_of.pop(k.split("|", 1)[0], None)
        return last

    def to_state(self) -> dict[str, Any]:
        return {
            "retained": [list(x) for x in self.retained],
            "seen_at": {k: v.isoformat() for k, v in self.seen_at.items()},
            "object_states": dict(self.object_states),
            "last_react": self.last_react.isoformat() if self.last_react else None,
        }

    def from_state(self, state: dict[str, Any]) -> None:
        dt = lambda v: datetime.fromisoformat(v) if v else None  # noqa: E731
        self.retained.clear()
        self.retained.extend(tuple(x) for x in state["retained"])
        seen = sorted(((datetime.fromisoformat(v), k) for k, v in (state.get("seen_at") or {}).items()))
        self.seen_at, self._key_of = {}, {}
        for t, k in seen:  # oldest first; a subject's latest sight wins (older saves kept one per triple)
            self.saw(k.split("|", 1)[0], k, t)
        self.object_states = dict(state["object_states"])
        self.last_react = dt(state["last_react"])


class Perceiver(Thinking, Protocol):
    """What perception needs of a mind (besides agents.model.services.Thinking)."""

    action: Action | None
    senses: Senses
    unrated: list[int]  # memory ids a rule rated, waiting for the model's rating

    @property
    def known_people(self) -> set[str]:
        ...

    @property
    def memory(self) -> MemoryStream:
        ...

    @staticmethod
    def sleeping(doing: str | None) -> bool:
        ...

    def remember_many(self, items: list[dict]) -> list[MemoryNode]:
        ...

    def ask_beside(self, schema: Any, prompt: str, purpose: str, fallback: Any = None,
                   **values: Any) -> Answer:
        ...


class Answer(Protocol):
    """A model call under way beside the job that asked it (``Mind.ask_beside``)."""

    def result(self) -> tuple[Any, str | None]:
        """``Thinking.ask``'s ``(answer, why)``, once the call is back."""
        ...


def is_idle(ev: Event) -> bool:
    """Idle, sleeping or walking: importance 1 without asking the model."""
    text = f"{ev.predicate} {ev.object}".lower()
    return any(w in text for w in IDLE_WORDS)


def is_object(ev: Event) -> bool:
    return ":" in ev.subject  # objects are addressed, residents are named


def rule_importance(ev: Event) -> int:
    if is_idle(ev):
        return 1
    return 2 if is_object(ev) else 3


@lru_cache(maxsize=64)
def importance_schema(n: int) -> type[BaseModel]:
    class Ratings(BaseModel):
        ratings: Annotated[list[Annotated[int, Field(ge=1, le=10)]], Field(min_length=n, max_length=n)] = Field(
            description=f"exactly {n} integers from 1 (mundane) to 10 (life-changing)")

    return Ratings


def perceive(m: Perceiver, events: list[Event]) -> list[Event]:
    """Store new events as observations; return the salient ones for reacting.
    Idle events are 1 by rule; the rest wait for the model's rating, which comes
    in batches (Mind.rate_waiting): one call for several observations."""
    s = m.settings
    attended = [e for e in events if e.subject != m.name][: s.attention_bandwidth]
    doing = m.doing()
    if m.action is not None and not m.sleeping(doing) and not m.action.talking_to:
        # The paper's memory stream holds the resident's own behaviour too ("Isabella
        # Rodriguez is brewing coffee"), stored once per action like anything perceived.
        attended.insert(0, Event(m.name, "is", doing, f"{m.name} is {doing}", m.action.address))
    fresh = []
    senses, now = m.senses, m.now
    window = timedelta(minutes=s.retention_min)
    for ev in attended:
        spo = (ev.subject, ev.predicate, ev.object)
        last = senses.saw(ev.subject, "|".join(spo), now)
        if last is not None and is_idle(ev):
            continue  # idle and unchanged since we last saw it: never news again
        if spo in senses.retained or (last is not None and timedelta(0) <= now - last < window):
            continue  # among the last few events, or seen doing this within the hour: not news
        senses.retained.append(spo)  # a deque of maxlen retention (the paper's)
        fresh.append(ev)
    if not fresh:
        return []
    waiting = pv.UNRATED
    m.remember_many([dict(kind="observation", text=ev.description, importance=rule_importance(ev),
                          importance_source=pv.tag(pv.RULE, "idle") if is_idle(ev) else waiting,
                          rate=not is_idle(ev), subject=ev.subject, predicate=ev.predicate, object=ev.object)
                     for ev in fresh])
    salient = []
    for ev in fresh:
        if ev.subject == m.name:
            continue  # one's own doing is remembered, not reacted to
        if is_object(ev):
            senses.object_states[ev.subject] = ev.object
        else:
            m.known_people.add(ev.subject)
        # Fresh and not idle: another resident doing something, or an object
        # whose state is new to us (retention already dropped the unchanged).
        if not is_idle(ev):
            salient.append(ev)
    return salient


def rated_before(memory: MemoryStream, kind: str, text: str) -> MemoryNode | None:
    """The newest memory of ``kind`` in exactly these words whose importance the model settled
    (rated it, or chose among it): its rating holds for the same words, with no call. (On the
    second day of an 8-resident run, 649 of 1,480 observations were ones seen before.)"""
    earlier = memory.newest_with_words(text)
    if earlier is None or earlier.kind != kind:
        return None
    src = earlier.importance_source
    return None if src == pv.UNRATED or pv.no_answer(src) or pv.kind_of(src) == "unknown" else earlier


def same_rating(earlier: MemoryNode) -> str:
    """The provenance of a rating taken from an earlier memory in the same words."""
    return pv.tag(pv.kind_of(earlier.importance_source), f"as memory #{earlier.id}, in the same words")


def due_for_rating(m: Perceiver, force: bool = False) -> list[MemoryNode]:
    """The memories a rule rated that the model is to rate now, up to a dozen: when
    enough wait, or the oldest has waited long enough (none while asleep, unless
    ``force``)."""
    s = m.settings
    nodes = [n for n in (m.memory.get(i) for i in m.unrated[:12]) if n is not None]
    if not nodes or (m.sleeping(m.doing()) and not force):
        return []
    oldest = min(n.created for n in nodes)
    if not force and len(nodes) < s.rate_batch and m.now - oldest < timedelta(minutes=s.rate_wait_min):
        return []
    return nodes


def rate_waiting(m: Perceiver, force: bool = False) -> None:
    """The paper's importance, rated by the model for what a rule rated first
    (observations, plans, the visitor's words), in one call for up to a dozen
    (``due_for_rating``). If the model gives no usable answer the rule's rating
    stays, and says so."""
    nodes = due_for_rating(m, force)
    if nodes:
        args, values = rating_question(m, nodes)
        got, why = m.ask(*args, **values)
        take_ratings(m, nodes, got, why)


def rate_beside(m: Perceiver) -> Callable[[], None] | None:
    """``rate_waiting`` beside the job's decision: the call goes out now and the job
    goes on; the ratings are taken when the job calls what this returns, after its
    decision (agents/mind/deciding.py). So the decision reads the rule's ratings of
    these memories, as it reads those of the memories still waiting for a batch, and
    the model answers both questions at once. None: nothing is due."""
    nodes = due_for_rating(m)
    if not nodes:
        return None
    args, values = rating_question(m, nodes)
    asked = m.ask_beside(*args, **values)
    return lambda: take_ratings(m, nodes, *asked.result())


def rating_question(m: Perceiver, nodes: list[MemoryNode]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``Thinking.ask``'s arguments for rating ``nodes`` (the schema, prompt, purpose and
    fallback; the prompt's values): the paper's 1-10 for each, or, for a choosing model,
    which one matters most (``choose_salient``)."""
    n = len(nodes)
    values = {"count": n, "events": "\n".join(f"{k + 1}. {x.description}" for k, x in enumerate(nodes))}
    if chooses(m):
        schema = gr.choice_schema(n)
        return (schema, "importance_choose", "importance", schema(fact=gr.NONE)), values
    return (importance_schema(n), "importance", "importance", None), values


def take_ratings(m: Perceiver, nodes: list[MemoryNode], got: Any, why: str | None) -> None:
    """The model's answer to ``rating_question`` into the memories; they wait no more."""
    if chooses(m):
        choose_salient(m, nodes, got, why)
    else:
        rate_each(m, nodes, got, why)
    done = {n.id for n in nodes}
    m.unrated = [i for i in m.unrated if i not in done]


def rate_each(m: Perceiver, nodes: list[MemoryNode], got: Any, why: str | None) -> None:
    """The paper's way: the model rated each of ``nodes`` 1-10, in one call."""
    if why is not None:
        m.note_fallback("importance", why)
    for k, n in enumerate(nodes):
        if why is None:
            m.memory.rerate(n.id, int(min(10, max(1, got.ratings[k]))), pv.MODEL)
        else:
            n.importance_source = pv.tag(pv.RULE, pv.reason_of_failure(why))


def choose_salient(m: Perceiver, nodes: list[MemoryNode], got: Any, why: str | None) -> None:
    """A choosing model's way: it picked the one of ``nodes`` that matters most (or none),
    under a grammar; that one is rated at least STANDS_OUT, the others keep the rule's
    rating, and every rating says how it came about."""
    n = len(nodes)
    if why is not None:
        m.note_fallback("importance", why)
        for x in nodes:
            x.importance_source = pv.tag(pv.RULE, pv.reason_of_failure(why))
        return
    choice = str(got.fact)
    pick = int(choice) - 1 if choice.isdigit() and 1 <= int(choice) <= n else None
    for k, x in enumerate(nodes):
        if k == pick:
            m.memory.rerate(x.id, max(x.importance, STANDS_OUT),
                            pv.tag(pv.REPAIRED, f"{gr.GROUNDED}: chosen as what matters most of {n}"))
        else:
            x.importance_source = pv.tag(pv.RULE, f"everyday ({gr.GROUNDED}: the model chose "
                                                  f"{'another' if pick is not None else 'none'} of {n})")
