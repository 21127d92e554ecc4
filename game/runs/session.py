"""A running game: everything `smallville play` holds besides the window (contract §11).

``Session.create(map_path, ...)`` loads the town and cast, builds the model
gateway (the embedded model by default, via ``agents.llm.load_config``), the
embedder (the local MiniLM, loading on a background thread), a ``MindPool``
of ``config.concurrency`` workers, one ``Mind`` per resident and the
simulation, and puts the visitor into town as a sim body.

``update(dt)`` runs once per frame on the main thread: it turns real seconds
into sim steps at the current speed and never waits for a mind.

Speeds (``SPEEDS``, sim minutes per real second; keys 1-5):

    1: 1 min/s (a resident walks ~6 tiles/s, about the visitor's pace)
    2: 5 min/s   3: 15 min/s   4: 30 min/s   5: 60 min/s

One sim step is 10 sim seconds, so speed 1 is 6 steps a second and speed 5 is
360 (6 per frame at 60 fps). A frame runs at most ``MAX_STEPS_PER_FRAME``
steps and stops early once ``FRAME_BUDGET_S`` is spent; time it could not
step is dropped (the town slows down rather than the frame).

Pacing (game/runs/pacing.py): with ``pace = "minds"`` (the default) the clock runs
at the chosen speed only while the residents' decisions keep up, and slows to
a stop when one is ``pacing.LAG_MIN`` sim minutes late; ``pace_status()`` says
what was reached and who holds it. A new game does not start the town on
routines: residents awake at the start wait for their first decision (the
morning's plans), and the clock waits with them.

``skip_to(when)`` fast-forwards over many frames: each frame steps while the
minds keep up (no resident has waited for a decision longer than
``SKIP_SLACK_MIN`` sim minutes) and the frame's time budget lasts; progress is
``skip_progress()``; ``cancel_skip()`` stops it where it is. ``next_morning()``
is the next 07:00 after now.

The visitor: residents perceive the visitor like anyone, and may greet the
player (game/sim/greetings.py, ``PlaySimulation``); greetings land in
``session.greetings``. What a run is built from (residents, minds, gateway,
pool, simulation) is game/runs/build.py, shared with headless runs.

``update`` is the only place the simulation advances (views read the session
and never step or pump it).

Recording: ``record(folder)`` records the game into
``<folder>/recordings/<stamp>.jsonl`` as it goes (game/runs/recording.py; ``smallville
replay`` plays it back); a loaded save starts a new recording there.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from agents import (
    CastError,
    ConfigError,
    Embedder,
    Gateway,
    MindSettings,
    ModelConfig,
    Persona,
    ResidentMind,
    load_cast,
    load_config,
    why,
)
from game.runs.build import Parts, build_parts, select_residents
from game.runs.commands import Commands, Running
from game.runs.journal import Journal
from game.runs.live_feed import LiveFeed
from game.runs.pacing import PACES, Pacer, PaceStatus
from game.runs.recording import Recorder, game_recording_path
from game.saves.capture import play_state
from game.saves.series import new_game_id
from game.sim import Greeting, PlaySimulation, Pool, SimSettings, routine_action
from game.sim.bodies import is_sleep
from game.sim.speeds import DEFAULT_SPEED, SPEEDS, STEP_S, next_morning, steps_per_second
from game.support.errors import UserError
from game.world.map_reader import load_town

log = logging.getLogger(__name__)

MAX_STEPS_PER_FRAME = 8  # realtime: at most this many sim steps in one frame
FRAME_BUDGET_S = 0.004  # realtime: stop stepping once a frame spent this long on steps
SKIP_BUDGET_S = 0.010  # skipping: step time per frame (the rest of the frame draws)
SKIP_MAX_STEPS_PER_FRAME = 90  # skipping: at most 15 sim minutes per frame
SKIP_SLACK_MIN = 3  # skipping: step on while no resident waits longer than this for a decision


# ---------------------------------------------------------------------------- the session


DAWN_LEAD_MIN = 30  # a new game in the window begins this long before the first resident wakes


def dawn_start(start: datetime, personas: Sequence[Persona], lead_min: int = DAWN_LEAD_MIN) -> datetime:
    """When a new game in the window begins: ``lead_min`` before the earliest wake hour
    among ``personas`` on ``start``'s day, or ``start`` itself when that is earlier.
    The minds plan each morning while the player watches the town sleep and wake
    (their day plans are asked ahead of waking), instead of everyone planning at
    once while the clock crawls; headless runs keep the scenario's start."""
    wakes = [int(getattr(p, "wake_hour", start.hour)) for p in personas]
    if not wakes:
        return start
    first = start.replace(hour=min(wakes), minute=0, second=0, microsecond=0)
    return min(start, first - timedelta(minutes=lead_min))


