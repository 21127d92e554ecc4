"""Playing the real game, measured: 25 residents with the embedded model in the
window's own game loop (SDL's dummy video driver: the Game, its views and the
Session as `smallville play` builds them), the default settings, from the
game's own start (``before_dawn``: 05:30, half an hour before the first resident
gets up), while a scripted visitor asks residents questions.

Every ``ASK_EVERY_S`` real seconds (a minute; and not before the previous answer
is on screen) the visitor picks a resident who is awake and free (not asleep,
not in a conversation, not held), steps onto a walkable tile within two tiles
of them (``Visitor.place`` + ``session.move_visitor``: a teleport, so the walk
is not timed), opens the game's chat window (``game.panels.chat.open``, which checks
the range as T does), sends ``QUESTION`` (``chat.send``) and polls every frame,
on the wall clock, until the resident's line is in ``chat.lines``; then closes
the chat. A question whose answer never came before the phase ended counts as
unanswered, and the phase's end stands in for its time in the percentiles.

One phase per model instance count in ``INSTANCES`` (one, then two: the window's
default on two cores is one; ``local_model.use_instances`` and
SMALLVILLE_MODEL_INSTANCES), each a fresh game from 05:30 for ``PHASE_S`` real
seconds. Per phase (figures suffixed ``_1inst``, ``_2inst``):

- answer wall time from question to answer on screen: p50, p95, max (s); the
  share of answers the model gave (model or repaired, from the answer line's
  provenance), and p50 / p95 of those alone: a rule's answer comes at once;
- the model-led share of awake resident-minutes (model and repaired, as
  summary.json: game/runs/runstats.py over the session's ``sim.events``);
- the pace reached: sim minutes per real second over the whole phase
  (``session.now`` before and after), and what ``session.pace_status()`` says;
- residents more than ``LATE_MIN`` sim minutes late for their plan
  (``sim.late``), sampled every ``SAMPLE_S``: the most at once, and at the end;
- frame p50 / p99 (ms, update + draw, as frame_real measures them);
- what the player sees of the clock (``clock_figures``, from the sim time at
  every frame): the wall time to the first moving sim minute and to the first
  5 sim minutes, the slowest 5 sim minutes, the share of wall time the clock
  stood still (frames it did not move in; and ``stopped``: only stretches of
  more than ``STOPPED_S`` without a step), over the phase and after the morning
  was planned (no resident in bed waiting for its first plan; with the game
  starting before dawn the plans are made ahead of waking, so that is at once).

Then the same game in a real X window (``_real_window``: Xvfb, lab/bench/xvfb.py;
skipped with the reason in ``window_xvfb`` where Xvfb is missing) for the first
8 real minutes (``WINDOW_S``), figures suffixed ``_xvfb``: drawing a window takes
a share of the two cores, which the dummy driver never pays, and its frames
advance the game by their wall time as `smallville play`'s do.

``SMALLVILLE_PLAY_REAL_S`` (real seconds per phase) and
``SMALLVILLE_PLAY_REAL_INSTANCES`` (e.g. ``1``) lengthen or narrow a run: the
top of the hour comes only minutes into a game. ``SMALLVILLE_PLAY_REAL_WINDOW``
(``dummy``, ``xvfb``, or both, the default) chooses the windows.

The pacing API (``session.pace``, ``session.pace_status()``, ``sim.late()``)
is read through getattr: a figure is None where the game has none.
"""
from __future__ import annotations

import itertools
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from agents import EMBEDDED_MODEL, load_config, local_model
from agents import provenance as pv
from game.runs import gcpolicy, runstats
from game.runs.session import SPEEDS, Session
from lab.bench.frame import _frame_loop
from lab.bench.frame_real import RESIDENTS, _need_embedded_model
from lab.bench.measure import Context, Skipped, percentile
from lab.bench.xvfb import sdl_window, virtual_display

