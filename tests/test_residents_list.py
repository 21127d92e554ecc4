"""Finding residents (issue 12): the residents list, following, and names as links.

Headless through the real game loop (tests/driving.py): the Ville, scripted
minds, real pygame events (keys, mouse clicks on the pygame_gui rows).
"""
from __future__ import annotations

import pytest

pygame = pytest.importorskip("pygame")
pytest.importorskip("pygame_gui")

from driving import MAP, click, click_element, frames, on_screen, press, screen_distance_to_centre, until

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")


def test_the_list_finds_and_follows_a_resident_who_is_off_screen(windows):
    game, session = windows(agents=6)
    frames(game, 2)
    away = [n for n in sorted(session.minds) if not on_screen(game, n)]
    assert away, "everyone is on screen at the bus stop?"
    press(pygame.K_r)
    frames(game, 2)
    lst = game.panels.residents_list
    assert lst.is_open and sorted(lst.rows) == sorted(session.minds)  # every resident has a row
    frames(game, 10)  # changed rows are drawn again a few per frame
    name = away[0]
    state = lst.rows[name]
    assert state is not None and state[0] == name
    # what the row shows: the emoji, a few words of the action, where (sector › arena)
    _, emoji, doing, where, _thinking, _routine, *_ = state
    body = session.sim.bodies[name]
    assert emoji == body.emoji and where and doing
    assert " › " in where or where.startswith("→") or where == "outdoors"

    click(lst.row_rect(name).center)  # a real click on the row
    frames(game, 2)
    assert game.panels.follower.target == name
    assert until(game, lambda: on_screen(game, name), limit=120)
    frames(game, 60)
    assert screen_distance_to_centre(game, name) < 80  # the camera is on them
    assert any(name in t for t in game.panels.hud.notes.values())  # "Following <name>"

    # the camera stays on them as the town runs (they may walk off) ...
    session.set_speed(3)
    frames(game, 120)
    assert game.panels.follower.target == name and on_screen(game, name)
    # ... until the visitor walks
    press(pygame.K_LEFT)
    frames(game, 20)
    assert game.panels.follower.target is None and game.follow
    assert not game.panels.hud.notes


def test_double_click_opens_the_inspector_and_escape_steps_back(windows):
    game, _session = windows(agents=3)
    press(pygame.K_r)
    frames(game, 12)
    lst = game.panels.residents_list
    name = lst.order[1]
    rect = lst.row_rect(name)
    click(rect.center)
    frames(game, 1)
    click(rect.center)  # the second click within the double-click time
    frames(game, 2)
    assert game.panels.inspector.is_open and game.panels.inspector.selected == name
    assert game.panels.follower.target == name
    press(pygame.K_ESCAPE)  # the inspector first ...
    frames(game, 1)
    assert not game.panels.inspector.is_open and lst.is_open
    press(pygame.K_ESCAPE)  # ... then the list ...
    frames(game, 1)
    assert not lst.is_open and game.panels.follower.target == name
    press(pygame.K_ESCAPE)  # ... then the camera lets go
    frames(game, 1)
    assert game.panels.follower.target is None and game.running and not game.panels.quit_dialog.is_open


def test_the_hud_button_opens_it_and_the_filter_narrows_it(windows):
    game, session = windows(agents=6)
    frames(game, 1)
    click_element(game, game.panels.residents_list.hud_button)
    lst = game.panels.residents_list
    assert lst.is_open
    name = sorted(session.minds)[-1]
    click_element(game, lst.filter_entry)  # typing in the filter line ...
    assert not game.controls.enabled  # ... is typing, not walking
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text=name.split()[1]))
    frames(game, 3)
    assert name in lst.order and len(lst.order) < len(session.minds)
    lst.filter_entry.set_text("")
    frames(game, 3)
    assert len(lst.order) == len(session.minds)
    click_element(game, game.panels.residents_list.hud_button)
    assert not lst.is_open


def test_markers_for_thinking_and_provenance(windows):
    from dataclasses import replace

    game, session = windows(agents=2)
    session.pace = "clock"  # pace = clock primes the awake on routines too (minds: they wait, and the clock)
    session.prime_routines()
    press(pygame.K_r)
    frames(game, 3)
    lst = game.panels.residents_list
    name = lst.order[0]
    # primed residents follow a routine until their mind decides: the row says so
    body = session.sim.bodies[name]
    assert body.action.source.startswith("routine:")
    state = lst.row_state(name)
    assert state[5] == "routine"
    assert state[4] == session.sim.thinking(name)  # "thinking…" while the mind works
    image = lst.render_row(name, state, 360)
    assert image.get_size() == (360, 46)
    # the model's own action: no marker; a rule's (an unusable answer): "rule"; asleep: none
    body.action = replace(body.action, source="model")
    assert lst.row_state(name)[5] == ""
    body.action = replace(body.action, source="rule: invalid answer: not an activity")
    assert lst.row_state(name)[5] == "rule"
    body.action = replace(body.action, description="sleeping", source="rule: asleep")
    assert lst.row_state(name)[5] == ""


def test_a_name_in_the_inspector_is_a_link_that_follows(windows):
    import pygame_gui

    from game.view.follow import LINK_PREFIX, link_names

    html = "<b>Maria Lopez</b> - met Klaus Mueller at <a href='x'>Maria Lopez</a>"
    out = link_names(html, ["Maria Lopez", "Klaus Mueller"])
    assert out.count(f"href='{LINK_PREFIX}Maria Lopez'") == 1  # the existing link is left alone
    assert f"<a href='{LINK_PREFIX}Klaus Mueller'>Klaus Mueller</a>" in out

    game, session = windows(agents=3)
    a, b = sorted(session.minds)[:2]
    game.panels.inspector.select(a)
    frames(game, 2)
    # a click on a link in any text box arrives as UI_TEXT_BOX_LINK_CLICKED
    pygame.event.post(pygame.event.Event(pygame_gui.UI_TEXT_BOX_LINK_CLICKED, link_target=f"{LINK_PREFIX}{b}",
                                         ui_element=game.panels.inspector.box))
    frames(game, 1)
    assert game.panels.follower.target == b
    click_element(game, game.panels.inspector.follow_button)
    assert game.panels.follower.target == a


def test_clicking_the_resident_you_play_opens_their_panel(windows):
    game, session = windows(agents=2)
    name = sorted(session.minds)[0]
    from game.view.console import play_as

    play_as(game, name)
    assert until(game, lambda: on_screen(game, name), limit=120)  # the camera glides to them
    rect = next(r for f, r in game.drawn if f.name == name)
    click(rect.center)
    frames(game, 1)
    assert game.panels.inspector.is_open and game.panels.inspector.selected == name
