"""`smallville fork`: controlled experiments from any moment of a run or a save.

    smallville fork runs/demo --at "2023-02-13 09:00" --hours 6 --branches 2 \\
        --whisper "Isabella Rodriguez" "You are going to run for mayor" --out runs/mayor

The branch point is the source's save at ``--at`` (a run folder keeps an
autosave every hour and one every 3 sim hours in ``saves/history/``); when no
save is exactly there, the newest one before it is run on to that moment once,
in ``<experiment>/trunk/``, so every branch starts from the same state. It is
copied to ``<experiment>/start.sqlite``.

Two arms, ``control`` (untouched) and ``treatment`` (every change given), run
``--branches N`` seeds each, the same seeds in both arms, each into its own run
folder ``<experiment>/runs/<arm>-seed<k>/``. ``manifest.json`` says what was
run, from where, with which changes, and what came of each branch. All
branches share one response cache (``<experiment>/cache.sqlite``, or
``--cache``), so identical prompts are answered once.

``smallville compare <experiment>`` reports the arms side by side.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

from agents import CastError
from game.headless import TIME_FORMAT
from game.interview_cli import find_agent
from game.runs import forecast
from game.saves.saveload import resolve_path
from game.saves.store import SaveInfo, copy_atomically, list_saves, load_state, read_info
from game.support import folders
from game.support.errors import UserError
from game.world.map_reader import load_town
from lab.experiment.branch import parse_event, read_persona, run_branch
from lab.experiment.runners import run_here, run_processes, run_ray

MANIFEST = "manifest.json"
START_SAVE = "start.sqlite"
ARMS = ("control", "treatment")


# ---------------------------------------------------------------------------- the branch point


def parse_at(text: str, first_day: datetime) -> datetime:
    """ "2023-02-13 09:00", or "09:00" on the source's first day."""
    t = " ".join(str(text).split())
    for fmt in (TIME_FORMAT, "%H:%M"):
        try:
            got = datetime.strptime(t, fmt)
        except ValueError:
            continue
        return got if fmt == TIME_FORMAT else first_day.replace(hour=got.hour, minute=got.minute, second=0)
    raise UserError(f'--at {text!r}: use the form "2023-02-13 09:00" (or "09:00" for the first day)')


def saves_of(source: str | Path) -> list[SaveInfo]:
    """The loadable saves of a run folder (its saves/ and saves/history/), or the one save named."""
    src = Path(source)
    if src.is_dir():
        found = [i for d in (src / "saves", src / "saves" / "history") for i in list_saves(d) if i.ok]
        if not found:
            raise UserError(f"fork {source}: the run folder has no loadable saves in saves/ or saves/history/")
        return found
    path = resolve_path(source)
    if not path.exists():
        raise UserError(f"fork {source}: there is no such run folder or save ({path})")
    return [read_info(path)]


def branch_point(saves: list[SaveInfo], at: datetime | None) -> SaveInfo:
    """The save at ``at`` or the newest before it (no ``at``: the newest of all)."""
    timed = sorted((i for i in saves if i.sim_time is not None), key=lambda i: i.sim_time or datetime.min)
    if not timed:
        raise UserError("fork: none of the source's saves says when it was made")
    if at is None:
        return timed[-1]
    before = [i for i in timed if i.sim_time <= at]  # type: ignore[operator]
    if not before:
        have = ", ".join(f"{i.sim_time:%Y-%m-%d %H:%M}" for i in timed[:6])
        raise UserError(f"--at {at:%Y-%m-%d %H:%M}: the source has no save at or before it (saves at: {have})")
    return before[-1]


# ---------------------------------------------------------------------------- the arms' changes


