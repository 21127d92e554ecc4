"""A clock that never stands still (issue 34, the pacing half): the minds' measured
pace (game/sim/throughput.py), a look-ahead that grows with the load, the plan's
next hour broken into steps ahead of time, a lie-in while the first plan is made,
and a clock that slows early to what the minds allow (game/runs/pacing.py).
Lockstep runs keep the fixed look-ahead: none of this touches them."""
from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest
from test_sim import CAFE, HOME, START, StandIn, act, make_sim, run

from agents.planning.decompose import reuse_key
from agents.support.types import Action, Decision
from game.runs.pacing import LAG_MIN, Pacer, PaceStatus, describe, steady_pace
from game.saves.capture import job_tag_of
from game.sim import SimSettings, decisions
from game.sim.jobs import Job
from game.sim.throughput import Throughput, kind_of
from lab.bench.play_real import clock_figures
from tests.scripted_minds import _enum, make_mind, plausible, situation

ISA, MARIA = "Isabella Rodriguez", "Maria Lopez"


# ---------------------------------------------------------------------------- the minds' pace


def test_throughput_keeps_a_running_mean_per_kind_and_ignores_nonsense():
    tp = Throughput(workers=2)
    assert tp.expected("decide:start") is None and tp.seconds_ahead(["decide:start"]) == 0.0
    tp.note("decide:start", 10.0)
    tp.note("decide:start", 20.0)
    assert tp.expected("decide:start") == 10.0 + 0.3 * 10.0
    for bad in (-1.0, float("nan"), float("inf"), 7200.0, "slow", None):
        tp.note("decide:start", bad)  # a clock jump or a broken figure says nothing of the pace
    assert tp.expected("decide:start") == 13.0 and tp.jobs == 2
    tp.note("prepare", 3.0)
    assert tp.expected("utter") == (13.0 + 3.0) / 2  # an unmeasured kind: the mean of those measured
    assert tp.seconds_ahead(["decide:start", "prepare"]) == (13.0 + 3.0) / 2  # two workers share them
    assert kind_of(Job.decide("ahead", START, need=START)) == "decide:ahead"
    assert kind_of(Job.prepare(START, START)) == "prepare"
    # a step ahead with nothing decided for then breaks a chunk into steps: measured apart,
    # and until it is, a prepare's seconds stand in for it (the same work)
    assert kind_of(Job.decide("ahead", START, need=START, chunk=True)) == "decide:chunk"
    assert tp.expected("decide:chunk") == 3.0


# ---------------------------------------------------------------------------- the look-ahead


def test_the_look_ahead_grows_with_the_queue_in_the_window_and_stays_fixed_in_lockstep(tmp_path, pools):
    minds = [StandIn(n) for n in (ISA, MARIA)]
    window = make_sim(tmp_path / "w", minds, lockstep=False, pool=pools(1))
    base = float(window.settings.lookahead_min)
    assert decisions.lead_min(window) == base  # no pace set (a fresh game before its first frame)
    window.pace_hint = 1.0  # speed 1: a sim minute a real second
    assert decisions.lead_min(window) == base  # nothing measured yet
    window.throughput.note("decide:ahead", 30.0)
    assert decisions.lead_min(window) == 30.0  # 30 s of work at a minute a second
    window.throughput.note("decide:ahead", 1000.0)
    assert decisions.lead_min(window) == window.settings.lookahead_max_min  # never further than the cap
    lock = make_sim(tmp_path / "l", [StandIn(ISA)], lockstep=True, pool=pools(1))
    lock.pace_hint = 1.0
    lock.throughput.note("decide:ahead", 1000.0)
    assert decisions.lead_min(lock) == lock.settings.lookahead_min  # reproducible: wall time never decides


# ---------------------------------------------------------------------------- the lie-in