INSTANCES = (1, 2)  # one phase per count of embedded model instances
PHASE_S = (240.0, 45.0)  # real seconds per phase (full, quick)
WINDOW_S = (480.0, 45.0)  # real seconds of the real-window phase (full, quick): the first 8 real minutes
FIRST_REAL_S = 480.0  # the slowest 5 sim minutes are also looked for in this many real seconds from the start
WINDOWS = ("dummy", "xvfb")  # SDL's dummy driver (phases per instance count), then a real X window
ASK_EVERY_S = (60.0, 15.0)  # real seconds between questions (full, quick)
FIRST_ASK_S = 5.0  # the first question, this long into a phase (the town up and running)
RETRY_S = 1.0  # nobody free to ask: look again this much later
LATE_MIN = 15  # sim minutes late for the plan
SAMPLE_S = 1.0  # real seconds between samples of the pace and of who is late
STOPPED_S = 1.0  # real seconds without the clock moving: from there on it is seen to stand still
CHUNK_FRAMES = 60  # frames per call of the frame loop (the phase's end is checked between calls)
DRAIN_S = 60.0  # after a phase: wait at most this long for its jobs still running on the model
VISITOR = "Alex"
QUESTION = "Hi {first}, what do you do for a living?"
NEAR = [(dx, dy) for r in (1, 2) for dx in range(-r, r + 1) for dy in range(-r, r + 1) if max(abs(dx), abs(dy)) == r]


def clock_figures(samples: list[tuple[float, float]], since: float | None = None) -> dict[str, float | None]:
    """What the player sees of the clock, from (wall seconds, sim minutes) at each frame
    (both from the phase's start, in order): seconds to the first moving sim minute
    and to the first 5 sim minutes; the slowest 5 sim minutes (wall seconds, any 5,
    not only from the hour); the share of wall time the clock stood still (a frame
    whose sim time did not move), overall and from ``since`` (wall) on. None where the
    phase never got there."""
    def reach(minutes: float) -> float | None:
        return next((t for t, m in samples if m >= minutes), None)

    slowest: float | None = None
    slowest_from: float | None = None  # sim minutes into the phase where the slowest 5 begin
    j = 0
    for i, (t, m) in enumerate(samples):  # from each frame, the wall time until 5 sim minutes later
        j = max(j, i)
        while j < len(samples) and samples[j][1] < m + 5.0:
            j += 1
        if j == len(samples):
            break
        if slowest is None or samples[j][0] - t > slowest:
            slowest, slowest_from = samples[j][0] - t, m

    def still(after: float, gap: float = 0.0) -> float | None:
        """The share of wall time from ``after`` on in stretches longer than ``gap`` s
        without the clock moving (0: every frame it did not move)."""
        total = stood = run = 0.0
        for (t0, m0), (t1, m1) in itertools.pairwise(samples):
            if t0 < after:
                continue
            total += t1 - t0
            if m1 <= m0:
                run += t1 - t0
                continue
            stood += run if run > gap else 0.0
            run = 0.0
        stood += run if run > gap else 0.0
        return stood / total if total > 0 else None

    return {"first_minute_s": reach(1.0), "first_5min_s": reach(5.0), "slowest_5min_s": slowest,
            "slowest_5min_from_min": slowest_from,
            "still_share": still(0.0), "still_share_after_morning": None if since is None else still(since),
            # A clock that moves a step (10 sim s) less than once a second looks stopped to a player;
            # a slow clock that moves every frame-second does not.
            "stopped_share": still(0.0, STOPPED_S),
            "stopped_share_after_morning": None if since is None else still(since, STOPPED_S)}


def _phase_seconds(default: float) -> float:
    raw = os.environ.get("SMALLVILLE_PLAY_REAL_S")
    if not raw:
        return default
    try:
        v = float(raw)
    except ValueError:
        raise SystemExit(f"SMALLVILLE_PLAY_REAL_S must be a number of real seconds, not {raw!r}") from None
    if v <= 0:
        raise SystemExit(f"SMALLVILLE_PLAY_REAL_S must be above 0, not {raw!r}")
    return v


