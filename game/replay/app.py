"""`smallville replay RUN`: watch a recorded run or game in the town's window.

``main_replay(args)`` finds the recording (game/replay/reader.py: a run
folder, the game's save folder, or a recording file), reads it as far as it
goes, checks it was made in this town (another town's is refused by name),
and opens the window: the same town, sprites, bubbles, emoji and HUD as a
game, on a ``ReplaySession`` (playback.py) that no model drives. The player
watches (``game.spectator``: no figure of their own, the walking keys pan):
the timeline bar (bar.py), the events list (events.py), the residents list,
the town map and the inspector (plans and memories from the nearest save,
minds.py) are there; what changes a live town (chat, inner voice, saves,
console) is not.

``--headless --at TIME --screenshot PATH`` writes one frame;
``--gif PATH --from --to [--follow NAME | --area PLACE]`` writes an animation
of a span (export.py).
"""
from __future__ import annotations

import json
import logging
import os
from datetime import datetime
from pathlib import Path

import pygame

from agents import CastError, Persona, load_cast
from game.app import CrowdCamera, resolve_map, run, save_screenshot
from game.headless import parse_start
from game.replay import bar, events
from game.replay.export import FPS, export_animation
from game.replay.feed import RecordedFeed
from game.replay.minds import SavedMinds
from game.replay.moments import moments
from game.replay.playback import ReplaySession, frame_span
from game.replay.reader import Recording, RecordingError, Target, find_recording, read_recording
from game.runs.recording import FILE
from game.saves.cast import saved_cast
from game.saves.store import map_fingerprint
from game.support.errors import UserError
from game.view import feed, inspector, keys, residents_list, townmap
from game.view.sprites import Figure
from game.view.tilemap import TileMapRenderer
from game.view.window import TITLE, WINDOW_SIZE, Game, close_window
from game.world.map_reader import load_town
from game.world.town import Town

log = logging.getLogger(__name__)

DEFAULT_MAP = "maps/the_ville/the_ville.tmx"
GIF_SIZE = (800, 450)


def check_town(rec: Recording, town: Town, map_path: Path) -> str | None:
    """RecordingError when the recording was made in another town; a note when
    it was made on another version of this town's map (it still plays)."""
    if rec.world and town.world and rec.world != town.world:
        raise RecordingError(f"{rec.path} was recorded in {rec.world!r}, not in {town.world!r} ({map_path}); "
                             f"give the map it was made on with --map")
    if not rec.map_sha256:
        return None
    try:
        same = map_fingerprint(map_path) == rec.map_sha256
    except OSError:
        return None
    return None if same else (f"the map {map_path} has changed since this was recorded: "
                              "people may stand where there is now a wall")


def parse_time(text: str | None, rec: Recording, what: str) -> datetime | None:
    """``--at`` / ``--from`` / ``--to``: "2023-02-14 16:30", or "16:30" on the recording's first day."""
    if not text:
        return None
    t = text.strip()
    if len(t) <= 5 and ":" in t:
        t = f"{rec.start:%Y-%m-%d} {t}"
    try:
        when = parse_start(t, rec.start)
    except UserError:
        raise UserError(f"{what} {text!r}: give a time like \"{rec.start:%Y-%m-%d %H:%M}\" or \"{rec.start:%H:%M}\"") \
            from None
    if when is None:
        return None
    if not rec.start <= when <= rec.end:
        raise UserError(f"{what} {text!r} is outside the recording ({rec.start:%Y-%m-%d %H:%M} – "
                        f"{rec.end:%Y-%m-%d %H:%M})")
    return when


def find_place(town: Town, text: str) -> tuple[float, float]:
    """The middle of a place named loosely ("Hobbs Cafe", "the Ville:Hobbs Cafe:cafe")."""
    address = town.resolve(text)
    if address is None:
        want = text.strip().casefold()
        for a in town.addresses():
            if a.split(":")[-1].casefold() == want:
                address = a
                break
    tiles = town.tiles_of(address) if address else []
    if not tiles:
        sectors = ", ".join(s.split(":")[-1] for s in town.sectors()[:12])
        raise UserError(f"--area {text!r}: no such place in {town.world} (places: {sectors}, …)")
    return (sum(t[0] for t in tiles) / len(tiles), sum(t[1] for t in tiles) / len(tiles))


