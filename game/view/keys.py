"""Every key the game handles, in one table, and what players read about them.

``BINDINGS``: each is a context (who listens: ``town``, the walking world with its HUD and
panels; ``quit``, the quit question; ``name``, the start-up name box; ``replay``, a replay's
timeline bar and events list), an action's name, and its keys: a pygame key code (or the
character a key types: ``?``, a backquote), the modifiers that must be held (others may
be), and a value the handler reads (a direction, a speed). Handlers ask the table and
never compare key codes themselves: ``hit(event, context)`` is the action (and value) a
KEYDOWN presses there, the key needing the most modifiers winning (Shift+M is the
minimap, M the map); ``pressed(event, action)`` asks for one action. Text boxes keep their
own editing keys (pygame_gui's).

What players read: ``GAME`` and ``REPLAY`` are the rows of the controls help (F1,
game/view/help.py) in a game and in a replay, and README.md's controls tables are the same
rows, printed by ``python -m game.view.keys`` (``... keys replay``; tests/test_keys.py
checks the README holds them as printed, and that every key bound in the town or a replay
has a row naming it). A row says in the help what the window has room for, and in the
README, where it says more, its ``readme`` words (a few rows are for the README only:
mouse and button controls the help leaves out).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import NamedTuple

import pygame

from game.runs.session import SPEEDS

SHIFT, CTRL = pygame.KMOD_SHIFT, pygame.KMOD_CTRL
MODIFIERS = (pygame.KMOD_SHIFT, pygame.KMOD_CTRL, pygame.KMOD_ALT, pygame.KMOD_META)


@dataclass(frozen=True)
class Key:
    code: int | None = None  # a pygame key code ...
    char: str = ""  # ... or the character typed (whichever key types it; not while a text box has the keys)
    mods: int = 0  # modifiers that must be held (KMOD_SHIFT, KMOD_CTRL); others may be too
    value: str | int | None = None  # what this key means to its action (a direction, a speed, a step)

    def needs(self) -> int:
        """How many modifiers it needs (the key needing most wins)."""
        return sum(1 for m in MODIFIERS if self.mods & m)


@dataclass(frozen=True)
class Binding:
    context: str
    action: str
    keys: tuple[Key, ...]


def _k(*codes: int, mods: int = 0, value: str | int | None = None) -> tuple[Key, ...]:
    return tuple(Key(code, mods=mods, value=value) for code in codes)


BINDINGS: tuple[Binding, ...] = (
    # the town: walking, the camera, the HUD's time controls, the panels' keys
    Binding("town", "walk", (Key(pygame.K_w, value="up"), Key(pygame.K_UP, value="up"),
                             Key(pygame.K_s, value="down"), Key(pygame.K_DOWN, value="down"),
                             Key(pygame.K_a, value="left"), Key(pygame.K_LEFT, value="left"),
                             Key(pygame.K_d, value="right"), Key(pygame.K_RIGHT, value="right"))),
    Binding("town", "zoom", _k(pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS, value=1)
            + _k(pygame.K_MINUS, pygame.K_KP_MINUS, value=-1)),
    Binding("town", "pause", _k(pygame.K_SPACE)),
    Binding("town", "speed", _k(pygame.K_1, pygame.K_KP1, value=1) + _k(pygame.K_2, pygame.K_KP2, value=2)
            + _k(pygame.K_3, pygame.K_KP3, value=3) + _k(pygame.K_4, pygame.K_KP4, value=4)
            + _k(pygame.K_5, pygame.K_KP5, value=5)),
    Binding("town", "pace", _k(pygame.K_p)),
    Binding("town", "next_morning", _k(pygame.K_n)),
    Binding("town", "residents", _k(pygame.K_r)),
    Binding("town", "feed", _k(pygame.K_f)),
    Binding("town", "journal", _k(pygame.K_j)),
    Binding("town", "map", _k(pygame.K_m)),
    Binding("town", "minimap", _k(pygame.K_m, mods=SHIFT)),
    Binding("town", "talk", _k(pygame.K_t)),
    Binding("town", "console", (Key(pygame.K_BACKQUOTE), Key(char="`"))),
    Binding("town", "release", _k(pygame.K_F2)),
    Binding("town", "fps", _k(pygame.K_F3)),
    Binding("town", "quick_save", _k(pygame.K_F5)),
    Binding("town", "quick_load", _k(pygame.K_F9)),
    Binding("town", "save_menu", _k(pygame.K_F6) + _k(pygame.K_s, mods=CTRL)),
    Binding("town", "help", (Key(pygame.K_F1), Key(char="?"))),
    Binding("town", "back", _k(pygame.K_ESCAPE)),  # close what is open, else stop, else quit
    # the quit question and the name box take every key while they are open
    Binding("quit", "save_and_quit", _k(pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_s)),
    Binding("quit", "quit_now", _k(pygame.K_q)),
    Binding("quit", "cancel", _k(pygame.K_ESCAPE, pygame.K_c)),
    Binding("name", "accept", _k(pygame.K_RETURN, pygame.K_KP_ENTER)),
    Binding("name", "take_default", _k(pygame.K_ESCAPE)),
    # a replay (the town's keys count too: Space plays and pauses, R and M, ...)
    Binding("replay", "step", _k(pygame.K_COMMA, pygame.K_LESS, value=-1) + _k(pygame.K_PERIOD, pygame.K_GREATER,
                                                                                value=1)),
    Binding("replay", "step_minute", _k(pygame.K_COMMA, pygame.K_LESS, mods=SHIFT, value=-1)
            + _k(pygame.K_PERIOD, pygame.K_GREATER, mods=SHIFT, value=1)),
    Binding("replay", "moment", _k(pygame.K_LEFTBRACKET, value=-1) + _k(pygame.K_RIGHTBRACKET, value=1)),
    Binding("replay", "to_start", _k(pygame.K_HOME)),
    Binding("replay", "to_end", _k(pygame.K_END)),
    Binding("replay", "events", _k(pygame.K_e)),
)


class Pressed(NamedTuple):
    action: str
    value: str | int | None

    @property
    def number(self) -> int:
        """The value of a key that counts (a speed, a step, a zoom, a way): a number by its binding."""
        if not isinstance(self.value, int):
            raise TypeError(f"the key of {self.action!r} carries no number ({self.value!r})")
        return self.value


def _index() -> dict[str, dict[int | str, list[tuple[Key, str]]]]:
    """context -> key code or character -> (key, action) bound to it."""
    out: dict[str, dict[int | str, list[tuple[Key, str]]]] = {}
    for b in BINDINGS:
        for key in b.keys:
            where = key.code if key.code is not None else key.char
            out.setdefault(b.context, {}).setdefault(where, []).append((key, b.action))
    return out


_INDEX = _index()


def hit(event: pygame.event.Event, context: str = "town", *, typing: bool = False) -> Pressed | None:
    """The action (and its value) a KEYDOWN presses in ``context``, or None. ``typing``:
    a text box has the keys, so a key bound by the character it types presses nothing."""
    if event.type != pygame.KEYDOWN:
        return None
    index = _INDEX.get(context, {})
    # A pygame event has the fields of its type, and a test's or a replay's may lack some.
    mod = getattr(event, "mod", 0) or 0
    code = getattr(event, "key", None)
    found = list(index.get(code, ())) if isinstance(code, int) else []
    if not typing:
        found += index.get(getattr(event, "unicode", "") or "", ())
    best: tuple[Key, str] | None = None
    for key, action in found:
        if all(mod & m for m in MODIFIERS if key.mods & m) and (best is None or key.needs() > best[0].needs()):
            best = (key, action)
    return Pressed(best[1], best[0].value) if best is not None else None


def pressed(event: pygame.event.Event, action: str, context: str = "town", *, typing: bool = False) -> bool:
    """Whether a KEYDOWN presses ``action`` (in ``context``)."""
    got = hit(event, context, typing=typing)
    return got is not None and got.action == action


def values(action: str, context: str = "town") -> dict[int, str | int | None]:
    """Key code -> value for an action's keys, modifiers or not (walking hears key releases too)."""
    return {k.code: k.value for b in BINDINGS if b.context == context and b.action == action
            for k in b.keys if k.code is not None}


