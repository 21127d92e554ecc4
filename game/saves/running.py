"""What saving and loading use of a running game (no pygame).

game/saves stands below game/runs, so it names neither the window's ``Session``
(game/runs/session.py) nor a headless run's ``Parts`` (game/runs/build.py):
``Captured`` says what a save reads of either, ``RunningGame`` what a load rebuilds
and swaps in, and mypy checks each against them where it is saved or loaded.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from agents import Embedder, Gateway, Persona, ResidentMind
from game.sim.bodies import Body
from game.sim.core import Simulation
from game.sim.jobs import Pool
from game.world.town import Town


class Captured(Protocol):
    """What ``capture`` reads of a game by name: its town, simulation and minds. Other members
    (the model road, the embedder, a Session's feed, game id, player and clock) are looked up
    where they are read, since a headless run's parts or the player's commands have some only."""

    @property
    def town(self) -> Town: ...

    @property
    def sim(self) -> Simulation: ...

    @property
    def minds(self) -> Mapping[str, ResidentMind]: ...


@runtime_checkable
class RunningGame(Protocol):
    """A game a save is loaded into: its town, residents, model road, minds and simulation
    (the loaded ones are built on its road and embedder, then swapped in)."""

    town: Town
    cast: list[Persona]
    gateway: Gateway
    embedder: Embedder | None  # None: a game of stand-in minds, which embed nothing (a save cannot load into it)
    pool: Pool
    minds: dict[str, ResidentMind]
    sim: Simulation


@runtime_checkable
class OwnSaves(Protocol):
    """A game that keeps its own saves (a Session; a headless run's parts do not): the
    player's name and the game's id, which names its slots (game/saves/series.py)."""

    game_id: str | None

    @property
    def visitor_name(self) -> str: ...


class Placed(Protocol):
    """Where the town's people stand (a simulation, or a replay's), as a load leaves them."""

    @property
    def bodies(self) -> Mapping[str, Body]: ...

    @property
    def visitor(self) -> str | None: ...


class Shown(Protocol):
    """The town a window shows, as a load leaves it: where the visitor stands, and their name."""

    @property
    def sim(self) -> Placed: ...

    @property
    def visitor_name(self) -> str: ...


@runtime_checkable
class Window(Protocol):
    """The game's window (game/view/window.py ``Game``), as a load tidies it: its session, and
    its views, camera and figure, each looked up where it is used (a test's window has few)."""

    @property
    def session(self) -> Shown | None: ...


__all__ = ["Captured", "OwnSaves", "Placed", "RunningGame", "Shown", "Window"]
