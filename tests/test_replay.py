"""Recording a run and watching it again (game/runs/recording.py, game/replay/,
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
from datetime import datetime
from pathlib import Path

import pytest
from fakes import HashEmbedder

from game.replay.reader import RecordingError, find_recording, read_recording
from game.runs.recording import BLOCK, FILE

REPO = Path(__file__).resolve().parent.parent
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
START = datetime(2023, 2, 14, 12, 0)
MOMENTS = (1, 29, 30, 31, 97, 180, 263, 359)  # frames checked (block edges among them)

needs_map = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")


def _town_and_cast():
    from agents.residents.persona import load_cast
    from game.world.map_reader import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    return town, cast, scenario


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory):
    """A seeded 1-hour headless run of 5 residents (Isabella and the dorm) on the
    scripted competent model, from noon on Valentine's Day (they meet at Hobbs Cafe
    and talk), and where everyone stood after every step (the simulation's own)."""
    import lab.competent  # noqa: F401 - registers scripted/competent
    from agents.model.config import ModelConfig
    from agents.model.gateway import Gateway
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

    gateway = Gateway(ModelConfig(model="scripted/competent", embedding_cache=None))
    result = run_headless(town, cast[:5], start=START, hours=1, out=out, scenario=scenario, gateway=gateway,
                          embedder=HashEmbedder(), seed=2, progress=False, echo=None, on_step=note, autosave_min=20)
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
    from game.world.map_reader import load_town

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


def _truth_steps(truth: Path) -> int:
    """The last step the worker wrote down whole."""
    last = -1
    for line in truth.read_text().splitlines():
        try:
            last = json.loads(line)["s"]
        except ValueError:
            pass  # a line cut by the kill
    return last


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
        # The truth file is written after each step, the recording's block during it: stop the
        # process where the truth has caught up with the recording, then kill it.
        for _ in range(200):
            proc.send_signal(signal.SIGSTOP)
            if _truth_steps(truth) >= read_recording(out / FILE).last:
                break
            proc.send_signal(signal.SIGCONT)
            time.sleep(0.01)
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


# ---------------------------------------------------------------------------- the window, headless


def _open(display, run_dir, **kw):
    from game.replay.app import load_personas, open_replay
    from game.world.map_reader import load_town

    target = find_recording(run_dir)
    rec = read_recording(target.recording)
    return open_replay(rec, load_town(MAP), MAP, target=target, personas=load_personas(MAP),
                       size=display.get_size(), **kw)


def _drag(points) -> None:
    import pygame

    (x0, y0), *rest = points
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=(x0, y0), rel=(0, 0), buttons=(0, 0, 0)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x0, y0), button=1))
    for x, y in rest:
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=(x, y), rel=(0, 0), buttons=(1, 0, 0)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=rest[-1] if rest else (x0, y0), button=1))


def _figures(game) -> dict[str, tuple[int, int]]:
    """Where the residents are drawn: the tile under each figure's feet."""
    out = {}
    for fig, rect in game.drawn:
        out[fig.name] = game.camera.screen_to_tile(rect.centerx, rect.bottom - 4)
    return out


@needs_map
def test_dragging_the_timeline_moves_the_town_through_the_game_loop(display, recorded_run):
    from driving import frames, press

    from game.view import keys

    out, truth, *_ = recorded_run
    game, session = _open(display, out)
    try:
        # as they were installed (nobody walks; the help on top), and the help lists a replay's keys
        assert [o.name for o in game.overlays] == ["residents_view", "bubbles", "hud", "follower", "inspector",
                                                   "why_panel", "townmap", "residents_list", "feed",
                                                   "replay_events", "timeline", "help"]
        assert game.panels.walker is None and game.panels.help.controls == keys.help_lines(keys.REPLAY)
        frames(game, 2)
        assert not session.paused  # it plays at once
        bar = game.panels.timeline
        y = bar.track_rect().centery
        _drag([(bar.x_of(40), y), (bar.x_of(120), y), (bar.x_of(250), y)])
        frames(game, 1)
        f = session.frame
        assert abs(f - 250) <= 2 and not bar.dragging
        assert {n: b.tile for n, b in session.sim.bodies.items()} == truth[f]
        press(pygame_key("SPACE"))
        frames(game, 1)
        assert session.paused
        press(pygame_key("PERIOD"))
        press(pygame_key("PERIOD"))
        frames(game, 1)
        assert session.frame == f + 2
        assert {n: b.tile for n, b in session.sim.bodies.items()} == truth[f + 2]
        game.follow_resident(rec_name := session.recording.residents[0])
        frames(game, 30)  # the camera glides to them; they are drawn on their recorded tile
        assert _figures(game)[rec_name] == truth[f + 2][rec_name]
        press(pygame_key("HOME"))
        frames(game, 1)
        assert session.frame == 0
    finally:
        session.close()


