"""The path service (game/sim/path_service.py): bodies wait for their paths the way they
wait for decisions, no step does more than its budget of A*, lockstep runs
search at once (reproducible), and nothing is lost across a conversation, a new
request or a save."""
from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest
from mapkit import write_map

from agents.mind.inspection import Inspection
from agents.support.types import Action, Decision
from agents.threads.pool import MindPool
from game.sim import SimSettings, Simulation, movement
from game.sim.state import body_from_dict, body_to_dict
from game.world import astar
from game.world.map_reader import load_town
from lab.standins import StandInMind

W = "Testville"
CAFE = f"{W}:Hobbs Cafe:cafe"
HOME = f"{W}:Isabella Rodriguez's apartment:main room"
PARK = f"{W}:Johnson Park:park"
MACHINE = f"{CAFE}:coffee machine"
START = datetime(2023, 2, 13, 7, 0)


class Still(StandInMind):
    """A mind that is never asked anything useful (the tests drive bodies by hand)."""

    def __init__(self, name):
        self.name = name
        self.persona = None

    def decide(self, situation):
        return Decision(Action("standing", situation.address, situation.now, 600))

    def utter(self, *a):
        raise AssertionError("no conversations here")

    def end_conversation(self, *a):
        pass

    def queue_thought(self, *a, **k):
        pass

    def inspect(self):
        return Inspection(name=self.name)


@pytest.fixture
def pool():
    p = MindPool(1)
    yield p
    p.shutdown()


def sim_on(tmp_path, pool, lockstep, budget_ms=3.0, names=("Isabella Rodriguez",), **kw):
    town = load_town(write_map(tmp_path, **kw))
    minds = {n: Still(n) for n in names}
    return Simulation(town, minds, pool, START, lockstep=lockstep, settings=SimSettings(path_budget_ms=budget_ms))


def send(sim, name, address):
    b = sim.bodies[name]
    b.action = Action("going", address, sim.now, 600)
    b.target = address
    movement.go_to(sim, b, address)
    return b


def test_lockstep_searches_within_the_step_it_was_asked(tmp_path, pool):
    sim = sim_on(tmp_path, pool, lockstep=True)
    b = send(sim, "Isabella Rodriguez", MACHINE)
    assert b.routing and b.walking and not b.path  # waiting for its path: on its way, standing
    start = b.tile
    sim.paths.run()
    assert not b.routing and b.path  # searched at once: no budget in lockstep
    movement.walk(sim)
    assert b.tile != start  # and walking the same step


def test_realtime_budget_spreads_a_long_search_over_steps(tmp_path, pool, monkeypatch):
    """With a budget far smaller than one search, the search pauses and resumes;
    the body stands meanwhile, and the path is still the shortest."""
    sim = sim_on(tmp_path, pool, lockstep=False, budget_ms=0.0)
    monkeypatch.setattr("game.sim.path_service.SLICE", 1)  # one expansion per look at the clock
    b = send(sim, "Isabella Rodriguez", PARK)
    here = b.tile
    steps = 0
    while b.routing:
        sim.paths.run()
        steps += 1
        assert steps < 500
        if b.routing:
            assert b.tile == here and not b.path
    assert steps > 3  # the search really was spread over steps
    assert sim.paths.stats.waited_steps_max >= 3
    want = astar.find_path_to_any(sim.town.walkable, here, [b.path[-1]])
    assert len(b.path) + 1 == len(want)


def test_no_step_does_more_than_its_budget_of_path_work(tmp_path, pool, monkeypatch):
    """Many bodies asking at once on a big open map (everyone waking at 07:00): with
    the budget spent at once, each step does one slice of expansions and stops;
    every body still gets its path, in order. (The time per step is measured by
    the benchmarks, not here.)"""
    rows = ["#" * 60] + ["#" + "." * 58 + "#" for _ in range(38)] + ["#" * 60]
    names = [f"Resident {i}" for i in range(20)]
    spawns = tuple((n, 1 + i, 1) for i, n in enumerate(names)) + (("visitor", 58, 37),)
    town = load_town(write_map(tmp_path, rows=rows, sectors=(("Park", 0, 0, 60, 40),),
                               arenas=(("lawn", 1, 1, 58, 38),), objects=(("bench", 57, 37, 1, 1),),
                               spawns=spawns))
    sim = Simulation(town, {n: Still(n) for n in names}, pool, START, lockstep=False,
                     settings=SimSettings(path_budget_ms=0.0))
    monkeypatch.setattr("game.sim.path_service.SLICE", 16)
    for n in names:
        send(sim, n, f"{W}:Park:lawn:bench")
    per_run = []
    order = []
    for _ in range(5000):
        before = sim.paths.stats.expansions
        waiting = [n for n in names if sim.bodies[n].routing]
        sim.paths.run()
        per_run.append(sim.paths.stats.expansions - before)
        order += [n for n in waiting if not sim.bodies[n].routing]
        if not sim.paths.waiting():
            break
    assert not sim.paths.waiting()
    assert max(per_run) <= 16  # one slice per step, never more
    assert order == names  # first asked, first served
    assert all(sim.bodies[n].path or sim.bodies[n].arrived_at for n in names)
    assert sim.paths.stats.searches == len(names)


