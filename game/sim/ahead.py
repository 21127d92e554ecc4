"""Out-of-order stepping (headless runs): a resident's next decision is asked of its
mind before its step comes, whenever nothing can change that question meanwhile,
so the model works on later steps while the clock waits for the answers due now.

The idea is AI Metropolis' (arXiv 2411.03519): a resident only waits for those
that could affect it. Here the town still steps as one, in order, exactly as in
lockstep; what runs out of order is the minds' work. The simulation's only
inputs to a mind are the calls it makes (``mind.decide(situation)``, ...), and
a deterministic model gives the same answer to the same call on the same mind,
so a call made early gives the answer lockstep would get, provided

1. the call is exactly the one the step makes: checked, not assumed. The job
   asked early records its call; when the step comes, ``JobQueue.submit``
   takes it as the step's job only if the simulation makes that very call
   (the same situation, field by field). Any other call for the resident, or
   none by then, undoes it first: the mind is put back as it was before the
   job began (``Mind.snapshot`` taken when it was asked, ``from_state``).
2. nothing else reads or changes the mind in between: the resident has no
   job in flight and none waiting when asked; every later job of its goes
   through ``submit`` (so the check above); saves and the run's end come after
   a ``horizon`` no early job reaches past (``Simulation.horizon``).

Which calls are asked early is a prediction; the check makes a wrong one cost
time, never a different run. The prediction is the next action asked ahead
(decisions.ask_ahead, ``lookahead_min`` before the current action ends) of a
resident that stands at its place, with no job, nothing new in view, and
nobody who could change what it sees before then:

- asleep: nothing (a sleeper sees nothing, and nobody talks to it);
- awake: no other body within ``vision_radius`` plus the tiles it can walk
  until then (one a step; this also covers the talk radius and a conversation's
  start, checked against the vision radius), no other body holding an object it
  sees (that object's state changes when it lets go) or acting in its arena
  (what an action leaves behind changes objects anywhere in its arena), no
  after-use state in view running out, and the same day throughout (a new day
  asks again).

A world edit from outside (the console) is not predicted: the check catches it.
"""
from __future__ import annotations

import logging
import math
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from agents import priority
from game.sim import decisions
from game.sim.bodies import Body
from game.sim.jobs import Job
from game.sim.settings import STEP
from game.world.grid import chebyshev

if TYPE_CHECKING:  # type hints only: the simulation imports this module
    from game.sim.core import Simulation

log = logging.getLogger(__name__)

# Jobs asked early go to the pool after every job a step waits for (the model's
# instances serve the lowest rank first, call by call).
EARLY_RANK_OFFSET_S = 10_000_000.0


def ask_time(sim: Simulation, b: Body) -> datetime | None:
    """When lockstep will ask ``b``'s mind for its next action ahead, if it is sure to
    be asked exactly then what it would be asked now (see the module's rules); None
    when it cannot be told."""
    s = sim.settings
    name = b.name
    if b.visitor or b.controlled or name not in sim.minds or not sim.lockstep:
        return None
    if not sim.jobs.free(name) or sim.jobs.has_waiting(name) or sim.jobs.early(name) is not None:
        return None
    if b.conversation is not None or sim.held(name) or b.walking or b.urgent:
        return None
    a = b.action
    if a is None or b.next_action is not None or b.ahead_for == a.end or a.talking_to:
        return None
    if b.not_before is not None and sim.now < b.not_before:
        return None
    lead = timedelta(minutes=s.lookahead_min * (2 if b.asleep else 1))
    k = max(1, math.ceil((a.end - lead - sim.now) / STEP))
    at = sim.now + k * STEP
    if at >= a.end or sim.horizon is None or at >= sim.horizon:
        return None
    if b.asleep:
        return at
    if b.new_events or at.date() != sim.now.date() or b.asked_day != at.date().isoformat():
        return None
    return at if alone(sim, b, k, at) else None