def collect_changes(args: Any, residents: list[str], town: Any) -> list[dict]:
    """The treatment arm's changes from the flags, each checked against the branch point
    (UserError naming the flag and what is wrong)."""
    changes: list[dict] = []
    for name, text in getattr(args, "whisper", None) or []:
        if not str(text).strip():
            raise UserError(f"--whisper {name!r}: say what they hear, e.g. \"You are going to run for mayor\"")
        changes.append({"kind": "whisper", "name": _resident(name, residents, "--whisper"), "text": str(text)})
    for text in getattr(args, "event", None) or []:
        address, state = parse_event(text, town)
        changes.append({"kind": "event", "text": f"<{address}> is {state}"})
    for name in getattr(args, "remove", None) or []:
        changes.append({"kind": "remove", "name": _resident(name, residents, "--remove")})
    for f in getattr(args, "add_persona", None) or []:
        try:
            persona = read_persona(f)
        except CastError as err:
            raise UserError(str(err)) from None
        if persona.name in residents:
            raise UserError(f"--add-persona {f}: {persona.name} already lives in this town")
        for addr in [persona.home, persona.workplace, *persona.places]:
            if town.resolve(addr) is None:
                raise UserError(f"--add-persona {f}: {persona.name}'s place {addr!r} is not on the map")
        changes.append({"kind": "add_persona", "file": str(f), "persona": asdict(persona)})
    return changes


def _resident(name: str, residents: list[str], flag: str) -> str:
    try:
        return find_agent(name, residents)
    except UserError:
        raise UserError(f"{flag} {name!r}: no such resident at the branch point. Residents: "
                        f"{', '.join(residents)}") from None


def describe(changes: list[dict], model: str | None) -> list[str]:
    out = []
    for ch in changes:
        if ch["kind"] == "whisper":
            out.append(f"{ch['name']} hears: \u201c{ch['text']}\u201d")
        elif ch["kind"] == "event":
            out.append(ch["text"])
        elif ch["kind"] == "remove":
            out.append(f"{ch['name']} leaves the town")
        elif ch["kind"] == "add_persona":
            out.append(f"{ch['persona']['name']} joins the town")
    if model:
        out.append(f"model {model}")
    return out


# ---------------------------------------------------------------------------- the command


def branch_specs(folder: Path, start_save: Path, map_path: Path, hours: float, seeds: list[int],
                 changes: list[dict], model: str | None, cache: Path, args: Any) -> list[dict]:
    specs = []
    for arm in ARMS:
        for seed in seeds:
            name = f"{arm}-seed{seed}"
            specs.append({"name": name, "arm": arm, "seed": seed, "save": str(start_save),
                          "out": str(folder / "runs" / name), "hours": hours, "map": str(map_path),
                          "cache": str(cache), "model": model if arm == "treatment" else None,
                          "changes": changes if arm == "treatment" else [],
                          "max_cost": getattr(args, "max_cost", None), "max_tokens": getattr(args, "max_tokens", None)})
    return specs


def _write(folder: Path, manifest: dict) -> None:
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False, default=str) + "\n",
                                   encoding="utf-8")


