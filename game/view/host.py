"""What the views need of the window and of the town (issue 38): small protocols, so no
view imports the window (game/view/window.py) and the window is typed by what it holds.

- ``TownSession``: what the window reads of a town being shown: a running game's
  ``Session`` (game/runs/session.py) or a replay's ``ReplaySession``
  (game/replay/playback.py). What a player *does* to the town goes through its
  ``commands`` (game/runs/commands.py; None in a replay, which changes nothing); what
  the window reads of the minds comes through game/runs/readings.py.
- ``TownSim``: what the views read of its simulation (the bodies, the clock, who
  talks with whom), and ``MindView``: of a resident's mind (its snapshot).
- ``Host``: what every view uses of the window (``Game``): the UI manager, the size,
  the other views (``panels``), the walking keys, the session, overlays, toasts. A
  view that uses more declares its own protocol on top of this one, with what it
  adds (``ChatHost`` in chat.py, ...), from this one and the small ones here
  (``Drawn``: the figures drawn last frame; ``Finder``: following and walking to
  people and places); mypy checks ``Game`` against each where the window installs
  the view.

Some members stay duck-typed on purpose, each where it is read, with its reason: a
replay's session has no pace and no greetings, a headless run's parts no feed.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Protocol

import pygame
import pygame_gui

from game.runs.commands import Commands
from game.runs.feed import Entry
from game.runs.readings import Inspection
from game.runs.session import Session
from game.sim import Body
from game.view.overlay import Overlay
from game.view.panels import Panels
from game.view.sprites import Figure
from game.view.visitor import WalkControls
from game.world.grid import Tile
from game.world.town import Town


class Talk(Protocol):
    """A conversation between two residents, as the views name it."""

    @property
    def participants(self) -> tuple[str, str]: ...

    def other(self, name: str) -> str: ...


class TownFeed(Protocol):
    """The town feed the views list: a ``LiveFeed`` (game/runs/live_feed.py) or a replay's ``RecordedFeed``."""

    def pump(self, events: Sequence[dict]) -> int: ...  # the events logged since, to its thread

    def newest(self, resident: str | None = None, topic: str | None = None,
               limit: int | None = None) -> list[Entry]: ...

    def hud_line(self) -> str: ...


class Tally(Protocol):
    """The model calls counted so far (``agents.Accounting``, or a replay's from its recording)."""

    def summary(self) -> dict: ...  # {"total": {"calls": n, "tokens": n}, ...}


class ModelRoad(Protocol):
    """The model road as the window shows it: its health and its calls so far (a live
    ``agents.Gateway``, or a replay's). Other members (its model's name, its servers' lines)
    are looked up by name where they are shown: a stand-in road may have none."""

    @property
    def status(self) -> str: ...  # "ok", or what is wrong

    @property
    def accounting(self) -> Tally: ...


class Skipping(Protocol):
    """A fast-forward under way (game/runs/session.py)."""

    @property
    def target(self) -> datetime: ...


class MindView(Protocol):
    """What the views read of a resident's mind (a live ``Mind``, or a replay's from its saves)."""

    def inspect(self) -> Inspection: ...

    def memory_text(self, node_id: int) -> str | None: ...


class TownSim(Protocol):
    """What the views read of the simulation: bodies, clock, places, who talks and thinks."""

    focus: set[str]  # the residents the player watches (the window sets it each frame): their minds go first

    @property
    def bodies(self) -> dict[str, Body]: ...

    @property
    def now(self) -> datetime: ...

    @property
    def start(self) -> datetime: ...

    @property
    def steps(self) -> int: ...

    @property
    def visitor(self) -> str | None: ...

    @property
    def events(self) -> Sequence[dict]: ...  # the event log (an EventLog; a replay's: the recording's list)

    @property
    def listeners(self) -> list[Callable[[dict], None]]: ...  # called with each event as it is logged

    def thinking(self, name: str) -> bool: ...

    def held(self, name: str) -> bool: ...

    def behind(self, minutes: int | None = None) -> int: ...

    def area(self, tile: Tile) -> str: ...

    def conversation_of(self, name: str) -> Talk | None: ...

    @property
    def minds(self) -> Mapping[str, MindView]: ...


class TownSession(Protocol):
    """What the window reads of a town being shown, and how its clock is driven."""

    read_only: bool  # a replay: nothing the player does changes it
    paused: bool
    speed: int

    @property
    def commands(self) -> Commands | None: ...  # what the player may do (None: a replay)

    @property
    def sim(self) -> TownSim: ...

    @property
    def minds(self) -> Mapping[str, MindView]: ...

    @property
    def town(self) -> Town: ...  # the map, with the objects' live states

    @property
    def feed(self) -> TownFeed | None: ...  # None: a replay's window that shows no feed yet

    @property
    def gateway(self) -> ModelRoad: ...  # the model road: its status and counts for the HUD

    @property
    def visitor_name(self) -> str: ...

    @property
    def controlled(self) -> str | None: ...  # the resident the player plays, if any

    @property
    def now(self) -> datetime: ...

    @property
    def config(self) -> object: ...  # the model configuration (its model's name, looked up by name)

    @property
    def minutes_per_second(self) -> float: ...  # sim minutes a real second at this speed

    @property
    def skip(self) -> Skipping | None: ...  # a fast-forward under way, or None

    @property
    def step_fraction(self) -> float: ...  # 0..1 of the way to the next step (drawing glides by it)

    @property
    def skipping(self) -> bool: ...

    @property
    def pool(self) -> object: ...  # the minds' worker pool, its jobs read by name (None in a replay)

    @property
    def on_skip_end(self) -> list[Callable[[str], None]]: ...

    def update(self, dt: float) -> None: ...

    def move_visitor(self, tile: Tile) -> None: ...

    def set_speed(self, speed: int) -> None: ...

    def toggle_pause(self) -> bool: ...

    def skip_to_morning(self) -> datetime: ...

    def skip_progress(self) -> float: ...

    def cancel_skip(self) -> None: ...


class Host(Protocol):
    """What every view uses of the window (game/view/window.py ``Game``)."""

    ui: pygame_gui.UIManager
    size: tuple[int, int]
    panels: Panels
    controls: WalkControls
    saves_dir: Path | None

    @property
    def session(self) -> TownSession | None: ...

    def add_overlay(self, overlay: Overlay) -> None: ...

    def remove_overlay(self, overlay: object) -> None: ...

    def toast(self, text: str) -> None: ...


class Drawn(Protocol):
    """The figures the window drew last frame, each with its screen box (clicks, bubbles)."""

    @property
    def drawn(self) -> list[tuple[Figure, pygame.Rect]]: ...


class Finder(Protocol):
    """Finding people and places: the camera follows a resident, the visitor walks there."""

    def follow_resident(self, name: str) -> bool: ...

    def walk_to_resident(self, name: str) -> bool: ...

    def walk_to_tile(self, tile: tuple[int, int], label: str = "") -> bool: ...

    def look_at_tile(self, tile: tuple[float, float]) -> None: ...


def _shown(session: Session) -> TownSession:  # mypy: a running game is a town the window can show
    return session


__all__ = ["Drawn", "Finder", "Host", "MindView", "ModelRoad", "Skipping", "Talk", "Tally", "TownFeed", "TownSession",
           "TownSim"]