def test_heuristic_tables_are_built_once_per_goal_set(tmp_path, pool):
    sim = sim_on(tmp_path, pool, lockstep=True)
    g = sim.paths.graph
    g.tables.clear()
    b = send(sim, "Isabella Rodriguez", MACHINE)
    sim.paths.run()
    made = len(g.tables)
    assert made == 1
    table = next(iter(g.tables.values()))
    b.tile, b.path = sim.town.spawns["Isabella Rodriguez"], []
    send(sim, "Isabella Rodriguez", MACHINE)
    sim.paths.run()
    assert len(g.tables) == made and next(iter(g.tables.values())) is table  # reused, not rebuilt
    assert sim.paths.graph is g  # the grid is looked up once, not hashed per search


def test_a_new_request_replaces_the_old_and_stop_cancels(tmp_path, pool):
    sim = sim_on(tmp_path, pool, lockstep=False)
    b = send(sim, "Isabella Rodriguez", PARK)
    send(sim, "Isabella Rodriguez", MACHINE)
    assert sim.paths.waiting() == 1
    sim.paths.run()
    assert (b.path and sim.town.address_at(*b.path[-1]).startswith(CAFE)) or b.path[-1] in sim.town.use_tiles(MACHINE)
    send(sim, "Isabella Rodriguez", PARK)
    movement.stop(sim, b)  # a conversation began, or the player took the body
    assert not b.routing and not b.path and not sim.paths.waiting()
    sim.paths.run()
    assert not b.path


def test_unreachable_place_acts_where_it_stands(tmp_path, pool):
    sim = sim_on(tmp_path, pool, lockstep=True)
    b = sim.bodies["Isabella Rodriguez"]
    sim.town.walkable = sim.town.walkable.copy()
    x, y = b.tile if sim.town.walkable[b.tile[1], b.tile[0]] else (10, 2)
    walled = np.zeros_like(sim.town.walkable)
    walled[y, x] = True  # an island: nothing else is reachable
    sim.town.walkable = walled
    sim.town.reachable = lambda a, c: a == c  # the town's component labels agree with the island
    b.tile = (x, y)
    send(sim, "Isabella Rodriguez", PARK)
    sim.paths.run()
    assert not b.routing and not b.path and b.arrived_at is not None
    assert any(e["kind"] == "error" and "cannot reach" in e["text"] for e in sim.events)


def test_a_blocked_start_steps_off_first(tmp_path, pool):
    sim = sim_on(tmp_path, pool, lockstep=True)
    b = sim.bodies["Isabella Rodriguez"]
    b.tile = (8, 3)  # the refrigerator: blocked
    send(sim, "Isabella Rodriguez", PARK)
    sim.paths.run()
    assert b.path and sim.town.walkable[b.path[0][1], b.path[0][0]]
    assert abs(b.path[0][0] - 8) <= 1 and abs(b.path[0][1] - 3) <= 1


def test_waiting_for_a_path_survives_a_save(tmp_path, pool):
    sim = sim_on(tmp_path, pool, lockstep=False, budget_ms=0.0)
    b = send(sim, "Isabella Rodriguez", PARK)
    d = body_to_dict(b)
    assert d["routing"] is True
    assert body_from_dict(b.name, {k: v for k, v in d.items() if k != "routing"}).routing is False  # older saves
    state = sim.to_state()
    other = sim_on(tmp_path / "again", pool, lockstep=True)
    other.from_state(state)
    again = other.bodies["Isabella Rodriguez"]
    assert again.routing and other.paths.pending(again.name)  # asked again after the load
    other.paths.run()
    assert again.path and not again.routing


def test_a_step_walks_bodies_once_their_paths_are_found(tmp_path, pool):
    sim = sim_on(tmp_path, pool, lockstep=False, budget_ms=50.0)
    b = send(sim, "Isabella Rodriguez", PARK)
    for _ in range(200):
        sim.step()
        if b.arrived_at is not None:
            break
    assert b.arrived_at is not None and not b.walking
    assert sim.town.address_at(*b.tile).startswith(PARK)
