"""`smallville sim`: run the town without a window and write a run folder.

    smallville sim --agents 3 --start "2023-02-13 07:00" --hours 2 --seed 0 --out runs/demo

The run steps as lockstep does (the clock waits for the minds' answers due each
step), so a seeded run with a deterministic model (the embedded one, or any
model with the response cache) replays the same. With ``--out-of-order`` the
minds are also asked early what they will be asked later, wherever nothing can
change the question meanwhile (game/sim/ahead.py): the same run, event for
event (docs/stepping.md). The run folder gets:

- ``timeline.md``   readable: per sim minute who does what where, dialogue, reflections
- ``events.jsonl``  the simulation's event log, one event per line (streamed)
- ``llm_calls.jsonl`` one line per model call, with resident and purpose (streamed)
- ``summary.json``  per resident calls, tokens, fallbacks; totals; wall time; sim span
- ``recording.jsonl`` every resident's tile at every step, actions, lines, object
  states, written as the run goes (game/runs/recording.py; ``smallville replay`` plays
  it back); ``saves/history/`` keeps an autosave every few sim hours for it
- ``why.jsonl.gz``  every decision's record: the memories retrieved with their scores,
  the prompt and the answer (agents/explain/why.py; ``smallville why`` reads it)

Ctrl-C stops the run and still writes all four files.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO

from tqdm import tqdm

from agents import (
    SAY,
    Accounting,
    CastError,
    ConfigError,
    Embedder,
    Gateway,
    MindSettings,
    ModelConfig,
    Persona,
    ResidentMind,
    Scenario,
    load_cast,
    load_config,
    load_config_for_saved,
    local_model,
    model_flags,
    redact,
    redact_data,
    why,
)
from game.runs import forecast
from game.runs.build import Parts, build_parts, select_residents
from game.runs.days import DayLedger
from game.runs.forecast import Ceiling
from game.runs.recording import FILE as RECORDING_FILE
from game.runs.recording import HISTORY_FOLDER, Recorder, SaveHistory
from game.runs.timeline import TIME_FORMAT, economy_text, make_summary, timeline_text
from game.saves.cast import PERSONAS, saved_cast
from game.saves.saveload import capture, restore
from game.saves.store import SaveError, SaveInfo, SaveWriter, list_saves, load_state, read_info
from game.sim import STEP, Pool, SimSettings, Simulation
from game.sim.clocks import GroupClocks
from game.support import folders
from game.support.errors import UserError
from game.world.map_reader import load_town
from game.world.town import Town

log = logging.getLogger(__name__)

AUTOSAVE_MIN = 60.0  # headless runs autosave every this many sim minutes
AUTOSAVE_KEEP = 3


# ---------------------------------------------------------------------------- the command's arguments


def parse_start(text: str | None, default: datetime) -> datetime:
    if not text:
        return default
    try:
        return datetime.strptime(text.strip(), TIME_FORMAT)
    except ValueError:
        raise UserError(f'--start {text!r}: use the form "2023-02-13 07:00"') from None


# ---------------------------------------------------------------------------- the run


@dataclass
class RunResult:
    out: Path
    summary: dict
    sim: Simulation
    interrupted: bool = False
    files: dict[str, Path] = field(default_factory=dict)


def run_headless(
    town: Town,
    personas: Sequence[Persona],
    *,
    start: datetime,
    hours: float,
    out: str | Path,
    scenario: Scenario | None = None,
    config: ModelConfig | None = None,
    gateway: Gateway | None = None,
    embedder: Embedder | None = None,
    minds: Mapping[str, ResidentMind] | None = None,
    seed: int = 0,
    progress: bool = True,
    sim_settings: SimSettings | None = None,
    mind_settings: MindSettings | None = None,
    on_step: Callable[[Simulation], None] | None = None,
    echo: Callable[[str], None] | None = print,
    resume: tuple[dict, SaveInfo] | None = None,
    autosave_min: float | None = AUTOSAVE_MIN,
    keep: int = AUTOSAVE_KEEP,
    ceiling: Ceiling | None = None,
    on_start: Callable[[Parts], None] | None = None,
    out_of_order: bool = False,
) -> RunResult:
    """Run lockstep for ``hours`` sim hours and write the run folder. Gateway,
    embedder (and even minds) may be injected (tests); otherwise they are
    built from ``config`` (agents.llm.load_config).

    Saves go to ``<out>/saves/``: an autosave every ``autosave_min`` sim
    minutes (the last ``keep`` kept; 0 or None: none) and ``end.sqlite`` when
    the run ends (Ctrl-C too). ``resume=(parts, info)`` (from
    ``game.saves.store.load_state``) continues a saved run: its events and model
    calls are appended to the folder's files, the timeline and summary cover
    the whole run.

    ``ceiling`` (game/runs/forecast.py: ``--max-cost`` / ``--max-tokens``) stops the run
    when it has spent that much, with its end save; ``on_start(parts)`` changes the
    built (or restored) town before the first step (`smallville fork`'s branches).
    Every finished run teaches the forecast its model's rates.

    ``out_of_order`` (``smallville sim --out-of-order``): each resident steps on its own
    clock, as far ahead of the others as nothing can pass between them meanwhile
    (game/sim/clocks.py), so the model works on every group's questions at once. The
    run is the same as lockstep's, event for event (docs/stepping.md)."""
    run = _open_run(town, personas, start=start, out=out, scenario=scenario, config=config, gateway=gateway,
                    embedder=embedder, minds=minds, seed=seed, sim_settings=sim_settings, mind_settings=mind_settings,
                    resume=resume, autosave_min=autosave_min, on_start=on_start, out_of_order=out_of_order,
                    echo=echo)
    sim = run.sim
    embedded = bool(getattr(run.config, "is_embedded", False))
    span = _Span(begin=sim.now, usage0=run.accounting.summary(), t0=0.0,
                 busy0=local_model.model().busy_s() if embedded else None)
    end = span.begin + timedelta(hours=hours)
    if ceiling is not None:
        ceiling.start(run.accounting)
    span.t0 = time.monotonic()
    ledger = DayLedger(run.accounting, sim.now, _days_so_far(run) if resume is not None else (), began=run.start)

    def noted(s: Simulation) -> None:  # each sim day's wall time, calls and tokens (summary.json's "days")
        ledger.see(s.now)
        if on_step is not None:
            on_step(s)
    step = _step_apart if out_of_order else _step_run
    interrupted, stopped = step(run, end, keep=keep, on_step=noted, ceiling=ceiling, progress=progress)
    last_save, interrupted = _close_run(run, interrupted, echo)
    summary = _summarize(run, span, town, interrupted=interrupted, stopped=stopped, last_save=last_save,
                         resumed=resume is not None, out_of_order=out_of_order)
    summary["days"] = ledger.rows()
    summary["cache_problem"] = getattr(run.gateway, "cache_problem", None)
    run.files["summary"].write_text(redact(json.dumps(summary, indent=2, ensure_ascii=False)) + "\n",
                                    encoding="utf-8")
    run.files["timeline"].write_text(timeline_text(sim, summary, town), encoding="utf-8")
    if echo is not None:
        _echo_run(echo, summary, run.out, interrupted=interrupted, last_save=last_save, out_of_order=out_of_order)
    return RunResult(out=run.out, summary=summary, sim=sim, interrupted=interrupted, files=run.files)


def _days_so_far(run: _Run) -> list:
    """The days a resumed run's summary.json already counted (none when it is missing or damaged)."""
    try:
        days = json.loads(run.files["summary"].read_text(encoding="utf-8")).get("days")
    except (OSError, ValueError, AttributeError, RecursionError):
        return []
    return days if isinstance(days, list) else []


@dataclass
class _Span:
    """Where a run's stepping began: the sim time, the model usage so far, the wall clock,
    the embedded model's busy seconds (None: another model)."""

    begin: datetime
    usage0: dict
    t0: float
    busy0: float | None


def _summarize(run: _Run, span: _Span, town: Town, *, interrupted: bool, stopped: str | None,
               last_save: Path | None, resumed: bool, out_of_order: bool) -> dict:
    """summary.json's content (make_summary, and the run's save, recording, decision records,
    stepping and model servers); a finished run teaches the forecast its model's rates."""
    sim, accounting, begin = run.sim, run.accounting, span.begin
    this_wall = time.monotonic() - span.t0
    busy = local_model.model().busy_s() - span.busy0 if span.busy0 is not None else None
    summary = make_summary(sim, run.personas, accounting, run.config, seed=run.seed, start=run.start,
                           wall_s=run.prev_wall + this_wall, interrupted=interrupted, town=town)
    summary["resumed_at"] = begin.strftime(TIME_FORMAT) if resumed else None
    summary["save"] = str(last_save) if last_save else None
    summary["recording"] = run.recorder.stats(len(run.personas), hours=summary["sim_hours"])
    summary["stopped"] = stopped
    if not interrupted:
        forecast.learn(str(summary.get("model")), span.usage0, accounting.summary(), residents=len(run.personas),
                       hours=(sim.now - begin).total_seconds() / 3600, start=begin, fresh=not resumed,
                       wall_s=time.monotonic() - span.t0)
    summary["why"] = run.why_log.stats(len(run.personas), summary["sim_hours"])
    summary["stepping"] = {"mode": "out-of-order" if out_of_order else "lockstep"}
    if run.clocks is not None:  # how far apart the residents stepped
        summary["stepping"].update(run.clocks.stats())
    if busy is not None and this_wall > 0:  # the embedded model: the share of this run's wall time it answered
        size = max(1, local_model.model().size)
        summary["stepping"].update(model_instances=size, model_busy_share=round(busy / (this_wall * size), 3),
                                   sim_speed_x=round((sim.now - begin).total_seconds() / this_wall, 2))
    report = getattr(run.gateway, "server_report", None)  # what is wrong with the model server(s), with the fix
    summary["model_servers"] = report() if callable(report) else None
    return summary


@dataclass
class _Run:
    """What a headless run holds open while it steps: built (or restored) by ``_open_run``,
    stepped by ``_step_run``, closed by ``_close_run``."""

    out: Path
    files: dict[str, Path]
    parts: Parts
    config: ModelConfig | None
    gateway: Gateway
    accounting: Accounting
    why_log: why.WhyLog
    events: IO[str]  # events.jsonl, streamed
    saves_dir: Path
    writer: SaveWriter
    recorder: Recorder
    history: SaveHistory
    personas: Sequence[Persona]
    start: datetime
    seed: int
    prev_wall: float  # a resumed run's wall time so far
    last_auto: datetime  # the sim time of the last autosave
    every: timedelta | None  # autosave every this much sim time (None: never)
    clocks: GroupClocks | None = None  # out of order: the residents' own clocks
    uneven: bool = False  # stopped with the residents at different times: no end save

    @property
    def sim(self) -> Simulation:
        return self.parts.sim

    @property
    def pool(self) -> Pool:
        return self.parts.pool


def _open_run(town: Town, personas: Sequence[Persona], *, start: datetime, out: str | Path,
              scenario: Scenario | None, config: ModelConfig | None, gateway: Gateway | None,
              embedder: Embedder | None, minds: Mapping[str, ResidentMind] | None, seed: int,
              sim_settings: SimSettings | None, mind_settings: MindSettings | None,
              resume: tuple[dict, SaveInfo] | None, autosave_min: float | None,
              on_start: Callable[[Parts], None] | None, out_of_order: bool,
              echo: Callable[[str], None] | None = None) -> _Run:
    """Build the run (or restore the saved one, without its player: ``_without_player``),
    open its files (the model calls, the decision records, the event stream, the
    recording) and hand the town to ``on_start``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if gateway is None:
        config = config or load_config()
        gateway = Gateway(config)
    config = config or getattr(gateway, "config", None)
    accounting = gateway.accounting
    files = {
        "timeline": out / "timeline.md",
        "events": out / "events.jsonl",
        "llm_calls": out / "llm_calls.jsonl",
        "summary": out / "summary.json",
    }
    parts = build_parts(
        town, personas, start, scenario=scenario, config=config, gateway=gateway, embedder=embedder, minds=minds,
        seed=seed, lockstep=True, sim_settings=sim_settings, mind_settings=mind_settings,
    )
    prev_wall = 0.0
    if resume is not None:
        try:
            restore(parts, *resume)  # SaveError: nothing written yet
        except BaseException:
            parts.pool.shutdown()
            raise
        personas, start, seed = parts.cast, parts.sim.start, parts.sim.seed
        try:
            prev_wall = float(json.loads(files["summary"].read_text(encoding="utf-8")).get("wall_s", 0.0))
        except (OSError, ValueError, AttributeError):
            prev_wall = 0.0
    accounting.open_jsonl(files["llm_calls"], append=resume is not None)
    why_log = why.attach(gateway, why.WhyLog(out / why.FILE, mode=getattr(config, "why", "full"),
                                             append=resume is not None))
    sim = parts.sim
    fresh_log = resume is not None and (not files["events"].exists() or files["events"].stat().st_size == 0)
    events_fh = files["events"].open("a" if resume is not None else "w", encoding="utf-8")
    saves_dir = out / "saves"
    writer = SaveWriter()
    last_auto = sim.now

    def stream(ev: dict) -> None:
        events_fh.write(redact(json.dumps(ev, ensure_ascii=False)) + "\n")
        events_fh.flush()

    if fresh_log:  # a loose save resumed in a folder of its own: the story so far first
        for ev in sim.events:
            stream(ev)
    sim.listeners.append(stream)
    for note in _without_player(sim):
        log.info("%s", note)
        if echo is not None:
            echo(note)
    recorder = Recorder(out / RECORDING_FILE, sim, kind="run", model=getattr(config, "model", None),
                        accounting=accounting, append=resume is not None)
    run = _Run(out=out, files=files, parts=parts, config=config, gateway=gateway, accounting=accounting,
               why_log=why_log, events=events_fh, saves_dir=saves_dir, writer=writer, recorder=recorder,
               history=SaveHistory(saves_dir / HISTORY_FOLDER), personas=personas, start=start, seed=seed,
               prev_wall=prev_wall, last_auto=last_auto,
               every=timedelta(minutes=autosave_min) if autosave_min and autosave_min > 0 else None)
    if on_start is not None:
        try:
            on_start(parts)
        except BaseException:
            parts.pool.shutdown(wait=False)
            run.writer.close(wait=False)
            run.recorder.close("interrupted")
            events_fh.close()
            accounting.close()
            raise
        run.seed = sim.seed  # a branch runs on its own seed
    return run


def _without_player(sim: Simulation) -> list[str]:
    """A headless run has no player: a game's save comes back without one. The resident
    the player played goes back to its own mind (it decides from now, as when the
    player hands it back), and the visitor's body leaves the town (it would stand
    where the player left it, for hours, seen by everyone). Out-of-order stepping
    needs this too: the player's time is the window's, one clock for all. Returns
    what was done, in words."""
    said = []
    played = getattr(sim, "controlled", None)
    if played:
        sim.release_control()
        said.append(f"a headless run has no player: {played} is back to their own mind")
    visitor = getattr(sim, "visitor", None)
    if visitor:
        sim.remove_visitor()
        said.append(f"a headless run has no player: the visitor {visitor} left the town")
    return said


def _step_run(run: _Run, end: datetime, *, keep: int, on_step: Callable[[Simulation], None] | None,
              ceiling: Ceiling | None, progress: bool) -> tuple[bool, str | None]:
    """Step until ``end`` (or a ceiling, or Ctrl-C): each step recorded, an autosave every
    so often, the progress bar kept. Returns (interrupted, what stopped the run early)."""
    sim, accounting = run.sim, run.accounting
    stopped = None
    bar = None
    if progress:
        steps = round((end - sim.now).total_seconds() / 10)
        bar = tqdm(total=steps, unit="step", desc="sim", file=sys.stderr, dynamic_ncols=True, mininterval=0.5)
    try:
        while sim.now < end:
            sim.step()
            run.recorder.after_step(sim)
            _autosave(run, keep)
            if on_step is not None:
                on_step(sim)
            if ceiling is not None and (stopped := ceiling.reached(accounting)):
                _stop_calls(run, stopped)
                break
            if bar is not None:
                bar.update(1)
                if sim.steps % 30 == 0 or sim.now >= end:
                    tot = accounting.summary()["total"]
                    bar.set_postfix_str(f"{sim.now:%a %H:%M} · {tot['calls']} calls · {tot['tokens']} tokens",
                                        refresh=False)
        sim.drain()
    except KeyboardInterrupt:
        log.info("run interrupted at %s", sim.now)
        return True, stopped
    finally:
        if bar is not None:
            bar.close()
    return False, stopped


def _autosave(run: _Run, keep: int) -> None:
    """An autosave, when one is due (every ``run.every`` of sim time)."""
    sim = run.sim
    if run.every is not None and sim.now - run.last_auto >= run.every:
        run.last_auto = sim.now
        snap, meta = _capture(run.parts)  # drains (lockstep): the writer builds the rest meanwhile
        run.writer.autosave(snap, meta, run.saves_dir, keep).add_done_callback(run.history.saved)


def _stop_calls(run: _Run, why: str) -> None:
    """The ceiling is reached: no model call from here on. What is still to do before the
    end save (the answers in flight, those behind catching up when stepping out of
    order) gets the minds' rules and routines, each marked "ceiling"."""
    log.info("run stopped at %s: %s", run.sim.now, why)
    stop = getattr(run.gateway, "stop_calls", None)
    if callable(stop):
        stop(why)


