"""The views a window holds, by name: ``Game.panels`` (game/view/window.py).

Each view's ``install(game)`` puts itself here (and among the window's overlays); a field
stays None until its view is installed, so a view that needs another asks for it here and
does without it when it is None (a replay has no chat; a test installs one panel alone).
The fields are in the overlays' order (game/view/overlay.py ORDER, where each is named the
same).

Each field is typed by its role: the small protocol of what the other views (and the
window, the replay, the command) use of that view, declared here. So this module imports
no view, and the views and the window make no circle of imports, not even of type hints
(issue 38; tests/test_house.py). mypy checks each view against its role where it installs
itself.
"""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

import pygame_gui
from pygame_gui.elements import UITextEntryLine, UIWindow

from game.view.overlay import Overlay


class Panel(Protocol):
    """A view that opens and closes: others ask whether it is open, or close it."""

    @property
    def is_open(self) -> bool: ...

    def close(self) -> None: ...


class ResidentsRole(Protocol):
    """The residents' figures (game/view/residents.py): where each is, for the map and the camera."""

    @property
    def head_top(self) -> dict[str, int]: ...  # screen y above each resident's label, drawn last frame

    def position(self, name: str) -> tuple[float, float] | None: ...


class HudRole(Protocol):
    """The HUD (game/view/hud.py): messages, and the button row panels add theirs to."""

    @property
    def button(self) -> pygame_gui.elements.UIButton | None: ...  # "Next morning (N)"

    @property
    def buttons(self) -> list[pygame_gui.elements.UIButton]: ...

    def toast(self, text: str, seconds: float = ...) -> None: ...

    def note(self, key: str, text: str | None) -> None: ...

    def add_button(self, text: str, width: int, on_press: Callable[[], None],
                   tool_tip: str | None = None) -> pygame_gui.elements.UIButton | None: ...


class FollowRole(Protocol):
    """The camera following a resident (game/view/follow.py)."""

    @property
    def target(self) -> str | None: ...

    def start(self, name: str) -> bool: ...

    def stop(self) -> None: ...


class WalkRole(Protocol):
    """The visitor walking somewhere on its own (game/view/walkto.py)."""

    @property
    def label(self) -> str: ...  # where to ("" when not walking)

    def to_resident(self, name: str) -> bool: ...

    def to_tile(self, tile: tuple[int, int], label: str = "") -> bool: ...

    def stop(self, message: str | None = None) -> None: ...


class InspectorRole(Panel, Protocol):
    """The inspector (game/view/inspector.py): who is selected, and the acts its Why? names."""

    @property
    def selected(self) -> str | None: ...

    def select(self, name: str) -> None: ...

    def act_of(self, spec: str) -> tuple | None: ...


class WhyRole(Panel, Protocol):
    """The inspector's "Why?" (game/view/why_panel.py); the feed asks it how news spread."""

    @property
    def spread_entry(self) -> UITextEntryLine | None: ...  # the "how it spread" word's text line (None until built)

    def open(self, resident: str, kind: str, time: datetime | None, text: str, label: str) -> None: ...

    def show_spread(self, word: str) -> None: ...


class TalkRole(Panel, Protocol):
    """The chat and the interview (game/view/chat.py, interview.py)."""

    @property
    def partner(self) -> str | None: ...  # the resident talked with

    def open(self, name: str) -> bool: ...

    def after_load(self) -> None: ...


class SaveRole(Protocol):
    """The save menu (game/view/savemenu.py): its folder, its slots, saving and loading."""

    @property
    def folder(self) -> Path: ...

    def own(self, kind: str) -> str: ...

    def save(self, slot: str) -> Future | None: ...

    @property
    def messages(self) -> list[str]: ...  # every message it showed, the newest last

    def load(self, name: str | Path) -> Future | None: ...

    def wait(self, timeout: float = 30.0) -> bool: ...

    def close(self, wait: bool = True) -> None: ...


class MapRole(Panel, Protocol):
    """The town map (game/view/townmap.py): each resident's colour on it."""

    def colour(self, name: str) -> tuple[int, int, int]: ...


class ListRole(Panel, Protocol):
    """The residents list (game/view/residents_list.py): the map keeps clear of its window."""

    @property
    def window(self) -> UIWindow | None: ...  # made once, shown and hidden


class FeedRole(Panel, Protocol):
    """The town feed (game/view/feed.py): its line in the HUD."""

    def hud_line(self) -> str: ...


class JournalRole(Panel, Protocol):
    """The visitor's journal (game/view/journal.py): its reminder in the HUD."""

    def hud_line(self) -> str: ...


class QuitRole(Protocol):
    """The quit question (game/view/quit_dialog.py)."""

    @property
    def is_open(self) -> bool: ...

    def open(self) -> None: ...

    def save_and_quit(self) -> None: ...


class HelpRole(Protocol):
    """The controls help (game/view/help.py): a replay lists its own controls, hidden at first."""

    controls: list[tuple[str, str]]
    visible: bool


@dataclass
class Panels:
    residents_view: ResidentsRole | None = None  # the residents' figures and markers
    bubbles: Overlay | None = None  # speech bubbles
    hud: HudRole | None = None  # the HUD, the time controls, toasts
    follower: FollowRole | None = None  # the camera following a resident
    walker: WalkRole | None = None  # the visitor walking somewhere (none in a replay)
    journal: JournalRole | None = None  # the visitor's journal (J)
    inspector: InspectorRole | None = None
    why_panel: WhyRole | None = None  # the inspector's "Why?"
    chat: TalkRole | None = None
    interview: TalkRole | None = None
    savemenu: SaveRole | None = None
    console: Overlay | None = None
    townmap: MapRole | None = None  # the town map and the minimap
    residents_list: ListRole | None = None
    feed: FeedRole | None = None  # the town feed (F)
    quit_dialog: QuitRole | None = None
    # The replay's own panels (the replay is built on the views, not under them).
    replay_events: Panel | None = None  # a replay's events list (game/replay/events.py)
    timeline: Overlay | None = None  # a replay's timeline bar (game/replay/bar.py)
    help: HelpRole | None = None  # the controls help (F1)
    namebox: Overlay | None = None  # the visitor's name at the start


__all__ = [
    "FeedRole", "FollowRole", "HelpRole", "HudRole", "InspectorRole", "JournalRole", "ListRole", "MapRole", "Panel",
    "Panels", "QuitRole", "ResidentsRole", "SaveRole", "TalkRole", "WalkRole", "WhyRole",
]
