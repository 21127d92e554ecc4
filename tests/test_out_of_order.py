"""Out-of-order stepping (game/sim/ahead.py): minds asked early give the run lockstep
gives, and the dependency rules say when a resident's next question can be known.

The town here is long: a cafe on the left, an apartment on the right, a park along
the bottom joining them (about 30 steps apart), so "could walk into view in time"
means something. The minds are ledgers: every answer depends on everything they
were asked before, and a ledger can be put back (``snapshot`` / ``from_state``)
like a real Mind, so an answer asked early and then undone would show.
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from mapkit import write_map

from agents.mind.inspection import Inspection
from agents.support.types import Action, Decision, Utterance
from game.sim import STEP, Simulation, ahead
from game.world.map_reader import load_town

W = "Testville"
CAFE = f"{W}:Hobbs Cafe:cafe"
HOME = f"{W}:Isabella Rodriguez's apartment:main room"
PARK = f"{W}:Johnson Park:park"
START = datetime(2023, 2, 13, 7, 0)
WIDTH = 40


def long_town(tmp_path):
    rows = [["#"] * WIDTH for _ in range(10)]
    for y in range(1, 5):
        for x in range(1, 7):
            rows[y][x] = "."  # the cafe
        for x in range(31, 39):
            rows[y][x] = "."  # the apartment
    for y in range(6, 9):
        for x in range(1, 39):
            rows[y][x] = "."  # the park
    rows[5][3] = rows[5][34] = "."  # doors
    rows[1][1] = rows[2][3] = rows[2][4] = rows[3][31] = "X"  # coffee machine, counter, refrigerator
    objects = (
        ("coffee machine", 1, 1, 1, 1), ("cafe counter", 3, 2, 2, 1), ("bed", 33, 1, 2, 1),
        ("refrigerator", 31, 3, 1, 1), ("park bench", 3, 7, 2, 1), ("fountain", 10, 6, 1, 1),
    )
    path = write_map(
        tmp_path, rows=tuple("".join(r) for r in rows),
        sectors=(("Hobbs Cafe", 0, 0, 8, 6), ("Isabella Rodriguez's apartment", 30, 0, 10, 6),
                 ("Johnson Park", 0, 6, WIDTH, 4)),
        arenas=(("cafe", 1, 1, 6, 4), ("main room", 31, 1, 8, 4), ("park", 1, 6, WIDTH - 2, 3)),
        objects=objects, spawns=(("Isabella Rodriguez", 33, 1), ("visitor", 20, 7)),
    )
    return load_town(path)


class Ledger:
    """A deterministic mind with a memory: it writes down every question, and its
    answers depend on the whole ledger (how many questions, what it saw). It can be
    put back like a Mind (``snapshot()`` then ``from_state``)."""

    def __init__(self, name, plan, home=HOME):
        self.name = name
        self.persona = SimpleNamespace(name=name, home=home, workplace=CAFE, wake_hour=7)
        self.plan = plan
        self.ledger: list[tuple] = []

    def decide(self, s):
        self.ledger.append(("decide", s.now, s.plan_at, s.address, tuple(e.description for e in s.events),
                            tuple(s.can_talk_to)))
        return self.plan(self, s)

    def utter(self, conversation, now, partner_doing):
        self.ledger.append(("utter", now, len(conversation.lines), partner_doing))
        n = len(conversation.lines)
        return Utterance(self.name, f"{self.name.split()[0]} says {n} ({len(self.ledger)})", n >= 3)

    def end_conversation(self, conversation, now):
        self.ledger.append(("end", now, len(conversation.lines)))

    def snapshot(self, in_flight=None):
        kept = list(self.ledger)
        return lambda: {"ledger": list(kept)}

    def from_state(self, state):
        self.ledger = list(state["ledger"])

    def queue_thought(self, text, importance=8):
        self.ledger.append(("thought", text))

    def inspect(self):
        return Inspection(name=self.name)


def tasks(*places, minutes=(12, 7, 25, 9, 16), talk=False):
    """A plan: the next task at the next of ``places`` (in turn), lasting by the ledger's
    length; with ``talk``, the first time someone may be talked to, talk to them."""

    def plan(m, s):
        n = len(m.ledger)
        if talk and s.can_talk_to and not any(x[0] == "utter" for x in m.ledger):
            return Decision(talk_to=s.can_talk_to[0], note="says hello")
        place = places[n % len(places)]
        seen = len(s.events)
        return Decision(Action(f"task {n} (saw {seen})", place, s.plan_at or s.now, minutes[n % len(minutes)]))

    return plan


def make(tmp_path, minds, spawns, pools, out_of_order):
    sim = Simulation(long_town(tmp_path), minds, pools(2), START, lockstep=True, spawns=spawns)
    sim.out_of_order = out_of_order
    return sim


def run(sim, minutes, on_step=None):
    end = sim.now + timedelta(minutes=minutes)
    sim.horizon = end
    while sim.now < end:
        sim.step()
        if on_step is not None:
            on_step(sim)
    sim.jobs.undo_all_early()
    sim.drain()


def both(tmp_path, pools, cast, spawns, minutes, on_step=None):
    """The same town run lockstep and out of order: (events, ledgers) of each, and the
    out-of-order sim."""
    out = []
    for ooo in (False, True):
        minds = [Ledger(name, plan) for name, plan in cast]
        sim = make(tmp_path / str(ooo), minds, spawns, pools, ooo)
        run(sim, minutes, on_step)
        events = [(e["time"], e["resident"], e["kind"], e["text"], e["address"]) for e in sim.events]
        out.append((events, {m.name: m.ledger for m in minds}, sim))
    return out


def place(sim, name, tile, action, *, arrived=True):
    """Stand ``name`` at ``tile`` doing ``action`` (as if it had walked there)."""
    b = sim.bodies[name]
    b.tile = tile
    b.action = action
    b.target = sim.resolve(action.address)
    b.arrived_at = sim.now if arrived else None
    b.asked_day = sim.now.date().isoformat()
    b.last_decide = sim.now
    return b


# ---------------------------------------------------------------------------- the same run


def test_out_of_order_gives_the_lockstep_run_event_for_event(tmp_path, pools):
    cast = [
        ("Isabella Rodriguez", tasks(f"{CAFE}:coffee machine", f"{CAFE}:cafe counter", CAFE)),
        ("Klaus Mueller", tasks(HOME, f"{HOME}:refrigerator", HOME, PARK, CAFE, talk=True)),
        ("Maria Lopez", tasks(f"{PARK}:park bench", PARK, f"{PARK}:fountain", minutes=(30, 45, 20))),
        ("Tom Moreno", tasks(HOME, HOME, PARK, minutes=(40, 15, 35))),
    ]
    spawns = {"Isabella Rodriguez": (2, 3), "Klaus Mueller": (35, 2), "Maria Lopez": (20, 7), "Tom Moreno": (37, 4)}
    (lock_ev, lock_minds, _), (ooo_ev, ooo_minds, sim) = both(tmp_path, pools, cast, spawns, 150)
    assert sim.jobs.early_taken >= 5  # the model was asked early
    assert ooo_ev == lock_ev
    assert ooo_minds == lock_minds  # every mind was asked the same questions, in order
    assert any(e[2] == "chat" for e in lock_ev)  # Klaus met someone: the residents interact
    assert sim.jobs.early_undone == 0  # the rules predicted right: nothing asked early had to be undone


# ---------------------------------------------------------------------------- the rules


def test_two_residents_meeting_whoever_could_walk_into_view_in_time_is_waited_for(tmp_path, pools):
    isa, klaus = Ledger("Isabella Rodriguez", tasks(CAFE)), Ledger("Klaus Mueller", tasks(CAFE))
    sim = make(tmp_path, [isa, klaus], {}, pools, True)
    sim.horizon = START + timedelta(hours=3)
    b = place(sim, "Isabella Rodriguez", (2, 3), Action("brewing", f"{CAFE}:coffee machine", START, 60))
    k = place(sim, "Klaus Mueller", (35, 2), Action("walking to the park", PARK, START, 5), arrived=False)
    k.path = [(34, 3)]  # on his way (his action ends soon: what he does next is not known)
    far = ahead._distance(ahead.walk_distances(sim, sim.area(b.tile)), k.tile)
    assert 25 <= far <= 45  # the apartment is a walk from the cafe, not 33 tiles as the crow flies
    at = START + timedelta(minutes=40)
    assert ahead.alone(sim, b, far - 2, at)  # he cannot be there in time
    assert not ahead.alone(sim, b, far, at)  # he could: Isabella's next question waits for him
    # Isabella is asked ahead 20 sim minutes before her hour ends (07:40): 240 steps away, so not yet.
    assert ahead.prediction(sim, b) is None
    k.path, k.action = [], Action("reading", HOME, START, 120)  # he stays home all morning
    k.target, k.arrived_at = sim.resolve(HOME), START
    got = ahead.prediction(sim, b)
    assert got is not None and got[0] == START + timedelta(minutes=40)
    assert got[1].events == [] and got[1].can_talk_to == []


def test_a_conversation_across_the_range_edge(tmp_path, pools):
    """In the park: Maria at the talk radius (may be talked to), Tom just beyond the
    vision radius. Both are dependencies while they could still act; a neighbour who
    surely stands still is part of the prediction (what Isabella sees of her)."""
    names = ("Isabella Rodriguez", "Maria Lopez", "Tom Moreno")
    sim = make(tmp_path, [Ledger(n, tasks(PARK)) for n in names], {}, pools, True)
    sim.horizon = START + timedelta(hours=3)
    r = sim.settings.talk_radius
    isa = place(sim, names[0], (3, 7), Action("sitting", f"{PARK}:park bench", START, 25))
    maria = place(sim, names[1], (3 + r, 7), Action("feeding birds", PARK, START, 60))
    tom = place(sim, names[2], (3 + sim.settings.vision_radius + 1, 8), Action("jogging", PARK, START, 60))
    at, sit = ahead.prediction(sim, isa)
    assert at == START + timedelta(minutes=5)  # asked ahead 20 minutes before 07:25
    assert [e.description for e in sit.events] == ["Maria Lopez is feeding birds"]  # Tom is out of view
    assert sit.can_talk_to == ["Maria Lopez"]  # at the edge of the talk radius: may be talked to
    tom.action = Action("jogging", PARK, START, 4)  # Tom's jog ends before 07:05: he may come over
    assert ahead.prediction(sim, isa) is None
    tom.action = Action("jogging", PARK, START, 60)
    maria.new_events = True  # Maria noticed something: she may react (and talk to Isabella) first
    assert ahead.prediction(sim, isa) is None
    maria.new_events = False
    # Maria's next action asked ahead first (07:00:10): held until hers ends, most likely (a talk
    # or an act at once would be caught at the step): Isabella's question stands.
    maria.action = Action("feeding birds", PARK, START, 20)
    assert ahead.prediction(sim, isa)[1].can_talk_to == ["Maria Lopez"]
    # Maria asked at the same step as Isabella: free to talk if asked after her, not if before.
    maria.action = Action("feeding birds", PARK, START, 25)
    assert ahead.prediction(sim, isa)[1].can_talk_to == ["Maria Lopez"]
    sim.bodies = {n: sim.bodies[n] for n in (names[1], names[0], names[2])}
    assert ahead.prediction(sim, isa)[1].can_talk_to == []
    maria.action = Action("feeding birds", PARK, START, 60)
    sim.cooldowns["Isabella Rodriguez|Maria Lopez"] = START + timedelta(minutes=3)
    assert ahead.prediction(sim, isa)[1].can_talk_to == ["Maria Lopez"]  # the cooldown is over by then
    sim.cooldowns["Isabella Rodriguez|Maria Lopez"] = START + timedelta(minutes=30)
    assert ahead.prediction(sim, isa)[1].can_talk_to == []


def test_a_conversation_started_at_the_range_edge_runs_as_in_lockstep(tmp_path, pools):
    cast = [
        ("Isabella Rodriguez", tasks(f"{PARK}:park bench", minutes=(55, 30))),
        ("Maria Lopez", tasks(PARK, minutes=(44, 22, 39), talk=True)),
        ("Tom Moreno", tasks(PARK, minutes=(65, 41, 18), talk=True)),
    ]
    r = 6
    spawns = {"Isabella Rodriguez": (3, 7), "Maria Lopez": (3 + r, 7), "Tom Moreno": (3 + r + 3, 8)}
    (lock_ev, lock_minds, _), (ooo_ev, ooo_minds, sim) = both(tmp_path, pools, cast, spawns, 90)
    assert [e for e in lock_ev if e[2] == "chat"]
    assert ooo_ev == lock_ev and ooo_minds == lock_minds
    assert sim.jobs.early_undone == 0  # (three in view of each other: little can be asked early here)


def test_what_others_do_to_objects_in_view_is_a_dependency(tmp_path, pools):
    names = ("Isabella Rodriguez", "Klaus Mueller")
    sim = make(tmp_path, [Ledger(n, tasks(CAFE)) for n in names], {}, pools, True)
    sim.horizon = START + timedelta(hours=3)
    isa = place(sim, names[0], (2, 3), Action("wiping tables", CAFE, START, 21))  # asked at 07:01
    klaus = place(sim, names[1], (20, 7), Action("walking", PARK, START, 3), arrived=False)
    klaus.path = [(21, 7)]  # in the park, on his way somewhere, too far to reach the cafe by 07:01
    assert ahead.prediction(sim, isa) is not None
    # Klaus's action is at the cafe, though he acts where he stands (he cannot get there):
    # what his action leaves behind lands anywhere in the cafe.
    klaus.target = sim.resolve(f"{CAFE}:cafe counter")
    assert ahead.prediction(sim, isa) is None
    klaus.target = sim.resolve(PARK)
    # Klaus holding the coffee machine Isabella sees: when he lets go, its state changes.
    klaus.held_object = f"{CAFE}:coffee machine"
    assert ahead.prediction(sim, isa) is None
    klaus.held_object = None
    # A state the coffee machine was left in runs out before she is asked.
    sim.lingering[f"{CAFE}:coffee machine"] = ("needs cleaning", START + timedelta(seconds=30))
    assert ahead.prediction(sim, isa) is None
    sim.lingering[f"{CAFE}:coffee machine"] = ("needs cleaning", START + timedelta(minutes=50))
    assert ahead.prediction(sim, isa) is not None


def test_a_world_edit_seen_from_afar_undoes_what_was_asked_early(tmp_path, pools):
    """The console sets the fountain, at the edge of Isabella's view, while her next
    question is out early: her situation then is not the one asked, so the early job
    is undone (her mind put back) and she is asked again; the run is lockstep's."""
    edit_at = START + timedelta(minutes=9)

    def edit(sim):
        if sim.now == edit_at:
            sim.set_object_state(f"{PARK}:fountain", "overflowing", by="the player")

    cast = [("Isabella Rodriguez", tasks(f"{PARK}:park bench", minutes=(25, 30, 20)))]
    spawns = {"Isabella Rodriguez": (3, 7)}
    assert max(abs(10 - 3), abs(6 - 7)) <= 8  # the fountain is in view, 7 tiles off
    (lock_ev, lock_minds, _), (ooo_ev, ooo_minds, sim) = both(tmp_path, pools, cast, spawns, 80, on_step=edit)
    assert any(e[2] == "edit" for e in lock_ev)
    assert ooo_ev == lock_ev and ooo_minds == lock_minds
    assert sim.jobs.early_undone >= 1 and sim.jobs.early_taken >= 1