# long: the fork command's steps in order: check, copy, change, run both arms, report
def main_fork(args: Any, *, echo: Callable[[str], None] | None = None,
              run: Callable[[dict], dict] = run_branch) -> int:
    say = echo or (lambda s: print(s, file=sys.stderr))
    hours = float(getattr(args, "hours", 0) or 0)
    if hours <= 0:
        raise UserError("--hours must be more than 0")
    n = int(getattr(args, "branches", 1) or 0)
    if n < 1:
        raise UserError("--branches must be at least 1 (seeds per arm)")
    workers = int(getattr(args, "workers", 1) or 1)
    if workers < 1:
        raise UserError("--workers must be at least 1")
    saves = saves_of(args.source)
    first = min((i.sim_time for i in saves if i.sim_time), default=datetime(2023, 2, 13))
    at = parse_at(args.at, first) if getattr(args, "at", None) else None
    point = branch_point(saves, at)
    at = at or point.sim_time or datetime.min  # a branch point always has a time (branch_point)
    map_path = Path(point.map_path) if point.map_path and Path(point.map_path).exists() else Path(args.map)
    town = load_town(map_path)
    parts, info = load_state(point.path, expect_map=town, require=("sim", "session"))
    residents = list((parts.get("session") or {}).get("residents") or info.residents)
    changes = collect_changes(args, residents, town)
    model = getattr(args, "model", None)
    if not changes and not model:
        raise UserError("fork: give the treatment arm a change: --whisper NAME TEXT, --event \"<address> is "
                        "<state>\", --remove NAME, --add-persona FILE or --model MODEL")
    base = int(getattr(args, "seed", 0) or 0)
    seeds = [base + k for k in range(n)]

    saved_model = str((parts.get("config") or {}).get("model") or "?")
    trunk_h = max(0.0, (at - point.sim_time).total_seconds() / 3600) if point.sim_time else 0.0
    plan = forecast.forecast(saved_model, residents=len(residents), hours=hours, start=at, fresh=False,
                             runs=n if model else 2 * n)
    say(f"fork: {len(residents)} residents from {point.path.name} ({point.sim_time:%Y-%m-%d %H:%M})"
        + (f", run on to {at:%Y-%m-%d %H:%M} once" if trunk_h else "")
        + f"; 2 arms x {n} seeds x {hours:g} sim hours")
    say("fork: " + plan.line(f"{n} control branches" if model else f"{2 * n} branches"))
    if model:  # the treatment's own model
        say("fork: " + forecast.forecast(model, residents=len(residents), hours=hours, start=at, fresh=False,
                                         runs=n).line(f"{n} treatment branches"))
    if getattr(args, "dry_run", False):
        return 0

    folder = Path(args.out) if getattr(args, "out", None) else folders.runs_dir() / datetime.now().strftime(
        "fork-%Y%m%d-%H%M%S")
    if (folder / MANIFEST).exists():
        raise UserError(f"{folder} already holds an experiment; give --out a new folder")
    folder.mkdir(parents=True, exist_ok=True)
    cache = Path(args.cache) if getattr(args, "cache", None) else folder / "cache.sqlite"
    start_save = folder / START_SAVE
    manifest: dict[str, Any] = {
        "created": datetime.now().isoformat(timespec="seconds"), "source": str(args.source),
        "source_save": str(point.path), "at": at.strftime(TIME_FORMAT), "hours": hours, "seeds": seeds,
        "residents": residents, "map": str(map_path), "model": saved_model, "cache": str(cache),
        "arms": {"control": {"changes": [], "model": None},
                 "treatment": {"changes": changes, "model": model, "described": describe(changes, model)}},
        "forecast": plan.to_dict(), "branches": {},
    }
    _write(folder, manifest)
    if trunk_h > 0:
        say(f"fork: running the source on from {point.sim_time:%H:%M} to {at:%H:%M} (the trunk)")
        saved_seed = int((parts.get("session") or {}).get("seed") or 0)
        trunk: dict[str, Any] = {"name": "trunk", "arm": "trunk", "seed": saved_seed, "save": str(point.path),
                                 "out": str(folder / "trunk"), "hours": trunk_h, "map": str(map_path),
                                 "cache": str(cache), "model": None, "changes": []}
        res = run(trunk)
        end = Path(res["run"]) / "saves" / "end.sqlite"
        if not end.exists():
            raise UserError(f"fork: the trunk run did not save its end ({folder / 'trunk'}); see the log")
        copy_atomically(end, start_save)
    else:
        copy_atomically(point.path, start_save)  # whole or not at all, as a save
    specs = branch_specs(folder, start_save, map_path, hours, seeds, changes, model, cache, args)
    say(f"fork: {len(specs)} branches into {folder / 'runs'}"
        + (f" on Ray ({args.ray})" if getattr(args, "ray", None) else f", {workers} at a time" if workers > 1 else ""))
    if getattr(args, "ray", None):
        results = run_ray(specs, args.ray, say)
    elif workers > 1:
        results = run_processes(specs, workers, folder, say)
    else:
        results = run_here(specs, say, run)
    manifest["branches"] = {s["name"]: {"arm": s["arm"], "seed": s["seed"], "run": str(Path("runs") / s["name"]),
                                        **{k: v for k, v in results.get(s["name"], {}).items() if k != "run"}}
                            for s in specs}
    manifest["finished"] = datetime.now().isoformat(timespec="seconds")
    _write(folder, manifest)
    dead = [name for name, r in manifest["branches"].items() if r.get("error")]
    for name in dead:
        say(f"fork: branch {name} died twice: {manifest['branches'][name]['error']}")
    say(f"fork: wrote {folder / MANIFEST}; compare the arms with: smallville compare {folder}")
    return 1 if dead else 0


__all__ = ["ARMS", "MANIFEST", "branch_point", "collect_changes", "main_fork", "parse_at", "saves_of"]
