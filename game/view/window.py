"""The game window: what is on screen, without the loop (game/app.py runs it).

`Game` holds what is on screen (the town, its tile renderer, the camera, the
visitor, the status line, the pygame_gui manager, overlays) and is driven by
three calls per frame: `handle_event(event)` for each event, `update(dt)`,
`draw(surface)`. Tests drive it frame by frame without a window; `main_play`
runs it in a window (or off-screen with --headless).

The main loop never does slow work: no model calls, embeddings or file saves
happen on the main thread (they run on the worker pool; the session applies
finished results in its `update`).

Plugging in more (later issues):
- residents: `game.figure_sources.append(fn)`, where fn() returns Figures
  (game/view/sprites.py) for the bodies to draw this frame; they are y-sorted
  together with the visitor. `game.blockers.append(fn)`, fn(x, y) -> True when
  a tile is taken (the visitor will not step there).
- HUD, panels, bubbles: `game.add_overlay(obj)`, an `Overlay`
  (game/view/overlay.py: its hooks, each a no-op unless the view defines it:
  `handle_event`, `update`, `draw_world`, `draw`, `draw_top`, `reserved`,
  `inset`, `covers_world`). The window holds them in one declared order
  (overlay.py ORDER), not the order they were installed in: events go to the
  topmost first (so a panel can take Escape before the game quits), updates
  and draws from the bottom up. Each view is also in `game.panels`
  (game/view/panels.py: one typed field per view, None until installed),
  where the views find each other.
- keys: every key is in game/view/keys.py's table; handlers ask it
  (`keys.hit(event)`), and the F1 help and README.md's controls tables are
  its rows.
- pygame_gui widgets: create them on `game.ui` (a UIManager); it gets events
  first and is drawn last.
- the status line's right side: `game.status.right = "Mon 13 Feb 07:00"`.

A running town (game/runs/session.py) joins with `game.attach_session(session)`:
`game.session` is updated in `update` (after the visitor moves, whose tile
goes to `sim.move_visitor`): that is the only place the simulation advances;
overlays read the session and never step it. The residents
(game/view/residents.py), speech bubbles (bubbles.py), HUD and time controls
(hud.py), the help overlay (help.py) and the panels (inspector, chat,
interview, save menu, console, town map, residents list, quit question)
install themselves. `game.toast(text)` shows a short message in the HUD.

Finding people (issue 12): `game.follow_resident(name)` keeps the camera on a
resident (game/view/follow.py), `game.walk_to_resident(name)` /
`game.walk_to_tile(tile)` walk the visitor there (walkto.py), `look_at_tile`
moves the camera; the residents list (residents_list.py) and the town map
(townmap.py) use them.

Watching a replay (game/replay/): ``game.spectator = True`` draws no visitor
figure and lets the walking keys pan the camera instead; the replay's
session stands in for a running one.

Quitting: closing the window or Escape with nothing else to close asks first
(quit_dialog.py: save and quit / quit without saving / cancel) when a town is
running; `request_quit()` is that question. After the loop, `main_play`
(game/app.py) returns at once: mind jobs still thinking are abandoned, and the `smallville`
command ends the process without waiting for them (`leave_process`).
"""
from __future__ import annotations

import logging
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from pathlib import Path

import pygame
import pygame_gui

from game.runs import gcpolicy
from game.runs.commands import Refused
from game.saves.saveload import newest_save
from game.view import (
    bubbles,
    chat,
    console,
    feed,
    follow,
    fonts,
    hud,
    inspector,
    interview,
    journal,
    keys,
    namebox,
    quit_dialog,
    residents,
    residents_list,
    savemenu,
    sprites,
    townmap,
    walkto,
)
from game.view import help as help_view
from game.view.camera import DEFAULT_ZOOM, Camera
from game.view.host import TownSession
from game.view.markup import typed_input
from game.view.overlay import Overlay, rank
from game.view.panels import Panels
from game.view.sprites import SheetLibrary, draw_figures, draw_ghosts, draw_labels, slugify
from game.view.statusline import HEIGHT as STATUS_H
from game.view.statusline import StatusLine
from game.view.tilemap import BACKDROP, TileMapRenderer
from game.view.visitor import Visitor, WalkControls
from game.world.map_reader import load_town
from game.world.town import Town