def test_a_sleeper_is_asked_its_morning_early_and_a_save_takes_its_mind_from_before(tmp_path, pools):
    isa = Ledger("Isabella Rodriguez", tasks(HOME))
    sim = make(tmp_path, [isa], {}, pools, True)
    sim.horizon = START + timedelta(hours=3)
    b = place(sim, "Isabella Rodriguez", (33, 1), Action("sleeping", f"{HOME}:bed", START, 90))
    at, sit = ahead.prediction(sim, b)
    assert at == START + timedelta(minutes=50)  # twice the look-ahead before waking
    assert sit.events == [] and sit.can_talk_to == [] and sit.plan_at == START + timedelta(minutes=90)
    ahead.step(sim)
    early = sim.jobs.early("Isabella Rodriguez")
    assert early is not None and sim.jobs.free("Isabella Rodriguez")  # asked early, not asked yet
    sim.pool.wait()
    assert isa.ledger and early.before() == {"ledger": []}  # a save now takes her mind as it was
    sim.jobs.undo_all_early()
    assert isa.ledger == [] and sim.jobs.early("Isabella Rodriguez") is None


@pytest.mark.parametrize("steps", [1, 3])
def test_asked_early_answers_land_at_their_step(tmp_path, pools, steps):
    """An answer asked early is applied at the step lockstep applies it, not when it is back."""
    isa = Ledger("Isabella Rodriguez", tasks(HOME, minutes=(30,)))
    sim = make(tmp_path, [isa], {}, pools, True)
    sim.horizon = START + timedelta(hours=1)
    place(sim, "Isabella Rodriguez", (33, 1), Action("sleeping", f"{HOME}:bed", START, 41))
    for _ in range(steps):
        sim.step()
    sim.pool.wait()
    assert sim.jobs.early("Isabella Rodriguez") is not None
    assert sim.bodies["Isabella Rodriguez"].next_action is None  # back, but not hers until 07:01
    while sim.now <= START + timedelta(minutes=1, seconds=10):
        sim.step()
    assert sim.bodies["Isabella Rodriguez"].next_action is not None
    assert sim.jobs.early_taken == 1 and STEP.total_seconds() == 10


