"""Saving and loading a whole running game (no pygame).

``game/saves/store.py`` stores plain parts in a crash-safe SQLite file; this module
turns a running game (a ``game.runs.session.Session``, or anything with its
attributes: ``town, cast, gateway, embedder, pool, minds, sim`` such as
``session.Parts``) into parts and back.

    parts, meta = capture(session)            # main thread, a few ms for 25 residents
    writer.save(slot_path("quick"), parts, meta)   # the rest on the writer's thread
    ...
    parts, info = load_state(path, expect_map=session.town)   # any thread
    restore(session, parts, info)             # build new minds + sim, swap only on success

The parts:

- ``sim``          ``Simulation.to_state()``: clock, bodies (position, path, action,
                   conversation, perception memory), conversations with their lines,
                   object states, cooldowns, the event log and the sim's RNG (built
                   on the writer's thread: the event log's older part is on disk)
- ``minds/<name>`` ``Mind.snapshot()``: the memory stream with embeddings, plans,
                   current action, spatial memory, counters (built on the writer's
                   thread from a cheap capture)
- ``clock``        now, start, steps, paused, speed
- ``visitor``      the visitor's name, tile, what they are doing; who the player controls
- ``session``      residents, map, world, seed, lockstep, and the residents' personas
                   (game/saves/cast.py: a generated town loads the same people from any save)
- ``accounting``   the model-call ledger's totals (``Accounting.to_state()``)
- ``random``       Python's and numpy's global random states
- ``config``       the model configuration, without anything secret
- ``feed``         the town feed (game/runs/feed.py ``FeedBuilder.to_state()``), when the game
                   has one; a save without it (older saves) rebuilds it from its events

Consistency without freezing the frame: a mind whose job is in flight (or
finished with its result not yet applied) is saved as it was just before that
job began (``Mind.snapshot(in_flight)``); the simulation does not have the job's
result either, so after loading the job is simply asked again (decisions:
the body is marked so the scheduler asks; utterances: the conversation's next
line is asked again; remembering a finished conversation: re-queued). A
lockstep run (headless) is drained first, so a loaded run continues exactly
as the saved one would have. Exchanges with the visitor that a mind has not yet
kept in memory (its keeping job queued or running) are saved as owed and kept
by the loaded mind (agents/mind/interview.py ``owe_exchange`` / ``keep_owed``).
The capture itself is game/saves/capture.py (re-exported here).

Loading builds everything new off to the side (``prepare``; safe on a worker
thread) and swaps it in with ``commit`` (main thread, milliseconds). Any
problem raises ``SaveError`` before the swap (game/saves/check.py names the
damaged part), and a swap that fails halfway puts the old game back: the
running game is untouched. A loaded game goes on with its own saves (its game
id, game/saves/series.py).
"""
from __future__ import annotations

import copy
import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import numpy as np

from agents import (
    Accounting,
    CastError,
    Embedder,
    EmbeddingMismatch,
    Gateway,
    Mind,
    MindSettings,
    Persona,
    ResidentMind,
    Stateful,
    keep_owed,
)
from game.saves.capture import capture, job_tag_of, materialize
from game.saves.cast import PERSONAS, saved_cast, stored_personas
from game.saves.check import check_bodies, check_parts, check_visitor, py_random_state
from game.saves.running import OwnSaves, RunningGame, Window
from game.saves.series import (
    MAX_GAME_ID,
    OWN_SLOTS,
    game_of,
    line_after_load,
    new_game_id,
    own_slot,
    usable_game_id,
)
from game.saves.store import SaveError, SaveInfo, check_map, list_saves, load_state, no_gc, slot_path
from game.sim.core import Simulation
from game.sim.speeds import SPEEDS
from game.support import folders
from game.world.town import Town

log = logging.getLogger(__name__)

REQUIRED = ("sim", "session")


# ---------------------------------------------------------------------------- restore


class _NoPool:
    """Stands in for the pool while a loaded sim is built off to the side (so
    its from_state cannot cancel the running game's jobs)."""

    def cancel_all(self) -> None:
        pass

    def busy(self, key: str) -> bool:
        return False

    def in_flight(self) -> int:
        return 0

    def results(self) -> list:
        return []

    def submit(self, *a: object, **k: object) -> bool:
        return False

    def wait(self, timeout: float | None = None) -> bool:
        return True

    def wait_keys(self, keys: set[str], timeout: float | None = None) -> bool:
        return True

    def shutdown(self, wait: bool = False) -> None:
        pass


