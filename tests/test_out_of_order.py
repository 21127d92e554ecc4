"""Out-of-order stepping (game/sim/clocks.py): residents on their own clocks give the
run lockstep gives, and the rule says who may step apart from whom.

The town here is long: a cafe on the left, an apartment on the right, a park along
the bottom joining them (about 30 steps apart), so "could walk into reach in time"
means something. The minds are ledgers: every answer depends on everything they
were asked before, so a question asked at another time, or seeing something else,
would show.
"""
from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from mapkit import write_map

from agents.mind.inspection import Inspection
from agents.support.types import Action, Decision, Utterance
from game.sim import STEP, Simulation, movement, objects
from game.sim.clocks import AHEAD, GroupClocks, Reach
from game.sim.decisions import jobs_in_flight
from game.world.map_reader import load_town
from lab.standins import StandInMind

W = "Testville"
CAFE = f"{W}:Hobbs Cafe:cafe"
HOME = f"{W}:Isabella Rodriguez's apartment:main room"
PARK = f"{W}:Johnson Park:park"
START = datetime(2023, 2, 13, 7, 0)
WIDTH = 40


@pytest.fixture(autouse=True)
def check_what_clocks_keep(monkeypatch):
    """Every run here also checks, each round, that the tiles, times and groups the clocks
    keep between rounds are those worked out afresh (GroupClocks._check_kept)."""
    monkeypatch.setenv("SMALLVILLE_CHECK_CLOCKS", "1")


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


class Ledger(StandInMind):
    """A deterministic mind with a memory: it writes down every question, and its
    answers depend on the whole ledger (how many questions, what it saw). It can be
    put back like a Mind (``snapshot()`` then ``from_state``)."""

    def __init__(self, name, plan, home=HOME):
        self.name = name
        self.persona = SimpleNamespace(name=name, home=home, workplace=CAFE, wake_hour=7)
        self.plan = plan
        self.ledger: list[tuple] = []

    delay = 0.0  # wall seconds each answer takes (a slow mind)

    def decide(self, s):
        time.sleep(self.delay)
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


def make(tmp_path, minds, spawns, pools):
    return Simulation(long_town(tmp_path), minds, pools(2), START, lockstep=True, spawns=spawns)


def run(sim, minutes, apart, edit=None):
    """Run ``minutes`` lockstep, or with a clock per resident (``apart``); ``edit``:
    (minute, fn(sim)) done when the town gets there (out of order: at a barrier)."""
    end = sim.steps + minutes * 6
    clocks = None
    if apart:
        clocks = GroupClocks(sim)
        if edit is not None:
            clocks.run_to(sim.steps + edit[0] * 6)
            edit[1](sim)
        clocks.run_to(end)
    else:
        while sim.steps < end:
            if edit is not None and sim.steps == edit[0] * 6:
                edit[1](sim)
            sim.step()
    sim.drain()
    return clocks


def both(tmp_path, pools, cast, spawns, minutes, edit=None, delays=None):
    """The same town run lockstep and out of order: (events, ledgers, clocks) of each."""
    out = []
    for apart in (False, True):
        minds = [Ledger(name, plan) for name, plan in cast]
        for m in minds:
            m.delay = (delays or {}).get(m.name, 0.0)
        sim = make(tmp_path / str(apart), minds, spawns, pools)
        clocks = run(sim, minutes, apart, edit)
        events = [(e["time"], e["resident"], e["kind"], e["text"], e["address"]) for e in sim.events]
        out.append((events, {m.name: m.ledger for m in minds}, clocks))
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


def apart(reach, a, b, gap):
    """Whether residents at ``a`` and ``b``, each free to walk ``gap`` steps, are apart."""
    return bool(reach.apart(np.array([a]), np.array([b]), np.array([[gap]]), np.array([gap]))[0, 0])


def how_far_apart(reach, a, b):
    """The most steps two residents at tiles ``a`` and ``b`` may step apart."""
    return max((g for g in range(1, 200) if apart(reach, a, b, g)), default=0)


