"""Quitting never loses the game (issue 12), and what a load leaves behind.

Headless through the real game loop (tests/driving.py) with scripted minds;
one test runs the real `smallville play` command in a process of its own
(tests/quit_worker.py) to see it end while a model call is still in flight.
"""
from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

pygame = pytest.importorskip("pygame")
pytest.importorskip("pygame_gui")

from driving import MAP, click_element, frames, press, until
from scripted_minds import plausible

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")
TESTS = Path(__file__).resolve().parent


def _actions(session) -> dict:
    out = {}
    for name, b in session.sim.bodies.items():
        a = b.action
        out[name] = (a.description, a.address, a.start) if a is not None else None
    return out


def close_window():
    """What the window's close button sends: WINDOWCLOSE, then QUIT."""
    pygame.event.post(pygame.event.Event(pygame.WINDOWCLOSE, window=None))
    pygame.event.post(pygame.event.Event(pygame.QUIT))


def _wait_for_writer(game):
    game.panels.savemenu.writer.wait(30)


def test_escape_and_closing_the_window_ask_first(windows, tmp_path):
    game, session = windows(agents=2)
    frames(game, 5)
    press(pygame.K_ESCAPE)  # nothing open: Escape asks
    frames(game, 1)
    q = game.panels.quit_dialog
    assert q.is_open and game.running and session.paused
    assert "Save the town" in q.message
    press(pygame.K_ESCAPE)  # Escape cancels the question
    frames(game, 1)
    assert not q.is_open and game.running and not session.paused
    t = session.sim.now
    frames(game, 60)
    assert session.sim.now > t  # the town goes on

    close_window()  # closing the window asks too
    frames(game, 1)
    assert q.is_open and game.running
    click_element(game, q.buttons["cancel"])
    assert not q.is_open and game.running

    close_window()
    frames(game, 1)
    click_element(game, q.buttons["quit"])  # "Quit without saving"
    assert not game.running
    assert not list((tmp_path / "saves").glob("*continue.sqlite"))


def test_a_quit_signal_saves_and_quits_without_asking(windows, tmp_path):
    game, session = windows(agents=2)
    frames(game, 5)
    pygame.event.post(pygame.event.Event(pygame.QUIT))  # Ctrl+C or kill: SDL turns it into QUIT alone
    assert until(game, lambda: not game.running, limit=600, wait=_wait_for_writer)
    assert (tmp_path / "saves" / f"{session.game_id}-continue.sqlite").exists()  # this game's own


def test_save_and_quit_then_load_resumes_the_same_time_and_actions(windows, tmp_path):
    from game.saves.saveload import NEWEST, load_into

    game, session = windows(agents=4)
    session.set_speed(3)
    until(game, lambda: session.sim.now.minute >= 20, limit=3000, wait=lambda g: session.pool.wait(0.05))
    press(pygame.K_ESCAPE)
    frames(game, 1)
    q = game.panels.quit_dialog
    assert q.is_open
    click_element(game, q.buttons["save"])  # "Save and quit"
    assert "Saving" in q.message and game.running  # the frame keeps drawing while the writer writes
    assert until(game, lambda: not game.running, limit=600, wait=_wait_for_writer)
    saved_now, saved_actions = session.sim.now, _actions(session)
    assert (tmp_path / "saves" / f"{session.game_id}-continue.sqlite").exists()

    # `smallville play --load` (no name): the newest save, which this is
    game2, session2 = windows(agents=4)
    assert session2.sim.now != saved_now
    info = load_into(game2, NEWEST, folder=tmp_path / "saves")
    assert info.slot == f"{session.game_id}-continue"
    assert session2.game_id == session.game_id  # the loaded game goes on with its own saves
    assert session2.sim.now == saved_now
    assert _actions(session2) == saved_actions
    assert not session2.paused  # the question's pause is not what was saved: the loaded town runs
    assert game2.visitor.tile == session2.sim.bodies[session2.sim.visitor].tile


def test_continue_at_start_resumes_the_newest_save(windows, tmp_path):
    game, session = windows(agents=3)
    frames(game, 30)
    session.paused = True
    saved_now, saved_actions = session.sim.now, _actions(session)
    game.panels.savemenu.save(game.panels.savemenu.own("continue"))
    _wait_for_writer(game)
    frames(game, 2)

    game2, session2 = windows(agents=3)
    game2.ask_visitor_name("Alex", offer_continue=True)  # what a fresh `smallville play` shows
    box = game2.panels.namebox
    assert session2.paused
    assert until(game2, lambda: box.continue_button is not None, limit=300)  # found off the frame
    assert "Continue" in box.continue_button.text
    click_element(game2, box.continue_button)
    assert until(game2, lambda: box.done and "loaded slot continue" in game2.panels.savemenu.messages, limit=600,
                 wait=_wait_for_writer)
    assert session2.sim.now == saved_now and _actions(session2) == saved_actions
    assert session2.paused == True and game2.controls.enabled  # noqa: E712 - saved paused, loaded paused


def test_no_continue_without_a_save(windows, tmp_path):
    game, session = windows(agents=2)
    game.ask_visitor_name("Alex", offer_continue=True)
    frames(game, 30)
    assert game.panels.namebox.continue_button is None
    game.panels.namebox.submit("Robin")
    assert session.visitor_name == "Robin" and not session.paused