def _instances() -> tuple[int, ...]:
    raw = os.environ.get("SMALLVILLE_PLAY_REAL_INSTANCES")
    if not raw:
        return INSTANCES
    try:
        got = tuple(int(x) for x in raw.split(",") if x.strip())
    except ValueError:
        got = ()
    if not got or any(n < 1 for n in got):
        raise SystemExit(f"SMALLVILLE_PLAY_REAL_INSTANCES must list instance counts like 1 or 1,2, not {raw!r}")
    return got


def _windows() -> tuple[str, ...]:
    raw = os.environ.get("SMALLVILLE_PLAY_REAL_WINDOW")
    if not raw:
        return WINDOWS
    got = tuple(x.strip() for x in raw.split(",") if x.strip())
    if not got or any(w not in WINDOWS for w in got):
        raise SystemExit(f"SMALLVILLE_PLAY_REAL_WINDOW must list {' or '.join(WINDOWS)} (e.g. xvfb, or dummy,xvfb), "
                         f"not {raw!r}")
    return got


def open_session(ctx: Context) -> Session:
    """The game `smallville play` starts: the scenario's 25 residents and the embedded
    model, the default settings (no toml, no environment), recording off."""
    config = load_config({"seed": ctx.seed, "model": EMBEDDED_MODEL, "embedding_cache": "off"}, env={},
                         toml_path=None)
    return Session.create(ctx.map_path, agents=RESIDENTS, seed=ctx.seed, config=config, visitor_name=VISITOR,
                          before_dawn=True)  # the game's own start (game/app.py build_session)


def warm_up() -> None:
    """What a fresh game pays once in its first seconds, paid before the phases so that
    both start alike: litellm's import (seconds; it holds the import lock every mind
    thread then waits on) and the embedded model's first instance."""
    import litellm  # noqa: F401  # lazy: seconds to import; only this benchmark pays it here

    local_model.model().load()


class _Visitor:
    """The scripted player: every ``every`` seconds, walk up to a free resident and ask."""

    def __init__(self, game: Any, session: Any, rng: random.Random, every: float, start: float) -> None:
        self.game, self.session, self.rng, self.every = game, session, rng, every
        self.next_at = start + FIRST_ASK_S
        self.asked: list[dict] = []  # resident, sim time, asked (wall), wait_s (None: no answer yet)
        self.current: dict | None = None
        self.failed_opens = 0
        session.sim.listeners.append(self._heard)

    def _heard(self, ev: dict) -> None:
        """The answer's line in the event log: where it came from (model, or a rule and why)."""
        cur = self.current
        if cur is not None and ev.get("kind") == "line" and ev.get("resident") == cur["resident"] \
                and ev.get("partner") == self.session.visitor_name:
            cur["source"] = str(ev.get("source") or "")

    def tick(self, now: float) -> None:
        chat = self.game.panels.chat
        cur = self.current
        if cur is not None:
            said = [text for who, text in chat.lines if who == cur["resident"]]
            if said:
                cur["wait_s"] = now - cur["asked"]  # the answer is in the chat window
                cur["answer"] = said[0][:120]
                self._done(now)
            elif not chat.is_open or chat.partner != cur["resident"]:
                cur["lost"] = True  # the chat ended before the answer (should not happen: the resident is held)
                self._done(now)
            return
        if now >= self.next_at:
            self._ask(now)

    def _done(self, now: float) -> None:
        self.game.panels.chat.close()
        self.next_at = max(self.current["asked"] + self.every, now)
        self.current = None

    def _free(self) -> list[tuple[str, tuple[int, int]]]:
        """Residents awake and free, each with a tile next to them the visitor may stand on."""
        sim = self.session.sim
        asked = Counter(a["resident"] for a in self.asked)
        out = []
        for name in sorted(self.session.minds):
            b = sim.bodies.get(name)
            if b is None or b.asleep or b.conversation is not None or b.controlled or sim.held(name):
                continue
            tile = self._spot(b.tile)
            if tile is not None:
                out.append((asked[name], name, tile))
        least = min((n for n, _, _ in out), default=0)  # residents asked least often first
        return [(name, tile) for n, name, tile in out if n == least]

    def _spot(self, at: tuple[int, int]) -> tuple[int, int] | None:
        sim, g = self.session.sim, self.game
        taken = {tuple(b.tile) for n, b in sim.bodies.items() if n != sim.visitor}
        for dx, dy in NEAR:
            t = (at[0] + dx, at[1] + dy)
            if t not in taken and g.can_enter(*t):
                return t
        return None

    def _ask(self, now: float) -> None:
        free = self._free()
        if not free:
            self.next_at = now + RETRY_S
            return
        name, tile = self.rng.choice(free)
        g = self.game
        g.visitor.place(tile)
        self.session.move_visitor(tile)
        g.follow = True  # the camera on the visitor: the resident is on screen, as for a player
        if not g.panels.chat.open(name) or not g.panels.chat.send(QUESTION.format(first=name.split()[0])):
            self.failed_opens += 1
            g.chat.close()
            self.next_at = now + RETRY_S
            return
        self.current = {"resident": name, "sim": f"{self.session.now:%H:%M}", "asked": time.perf_counter(),
                        "wait_s": None}
        self.asked.append(self.current)


