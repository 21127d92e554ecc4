"""The town map, the minimap and walking there (issue 12).

Headless through the real game loop (tests/driving.py): the Ville, scripted
minds, real key presses and mouse clicks.
"""
from __future__ import annotations

import pytest

pygame = pytest.importorskip("pygame")
pytest.importorskip("pygame_gui")

from driving import MAP, click, click_element, frames, on_screen, press, until

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")


def _centre_tile(game, sector: str) -> tuple[int, int]:
    tiles = game.town.tiles_of(f"{game.town.world}:{sector}")
    xs = sorted(t[0] for t in tiles)
    ys = sorted(t[1] for t in tiles)
    return (xs[len(xs) // 2], ys[len(ys) // 2])


def test_the_map_shows_the_town_and_centres_the_camera_on_a_clicked_place(windows, display):
    game, session = windows(agents=4)
    frames(game, 2)
    press(pygame.K_m)
    frames(game, 2)
    tm = game.panels.townmap
    assert tm.is_open and game.drawn == []  # the map covers the window: the town is not drawn behind it
    assert until(game, lambda: tm.overview.done, limit=600)  # the picture is made a few chunks a frame
    w, h = game.size
    assert tm.map_rect.width <= w and tm.map_rect.bottom <= h  # the whole town fits the window
    mw, mh = game.tilemap.pixel_size
    assert abs(tm.map_rect.width / tm.map_rect.height - mw / mh) < 0.02
    names = {n for n, _, _ in tm._dots()}
    assert set(session.minds) <= names and game.visitor.name in names  # residents and the visitor
    sectors = len(game.town.sectors())
    assert until(game, lambda: len(tm._sector_labels()) == sectors, limit=100)  # every sector labelled

    park = _centre_tile(game, "Johnson Park")
    click(tm.tile_to_map(*park))
    frames(game, 2)
    assert tm.selected == ("place", tm.map_to_tile(tm.tile_to_map(*park)))
    cx, cy = game.camera.center
    want = game.camera.tile_center_world(*park)
    assert abs(cx - want[0]) <= game.tile_size and abs(cy - want[1]) <= game.tile_size
    frames(game, 30)
    assert game.camera.center == (cx, cy)  # it stays there (the visitor did not walk)
    # the visible part of town is framed on the map; a screenshot shows it drawn
    game.draw(display)
    assert "Johnson Park" in tm.place_name(park)

    # a hover over a dot names the resident
    name = sorted(session.minds)[0]
    x, y = next((x, y) for n, x, y in tm._dots() if n == name)
    game.handle_event(pygame.event.Event(pygame.MOUSEMOTION, pos=tuple(map(int, tm.tile_to_map(x, y))),
                                         rel=(0, 0), buttons=(0, 0, 0)))
    assert tm.pick(game.mouse_pos) == ("resident", name)

    press(pygame.K_m)
    frames(game, 1)
    assert not tm.is_open
    assert game.camera.center == (cx, cy)  # the town is shown where the map left the camera


def test_clicking_a_dot_follows_that_resident(windows):
    game, session = windows(agents=4)
    frames(game, 2)
    click_element(game, game.panels.townmap.hud_button)  # the HUD's "Map (M)" button
    tm = game.panels.townmap
    assert tm.is_open
    name = sorted(session.minds)[-1]
    x, y = next((x, y) for n, x, y in tm._dots() if n == name)
    click(tm.tile_to_map(x, y))
    frames(game, 2)
    assert game.panels.follower.target == name and tm.selected == ("resident", name)
    click_element(game, tm.buttons["inspect"])
    assert game.panels.inspector.is_open and game.panels.inspector.selected == name and not tm.is_open
    assert until(game, lambda: on_screen(game, name), limit=120)


def test_walk_there_from_the_map_arrives(windows):
    game, session = windows(agents=2)
    session.paused = True  # a still town: the visitor's walk is the only motion
    frames(game, 2)
    press(pygame.K_m)
    frames(game, 2)
    tm = game.panels.townmap
    start = game.visitor.tile
    goal = (start[0] - 30, start[1])  # along Main Street, west of the bus stop
    assert game.walkable(*goal)
    click(tm.tile_to_map(*goal))
    frames(game, 2)
    click_element(game, tm.buttons["walk"])
    assert game.panels.walker.active and game.visitor.route
    assert any("Walking to" in t for t in game.panels.hud.notes.values())
    assert until(game, lambda: not game.panels.walker.active, limit=2000)
    assert max(abs(game.visitor.tile[0] - goal[0]), abs(game.visitor.tile[1] - goal[1])) <= 1
    assert game.panels.walker.arrived
    assert any(t.startswith("You are at") for t, _ in game.panels.hud.toasts)


def test_right_click_on_the_minimap_walks_and_a_click_looks(windows):
    game, session = windows(agents=2)
    session.paused = True
    assert until(game, lambda: game.panels.townmap.mini_rect is not None, limit=600)
    tm = game.panels.townmap
    r = tm.mini_rect
    scale = r.width / game.tilemap.pixel_size[0]
    park = _centre_tile(game, "Johnson Park")
    click(tm.tile_to_map(*park, r, scale))
    frames(game, 2)
    want = game.camera.tile_center_world(*park)
    assert abs(game.camera.center[0] - want[0]) <= 3 * game.tile_size
    goal = (game.visitor.tile[0] - 12, game.visitor.tile[1])
    click(tm.tile_to_map(*goal, r, scale), button=3)
    frames(game, 2)
    assert game.panels.walker.active
    press(pygame.K_m, mod=pygame.KMOD_SHIFT)  # Shift+M hides the minimap
    frames(game, 2)
    assert tm.mini_rect is None and not tm.is_open


def test_walk_there_from_the_inspector_arrives_next_to_the_resident(windows):
    game, session = windows(agents=3)
    session.paused = True  # residents stand still while the visitor walks up
    frames(game, 2)
    name = min(session.minds, key=lambda n: abs(session.sim.bodies[n].tile[0] - game.visitor.tile[0])
               + abs(session.sim.bodies[n].tile[1] - game.visitor.tile[1]))
    game.panels.inspector.select(name)
    frames(game, 2)
    click_element(game, game.panels.inspector.walk_button)
    assert game.panels.walker.active and game.panels.walker.resident == name
    assert until(game, lambda: not game.panels.walker.active, limit=4000)
    b = session.sim.bodies[name]
    assert max(abs(game.visitor.tile[0] - b.tile[0]), abs(game.visitor.tile[1] - b.tile[1])) <= 1
    assert any(f"next to {name.split()[0]}" in t for t, _ in game.panels.hud.toasts)
    assert game.panels.chat.nearest() == name  # close enough to talk (T)


def test_a_walk_key_takes_over_from_walking_there(windows):
    game, session = windows(agents=2)
    session.paused = True
    frames(game, 2)
    assert game.walk_to_tile((game.visitor.tile[0] - 20, game.visitor.tile[1]))
    frames(game, 30)
    assert game.panels.walker.active
    press(pygame.K_UP)
    frames(game, 30)  # the step under way ends, then the key's step
    assert not game.panels.walker.active and not game.visitor.route
