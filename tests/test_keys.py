"""The key table (game/view/keys.py): what each key does where, the rows players read (the
F1 help, README.md's controls tables) and that nothing else in the views names a key."""
from __future__ import annotations

import os
import re
from pathlib import Path

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from game.view import keys

ROOT = Path(__file__).resolve().parents[1]


def down(key: int = 0, mod: int = 0, unicode: str = "") -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode=unicode, scancode=0)


def readme_table(section: str) -> str:
    """The controls table under a README heading, as written."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(section)
    first = next(i for i in range(start, len(lines)) if lines[i] == "| key / mouse | does |")
    end = first
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "\n".join(lines[first:end]) + "\n"


def test_the_readme_tables_are_the_ones_the_table_prints(capsys):
    assert keys.main([]) == 0
    game = capsys.readouterr().out
    assert keys.main(["replay"]) == 0
    replay = capsys.readouterr().out
    assert readme_table("## Controls") == game == keys.markdown(keys.GAME)
    assert readme_table("## Watching a run") == replay == keys.markdown(keys.REPLAY)
    assert keys.main(["nonsense"]) == 2


def test_every_key_of_the_town_and_of_a_replay_has_a_row_and_every_row_a_binding():
    bound = {(b.context, b.action) for b in keys.BINDINGS}
    for context, rows in (("town", keys.GAME), ("replay", keys.REPLAY)):
        listed = {a for r in rows for a in r.actions}
        missing = {a for c, a in bound if c == context} - listed
        assert missing == set(), f"keys bound in the {context} that no row lists: {missing}"
        unknown = {a for a in listed if ("town", a) not in bound and ("replay", a) not in bound}
        assert unknown == set()


def _names(action: str) -> list[str]:
    return [pygame.key.name(k.code) if k.code is not None else k.char
            for b in keys.BINDINGS if b.action == action for k in b.keys]


def _names_a_key(label: str, names: list[str]) -> bool:
    words = re.findall(r"[A-Za-z0-9]+|[^\sA-Za-z0-9]", label)
    return any(w.lower() == n or (w.isupper() and len(n) == 1 and n.upper() in w) for w in words for n in names)


def test_each_row_names_a_key_of_each_of_its_actions():
    """The words a row shows (in the help and in the README) cannot drift from the keys it speaks of."""
    wrong = []
    for r in (*keys.GAME, *keys.REPLAY):
        for action in r.actions:
            for label in {r.keys, r.readme_keys or r.keys}:
                if not _names_a_key(label, _names(action)):
                    wrong.append(f"{label!r} names none of {action}'s keys {_names(action)}")
    assert wrong == []


def test_no_two_actions_share_a_key_and_modifiers_in_one_context():
    seen: dict[tuple, str] = {}
    clashes = []
    for b in keys.BINDINGS:
        for k in b.keys:
            where = (b.context, k.code, k.char, k.mods)
            if seen.get(where, b.action) != b.action:
                clashes.append(f"{where}: {seen[where]} and {b.action}")
            seen[where] = b.action
    assert clashes == []


def test_the_key_needing_the_most_modifiers_wins():
    assert keys.hit(down(pygame.K_m)) == ("map", None)
    assert keys.hit(down(pygame.K_m, pygame.KMOD_LSHIFT)) == ("minimap", None)
    assert keys.hit(down(pygame.K_m, pygame.KMOD_LCTRL)) == ("map", None)  # other modifiers may be held
    assert keys.hit(down(pygame.K_s, pygame.KMOD_RCTRL)) == ("save_menu", None)
    assert keys.hit(down(pygame.K_s)) == ("walk", "down")
    assert keys.hit(down(pygame.K_s), "quit") == ("save_and_quit", None)  # the quit question's S
    assert keys.hit(down(pygame.K_PERIOD, pygame.KMOD_LSHIFT), "replay") == ("step_minute", 1)
    assert keys.hit(down(pygame.K_LESS), "replay") == ("step", -1)
    assert keys.hit(down(pygame.K_KP3)) == ("speed", 3)
    assert keys.hit(down(pygame.K_x)) is None
    assert keys.hit(pygame.event.Event(pygame.KEYUP, key=pygame.K_m, mod=0)) is None  # presses only


def test_a_key_bound_by_its_character_is_a_letter_while_a_text_box_has_the_keys():
    question = down(pygame.K_SLASH, pygame.KMOD_LSHIFT, "?")
    assert keys.pressed(question, "help")
    assert not keys.pressed(question, "help", typing=True)
    assert keys.pressed(down(pygame.K_F1), "help", typing=True)
    assert keys.pressed(down(0, 0, "`"), "console")  # a layout whose backquote key has another code


def test_walking_hears_each_direction_key_released_too():
    dirs = keys.values("walk")
    assert dirs[pygame.K_w] == dirs[pygame.K_UP] == "up"
    assert dirs[pygame.K_d] == dirs[pygame.K_RIGHT] == "right"
    assert len(dirs) == 8


def test_the_help_lines_are_the_rows_for_the_help():
    lines = keys.help_lines(keys.GAME)
    assert lines[0] == ("W A S D / arrows", "walk")
    assert ("F5 / F9", "quick save / quick load") in lines and lines[-1][0] == "Escape"
    assert ("1-5", "speed: 1, 5, 15, 30 or 60 sim minutes per real second") in lines
    assert not any(k == "mouse over a tile" for k, _ in lines)  # a row for the README only


def test_nothing_in_the_views_compares_key_codes_itself():
    """Bound keys live in the table; the views ask it (pygame_gui's text boxes keep their own)."""
    found = []
    for folder in ("game/view", "game/replay"):
        for path in sorted((ROOT / folder).glob("*.py")):
            if path.name == "keys.py":
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"pygame\.K_\w", line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == []
