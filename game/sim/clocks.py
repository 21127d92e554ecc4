"""A clock per resident: out-of-order stepping for headless runs (``smallville sim
--out-of-order``).

Lockstep steps the whole town as one: each step waits for every answer due on it,
so a conversation in one house holds up the whole town, though nothing connects
it to the next house's. Here each resident has its own clock (a step count).
Residents who could touch each other at once step together, as a group, one
``Simulation.step_group`` at a time; a group runs ahead of the residents behind
it for as long as nothing either side does meanwhile can reach the other (AI
Metropolis' rule, Xie et al., arXiv 2411.03519). A group steps when its answers
due are back; the model works on every group's questions at once.

What can pass between two residents, and so what must keep them apart (every
other part of a step is the resident's own: its mind, its body, its jobs, its
random picks, ``movement.pick``):

- seeing a body, starting a conversation: the same area (arena, sector or the
  outdoors) and within the vision radius, at the same time;
- objects: one's action or its end sets an object's state, the other sees it;
  objects are seen, held, left behind (``objects.leave_behind``) and let go of
  only within sight of a body in the same area, so both stand in that area
  within ``TOUCH`` of the object, at whatever times;
- what a body avoids when it sets off or arrives: the bodies in its own area.

So two residents can only ever reach each other where both can be in one area
and within ``2 * touch`` tiles of each other. A resident walks a tile a step at
most, and not at all while it stands at its place until its action ends (or an
answer of its mind lands, a new day begins, a state in its sight runs out:
``_still_until``). So for one at step ``ta`` about to step and one behind at
``tb``: the first may have walked ``ra`` tiles since ``tb`` (since it last stood
still) and take this step; the second may walk ``rb`` tiles by ``ta + 1`` (from
when it could first move). They are apart when, for every area, one of them
cannot walk into it within its steps, or they stand more than ``2 * touch + ra +
rb`` tiles apart (``Reach.apart``). Residents on one clock who are not apart for
one step step together (``Reach.joined``). The residents with the lowest clock
can always step, so the town never stalls.

With a deterministic model the run is the lockstep run: the same events in the
same order (a step's events are logged by resident, ``core.in_log_order``, both
ways), the same timeline, the same saves. Saves, the run's end and the callers'
barriers (``run_to``) bring every clock to one time first. ``on_step`` callers
see the town's floor: the slowest residents' time.
"""
from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from game.sim import objects
from game.sim.core import Simulation, in_log_order
from game.sim.settings import STEP

log = logging.getLogger(__name__)

JUMP = 5  # a body on a blocked tile steps off this far at once, at most (Places.nearest_walkable)
AHEAD = 90  # steps a group may run ahead of the slowest (15 sim minutes): bounds what is held back
CAP = AHEAD + 2 * JUMP + 4  # the walk-distance fields reach this far (further counts as "at least")


def _field(inside: np.ndarray, walkable: np.ndarray, cap: int) -> np.ndarray:
    """Steps from every tile into ``inside`` (walking 8 ways over walkable tiles, one a
    step), ``cap`` where it is ``cap`` or more. A blocked tile gets the steps from its
    walkable neighbours, but no walk goes through it."""
    dist = np.full(inside.shape, cap, np.int16)
    dist[inside] = 0
    reached = inside.copy()
    frontier = inside.copy()
    for k in range(1, cap):
        grown = np.zeros_like(frontier)
        grown[1:, :] |= frontier[:-1, :]
        grown[:-1, :] |= frontier[1:, :]
        grown[:, 1:] |= frontier[:, :-1]
        grown[:, :-1] |= frontier[:, 1:]
        grown[1:, 1:] |= frontier[:-1, :-1]
        grown[:-1, :-1] |= frontier[1:, 1:]
        grown[1:, :-1] |= frontier[:-1, 1:]
        grown[:-1, 1:] |= frontier[1:, :-1]
        new = grown & ~reached
        if not new.any():
            break
        dist[new] = k
        reached |= new
        frontier = new & walkable
    return dist


