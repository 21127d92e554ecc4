"""Saving and loading in the window: quick keys, a save/load menu, autosave.

Each game has its own saves (game/saves/series.py): F5 quick-saves this game's
slot "<game id>-quick", F9 quick-loads it, F6 or Ctrl+S opens the menu (a
pygame_gui window listing the games in the folder, each with its visitor, sim
time, the real time it was saved and how many saves it has, and under each its
saves; "Save as" a name, Load, Delete; the game pauses while it is open).
"Save as" a name that is another game's save asks first (press Save again).
The town autosaves every ``autosave_min`` sim minutes (default 30;
environment ``SMALLVILLE_AUTOSAVE_MIN``, 0 turns it off) into this game's
series <game id>-autosave-<n>, keeping its last ``keep`` (5; other games'
autosaves are never touched), and at most once every
``AUTOSAVE_REAL_S`` seconds of play: at speed 5 (an hour a second) 30 sim
minutes pass twice a second, and saving that often kept a save thread busy
beside the frame and filled the five slots with the last 2.5 seconds.

The frame never waits for the disk: a save costs the main thread the capture
(``game.saves.saveload.capture``, a few ms) and the ``SaveWriter``'s thread does the
rest; a load reads the file and builds the new minds and sim on that thread
(``savegame.prepare``) and the frame only swaps them in (``savegame.commit``).
The menu's list of saves (each file's meta) is read, and a save deleted, on a
thread of its own; the list shows "reading saves…" until it is back.
The outcome is a toast ("saved slot quick", "loaded slot quick", "save failed:
..."); the details of a failure go to the log. A failed load leaves the game
as it was.
"""
from __future__ import annotations

import logging
import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UILabel, UISelectionList, UITextEntryLine, UIWindow

from game.runs.commands import Commands, Refused, SaveJob
from game.saves.saveload import Prepared, after_load, resolve_path
from game.saves.series import OWN_SLOTS, GameSaves, game_of, group_by_game, own_slot, short_slot
from game.saves.store import SUFFIX, SaveError, SaveInfo, SaveWriter, list_saves, slot_path
from game.support import folders
from game.view import keys
from game.view.host import Host, TownSession
from game.view.overlay import Overlay

# A line of the list: a game (its saves) or one save.
Row = tuple[Literal["game"], GameSaves] | tuple[Literal["save"], SaveInfo]

log = logging.getLogger(__name__)

QUICK = "quick"
AUTOSAVE_MIN = 30.0
AUTOSAVE_KEEP = 5
AUTOSAVE_REAL_S = 20.0  # real seconds (frame time) at least between two autosaves
TOAST_CHARS = 90


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= TOAST_CHARS else text[: TOAST_CHARS - 1] + "…"


def _autosave_minutes(default: float = AUTOSAVE_MIN) -> float:
    raw = os.environ.get("SMALLVILLE_AUTOSAVE_MIN")
    if raw is None or not raw.strip():
        return default
    try:
        return max(0.0, float(raw))
    except ValueError:
        log.warning("SMALLVILLE_AUTOSAVE_MIN=%r is not a number; autosaving every %g sim minutes", raw, default)
        return default


