"""What a resident had in mind at a moment of a replay: plans and memories from
the run's nearest save before that moment (no pygame; no model is called).

``SavedMinds`` lists the saves made along a recording (a run folder's
``saves/`` and ``saves/history/``; in the game's save folder, the saves whose
real and sim times fall inside the recording's), on a background thread.
``snapshot(name, when)`` is what the inspector shows: ``Mind.inspect()`` of
the resident as the nearest save at or before ``when`` holds them, marked
with a ``note`` saying which save and how old; when no save that early is
kept, the nearest later one with the memories after ``when`` left out (and
said so). A save is read (and its minds rebuilt, with stand-ins that refuse
model calls) on the background thread the first time it is needed; until
then the snapshot says it is being read. The frame never waits.
"""
from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import NoReturn, Protocol

import numpy as np

from agents import Inspection, Mind, Persona
from game.replay.reader import Recording, Target
from game.saves.store import SaveError, list_saves, load_state
from game.world.town import Town

log = logging.getLogger(__name__)

KEEP_LOADED = 2  # saves whose minds stay in memory (moving back and forth between two)
WALL_SLACK_S = 120.0  # a game's save belongs to a recording made around the same real time


class NoModel:
    """The minds of a replay are never asked anything: a call is a bug, said plainly."""

    def __init__(self, config: object = None) -> None:
        self.config = config  # the saved model configuration, read by name (the mind's planning mode)

    def ask_traced(self, *args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError("a replay calls no model")

    def ask_once(self, request: object) -> NoReturn:
        raise RuntimeError("a replay calls no model")


class SavedEmbedder:
    """The saved memories' embedding model, by name only: a replay embeds nothing."""

    def __init__(self, model_name: str, dim: int) -> None:
        self.model_name = model_name
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise RuntimeError("a replay embeds nothing")


@dataclass
class SaveRef:
    when: datetime
    path: Path
    slot: str


def _utc(t: datetime | None) -> float | None:
    if t is None:
        return None
    return (t if t.tzinfo else t.replace(tzinfo=UTC)).timestamp()


class SavedMinds:
    """The recording's saves, and the minds in them (see the module's notes)."""

    def __init__(self, rec: Recording, target: Target | None, personas: dict[str, Persona],
                 town: Town | None = None) -> None:
        self.rec = rec
        self.target = target
        self.personas = personas
        self.town = town
        self.saves: list[SaveRef] | None = None  # None until listed
        self._loaded: OrderedDict[Path, dict[str, Mind | str]] = OrderedDict()  # path -> name -> Mind (or why not)
        self._loading: dict[Path, Future] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="replay-saves")
        self._listing = self._pool.submit(self._list) if target is not None else None
        if target is None:
            self.saves = []

    # ---- which saves ---------------------------------------------------------------------
    def _list(self) -> list[SaveRef]:
        rec, target = self.rec, self.target
        assert target is not None
        names = set(rec.residents)
        w0, w1 = rec.wall_span()
        out: dict[datetime, SaveRef] = {}
        for folder in target.save_folders:
            for info in list_saves(folder):
                if not info.ok or info.sim_time is None or set(info.residents or ()) != names:
                    continue
                if info.world and rec.world and info.world != rec.world:
                    continue
                if not rec.start <= info.sim_time <= rec.end + rec.step:
                    continue
                if target.game:  # the save folder holds other games' saves: this one's were made while it ran
                    saved = _utc(info.saved_at)
                    if saved is None or w0 is None or w1 is None or not w0 - WALL_SLACK_S <= saved <= w1 + WALL_SLACK_S:
                        continue
                out.setdefault(info.sim_time, SaveRef(info.sim_time, info.path, info.slot))
        saves = sorted(out.values(), key=lambda s: s.when)
        self.saves = saves
        log.info("replay of %s: %d saves along it", rec.path, len(saves))
        return saves

    def nearest(self, when: datetime) -> tuple[SaveRef | None, bool]:
        """(the save to show ``when`` from, whether it is later than ``when``)."""
        saves = self.saves or []
        before = [s for s in saves if s.when <= when]
        if before:
            return before[-1], False
        return (saves[0], True) if saves else (None, False)

    # ---- the minds in a save --------------------------------------------------------------
    def _load(self, ref: SaveRef) -> dict[str, Mind | str]:
        try:
            parts, _ = load_state(ref.path, expect_map=self.town)
        except SaveError as err:
            return {"": f"the save {ref.slot} cannot be read: {err}"}
        config = SimpleNamespace(**(parts.get("config") or {}))
        minds: dict[str, Mind | str] = {}
        for key, state in parts.items():
            if not key.startswith("minds/"):
                continue
            name = key[len("minds/"):]
            persona = self.personas.get(name)
            if persona is None:
                continue
            try:
                mem = state["memory"]
                mind = Mind(persona, NoModel(config), SavedEmbedder(str(mem["model"]), int(mem["dim"])))
                mind.from_state(state)
                minds[name] = mind
            except Exception as err:
                log.exception("rebuilding %s from %s failed", name, ref.path)
                minds[name] = f"{name}'s mind in {ref.slot} cannot be read: {err}"
        return minds

    def _minds_of(self, ref: SaveRef) -> dict[str, Mind | str] | None:
        """The save's minds when read; else start reading it (off the frame) and None."""
        with self._lock:
            got = self._loaded.get(ref.path)
            if got is not None:
                self._loaded.move_to_end(ref.path)
                return got
            fut = self._loading.get(ref.path)
            if fut is None:
                self._loading[ref.path] = self._pool.submit(self._read, ref)
            return None

    def _read(self, ref: SaveRef) -> None:
        minds = self._load(ref)
        with self._lock:
            self._loaded[ref.path] = minds
            self._loading.pop(ref.path, None)
            while len(self._loaded) > KEEP_LOADED:
                self._loaded.popitem(last=False)

    def wait(self, timeout: float | None = None) -> None:
        """Until the saves are listed and nothing is being read (tests, exports)."""
        if self._listing is not None:
            self._listing.result(timeout)
        while True:
            with self._lock:
                futs = list(self._loading.values())
            if not futs:
                return
            for f in futs:
                f.result(timeout)

    # ---- what the inspector shows ----------------------------------------------------------
    def snapshot(self, name: str, when: datetime) -> Inspection:
        """The resident's inspector snapshot as of ``when`` (see the module's notes)."""
        if self.saves is None:
            return Inspection(note="looking for the run's saves…")
        ref, later = self.nearest(when)
        if ref is None:
            return Inspection(note="no save of this run is kept, so plans and memories cannot be shown; "
                                   "what they did is the recording's")
        minds = self._minds_of(ref)
        if minds is None:
            return Inspection(note=f"reading the save of {ref.when:%a %H:%M} ({ref.slot})…")
        mind = minds.get(name)
        if mind is None or isinstance(mind, str):
            unread = minds.get("")  # the whole save could not be read: why
            why = mind or (unread if isinstance(unread, str) else "") or f"{name} is not in the save {ref.slot}"
            return Inspection(note=why)
        snap = mind.inspect()
        age = _span(when - ref.when if not later else ref.when - when)
        if later:
            return replace(snap, memories=tuple(m for m in snap.memories if m.created <= when),
                           reflections=tuple(m for m in snap.reflections if m.created <= when),
                           note=(f"Plan and memories from the save of {ref.when:%a %H:%M} ({ref.slot}), {age} "
                                 "AFTER this moment (no earlier save is kept); memories made after this moment are "
                                 "left out"))
        return replace(snap, note=(f"Plan and memories as saved at {ref.when:%a %H:%M} ({ref.slot}), {age} before "
                                   "this moment; the action above is the recording's"))

    def memory_text(self, name: str, when: datetime, node_id: int) -> str | None:
        ref, _ = self.nearest(when)
        if ref is None:
            return None
        with self._lock:
            minds = self._loaded.get(ref.path)
        mind = (minds or {}).get(name)
        return mind.memory_text(int(node_id)) if isinstance(mind, Mind) else None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _span(d: timedelta) -> str:
    mins = int(abs(d).total_seconds() // 60)
    if mins < 1:
        return "less than a minute"
    h, m = divmod(mins, 60)
    return (f"{h} h {m} min" if m else f"{h} h") if h else f"{m} min"


class Clock(Protocol):
    """The replay's clock (its ``ReplaySession``, game/replay/playback.py, which imports this module)."""

    @property
    def now(self) -> datetime: ...


class ReplayMind:
    """What the panels read of a mind in a replay: ``inspect()`` as of the replay's moment."""

    def __init__(self, name: str, persona: Persona | None, saved: SavedMinds, clock: Clock) -> None:
        self.name = name
        self.persona = persona
        self._saved = saved
        self._clock = clock  # has ``now``: the replay's sim time

    def inspect(self) -> Inspection:
        return self._saved.snapshot(self.name, self._clock.now)

    def memory_text(self, node_id: int) -> str | None:
        return self._saved.memory_text(self.name, self._clock.now, node_id)


__all__ = ["Clock", "NoModel", "ReplayMind", "SaveRef", "SavedEmbedder", "SavedMinds"]
