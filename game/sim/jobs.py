"""Mind jobs: what a resident's pool job is for (``Job``) and the queue that keeps
one job per mind in flight (``JobQueue``).

A resident's mind runs at most one job at a time on the worker pool (keyed by
the resident's name). A job that must not be dropped while another runs (a
conversation to remember, the visitor's chat) waits in the queue behind it and
goes out as soon as the key is free. Finished jobs come back, in resident-name
order so lockstep runs are reproducible, with the ``Job`` that says how the
simulation applies the result.

Jobs go to the pool with a rank (agents/threads/priority.py), which the simulation
gives (``JobQueue.rank``): the player's work first, then the town's by the sim
time its answer is needed. An urgent ``call`` (the visitor's chat reply) runs
under a key of its own (``urgent_key``), beside whatever the resident's mind is
doing, so it never waits for the resident's planning; such a job must only
read the mind (agents/mind/interview.py ``answer_now``) and leave any writing to a
normal job on the resident's key.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from agents import Conversation, Rank, priority

log = logging.getLogger(__name__)

# Job kinds.
DECIDE = "decide"  # mind.decide(situation): an action, or someone to talk to
UTTER = "utter"  # mind.utter(...): the next line of a conversation
END_CONVERSATION = "end_conversation"  # mind.end_conversation(...): remembering a finished conversation
CALL = "call"  # any function for someone else (the visitor's chat); its result goes to ``on_result``
GREET = "greet"  # a greeting line for the visitor (game/sim/greetings.py collects it)
PREPARE = "prepare"  # mind.prepare(at, now): the plan's next chunk broken into steps ahead of time

MEMO_WAIT = timedelta(minutes=30)  # a talk's memo is ranked as needed this long from now: nothing waits for it

# What a ``call`` job's result goes to, on the main thread: (value, error). The value is whatever
# the job's function returned (``object``: the callback checks what it got before use).
OnResult = Callable[[object, BaseException | None], None]


@dataclass(frozen=True)
class Job:
    """The simulation's record of one pool job (what it is for, and what to do with its result)."""

    kind: str
    reason: str = ""  # decide: start | done | new day | react
    at: datetime | None = None  # decide: the sim time of the situation; end_conversation: when it ended
    chat: int | None = None  # utter, end_conversation: the conversation's id
    conversation: Conversation | None = None  # end_conversation: the conversation remembered (a copy)
    partner: str | None = None  # greet: who is greeted
    on_result: OnResult | None = None  # call: (value, error), on the main thread
    urgent: bool = False  # the player waits for it: first in line, on a lane of its own
    ahead: bool = False  # decide: the next action, asked before the current one ends
    need: datetime | None = None  # when its answer is needed (the pool's order), if not ``at``
    chunk: bool = False  # decide ahead: no step is decided for then, so the answer breaks a chunk into steps (a call)

    @classmethod
    def decide(cls, reason: str, at: datetime, *, need: datetime | None = None, urgent: bool = False,
               chunk: bool = False) -> Job:
        """``need``: asked ahead, for the next action at that time (``at`` is the situation's time);
        ``chunk``: the mind has no step decided for then (its cost is a decomposition's)."""
        return cls(DECIDE, reason=reason, at=at, ahead=need is not None, need=need, urgent=urgent, chunk=chunk)

    @classmethod
    def utter(cls, chat: int) -> Job:
        return cls(UTTER, chat=chat)

    @classmethod
    def end_conversation(cls, chat: int, conversation: Conversation, at: datetime) -> Job:
        return cls(END_CONVERSATION, chat=chat, conversation=conversation, at=at)

    @classmethod
    def call(cls, on_result: OnResult, urgent: bool = False) -> Job:
        return cls(CALL, on_result=on_result, urgent=urgent)

    @classmethod
    def greet(cls, partner: str) -> Job:
        return cls(GREET, partner=partner)

    @classmethod
    def prepare(cls, at: datetime, need: datetime) -> Job:
        """``at``: the sim time it was asked; ``need``: the start of the chunk it breaks into steps."""
        return cls(PREPARE, reason="prepare", at=at, need=need)


