"""Bad input wherever a player can type: the chat, the console, the name box,
save names, the interview's persona, the inspector's inner voice and object
state. Each box gets the same nasty strings; nothing crashes, nothing typed
renders as pygame_gui markup, and the game still saves and loads whole
afterwards (nothing stored that breaks a later save)."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pygame
import pytest
from test_chat import near
from test_play import MAP as PLAY_MAP
from test_play import frames, make_session

from game.saves.saveload import capture
from game.saves.store import load_state, save_state, state_diff

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
    game.panels.savemenu.autosave_min = 0
    return game


@pytest.fixture
def game(display, tmp_path):
    s = make_session(agents=2)
    g = make_game(s, display)
    g.panels.savemenu.folder = tmp_path / "menu-saves"
    yield s, g, display
    s.close()


def round_trips(s, tmp_path: Path) -> None:
    """The game saves and loads back whole with whatever was typed in it."""
    s.pool.wait(5)
    parts, meta = capture(s)
    path = tmp_path / "after-fuzz.sqlite"
    save_state(path, parts, meta)
    loaded, _ = load_state(path, expect_map=s.town)
    from game.saves.saveload import materialize

    assert state_diff(materialize(loaded), materialize(parts)) is None


def no_markup(html: str) -> None:
    for m in MARKUP:
        assert m not in html, html[:300]


def test_the_console_takes_anything(game, tmp_path):
    s, g, display = game
    for text in NASTY:
        msg = g.panels.console.execute(text)
        assert isinstance(msg, str) and msg.strip()
        g.panels.console._shown_left = 5.0
        g.draw(display)  # its output box renders it
    round_trips(s, tmp_path)


def test_the_chat_takes_anything(game, tmp_path):
    s, g, display = game
    name = next(iter(s.minds))
    near(g, s, name)
    frames(g, 1, display)
    assert g.panels.chat.open(name)
    for text in NASTY:
        g.panels.chat.send(text)
        frames(g, 3, display, wait=0.5)
    frames(g, 20, display, wait=0.5)
    said = [t for who, t in g.panels.chat.lines if who == g.panels.chat.visitor_name()]
    assert said, "nothing was said"
    assert all(len(t) <= 300 for t in said)  # the box's limit holds for any text that arrives
    html = "".join(g.panels.chat.line_html(who, t) for who, t in g.panels.chat.lines)
    no_markup(html)
    g.panels.chat.close()
    round_trips(s, tmp_path)


def test_the_name_box_takes_anything(game, tmp_path):
    s, g, display = game
    for text in NASTY:
        g.ask_visitor_name("Alex")
        ok = g.panels.namebox.submit(text)
        if not ok:
            g.panels.namebox.close()
        g.draw(display)
        assert s.visitor_name.strip() and len(s.visitor_name) <= 24
        assert not any(unicodedata.category(c) in ("Cc", "Cs") for c in s.visitor_name), repr(s.visitor_name)
    round_trips(s, tmp_path)


def test_save_names_take_anything(game, tmp_path):
    _s, g, display = game
    g.panels.savemenu.folder = tmp_path / "saves"
    futures = []
    for text in [*NASTY, "../../escaped.sqlite", "/tmp/escaped.sqlite", "a/b", "con", "..", "ok name"]:
        fut = g.panels.savemenu.save(text)  # a bad name is a message, never an exception
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
    g.panels.inspector.select(name)
    for text in NASTY:
        g.panels.inspector.inner_voice(text)
        g.panels.inspector.refresh(force=True)
        g.draw(display)
    g.panels.inspector.select_object("the Ville:Hobbs Cafe:cafe:cafe customer seating")
    for text in NASTY:
        g.panels.inspector.set_state(text)
        g.draw(display)
    round_trips(s, tmp_path)


def test_the_interview_persona_takes_anything(game, tmp_path):
    s, g, display = game
    name = next(iter(s.minds))
    assert g.panels.interview.open(name)
    for text in NASTY:
        g.panels.interview.set_persona(text)
        g.panels.interview.send("What are you doing today?")
        frames(g, 3, display, wait=0.5)
    g.panels.interview.close()
    round_trips(s, tmp_path)


def _type_and_enter(g, text: str) -> None:
    """``text`` as a keyboard and an input method deliver it (a TEXTINPUT per word
    and per space or line break), then Enter; the events pygame_gui posts in answer
    go through the game's own handler."""
    for piece in re.split(r"(\s)", text):
        if piece:
            g.handle_event(pygame.event.Event(pygame.TEXTINPUT, text=piece))
    g.update(1 / 60)
    pygame.event.clear()
    for kind in (pygame.KEYDOWN, pygame.KEYUP):
        g.handle_event(pygame.event.Event(kind, key=pygame.K_RETURN, mod=0, unicode="\r", scancode=40))
    for event in pygame.event.get():
        g.handle_event(event)


