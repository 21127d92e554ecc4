"""`smallville sim`: run the town without a window and write a run folder.

    smallville sim --agents 3 --start "2023-02-13 07:00" --hours 2 --seed 0 --out runs/demo

The run is lockstep (the clock waits for every mind each step), so a seeded run
with a deterministic model (the embedded one, or any model with the response
cache) replays the same. The run folder gets:

- ``timeline.md``   readable: per sim minute who does what where, dialogue, reflections
- ``events.jsonl``  the simulation's event log, one event per line (streamed)
- ``llm_calls.jsonl`` one line per model call, with resident and purpose (streamed)
- ``summary.json``  per resident calls, tokens, fallbacks; totals; wall time; sim span

Ctrl-C stops the run and still writes all four files.
"""
from __future__ import annotations

import json
import logging
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Sequence

from game.errors import UserError
from game.timeline import render_timeline

log = logging.getLogger(__name__)

TIME_FORMAT = "%Y-%m-%d %H:%M"


# ---------------------------------------------------------------------------- choosing the cast


def select_residents(cast: Sequence[Any], agents: int | None = None, names: str | Sequence[str] | None = None) -> list[Any]:
    """``--agents N``: the first N in the scenario's order; ``--residents "A,B"``: by name.
    Neither: everyone. Unknown names are an error that lists the known ones."""
    if agents is not None and names:
        raise UserError("give --agents or --residents, not both")
    if names:
        wanted = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
        by_name = {p.name.casefold(): p for p in cast}
        unknown = [n for n in wanted if n.casefold() not in by_name]
        if unknown:
            known = ", ".join(p.name for p in cast)
            raise UserError(f"unknown resident(s): {', '.join(unknown)}. Known residents: {known}")
        out, seen = [], set()
        for n in wanted:
            p = by_name[n.casefold()]
            if p.name not in seen:
                seen.add(p.name)
                out.append(p)
        return out
    if agents is not None:
        if agents < 1:
            raise UserError(f"--agents must be at least 1 (there are {len(cast)} residents)")
        if agents > len(cast):
            raise UserError(f"--agents {agents}: this town has only {len(cast)} residents")
        return list(cast[:agents])
    return list(cast)


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
    sim: Any
    interrupted: bool = False
    files: dict[str, Path] = field(default_factory=dict)


def build_minds(personas, gateway, embedder, scenario=None, settings=None) -> dict[str, Any]:
    """One Mind per persona, with the scenario's seeded thoughts queued (each
    Mind seeds its own description phrases as first memories in its first job)."""
    from agents.mind import Mind

    minds = {p.name: Mind(p, gateway, embedder, settings) for p in personas}
    for who, thought, importance in getattr(scenario, "seeds", None) or []:
        if who in minds:
            minds[who].queue_thought(thought, importance)
    return minds


