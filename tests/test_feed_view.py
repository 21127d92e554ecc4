"""The town feed in the window (issue 34): the panel (F) and the HUD's line, a click that
follows and a double-click that asks Why?, the filter, the feed saved with the game (and an
older save without one), and the replay's feed.

Headless through the real game loop (tests/driving.py): the Ville, scripted minds, real
pygame events. The town is paused and the events are logged by the test (the simulation's own
``log_event``), so what the feed shows is known.
"""
from __future__ import annotations

import time

import pytest

pygame = pytest.importorskip("pygame")
pygame_gui = pytest.importorskip("pygame_gui")

from driving import MAP, click, click_element, frames, press
from savetools import edit_part

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")

PARTY = "I'm hosting a Valentine's Day party at Hobbs Cafe tomorrow at 5 pm!"


@pytest.fixture
def paused_windows(windows):
    """Windows as tests/conftest.py's ``windows`` makes them, on a paused town, one frame in."""

    def build(**kw):
        game, session = windows(**kw)
        session.paused = True  # only the test's events: the feed's lines are known
        frames(game, 1)
        return game, session

    return build


def settle(game, n: int = 2) -> None:
    """Frames (the panel hands the new events over), the feed's thread done, frames (the list)."""
    frames(game, 1)
    game.session.feed.flush()
    frames(game, n)


def pick(game, row) -> None:
    """A real click on a row of the feed (a screen rectangle), and the frames that deliver it
    (pygame_gui hands a press on a frame after the click), then time for a double-click to lapse."""
    click(row.center)
    frames(game, 40)


def a_talk(session, a: str, b: str, cid: str, text: str) -> None:
    sim = session.sim
    here = sim.area(sim.bodies[a].tile)
    sim.log_event(a, "chat", f"starts a conversation with {b}", here, conversation=cid, partner=b)
    sim.log_event(a, "line", text, here, conversation=cid, partner=b)
    sim.log_event(a, "chat", f"ends the conversation with {b} (1 lines)", here, conversation=cid, partner=b,
                  ended=True)


def test_the_feed_shows_what_happened_a_click_follows_and_a_double_click_asks_why(paused_windows):
    game, session = paused_windows(agents=4)
    a, b, c, _d = sorted(session.minds)
    a_talk(session, a, b, "t1", PARTY)
    session.sim.log_event(c, "reflect", f"{c} likes the quiet mornings", "")
    settle(game)
    hud = game.panels.hud
    assert any("reflects" in text for text, _ in hud.compose())  # the newest entry is a line in the HUD
    press(pygame.K_f)
    frames(game, 2)
    panel = game.panels.feed
    assert panel.is_open
    lines = [e.line() for e in panel.shown]
    first_a, first_b = a.split()[0], b.split()[0]
    assert lines[0].endswith(f"{c.split()[0]} reflects: “{c} likes the quiet mornings”")
    assert lines[1].endswith(f"{first_a} told {first_b} about the Valentine's Day party at Hobbs Cafe")
    listed = panel.items  # as drawn, newest first, cut to the row's width
    assert len(listed) == 2
    assert all(x == line or (x.endswith("…") and line.startswith(x[:-1].rstrip())) for x, line in zip(listed, lines))
    assert "double-click" in panel.detail.html_text  # nothing selected: how to use it
    # a real click on the news row: the camera follows the teller
    row = panel.row_rect(1)
    click(row.center)
    frames(game, 2)
    assert game.panels.follower.target == a and panel.selected is panel.shown[1]
    assert f"{first_a} told {first_b}" in panel.detail.html_text and "party at Hobbs Cafe" in panel.detail.html_text
    # the second click within the double-click time: the Why? panel on the line that carried the news
    click(row.center)
    frames(game, 2)
    why = game.panels.why_panel
    assert why.is_open and why.want[:2] == (a, "line") and why.want[3] == PARTY
    assert why.spread_entry.get_text() == "party"  # news: who told whom, as `why --spread` says it
    for _ in range(100):
        if why._spread is not None:
            break
        frames(game, 1)
        time.sleep(0.01)
    assert f"{a}: said it first" in why._spread and f"{b}: heard it from {a}" in why._spread
    press(pygame.K_ESCAPE)  # Why? closes first ...
    frames(game, 1)
    assert not why.is_open and panel.is_open
    # the Why? button on the reflection
    pick(game, panel.row_rect(0))
    click_element(game, panel.why_button)
    assert why.is_open and why.want[:2] == (c, "reflection")
    why.close()
    press(pygame.K_ESCAPE)  # ... then the feed
    frames(game, 1)
    assert not panel.is_open and game.running