class _Sampler:
    """Every SAMPLE_S: the pace the session reports, and who is late for their plan."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.next_at = 0.0
        self.reached: list[float] = []
        self.chosen: list[float] = []
        self.limited: list[bool] = []
        self.holding: Counter = Counter()
        self.late: list[int] = []
        self.late_names: Counter = Counter()
        self.morning_done: tuple[float, Any] | None = None  # (wall, sim time) when the morning was planned

    def tick(self, now: float) -> None:
        if now < self.next_at:
            return
        self.next_at = now + SAMPLE_S
        status = _call(self.session, "pace_status")
        if status is not None:
            for attr, into in (("reached", self.reached), ("chosen", self.chosen)):
                v = getattr(status, attr, None)
                if isinstance(v, (int, float)):
                    into.append(float(v))
            self.limited.append(bool(getattr(status, "limited", False)))
            self.holding.update(getattr(status, "holding", None) or [])
            if self.morning_done is None and not getattr(status, "planning", 0):
                self.morning_done = (now, self.session.now)
        late = _call(self.session.sim, "late", minutes=LATE_MIN)
        if late is not None:
            self.late.append(len(late))
            self.late_names.update(late)

    def late_now(self) -> list[str] | None:
        late = _call(self.session.sim, "late", minutes=LATE_MIN)
        return None if late is None else sorted(late)


def _call(obj: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """obj.name(...) when the game has it (the pacing API is new), else None."""
    fn = getattr(obj, name, None)
    return fn(*args, **kwargs) if callable(fn) else None


def _source(source: str | None) -> str:
    """An answer's provenance kind, with the reason when a rule or the routine gave it."""
    if source is None:
        return "no line logged"
    kind = pv.kind_of(source)
    return kind if pv.model_led(source) or not pv.why_of(source) else f"{kind}: {pv.why_of(source)[:60]}"


def _r(v: float | None, nd: int = 2) -> float | None:
    return None if v is None else round(v, nd) + 0.0  # + 0.0: never -0.0