class SaveMenu(Overlay):
    """The overlay: keys, the menu window, autosave and the background jobs."""

    name = "savemenu"

    def __init__(self, game: Host, folder: str | Path | None = None, autosave_min: float | None = None,
                 keep: int = AUTOSAVE_KEEP) -> None:
        self.game = game
        self.folder = Path(folder or game.saves_dir or folders.saves_dir())
        self.autosave_min = _autosave_minutes() if autosave_min is None else max(0.0, float(autosave_min))
        self.keep = keep
        self.writer = SaveWriter()
        self.jobs: list[SaveJob] = []  # saves and loads on the writer's thread, oldest first
        # The menu's disk work (listing the saves, deleting one) runs here, never on the frame.
        self.reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="save-list")
        self.listing: Future | None = None  # the saves folder being read
        self.deleting: list[tuple[str, Future]] = []
        self.last_auto: datetime | None = None  # sim time of the last autosave (None: from the first update)
        self.real_since_auto = AUTOSAVE_REAL_S  # frame seconds since the last autosave (the first is not held back)
        self.window: Any = None  # the menu (a UIWindow) while open
        self.widgets: dict[str, Any] = {}
        self.infos: dict[str, SaveInfo] = {}
        self.listed: list[SaveInfo] = []  # every file listed, two of one slot included
        self.games: list[GameSaves] = []  # the listing grouped by game, the most recent first
        self.rows: dict[str, Row] = {}  # the list's lines
        self.selected: str | None = None
        self.confirm_delete: Path | None = None  # the file a first press of Delete picked
        self.confirm_overwrite: str | None = None  # "Save as" a name of another game's save: asked once
        self._again = False
        self._was_paused: bool | None = None
        self.messages: list[str] = []  # every toast shown (tests)

    # ---- helpers -------------------------------------------------------------------------
    @property
    def session(self) -> TownSession | None:
        return self.game.session

    def _commands(self) -> Commands | None:
        """The town's commands (save, load); None without a running town."""
        s = self.session
        return s.commands if s is not None else None

    def toast(self, text: str) -> None:
        text = _short(text)
        self.messages.append(text)
        self.game.toast(text)
        self._say(text)

    def _say(self, text: str) -> None:
        label = self.widgets.get("status")
        if label is not None:
            label.set_text(_short(text))

    def busy(self) -> bool:
        return any(not j.future.done() for j in self.jobs)

    def wait(self, timeout: float = 30.0) -> bool:
        """Until saves, loads, the listing and deletions are done (tests, quitting); False on timeout."""
        end = time.monotonic() + timeout
        if not self.writer.wait(timeout):
            return False
        while (self.listing is not None and not self.listing.done()) or any(not f.done() for _, f in self.deleting):
            if time.monotonic() > end:
                return False
            time.sleep(0.005)
        return True

    def own(self, kind: str) -> str:
        """This game's own slot of a kind: ``continue``, ``quick``, ``crash`` (game/saves/series.py)."""
        commands = self._commands()
        return own_slot(commands.game_id if commands is not None else None, kind)

    # ---- saving and loading --------------------------------------------------------------
    def save(self, slot: str) -> Future | None:
        """Capture now (main thread) and write in the background (the town's ``save``)."""
        commands = self._commands()
        if commands is None:
            return None
        try:
            if slot.lower().endswith(SUFFIX) or Path(slot).name != slot:  # the menu names slots, not files elsewhere
                raise SaveError(f"'{slot[:64]}' is not a save name; type a name (letters, digits, spaces, '-', '_')")
            path = slot_path(slot, self.folder)
        except SaveError as err:
            log.warning("save failed: %s", err)
            self.toast(f"save failed: {err}")
            return None
        job = commands.save(self.writer, path, slot)
        if isinstance(job, Refused):
            self.toast(f"save failed: {job.message}")
            return None
        self.jobs.append(job)
        self.toast(f"saving slot {slot}…")
        return job.future

    def autosave(self) -> Future | None:
        commands = self._commands()
        if commands is None:
            return None
        job = commands.autosave(self.writer, self.folder, self.keep)
        if isinstance(job, Refused):
            return None
        self.jobs.append(job)
        return job.future

    def load(self, name: str | Path) -> Future | None:
        """Read and build the save in the background; the frame swaps it in when done."""
        commands = self._commands()
        if commands is None:
            return None
        try:
            path = resolve_path(name, self.folder)
        except SaveError as err:
            self.toast(f"load failed: {err}")
            return None
        if not path.exists():
            self.toast("no quick save of this game yet (F5 makes one)" if str(name) == self.own(QUICK)
                       else f"no save '{name}' to load")
            return None
        job = commands.load(self.writer, path, str(name))
        self.jobs.append(job)
        self.toast(f"loading {path.stem}…")
        return job.future

    def delete(self, save: str | SaveInfo) -> Future:
        """Delete a save on the menu's reader thread; the outcome is a toast. ``save``: the
        row's own file (a SaveInfo), or a slot name in the saves folder."""
        if isinstance(save, SaveInfo):  # the very file listed: another file of the same slot is not it
            slot, path = save.slot, save.path
        else:
            slot, path = save, slot_path(save, self.folder)
        fut = self.reader.submit(path.unlink)
        self.deleting.append((slot, fut))
        self._say(f"deleting {slot}…")
        return fut

    def _deleted(self, slot: str, fut: Future) -> None:
        err = fut.exception()
        if err is not None:
            why = getattr(err, "strerror", None) or str(err)  # an OSError's own words
            log.warning("deleting save %s failed: %s", slot, err)
            self.toast(f"cannot delete {slot}: {why}")
        else:
            self.toast(f"deleted slot {slot}")
        self.refresh()

    def _finish(self, job: SaveJob) -> None:
        kind, slot, fut = job.kind, job.slot, job.future
        err = fut.exception()
        if err is not None:
            log.warning("%s %s failed: %s", kind, slot, err)
            what = "load" if kind == "load" else "save"
            msg = str(err)
            self.toast(msg if msg.startswith(f"{what} failed") else f"{what} failed: {msg}")
            return
        result = fut.result()
        if kind == "load":
            self._loaded(slot, result)
        elif kind == "save":
            self.toast(f"saved slot {short_slot(result)}")
        else:
            log.info("autosaved %s", result.path)
        if self.window is not None:
            self.refresh()

    def _loaded(self, slot: str, prepared: Prepared) -> None:
        """A load read and built: the town swaps it in, then the window follows it."""
        session, commands = self.session, self._commands()
        if session is None or commands is None:
            return
        got = commands.loaded(prepared)
        if isinstance(got, Refused):
            self.toast(f"load failed: {got.message}")
            return
        try:
            after_load(self.game, got.info)
        except Exception as err:
            log.exception("swapping in the loaded game failed")
            self.toast(f"load failed: {type(err).__name__}: {err}")
            return
        self.last_auto = session.sim.now
        warned = f" ({got.warnings[0]})" if got.warnings else ""
        if got.branch:
            warned += " as a branch: the newer saves of that game are kept"
        self.toast(f"loaded slot {short_slot(got.info) if got.info else slot}{warned}")
        self.close_menu(resume=False)

    # ---- the menu ------------------------------------------------------------------------
    @property
    def open(self) -> bool:
        return self.window is not None

    def open_menu(self) -> None:
        if self.window is not None:
            return
        ui = self.game.ui
        w, h = 600, 440
        sw, sh = self.game.size
        rect = pygame.Rect((sw - w) // 2, max(10, (sh - h) // 2), w, h)
        win = UIWindow(rect, ui, window_display_title="Save / Load", object_id="#savemenu")
        cw = win.get_container().get_rect().width
        ch = win.get_container().get_rect().height
        self.widgets = {
            "list": UISelectionList(pygame.Rect(8, 8, cw - 16, ch - 130), [], ui, container=win),
            "name": UITextEntryLine(pygame.Rect(8, ch - 114, cw - 140, 34), ui, container=win),
            "save": UIButton(pygame.Rect(cw - 126, ch - 114, 118, 34), "Save as", ui, container=win),
            "load": UIButton(pygame.Rect(8, ch - 72, 118, 34), "Load", ui, container=win),
            "delete": UIButton(pygame.Rect(134, ch - 72, 118, 34), "Delete", ui, container=win),
            "close": UIButton(pygame.Rect(cw - 126, ch - 72, 118, 34), "Close", ui, container=win),
            "status": UILabel(pygame.Rect(8, ch - 34, cw - 16, 28), "F5 quick save · F9 quick load", ui,
                              container=win),
        }
        self.widgets["name"].set_text(self._suggest_name())
        self.window = win
        session = self.session
        if session is not None:
            self._was_paused = session.paused
            session.paused = True
        self.refresh()

    def close_menu(self, resume: bool = True) -> None:
        if self.window is None:
            return
        self.window.kill()
        self.window = None
        self.widgets = {}
        self.confirm_delete = self.confirm_overwrite = None
        session = self.session
        if resume and session is not None and self._was_paused is not None:
            session.paused = self._was_paused
        self._was_paused = None

    def _suggest_name(self) -> str:
        session = self.session
        if session is None:
            return "my save"
        return session.sim.now.strftime("%a %H%M").lower()

    def refresh(self) -> None:
        """Re-read the saves folder (each file's meta) on the reader thread; the list
        is filled in by ``update`` when it is back."""
        if self.listing is not None and not self.listing.done():
            self._again = True  # one more read when this one is back (a save finished meanwhile)
            return
        self._again = False
        self.listing = self.reader.submit(list_saves, self.folder)
        lst = self.widgets.get("list")
        if lst is not None and not self.infos:
            self._say("reading saves…")

    def _listed(self, fut: Future) -> None:
        try:
            infos = fut.result()
        except Exception as err:
            log.exception("listing the saves failed")
            self._say(f"cannot read {self.folder}/: {err}")
            return
        self.infos = {i.slot: i for i in infos}
        self.listed = list(infos)
        self.games = group_by_game(infos)
        self.rows = {}
        for g in self.games:  # a game's line, then its saves, indented
            self._row(g.label(), ("game", g))
            for i in g.saves:
                self._row("      " + i.label().replace(i.slot, short_slot(i), 1), ("save", i))
        lst = self.widgets.get("list")
        if lst is None:
            return
        lst.set_item_list(list(self.rows))
        if not infos:
            self._say(f"no saves yet in {self.folder}/")
        elif self.widgets["status"].text == "reading saves…":
            self._say("F5 quick save · F9 quick load")

    def _row(self, label: str, row: Row) -> None:
        while label in self.rows:  # two alike lines (same names and times): told apart invisibly
            label += " "
        self.rows[label] = row

    def _selected_row(self) -> Row | None:
        lst = self.widgets.get("list")
        sel = lst.get_single_selection() if lst is not None else None
        return self.rows.get(sel) if sel is not None else None

    def _selected_save(self) -> SaveInfo | None:
        """The save picked in the list (a game's line: its newest save): the row's own
        file, whatever slot name it holds inside."""
        row = self._selected_row()
        if row is None:
            return None
        return row[1].newest if row[0] == "game" else row[1]

    def _menu_event(self, event) -> bool:
        w = self.widgets
        if event.type == pygame_gui.UI_WINDOW_CLOSE and event.ui_element is self.window:
            self.window = None  # pygame_gui killed it
            self.widgets = {}
            session = self.session
            if session is not None and self._was_paused is not None:
                session.paused = self._was_paused
            self._was_paused = None
            return True
        if event.type == pygame_gui.UI_SELECTION_LIST_NEW_SELECTION and event.ui_element is w.get("list"):
            row = self._selected_row()
            self.confirm_delete = None
            if row is not None and row[0] == "game":
                self._say(f"Load: its newest save ({short_slot(row[1].newest)}); or pick one of its saves")
            elif row is not None:
                info = row[1]
                if not info.ok:
                    self._say(f"{info.slot}: {info.broken}")
                elif short_slot(info) == info.slot and info.slot not in OWN_SLOTS:
                    w["name"].set_text(info.slot)  # a name the player gave: offered to save over
            return True
        if event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element is w.get("name"):
            self._save_as()
            return True
        if event.type != pygame_gui.UI_BUTTON_PRESSED:
            return False
        el = event.ui_element
        if el is w.get("save"):
            self._save_as()
        elif el is w.get("load"):
            picked = self._selected_save()
            if picked is None:
                self._say("pick a save in the list first")
            else:
                self.load(str(picked.path))
        elif el is w.get("delete"):
            row = self._selected_row()
            doomed = row[1] if row is not None and row[0] == "save" else None
            if row is not None and row[0] == "game":
                self._say("pick one of the game's saves to delete")
            elif doomed is None:
                self._say("pick a save in the list first")
            elif self.confirm_delete != doomed.path:
                self.confirm_delete = doomed.path
                self._say(f"press Delete again to delete '{doomed.path.name}'")
            else:
                self.confirm_delete = None
                self.delete(doomed)
        elif el is w.get("close"):
            self.close_menu()
        else:
            return False
        return True

    def _save_as(self) -> None:
        name = " ".join(self.widgets["name"].get_text().split())
        if not name:
            self._say("type a name for the save first")
            return
        try:
            path = slot_path(name, self.folder)
        except SaveError as err:
            self._say(str(err))
            return
        other = self._other_games_save(name, path)
        if other and self.confirm_overwrite != name:
            self.confirm_overwrite = name
            self._say(f"'{name}' is a save of {other}: press Save as again to overwrite it, or type another name")
            return
        self.confirm_overwrite = None
        self.save(name)

    def _other_games_save(self, name: str, path: Path) -> str | None:
        """Whose game the save ``name`` holds, when it exists and is not this game's
        (None: no such save, or it is this game's own)."""
        if not path.exists():
            return None
        info = next((i for i in self.listed if i.path == path), None)  # that file's own meta
        commands = self._commands()
        mine = commands.game_id if commands is not None else None
        if info is not None and game_of(info) is not None and game_of(info) == mine:
            return None
        who = info.meta.get("visitor_name") if info is not None and info.ok else None
        return f"{who}'s game" if isinstance(who, str) and who else "another game"

    # ---- overlay protocol ----------------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> bool:
        if self.window is not None and self._menu_event(event):
            return True
        got = keys.hit(event)
        if got is None:
            return False
        if got.action == "quick_save":
            self.save(self.own(QUICK))
            return True
        if got.action == "quick_load":
            self.load(self.own(QUICK))
            return True
        if got.action == "save_menu":
            if self.window is None:
                self.open_menu()
            else:
                self.close_menu()
            return True
        if self.window is not None and got.action == "back":
            self.close_menu()
            return True
        return False

    def update(self, dt: float) -> None:
        if self.listing is not None and self.listing.done():
            fut, self.listing = self.listing, None
            self._listed(fut)
            if self._again:
                self.refresh()
        if self.deleting:
            done = [d for d in self.deleting if d[1].done()]
            self.deleting = [d for d in self.deleting if not d[1].done()]
            for slot, fut in done:
                self._deleted(slot, fut)
        if self.jobs:
            finished = [j for j in self.jobs if j.future.done()]
            if finished:
                self.jobs = [j for j in self.jobs if not j.future.done()]
                for job in finished:
                    self._finish(job)
        session = self.session
        if session is None or not self.autosave_min:
            return
        self.real_since_auto += max(0.0, dt)
        now = session.sim.now
        if self.last_auto is None or now < self.last_auto:
            self.last_auto = now
            return
        if now - self.last_auto >= timedelta(minutes=self.autosave_min) and not self.busy() \
                and self.real_since_auto >= AUTOSAVE_REAL_S:
            self.last_auto = now
            self.real_since_auto = 0.0
            self.autosave()

    def close(self, wait: bool = True) -> None:
        """At quit: let a save in progress finish (its file stays whole either way)."""
        self.writer.close(wait=wait)
        self.reader.shutdown(wait=False, cancel_futures=True)


def install(game: Host, folder: str | Path | None = None, autosave_min: float | None = None,
            keep: int = AUTOSAVE_KEEP) -> SaveMenu:
    menu = SaveMenu(game, folder, autosave_min, keep)
    game.add_overlay(menu)
    game.panels.savemenu = menu
    return menu


__all__ = ["AUTOSAVE_KEEP", "AUTOSAVE_MIN", "QUICK", "SaveMenu", "install"]