def pygame_key(name: str) -> int:
    import pygame

    return getattr(pygame, f"K_{name}")


@needs_map
def test_jumping_to_an_event_from_the_list(display, recorded_run):
    from driving import click_element, frames, press, until

    from game.replay.events import BEFORE

    out, truth, *_ = recorded_run
    game, session = _open(display, out)
    try:
        frames(game, 1)
        events = game.panels.replay_events
        assert events.moments, "the chatty run has conversations to jump to"
        press(pygame_key("e"))
        frames(game, 2)
        assert events.is_open
        talked = {n for m in events.moments if m.kind == "conversation" for n in m.who}
        who = min(sorted(talked), key=lambda n: sum(n in m.who for m in events.moments))  # in the fewest
        events.set_filter(who.split()[0])  # by first name
        frames(game, 1)
        assert events.shown and all(who in m.who or who.split()[0] in m.text for m in events.shown)
        assert len(events.shown) < len(events.moments)
        i = next(k for k, m in enumerate(events.shown) if m.kind == "conversation")
        target = events.shown[i]
        item = events.list.item_list[i]["button_element"]
        click_element(game, item)  # a real click on the row
        assert until(game, lambda: session.frame != 0, limit=5)  # the list tells of the selection a frame later
        assert session.frame == max(0, target.frame - BEFORE)
        assert {n: b.tile for n, b in session.sim.bodies.items()} == truth[session.frame]
        assert game.panels.follower.target == next(n for n in target.who if n in session.minds)
        assert "talk" in target.text
        press(pygame_key("RIGHTBRACKET"))  # the next moment
        frames(game, 1)
        later = [m for m in events.moments if m.frame > target.frame - BEFORE]
        assert session.frame == max(0, later[0].frame - BEFORE)
    finally:
        session.close()


@needs_map
def test_clicking_a_resident_shows_the_recorded_action_and_the_nearest_save(display, recorded_run):
    from driving import frames

    out, *_ = recorded_run
    game, session = _open(display, out)
    try:
        session.paused = True
        session.seek(300)  # 12:50: the autosaves were at 12:20, 12:40, 13:00
        name = session.recording.residents[0]
        game.panels.inspector.select(name)
        session.saved.wait(30)
        snap = session.minds[name].inspect()
        assert "12:40" in snap.note and "before this moment" in snap.note
        assert snap.memories and all(m.created <= datetime(2023, 2, 14, 12, 40) for m in snap.memories)
        frames(game, 10)
        text = game.panels.inspector.compose()[1] if hasattr(game.panels.inspector, "compose") else ""
        assert "12:40" in str(text)
        assert game.panels.inspector.voice_entry is None  # a replay changes nothing
    finally:
        session.close()


@needs_map
def test_the_gif_export_writes_a_real_animation(tmp_path, recorded_run, capsys):
    from PIL import Image

    from smallville.cli import main

    out, *_ = recorded_run
    gif = tmp_path / "span.gif"
    code = main(["replay", str(out), "--gif", str(gif), "--from", "2023-02-14 12:10", "--to", "12:30",
                 "--rate", "2", "--fps", "5", "--size", "480x270", "--follow", "Maria"])
    assert code == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    assert "51 frames" in said  # 20 sim minutes at 2 a second: 10 s, at 5 a second, and the last
    with Image.open(gif) as im:
        assert im.format == "GIF" and im.size == (480, 270)
        n = im.n_frames
        assert n >= 2  # a GIF stores a picture that did not change as a longer one before it
        total = 0
        for k in range(n):
            im.seek(k)
            total += im.info["duration"]
        assert total == 51 * 200
    mp4 = main(["replay", str(out), "--gif", str(tmp_path / "x.webm")])
    assert mp4 == 2 and ".gif" in capsys.readouterr().err


