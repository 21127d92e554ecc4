"""The visitor: a body without a mind, perceived like anyone, walked by the player;
and holding a resident still while the visitor talks with it (the chat window).

Functions over a ``Simulation``'s public state (what they use of it: ``VisitorSim``); the
simulation calls them.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from agents import Action
from game.sim import movement
from game.sim.bodies import Body
from game.world.grid import Tile, facing


class VisitorSim(movement.MovementSim, Protocol):
    """What the visitor's functions use of the simulation, besides walking: the visitor's name."""

    visitor: str | None


def add_visitor(sim: VisitorSim, name: str, tile: Tile | None = None, doing: str = "visiting the town") -> Body:
    """Put the visitor (a new one, or under a new name) into town."""
    if name in sim.bodies and not sim.bodies[name].visitor:
        raise ValueError(f"{name!r} is a resident's name")
    if sim.visitor and sim.visitor != name:
        sim.bodies.pop(sim.visitor, None)
    at = tuple(tile) if tile else tuple(sim.town.spawns.get("visitor") or sim.places.any_walkable())
    b = Body(name=name, tile=at, visitor=True)  # type: ignore[arg-type]  # a pair of ints
    b.action = Action(doing, sim.town.address_at(*at) or sim.town.world, sim.now, 24 * 60, "🧳")
    sim.bodies[name] = b
    sim.visitor = name
    return b


def move_visitor(sim: VisitorSim, tile: Tile) -> None:
    b = sim.bodies[sim.visitor] if sim.visitor else None
    if b is None:
        raise ValueError("no visitor in town")
    tile = (int(tile[0]), int(tile[1]))
    b.facing = facing(tile[0] - b.tile[0], tile[1] - b.tile[1], b.facing)
    b.tile = tile
    if b.action:
        b.action = replace(b.action, address=sim.town.address_at(*tile) or sim.town.world)


def set_visitor_doing(sim: VisitorSim, text: str) -> None:
    b = sim.bodies[sim.visitor] if sim.visitor else None
    if b is not None and b.action:
        b.action = replace(b.action, description=text)


def remove_visitor(sim: VisitorSim) -> None:
    if sim.visitor:
        sim.bodies.pop(sim.visitor, None)
        sim.visitor = None


# ---------------------------------------------------------------------------- holding a resident


def held(sim: VisitorSim, name: str) -> bool:
    """Whether the resident is stopped by ``hold`` (talking with the visitor)."""
    b = sim.bodies.get(name)
    return b is not None and b.conversation is None and b.action is not None and bool(b.action.talking_to)


def hold(sim: VisitorSim, name: str, partner: str, doing: str | None = None) -> bool:
    """Stop the resident where it stands, talking with ``partner`` (the visitor)
    until ``release``: no walking, no decisions, no conversations with others.
    False when it cannot (not a resident, or in a conversation)."""
    b = sim.bodies.get(name)
    if b is None or b.visitor or b.conversation is not None:
        return False
    if held(sim, name):
        return True
    b.prev_action = b.action
    movement.stop(sim, b)
    b.prev_tile = b.tile  # standing still (drawing glides from prev_tile)
    b.waiting_since = None  # talking, not waiting: after the release the wait starts afresh
    other = sim.bodies.get(partner)
    if other is not None:
        b.facing = facing(other.tile[0] - b.tile[0], other.tile[1] - b.tile[1], b.facing)
    here = sim.town.address_at(*b.tile) or sim.area(b.tile)
    b.action = Action(doing or f"talking with {partner}", here, sim.now, 24 * 60, "💬", None, partner)
    return True


def release(sim: VisitorSim, name: str) -> None:
    """End a ``hold``: the resident resumes what it was doing (walking on if it was
    on its way), or asks for a new decision if that ran out meanwhile."""
    if not held(sim, name):
        return
    b = sim.bodies[name]
    prev, b.prev_action = b.prev_action, None
    b.action = prev
    b.last_decide = sim.now
    if prev is None or not b.target:
        return
    if b.arrived_at is not None and not b.walking:
        movement.arrive(sim, b, quiet=True)  # it was at its place: it carries on there
        return
    movement.go_to(sim, b, b.target)  # on its way again (its path from the path service)
