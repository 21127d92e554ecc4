"""The visitor among them (issue 5): the chat box, through the pool, on a small town.

SDL's dummy driver; a scripted fake model; the Session of tests/test_inspector.py.
"""
from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest

pygame = pytest.importorskip("pygame")
pygame_gui = pytest.importorskip("pygame_gui")

from test_inspector import ISABELLA, click, figure_rect, frame, key, make_play, plausible, responder, settle

from game.sim import Job


def near(game, session, name=ISABELLA):
    """Put the visitor next to a resident (game and sim agree on where)."""
    b = session.sim.bodies[name]
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)):
        t = (b.tile[0] + dx, b.tile[1] + dy)
        if game.walkable(*t):
            game.visitor.place(t)
            session.move_visitor(t)
            return t
    raise AssertionError("no free tile next to the resident")


def type_and_send(game, text):
    chat = game.panels.chat
    chat.entry.set_text(text)
    game.handle_event(pygame.event.Event(pygame_gui.UI_TEXT_ENTRY_FINISHED, ui_element=chat.entry, text=text,
                                         ui_object_id="#chat.#text_entry_line"))


def wait_answer(game, screen, n_lines, seconds=10.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        frame(game, screen)
        if len(game.panels.chat.lines) >= n_lines:
            return game.panels.chat.lines[-1]
        time.sleep(0.005)
    raise AssertionError(f"no answer within {seconds}s: {game.panels.chat.lines}")


def open_chat(game, session, screen):
    settle(session)
    near(game, session)
    frame(game, screen)
    key(game, pygame.K_t)
    assert game.panels.chat.is_open and game.panels.chat.partner == ISABELLA
    return game.panels.chat


def test_t_opens_the_chat_and_holds_the_resident(tmp_path, display):
    game, session = make_play(tmp_path)
    try:
        chat = open_chat(game, session, display)
        assert game.controls.enabled is False  # WASD types letters now
        body = session.sim.bodies[ISABELLA]
        assert body.action.description == "talking with Alex" and body.emoji == "💬" and not body.path
        before = session.sim.bodies[ISABELLA].prev_action
        key(game, pygame.K_ESCAPE)
        assert not chat.is_open and game.running and game.controls.enabled
        assert session.sim.bodies[ISABELLA].action is before  # back to what she was doing
    finally:
        session.close()


def test_a_resident_in_a_chat_is_not_a_mind_behind_and_a_skip_goes_on(tmp_path, display):
    """A resident held by the chat waits for no decision: the HUD's "minds behind"
    leaves it out, and a skip started during the chat reaches its target (it
    never advanced when the held resident had been waiting for a decision)."""
    game, session = make_play(tmp_path)
    try:
        open_chat(game, session, display)
        sim = session.sim
        body = sim.bodies[ISABELLA]
        assert sim.held(ISABELLA) and body.waiting_since is None  # talking, not waiting
        body.waiting_since = sim.now - timedelta(hours=1)  # as if a decision had been in flight when the chat began
        assert sim.behind() == 0 and sim.behind(0) == 0
        from game.view.hud import HUD

        assert not any(t.startswith("minds behind") for t, _ in HUD(game, session).compose())
        target = sim.now + timedelta(minutes=30)
        session.skip_to(target)
        for _ in range(400):
            if not session.skipping:
                break
            frame(game, display)
            session.pool.wait(1)
        assert not session.skipping and session.last_skip_result == "done" and sim.now >= target
        assert game.panels.chat.is_open and sim.held(ISABELLA)  # the chat is still there after the skip
    finally:
        session.close()


def test_walking_away_ends_the_chat(tmp_path, display):
    game, session = make_play(tmp_path)
    try:
        chat = open_chat(game, session, display)
        isa = session.sim.bodies[ISABELLA].tile
        town = session.town
        away = max(((x, y) for x in range(town.width) for y in range(town.height) if game.walkable(x, y)),
                   key=lambda t: max(abs(t[0] - isa[0]), abs(t[1] - isa[1])))
        game.visitor.place(away)  # the far end of town
        frame(game, display)
        assert not chat.is_open and not session.sim.held(ISABELLA) and game.controls.enabled
    finally:
        session.close()


def test_t_far_from_everyone_only_says_so(tmp_path, display):
    game, session = make_play(tmp_path)
    try:
        frame(game, display)
        key(game, pygame.K_t)  # the visitor starts in the park, far from Isabella
        assert not game.panels.chat.is_open
        hud = game.panels.hud
        shown = " ".join(t for t, _ in hud.toasts) if hud is not None else game.panels.chat.toast[0]
        assert "Nobody" in shown
        frame(game, display)
    finally:
        session.close()


def test_a_chat_round_trip_is_remembered(tmp_path, display):
    game, session = make_play(tmp_path)
    try:
        chat = open_chat(game, session, display)
        mind = session.minds[ISABELLA]
        n = len(mind.memory)
        type_and_send(game, "My name is Alex and I am opening a bakery next week!")
        assert chat.pending == 1 and chat.lines[-1] == ("Alex", "My name is Alex and I am opening a bakery next week!")
        who, said = wait_answer(game, display, 2)
        assert who == ISABELLA and said == "Oh hi! Yes, come to my Valentine's party at the cafe tomorrow."
        assert chat.pending == 0
        nodes = mind.memory.nodes[n:]
        assert any(x.kind == "chat" and "opening a bakery next week" in x.description for x in nodes)
        # ... and it comes back when she thinks about bakeries (what a conversation retrieves from).
        assert any("bakery" in x.description for x in mind.retrieve("Alex is opening a bakery next week", k=3))
        # The answer is a sim line event (speech bubbles show those) and is in the transcript.
        lines = [e for e in session.sim.events if e["kind"] == "line"]
        assert lines[-1]["resident"] == ISABELLA and lines[-1]["partner"] == "Alex"
        assert "Valentine" in chat.text
        if game.panels.bubbles is None:
            assert chat.bubble is not None
        # A second line carries the dialogue so far.
        type_and_send(game, "Thanks, see you there")
        wait_answer(game, display, 4)
        prompt = session.gateway.fake.calls[-1][1][-1]["content"]
        assert "opening a bakery" in prompt and "You: Oh hi!" in prompt
        pygame.image.save(display, str(tmp_path / "chat.png"))
    finally:
        session.close()


def test_t_after_a_greeting_answers_it(tmp_path, display):
    """Played: "Isabella greets you: ... (T to answer)", and T opened an empty chat. The chat
    now begins with her greeting and her answer reads it; a greeting from long ago does not."""
    from game.sim.greetings import Greeting
    game, session = make_play(tmp_path)
    try:
        hello = "Alex, there you are! How is visiting the town going?"
        session.sim.greetings.append(Greeting(ISABELLA, "Alex", hello, session.now - timedelta(hours=2)))
        chat = open_chat(game, session, display)
        assert chat.lines == []  # two hours ago: no longer what the chat answers
        key(game, pygame.K_ESCAPE)
        session.sim.greetings.append(Greeting(ISABELLA, "Alex", hello, session.now))
        chat = open_chat(game, session, display)
        assert chat.lines == [(ISABELLA, hello)]
        frame(game, display)
        assert "visiting the town" in chat.text
        type_and_send(game, "Very well, thank you!")
        wait_answer(game, display, 3)
        prompt = session.gateway.fake.calls[-1][1][-1]["content"]
        assert "visiting the town" in prompt
    finally:
        session.close()


def test_a_failed_job_gives_the_fallback_line(tmp_path, display, monkeypatch):
    import agents.mind.interview

    def broken(*a, **k):
        raise RuntimeError("the mind fell over")

    game, session = make_play(tmp_path)
    try:
        open_chat(game, session, display)
        monkeypatch.setattr(agents.interview, "respond_traced", broken)
        type_and_send(game, "Hello?")
        who, said = wait_answer(game, display, 2)
        assert who == ISABELLA and "Alex" in said and said.strip()
        assert game.running
    finally:
        session.close()


def test_garbage_from_the_model_gives_the_fallback_line(tmp_path, display):
    def bad(purpose, messages, schema):
        if purpose == "respond":
            return {"answer": "", "x": [1, 2]}  # invalid twice: the fallback
        return plausible(purpose, messages, schema)

    game, session = make_play(tmp_path, respond=bad)
    try:
        open_chat(game, session, display)
        type_and_send(game, "Hello there")
        who, said = wait_answer(game, display, 2)
        assert who == ISABELLA and said.startswith("Oh, hello Alex!")
    finally:
        session.close()


def test_the_frame_runs_while_the_answer_is_pending(tmp_path, display):
    gate = threading.Event()

    def slow(purpose, messages, schema):
        if purpose == "respond":
            gate.wait(10)
        return responder(purpose, messages, schema)

    game, session = make_play(tmp_path, respond=slow)
    try:
        chat = open_chat(game, session, display)
        session.paused = False
        type_and_send(game, "Are you there?")
        for _ in range(30):
            frame(game, display)
        # 30 frames went by while the gated answer could not come: none waited for it.
        assert chat.pending == 1 and "is thinking" in chat.text
        assert session.sim.bodies[ISABELLA].action.talking_to == "Alex"  # still held while she thinks
        gate.set()
        who, _ = wait_answer(game, display, 2)
        assert who == ISABELLA
        # The next line's wait is told from the last one's.
        type_and_send(game, "Still there?")
        assert "is thinking — about" in chat.status(), chat.status()
        wait_answer(game, display, 4)
    finally:
        gate.set()
        session.close()


def test_a_busy_mind_answers_at_once_and_remembers_after_its_job(tmp_path, display):
    """The reply runs beside the resident's job in flight (it only reads the mind); storing
    the exchange waits for that job (one writing job per mind), then runs."""
    gate = threading.Event()
    game, session = make_play(tmp_path)
    try:
        open_chat(game, session, display)
        mind = session.minds[ISABELLA]
        chats_before = sum(1 for x in mind.memory.nodes if x.kind == "chat")
        assert session.sim.jobs.submit(ISABELLA, Job("other"), gate.wait, 10)  # something else of hers is running
        type_and_send(game, "Hi!")
        who, _ = wait_answer(game, display, 2)
        assert who == ISABELLA and session.pool.busy(ISABELLA)  # answered while her job still runs
        assert sum(1 for x in mind.memory.nodes if x.kind == "chat") == chats_before  # not yet remembered
        gate.set()
        for _ in range(200):
            frame(game, display)
            if sum(1 for x in mind.memory.nodes if x.kind == "chat") > chats_before:
                break
            time.sleep(0.01)
        assert sum(1 for x in mind.memory.nodes if x.kind == "chat") == chats_before + 1
    finally:
        gate.set()
        session.close()


def test_talk_button_in_the_inspector_opens_the_chat(tmp_path, display):
    game, session = make_play(tmp_path)
    try:
        settle(session)
        near(game, session)
        frame(game, display)
        click(game, figure_rect(game, ISABELLA).center)
        btn = game.panels.inspector.talk_button
        game.handle_event(pygame.event.Event(pygame_gui.UI_BUTTON_PRESSED, ui_element=btn,
                                             ui_object_id="#inspector.#button"))
        assert game.panels.chat.is_open and game.panels.chat.partner == ISABELLA
        key(game, pygame.K_ESCAPE)  # the chat closes first ...
        assert not game.panels.chat.is_open and game.panels.inspector.is_open
        key(game, pygame.K_ESCAPE)  # ... then the panel
        assert not game.panels.inspector.is_open and game.running
    finally:
        session.close()