def run_headless(
    town: Any,
    personas: Sequence[Any],
    *,
    start: datetime,
    hours: float,
    out: str | Path,
    scenario: Any = None,
    config: Any = None,
    gateway: Any = None,
    embedder: Any = None,
    minds: dict[str, Any] | None = None,
    seed: int = 0,
    progress: bool = True,
    sim_settings: Any = None,
    mind_settings: Any = None,
    on_step: Callable[[Any], None] | None = None,
    echo: Callable[[str], None] | None = print,
) -> RunResult:
    """Run lockstep for ``hours`` sim hours and write the run folder. Gateway,
    embedder (and even minds) may be injected (tests); otherwise they are
    built from ``config`` (agents.llm.load_config)."""
    from agents.pool import MindPool
    from game.sim import Simulation

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if gateway is None:
        from agents.llm import Gateway, load_config

        config = config or load_config()
        gateway = Gateway(config)
    config = config or getattr(gateway, "config", None)
    if embedder is None and minds is None:
        from agents.embeddings import make_embedder

        embedder = make_embedder(config)
    accounting = gateway.accounting
    files = {
        "timeline": out / "timeline.md",
        "events": out / "events.jsonl",
        "llm_calls": out / "llm_calls.jsonl",
        "summary": out / "summary.json",
    }
    accounting.open_jsonl(files["llm_calls"], append=False)
    if minds is None:
        minds = build_minds(personas, gateway, embedder, scenario, mind_settings)
    concurrency = getattr(config, "concurrency", None) or 2
    pool = MindPool(concurrency)
    sim = Simulation(
        town, minds, pool, start, personas={p.name: p for p in personas}, seed=seed, lockstep=True, settings=sim_settings
    )
    events_fh = files["events"].open("w", encoding="utf-8")

    def stream(ev: dict) -> None:
        events_fh.write(json.dumps(ev, ensure_ascii=False) + "\n")
        events_fh.flush()

    sim.listeners.append(stream)
    end = start + timedelta(hours=hours)
    steps = int(round((end - start).total_seconds() / 10))
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=steps, unit="step", desc="sim", file=sys.stderr, dynamic_ncols=True, mininterval=0.5)
    t0 = time.monotonic()
    interrupted = False
    try:
        while sim.now < end:
            sim.step()
            if on_step is not None:
                on_step(sim)
            if bar is not None:
                bar.update(1)
                if sim.steps % 30 == 0 or sim.now >= end:
                    tot = accounting.summary()["total"]
                    bar.set_postfix_str(f"{sim.now:%a %H:%M} · {tot['calls']} calls · {tot['tokens']} tokens", refresh=False)
        sim.drain()
    except KeyboardInterrupt:
        interrupted = True
        log.info("run interrupted at %s", sim.now)
        pool.cancel_all()
    finally:
        if bar is not None:
            bar.close()
        pool.shutdown(wait=not interrupted)
        events_fh.close()
        accounting.close()
    wall = time.monotonic() - t0
    summary = make_summary(sim, personas, accounting, config, seed=seed, start=start, wall_s=wall, interrupted=interrupted,
                           town=town)
    files["summary"].write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    files["timeline"].write_text(timeline_text(sim, summary, town), encoding="utf-8")
    if echo is not None:
        echo(economy_text(summary))
        echo(f"run folder: {out}" + ("  (interrupted: partial run)" if interrupted else ""))
    return RunResult(out=out, summary=summary, sim=sim, interrupted=interrupted, files=files)


def make_summary(sim, personas, accounting, config, *, seed, start, wall_s, interrupted, town=None) -> dict:
    acc = accounting.summary()
    by_res = acc.get("by_resident", {})
    sim_hours = max(0.0, (sim.now - start).total_seconds() / 3600.0)
    days = sim_hours / 24.0 if sim_hours > 0 else 0.0
    residents = {}
    for p in personas:
        t = by_res.get(p.name, {})
        b = sim.bodies.get(p.name)
        ev = [e for e in sim.events if e.get("resident") == p.name]
        calls, tokens = int(t.get("calls", 0)), int(t.get("tokens", 0))
        residents[p.name] = {
            "calls": calls,
            "tokens": tokens,
            "prompt_tokens": int(t.get("prompt_tokens", 0)),
            "completion_tokens": int(t.get("completion_tokens", 0)),
            "fallbacks": int(t.get("fallback", 0)),  # model answers replaced by a fallback
            "routine_fallbacks": b.fallbacks if b else 0,  # failed decisions replaced by the routine
            "errors": b.errors if b else 0,
            "actions": sum(1 for e in ev if e["kind"] == "action"),
            "lines": sum(1 for e in ev if e["kind"] == "line"),
            "reflections": sum(1 for e in ev if e["kind"] == "reflect"),
            "calls_per_sim_day": round(calls / days, 1) if days else 0.0,
            "tokens_per_sim_day": round(tokens / days, 1) if days else 0.0,
        }
    total = dict(acc.get("total", {}))
    n = max(1, len(personas))
    total["calls_per_resident_per_sim_day"] = round(total.get("calls", 0) / n / days, 1) if days else 0.0
    total["tokens_per_resident_per_sim_day"] = round(total.get("tokens", 0) / n / days, 1) if days else 0.0
    return {
        "model": getattr(config, "model", None),
        "seed": seed,
        "map": str(getattr(town, "path", "")),
        "start": start.strftime(TIME_FORMAT),
        "end": sim.now.strftime(TIME_FORMAT),
        "sim_hours": round(sim_hours, 3),
        "steps": sim.steps,
        "wall_s": round(wall_s, 1),
        "interrupted": interrupted,
        "residents": residents,
        "totals": total,
        "by_purpose": acc.get("by_purpose", {}),
        "events": len(sim.events),
        "conversations": sum(1 for e in sim.events if e["kind"] == "chat" and not e.get("ended")),
    }


