"""Where this copy of Smallville is, and where it keeps what it writes.

Two questions, answered the same way by every part of the program, whatever
the current folder:

- ``data_root()``: the folder holding ``maps/`` and ``assets/`` (the towns,
  tiles, characters, fonts and icons). In a source checkout that is the
  checkout itself; a regular install (a wheel) puts them under
  ``<prefix>/share/smallville/`` (pyproject.toml's data-files), found next to
  the installed packages. The prompts are package data of ``agents.prompts``.
- ``home()``: the one folder for what the game writes: ``saves/``, ``logs/``,
  ``runs/`` and ``.cache/``. ``$SMALLVILLE_HOME`` when set; else the checkout
  the code runs from (its ``saves/`` and ``logs/``, as ``make play`` has always
  used them), when it can be written to; else a per-user data folder
  (``$XDG_DATA_HOME/smallville`` or ``~/.local/share/smallville`` on Linux,
  ``~/Library/Application Support/Smallville`` on macOS,
  ``%LOCALAPPDATA%\\Smallville`` on Windows).

No pygame, no game: the minds read their emoji vocabulary (assets/icons) and
their caches through here, and game/support/folders.py builds the game's folders on it.
"""
from __future__ import annotations

import os
import site
import sys
import sysconfig
from pathlib import Path

APP = "smallville"
HOME_ENV = "SMALLVILLE_HOME"
CODE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding agents/, game/, lab/, smallville/
SHARE = Path("share") / APP  # where a wheel's data-files land, under the install prefix
MARKER = Path("maps") / "the_ville" / "the_ville.tmx"  # a data folder is one that holds the default town


def checkout() -> Path | None:
    """The source checkout this code runs from (an editable install, or PYTHONPATH
    pointing at it), or None for a regular install."""
    root = CODE_ROOT
    if (root / "pyproject.toml").is_file() and (root / "maps").is_dir() and (root / "assets").is_dir():
        return root
    return None


def _installed_data() -> list[Path]:
    """Candidate ``share/smallville`` folders of a regular install, likeliest first."""
    out = []
    # The packages sit in <prefix>/lib/pythonX.Y/site-packages (or <prefix>/Lib/site-packages).
    for up in (3, 2, 4):
        if len(CODE_ROOT.parents) > up - 1:
            out.append(CODE_ROOT.parents[up - 1] / SHARE)
    out.append(Path(sysconfig.get_path("data")) / SHARE)
    out.append(Path(sys.prefix) / SHARE)
    out.append(Path(site.getuserbase()) / SHARE)  # `pip install --user`
    return out


def data_root() -> Path:
    """The folder holding maps/ and assets/: the checkout, else the installed data.
    When neither has them (a broken install) the checkout's place is returned, so
    messages name a concrete path."""
    c = checkout()
    if c is not None:
        return c
    for cand in _installed_data():
        if (cand / MARKER).is_file():
            return cand
    return CODE_ROOT


def user_data_dir() -> Path:
    """The per-user folder for a regular install's saves, logs and caches."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "Smallville"
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "Smallville"
    base = os.environ.get("XDG_DATA_HOME") or ""
    return (Path(base) if base.strip() and Path(base).is_absolute() else Path.home() / ".local" / "share") / APP


def home() -> Path:
    """The folder for saves/, logs/, runs/ and .cache/ (see the module's docstring)."""
    given = os.environ.get(HOME_ENV, "").strip()
    if given:
        return Path(given).expanduser().resolve()
    c = checkout()
    if c is not None and os.access(c, os.W_OK):
        return c
    return user_data_dir()


def where_home_is() -> str:
    """Why home() is where it is, for messages and the README: "SMALLVILLE_HOME",
    "checkout" or "user"."""
    if os.environ.get(HOME_ENV, "").strip():
        return HOME_ENV
    c = checkout()
    return "checkout" if c is not None and os.access(c, os.W_OK) else "user"


def cache_dir() -> Path:
    return home() / ".cache"


def config_file(name: str = "smallville.toml") -> Path | None:
    """The settings file: ``./smallville.toml`` (the working folder) if there is
    one, else ``<home>/smallville.toml`` if there is one, else None."""
    for folder in (Path.cwd(), home()):
        p = folder / name
        if p.is_file():
            return p
    return None


__all__ = [
    "APP",
    "CODE_ROOT",
    "HOME_ENV",
    "cache_dir",
    "checkout",
    "config_file",
    "data_root",
    "home",
    "user_data_dir",
    "where_home_is",
]
