"""Taking a consistent snapshot of a running game for a save (no pygame): ``capture``
turns a ``game.runs.session.Session`` (or a headless run's ``Parts``) into the save's
parts and meta on the main thread, in milliseconds; the heavy parts (the minds'
memory streams, the event log's older part) are callables the save writer runs
on its own thread. A mind whose job is in flight is saved as it was before that
job began (``job_tag_of`` maps the simulation's record of the job onto the
mind's tag). game/saves/saveload.py, which loads a game back, re-exports these."""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import fields, is_dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from agents import Mind, ResidentMind, Stateful, redact
from game.saves.cast import PERSONAS, personas_data
from game.saves.running import Captured
from game.saves.store import SaveError, freeze, map_size
from game.sim import SimSettings
from game.sim.core import Simulation
from game.sim.jobs import CALL, DECIDE, END_CONVERSATION, GREET, PREPARE, UTTER, Job


def play_state(sim: Simulation, *, visitor_name: str | None = None, controlled: str | None = None,
               paused: bool = False, speed: int | None = None) -> dict[str, dict[str, object]]:
    """The save's ``visitor`` and ``clock`` parts: who and where the player is, and the clock
    (a headless run has no player and never pauses)."""
    visitor = sim.bodies.get(sim.visitor) if sim.visitor else None
    return {
        "visitor": {
            "name": visitor_name or sim.visitor,
            "tile": list(visitor.tile) if visitor else None,
            "facing": visitor.facing if visitor else None,
            "doing": visitor.doing if visitor else None,
            "controlled": controlled,
        },
        "clock": {"now": sim.now, "start": sim.start, "steps": sim.steps, "paused": bool(paused), "speed": speed},
    }


# What a save asks of a mind's job in flight: its tag (``agents.mind.job_tag``), a test of tags
# for a job whose record does not name it exactly, or None for a job that touches no mind.
JobTag = tuple | Callable[[tuple], bool] | None

_SECRET_WORDS = ("key", "secret", "token", "password", "credential", "auth")


# ---------------------------------------------------------------------------- capture


def job_tag_of(sim: Simulation, name: str, job: Job | None) -> JobTag:
    """The mind's tag (``agents.mind.job_tag``) of the simulation's job record
    ``job`` for resident ``name``, or a predicate over tags for jobs whose
    record does not name them exactly; None for jobs that touch no mind."""
    kind = job.kind if job is not None else None
    if kind == DECIDE and job is not None and job.at is not None:
        return ("decide", job.at.isoformat())
    if kind == UTTER and job is not None and job.chat is not None:
        chat = sim.chat(job.chat)
        if chat is None:
            return None
        c = chat.conv
        return ("utter", tuple(c.participants), c.started.isoformat(), len(c.lines))
    if kind == END_CONVERSATION and job is not None and job.conversation is not None and job.at is not None:
        c, now = job.conversation, job.at
        return ("end_conversation", tuple(c.participants), c.started.isoformat(), now.isoformat())
    if kind == GREET and job is not None:  # PlaySimulation: one line for the visitor, then remembering it
        pair = (name, job.partner)
        return lambda tag: len(tag) > 1 and tag[0] in ("utter", "end_conversation") and tag[1] == pair
    if kind == PREPARE and job is not None and job.need is not None:  # agents/mind/core.py prepare()
        return ("prepare", job.need.isoformat())
    if kind == CALL:  # the visitor's chat (agents/mind/interview.py)
        return lambda tag: tag[0] == "respond"
    return None


def _config_state(config: object) -> dict | None:
    if config is None:
        return None
    if is_dataclass(config):
        d = {f.name: getattr(config, f.name) for f in fields(config)}
    elif hasattr(config, "__dict__"):
        d = {k: v for k, v in vars(config).items() if not k.startswith("_")}
    else:
        return None
    out = {}
    for k, v in d.items():
        if any(w in k.lower() for w in _SECRET_WORDS):
            continue  # API keys never reach a save
        if isinstance(v, str):
            out[k] = redact(v)  # credentials in an api_base never reach a save
        elif isinstance(v, (int, float, bool, type(None))):
            out[k] = v
    return out


@runtime_checkable
class KeepsState(Protocol):
    """A mind that is not a whole Mind but gives its state to a save."""

    def to_state(self) -> dict[str, Any]: ...  # Any: its own plain data


def _mind_part(mind: ResidentMind, name: str, tag: JobTag) -> object:
    """A mind's part of a save: a whole Mind's consistent snapshot, or a state of its own."""
    if isinstance(mind, Mind):
        return mind.snapshot(tag)
    if isinstance(mind, KeepsState):  # a mind of a test's or a bench's that keeps a state of its own
        return mind.to_state()
    raise SaveError(f"{name}'s mind ({type(mind).__name__}) cannot be saved; this game cannot be saved")