# ---------------------------------------------------------------------------- the same run


def test_out_of_order_gives_the_lockstep_run_event_for_event(tmp_path, pools):
    cast = [
        ("Isabella Rodriguez", tasks(f"{CAFE}:coffee machine", f"{CAFE}:cafe counter", CAFE)),
        ("Klaus Mueller", tasks(HOME, f"{HOME}:refrigerator", HOME, PARK, CAFE, talk=True)),
        ("Maria Lopez", tasks(f"{PARK}:park bench", PARK, f"{PARK}:fountain", minutes=(30, 45, 20))),
        ("Tom Moreno", tasks(HOME, HOME, PARK, minutes=(40, 15, 35))),
    ]
    spawns = {"Isabella Rodriguez": (2, 3), "Klaus Mueller": (35, 2), "Maria Lopez": (20, 7), "Tom Moreno": (37, 4)}
    (lock_ev, lock_minds, _), (ooo_ev, ooo_minds, clocks) = both(tmp_path, pools, cast, spawns, 150)
    assert ooo_ev == lock_ev
    assert ooo_minds == lock_minds  # every mind was asked the same questions, seeing the same, at the same time
    assert any(e[2] == "chat" for e in lock_ev)  # Klaus met someone: the residents interact
    assert clocks.stats()["groups_per_step"] > 1  # and they stepped apart meanwhile


def test_a_slow_mind_holds_back_only_those_who_could_reach_it(tmp_path, pools):
    """Isabella's mind is slow; Klaus, at home across the town, runs ahead of her, never
    further than ``AHEAD`` steps, and the run is still lockstep's."""
    cast = [("Isabella Rodriguez", tasks(CAFE, minutes=(3, 2, 4))), ("Klaus Mueller", tasks(HOME, minutes=(2, 3)))]
    spawns = {"Isabella Rodriguez": (2, 3), "Klaus Mueller": (35, 2)}
    (lock_ev, lock_minds, _), (ooo_ev, ooo_minds, clocks) = both(
        tmp_path, pools, cast, spawns, 30, delays={"Isabella Rodriguez": 0.05})
    assert ooo_ev == lock_ev and ooo_minds == lock_minds
    assert 0 < clocks.most_ahead <= AHEAD


# ---------------------------------------------------------------------------- the rule


def test_two_residents_meeting_whoever_could_walk_into_reach_in_time_is_waited_for(tmp_path, pools):
    sim = make(tmp_path, [Ledger("Isabella Rodriguez", tasks(CAFE)), Ledger("Klaus Mueller", tasks(HOME))], {}, pools)
    reach = Reach(sim)
    cafe, home = (2, 3), (35, 2)
    far = how_far_apart(reach, cafe, home)
    assert far == (33 - 2 * reach.touch - 1) // 2  # 33 tiles apart: touching distance and a walk each
    assert not apart(reach, cafe, home, far + 1)  # any longer and they could be within touch, in the park
    # Through a wall it is the walk that counts: in the park behind the cafe's wall, five tiles
    # from her, Maria needs three steps to the door before she could be where Isabella is.
    assert 2 * reach.touch > 5 and how_far_apart(reach, cafe, (2, 8)) == 2
    # Walking towards her, he may step apart for less and less; within sight, they step together.
    on_the_way = [how_far_apart(reach, cafe, (x, 7)) for x in (30, 20, 10)]
    assert far > on_the_way[0] > on_the_way[1] == on_the_way[2] == 2  # the park is 3 steps from her
    assert not apart(reach, cafe, (3, 4), 1)
    cast = [("Isabella Rodriguez", tasks(CAFE, minutes=(20, 25))), ("Klaus Mueller", tasks(PARK, CAFE, talk=True))]
    (lock_ev, lock_minds, _), (ooo_ev, ooo_minds, _) = both(
        tmp_path / "run", pools, cast, {"Isabella Rodriguez": cafe, "Klaus Mueller": home}, 60)
    assert ooo_ev == lock_ev and ooo_minds == lock_minds
    assert any(e[2] == "chat" for e in lock_ev)  # they met


