"""Clicking and reading (issue 5): the inspector panel on a small town.

SDL's dummy driver; a scripted fake model (tests/fakes.py), hashed embeddings;
a Session built from tests/mapkit.py's little town with one resident.
``make_play`` is shared with tests/test_chat.py.
"""
from __future__ import annotations

import re
from datetime import datetime

import pytest

pygame = pytest.importorskip("pygame")
pytest.importorskip("pygame_gui")

import mapkit

from tests.fakes import HashEmbedder, make_gateway
from tests.scripted_minds import plausible

DT = 1 / 60
START = datetime(2023, 2, 13, 8, 0)
ISABELLA = "Isabella Rodriguez"
W = mapkit.DEFAULT_WORLD


def responder(purpose, messages, schema):
    if purpose == "respond":
        return {"answer": "Oh hi! Yes, come to my Valentine's party at the cafe tomorrow."}
    return plausible(purpose, messages, schema)


def _sheets(folder):
    folder.mkdir(parents=True, exist_ok=True)
    for slug, colour in (("visitor", (60, 60, 200)), ("isabella_rodriguez", (200, 60, 90))):
        sheet = pygame.Surface((96, 192), pygame.SRCALPHA)
        for row in range(4):
            for col in range(3):
                pygame.draw.rect(sheet, colour + (255,), (col * 32 + 8, row * 48 + 12, 16, 36))
        pygame.image.save(sheet, str(folder / f"{slug}.png"))
    return folder


def make_play(tmp_path, respond=responder, visitor="Alex"):
    """A Game with a Session (one resident, a fake model), residents, inspector and chat installed."""
    from agents.residents.persona import Persona
    from game.app import Game
    from game.runs.build import build_minds
    from game.runs.session import PlaySimulation, Session, build_parts
    from game.view import chat, inspector, residents
    from game.view.sprites import SheetLibrary
    from game.world.map_reader import load_town

    path = mapkit.write_map(tmp_path / "map")
    town = load_town(path)
    isa = Persona(name=ISABELLA, age=34, traits="warm, sociable",
                  description="Isabella Rodriguez runs Hobbs Cafe; she lives in her apartment; "
                              "she is planning a Valentine's Day party",
                  home=f"{W}:Isabella Rodriguez's apartment:main room", workplace=f"{W}:Hobbs Cafe:cafe",
                  wake_hour=7)
    gw = make_gateway(respond, via_litellm=False)
    emb = HashEmbedder(64)
    minds = build_minds([isa], gw, emb)
    parts = build_parts(town, [isa], START, gateway=gw, embedder=emb, minds=minds, sim_class=PlaySimulation)
    session = Session(parts, visitor_name=visitor)
    game = Game.from_map(path, size=(1280, 720), sheets=SheetLibrary(_sheets(tmp_path / "chars")),
                         visitor_name=visitor)
    if hasattr(game, "attach_session"):  # the window's own wiring (residents, bubbles, HUD, inspector, chat)
        game.attach_session(session)
    else:
        game.session = session
        residents.install(game)
        inspector.install(game)
        chat.install(game)
    session.paused = True  # the tests step the sim themselves
    return game, session


def settle(session, steps=3):
    """Step the sim with every mind job finished in between (a decision lands)."""
    for _ in range(steps):
        session.sim.step()
        session.pool.wait(10)
    session.sim.pump()


def frame(game, screen, n=1):
    for _ in range(n):
        if getattr(game, "attach_session", None) is None:
            game.session.update(DT)
        game.update(DT)
        game.draw(screen)


def click(game, pos, button=1):
    game.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=button))
    game.handle_event(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=button))


def key(game, k):
    game.handle_event(pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0))
    game.handle_event(pygame.event.Event(pygame.KEYUP, key=k, mod=0, unicode="", scancode=0))


def figure_rect(game, name):
    return next(r for f, r in game.drawn if f.name == name)


# ---------------------------------------------------------------------------- tests


def test_clicking_a_resident_shows_the_action(tmp_path, display):
    game, session = make_play(tmp_path)
    try:
        settle(session)
        body = session.sim.bodies[ISABELLA]
        assert body.action is not None
        frame(game, display)
        click(game, figure_rect(game, ISABELLA).center)
        insp = game.panels.inspector
        assert insp.is_open and insp.selected == ISABELLA
        frame(game, display, 20)
        desc = session.sim.bodies[ISABELLA].action.description
        assert f"{ISABELLA} is {desc} @ " in insp.text
        assert "Today's plan" in insp.text and "»" in insp.text  # the current item is marked
        assert "Recent memories" in insp.text and "[5*]" in insp.text  # seed memories: importance 5, by rule
        assert "Knows" in insp.text
        assert insp.talk_button is not None
        pygame.image.save(display, str(tmp_path / "inspector.png"))
    finally:
        session.close()