@needs_map
def test_a_headless_screenshot_at_a_moment(tmp_path, recorded_run, capsys):
    import pygame

    from smallville.cli import main

    out, *_ = recorded_run
    shot = tmp_path / "at.png"
    assert main(["replay", str(out), "--headless", "--at", "12:45", "--screenshot", str(shot)]) == 0
    assert "Tue 14 Feb 2023 12:45:00" in capsys.readouterr().out
    assert pygame.image.load(str(shot)).get_size() == (1280, 720)
    assert main(["replay", str(out), "--headless", "--at", "14:45"]) == 2
    assert "outside the recording" in capsys.readouterr().err


# ---------------------------------------------------------------------------- bad recordings


def _copy_run(src: Path, dst: Path, lines=None) -> Path:
    dst.mkdir(parents=True)
    text = (src / FILE).read_text(encoding="utf-8")
    (dst / FILE).write_text(lines(text) if lines else text, encoding="utf-8")
    return dst


@needs_map
def test_a_truncated_recording_plays_as_far_as_it_goes(tmp_path, recorded_run):
    out, truth, *_ = recorded_run
    raw = (out / FILE).read_bytes()
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / FILE).write_bytes(raw[: int(len(raw) * 0.6)])
    rec = read_recording(cut / FILE)
    assert 0 < rec.last < 360
    assert "ends in the middle of a line" in rec.stopped and "stops at Tue 12:" in rec.stopped
    assert all(rec.tile(i, rec.last) == truth[rec.last][n] for i, n in enumerate(rec.residents))


@needs_map
def test_records_out_of_order_stop_the_replay_there(tmp_path, recorded_run):
    out, truth, *_ = recorded_run

    def shuffle(text: str) -> str:
        lines = text.splitlines(keepends=True)
        blocks = [i for i, x in enumerate(lines) if '"k":"m"' in x]
        a, b = blocks[3], blocks[5]
        lines[a], lines[b] = lines[b], lines[a]  # the 6th block comes before the 4th
        return "".join(lines)

    bad = _copy_run(out, tmp_path / "bad", shuffle)
    rec = read_recording(find_recording(bad).recording)
    assert "out of order" in rec.stopped and rec.last == 3 * BLOCK
    assert all(rec.tile(i, 90) == truth[90][n] for i, n in enumerate(rec.residents))


@needs_map
def test_recordings_that_cannot_play_say_why(tmp_path, recorded_run, capsys):
    from smallville.cli import main

    out, *_ = recorded_run
    with pytest.raises(RecordingError, match="no such run folder"):
        find_recording(tmp_path / "nowhere")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "events.jsonl").write_text("{}\n")
    with pytest.raises(RecordingError, match="run before runs were recorded"):
        find_recording(tmp_path / "old")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / FILE).write_text("")
    with pytest.raises(RecordingError, match="empty"):
        read_recording(tmp_path / "empty" / FILE)
    (tmp_path / "junk.jsonl").write_text("hello\n")
    with pytest.raises(RecordingError, match="not a Smallville recording"):
        read_recording(tmp_path / "junk.jsonl")
    newer = _copy_run(out, tmp_path / "newer", lambda t: t.replace('"format":1', '"format":99', 1))
    with pytest.raises(RecordingError, match="newer Smallville"):
        read_recording(newer / FILE)
    other = _copy_run(out, tmp_path / "other", lambda t: t.replace('"world":"the Ville"', '"world":"Oak Town"', 1))
    assert main(["replay", str(other), "--headless"]) == 2
    err = capsys.readouterr().err
    assert "recorded in 'Oak Town', not in 'the Ville'" in err and "--map" in err


