"""Each game its own saves (no pygame): a game id, the slots a game writes for
itself, and a saves folder's listing grouped by game.

A game is named when it starts: ``new_game_id("Anna", started)`` is
``anna-20261125-204431`` (the visitor's name and the real time the game began).
The id is kept in every save's meta (``game_id``), so a loaded game continues its
own series. A game writes, beside the saves the player names:

    <game id>-autosave-<n>.sqlite   its autosaves (only its own are rotated)
    <game id>-continue.sqlite       "Save and quit" (and Ctrl+C, kill)
    <game id>-quick.sqlite          F5 (F9 loads it back)
    <game id>-crash.sqlite          an unexpected error stopped the game

so a second game in the same folder never rotates away or overwrites the first
one's. A game loaded from an older save of its own (a newer one of that game is
in the folder) goes on as a branch, ``<game id>-branch-<n>``: its saves never
touch the newer line. Saves from before games had ids (``autosave-<n>``, ``continue``,
``quick``) stay loadable; they are listed as one group of older saves, and a
game loaded from one gets an id of its own.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeGuard

from game.saves.disk import AUTOSAVE_PREFIX, SUFFIX, SaveInfo, list_saves, save_state, slot_path
from game.support import folders

OWN_SLOTS = ("continue", "quick", "crash")  # what a game writes under its own id, besides autosaves
# A slot name holds 64 characters; the longest own slot is "<id>-autosave-<n>" (10 more and n),
# so an id of at most 50 leaves n four digits. new_game_id's are 40 at most, a branch's a few more.
MAX_GAME_ID = 50
_GAME_ID = re.compile(rf"[a-z0-9][a-z0-9-]{{0,{MAX_GAME_ID - 1}}}")  # what every own slot can be named after
_SLUG = re.compile(r"[^a-z0-9]+")
_BRANCH = re.compile(r"^(?P<base>.+)-branch-(?P<n>\d+)$")  # <game id>-branch-<n>: a line from an older save


def new_game_id(visitor: str, started: datetime) -> str:
    """``<visitor>-<YYYYMMDD>-<HHMMSS>``: a file-name-safe id for a game begun at ``started``."""
    slug = _SLUG.sub("-", str(visitor).casefold()).strip("-")[:24].strip("-") or "visitor"
    return f"{slug}-{started:%Y%m%d-%H%M%S}"


def usable_game_id(game_id: object) -> TypeGuard[str]:
    """Whether every slot of a game's own can be named after ``game_id`` (a save's meta may
    hold anything: a slash, '..', an id too long for "<id>-autosave-<n>")."""
    return isinstance(game_id, str) and _GAME_ID.fullmatch(game_id) is not None


def own_slot(game_id: str | None, kind: str) -> str:
    """The slot of a game's own ``kind`` of save (``continue``, ``quick``, ``crash``)."""
    return f"{game_id}-{kind}" if game_id else kind


def game_of(info: SaveInfo) -> str | None:
    """The id of the game a save belongs to (None: a save from before games had ids, or
    one whose id cannot name a slot: it never continues a series by that id)."""
    gid = info.meta.get("game_id") if info.ok else None
    return gid if usable_game_id(gid) else None


def short_slot(info: SaveInfo) -> str:
    """The slot without its game's id: ``continue``, ``autosave 3``, a name the player gave."""
    gid, slot = game_of(info), info.slot
    if gid and slot.startswith(gid + "-"):
        slot = slot[len(gid) + 1:]
    m = re.fullmatch(r"autosave-(\d+)", slot)
    return f"autosave {m.group(1)}" if m else slot


def _later(a: SaveInfo, b: SaveInfo) -> bool:
    """Whether save ``a`` is further on in its game than ``b`` (by sim time; by when it was
    written when either has none)."""
    if a.sim_time is not None and b.sim_time is not None:
        return a.sim_time > b.sim_time
    return _when(a) > _when(b)


def line_after_load(info: SaveInfo, where: Iterable[str | os.PathLike]) -> str | None:
    """The id a game loaded from ``info`` goes on with: the save's own game id when the
    save is the newest of that game in the folders ``where``; when a newer save of that game is
    there (a load back in time), a new branch ``<game id>-branch-<n>``, so its saves
    never overwrite nor rotate away the newer line. None: the save has no game id it can go on
    with (none, or one no slot can be named after); the loaded game gets a new one."""
    gid = game_of(info)
    if gid is None:
        return None
    seen: dict[str, SaveInfo] = {}
    for folder in where:
        for other in list_saves(folder):
            seen.setdefault(str(other.path.resolve()), other)
    mine = str(info.path.resolve())
    if not any(game_of(o) == gid and _later(o, info) for p, o in seen.items() if p != mine):
        return gid
    m = _BRANCH.match(gid)
    base = m.group("base") if m else gid
    taken = {game_of(o) for o in seen.values()}
    n = 1
    while _branch(base, n) in taken:
        n += 1
    return _branch(base, n)