def urgent_key(name: str) -> str:
    """The pool key of an urgent job for ``name`` (not the resident's own key: it runs beside it)."""
    return f"{name} (urgent)"


class Result(Protocol):
    """A finished pool job as the pool gives it back (``agents.MindPool``'s results)."""

    @property
    def key(self) -> str: ...  # the resident's name (or its urgent key)

    @property
    def value(self) -> object: ...  # what the job's function returned (checked by whoever applies it)

    @property
    def error(self) -> BaseException | None: ...


class Pool(Protocol):
    """What the simulation needs of a worker pool (``agents.pool.MindPool``). A job is any
    function with its arguments: the pool only passes them on."""

    def submit(self, key: str, fn: Callable[..., object], *args: object, rank: Rank = priority.DEFAULT,
               **kwargs: object) -> bool: ...

    def busy(self, key: str) -> bool: ...

    def in_flight(self) -> int: ...

    def results(self) -> Sequence[Result]: ...

    def wait(self, timeout: float | None = None) -> bool: ...

    def wait_keys(self, keys: set[str], timeout: float | None = None) -> bool: ...

    def cancel_all(self) -> None: ...

    def shutdown(self, wait: bool = False) -> None: ...  # the run is over (the session, a headless run)


@dataclass
class Waiting:
    """A job waiting for its resident's key to be free."""

    job: Job
    fn: Callable[..., object]
    args: tuple[object, ...]