@needs_map
def test_a_game_session_records_into_its_save_folder_and_replays(display, tmp_path):
    from driving import frames, press, window

    from game.runs.recording import GAME_FOLDER

    game, session = window(display, saves_dir=tmp_path, agents=3)
    try:
        session.record(tmp_path)
        press(pygame_key("5"))  # an hour a second
        seen: dict[int, dict] = {}
        steps0 = session.sim.steps
        for _ in range(4):
            frames(game, 15)
            press(pygame_key("d"))  # the visitor walks too
            seen[session.sim.steps - steps0] = {n: tuple(b.tile) for n, b in session.sim.bodies.items()}
        visitor = session.sim.visitor
    finally:
        session.close()  # closes the recording
    found = find_recording(tmp_path)
    assert found.game and found.recording.parent.name == GAME_FOLDER
    rec = read_recording(found.recording)
    assert rec.ended == "the game ended" and rec.kind == "game"
    assert rec.visitor_at(rec.last) == visitor
    assert rec.last >= max(seen)
    for f, tiles in seen.items():
        for name, tile in tiles.items():
            slot = rec.visitor_slot if name == visitor else rec.names.index(name)
            assert rec.tile(slot, f) == tile, (f, name)
    game, session = _open(display, tmp_path)  # the replay draws the player's figure where it was
    try:
        last = max(seen)
        session.paused = True
        session.seek(last)
        game.look_at_tile(seen[last][visitor])
        frames(game, 2)
        assert _figures(game)[visitor] == seen[last][visitor]
    finally:
        session.close()


@needs_map
def test_a_resumed_run_plays_back_as_one(tmp_path, capsys):
    import numpy as np

    from smallville.cli import main

    run = tmp_path / "run"
    common = ["--model", "scripted/competent"]
    assert main(["sim", "--map", str(MAP), "--agents", "3", "--hours", "0.5", "--out", str(run), *common]) == 0
    assert main(["sim", "--resume", str(run), "--hours", "0.5", *common]) == 0
    capsys.readouterr()
    rec = read_recording(run / FILE)
    assert rec.stopped is None and rec.ended == "finished" and rec.last == 360
    assert (run / FILE).read_text().count('"k":"start"') == 2  # the resumed run appended its part
    steps = np.abs(np.diff(rec.tiles[:, :3].astype(int), axis=0)).max()
    assert steps <= 1  # nobody jumps where the run was resumed: one walk, one recording
    assert len({f for f, _ in zip(*rec.calls[:2])}) > 2


@needs_map
def test_export_and_aim_mistakes_are_said_plainly(recorded_run, capsys, monkeypatch):
    from game.replay import export
    from smallville.cli import main

    out, *_ = recorded_run
    monkeypatch.setattr(export.shutil, "which", lambda name: None)
    assert main(["replay", str(out), "--gif", "/tmp/never.mp4"]) == 2
    assert "an MP4 needs ffmpeg, which is not installed here" in capsys.readouterr().err
    assert main(["replay", str(out), "--headless", "--follow", "Nobody Here"]) == 2
    assert "nobody of that name" in capsys.readouterr().err
    assert main(["replay", str(out), "--headless", "--area", "the Moon"]) == 2
    assert "no such place" in capsys.readouterr().err
    assert main(["replay", str(out), "--headless", "--at", "tea time"]) == 2
    assert "give a time like" in capsys.readouterr().err
    assert main(["replay", str(out), "--gif", "/tmp/x.gif", "--from", "12:30", "--to", "12:10"]) == 2
    assert "the span is empty" in capsys.readouterr().err


@needs_map
def test_loading_a_save_in_the_game_starts_a_new_recording(display, tmp_path):
    from driving import frames, press, until, window

    from game.runs.recording import GAME_FOLDER

    game, session = window(display, saves_dir=tmp_path, agents=3)
    try:
        session.record(tmp_path)
        press(pygame_key("5"))
        frames(game, 20)
        press(pygame_key("F5"))  # a quick save
        quick = tmp_path / f"{session.game_id}-quick.sqlite"  # the game's own quick save
        assert until(game, lambda: quick.exists() and not game.panels.savemenu.writer.busy(),
                     limit=600, wait=lambda g: time.sleep(0.01))
        frames(game, 30)
        old = session.sim
        press(pygame_key("F9"))  # load it: the town goes back in time
        assert until(game, lambda: session.sim is not old, limit=600, wait=lambda g: time.sleep(0.01))
        frames(game, 20)
        tiles = {n: tuple(b.tile) for n, b in session.sim.bodies.items() if not b.visitor}
    finally:
        session.close()
    files = sorted((tmp_path / GAME_FOLDER).glob("*.jsonl"))
    assert len(files) == 2
    got = {r.ended: r for r in (read_recording(f) for f in files)}
    first, second = got["a save was loaded"], got["the game ended"]
    assert second.start < first.end  # the second begins at the save's moment, before the first ended
    assert {n: second.tile(i, second.last) for i, n in enumerate(second.residents)} == tiles


