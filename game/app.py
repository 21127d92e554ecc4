"""`smallville play`: the game in a window (or rendered off-screen).

``main_play(args)`` builds the town (``build_session``: a Session with the
residents and their minds, game/runs/session.py), opens the window, attaches the
session to the window's ``Game`` (game/view/window.py) and runs the main loop
(``run``): per frame, events to ``Game.handle_event``, ``Game.update`` (which
updates the session: the simulation's only clock), ``Game.draw``.

Quitting: after the loop, ``main_play`` returns at once: mind jobs still
thinking are abandoned, and the `smallville` command ends the process without
waiting for them (``leave_process``).
"""
from __future__ import annotations

import contextlib
import logging
import os
import signal
import statistics
import sys
import threading
import time
from pathlib import Path

import pygame

from agents import ConfigError, load_config, redact
from game.runs import forecast
from game.runs.session import Session
from game.saves.saveload import load_into
from game.support.errors import UserError
from game.support.folders import resolve_map
from game.view import sprites
from game.view.overlay import Overlay
from game.view.tilemap import TileMapRenderer
from game.view.window import FPS, TITLE, WINDOW_SIZE, Game, close_window, in_background
from game.world.map_reader import load_town

log = logging.getLogger(__name__)

__all__ = [
    "WINDOW_SIZE",
    "Game",
    "build_session",
    "frame_stats",
    "in_background",
    "leave_process",
    "main_play",
    "resolve_map",
    "run",
]