def test_the_first_decision_of_a_game_finds_the_resident_lying_in_and_the_clock_moving(tmp_path, pools):
    gate = threading.Event()

    def slow(m, s):
        gate.wait(10)
        return Decision(Action("brewing coffee", CAFE, s.now, 30))

    isa = StandIn(ISA, decide=slow)
    sim = make_sim(tmp_path, [isa], lockstep=False, pool=pools(1))
    try:
        run(sim, 1)
        b = sim.bodies[ISA]
        assert b.lying_in and b.asleep and "planned" in b.action.description
        assert b.action.source.startswith("rule: ")
        assert sim.decision_lag()[0] <= 0.0  # the clock does not wait for her yet
        assert Pacer().status(1.0, sim).planning == 1
        grace = sim.settings.morning_grace_min
        run(sim, grace * 6 - 6)
        assert sim.decision_lag()[0] <= 0.0
        run(sim, 3 * 6)  # the lie-in is over, the plan still not in: now the clock waits for her
        assert sim.decision_lag()[0] > 0.0 and b.lying_in
        assert b.action is not None and not b.asleep  # up, on her routine meanwhile (never lying in for ever)
    finally:
        gate.set()
    sim.pool.wait(5)
    run(sim, 1)
    assert not b.lying_in and b.action.description == "brewing coffee"


def test_lockstep_runs_never_lie_in(tmp_path, pools):
    isa = StandIn(ISA, decide=act("brewing coffee", CAFE))
    sim = make_sim(tmp_path, [isa], lockstep=True, pool=pools(1))
    run(sim, 3)
    texts = [e["text"] for e in sim.events if e["kind"] == "action"]
    assert texts == ["brewing coffee"] and not sim.bodies[ISA].lying_in


def test_no_lie_in_when_the_grace_is_off(tmp_path, pools):
    gate = threading.Event()
    isa = StandIn(ISA, decide=lambda m, s: gate.wait(10) and Decision(Action("reading", CAFE, s.now, 30)))
    sim = make_sim(tmp_path, [isa], lockstep=False, pool=pools(1), settings=SimSettings(morning_grace_min=0))
    try:
        run(sim, 2)
        assert sim.bodies[ISA].action is None and not sim.bodies[ISA].lying_in
    finally:
        gate.set()


# ---------------------------------------------------------------------------- the next hour, ahead


class Preparing(StandIn):
    """A stand-in with steps decided up to ``until`` that records ``prepare`` calls;
    ``asks``: whether its next chunk would cost a call."""

    def __init__(self, name, until, asks=True, **kw):
        super().__init__(name, decide=act("reading", HOME, minutes=10), **kw)
        self.until = until
        self.asks = asks
        self.prepared: list[tuple[datetime, datetime]] = []

    def steps_end(self):
        return self.until

    def chunk_asks(self, at):
        return self.asks

    def prepare(self, at, now):
        self.prepared.append((at, now))
        return 3


def _until_prepared(sim, isa, limit=6 * 60):
    for _ in range(limit):
        run(sim, 1)
        sim.pool.wait_keys({isa.name}, 5)  # her jobs back (another's may be out all along)
        if isa.prepared:
            break
    assert isa.prepared, "never asked to prepare"
    return isa.prepared[0]


def test_the_next_hour_is_broken_into_steps_ahead_once_and_at_once_while_the_minds_are_idle(tmp_path, pools):
    until = START + timedelta(minutes=50)
    isa = Preparing(ISA, until)
    sim = make_sim(tmp_path, [isa], lockstep=False, pool=pools(1), settings=SimSettings(morning_grace_min=0))
    sim.pace_hint = 1.0
    b = sim.bodies[ISA]
    at, asked = _until_prepared(sim, isa)
    # nothing else queued: the model's idle seconds do it, long before the load's look-ahead
    assert at == until and asked < until - timedelta(minutes=sim.settings.lookahead_min)
    run(sim, 60)
    sim.pool.wait(5)
    assert len(isa.prepared) == 1 and b.prepared_for == until  # once per chunk


def test_a_chunk_that_costs_no_call_is_not_prepared_ahead(tmp_path, pools):
    until = START + timedelta(minutes=50)
    isa = Preparing(ISA, until, asks=False)  # a night, a short chunk, or steps made earlier today
    sim = make_sim(tmp_path, [isa], lockstep=False, pool=pools(1), settings=SimSettings(morning_grace_min=0))
    sim.pace_hint = 1.0
    for _ in range(6 * 30):
        run(sim, 1)
        sim.pool.wait_keys({ISA}, 5)
    assert isa.prepared == [] and sim.bodies[ISA].prepared_for == until  # looked at once, no job


