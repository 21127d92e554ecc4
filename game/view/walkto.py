"""Walk there: the visitor walks on its own to a resident or a place.

``game.walk_to_resident(name)`` (the inspector's and the town map's "Walk
there") plans an A* path (game/world/astar.py, the town's walkable grid) to a
free tile next to the resident and hands it to the visitor (``Visitor.route``);
``game.walk_to_tile(tile)`` does the same for a place (the nearest walkable
tile). The camera follows the visitor on the way.

On the way: a resident who walks off is followed (the path is planned again
when they are no longer next to its end); a resident standing in the way is
waited for, then walked around; arriving next to a resident says so (T talks).
A walking key or Escape stops it; so does an unreachable goal, with a message.
"""
from __future__ import annotations

import logging
from typing import Protocol

import pygame

from game.sim import Body
from game.view import keys
from game.view.host import Host
from game.view.overlay import Overlay
from game.view.visitor import Visitor, facing_of
from game.world import astar
from game.world.grid import chebyshev
from game.world.town import Town

log = logging.getLogger(__name__)

NOTE_KEY = "walkto"
REPLAN_S = 0.5  # how often a moving resident's position is checked
DETOUR_AFTER_S = 1.0  # blocked this long: plan around whoever stands in the way
GIVE_UP_AFTER_S = 6.0  # blocked this long in all: stop and say so


class WalkHost(Host, Protocol):
    """What walking uses of the window: the visitor and the map (where it may step), and
    whether the camera follows the visitor."""

    follow: bool

    @property
    def visitor(self) -> Visitor: ...

    @property
    def town(self) -> Town: ...

    def address_at(self, tile: tuple[int, int]) -> str: ...

    def walkable(self, x: int, y: int) -> bool: ...

    def can_enter(self, x: int, y: int) -> bool: ...

    def nearest_walkable(self, tile: tuple[int, int]) -> tuple[int, int]: ...