class Reach:
    """How far apart residents are, for the rule above: walking steps from each tile
    into each area of the map, and the touch range."""

    def __init__(self, sim: Simulation) -> None:
        town = sim.town
        walkable = np.asarray(town.walkable, dtype=bool)
        h, w = walkable.shape
        ids = np.empty((h, w), np.int32)
        index: dict[str, int] = {}
        for y in range(h):
            for x in range(w):
                ids[y, x] = index.setdefault(sim.area((x, y)), len(index))
        self.walkable = walkable
        self.fields = np.stack([_field(ids == i, walkable, CAP) for i in range(len(index))])
        self.touch = sim.settings.vision_radius + 2  # an object in sight, from a step further (its use tile)

    def slack(self, tiles: np.ndarray) -> np.ndarray:
        """Tiles a body may move in one go besides its step: ``JUMP`` off a blocked tile."""
        return np.where(self.walkable[tiles[:, 1], tiles[:, 0]], 0, JUMP)

    def apart(self, a: np.ndarray, b: np.ndarray, ra: np.ndarray, rb: np.ndarray) -> np.ndarray:
        """For residents at tiles ``a`` (k x 2) and ``b`` (m x 2), who may walk ``ra`` (k x m)
        and ``rb`` (m) steps from there in the time between them: (k x m) True where
        nothing one does in that time can reach the other (the rule above)."""
        sa, sb = self.slack(a), self.slack(b)
        ra = ra + sa[:, None]
        rb = rb + sb
        cheb = np.maximum(np.abs(a[:, None, 0] - b[None, :, 0]), np.abs(a[:, None, 1] - b[None, :, 1]))
        out = cheb > 2 * self.touch + ra + rb[None, :]
        ii, jj = np.nonzero(~out)  # near enough to touch: could both walk into one area in time?
        if ii.size:
            wa = self.fields[:, a[:, 1], a[:, 0]]  # areas x k
            rows = np.flatnonzero((wa <= ra.max(axis=1)[None, :]).any(axis=1))  # the areas ``a`` could reach
            wa = wa[rows][:, ii]
            wb = self.fields[rows[:, None], b[jj, 1][None, :], b[jj, 0][None, :]]
            out[ii, jj] = ~((wa <= ra[ii, jj][None, :]) & (wb <= rb[jj][None, :])).any(axis=0)
        return out

    def joined(self, tiles: np.ndarray, moves: np.ndarray, clock: np.ndarray,
               among: np.ndarray | None = None) -> np.ndarray:
        """The pairs (p x 2) of residents at ``tiles`` on one ``clock`` who are not apart for
        one step (``apart``, each walking ``moves``, 0 or 1, but looking only at the areas
        each is within reach of: a town of hundreds asks this every round, so every area's
        pairs are made at once). ``among``: only the pairs with one of these (a mask) in
        them. A pair may come more than once, either way round."""
        r = moves + self.slack(tiles)
        w = self.fields[:, tiles[:, 1], tiles[:, 0]]  # areas x residents
        areas, who = np.nonzero(w <= r[None, :])  # by area, then resident
        end = np.searchsorted(areas, areas, side="right")
        # each entry with the entries after it in its area; with ``among``, each of its entries
        # with every entry in its area
        if among is None:
            mine, start = np.arange(len(areas)), np.arange(len(areas)) + 1
        else:
            mine = np.flatnonzero(among[who])
            start = np.searchsorted(areas, areas[mine], side="left")
        count = end[mine] - start
        p = np.repeat(mine, count)
        q = np.repeat(start - np.cumsum(count) + count, count) + np.arange(len(p))
        a, b = who[p], who[q]
        reach = 2 * self.touch + r[a] + r[b]
        ok = ((a != b) & (clock[a] == clock[b]) & (np.abs(tiles[a, 0] - tiles[b, 0]) <= reach)
              & (np.abs(tiles[a, 1] - tiles[b, 1]) <= reach))
        return np.stack([a[ok], b[ok]], axis=1)