def test_a_mind_says_which_chunks_cost_a_call():
    m, _ = make_mind(plausible)
    m.decide(situation(START))
    plan = {x.description: x for x in m.today.plan}
    cafe = plan["running the cafe"]  # 08:00-12:00
    assert m.chunk_asks(cafe.start)  # a new activity: its steps are chosen
    assert not m.chunk_asks(START.replace(hour=23))  # a night: a rule
    assert not m.chunk_asks(plan["reading a book"].end - timedelta(minutes=10))  # ten minutes: a rule
    m.today.steps_made[reuse_key(cafe, cafe.start)] = [Action("brewing coffee", cafe.address, cafe.start, 15)]
    assert not m.chunk_asks(cafe.start + timedelta(hours=1))  # its second hour reuses the first's steps
    assert m.chunk_asks(cafe.start + timedelta(days=1))  # a day not planned yet


def test_while_the_minds_are_busy_the_next_hour_waits_for_the_loads_look_ahead(tmp_path, pools):
    until = START + timedelta(minutes=50)
    isa = Preparing(ISA, until)
    gate = threading.Event()
    maria = StandIn(MARIA, decide=lambda m, s: gate.wait(20) and Decision(Action("reading", HOME, s.now, 30)))
    sim = make_sim(tmp_path, [isa, maria], lockstep=False, pool=pools(2), settings=SimSettings(morning_grace_min=0))
    sim.pace_hint = 1.0
    sim.throughput.note("decide:start", 5.0)  # Maria's plan, out all along: 5 s of work queued
    sim.throughput.note("decide:ahead", 0.1)
    try:
        at, asked = _until_prepared(sim, isa)
        assert not decisions.idle(sim)
        assert at == until and asked >= until - timedelta(minutes=decisions.lead_min(sim, "prepare"))
    finally:
        gate.set()


def test_the_next_hour_is_never_prepared_in_lockstep_or_for_a_mind_without_steps(tmp_path, pools):
    until = START + timedelta(minutes=50)
    isa = Preparing(ISA, until)
    sim = make_sim(tmp_path / "l", [isa], lockstep=True, pool=pools(1))
    sim.pace_hint = 1.0
    run(sim, 6 * 60)
    assert isa.prepared == []  # lockstep: reproducible, as before
    plain = StandIn(MARIA, decide=act("reading", HOME, minutes=10))
    sim = make_sim(tmp_path / "w", [plain], lockstep=False, pool=pools(1), settings=SimSettings(morning_grace_min=0))
    sim.pace_hint = 1.0
    run(sim, 6 * 30)
    sim.pool.wait(5)
    assert not [e for e in sim.events if e["kind"] == "error"]


def test_a_mind_prepares_its_next_chunk_and_then_takes_it_without_a_call():
    m, gw = make_mind(plausible)
    now = START
    m.decide(situation(now))
    end = m.steps_end()
    assert end is not None and end > now
    calls = len(gw.fake.calls)
    added = m.prepare(end, now + timedelta(minutes=5))
    assert added >= 1 and m.steps_end() > end
    assert len(gw.fake.calls) == calls + 1  # one call: the chunk's steps
    assert m.prepare(end, now + timedelta(minutes=6)) == 0  # the steps at hand no longer end there
    prepared = [a.description for a in m.today.pending if a.start >= end]
    calls = len(gw.fake.calls)
    t, did = now, []
    while t < end + timedelta(minutes=20):  # each step when the one before it ends
        t = m.today.pending[0].start if m.today.pending else t + timedelta(minutes=5)
        d = m.decide(situation(t, done=True))
        did.append((t, d.action.description))
    assert "decompose" not in [c[0] for c in gw.fake.calls[calls:]]  # the prepared steps cost no call now
    assert [x for at, x in did if at >= end][:2] == prepared[:2]


def test_steps_prepared_for_a_later_item_wait_for_it_when_the_resident_asks_early():
    m, _ = make_mind(plausible)
    m.decide(situation(START))
    end = m.steps_end()
    m.prepare(end, START)
    prepared = [(a.start, a.description) for a in m.today.pending if a.start >= end]
    assert prepared and all(x.end <= end or x.start >= end for x in m.today.plan)  # another item's steps
    t = START
    for _ in range(3):  # done early, again and again: the item at hand goes on
        t += timedelta(minutes=1)
        d = m.decide(situation(t, done=True))
        assert d.action.start < end and d.action.end <= end
    assert [(a.start, a.description) for a in m.today.pending if a.start >= end] == prepared  # kept for then


