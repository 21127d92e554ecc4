"""Driving the whole window through its real game loop, headless (issue 12's tests).

``window(display, ...)`` builds what ``smallville play`` builds: a Session on
the real Ville with scripted minds (tests/test_play.py's ``make_session``)
attached to a Game with every panel installed (``attach_session``). Input
goes in as real pygame events (``pygame.event.post``) and ``frames(game, n)``
runs ``game.app.run`` -- the game's own loop: events to ``handle_event``,
``update``, ``draw`` -- unpaced, so tests stay fast.
"""
from __future__ import annotations

import functools

import pygame
from test_play import MAP, make_session


@functools.cache
def ville_tiles():
    """The Ville's tile renderer (game/view/tilemap.py), built once for the test session:
    a window only draws with it, and its converted tiles outlive the display they were
    made under (the display fixture quits pygame after each test). The first call needs
    a display mode."""
    from game.view.tilemap import TileMapRenderer

    return TileMapRenderer.from_file(MAP)


def window(display, saves_dir=None, **session_kw):
    """(game, session): the full window wiring on a scripted town."""
    from game.app import Game

    session = make_session(**session_kw)
    game = Game(session.town, ville_tiles(), size=display.get_size())
    if saves_dir is not None:
        game.saves_dir = saves_dir
    game.attach_session(session)
    return game, session


def frames(game, n: int = 1) -> None:
    """n turns of the real game loop (app.run), without waiting between frames."""
    from game.app import run

    run(game, frames=n, headless=True, paced=False)


def until(game, done, limit: int = 600, wait=None) -> bool:
    """Run frames until ``done()`` (at most ``limit``); ``wait(game)`` between frames
    lets a test give the worker threads time (the frames themselves never wait)."""
    for _ in range(limit):
        if done():
            return True
        frames(game, 1)
        if wait is not None:
            wait(game)
    return bool(done())


def press(key: int, mod: int = 0, unicode: str = "") -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode=unicode, scancode=0))
    pygame.event.post(pygame.event.Event(pygame.KEYUP, key=key, mod=mod, unicode=unicode, scancode=0))


def click(pos, button: int = 1) -> None:
    pos = (int(pos[0]), int(pos[1]))
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=button))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=button))


def click_element(game, element, button: int = 1) -> None:
    """A real click in the middle of a pygame_gui element, then the frames that deliver it."""
    click(element.rect.center, button)
    frames(game, 2)


def on_screen(game, name: str) -> bool:
    return any(f.name == name for f, _ in game.drawn)


def screen_distance_to_centre(game, name: str) -> float:
    """How far a resident is drawn from the middle of the town's visible part
    (the window less the panels docked at its sides)."""
    rect = next(r for f, r in game.drawn if f.name == name)
    left, top, right, bottom = game.camera.insets
    cx = left + (game.size[0] - left - right) / 2
    cy = top + (game.size[1] - top - bottom) / 2
    return ((rect.centerx - cx) ** 2 + (rect.bottom - cy) ** 2) ** 0.5


def saves_writer(game):
    game.panels.savemenu.writer.wait(30)


def save_and_quit(game):
    pygame.event.post(pygame.event.Event(pygame.QUIT))  # a signal: save and quit without asking
    assert until(game, lambda: not game.running, limit=600, wait=saves_writer)
