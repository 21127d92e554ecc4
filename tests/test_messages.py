"""Messages do not collide (issue 12): toasts, notes, the console's output, the HUD, bubbles.

Headless through the real game loop (tests/driving.py), the Ville, scripted minds.
"""
from __future__ import annotations

import pytest

pygame = pytest.importorskip("pygame")
pytest.importorskip("pygame_gui")

from driving import MAP, frames, press

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")


def _overlaps(rects):
    return [(a, b) for i, a in enumerate(rects) for b in rects[i + 1:] if a.colliderect(b)]


def test_toasts_and_notes_stack_between_the_hud_and_the_buttons(windows):
    game, session = windows(agents=2)
    frames(game, 2)
    name = sorted(session.minds)[0]
    game.follow_resident(name)  # a note that lasts
    long = "This is a very long message about something that happened in town " * 4
    for i in range(3):
        game.toast(f"{i}: {long}")
    frames(game, 2)
    hud = game.panels.hud
    boxes = [r for _, r in hud.placed]
    assert len(boxes) == 4  # the note and three toasts
    assert not _overlaps(boxes)  # never on top of each other
    buttons_left = hud.buttons_left()
    for r in boxes:
        assert not r.colliderect(hud.box)  # nor on the clock
        assert r.right <= buttons_left and r.left >= hud.box.right  # nor on the buttons
        assert r.height <= 3 * 22 + 10  # long ones wrap (three lines at most)


def test_the_console_help_wraps_inside_its_own_box(windows):
    game, _session = windows(agents=2)
    frames(game, 2)
    press(pygame.K_BACKQUOTE, unicode="`")
    frames(game, 2)
    con = game.panels.console
    assert con.is_open
    msg = con.execute("help")
    frames(game, 1)
    line = con._line_rect()
    out = con.output_rect
    assert out is not None and out.width <= line.width and out.bottom <= line.top  # above its line, as wide
    from game.view import fonts
    from game.view.console import OUTPUT_PX

    assert fonts.font(OUTPUT_PX).size(msg)[0] > line.width  # the help is wider than the window's line ...
    assert out.height >= 2 * fonts.font(OUTPUT_PX).get_linesize()  # ... so it wraps onto more lines
    game.toast("saved slot quick")
    frames(game, 1)
    for _, r in game.panels.hud.placed:
        assert not r.colliderect(out)
    assert out in game.reserved_rects()  # bubbles keep clear of it


def test_bubbles_keep_clear_of_the_hud_and_the_toasts(windows):
    game, session = windows(residents="Sam Moore,Jennifer Moore")
    frames(game, 2)
    game.toast("A toast that sits at the top of the window for a while")
    frames(game, 1)
    game.panels.bubbles.say(1, "Sam Moore", "word " * 40)
    # put the speaker at the very top of the window, where the HUD and the toasts are
    b = session.sim.bodies["Sam Moore"]
    game.follow = False
    game.camera.look_at(*game.camera.tile_center_world(b.tile[0], b.tile[1] + 8))
    session.paused = True
    frames(game, 1)
    head = next(r for f, r in game.drawn if f.name == "Sam Moore")
    assert head.top < 100  # the speaker stands right under the HUD and the toasts
    placed = dict(game.panels.bubbles.placed)
    r = placed["Sam Moore"]
    for taken in game.reserved_rects():
        assert not r.colliderect(taken)