# ---------------------------------------------------------------------------- the whole command


def test_smallville_sim_out_of_order_is_lockstep_with_the_scripted_model(tmp_path, monkeypatch):
    """`smallville sim` with the scripted competent model (real minds: memories,
    plans, conversations), a few residents of the Ville, both ways: the same events
    and the same timeline (scripts/seeded_run.sh checks the whole town's day)."""
    from smallville.cli import main

    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    runs = {}
    for way in ("lockstep", "ooo"):
        out = tmp_path / way
        args = ["sim", "--agents", "8", "--hours", "1.5", "--seed", "7", "--model", "scripted/competent",
                "--out", str(out), "--lockstep" if way == "lockstep" else "--out-of-order"]
        assert main(args) == 0
        timeline = [ln for ln in (out / "timeline.md").read_text().splitlines() if "wall time" not in ln]
        summary = json.loads((out / "summary.json").read_text())
        runs[way] = ((out / "events.jsonl").read_text(), timeline, summary["stepping"])
    assert runs["ooo"][0] == runs["lockstep"][0] and runs["ooo"][1] == runs["lockstep"][1]
    assert runs["lockstep"][2]["mode"] == "lockstep" and runs["ooo"][2]["mode"] == "out-of-order"
    assert runs["ooo"][2]["asked_early_taken"] > 0


