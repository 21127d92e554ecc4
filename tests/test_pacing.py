"""A town that keeps pace with its minds, and answers the player first (issue 23).

Through the real game loop (``game.app.run``, SDL's dummy driver) on the real
Ville: the visitor's reply overtakes 25 queued decisions; the clock slows and
stands within the lag bound while a mind is late, and catches up when it
answers; the next action is decided ahead and starts on the dot; an action
that ends while the mind thinks gives way to the resident's plan; T with
nobody near says so and the letters typed next fire no hotkeys. Also the pool
and the embedded model's instance queue, by rank.
"""
from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta

import pytest

pygame = pytest.importorskip("pygame")
pytest.importorskip("pygame_gui")

from test_play import MAP

from agents import priority
from agents.engine.local_model import ModelPool
from agents.mind.inspection import Inspection
from agents.residents.persona import load_cast
from agents.support.types import Action, Decision
from agents.threads.pool import MindPool
from game.runs.pacing import LAG_MIN, Pacer, describe
from lab.standins import StandInMind
from tests.fakes import HashEmbedder, make_gateway
from tests.scripted_minds import plausible

ISABELLA = "Isabella Rodriguez"


def run_frames(game, n):
    from game.app import run

    run(game, frames=n, headless=True, paced=False)


def run_until(game, session, done, rounds=200, frames=2):
    """Frames of the real loop, the minds given time between them, until ``done()``."""
    for _ in range(rounds):
        run_frames(game, frames)
        session.pool.wait(1)
        if done():
            return True
    return done()


def build_game(display, minds, pool, pace="minds", names=None, start=None):
    from game.app import Game
    from game.runs.session import Session
    from game.view.tilemap import TileMapRenderer

    gw = make_gateway(lambda p, m, s: {"answer": "I run Hobbs Cafe."} if p == "respond" else plausible(p, m, s),
                      via_litellm=False)
    session = Session.create(MAP, gateway=gw, embedder=HashEmbedder(64), minds=minds, pool=pool,
                             residents=names or list(minds), visitor_name="Alex", start=start)
    session.pace = pace
    game = Game(session.town, TileMapRenderer.from_file(MAP), size=display.get_size())
    game.attach_session(session)
    return game, session


class GatedMind(StandInMind):
    """A stand-in mind: each decision waits for ``gate`` (a slow model), then does
    ``minutes`` of reading at home; ``asked`` records every situation."""

    def __init__(self, persona, minutes=20, gate=None):
        self.persona, self.name = persona, persona.name
        self.minutes = minutes
        self.gate = gate
        self.asked = []
        self.plan_step = None  # what planned_action() answers (None: no plan for today)

    def decide(self, sit):
        self.asked.append(sit)
        if self.gate is not None:
            self.gate.wait(60)
        at = sit.plan_at or sit.now
        return Decision(Action(f"reading ({len(self.asked)})", self.persona.home, at, self.minutes))

    def planned_action(self, t):
        if self.plan_step is None:
            return None
        return Action(self.plan_step, self.persona.home, t, 15, source="repaired: its plan, followed while the "
                      "mind thinks")

    def utter(self, conversation, now, partner_doing):
        raise AssertionError("no conversations here")

    def end_conversation(self, conversation, now):
        return None

    def queue_thought(self, text, importance=8):
        return None

    def inspect(self):
        return Inspection(name=self.name)


def cast(n):
    people, _ = load_cast(MAP.parent)
    return people[:n]


# ---------------------------------------------------------------------------- priority


def test_an_urgent_job_overtakes_every_queued_one_on_its_own_lane():
    done: list[str] = []
    gate = threading.Event()
    with MindPool(1) as pool:
        started = threading.Event()
        assert pool.submit("first", lambda: started.set() or gate.wait(10))  # the only town worker is busy
        assert started.wait(5)
        for i in range(25):
            pool.submit(f"r{i}", done.append, f"r{i}", rank=priority.town(i))
        assert pool.submit("reply", lambda: done.append("reply") or priority.current(), rank=priority.urgent())
        assert pool.wait_keys({"reply"}, 5)
        assert done == ["reply"]  # before any of the 25, although the worker never freed up
        gate.set()
        assert pool.wait(5)
        assert done[1:] == [f"r{i}" for i in range(25)]  # the rest by deadline
        assert next(r.value for r in pool.results() if r.key == "reply") == priority.urgent()