def _catch_up(clocks: GroupClocks) -> None:
    """After Ctrl-C: the residents behind are brought up to the others' time, so the end
    save holds the town at one time (a few steps; Ctrl-C again stops without that save)."""
    ahead = int(clocks.clock.max())
    if clocks.floor == ahead:
        return
    print(f"smallville sim: bringing the residents behind up to {clocks.now_at(ahead):%H:%M:%S} for the end "
          "save (Ctrl-C again: stop without one)", file=sys.stderr)
    try:
        clocks.run_to(ahead)
    except KeyboardInterrupt:
        log.info("catching up interrupted: the residents stay at different times")


def _step_apart(run: _Run, end: datetime, *, keep: int, on_step: Callable[[Simulation], None] | None,
                ceiling: Ceiling | None, progress: bool) -> tuple[bool, str | None]:
    """``_step_run`` with a clock per resident (game/sim/clocks.py): the residents step apart
    between barriers, where all are at one time: each autosave, the end. ``on_step`` and
    the ceiling see the slowest residents' time."""
    sim, accounting = run.sim, run.accounting
    clocks = run.clocks = GroupClocks(sim, on_frame=lambda frame: run.recorder.after_step(sim, frame))
    stopped: str | None = None
    bar = tqdm(total=round((end - sim.now) / STEP), unit="step", desc="sim", file=sys.stderr, dynamic_ncols=True,
               mininterval=0.5) if progress else None
    bar_start = sim.now

    def on_floor() -> bool:
        nonlocal stopped
        if on_step is not None:
            on_step(sim)
        if bar is not None:
            bar.update(round((sim.now - bar_start) / STEP) - bar.n)
        stopped = ceiling.reached(accounting) if ceiling is not None else None
        if stopped:  # those behind are brought up to the others' time, without the model
            _stop_calls(run, stopped)
        return bool(stopped)

    try:
        while sim.now < end and not stopped:
            barrier = end if run.every is None else min(end, run.last_auto + run.every)
            clocks.run_to(sim.steps + max(1, round((barrier - sim.now) / STEP)), on_floor)
            _autosave(run, keep)
        sim.drain()
    except KeyboardInterrupt:
        log.info("run interrupted at %s", sim.now)
        _catch_up(clocks)
        run.uneven = clocks.floor != int(clocks.clock.max())
        return True, stopped
    finally:
        if bar is not None:
            bar.close()
    return False, stopped