class JobQueue:
    """One job per resident on the pool: the job in flight, and jobs waiting behind it."""

    def __init__(self, pool: Pool, think_steps: int = 0) -> None:
        self.pool = pool
        self._running: dict[str, Job] = {}  # name -> the job in flight (or finished, not yet applied)
        self._waiting: dict[str, list[Waiting]] = {}  # name -> jobs waiting for the key to be free
        # Lockstep: a job sent at step N is applied at step N + think_steps, not before
        # (held when it finishes early) and not after (the step waits for it).
        # 0 (realtime): applied as soon as it is back.
        self.think_steps = max(0, int(think_steps))
        self.step = 0  # the sim's step count, set at the start of each step
        self._due: dict[str, int] = {}  # name -> the step its job is applied at
        self._held: dict[str, Result] = {}  # name -> a result back before its step
        # The rank a job goes to the pool with (the simulation sets it); by default all alike.
        self.rank: Callable[[str, Job], Rank] = lambda name, job: priority.urgent() if job.urgent else priority.DEFAULT
        # Told of each job back before it is applied (lockstep runs: a conversation's next line is
        # asked then, conversations.ask_ahead); None: nobody is.
        self.on_back: Callable[[str, Job, Result], None] | None = None

    # -- looking -----------------------------------------------------------------------
    def current(self, name: str) -> Job | None:
        """The resident's job in flight (or finished and not yet applied), if any."""
        return self._running.get(name)

    def has_waiting(self, name: str) -> bool:
        return bool(self._waiting.get(name))

    def free(self, name: str) -> bool:
        """No job recorded for the resident and none on the pool under its key."""
        return name not in self._running and not self.pool.busy(name)

    def running(self) -> dict[str, Job]:
        """A copy: name -> job in flight."""
        return dict(self._running)

    def waiting(self) -> list[tuple[str, Job]]:
        """Every waiting job, in order per resident."""
        return [(name, w.job) for name, q in self._waiting.items() for w in q]

    def count(self) -> int:
        """Jobs sent and not yet applied (in flight, or back and held)."""
        return len(self._running)

    def idle(self) -> bool:
        """Nothing on the pool, nothing held and nothing waiting."""
        return not (self._waiting or self._held or self.pool.in_flight())

    def wait_sent(self) -> None:
        """Block until every job sent is back."""
        self.pool.wait()

    def back(self, name: str) -> Result | None:
        """The resident's job's result, back and not yet applied (None: none is)."""
        return self._held.get(name)

    def due_step(self, name: str) -> int | None:
        """The step the resident's job in flight is applied at (None: no job)."""
        return self._due.get(name)

    def unanswered(self, due_by: dict[str, int], collect: bool = True) -> set[str]:
        """Of the residents in ``due_by`` (name -> a step), those with a job to be applied
        by that step that is not back yet (game/sim/clocks.py: a group steps when none
        of its own are). Never blocks. ``collect=False``: as of the last ``collect``."""
        if collect:
            self.collect()
        return {name for name, step in due_by.items()
                if self._due.get(name, step + 1) <= step and name not in self._held}

    def wait_due(self, step: int) -> None:
        """Block until every job to be applied by ``step`` is back (lockstep)."""
        keys = {name for name, due in self._due.items() if due <= step and name not in self._held}
        if keys:
            self.pool.wait_keys(keys)

    # -- sending -----------------------------------------------------------------------
    def submit(self, name: str, job: Job, fn: Callable[..., object], *args: object) -> bool:
        """Run ``fn(*args)`` now as the resident's job; False when its key is taken."""
        return self.submit_as_of(self.step, name, job, fn, *args)

    def submit_as_of(self, step: int, name: str, job: Job, fn: Callable[..., object], *args: object) -> bool:
        """``submit``, as if sent at ``step`` (applied ``think_steps`` after it): a job asked
        before the step that would ask it, with what that step would give it."""
        if not self.pool.submit(name, fn, *args, rank=self.rank(name, job)):
            return False
        self._sent(name, job, step)
        return True

    def _sent(self, name: str, job: Job, step: int | None = None) -> None:
        self._running[name] = job
        self._due[name] = (self.step if step is None else step) + self.think_steps

    def queue(self, name: str, job: Job, fn: Callable[..., object], *args: object, submit: bool = True) -> None:
        """Run ``fn(*args)`` as the resident's next job: now if its key is free, else
        after the job in flight (``submit=False``: at the next step, a load)."""
        self._waiting.setdefault(name, []).append(Waiting(job, fn, args))
        if submit:
            self.submit_waiting(name)

    def submit_waiting(self, name: str) -> bool:
        """Submit the resident's next waiting job if its key is free; True if one waits."""
        q = self._waiting.get(name)
        if not q:
            return False
        if name in self._running or self.pool.busy(name):
            return True
        w = q[0]
        if self.pool.submit(name, w.fn, *w.args, rank=self.rank(name, w.job)):
            q.pop(0)
            self._sent(name, w.job)
        if not q:
            self._waiting.pop(name, None)
        return True

    def submit_all_waiting(self) -> None:
        for name in list(self._waiting):
            self.submit_waiting(name)

    # -- results -----------------------------------------------------------------------
    def finished(self, due_only: bool = True, only: frozenset[str] | None = None) -> list[tuple[Result, Job]]:
        """(result, job) for every job back and due by now (``due_only=False``: every
        job back, due or not: a drain), in resident-name order; ``only``: of these
        residents (a group's step). Every such job is popped first: a resident whose
        result is in this batch is free (e.g. to be talked to) while the others are applied."""
        self.collect()
        ready = sorted(name for name in self._held if (not due_only or self._due.get(name, 0) <= self.step)
                       and (only is None or name in only))
        batch = []
        for name in ready:
            self._due.pop(name, None)
            batch.append((self._held.pop(name), self._running.pop(name)))
        return batch

    def collect(self) -> None:
        """Take the pool's finished jobs now: a resident's job is held until applied
        (``unanswered(..., collect=False)`` reads what was taken)."""
        for res in self.pool.results():
            if res.key in self._running:
                self._held[res.key] = res
                if self.on_back is not None:
                    self.on_back(res.key, self._running[res.key], res)
            else:
                log.warning("result for %s without a job record; ignored", res.key)

    def clear(self) -> None:
        """Forget every job (a load: jobs in flight are asked again)."""
        self._running = {}
        self._waiting = {}
        self._due = {}
        self._held = {}


__all__ = ["CALL", "DECIDE", "END_CONVERSATION", "GREET", "MEMO_WAIT", "PREPARE", "UTTER", "Job", "JobQueue",
           "OnResult", "Pool", "Result", "Waiting", "urgent_key"]