def test_town_jobs_run_earliest_deadline_first():
    order: list[int] = []
    gate = threading.Event()
    with MindPool(1, urgent_lanes=0) as pool:
        started = threading.Event()
        pool.submit("blocker", lambda: started.set() or gate.wait(10))
        assert started.wait(5)
        for d in (50, 10, 30, 20, 40):
            pool.submit(f"k{d}", order.append, d, rank=priority.town(d))
        gate.set()
        assert pool.wait(5)
    assert order == [10, 20, 30, 40, 50]


def test_a_freed_model_instance_goes_to_the_lowest_ranked_call():
    gate = threading.Event()

    class Instance:
        def chat(self, messages, timeout=None, **kw):
            if messages == "first":
                gate.wait(10)  # holds the only instance until everyone queues
            return {"who": messages}

    model = ModelPool(1, make=Instance, reserve=False)  # the ranked hand-out alone (the reserve: below)
    served: list[str] = []
    lock = threading.Lock()

    def call(name, rank):
        with priority.ranked(rank):
            model.chat(name)
        with lock:
            served.append(name)

    first = threading.Thread(target=call, args=("first", priority.town(0)))
    first.start()
    for _ in range(5000):  # the instance is taken
        if model.instances == 1:
            break
        time.sleep(0.001)
    town = [threading.Thread(target=call, args=(f"town{i}", priority.town(i + 1))) for i in range(4)]
    for t in town:
        t.start()
    for _ in range(5000):
        if model.waiting() == 4:
            break
        time.sleep(0.001)
    reply = threading.Thread(target=call, args=("reply", priority.urgent()))
    reply.start()
    for _ in range(5000):
        if model.waiting() == 5:
            break
        time.sleep(0.001)
    assert model.waiting() == 5
    gate.set()
    for t in [first, reply, *town]:
        t.join(5)
    assert served[:2] == ["first", "reply"] and served[2:] == [f"town{i}" for i in range(4)]


def test_the_visitors_reply_overtakes_25_queued_decisions(display):
    """Through the real game loop: 24 residents' minds take 0.3 s a decision on one
    worker; Isabella answers the visitor before more than a couple of them are done."""
    from agents.threads.pool import MindPool
    from game.runs.build import build_minds
    from lab.standins import BusyMind

    people = cast(25)
    town_places = None
    gw = make_gateway(lambda p, m, s: {"answer": "I run Hobbs Cafe."} if p == "respond" else plausible(p, m, s),
                      via_litellm=False)
    isa = next(p for p in people if p.name == ISABELLA)
    minds = build_minds([isa], gw, HashEmbedder(64))
    from game.world.map_reader import load_town
    town_places = [a for a in load_town(MAP).addresses() if a.count(":") == 2]
    busy = {p.name: BusyMind(p, town_places, delay=(0.3, 0.3), work_ms=(0.1, 0.2)) for p in people
            if p.name != ISABELLA}
    minds.update(busy)
    game, session = build_game(display, minds, MindPool(1), start=datetime(2023, 2, 13, 10, 0))
    try:  # 10:00, everyone awake and nobody primed on routines: 25 first decisions at once
        for _ in range(60):
            run_frames(game, 5)
            if session.pool.submitted >= 25:
                break
        assert session.pool.submitted >= 25 and session.pool.in_flight() >= 24  # 24 slow ones queue on one worker
        done_before = sum(1 for e in session.sim.events if e["kind"] == "action" and e["resident"] in busy)
        b = session.sim.bodies[ISABELLA]
        near = next((x, y) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)) for x, y in [(b.tile[0] + dx,
                                                                                            b.tile[1] + dy)]
                    if game.walkable(x, y))
        game.visitor.place(near)
        run_frames(game, 1)
        assert game.panels.chat.open(ISABELLA)
        game.panels.chat.send("Hi Isabella, what do you do for a living?")
        t0 = time.monotonic()
        while len(game.panels.chat.lines) < 2 and time.monotonic() - t0 < 20:
            run_frames(game, 1)
            time.sleep(0.005)
        last = game.panels.chat.lines[-1]
        assert last == (ISABELLA, "I run Hobbs Cafe.") or last[0] == ISABELLA
        done = sum(1 for e in session.sim.events if e["kind"] == "action" and e["resident"] in busy) - done_before
        assert done <= 3, f"{done} queued decisions went before the player's reply"
        assert session.pool.in_flight() >= 18  # most of the town's work was still waiting
    finally:
        session.close()


# ---------------------------------------------------------------------------- the clock and the minds