def alone(sim: Simulation, b: Body, steps: int, at: datetime) -> bool:
    """Whether nobody and nothing can change what ``b`` (awake, standing still) sees,
    or who may talk to it, within ``steps`` steps (up to ``at``)."""
    reach = max(sim.settings.vision_radius, sim.settings.talk_radius) + steps + 1
    here = sim.area(b.tile)
    in_view = objects_in_view(sim, b)
    for o in sim.bodies.values():
        if o is b:
            continue
        if chebyshev(o.tile, b.tile) <= reach:
            return False  # it could walk into view, or up to talk
        if o.held_object is not None and o.held_object in in_view:
            return False  # when it lets go, the object's state changes
        if o.target and ":".join(o.target.split(":")[:3]) == here:
            return False  # what it leaves behind, anywhere in the arena
    # ... and no after-use state in view runs out
    return not any(until <= at and addr in in_view for addr, (_, until) in sim.lingering.items())


def objects_in_view(sim: Simulation, b: Body) -> set[str]:
    """Every object (with a state) ``b`` could see from where it stands."""
    got = sim.early_views.get(b.tile)
    if got is None:
        r = sim.settings.vision_radius
        here = sim.area(b.tile)
        out = set()
        for addr in sim.town.object_states:
            for t in sim.places.tiles_of_object(addr):
                if chebyshev(t, b.tile) <= r and sim.area(t) == here:
                    out.add(addr)
                    break
        got = sim.early_views[b.tile] = frozenset(out)
    return set(got)


def situation_at(sim: Simulation, b: Body, at: datetime) -> Any:
    """The situation ``decisions.ask_ahead`` will hand ``b``'s mind at ``at``, as it
    stands now (nothing around it changes until then: ``ask_time``)."""
    a = b.action
    assert a is not None
    sit = replace(sim.situation(b.name), now=at, plan_at=a.end, action_done=True)
    if b.asleep:
        sit.events, sit.can_talk_to = [], []
    return sit


def step(sim: Simulation) -> None:
    """After the step's decisions are asked: undo what was asked early and not asked
    for by now, then ask early, soonest first, while the pool has a free worker."""
    jobs = sim.jobs
    for name in jobs.early_names():
        early = jobs.early(name)
        if early is not None and early.at <= sim.now:
            jobs.undo_early(name)  # its step came and asked something else, or nothing
    room = getattr(sim.pool, "concurrency", 1) - sim.pool.in_flight()
    if room <= 0:
        return
    due = []
    for b in sim.bodies.values():
        at = ask_time(sim, b)
        if at is not None:
            due.append((at, b.name))
    due.sort()
    for at, name in due[:room]:
        ask(sim, sim.bodies[name], at)


def ask(sim: Simulation, b: Body, at: datetime) -> bool:
    """Ask ``b``'s mind now for the decision lockstep asks at ``at``."""
    mind = sim.minds[b.name]
    snapshot, restore = getattr(mind, "snapshot", None), getattr(mind, "from_state", None)
    if not callable(snapshot) or not callable(restore):
        return False  # a mind that cannot be put back is never asked early
    a = b.action
    assert a is not None
    # What ask_ahead reads of the mind before asking, read now: the mind is idle now, not then.
    hints = {"decided": decisions._steps_decided(sim, b, a.end), "asks": decisions._chunk_asks(sim, b, a.end)}
    before = snapshot()

    def undo() -> None:
        restore(before())

    sit = situation_at(sim, b, at)
    job = Job.decide("ahead", at, need=a.end)
    rank = sim.rank_of(b.name, job)
    rank = priority.town(rank[1] + EARLY_RANK_OFFSET_S) if not priority.is_urgent(rank) else rank
    return sim.jobs.ask_early(b.name, at, mind.decide, (sit,), rank, undo, hints)


__all__ = ["alone", "ask", "ask_time", "objects_in_view", "situation_at", "step"]