def _close_run(run: _Run, interrupted: bool, echo: Callable[[str], None] | None) -> tuple[Path | None, bool]:
    """The end save (``end.sqlite``; interrupted: jobs in flight are asked again on resume),
    then every file and thread of the run closed. Returns (the save, interrupted): Ctrl-C
    during the save interrupts the run too."""
    last_save = None
    try:
        if run.uneven:  # a save holds a town at one time: the last autosave is the one to resume from
            if echo is not None:
                echo("no end save: the run stopped with its residents at different times")
        else:
            last_save = _save_end(run, drain=not interrupted, echo=echo)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if interrupted:
            run.pool.cancel_all()
        run.pool.shutdown(wait=not interrupted)
        run.writer.close(wait=True)
        run.recorder.close("interrupted" if interrupted else "finished")
        run.events.close()
        run.accounting.close()
        run.why_log.close()
    return last_save, interrupted


def _save_end(run: _Run, *, drain: bool, echo: Callable[[str], None] | None) -> Path | None:
    try:
        snap, meta = _capture(run.parts, drain=drain)
        # The future's result, not the writer's status: it is the save's own outcome.
        return run.writer.save(run.saves_dir / "end.sqlite", snap, {**meta, "slot": "end"}).result().path
    except SaveError as err:
        log.warning("the run's end save failed: %s", err)
        if echo is not None:
            echo(f"could not save the run: {err}")
        return None