@dataclass
class Pose:
    """What the recording reads of a body at one step (game/runs/recording.py)."""

    name: str
    tile: tuple[int, int]
    facing: str
    action: Any
    conversation: int | None
    target: str | None


@dataclass
class Frame:
    """The town at one step, pieced together from residents stepping apart: what a
    recording samples (``Recorder.after_step(sim, frame)``)."""

    now: datetime
    bodies: dict[str, Pose]
    object_states: dict[str, str]


@dataclass
class _Held:
    """What the groups' steps made for one step, held until every resident is past it."""

    events: list[dict] = field(default_factory=list)  # logged in the step
    poses: dict[str, Pose] = field(default_factory=dict)  # the bodies after it
    objects: dict[str, str] = field(default_factory=dict)  # object states it changed


class GroupClocks:
    """The residents' clocks of one headless run, and the stepping by groups."""

    def __init__(self, sim: Simulation, on_frame: Callable[[Frame], None] | None = None) -> None:
        if sim.visitor is not None or sim.controlled is not None:
            raise ValueError("residents step on their own clocks only without a player in town")
        self.sim = sim
        self.on_frame = on_frame
        self.names = sorted(sim.minds)
        self.clock = np.full(len(self.names), sim.steps, np.int64)
        self.still_since = self.clock.copy()  # the step since which each has stood where it stands
        self.base_now, self.base_steps = sim.now, sim.steps
        self.reach = Reach(sim)
        self.held: dict[int, _Held] = {}
        self.states = dict(sim.town.object_states)  # as the last group's step left them
        sim.town.object_states.take_changes()
        self.frame_states = dict(self.states)  # as the floor's frame shows them
        self.lingering = dict(sim.lingering)  # what is left behind, as the last group's step left it
        self.overdue: dict[int, dict[str, tuple[str, datetime]]] = {}  # step due -> left behind, run out late
        self.shown: set[tuple[str, tuple[str, datetime]]] = set()  # run out in the frames already
        self.group_steps = 0  # group steps taken (a step of the whole town is one per group)
        self.town_steps = 0  # steps the floor moved on
        self.most_ahead = 0  # the furthest any resident ran ahead of the slowest (steps)
        self.waits = 0  # times no group could step until an answer came back
        self.check = os.environ.get("SMALLVILLE_CHECK_CLOCKS") == "1"
        self.tiles = np.zeros((len(self.names), 2), np.int64)  # where each stands (_refresh)
        self.still = self.clock.copy()  # the first step each could move at (_still_until)
        self._left: np.ndarray | None = None  # the tiles of what is left behind, and when each runs out
        # Each resident's count of changes (it stepped, or when it could move changed). The pairs joined
        # for a step are worked out again only for those whose count moved since (``dirty``); a group held
        # back by some behind it keeps its clock, those residents and their counts: while those have not
        # changed the group is still held back, and the round does not ask again.
        self.version = np.zeros(len(self.names), np.int64)
        self.pairs: np.ndarray | None = None  # who is joined to whom for a step (_groups)
        self.pairs_at = self.version.copy()  # the counts the pairs were made at
        self.grouped: list[list[int]] = []
        self.blocked: dict[tuple[int, ...], tuple[int, np.ndarray, np.ndarray]] = {}
        # a group -> its step and the answers it waits for there
        self.awaiting: dict[tuple[int, ...], tuple[int, dict[str, int]]] = {}

    # -- time ------------------------------------------------------------------------------
    def now_at(self, step: int) -> datetime:
        return self.base_now + (step - self.base_steps) * STEP

    @property
    def floor(self) -> int:
        return int(self.clock.min())

    def run_to(self, step: int, on_floor: Callable[[], bool] | None = None) -> bool:
        """Step every resident to ``step`` (a barrier: all at one time then, as lockstep
        leaves them). ``on_floor`` is called each time the slowest move on, with the
        simulation at their time; True from it stops the run there (everyone then
        brought to the furthest clock reached). Returns whether it was stopped."""
        target = step
        stopped = False
        self.sim.held_events = []  # a group's events wait for the floor (_flush)
        self.sim.ask_ahead_before = target  # a reply is asked ahead only as of a step before the barrier
        self._refresh()
        try:
            while self.floor < target:
                moved = self._round(target)
                if self._flush() and on_floor is not None and not stopped and on_floor():
                    stopped, target = True, int(self.clock.max())
                    self.sim.ask_ahead_before = target
                if not moved:
                    self._wait()
        finally:
            self.sim.ask_ahead_before = None
        self._flush()
        self.sim.held_events = None
        self._at_barrier(target)
        return stopped

    # -- one round: every group that may step, steps once -----------------------------------
    def _round(self, target: int) -> bool:
        """Every group that may step now steps once. Each is checked against the town as the
        round found it (another group's step this round is within what the rule lets it
        walk), then the groups ready at one step take it together, as lockstep's town does:
        one pass of the step's phases for a few groups, not one for each."""
        sim, clock, tiles, still = self.sim, self.clock, self.tiles, self.still
        floor = self.floor
        ready: dict[int, list[list[int]]] = {}  # a step -> the groups that take it this round
        sim.jobs.collect()  # the answers back as of now: the whole round reads the same ones
        for members in self._groups(tiles, still):
            t = int(clock[members[0]])
            if t >= target or t - floor >= AHEAD:
                continue
            key = tuple(members)
            awaited = self.awaiting.get(key)
            if awaited is not None and awaited[0] == t and sim.jobs.unanswered(awaited[1], collect=False):
                continue  # an answer it waited for last round is still out: it still waits (a look at a few)
            names = frozenset(self.names[i] for i in members)
            out = sim.jobs.unanswered(dict.fromkeys(names, t), collect=False)
            if out:
                self.awaiting[key] = (t, dict.fromkeys(out, t))
                continue
            self.awaiting.pop(key, None)
            # Everyone not in the group up to its clock (those on it too: one may have caught up
            # since the groups were made) must be apart from it for as long as their clocks differ:
            # the group's members may have walked since the others' time (until they last stood
            # still) and take this step; each of the others may walk from when it could move.
            held = self.blocked.get(key)
            still_held = held is not None and held[0] == t and bool((self.version[held[1]] == held[2]).all())
            if still_held and not self.check:
                continue  # those who held it back last round are as they were: they still do
            behind = clock <= t
            behind[members] = False
            others = self._within_reach(members, np.flatnonzero(behind), t)
            if others.size:
                tb = clock[others]
                past = np.maximum(0, self.still_since[members][:, None] - tb[None, :])
                ra = np.maximum(past, (still[members] <= t).astype(np.int64)[:, None])
                rb = np.maximum(0, t + 1 - np.maximum(tb, still[others]))
                apart = self.reach.apart(tiles[members], tiles[others], ra, rb).all(axis=0)
                if not apart.all():
                    blockers = others[~apart]
                    self.blocked[key] = (t, blockers, self.version[blockers].copy())
                    continue
            if still_held:
                raise AssertionError(f"a group of {self.names[members[0]]} held back by residents who had not changed "
                                     "could step")  # only with SMALLVILLE_CHECK_CLOCKS: the skip above is sound
            self.blocked.pop(key, None)
            ready.setdefault(t, []).append(members)
        for t, groups in sorted(ready.items()):
            together = [i for members in groups for i in members]
            self._step(together, frozenset(self.names[i] for i in together), t, len(groups))
            for i in together:
                tile = sim.bodies[self.names[i]].tile
                if tuple(tiles[i]) != tuple(tile):
                    tiles[i] = tile
                    self.still_since[i] = clock[i]
                still[i] = self._still_until(i)
            self.version[together] += 1
        for kept in (self.awaiting, self.blocked):
            if len(kept) > 2 * len(self.grouped):  # groups that came apart since: forget them
                current = {tuple(g) for g in self.grouped}
                for key in [k for k in kept if k not in current]:
                    del kept[key]
        if self.check:
            self._check_kept()
        return bool(ready)

    @property
    def dirty(self) -> np.ndarray:
        """Who changed since the pairs were made (a mask)."""
        return self.version != self.pairs_at

    def _within_reach(self, members: list[int], others: np.ndarray, t: int) -> np.ndarray:
        """Of ``others`` (at or behind step ``t``), those not plainly apart from the group
        ``members`` at ``t``: within the most either side may walk (and jump) of the box
        the group stands in. ``Reach.apart`` decides for these; the rest it would find
        apart (a town of thousands has most residents far from any one group)."""
        if not others.size:
            return others
        tiles, tb = self.tiles, self.clock[others]
        box = tiles[members]
        lo, hi = box.min(axis=0), box.max(axis=0)
        gap = np.maximum(np.maximum(lo - tiles[others], tiles[others] - hi), 0).max(axis=1)
        ra = np.maximum(int(self.still_since[members].max()) - tb, 1)
        rb = np.maximum(0, t + 1 - np.maximum(tb, self.still[others]))
        return others[gap <= 2 * self.reach.touch + ra + rb + 2 * JUMP]

    def _refresh(self) -> None:
        """Where everyone stands and when each could next move, worked out afresh (a run's
        start, a barrier). Between, a round updates them only for those who stepped, and
        for those near a state left behind that changed (``_step``): nothing else moves
        a resident or changes when it could (``_check_kept`` proves it on a run)."""
        self._left = None
        self.blocked.clear()
        self.awaiting.clear()
        self.tiles = np.array([self.sim.bodies[n].tile for n in self.names], dtype=np.int64)
        self.still = np.array([self._still_until(i) for i in range(len(self.names))], dtype=np.int64)
        self.pairs = None

    def _check_kept(self) -> None:
        """``SMALLVILLE_CHECK_CLOCKS=1``: the tiles and times kept between rounds are those
        worked out afresh (tests and the seeded day run with it)."""
        tiles, still = self.tiles.copy(), self.still.copy()
        kept, pairs, blocked = self._groups(tiles, still), self.pairs, dict(self.blocked)
        self._refresh()
        self.blocked.update(blocked)  # go on from what held groups back (_round checks it, with self.check)
        wrong = [self.names[i] for i in np.flatnonzero((tiles != self.tiles).any(axis=1) | (still != self.still))]
        if wrong:
            raise AssertionError(f"kept tiles or times out of date for {', '.join(wrong[:5])}")
        if kept != self._groups(self.tiles, self.still):
            raise AssertionError("the groups kept between rounds are not those worked out afresh")
        self.pairs = pairs  # go on from the kept ones

    def _still_until(self, i: int) -> int:
        """The first step at which resident ``i`` could move (or its doings change) of its
        own accord: its action's end, an answer due, a new day, a back-off's end, a state
        in its sight running out (something new in view: a reaction); its own clock when
        it may now. Only others coming near can change it sooner, and the rule sees them."""
        sim = self.sim
        t = int(self.clock[i])
        b = sim.bodies[self.names[i]]
        a = b.action
        if (a is None or b.path or b.routing or b.conversation is not None or b.new_events or b.urgent
                or sim.jobs.has_waiting(b.name)):
            return t
        now = self.now_at(t)
        if b.asked_day is not None and b.asked_day != now.date().isoformat():
            return t
        until = [a.end, datetime.combine(now.date() + timedelta(days=1), datetime.min.time())]
        if b.not_before is not None:
            until.append(b.not_before)
        step = min(self.step_of(w) for w in until)
        left = self._left_in_sight(b.tile)
        if left is not None:
            step = min(step, left)
        due = sim.jobs.due_step(b.name)
        if due is not None:
            step = min(step, due)
        return max(t, step)

    def _left_in_sight(self, tile: tuple[int, int]) -> int | None:
        """The first step a state left behind in sight of ``tile`` runs out at (None: none
        is in sight). The states' tiles are indexed once each time what is left behind
        changes (``_left``), not looked up for every resident."""
        if self._left is None:
            sim = self.sim
            rows = [(x, y, self.step_of(end)) for addr, (_, end) in sim.lingering.items()
                    for x, y in sim.places.tiles_of_object(addr)]
            self._left = np.array(rows, np.int64).reshape(-1, 3)
        left = self._left
        if not len(left):
            return None
        sight = self.sim.settings.vision_radius + 1
        near = np.maximum(np.abs(left[:, 0] - tile[0]), np.abs(left[:, 1] - tile[1])) <= sight
        return int(left[near, 2].min()) if near.any() else None

    def step_of(self, when: datetime) -> int:
        """The first step at or after the sim time ``when``."""
        return self.base_steps + math.ceil((when - self.base_now) / STEP)

    def _groups(self, tiles: np.ndarray, still: np.ndarray) -> list[list[int]]:
        """Residents on one clock who are not apart by one step, joined: the groups,
        slowest first (then by name). Only the pairs of those who changed (``dirty``: they
        stepped, or when they could move did) are worked out again."""
        n, dirty = len(self.names), self.dirty
        if self.pairs is not None and not dirty.any():
            return self.grouped
        moves = (still <= self.clock).astype(np.int64)
        if self.pairs is None:
            pairs = self.reach.joined(tiles, moves, self.clock)
        else:
            kept = self.pairs[~(dirty[self.pairs[:, 0]] | dirty[self.pairs[:, 1]])]
            pairs = np.concatenate([kept, self.reach.joined(tiles, moves, self.clock, among=dirty)])
        self.pairs, self.pairs_at = pairs, self.version.copy()
        links = csr_matrix((np.ones(len(pairs), np.int8), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
        _, label = connected_components(links, directed=False)
        order = np.lexsort((np.arange(n), label))  # each group's members in name order
        groups = np.split(order, np.flatnonzero(np.diff(label[order])) + 1)
        self.grouped = sorted((g.tolist() for g in groups), key=lambda g: (int(self.clock[g[0]]), g[0]))
        return self.grouped

    def _step(self, members: list[int], names: frozenset[str], t: int, groups: int = 1) -> None:
        sim = self.sim
        sim.step_group(names, self.now_at(t), t)
        self.clock[members] += 1
        self.group_steps += groups
        self.most_ahead = max(self.most_ahead, t + 1 - self.floor)
        held = self.held.setdefault(t, _Held())
        held.events += sim.held_events or []
        sim.held_events = []
        for n in names:
            b = sim.bodies[n]
            held.poses[n] = Pose(n, tuple(b.tile), b.facing, b.action, b.conversation, b.target)  # type: ignore[arg-type]
        states = sim.town.object_states
        changed = {a: states[a] for a in states.take_changes() if a in states and self.states.get(a) != states[a]}
        if changed:
            self.states.update(changed)
            held.objects.update(changed)
        if sim.lingering != self.lingering:
            self._left = None
            for addr, left in self.lingering.items():
                due = self.step_of(left[1])
                # gone at t, though due before: nobody was in sight when it ran out (or someone in
                # sight at its step would have let it go then), so lockstep let it go at ``due``
                if sim.lingering.get(addr) != left and due < t and (addr, left) not in self.shown:
                    self.overdue.setdefault(due, {})[addr] = left
            came_or_went = {a for a in self.lingering.keys() | sim.lingering.keys()
                            if self.lingering.get(a) != sim.lingering.get(a)}
            self.lingering = dict(sim.lingering)
            self._near_changed(came_or_went)

    def _near_changed(self, addresses: set[str]) -> None:
        """States left behind at ``addresses`` came or went: when those in sight of them
        could next move is worked out again (``_still_until`` reads them)."""
        r = self.sim.settings.vision_radius + 1
        near = np.zeros(len(self.names), bool)
        for addr in addresses:
            for x, y in self.sim.places.tiles_of_object(addr):
                near |= np.abs(self.tiles - (x, y)).max(axis=1) <= r
        for i in np.flatnonzero(near):
            self.still[i] = self._still_until(int(i))
        self.version[near] += 1

    def _wait(self) -> None:
        """Nothing can step: wait for the next answer any group needs (not only the
        slowest's: one further on may be free to go when its own comes back)."""
        self.waits += 1
        sim = self.sim
        keys = sim.jobs.unanswered({name: int(self.clock[i]) for i, name in enumerate(self.names)})
        if not keys:
            return
        wait_any = getattr(sim.pool, "wait_any", None)
        if callable(wait_any):
            wait_any(keys, timeout=1.0)
        else:
            sim.pool.wait_keys({min(keys)}, timeout=1.0)

    # -- what the town shows: the floor ------------------------------------------------------
    def _flush(self) -> bool:
        """Log the events, and show the frames, of every step all residents are past;
        the simulation's clock is the floor's. True when the floor moved."""
        sim, floor = self.sim, self.floor
        moved = False
        while self.held and min(self.held) < floor:
            s = min(self.held)
            held = self.held.pop(s)
            self.town_steps += 1
            sim.publish(in_log_order(held.events))
            self._run_out(s)
            self.frame_states.update(held.objects)
            if self.on_frame is not None:
                self.on_frame(Frame(self.now_at(s + 1), held.poses, self.frame_states))
            moved = True
        sim.now, sim.steps = self.now_at(floor), floor
        return moved

    def _run_out(self, s: int) -> None:
        """The frame of step ``s`` shows what lockstep let go of at its walk (objects.
        expire_lingering, before the step's own changes): states left behind whose time
        was up at ``s`` that nobody in sight let go of then. Those run out when someone
        comes near, or at the next barrier; the recording shows them when they did."""
        due = self.overdue.pop(s, {})
        for old in [k for k in self.overdue if k < s]:  # seen run out after their frame had shown it
            del self.overdue[old]
        for addr, left in self.sim.lingering.items():
            if self.step_of(left[1]) <= s:
                due[addr] = left
        for addr, (state, until) in due.items():
            if (addr, (state, until)) in self.shown:
                continue
            self.shown.add((addr, (state, until)))
            if self.frame_states.get(addr) == state:  # nobody in sight, so nobody held it
                self.frame_states[addr] = "idle"

    def _at_barrier(self, step: int) -> None:
        """Every resident at ``step``: the simulation is as lockstep leaves it (what is
        left behind and out of everyone's sight expires as it did for lockstep)."""
        sim = self.sim
        sim.now, sim.steps = self.now_at(step - 1), step - 1
        objects.expire_lingering(sim)  # lockstep's last step expired what was due by then
        sim.now, sim.steps = self.now_at(step), step
        self.states = dict(sim.town.object_states)
        sim.town.object_states.take_changes()
        self.frame_states = dict(self.states)  # the frames showed those run out already (_run_out)
        self.lingering = dict(sim.lingering)
        self.overdue.clear()
        self.shown.clear()

    def stats(self) -> dict[str, float]:
        """How apart the residents stepped: the summary's ``stepping`` figures."""
        return {"groups_per_step": round(self.group_steps / max(1, self.town_steps), 2),
                "most_ahead_s": self.most_ahead * STEP.total_seconds(), "waits": self.waits}


__all__ = ["AHEAD", "Frame", "GroupClocks", "Pose", "Reach"]
