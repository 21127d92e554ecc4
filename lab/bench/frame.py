"""Frame time with 25 residents whose minds are always busy: the game's own
Session (lab.standins.busy_minds_session + Game.attach_session: residents,
bubbles, HUD) drawn headless, frames paced like the window's clock; then at
the fastest speed and with the residents list and the town map open."""
from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from agents import MindPool
from game.world import astar
from lab.bench.measure import Context, percentile, summarise_ms
from lab.standins import busy_minds_session

FRAME_BUDGET_MS = 1000.0 / 60.0
SPEED_NOTE = "1 sim minute per real second, 6 sim steps a second"
FRAME_POOL = 8  # the worker pool's concurrency for a hosted model (the embedded one uses 2)


def _python_work(ms: float) -> None:
    """Hold the GIL with plain Python for about ``ms`` (prompt building, parsing, validation)."""
    end = time.perf_counter() + ms / 1000.0
    x = 0
    while time.perf_counter() < end:
        for i in range(200):
            x += i * i


def _slow_job(rng: random.Random, delay: tuple[float, float] = (0.3, 1.5),
              work_ms: tuple[float, float] = (5.0, 15.0)) -> None:
    """A model call's shape: Python work, a wait (the model; the GIL is free), Python work."""
    _python_work(rng.uniform(*work_ms) / 2)
    time.sleep(rng.uniform(*delay))
    _python_work(rng.uniform(*work_ms) / 2)


def _frame_loop(game: Any, screen: Any, n: int, before: Callable[[], Any] | None = None,
                cpu: list[float] | None = None, real_dt: bool = False) -> list[tuple[float, Any]]:
    """n frames paced at 60/s like the window's clock (so minds answer over real
    time); per frame (work ms, what ``before()`` returned). ``cpu``: the main
    thread's own CPU ms per frame are appended to it (what the frame costs
    without waiting for a core or the GIL). ``real_dt``: each update is given the
    wall time since the last frame, as the window's loop does (game/app.py), so a
    slow frame slows nothing but the frame rate; else a fixed 1/60 s."""
    import pygame  # lazy: pygame (SDL) loads only when the frame benchmark runs

    out = []
    pace = 1.0 / 60
    next_at = time.perf_counter()
    last = None
    for _ in range(n):
        wait = next_at - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        next_at = max(next_at + pace, time.perf_counter() - pace)
        tag = before() if before else None
        c0 = time.thread_time()
        t0 = time.perf_counter()
        step = pace if not real_dt or last is None else t0 - last
        last = t0
        for event in pygame.event.get():
            game.handle_event(event)
        game.update(step)
        game.draw(screen)
        dt = (time.perf_counter() - t0) * 1000.0
        if cpu is not None:
            cpu.append((time.thread_time() - c0) * 1000.0)
        pygame.display.flip()
        out.append((dt, tag))
    return out