# long: one phase of play, its sampling loop and its figures, read best whole
def _phase(ctx: Context, screen: Any, renderer: Any, instances: int, seconds: float, every: float,
           make_session: Callable[[Context], Any], tag: str | None = None, real_dt: bool = False) -> dict[str, Any]:
    """One fresh game from 05:30 with ``instances`` model instances, for ``seconds`` real
    seconds; its figures suffixed ``tag`` (default ``_<n>inst``); ``real_dt``: frames
    advance the game by the wall time they took, as the window's loop does."""
    from game.app import Game  # lazy: pygame, after SDL's headless drivers are chosen

    tag = tag or f"_{instances}inst"
    pool = local_model.model()
    old_env = os.environ.get("SMALLVILLE_MODEL_INSTANCES")
    os.environ["SMALLVILLE_MODEL_INSTANCES"] = str(instances)  # what the game reads when it sizes the pool
    session = None
    gcpolicy.POLICY.uninstall()  # installed afresh by attach_session, it freezes this game's town, as at launch
    try:
        session = make_session(ctx)
        local_model.use_instances(instances)  # and the pool itself, whatever the game chose
        loaded_before = pool.instances
        embedder = getattr(session, "embedder", None)
        if embedder is not None and hasattr(embedder, "embed"):
            embedder.embed(["warm up"])  # the embedding model loaded before the clock counts
        sim = session.sim
        game = Game(sim.town, renderer, size=screen.get_size())
        game.attach_session(session)
        if session.paused:
            session.toggle_pause()
        visitor = _Visitor(game, session, random.Random(ctx.seed * 1000 + instances), every, time.perf_counter())
        sampler = _Sampler(session)

        clock: list[tuple[float, float]] = []  # (wall, sim minutes) from the phase's start, every frame

        def before() -> None:
            now = time.perf_counter()
            visitor.tick(now)
            sampler.tick(now)
            clock.append((now - t0, (session.now - sim0).total_seconds() / 60.0))

        busy0 = pool.busy_s()
        calls0 = int(session.gateway.accounting.summary()["total"].get("calls", 0))
        sim0, t0 = session.now, time.perf_counter()
        frames: list[float] = []
        end = t0 + seconds
        while True:
            left = end - time.perf_counter()
            if left <= 0:
                break
            n = max(1, min(CHUNK_FRAMES, round(left * 60)))
            frames += [dt for dt, _ in _frame_loop(game, screen, n, before, real_dt=real_dt)]
        wall = time.perf_counter() - t0
        t_end = time.perf_counter()
        sim_min = (session.now - sim0).total_seconds() / 60.0
        busy = pool.busy_s() - busy0
        calls = int(session.gateway.accounting.summary()["total"].get("calls", 0)) - calls0
        if visitor.current is not None:
            game.panels.chat.close()
        waits = [a["wait_s"] if a["wait_s"] is not None else t_end - a["asked"]
                 for a in visitor.asked if not a.get("lost")]
        answered = [a for a in visitor.asked if a.get("answer")]
        by_model = [a["wait_s"] for a in answered if pv.model_led(a.get("source"))]
        led = runstats.model_led(list(sim.events), end=sim.now)
        kinds: Counter = Counter()
        for r in led.values():
            kinds.update(r["by_kind"])
        awake = sum(kinds.values())
        status = _call(session, "pace_status")
        chosen = getattr(status, "chosen", None)
        seen = clock_figures(clock, sampler.morning_done[0] - t0 if sampler.morning_done else None)
        first8 = clock_figures([x for x in clock if x[0] <= FIRST_REAL_S])["slowest_5min_s"]
        out: dict[str, Any] = {
            f"answer_p50_s{tag}": _r(statistics.median(waits)) if waits else None,
            f"answer_p95_s{tag}": _r(percentile(waits, 95)) if waits else None,
            f"answer_max_s{tag}": _r(max(waits)) if waits else None,
            f"answer_model_share{tag}": _r(len(by_model) / len(answered)) if answered else None,
            f"answer_p50_s_model_led{tag}": _r(statistics.median(by_model)) if by_model else None,
            f"answer_p95_s_model_led{tag}": _r(percentile(by_model, 95)) if by_model else None,
            f"questions{tag}": len(visitor.asked),
            f"unanswered{tag}": sum(1 for a in visitor.asked if a["wait_s"] is None and not a.get("lost")),
            f"chats_lost{tag}": sum(1 for a in visitor.asked if a.get("lost")),
            f"model_led_share{tag}": runstats.share_of_all(led),
            f"pace_reached{tag}": _r(sim_min / wall if wall else None),
            # The new game's first minutes: the clock waits while every awake resident plans
            # the morning; then the pace the minds keep up (capped by the chosen speed).
            f"morning_planned_s{tag}": _r(sampler.morning_done[0] - t0) if sampler.morning_done else None,
            f"pace_after_morning{tag}": _r((session.now - sampler.morning_done[1]).total_seconds() / 60.0
                                           / (t_end - sampler.morning_done[0]))
            if sampler.morning_done and t_end > sampler.morning_done[0] + 1 else None,
            **{f"clock_{k}{tag}": _r(v, 3 if "share" in k else 2) for k, v in seen.items()},
            f"clock_slowest_5min_first8_s{tag}": _r(first8),
            f"pace_chosen{tag}": _r(float(chosen if isinstance(chosen, (int, float)) else SPEEDS[session.speed])),
            f"pace_status_reached_median{tag}": _r(statistics.median(sampler.reached)) if sampler.reached else None,
            f"pace_limited_share{tag}": _r(sum(sampler.limited) / len(sampler.limited)) if sampler.limited else None,
            f"late_max{tag}": max(sampler.late) if sampler.late else None,
            f"late_mean{tag}": _r(statistics.fmean(sampler.late), 1) if sampler.late else None,
            f"frame_p50_ms{tag}": _r(statistics.median(frames), 3),
            f"frame_p99_ms{tag}": _r(percentile(frames, 99), 3),
            f"model_calls{tag}": calls,
            f"model_busy_share{tag}": _r(busy / (wall * instances)) if wall else None,
            f"routine_share{tag}": _r(kinds.get("routine", 0.0) / awake) if awake else None,
            f"wall_s{tag}": round(wall, 1),
            f"sim{tag}": f"{sim0:%H:%M}-{session.now:%H:%M}",
            f"sim_minutes{tag}": round(sim_min, 1),
            f"pace{tag}": getattr(session, "pace", None),
            f"awake_minutes_by_kind{tag}": {k: round(v, 1) for k, v in sorted(kinds.items())},
            f"late_at_end{tag}": sampler.late_now(),
            f"late_most_often{tag}": [n for n, _ in sampler.late_names.most_common(5)],
            f"holding_most_often{tag}": [n for n, _ in sampler.holding.most_common(5)],
            f"answers_by_source{tag}": dict(Counter(_source(a.get("source")) for a in visitor.asked
                                                    if a.get("answer"))),
            f"questions_asked{tag}": [{"resident": a["resident"], "sim": a["sim"],
                                       "wait_s": None if a["wait_s"] is None else round(a["wait_s"], 2),
                                       "answer": a.get("answer"), "source": a.get("source")}
                                      for a in visitor.asked],
            f"failed_opens{tag}": visitor.failed_opens,
            f"model_instances_loaded{tag}": pool.instances,
            "residents": len(session.minds),
        }
        if loaded_before > instances:
            ctx.note(f"the {instances}-instance phase began with {loaded_before} instances already loaded "
                     "(a pool never shrinks): it may have run more calls at once")
        return out
    finally:
        if old_env is None:
            os.environ.pop("SMALLVILLE_MODEL_INSTANCES", None)
        else:
            os.environ["SMALLVILLE_MODEL_INSTANCES"] = old_env
        if session is not None:
            session.close()
            _drain(session)
        gcpolicy.POLICY.uninstall()