def test_preparing_a_chunk_that_changed_meanwhile_makes_no_call():
    m, gw = make_mind(plausible)
    m.decide(situation(START))
    calls = len(gw.fake.calls)
    assert m.prepare(START + timedelta(minutes=7, seconds=3), START) == 0  # not where the steps end
    m.today.pending = []  # a reaction threw the steps away
    assert m.prepare(START + timedelta(hours=1), START) == 0
    assert len(gw.fake.calls) == calls


def test_with_no_step_waiting_the_chunk_after_the_last_step_handed_out_is_prepared():
    m, gw = make_mind(plausible)
    t = START
    m.decide(situation(t))
    while m.today.pending:  # every step of the chunk at hand handed out, the last one held ahead
        t = m.today.pending[0].start
        m.decide(situation(t, done=True))
    end = m.today.handed_until
    assert m.steps_end() is None and end is not None and end > t
    calls = len(gw.fake.calls)
    assert m.prepare(end + timedelta(minutes=5), t) == 0  # not where the last step ends: no call
    assert m.prepare(end, end) == 0  # a time already come: decided when due
    assert len(gw.fake.calls) == calls
    added = m.prepare(end, t)
    assert added >= 1 and m.steps_end() > end and m.today.pending[0].start == end
    assert len(gw.fake.calls) == calls + 1  # the chunk's steps, ahead of time
    d = m.decide(situation(end, done=True))
    assert d.action.start == end
    assert [c[0] for c in gw.fake.calls[calls:]].count("decompose") == 1  # taken then without breaking it again


def test_a_step_asked_ahead_for_a_time_no_step_is_decided_for_is_a_chunk(tmp_path, pools):
    """Its cost is a decomposition's, not the next step's tenth of a second (kind_of)."""
    asked = []
    cases = ((START + timedelta(minutes=50), True, False), (START + timedelta(minutes=10), True, True),
             (None, True, True), (None, False, False))  # the last: its next chunk reuses steps, no call
    for until, asks, chunk in cases:
        isa = Preparing(ISA, until, asks=asks)
        sim = make_sim(tmp_path / str(len(asked)), [isa], lockstep=False, pool=pools(1),
                       settings=SimSettings(morning_grace_min=0))
        sim.pace_hint = 1.0
        b = sim.bodies[ISA]
        b.action = Action("reading", HOME, START, 15)  # ends 07:15, within the look-ahead
        assert decisions.ask_ahead(sim, b)
        job = sim.jobs.current(ISA)
        asked.append((job.chunk, kind_of(job)))
        assert job.chunk is chunk, until
        sim.pool.wait(5)
    assert asked == [(False, "decide:ahead"), (True, "decide:chunk"), (True, "decide:chunk"), (False, "decide:ahead")]
    plain = StandIn(MARIA)  # a mind without steps (scripted): no chunk asks the model, every step ahead is cheap
    sim = make_sim(tmp_path / "plain", [plain], lockstep=False, pool=pools(1))
    assert not decisions._chunk_asks(sim, sim.bodies[MARIA], START + timedelta(hours=3))
    isa = Preparing(ISA, None)
    sim = make_sim(tmp_path / "held", [isa], lockstep=False, pool=pools(1))
    b = sim.bodies[ISA]
    b.next_action = Action("writing", HOME, START + timedelta(minutes=55), 5)
    assert decisions._steps_end(sim, b) == START + timedelta(hours=1)  # none waiting: the step held ahead


def test_a_save_taken_while_a_chunk_is_prepared_names_that_job():
    need = START + timedelta(hours=1)
    assert job_tag_of(None, ISA, Job.prepare(START, need)) == ("prepare", need.isoformat())


# ---------------------------------------------------------------------------- the steady clock


class _Jobs:
    def __init__(self, running):
        self._running = running

    def running(self):
        return dict(self._running)

    def waiting(self):
        return []


def _sim(running, now=START, measured=None, waiting_since=None, line_asked=None):
    """``line_asked``: when the lines in ``running`` were asked (a talk waits for them)."""
    tp = Throughput(1)
    for k, s in (measured or {}).items():
        tp.note(k, s)
    bodies = {n: SimpleNamespace(waiting_since=waiting_since, visitor=False, controlled=False, action="reading",
                                 lying_in=False, talking=running[n].kind == "utter",
                                 conversation=running[n].chat) for n in running}
    return SimpleNamespace(throughput=tp, jobs=_Jobs(running), bodies=bodies, now=now,
                           decision_lag=lambda: (0.0, []),
                           awaited_since=lambda b: line_asked if b.talking else b.waiting_since)


