"""A run folder or a save file, read once as plain data (no pygame): the minds'
states, the event log, the cast, the start and end times; and minds rebuilt
from it. `smallville interview` reads saves through it, and so do the lab's
evaluations (lab/evaluate/).

A run folder (``runs/NAME``) gives its newest loadable save and its
``events.jsonl``; a save inside a run folder (``runs/NAME/saves/x.sqlite``) is
read with its run's events; a save alone carries the sim's own event log.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from agents import (
    CastError,
    ConfigError,
    Embedder,
    Gateway,
    Mind,
    MindSettings,
    ModelConfig,
    Persona,
    Scenario,
    load_config,
    load_config_for_saved,
    make_embedder,
    model_flags,
)
from game.saves.cast import PERSONAS, saved_cast
from game.saves.store import SaveError, SaveInfo, list_saves, load_state, read_info
from game.support.errors import UserError

log = logging.getLogger(__name__)


@dataclass
class Target:
    """A run folder and/or a save, read once."""
    given: Path
    folder: Path | None = None          # the run folder (events.jsonl, summary.json)
    save: Path | None = None            # the save used for the end state
    info: SaveInfo | None = None        # its meta
    parts: dict | None = None           # its parts (load_state)
    events: list[dict] | None = None
    events_source: str = ""
    residents: list[str] = field(default_factory=list)
    start: datetime | None = None
    end: datetime | None = None
    map_path: Path | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def states(self) -> dict[str, dict]:
        if not self.parts:
            return {}
        return {k[6:]: v for k, v in self.parts.items() if k.startswith("minds/")}


def read_events(path: Path, counts: dict[str, int] | None = None) -> list[dict]:
    """An events.jsonl file; a line that is not a JSON object (nested too deep, a list, a
    number) is a bad line: skipped, counted (``counts["bad"]``), and the log says how many."""
    out = []
    bad = first_bad = 0
    with path.open(encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                event = json.loads(line)
            except (ValueError, RecursionError):  # RecursionError: nested too deep
                event = None
            if isinstance(event, dict):
                out.append(event)
            else:
                bad += 1
                first_bad = first_bad or n
    if bad:
        log.warning("%s: %d line(s) are not events (not a JSON object; the first is line %d); skipped",
                    path, bad, first_bad)
    if counts is not None:
        counts["bad"] = bad
    return out


def parse_time(v: object) -> datetime | None:
    """A datetime, or an ISO time string as saves and events write them; None when it is neither."""
    if isinstance(v, datetime):
        return v
    if not v:
        return None
    try:
        return datetime.fromisoformat(str(v))
    except ValueError:
        return None


def load_target(given: str | Path, default_map: str | Path | None = None) -> Target:
    """A run folder (its newest loadable save, if any) or a save file. A save
    inside a run folder (``runs/NAME/saves/x.sqlite``) is read with its run's events."""
    p = Path(given)
    tg = Target(given=p)
    if not p.exists():
        raise UserError(f"evaluate {p}: there is no such run folder or save file")
    if p.is_dir():
        tg.folder = p
        good = [i for i in list_saves(p / "saves") if i.ok] or [i for i in list_saves(p) if i.ok]
        if good:
            tg.save = good[0].path
        else:
            tg.notes.append("the run folder has no loadable save: the memory and interview measures are skipped")
    else:
        tg.save = p
        if p.parent.name == "saves" and (p.parent.parent / "events.jsonl").exists():
            tg.folder = p.parent.parent
    if tg.save is not None:
        try:
            read_info(tg.save)
            tg.parts, tg.info = load_state(tg.save, require=("sim", "session"))
        except SaveError as err:
            if tg.folder is None:
                raise
            tg.notes.append(f"the save cannot be read ({err}): memory and interview measures skipped")
            tg.save = None
    summary = {}
    if tg.folder is not None and (tg.folder / "summary.json").exists():
        try:
            summary = json.loads((tg.folder / "summary.json").read_text(encoding="utf-8"))
        except (ValueError, RecursionError):  # RecursionError: nested too deep
            summary = {}
        if not isinstance(summary, dict):
            summary = {}
    if tg.folder is not None and (tg.folder / "events.jsonl").exists():
        counts: dict[str, int] = {}
        tg.events = read_events(tg.folder / "events.jsonl", counts)
        if counts["bad"]:
            tg.notes.append(f"{counts['bad']} damaged line(s) of events.jsonl skipped")
        tg.events_source = str(tg.folder / "events.jsonl")
    elif tg.parts is not None and isinstance((tg.parts.get("sim") or {}).get("events"), list):
        tg.events = [e for e in tg.parts["sim"]["events"] if isinstance(e, dict)]
        tg.events_source = f"the event log inside {tg.save}"
    else:
        tg.notes.append("no event log: the over-time and coordination measures that need events are skipped")
    sess = (tg.parts or {}).get("session") or {}
    tg.residents = list(sess.get("residents") or (tg.info.residents if tg.info else []) or summary.get("residents")
                        or [])
    if not tg.residents and tg.events:
        seen: dict[str, None] = {}
        for e in tg.events:
            if e.get("resident"):
                seen.setdefault(e["resident"], None)
        tg.residents = list(seen)
    clock = (tg.parts or {}).get("clock") or {}
    tg.start = parse_time(clock.get("start")) or parse_time(summary.get("start"))
    tg.end = parse_time(clock.get("now")) or (tg.info.sim_time if tg.info else None) or parse_time(summary.get("end"))
    if tg.events:
        times = [t for t in (parse_time(e.get("time")) for e in tg.events) if t is not None]
        last = max(times, default=None)
        if last and (tg.end is None or (tg.save is None and last > tg.end)):
            tg.end = last
    mp = sess.get("map") or (tg.info.map_path if tg.info else None) or summary.get("map") or default_map
    tg.map_path = Path(mp) if mp else None
    return tg


