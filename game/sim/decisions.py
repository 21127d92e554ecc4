"""The minds' decisions: when a resident is asked, and what its answer does.

Each step every resident that is free (no job in flight, not talking, not
asleep, not played by the player) is checked: it is asked to ``decide`` when
it has no action (``start``), its action is done (``done``), a new day began
(``new day``), or something new is in view at its place (``react``, at most
once per ``react_cooldown_min``). The decision comes back on a later step: an
action (``set_action``: the body walks to its place) or someone to talk to (a
conversation). A failed or empty decision falls back to the routine
(game/sim/routine.py, ``fallback``), and says so.

The minds are asked only through ``agents.ResidentMind``: every member called is
one the protocol declares (a stand-in mind answers as a mind without a plan of
steps: lab/standins.py ``StandInMind``).

Minds think ahead: ``settings.lookahead_min`` before an action ends (twice
that before waking: a day plan takes several calls), the next action is
asked for (``ahead``: the mind plans as of the action's end) and held on the
body until the current action ends, so the resident moves on at once. When an
action ends and the mind has not answered yet, the resident follows its own
plan's step meanwhile (``stand_in``; the routine when it has no plan for today),
marked as such, and the decision replaces it when it lands: nobody stays in an
action that ended long ago, and nobody oversleeps for a pending call.

In the window (not in lockstep runs, which keep the fixed look-ahead and stay
reproducible) the work is spread to its deadlines by the load (``lead_min``):
the look-ahead grows with the work queued ahead at the minds' measured pace,
and a resident whose next step is decided has the plan's next chunk broken
into steps ahead of time (``ask_prepare``), so a town's hour boundaries falling
due at once are worked off in the minutes before them. On the game's first
decision a resident lies in (``lie_in``) until its plan lands, so the clock
moves while the morning is planned.
"""
from __future__ import annotations

import logging
import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Protocol

from agents import Action, Decision, Persona, Situation
from agents import provenance as pv
from game.sim import movement, objects, perception
from game.sim.bodies import Body
from game.sim.jobs import Job
from game.sim.routine import routine_action
from game.sim.settings import STEP
from game.sim.throughput import CHUNK, Throughput, kind_of
from game.world.grid import chebyshev

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------- asking


class DecisionsSim(perception.PerceptionSim, Protocol):
    """What deciding uses of the simulation, besides perceiving: the personas, the pace, how
    fast the minds answer, the reflections logged, situations and places."""

    @property
    def personas(self) -> dict[str, Persona | None]: ...

    @property
    def lockstep(self) -> bool: ...

    @property
    def pace_hint(self) -> float: ...  # sim minutes a real second the window's clock is set to

    @property
    def throughput(self) -> Throughput: ...

    @property
    def reflections_logged(self) -> dict[str, int]: ...

    def situation(self, name: str) -> Situation: ...

    def resolve(self, address: str | None) -> str | None: ...

    def start_chat(self, name: str, partner: str, note: str = "", source: str = "") -> bool: ...


def action_done(sim: DecisionsSim, b: Body) -> bool:
    """Whether ``b``'s action is over (never while walking or talking)."""
    a = b.action
    if a is None:
        return True
    if b.conversation is not None or b.walking:
        return False
    if sim.now < a.end:
        return False
    stay = timedelta(minutes=sim.settings.min_stay_min)
    if b.arrived_at is not None and a.end < b.arrived_at + stay and sim.now < b.arrived_at + stay:
        return False  # it ended on the way there: let it be seen at its place for a moment
    return True