def test_the_steady_pace_lets_every_queued_job_finish_by_the_time_it_is_needed():
    need = START + timedelta(minutes=18)  # +LAG_MIN: 20 sim minutes of slack
    running = {f"r{i}": Job.decide("ahead", START, need=need) for i in range(4)}
    assert steady_pace(_sim(running)) is None  # nothing measured yet
    sim = _sim(running, measured={"decide:ahead": 10.0})
    assert steady_pace(sim) == 20.0 / 40.0  # four jobs of 10 s by a worker: 0.5 sim min/s
    late = {"r0": Job.decide("ahead", START, need=START - timedelta(minutes=5))}
    assert steady_pace(_sim(late, measured={"decide:ahead": 10.0})) is None  # late: the lag rule holds it
    react = {"r0": Job.decide("react", START)}
    assert steady_pace(_sim(react, measured={"decide:react": 10.0})) is None  # nothing waits on a reaction
    start = {"r0": Job.decide("start", START)}
    assert steady_pace(_sim(start, measured={"decide:start": 4.0},
                            waiting_since=START + timedelta(minutes=30))) == (30 + LAG_MIN) / 4.0


def test_the_steady_pace_counts_the_pools_other_work_in_the_order_it_runs():
    need = START + timedelta(minutes=18)  # 20 sim minutes of slack
    measured = {"decide:ahead": 10.0, "utter": 10.0, "end_conversation": 10.0, "call": 10.0}
    alone = {"r0": Job.decide("ahead", START, need=need)}
    assert steady_pace(_sim(alone, measured=measured)) == 20.0 / 10.0
    line = {**alone, "r1": Job.utter(1)}  # a reply asked ahead runs first: nobody waits on it, yet it takes the time
    assert steady_pace(_sim(line, measured=measured)) == 20.0 / 20.0
    # a line its talk waits for, asked now: due by LAG_MIN from now, so 10 s of work for 2 sim minutes
    assert steady_pace(_sim(line, measured=measured, line_asked=START)) == LAG_MIN / 10.0
    memo = {**alone, "r1": Job(kind="end_conversation", at=START)}  # a memo waits half an hour: after her
    assert steady_pace(_sim(memo, measured=measured)) == 20.0 / 10.0
    reply = {**alone, "r1": Job.call(lambda v, e: None, urgent=True)}  # the player's reply: its own instance
    assert steady_pace(_sim(reply, measured=measured)) == 20.0 / 10.0


def test_the_clock_slows_early_to_what_the_minds_allow_and_the_hud_says_so():
    need = START + timedelta(minutes=18)
    sim = _sim({f"r{i}": Job.decide("ahead", START, need=need) for i in range(4)}, measured={"decide:ahead": 10.0})
    p = Pacer("minds")
    assert p.factor(sim, 1.0) == 0.5 and p.steady
    st = p.status(1.0, sim)
    assert st.limited and st.steady and st.allowed == 0.5
    assert "what the minds allow" in describe(st)
    assert p.factor(sim, 0.25) == 1.0 and not p.steady  # the chosen speed is slower than what they allow
    assert p.factor(sim) == 1.0  # no chosen pace given: the lag alone decides, as before
    p.pace = "clock"
    assert p.factor(sim, 1.0) == 1.0  # "clock": the chosen speed whatever the minds manage


def test_the_hud_tells_of_a_town_waking_while_its_plans_are_made():
    st = PaceStatus(pace="minds", chosen=1.0, reached=0.4, lag_min=0.0, planning=12, limited=True, steady=True,
                    allowed=0.4)
    assert describe(st) == "the town wakes: 12 in bed while their day is planned (0.4 min/s)"
    held = PaceStatus(pace="minds", chosen=1.0, reached=0.0, lag_min=2.0, planning=3, limited=True,
                      holding=["Isabella Rodriguez"])
    assert "plan the morning" in describe(held)


# ---------------------------------------------------------------------------- what the player sees