@dataclass
class _Skip:
    target: datetime
    start: datetime
    was_paused: bool
    started_wall: float = field(default_factory=time.monotonic)


class Session:
    """Everything a running game holds besides the window (contract §11)."""

    read_only = False  # a live town: the player changes it (a replay's session is read-only)

    def __init__(self, parts: Parts, *, visitor_name: str = "Visitor", visitor_tile=None, prime: bool = True) -> None:
        self.town = parts.town
        self.cast = parts.cast
        self.scenario = parts.scenario
        self.config = parts.config
        self.gateway = parts.gateway
        self.embedder = parts.embedder
        self.pool = parts.pool
        self.minds = parts.minds
        self.sim = parts.sim
        self.paused = False
        self.speed = DEFAULT_SPEED
        self.playing: dict | None = None  # what the player did as the controlled resident (name, start, places)
        self.visitor_name = visitor_name
        self.skip: _Skip | None = None
        self.step_fraction = 0.0  # 0..1 of the way to the next step (drawing interpolates by it)
        self.steps_last_frame = 0
        self.frames = 0
        self._owed = 0.0  # sim steps owed (a fraction carries to the next frame)
        self.last_skip_result: str | None = None  # "done" | "cancelled"
        self.on_skip_end: list[Callable[[str], None]] = []
        self._closed = False
        self.recorder: Recorder | None = None  # ``record(folder)``
        self.recording_folder: Path | None = None
        self.pacer = Pacer(getattr(parts.config, "pace", None) or "minds")
        self.started = datetime.now()  # real time: with the visitor's name, the game's id (its own saves)
        self._game_id: str | None = None
        self.feed = LiveFeed.for_cast(getattr(self.sim, "personas", None) or {}, self.town)  # the window pumps it
        self.commands = Commands(self)  # what the player does to the town (the window's one road to it)
        # The visitor's journal, read off the lines residents say to the visitor (a load keeps
        # the sim's listeners, so it goes on hearing the loaded town).
        self.journal = Journal()
        self.sim.listeners.append(self.journal.listener(lambda: self.visitor_name))
        if not getattr(self.sim, "visitor", None):
            self.sim.add_visitor(visitor_name, visitor_tile)
        if prime:
            self.prime_routines()

    def prime_routines(self) -> int:
        """Give every resident without an action its routine one now (asleep in bed
        before its wake hour, getting ready after, ...), so nobody stands frozen
        while the minds make their first (slow) decisions. The mind is still asked
        at once (its first job plans the day) and takes over from the routine when
        the routine action ends. With ``pace = "minds"`` only the sleepers are
        primed: the others wait for their mind's first decision, and so does the
        clock (the morning is planned before the town moves). Returns how many
        were primed."""
        sim = self.sim
        yesterday = (sim.now - timedelta(days=1)).date().isoformat()
        n = 0
        for name, b in sim.bodies.items():
            if b.visitor or b.action is not None or name not in sim.minds:
                continue
            try:
                first = routine_action(sim.personas.get(name), sim.now, sim.town, "the mind's first decision")
                if self.pace == "minds" and not is_sleep(first):
                    continue
                sim.set_action(b, first, note="routine until the mind decides")
            except Exception:  # then the mind's first decision starts it
                log.exception("priming %s failed", name)
                continue
            b.asked_day = yesterday  # "a new day": the mind is asked now, not when the routine ends
            n += 1
        return n

    # -- building ---------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        map_path,
        *,
        agents: int | None = None,
        residents: str | Sequence[str] | None = None,
        seed: int = 0,
        config: ModelConfig | None = None,
        gateway: Gateway | None = None,
        embedder: Embedder | None = None,
        visitor_name: str = "Visitor",
        minds: dict[str, ResidentMind] | None = None,
        start: datetime | None = None,
        sim_settings: SimSettings | None = None,
        mind_settings: MindSettings | None = None,
        pool: Pool | None = None,
        before_dawn: bool = False,
    ) -> Session:
        """Load the town and cast beside ``map_path``, build the parts, put the visitor in.
        ``before_dawn`` (a new game in the window): without ``start``, the game begins
        before the first resident wakes on the scenario's first day (``dawn_start``)."""
        town = load_town(map_path)
        try:
            cast, scenario = load_cast(Path(map_path).parent)
        except CastError as err:
            raise UserError(str(err)) from None
        personas = select_residents(cast, agents, residents, town=town, seed=seed)
        if " ".join(str(visitor_name).split()) in {p.name for p in [*cast, *personas]}:
            raise UserError(f"{visitor_name} already lives here; pick another visitor name")
        if start is None and before_dawn:
            start = dawn_start(scenario.start, personas)
        if config is None and gateway is None:
            try:
                config = load_config()
            except ConfigError as err:
                raise UserError(str(err)) from None
        parts = build_parts(
            town, personas, start or scenario.start, scenario=scenario, config=config, gateway=gateway,
            embedder=embedder, minds=minds, seed=seed, lockstep=False, sim_settings=sim_settings,
            mind_settings=mind_settings, background_embedder=True, sim_class=PlaySimulation, pool=pool,
        )
        return cls(parts, visitor_name=visitor_name)

    # -- the visitor --------------------------------------------------------------------
    def rename_visitor(self, name: str) -> None:
        """Give the visitor a (new) name; ValueError if it is a resident's."""
        name = " ".join(str(name).split())
        if not name:
            raise ValueError("the visitor needs a name")
        if name in self.minds:
            raise ValueError(f"{name} already lives here; pick another name")
        old = self.sim.bodies.get(self.sim.visitor) if self.sim.visitor else None
        tile = old.tile if old else None
        doing = old.doing if old else "visiting the town"
        self.sim.add_visitor(name, tile, doing)
        if old is not None:
            self.sim.bodies[name].facing = old.facing
        self.visitor_name = name

    def move_visitor(self, tile) -> None:
        """The player's figure moved: the controlled resident's body, else the visitor's."""
        if self.controlled:
            b = self.sim.bodies.get(self.controlled)
            if b is not None and tuple(b.tile) != tuple(tile):
                self.sim.move_controlled(tile)
                self._note_place(b)
            return
        b = self.sim.bodies.get(self.sim.visitor) if self.sim.visitor else None
        if b is not None and tuple(b.tile) != tuple(tile):
            self.sim.move_visitor(tile)

    # -- playing as a resident ------------------------------------------------------------
    # While the player plays a resident, the player's keys walk its body (the window's
    # figure becomes it; the visitor's body is parked where it stood and unseen), its
    # mind gets no decide jobs (jobs queued before, e.g. remembering a conversation,
    # still run), minds do not start conversations with it but may greet it (the
    # player answers in the chat box, speaking as the resident). Its action text
    # stays what it was doing until it first moves, then "walking around". Handing
    # it back queues thoughts of what it did (places walked, who it talked with) and
    # the mind decides from now.
    @property
    def controlled(self) -> str | None:
        return getattr(self.sim, "controlled", None)

    @controlled.setter
    def controlled(self, name: str | None) -> None:  # savegame restores it
        if name == self.controlled:
            return
        if name:
            self.take_control(name)
        else:
            self.release_control()

    def take_control(self, name: str) -> str:
        """Play as the resident ``name`` (a loose name: case, first name). KeyError if unknown."""
        want = " ".join(str(name).split()).casefold()
        match = [n for n in self.minds if n.casefold() == want] or \
                [n for n in self.minds if n.split()[0].casefold() == want]
        if len(match) != 1:
            raise KeyError(f"no resident called {name!r}")
        name = match[0]
        if self.controlled and self.controlled != name:
            self.release_control()
        b = self.sim.take_control(name)
        self.playing = {"name": name, "start": self.sim.now, "from": self._place(b.tile), "places": [],
                         "events": len(self.sim.events)}
        return name

    def _place(self, tile) -> str:
        return self.sim.area(tuple(tile))

    def _note_place(self, b) -> None:
        c = self.playing
        if c is None:
            return
        here = self._place(b.tile)
        if here != (c["places"][-1] if c["places"] else c["from"]):
            c["places"].append(here)

    def release_control(self) -> str | None:
        """Hand the controlled resident back to its mind, which remembers what it did."""
        name = self.controlled
        if not name:
            return None
        c = self.playing if self.playing and self.playing.get("name") == name else None
        self.playing = None
        thoughts = self.control_memories(name, c)
        self.sim.release_control()
        mind = self.minds.get(name)
        if mind is not None:
            for text, imp in thoughts:
                try:
                    mind.queue_thought(text, imp)
                except Exception:  # memories are a bonus; control is back
                    log.exception("queue_thought for %s failed", name)
            if not self.pool.busy(name):
                mind.decompose_afresh()  # replan from now (the plan's current item is decomposed afresh)
        return name

    def control_memories(self, name: str, c: dict | None = None) -> list[tuple[str, int]]:
        """First-person thoughts of what the player did as ``name``."""
        def pretty(address: str) -> str:
            parts = str(address or "").split(":")
            return ": ".join(parts[1:]) if len(parts) > 1 else (parts[0] or "somewhere")

        sim = self.sim
        b = sim.bodies.get(name)
        out: list[tuple[str, int]] = []
        if c is None:
            c = {"from": self._place(b.tile) if b else "", "places": [], "events": len(sim.events), "start": sim.now}
        places = [p for p in c["places"]]
        start = pretty(c["from"])
        mins = int((sim.now - c["start"]).total_seconds() // 60)
        if places:
            end = pretty(places[-1])
            via = [pretty(p) for p in places[:-1] if p != c["from"]]
            seen = []
            for v in via:
                if v not in seen and v != end and v != start:
                    seen.append(v)
            text = f"I walked from {start} to {end}" + (f", by way of {', '.join(seen[:4])}" if seen else "")
            out.append((text + f" ({mins} minutes, on my own initiative)", 5))
        else:
            out.append((f"I stayed around {start} for {mins} minutes", 3))
        talks: dict[str, list[str]] = {}
        for ev in sim.events.since(c["events"]):
            if ev.get("kind") != "line":
                continue
            if ev.get("resident") == name and ev.get("partner"):
                talks.setdefault(ev["partner"], []).append(f'I said "{ev.get("text", "")[:80]}"')
            elif ev.get("partner") == name and ev.get("resident"):
                talks.setdefault(ev["resident"], []).append(f'they said "{ev.get("text", "")[:80]}"')
        for who, lines in talks.items():
            out.append((f"I talked with {who}: " + "; ".join(lines[:4]), 6))
        return out

    @property
    def greetings(self) -> list[Greeting]:
        return getattr(self.sim, "greetings", [])

    # -- time ---------------------------------------------------------------------------
    @property
    def now(self) -> datetime:
        return self.sim.now

    @property
    def minutes_per_second(self) -> float:
        return SPEEDS[self.speed]

    def set_speed(self, speed: int) -> None:
        if speed not in SPEEDS:
            raise ValueError(f"speed must be one of {sorted(SPEEDS)}")
        self.speed = speed

    def toggle_pause(self) -> bool:
        self.paused = not self.paused
        return self.paused

    @property
    def pace(self) -> str:
        """"minds": the clock waits for the residents' decisions; "clock": it does not."""
        return self.pacer.pace

    @pace.setter
    def pace(self, pace: str) -> None:
        if pace not in PACES:
            raise ValueError(f"pace must be one of {PACES}, not {pace!r}")
        self.pacer.pace = pace

    def toggle_pace(self) -> str:
        return self.pacer.toggle()

    def budgets_spent(self) -> int:
        """How many residents' call budgets ran out today (the HUD's line; what each mind published)."""
        return sum(1 for m in self.minds.values() if m.inspect().budget_hit is not None)

    def pace_status(self) -> PaceStatus:
        """The pace chosen and reached, the lag, and who holds the clock (the HUD's line)."""
        return self.pacer.status(SPEEDS[self.speed], self.sim)

    def update(self, dt: float) -> None:
        """Each frame, main thread: step the sim as the speed allows (or skip); never blocks."""
        if self._closed:
            return
        self.frames += 1
        self.steps_last_frame = 0
        if self.skip is not None:
            self._update_skip()
            return
        if self.paused:
            self._pump()
            self.pacer.note(dt, 0.0)
            return
        chosen = SPEEDS[self.speed]
        self.sim.pace_hint = chosen  # the look-ahead spreads the minds' work at this pace (game/sim/decisions.py)
        self._owed += max(0.0, dt) * steps_per_second(self.speed) * self.pacer.factor(self.sim, chosen)
        n = int(self._owed)
        if n > MAX_STEPS_PER_FRAME:
            n = MAX_STEPS_PER_FRAME
            self._owed = n + (self._owed - int(self._owed))  # drop what a frame cannot carry
        t0 = time.perf_counter()
        done = 0
        last = 0.0  # the previous step's time: do not start one that would overrun the budget
        while done < n:
            ts = time.perf_counter()
            if done and (ts - t0) + last > FRAME_BUDGET_S:
                break
            self.sim.step()
            self._record()
            done += 1
            last = time.perf_counter() - ts
        self._owed -= done
        if self._owed >= 1.0:  # over budget: the town slows down rather than the frame
            self._owed -= int(self._owed)
        self.steps_last_frame = done
        self.step_fraction = min(1.0, max(0.0, self._owed))
        if not done:
            self._pump()  # the clock waits: the answers it waits for still land
        self.pacer.note(dt, done * STEP_S / 60.0)

    def _pump(self) -> None:
        """Apply finished answers and send waiting jobs without advancing the clock."""
        pump = getattr(self.sim, "pump", None)
        if callable(pump):
            pump()
        if hasattr(self.sim, "collect_greetings"):
            self.sim.collect_greetings()

    # -- fast-forward -----------------------------------------------------------------------
    def skip_to(self, target: datetime) -> None:
        """Fast-forward to ``target`` over the next frames (progress: ``skip_progress()``)."""
        if target <= self.sim.now:
            return
        was = self.skip.was_paused if self.skip else self.paused
        self.skip = _Skip(target=target, start=self.sim.now, was_paused=was)
        self.last_skip_result = None

    def skip_to_morning(self) -> datetime:
        t = next_morning(self.sim.now)
        self.skip_to(t)
        return t

    @property
    def skipping(self) -> bool:
        return self.skip is not None

    def skip_progress(self) -> float:
        s = self.skip
        if s is None:
            return 1.0
        total = (s.target - s.start).total_seconds()
        return 1.0 if total <= 0 else min(1.0, max(0.0, (self.sim.now - s.start).total_seconds() / total))

    def cancel_skip(self) -> None:
        if self.skip is not None:
            self._end_skip("cancelled")

    @property
    def steps_owed(self) -> float:
        """Sim steps the clock owes at this speed (under one after a frame: the rest is dropped)."""
        return self._owed

    def reset_pacing(self) -> None:
        """Forget a skip and the steps owed (a load: the clock starts afresh)."""
        self.skip = None
        self._owed = 0.0
        self.step_fraction = 0.0
        self.pacer.reset()

    def _end_skip(self, how: str) -> None:
        s = self.skip
        self.skip = None
        self._owed = 0.0
        self.step_fraction = 0.0
        self.paused = s.was_paused if s else self.paused
        self.last_skip_result = how
        for fn in list(self.on_skip_end):
            try:
                fn(how)
            except Exception:
                log.exception("skip callback failed")

    def _update_skip(self) -> None:
        s = self.skip
        sim = self.sim
        t0 = time.perf_counter()
        done = 0
        while sim.now < s.target and done < SKIP_MAX_STEPS_PER_FRAME:
            # Lockstep-ish: step on while the minds keep up, else give them this frame.
            if done and sim.behind(SKIP_SLACK_MIN) > 0:
                break
            if not done and sim.behind(SKIP_SLACK_MIN) > 0:
                # Apply what finished without advancing the clock, then look again.
                sim.pump()
                if sim.behind(SKIP_SLACK_MIN) > 0:
                    break
            sim.step()
            self._record()
            done += 1
            if time.perf_counter() - t0 > SKIP_BUDGET_S:
                break
        self.steps_last_frame = done
        if sim.now >= s.target:
            self._end_skip("done")

    # -- recording ------------------------------------------------------------------------
    def record(self, folder: str | Path) -> Recorder:
        """Record this game as it goes into ``<folder>/recordings/`` (the save folder)."""
        self.recording_folder = Path(folder)
        if self.recorder is not None:
            self.recorder.close("closed")
        self.recorder = Recorder(game_recording_path(folder), self.sim, kind="game",
                                 model=getattr(self.config, "model", None),
                                 accounting=getattr(self.gateway, "accounting", None))
        # The decision records beside it (agents/explain/why.py), for `smallville why` and the replay's "Why?".
        why.attach(self.gateway, why.WhyLog(why.game_path(self.recorder.path),
                                            mode=getattr(self.config, "why", "full")))
        return self.recorder

    def _record(self) -> None:
        """After each step: the recorder samples the town (a load starts a new recording)."""
        rec = self.recorder
        if rec is None:
            return
        if rec.sim is not self.sim and self.recording_folder is not None:
            rec.close("a save was loaded", also=self.sim)
            self.record(self.recording_folder)
            return
        rec.after_step(self.sim)

    # -- the game's own saves ------------------------------------------------------------------
    @property
    def game_id(self) -> str:
        """This game's id (game/saves/series.py): its autosave series and its own slots.
        Made from the visitor's name and the start time when first asked (the first
        save, after the name box), kept from then on; a loaded save brings its own."""
        if self._game_id is None:
            self._game_id = new_game_id(self.visitor_name, self.started)
        return self._game_id

    @game_id.setter
    def game_id(self, gid: str | None) -> None:
        self._game_id = gid

    # -- state (agents.state.Stateful) -----------------------------------------------------------
    # JSON, as a save holds it (dict[str, Any]): read back from the file and checked as it is used.
    def to_state(self) -> dict[str, Any]:
        """The session's own parts of a save: ``visitor`` and ``clock`` (the simulation and
        the minds are saved by themselves)."""
        state = play_state(self.sim, visitor_name=self.visitor_name, controlled=self.controlled, paused=self.paused,
                           speed=self.speed)
        state["visitor"]["journal"] = self.journal.to_state()
        return state

    def from_state(self, state: dict[str, Any]) -> None:
        """Restore what ``to_state`` wrote, on a session whose sim and minds are already
        the loaded ones: the visitor's name and journal (an older save has none: it starts
        empty), whom the player plays, pause and speed."""
        vis = state.get("visitor") or {}
        if vis.get("name"):
            self.visitor_name = vis["name"]
        self.journal.from_state(vis.get("journal"))
        c = vis.get("controlled")
        self.controlled = c if c in self.minds else None
        clock = state.get("clock") or {}
        if "paused" in clock:
            self.paused = bool(clock["paused"])
        if clock.get("speed") is not None:
            self.speed = clock["speed"]
        self.reset_pacing()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.feed.close()
        if self.recorder is not None:
            try:
                self.recorder.close("the game ended")
            except Exception:  # the recording is a bonus; closing goes on
                log.exception("closing the recording failed")
        wlog = why.log_of(self.gateway)
        if wlog is not None:
            wlog.close()
        try:
            self.pool.cancel_all()
            self.pool.shutdown(wait=False)
        except Exception:
            log.exception("pool shutdown failed")
        close = getattr(self.gateway, "close", None)
        if callable(close):
            try:
                close()
            except Exception:
                log.exception("gateway close failed")


def _commanded(session: Session) -> Running:  # mypy: a running game is what the commands act on
    return session


__all__ = [
    "SPEEDS",
    "Greeting",
    "Parts",
    "PlaySimulation",
    "Session",
    "build_parts",
    "next_morning",
    "play_state",
    "steps_per_second",
]