def schedule(sim: DecisionsSim) -> None:
    """Ask every resident whose situation needs a decision (one job per mind)."""
    s = sim.settings
    today = sim.now.date().isoformat()
    react_gap = timedelta(minutes=s.react_cooldown_min)
    active = objects.active_objects(sim)
    group = sim.bodies if sim.active is None else {n: b for n, b in sim.bodies.items() if n in sim.active}
    for name, b in group.items():
        if b.visitor:
            continue
        if sim.jobs.submit_waiting(name):
            continue
        if b.controlled:
            continue  # the player walks it: its mind gets no decisions
        if b.conversation is not None or sim.held(name):
            continue
        if b.next_action is not None and sim.action_done(b):
            start_next(sim, b)
            continue
        if not sim.jobs.free(name):
            stand_in(sim, b)
            continue
        if ask_ahead(sim, b):
            continue
        if b.asleep and b.action is not None and sim.now < b.action.end:
            continue  # sleeping: no perception, no decisions until wake time
        # Perception for reactions: what is new in view (only when at its place).
        if not b.walking and b.action is not None:
            perception.notice(sim, name, active)
        reason = None
        if b.action is None and (b.not_before is None or sim.now >= b.not_before):
            reason = "start"
        elif b.not_before is not None and sim.now < b.not_before:
            stand_in(sim, b)  # backing off after a failed decision: its plan meanwhile, not a stale action
            continue
        elif sim.action_done(b):
            reason = "done"
        elif b.asked_day is not None and b.asked_day != today and not b.walking:
            reason = "new day"
        elif b.new_events and (b.urgent or (  # the player's inner voice waits for nothing
            not b.walking
            and (b.last_decide is None or sim.now - b.last_decide >= react_gap)
            and jobs_in_flight(sim, b) < s.react_max_in_flight
        )):
            reason = "react"
        if reason is None:
            continue
        if reason in ("start", "done") and b.waiting_since is None:
            b.waiting_since = sim.now
        first = reason == "start" and b.asked_day is None and lies_in(sim)
        if first:  # needed once the lie-in is over: the pool ranks it by then (Simulation.rank_of)
            b.waiting_since = sim.now + timedelta(minutes=sim.settings.morning_grace_min)
        submit_decide(sim, b, reason)
        if first:
            lie_in(sim, b)
    for name, b in group.items():  # after every decision due is asked: those go first
        if not b.visitor and not b.controlled and sim.jobs.free(name):
            ask_prepare(sim, b)


def jobs_in_flight(sim: DecisionsSim, b: Body) -> int:
    """The jobs sent and not yet applied (not the pool's: reproducible) that hold a
    reaction of ``b``'s back: the whole town's in the window, where they share the
    model; in lockstep runs, where the clock waits for every answer anyway, those of
    the residents ``b`` sees (its arena, the vision radius), so each resident's clock
    can run on its own (game/sim/clocks.py)."""
    if not sim.lockstep:
        return sim.jobs.count()
    here, r = sim.area(b.tile), sim.settings.vision_radius
    return sum(1 for o in perception.nearby(sim).bodies(sim, b.tile, r)
               if not o.visitor and chebyshev(o.tile, b.tile) <= r and sim.area(o.tile) == here
               and sim.jobs.current(o.name) is not None)


def submit_decide(sim: DecisionsSim, b: Body, reason: str) -> None:
    mind = sim.minds[b.name]
    sit = sim.situation(b.name)
    if sim.jobs.submit(b.name, Job.decide(reason, sim.now, urgent=b.urgent), mind.decide, sit):
        b.new_events = False
        b.asked_day = sim.now.date().isoformat()
        b.last_decide = sim.now
        b.urgent = False


# ---------------------------------------------------------------------------- thinking ahead


def lead_min(sim: DecisionsSim, kind: str = "decide:ahead") -> float:
    """How long before it is needed a job of ``kind`` is asked for (sim minutes): the fixed
    ``settings.lookahead_min``, or in the window, long enough for the work queued ahead
    of it to drain at the minds' measured pace (seconds per job) at the clock's pace,
    at most ``settings.lookahead_max_min``."""
    s = sim.settings
    base = float(s.lookahead_min)
    if sim.lockstep or sim.pace_hint <= 0:
        return base
    kinds = [kind_of(j) for j in sim.jobs.running().values()] + [kind_of(j) for _, j in sim.jobs.waiting()]
    need = sim.throughput.seconds_ahead([*kinds, kind]) * sim.pace_hint  # real s x sim min per real s
    return min(max(base, need), float(max(s.lookahead_min, s.lookahead_max_min)))


def ask_ahead(sim: DecisionsSim, b: Body) -> bool:
    """Ask for the next action before the current one ends (once per action); True if
    asked. It is a whole decision about now (what is new, whom to talk to) whose next
    action is planned for the current one's end."""
    a = b.action
    if a is None or b.next_action is not None or b.ahead_for == a.end or a.talking_to or b.urgent:
        return False
    if b.not_before is not None and sim.now < b.not_before:
        return False
    if not sim.now < a.end:
        return False
    # A day plan takes several calls: twice the lead before waking.
    if a.end > sim.now + timedelta(minutes=(2 if b.asleep else 1) * max(sim.settings.lookahead_min,
                                                                       sim.settings.lookahead_max_min)):
        return False  # (cheap) too far off for any look-ahead
    chunk = b.asleep or (not _steps_decided(sim, b, a.end) and _chunk_asks(sim, b, a.end))
    lead = timedelta(minutes=lead_min(sim, CHUNK if chunk else "decide:ahead") * (2 if b.asleep else 1))
    if not a.end <= sim.now + lead:
        return False
    sit = replace(sim.situation(b.name), plan_at=a.end, action_done=True)
    if b.asleep:  # waking up: nothing seen yet, nobody to talk to
        sit.events, sit.can_talk_to = [], []
    job = Job.decide("ahead", sim.now, need=a.end, chunk=chunk)
    if sim.jobs.submit(b.name, job, sim.minds[b.name].decide, sit):
        b.ahead_for = a.end
        b.new_events = False
        b.last_decide = sim.now
        return True
    return False