def test_clock_figures_from_the_frames():
    # wall s, sim min: moves at once for 5 min, stands 10 s, then 1 min/s
    samples = [(float(t), float(min(t, 5))) for t in range(6)] + [(15.0, 5.0)]
    samples += [(15.0 + k, 5.0 + k) for k in range(1, 11)]
    f = clock_figures(samples, since=10.0)
    assert f["first_minute_s"] == 1.0 and f["first_5min_s"] == 5.0
    assert f["slowest_5min_s"] == 15.0  # from 1 min (1 s) to 6 min (16 s): the stop in the middle
    assert f["slowest_5min_from_min"] == 1.0
    assert f["still_share"] == 10.0 / 25.0
    assert f["still_share_after_morning"] == 0.0  # from 10 s on the clock never stood
    assert clock_figures(samples, since=0.0)["still_share_after_morning"] == f["still_share"]
    assert f["stopped_share"] == 10.0 / 25.0  # the 10 s stop; the moving frames are a second apart
    crawl = [(k * 0.5, (k // 4) * 1 / 6) for k in range(41)]  # a step every 2 s
    assert clock_figures(crawl)["stopped_share"] == 0.75 == clock_figures(crawl)["still_share"]
    steady = [(k * 0.25, (k // 2) * 1 / 6) for k in range(41)]  # a step every half second
    assert clock_figures(steady)["stopped_share"] == 0.0
    empty = clock_figures([])
    assert set(empty.values()) == {None}
    stuck = clock_figures([(0.0, 0.0), (30.0, 0.0)])
    assert stuck["first_minute_s"] is None and stuck["still_share"] == 1.0


# ---------------------------------------------------------------------------- cheaper boundaries


def cafe_steps(purpose, messages, schema):
    """The scripted model, with steps a cafe's plan item takes as written."""
    if purpose != "decompose":
        return plausible(purpose, messages, schema)
    place = _enum(schema, "steps", "place")[0]
    words = ("serving customers at the counter", "wiping down the tables", "restocking the pastry case",
             "brewing coffee for the morning rush")
    return {"steps": [{"activity": w, "minutes": 15, "place": place} for w in words]}


def test_the_next_hour_of_the_same_activity_reuses_its_steps_without_a_call():
    from agents.planning.decompose import decompose, reuse_key
    from agents.planning.plan import PlanItem

    m, gw = make_mind(cafe_steps)
    m.decide(situation(START))
    work = next(x for x in m.today.plan if x.end - x.start >= timedelta(hours=3) and "sleep" not in x.description)
    calls = len(gw.fake.calls)
    first = decompose(m, work, work.start, work.start + timedelta(hours=1), 60)
    assert len(gw.fake.calls) == calls + 1
    assert reuse_key(work, work.start) in m.today.steps_made
    again = decompose(m, work, work.start + timedelta(hours=1), work.start + timedelta(hours=2), 60)
    assert len(gw.fake.calls) == calls + 1  # no call: the steps it chose an hour ago
    assert [a.description for a in again] == [a.description for a in first]
    assert again[0].start == work.start + timedelta(hours=1) and again[-1].end == work.start + timedelta(hours=2)
    assert all(a.source.startswith("repaired: the steps it chose for this at ") for a in again)
    short = decompose(m, work, work.start + timedelta(hours=2), work.start + timedelta(minutes=150), 30)
    assert sum(a.duration_min for a in short) == 30 and len(short) <= 2  # as many as fit
    elsewhere = PlanItem(work.start, work.minutes, work.description, "the Ville:Johnson Park:park")
    decompose(m, elsewhere, work.start + timedelta(hours=1), work.start + timedelta(hours=2), 60)
    assert len(gw.fake.calls) == calls + 2  # another place: its own steps
    tomorrow = work.start + timedelta(days=1)
    decompose(m, work, tomorrow, tomorrow + timedelta(hours=1), 60)
    assert len(gw.fake.calls) == calls + 3  # another day: made afresh, and yesterday's forgotten
    assert all(k.startswith(f"{tomorrow:%Y-%m-%d}") for k in m.today.steps_made)


def test_steps_a_rule_made_are_not_reused_and_the_record_survives_a_save():
    from agents.planning.decompose import decompose
    from agents.planning.today import Today

    m, gw = make_mind(lambda p, msgs, s: {} if p == "decompose" else plausible(p, msgs, s))
    m.decide(situation(START))
    work = next(x for x in m.today.plan if x.end - x.start >= timedelta(hours=3) and "sleep" not in x.description)
    calls = len(gw.fake.calls)
    decompose(m, work, work.start, work.start + timedelta(hours=1), 60)
    decompose(m, work, work.start + timedelta(hours=1), work.start + timedelta(hours=2), 60)
    assert len([c for c in gw.fake.calls[calls:] if c[0] == "decompose"]) >= 2  # the model may do better next time
    m2, _ = make_mind(cafe_steps)
    m2.decide(situation(START))
    decompose(m2, work, work.start, work.start + timedelta(hours=1), 60)
    back = Today()
    back.from_state(m2.today.to_state())
    assert back.steps_made == m2.today.steps_made and back.steps_made
    old = m2.today.to_state()
    del old["steps_made"]  # a save from before: nothing to reuse, nothing lost
    back.from_state(old)
    assert back.steps_made == {}
    bad = dict(old, steps_made=["not", "a", "map"])
    try:
        back.from_state(bad)
    except ValueError as err:
        assert "steps_made" in str(err)
    else:
        raise AssertionError("a damaged steps_made was taken")


def test_before_any_job_is_back_each_is_taken_to_last_as_long_as_they_have_been_out():
    tp = Throughput(1)
    assert not tp.measuring and tp.expected("decide:start") is None
    tp.started(now=100.0)
    tp.started(now=150.0)  # the first time counts
    assert tp.measuring and tp.expected("decide:start", now=112.0) == 12.0
    tp.note("decide:start", 9.0)
    tp.started(now=200.0)
    assert tp.expected("decide:start", now=500.0) == 9.0  # measured now: the mean, not the time out
    running = {f"r{i}": Job.decide("start", START) for i in range(3)}
    sim = _sim(running, waiting_since=START + timedelta(minutes=45))
    assert steady_pace(sim) is None  # no job out yet
    sim.throughput.started(now=time.monotonic() - 5.0)  # out for 5 s, none back
    assert steady_pace(sim) == pytest.approx((45 + LAG_MIN) / 15.0, rel=0.1)  # 3 jobs >= 5 s


def test_a_plan_for_a_resident_lying_in_waits_behind_the_next_steps_of_those_already_up(tmp_path, pools):
    gate = threading.Event()
    isa = StandIn(ISA, decide=lambda m, s: gate.wait(10) and Decision(Action("reading", CAFE, s.now, 30)))
    sim = make_sim(tmp_path, [isa], lockstep=False, pool=pools(1))
    try:
        run(sim, 1)
        start = sim.jobs.current(ISA)
        assert start is not None and start.reason == "start"
        grace = timedelta(minutes=sim.settings.morning_grace_min)
        up_next = Job.decide("ahead", START, need=START + timedelta(minutes=10))
        assert sim.rank_of(ISA, start) > sim.rank_of(MARIA, up_next)  # the lie-in's plan is needed later
        assert sim.rank_of(ISA, start) == sim.rank_of(MARIA, Job.decide("ahead", START, need=START + grace))
    finally:
        gate.set()
    lock = make_sim(tmp_path / "l", [StandIn(ISA)], lockstep=True, pool=pools(1))
    lock.bodies[ISA].waiting_since = START - timedelta(minutes=5)  # owed since earlier: ranked as asked
    assert lock.rank_of(ISA, Job.decide("done", START)) == lock.rank_of(ISA, Job.decide("react", START))


def test_a_decision_that_lands_ends_the_wait_it_answered_even_when_its_talk_fails(tmp_path, pools):
    """Seen in play_real: a talk that failed while the resident followed its plan left the
    wait standing; the next job counted it, and the clock stood still for minutes."""
    gate = threading.Event()
    asked = []

    def script(m, s):
        asked.append(s.now)
        if len(asked) == 1:
            return Decision(Action("reading", HOME, s.now, 5))
        gate.wait(10)
        return Decision(talk_to="Nobody Here")  # not a resident: the talk cannot start

    isa = StandIn(ISA, decide=script)
    sim = make_sim(tmp_path, [isa], lockstep=False, pool=pools(1),
                   settings=SimSettings(morning_grace_min=0, lookahead_min=1, lookahead_max_min=1))
    b = sim.bodies[ISA]
    try:
        for _ in range(6 * 12):
            run(sim, 1)
            sim.pool.wait_keys({ISA}, 0.05)
            if b.standing_in:
                break
        assert b.standing_in and b.waiting_since is not None  # her plan meanwhile; the decision owed
        assert sim.decision_lag()[0] >= 0.0 and sim.jobs.current(ISA) is not None
    finally:
        gate.set()
    sim.pool.wait(5)
    run(sim, 1)
    assert not [e for e in sim.events if e["kind"] == "chat"]
    assert b.waiting_since is None and sim.decision_lag() == (0.0, [])  # answered: nothing left to hold the clock