def test_an_interview_waiting_at_load_time_is_asked_again(windows):
    gate = threading.Event()

    def slow_answers(purpose, messages, schema):
        if purpose == "respond":
            gate.wait(30)
            return {"answer": "I am opening the cafe early today."}
        return plausible(purpose, messages, schema)

    game, session = windows(agents=2, responder=slow_answers)
    frames(game, 5)
    session.pool.wait(10)
    press(pygame.K_F5)  # a quick save from before the question
    _wait_for_writer(game)
    frames(game, 2)
    name = sorted(session.minds)[0]
    iv = game.panels.interview
    iv.open(name)
    iv.send("What are you doing today?")
    frames(game, 3)
    assert iv.pending == 1 and "thinking" in iv.status()
    press(pygame.K_F9)  # load while the answer is on its way
    assert until(game, lambda: any(m.startswith("loaded") for m in game.panels.savemenu.messages), limit=600,
                 wait=_wait_for_writer)
    assert iv.is_open and iv.pending == 1  # asked again, of the loaded mind
    gate.set()
    assert until(game, lambda: iv.pending == 0, limit=600, wait=lambda g: session.pool.wait(0.05))
    assert iv.lines[-1] == (name, "I am opening the cafe early today.")
    assert "thinking" not in iv.status()
    assert sum(1 for who, _ in iv.lines if who == name) == 1  # one answer: the dropped one never lands


def test_a_chat_waiting_at_load_time_is_closed_with_a_message(windows):
    gate = threading.Event()

    def slow_answers(purpose, messages, schema):
        if purpose == "respond":
            gate.wait(30)
            return {"answer": "Hello!"}
        return plausible(purpose, messages, schema)

    game, session = windows(agents=2, responder=slow_answers)
    try:
        frames(game, 5)
        game.panels.savemenu.save(game.panels.savemenu.own("quick"))
        _wait_for_writer(game)
        name = sorted(session.minds)[0]
        b = session.sim.bodies[name]
        game.visitor.place(next(t for t in ((b.tile[0] + dx, b.tile[1] + dy) for dx, dy in
                                            ((1, 0), (-1, 0), (0, 1), (0, -1))) if game.can_enter(*t)))
        assert game.panels.chat.open(name)
        game.panels.chat.send("Hi there")
        frames(game, 2)
        assert game.panels.chat.pending == 1
        press(pygame.K_F9)
        assert until(game, lambda: any(m.startswith("loaded") for m in game.panels.savemenu.messages), limit=600,
                     wait=_wait_for_writer)
        assert not game.panels.chat.is_open and game.panels.chat.pending == 0
        assert any("ended before they answered" in t for t, _ in game.panels.hud.toasts)
    finally:
        gate.set()


def test_quitting_with_a_model_call_in_flight_does_not_wait_for_it(tmp_path):
    """The real command in a process of its own: its minds' model call would take
    300 s; the process saves and ends while that call is still in flight."""
    from game.saves.store import read_info

    proc = subprocess.run([sys.executable, str(TESTS / "quit_worker.py"), str(tmp_path / "saves")],
                          capture_output=True, text=True, timeout=120)  # a hang guard, not a speed test
    out = proc.stdout.split()
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "thinking" in out and "answered" not in out  # it ended with the call still in flight
    assert "returned" not in out  # ended by leave_process, not by waiting for the threads
    (path,) = (tmp_path / "saves").glob("*-continue.sqlite")
    info = read_info(path)  # and the save is whole
    assert info.slot.endswith("-continue") and len(info.residents) == 2


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_ctrl_c_in_the_terminal_saves_and_quits(tmp_path, sig):
    """The real command in a process of its own, sent a real SIGINT (Ctrl+C), SIGTERM
    (kill) or SIGHUP (the terminal closed): it saves 'continue' and ends cleanly, as
    "Save and quit" does."""
    import signal
    import time

    from game.saves.store import read_info

    saves = tmp_path / "saves"
    proc = subprocess.Popen([sys.executable, str(TESTS / "sigint_worker.py"), str(saves)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # "ready": the town runs (a hang guard below, not a speed test)
        assert line.strip() == "ready", proc.stderr.read()[-2000:] if proc.poll() is not None else line
        time.sleep(0.5)  # a few frames into the game
        proc.send_signal(getattr(signal, sig))
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err[-2000:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    (path,) = saves.glob("*-continue.sqlite")
    info = read_info(path)  # saved whole
    assert info.slot == path.stem and len(info.residents) == 2
    log = (tmp_path / "logs" / "smallville.log").read_text()
    assert f"signal {sig}: saving and quitting" in log and f"saved '{path.stem}' on quitting" in log


def test_an_unexpected_error_in_the_game_loop_saves_the_crash_slot_first(tmp_path, monkeypatch, capsys):
    """A bug that stops the main loop: the game is saved as 'crash' before the error is shown."""
    from argparse import Namespace

    from driving import make_session

    from game import app
    from game.saves.store import read_info

    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path))
    session = make_session(agents=2)
    calls = {"n": 0}
    update = session.update

    def buggy(dt):  # the tenth frame meets a bug
        calls["n"] += 1
        if calls["n"] == 10:
            raise RuntimeError("a bug in the frame")
        update(dt)

    monkeypatch.setattr(session, "update", buggy)
    try:
        with pytest.raises(RuntimeError, match="a bug in the frame"):
            app.main_play(Namespace(map=str(MAP), headless=True, frames=30, visitor_name="Alex"), session=session)
    finally:
        session.close()
    saved = list(tmp_path.rglob("*-crash.sqlite"))
    assert saved and read_info(saved[0]).slot == f"{session.game_id}-crash"  # this game's own crash slot
    assert f"saved as '{session.game_id}-crash'" in capsys.readouterr().err