def test_far_apart_in_one_big_area_they_step_apart(tmp_path, pools):
    """The park is one area: two residents at its two ends may still step apart, as far
    as neither could come within touching distance (2 x (vision radius + 2)) in time."""
    sim = make(tmp_path, [Ledger("Maria Lopez", tasks(PARK)), Ledger("Tom Moreno", tasks(PARK))], {}, pools)
    reach = Reach(sim)
    d = 37 - 2
    assert how_far_apart(reach, (2, 7), (37, 7)) == (d - 2 * reach.touch - 1) // 2
    assert not apart(reach, (2, 7), (2 + 2 * reach.touch, 7), 1)  # within touching distance: one group


def test_a_conversation_across_the_range_edge(tmp_path, pools):
    """In the park: Maria at the talk radius from Isabella (may be talked to), Tom just
    beyond the vision radius. All three step together (within touching distance) and
    talk as in lockstep."""
    cast = [
        ("Isabella Rodriguez", tasks(f"{PARK}:park bench", minutes=(55, 30))),
        ("Maria Lopez", tasks(PARK, minutes=(44, 22, 39), talk=True)),
        ("Tom Moreno", tasks(PARK, minutes=(65, 41, 18), talk=True)),
    ]
    r, v = 6, 8
    spawns = {"Isabella Rodriguez": (3, 7), "Maria Lopez": (3 + r, 7), "Tom Moreno": (3 + v + 1, 8)}
    (lock_ev, lock_minds, _), (ooo_ev, ooo_minds, clocks) = both(tmp_path, pools, cast, spawns, 90)
    assert [e for e in lock_ev if e[2] == "chat"]
    assert ooo_ev == lock_ev and ooo_minds == lock_minds
    assert clocks.most_ahead <= 1  # never apart: each could be talked to by the next at any step


def test_what_others_leave_behind_is_only_what_is_in_view(tmp_path, pools):
    """An action's end leaves states on objects in view of where it was done, never
    across a big room: what one touches is near it, which is what the rule counts on."""
    sim = make(tmp_path, [Ledger("Klaus Mueller", tasks(HOME))], {}, pools)
    klaus = place(sim, "Klaus Mueller", (32, 2), Action("making breakfast", f"{HOME}:refrigerator", START, 20))
    fridge = f"{HOME}:refrigerator"
    objects.leave_behind(sim, klaus, klaus.action)
    assert sim.town.object_states[fridge] != "idle" and fridge in sim.lingering
    sim.town.object_states[fridge] = "idle"
    sim.lingering.clear()
    sim.settings.vision_radius = 3
    klaus.tile = (37, 4)  # the far end of his room: the fridge out of view
    objects.leave_behind(sim, klaus, klaus.action)
    assert sim.town.object_states[fridge] == "idle"


def recorded(tmp_path, pools, cast, spawns, steps):
    """The recording (game/runs/recording.py) of the same town run lockstep and out of
    order, each a list of records without the wall clock (and the map's folder)."""
    from game.runs.recording import Recorder

    out = []
    for apart in (False, True):
        sim = make(tmp_path / str(apart), [Ledger(name, plan) for name, plan in cast], spawns, pools)
        path = tmp_path / f"{apart}.jsonl"
        rec = Recorder(path, sim)
        end = sim.steps + steps
        if apart:
            GroupClocks(sim, on_frame=lambda frame, sim=sim, rec=rec: rec.after_step(sim, frame)).run_to(end)
        else:
            while sim.steps < end:
                sim.step()
                rec.after_step(sim)
        sim.drain()
        rec.close("finished")
        out.append([{k: v for k, v in json.loads(ln).items() if k not in ("w", "wall", "map")}
                    for ln in path.read_text().splitlines()])
    return out