def _branch(base: str, n: int) -> str:
    """``<base>-branch-<n>``, the base cut short when the whole would be too long for a game id."""
    tail = f"-branch-{n}"
    return base[: MAX_GAME_ID - len(tail)].rstrip("-") + tail


def branch_number(game_id: str | None) -> int | None:
    """n of a game id ``<id>-branch-<n>`` (None: the game's first line)."""
    m = _BRANCH.match(game_id or "")
    return int(m.group("n")) if m else None


def autosave(parts: Mapping[str, object], meta: dict | None, folder: str | os.PathLike | None = None,
             keep: int = 3) -> SaveInfo:
    """Write the next autosave of the game the meta names (``game_id``): slot
    <game id>-autosave-<n> (n one more than that game's newest; without an id,
    autosave-<n>), and delete that game's oldest autosaves beyond `keep`, only
    after the new one is safely written. Other games' autosaves are never touched."""
    folder = Path(folder if folder is not None else folders.saves_dir())
    prefix = autosave_prefix((meta or {}).get("game_id"))
    existing = _autosaves(folder, prefix)
    n = (existing[-1][0] + 1) if existing else 1
    path = slot_path(f"{prefix}{n}", folder)
    info = save_state(path, parts, {**(meta or {}), "slot": f"{prefix}{n}", "autosave": True})
    for _, p in _autosaves(folder, prefix)[: -max(1, keep)]:
        try:
            os.remove(p)
        except OSError:
            pass
    return info


def autosave_prefix(game_id: str | None) -> str:
    """The start of a game's autosave slots: ``<game id>-autosave-`` (``autosave-``: no game)."""
    return f"{game_id}-{AUTOSAVE_PREFIX}" if game_id else AUTOSAVE_PREFIX


def _autosaves(folder: Path, prefix: str = AUTOSAVE_PREFIX) -> list[tuple[int, Path]]:
    """(n, path) of the autosaves <prefix><n> in ``folder``, oldest first."""
    out: list[tuple[int, Path]] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return out
    for nm in names:
        if nm.startswith(prefix) and nm.endswith(SUFFIX):
            num = nm[len(prefix): -len(SUFFIX)]
            if num.isdigit():
                out.append((int(num), folder / nm))
    return sorted(out)


def _when(info: SaveInfo) -> float:
    t = info.saved_at
    if t is None:
        return 0.0
    return (t if t.tzinfo else t.replace(tzinfo=UTC)).timestamp()


@dataclass
class GameSaves:
    """One game's saves in a folder, newest first."""

    game_id: str | None                     # None: the older saves without a game
    saves: list[SaveInfo] = field(default_factory=list)

    @property
    def newest(self) -> SaveInfo:
        return self.saves[0]

    @property
    def visitor(self) -> str:
        for i in self.saves:
            name = i.meta.get("visitor_name")
            if isinstance(name, str) and name:
                return name
        return "?"

    def label(self) -> str:
        """One line for the load menu: who, the newest sim time, when it was saved, how many saves."""
        n = len(self.saves)
        if self.game_id is None:
            return f"Older saves ({n} save{'s' if n != 1 else ''}: from before games had names, or unreadable)"
        i = self.newest
        sim = i.sim_time.strftime("%a %d %b %H:%M") if i.sim_time else "?"
        real = i.saved_at.astimezone().strftime("%Y-%m-%d %H:%M") if i.saved_at else "?"
        branch = branch_number(self.game_id)
        what = f"{self.visitor}'s game" + (f", branch {branch} (loaded from an older save)" if branch else "")
        return f"{what}: {sim} (saved {real}), {n} save{'s' if n != 1 else ''}"


def group_by_game(infos: Iterable[SaveInfo]) -> list[GameSaves]:
    """The saves grouped by game, the most recently saved game first (the older
    saves without a game last; unreadable files among them)."""
    games: dict[str | None, GameSaves] = {}
    for info in sorted(infos, key=_when, reverse=True):
        gid = game_of(info)
        games.setdefault(gid, GameSaves(gid)).saves.append(info)
    return sorted(games.values(), key=lambda g: (g.game_id is None, -_when(g.newest)))


__all__ = [
    "OWN_SLOTS",
    "GameSaves",
    "autosave",
    "autosave_prefix",
    "branch_number",
    "game_of",
    "group_by_game",
    "line_after_load",
    "new_game_id",
    "own_slot",
    "short_slot",
    "usable_game_id",
]
