"""Save and load timings on a synthetic town after "two sim days" (no pygame).

    python -m lab.bench.saves                  # 25 residents x 4000 memories
    python -m lab.bench.saves --memories 3000 --repeats 5

``synthetic_state`` builds parts shaped like the real ones (a mind's memory
stream as MemoryStream.to_state() writes it: node dicts with ISO times, an
(n, 384) float32 embedding matrix; plans, spatial memory, the sim's bodies and
chats, accounting, random state). ``bench_saves(state_factory)`` times the
main thread's part (freeze), the save and the load, and returns medians.
``bench_game_saves`` does the same for a real game (game/saves/saveload.py), and
``bench_saves_figures(ctx)`` is both as `smallville bench`'s "saves".
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from agents import Mind, load_cast
from game.saves.saveload import capture, commit, materialize, prepare
from game.saves.store import SaveWriter, freeze, load_state, save_state, states_equal
from game.sim import Simulation
from game.world.map_reader import load_town
from lab.bench.measure import MAP, Context

NAMES = [
    "Isabella Rodriguez", "Maria Lopez", "Klaus Mueller", "Ayesha Khan", "Wolfgang Schulz", "Abigail Chen",
    "Rajiv Patel", "Latoya Williams", "Francisco Lopez", "Hailey Johnson", "Arthur Burton", "Ryan Park",
    "Giorgio Rossi", "Carlos Gomez", "Mei Lin", "John Lin", "Eddy Lin", "Tom Moreno", "Jane Moreno",
    "Tamara Taylor", "Carmen Ortiz", "Sam Moore", "Jennifer Moore", "Yuriko Yamamoto", "Adam Smith",
]
_VERBS = ["is drinking coffee", "is talking with", "is reading a book", "is painting", "is idle", "is cooking",
          "is planning a party", "is studying physics", "is walking to", "is sleeping", "is writing a poem"]
_PLACES = ["Hobbs Cafe:cafe:coffee machine", "Johnson Park:park:park bench", "Oak Hill College:library:bookshelves",
           "The Rose and Crown Pub:pub:bar counter", "The Willows Market and Pharmacy:store:grocery shelves"]
KINDS = ("observation", "reflection", "plan", "chat", "thought")


def synthetic_state(residents: int = 25, memories: int = 4000, dim: int = 384, seed: int = 0,
                    generation: int = 0) -> dict[str, Any]:
    """Plain parts for `residents` minds with `memories` each (deterministic in
    seed and generation)."""
    rng = np.random.default_rng(seed)
    pr = random.Random(seed)
    start = datetime(2023, 2, 13, 7, 0)
    now = start + timedelta(days=2, minutes=generation)
    names = (NAMES * (residents // len(NAMES) + 1))[:residents]
    parts: dict[str, Any] = {}
    bodies = {}
    for r, name in enumerate(names):
        emb = rng.standard_normal((memories, dim), dtype=np.float32)
        emb /= np.linalg.norm(emb, axis=1, keepdims=True)
        nodes = []
        for i in range(memories):
            t = start + timedelta(seconds=i * 43)
            who = names[(r + i) % len(names)]
            nodes.append({
                "id": i, "kind": KINDS[i % 5],
                "description": f"{who} {_VERBS[i % len(_VERBS)]} at {_PLACES[i % len(_PLACES)]} "
                               f"(#{i}, gen {generation})",
                "created": t.isoformat(), "last_accessed": (t + timedelta(minutes=i % 90)).isoformat(),
                "importance": 1 + (i * 7 + r) % 10,
                "evidence": [i - 1, i - 2, i - 5] if i % 5 == 1 and i > 5 else [],
                "subject": who, "predicate": "is", "object": _VERBS[i % len(_VERBS)],
                "expires": (t + timedelta(days=1)).isoformat() if i % 5 == 0 else None,
            })
        plan = [{"start": (now + timedelta(minutes=15 * k)).isoformat(), "minutes": 15,
                 "description": f"{name.split()[0]} works on task {k}", "address": _PLACES[k % len(_PLACES)]}
                for k in range(60)]
        parts[f"minds/{name}"] = {
            "memory": {"model": "all-MiniLM-L6-v2", "dim": dim, "nodes": nodes, "embeddings": emb,
                       "importance_since_reflection": float(pr.random() * 150)},
            "spatial": {"world": "the Ville", "tree": {p.split(":")[0]: {p.split(":")[1]: [p.split(":")[2]]}
                                                       for p in _PLACES}},
            "plan": plan, "plan_day": now.date(), "summary": f"{name} is a resident of the Ville. " * 8,
            "known_people": sorted(set(names[: 10 + r % 10])),
            "last_talked": {n: now - timedelta(hours=k) for k, n in enumerate(names[:5])},
            "calls": {"decide": 100 + r, "utter": 40, "reflect": 3},
            "now": now,
        }
        bodies[name] = {"tile": (10 + r, 20 + r), "path": [(10 + r + k, 20 + r) for k in range(20)],
                        "facing": "down", "action": {"description": "idle", "address": _PLACES[r % 5]},
                        "conversation": None}
    parts["clock"] = {"now": now, "start": start, "steps": 17280 + generation, "generation": generation}
    parts["sim"] = {"bodies": bodies, "chats": [], "cooldowns": {}, "events": [f"event {k}" for k in range(200)]}
    parts["objects"] = {f"the Ville:{p}": "idle" for p in _PLACES}
    parts["visitor"] = {"name": "Visitor", "tile": (3, 4), "talking_to": None}
    parts["accounting"] = {"calls": 12345, "prompt_tokens": 9_876_543, "completion_tokens": 1_234_567,
                           "cost_usd": 0.0, "by_purpose": {"decide": 5000, "utter": 2000}}
    parts["random"] = {"python": pr.getstate(), "numpy": np.random.default_rng(seed).bit_generator.state}
    return parts


def bench_saves(state_factory: Callable[[], dict] = synthetic_state, repeats: int = 3,
                folder: str | Path | None = None) -> dict:
    """Median seconds for freeze (main thread), save, load; plus file size and
    whether load(save(x)) equals x. Wall times include waiting for the disk
    (fsync) and for the CPU when other processes share it; the *_cpu figures
    are this thread's own CPU seconds."""
    state = state_factory()
    freezes, saves, loads, save_cpu, load_cpu, phases = [], [], [], [], [], []
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        path = Path(tmp) / "bench.sqlite"
        equal = None
        for k in range(repeats):
            t0 = time.perf_counter()
            snap = freeze(state)
            t1 = time.perf_counter()
            c1 = time.thread_time()
            sinfo = save_state(path, snap, {"world": "the Ville", "sim_time": snap["clock"]["now"]})
            t2 = time.perf_counter()
            c2 = time.thread_time()
            loaded, linfo = load_state(path)
            phases.append({"save": sinfo.timings, "load": linfo.timings})
            t3 = time.perf_counter()
            save_cpu.append(c2 - c1)
            load_cpu.append(time.thread_time() - c2)
            freezes.append(t1 - t0)
            saves.append(t2 - t1)
            loads.append(t3 - t2)
            if k == 0:
                equal = states_equal(loaded, state)
            del loaded, snap
        size = path.stat().st_size
    n_mem = sum(len(v["memory"]["nodes"]) for k, v in state.items() if k.startswith("minds/"))
    return {
        "residents": sum(1 for k in state if k.startswith("minds/")),
        "memories": n_mem,
        "file_mb": round(size / 1e6, 1),
        "freeze_ms_median": round(1000 * statistics.median(freezes), 1),
        "save_s_median": round(statistics.median(saves), 3),
        "load_s_median": round(statistics.median(loads), 3),
        "save_cpu_s_median": round(statistics.median(save_cpu), 3),
        "load_cpu_s_median": round(statistics.median(load_cpu), 3),
        "save_s_all": [round(x, 3) for x in saves],
        "load_s_all": [round(x, 3) for x in loads],
        "phases_last": phases[-1],
        "round_trip_equal": equal,
        "goals": {"save_s": 0.5, "load_s": 1.0, "main_thread_ms": 100},
    }


