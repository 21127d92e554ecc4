"""The window (issue 2): rendering, the walking visitor, camera, zoom, hover, `play --headless`.

Everything runs on SDL's dummy video driver: no window is shown.
Small cases use tests/mapkit.py maps and a synthetic character sheet; the
real-town cases skip (saying why) until the Ville's map and art exist.
"""
from __future__ import annotations

import sys
from argparse import Namespace
from pathlib import Path

import pytest

pygame = pytest.importorskip("pygame")

sys.path.insert(0, str(Path(__file__).parent))
import mapkit

ROOT = Path(__file__).resolve().parents[1]
REAL_MAP = ROOT / "maps" / "the_ville" / "the_ville.tmx"
REAL_VISITOR = ROOT / "assets" / "characters" / "visitor.png"
DT = 1 / 60


# ---- fixtures and helpers ---------------------------------------------------------------------


@pytest.fixture
def sheets_dir(tmp_path):
    """A folder with a synthetic visitor.png: 3x4 frames of 32x48, each row its own colour."""
    folder = tmp_path / "characters"
    folder.mkdir()
    sheet = pygame.Surface((96, 192), pygame.SRCALPHA)
    for row, colour in enumerate([(200, 60, 60), (60, 200, 60), (60, 60, 200), (200, 200, 60)]):
        for col in range(3):
            # a body whose feet touch the frame's bottom edge
            pygame.draw.rect(sheet, colour + (255,), (col * 32 + 8 + col, row * 48 + 12, 16, 36))
    pygame.image.save(sheet, str(folder / "visitor.png"))
    return folder


def make_game(tmp_path, sheets_dir, size=(1280, 720), zoom=None, **map_kwargs):
    from game.app import Game
    from game.view.sprites import SheetLibrary

    path = mapkit.write_map(tmp_path / "map", **map_kwargs)
    return Game.from_map(path, size=size, zoom=zoom, sheets=SheetLibrary(sheets_dir))


def key(game, k, down=True):
    kind = pygame.KEYDOWN if down else pygame.KEYUP
    game.handle_event(pygame.event.Event(kind, key=k, mod=0, unicode="", scancode=0))


def tap(game, k):
    key(game, k, True)
    key(game, k, False)


def run_for(game, seconds, surface=None):
    for _ in range(round(seconds / DT)):
        game.update(DT)
        if surface is not None:
            game.draw(surface)


def mouse_to(game, pos):
    game.handle_event(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)))


def wheel(game, y):
    game.handle_event(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=y, precise_x=0.0, precise_y=float(y), flipped=False,
                                         which=0))


def colours(surface) -> int:
    import numpy as np

    arr = pygame.surfarray.array3d(surface).reshape(-1, 3)
    return len(np.unique(arr[:: 7], axis=0))


def need_real_town():
    if not REAL_MAP.exists():
        pytest.skip(f"the Ville's map is not there yet ({REAL_MAP.relative_to(ROOT)})")
    if not REAL_VISITOR.exists():
        pytest.skip(f"the visitor's sheet is not there yet ({REAL_VISITOR.relative_to(ROOT)})")