def test_clicking_an_object_shows_address_and_state(tmp_path, display):
    game, session = make_play(tmp_path)
    try:
        frame(game, display)
        addr = f"{W}:Hobbs Cafe:cafe:coffee machine"
        session.town.object_states[addr] = "brewing coffee"
        click(game, game.camera.tile_to_screen(1.5, 1.5))
        insp = game.panels.inspector
        assert insp.is_open and insp.object == addr and insp.selected is None
        assert "Hobbs Cafe: cafe: coffee machine" in insp.text and "brewing coffee" in insp.text
        session.town.object_states[addr] = "idle"
        frame(game, display, 20)  # refreshed a few times per second
        assert "idle" in insp.text and "brewing" not in insp.text
    finally:
        session.close()


def test_escape_closes_the_panel_before_quitting(tmp_path, display):
    game, session = make_play(tmp_path)
    try:
        settle(session)
        frame(game, display)
        click(game, figure_rect(game, ISABELLA).center)
        assert game.panels.inspector.is_open
        key(game, pygame.K_ESCAPE)
        assert not game.panels.inspector.is_open and game.running
        frame(game, display)
        key(game, pygame.K_ESCAPE)  # nothing left to close: Escape asks before quitting
        assert game.panels.quit_dialog.is_open and game.running
        key(game, pygame.K_ESCAPE)  # ... and Escape again cancels the question
        assert not game.panels.quit_dialog.is_open and game.running
    finally:
        session.close()


def test_clicking_the_ground_or_the_visitor_selects_nothing(tmp_path, display):
    game, session = make_play(tmp_path)
    try:
        frame(game, display)
        click(game, figure_rect(game, "Alex").center)  # the visitor stands in the park (no object)
        assert not game.panels.inspector.is_open
    finally:
        session.close()


def test_the_panel_is_cheap_to_refresh(tmp_path, display):
    """Refreshing reads Mind.inspect() only: no model calls from the panel
    (its frame cost is measured by make bench, not here)."""
    game, session = make_play(tmp_path)
    try:
        settle(session)
        frame(game, display)
        click(game, figure_rect(game, ISABELLA).center)
        calls = len(session.gateway.fake.calls)
        for _ in range(30):
            game.panels.inspector.refresh()
        assert len(session.gateway.fake.calls) == calls
    finally:
        session.close()


def test_the_panel_marks_what_the_model_did_not_write(tmp_path, display):
    """Provenance in the panel: a model whose answers are unusable leaves a day of
    the routine's, and the action line, the plan items and the budget say so."""
    from tests.scripted_minds import garbage

    game, session = make_play(tmp_path, respond=garbage)
    try:
        settle(session)
        frame(game, display)
        click(game, figure_rect(game, ISABELLA).center)
        frame(game, display, 20)
        text = game.panels.inspector.text
        assert "chosen by: routine: " in text  # the action line (the routine's until the mind's first decision)
        assert "[routine: invalid answer]" in text  # the plan items
        assert "(paper planning)" in text
    finally:
        session.close()
    game, session = make_play(tmp_path / "good")
    try:
        settle(session)
        frame(game, display)
        click(game, figure_rect(game, ISABELLA).center)
        frame(game, display, 20)
        text = game.panels.inspector.text
        sources = session.sim.minds[ISABELLA].inspect().plan_sources
        assert "model" in sources
        model_line = session.sim.minds[ISABELLA].inspect().plan[sources.index("model")]
        # no provenance tag: the line ends with its "why?" link only
        assert re.search(re.escape(model_line) + r"(</b>)?</font> <a href='why:plan:\d+'>why\?</a><br>",
                         text)
    finally:
        session.close()


def test_header_says_when_the_budget_binds():
    from agents.mind.inspection import Inspection
    from agents.support.types import Action
    from game.view.inspector_text import header_lines

    lunch = Action("having lunch", "the Ville:Hobbs Cafe:cafe", datetime(2023, 2, 13, 12, 0), 60,
                   source="routine: budget")
    snap = Inspection(action=lunch, budget=150, budget_hit=datetime(2023, 2, 13, 15, 20))
    lines = [t for t, _, _ in header_lines(ISABELLA, None, snap, thinking=False)]
    assert "chosen by: routine: budget" in lines
    assert any("call budget (150) spent at 15:20" in t for t in lines)
