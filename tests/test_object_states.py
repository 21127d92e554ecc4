"""Residents change objects as they use them (issue 7): one table (agents/planning/object_use.py
OBJECT_USE) -- a bed occupied while slept in, the fridge running low for a while
after breakfast, the coffee machine brewing, the stove cooking, the shower running,
the tv on -- and everyone perceives those states as events."""
from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace

import mapkit
import pytest

from agents.planning import object_use as plan
from agents.support.types import Decision
from agents.threads.pool import MindPool
from game.sim import Simulation
from game.world.map_reader import load_town
from lab.standins import StandInMind

W = mapkit.DEFAULT_WORLD
ISA, MARIA = "Isabella Rodriguez", "Maria Lopez"
ROOM = f"{W}:Isabella Rodriguez's apartment:main room"
BED, FRIDGE = f"{ROOM}:bed", f"{ROOM}:refrigerator"
START = datetime(2023, 2, 13, 6, 0)


class Script(StandInMind):
    """A stand-in mind that follows a timetable of (start, Action factory)."""

    def __init__(self, name, table):
        self.name = name
        self.persona = SimpleNamespace(name=name, home=ROOM, workplace=ROOM, wake_hour=7)
        self.table = table

    def decide(self, s):
        if s.action is not None and not s.action_done:
            return Decision()  # asked about something new: it carries on, as a mind that does not react
        t = s.plan_at or s.now  # asked ahead: the next action is for then
        for when, desc, addr, minutes in reversed(self.table):
            if t >= when:
                return Decision(plan.make_action(None, desc, addr, t, minutes))
        return Decision()

    def queue_thought(self, text, importance=8):
        pass


@pytest.mark.parametrize("obj,desc,state", [
    ("bed", "sleeping", "occupied"),
    ("coffee machine", "making coffee", "brewing coffee"),
    ("stove", "cooking breakfast", "cooking"),
    ("shower", "taking a shower", "running"),
    ("tv", "watching tv", "on"),
])
def test_the_table(obj, desc, state):
    a = plan.make_action(None, desc, f"{ROOM}:{obj}", START, 10)
    assert a.object_state == state
    assert not plan.unusual_state(state)
    assert plan.unusual_state("burning") and plan.unusual_state("leaking") and not plan.unusual_state("idle")
    assert plan.after_use("having breakfast", ROOM, ["refrigerator", "bed"]) == [("refrigerator", "running low", 180)]
    assert plan.after_use("sleeping", BED, ["refrigerator"]) == []


def test_bed_occupied_fridge_running_low_then_idle(tmp_path):
    town = load_town(mapkit.write_map(tmp_path, spawns=mapkit.DEFAULT_SPAWNS + ((MARIA, 10, 3),)))
    isa = Script(ISA, [
        (START, "sleeping", BED, 60),
        (START + timedelta(minutes=60), "having breakfast", ROOM, 30),
        (START + timedelta(minutes=90), "reading a book", ROOM, 600),
    ])
    maria = Script(MARIA, [(START, "reading a book", ROOM, 900)])
    sim = Simulation(town, {ISA: isa, MARIA: maria}, MindPool(1), START, lockstep=True)
    try:
        def run(minutes):
            for _ in range(minutes * 6):
                sim.step()

        run(5)
        assert sim.bodies[ISA].action.description == "sleeping"
        assert town.object_states[BED] == "occupied"
        assert any(e.subject == BED and e.object == "occupied" for e in sim.perceive(MARIA))
        run(70)  # breakfast now: she got up
        assert sim.bodies[ISA].action.description == "having breakfast"
        assert town.object_states[BED] == "idle"
        assert town.object_states[FRIDGE] == "idle"
        run(30)  # breakfast over: the fridge runs low, and Maria sees it
        assert sim.bodies[ISA].action.description == "reading a book"
        assert town.object_states[FRIDGE] == "running low"
        assert any(e.subject == FRIDGE and e.object == "running low" for e in sim.perceive(MARIA))
        run(120)
        assert town.object_states[FRIDGE] == "running low"  # it lasts a while
        st = sim.to_state()
        assert FRIDGE in st["lingering"]
        run(70)  # three hours after breakfast: idle again
        assert town.object_states[FRIDGE] == "idle" and not sim.lingering
    finally:
        sim.pool.shutdown()