# Any: the parts and meta are plain data of many shapes (the sim's, each mind's), read back by name.
def capture(session: Captured, *, drain: bool | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """A consistent snapshot of the running game: (parts, meta) for
    ``SaveWriter.save`` / ``save_state``. Main thread; a few milliseconds (the
    minds' parts are callables the writer runs). ``drain``: wait for the jobs
    in flight and apply them first (default: when the sim is lockstep, so a
    headless run continues exactly)."""
    t0 = time.perf_counter()
    sim = session.sim
    if drain is None:
        drain = bool(getattr(sim, "lockstep", False))
    if drain:
        sim.drain()
    state = sim.to_state(events=False)
    events = sim.events.snapshot()  # the window's references now; older events are read by the writer
    jobs = sim.jobs.running()
    bodies = state.get("bodies", {})
    asked_again = []
    for name, job in jobs.items():
        if job.kind == DECIDE and name in bodies:
            b = bodies[name]
            reason = job.reason
            if job.ahead:
                b["ahead_for"] = None  # asked ahead again after loading
            elif reason == "react":
                b["new_events"], b["last_decide"] = True, None
            elif reason == "new day":
                b["asked_day"] = ""  # not today: the scheduler asks again
            asked_again.append(name)
    parts: dict[str, Any] = {"sim": state}
    for name, mind in session.minds.items():
        job = jobs.get(name)
        tag = job_tag_of(sim, name, job) if job is not None else None
        parts[f"minds/{name}"] = _mind_part(mind, name, tag)
    # A Session saves its own parts ("visitor", "clock"); a headless run's Parts have no player.
    parts.update(session.to_state() if isinstance(session, Stateful) else play_state(sim))
    town = session.town
    parts["session"] = {
        "residents": list(session.minds),
        "map": str(getattr(town, "path", "") or ""),
        "world": getattr(town, "world", None),
        "seed": getattr(sim, "seed", 0),
        "lockstep": bool(getattr(sim, "lockstep", False)),
        "lockstep_think_s": int(getattr(sim, "settings", SimSettings()).lockstep_think_s),
        "sim_class": type(sim).__name__,
    }
    # The residents themselves: a generated or added one cannot be made again from the seed alone
    known = getattr(sim, "personas", None) or {}
    people = personas_data(known.get(n) or getattr(m, "persona", None) for n, m in session.minds.items())
    if people:
        parts["session"][PERSONAS] = people
    acc = getattr(getattr(session, "gateway", None), "accounting", None)
    if acc is not None and callable(getattr(acc, "to_state", None)):
        parts["accounting"] = acc.to_state()
    parts["random"] = {"python": random.getstate(), "numpy": np.random.get_state()}
    cfg = _config_state(getattr(session, "config", None))
    if cfg is not None:
        parts["config"] = cfg
    _add_feed(session, parts)
    parts = freeze(parts)
    parts["sim"] = _with_events(parts["sim"], events)
    emb = getattr(session, "embedder", None)
    meta = {
        "world": getattr(town, "world", None),
        "map_path": str(getattr(town, "path", "") or "") or None,
        "map_size": map_size(town),  # the map's identity: its world, size and addresses (game/saves/compat.py)
        "sim_time": sim.now,
        "residents": list(session.minds),
        "embedding_model": getattr(emb, "model_name", None),
        "embedding_dim": getattr(emb, "dim", None),
        "visitor_name": parts["visitor"]["name"],
        "game_id": getattr(session, "game_id", None),  # this game's own series (game/saves/series.py)
        "model": (cfg or {}).get("model"),
        "seed": getattr(sim, "seed", 0),
        "asked_again": sorted(asked_again),  # residents whose decision is asked again after loading
        "capture_ms": round(1000 * (time.perf_counter() - t0), 2),
    }
    return parts, meta


def _add_feed(session: Captured, parts: dict[str, object]) -> None:
    """The town feed (game/runs/live_feed.py), when the game has one: its entries and how far
    it has read the event log (the loaded game reads on from there)."""
    feed = getattr(session, "feed", None)
    if feed is not None and callable(getattr(feed, "to_state", None)):
        parts["feed"] = feed.to_state()


def _with_events(state: dict[str, object], events: Callable[[], list[dict]]) -> Callable[[], dict[str, object]]:
    """The ``sim`` part as a callable the save writer runs: the state taken on the
    main thread plus the event log, read from its journal off the frame."""
    def build() -> dict[str, object]:
        return {**state, "events": events()}
    return build


def materialize(parts: Mapping[str, object]) -> dict[str, object]:
    """The parts with every deferred (callable) part built: plain data (tests)."""
    return {k: (v() if callable(v) else v) for k, v in parts.items()}


__all__ = ["capture", "job_tag_of", "materialize"]