@pytest.mark.parametrize("steps", [4 * 360, 1171])
def test_what_is_left_behind_runs_out_in_the_recording_as_in_lockstep(tmp_path, pools, steps):
    """Klaus makes breakfast at his refrigerator, which then runs low for 3 hours, and
    goes off to the cafe: nobody is near when it runs out. Out of order, that expiry
    waits for someone to come near (or a barrier); the recording still shows the fridge
    idle from the step lockstep shows it (1171: the run's last step)."""
    fridge = f"{HOME}:refrigerator"

    def breakfast_then_cafe(m, s):
        if not m.ledger[:-1]:
            return Decision(Action("making breakfast", fridge, s.plan_at or s.now, 15))
        return tasks(CAFE, minutes=(50, 35))(m, s)

    cast = [("Klaus Mueller", breakfast_then_cafe), ("Isabella Rodriguez", tasks(CAFE, minutes=(40, 25))),
            ("Maria Lopez", tasks(f"{PARK}:park bench", minutes=(30, 45)))]
    spawns = {"Klaus Mueller": (33, 3), "Isabella Rodriguez": (2, 3), "Maria Lopez": (3, 7)}
    lock, ooo = recorded(tmp_path, pools, cast, spawns, steps)
    states = [(r["s"], r["o"][fridge]) for r in lock if r.get("k") == "o" and fridge in r["o"]]
    assert [st for _, st in states] == ["running low", "idle"] and states[-1][0] == 1171  # it ran out at 10:15
    assert ooo == lock


def test_a_world_edit_seen_from_afar(tmp_path, pools):
    """The coffee machine is set to "broken" at 07:30, while Isabella works at it and
    Klaus is at home: out of order the edit waits for a barrier (every clock at 07:30),
    and the run is lockstep's, Isabella's reaction included."""
    cast = [("Isabella Rodriguez", tasks(f"{CAFE}:coffee machine", CAFE, minutes=(40, 20))),
            ("Klaus Mueller", tasks(HOME, PARK, minutes=(25, 30)))]
    spawns = {"Isabella Rodriguez": (2, 3), "Klaus Mueller": (35, 2)}

    def edit(sim):
        sim.set_object_state(f"{CAFE}:coffee machine", "broken", by="the test")

    (lock_ev, lock_minds, _), (ooo_ev, ooo_minds, _) = both(tmp_path, pools, cast, spawns, 60, edit=(30, edit))
    assert ooo_ev == lock_ev and ooo_minds == lock_minds
    seen = [q for q in lock_minds["Isabella Rodriguez"] if q[0] == "decide" and any("broken" in e for e in q[4])]
    assert seen  # she saw it, and was asked about it


def test_the_slowest_can_always_step_and_a_stop_brings_everyone_to_one_time(tmp_path, pools):
    minds = [Ledger("Isabella Rodriguez", tasks(CAFE)), Ledger("Klaus Mueller", tasks(HOME))]
    minds[0].delay = 0.02
    sim = make(tmp_path, minds, {"Isabella Rodriguez": (2, 3), "Klaus Mueller": (35, 2)}, pools)
    clocks = GroupClocks(sim)
    floors = []

    def on_floor():
        floors.append(sim.steps)
        return sim.steps >= 30  # a ceiling reached at 07:05

    assert clocks.run_to(sim.steps + 600, on_floor) is True
    assert floors == sorted(floors) and floors[-1] >= 30
    assert int(clocks.clock.min()) == int(clocks.clock.max()) == sim.steps < 600  # all at one time
    assert sim.now == START + sim.steps * STEP


def test_a_residents_random_pick_is_its_own(tmp_path, pools):
    sim = make(tmp_path, [Ledger("Isabella Rodriguez", tasks(CAFE)), Ledger("Klaus Mueller", tasks(HOME))], {}, pools)
    first = movement.pick(sim, "Isabella Rodriguez").random()
    movement.pick(sim, "Klaus Mueller").random()  # someone else drawing first changes nothing
    assert movement.pick(sim, "Isabella Rodriguez").random() == first
    sim.steps += 1
    assert movement.pick(sim, "Isabella Rodriguez").random() != first