WINDOW_SIZE = (1280, 720)
TITLE = "Smallville"
FPS = 60
PAN_TILES_S = 18.0  # a spectator's camera pans this many tiles a second
NEAR_TILES = 12  # residents this near the visitor count as watched (their minds go first)
MAX_DT = 0.1  # after a stall (window dragged, breakpoint) do not jump ahead further

# The panels a game installs besides the residents, bubbles, HUD, following, walking and help (where
# each goes among the overlays, and so who hears events first, is game/view/overlay.py ORDER).
PANELS = (inspector, chat, interview, savemenu, console, townmap, residents_list, feed, journal, quit_dialog)


def _panel_installs(game: Game) -> list[Callable[[], object]]:
    """PANELS' installs on ``game``, in PANELS' order: written out, so mypy checks the
    window against what each panel says it needs of it (its ``...Host`` protocol)."""
    return [lambda: inspector.install(game), lambda: chat.install(game), lambda: interview.install(game),
            lambda: savemenu.install(game), lambda: console.install(game), lambda: townmap.install(game),
            lambda: residents_list.install(game), lambda: feed.install(game), lambda: journal.install(game),
            lambda: quit_dialog.install(game)]

log = logging.getLogger(__name__)


class Game:
    """Everything on screen, without the window: handle_event, update, draw."""

    def __init__(
        self,
        town: Town,
        tilemap: TileMapRenderer,
        *,
        size: tuple[int, int] = WINDOW_SIZE,
        zoom: float | None = None,
        visitor_name: str = "You",
        sheets=None,
    ) -> None:
        self.town = town
        self.tilemap = tilemap
        self.size = (int(size[0]), int(size[1]))
        ts = int(town.tile_size or 32)
        self.tile_size = ts
        self.camera = Camera((town.width * ts, town.height * ts), self.size, ts, DEFAULT_ZOOM if zoom is None else zoom)
        self.sheets = sheets if sheets is not None else SheetLibrary()
        self.visitor = Visitor(self._visitor_start(), name=visitor_name)
        self.sheets.preload([self.visitor.slug])  # a missing sheet stops us now, not mid-frame
        self.controls = WalkControls()
        self.status = StatusLine()
        self.ui = pygame_gui.UIManager(self.size)
        self.overlays: list[Overlay] = []  # in game/view/overlay.py ORDER
        self.panels = Panels()  # the views, by name (each None until installed)
        self.figure_sources: list[Callable[[], Iterable]] = []
        self.blockers: list[Callable[[int, int], bool]] = []
        self.show_labels = True
        self.ghosted = {self.visitor.slug}  # slugs shown faintly through the foreground
        self.show_hover = True
        self.spectator = False  # a replay: no visitor figure; the walking keys pan the camera
        self.follow = True  # camera follows the visitor; a wheel zoom pauses it until the visitor moves
        self.running = True
        self.mouse_pos: tuple[int, int] | None = None
        self.hovered_tile: tuple[int, int] | None = None
        self.hovered_address: str | None = None
        self.drawn: list = []  # (Figure, screen Rect) drawn last frame: for clicks
        self.frame = 0
        self.clock_time = 0.0  # seconds of game time updated so far
        self.frame_ms: deque[float] = deque(maxlen=2000)  # main_play records frame work time here
        self.session: TownSession | None = None  # a running game's Session (a replay's ReplaySession) once attached
        self.saves_dir: Path | None = None  # where the save menu keeps the saves (None: the usual folder)
        self._fps_since = 0.0
        self._fps_frames = 0
        self._address_cache: dict[tuple[int, int], str | None] = {}
        self._playing: str | None = None  # the resident the player's figure is (session.controlled)
        self._parked: tuple | None = None  # the visitor's (tile, name, slug, facing) while playing
        self._window_closed = False  # a WINDOWCLOSE came: the next QUIT is the close button, not a signal
        self.camera.look_at(*self.visitor_center_world())

    # ---- building --------------------------------------------------------------------
    @classmethod
    def from_map(cls, map_path: str | Path, **kwargs) -> Game:
        """Load a town and its tiles (a display mode must be set first)."""
        town = load_town(map_path)
        return cls(town, TileMapRenderer.from_file(map_path), **kwargs)

    def _visitor_start(self) -> tuple[int, int]:
        start = self.town.spawns.get("visitor")
        if start is None:
            log.warning("map has no 'visitor' spawn; starting near the middle")
            start = (self.town.width // 2, self.town.height // 2)
        return self.nearest_walkable((start[0], start[1]))

    def nearest_walkable(self, tile: tuple[int, int]) -> tuple[int, int]:
        """``tile`` if the visitor may stand there, else the nearest such tile (4-neighbour search)."""
        if self.walkable(*tile):
            return tile
        seen = {tile}
        todo = deque([tile])
        while todo:
            x, y = todo.popleft()
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if (nx, ny) in seen or not (0 <= nx < self.town.width and 0 <= ny < self.town.height):
                    continue
                if self.walkable(nx, ny):
                    return (nx, ny)
                seen.add((nx, ny))
                todo.append((nx, ny))
        return tile

    # ---- queries ---------------------------------------------------------------------------
    def walkable(self, x: int, y: int) -> bool:
        """The map's collision only (bounds included)."""
        return 0 <= x < self.town.width and 0 <= y < self.town.height and bool(self.town.walkable[y, x])

    def can_enter(self, x: int, y: int) -> bool:
        """Can the visitor step onto tile (x, y) now?"""
        return self.walkable(x, y) and not any(blocked(x, y) for blocked in self.blockers)

    def visitor_center_world(self) -> tuple[float, float]:
        x, y = self.visitor.pos
        return ((x + 0.5) * self.tile_size, (y + 0.5) * self.tile_size)

    def address_at(self, tile: tuple[int, int]) -> str:
        """The deepest address of a tile, or the world's name outdoors (cached per tile)."""
        if tile not in self._address_cache:
            self._address_cache[tile] = self.town.address_at(*tile)
        return self._address_cache[tile] or self.town.world

    def figures(self) -> list:
        figs = [] if self.spectator else [self.visitor.figure()]
        for source in self.figure_sources:
            figs.extend(source())
        return figs

    # ---- the three per-frame calls ---------------------------------------------------------
    def handle_event(self, event) -> None:
        if event.type == pygame.WINDOWCLOSE:
            self._window_closed = True  # the window's close button: the QUIT that follows asks
        if event.type == pygame.QUIT:
            # Without a close button before it, QUIT is a signal (Ctrl+C, kill, logging out):
            # nobody is there to answer a question, so save and quit at once.
            asked, self._window_closed = self._window_closed, False
            self.request_quit(from_window=True, signal=not asked)
            return
        if event.type == pygame.VIDEORESIZE:
            self.resize((event.w, event.h))
        elif event.type == pygame.WINDOWSIZECHANGED:
            self.resize((event.x, event.y))
        if event.type == pygame.MOUSEMOTION:
            self.mouse_pos = tuple(event.pos)
        elif event.type == pygame.WINDOWLEAVE:
            self.mouse_pos = None
        if event.type in (pygame.KEYUP, pygame.WINDOWFOCUSLOST):
            self.controls.handle_event(event)  # a released key is never swallowed by a panel
        if event.type == pygame.TEXTINPUT:
            event = typed_input(event)
            if event is None:
                return
        self.drop_hidden_focus()
        if self.ui.process_events(event):
            return
        for overlay in reversed(self.overlays):
            if overlay.handle_event(event):
                return
        got = keys.hit(event)
        if got is not None and got.action == "back":
            self.on_escape()
            return
        if got is not None and got.action == "zoom":
            self.zoom(got.number, self.camera.world_to_screen(*self.visitor_center_world()))
            return
        if got is not None and got.action == "fps":
            self.status.show_fps = not self.status.show_fps
            return
        if self.controls.handle_event(event):
            return
        if event.type == pygame.MOUSEWHEEL:
            steps = 1 if event.y > 0 else -1 if event.y < 0 else 0
            if steps:
                anchor = self.mouse_pos
                if anchor is None:
                    anchor = pygame.mouse.get_pos() if pygame.mouse.get_focused() else None
                self.zoom(steps, anchor)
                if anchor is not None:
                    self.follow = False  # keep the point under the cursor still

    def drop_hidden_focus(self) -> bool:
        """A panel hidden while its text box had the keyboard (the town feed's filter, then
        Escape) leaves pygame_gui's focus on a box nobody sees: it took every key after (P,
        F, and Q in the quit question). Such a box lets go; True if one did."""
        focus = self.ui.get_focus_set() or ()
        boxes = (pygame_gui.elements.UITextEntryLine, pygame_gui.elements.UITextEntryBox)
        if not any(isinstance(el, boxes) and not (el.visible and el.alive()) for el in focus):
            return False
        for el in focus:
            if isinstance(el, boxes):
                el.unfocus()
        self.ui.set_focus_set(None)
        return True

    def update(self, dt: float) -> None:
        dt = min(max(dt, 0.0), MAX_DT)
        self.clock_time += dt
        self.frame += 1
        if self.spectator:
            self._pan(dt)
        else:
            self.visitor.update(dt, self.controls, self.can_enter)
            if self.visitor.moving:
                self.follow = True
        session = self.session
        if session is not None:
            if session.controlled != self._playing:
                self.sync_control()  # control changed elsewhere (a load, the console)
            session.move_visitor(self.visitor.tile)
            session.sim.focus = self.watched()  # their minds' jobs go first
            session.update(dt)
            gcpolicy.POLICY.tick()
        insets = self._panel_insets()
        if insets != self.camera.insets:  # a side panel opened or closed: the view makes room
            self.camera.insets = insets
            self.camera.clamp()
        if self.follow and not self.spectator:
            self.camera.follow(*self.camera.focus(*self.visitor_center_world()), dt)
        self._update_hover()
        for overlay in self.overlays:
            overlay.update(dt)
        self.ui.update(dt)
        self._fps_since += dt
        self._fps_frames += 1
        if self._fps_since >= 0.5:
            self.status.fps = round(self._fps_frames / self._fps_since)
            self._fps_since, self._fps_frames = 0.0, 0

    def draw(self, surface) -> None:
        cam = self.camera
        if any(o.covers_world for o in self.overlays):
            self.drawn = []  # a full-window panel (the town map) hides the town: do not draw it
        else:
            if cam.map_w * cam.zoom < surface.get_width() or cam.map_h * cam.zoom < surface.get_height():
                surface.fill(BACKDROP)  # the map does not cover the window (else its opaque chunks do)
            self.tilemap.draw_under(surface, self.camera)
            if self.show_hover and self.hovered_tile is not None and self.mouse_pos is not None:
                self._draw_hover(surface)
            self.drawn = draw_figures(surface, self.camera, self.figures(), self.sheets)
            if self.tilemap.draw_over(surface, self.camera):
                draw_ghosts(surface, self.camera, self.drawn, self.sheets, self.ghosted)
            if self.show_labels:
                draw_labels(surface, self.drawn)
            for overlay in self.overlays:
                overlay.draw_world(surface, self.camera)
        self.status.draw(surface)
        for overlay in self.overlays:
            overlay.draw(surface)
        for overlay in self.overlays:
            overlay.draw_top(surface)
        self.ui.draw_ui(surface)

    def _pan(self, dt: float) -> None:
        """A spectator's walking keys move the camera (and stop it following anyone)."""
        held = self.controls.held[-1] if self.controls.held else self.controls.tapped
        self.controls.tapped = None
        if not held:
            return
        dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[held]
        speed = PAN_TILES_S * self.tile_size  # world pixels a second
        self.follow = True  # the player took the camera: a follower stops
        self.camera.look_at(self.camera.cx + dx * speed * dt, self.camera.cy + dy * speed * dt)

    def _panel_insets(self) -> tuple[int, int, int, int]:
        """Screen pixels side panels cover (overlays' ``inset()``: (left, top, right, bottom))."""
        out = [0, 0, 0, 0]
        for overlay in self.overlays:
            got = overlay.inset()
            if got:
                out = [max(a, int(b)) for a, b in zip(out, got)]
        return (out[0], out[1], out[2], out[3])

    def reserved_rects(self) -> list:
        """Screen boxes messages take (the HUD, toasts, the console's output): bubbles avoid them."""
        out = []
        for overlay in self.overlays:
            out.extend(overlay.reserved())
        return out

    # ---- actions ------------------------------------------------------------------------------
    def on_escape(self) -> None:
        """Escape with nothing else to close (overlays see Escape first): quit, asking first."""
        if self.session is not None and self.session.skipping:
            self.session.cancel_skip()
            return
        self.request_quit()

    def request_quit(self, from_window: bool = False, signal: bool = False) -> None:
        """The player wants to leave: ask (save and quit / quit without saving /
        cancel) while a town runs and the question is installed; else quit now.
        Closing the window again while asked saves and quits; so does a signal."""
        dialog = self.panels.quit_dialog
        if self.session is None or dialog is None:
            self.running = False
            return
        if not dialog.is_open:
            dialog.open()
            if not signal:
                return
        if from_window or signal:
            dialog.save_and_quit()

    def watched(self) -> set[str]:
        """The residents the player watches: on screen, followed, inspected or near the
        visitor. Their minds' jobs go first (agents/threads/priority.py)."""
        if self.session is None:
            return set()
        sim = self.session.sim
        x0, y0, x1, y1 = self.camera.visible_tiles()
        vx, vy = self.visitor.tile
        out = {n for n, b in sim.bodies.items()
               if not b.visitor and ((x0 <= b.tile[0] < x1 and y0 <= b.tile[1] < y1)
                                     or abs(b.tile[0] - vx) + abs(b.tile[1] - vy) <= NEAR_TILES)}
        follower, insp = self.panels.follower, self.panels.inspector
        for who in (follower.target if follower is not None else None,
                    insp.selected if insp is not None else None):
            if who in sim.bodies:
                out.add(who)
        return out

    # ---- finding people and places (game/view/follow.py, walkto.py) ---------------------------
    def follow_resident(self, name: str) -> bool:
        """Keep the camera on a resident until the player walks or presses Escape."""
        follower = self.panels.follower
        return bool(follower is not None and follower.start(name))

    def walk_to_resident(self, name: str) -> bool:
        walker = self.panels.walker
        return bool(walker is not None and walker.to_resident(name))

    def walk_to_tile(self, tile: tuple[int, int], label: str = "") -> bool:
        walker = self.panels.walker
        return bool(walker is not None and walker.to_tile(tile, label))

    def look_at_tile(self, tile: tuple[float, float]) -> None:
        """Move the camera to a place; it stays there until the visitor walks."""
        follower = self.panels.follower
        if follower is not None:
            follower.stop()
        self.follow = False
        self.camera.look_at(*self.camera.focus(*self.camera.tile_center_world(*tile)))

    def zoom(self, steps: int, anchor: tuple[int, int] | None = None) -> bool:
        return self.camera.zoom_step(steps, anchor)

    def resize(self, size: tuple[int, int]) -> None:
        size = (max(1, int(size[0])), max(1, int(size[1])))
        if size == self.size:
            return
        self.size = size
        self.camera.resize(size)
        self.ui.set_window_resolution(size)

    def add_overlay(self, overlay: Overlay) -> None:
        """Hold ``overlay`` at its place in the declared order (game/view/overlay.py ORDER)."""
        i = len(self.overlays)
        while i > 0 and rank(self.overlays[i - 1]) > rank(overlay):
            i -= 1
        self.overlays.insert(i, overlay)

    def remove_overlay(self, overlay: object) -> None:
        if overlay in self.overlays:
            self.overlays.remove(overlay)

    def toast(self, text: str) -> None:
        """A short message for the player (the HUD shows it for a few seconds)."""
        if self.panels.hud is not None:
            self.panels.hud.toast(text)
        else:
            log.info("toast: %s", text)

    def attach_session(self, session: TownSession, *, extras: bool = True) -> None:
        """Show a running town: residents, bubbles, HUD, time controls, help
        (and, with ``extras``, the panels: inspector, chat, interview, save menu,
        console, town map, residents list, quit question)."""
        # Mind threads run plain Python (prompts, parsing, retrieval) between model
        # calls; a 1 ms GIL switch interval (default 5 ms) lets the frame win the GIL
        # back sooner (measured: frame p99 at speed 5 with 25 busy minds 17 -> 13 ms).
        if sys.getswitchinterval() > 0.001:
            sys.setswitchinterval(0.001)
        gcpolicy.POLICY.install()  # no full collection of the whole town inside a frame (game/runs/gcpolicy.py)
        self.session = session
        self._playing, self._parked = None, None
        self.visitor.name = session.visitor_name
        session.move_visitor(self.visitor.tile)
        residents.install(self)
        bubbles.install(self)
        hud.install(self)
        follow.install(self)
        walkto.install(self)
        if extras:
            for panel, install in zip(PANELS, _panel_installs(self)):
                try:
                    install()
                except Exception:
                    log.exception("%s.install failed", panel.__name__)
        help_view.install(self)
        greeted = getattr(session.sim, "on_greeting", None)  # a live town's residents greet; a replay's do not
        if greeted is not None:
            greeted.append(self._greeted)

    def sync_control(self) -> None:
        """Make the player's figure the controlled resident (or the visitor again):
        the figure goes to the resident's body (the visitor's is parked where it
        stood), takes its name and look, and the camera follows it."""
        session = self.session
        want = session.controlled if session is not None else None
        if want == self._playing or session is None:
            return
        v = self.visitor
        self.controls.release_all()
        if self._playing is None:
            self._parked = (v.tile, v.name, v.slug, v.facing)
        if want:
            b = session.sim.bodies[want]
            slug = slugify(want)
            self.sheets.preload([slug])
            v.place(b.tile)
            v.name, v.slug, v.facing = want, slug, b.facing
            self.ghosted.add(slug)
        elif self._parked is not None:
            tile, name, slug, facing = self._parked
            vb = session.sim.bodies.get(session.sim.visitor) if session.sim.visitor else None
            v.place(vb.tile if vb is not None else tile)
            v.name = session.visitor_name or name
            v.slug, v.facing = slug, facing
            self._parked = None
        self._playing = want
        self.follow = True

    def _greeted(self, g) -> None:
        text = g.text if len(g.text) <= 60 else g.text[:59] + "…"
        self.toast(f"{g.resident} greets you: \"{text}\"  (T to answer)")

    def rename_visitor(self, name: str) -> None:
        """The visitor's name (the town's ``name_visitor``); ValueError if a resident has it."""
        session = self.session
        if session is not None and session.commands is not None:
            got = session.commands.name_visitor(name)
            if isinstance(got, Refused):
                raise ValueError(got.message)
            name = session.visitor_name
        self.visitor.name = name

    def ask_visitor_name(self, default: str = "Alex", offer_continue: bool = False) -> None:
        """The start-up name box: the town waits (paused) until a name is given.
        ``offer_continue``: it also offers to resume the newest save, when one
        exists (looked for on a background thread, loaded by the save menu)."""
        session = self.session
        was_paused = session.paused if session is not None else False
        if session is not None:
            session.paused = True

        def validate(name: str):
            if session is not None and name in session.minds:
                return f"{name} already lives here; pick another name"
            return None

        def done(name: str) -> None:
            self.rename_visitor(name)
            if session is not None:
                session.paused = was_paused
            self.toast(f"Welcome to the Ville, {name}!  (F1: controls)")

        newest = on_continue = None
        menu = self.panels.savemenu
        if offer_continue and menu is not None:
            newest = in_background(newest_save, menu.folder)

            def on_continue(info):
                return menu.load(info.path)

        namebox.install(self, done, default, validate, newest, on_continue)

    def _update_hover(self) -> None:
        pos = self.mouse_pos
        if pos is not None and pos[1] < self.size[1] - _status_height():
            tile = self.camera.screen_to_tile(*pos)
            if 0 <= tile[0] < self.town.width and 0 <= tile[1] < self.town.height:
                self.hovered_tile = tile
                self.hovered_address = self.address_at(tile)
                self.status.set_place(self.hovered_address, tile)
                return
        # Mouse away from the map: say where the visitor stands (a spectator: what the camera looks at).
        self.hovered_tile = None
        self.hovered_address = None
        tile = self.camera.screen_to_tile(self.size[0] / 2, self.size[1] / 2) if self.spectator else self.visitor.tile
        self.status.set_place(self.address_at(tile), tile)

    def _draw_hover(self, surface: pygame.Surface) -> None:
        if self.hovered_tile is None:
            return
        x, y = self.camera.tile_to_screen(*self.hovered_tile)
        s = round(self.tile_size * self.camera.zoom)
        pygame.draw.rect(surface, (255, 255, 255), (x, y, s, s), width=1)


def in_background(fn, *args) -> Future:
    """Run ``fn(*args)`` on a daemon thread (file reads the frame must not wait for)."""
    fut: Future = Future()

    def run() -> None:
        try:
            fut.set_result(fn(*args))
        except BaseException as err:  # noqa: BLE001 - the caller reads it from the future
            fut.set_exception(err)

    threading.Thread(target=run, name="background", daemon=True).start()
    return fut


def _status_height() -> int:
    return STATUS_H


def close_window() -> None:
    """Close pygame and drop what was drawn for its display (fonts, sprite caches),
    so a later window in the same process starts clean."""
    pygame.quit()
    fonts.reset()
    sprites.reset_caches()
