"""`smallville bench --only scale`: what a bigger machine does for a bigger town.

Headless runs of 25, 100, 250 and 500 residents (the scenario's 25, then
generated ones: ``--agents N``, docs/bigger-towns.md) for a sim hour from the
scenario's start, against the stand-in model server (lab/standin_server.py: the
competent stand-in behind an OpenAI-compatible HTTP API, 1.5 s a call) with 8,
32 and 128 calls served at once. Each run goes the real road: the gateway,
litellm's ``openai/`` provider, HTTP to a server in its own process, the mind
pool as wide as the server's slots.

Figures, per run: the wall time per sim hour; the sim's own time per step per
resident (the process's CPU and its embedding model's process, so the server's
is not in it; and the main thread's: perception, pathing and walking,
scheduling, the recording), with the parts measured by timing those functions
(thread CPU; the embedding process's own CPU): perception, pathing, retrieval
and embeddings; the model's side (calls, how busy the slots were).

Each run is made both ways, lockstep and out of order (docs/stepping.md). A
third way, ``uncoupled``, is asked for by name only: out of order with nobody
joined to anyone (every resident its own group, never waiting on a neighbour).
It is not the same run, and not a right one (residents act before they see
what those beside them did); it is the bound no stepping rule can beat on this
machine, the sim's own work and each mind's calls in turn. A
full sweep is 4 x 3 runs per stepping, from about a minute (25 residents) to
well over ten (500 on few slots). Narrow it with the environment::

    SMALLVILLE_SCALE_AGENTS=25,100  SMALLVILLE_SCALE_SLOTS=8,128
    SMALLVILLE_SCALE_HOURS=0.5      SMALLVILLE_SCALE_LATENCY=1.5
    SMALLVILLE_SCALE_STEPPING=lockstep   (or out-of-order, or both: the default; or uncoupled)
    SMALLVILLE_SCALE_SERVERS=4      (the slots split over 4 stand-in servers, reached
                                     through the Router by a litellm router file: a fleet)

The town is ``--map``'s (the Ville; ``maps/the_ville/the_ville_suburbs.tmx`` has
homes for hundreds). Every run's row is merged into ``<out>/scale_runs.json`` (by
stepping, town, residents, slots, latency and hours) as soon as it is measured, so a sweep can be made run by
run and a stopped sweep keeps the runs it finished; the
curve (``<out>/scale.png``) and the table (``scale_table()``) are drawn from
all the rows there.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from agents import Gateway, LocalEmbedder, MemoryStream, load_cast, load_config
from game.headless import run_headless
from game.runs.build import select_residents
from game.sim import movement, perception
from game.sim.clocks import Reach
from game.world.map_reader import load_town
from lab.bench.headless_run import run_folder
from lab.bench.measure import ROOT, Context, Skipped
from lab.bench.waves import read_calls, waves

AGENTS = (25, 100, 250, 500)
SLOTS = (8, 32, 128)
LATENCY_S = 1.5
HOURS = 1.0
QUICK: dict[str, Any] = {"agents": (10,), "slots": (4,), "hours": 0.25, "latency": 0.2}
RUNS_FILE = "scale_runs.json"
PLOT_FILE = "scale.png"
MODEL = "openai/competent"
DEFAULT_TOWN = "the_ville"  # rows from before they named their town ran in the Ville


# ---------------------------------------------------------------------------- what to run
def numbers(text: str | None, default: tuple, cast: Callable[[str], Any] = int) -> tuple:
    if not text or not text.strip():
        return default
    try:
        return tuple(cast(x.strip()) for x in text.split(",") if x.strip())
    except ValueError:
        raise ValueError(f"not a list of numbers: {text!r}") from None


STEPPINGS = ("lockstep", "out-of-order", "uncoupled")


def steppings(env: dict[str, str] | os._Environ) -> list[str]:
    want = (env.get("SMALLVILLE_SCALE_STEPPING") or "both").strip().lower()
    if want in ("both", "all", ""):
        return ["lockstep", "out-of-order"]
    named = [w.strip() for w in want.split(",") if w.strip()]
    unknown = [w for w in named if w not in STEPPINGS]
    if unknown:
        raise ValueError(f"SMALLVILLE_SCALE_STEPPING: unknown stepping(s) {', '.join(unknown)} "
                         f"({', '.join(STEPPINGS)}, both)")
    return named


@contextmanager
def uncoupled(on: bool = True) -> Iterator[None]:
    """With ``on``, the clocks' rule finds nobody joined to anyone while inside: every
    resident steps as its own group (the ``uncoupled`` bound, not a right run)."""
    if not on:
        yield
        return
    saved = Reach.apart, Reach.joined
    Reach.apart = lambda self, a, b, ra, rb: np.ones((len(a), len(b)), dtype=bool)  # type: ignore[method-assign]
    Reach.joined = lambda self, tiles, *rest, **kw: np.zeros((0, 2), dtype=np.int64)  # type: ignore[method-assign]
    try:
        yield
    finally:
        Reach.apart, Reach.joined = saved  # type: ignore[method-assign]


def plan(ctx: Context, env: dict[str, str] | os._Environ | None = None) -> dict[str, Any]:
    """The runs to make: residents x slots x steppings, the latency and the sim hours."""
    env = os.environ if env is None else env
    q = ctx.quick
    return {
        "agents": numbers(env.get("SMALLVILLE_SCALE_AGENTS"), QUICK["agents"] if q else AGENTS),
        "slots": numbers(env.get("SMALLVILLE_SCALE_SLOTS"), QUICK["slots"] if q else SLOTS),
        "hours": float(env.get("SMALLVILLE_SCALE_HOURS") or (QUICK["hours"] if q else HOURS)),
        "latency": float(env.get("SMALLVILLE_SCALE_LATENCY") or (QUICK["latency"] if q else LATENCY_S)),
        "steppings": steppings(env),
        "servers": int(env.get("SMALLVILLE_SCALE_SERVERS") or 1),
    }


# ---------------------------------------------------------------------------- the server
class ServerProcess:
    """lab/standin_server.py in a process of its own (its CPU is not the sim's), for one run."""

    def __init__(self, latency: float, slots: int) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "lab.standin_server", "--latency", str(latency), "--slots", str(slots),
             "--watch-stdin"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line.startswith("standin "):
            self.close()
            raise RuntimeError(f"the stand-in server did not start (it said {line.strip()!r})")
        self.base = line.split()[1]

    def stats(self) -> dict[str, Any]:
        root = self.base.rsplit("/v1", 1)[0]
        with urllib.request.urlopen(f"{root}/stats", timeout=10) as resp:
            return json.loads(resp.read())

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()


class Fleet:
    """The slots split over ``servers`` stand-in servers on ports of their own, reached as a
    fleet of vLLM or Ollama servers is: through the Router, by a litellm router file
    (``router.yaml`` in the run's folder; docs/models.md, Several model servers)."""

    def __init__(self, latency: float, slots: int, servers: int, folder: Path) -> None:
        if servers < 1 or slots % servers:
            raise ValueError(f"SMALLVILLE_SCALE_SERVERS: {slots} slots do not split evenly over {servers} servers")
        self.servers: list[ServerProcess] = []
        try:
            for _ in range(servers):
                self.servers.append(ServerProcess(latency, slots // servers))
        except Exception:
            self.close()
            raise
        folder.mkdir(parents=True, exist_ok=True)
        self.router = folder / "router.yaml"
        self.router.write_text(router_file([s.base for s in self.servers], slots // servers), encoding="utf-8")

    def stats(self) -> dict[str, Any]:
        """The servers' figures together: calls and errors summed, the slots' busy share averaged."""
        each = [s.stats() for s in self.servers]
        summed = ("calls", "errors", "over_latency", "peak_in_flight")
        total: dict[str, Any] = {k: sum(int(e.get(k) or 0) for e in each) for k in summed}
        total["utilisation"] = round(sum(float(e.get("utilisation") or 0.0) for e in each) / len(each), 4)
        total["calls_per_server"] = [int(e.get("calls") or 0) for e in each]
        return total

    def close(self) -> None:
        for s in self.servers:
            s.close()


def router_file(bases: list[str], slots: int) -> str:
    """A litellm router file for servers of the competent stand-in at ``bases``, ``slots``
    calls at once each: the shape docs/models.md shows for a vLLM fleet."""
    lines = ["model_list:"]
    for i, base in enumerate(bases):
        lines += [f"  - model_name: {MODEL.split('/', 1)[1]}", "    litellm_params:", f"      model: {MODEL}",
                  f"      api_base: {base}", f"      max_parallel_requests: {slots}",
                  "    model_info:", f"      id: standin-{i + 1}"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- timing the parts
class Parts:
    """Thread CPU seconds spent inside named functions (outermost calls only, per thread)."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._lock = threading.Lock()
        self._depth = threading.local()

    def timed(self, part: str, fn: Callable) -> Callable:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(self._depth, part, 0)
            if depth:
                return fn(*args, **kwargs)
            setattr(self._depth, part, 1)
            t = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.thread_time() - t
                setattr(self._depth, part, 0)
                with self._lock:
                    self.cpu[part] = self.cpu.get(part, 0.0) + spent
                    self.calls[part] = self.calls.get(part, 0) + 1
        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
        return wrapper

    @contextmanager
    def patched(self, targets: list[tuple[Any, str, str]]) -> Iterator[None]:
        """Time ``getattr(owner, name)`` as ``part`` for each (owner, name, part), then put them back."""
        saved = [(owner, name, getattr(owner, name)) for owner, name, _ in targets]
        try:
            for (owner, name, part), (_, _, fn) in zip(targets, saved):
                setattr(owner, name, self.timed(part, fn))
            yield
        finally:
            for owner, name, fn in saved:
                setattr(owner, name, fn)


def module_targets() -> list[tuple[Any, str, str]]:
    """What every run times: perception (the main thread), walking, retrieval and embeddings (the minds)."""
    return [
        (perception, "perceive", "perception"), (perception, "notice", "perception"),
        (perception, "can_talk_to", "perception"), (movement, "walk", "pathing"),
        (MemoryStream, "retrieve", "retrieval"), (LocalEmbedder, "embed", "embeddings"),
    ]


class Waiting:
    """Wall seconds the main thread spent blocked on the minds' answers: in every wait of
    the mind pool, each counted once. Lockstep waits in ``wait`` (a step's answers; the
    run's end) and ``wait_keys`` (the answers due next step, ``JobQueue.wait_due``); out
    of order in ``wait_any`` (no group may step until an answer is back, game/sim/clocks.py)."""

    WAITS = ("wait", "wait_keys", "wait_any")

    def __init__(self) -> None:
        self.seconds = 0.0
        self.thread = threading.get_ident()

    def attach(self, pool: Any) -> None:
        for name in self.WAITS:
            fn = getattr(pool, name, None)
            if callable(fn):
                setattr(pool, name, self._timed(fn))

    def _timed(self, fn: Callable) -> Callable:
        def waited(*a: Any, **k: Any) -> Any:
            if threading.get_ident() != self.thread:  # only the main thread's waits hold the town up
                return fn(*a, **k)
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.seconds += time.perf_counter() - t
        return waited


# ---------------------------------------------------------------------------- one run
# long: one measured run: the server, the timers around the run, and its row
def run_one(ctx: Context, stepping: str, residents: int, slots: int, latency: float, hours: float,
            servers: int = 1) -> dict[str, Any]:
    """One headless run against a fresh stand-in server (or ``servers`` of them, sharing the
    slots, through the Router); its row of figures."""
    town = load_town(ctx.map_path)
    cast, scenario = load_cast(ctx.map_path.parent)
    personas = select_residents(cast, residents, None, town=town, seed=ctx.seed)
    place = town_of(ctx.map_path)
    folder = run_folder(f"scale-{stepping}-{residents}r-{slots}s" + (f"-{servers}x" if servers > 1 else "")
                        + ("" if place == DEFAULT_TOWN else f"-{place}"))
    server: ServerProcess | Fleet = ServerProcess(latency, slots) if servers == 1 else Fleet(
        latency, slots, servers, folder)
    try:
        where = {"api_base": server.base} if isinstance(server, ServerProcess) else {"router": str(server.router)}
        config = load_config({"seed": ctx.seed, "model": MODEL, **where, "concurrency": slots,
                              "embedding_cache": "off"}, env={}, toml_path=None)
        parts = Parts()
        marks: dict[str, Any] = {}
        steps: list[float] = []
        waiting = Waiting()

        def on_start(built: Any) -> None:
            sim = built.sim
            waiting.attach(sim.pool)
            sim.paths.run = parts.timed("pathing", sim.paths.run)
            marks["t0"], marks["cpu0"], marks["main0"] = time.perf_counter(), time.process_time(), time.thread_time()
            marks["emb0"] = embedder.process_cpu_s
            marks["last"] = marks["main0"]

        def on_step(sim: Any) -> None:
            now = time.thread_time()
            steps.append(now - marks["last"])
            marks["last"] = now
            marks["t1"], marks["cpu1"] = time.perf_counter(), time.process_time()
            marks["emb1"] = embedder.process_cpu_s

        embedder = LocalEmbedder(cache_path=None)
        embedder.embed(["the model loads before the clock starts"])  # its first call loads the model
        with parts.patched(module_targets()), uncoupled(stepping == "uncoupled"):
            result = run_headless(
                town, personas, start=scenario.start, hours=hours, out=folder, scenario=scenario, config=config,
                gateway=Gateway(config), embedder=embedder, seed=ctx.seed,
                progress=sys.stderr.isatty(), echo=None, autosave_min=None, on_start=on_start, on_step=on_step,
                out_of_order=stepping != "lockstep")
        if result.interrupted:
            raise KeyboardInterrupt
        served = server.stats()
    finally:
        server.close()
    wall = marks["t1"] - marks["t0"]
    embedding = marks["emb1"] - marks["emb0"]  # the embedding model's own process: the sim's work too
    cpu = marks["cpu1"] - marks["cpu0"] + embedding
    n = max(1, len(steps))
    per = 1000.0 / (n * residents)  # seconds in the run -> ms per step per resident
    totals = result.summary.get("totals") or {}
    main_cpu = sum(steps)
    row = {
        "stepping": stepping, "town": place, "residents": residents, "slots": slots, "latency_s": latency,
        "sim_hours": hours, "servers": servers, "steps": len(steps), "wall_s": round(wall, 1),
        "wall_per_sim_hour_s": round(wall / hours, 1),
        "sim_speed_x": round(hours * 3600 / wall, 2) if wall else None,
        "waiting_s": round(waiting.seconds, 1),
        # the sim's own time: CPU of this process (the model server is another), per step per resident
        "own_cpu_ms_per_step_resident": round(cpu * per, 4),
        "main_cpu_ms_per_step_resident": round(main_cpu * per, 4),
        "minds_cpu_ms_per_step_resident": round((cpu - main_cpu) * per, 4),
        "main_cpu_ms_per_step": round(main_cpu * 1000 / n, 3),
        "main_cpu_ms_per_step_max": round(max(steps) * 1000, 2) if steps else None,
        "perception_ms_per_step_resident": round(parts.cpu.get("perception", 0.0) * per, 4),
        "pathing_ms_per_step_resident": round(parts.cpu.get("pathing", 0.0) * per, 4),
        "retrieval_ms_per_step_resident": round(parts.cpu.get("retrieval", 0.0) * per, 4),
        "embeddings_ms_per_step_resident": round((parts.cpu.get("embeddings", 0.0) + embedding) * per, 4),
        # the model's side, for comparison: a call holds a slot latency_s
        "calls": int(totals.get("calls", 0)), "server_calls": served.get("calls"),
        "model_ms_per_step_resident": round(float(totals.get("calls", 0)) * latency * per, 2),
        "slot_utilisation": served.get("utilisation"), "peak_in_flight": served.get("peak_in_flight"),
        "server_over_latency": served.get("over_latency"), "server_errors": served.get("errors"),
        **({"calls_per_server": served["calls_per_server"]} if "calls_per_server" in served else {}),
        "fallbacks": fallbacks(result.summary),
        **floors(result.summary, latency, slots, hours),
        "waves": len(waves(read_calls(folder / "llm_calls.jsonl")[0])),  # in lockstep, the steps that waited
        "folder": str(folder),
    }
    return row


def floors(summary: dict, latency: float, slots: int, hours: float) -> dict[str, Any]:
    """What no stepping can beat, per sim hour, beside what the run took: the server's
    floor (every call on every slot, back to back) and one mind's (a mind answers one
    call at a time, so the resident with the most calls waits that many latencies
    even if its clock ran free of everyone else's: the bound of per-resident clocks).
    Out of order, also how apart the residents stepped: groups a town step, and the
    furthest any ran ahead of the slowest (sim seconds)."""
    residents = summary.get("residents") or {}
    most = max((int(r.get("calls") or 0) for r in residents.values() if isinstance(r, dict)), default=0)
    calls = int((summary.get("totals") or {}).get("calls") or 0)
    stepping = summary.get("stepping") or {}
    return {
        "floor_server_s": round(calls * latency / max(1, slots) / hours, 1),
        "floor_one_mind_s": round(most * latency / hours, 1),
        "most_calls_one_resident": most,
        "groups_per_step": float(stepping.get("groups_per_step") or 1.0),
        "most_ahead_s": float(stepping.get("most_ahead_s") or 0.0),
    }


def fallbacks(summary: dict) -> int:
    """Where rules stood in for the model, all residents together (a stand-in that answers well: few)."""
    rows = summary.get("residents") or {}
    return sum(sum((r.get("fallbacks") or {}).values()) for r in rows.values() if isinstance(r, dict))


# ---------------------------------------------------------------------------- all runs, the rows kept, the curve
def town_of(map_path: Path) -> str:
    """A row's town: its map's file name, without the ``.tmx``."""
    return Path(map_path).stem


def row_key(r: dict) -> tuple:
    return (r["stepping"], r.get("town", DEFAULT_TOWN), r["residents"], r["slots"], r["latency_s"], r["sim_hours"],
            r.get("servers", 1))


# what every kept row must have: its key, and what the table and the curve read of it
ROW_FIELDS = ("stepping", "residents", "slots", "latency_s", "sim_hours", "wall_per_sim_hour_s", "sim_speed_x",
              "calls", *(f"{k}_ms_per_step_resident" for k in ("own_cpu", "main_cpu", "perception", "pathing",
                                                               "retrieval", "embeddings", "model")))


def read_rows(path: Path) -> list[dict]:
    """The rows kept in ``path`` (none when there is no file). A file that is not
    ``{"runs": [row, ...]}`` (damaged, another shape, a row without its figures) is
    copied aside whole, ``<name>.damaged-<time>``, with a warning naming both; its
    whole rows are kept."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"{path}: cannot read the kept rows ({err}); move it away and run again") from None
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    runs = data.get("runs") if isinstance(data, dict) else None
    rows = [r for r in runs if isinstance(r, dict) and all(k in r for k in ROW_FIELDS)] \
        if isinstance(runs, list) else []
    if not isinstance(runs, list) or len(rows) != len(runs):
        aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        _write_whole(aside, text)
        print(f"bench scale: {path} is not a list of runs' rows ({{\"runs\": [...]}}); it was copied to {aside}, "
              f"and {len(rows)} whole row(s) of it are kept", file=sys.stderr, flush=True)
    return rows


def _write_whole(path: Path, text: str) -> None:
    """``text`` into ``path`` whole or not at all: a temporary file beside it, then renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def merge_rows(path: Path, new: list[dict]) -> list[dict]:
    """The rows in ``path`` (``read_rows``) with ``new`` in place of those of the same run;
    written back whole (``_write_whole``), sorted."""
    rows = {row_key(r): r for r in read_rows(path)}
    rows.update({row_key(r): r for r in new})
    out = sorted(rows.values(),
                 key=lambda r: (r["stepping"], r["latency_s"], r["sim_hours"], r["slots"], r["residents"]))
    _write_whole(path, json.dumps({"runs": out}, indent=2) + "\n")
    return out


def scale_table(rows: list[dict]) -> str:
    """The rows as a Markdown table."""
    head = ("| stepping | residents | slots | sim h run | wall s / sim h | waves | floor: server, one mind (s) | "
            "groups a step (most apart, s) | "
            "sim speed | calls | slots busy | "
            "own CPU ms/step/resident | main thread | perception | pathing | retrieval | embeddings | "
            "model ms/step/resident |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in sorted(rows, key=lambda r: (r["stepping"], r.get("town", DEFAULT_TOWN) != DEFAULT_TOWN, r["slots"],
                                         r["residents"], r.get("servers", 1))):
        util = r.get("slot_utilisation")
        floor = (f"{r['floor_server_s']:g}, {r['floor_one_mind_s']:g}" if "floor_server_s" in r else "")
        early = ("" if r["stepping"] == "lockstep" or "groups_per_step" not in r
                 else f"{r['groups_per_step']:g} ({r['most_ahead_s']:g})")
        lines.append(
            f"| {r['stepping']} | {r['residents']}{_in_town(r)} | {r['slots']}"
            f"{_on_fleet(r.get('servers', 1))}{_answering_in(r)} | {r['sim_hours']:g} | "
            f"{r['wall_per_sim_hour_s']:g} | "
            f"{r.get('waves', '')} | {floor} | {early} | "
            f"{r['sim_speed_x']:g}x | {r['calls']} | {'' if util is None else f'{util:.0%}'} | "
            f"{r['own_cpu_ms_per_step_resident']:.3f} | {r['main_cpu_ms_per_step_resident']:.3f} | "
            f"{r['perception_ms_per_step_resident']:.3f} | {r['pathing_ms_per_step_resident']:.3f} | "
            f"{r['retrieval_ms_per_step_resident']:.3f} | {r['embeddings_ms_per_step_resident']:.3f} | "
            f"{r['model_ms_per_step_resident']:g} |")
    return "\n".join(lines)


def _on_fleet(servers: int) -> str:
    """" on 4 servers" for a run on a fleet; nothing for one server."""
    return f" on {servers} servers" if servers > 1 else ""


def _answering_in(r: dict) -> str:
    """" answering in 0.05 s" for a row whose stand-in took another time a call than the
    sweep's (one answering at once measures the sim's own floor: docs/scale.md)."""
    return "" if r["latency_s"] == LATENCY_S else f" answering in {r['latency_s']:g} s"


def _in_town(r: dict) -> str:
    """" in the_ville_suburbs" for a row of another town than the Ville's."""
    town = r.get("town", DEFAULT_TOWN)
    return "" if town == DEFAULT_TOWN else f" in {town}"


def plot(rows: list[dict], path: Path) -> Path | None:
    """Wall time per sim hour against residents, a line per slots and stepping; and the
    sim's own CPU per step per resident beside the model's. None without matplotlib."""
    try:
        import matplotlib  # lazy: matplotlib is slow to import and only the plot needs it

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # lazy: see above
    except ImportError:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
    groups: dict[tuple, dict[int, dict]] = {}  # a line per stepping and server; a point per town size
    for r in sorted(rows, key=lambda r: r["sim_hours"]):  # the longest run of a size is its point
        key = (r["stepping"], r["slots"], r["latency_s"], r.get("servers", 1), _in_town(r))
        groups.setdefault(key, {})[r["residents"]] = r
    for (stepping, slots, latency, servers, town), by_size in sorted(groups.items()):
        rs = [by_size[n] for n in sorted(by_size)]
        xs = [r["residents"] for r in rs]
        style = {"lockstep": "-", "uncoupled": "-."}.get(stepping, "--")
        left.plot(xs, [r["wall_per_sim_hour_s"] for r in rs], style, marker="o",
                  label=f"{slots} slots{_on_fleet(servers)}, {stepping}, {latency:g} s/call{town}")
    one_mind: dict[int, float] = {}  # the floor per-resident clocks could reach, at most (the Ville's)
    for r in rows:
        if "floor_one_mind_s" in r and not _in_town(r):
            one_mind[r["residents"]] = max(one_mind.get(r["residents"], 0.0), float(r["floor_one_mind_s"]))
    if one_mind:
        left.plot(sorted(one_mind), [one_mind[n] for n in sorted(one_mind)], ":", color="black",
                  label="one mind's calls back to back (no stepping beats it)")
    _log_axes(left, sorted({r["residents"] for r in rows}), "wall seconds per sim hour")
    left.axhline(3600, color="grey", lw=0.8, ls=":")
    left.text(left.get_xlim()[0], 3600, " real time", va="bottom", color="grey", fontsize=8)
    left.set_title("A sim hour against the stand-in server")
    left.legend(fontsize=7)
    by_n: dict[int, list[dict]] = {}
    for r in rows:
        if r["stepping"] == "lockstep" and not _in_town(r):  # one town's costs, the Ville's
            by_n.setdefault(r["residents"], []).append(r)
    ns = sorted(by_n)
    if ns:
        def med(key: str) -> list[float]:
            out = []
            for n in ns:
                vs = sorted(float(r[key]) for r in by_n[n])
                out.append(vs[len(vs) // 2])
            return out
        for key, label in (("own_cpu_ms_per_step_resident", "sim process CPU, all"),
                           ("main_cpu_ms_per_step_resident", "main thread"),
                           ("perception_ms_per_step_resident", "perception"),
                           ("pathing_ms_per_step_resident", "pathing and walking"),
                           ("retrieval_ms_per_step_resident", "retrieval"),
                           ("model_ms_per_step_resident", "model (calls x latency)")):
            right.plot(ns, med(key), marker="o", label=label, ls=":" if key.startswith("model") else "-")
        _log_axes(right, ns, "ms per step per resident")
        right.set_title("The sim's own cost beside the model's (the Ville, lockstep)")
        right.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _log_axes(ax: Any, residents: list[int], ylabel: str) -> None:
    """Both axes logarithmic, the town sizes run as the x ticks."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(residents, [str(n) for n in residents])
    ax.tick_params(axis="x", which="minor", labelbottom=False)
    ax.set_xlabel("residents")
    ax.set_ylabel(ylabel)


def bench_scale(ctx: Context) -> dict:
    """The sweep ``plan`` names; figures per run, rows merged into scale_runs.json, the curve drawn."""
    try:
        todo = plan(ctx)
    except ValueError as err:
        raise Skipped(str(err)) from None
    out_dir = ctx.out_dir or ROOT / "bench"
    try:
        every = read_rows(out_dir / RUNS_FILE)  # a file that cannot be kept says so before the first run
    except ValueError as err:
        raise Skipped(str(err)) from None
    rows = []
    for stepping in todo["steppings"]:
        for slots in todo["slots"]:
            for residents in todo["agents"]:
                print(f"bench scale: {stepping}, {residents} residents, {slots} slots{_on_fleet(todo['servers'])} ...",
                      file=sys.stderr, flush=True)
                row = run_one(ctx, stepping, residents, slots, todo["latency"], todo["hours"], todo["servers"])
                print(f"bench scale: {row['wall_per_sim_hour_s']:g} s per sim hour, own CPU "
                      f"{row['own_cpu_ms_per_step_resident']:.3f} ms/step/resident", file=sys.stderr, flush=True)
                rows.append(row)
                every = merge_rows(out_dir / RUNS_FILE, [row])  # kept as measured: Ctrl-C loses only the run at hand
    drawn = plot(every, out_dir / PLOT_FILE)
    figures: dict[str, Any] = {}
    for r in rows:
        short = {"lockstep": "lock", "out-of-order": "ooo"}.get(r["stepping"], r["stepping"])
        tag = f"{short}_{r['residents']}r_{r['slots']}s" + (
            "" if r["town"] == DEFAULT_TOWN else f"_{r['town']}")
        figures[f"{tag}_wall_per_sim_hour_s"] = r["wall_per_sim_hour_s"]
        figures[f"{tag}_own_cpu_ms_per_step_resident"] = r["own_cpu_ms_per_step_resident"]
        figures[f"{tag}_perception_ms_per_step_resident"] = r["perception_ms_per_step_resident"]
    figures["runs"] = rows
    figures["note"] = (f"{todo['latency']:g} s a call, {todo['hours']:g} sim hour(s) from the scenario's start, seed "
                       f"{ctx.seed}, real embeddings; steppings {', '.join(todo['steppings'])}; every run's row in "
                       f"{out_dir / RUNS_FILE}" + (f", the curve in {drawn}" if drawn else ""))
    return figures


__all__ = ["Waiting", "bench_scale", "merge_rows", "plan", "plot", "read_rows", "scale_table", "uncoupled"]