def test_arriving_on_a_taken_tile_walks_on_to_a_free_one(tmp_path, pools):
    sim = make(tmp_path, [Ledger("Isabella Rodriguez", tasks(CAFE)), Ledger("Klaus Mueller", tasks(CAFE))], {}, pools)
    isa = place(sim, "Isabella Rodriguez", (4, 3), Action("waiting", CAFE, START, 30))
    klaus = place(sim, "Klaus Mueller", (5, 3), Action("waiting", CAFE, START, 30), arrived=False)
    klaus.path = [(4, 3)]  # he set off before he could see her there
    movement.walk(sim)
    assert klaus.path and klaus.arrived_at is None  # he does not stop on her
    while klaus.path:
        movement.walk(sim)
    assert klaus.tile != isa.tile and sim.area(klaus.tile) == sim.area(isa.tile) and klaus.arrived_at is not None


def test_reactions_wait_for_those_in_view_in_lockstep(tmp_path, pools):
    names = ("Isabella Rodriguez", "Klaus Mueller", "Maria Lopez")
    sim = make(tmp_path, [Ledger(n, tasks(CAFE)) for n in names], {}, pools)
    isa = place(sim, names[0], (2, 3), Action("wiping", CAFE, START, 30))
    place(sim, names[1], (4, 3), Action("reading", CAFE, START, 30))
    place(sim, names[2], (35, 2), Action("reading", HOME, START, 30))
    for n in names[1:]:
        sim.jobs._running[n] = object()  # a job sent and not yet applied
    assert jobs_in_flight(sim, isa) == 1  # Klaus's, in view; not Maria's, across the town
    sim.lockstep = False
    assert jobs_in_flight(sim, isa) == 2  # the window counts the whole town's (they share the model)


# ---------------------------------------------------------------------------- the whole command


def test_smallville_sim_out_of_order_is_lockstep_with_the_scripted_model(tmp_path, monkeypatch):
    """`smallville sim` with the scripted competent model (real minds: memories,
    plans, conversations), a few residents of the Ville, both ways: the same events,
    the same timeline, the same recording, the same end save (scripts/seeded_run.sh
    checks the whole town's day)."""
    from game.saves.store import load_state
    from smallville.cli import main

    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    runs = {}
    for way in ("lockstep", "ooo"):
        out = tmp_path / way
        args = ["sim", "--agents", "8", "--hours", "1.5", "--seed", "7", "--model", "scripted/competent",
                "--out", str(out), "--autosave-min", "30", "--lockstep" if way == "lockstep" else "--out-of-order"]
        assert main(args) == 0
        timeline = [ln for ln in (out / "timeline.md").read_text().splitlines() if "wall time" not in ln]
        summary = json.loads((out / "summary.json").read_text())
        clock_and_calls = ("w", "wall", "c", "t")  # the wall clock, and the calls made by then
        recording = [{k: v for k, v in json.loads(ln).items() if k not in clock_and_calls}
                     for ln in (out / "recording.jsonl").read_text().splitlines()]
        parts, _ = load_state(out / "saves" / "end.sqlite")
        runs[way] = ((out / "events.jsonl").read_text(), timeline, recording, parts["sim"], summary["stepping"])
    for i in range(4):
        assert runs["ooo"][i] == runs["lockstep"][i], i
    assert runs["lockstep"][4]["mode"] == "lockstep" and runs["ooo"][4]["mode"] == "out-of-order"
    assert runs["ooo"][4]["groups_per_step"] > 1