# ---- what players read ------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    keys: str  # the keys (or mouse, buttons) as the help writes them
    does: str  # what the help says it does
    actions: tuple[str, ...] = ()  # the bindings it speaks of (none: the mouse or a button)
    readme: str = ""  # the README's words, where it says more
    readme_keys: str = ""
    in_help: bool = True  # False: a row for the README only


def _speeds(last: str) -> str:
    m = [f"{v:g}" for v in SPEEDS.values()]
    return f"speed: {', '.join(m[:-1])} {last} {m[-1]} sim minutes per"


GAME: tuple[Row, ...] = (
    Row("W A S D / arrows", "walk", ("walk",), "walk (tap for one tile, hold to keep walking)",
        "W A S D or arrow keys"),
    Row("mouse wheel, + / -", "zoom", ("zoom",), "zoom in and out", "mouse wheel, `+` / `-`"),
    Row("mouse over a tile", "", (), "the status line shows its address (`the Ville > Hobbs Cafe > cafe > coffee "
        "machine`)", in_help=False),
    Row("Space", "pause / resume", ("pause",)),
    Row("1-5", f"{_speeds('or')} real second", ("speed",),
        f"{_speeds('or')} real second (a busy town runs slower rather than drop frames)", "1 2 3 4 5"),
    Row("P", "pace: the clock waits for the minds (default), or keeps the speed on routines", ("pace",),
        "pace: the clock waits for the minds (the default), or keeps the chosen speed with routines filling in "
        "(see Pacing below)"),
    Row("N  or  [Next morning]", "skip to the next 07:00 (Escape or Space cancels)", ("next_morning",),
        "skip to the next 07:00, with progress; Escape or Space cancels", 'N, or the "Next morning" button'),
    Row("click a resident", "inspect: action, plan, memories", (),
        "the inspector: their full action (`Isabella Rodriguez is brewing coffee for the morning rush @ Hobbs "
        "Cafe: cafe: coffee machine`), today's plan with the current item marked, recent memories with "
        "importance, reflections with what they cite, whom they know"),
    Row("R  or  [Residents]", "everyone: what they do, where; click follows, double-click inspects", ("residents",),
        "the residents list: everyone's emoji, what they are doing, where (`Hobbs Cafe › cafe`, or `→ ...` on the "
        "way), \"thinking…\" while their mind works, \"routine\" while they follow a routine instead of the model; "
        "a filter line; click a row to follow them with the camera (until you walk or press Escape), double-click "
        "to open the inspector too, right-click to walk there", 'R, or the "Residents (R)" button'),
    Row("F  or  [Feed]", "the town feed: who talked, news, plans, gatherings; click follows", ("feed",),
        "the town feed: what just happened worth noticing, newest first: who talked to whom and what news passed "
        "(\"Isabella told Maria about the Valentine's Day party at Hobbs Cafe\"), plans made in conversation or "
        "changed by what was heard or seen, reflections, gatherings, reactions to the console's edits (the newest "
        "is also a line in the HUD); filter by a resident or a word, and by topic; click an entry to follow who is "
        "in it, double-click (or Why?) for the reasons behind it", 'F, or the "Feed (F)" button'),
    Row("J", "your journal: invitations, what you agreed to and were told, when and where",
        ("journal",),
        "your journal: what residents invited you to, what you said yes to and what you were told of, each with "
        "its day, hours and place and who said it; coming up, then past. From an hour before one starts the HUD "
        "reminds you (\"Due at 5 pm: Valentine's Day party at Hobbs Cafe (Isabella)\"); say yes in the chat "
        "(\"Yes, I'll come!\") and the resident remembers you agreed"),
    Row("M  or  [Map]", "the town map: click looks there, a dot follows, right-click walks there", ("map",),
        "the town map: the whole town, sectors labelled, residents as coloured dots (name and activity on hover), "
        "you as a white dot, the camera's view framed; click a place to look there, click a dot to follow that "
        "resident, right-click or \"Walk there\" to walk there, \"Inspect\" for the selected resident, double-click "
        "to close the map and look; M or Escape closes it", 'M, or the "Map (M)" button'),
    Row("Shift+M", "minimap on / off", ("minimap",),
        "the minimap (bottom right) on or off: click looks there, right-click walks there"),
    Row("[Follow] / [Walk there] in a panel", "camera on them / walk up to them (a name in a panel follows too)", (),
        "the camera follows them / you walk up to them along the shortest path (then T talks); a resident's name "
        "in the inspector or a chat follows them when clicked; a walking key or Escape stops a walk",
        "Follow / Walk there, in the inspector"),
    Row("T near a resident", "talk", ("talk",),
        "talk: type, Enter sends; the resident answers in character from memory and remembers what you said; "
        "say nothing for 10 sim minutes and 30 seconds and they say goodbye and go on with their day",
        "T (within 2 tiles of a resident), or Talk in the inspector"),
    Row("Interview, in the inspector", "", (),
        "ask a resident anything from anywhere; \"You are\" sets who they take you for (default \"a news "
        "reporter\"); \"Remember\" off (default) leaves them unchanged, on stores the exchange", in_help=False),
    Row("Inner voice, in the inspector", "", (),
        "type `You are going to run against Sam in the upcoming election`: it becomes their own thought "
        "(importance 9); they replan and act on it", in_help=False),
    Row("`  (backquote)", "console: <sector: arena: object> is burning / play as <name> / help", ("console",),
        "the console: `<Isabella Rodriguez's apartment: main room: stove> is burning` (residents who see it "
        "react), `... is idle`, `play as Maria Lopez`, `release`, `help`; unknown addresses get close matches",
        "`` ` `` (backquote)"),
    Row("click an object", "its state; type a new one and Set", (), "its address and state"),
    Row("click an object, then Set", "", (), "change its state the same way", in_help=False),
    Row("[Play as] in a resident's panel", "walk as that resident", (),
        "walk as that resident (the camera follows; T speaks as them); others treat them as usual",
        "Play as, in the inspector"),
    Row("F2", "hand the resident back to their mind", ("release",),
        "hand the resident back to their mind, which remembers where it went and whom it talked with"),
    Row("F3", "frame rate", ("fps",)),
    Row("F5 / F9", "quick save / quick load", ("quick_save", "quick_load"),
        "quick-save / quick-load (this game's own quick save)"),
    Row("F6  or  Ctrl+S", "save / load menu", ("save_menu",),
        "the save menu: the games in the saves folder (visitor, sim time, real time saved, number of saves) and "
        "each game's saves; save as a name (a name another game's save has asks first), load (a game: its newest "
        "save), delete", "F6 or Ctrl+S"),
    Row("F1  or  ?", "this help", ("help",), "this list, in the game", "F1 or `?`"),
    Row("Escape", "close a panel / stop following or walking / cancel a skip / quit (asks to save)", ("back",),
        "close the chat, then the panel, the list, the map; stop a walk or following; cancel a skip; else asks "
        "before quitting"),
    Row("closing the window, or Escape with nothing open", "", (),
        "\"Save and quit\" (Enter; writes this game's own `continue` save), \"Quit without saving\" (Q) or "
        "\"Cancel\" (Escape); the game ends at once, without waiting for model calls in flight. Ctrl+C in the "
        "terminal (or `kill`, or closing the terminal) saves and quits without asking; an unexpected error "
        "saves the game to its own "
        "`crash` save before it is shown (the message names it)", in_help=False),
)

