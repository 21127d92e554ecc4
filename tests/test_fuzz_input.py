"""Bad input wherever a player can type: the chat, the console, the name box,
save names, the interview's persona, the inspector's inner voice and object
state. Each box gets the same nasty strings; nothing crashes, nothing typed
renders as pygame_gui markup, and the game still saves and loads whole
afterwards (nothing stored that breaks a later save)."""
from __future__ import annotations

import unicodedata
from pathlib import Path

import pygame
import pytest
from test_chat import near
from test_play import MAP as PLAY_MAP
from test_play import frames, make_session

from game.savegame import capture
from game.saves import load_state, save_state, state_diff

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"

NASTY = [
    "",
    "   \t  ",
    "x" * 10_000,
    "word " * 2_000,
    "\x00\x01\x07\x08\x1b[31mred\x1b[0m\x7f",
    "line one\nline two\r\nthree\u2028four",
    "\u202eevil\u202c \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627",  # RTL override, Hebrew, Arabic
    "\U0001F600\U0001F469\u200d\U0001F469\u200d\U0001F467 \U0001F3F3\ufe0f\u200d\U0001F308",  # emoji, ZWJ sequences
    "<font color='#ff0000'>red</font>",
    "<b>bold</b><i>italic<br><a href='x'>link</a>",
    "&lt;b&gt; &amp; &#60;",
    'the Ville:Hobbs Cafe:"counter":\'x\'',
    "set the Ville:Hobbs Cafe:cafe:counter \"on <b>fire</b>\"",
    "play \"Isabella Rodriguez\"",
    "'; DROP TABLE state; --",
    "%s %d {0} {} $HOME ../../etc/passwd",
    "\ud800 lone surrogate \udfff",
    "\ufeff\u200b\u00ad",
]
MARKUP = ("<font color='#ff0000'>", "<b>bold</b>", "<a href='x'>")

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")


def make_game(session, screen):
    """test_play's game, with every panel (the chat, console, save menu, ...)."""
    from game.app import Game
    from game.view.tilemap import TileMapRenderer

    game = Game(session.town, TileMapRenderer.from_file(PLAY_MAP), size=screen.get_size())
    game.attach_session(session)
    game.savemenu.autosave_min = 0
    return game


@pytest.fixture
def game(display, tmp_path):
    s = make_session(agents=2)
    g = make_game(s, display)
    g.savemenu.folder = tmp_path / "menu-saves"
    yield s, g, display
    s.close()


def round_trips(s, tmp_path: Path) -> None:
    """The game saves and loads back whole with whatever was typed in it."""
    s.pool.wait(5)
    parts, meta = capture(s)
    path = tmp_path / "after-fuzz.sqlite"
    save_state(path, parts, meta)
    loaded, _ = load_state(path, expect_map=s.town)
    from game.savegame import materialize

    assert state_diff(materialize(loaded), materialize(parts)) is None


def no_markup(html: str) -> None:
    for m in MARKUP:
        assert m not in html, html[:300]


def test_the_console_takes_anything(game, tmp_path):
    s, g, display = game
    for text in NASTY:
        msg = g.console.execute(text)
        assert isinstance(msg, str) and msg.strip()
        g.console._shown_left = 5.0
        g.draw(display)  # its output box renders it
    round_trips(s, tmp_path)


def test_the_chat_takes_anything(game, tmp_path):
    s, g, display = game
    name = next(iter(s.minds))
    near(g, s, name)
    frames(g, 1, display)
    assert g.chat.open(name)
    for text in NASTY:
        g.chat.send(text)
        frames(g, 3, display, wait=0.5)
    frames(g, 20, display, wait=0.5)
    said = [t for who, t in g.chat.lines if who == g.chat.visitor_name()]
    assert said, "nothing was said"
    assert all(len(t) <= 300 for t in said)  # the box's limit holds for any text that arrives
    html = "".join(g.chat.line_html(who, t) for who, t in g.chat.lines)
    no_markup(html)
    g.chat.close()
    round_trips(s, tmp_path)