@pytest.mark.parametrize("again", [False, True])
def test_an_interrupted_run_brings_everyone_to_one_time_or_keeps_no_save(tmp_path, monkeypatch, again):
    """Ctrl-C while the residents stand at different times: those behind are brought up
    to the others' time and the end save is taken; Ctrl-C again: no end save (a save is
    a town at one time); the run says so, and the last autosave is the one to resume."""
    import game.headless as headless

    class Interrupted(GroupClocks):
        calls = 0

        def run_to(self, step, on_floor=None):
            Interrupted.calls += 1
            if Interrupted.calls == 1 or again:
                if Interrupted.calls == 1:
                    self.clock[0] += 1  # one resident a step ahead, as a group's step leaves it
                raise KeyboardInterrupt
            return super().run_to(step, on_floor)

    monkeypatch.setattr(headless, "GroupClocks", Interrupted)
    from agents import Gateway, load_config
    from agents.residents.persona import load_cast

    ville = Path(__file__).resolve().parents[1] / "maps" / "the_ville" / "the_ville.tmx"
    cast, scenario = load_cast(ville.parent)
    config = load_config({"seed": 7, "model": "scripted/competent"}, env={}, toml_path=None)
    said = []
    result = headless.run_headless(load_town(ville), cast[:4], start=scenario.start, hours=0.5, out=tmp_path / "run",
                                   scenario=scenario, config=config, gateway=Gateway(config), seed=7, progress=False,
                                   echo=said.append, out_of_order=True, autosave_min=None)
    assert result.interrupted
    assert (tmp_path / "run" / "saves" / "end.sqlite").exists() != again
    assert any("different times" in s for s in said) == again


def test_who_is_joined_is_who_is_not_apart_by_a_step(tmp_path, pools):
    sim = make(tmp_path, [Ledger("Isabella Rodriguez", tasks(CAFE))], {}, pools)
    reach = Reach(sim)
    walkable = np.argwhere(sim.town.walkable)[:, ::-1]
    tiles = walkable[np.random.default_rng(3).choice(len(walkable), 40, replace=False)]
    moves = np.random.default_rng(4).integers(0, 2, len(tiles))  # some stand still this step
    near = ~reach.apart(tiles, tiles, np.repeat(moves[:, None], len(tiles), axis=1), moves)
    clock = np.random.default_rng(5).integers(0, 2, len(tiles))  # and on two clocks: only one clock joins
    want = {(i, j) for i, j in zip(*np.nonzero(np.triu(near, 1))) if clock[i] == clock[j]}
    got = {(int(min(i, j)), int(max(i, j))) for i, j in reach.joined(tiles, moves, clock)}
    assert want and got == want
    among = np.random.default_rng(6).integers(0, 2, len(tiles)).astype(bool)  # those who changed: their pairs
    got = {(int(min(i, j)), int(max(i, j))) for i, j in reach.joined(tiles, moves, clock, among=among)}
    assert got == {(i, j) for i, j in want if among[i] or among[j]}


def test_what_the_clocks_keep_between_rounds_is_checked_against_a_fresh_count(tmp_path, pools):
    """A round works out groups only for those who changed; the check run with every test
    here (SMALLVILLE_CHECK_CLOCKS) is not vacuous: a body moved behind the clocks' back is
    caught, named."""
    cast = [("Isabella Rodriguez", tasks(CAFE)), ("Klaus Mueller", tasks(HOME))]
    minds = [Ledger(name, plan) for name, plan in cast]
    sim = make(tmp_path, minds, {"Isabella Rodriguez": (2, 3), "Klaus Mueller": (35, 2)}, pools)
    clocks = GroupClocks(sim)
    clocks.run_to(sim.steps + 12)
    assert clocks.pairs is not None and not clocks.dirty.any()  # kept, and nothing changed since
    sim.bodies["Klaus Mueller"].tile = (3, 3)  # next to Isabella, and the clocks were not told
    with pytest.raises(AssertionError, match="Klaus Mueller"):
        clocks._check_kept()
    sim.drain()