@dataclass
class Prepared:
    """A loaded game built off to the side, waiting for ``commit``."""

    sim: Simulation
    minds: dict[str, ResidentMind]
    cast: list[Persona]
    town_states: dict
    parts: dict
    info: SaveInfo | None
    accounting: Accounting | None = None  # a scratch Accounting holding the save's totals
    random_states: tuple = (None, None)  # Python's and numpy's, checked
    game_id: str | None = None  # the line the loaded game goes on with (a branch after a load back in time)
    timings: dict = field(default_factory=dict)


def _full_cast(town: Town, names: list[str], seed: int) -> dict[str, Persona]:
    """The town's residents beside its map, and those it generated from ``seed`` (game/saves/cast.py:
    an older save that keeps no personas)."""
    try:
        return saved_cast(Path(town.path), names, seed, town=town)[0]
    except CastError as err:  # the caller names the residents it still lacks
        log.warning("%s", err)
        return {}
    except Exception:  # only a fallback for residents not in the session
        log.exception("cannot read the cast beside %s", getattr(town, "path", "?"))
        return {}


def rebuild_mind(persona: Persona, gateway: Gateway, embedder: Embedder, state: dict,
                 settings: MindSettings | None = None) -> Mind:
    """A resident's mind as ``Mind.to_state()`` saved it, on this game's gateway and embedder."""
    return Mind.restore(persona, gateway, embedder, state, settings)


def _where(info: SaveInfo | None) -> str:
    return str(info.path) if info is not None else "the save"


# parts: Any, each part as the file holds it, checked before it is used.
def prepare(session: RunningGame, parts: dict[str, Any], info: SaveInfo | None = None) -> Prepared:
    """Build new minds and a new simulation from a save's parts, without
    touching the running game (safe on a worker thread). SaveError when the
    save does not fit this game, whatever its parts hold."""
    where = _where(info)
    try:
        return _prepare(session, parts, info, where)
    except SaveError:
        raise
    except RecursionError as err:
        raise SaveError(f"{where} is damaged: a part is nested too deeply to rebuild; load another save") from err
    except Exception as err:  # a damaged save may hold anything: a message, never a crash
        log.exception("rebuilding the game from %s failed", where)
        raise SaveError(f"{where} is damaged: the game cannot be rebuilt from it ({type(err).__name__}: "
                        f"{str(err)[:200]}); load another save") from err


# parts: Any, as in prepare (here they are checked).
def _residents_of(session: RunningGame, parts: dict[str, Any], info: SaveInfo | None,
                  where: str) -> tuple[list[str], dict[str, Persona]]:
    """Check that the save fits this game (its parts, its map, its world, its cast);
    returns its residents' names and every persona by name. SaveError when it does not."""
    missing = [p for p in REQUIRED if p not in parts]
    if missing:
        raise SaveError(f"{where} is not a saved game (it lacks {', '.join(missing)}); load another save")
    check_parts(parts, where)
    town = session.town
    if info is not None and getattr(town, "path", None):
        check_map(info, town, parts)  # a changed map: the addresses the save uses must still be there
    sess = parts["session"] or {}
    world = sess.get("world")
    if world and getattr(town, "world", None) and world != town.world:
        raise SaveError(f"{where} was saved in '{world}' (its part 'session') but this game runs '{town.world}'; "
                        f"start the game on the save's map to load it")
    names = list(sess.get("residents") or [k[6:] for k in parts if k.startswith("minds/")])
    lost = [n for n in names if f"minds/{n}" not in parts]
    if lost:
        raise SaveError(f"{where} is incomplete: its part 'session' names {', '.join(lost[:3])}, and it has "
                        f"no part 'minds/{lost[0]}'; load another save")
    try:  # the save's own people first: the running game's cast may be another town's
        kept = stored_personas(sess.get(PERSONAS), where)
    except CastError as err:
        raise SaveError(f"{err}; load another save") from None
    _check_homes(kept, names, town, where)
    personas = {**{p.name: p for p in session.cast}, **kept}
    if any(n not in personas for n in names):
        personas = {**_full_cast(town, names, sess.get("seed") or 0), **personas}
    unknown = [n for n in names if n not in personas]
    if unknown:
        raise SaveError(f"{where} has residents this town does not know ({', '.join(unknown[:3])}); "
                        "it was saved with another cast. Load another save")
    return names, personas