def test_typed_console_commands_run_and_answer_clearly(game):
    """The console opened with its key, each nasty string typed as keys and run with
    Enter: the command that runs is what was typed (cleaned), it answers with a plain
    message, and the world changes only through a command that says so."""
    from game.view.console import HELP
    from game.view.markup import typed

    s, g, display = game
    states = dict(s.town.object_states)
    ran = 0
    for text in NASTY:
        key_event = dict(key=pygame.K_BACKQUOTE, mod=0, unicode="`", scancode=53)
        g.handle_event(pygame.event.Event(pygame.KEYDOWN, **key_event))
        assert g.panels.console.is_open and g.controls.enabled is False
        before = len(g.panels.console.history)
        _type_and_enter(g, text[:200])
        assert not g.panels.console.is_open and g.controls.enabled
        if not typed(text[:200], 300).strip():
            assert len(g.panels.console.history) == before  # nothing typed: nothing runs
            continue
        ran += 1
        assert g.panels.console.history[-1].strip() == typed(text[:200], 300).strip()
        msg = g.panels.console.last
        assert msg.strip() and "\x00" not in msg
        assert msg == HELP or msg.startswith(("I don't understand", "No object at", "No resident", "Say what state",
                                              "Type a command")), msg[:200]
        g.draw(display)
    assert ran >= len(NASTY) - 3
    assert s.town.object_states == states  # none of it was a command that changes the world


@pytest.mark.parametrize("first", ["\u202e", "\u200b", "\ufeff", "\u00ad", "\u200d", "\ud800", "\x00"])
def test_an_invisible_first_key_in_an_empty_box_is_dropped_not_a_crash(game, first):
    """pygame_gui raised "Text has zero width" (or a UnicodeEncodeError) when such a
    character was the first in an empty box: typed or pasted, it ended the game."""
    _s, g, display = game
    g.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_BACKQUOTE, mod=0, unicode="`", scancode=53))
    _type_and_enter(g, first + "help")
    assert g.panels.console.last.startswith("Commands") or "help" in g.panels.console.history[-1]
    g.draw(display)


@pytest.mark.parametrize("args, said", [
    (["replay", "'; DROP TABLE state; --"], "no such run folder"),
    (["sim", "--hours", "1", "--start", "\u202eevil\u202c <b>x</b>"], "use the form \"2023-02-13 07:00\""),
    (["sim", "--hours", "0.1", "--residents", "<font color='#ff0000'>red</font>, %s {0}"], "Known residents:"),
    (["replay", "x" * 10_000], "not a path this system can open (File name too long)"),
    (["interview", "--load", "/nowhere", "--agent", "<b>Nobody</b>", "--question", "\u202e" + "y" * 5000],
     "/nowhere"),
])
def test_the_smallville_command_answers_garbage_with_one_clear_line_and_exit_code_2(tmp_path, monkeypatch, capsys,
                                                                                      args, said):
    from smallville.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path / "home"))
    code = main([*args, "--out", str(tmp_path / "out")] if args[0] == "sim" else args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("smallville: ") and said in err and "Traceback" not in err and "unexpected" not in err
    assert not (tmp_path / "out").exists()


def test_the_installed_console_script_path_exits_2_on_garbage(tmp_path):
    """The same through a real process (``python -m smallville``, what the console script runs)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(REPO), "SMALLVILLE_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "smallville", "sim", "--hours", "many", "--agents", "\u202e<b>"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "smallville sim: error: argument --hours: invalid float value: 'many'" in done.stderr
    assert "Traceback" not in done.stderr


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
