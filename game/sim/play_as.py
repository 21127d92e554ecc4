"""Playing as a resident: the player walks a resident's body (``take_control``,
``move_controlled``) and hands it back to its mind (``release_control``).

While controlled, its mind gets no decisions and minds do not start
conversations with it (they may greet it, game/sim/greetings.py); its current
action stays until it first moves, then it is "walking around". The session
(game/runs/session.py) adds what the player did to the mind's memory on release.

Functions over a ``Simulation``'s public state (what they use of it: ``PlayAsSim``); the
simulation calls them.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from agents import Action
from game.sim import conversations, movement, objects
from game.sim.bodies import Body
from game.world.grid import Tile, facing


class PlayAsSim(conversations.ConversationsSim, Protocol):
    """What playing as a resident uses of the simulation, besides conversations: whom the
    player plays, and letting a held resident go."""

    controlled: str | None

    def release(self, name: str) -> None: ...

    def release_control(self) -> str | None: ...


def take_control(sim: PlayAsSim, name: str) -> Body:
    """The player walks ``name``; KeyError when it is not a resident here."""
    b = sim.bodies.get(name)
    if b is None or b.visitor or name not in sim.minds:
        raise KeyError(f"{name!r} is not a resident here")
    if sim.controlled and sim.controlled != name:
        sim.release_control()
    if b.conversation is not None:
        chat = sim.chats.get(b.conversation)
        if chat is not None:
            conversations.end(sim, chat)
    if sim.held(name):
        sim.release(name)
    objects.release_object(sim, b)
    movement.stop(sim, b)
    b.prev_tile = b.tile
    b.controlled = True
    b.waiting_since = None
    here = sim.town.address_at(*b.tile) or sim.area(b.tile)
    desc = b.action.description if b.action is not None else "walking around"
    b.action = Action(desc, here, sim.now, 24 * 60, b.action.emoji if b.action else "🚶")
    b.target = None
    sim.controlled = name
    sim.log_event(name, "action", f"{desc} (played by the player)", here, controlled=True)
    return b


def move_controlled(sim: PlayAsSim, tile: Tile) -> None:
    b = sim.bodies.get(sim.controlled) if sim.controlled else None
    if b is None:
        raise ValueError("no resident is controlled")
    tile = (int(tile[0]), int(tile[1]))
    if tile == b.tile:
        return
    b.facing = facing(tile[0] - b.tile[0], tile[1] - b.tile[1], b.facing)
    b.prev_tile = b.tile
    b.tile = tile
    here = sim.town.address_at(*tile) or sim.area(tile)
    if b.action is not None and b.action.description != "walking around":
        b.action = Action("walking around", here, sim.now, 24 * 60, "🚶")
    elif b.action is not None:
        b.action = replace(b.action, address=here)


def release_control(sim: PlayAsSim) -> str | None:
    """Hand the controlled resident back to its mind: it asks for a decision now."""
    name, sim.controlled = sim.controlled, None
    b = sim.bodies.get(name) if name else None
    if b is None:
        return None
    b.controlled = False
    b.action = None  # the next schedule asks the mind (reason "start")
    b.target = None
    movement.stop(sim, b)
    b.arrived_at = None
    b.not_before = None
    b.new_events = False
    b.next_action, b.ahead_for = None, None
    b.urgent = True  # the player watches it take over: first in line
    b.asked_day = sim.now.date().isoformat()
    sim.log_event(name, "action", "is back to their own mind", sim.area(b.tile), controlled=False)
    return name