def ask_prepare(sim: DecisionsSim, b: Body) -> bool:
    """In the window: have the mind break the plan's next chunk into steps ahead of
    time (``mind.prepare``), so the call is not made when everyone's hour begins at
    once: once the steps decided (those waiting in the mind, else the step decided
    ahead, ``next_action``) end within the load's look-ahead (``lead_min``), or at
    once, up to ``settings.lookahead_max_min`` ahead, while the minds have almost
    nothing queued (``IDLE_S``): the model's idle seconds do the next hour's work.
    Only while its next step is already decided: the job holds the resident's key
    while it waits its turn, and the resident needs no decision until that step
    starts. True if asked."""
    if sim.lockstep or sim.pace_hint <= 0 or b.next_action is None or b.urgent or b.conversation is not None:
        return False
    a = b.action
    if a is None or b.asleep or sim.held(b.name):
        return False
    end = _steps_end(sim, b)
    if end is None:
        return False  # no steps decided ahead (a stand-in mind never has any): nothing to prepare
    if end < b.next_action.end or end <= a.end or end == b.prepared_for or end <= sim.now:
        return False
    if end > sim.now + timedelta(minutes=lead_min(sim, "prepare")) and not (
            end <= sim.now + timedelta(minutes=sim.settings.lookahead_max_min) and idle(sim)):
        return False
    if not _chunk_asks(sim, b, end):
        b.prepared_for = end  # a night, a short chunk, steps made earlier today: nothing to do ahead
        return False
    if sim.jobs.submit(b.name, Job.prepare(sim.now, end), sim.minds[b.name].prepare, end, sim.now):
        b.prepared_for = end
        return True
    return False


def _chunk_asks(sim: DecisionsSim, b: Body, at: datetime) -> bool:
    """Whether the chunk at ``at`` will cost ``b``'s mind a model call (``mind.chunk_asks``,
    read while its key is free); True when it fails (logged)."""
    try:
        return bool(sim.minds[b.name].chunk_asks(at))
    except Exception:
        log.exception("chunk_asks of %s failed", b.name)
        return True


IDLE_S = 1.0  # wall seconds of queued model work below which the minds count as idle (work ahead then)


def idle(sim: DecisionsSim) -> bool:
    """Whether the minds' queued work drains within ``IDLE_S`` at their measured pace.
    Always, in lockstep runs: their clock waits for the minds, so how fast the model
    was must not change what is asked when (the run stays reproducible)."""
    if sim.lockstep:
        return True
    kinds = [kind_of(j) for j in sim.jobs.running().values()] + [kind_of(j) for _, j in sim.jobs.waiting()]
    return sim.throughput.seconds_ahead(kinds) < IDLE_S


def _steps_end(sim: DecisionsSim, b: Body) -> datetime | None:
    """When the steps ``b``'s mind has decided run out: those waiting in its plan
    (``mind.steps_end``), else the step decided ahead and held on the body; None when it
    fails (logged)."""
    try:
        end = sim.minds[b.name].steps_end()
    except Exception:
        log.exception("steps_end of %s failed", b.name)
        return None
    if isinstance(end, datetime):
        return end
    return b.next_action.end if b.next_action is not None else None


def _steps_decided(sim: DecisionsSim, b: Body, at: datetime) -> bool:
    """Whether ``b``'s mind has a step decided for ``at`` already (a cheap decision then)."""
    end = _steps_end(sim, b)
    return end is not None and end > at


def lies_in(sim: DecisionsSim) -> bool:
    """Whether a resident's first decision of the game finds it lying in (the window only)."""
    return not sim.lockstep and sim.settings.morning_grace_min > 0