@pytest.mark.parametrize(("someone_on_the_goal", "to_the_park"), [(False, False), (True, False), (False, True)])
def test_a_resident_setting_off_is_asked_from_its_first_step(tmp_path, pools, someone_on_the_goal, to_the_park):
    """Just sent somewhere (its path is searched at the next step, then it takes a step
    and is asked ahead): where that step leads is worked out as the path service will
    (for an arena, its random pick of six goal tiles drawn from a copy of the
    simulation's generator); anyone standing on a goal tile makes it unknowable (it is
    asked at its step)."""
    names = ("Isabella Rodriguez", "Klaus Mueller")
    sim = make(tmp_path, [Ledger(n, tasks(PARK)) for n in names], {}, pools, True)
    sim.horizon = START + timedelta(hours=3)
    bench = PARK if to_the_park else f"{PARK}:park bench"
    isa = place(sim, names[0], (35, 3), Action("standing", HOME, START - timedelta(minutes=5), 5))
    isa.arrived_at = START - timedelta(minutes=5)
    isa.next_action, isa.ahead_for = Action("sitting on the bench", bench, START, 8), isa.action.end
    klaus = place(sim, names[1], (2, 3), Action("reading", CAFE, START, 120))
    if someone_on_the_goal:
        klaus.tile = sim.town.use_tiles(bench)[0]
    sim.step()  # 07:00: her standing is over: she sets off (her path is searched at 07:00:10)
    assert isa.routing and sim.paths.pending(names[0])
    early = sim.jobs.early(names[0])
    if someone_on_the_goal:
        assert early is None
        return
    sit = early.args[0]
    assert early.at == START + STEP and sit.plan_at == START + timedelta(minutes=8)
    state = sim.rng.getstate()
    sim.step()  # 07:00:10: the search, her first step, and the question: the one asked early
    assert isa.walking and isa.tile != (35, 3)
    assert (sim.rng.getstate() != state) == to_the_park  # the pick was drawn, as predicted
    assert sim.jobs.early_taken == 1 and sim.jobs.early_undone == 0
    assert sim.minds[names[0]].ledger[-1][:4] == ("decide", START + STEP, sit.plan_at, sit.address)