def test_a_reply_is_asked_as_soon_as_the_line_before_is_written(tmp_path, pools, monkeypatch):
    """A conversation's next line is asked when the line before comes back, not when it is
    heard a step later, with what that step would give (the talk with the line, the
    step's time): both steppings ask it so, and the run, and every question each mind was
    asked, are as before. A slow mind nearby holds the talkers' steps back meanwhile."""
    from game.sim import conversations

    asked_ahead = []
    ask_ahead = conversations.ask_ahead

    def counted(sim, name, job, res):
        chat = sim.chats.get(job.chat)
        before = chat is not None and chat.ahead
        ask_ahead(sim, name, job, res)
        if chat is not None and chat.ahead and not before:  # this line's reply went ahead
            listener = chat.conv.other(name)
            asked_ahead.append((sim.jobs.due_step(listener) - 1, listener, len(chat.conv.lines) + 1))

    monkeypatch.setattr(conversations, "ask_ahead", counted)
    cast = [
        ("Maria Lopez", tasks(PARK, minutes=(44, 22, 39), talk=True)),
        ("Tom Moreno", tasks(PARK, minutes=(65, 41, 18))),
        ("Isabella Rodriguez", tasks(f"{PARK}:park bench", minutes=(3, 2, 4))),
    ]
    spawns = {"Maria Lopez": (10, 7), "Tom Moreno": (12, 7), "Isabella Rodriguez": (16, 7)}
    (lock_ev, lock_minds, _), (ooo_ev, ooo_minds, _) = both(
        tmp_path, pools, cast, spawns, 30, delays={"Isabella Rodriguez": 0.02})
    assert ooo_ev == lock_ev and ooo_minds == lock_minds
    lines = [e for e in lock_ev if e[2] == "line"]
    assert len(lines) >= 3  # a talk of several lines: each reply after the first was asked ahead
    assert asked_ahead and all(n >= 1 for _, _, n in asked_ahead)  # with the line it answers
    # every reply asked ahead was asked for the step it would have been asked at, in each run
    assert {(s, name) for s, name, _ in asked_ahead[: len(asked_ahead) // 2]} == {
        (s, name) for s, name, _ in asked_ahead[len(asked_ahead) // 2:]}


def test_a_reply_is_not_asked_ahead_when_anything_could_change_it(tmp_path, pools):
    """Not for a line that ends the talk, a listener with a job of its own, while the jobs
    in flight are finished (a save), or as of the barrier the clocks run to."""
    from types import SimpleNamespace as Res

    from game.sim import conversations
    from game.sim.jobs import Job

    sim = make(tmp_path, [Ledger("Maria Lopez", tasks(PARK)), Ledger("Tom Moreno", tasks(PARK))],
               {"Maria Lopez": (10, 7), "Tom Moreno": (11, 7)}, pools)
    assert conversations.start(sim, "Maria Lopez", "Tom Moreno")
    chat = next(iter(sim.chats.values()))
    chat.phase, chat.waiting = "talk", True
    sim.jobs._running["Maria Lopez"], sim.jobs._due["Maria Lopez"] = Job.utter(chat.id), sim.steps + 1
    job = Job.utter(chat.id)

    def back(line, **state):
        for k, v in state.items():
            setattr(sim, k, v)
        conversations.ask_ahead(sim, "Maria Lopez", job, Res(value=line, error=None))
        for k in state:
            setattr(sim, k, {"draining": False, "ask_ahead_before": None}[k])
        return chat.ahead

    ends = Utterance("Maria Lopez", "Bye then.", True)
    goes_on = Utterance("Maria Lopez", "How is the park today?", False)
    assert not back(ends)
    assert not back(Utterance("Maria Lopez", "  ", False))  # an empty line ends the talk
    assert not back(goes_on, draining=True)
    assert not back(goes_on, ask_ahead_before=sim.steps + 1)
    sim.jobs.queue("Tom Moreno", Job.utter(99), lambda: None, submit=False)  # Tom has a job waiting
    assert not back(goes_on)
    sim.jobs._waiting.clear()
    assert back(goes_on)  # nothing in the way: Tom's reply is on its way, as of Maria's line's step
    assert sim.jobs.due_step("Tom Moreno") == sim.steps + 1 + sim.jobs.think_steps
    sim.drain()
