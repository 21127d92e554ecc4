"""Playing as a resident (issue 7): the player's keys walk the resident, its mind
gets no decisions meanwhile, and handing it back queues memories and it replans."""
from __future__ import annotations

import pytest

pygame = pytest.importorskip("pygame")
pytest.importorskip("pygame_gui")

from test_inspector import ISABELLA, frame, make_play


def hold_key(game, screen, k, frames=30):
    game.handle_event(pygame.event.Event(pygame.KEYDOWN, key=k, unicode="", mod=0, scancode=0))
    frame(game, screen, frames)
    game.handle_event(pygame.event.Event(pygame.KEYUP, key=k, unicode="", mod=0, scancode=0))
    frame(game, screen, 15)


def counting(mind, calls):
    real = mind.decide

    def decide(situation):
        calls.append(situation)
        return real(situation)

    mind.decide = decide


def test_play_as_walks_the_resident_and_hands_back(tmp_path, display):
    game, session = make_play(tmp_path)
    sim = session.sim
    mind = session.minds[ISABELLA]
    calls, thoughts = [], []
    counting(mind, calls)
    real_queue = mind.queue_thought
    mind.queue_thought = lambda text, importance=8: (thoughts.append(text), real_queue(text, importance))
    try:
        visitor_tile = sim.bodies["Alex"].tile
        msg = game.panels.console.execute("play as isabella")
        assert "You are Isabella Rodriguez" in msg
        assert session.controlled == ISABELLA and sim.controlled == ISABELLA
        b = sim.bodies[ISABELLA]
        assert game.visitor.name == ISABELLA and game.visitor.tile == b.tile
        assert game.visitor.slug == "isabella_rodriguez"
        start = b.tile
        session.paused = False
        calls.clear()
        # walk her: down out of the bed row and about the room, then out of the door
        for k in (pygame.K_DOWN, pygame.K_DOWN, pygame.K_RIGHT, pygame.K_DOWN, pygame.K_DOWN, pygame.K_DOWN):
            hold_key(game, display, k, 20)
        assert b.tile != start and b.tile == game.visitor.tile
        assert b.action.description == "walking around"
        assert sim.bodies["Alex"].tile == visitor_tile  # the visitor is parked
        for _ in range(300):  # plenty of sim time: still no decision for her
            sim.step()
        assert calls == [] and not sim.thinking(ISABELLA)
        assert ISABELLA not in sim.can_talk_to(ISABELLA)
        # hand back (F2)
        game.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F2, unicode="", mod=0, scancode=0))
        assert session.controlled is None and not b.controlled
        assert game.visitor.name == "Alex" and game.visitor.tile == visitor_tile
        assert any(t.startswith("I walked from") for t in thoughts), thoughts
        assert b.action is None
        for _ in range(20):
            sim.step()
            sim.pool.wait(5)
            if calls:
                break
        assert calls and calls[0].action is None  # the mind decides afresh, from now
    finally:
        session.close()


def test_session_level_control_and_chat_memories(tmp_path, display):
    _game, session = make_play(tmp_path)
    sim = session.sim
    try:
        name = session.take_control("Isabella Rodriguez")
        b = sim.bodies[name]
        t0 = b.tile
        # walk her out of her apartment through the session, like the window does
        path = [(t0[0], t0[1] + 1), (t0[0] + 1, t0[1] + 2), (t0[0] + 2, t0[1] + 3), (11, 5), (11, 6), (10, 7)]
        for t in path:
            session.move_visitor(t)
        assert b.tile == (10, 7)
        sim.log_event(name, "line", "Hello there, lovely day!", sim.area(b.tile), partner="Klaus Mueller")
        sim.log_event("Klaus Mueller", "line", "It is indeed.", sim.area(b.tile), partner=name)
        mems = session.control_memories(name, session.playing)
        texts = [t for t, _ in mems]
        walked = "I walked from Isabella Rodriguez's apartment: main room to Johnson Park: park"
        assert any(walked in t for t in texts), texts
        assert any(t.startswith("I talked with Klaus Mueller") and "Hello there" in t for t in texts)
        # a save records control; the property round-trips
        state = sim.to_state()
        assert state["controlled"] == name and state["bodies"][name]["controlled"]
        session.controlled = None
        assert sim.controlled is None
    finally:
        session.close()


def test_inspector_play_as_button_and_object_state_editor(tmp_path, display):
    import pygame_gui

    game, session = make_play(tmp_path)
    try:
        insp = game.panels.inspector
        insp.select(ISABELLA)
        assert insp.play_button is not None
        game.handle_event(pygame.event.Event(pygame_gui.UI_BUTTON_PRESSED, ui_element=insp.play_button))
        assert session.controlled == ISABELLA and game.visitor.name == ISABELLA
        game.panels.console.execute("release")
        assert session.controlled is None and game.visitor.name == "Alex"

        fridge = "Testville:Isabella Rodriguez's apartment:main room:refrigerator"
        insp.select_object(fridge)
        assert insp.state_entry is not None and insp.state_button is not None
        insp.state_entry.set_text("leaking")
        game.handle_event(pygame.event.Event(pygame_gui.UI_BUTTON_PRESSED, ui_element=insp.state_button))
        assert session.town.object_states[fridge] == "leaking"
        assert "leaking" in insp.text
        assert any(e["kind"] == "edit" and e["address"] == fridge for e in session.sim.events)
    finally:
        session.close()
