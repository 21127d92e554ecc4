"""The game's files, found the same way from any folder (no pygame).

What ships with the game is read from ``agents.home.data_root()`` (the
checkout, or a wheel's installed data): the default town, the tiles, the
characters, the icons and the font. What the game writes goes under
``agents.home.home()``: the checkout's ``saves/``, ``logs/`` and ``runs/``
when it runs from a checkout, else a per-user data folder;
``$SMALLVILLE_HOME`` overrides both (tests point it at a temporary folder).

A relative map path the player types is taken from the current folder first,
then from the data root (``smallville play maps/the_ville/the_ville.tmx``
works from anywhere).
"""
from __future__ import annotations

import os
from pathlib import Path

from agents import home as _home

DEFAULT_TOWN = Path("maps") / "the_ville" / "the_ville.tmx"


def data_root() -> Path:
    return _home.data_root()


def default_map() -> Path:
    """The Ville's .tmx."""
    return data_root() / DEFAULT_TOWN


def assets_dir() -> Path:
    return data_root() / "assets"


def home() -> Path:
    return _home.home()


def saves_dir() -> Path:
    return home() / "saves"


def logs_dir() -> Path:
    """``$SMALLVILLE_LOG_DIR`` when set, else ``<home>/logs``."""
    given = os.environ.get("SMALLVILLE_LOG_DIR", "").strip()
    return Path(given).expanduser() if given else home() / "logs"


def runs_dir() -> Path:
    return home() / "runs"


def resolve_map(path: str | os.PathLike | None) -> Path:
    """The map to open: the default town for None; a path as given when it exists
    (relative to the current folder); else the same relative path under the data
    root (so the checkout's map names work from any folder); else as given (the
    map loader then says it is missing)."""
    if path is None or not str(path).strip():
        return default_map()
    p = Path(path).expanduser()
    if p.exists() or p.is_absolute():
        return p
    shipped = data_root() / p
    return shipped if shipped.exists() else p


def describe() -> str:
    """Where things are, one line each (`smallville where`)."""
    why = {"SMALLVILLE_HOME": "set by $SMALLVILLE_HOME", "checkout": "the checkout this runs from",
           "user": "your per-user data folder"}[_home.where_home_is()]
    return "\n".join([
        f"towns and art: {data_root()}",
        f"default town:  {default_map()}",
        f"saves:         {saves_dir()}   ({why})",
        f"logs:          {logs_dir()}",
        f"runs:          {runs_dir()}",
        f"settings:      ./smallville.toml if there is one, else {home() / 'smallville.toml'} "
        f"(now: {_home.config_file() or 'none'})",
    ])


__all__ = [
    "DEFAULT_TOWN",
    "assets_dir",
    "data_root",
    "default_map",
    "describe",
    "home",
    "logs_dir",
    "resolve_map",
    "runs_dir",
    "saves_dir",
]
