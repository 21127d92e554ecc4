"""Interviews in the game (issue 7): the inspector's Interview button opens a chat-like window
from anywhere on the map; "You are" sets the persona; Remember (off by default) decides
whether the resident keeps the exchange. Scripted fake model, SDL's dummy driver."""
from __future__ import annotations

import time

import pytest

pygame = pytest.importorskip("pygame")
pygame_gui = pytest.importorskip("pygame_gui")

from test_inspector import ISABELLA, frame, make_play, settle


def ask(game, screen, text, seconds=10.0):
    iv = game.panels.interview
    n = len(iv.lines) + 2
    iv.entry.set_text(text)
    game.handle_event(pygame.event.Event(pygame_gui.UI_TEXT_ENTRY_FINISHED, ui_element=iv.entry, text=text,
                                         ui_object_id="#interview.#text_entry_line"))
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        frame(game, screen)
        if len(iv.lines) >= n:
            return iv.lines[-1]
        time.sleep(0.005)
    raise AssertionError(f"no answer within {seconds}s: {iv.lines}")


def press(game, element):
    game.handle_event(pygame.event.Event(pygame_gui.UI_BUTTON_PRESSED, ui_element=element))


def open_interview(game, session, screen):
    settle(session)
    game.panels.inspector.select(ISABELLA)
    frame(game, screen)
    press(game, game.panels.inspector.interview_button)
    iv = game.panels.interview
    assert iv.is_open and iv.partner == ISABELLA
    return iv


def test_interview_from_afar_leaves_her_unchanged_by_default(tmp_path, display):
    from game.saves.store import states_equal

    game, session = make_play(tmp_path)
    try:
        iv = open_interview(game, session, display)
        assert not game.panels.chat.in_range(ISABELLA)  # the visitor is far away, at the bus stop
        assert iv.persona == "a news reporter" and iv.persona_entry.get_text() == "a news reporter"
        assert iv.remember is False and iv.remember_button.text == "Remember: off"
        mind = session.minds[ISABELLA]
        before = mind.to_state()
        events = len(session.sim.events) if hasattr(session.sim, "events") else None
        who, answer = ask(game, display, "What are you planning this week?")
        assert who == ISABELLA and "party" in answer
        assert not session.sim.held(ISABELLA)  # she keeps doing what she was doing
        prompt = str(session.gateway.fake.calls[-1][1])
        assert "a news reporter" in prompt
        assert states_equal(before, mind.to_state())  # the world unchanged
        if events is not None:
            assert len(session.sim.events) == events
        assert "Interview: Isabella Rodriguez" in iv.window.window_display_title
    finally:
        session.close()


def test_remember_toggle_and_persona_change_the_mind(tmp_path, display):
    game, session = make_play(tmp_path)
    try:
        iv = open_interview(game, session, display)
        mind = session.minds[ISABELLA]
        n = len(mind.memory)
        iv.persona_entry.set_text("her landlord")
        game.handle_event(pygame.event.Event(pygame_gui.UI_TEXT_ENTRY_FINISHED, ui_element=iv.persona_entry,
                                             text="her landlord", ui_object_id="#interview.#text_entry_line"))
        assert iv.persona == "her landlord" and iv.entry.is_focused
        press(game, iv.remember_button)
        assert iv.remember is True and iv.remember_button.text == "Remember: on"
        ask(game, display, "The rent goes up next month, I am afraid.")
        assert "her landlord" in str(session.gateway.fake.calls[-1][1])
        assert len(mind.memory) == n + 1
        node = mind.memory.recent(1)[0]
        assert node.kind == "chat" and "rent goes up" in node.description
        assert "Alex" in mind.known_people
        # Escape closes the interview first, then the panel
        game.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode="", scancode=0))
        assert not iv.is_open and game.panels.inspector.is_open and game.controls.enabled
    finally:
        session.close()