class _StubEmbedder:
    """Vectors are given directly; the minds never embed during a save or load."""
    model_name = "bench-vectors"
    dim = 384

    def embed(self, texts):
        return np.zeros((len(texts), self.dim), dtype=np.float32)


class _NoPool:
    def busy(self, key):
        return False

    def in_flight(self):
        return 0

    def results(self):
        return []

    def submit(self, *a, **k):
        return False

    def wait(self, timeout=None):
        return True

    def cancel_all(self):
        pass


def game_town(residents: int = 25, memories: int = 3000, seed: int = 0,
              map_path: str | Path | None = None) -> SimpleNamespace:
    """A real game to save: the Ville, its real Minds with ``memories`` synthetic
    memories each (embedding rows given, no model), a Simulation (no pool)."""
    map_path = Path(map_path) if map_path else MAP
    town = load_town(map_path)
    cast, scenario = load_cast(map_path.parent)
    cast = cast[:residents]
    emb = _StubEmbedder()
    rng = np.random.default_rng(seed)
    minds = {}
    for r, p in enumerate(cast):
        m = Mind(p, None, emb)
        vecs = rng.standard_normal((memories, emb.dim), dtype=np.float32)
        for i in range(memories):
            t = scenario.start + timedelta(seconds=i * 43)
            m.memory.add(KINDS[i % 5], f"{cast[(r + i) % len(cast)].name} {_VERBS[i % len(_VERBS)]} at "
                         f"{_PLACES[i % len(_PLACES)]} (#{i})", t, 1 + (i * 7 + r) % 10, vecs[i],
                         evidence=[i - 1, i - 2] if i % 5 == 4 else (), subject=p.name,
                         expires=t + timedelta(days=1) if i % 5 == 0 else None)
        minds[p.name] = m
    pool = _NoPool()
    sim = Simulation(town, minds, pool, scenario.start + timedelta(days=2), personas={p.name: p for p in cast},
                     seed=seed)
    return SimpleNamespace(town=town, cast=list(cast), scenario=scenario, config=None, gateway=None, embedder=emb,
                           pool=pool, minds=minds, sim=sim, paused=False, speed=1, visitor_name="Visitor",
                           controlled=None)