def _echo_run(echo: Callable[[str], None], summary: dict, out: Path, *, interrupted: bool, last_save: Path | None,
              out_of_order: bool) -> None:
    """What the command prints when a run ends: its economy, its stepping, the model servers' trouble."""
    echo(economy_text(summary))
    st = summary["stepping"]
    echo(f"stepping: {st['mode']}"
         + (f", {st['groups_per_step']:g} groups a step on average, up to {st['most_ahead_s']:g} sim s apart"
            if out_of_order else "")
         + (f"; {st['sim_speed_x']:g}x real time, the model busy {100 * st['model_busy_share']:.0f}% of it"
            if "model_busy_share" in st else ""))
    if summary["stopped"]:
        echo(f"stopped at {summary['end']}: {summary['stopped']}")
    if summary.get("cache_problem"):
        echo(summary["cache_problem"])
    servers = summary["model_servers"] or {}
    if servers.get("dialects"):  # how each server was asked for JSON (agents/model/dialects.py)
        echo(redact("structured output: " + "; ".join(f"{k} {SAY.get(v, v)}"
                                                      for k, v in servers["dialects"].items())))
    for problem in servers.get("problems", []):
        echo(redact(f"model server trouble: {problem}"))
    echo(f"run folder: {out}" + ("  (interrupted: partial run)" if interrupted else "")
         + (f"; continue it with: smallville sim --resume {out} --hours H" if last_save else ""))


