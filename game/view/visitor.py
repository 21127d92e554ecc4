"""The visitor: the player's character.

Walks tile by tile with WASD or the arrow keys. A step takes STEP_SECONDS and
is interpolated, so the figure glides between tiles; holding a key keeps
walking without a pause between steps; a quick tap (pressed and released
within one frame) still makes one step. Pressing towards a wall turns the
visitor to face it and does not move. The visitor's `tile` is the tile it
stands on, or, mid-step, the tile it is stepping onto (it occupies it).

Walking on its own: ``route`` is a list of tiles still to walk (an A* path
from game/view/walkto.py, diagonal steps included). The visitor steps along
it while no walking key is pressed; a walking key takes over and drops the
route (the player walks again). A tile that is taken (a resident stands
there) is waited for, not walked through.
"""
from __future__ import annotations

from collections.abc import Callable

import pygame

from game.view import keys
from game.view.sprites import Figure

STEP_SECONDS = 0.18
DELTA = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
KEY_DIRECTIONS: dict[int, str] = {code: str(way) for code, way in keys.values("walk").items()}  # game/view/keys.py


def facing_of(dx: int, dy: int, default: str = "down") -> str:
    """The sheet row for a step (dx, dy); a diagonal step faces its sideways part."""
    if dx:
        return "right" if dx > 0 else "left"
    if dy:
        return "down" if dy > 0 else "up"
    return default


class WalkControls:
    """Which way the player wants to walk, from key events.

    The most recently pressed key still held wins; a tap is remembered until a
    step uses it.
    """

    def __init__(self) -> None:
        self.held: list[str] = []  # directions in press order
        self._held_keys: dict[int, str] = {}
        self.tapped: str | None = None
        self.enabled = True  # a text box with focus turns walking off

    def handle_event(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.KEYDOWN and event.key in KEY_DIRECTIONS:
            if not self.enabled:
                return False
            d = KEY_DIRECTIONS[event.key]
            self._held_keys[event.key] = d
            self._refresh()
            self.held = [x for x in self.held if x != d] + [d]
            self.tapped = d
            return True
        if event.type == pygame.KEYUP and event.key in KEY_DIRECTIONS:
            self._held_keys.pop(event.key, None)
            self._refresh()
            return True
        if event.type in (pygame.WINDOWFOCUSLOST,):
            self.release_all()
        return False

    def _refresh(self) -> None:
        still = set(self._held_keys.values())
        self.held = [d for d in self.held if d in still]

    def release_all(self) -> None:
        self._held_keys.clear()
        self.held.clear()
        self.tapped = None

    def wanted(self) -> str | None:
        if not self.enabled:
            return None
        return self.held[-1] if self.held else self.tapped


class Visitor:
    def __init__(
        self,
        tile: tuple[int, int],
        name: str = "You",
        slug: str = "visitor",
        step_seconds: float = STEP_SECONDS,
    ) -> None:
        self.name = name
        self.slug = slug
        self.tile = (int(tile[0]), int(tile[1]))
        self.prev = self.tile
        self.progress = 1.0  # 0..1 along prev -> tile
        self.moving = False
        self.facing = "down"
        self.walked = 0.0  # tiles walked in the current run of steps (walk cycle)
        self.steps = 0  # tiles walked in total
        self.step_seconds = step_seconds
        self.route: list[tuple[int, int]] = []  # tiles still to walk on its own (walk-to)
        self.blocked = False  # the route's next tile was taken at the last try

    @property
    def pos(self) -> tuple[float, float]:
        """Where the figure is drawn, in fractional tiles."""
        t = self.progress
        return (self.prev[0] + (self.tile[0] - self.prev[0]) * t, self.prev[1] + (self.tile[1] - self.prev[1]) * t)

    def place(self, tile: tuple[int, int]) -> None:
        """Teleport (loading a save, tests)."""
        self.tile = self.prev = (int(tile[0]), int(tile[1]))
        self.progress, self.moving, self.walked = 1.0, False, 0.0
        self.route = []

    def update(self, dt: float, controls: WalkControls, can_enter: Callable[[int, int], bool]) -> None:
        """Advance the current step by dt seconds; start the next one if a key asks for it."""
        remaining = max(0.0, dt)
        while True:
            if self.moving:
                need = (1.0 - self.progress) * self.step_seconds
                if remaining < need:
                    frac = remaining / self.step_seconds
                    self.progress += frac
                    self.walked += frac
                    return
                remaining -= need
                self.walked += 1.0 - self.progress
                self.progress, self.moving, self.prev = 1.0, False, self.tile
                self.steps += 1
            want = controls.wanted()
            if want is None and self.route:
                if not self._route_step(can_enter):
                    self.walked = 0.0
                    return
                if remaining <= 0.0:
                    return
                continue
            if want is None:
                self.walked = 0.0
                return
            self.route = []  # a walking key: the player walks again
            self.facing = want
            dx, dy = DELTA[want]
            target = (self.tile[0] + dx, self.tile[1] + dy)
            controls.tapped = None  # a tap is used up by a step or by turning to a wall
            if not can_enter(*target):
                self.walked = 0.0
                return
            self.prev, self.tile = self.tile, target
            self.progress, self.moving = 0.0, True
            if remaining <= 0.0:
                return

    def _route_step(self, can_enter: Callable[[int, int], bool]) -> bool:
        """Start the step to the route's next tile; False when it is taken (wait)."""
        nxt = self.route[0]
        dx, dy = nxt[0] - self.tile[0], nxt[1] - self.tile[1]
        if max(abs(dx), abs(dy)) != 1:  # not next to us (the route is stale): drop it
            self.route = []
            return False
        self.facing = facing_of(dx, dy, self.facing)
        if not can_enter(*nxt):
            self.blocked = True
            return False
        self.blocked = False
        self.route.pop(0)
        self.prev, self.tile = self.tile, nxt
        self.progress, self.moving = 0.0, True
        return True

    def figure(self) -> Figure:
        x, y = self.pos
        return Figure(
            name=self.name,
            slug=self.slug,
            x=x,
            y=y,
            facing=self.facing,
            moving=self.moving,
            walked=self.walked,
            label=True,
        )