def cast_of(tg: Target, default_map: str | Path) -> tuple[dict[str, Persona], Scenario]:
    """(personas by name, scenario) of the save's town: the residents it keeps, else the
    scenario's and those regrown from its seed (game/saves/cast.py); UserError when it does
    not know a resident."""
    mp = tg.map_path if tg.map_path and Path(tg.map_path).exists() else Path(default_map)
    sess = (tg.parts or {}).get("session") or {}
    try:
        return saved_cast(mp, tg.residents, sess.get("seed") or 0, stored=sess.get(PERSONAS))
    except CastError as err:
        raise UserError(f"{tg.given}: {err}") from None


def model_setup(args: argparse.Namespace | Mapping[str, object], tg: Target, gateway: Gateway | None,
                embedder: Embedder | None,
                need_model: bool) -> tuple[Gateway | None, Embedder | None, ModelConfig | None]:
    """(gateway, embedder, config) for the interviews and the memory judge."""
    config = getattr(gateway, "config", None)
    if gateway is None and need_model:
        given = model_flags(args)
        try:
            config, note = load_config_for_saved((tg.parts or {}).get("config"), given)
        except ConfigError as err:
            raise UserError(str(err)) from None
        if note:
            print(f"smallville: {note}", file=sys.stderr)
        gateway = Gateway(config)
    if embedder is None and tg.parts is not None:
        try:
            embedder = make_embedder(config or load_config({}))
        except Exception as err:  # noqa: BLE001 - the memory judge falls back to keywords
            log.warning("no embedder (%s): memory judge by keywords", err)
            embedder = None
    return gateway, embedder, config


def end_minds(tg: Target, personas: dict[str, Persona], gateway: Gateway, embedder: Embedder,
              settings: MindSettings | None = None) -> dict[str, Mind]:
    """The residents' minds as the save holds them, on ``gateway`` and ``embedder``."""
    return {r: Mind.restore(personas[r], gateway, embedder, s, settings) for r, s in tg.states.items()
            if r in personas}


__all__ = ["Target", "cast_of", "end_minds", "load_target", "model_setup", "parse_time", "read_events"]