def lie_in(sim: DecisionsSim, b: Body) -> None:
    """In the window, the game's first decision of a resident: it stays in bed (at home)
    while its day is planned, for ``settings.morning_grace_min`` at most, and the clock
    does not wait for it meanwhile (its decision is needed from then: ``waiting_since``).
    The plan replaces the lie-in when it lands. Lockstep runs wait for the plan instead."""
    grace = sim.settings.morning_grace_min
    if not lies_in(sim) or b.action is not None or not sim.jobs.current(b.name):
        return
    persona = sim.personas.get(b.name)
    home = getattr(persona, "home", None) or sim.area(b.tile)
    bed = Action("sleeping in while the day is planned", home, sim.now, grace,
                 source=pv.tag(pv.RULE, "in bed until its first plan of the game is made"))
    set_action(sim, b, bed, note="lies in while its mind plans the day")
    b.lying_in = True
    b.waiting_since = sim.now + timedelta(minutes=grace)  # needed from then: the clock runs on till then


def on_prepared(sim: DecisionsSim, name: str, job: Job, value: object, error: BaseException | None) -> None:
    """A chunk broken into steps ahead came back: the steps wait in the mind's plan; a
    failure costs nothing but the call (the step is decided when it is due), logged."""
    if error is not None:
        sim.error(name, f"breaking the next hour into steps failed: {error}")


def start_next(sim: DecisionsSim, b: Body) -> None:
    """The current action is done: the one decided ahead starts now."""
    nxt, b.next_action = b.next_action, None
    if nxt is not None:
        set_action(sim, b, nxt, note="decided ahead")
        b.last_decide = sim.now  # a decision took effect: reactions wait their cooldown from here


def stand_in(sim: DecisionsSim, b: Body) -> None:
    """The action ended while the mind is still working: follow the resident's own
    plan meanwhile (its routine when there is no plan for today), so it never stays in
    an action that is over. A decision still owed keeps counting as waited for."""
    if b.action is None or b.walking or not sim.action_done(b):
        return
    job = sim.jobs.current(b.name)
    owed = job is not None and job.kind == "decide"
    since = b.waiting_since or sim.now
    action = _planned_action(sim, b)
    if action is None or (b.action.description == action.description and b.action.end >= action.end):
        why = "the mind is still thinking" if owed else "the mind's last decision failed"
        action = routine_action(sim.personas.get(b.name), sim.now, sim.town, why)
        b.fallbacks += 1
    set_action(sim, b, action, note="its plan while the mind thinks")
    b.standing_in = True
    if owed:
        b.waiting_since = since


# ---------------------------------------------------------------------------- answers


def on_decision(sim: DecisionsSim, name: str, job: Job, decision: object, error: BaseException | None) -> None:
    """A decision came back: start the conversation or the action it names."""
    b = sim.bodies[name]
    b.last_decide = sim.now
    b.lying_in = False  # its first decision of the game is in (or failed): up, or on its routine
    # The decision waited for is in, whatever it says. A wait left standing (a talk that
    # failed while the resident followed its plan) counted on into the next job and
    # stopped the clock for minutes; a resident still without an action is asked anew.
    b.waiting_since = None
    log_reflections(sim, name, getattr(decision, "note", "") or "")
    if job.ahead and error is None and isinstance(decision, Decision) and on_ahead(sim, b, job, decision):
        return
    if b.conversation is not None or sim.held(name):
        return  # a conversation (or the visitor's chat) began meanwhile; it takes precedence
    if error is not None:
        sim.error(name, f"decision failed: {error}")
        b.not_before = sim.now + timedelta(minutes=sim.settings.error_backoff_min)
        if b.action is None or sim.action_done(b):
            fallback(sim, b, f"the mind's job failed: {error}")
        return
    if not isinstance(decision, Decision):
        sim.error(name, f"decision of the wrong type: {type(decision).__name__}")
        if b.action is None or sim.action_done(b):
            fallback(sim, b, "the mind gave no decision")
        return
    talk_failed = False
    if decision.talk_to:
        if sim.start_chat(name, decision.talk_to, decision.note, decision.source):
            return
        talk_failed = True
    action = decision.action
    if isinstance(action, Action) and (action.description or "").strip():
        set_action(sim, b, action, note=decision.note)
    elif talk_failed and (b.action is None or sim.action_done(b)):
        # The partner was taken meanwhile: ask again shortly (the next situation
        # no longer offers them) rather than falling back to the routine.
        b.not_before = sim.now + 2 * STEP
    elif b.action is None or sim.action_done(b):
        if job.reason in ("react", "new day", "ahead") and b.action is not None and not b.standing_in:
            return  # asked about something new, it carried on; its action ended meanwhile: ask again
        fallback(sim, b, "the mind decided no action")