def bench_game_saves(residents: int = 25, memories: int = 3000, repeats: int = 3,
                     folder: str | Path | None = None) -> dict:
    """The whole road for a real game (game/saves/saveload.py): capture on the main
    thread, the writer's save, then load_state + prepare (off the frame) and
    commit (the frame's swap). Medians."""
    t0 = time.perf_counter()
    game = game_town(residents, memories)
    build_s = time.perf_counter() - t0
    caps, saves, loads, preps, commits = [], [], [], [], []
    equal = None
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        path = Path(tmp) / "game.sqlite"
        w = SaveWriter()
        try:
            for k in range(repeats):
                t0 = time.perf_counter()
                parts, meta = capture(game)
                t1 = time.perf_counter()
                w.save(path, parts, meta).result()
                t2 = time.perf_counter()
                loaded, info = load_state(path, expect_map=game.town)
                t3 = time.perf_counter()
                prep = prepare(game, loaded, info)
                t4 = time.perf_counter()
                if k == 0:
                    before = materialize(parts)
                commit(game, prep)
                t5 = time.perf_counter()
                if k == 0:
                    equal = states_equal(materialize(capture(game)[0]), before)
                caps.append(t1 - t0)
                saves.append(t2 - t1)
                loads.append(t3 - t2)
                preps.append(t4 - t3)
                commits.append(t5 - t4)
            size = path.stat().st_size
        finally:
            w.close()
    med = statistics.median
    return {
        "residents": residents, "memories": residents * memories, "file_mb": round(size / 1e6, 1),
        "build_s": round(build_s, 2),
        "capture_ms_median": round(1000 * med(caps), 1),
        "save_s_median": round(med(saves), 3),
        "load_s_median": round(med(loads), 3),
        "prepare_s_median": round(med(preps), 3),
        "load_total_s_median": round(med([a + b for a, b in zip(loads, preps)]), 3),
        "commit_ms_median": round(1000 * med(commits), 1),
        "round_trip_equal": equal,
        "note": "real Minds on the Ville: capture and commit run on the main thread; save, load and prepare off it",
    }


def bench_saves_figures(ctx: Context) -> dict:
    """Save and load times after two sim days: a synthetic town, then the real game."""
    repeats = ctx.n(5, 1)
    factory = (lambda: synthetic_state(25, 200)) if ctx.quick else synthetic_state  # a small town for a smoke run
    out = bench_saves(factory, repeats=repeats)
    out["note"] = (f"lab.bench.saves.bench_saves: a synthetic town of {out.get('residents', '?')} residents with "
                   f"{out.get('memories', '?')} memories in all, saved and loaded {repeats} times; "
                   "'freeze' is the main thread's pause, save and load run off it")
    per = 200 if ctx.quick else 3000
    g = bench_game_saves(25, per, repeats=ctx.n(3, 1))
    out["game"] = g
    for key in ("capture_ms_median", "save_s_median", "load_total_s_median", "commit_ms_median", "round_trip_equal"):
        if key in g:
            out[f"game_{key}"] = g[key]
    out["note"] += (f"; 'game': the Ville's 25 real Minds with {per} memories each, captured on the main thread "
                    "(game/saves/saveload.py), written by the SaveWriter, then read and rebuilt off the frame and "
                    "swapped in ('commit')")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--residents", type=int, default=25)
    ap.add_argument("--memories", type=int, default=4000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--game", action="store_true", help="also save and load a real game (game/saves/saveload.py)")
    a = ap.parse_args(argv)
    print(json.dumps(bench_saves(lambda: synthetic_state(a.residents, a.memories), a.repeats), indent=2))
    if a.game:
        print(json.dumps(bench_game_saves(a.residents, a.memories, a.repeats), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