def test_pacer_runs_full_then_slows_then_stands():
    class Sim:
        def __init__(self, lag):
            self.lag = lag
            self.bodies = {}

        def decision_lag(self):
            return self.lag, ["Isabella Rodriguez"]

    p = Pacer("minds")
    assert p.factor(Sim(0.0)) == 1.0 and p.factor(Sim(LAG_MIN / 2)) == 1.0
    assert p.factor(Sim(LAG_MIN * 0.75)) == pytest.approx(0.5)
    assert p.factor(Sim(LAG_MIN)) == 0.0 and p.factor(Sim(LAG_MIN * 5)) == 0.0
    p.pace = "clock"
    assert p.factor(Sim(LAG_MIN * 5)) == 1.0
    with pytest.raises(ValueError):
        Pacer("fast")


def test_the_clock_waits_for_a_late_mind_then_catches_up(display):
    """pace = minds: while Isabella's decision is late the clock stands within the lag
    bound (the frame goes on; the HUD names her); when it lands the clock runs on.
    Her first decision of the game is late only once her lie-in is over."""
    gate = threading.Event()
    isa = GatedMind(next(p for p in cast(25) if p.name == ISABELLA), gate=gate)
    game, session = build_game(display, {ISABELLA: isa}, MindPool(1))
    try:
        session.set_speed(5)  # 60 sim minutes a real second: a late mind shows at once
        start = session.now
        grace = timedelta(minutes=session.sim.settings.morning_grace_min)
        for _ in range(100):  # the clock moves while she lies in (slowing as her plan takes its time)
            run_frames(game, 30)
            if session.now - start >= grace - timedelta(minutes=LAG_MIN):
                break
        run_frames(game, 120)  # two seconds of frames at 60 fps: two sim hours at this speed
        lag = timedelta(minutes=LAG_MIN)
        assert grace - lag <= session.now - start <= grace + lag + timedelta(seconds=20)
        status = session.pace_status()
        assert status.limited and status.planning == 1
        assert "plan the morning" in describe(status) or "in bed while their day is planned" in describe(status)
        hud = "\n".join(t for t, _ in game.panels.hud.compose())
        assert "clock waits" in hud or "the town wakes" in hud
        gate.set()
        run_until(game, session, lambda: session.now - start > timedelta(minutes=30), rounds=100, frames=5)
        assert session.now - start > timedelta(minutes=30)  # caught up: the clock runs again
        assert session.pace_status().reached > 0
    finally:
        gate.set()
        session.close()


def test_pace_clock_keeps_the_speed_whatever_the_minds_do(display):
    gate = threading.Event()
    isa = GatedMind(next(p for p in cast(25) if p.name == ISABELLA), gate=gate)
    game, session = build_game(display, {ISABELLA: isa}, MindPool(1), pace="clock")
    try:
        session.set_speed(5)
        start = session.now
        run_frames(game, 120)
        assert session.now - start > timedelta(minutes=30)
        assert not session.pace_status().limited
        key = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_p, mod=0, unicode="p", scancode=0)
        game.handle_event(key)
        assert session.pace == "minds"
    finally:
        gate.set()
        session.close()


def test_the_next_action_is_decided_ahead_and_starts_on_the_dot(display):
    isa = GatedMind(next(p for p in cast(25) if p.name == ISABELLA), minutes=20)
    game, session = build_game(display, {ISABELLA: isa}, MindPool(1))
    try:
        session.set_speed(3)
        sim = session.sim
        run_until(game, session, lambda: len(isa.asked) >= 3, rounds=400)
        ahead = [s for s in isa.asked if s.plan_at is not None]
        assert ahead, "no decision was asked ahead"
        for s in ahead:
            assert timedelta(0) < s.plan_at - s.now <= timedelta(minutes=sim.settings.lookahead_min)
        starts = [e["time"] for e in sim.events if e["kind"] == "action" and e["resident"] == ISABELLA
                  and e.get("note") == "decided ahead"]
        assert starts and starts[0] == ahead[0].plan_at.isoformat(sep=" ")  # on the dot, no wait
        assert not any(s.action_done and s.plan_at is None for s in isa.asked[1:])  # never "what now?" late
    finally:
        session.close()