def open_replay(rec: Recording, town: Town, map_path: Path, *, target: Target | None = None,
                personas: dict[str, Persona] | None = None, size: tuple[int, int] = WINDOW_SIZE,
                controls: bool = True) -> tuple[Game, ReplaySession]:
    """The window's Game on a ReplaySession (a display mode must be set).
    ``controls``: the timeline bar and the events list (an export leaves them out)."""
    personas = personas or {}
    saved = SavedMinds(rec, target, personas, town)
    session = ReplaySession(rec, town, personas=personas, saved=saved)
    game = Game(town, TileMapRenderer.from_file(map_path), size=size, visitor_name=session.visitor_name)
    game.spectator = True
    game.attach_session(session, extras=False)
    game.figure_sources.append(visitor_figures(session, game.visitor.slug))
    walker = game.panels.walker  # nobody walks in a replay
    if walker is not None:
        game.remove_overlay(walker)
    game.panels.walker = None
    hud = game.panels.hud
    if controls:
        session.feed = RecordedFeed(session, rec, town, personas)  # the town feed, up to the moment shown
        for panel in (inspector, townmap, residents_list, feed):
            try:
                panel.install(game)
            except Exception:
                log.exception("%s.install failed", panel.__name__)
        found = moments(rec, town, personas)
        events.install(game, session, found)
        bar.install(game, session, found)
        shown = game.panels.help  # above the replay's overlays too (game/view/overlay.py ORDER)
        if shown is not None:
            shown.controls = keys.help_lines(keys.REPLAY)
            shown.visible = False
        session.on_end.append(lambda: game.toast(end_message(session)))
        morning = hud.button if hud is not None else None  # "Next morning (N)": a jump, in a replay
        if morning is not None:
            morning.set_tooltip("the next 07:00 in the recording (or its end)")
    elif hud is not None:  # an animation: the town, the residents and the clock, no buttons
        for button in hud.buttons:
            button.hide()
    label = rec.path.parent.name if rec.path.name == FILE else rec.path.name
    game.status.right = f"replay of {label}" + ("  ·  F1 / ? help" if controls else "")
    aim_at_crowd(game)
    return game, session


def end_message(session: ReplaySession) -> str:
    """The toast at the end of the recording (played into, or reached by "Next morning")."""
    rec = session.recording
    why = session.end_reason
    head = f"{why}: this is its end" if why else "The end of the recording"
    return (f"{head} ({rec.end:%a %H:%M})" + (f": {rec.stopped}" if rec.stopped else "")
            + ". Space plays it again.")


def visitor_figures(session: ReplaySession, slug: str):
    """A figure source for the player's figure in a recorded game (the residents
    view leaves visitors out: in a game the player's own figure stands there)."""

    def figures() -> list[Figure]:
        name = session.sim.visitor
        b = session.sim.bodies.get(name) if name else None
        if b is None:
            return []
        x, y = (float(v) for v in b.tile)
        moving = b.prev_tile is not None and b.prev_tile != b.tile
        if moving:
            f = session.step_fraction
            px, py = b.prev_tile
            x, y = px + (x - px) * f, py + (y - py) * f
        return [Figure(name=str(name), slug=slug, x=x, y=y, facing=b.facing, moving=moving,
                       walked=session.position, label=True)]

    return figures


def aim_at_crowd(game: Game) -> None:
    """Point the camera at the busiest part of town (once)."""
    crowd = CrowdCamera(game)
    crowd.update(crowd.every)


def load_personas(map_path: Path, residents: list[str] | None = None, seed: int = 0,
                  town: Town | None = None, stored: object = None) -> dict[str, Persona]:
    """The residents' personas: those the recording keeps (``stored``, its header's), else the
    scenario's beside the map and, for an older recording, those generated for a bigger town
    made again from the run's ``seed`` (game/saves/cast.py)."""
    try:
        return saved_cast(map_path, residents or [], seed, town=town, stored=stored, where="the recording",
                          part="its header")[0]
    except CastError as err:
        log.warning("no residents' personas beside %s (%s): the inspector shows what the recording holds", map_path,
                    err)
    try:  # the scenario's alone, for a recording whose generated residents cannot be made again
        cast, _ = load_cast(map_path.parent)
    except CastError:
        return {}
    return {p.name: p for p in cast}


def run_seed(target: Target) -> int:
    """The seed of the run a recording belongs to (its summary.json; 0 when there is none)."""
    try:
        return int(json.loads((target.recording.parent / "summary.json").read_text(encoding="utf-8")).get("seed") or 0)
    except (OSError, ValueError, TypeError, AttributeError):
        return 0