def _drain(session: Any) -> None:
    """Wait (at most DRAIN_S) for the closed game's jobs still running, so the next phase has the model alone."""
    in_flight = getattr(getattr(session, "pool", None), "in_flight", None)
    end = time.monotonic() + DRAIN_S
    while callable(in_flight) and in_flight() and time.monotonic() < end:
        time.sleep(0.1)


def _real_window(ctx: Context, instances: int, every: float) -> dict[str, Any]:
    """The same game in a real X window (Xvfb) with the window's default instance
    count, for the first ``WINDOW_S`` real seconds, frames advancing by their wall
    time as in `smallville play`: what drawing costs the minds on two cores. Figures
    suffixed ``_xvfb``; without Xvfb, ``window_xvfb`` says why none ran."""
    import pygame  # lazy: SDL, after the phases on the dummy driver

    from game.app import WINDOW_SIZE
    from game.view.tilemap import TileMapRenderer

    seconds = _phase_seconds(float(WINDOW_S[1] if ctx.quick else WINDOW_S[0]))
    try:
        with virtual_display(WINDOW_SIZE) as display, sdl_window(display):
            screen = pygame.display.set_mode(WINDOW_SIZE)
            driver = pygame.display.get_driver()
            renderer = TileMapRenderer.from_file(ctx.map_path)  # its tiles converted for this display
            got = _phase(ctx, screen, renderer, instances, seconds, every, open_session, tag="_xvfb", real_dt=True)
    except Skipped as why:
        ctx.note(f"play_real: no real-window phase: {why}")
        return {"window_xvfb": f"skipped: {why}"}
    return {**got, "window_xvfb": f"Xvfb {display}, SDL driver {driver}, {WINDOW_SIZE[0]}x{WINDOW_SIZE[1]}, "
                                  f"{instances} model instance(s), {seconds:g} real s"}


