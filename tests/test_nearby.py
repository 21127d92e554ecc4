"""Perception by cells (game/sim/nearby.py) finds what looking at everyone found,
in the same order: many bodies on the Ville, moved, added and taken away, and
objects switched on and off, against the whole-town scan it replaced."""
from __future__ import annotations

import random
from datetime import datetime
from types import SimpleNamespace

from agents.support.types import Action
from game.sim import SimSettings, Simulation, perception
from game.sim.bodies import Body
from game.sim.nearby import Nearby
from game.support import folders
from game.world.grid import chebyshev, distance
from game.world.map_reader import load_town

START = datetime(2023, 2, 13, 9, 0)


class Idle:
    def __init__(self, name: str) -> None:
        self.name = name
        self.persona = SimpleNamespace(name=name, home="", workplace="", wake_hour=7)


class NoPool:
    concurrency = 1

    def busy(self, name: str) -> bool:
        return False


def scan_perceive(sim: Simulation, name: str, active: list[tuple[str, str]]) -> list:
    """The whole-town scan perception.perceive made before the cells."""
    me = sim.bodies[name]
    r = sim.settings.vision_radius
    here = sim.area(me.tile)
    found = []
    for other in sim.bodies.values():
        if other is me or chebyshev(other.tile, me.tile) > r or sim.area(other.tile) != here:
            continue
        if other.visitor and sim.controlled:
            continue
        what = perception.doing(other)
        found.append((distance(other.tile, me.tile), other.name, (other.name, what)))
    for addr, state in active:
        if addr == me.held_object:
            continue
        best = None
        for t in sim.places.tiles_of_object(addr):
            if chebyshev(t, me.tile) <= r and sim.area(t) == here:
                d = distance(t, me.tile)
                best = d if best is None or d < best else best
        if best is not None:
            found.append((best, addr, (addr, state)))
    found.sort(key=lambda f: (f[0], f[1]))
    return [e for _, _, e in found[: sim.settings.max_events]]


def scan_talk(sim: Simulation, name: str) -> list[str]:
    me = sim.bodies[name]
    here = sim.area(me.tile)
    return [o.name for o in sim.bodies.values()
            if o is not me and not o.visitor and o.name in sim.minds
            and chebyshev(o.tile, me.tile) <= sim.settings.talk_radius and sim.area(o.tile) == here]


def crowded_sim(n: int, seed: int, **settings) -> Simulation:
    town = load_town(folders.default_map())
    rng = random.Random(seed)
    walkable = [(x, y) for y in range(town.height) for x in range(town.width) if town.walkable[y, x]]
    # crowds: most bodies in a few spots, so cells hold many and ranges cross cell edges
    spots = rng.sample(walkable, 6)
    minds = [Idle(f"R{i:03d}") for i in range(n)]
    sim = Simulation(town, minds, NoPool(), START, settings=SimSettings(**settings))
    for b in sim.bodies.values():
        x, y = rng.choice(spots) if rng.random() < 0.7 else rng.choice(walkable)
        b.tile = (x + rng.randint(-6, 6), y + rng.randint(-6, 6))
        b.action = Action(rng.choice(["reading", "cooking", "idle"]), town.world, START, 30)
    return sim


def check_all(sim: Simulation, active: list[tuple[str, str]]) -> int:
    seen = 0
    for name in sim.bodies:
        got = [(e.subject, e.object) for e in perception.perceive(sim, name, active)]
        assert got == scan_perceive(sim, name, active), name
        assert perception.can_talk_to(sim, name) == scan_talk(sim, name), name
        seen += len(got)
    return seen


def test_cells_find_what_the_scan_found_in_its_order():
    sim = crowded_sim(300, seed=3)
    rng = random.Random(5)
    addrs = sorted(sim.town.object_states)
    seen = 0
    for _round in range(6):
        for a in rng.sample(addrs, 40):  # switch objects on and off
            sim.town.object_states[a] = rng.choice(["idle", "in use", "being cooked on", ""])
        active = [(a, s) for a, s in sim.town.object_states.items() if s and s != "idle"]
        seen += check_all(sim, active)
        for b in rng.sample(list(sim.bodies.values()), 100):  # walk some a tile or jump far
            x, y = b.tile
            b.tile = (x + rng.randint(-1, 1), y + rng.randint(-1, 1)) if rng.random() < 0.8 else \
                (rng.randrange(sim.town.width), rng.randrange(sim.town.height))
        if _round == 2:  # a visitor comes and goes; a resident's body is replaced
            sim.add_visitor("Alex", tile=next(iter(sim.bodies.values())).tile)
            sim.bodies["R000"] = Body(name="R000", tile=sim.bodies["R001"].tile)
        if _round == 4:
            sim.remove_visitor()
    assert seen > 1000  # the crowds were seen: the check checked something


def test_a_talk_radius_wider_than_the_cells_looks_further_out():
    sim = crowded_sim(120, seed=11, vision_radius=2, talk_radius=7)
    check_all(sim, [])


def test_the_index_rebuilds_only_when_something_moved():
    sim = crowded_sim(50, seed=1)
    near = Nearby(4)
    me = next(iter(sim.bodies.values()))
    near.bodies(sim, me.tile, 4)
    built = near._bodies
    near.bodies(sim, me.tile, 4)
    assert near._bodies is built
    me.tile = (me.tile[0] + 1, me.tile[1])
    near.bodies(sim, me.tile, 4)
    assert near._bodies is not built