def test_an_action_that_ends_while_the_mind_thinks_gives_way_to_the_plan(display):
    """pace = clock, a mind that does not answer: the ended action is not kept; the
    resident follows its plan's step, marked as such (the routine without a plan)."""
    gate = threading.Event()
    gate.set()
    isa = GatedMind(next(p for p in cast(25) if p.name == ISABELLA), minutes=10, gate=gate)
    game, session = build_game(display, {ISABELLA: isa}, MindPool(1), pace="clock")
    try:
        session.set_speed(3)
        sim = session.sim
        b = sim.bodies[ISABELLA]
        run_until(game, session, lambda: b.action is not None and b.action.description.startswith("reading"))
        gate.clear()  # the mind stops answering
        isa.plan_step = "wiping the counters"
        t0 = time.monotonic()
        while not b.standing_in and time.monotonic() - t0 < 20:
            run_frames(game, 5)
        assert b.standing_in and b.action.description == "wiping the counters"
        assert "its plan" in b.action.source and not sim.action_done(b)
        assert sim.decision_lag()[1] == [ISABELLA]  # still owed: the lag counts it
        isa.plan_step = None  # no plan for today: the routine, said so
        t0 = time.monotonic()
        while b.action.description == "wiping the counters" and time.monotonic() - t0 < 20:
            run_frames(game, 5)
        assert b.standing_in and "routine" in b.action.source
        gate.set()
        run_until(game, session, lambda: not b.standing_in)
        assert not b.standing_in and b.action.description.startswith("reading")  # the mind's answer replaced it
    finally:
        gate.set()
        session.close()


# ---------------------------------------------------------------------------- the T key


def test_t_with_nobody_near_says_so_and_the_next_letters_fire_no_hotkeys(display):
    isa = GatedMind(next(p for p in cast(25) if p.name == ISABELLA))
    game, session = build_game(display, {ISABELLA: isa}, MindPool(1))
    try:
        run_frames(game, 2)
        sim = session.sim
        far = max(((x, y) for x in range(0, session.town.width, 3) for y in range(0, session.town.height, 3)
                   if game.walkable(x, y)),
                  key=lambda t: abs(t[0] - sim.bodies[ISABELLA].tile[0]) + abs(t[1] - sim.bodies[ISABELLA].tile[1]))
        game.visitor.place(far)
        run_frames(game, 1)

        def press(k, ch):
            game.handle_event(pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode=ch, scancode=0))
            game.handle_event(pygame.event.Event(pygame.KEYUP, key=k, mod=0, unicode=ch, scancode=0))

        press(pygame.K_t, "t")
        assert not game.panels.chat.is_open
        assert any("Nobody within" in t for t, _ in game.panels.hud.toasts)
        press(pygame.K_n, "n")  # "Hi Isabella, n..." typed into a chat that never opened
        assert not session.skipping  # N did not start a skip to the next morning
        assert any("No chat is open" in t for t, _ in game.panels.hud.toasts)
        game.panels.chat._mute_until = 0.0  # a moment later N is N again
        press(pygame.K_n, "n")
        assert session.skipping
    finally:
        session.close()


def test_pace_comes_from_the_flag_the_environment_or_the_toml_and_is_checked(tmp_path):
    from agents.model.config import load_config
    from agents.support.errors import ConfigError

    assert load_config({}, env={}, toml_path=None).pace == "minds"
    assert load_config({"pace": "clock"}, env={}, toml_path=None).pace == "clock"
    assert load_config({}, env={"SMALLVILLE_PACE": "Clock"}, toml_path=None).pace == "clock"
    toml = tmp_path / "smallville.toml"
    toml.write_text('pace = "clock"\n')
    assert load_config({}, env={}, toml_path=toml).pace == "clock"
    with pytest.raises(ConfigError, match="pace must be minds or clock"):
        load_config({"pace": "fast"}, env={}, toml_path=None)


def test_a_reply_before_the_minds_first_job_comes_from_its_description(tmp_path):
    """The morning's queue: a resident not yet seeded still answers from who it is,
    read-only (nothing stored), and the provenance names its description."""
    from agents.mind.core import Mind
    from agents.mind.interview import answer_now
    from agents.residents.mind_settings import MindSettings

    isa = next(p for p in cast(25) if p.name == ISABELLA)
    gw = make_gateway(lambda p, m, s: {"fact": "1"} if p == "choose_fact" else plausible(p, m, s), via_litellm=False)
    mind = Mind(isa, gw, HashEmbedder(64), MindSettings(grounded=True))
    assert not mind.seeded and mind.stream is None
    reply = answer_now(mind, "Alex", "When does the cafe you own open in the morning?", now=datetime(2023, 2, 13, 7, 0))
    assert reply.mode == "grounded" and "its description" in reply.source and reply.source.startswith("repaired")
    assert not mind.seeded and mind.stream is None  # left as it was