def main_replay(args) -> int:
    """`smallville replay`: see the module's notes."""
    target = find_recording(args.target)
    rec = read_recording(target.recording)
    map_path = resolve_map(getattr(args, "map", None) or rec.map_path or DEFAULT_MAP)
    town = load_town(map_path)
    changed = check_town(rec, town, map_path)
    rec.hide_off_map(town.width, town.height)  # a damaged recording's stray tiles: not drawn, not followed
    print(rec.summary())
    for note in [*rec.notes, *([changed] if changed else [])]:
        print(f"  note: {note}")
    gif = getattr(args, "gif", None)
    headless = bool(getattr(args, "headless", False)) or bool(gif)
    at = parse_time(getattr(args, "at", None), rec, "--at")
    begin = parse_time(getattr(args, "from_", None), rec, "--from")
    end = parse_time(getattr(args, "to", None), rec, "--to")
    follow, area = getattr(args, "follow", None), getattr(args, "area", None)
    if follow and area:
        raise UserError("--follow and --area both aim the camera: give one")
    if follow:
        follow = _resident(follow, rec)
    look = find_place(town, area) if area else None
    if headless:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    personas = load_personas(map_path, list(rec.residents), run_seed(target), town, rec.personas)
    pygame.display.init()
    pygame.font.init()
    session = None
    try:
        size = _size(getattr(args, "size", None), GIF_SIZE if gif else WINDOW_SIZE)
        try:
            screen = pygame.display.set_mode(size, 0 if headless else pygame.RESIZABLE)
        except pygame.error as err:
            raise UserError(f"cannot open a window ({err}); on a machine without a display use --headless") from None
        pygame.display.set_caption(f"{TITLE} — replay")
        game, session = open_replay(rec, town, map_path, target=target, personas=personas, size=screen.get_size(),
                                    controls=not gif)
        if gif:
            first, last = frame_span(rec, begin, end)
            done = export_animation(game, session, gif, first, last, rate=getattr(args, "rate", None),
                                    fps=getattr(args, "fps", None) or FPS, follow=follow, look=look,
                                    aim=aim_at_crowd)
            same = f" ({done.stored} different)" if done.stored != done.frames else ""
            print(f"wrote {done.path}: {done.frames} frames{same} of {done.size[0]}x{done.size[1]} at {done.fps} fps, "
                  f"{rec.time_of(first):%a %H:%M} → {rec.time_of(min(last, session.frame)):%a %H:%M} "
                  f"({done.rate:g} sim min per second)")
            return 0
        if at is not None or begin is not None:
            session.seek_time(at or begin)  # type: ignore[arg-type]
        if follow:
            game.follow_resident(follow)
        elif look is not None:
            game.look_at_tile(look)
        else:
            aim_at_crowd(game)  # where most residents are at that moment
        if headless:
            session.paused = True
            session.saved.wait(30)  # the inspector's save, when one is open
            run(game, frames=getattr(args, "frames", None) or 3, headless=True, paced=False)
            shot = getattr(args, "screenshot", None)
            if shot:
                save_screenshot(pygame.display.get_surface(), shot)
            print(f"{session.now:%a %d %b %Y %H:%M:%S}" + (f"; screenshot {shot}" if shot else ""))
            return 0
        if rec.stopped:
            game.toast(f"This recording stops early: {rec.stopped}")
        game.toast(f"Replay: {rec.start:%a %H:%M} – {rec.end:%a %H:%M}. Space pauses; drag the bar; E: events.")
        game.mouse_pos = pygame.mouse.get_pos() if pygame.mouse.get_focused() else None
        run(game)
    finally:
        if session is not None:
            session.close()
        close_window()
    return 0


def _resident(name: str, rec: Recording) -> str:
    want = " ".join(name.split()).casefold()
    for n in rec.residents:
        if n.casefold() == want or n.split()[0].casefold() == want:
            return n
    raise UserError(f"--follow {name!r}: nobody of that name in this recording (residents: "
                    f"{', '.join(rec.residents)})")


def _size(text: str | None, default: tuple[int, int]) -> tuple[int, int]:
    if not text:
        return default
    try:
        w, h = (int(v) for v in str(text).lower().split("x"))
    except ValueError:
        raise UserError(f"--size {text!r}: give WIDTHxHEIGHT, e.g. 800x450") from None
    if not (160 <= w <= 3840 and 120 <= h <= 2160):
        raise UserError(f"--size {text!r}: between 160x120 and 3840x2160")
    return (w, h)


__all__ = ["check_town", "end_message", "find_place", "main_replay", "open_replay", "parse_time"]