def _check_homes(kept: dict[str, Persona], names: list[str], town: Town, where: str) -> None:
    """Every place a kept persona names (home, work, the places it knows) is on this map."""
    if not getattr(town, "world", None) or not hasattr(town, "__contains__"):
        return  # a stand-in town (tests): nothing to check against
    for n in names:
        p = kept.get(n)
        gone = [a for a in ([p.home, p.workplace, *p.places] if p else []) if a not in town]
        if gone:
            raise SaveError(f"{where}: {n} (its part 'session') lives or works at {gone[0][:80]!r}, which this "
                            "game's map does not have; start the game on the save's map to load it")


# parts: Any, as in prepare; the random states are checked here.
def _random_states(parts: dict[str, Any], where: str) -> tuple[tuple | None, object]:
    """Python's and numpy's random states from the save, checked (None: not saved)."""
    rnd = parts.get("random") or {}
    py_state = np_state = None
    try:
        if rnd.get("python") is not None:
            py_state = py_random_state(rnd["python"])
            random.Random().setstate(py_state)
        if rnd.get("numpy") is not None:
            np_state = rnd["numpy"]
            np.random.RandomState().set_state(np_state)
    except Exception as err:
        raise SaveError(f"{where} is damaged: its part 'random' (the random state) cannot be read ({err}); "
                        "load another save") from err
    return py_state, np_state


# parts: Any, as in prepare.
def _prepare(session: RunningGame, parts: dict[str, Any], info: SaveInfo | None, where: str) -> Prepared:
    t0 = time.perf_counter()
    town = session.town
    names, personas = _residents_of(session, parts, info, where)
    old_minds = list(session.minds.values())
    settings = old_minds[0].settings if old_minds and isinstance(old_minds[0], Mind) else None
    gateway, embedder = session.gateway, session.embedder
    if embedder is None:  # minds given to the game (stand-ins): the saved memories have no model to be read with
        raise SaveError(f"{where} cannot be loaded into this game: its residents are stand-ins without an "
                        "embedding model, so the saved minds cannot be rebuilt")
    minds: dict[str, ResidentMind] = {}
    for n in names:
        try:
            with no_gc():  # 100,000 small objects: no collector passes over the whole game meanwhile
                mind = rebuild_mind(personas[n], gateway, embedder, parts[f"minds/{n}"], settings)
                minds[n] = mind
                keep_owed(mind)  # exchanges with the visitor saved before they were kept
        except EmbeddingMismatch as err:
            raise SaveError(f"{where} (part 'minds/{n}'): {err}; start the game with the save's embedding model "
                            "to load it") from err
        except RecursionError as err:
            raise SaveError(f"{where} is damaged: part 'minds/{n}' is nested too deeply; load another save") from err
        except Exception as err:  # a damaged mind may hold anything
            raise SaveError(f"{where} is damaged: {n}'s mind (part 'minds/{n}') cannot be rebuilt "
                            f"({type(err).__name__}: {str(err)[:200]}); load another save") from err
    t1 = time.perf_counter()
    old = session.sim
    scratch = copy.copy(town)  # from_state writes object states: into a copy until commit
    scratch.object_states = town.object_states.copy()
    cls = type(old)
    try:
        new = cls(scratch, minds, _NoPool(), old.start, personas={n: personas[n] for n in names},
                  seed=getattr(old, "seed", 0), lockstep=getattr(old, "lockstep", False),
                  settings=getattr(old, "settings", None))
        new.from_state(parts["sim"])
    except SaveError:
        raise
    except Exception as err:  # a save that does not fit: a message, not a crash
        log.exception("rebuilding the simulation from %s failed", where)
        raise SaveError(f"{where} is damaged: the town cannot be rebuilt from its part 'sim' "
                        f"({type(err).__name__}: {str(err)[:200]}); "
                        "load another save") from err
    acc = None
    if "accounting" in parts:
        try:
            acc = Accounting()
            acc.from_state(parts["accounting"])
        except Exception as err:
            raise SaveError(f"{where} is damaged: its part 'accounting' cannot be read ({err}); "
                            "load another save") from err
    check_bodies(new, town, where)
    check_clock(parts.get("clock"), where)
    check_visitor(parts.get("visitor"), town, names, where)
    py_state, np_state = _random_states(parts, where)
    line = None
    if hasattr(session, "game_id") and info is not None and info.path.exists():  # a worker thread: it reads folders
        line = line_after_load(info, {info.path.parent, folders.saves_dir()})
    t2 = time.perf_counter()
    return Prepared(sim=new, minds=minds, cast=[personas[n] for n in names], town_states=scratch.object_states,
                    parts=parts, info=info, accounting=acc, random_states=(py_state, np_state), game_id=line,
                    timings={"minds": round(t1 - t0, 4), "sim": round(t2 - t1, 4)})