def test_the_name_box_takes_anything(game, tmp_path):
    s, g, display = game
    for text in NASTY:
        g.ask_visitor_name("Alex")
        ok = g.namebox.submit(text)
        if not ok:
            g.namebox.close()
        g.draw(display)
        assert s.visitor_name.strip() and len(s.visitor_name) <= 24
        assert not any(unicodedata.category(c) in ("Cc", "Cs") for c in s.visitor_name), repr(s.visitor_name)
    round_trips(s, tmp_path)


def test_save_names_take_anything(game, tmp_path):
    s, g, display = game
    g.savemenu.folder = tmp_path / "saves"
    futures = []
    for text in [*NASTY, "../../escaped.sqlite", "/tmp/escaped.sqlite", "a/b", "con", "..", "ok name"]:
        fut = g.savemenu.save(text)  # a bad name is a message, never an exception
        if fut is not None:
            futures.append(fut)
        g.draw(display)
    for fut in futures:
        fut.result(timeout=60)
    saved = list((tmp_path / "saves").glob("*.sqlite")) if (tmp_path / "saves").exists() else []
    assert [p.name for p in saved] == ["ok name.sqlite"]  # nothing escaped the folder
    assert not (tmp_path / "escaped.sqlite").exists() and not Path("/tmp/escaped.sqlite").exists()


def test_the_inner_voice_and_object_state_take_anything(game, tmp_path):
    s, g, display = game
    name = next(iter(s.minds))
    g.inspector.select(name)
    for text in NASTY:
        g.inspector.inner_voice(text)
        g.inspector.refresh(force=True)
        g.draw(display)
    g.inspector.select_object("the Ville:Hobbs Cafe:cafe:cafe customer seating")
    for text in NASTY:
        g.inspector.set_state(text)
        g.draw(display)
    round_trips(s, tmp_path)


def test_the_interview_persona_takes_anything(game, tmp_path):
    s, g, display = game
    name = next(iter(s.minds))
    assert g.interview.open(name)
    for text in NASTY:
        g.interview.set_persona(text)
        g.interview.send("What are you doing today?")
        frames(g, 3, display, wait=0.5)
    g.interview.close()
    round_trips(s, tmp_path)


def test_typed_keys_reach_the_boxes_without_crashing(game):
    """The same strings as key events (TEXTINPUT), the way a keyboard or a paste delivers them."""
    s, g, display = game
    g.console.open() if hasattr(g.console, "open") else None
    for text in NASTY:
        for ch in text[:200]:
            g.handle_event(pygame.event.Event(pygame.TEXTINPUT, text=ch))
        g.update(1 / 60)
        g.draw(display)


def test_typed_keeps_words_scripts_and_emoji_and_drops_the_rest():
    from game.view.markup import esc, typed

    assert typed("  hello \n\t world  ", 50) == "hello world"
    assert typed("\x00a\x07b\x1bc\x7fd", 50) == "abcd"
    assert typed("\u202eevil\u202c", 50) == "evil"  # no right-to-left override
    assert typed("\u05e9\u05dc\u05d5\u05dd", 50) == "\u05e9\u05dc\u05d5\u05dd"  # Hebrew stays
    family = "\U0001F469\u200d\U0001F469\u200d\U0001F467"
    assert typed(family, 50) == family  # the joiner of an emoji sequence stays
    assert typed("a\ud800b", 50) == "ab" and typed("a\ud800b", 50).encode("utf-8")
    assert typed("x" * 500, 300) == "x" * 300 and typed(None, 5) == ""
    assert typed("<b>hi</b>", 50) == "<b>hi</b>" and esc("<b>hi</b>") == "&lt;b&gt;hi&lt;/b&gt;"


def test_text_with_a_nul_draws(display):
    from game.view import fonts

    assert fonts.text("a\x00b", 14).get_width() > 0