def timeline_text(sim, summary: dict, town=None) -> str:
    header = [
        f"{summary['start']} → {summary['end']} ({summary['sim_hours']:g} sim hours, {summary['steps']} steps)",
        f"model `{summary['model']}` · seed {summary['seed']} · {len(summary['residents'])} residents: "
        + ", ".join(summary["residents"]),
        f"{summary['totals'].get('calls', 0)} model calls, {summary['totals'].get('tokens', 0)} tokens, "
        f"wall time {summary['wall_s']:g} s" + (" · interrupted" if summary.get("interrupted") else ""),
    ]
    world = getattr(town, "world", None)
    return render_timeline(sim.events, title=f"Smallville run — {world or 'the town'}", header=header, world=world)


def economy_text(summary: dict) -> str:
    """The economy: model calls and tokens per resident per sim day."""
    rows = summary["residents"]
    width = max([len(n) for n in rows] + [8])
    hours = summary["sim_hours"]
    out = [
        f"economy over {hours:g} sim hours ({summary['wall_s']:g} s wall), per resident per sim day:",
        f"  {'resident':<{width}}  {'calls':>7} {'tokens':>9} {'calls/day':>10} {'tokens/day':>11} {'fallbacks':>9}",
    ]
    for name, r in rows.items():
        out.append(
            f"  {name:<{width}}  {r['calls']:>7} {r['tokens']:>9} {r['calls_per_sim_day']:>10.1f} "
            f"{r['tokens_per_sim_day']:>11.1f} {r['fallbacks'] + r['routine_fallbacks']:>9}"
        )
    t = summary["totals"]
    out.append(
        f"  {'all':<{width}}  {t.get('calls', 0):>7} {t.get('tokens', 0):>9} "
        f"{t.get('calls_per_resident_per_sim_day', 0):>10.1f} {t.get('tokens_per_resident_per_sim_day', 0):>11.1f} "
        f"{t.get('fallback', 0):>9}"
    )
    return "\n".join(out)


# ---------------------------------------------------------------------------- the command


def main_sim(args) -> int:
    from agents.persona import CastError, load_cast
    from game.town import load_town

    if getattr(args, "resume", None):
        raise UserError("--resume is not available yet: start a new run")
    if args.hours is None or args.hours <= 0:
        raise UserError("--hours must be more than 0")
    town = load_town(args.map)
    try:
        cast, scenario = load_cast(Path(args.map).parent)
    except CastError as err:
        raise UserError(str(err)) from None
    personas = select_residents(cast, args.agents, args.residents)
    start = parse_start(args.start, scenario.start)
    from agents.config import ConfigError
    from agents.llm import Gateway, load_config

    try:
        config = load_config(args)
    except ConfigError as err:
        raise UserError(str(err)) from None
    out = Path(args.out) if args.out else Path("runs") / datetime.now().strftime("%Y%m%d-%H%M%S")
    print(
        f"smallville sim: {len(personas)} residents, {start:%Y-%m-%d %H:%M} + {args.hours:g} h, "
        f"model {config.model}, seed {args.seed} -> {out}",
        file=sys.stderr,
    )
    gateway = Gateway(config)
    result = run_headless(
        town, personas, start=start, hours=args.hours, out=out, scenario=scenario, config=config, gateway=gateway,
        seed=args.seed,
    )
    return 130 if result.interrupted else 0