# ---- the camera alone -----------------------------------------------------------------------------
def test_camera_conversions_round_trip_and_zoom_keeps_the_point_under_the_cursor():
    from game.view.camera import Camera

    cam = Camera((4480, 3200), (1280, 720), 32, zoom=2.0)
    cam.look_at(2000, 1500)
    for sx, sy in [(0, 0), (640, 360), (1279, 719), (37, 511)]:
        wx, wy = cam.screen_to_world(sx, sy)
        assert cam.world_to_screen(wx, wy) == (sx, sy)
    assert cam.screen_to_tile(640, 360) == (2000 // 32, 1500 // 32)
    before = cam.screen_to_world(300, 200)
    assert cam.zoom_step(+1, (300, 200)) and cam.zoom == 2.5
    after = cam.screen_to_world(300, 200)
    assert abs(before[0] - after[0]) <= 1 and abs(before[1] - after[1]) <= 1
    for _ in range(20):
        cam.zoom_step(+1)
    assert cam.zoom == 3.0  # the top level
    for _ in range(20):
        cam.zoom_step(-1)
    assert cam.zoom == 0.5  # the bottom level


def test_camera_clamps_to_the_map_and_centres_a_small_one():
    from game.view.camera import Camera

    cam = Camera((4480, 3200), (1280, 720), 32, zoom=1.0)
    cam.look_at(0, 0)
    assert cam.screen_to_world(0, 0) == (0, 0)  # top-left corner, not beyond it
    cam.look_at(10**6, 10**6)
    assert cam.screen_to_world(1280, 720) == (4480, 3200)
    small = Camera((320, 200), (1280, 720), 32, zoom=1.0)
    small.look_at(0, 0)
    assert small.center == (160, 100)


def test_side_panels_move_the_view_so_nothing_hides_behind_them():
    from game.view.camera import Camera

    cam = Camera((4480, 3200), (1280, 720), 32, zoom=1.0)
    cam.insets = (400, 0, 380, 0)  # the residents list on the left, the inspector on the right
    cam.look_at(*cam.focus(1000, 1600))
    sx, _ = cam.world_to_screen(1000, 1600)
    assert abs(sx - (400 + (1280 - 400 - 380) / 2)) <= 1  # in the middle of what is still visible
    cam.look_at(*cam.focus(48, 1600))  # a point by the town's west edge ...
    sx, _ = cam.world_to_screen(48, 1600)
    assert sx >= 400 + 32  # ... is not behind the left panel: the map's edge slid to the panel's edge
    assert cam.screen_to_world(400, 0)[0] == 0
    cam.insets = (0, 0, 0, 0)
    cam.clamp()
    assert cam.screen_to_world(0, 0)[0] == 0  # no panels: clamped to the map as before


# ---- the game on a tiny map --------------------------------------------------------------------------
def test_the_visitor_starts_on_its_spawn_and_is_drawn(display, tmp_path, sheets_dir):
    game = make_game(tmp_path, sheets_dir)
    assert game.visitor.tile == mapkit.DEFAULT_SPAWNS[1][1:]
    game.update(DT)
    game.draw(display)
    fig, rect = game.drawn[0]
    assert fig.slug == "visitor"
    # feet on the bottom of the visitor's tile
    assert rect.bottom == game.camera.tile_to_screen(14, 8)[1]
    assert rect.size == (round(32 * game.camera.zoom), round(48 * game.camera.zoom))


def test_a_tap_moves_one_tile_smoothly(display, tmp_path, sheets_dir):
    game = make_game(tmp_path, sheets_dir)
    game.update(DT)
    tap(game, pygame.K_a)  # pressed and released within one frame: still one step
    game.update(0.09)  # half of a 0.18 s step
    x, y = game.visitor.pos
    assert game.visitor.moving and 13.0 < x < 14.0 and y == 7
    assert game.visitor.facing == "left"
    run_for(game, 1.0)
    assert game.visitor.tile == (13, 7) and game.visitor.pos == (13, 7)
    assert not game.visitor.moving and game.visitor.steps == 1
    tap(game, pygame.K_UP)
    run_for(game, 1.0)
    assert game.visitor.tile == (13, 6) and game.visitor.steps == 2


def test_holding_a_key_keeps_walking_and_a_wall_stops_it(display, tmp_path, sheets_dir):
    game = make_game(tmp_path, sheets_dir)
    key(game, pygame.K_LEFT)
    run_for(game, 0.18 * 5 + 0.05, display)
    assert game.visitor.tile[0] in (9, 8)  # about five steps in ~0.95 s, no pause between them
    run_for(game, 3.0)
    assert game.visitor.tile == (1, 7)  # x=0 is a wall
    assert not game.visitor.moving and game.visitor.facing == "left"
    key(game, pygame.K_LEFT, down=False)
    # pressing towards a wall turns the visitor but does not move it
    key(game, pygame.K_s)
    run_for(game, 0.5)
    key(game, pygame.K_s, down=False)
    assert game.visitor.tile == (1, 8)
    tap(game, pygame.K_s)
    run_for(game, 0.5)
    assert game.visitor.tile == (1, 8) and game.visitor.facing == "down"
    tap(game, pygame.K_d)
    run_for(game, 0.05)
    assert game.visitor.facing == "right"


def test_the_walk_cycle_plays_while_moving_and_stands_when_still(display, tmp_path, sheets_dir):
    game = make_game(tmp_path, sheets_dir)
    key(game, pygame.K_LEFT)
    seen = set()
    for _ in range(60):
        game.update(DT)
        seen.add(game.visitor.figure().column())
    assert seen == {0, 1, 2}
    key(game, pygame.K_LEFT, down=False)
    run_for(game, 0.5)
    assert game.visitor.figure().column() == 1


def test_the_camera_follows_the_visitor_and_clamps(display, tmp_path, sheets_dir):
    game = make_game(tmp_path, sheets_dir, size=(320, 240), zoom=1.0)  # the 512x320 map is bigger than the view
    cam = game.camera
    assert cam.center == (512 - 160, 320 - 120)  # visitor at the right edge: clamped
    key(game, pygame.K_LEFT)
    run_for(game, 1.2)
    mid = cam.cx
    assert mid < 512 - 160  # it moved with the visitor
    run_for(game, 4.0)
    assert cam.cx == 160  # clamped at the left edge
    assert 120 <= cam.cy <= 200
    # a window bigger than the map centres it
    game.resize((1280, 720))
    assert cam.center == (256, 160)


def test_the_mouse_wheel_zooms(display, tmp_path, sheets_dir):
    game = make_game(tmp_path, sheets_dir)
    z = game.camera.zoom
    mouse_to(game, (400, 300))
    wheel(game, 1)
    assert game.camera.zoom > z
    wheel(game, -1)
    wheel(game, -1)
    assert game.camera.zoom < z
    game.update(DT)
    game.draw(display)  # draws at the new zoom without complaint


def test_hovering_a_tile_shows_its_address(display, tmp_path, sheets_dir):
    game = make_game(tmp_path, sheets_dir, size=(1280, 720), zoom=1.0)
    cam = game.camera

    def hover(tx, ty):
        sx, sy = cam.tile_to_screen(tx + 0.5, ty + 0.5)
        mouse_to(game, (sx, sy))
        game.update(DT)
        return game.status.address

    assert hover(1, 1) == "Testville:Hobbs Cafe:cafe:coffee machine"
    assert hover(2, 3) == "Testville:Hobbs Cafe:cafe"
    assert hover(9, 3) == "Testville:Isabella Rodriguez's apartment:main room"
    assert "main room" in game.status.text and "(9, 3)" in game.status.text
    game.draw(display)


def test_outdoors_the_status_line_names_the_world(display, tmp_path, sheets_dir):
    game = make_game(
        tmp_path,
        sheets_dir,
        zoom=1.0,
        sectors=(("Johnson Park", 0, 6, 16, 4),),
        arenas=(("park", 1, 6, 14, 3),),
        objects=(("park bench", 3, 7, 2, 1),),
        spawns=(("visitor", 14, 7),),
    )
    sx, sy = game.camera.tile_to_screen(3.5, 2.5)
    mouse_to(game, (sx, sy))
    game.update(DT)
    assert game.status.address == "Testville"
    # with the mouse gone, it says where the visitor is
    game.handle_event(pygame.event.Event(pygame.WINDOWLEAVE))
    game.update(DT)
    assert game.status.address == "Testville:Johnson Park:park"


def test_escape_and_window_close_quit(display, tmp_path, sheets_dir):
    game = make_game(tmp_path, sheets_dir)
    tap(game, pygame.K_ESCAPE)
    assert not game.running
    game = make_game(tmp_path, sheets_dir)
    game.handle_event(pygame.event.Event(pygame.QUIT))
    assert not game.running


def test_an_overlay_sees_escape_first(display, tmp_path, sheets_dir):
    from game.view.overlay import Overlay

    game = make_game(tmp_path, sheets_dir)

    class Panel(Overlay):
        open = True

        def handle_event(self, event):
            if self.open and event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
                self.open = False
                return True
            return False

    panel = Panel()
    game.add_overlay(panel)
    tap(game, pygame.K_ESCAPE)
    assert game.running and not panel.open
    tap(game, pygame.K_ESCAPE)
    assert not game.running


def test_overlays_take_their_declared_place_whatever_order_they_come_in(display, tmp_path, sheets_dir):
    from game.view.overlay import ORDER, Overlay

    game = make_game(tmp_path, sheets_dir)
    heard, updated = [], []

    def named(name: str, takes: bool = False) -> Overlay:
        class Named(Overlay):
            def handle_event(self, event):
                heard.append(self.name)
                return takes

            def update(self, dt):
                updated.append(self.name)

        Named.name = name
        return Named()

    stray = named("")  # a name ORDER does not list: on top
    for overlay in [stray, *(named(n, takes=n == "residents_list") for n in reversed(ORDER))]:
        game.add_overlay(overlay)
    assert [o.name for o in game.overlays] == [*ORDER, ""]
    key(game, pygame.K_x)
    # the topmost hears it first, and the one that takes it is the last to hear it
    assert heard == ["", *reversed(ORDER[ORDER.index("residents_list"):])]
    game.update(DT)
    assert updated == [*ORDER, ""]  # updates (and draws) go from the bottom up
    game.remove_overlay(stray)
    assert game.overlays[-1].name == "crowd_camera"


def test_a_game_holds_its_views_in_the_order_they_always_had(display):
    """The order the window installs them in was the order they heard events in; the declared
    order keeps it, and each view is in the panels holder under its name."""
    from dataclasses import fields

    from driving import window

    from game.view.overlay import ORDER
    from game.view.panels import Panels

    assert [f.name for f in fields(Panels)] == [n for n in ORDER if n != "crowd_camera"]
    game, session = window(display)
    try:
        names = [o.name for o in game.overlays]
        assert names == ["residents_view", "bubbles", "hud", "follower", "walker", "journal", "inspector", "why_panel",
                         "chat",
                         "interview", "savemenu", "console", "townmap", "residents_list", "feed", "quit_dialog",
                         "help"]
        assert all(getattr(game.panels, o.name) is o for o in game.overlays)
        game.ask_visitor_name("Alex")
        assert game.overlays[-1] is game.panels.namebox  # it takes every key while it is open
    finally:
        session.close()


def test_the_views_find_each_other_through_the_panels_holder():
    """No view looks another up on the game by a name it hopes is there."""
    found = []
    for folder in ("game/view", "game/replay"):
        for path in sorted((ROOT / folder).glob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if 'getattr(game, "' in line or 'getattr(self.game, "' in line:
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == []


def test_the_tiny_map_renders_its_tiles(display, tmp_path, sheets_dir):
    game = make_game(tmp_path, sheets_dir, zoom=2.0)
    game.update(DT)
    game.draw(display)
    sx, sy = game.camera.tile_to_screen(5.5, 7.5)  # park grass
    assert display.get_at((sx, sy))[:3] == (90, 160, 70)
    sx, sy = game.camera.tile_to_screen(0.5, 6.5)  # a wall tile
    assert display.get_at((sx, sy))[:3] == (120, 110, 100)


# ---- `smallville play` --------------------------------------------------------------------------------
def play_args(map_path, **kw):
    base = dict(
        command="play", map=str(map_path), headless=True, frames=3, screenshot=None, load=None, visitor_name=None,
        agents=None, residents=None, seed=0, model=None, api_base=None, concurrency=None, cache=None,
    )
    base.update(kw)
    return Namespace(**base)


def test_main_play_headless_writes_a_screenshot(tmp_path, sheets_dir, monkeypatch):
    from game import app
    from game.view import sprites

    monkeypatch.setattr(sprites, "CHARACTERS", sheets_dir)
    path = mapkit.write_map(tmp_path / "map")
    shot = tmp_path / "out" / "shot.png"
    assert app.main_play(play_args(path, frames=4, screenshot=str(shot))) == 0
    assert shot.exists()
    pygame.display.init()
    try:
        img = pygame.image.load(str(shot))
        assert img.get_size() == (1280, 720)
        assert colours(img) > 3
    finally:
        pygame.quit()


def test_a_broken_map_gives_a_message_not_a_traceback(tmp_path, capsys, monkeypatch):
    from smallville.cli import main

    monkeypatch.chdir(tmp_path)  # any folder will do: the log goes to $SMALLVILLE_HOME/logs
    cases = {
        "collision": dict(omit_layers=("collision",)),
        "tiles.png": dict(write_image=False),
        "garbage": dict(raw="<map this is not xml"),
    }
    for word, kwargs in cases.items():
        path = mapkit.write_map(tmp_path / word, **kwargs)
        code = main(["play", str(path), "--headless", "--frames", "1"])
        err = capsys.readouterr().err
        assert code == 2, (word, err)
        assert err.startswith("smallville: ") and "Traceback" not in err, err
        assert len(err.strip().splitlines()) <= 3, err


def test_a_missing_sprite_sheet_gives_a_message(tmp_path, capsys, monkeypatch):
    from game.view import sprites
    from smallville.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sprites, "CHARACTERS", tmp_path / "nowhere")
    path = mapkit.write_map(tmp_path / "map")
    code = main(["play", str(path), "--headless", "--frames", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "visitor.png" in err and "Traceback" not in err, err


# ---- the real town ---------------------------------------------------------------------------------------
def test_the_ville_renders_a_real_picture(display):
    need_real_town()
    from game.app import Game

    game = Game.from_map(REAL_MAP, size=(1280, 720))
    game.update(DT)
    game.draw(display)
    first = display.copy()
    n = colours(first)
    assert n >= 40, f"only {n} distinct colours: is the town drawn?"
    # the visitor is on screen at the start
    (_fig, rect), *_ = [d for d in game.drawn if d[0].slug == "visitor"]
    assert display.get_rect().contains(rect)
    # elsewhere in town the picture differs
    game.follow = False
    vx, vy = game.visitor_center_world()
    game.camera.look_at(game.camera.map_w - vx, game.camera.map_h - vy)
    game.draw(display)
    assert pygame.image.tobytes(first, "RGB") != pygame.image.tobytes(display, "RGB")


def test_main_play_headless_on_the_ville(tmp_path):
    need_real_town()
    from game import app

    shot = tmp_path / "ville.png"
    assert app.main_play(play_args(REAL_MAP, frames=10, screenshot=str(shot))) == 0
    pygame.display.init()
    try:
        assert colours(pygame.image.load(str(shot))) >= 40
    finally:
        pygame.quit()