def bench_play_real(ctx: Context) -> dict:
    """The real game loop with 25 real minds and a scripted visitor asking a question each minute."""
    _need_embedded_model()
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    # Lazy: pygame and the game's window (which imports it) load only when this benchmark runs, after SDL's
    # headless drivers are chosen above.
    import pygame

    from game.app import WINDOW_SIZE
    from game.view.tilemap import TileMapRenderer
    from game.view.window import close_window

    seconds = _phase_seconds(float(PHASE_S[1] if ctx.quick else PHASE_S[0]))
    every = float(ASK_EVERY_S[1] if ctx.quick else ASK_EVERY_S[0])
    pygame.display.init()
    pygame.font.init()
    size_before = local_model.model().size
    try:
        screen = pygame.display.set_mode(WINDOW_SIZE)
        renderer = TileMapRenderer.from_file(ctx.map_path)
        warm_up()
        default = local_model.default_instances(headless=False)
        out: dict[str, Any] = {"phase_s": seconds, "ask_every_s": every, "window_default_instances": default}
        windows = _windows()
        if "dummy" in windows:
            for n in _instances():
                out.update(_phase(ctx, screen, renderer, n, seconds, every, open_session))
        if "xvfb" in windows:
            out.update(_real_window(ctx, default, every))
        first = {k: v for k, v in out.items() if isinstance(v, (int, float))}
        out = {**first, **{k: v for k, v in out.items() if k not in first}}  # the numbers first (the one-line echo)
        out["note"] = (
            f"the real game loop (SDL dummy driver, the window's Game and views) with the scenario's residents, "
            f"the embedded model and the default settings, from the game's start (05:30, before the first "
            f"resident gets up); one fresh game per model instance count "
            f"({', '.join(map(str, _instances()))}), {seconds:g} real s each, frames paced at 60/s at speed 1 "
            "(litellm imported and one model instance loaded before the first: a fresh game pays them once). A "
            f"scripted visitor steps next to an awake, free resident every {every:g} s (after the previous answer), "
            f"asks '{QUESTION.format(first='NAME')}' in the game's chat window and waits for the answer line "
            "(polled each frame, wall clock; one frame late at most). answer_model_share: answers the model "
            "wrote or chose (the answer line's provenance), the rest a rule's (a fast rule answer is not the "
            "model's: answer_*_model_led time those alone). Unanswered: no answer by the phase's end, "
            "whose time stands in for theirs in the percentiles. pace: sim minutes per real second (speed 1 "
            "chooses 1.0); late: residents more than "
            f"{LATE_MIN} sim minutes behind their plan (sim.late), sampled every {SAMPLE_S:g} s; None: the game "
            "has no such figure yet. _xvfb: the same game in a real X window on a virtual screen (Xvfb), the "
            "window's default instance count, its frames advancing by their wall time as `smallville play`'s do; "
            "clock_stopped_share: wall time in stretches of more than "
            f"{STOPPED_S:g} s without a step; clock_slowest_5min_first8_s: the slowest 5 sim minutes in the first "
            f"{FIRST_REAL_S / 60:g} real minutes")
        return out
    finally:
        local_model.use_instances(size_before)
        close_window()

