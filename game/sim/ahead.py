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
   through ``submit`` (so the check above); a save takes the mind as it was
   when asked (``Early.before``), and the run's end undoes what is left
   (nothing is asked for a step past ``Simulation.horizon``, the run's end).

Which calls are asked early is a prediction; the check makes a wrong one cost
time, never a different run. The predictions are the next action asked ahead
(decisions.ask_ahead, ``lookahead_min`` before the current action ends): in
this action, where the resident stands; in the next action decided ahead, at
the same place; and on the way, from the first step of a resident setting off
(its path worked out as the path service will). Each only when nothing can
change the question before then (``alone``): everyone who could walk into the
resident's arena by then stands still, doing what it does, with nothing new
noticed (and so on for their neighbours); nobody else holds an object they see
or acts in their arenas; no after-use state in view runs out; the same day
throughout. A sleeper sees nothing and is talked to by nobody. The one rule
that is likely rather than certain: a neighbour whose next action is asked
ahead meanwhile keeps it for later (``still``). A world edit from outside (the
console) is not predicted: the check catches it. docs/stepping.md has the
table of couplings, the proof and the figures.
"""
from __future__ import annotations

import copy
import logging
import math
import random
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Protocol

import numpy as np

from agents import Action, Rank, Situation, after_use, priority
from game.sim import conversations, decisions, movement
from game.sim.bodies import Body, is_sleep
from game.sim.jobs import Job, Pool
from game.sim.path_service import PathService
from game.sim.settings import STEP, SimSettings
from game.world import astar
from game.world.grid import Tile, chebyshev

log = logging.getLogger(__name__)

# Jobs asked early go to the pool after every job a step waits for (the model's
# instances serve the lowest rank first, call by call).
EARLY_RANK_OFFSET_S = 10_000_000.0
MAX_EARLY = 1  # jobs asked early on the pool at once


class AheadSim(decisions.DecisionsSim, Protocol):
    """What asking ahead uses of the simulation, besides deciding: the pool, the horizon,
    the workers kept spare, its map lookups, the path service's queue and graph, the ranks."""

    @property
    def paths(self) -> PathService: ...

    @property
    def pool(self) -> Pool: ...

    @property
    def horizon(self) -> datetime | None: ...

    @property
    def early_spare(self) -> int: ...

    @property
    def early_views(self) -> dict[Any, Any]: ...

    def rank_of(self, name: str, job: Job) -> Rank: ...


def prediction(sim: AheadSim, b: Body) -> tuple[datetime, Situation] | None:
    """When lockstep will next ask ``b``'s mind (its next action, asked ahead) and the
    situation it will hand it, if nothing can change either before then (the module's
    rules); None when it cannot be told."""
    name = b.name
    if b.visitor or b.controlled or name not in sim.minds or not sim.lockstep or sim.horizon is None:
        return None
    if not sim.jobs.free(name) or sim.jobs.has_waiting(name) or sim.jobs.early(name) is not None:
        return None
    if b.conversation is not None or sim.held(name) or b.urgent:
        return None
    a = b.action
    if a is None or a.talking_to or (b.not_before is not None and sim.now < b.not_before):
        return None
    if b.walking:
        return _asked_on_the_way(sim, b, a) if b.next_action is None else None
    if b.next_action is None:
        return _asked_in_this_action(sim, b, a)
    return _asked_in_the_next(sim, b, a, b.next_action)


def _first_step(sim: AheadSim, t: datetime) -> tuple[int, datetime]:
    """The first step to come (after this one) whose time is at or past ``t``: (steps, its time)."""
    k = max(1, math.ceil((t - sim.now) / STEP))
    return k, sim.now + k * STEP


def _lead(sim: AheadSim, asleep: bool) -> timedelta:
    """decisions.ask_ahead's look-ahead in lockstep (twice before waking)."""
    return timedelta(minutes=sim.settings.lookahead_min * (2 if asleep else 1))


def _awake_same_day(sim: AheadSim, b: Body, at: datetime) -> bool:
    """No reaction and no new day can come first: nothing new noticed yet, one day throughout."""
    return not b.new_events and at.date() == sim.now.date() and b.asked_day == at.date().isoformat()


def _asked_in_this_action(sim: AheadSim, b: Body, a: Action) -> tuple[datetime, Situation] | None:
    """``b`` stands at its place with nothing decided ahead: it is asked ahead once its
    action is within the look-ahead of its end, where it stands now."""
    if b.ahead_for == a.end:
        return None
    k, at = _first_step(sim, a.end - _lead(sim, b.asleep))
    if at >= a.end or at >= _horizon(sim):
        return None
    if not b.asleep and not (_awake_same_day(sim, b, at) and alone(sim, b, k, at)):
        return None
    sit = replace(sim.situation(b.name), now=at, plan_at=a.end, action_done=True, can_talk_to=talk_at(sim, b, at))
    if b.asleep:
        sit.events, sit.can_talk_to = [], []
    return at, sit


def _asked_in_the_next(sim: AheadSim, b: Body, a: Action, nxt: Action) -> tuple[datetime, Situation] | None:
    """``b`` has its next action decided ahead, at the same place: it starts when this one
    is done (decisions.start_next), and is asked ahead the step after, when it is short
    (within the look-ahead). What it sees then is what it sees now, with what its own
    change of action does to the objects around it (objects.release_object,
    leave_behind, hold_object: worked out here on copies)."""
    s = sim.settings
    if b.arrived_at is None:
        return None
    done_at = a.end
    stay = b.arrived_at + timedelta(minutes=s.min_stay_min)
    if a.end < stay:
        done_at = max(done_at, stay)  # decisions.action_done: seen at its place for a moment
    k, t = _first_step(sim, done_at)
    new = decisions.clean_action(sim, nxt, now=t)
    if sim.resolve(new.address) != b.target or b.target is None:
        return None  # it walks somewhere: where it will stand depends on the paths of others
    at = t + STEP
    asleep = is_sleep(new)
    if not (new.end <= at + _lead(sim, asleep) and at < new.end) or b.ahead_for == new.end or at >= _horizon(sim):
        return None
    if not (b.asleep or _awake_same_day(sim, b, at)) or not alone(sim, b, k + 1, at, changes=True):
        return None
    states, held = _objects_after(sim, b, a, new, t, at)
    keep = b.held_object
    b.held_object = held  # perceive() leaves out what it holds itself; put back at once
    try:
        events = sim.perceive(b.name, [(addr, st) for addr, st in states.items() if st and st != "idle"])
    finally:
        b.held_object = keep
    sit = Situation(now=at, address=sim.town.address_at(*b.tile) or sim.area(b.tile), action=replace(new),
                    events=events, seen_addresses=sim.seen_addresses(b.tile), can_talk_to=talk_at(sim, b, at),
                    action_done=True, plan_at=new.end)
    if asleep:
        sit.events, sit.can_talk_to = [], []
    return at, sit


def _asked_on_the_way(sim: AheadSim, b: Body, a: Action) -> tuple[datetime, Situation] | None:
    """``b`` has just begun an action elsewhere (decisions.set_action this step) and waits
    for its path, searched at the next step's start: then it takes its first step, and,
    its action being short, is asked ahead. Where that first step leads is worked out
    here as the path service will (the same goal tiles, the same search), when nothing
    can change it: none of the goal tiles taken by anyone (standing or heading there),
    no search before its own towards the same arena, no random pick among the goal
    tiles."""
    s = sim.settings
    req = sim.paths.queue.get(b.name)
    if b.path or req is None or req.kind != "place" or req.search is not None or req.target != b.target:
        return None
    at = sim.now + STEP
    asleep = is_sleep(a)
    if not (a.end <= at + _lead(sim, asleep) and at < a.end) or b.ahead_for == a.end or at >= _horizon(sim):
        return None
    if not (asleep or _awake_same_day(sim, b, at)):
        return None
    target = req.target or ""
    arena = ":".join(target.split(":")[:3])
    for name, other in sim.paths.queue.items():
        if name == b.name:
            break
        there = other.target or ""
        if other.kind != "place" or ":".join(there.split(":")[:3]) == arena or there.count(":") < 3:
            return None  # searched first: it may stop on one of its goal tiles, or draw a random pick
    path = _first_path(sim, b, target, s)
    if path is None:
        return None
    tile = path[1] if len(path) > 1 else b.tile
    arrives = len(path) <= 2
    if not alone(sim, b, 2, at, changes=True) or not alone(sim, b, 2, at, changes=True, tile=tile):
        return None
    held = target if arrives and a.object_state and target in sim.town.object_states else None
    states = dict(sim.town.object_states)
    if held is not None:
        states[held] = str(a.object_state)
    keep = b.tile, b.held_object
    b.tile, b.held_object = tile, held  # perceive() looks from the body: put back at once
    try:
        events = sim.perceive(b.name, [(addr, st) for addr, st in states.items() if st and st != "idle"])
    finally:
        b.tile, b.held_object = keep
    sit = Situation(now=at, address=sim.town.address_at(*tile) or sim.area(tile), action=replace(a), events=events,
                    seen_addresses=sim.seen_addresses(tile), can_talk_to=talk_at(sim, b, at, tile),
                    action_done=True, plan_at=a.end)
    if asleep:
        sit.events, sit.can_talk_to = [], []
    return at, sit


def _first_path(sim: AheadSim, b: Body, target: str, s: SimSettings) -> list[Tile] | None:
    """The path the path service will find for ``b`` to ``target`` at its next run
    (path_service._start and movement.goal_tiles, without the random pick: None
    where it would pick, or where anyone stands on, or heads for, a goal tile)."""
    town = sim.town
    g = sim.paths.graph
    start = b.tile
    node = g.node(start)
    if node is None:
        return None  # standing somewhere blocked: stepped off first
    cands = movement.stand_tiles(town, target, start)
    if not cands:
        return None
    taken = set()
    for o in sim.bodies.values():
        if o is not b:
            taken.add(o.tile)
            if o.path:
                taken.add(o.path[-1])
    if any(t in taken for t in cands):
        return None  # free now, maybe not then: which goal tiles count is not known
    if start in cands:
        return [start]
    goals = cands
    if target.count(":") < 3 and len(cands) > 6:
        # A random pick of six from the simulation's generator, shared by all: nothing draws
        # from it before this search (no search before it that could: _asked_on_the_way).
        pick = random.Random()
        pick.setstate(sim.rng.getstate())
        goals = pick.sample(cands, 6)
    nodes = [n for n in (g.node(t) for t in goals) if n is not None and g.comp[n] == g.comp[node]]
    if not nodes:
        return None
    if node in nodes:
        return [start]
    cover = [n for n in (g.node(t) for t in cands) if n is not None]
    search = astar.Search(g, node, nodes, cover=cover or nodes)
    search.run(None)
    return list(search.path) if search.path else None


def talk_at(sim: AheadSim, b: Body, at: datetime, tile: Tile | None = None) -> list[str]:
    """perception.can_talk_to as it will be at ``at`` (those near stand still until
    then: ``alone``), with the conversations' cooldowns as they will be then, from
    where ``b`` stands (or ``tile``)."""
    tile = b.tile if tile is None else tile
    here = sim.area(tile)
    out = []
    before = True  # decisions.schedule asks the residents in this order within a step
    for o in sim.bodies.values():
        if o is b:
            before = False
            continue
        if o.visitor or o.name not in sim.minds:
            continue
        if chebyshev(o.tile, tile) > sim.settings.talk_radius or sim.area(o.tile) != here:
            continue
        if before and _asked_ahead_at(sim, o) == at:
            continue  # asked that step before ``b`` is: thinking, so not free to talk
        until = sim.cooldowns.get(conversations.pair_key(b.name, o.name))
        if conversations.free_to_talk(sim, o) and not (until is not None and at < until):
            out.append(o.name)
    return out


def _objects_after(sim: AheadSim, b: Body, old: Action, new: Action, t: datetime,
                   at: datetime) -> tuple[dict[str, str], str | None]:
    """Object states at ``at`` after ``b`` moves from ``old`` to ``new`` at the same place at
    ``t`` (the steps of objects.release_object, leave_behind, movement.arrive's hold_object
    and expire_lingering, on copies), and the object ``b`` then holds."""
    states = dict(sim.town.object_states)
    lingering = dict(sim.lingering)
    others = [o for o in sim.bodies.values() if o is not b]
    addr = b.held_object
    if addr:  # release_object
        user = next((o for o in others if o.held_object == addr and o.action and o.action.object_state), None)
        if user is not None and user.action is not None:
            states[addr] = str(user.action.object_state)
        elif addr in states:
            linger = lingering.get(addr)
            states[addr] = linger[0] if linger and t < linger[1] else "idle"
    target = b.target or ""
    arena = ":".join(target.split(":")[:3])
    parts = arena.split(":")
    if len(parts) >= 3:  # leave_behind
        names = sim.town.tree.get(parts[1], {}).get(parts[2], [])
        for obj, state, minutes in after_use(old.description, target, names):
            where = f"{arena}:{obj}"
            if where not in states:
                continue
            lingering[where] = (state, t + timedelta(minutes=minutes))
            if not any(o.held_object == where for o in others):
                states[where] = state
    held = None
    if new.object_state and target in states:  # arrive -> hold_object
        states[target] = new.object_state
        held = target
    holders = {o.held_object for o in others} | {held}
    for where, (state, until) in lingering.items():  # expire_lingering, at every step up to ``at``
        if until <= at and states.get(where) == state and where not in holders:
            states[where] = "idle"
    return states, held


def _horizon(sim: AheadSim) -> datetime:
    assert sim.horizon is not None
    return sim.horizon


def alone(sim: AheadSim, b: Body, steps: int, at: datetime, changes: bool = False,
          tile: Tile | None = None) -> bool:
    """Whether nobody and nothing can change what ``b`` (standing still) sees, or who
    may talk to it, within ``steps`` steps (up to ``at``).

    Perception, a conversation's start and what an action leaves behind all need a
    body in the same arena, so every body that could walk into ``b``'s arena by then
    (``walk_distances``) must stand still, doing what it does, with no decision of
    its own landing before then (``still``); and so must every body that could walk
    into one of those bodies' arenas (they would react to it), and so on. Nobody
    else may hold an object any of them sees, or act in their arenas; no after-use
    state they see may run out. ``changes``: ``b`` itself changes action meanwhile
    (the next action, at the same place): then nobody else in its arena may be
    awake to notice (or cooling down from its last decision). ``tile``: where ``b``
    will stand then, if not where it stands."""
    mine = b.tile if tile is None else tile
    here = sim.area(mine)
    members = {b.name}
    group = [b]
    in_view = set(objects_in_view(sim, b, mine))
    arenas = {here}
    i = 0
    while i < len(group):
        x = group[i]
        i += 1
        far = walk_distances(sim, here if x is b else sim.area(x.tile))
        for o in sim.bodies.values():
            if o.name in members or _distance(far, o.tile) > steps + 1:
                continue
            if not still(sim, o, at):
                return False  # it could walk into view, talk, react: what it does next is not known
            if changes and not o.asleep and sim.area(o.tile) == here and not _cooling(sim, o, at):
                return False  # it would notice the change and might react to it before then
            members.add(o.name)
            group.append(o)
            in_view |= objects_in_view(sim, o, o.tile)
            arenas.add(sim.area(o.tile))
    for o in sim.bodies.values():
        if o.name in members:
            continue
        if o.held_object is not None and o.held_object in in_view:
            return False  # when it lets go, the object's state changes
        if o.target and ":".join(o.target.split(":")[:3]) in arenas:
            return False  # what it leaves behind, anywhere in the arena (even acting where it stands)
    # ... and no after-use state in view runs out
    return not any(until <= at and addr in in_view for addr, (_, until) in sim.lingering.items())


def _cooling(sim: AheadSim, o: Body, at: datetime) -> bool:
    """Whether ``o`` cannot react to anything before ``at`` (decisions.schedule: one
    reaction per ``react_cooldown_min`` after its last decision)."""
    gap = timedelta(minutes=sim.settings.react_cooldown_min)
    return o.last_decide is not None and at - o.last_decide < gap


def still(sim: AheadSim, o: Body, at: datetime) -> bool:
    """Whether ``o`` stands where it is, doing what it does, until ``at``: no job, no
    conversation, nothing new noticed, its action lasting past ``at``. Its next action
    may be asked ahead before then: that answer is held until its action ends, so
    nothing changes, unless it talks to someone or acts at once, which the check at
    the step catches (a prediction, not a certainty). Asked at ``at`` itself, it is
    thinking then: ``talk_at`` leaves it out for those asked after it that step."""
    if o.visitor or o.controlled or o.name not in sim.minds:
        return False
    if o.walking or o.conversation is not None or o.urgent or sim.held(o.name):
        return False
    if not sim.jobs.free(o.name) or sim.jobs.has_waiting(o.name):
        return False
    a = o.action
    if a is None or a.talking_to or a.end <= at or (o.not_before is not None and sim.now < o.not_before):
        return False
    if not o.asleep and not _awake_same_day(sim, o, at):
        return False
    return True


def _asked_ahead_at(sim: AheadSim, o: Body) -> datetime | None:
    """When ``o`` (standing still, nothing decided ahead) is asked ahead."""
    a = o.action
    if a is None or o.next_action is not None or o.ahead_for == a.end:
        return None
    return _first_step(sim, a.end - _lead(sim, o.asleep))[1]


def _distance(far: np.ndarray, tile: tuple[int, int]) -> int:
    """Steps from ``tile`` into the arena ``far`` was made for (0 off the map's walkable
    part, e.g. a spawn on furniture: as near as can be)."""
    x, y = tile
    if not (0 <= y < far.shape[0] and 0 <= x < far.shape[1]):
        return 0
    d = int(far[y, x])
    if d >= UNREACHED:  # not walkable here: one step off, at most
        ring = far[max(0, y - 1):y + 2, max(0, x - 1):x + 2]
        d = int(ring.min()) + 1 if ring.size else 0
        return 0 if d > UNREACHED else d
    return d


UNREACHED = 1 << 30


def walk_distances(sim: AheadSim, area: str) -> np.ndarray:
    """Steps (one tile a step, diagonals too) from each walkable tile to the nearest
    walkable tile of ``area``; ``UNREACHED`` where none leads there. Per area, kept."""
    key = ("walk", area)
    got = sim.early_views.get(key)
    if got is not None:
        return got
    town = sim.town
    walk = np.asarray(town.walkable, dtype=bool)
    h, w = walk.shape
    far = np.full((h, w), UNREACHED, dtype=np.int64)
    ys, xs = np.nonzero(walk)
    src = np.zeros((h, w), dtype=bool)
    for y, x in zip(ys.tolist(), xs.tolist(), strict=True):
        if sim.area((x, y)) == area:
            src[y, x] = True
    reached = src.copy()
    far[reached] = 0
    d = 0
    while True:
        grown = reached.copy()
        grown[1:, :] |= reached[:-1, :]
        grown[:-1, :] |= reached[1:, :]
        grown[:, 1:] |= reached[:, :-1]
        grown[:, :-1] |= reached[:, 1:]
        g2 = grown.copy()
        g2[1:, 1:] |= reached[:-1, :-1]
        g2[:-1, :-1] |= reached[1:, 1:]
        g2[1:, :-1] |= reached[:-1, 1:]
        g2[:-1, 1:] |= reached[1:, :-1]
        new = g2 & walk & ~reached
        if not new.any():
            break
        d += 1
        far[new] = d
        reached |= new
    sim.early_views[key] = far
    return far


def objects_in_view(sim: AheadSim, b: Body, tile: Tile | None = None) -> set[str]:
    """Every object (with a state) ``b`` could see from where it stands (or ``tile``)."""
    tile = b.tile if tile is None else tile
    got = sim.early_views.get(tile)
    if got is None:
        r = sim.settings.vision_radius
        here = sim.area(tile)
        out = set()
        for addr in sim.town.object_states:
            for t in sim.places.tiles_of_object(addr):
                if chebyshev(t, tile) <= r and sim.area(t) == here:
                    out.add(addr)
                    break
        got = sim.early_views[tile] = frozenset(out)
    return set(got)


def step(sim: AheadSim) -> None:
    """After the step's decisions are asked: undo what was asked early and not asked
    for by now, then ask early, soonest first, while the pool has a free worker."""
    jobs = sim.jobs
    for name in jobs.early_names():
        early = jobs.early(name)
        if early is not None and early.at <= sim.now:
            jobs.undo_early(name)  # its step came and asked something else, or nothing
    # At most one job asked early at a time, and only into a free model instance: it must
    # not keep the step's own jobs waiting (a model call is not taken back once begun).
    early_running = sum(1 for name in jobs.early_names() if sim.pool.busy(name))
    room = min(getattr(sim.pool, "concurrency", 1) - sim.pool.in_flight() - sim.early_spare,
               MAX_EARLY - early_running)
    if room <= 0:
        return
    due = []
    for b in sim.bodies.values():
        got = prediction(sim, b)
        if got is not None:
            due.append((got[0], b.name, got[1]))
    due.sort(key=lambda d: (d[0], d[1]))
    for at, name, sit in due[:room]:
        ask(sim, sim.bodies[name], at, sit)


def ask(sim: AheadSim, b: Body, at: datetime, sit: Situation) -> bool:
    """Ask ``b``'s mind now for the decision lockstep asks at ``at`` with ``sit``."""
    mind = sim.minds[b.name]
    snapshot, restore = getattr(mind, "snapshot", None), getattr(mind, "from_state", None)
    if not callable(snapshot) or not callable(restore):
        return False  # a mind that cannot be put back is never asked early
    end = sit.plan_at or at
    # What ask_ahead reads of the mind before asking, read now: the mind is idle now, not then.
    hints = {"decided": decisions._steps_decided(sim, b, end), "asks": decisions._chunk_asks(sim, b, end)}
    # The mind as it is now, copied whole now: a snapshot's parts are built later (for a
    # save, off the main thread) from objects the job may change in place meanwhile.
    state = copy.deepcopy(snapshot()())

    def before() -> dict:  # a save's copy (the writer may change what it is given)
        return copy.deepcopy(state)

    def undo() -> None:
        restore(before())

    job = Job.decide("ahead", at, need=end)
    rank = sim.rank_of(b.name, job)
    rank = priority.town(rank[1] + EARLY_RANK_OFFSET_S) if not priority.is_urgent(rank) else rank
    return sim.jobs.ask_early(b.name, at, mind.decide, (sit,), rank, undo, before, hints)


__all__ = ["alone", "ask", "objects_in_view", "prediction", "step"]