def on_ahead(sim: DecisionsSim, b: Body, job: Job, decision: Decision) -> bool:
    """A decision asked ahead came back with the next action planned for later: held
    until the action it follows ends, or started now when that action is over (the
    resident followed its plan meanwhile). True when it was taken care of here; an
    answer about now (a reaction, a conversation) goes the usual way."""
    action = decision.action
    if decision.talk_to or not isinstance(action, Action) or not (action.description or "").strip():
        return False
    if decision.at is not None and b.ahead_for is not None and decision.at < b.ahead_for:
        return False  # it acts at once
    if b.conversation is not None or sim.held(b.name):
        return True
    if b.standing_in or b.action is None or sim.action_done(b):
        set_action(sim, b, action, note="decided ahead, landed late")
    elif b.action.end == b.ahead_for:
        b.next_action = action
    return True  # the action it was for was replaced meanwhile (a reaction): void


def log_reflections(sim: DecisionsSim, name: str, note: str) -> None:
    """Log the reflections a mind made in this job (its note says "reflected: ...";
    the texts come from ``mind.inspect().reflections``)."""
    if "reflected" not in (note or ""):
        return
    last = sim.reflections_logged.get(name, -1)
    try:
        refl = sim.minds[name].inspect().reflections
    except Exception:
        log.exception("inspect of %s failed", name)
        refl = ()
    fresh = [(r.id, r.description, r.source or pv.MODEL) for r in refl if r.id > last]
    if not fresh:
        m = re.search(r"reflected:\s*([^;]+)", note)
        if m:
            sim.log_event(name, "reflect", m.group(1).strip(), "", source=pv.MODEL)
        return
    fresh.sort()
    sim.reflections_logged[name] = fresh[-1][0]
    for _, text, source in fresh:  # a reflection the model failed is skipped
        sim.log_event(name, "reflect", text, "", source=source)  # grounded: "repaired: grounded: chosen from ..."


def _planned_action(sim: DecisionsSim, b: Body) -> Action | None:
    """What ``b``'s own plan has it do now (``mind.planned_action``, a thread-safe read of
    its plan), else None; a failure is logged and the routine stands in."""
    try:
        return sim.minds[b.name].planned_action(sim.now)
    except Exception:
        log.exception("planned_action of %s failed", b.name)
        return None


def fallback(sim: DecisionsSim, b: Body, why: str) -> None:
    """The mind failed: the routine stands in, and says why. Not the mind's own plan: its
    decision just failed or came back empty, so the routine, marked as the routine's, shows
    that in the log; while it backs off and its action ends, its plan's step takes over
    (``stand_in``)."""
    action = routine_action(sim.personas.get(b.name), sim.now, sim.town, why)
    b.fallbacks += 1
    set_action(sim, b, action, note="fallback from routine")


# ---------------------------------------------------------------------------- acting


def clean_action(sim: DecisionsSim, action: Action) -> Action:
    """A sane duration (1 minute to a day) and a start that is not stale or in the future."""
    now = sim.now
    dur = action.duration_min
    try:
        dur = int(dur)
    except (TypeError, ValueError):
        dur = 10
    dur = max(1, min(dur, 24 * 60))
    start = action.start if isinstance(action.start, datetime) else now
    if start > now or start + timedelta(minutes=dur) <= now:
        start = now  # a stale or future start: the action begins now
    return replace(action, duration_min=dur, start=start, description=action.description.strip())


def set_action(sim: DecisionsSim, b: Body, action: Action, note: str = "") -> None:
    """``b`` does ``action`` from now: logged, and it walks to the action's place
    (an unknown place: its home, else where it stands)."""
    action = clean_action(sim, action)
    old = b.action
    b.standing_in = False
    if b.next_action is not None and b.next_action is not action:
        b.next_action = None  # the plan moved on (a reaction, a new day): what was decided ahead is void
    objects.release_object(sim, b)
    objects.leave_behind(sim, b, old)
    b.action = action
    b.waiting_since = None
    b.new_events = False
    b.asked_day = sim.now.date().isoformat()
    target = sim.resolve(action.address)
    if target is None:
        persona = sim.personas.get(b.name)
        target = sim.resolve(getattr(persona, "home", None)) or sim.area(b.tile)
        log.info("%s: unknown place %r; using %s", b.name, action.address, target)
    same_place = old is not None and b.target == target and b.arrived_at is not None and not b.walking
    b.target = target
    sim.log_event(b.name, "action", action.description, target, emoji=action.emoji, note=note or None,
                  source=action.source or None)
    if same_place:
        b.arrived_at = sim.now
        movement.arrive(sim, b, quiet=True)
        return
    movement.go_to(sim, b, target)