REPLAY: tuple[Row, ...] = (
    Row("Space", "play / pause", ("pause",)),
    Row("1-5", f"{_speeds('or')} second", ("speed",)),
    Row(", / .", "one step (10 sim seconds) back / on; with Shift one minute", ("step", "step_minute"),
        readme_keys="`,` / `.`"),
    Row("[ / ]", "the previous / next moment", ("moment",), readme_keys="`[` / `]`"),
    Row("Home / End", "the start / the end", ("to_start", "to_end")),
    Row("drag the bar", "go to any moment", (),
        "go to any moment; its marks are the moments below, a pink span a gathering", "the bar at the bottom, drag"),
    Row("E", "events: conversations, reactions, reflections, gatherings (filter by resident)", ("events",),
        "the moments worth jumping to: conversations, greetings, reactions, inner voices, reflections, gatherings "
        "(several residents in one public place, such as the party), edits; type a resident's name (or any word) "
        "to filter; click one to go there, the camera on who is in it", 'E, or "Events (E)"'),
    Row("R / M / F", "residents list / town map / town feed", ("residents", "map", "feed"),
        "the residents list, the town map and the town feed (up to the moment shown), as in the game", "R, M, F"),
    Row("click a resident", "what they were doing; plan and memories from the nearest save", (),
        "the inspector: what they were doing then (the recording's), and their plan and memories from the run's "
        "nearest save before that moment, marked as such; **Why?** shows the decision record behind the action, "
        "a plan item or a line (see Experiments)"),
    Row("arrows / WASD", "move the camera", ("walk",)),
    Row("wheel, + / -", "zoom", ("zoom",), readme_keys="wheel, `+` / `-`"),
    Row("N", "the next 07:00 in the recording (or its end)", ("next_morning",),
        "the next 07:00 in the recording (with none left: its end, said once)", 'N, or "Next morning (N)"'),
    Row("Escape", "close a panel; quit", ("back",)),
)

SCREENS = {"game": GAME, "replay": REPLAY}


def help_lines(rows: tuple[Row, ...]) -> list[tuple[str, str]]:
    """(keys, what they do) for the F1 help."""
    return [(r.keys, r.does) for r in rows if r.in_help]


def markdown(rows: tuple[Row, ...]) -> str:
    """The README's controls table."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| key / mouse | does |", "| --- | --- |"]
    lines += [f"| {cell(r.readme_keys or r.keys)} | {cell(r.readme or r.does)} |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """``python -m game.view.keys [game|replay]``: print that screen's controls table (markdown)."""
    screen = argv[0] if argv else "game"
    if screen not in SCREENS:
        print(f"usage: python -m game.view.keys [{'|'.join(SCREENS)}]", file=sys.stderr)
        return 2
    sys.stdout.write(markdown(SCREENS[screen]))
    return 0


__all__ = ["BINDINGS", "GAME", "REPLAY", "SCREENS", "Binding", "Key", "Pressed", "Row", "help_lines", "hit",
           "markdown", "pressed", "values"]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