# ------------------------------------------------- the HUD's messages, "Next morning" and following


def _messages(game) -> list[tuple[str, object]]:
    """(text, screen rect) of each note and toast in the HUD's column, as drawn."""
    hud = game.panels.hud
    texts = list(hud.notes.values()) + [t for t, _ in hud.toasts]
    assert len(texts) == len(hud.placed)
    return [(t, r) for t, (_, r) in zip(texts, hud.placed)]


def _assert_clear(game) -> None:
    """No message overlaps another, the HUD box, the buttons or an open panel; none is cut short."""
    import pygame

    from game.view import fonts
    from game.view.bubbles import wrap
    from game.view.hud import BUTTON_H, FONT, PAD

    hud = game.panels.hud
    shown = _messages(game)
    screen = pygame.Rect((0, 0), game.size)
    panels = [hud.box, pygame.Rect(hud.buttons_left(), 8, game.size[0] - hud.buttons_left(), BUTTON_H)]
    events = game.panels.replay_events
    if events is not None and events.is_open:
        panels.append(events.window.rect)
    lh = fonts.font(FONT).get_linesize()
    for i, (text, rect) in enumerate(shown):
        assert screen.contains(rect), text
        for other_text, other in shown[i + 1:]:
            assert not rect.colliderect(other), (text, other_text)
        for p in panels:
            assert not rect.colliderect(p), (text, p)
        whole = wrap(text, hud.column.width - 2 * PAD, FONT, 99)  # every line of it
        assert len(whole) <= hud.column_lines, f"cut: {text!r}"
        assert rect.height == lh * len(whole) + PAD and hud.column.contains(rect), text


@needs_map
def test_replay_messages_stack_wrapped_and_never_overlap(display, recorded_run):
    """A jump from the events list, with toasts already shown: the notes and
    toasts stack in the HUD's column, clear of the events list, whole (wrapped)."""
    from driving import click_element, frames, press, until

    from game.replay.events import BEFORE

    out, *_ = recorded_run
    game, session = _open(display, out)
    try:
        frames(game, 1)
        for key in ("2", "3", "4"):  # "Speed 2: ...": toasts, a long column beside the list
            press(pygame_key(key))
        press(pygame_key("e"))
        frames(game, 2)
        events = game.panels.replay_events
        i = max(range(len(events.shown)), key=lambda k: len(events.shown[k].text))  # the longest line
        moment = events.shown[i]
        seeks: list[int] = []
        session.on_seek.append(seeks.append)
        click_element(game, events.list.item_list[i]["button_element"])
        assert until(game, lambda: bool(seeks), limit=5) and seeks == [max(0, moment.frame - BEFORE)]
        frames(game, 2)
        texts = [t for t, _ in _messages(game)]
        jump = f"{session.recording.time_of(moment.frame):%a %H:%M}: {moment.text}"
        assert jump in texts  # the whole line, at the moment's time
        if moment.kind != "gathering":
            assert any(t.startswith("Following ") for t in texts)
        _assert_clear(game)
        assert game.panels.hud.column.bottom > events.window.rect.top, texts  # beside the list, and clear of it
        frames(game, 3)
        _assert_clear(game)
    finally:
        session.close()