def test_the_filter_shows_one_resident_or_one_topic(paused_windows):
    game, session = paused_windows(agents=4)
    a, b, c, d = sorted(session.minds)
    a_talk(session, a, b, "t1", "Hello there")
    a_talk(session, c, d, "t2", "Lovely day")
    session.sim.log_event(c, "reflect", "a thought", "")
    session.sim.events.append({"kind": "line", "resident": a})  # garbage in the log: no time, no text
    session.sim.events.append("not even an event")
    settle(game)
    click_element(game, game.panels.feed.hud_button)  # the HUD's button opens it too
    panel = game.panels.feed
    assert panel.is_open and len(panel.shown) == 3
    assert panel.status.text == "3 entries · 2 unreadable events skipped"  # counted and said, not a crash
    click_element(game, panel.filter)  # typing a first name in the filter line
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text=c.split()[0]))
    frames(game, 3)
    assert panel.query == c.split()[0] and len(panel.shown) == 2 and all(c in e.who for e in panel.shown)
    assert not game.controls.enabled  # typing, not walking
    pygame.event.post(pygame.event.Event(pygame_gui.UI_DROP_DOWN_MENU_CHANGED, ui_element=panel.topics,
                                         text="reflections"))
    frames(game, 2)
    assert [e.kind for e in panel.shown] == ["reflection"]
    panel.set_filter("nobody at all", "")
    assert panel.shown == [] and panel.items == ["(nothing matches)"]
    panel.set_filter("", "talk")
    assert {e.who for e in panel.shown} == {(a, b), (c, d)}
    click_element(game, panel.why_button)  # nothing selected: it says so
    assert not game.panels.why_panel.is_open
    assert any("Select an entry" in t for t, _ in game.panels.hud.toasts)


def test_a_gathering_click_looks_at_the_place_and_the_residents_list_takes_its_place(paused_windows):
    game, session = paused_windows(agents=4)
    sim = session.sim
    park = next(a for a in sim.town.addresses() if a.count(":") == 2 and "Johnson Park" in a)
    for name in sorted(session.minds)[:3]:
        sim.log_event(name, "arrive", f"arrives at {park}", park)
    settle(game)
    press(pygame.K_f)
    frames(game, 2)
    panel = game.panels.feed
    assert [e.kind for e in panel.shown] == ["gathering"]
    pick(game, panel.row_rect(0))
    assert game.panels.follower.target is None and not game.follow  # the camera went to the place
    press(pygame.K_r)  # the residents list opens in the feed's place
    frames(game, 2)
    assert game.panels.residents_list.is_open and not panel.is_open