def _capture(parts: Parts, *, drain: bool | None = None) -> tuple[dict, dict]:
    """``capture`` with the model configuration's text redacted (agents/support/redact.py): a
    run's saves may be shared, and an ``api_base`` can carry credentials."""
    snap, meta = capture(parts, drain=drain)
    if isinstance(snap.get("config"), dict):
        snap["config"] = redact_data(snap["config"])
    if isinstance(meta.get("model"), str):
        meta["model"] = redact(meta["model"])
    return snap, meta


# ---------------------------------------------------------------------------- the command


def think_settings(args: argparse.Namespace, saved: int | None = None) -> SimSettings | None:
    """SimSettings with ``--think-s`` (else the resumed run's own think time, as its save
    holds it), or None for the defaults."""
    think = getattr(args, "think_s", None)
    if think is None:
        think = saved
    if think is None:
        return None
    if int(think) < STEP.total_seconds():
        raise UserError(f"--think-s must be at least {STEP.total_seconds():g} (one sim step); got {think}")
    return SimSettings(lockstep_think_s=int(think))


def main_sim(args: argparse.Namespace) -> int:
    if args.hours is None or args.hours <= 0:
        raise UserError("--hours must be more than 0")
    if getattr(args, "resume", None):
        return resume_sim(args)
    sim_settings = think_settings(args)
    town = load_town(args.map)
    try:
        cast, scenario = load_cast(Path(args.map).parent)
    except CastError as err:
        raise UserError(str(err)) from None
    personas = select_residents(cast, args.agents, args.residents, town=town, seed=args.seed)
    start = parse_start(args.start, scenario.start)
    try:
        config = load_config(args)
    except ConfigError as err:
        raise UserError(str(err)) from None
    ceiling = ceiling_of(args)
    line = forecast.forecast(config, residents=len(personas), hours=args.hours, start=start).line()
    print("smallville sim: " + redact(line), file=sys.stderr)
    if getattr(args, "dry_run", False):
        return 0
    out = claim_run_folder(Path(args.out) if args.out else None)
    print(
        f"smallville sim: {len(personas)} residents, {start:%Y-%m-%d %H:%M} + {args.hours:g} h, "
        f"model {redact(config.model)}, seed {args.seed} -> {out}",
        file=sys.stderr,
    )
    gateway = Gateway(config)
    result = run_headless(
        town, personas, start=start, hours=args.hours, out=out, scenario=scenario, config=config, gateway=gateway,
        seed=args.seed, autosave_min=getattr(args, "autosave_min", AUTOSAVE_MIN), sim_settings=sim_settings,
        ceiling=ceiling, out_of_order=bool(getattr(args, "out_of_order", False)),
    )
    return 130 if result.interrupted else 0