def test_a_resident_asked_again_later_does_not_stop_the_clock(display):
    """A decision to talk with someone who cannot (here: nobody of that name is in town)
    leaves the resident to be asked again a step later: with no job in flight it holds
    no clock, else the clock would wait for a question only a step can ask."""
    class Chatty(GatedMind):
        def decide(self, sit):
            self.asked.append(sit)
            if len(self.asked) == 1:
                return Decision(talk_to="Maria Lopez", note="wants to talk")
            return super().decide(sit)

    isa = Chatty(next(p for p in cast(25) if p.name == ISABELLA))
    isa.asked = []
    game, session = build_game(display, {ISABELLA: isa}, MindPool(1), start=datetime(2023, 2, 13, 10, 0))
    try:
        session.set_speed(5)
        start = session.now
        run_until(game, session, lambda: session.now - start > timedelta(minutes=10), rounds=100, frames=5)
        assert session.now - start > timedelta(minutes=10) and len(isa.asked) >= 2
    finally:
        session.close()


def test_a_reply_never_waits_for_a_residents_call_being_written():
    """Every instance busy writing a resident's call (a day plan takes seconds): the player's
    call gets the instance kept for the player at once; town calls never use it."""
    gate = threading.Event()
    made = []

    class Instance:
        def __init__(self):
            made.append(self)

        def chat(self, messages, timeout=None, **kw):
            if messages == "day plan":
                gate.wait(10)  # a long call in progress
            return {"who": messages, "by": made.index(self)}

        def close(self):
            pass

    model = ModelPool(1, make=Instance)
    town = threading.Thread(target=lambda: model.chat("day plan"))
    town.start()
    for _ in range(5000):
        if model.instances == 1:
            break
        time.sleep(0.001)
    with priority.ranked(priority.urgent()):
        got = model.chat("reply")  # does not wait for the day plan
    assert got["by"] == 1 and len(made) == 2
    other = []
    waiter = threading.Thread(target=lambda: other.append(model.chat("town call")))
    waiter.start()
    for _ in range(5000):
        if model.waiting() == 1:
            break
        time.sleep(0.001)
    assert model.waiting() == 1 and not other  # the player's instance is free, yet a town call waits
    gate.set()
    town.join(5)
    waiter.join(5)
    assert other and other[0]["by"] == 0


# ---------------------------------------------------------------------------- a new game begins before dawn


def test_dawn_start_is_before_the_first_wake_and_never_after_the_scenarios_start():
    from game.runs.session import DAWN_LEAD_MIN, dawn_start

    seven = datetime(2023, 2, 13, 7, 0)
    people = cast(25)
    assert min(p.wake_hour for p in people) == 6
    assert dawn_start(seven, people) == datetime(2023, 2, 13, 6, 0) - timedelta(minutes=DAWN_LEAD_MIN)
    late_risers = [p for p in people if p.wake_hour >= 8]
    assert dawn_start(seven, late_risers) == seven  # nobody up before the scenario's start: it stands
    assert dawn_start(seven, []) == seven


def test_a_new_game_begins_with_the_town_asleep_and_its_first_riser_up_on_time_with_its_minds_plan(display):
    """The window's new game (``before_dawn``): everyone in bed, the HUD says when the
    first gets up, the day plan is asked ahead of waking, and the first riser starts
    the model's action at its wake hour, never the routine."""
    from game.app import Game
    from game.runs.session import Session
    from game.view.tilemap import TileMapRenderer

    isa = next(p for p in cast(25) if p.name == ISABELLA)
    mind = GatedMind(isa, minutes=30)
    gw = make_gateway(plausible, via_litellm=False)
    session = Session.create(MAP, gateway=gw, embedder=HashEmbedder(64), minds={ISABELLA: mind}, pool=MindPool(1),
                             residents=[ISABELLA], visitor_name="Alex", before_dawn=True)
    game = Game(session.town, TileMapRenderer.from_file(MAP), size=display.get_size())
    game.attach_session(session)
    try:
        wake = session.now.replace(hour=isa.wake_hour, minute=0)
        assert session.now < wake and session.sim.bodies[ISABELLA].asleep
        status = session.pace_status()
        assert status.first_up == wake.strftime("%H:%M") and status.planning == 0
        assert describe(status).startswith(f"the town sleeps: the first get up at {wake:%H:%M}")
        session.set_speed(3)
        assert run_until(game, session, lambda: session.now >= wake + timedelta(minutes=5), rounds=400)
        assert mind.asked and mind.asked[0].plan_at == wake  # planned ahead of waking
        first = next(e for e in session.sim.events if e["kind"] == "action" and e["resident"] == ISABELLA
                     and not e["text"].startswith("sleeping"))
        assert first["time"] == wake.isoformat(sep=" ") and first["text"].startswith("reading")
        assert session.pace_status().first_up is None  # someone is up
    finally:
        session.close()
