"""Lockstep runs with a think time (SimSettings.lockstep_think_s): each answer lands
exactly that long after it was asked, however long the mind took, so the clock
runs on while one resident thinks and the run stays reproducible."""
from __future__ import annotations

import random
import threading
import time

from test_sim import CAFE, StandIn, act, make_sim, run

from agents.support.types import Action, Decision
from game.sim import SimSettings


def first_action_time(sim, name):
    return next(e["time"] for e in sim.events if e["kind"] == "action" and e["resident"] == name)


def test_an_answer_lands_one_think_time_after_it_was_asked(tmp_path, pools):
    for think_s, lands in ((10, "07:00:10"), (60, "07:01:00")):
        isa = StandIn("Isabella Rodriguez", decide=act("brewing coffee", CAFE))
        sim = make_sim(tmp_path / str(think_s), [isa], pool=pools(), settings=SimSettings(lockstep_think_s=think_s))
        run(sim, 8)
        assert first_action_time(sim, "Isabella Rodriguez") == f"2023-02-13 {lands}"
        assert len(isa.situations) == 1  # asked once, at 07:00, not again while it thought


def test_the_clock_runs_on_while_one_resident_thinks_then_waits_for_the_answer_due(tmp_path, pools):
    gate = threading.Event()

    def slow(m, s):
        gate.wait(10)
        return Decision(Action("writing a long letter", s.address, s.now, 30))

    isa = StandIn("Isabella Rodriguez", decide=slow)
    maria = StandIn("Maria Lopez", decide=act("reading", CAFE))
    sim = make_sim(tmp_path, [isa, maria], pool=pools(), settings=SimSettings(lockstep_think_s=60))
    run(sim, 5)  # steps 0-4 do not wait for Isabella, whose answer is due at step 6
    assert sim.steps == 5 and sim.pool.busy("Isabella Rodriguez")
    assert not [e for e in sim.events if e["kind"] == "action"]  # Maria's too: held until it is due
    threading.Timer(0.2, gate.set).start()
    run(sim, 2)  # step 5 waits for it; step 6 applies it
    assert first_action_time(sim, "Isabella Rodriguez") == "2023-02-13 07:01:00"
    assert first_action_time(sim, "Maria Lopez") == "2023-02-13 07:01:00"


def test_runs_with_a_think_time_are_reproducible_however_long_minds_take(tmp_path, pools):
    def events_of(run_no):
        jitter = random.Random(run_no)  # how long each answer takes differs between the runs

        def script(m, s):
            time.sleep(jitter.random() * 0.02)
            minutes = 5 + (s.now.minute * 7 + len(m.name)) % 20
            return Decision(Action(f"task {s.now:%H:%M}", CAFE, s.now, minutes))

        minds = [StandIn(n, decide=script) for n in ("Isabella Rodriguez", "Maria Lopez", "Klaus Mueller")]
        sim = make_sim(tmp_path / str(run_no), minds, pool=pools(3), settings=SimSettings(lockstep_think_s=60))
        run(sim, 240)  # 40 sim minutes
        return [(e["time"], e["resident"], e["kind"], e["text"]) for e in sim.events]

    first, second = events_of(1), events_of(2)
    assert len([e for e in first if e[2] == "action"]) >= 6
    assert first == second


def test_a_drain_applies_answers_before_they_are_due(tmp_path, pools):
    isa = StandIn("Isabella Rodriguez", decide=act("brewing coffee", CAFE))
    sim = make_sim(tmp_path, [isa], pool=pools(), settings=SimSettings(lockstep_think_s=600))
    run(sim, 2)
    assert not [e for e in sim.events if e["kind"] == "action"]  # due at step 60
    sim.drain()  # what a save of a lockstep run does first
    assert first_action_time(sim, "Isabella Rodriguez") == "2023-02-13 07:00:20"
    assert sim.jobs.idle() and sim.jobs.count() == 0