def frame_stats(frame_ms) -> dict[str, float]:
    """Median and 99th percentile of frame work times (ms)."""
    times = sorted(frame_ms)
    if not times:
        return {"frames": 0, "median_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0}
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return {"frames": len(times), "median_ms": statistics.median(times), "p99_ms": p99, "max_ms": times[-1]}


def main_play(args, session=None) -> int:
    """`smallville play`: build the town (a Session, unless one is given), open
    the window (or render off-screen) and run."""
    headless = bool(getattr(args, "headless", False))
    frames = getattr(args, "frames", None)
    if frames is not None and frames < 1:
        raise UserError("--frames must be at least 1")
    if headless:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
        if frames is None:
            frames = 1
    map_path = resolve_map(getattr(args, "map", None))
    screenshot = getattr(args, "screenshot", None)
    given_name = getattr(args, "visitor_name", None)
    own_session = session is None
    if session is None:
        session = build_session(args, map_path, given_name or "Alex")
    town = session.town if session is not None else None
    if town is None:
        town = load_town(map_path)  # MapError: __main__ prints it without a traceback

    pygame.display.init()
    pygame.font.init()
    game: Game | None = None
    try:
        flags = 0 if headless else pygame.RESIZABLE
        _set_icon()
        try:
            screen = pygame.display.set_mode(WINDOW_SIZE, flags)
        except pygame.error as err:
            raise UserError(
                f"cannot open a window ({err}); on a machine without a display use --headless"
            ) from None
        pygame.display.set_caption(TITLE)
        game = Game(
            town,
            TileMapRenderer.from_file(map_path),
            size=screen.get_size(),
            visitor_name=given_name or (session.visitor_name if session is not None else "You"),
        )
        if session is not None:
            _show_town(game, session, args, headless=headless, given_name=given_name)
        if not headless:
            game.mouse_pos = pygame.mouse.get_pos() if pygame.mouse.get_focused() else None
        try:
            with signals_quit():
                run(game, frames=frames, headless=headless)
        except Exception:
            save_on_crash(game)  # written whole by the menu's close below, then the error is shown
            raise
        if screenshot:
            save_screenshot(pygame.display.get_surface(), screenshot)
        if headless:
            print(_rendered_text(game, session, screenshot))
    finally:
        menu = game.panels.savemenu if game is not None else None
        if menu is not None:
            menu.close(wait=True)  # a save being written finishes whole (they take well under a second)
        if session is not None and own_session:
            session.close()  # mind jobs still thinking are abandoned, not waited for
        close_window()
    return 0



def _show_town(game: Game, session: Session, args, *, headless: bool, given_name: str | None) -> None:
    """The town in the window: the visitor named, the session attached, a save loaded
    (``--load``) or the name box asked, the game recorded (a window) or a camera that
    watches the crowd (off-screen)."""
    if given_name and given_name != session.visitor_name:
        session.rename_visitor(given_name)
    game.attach_session(session)
    load = getattr(args, "load", None)
    if load:
        # Before the first frame, so blocking is fine; a bad save is a
        # SaveError (a UserError): one clear line, nothing started.
        loaded = load_into(game, load)
        for warning in loaded.warnings:  # an older version's save, a changed map: loaded, but say so
            print(f"smallville: {loaded.path}: {warning}", file=sys.stderr)
            game.toast(warning)
    if not headless and not given_name and not load:
        game.ask_visitor_name(session.visitor_name, offer_continue=True)
    if not headless:  # into the save folder's recordings/: `smallville replay saves` watches it again
        menu = game.panels.savemenu
        session.record(menu.folder if menu is not None else "saves")
    if headless:
        game.add_overlay(CrowdCamera(game))  # nobody walks the visitor: watch the residents


def _rendered_text(game: Game, session: Session | None, screenshot: str | None) -> str:
    """What an off-screen run prints: its frame times, the sim span, the screenshot."""
    st = frame_stats(game.frame_ms)
    extra = ""
    if session is not None:
        sim = session.sim
        extra = (f"; sim {sim.start:%a %H:%M} -> {sim.now:%a %H:%M} ({sim.steps} steps, "
                 f"{len(sim.minds)} residents)")
    return (f"rendered {st['frames']} frames off-screen: median {st['median_ms']:.2f} ms, "
            f"p99 {st['p99_ms']:.2f} ms per frame"
            + extra
            + (f"; screenshot {screenshot}" if screenshot else ""))

CRASH_SLOT = "crash"


def save_on_crash(game: Game) -> None:
    """An unexpected error stopped the game: save it to its own ``<game id>-crash`` slot
    first (the menu's writer finishes it before the process ends), so nothing is lost."""
    menu = game.panels.savemenu
    if menu is None or game.session is None:
        return
    slot = CRASH_SLOT
    try:
        slot = menu.own(CRASH_SLOT)  # this game's own crash slot (game/saves/series.py)
        log.exception("the game stopped on an unexpected error; saving '%s' first", slot)
        if menu.save(slot) is not None:
            print(f"smallville: the game stopped on an error; it was saved as '{slot}' "
                  f"(smallville play --load '{slot}')", file=sys.stderr)
    except Exception:
        log.exception("saving '%s' failed", slot)


@contextlib.contextmanager
def signals_quit():
    """While the window runs, Ctrl+C in the terminal (SIGINT), ``kill`` (SIGTERM) and closing
    the terminal (SIGHUP) do what closing the window does unasked: a QUIT event, which the window takes as a
    signal and answers with "Save and quit" (game/view/window.py). Python's own SIGINT
    handler would raise KeyboardInterrupt in the middle of a frame instead, and the
    game would end unsaved; SDL leaves the signal to Python when Python has a handler."""
    def post_quit(signum, frame) -> None:  # main thread, between two bytecodes: posting is safe
        log.info("signal %s: saving and quitting", signal.Signals(signum).name)
        pygame.event.post(pygame.event.Event(pygame.QUIT))

    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread (a test's helper thread runs no window)
        return
    # SIGHUP: the terminal closed under the game; it is a quit like the others, not a loss.
    quitting = [signal.SIGINT, signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])
    before = {sig: signal.signal(sig, post_quit) for sig in quitting}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def leave_process(code: int) -> None:
    """End the `smallville` process now, without waiting for mind jobs still
    thinking (a model call can take seconds; its result is not wanted): a
    normal exit would wait for threads that are not daemons, and would tear
    the interpreter down under the mind pool's (daemon) workers while one may
    be inside llama.cpp. Saves are complete by now (main_play waited for the
    writer); the log is flushed. Returns only when no such thread is left (a
    normal exit is then just as quick)."""
    busy = [t for t in threading.enumerate()
            if t is not threading.main_thread() and t.is_alive() and (not t.daemon or t.name.startswith("mind"))]
    if not busy:
        return
    log.info("leaving without waiting for %d thread(s): %s", len(busy), ", ".join(t.name for t in busy[:8]))
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed stream: nothing to flush
            pass
    os._exit(code)


class CrowdCamera(Overlay):
    """Headless runs: every half second the camera looks at the busiest part of
    town (the screen-sized box holding the most residents), so an off-screen
    screenshot shows the residents rather than the visitor at the bus stop."""

    name = "crowd_camera"

    def __init__(self, game: Game, every: float = 0.5) -> None:
        self.game = game
        self.every = every
        self._t = every

    def update(self, dt: float) -> None:
        self._t += dt
        if self._t < self.every:
            return
        self._t = 0.0
        g = self.game
        if g.session is None:
            return
        sim = g.session.sim
        tiles = [b.tile for b in sim.bodies.values() if not b.visitor]
        if not tiles:
            return
        span = g.tile_size * g.camera.zoom
        hw = max(1, int(g.size[0] / span / 2) - 1)
        hh = max(1, int(g.size[1] / span / 2) - 2)
        def crowd(t):
            return sum(1 for o in tiles if abs(o[0] - t[0]) <= hw and abs(o[1] - t[1]) <= hh), -t[1], -t[0]

        best = max(tiles, key=crowd)
        near = [o for o in tiles if abs(o[0] - best[0]) <= hw and abs(o[1] - best[1]) <= hh]
        cx = sum(o[0] for o in near) / len(near)
        cy = sum(o[1] for o in near) / len(near)
        g.follow = False
        g.camera.look_at(*g.camera.tile_center_world(cx, cy))


def build_session(args, map_path: Path, visitor_name: str) -> Session | None:
    """The town with its residents and their minds; None (an empty town) when the
    map has no cast beside it. (Tests and the bench swap this function to run
    `smallville play` on a town of their own.)"""
    if not (Path(map_path).parent / "residents.json").exists():
        log.warning("no residents.json beside %s: the town is empty", map_path)
        return None
    try:
        config = load_config(args)
    except ConfigError as err:
        raise UserError(str(err)) from None
    session = Session.create(
        map_path, agents=getattr(args, "agents", None), residents=getattr(args, "residents", None),
        seed=getattr(args, "seed", 0) or 0, config=config, visitor_name=visitor_name, before_dawn=True,
    )
    log.info("session: %d residents, model %s, %s", len(session.minds), config.model, session.sim.now)
    forecast.announce_in_background(config, len(session.minds), _say)  # reads files: off the main thread
    return session


def _say(line: str) -> None:
    print(f"smallville: {redact(line)}", file=sys.stderr)
    log.info("%s", line)


def run(game: Game, *, frames: int | None = None, headless: bool = False, paced: bool | None = None) -> None:
    """The main loop. Headless frames advance a fixed 1/60 s; without a town they
    do not wait, with one they are paced at FPS (the minds think in real time).
    ``paced=False``: never wait between frames (tests drive the loop quickly)."""
    clock = pygame.time.Clock()
    n = 0
    if paced is None:
        paced = not headless or game.session is not None  # a living town runs on real time, minds included
    while game.running:
        tick = clock.tick(FPS) / 1000.0 if paced else 0.0
        dt = 1.0 / FPS if headless else tick
        t0 = time.perf_counter()
        for event in pygame.event.get():
            game.handle_event(event)
        screen = pygame.display.get_surface()
        assert screen is not None  # the display's mode was set before the loop
        if screen.get_size() != game.size:
            game.resize(screen.get_size())
        game.update(dt)
        game.draw(screen)
        game.frame_ms.append((time.perf_counter() - t0) * 1000.0)
        pygame.display.flip()
        n += 1
        if frames is not None and n >= frames:
            break


def _set_icon() -> None:
    """The visitor's standing frame as the window icon (cosmetic: never fails)."""
    try:
        w, h = sprites.FRAME_W, sprites.FRAME_H
        sheet = pygame.image.load(str(sprites.CHARACTERS / "visitor.png"))  # (tests point CHARACTERS elsewhere)
        icon = pygame.Surface((h, h), pygame.SRCALPHA)
        icon.blit(sheet, ((h - w) // 2, 0), (w, 0, w, h))
        pygame.display.set_icon(icon)
    except Exception:  # noqa: BLE001 - a missing icon is not worth a message
        pass


def save_screenshot(surface, path: str | Path) -> None:
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        pygame.image.save(surface, str(path))
    except (pygame.error, OSError) as err:
        raise UserError(f"cannot write screenshot {path}: {err}") from None
