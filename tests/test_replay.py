"""Recording a run and watching it again (game/recording.py, game/replay/,
`smallville replay`): a seeded headless run played back puts everyone where
they stood, a run killed with SIGKILL plays up to its last flush, bad
recordings play as far as they can and say where they stopped."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fakes import HashEmbedder, make_gateway, minimal_instance

from game.recording import BLOCK, FILE
from game.replay.reader import RecordingError, find_recording, read_recording

REPO = Path(__file__).resolve().parent.parent
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
MOMENTS = (1, 29, 30, 31, 97, 180, 263, 359)  # frames checked (block edges among them)

needs_map = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")


def _chatty(purpose, messages, schema):
    """Residents talk when they meet (so the recording has lines), the rest minimal."""
    if purpose == "talk_decision":
        return {"talk": True}
    if purpose == "utterance":
        n = sum(1 for m in messages if "utterance" in str(m.get("content", "")))
        return {"utterance": "Good morning! How are you today?", "ends": n > 2 or len(str(messages)) > 3000}
    return minimal_instance(schema)


def _town_and_cast():
    from agents.persona import load_cast
    from game.town import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    return town, cast, scenario


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory):
    """A seeded 1-hour headless run of 5 residents (Isabella and the dorm), and
    where everyone stood after every step (from the simulation itself)."""
    from game.headless import run_headless

    town, cast, scenario = _town_and_cast()
    out = tmp_path_factory.mktemp("replay") / "run"
    truth: dict[int, dict[str, tuple[int, int]]] = {}
    facing: dict[int, dict[str, str]] = {}
    acts: dict[int, dict[str, str | None]] = {}

    def note(sim):
        truth[sim.steps] = {n: tuple(b.tile) for n, b in sim.bodies.items() if not b.visitor}
        facing[sim.steps] = {n: b.facing for n, b in sim.bodies.items() if not b.visitor}
        acts[sim.steps] = {n: (b.action.description if b.action else None) for n, b in sim.bodies.items()}

    result = run_headless(town, cast[:5], start=scenario.start, hours=1, out=out, scenario=scenario,
                          gateway=make_gateway(_chatty), embedder=HashEmbedder(), seed=2, progress=False,
                          echo=None, on_step=note, autosave_min=20)
    return out, truth, facing, acts, result


@needs_map
def test_a_recorded_run_puts_everyone_back_on_their_tile(recorded_run):
    out, truth, facing, acts, result = recorded_run
    rec = read_recording(find_recording(out).recording)
    assert rec.stopped is None and rec.ended == "finished"
    assert rec.last == 360 and rec.residents == list(result.sim.minds)
    assert rec.world == "the Ville" and rec.start == result.sim.start
    moved = 0
    for f in range(1, rec.last + 1):  # every frame, every resident: tile and facing
        for i, name in enumerate(rec.residents):
            assert rec.tile(i, f) == truth[f][name], (f, name)
            assert rec.facing_at(i, f) == facing[f][name], (f, name)
            got = rec.action_at(i, f)
            assert (got["description"] if got else None) == acts[f][name], (f, name)
        moved += f > 1 and truth[f] != truth[f - 1]
    assert moved > 30  # they walked: the check is not of people standing still
    assert rec.tile(rec.visitor_slot, 10) is None  # a headless run has no visitor
    lines = [e for e in rec.events if e["kind"] == "line"]
    events = [json.loads(x) for x in (out / "events.jsonl").read_text().splitlines()]
    assert len(lines) == sum(1 for e in events if e["kind"] == "line")
    summary = json.loads((out / "summary.json").read_text())
    per = summary["recording"]["bytes_per_resident_per_sim_hour"]
    assert per and 0 < per < 20_000, summary["recording"]


@needs_map
def test_the_replay_session_shows_the_recorded_town_at_any_moment(recorded_run):
    from game.replay.playback import ReplaySession
    from game.town import load_town

    out, truth, _, acts, _ = recorded_run
    rec = read_recording(out / FILE)
    session = ReplaySession(rec, load_town(MAP))
    try:
        for f in (*MOMENTS, 5, 300, 2):  # forwards and back
            session.seek(f)
            assert session.now == rec.start + f * rec.step
            assert {n: b.tile for n, b in session.sim.bodies.items()} == truth[f]
            assert {n: (b.action.description if b.action else None)
                    for n, b in session.sim.bodies.items()} == acts[f]
        heard: list[dict] = []
        session.sim.listeners.append(heard.append)
        session.seek(0)
        session.paused = False
        session.set_speed(5)
        for _ in range(40):  # 40 frames of 1/60 s at an hour a second: 240 steps played through
            session.update(1 / 60)
        assert session.frame == 240
        assert {n: b.tile for n, b in session.sim.bodies.items()} == truth[240]
        assert len(heard) == len(rec.events_between(0, 240))  # the events on the way reached the views
    finally:
        session.close()


def _kill_run(tmp_path: Path, blocks: int) -> tuple[Path, dict[int, dict]]:
    out, truth = tmp_path / "run", tmp_path / "truth.jsonl"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "replay_worker.py"), str(out), str(truth)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            rec = out / FILE
            if rec.exists() and rec.read_bytes().count(b'"k":"m"') >= blocks:
                break
            if proc.poll() is not None:
                pytest.fail(f"the run ended early: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.05)
        else:
            pytest.fail("the run did not record in time")
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    seen: dict[int, dict] = {}
    for line in truth.read_text().splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # the kill cut its last line
        seen[row["s"]] = {n: tuple(t) for n, t in row["tiles"].items()}
    return out, seen


@needs_map
def test_a_run_killed_with_sigkill_plays_up_to_its_last_flush(tmp_path):
    out, truth = _kill_run(tmp_path, blocks=6)
    rec = read_recording(find_recording(out).recording)
    assert rec.ended is None  # no end mark: it was killed
    assert rec.last >= 6 * BLOCK and rec.last % BLOCK == 0  # whole blocks only
    assert "no end mark" in rec.summary()
    for f in (1, BLOCK, BLOCK + 7, rec.last // 2, rec.last - 1, rec.last):
        for i, name in enumerate(rec.residents):
            assert rec.tile(i, f) == truth[f][name], (f, name)
    assert not (out / "summary.json").exists()  # the killed run wrote nothing else at the end