def check_clock(clock: object, where: str) -> None:
    """The save's clock part is one the game can run (else a SaveError naming it, before
    anything is swapped in): a speed from the list, a pause flag."""
    if clock is None:
        return
    if not isinstance(clock, dict):
        raise SaveError(f"{where} is damaged: its clock part is not a table; load another save")
    speed = clock.get("speed")
    if speed is not None and (not isinstance(speed, (int, float)) or isinstance(speed, bool) or speed not in SPEEDS):
        raise SaveError(f"{where} is damaged: its clock's speed {str(speed)[:20]!r} is not one of "
                        f"{', '.join(map(str, SPEEDS))}; load another save")
    if not isinstance(clock.get("paused", False), bool):
        raise SaveError(f"{where} is damaged: its clock's pause is not true or false; load another save")


class _Undo:
    """What a commit changes in the running game, kept so that a swap failing
    halfway puts it all back: the game is either the loaded one or the old one."""

    ATTRS = ("minds", "sim", "cast", "visitor_name", "paused", "speed", "playing", "game_id")

    def __init__(self, session: RunningGame) -> None:
        self.session = session
        self.attrs = {a: getattr(session, a) for a in self.ATTRS if hasattr(session, a)}
        self.objects = dict(session.town.object_states)
        acc = getattr(getattr(session, "gateway", None), "accounting", None)
        self.accounting = acc.to_state() if acc is not None and callable(getattr(acc, "to_state", None)) else None
        self.random = (random.getstate(), np.random.get_state())

    def undo(self) -> None:
        s = self.session
        for a, v in self.attrs.items():
            setattr(s, a, v)
        s.town.object_states.clear()
        s.town.object_states.update(self.objects)
        acc = getattr(getattr(s, "gateway", None), "accounting", None)
        if self.accounting is not None and acc is not None:
            acc.from_state(self.accounting)
        random.setstate(self.random[0])
        np.random.set_state(self.random[1])


def commit(session: RunningGame, prep: Prepared) -> RunningGame:
    """Swap the prepared game in (main thread; milliseconds). The pool's jobs
    of the old game are cancelled (their results vanish); listeners on the old
    sim (bubbles, the headless event stream) move to the new one. SaveError
    when the swap fails halfway, with the old game put back as it was."""
    t0 = time.perf_counter()
    undo = _Undo(session)
    try:
        _swap(session, prep)
    except Exception as err:  # whatever failed, the player keeps the game they had
        log.exception("swapping in %s failed; the game goes on as it was", _where(prep.info))
        undo.undo()
        raise SaveError(f"{_where(prep.info)} could not be swapped in ({type(err).__name__}: {str(err)[:200]}); "
                        "the game goes on as it was") from err
    _restore_feed(session, prep.parts, prep.info)
    pool = session.pool
    if pool is not None and callable(getattr(pool, "cancel_all", None)):
        pool.cancel_all()  # last: the old game's jobs end only once the loaded one is in
    prep.timings["commit"] = round(time.perf_counter() - t0, 4)
    log.info("loaded %s (%s)", _where(prep.info), prep.timings)
    return session


def _restore_feed(session: RunningGame, parts: Mapping[str, object], info: SaveInfo | None) -> None:
    """The loaded game's town feed (game/runs/live_feed.py): the saved one, or, from a save
    without one (older saves) or with a damaged one, rebuilt from the loaded event log.
    Damage found is added to the save's warnings (the player is told)."""
    if not hasattr(session, "feed"):
        return  # a headless run's parts have no feed
    feed = session.feed
    if feed is None or not callable(getattr(feed, "for_cast", None)):
        return
    try:
        feed.close()
        session.feed = fresh = feed.for_cast(getattr(session.sim, "personas", None) or {}, session.town)
        fresh.load(parts.get("feed"), len(session.sim.events))
    except Exception:  # the feed is a view of the events: the game loads without it
        log.exception("the town feed could not be put back after the load; it starts empty")
        return
    damage = getattr(fresh, "damage", "")
    if damage and info is not None:
        info.warnings.append(damage)