def ceiling_of(args: argparse.Namespace) -> Ceiling | None:
    """``--max-cost`` / ``--max-tokens`` as a Ceiling (None when neither is given)."""
    cost, tokens = getattr(args, "max_cost", None), getattr(args, "max_tokens", None)
    if cost is None and tokens is None:
        return None
    try:
        return Ceiling(max_cost=cost, max_tokens=tokens)
    except ValueError as err:
        raise UserError(str(err)) from None


RUN_FILES = ("events.jsonl", "llm_calls.jsonl", "recording.jsonl", "timeline.md", "summary.json", "saves",
             "why.jsonl.gz")


def refuse_a_used_folder(out: Path) -> None:
    """A new run never writes over another one: its files would be truncated while its
    saves were rotated away. UserError naming the folder and what to do instead."""
    used = [name for name in RUN_FILES if (out / name).exists()]
    if used:
        raise UserError(f"{out} already holds a run ({', '.join(used[:3])}); continue it with "
                        f"`smallville sim --resume {out} --hours N`, or give --out a new folder")


def claim_run_folder(out: Path | None = None) -> Path:
    """The folder a new run writes, claimed so that no other run started at the same
    moment shares it: ``out``, or ``runs/<timestamp>`` (``-2``, ``-3``, ... when taken).
    The claim is the exclusive creation of its event log (a new default folder's
    creation, too), so the check and the open cannot race. UserError when ``out``
    already holds a run."""
    if out is None:
        base = folders.runs_dir() / datetime.now().strftime("%Y%m%d-%H%M%S")
        base.parent.mkdir(parents=True, exist_ok=True)
        for n in range(1, 1000):
            out = base if n == 1 else base.with_name(f"{base.name}-{n}")
            try:
                out.mkdir()
                break
            except FileExistsError:
                continue
        else:
            raise UserError(f"{base.parent} holds 1000 runs of this second; give --out a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UserError(f"--out {out}: cannot make the run folder: {err.strerror or err}") from None
    refuse_a_used_folder(out)
    try:
        os.close(os.open(out / "events.jsonl", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    except FileExistsError:  # another run took it between the check and now
        refuse_a_used_folder(out)
        raise UserError(f"{out}: another run started in it just now; give --out a new folder") from None
    except OSError as err:
        raise UserError(f"{out}: cannot write in the run folder: {err.strerror or err}") from None
    return out


# ---------------------------------------------------------------------------- resuming


def last_run_save(folder: str | Path) -> SaveInfo:
    """The newest loadable save of a run folder (``<folder>/saves/``; a save
    file's path works too). UserError naming what is wrong when there is none."""
    folder = Path(folder)
    if folder.is_file():
        return read_info(folder)
    if not folder.exists():
        raise UserError(f"--resume {folder}: there is no such run folder")
    saves = list_saves(folder / "saves")
    good = [i for i in saves if i.ok]
    if good:
        return good[0]
    if saves:
        why = "; ".join(f"{i.path.name}: {i.broken}" for i in saves[:3])
        raise UserError(f"--resume {folder}: none of its saves can be loaded ({why})")
    raise UserError(f"--resume {folder}: the run folder has no saves (runs save into <run>/saves/ at the end and "
                    "every --autosave-min sim minutes; this run may predate saving)")


def run_folder_of(save: Path) -> Path | None:
    """The run folder of `smallville sim` a save lies in (``<run>/saves/`` or its
    ``history/``), or None for a loose save (a game's, one copied elsewhere): its
    files are never appended to the folder it happens to lie in."""
    for folder in (save.parent, save.parent.parent):
        if folder.name == "saves" and (folder.parent / "events.jsonl").is_file():
            return folder.parent
    return None


def resume_sim(args: argparse.Namespace, *, gateway: Gateway | None = None, embedder: Embedder | None = None,
               progress: bool = True, echo: Callable[[str], None] | None = print) -> int:
    """``smallville sim --resume runs/NAME --hours H``: continue the run folder's
    newest save for H more sim hours, appending to its files."""
    info = last_run_save(args.resume)
    out = Path(args.resume) if Path(args.resume).is_dir() else run_folder_of(info.path)
    map_path = Path(info.map_path) if info.map_path and Path(info.map_path).exists() else Path(args.map)
    town = load_town(map_path)
    parts, info = load_state(info.path, expect_map=town, require=("sim", "session"))
    names = list(parts["session"].get("residents") or info.residents)
    sim_settings = think_settings(args, parts["session"].get("lockstep_think_s"))
    try:  # the residents the save keeps (an older save: generated ones regrown from its seed)
        cast, scenario = saved_cast(map_path, names, int(parts["session"].get("seed") or 0), town,
                                    stored=parts["session"].get(PERSONAS), where=str(info.path))
    except CastError as err:
        raise UserError(f"--resume {args.resume}: {err}") from None
    personas = [cast[n] for n in names]
    saved_cfg = dict(parts.get("config") or {})
    if gateway is None:
        given = model_flags(args)
        try:  # the run suggests its model and settings where the user set none, never its server nor budget
            config, note = load_config_for_saved(saved_cfg, given, suggest=("model", "seed", "temperature", "planning"))
        except ConfigError as err:
            raise UserError(str(err)) from None
        if note:
            print(f"smallville sim: {redact(note)}", file=sys.stderr)
        gateway = Gateway(config)
    config = getattr(gateway, "config", None)
    ceiling = ceiling_of(args)
    line = forecast.forecast(config, residents=len(personas), hours=args.hours, start=info.sim_time, fresh=False).line()
    print("smallville sim: " + redact(line), file=sys.stderr)
    if getattr(args, "dry_run", False):
        return 0
    if out is None:  # a game's save, or one moved out of its run: this run writes a folder of its own
        out = claim_run_folder(Path(args.out) if getattr(args, "out", None) else None)
        print(f"smallville sim: {info.path} is not in a run folder of `smallville sim`; this run's folder is {out}",
              file=sys.stderr)
    print(
        f"smallville sim: resuming {out} from {info.path.name} at {info.sim_time:%Y-%m-%d %H:%M} + {args.hours:g} h, "
        f"{len(personas)} residents, model {redact(str(getattr(config, 'model', '?')))}",
        file=sys.stderr,
    )
    result = run_headless(
        town, personas, start=scenario.start, hours=args.hours, out=out, scenario=scenario, config=config,
        gateway=gateway, embedder=embedder, seed=int(parts["session"].get("seed") or 0), progress=progress,
        echo=echo, resume=(parts, info), sim_settings=sim_settings,
        autosave_min=getattr(args, "autosave_min", AUTOSAVE_MIN), ceiling=ceiling,
        out_of_order=bool(getattr(args, "out_of_order", False)),
    )
    return 130 if result.interrupted else 0
