"""The minds' decisions: when a resident is asked, and what its answer does.

Each step every resident that is free (no job in flight, not talking, not
asleep, not played by the player) is checked: it is asked to ``decide`` when
it has no action (``start``), its action is done (``done``), a new day began
(``new day``), or something new is in view at its place (``react``, at most
once per ``react_cooldown_min``). The decision comes back on a later step: an
action (``set_action``: the body walks to its place) or someone to talk to (a
conversation). A failed or empty decision falls back to the mind's own
fallback, else the routine (game/sim/routine.py), and says so.
"""
from __future__ import annotations

import logging
import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from agents import provenance as pv
from agents.types import Action, Decision
from game.sim import movement, objects, perception
from game.sim.bodies import Body
from game.sim.jobs import Job
from game.sim.routine import routine_action
from game.sim.settings import STEP

if TYPE_CHECKING:  # type hints only: the simulation imports this module
    from game.sim.core import Simulation

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------- asking


def action_done(sim: Simulation, b: Body) -> bool:
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


def schedule(sim: Simulation) -> None:
    """Ask every resident whose situation needs a decision (one job per mind)."""
    s = sim.settings
    today = sim.now.date().isoformat()
    react_gap = timedelta(minutes=s.react_cooldown_min)
    active = objects.active_objects(sim)
    for name, b in sim.bodies.items():
        if b.visitor:
            continue
        if sim.jobs.submit_waiting(name):
            continue
        if b.controlled:
            continue  # the player walks it: its mind gets no decisions
        if b.conversation is not None or not sim.jobs.free(name) or sim.held(name):
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
            continue
        elif sim.action_done(b):
            reason = "done"
        elif b.asked_day is not None and b.asked_day != today and not b.walking:
            reason = "new day"
        elif (
            b.new_events
            and not b.walking
            and (b.last_decide is None or sim.now - b.last_decide >= react_gap)
            and sim.jobs.count() < s.react_max_in_flight  # jobs sent, not the pool's: reproducible
        ):
            reason = "react"
        if reason is None:
            continue
        if reason in ("start", "done") and b.waiting_since is None:
            b.waiting_since = sim.now
        submit_decide(sim, b, reason)


def submit_decide(sim: Simulation, b: Body, reason: str) -> None:
    mind = sim.minds[b.name]
    sit = sim.situation(b.name)
    if sim.jobs.submit(b.name, Job.decide(reason, sim.now), mind.decide, sit):
        b.new_events = False
        b.asked_day = sim.now.date().isoformat()
        b.last_decide = sim.now


# ---------------------------------------------------------------------------- answers


def on_decision(sim: Simulation, name: str, job: Job, decision: Any, error: Any) -> None:
    """A decision came back: start the conversation or the action it names."""
    b = sim.bodies[name]
    b.last_decide = sim.now
    log_reflections(sim, name, getattr(decision, "note", "") or "")
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
        if job.reason in ("react", "new day") and b.action is not None:
            return  # asked about something new, it carried on; its action ended meanwhile: ask again
        fallback(sim, b, "the mind decided no action")


def log_reflections(sim: Simulation, name: str, note: str) -> None:
    """Log the reflections a mind made in this job (its note says "reflected: ...";
    the texts come from ``mind.inspect()["reflections"]``)."""
    if "reflected" not in (note or ""):
        return
    mind: Any = sim.minds.get(name)
    last = sim.reflections_logged.get(name, -1)
    try:
        refl = (mind.inspect() or {}).get("reflections") or []
    except Exception:
        log.exception("inspect of %s failed", name)
        refl = []
    fresh = []
    for r in refl:
        if isinstance(r, dict):
            rid = int(r.get("id", -1))
            if rid > last:
                fresh.append((rid, str(r.get("description", ""))))
    if not fresh:
        m = re.search(r"reflected:\s*([^;]+)", note)
        if m:
            sim.log_event(name, "reflect", m.group(1).strip(), "", source=pv.MODEL)
        return
    fresh.sort()
    sim.reflections_logged[name] = fresh[-1][0]
    for _, text in fresh:
        sim.log_event(name, "reflect", text, "", source=pv.MODEL)  # a reflection the model failed is skipped


def fallback(sim: Simulation, b: Body, why: str) -> None:
    """The mind failed: its own fallback action, else the routine's (and why)."""
    persona = sim.personas.get(b.name)
    mind = sim.minds.get(b.name)
    action = None
    fb = getattr(mind, "fallback_action", None)
    if callable(fb):
        try:
            action = fb(sim.now)
        except Exception:
            log.exception("fallback_action of %s failed", b.name)
    if action is None:
        action = routine_action(persona, sim.now, sim.town, why)
    b.fallbacks += 1
    set_action(sim, b, action, note="fallback from routine")


# ---------------------------------------------------------------------------- acting


def clean_action(sim: Simulation, action: Action) -> Action:
    """A sane duration (1 minute to a day) and a start that is not stale or in the future."""
    dur = action.duration_min
    try:
        dur = int(dur)
    except (TypeError, ValueError):
        dur = 10
    dur = max(1, min(dur, 24 * 60))
    start = action.start if isinstance(action.start, datetime) else sim.now
    if start > sim.now or start + timedelta(minutes=dur) <= sim.now:
        start = sim.now  # a stale or future start: the action begins now
    return replace(action, duration_min=dur, start=start, description=action.description.strip())


def set_action(sim: Simulation, b: Body, action: Action, note: str = "") -> None:
    """``b`` does ``action`` from now: logged, and it walks to the action's place
    (an unknown place: its home, else where it stands)."""
    action = clean_action(sim, action)
    old = b.action
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