class WalkTo(Overlay):
    name = "walker"

    def __init__(self, game: WalkHost) -> None:
        self.game = game
        self.resident: str | None = None  # walking to this resident ...
        self.tile: tuple[int, int] | None = None  # ... or to this tile
        self.label = ""
        self.goal: tuple[int, int] | None = None  # the end of the current path
        self.arrived = False
        self._since_check = 0.0
        self._blocked_s = 0.0
        self._blocked_total = 0.0

    @property
    def active(self) -> bool:
        return self.resident is not None or self.tile is not None

    # ---- starting and stopping ---------------------------------------------------------
    def to_resident(self, name: str) -> bool:
        session = self.game.session
        if session is None or name not in session.sim.bodies or name not in session.minds:
            return False
        if session.controlled == name:
            self.game.toast("That is you.")
            return False
        self._reset()
        self.resident, self.label = name, name
        return self._plan(first=True)

    def to_tile(self, tile: tuple[int, int], label: str = "") -> bool:
        self._reset()
        self.tile = (int(tile[0]), int(tile[1]))
        self.label = label or self._place_name(self.tile)
        return self._plan(first=True)

    def stop(self, message: str | None = None) -> None:
        was = self.active
        self._reset()
        self.game.visitor.route = []
        if was:
            self._note()
        if message:
            self.game.toast(message)

    def _reset(self) -> None:
        self.resident = self.tile = self.goal = None
        self.label = ""
        self.arrived = False
        self._since_check = self._blocked_s = self._blocked_total = 0.0

    # ---- planning ---------------------------------------------------------------------------
    def _body(self, name: str) -> Body | None:
        session = self.game.session
        return session.sim.bodies.get(name) if session is not None else None

    def _place_name(self, tile) -> str:
        addr = self.game.address_at(tuple(tile))
        parts = addr.split(":")
        return " › ".join(parts[1:3]) if len(parts) > 1 else parts[0]

    def _goals(self) -> list[tuple[int, int]]:
        g = self.game
        if self.resident is not None:
            b = self._body(self.resident)
            if b is None:
                return []
            x, y = b.tile
            return [(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                    if (dx or dy) and g.can_enter(x + dx, y + dy)]
        if self.tile is not None:
            return [g.nearest_walkable(self.tile)]
        return []

    def _next_to_resident(self) -> bool:
        if self.resident is None:
            return False
        b = self._body(self.resident)
        return b is not None and chebyshev(self.game.visitor.tile, b.tile) <= 1

    def _plan(self, first: bool = False) -> bool:
        """A path from where the visitor is (or is stepping to) to the goal."""
        g = self.game
        start = g.visitor.tile
        goals = self._goals()
        if self._next_to_resident():
            return self._arrive()
        if not goals:
            if first or self.resident is None:
                self.stop(f"There is no free spot next to {self.label} to walk to.")
            return False
        path = astar.find_path_to_any(g.town.walkable, start, goals)
        if not path:
            self.stop(f"There is no way to walk to {self.label} from here.")
            return False
        self.goal = path[-1]
        g.visitor.route = list(path[1:])
        g.follow = True  # the camera goes with the visitor
        follower = g.panels.follower
        if follower is not None:
            follower.stop()
        if first:
            self._note()
        if not g.visitor.route:
            return self._arrive()
        return True

    def _arrive(self) -> bool:
        g = self.game
        who = self.resident
        self.arrived = True
        if who is not None:
            b = self._body(who)
            if b is not None:  # face them
                dx, dy = b.tile[0] - g.visitor.tile[0], b.tile[1] - g.visitor.tile[1]
                g.visitor.facing = facing_of(dx if abs(dx) >= abs(dy) else 0, dy if abs(dy) > abs(dx) else 0,
                                             g.visitor.facing)
            msg = f"You are next to {who.split()[0]}. Press T to talk."
        else:
            msg = f"You are at {self.label}."
        self.stop(msg)
        self.arrived = True
        return True

    def _sidestep(self) -> None:
        """Step around whoever stands on the route's next tile: through a free tile
        next to both the visitor and the tile after theirs (no new search, so the
        cached grid of game/world/astar.py is all it takes)."""
        g = self.game
        v = g.visitor
        here, blocker, after = v.tile, v.route[0], v.route[1]
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                n = (here[0] + dx, here[1] + dy)
                if n in (here, blocker) or chebyshev(n, after) != 1 or not g.can_enter(*n):
                    continue
                if self._step_ok(here, n) and self._step_ok(n, after):
                    v.route = [n, *v.route[1:]]
                    return

    def _step_ok(self, a, b) -> bool:
        """A step the paths allow: onto a walkable tile, not cutting a wall's corner."""
        w = self.game.walkable
        if not w(*b):
            return False
        dx, dy = b[0] - a[0], b[1] - a[1]
        return not (dx and dy) or (w(a[0] + dx, a[1]) and w(a[0], a[1] + dy))

    def _note(self) -> None:
        hud = self.game.panels.hud
        if hud is not None:
            hud.note(NOTE_KEY, f"Walking to {self.label}  (a walk key or Esc stops)" if self.active else None)

    # ---- overlay protocol -----------------------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> bool:
        if self.active and keys.pressed(event, "back"):
            self.stop("Stopped walking.")
            return True
        return False

    def update(self, dt: float) -> None:
        if not self.active:
            return
        v = self.game.visitor
        if not v.route and not v.moving:
            if self.resident is not None and not self._next_to_resident():
                self._plan()  # they walked off while we arrived
            elif self.goal is not None and v.tile == self.goal:
                self._arrive()
            else:  # a walking key took over (the visitor dropped the route)
                self.stop()
            return
        if v.blocked and not v.moving:
            self._blocked_s += dt
            self._blocked_total += dt
            if self._blocked_total >= GIVE_UP_AFTER_S:
                self.stop(f"Someone is in the way to {self.label}; walk there yourself.")
                return
            if self._blocked_s >= DETOUR_AFTER_S and v.route:
                self._blocked_s = 0.0
                if len(v.route) == 1:  # someone stands on the goal
                    if self.resident is None:
                        self._arrive()  # next to the place is there
                    else:
                        self._plan()  # another free spot next to them
                else:
                    self._sidestep()
            return
        self._blocked_s = self._blocked_total = 0.0
        if self.resident is None:
            return
        self._since_check += dt
        if self._since_check < REPLAN_S:
            return
        self._since_check = 0.0
        b = self._body(self.resident)
        if b is None:
            self.stop(f"{self.label} is not in town any more.")
        elif self.goal is not None and chebyshev(self.goal, b.tile) > 1:
            self._plan()  # they moved on: follow them


def install(game: WalkHost) -> WalkTo:
    w = WalkTo(game)
    game.add_overlay(w)
    game.panels.walker = w
    return w


__all__ = ["WalkTo", "install"]
