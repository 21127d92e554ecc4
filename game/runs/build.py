"""What a run is built from, for the window (game/runs/session.py) and headless runs
(game/headless.py) alike: the chosen residents, their minds, the model gateway,
the embedder, the worker pool and the simulation."""
from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from agents import (
    CastError,
    Embedder,
    Gateway,
    Mind,
    MindPool,
    MindSettings,
    ModelConfig,
    Persona,
    ResidentMind,
    Scenario,
    grow_cast,
    load_config,
    local_model,
    make_embedder,
    why,
)
from game.sim import Pool, SimSettings, Simulation
from game.support.errors import UserError
from game.world import astar
from game.world.town import Town

log = logging.getLogger(__name__)


PLAY_WORKER_NICE = 5  # the minds' worker threads in play, below the frame thread (agents.pool.MindPool)


def select_residents(cast: Sequence[Persona], agents: int | None = None,
                     names: str | Sequence[str] | None = None, *, town: Town | None = None,
                     seed: int = 0) -> list[Persona]:
    """``--agents N``: the first N in the scenario's order, and past the scenario's,
    generated residents of ``town`` (agents/residents/townsfolk.py; the same N and ``seed``, the
    same town); ``--residents "A,B"``: by name, where a name the scenario lacks is
    looked for among the residents ``seed`` generates (a resumed generated town).
    Neither: everyone. Unknown names are an error that lists the known ones."""
    if agents is not None and names:
        raise UserError("give --agents or --residents, not both")
    if names:
        wanted = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
        by_name = {p.name.casefold(): p for p in cast}
        unknown = [n for n in wanted if n.casefold() not in by_name]
        if unknown and town is not None:
            # As many generated residents as names the scenario lacks: the town --agents made
            grown = _grow(cast, town, len(cast) + len(unknown), seed)
            by_name.update({p.name.casefold(): p for p in grown[len(cast):]})
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
            if town is None:
                raise UserError(f"--agents {agents}: this town has only {len(cast)} residents")
            return _grow(cast, town, agents, seed)
        return list(cast[:agents])
    return list(cast)


def _grow(cast: Sequence[Persona], town: Town, n: int, seed: int) -> list[Persona]:
    try:
        return grow_cast(cast, town.addresses(), n, seed)
    except CastError as err:
        raise UserError(f"--agents {n} on {getattr(town, 'path', 'this map')}: {err}") from None


def spawns_of(town: Town, personas: Sequence[Persona]) -> dict[str, tuple[int, int]]:
    """Where the residents the map has no spawn for start: on their home's bed (the
    tiles beside it in turn when the bed is shared), else anywhere in their home."""
    out: dict[str, tuple[int, int]] = {}
    taken: dict[str, int] = {}
    have, use_tiles = getattr(town, "spawns", None) or {}, getattr(town, "use_tiles", None)
    if use_tiles is None:  # a stand-in town (tests) without tiles: the simulation places everyone
        return out
    for p in personas:
        if p.name in have:
            continue
        tiles = use_tiles(f"{p.home}:bed") or use_tiles(p.home)
        if tiles:
            k = taken.get(p.home, 0)
            taken[p.home] = k + 1
            out[p.name] = tuple(tiles[k % len(tiles)])
    return out


def build_minds(personas: Sequence[Persona], gateway: Gateway, embedder: Embedder, scenario: Scenario | None = None,
                settings: MindSettings | None = None) -> dict[str, ResidentMind]:
    """One Mind per persona, with the scenario's seeded thoughts queued (each
    Mind seeds its own description phrases as first memories in its first job)."""
    minds: dict[str, ResidentMind] = {p.name: Mind(p, gateway, embedder, settings) for p in personas}
    for who, thought, importance in getattr(scenario, "seeds", None) or []:
        if who in minds:
            minds[who].queue_thought(thought, importance)
    return minds


@dataclass
class Parts:
    """What a run is built from (shared by the window and headless runs)."""

    town: Town
    cast: list[Persona]
    scenario: Scenario | None
    config: ModelConfig | None
    gateway: Gateway
    embedder: Embedder | None  # None: minds given (tests, stand-ins) that embed nothing
    pool: Pool
    minds: dict[str, ResidentMind]
    sim: Simulation


def build_parts(
    town: Town,
    personas: Sequence[Persona],
    start: datetime,
    *,
    scenario: Scenario | None = None,
    config: ModelConfig | None = None,
    gateway: Gateway | None = None,
    embedder: Embedder | None = None,
    minds: Mapping[str, ResidentMind] | None = None,
    seed: int = 0,
    lockstep: bool = False,
    sim_settings: SimSettings | None = None,
    mind_settings: MindSettings | None = None,
    background_embedder: bool = False,
    sim_class: type[Simulation] = Simulation,
    pool: Pool | None = None,
) -> Parts:
    """Gateway (from ``config``, else ``load_config()``), embedder, minds, pool and
    simulation; anything given is used as is (tests inject fakes)."""
    if gateway is None:
        config = config or load_config()
        gateway = Gateway(config)
    config = config or getattr(gateway, "config", None)
    if why.log_of(gateway) is None:  # the decision records, in memory (a run or a recording adds their file)
        why.attach(gateway, why.WhyLog(mode=getattr(config, "why", "full")))
    if minds is None:
        if embedder is None:
            made = make_embedder(config)
            if background_embedder and hasattr(made, "load_in_background"):
                made.load_in_background(PLAY_WORKER_NICE)  # torch loads beside the frame, and runs below it
            embedder = made
        minds = build_minds(personas, gateway, embedder, scenario, mind_settings)
    if getattr(config, "is_embedded", False):
        # Headless runs give the embedded model every core; in play the frame keeps one.
        local_model.use_instances(local_model.default_instances(headless=lockstep))
    if pool is None:
        # In play the frame shares the cores with the minds: their workers run at a lower priority.
        pool = MindPool(getattr(config, "concurrency", None) or 2, nice=0 if lockstep else PLAY_WORKER_NICE)
    try:
        astar.prepare(town.walkable)  # else the first long path builds landmarks inside a frame
    except Exception:  # an optimisation only
        log.exception("pathing.prepare failed")
    sim = sim_class(
        town, minds, pool, start, personas={p.name: p for p in personas}, seed=seed, lockstep=lockstep,
        settings=sim_settings, spawns=spawns_of(town, personas),
    )
    held = minds if isinstance(minds, dict) else dict(minds)  # the very dict given, as before
    return Parts(town, list(personas), scenario, config, gateway, embedder, pool, held, sim)


__all__ = ["Parts", "build_minds", "build_parts", "select_residents", "spawns_of"]