def _swap(session: RunningGame, prep: Prepared) -> None:
    old = session.sim
    new = prep.sim
    town = session.town
    pool = session.pool
    new.pool = pool
    town.object_states.clear()
    town.object_states.update(prep.town_states)
    new.town = town
    new.listeners = list(getattr(old, "listeners", []))
    for attr in ("on_greeting", "greet_visitor"):
        if hasattr(old, attr) and hasattr(new, attr):
            val = getattr(old, attr)
            setattr(new, attr, list(val) if isinstance(val, list) else val)
    session.minds = prep.minds
    session.sim = new
    if hasattr(session, "cast"):
        session.cast = list(prep.cast)
    parts = prep.parts
    vis = parts.get("visitor") or {}
    if isinstance(session, Stateful):  # a Session (a headless run's Parts have no player, no pause)
        session.from_state({"visitor": vis, "clock": parts.get("clock") or {}})
    if isinstance(session, OwnSaves):  # the loaded game goes on with its own saves (or a branch of them)
        session.game_id = prep.game_id or loaded_game_id(prep.info, session)
    acc = getattr(getattr(session, "gateway", None), "accounting", None)
    if prep.accounting is not None and acc is not None and callable(getattr(acc, "from_state", None)):
        acc.from_state(prep.accounting.to_state())
    py_state, np_state = prep.random_states
    if py_state is not None:
        random.setstate(py_state)
    if np_state is not None:
        np.random.set_state(np_state)
    if getattr(new, "visitor", None) is None and vis.get("name") and hasattr(new, "add_visitor") \
            and getattr(session, "visitor_name", None) and "tile" in vis and vis["tile"]:
        try:
            new.add_visitor(vis["name"], tuple(vis["tile"]))
        except ValueError:
            log.warning("the saved visitor %r could not be put back", vis["name"])


def loaded_game_id(info: SaveInfo | None, session: OwnSaves) -> str:
    """The id a loaded game goes on with: its save's, or (a save from before games
    had ids, or one whose id was edited into something no slot can be named after) a
    new one, so it never continues another game's series and its own saves all work.
    A replaced id is logged and noted in the save's warnings (the player is told)."""
    gid = info.meta.get("game_id") if info is not None else None
    if usable_game_id(gid):
        return gid
    fresh = new_game_id(session.visitor_name, datetime.now())
    fresh = fresh if fresh != getattr(session, "game_id", None) else f"{fresh}-2"
    if gid is not None and info is not None:
        shown = repr(gid)[:40]
        log.warning("%s: its game id %s cannot name save files (letters, digits and '-', up to %d); "
                    "the loaded game goes on as %s", info.path, shown, MAX_GAME_ID, fresh)
        info.warnings.append(f"its game id {shown} cannot name save files; this game saves as {fresh}")
    return fresh


# parts: Any, as in prepare.
def restore(target: RunningGame | Callable[..., RunningGame], parts: dict[str, Any],
            info: SaveInfo | None = None) -> RunningGame:
    """Build the saved game and swap it into ``target``: a Session (or Parts),
    or a zero-argument factory returning one, or a factory taking
    ``residents=[...]`` (called with the save's residents). Returns the
    session. SaveError (and the target untouched) on any problem."""
    session: RunningGame
    if hasattr(target, "sim") and hasattr(target, "minds"):
        session = cast(RunningGame, target)
    elif callable(target):
        names = list((parts.get("session") or {}).get("residents") or [])
        try:
            session = target(residents=names)
        except TypeError:
            session = target()
    else:
        raise TypeError("restore: give a session or a factory")
    return commit(session, prepare(session, parts, info))