@needs_map
def test_next_morning_in_a_replay_is_the_next_07_00_in_the_recording(display, tmp_path, recorded_run):
    """The HUD's "Next morning (N)" in a replay jumps to the next 07:00 in the
    recording and says so once; with none left, to its end, with one message."""
    from driving import click_element, frames, press

    out, truth, *_ = recorded_run
    header = '"time":"2023-02-14 12:00:00"'
    assert header in (out / FILE).read_text(encoding="utf-8")
    early = _copy_run(out, tmp_path / "early", lambda t: t.replace(header, '"time":"2023-02-14 06:30:00"', 1))
    game, session = _open(display, early)  # the same run, as if from 06:30 to 07:30
    try:
        frames(game, 2)
        press(pygame_key("SPACE"))
        frames(game, 1)
        assert session.paused and session.now < datetime(2023, 2, 14, 7, 0)
        click_element(game, game.panels.hud.button)  # "Next morning (N)"
        frames(game, 1)
        assert session.now == datetime(2023, 2, 14, 7, 0) and session.frame == 180 and session.paused
        assert {n: b.tile for n, b in session.sim.bodies.items()} == truth[180]  # the town at that moment
        texts = [t for t, _ in _messages(game)]
        assert texts.count("It is Tue 07:00.") == 1 and not any(t.startswith("Skipping") for t in texts), texts
        for _ in range(2):  # no 07:00 left: the end, said once however often N is pressed
            press(pygame_key("n"))
            frames(game, 2)
        assert session.frame == session.recording.last and session.paused and session.at_end
        texts = [t for t, _ in _messages(game)]
        end = [t for t in texts if "end" in t]
        assert end == ["No 07:00 left in the recording: this is its end (Tue 07:30). Space plays it again."], texts
        assert len(texts) == len(set(texts)) and not any(t.startswith("Skipping") for t in texts)
        _assert_clear(game)
        press(pygame_key("SPACE"))  # plays it again
        frames(game, 1)
        assert not session.paused and session.frame < 10
    finally:
        session.close()


@needs_map
def test_next_morning_at_the_end_of_a_recording_that_ends_at_07_00(display, tmp_path, recorded_run):
    """A recording ending exactly at 07:00: N lands on its end with the end's own message, once."""
    from driving import frames, press

    out, *_ = recorded_run
    header = '"time":"2023-02-14 12:00:00"'
    early = _copy_run(out, tmp_path / "dawn", lambda t: t.replace(header, '"time":"2023-02-14 06:00:00"', 1))
    game, session = _open(display, early)
    try:
        frames(game, 1)
        press(pygame_key("n"))
        frames(game, 2)
        assert session.now == datetime(2023, 2, 14, 7, 0) and session.frame == session.recording.last
        texts = [t for t, _ in _messages(game)]
        assert [t for t in texts if "end" in t or t.startswith("It is")] == [
            "The end of the recording (Tue 07:00). Space plays it again."], texts
    finally:
        session.close()


@needs_map
def test_the_following_note_goes_when_following_stops(display, recorded_run):
    """"Following X (walk or Esc to stop)" stays while the camera follows and goes
    when it stops: Escape, the walking keys (a replay's camera pan), a jump that
    looks at a place."""
    from driving import click, click_element, frames, press, until

    out, *_ = recorded_run
    game, session = _open(display, out)

    def following() -> list[str]:
        return [t for t, _ in _messages(game) if t.startswith("Following ")]

    try:
        frames(game, 1)
        press(pygame_key("e"))
        frames(game, 2)
        events = game.panels.replay_events
        i = next(k for k, m in enumerate(events.shown) if m.kind == "conversation")
        click_element(game, events.list.item_list[i]["button_element"])  # a jump: the camera on who talks
        assert until(game, lambda: game.panels.follower.target is not None, limit=5)
        name = game.panels.follower.target
        assert following() == [f"Following {name}  (walk or Esc to stop)"]
        press(pygame_key("ESCAPE"))  # the first Escape closes the list ...
        frames(game, 2)
        assert not events.is_open and following() and game.running
        press(pygame_key("ESCAPE"))  # ... the second stops following (and does not quit)
        frames(game, 2)
        assert game.panels.follower.target is None and following() == [] and game.running
        _assert_clear(game)

        press(pygame_key("r"))  # the residents list: a click on a row follows
        frames(game, 2)
        rows = game.panels.residents_list
        click(rows.row_rect(name).center)
        frames(game, 2)
        assert game.panels.follower.target == name and following()
        press(pygame_key("LEFT"))  # the walking keys move a replay's camera: following stops
        frames(game, 3)
        assert game.panels.follower.target is None and following() == []

        gathering = next(m for m in events.moments if m.kind == "gathering")  # they meet at Hobbs Cafe
        game.follow_resident(name)
        frames(game, 1)
        assert following()
        events.open()
        frames(game, 2)
        i = events.shown.index(gathering)
        click_element(game, events.list.item_list[i]["button_element"])  # a jump that looks at the place
        assert until(game, lambda: game.panels.follower.target is None, limit=5)
        assert following() == []
    finally:
        session.close()