def test_the_feed_is_saved_with_the_game_and_older_or_damaged_saves_rebuild_it(paused_windows, tmp_path, caplog):
    from game.saves.saveload import capture, load_into
    from game.saves.store import save_state

    game, session = paused_windows(agents=3)
    a, b, c = sorted(session.minds)
    a_talk(session, a, b, "t1", PARTY)
    settle(game)
    session.sim.log_event(c, "reflect", "a late thought", "")  # logged, not yet read by the feed
    parts, meta = capture(session)
    assert [e["kind"] for e in parts["feed"]["entries"]] == ["news"]
    save_state(tmp_path / "with.sqlite", parts, meta)
    old = {k: v for k, v in parts.items() if k != "feed"}  # a save from before the feed
    save_state(tmp_path / "old.sqlite", old, meta)
    save_state(tmp_path / "damaged.sqlite", parts, meta)
    edit_part(tmp_path / "damaged.sqlite", "feed", lambda _: {"entries": "not a list"})

    game_b, other = paused_windows(agents=3)
    a_talk(other, b, c, "t9", "something else entirely")
    settle(game_b)
    caplog.set_level("INFO", logger="game.runs.live_feed")
    for name, how in (("with", "restored"), ("old", "rebuilt (the save has no feed)"),
                      ("damaged", "rebuilt (the saved feed was damaged: the saved feed is not a mapping")):
        caplog.clear()
        load_into(game_b, tmp_path / f"{name}.sqlite")
        assert f"town feed {how}" in caplog.text, (name, caplog.text)
        settle(game_b)
        got = [e.kind for e in other.feed.newest()]
        assert got == ["reflection", "news"], (name, got)  # nothing lost: the late thought is read on
        assert other.feed.newest()[1].text.endswith("about the Valentine's Day party at Hobbs Cafe")
    assert other.sim.now == session.sim.now


def test_the_replay_shows_the_feed_up_to_the_moment_shown(paused_windows, tmp_path, display):
    from game.replay.app import open_replay
    from game.replay.reader import read_recording

    game, session = paused_windows(agents=3)
    a, b, _c = sorted(session.minds)
    rec_path = session.record(tmp_path).path
    session.paused = False
    session.pace = "clock"
    session.set_speed(5)
    frames(game, 20)
    a_talk(session, a, b, "t1", PARTY)
    talked_at = session.sim.now
    frames(game, 20)
    session.recorder.close("closed")
    rec = read_recording(rec_path)
    replay, rs = open_replay(rec, session.town, MAP, personas={p.name: p for p in session.cast})
    feed = rs.feed
    for _ in range(200):  # built on its own thread
        if feed.ready:
            break
        frames(replay, 1)
        time.sleep(0.01)
    assert feed.ready and feed.error is None
    news = [e for e in feed.entries if e.kind == "news"]
    assert len(news) == 1 and news[0].who == (a, b) and news[0].topic == "the Valentine's Day party at Hobbs Cafe"
    rs.seek(rec.last)
    press(pygame.K_f)
    frames(replay, 3)
    panel = replay.panels.feed
    assert panel.is_open and any(e.kind == "news" for e in panel.shown)
    assert any("told" in t for t, _ in replay.panels.hud.compose())
    talk_frame = int((talked_at - rec.start) / rec.step)
    assert 0 < news[0].frame - talk_frame <= 12  # where the talk happened (the frame after the step it was logged)
    rs.seek(talk_frame - 6)
    frames(replay, 1)
    panel._fill()
    assert not any(e.kind == "news" for e in panel.shown)  # before the talk: not in the feed yet


def test_after_escape_closes_the_feed_while_its_filter_has_the_keys_the_town_hears_keys_again(paused_windows):
    """A bug seen in a real window: the filter line, hidden with the feed, kept pygame_gui's
    focus and took every key after (P did nothing; a player met a town deaf to its keys)."""
    game, session = paused_windows(agents=2)
    session.paused = False
    press(pygame.K_f, unicode="f")
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="f"))  # a real key types too
    frames(game, 2)
    panel = game.panels.feed
    assert panel.is_open
    click(panel.filter.rect.center)  # the filter line takes the keys
    frames(game, 2)
    assert panel.filter.is_focused
    press(pygame.K_ESCAPE)
    frames(game, 1)
    assert not panel.is_open
    pace = session.pace
    press(pygame.K_p, unicode="p")
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="p"))
    frames(game, 1)
    assert session.pace != pace  # the town's key reached the town, not the hidden filter
    assert panel.filter.get_text() == ""
    press(pygame.K_ESCAPE)  # nothing open: the quit question
    frames(game, 1)
    quit_dialog = game.panels.quit_dialog
    assert quit_dialog.is_open
    press(pygame.K_q, unicode="q")
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="q"))
    frames(game, 1)
    assert not game.running  # Q: quit without saving
