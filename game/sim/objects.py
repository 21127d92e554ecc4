"""Object states: what residents' actions do to objects, and world edits.

An action's ``object_state`` holds while its resident is at the object (the
body "holds" it); when another body still uses the object, its state passes to
that body's action. What an action leaves behind when it ends
(``agents.objects.after_use``: the fridge "running low" for 3 hours after
breakfast) lingers, then goes back to idle. ``set_object_state`` is the world
edit (console, object panel): an ``edit`` event; residents in view may react at
once.

Functions over a ``Simulation``'s public state (``town.object_states``,
``lingering``, ``bodies``); the simulation calls them.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol

from agents import Action, after_use
from game.sim.bodies import Body
from game.sim.places import Places
from game.sim.settings import SimSettings
from game.world.grid import Tile, chebyshev
from game.world.town import Town


class ObjectsSim(Protocol):
    """What the objects' functions use of the simulation (game/sim/core.py ``Simulation``
    is one): the bodies, the map and its places, the clock, the log, the after-use states."""

    @property
    def bodies(self) -> dict[str, Body]: ...

    @property
    def town(self) -> Town: ...

    @property
    def places(self) -> Places: ...

    @property
    def settings(self) -> SimSettings: ...

    @property
    def now(self) -> datetime: ...

    @property
    def lingering(self) -> dict[str, tuple[str, datetime]]: ...  # object -> (after-use state, until)

    def area(self, tile: Tile) -> str: ...

    def log_event(self, resident: str | None, kind: str, text: str, address: str = "", **extra: object) -> dict: ...


def active_objects(sim: ObjectsSim) -> list[tuple[str, str]]:
    """(address, state) of every object whose state is not idle."""
    return sim.town.object_states.in_use()


def hold_object(sim: ObjectsSim, b: Body) -> None:
    """``b`` arrived at its action's object: the action's object state holds while it is there."""
    a = b.action
    if a is not None and b.target and a.object_state and b.target in sim.town.object_states:
        sim.town.object_states[b.target] = a.object_state
        b.held_object = b.target


def release_object(sim: ObjectsSim, b: Body) -> None:
    """``b`` leaves the object it held: another user's action state, else what
    lingers after use, else idle."""
    addr = b.held_object
    if not addr:
        return
    b.held_object = None
    for o in sim.bodies.values():
        if o is not b and o.held_object == addr and o.action and o.action.object_state:
            sim.town.object_states[addr] = o.action.object_state
            return
    if addr in sim.town.object_states:
        linger = sim.lingering.get(addr)
        sim.town.object_states[addr] = linger[0] if linger and sim.now < linger[1] else "idle"


def leave_behind(sim: ObjectsSim, b: Body, action: Action | None) -> None:
    """What an action that ran at its place leaves behind (``agents.objects.after_use``):
    e.g. the fridge "running low" for a few hours after breakfast."""
    if action is None or b.arrived_at is None or b.walking or not b.target:
        return
    arena = ":".join(b.target.split(":")[:3])
    parts = arena.split(":")
    if len(parts) < 3:
        return
    if sim.area(b.tile) != arena:
        return  # it acted where it stood, away from its place: it left nothing there
    names = sim.town.tree.get(parts[1], {}).get(parts[2], [])
    r = sim.settings.vision_radius
    for obj, state, minutes in after_use(action.description, b.target, names):
        addr = f"{arena}:{obj}"
        if addr not in sim.town.object_states:
            continue
        if not any(chebyshev(t, b.tile) <= r for t in sim.places.tiles_of_object(addr)):
            continue  # only what is in view of where it acted (what it touched is near it)
        sim.lingering[addr] = (state, sim.now + timedelta(minutes=minutes))
        if not any(o.held_object == addr for o in sim.bodies.values()):
            sim.town.object_states[addr] = state


def expire_lingering(sim: ObjectsSim, near: list[Body] | None = None) -> None:
    """States left behind go back to idle when their time is up (unless someone holds the
    object). ``near``: only objects within sight (the vision radius and a step) of these
    bodies (residents on their own clocks, game/sim/clocks.py: an object is only ever
    seen from within sight, so one out of everyone's sight can wait until someone comes)."""
    if not sim.lingering:
        return
    reach = sim.settings.vision_radius + 1
    for addr, (state, until) in list(sim.lingering.items()):
        if sim.now < until:
            continue
        if near is not None and not any(chebyshev(t, o.tile) <= reach
                                        for t in sim.places.tiles_of_object(addr) for o in near):
            continue
        del sim.lingering[addr]
        if sim.town.object_states.get(addr) == state and not any(
            o.held_object == addr for o in sim.bodies.values()
        ):
            sim.town.object_states[addr] = "idle"


def set_object_state(sim: ObjectsSim, address: str, state: str | None, by: str = "the player") -> str:
    """Set an object's state from outside the residents' actions (the console,
    the object panel): logged as an ``edit`` event and perceived like any state
    (residents in view get to react at once). ``idle`` (or empty) resets.
    Returns the resolved address; KeyError for an unknown object."""
    town = sim.town
    addr = address if address in town.object_states else None
    if addr is None:
        fix = getattr(town, "resolve", None)
        got = fix(address) if callable(fix) else None
        addr = got if got in town.object_states else None
    if addr is None:
        raise KeyError(f"no object at address {address!r}")
    state = " ".join(str(state or "").split()) or "idle"
    town.object_states[addr] = state
    sim.lingering.pop(addr, None)
    for o in sim.bodies.values():  # it stays so until someone deals with it
        if o.held_object == addr:
            o.held_object = None
    obj = addr.split(":")[-1]
    sim.log_event(None, "edit", f"{by} set the {obj} to {state}", addr, by=by, state=state)
    if state != "idle":
        tiles = sim.places.tiles_of_object(addr)
        radius = sim.settings.vision_radius
        for o in sim.bodies.values():
            if o.visitor or o.controlled or o.asleep:
                continue
            if any(chebyshev(t, o.tile) <= radius and sim.area(t) == sim.area(o.tile) for t in tiles):
                o.last_decide = None  # no reaction cooldown for this
    return addr