def test_undone_real_minds_are_put_back_exactly(tmp_path, monkeypatch):
    """World edits next to residents whose next question is out early, with real minds
    (memories, importance rated again later, plans) and the scripted competent model:
    each such job is undone and asked again, and the run is still lockstep's."""
    import lab.competent  # noqa: F401 - registers scripted/competent
    from agents import Gateway, load_cast, load_config
    from game.headless import run_headless

    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path / "home"))
    ville = Path(__file__).resolve().parent.parent / "maps" / "the_ville" / "the_ville.tmx"
    cast, scenario = load_cast(ville.parent)

    def edit(sim):  # the same edits both ways: every minute, something in view of each in turn
        if sim.steps % 6 == 0:
            names = sorted(sim.bodies)
            seen = sorted(ahead.objects_in_view(sim, sim.bodies[names[sim.steps // 6 % len(names)]]))
            if seen:
                sim.set_object_state(seen[sim.steps % len(seen)], f"odd {sim.steps}", by="the test")

    got = {}
    for ooo in (False, True):
        config = load_config({"seed": 7, "model": "scripted/competent"}, env={}, toml_path=None)
        result = run_headless(load_town(ville), cast[:10], start=scenario.start, hours=1.0, out=tmp_path / str(ooo),
                              scenario=scenario, config=config, gateway=Gateway(config), seed=7, progress=False,
                              echo=None, on_step=edit, out_of_order=ooo, autosave_min=None)
        got[ooo] = ((tmp_path / str(ooo) / "events.jsonl").read_text(), result.summary["stepping"])
    assert got[True][1]["asked_early_undone"] >= 3
    assert got[True][0] == got[False][0]


def test_a_mind_is_put_back_as_it_was_when_asked_even_if_its_job_changed_things_in_place(tmp_path, pools):
    """A Mind's snapshot builds its parts later, from objects a job may change in place (a
    memory's importance rated again): what is asked early keeps a whole copy taken when
    it was asked, so undoing puts back that, not what the job left."""

    class InPlace(Ledger):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.notes = [{"importance": 1}]

        def decide(self, s):
            self.notes[0]["importance"] += 5  # changed in place, as MemoryStream.set_importance does
            return super().decide(s)

        def snapshot(self, in_flight=None):
            return lambda: {"ledger": list(self.ledger), "notes": self.notes}  # built late, like a Mind's

        def from_state(self, state):
            self.ledger, self.notes = list(state["ledger"]), [dict(n) for n in state["notes"]]

    isa = InPlace("Isabella Rodriguez", tasks(HOME))
    sim = make(tmp_path, [isa], {}, pools, True)
    sim.horizon = START + timedelta(hours=3)
    place(sim, "Isabella Rodriguez", (33, 1), Action("sleeping", f"{HOME}:bed", START, 90))
    ahead.step(sim)
    sim.pool.wait()
    assert isa.notes[0]["importance"] == 6
    assert sim.jobs.early("Isabella Rodriguez").before()["notes"] == [{"importance": 1}]  # what a save takes
    sim.jobs.undo_all_early()
    assert isa.notes == [{"importance": 1}] and isa.ledger == []
