"""The event log (game/sim/eventlog.py): a bounded window in memory, the rest on
disk, read back whole by saves, summaries and tests; saves take it off the frame."""
from __future__ import annotations

import threading
from datetime import datetime

import pytest
from mapkit import write_map

from agents.mind.inspection import Inspection
from agents.threads.pool import MindPool
from game.saves.saveload import capture, materialize
from game.saves.store import load_state, save_state
from game.sim import Simulation
from game.sim.eventlog import EventLog
from game.world.map_reader import load_town
from lab.standins import StandInMind


def ev(i: int) -> dict:
    return {"time": f"2023-02-13 07:{i % 60:02d}:00", "resident": f"R{i % 3}", "kind": "action",
            "text": f"event {i} — café ☕", "address": "", "n": i}


def test_a_bounded_window_in_memory_and_everything_readable():
    log = EventLog(window=5)
    for i in range(23):
        log.append(ev(i))
    assert len(log) == 23 and log.in_memory == 5 and log.on_disk == 18
    assert [e["n"] for e in log] == list(range(23))  # oldest first, the disk's part included
    assert log[0]["n"] == 0 and log[17]["n"] == 17 and log[18]["n"] == 18 and log[-1]["n"] == 22
    assert [e["n"] for e in log[3:20]] == list(range(3, 20))  # a slice across disk and memory
    assert [e["n"] for e in log[::5]] == [0, 5, 10, 15, 20]
    assert [e["n"] for e in log.since(16)] == list(range(16, 23))
    assert [e["n"] for e in log.recent(3)] == [20, 21, 22]
    assert [e["n"] for e in log.recent(50)] == list(range(18, 23))  # never more than the window
    assert log.since(23) == [] and log.recent(0) == []
    assert log == [ev(i) for i in range(23)] and log != [ev(i) for i in range(22)]
    assert log[5]["text"] == "event 5 — café ☕"  # unicode survives the journal
    with pytest.raises(IndexError):
        log[23]


def test_window_must_hold_an_event():
    with pytest.raises(ValueError, match="at least one"):
        EventLog(window=0)


def test_memory_stays_bounded_however_long_the_run():
    log = EventLog(window=100)
    for i in range(20_000):
        log.append(ev(i))
    assert log.in_memory == 100 and len(log) == 20_000
    assert log[12_345]["n"] == 12_345


def test_snapshot_reads_off_the_main_thread_and_ignores_later_events():
    log = EventLog(window=4)
    for i in range(10):
        log.append(ev(i))
    snap = log.snapshot()
    for i in range(10, 30):  # the game goes on while the writer reads
        log.append(ev(i))
    got: list = []
    t = threading.Thread(target=lambda: got.extend(snap()))
    t.start()
    t.join()
    assert [e["n"] for e in got] == list(range(10))
    small = EventLog(window=50)
    small.extend(ev(i) for i in range(3))
    assert [e["n"] for e in small.snapshot()()] == [0, 1, 2]  # nothing on disk yet


def test_reset_replaces_everything_and_a_snapshot_outlives_it():
    log = EventLog(window=3)
    log.extend(ev(i) for i in range(8))
    snap = log.snapshot()
    log.reset([ev(100), ev(101)])
    assert [e["n"] for e in log] == [100, 101] and log.on_disk == 0
    assert [e["n"] for e in snap()] == list(range(8))  # the snapshot holds its own journal


START = datetime(2023, 2, 13, 7, 0)


class Idle(StandInMind):
    def __init__(self, name):
        self.name = name
        self.persona = None

    def decide(self, situation):
        raise RuntimeError("not asked here")

    def inspect(self):
        return Inspection(name=self.name)

    def to_state(self):
        return {"idle": True}


def test_the_sim_saves_every_event_and_loads_them_back(tmp_path):
    town = load_town(write_map(tmp_path))
    pool = MindPool(1)
    try:
        sim = Simulation(town, {"Isabella Rodriguez": Idle("Isabella Rodriguez")}, pool, START, lockstep=True)
        sim.events = EventLog(window=10)
        for i in range(57):
            sim.log_event("Isabella Rodriguez", "action", f"thing {i}", "")
        assert sim.events.on_disk == 47
        st = sim.to_state()
        assert [e["text"] for e in st["events"]] == [f"thing {i}" for i in range(57)]
        assert "events" not in sim.to_state(events=False)

        class Game:  # what capture needs of a running game
            minds = sim.minds
            gateway = embedder = config = None
        Game.sim, Game.town = sim, town
        parts, meta = capture(Game)
        assert callable(parts["sim"])  # the events are read by the writer, not the frame
        sim.log_event("Isabella Rodriguez", "action", "after the save", "")
        plain = materialize(parts)
        assert len(plain["sim"]["events"]) == 57
        save_state(tmp_path / "s.sqlite", parts, meta)
        loaded, _ = load_state(tmp_path / "s.sqlite")
        other = Simulation(town, {"Isabella Rodriguez": Idle("Isabella Rodriguez")}, pool, START, lockstep=True)
        other.from_state(loaded["sim"])
        assert list(other.events) == plain["sim"]["events"]
    finally:
        pool.shutdown()
