"""Perception: what a resident sees and whom it may talk to, and the situation
handed to its mind.

A resident sees other bodies and objects with a non-idle state within the
vision radius (a square box) in its own arena, nearest first. What it has not
seen within the retention time is new, and new things at its place make it
consider reacting (game/sim/decisions.py).

Each looks only at the cells of the map around it (game/sim/nearby.py), so a
step's perception grows with the town, not with its square.
"""
from __future__ import annotations

import weakref
from dataclasses import replace
from datetime import timedelta
from typing import Protocol

from agents import Event, Situation
from game.sim import conversations, objects
from game.sim.bodies import Body
from game.sim.nearby import Nearby, NearbySim
from game.world.grid import Tile, chebyshev, distance


class PerceptionSim(conversations.ConversationsSim, NearbySim, Protocol):
    """What perceiving uses of the simulation, besides conversations: whom the player
    plays, what each sees, when an action is done."""

    @property
    def controlled(self) -> str | None: ...

    def perceive(self, name: str, active: list[tuple[str, str]] | None = None) -> list[Event]: ...

    def seen_addresses(self, tile: Tile) -> list[str]: ...

    def can_talk_to(self, name: str) -> list[str]: ...

    def action_done(self, b: Body) -> bool: ...


_nearby: weakref.WeakKeyDictionary[PerceptionSim, Nearby] = weakref.WeakKeyDictionary()


def nearby(sim: PerceptionSim) -> Nearby:
    """The simulation's index of bodies and active objects by cell (made on first use)."""
    got = _nearby.get(sim)
    if got is None:
        got = _nearby[sim] = Nearby(sim.settings.vision_radius)
    return got


def doing(b: Body) -> str:
    """What others see ``b`` doing."""
    if b.conversation is not None and b.action and b.action.talking_to:
        return f"conversing with {b.action.talking_to}"
    return b.doing


def perceive(sim: PerceptionSim, name: str, active: list[tuple[str, str]] | None = None) -> list[Event]:
    """Events in view of a resident: other bodies' actions and objects with
    non-idle states, within the vision radius and in the same arena, nearest first.
    Only the ``max_events`` nearest are made into events (a crowd is sorted, not worded)."""
    me = sim.bodies[name]
    r = sim.settings.vision_radius
    here = sim.area(me.tile)
    mx, my = me.tile
    found: list[tuple[float, str, Body | tuple[str, str]]] = []
    near = nearby(sim)
    for other in near.bodies(sim, me.tile, r):
        ox, oy = other.tile
        if other is me or abs(ox - mx) > r or abs(oy - my) > r or sim.area(other.tile) != here:
            continue
        if other.visitor and sim.controlled:
            continue  # the visitor is parked (not drawn) while the player plays a resident
        found.append((distance(other.tile, me.tile), other.name, other))
    for addr, state, tiles in near.objects(sim, objects.active_objects(sim) if active is None else active, me.tile, r):
        if addr == me.held_object:
            continue
        best = None
        for t in tiles:
            if chebyshev(t, me.tile) <= r and sim.area(t) == here:
                d = distance(t, me.tile)
                best = d if best is None or d < best else best
        if best is None:
            continue
        found.append((best, addr, (addr, state)))
    found.sort(key=lambda f: (f[0], f[1]))
    return [_event(sim, what, here) for _, _, what in found[: sim.settings.max_events]]


def _event(sim: PerceptionSim, what: Body | tuple[str, str], here: str) -> Event:
    if isinstance(what, Body):
        doing_now = doing(what)
        return Event(subject=what.name, predicate="is", object=doing_now, description=f"{what.name} is {doing_now}",
                     address=sim.town.address_at(*what.tile) or here)
    addr, state = what
    return Event(addr, "is", state, f"{addr.split(':')[-1]} is {state}", addr)


def notice(sim: PerceptionSim, name: str, active: list[tuple[str, str]]) -> None:
    """Mark what is new in view of a resident at its place (``new_events``), and
    remember when each thing was last seen (retention)."""
    b = sim.bodies[name]
    retention = timedelta(minutes=sim.settings.retention_min)
    for ev in sim.perceive(name, active):
        key = f"{ev.subject}|{ev.object}"
        last = b.seen.get(key)
        if last is None or sim.now - last > retention:
            b.new_events = True
        b.seen[key] = sim.now
    if len(b.seen) > 200:
        cut = sim.now - retention
        b.seen = {k: t for k, t in b.seen.items() if t >= cut}


def can_talk_to(sim: PerceptionSim, name: str) -> list[str]:
    """Residents near enough (talk radius, same arena) and free to talk with ``name``."""
    me = sim.bodies[name]
    if me.hurrying:
        return []
    here = sim.area(me.tile)
    out = []
    for other in nearby(sim).bodies(sim, me.tile, sim.settings.talk_radius):
        if other is me or other.visitor or other.name not in sim.minds:
            continue
        if chebyshev(other.tile, me.tile) > sim.settings.talk_radius or sim.area(other.tile) != here:
            continue
        if conversations.free_to_talk(sim, other) and not conversations.in_cooldown(sim, name, other.name):
            out.append(other.name)
    return out


def situation(sim: PerceptionSim, name: str) -> Situation:
    """What the resident's mind decides from: where it is, what it does, what it sees."""
    b = sim.bodies[name]
    return Situation(
        now=sim.now,
        address=sim.town.address_at(*b.tile) or sim.area(b.tile),
        action=replace(b.action) if b.action else None,
        events=sim.perceive(name),
        seen_addresses=sim.seen_addresses(b.tile),
        can_talk_to=sim.can_talk_to(name),
        action_done=sim.action_done(b),
    )