# long: one measurement, set up, timed and reported in order
def bench_frame(ctx: Context) -> dict:
    """Frame time (update + draw, as `run` measures it) with 25 residents headless."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    # Lazy: pygame and the game's window (which imports it) load only when this benchmark runs, after SDL's
    # headless drivers are chosen above.
    import pygame

    from game.app import WINDOW_SIZE, Game
    from game.view.tilemap import TileMapRenderer
    from game.view.window import close_window

    frames = ctx.n(1200, 150)
    warm = ctx.n(60, 20)
    speed = 1
    pygame.display.init()
    pygame.font.init()
    session = upkeep = None
    try:
        screen = pygame.display.set_mode(WINDOW_SIZE)
        session = busy_minds_session(ctx.map_path, residents=25, seed=ctx.seed, concurrency=FRAME_POOL)
        sim = session.sim
        astar.prepare(sim.town.walkable)  # as at load
        game = Game(sim.town, TileMapRenderer.from_file(ctx.map_path), size=screen.get_size())
        game.attach_session(session)
        session.set_speed(speed)
        names = [n for n in sim.minds]
        rng = random.Random(ctx.seed)
        upkeep = MindPool(FRAME_POOL)

        def centre():
            if game.panels.follower is not None and game.panels.follower.target:
                return  # the camera follows a resident (the residents list's phase)
            xs = [sim.bodies[n].tile[0] for n in names]
            ys = [sim.bodies[n].tile[1] for n in names]
            game.follow = False
            game.camera.look_at(*game.camera.tile_center_world(statistics.median(xs), statistics.median(ys)))

        centre()
        if not session.paused:
            session.toggle_pause()
        idle = [dt for dt, _ in _frame_loop(game, screen, ctx.n(300, 60))][10:]
        session.toggle_pause()  # and now the town runs
        busy_samples: list[int] = []
        counter = {"i": 0}

        def before():
            counter["i"] += 1
            if counter["i"] % 30 == 0:
                centre()
                for n in names:  # a mind with no decision to make does upkeep (reflection, memory)
                    if not sim.pool.busy(n):
                        upkeep.submit(n, _slow_job, random.Random(rng.random()))
                upkeep.results()
                busy_samples.append(sum(1 for n in names if sim.pool.busy(n) or upkeep.busy(n)))
            return None

        steps0 = sim.steps
        rows = _frame_loop(game, screen, warm + frames, before)[warm:]
        times = [dt for dt, _ in rows]
        session.set_speed(5)  # the fastest speed: up to MAX_STEPS_PER_FRAME steps in a frame
        fast = [dt for dt, _ in _frame_loop(game, screen, ctx.n(600, 60), before)][10:]
        session.set_speed(speed)
        panels = _frames_with_panels(game, screen, ctx, before)
        out: dict[str, Any] = {"mode": "session", "residents": len(names), "frames": len(times), "speed": speed}
        sm = summarise_ms(times)
        out.update(p50_ms=sm["median_ms"], p90_ms=sm["p90_ms"], p99_ms=sm["p99_ms"], max_ms=sm["max_ms"])
        out["over_budget_frames"] = sum(1 for t in times if t > FRAME_BUDGET_MS)
        out["p99_vs_budget"] = round(sm["p99_ms"] / FRAME_BUDGET_MS, 2)
        out["p50_ms_sim_paused"] = round(statistics.median(idle), 3)
        out["p99_ms_sim_paused"] = round(percentile(idle, 99), 3)
        out["p99_vs_paused"] = round(sm["p99_ms"] / out["p99_ms_sim_paused"], 2) if out["p99_ms_sim_paused"] else None
        out["p50_ms_speed5"] = round(statistics.median(fast), 3)
        out["p99_ms_speed5"] = round(percentile(fast, 99), 3)
        out.update(panels)
        out["sim_steps"] = sim.steps - steps0
        out["path_ms_max_per_step"] = round(sim.paths.stats.max_ms, 3)  # the path service's budget holds?
        out["path_searches"] = sim.paths.stats.searches
        if busy_samples:
            out["median_minds_busy_of_25"] = statistics.median(busy_samples)
        out["actions_started"] = sum(1 for e in sim.events if e.get("kind") == "action")
        out["note"] = (
            "the game's own Session (lab.standins.busy_minds_session + Game.attach_session: residents, bubbles, HUD) "
            f"at speed {speed} ({SPEED_NOTE}); 25 stand-in minds whose every job waits 0.3-1.5 s (a model call, GIL "
            f"free) around 5-15 ms of plain Python (GIL held) on a MindPool of {FRAME_POOL}, and a mind with no "
            f"decision to make does upkeep jobs of the same shape on a second pool of {FRAME_POOL}; frames paced at "
            "60/s; camera on the residents' median tile; the 'sim paused' baseline draws the same scene first, and "
            f"{ctx.n(600, 60)} more frames run at speed 5 (60 sim min/s); "
            "pathing.prepare() ran before (as at load); then, at speed 1 again, "
            f"{ctx.n(600, 60)} frames with the residents list open (R: 25 live rows, the camera following one "
            f"resident) and {ctx.n(600, 60)} more with the town map open over it (M)"
        )
        return out
    finally:
        if upkeep is not None:
            upkeep.cancel_all()
            upkeep.shutdown()
        if session is not None:
            session.close()
        close_window()


def _frames_with_panels(game: Any, screen: Any, ctx: Context, before: Callable[[], Any]) -> dict:
    """Frame times with the residents list open (following a resident), then with
    the town map open as well: what a player looking for someone sees."""
    lst = game.panels.residents_list
    tm = game.panels.townmap
    if lst is None or tm is None:
        return {}
    out: dict[str, Any] = {}
    lst.open()
    game.follow_resident(sorted(game.session.minds)[0])
    rows = [dt for dt, _ in _frame_loop(game, screen, ctx.n(600, 60), before)][10:]
    out["p50_ms_residents_list"] = round(statistics.median(rows), 3)
    out["p99_ms_residents_list"] = round(percentile(rows, 99), 3)
    tm.open()
    both = [dt for dt, _ in _frame_loop(game, screen, ctx.n(600, 60), before)][10:]
    out["p50_ms_list_and_map"] = round(statistics.median(both), 3)
    out["p99_ms_list_and_map"] = round(percentile(both, 99), 3)
    tm.close()
    lst.close()
    return out