def resolve_path(name: str | Path, folder: str | Path | None = None) -> Path:
    """A slot name -> saves/<name>.sqlite (``continue``, ``quick``, ``crash`` without such
    a file: the most recent game's own, game/saves/series.py); a path to a file (with or
    without the .sqlite ending) as it is; a folder (a headless run's, or a saves
    folder) -> its newest loadable save."""
    p = Path(name)
    if p.is_dir():
        for where in (p / "saves", p):
            good = [i for i in list_saves(where) if i.ok]
            if good:
                return good[0].path
        raise SaveError(f"{p} is a folder without a loadable save in it; give a slot name or a .sqlite file")
    if p.suffix.lower() == ".sqlite" or p.exists() or len(p.parts) > 1:
        return p
    path = slot_path(str(name), folder)
    if not path.exists() and str(name) in OWN_SLOTS:  # "quick": the most recent game's own quick save
        own = [i for i in list_saves(path.parent) if i.ok and i.slot.endswith(f"-{name}") and game_of(i)
               and i.slot == own_slot(game_of(i), str(name))]
        if own:
            return own[0].path
    return path


def load_into(game_or_session: Window | RunningGame, name: str | Path, folder: str | Path | None = None) -> SaveInfo:
    """Load a save (slot name or path; ``NEWEST``: the newest in ``folder``) into a
    running game, blocking (start-up: ``smallville play --load [NAME]``; the menu
    loads in the background). With a
    window's Game, the visitor's figure moves to the saved tile. SaveError
    (the game untouched) when it cannot."""
    game = game_or_session if isinstance(game_or_session, Window) else None
    session = game.session if game is not None else game_or_session
    if not isinstance(session, RunningGame):  # None, or a town that does not run (a replay's)
        raise SaveError("there is no running town to load into")
    folder = Path(folder or getattr(game, "saves_dir", None) or folders.saves_dir())
    if name == NEWEST:
        newest = newest_save(folder)
        if newest is None:
            raise SaveError(f"there is no save to continue in {folder} yet; start without --load")
        name = newest.path
    path = resolve_path(name, folder)
    parts, info = load_state(path, expect_map=session.town, require=REQUIRED)
    restore(session, parts, info)
    if game is not None:
        after_load(game, info)
    return info


def after_load(game: Window, info: SaveInfo | None = None) -> None:
    """Window bits after a load: the visitor's figure and name follow the save;
    the chat with a resident (it does not survive a load) is closed and an
    interview waiting for an answer asks again (their ``after_load``), so no
    window waits for an answer the load dropped; a walk or a camera that
    followed someone stops."""
    session = game.session
    panels = getattr(game, "panels", None)  # the window's views (game/view/panels.py)
    for attr in ("chat", "interview"):
        panel = getattr(panels, attr, None)
        if panel is None:
            continue
        try:
            if callable(getattr(panel, "after_load", None)):
                panel.after_load()
            elif getattr(panel, "is_open", False):
                panel.close()
        except Exception:  # cosmetic
            log.exception("tidying the %s after a load failed", attr)
    for attr in ("walker", "follower"):
        helper = getattr(panels, attr, None)
        if helper is not None and callable(getattr(helper, "stop", None)):
            helper.stop()
    if hasattr(game, "follow"):
        game.follow = True
    if session is None:
        return  # no town is shown
    sim = session.sim
    visitor = getattr(sim, "visitor", None)
    b = sim.bodies.get(visitor) if visitor else None
    vis = getattr(game, "visitor", None)
    if b is not None and vis is not None:
        if hasattr(vis, "place"):
            vis.place(tuple(b.tile))
        vis.name = session.visitor_name
    if hasattr(game, "camera") and hasattr(game, "visitor_center_world"):
        try:
            game.camera.look_at(*game.visitor_center_world())
        except Exception:  # noqa: BLE001 - cosmetic
            pass


NEWEST = "@newest"  # ``play --load`` without a name: the newest save


def newest_save(folder: str | Path | None = None) -> SaveInfo | None:
    """The newest loadable save in ``folder`` (by the real time it was made), or
    None. Reads each file's meta only; still, call it off the frame."""
    good = [i for i in list_saves(folder) if i.ok]
    return good[0] if good else None


def save_meta_label(info: SaveInfo) -> str:
    return info.label()


__all__ = [
    "NEWEST",
    "REQUIRED",
    "Prepared",
    "after_load",
    "capture",
    "commit",
    "job_tag_of",
    "load_into",
    "materialize",
    "newest_save",
    "prepare",
    "resolve_path",
    "restore",
]
