"""The overlay interface: the hooks the window (game/view/window.py) calls on each view it
holds, and the one order it calls them in.

An overlay is a view over the town: the residents' markers, speech bubbles, the HUD, a
panel, a replay's timeline bar. ``Overlay`` declares every hook, each doing nothing, so a
view defines only what it does:

- ``handle_event(event) -> bool``: an input event; True takes it (no overlay below hears it,
  nor the town: so a panel takes Escape before the game would quit)
- ``update(dt)``: once a frame, after the town moved
- ``draw_world(surface, camera)``: in world space, over the town and its characters
  (speech bubbles)
- ``draw(surface)``: in screen space (the HUD, panels)
- ``draw_top(surface)``: after every overlay's ``draw`` (messages over full-window panels)
- ``reserved() -> [Rect]``: screen boxes its messages take (speech bubbles keep clear of
  them: ``Game.reserved_rects``)
- ``inset() -> (left, top, right, bottom) | None``: screen pixels a panel docked at a side
  covers (the camera centres what it follows in the rest: ``Camera.insets``)
- ``covers_world``: True while it covers the whole window (the town map): the town is not
  drawn behind it

The order is ``ORDER``, by the overlay's ``name`` (the same as its field in
game/view/panels.py ``Panels``), whenever each was installed: ``update`` and the draws go
from first to last, events from last to first (the topmost hears them first). So the help
hears F1, ``?`` and Escape first while it is shown, the quit question comes before the
residents list and the town map, the map before the inspector, and a chat closes on Escape
before the inspector does. An overlay whose name ORDER does not list (a test's stand-in)
goes on top, after the others, in the order added.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import pygame

if TYPE_CHECKING:
    from game.view.camera import Camera

ORDER = (
    "residents_view",  # figures' markers: under everything else
    "bubbles",
    "hud",
    "follower",
    "walker",
    "journal",  # the visitor's journal: under the inspector, a chat and the lists (they hear Escape first)
    "inspector",
    "why_panel",  # the inspector's "Why?": hears Escape and its links before the inspector
    "chat",
    "interview",
    "savemenu",
    "console",
    "townmap",
    "residents_list",
    "feed",  # the town feed: beside the residents list (one closes the other)
    "quit_dialog",
    "replay_events",  # a replay's (game/replay/events.py, bar.py)
    "timeline",
    "help",  # while shown it hears F1 / ? / Escape first
    "namebox",  # the start-up name box takes every key while it is open
    "crowd_camera",  # a headless play's camera (game/app.py)
)


def rank(overlay: Overlay) -> int:
    """Where ``overlay`` goes in ORDER (past its end when ORDER does not name it)."""
    return ORDER.index(overlay.name) if overlay.name in ORDER else len(ORDER)


class Overlay:
    """A view the window holds: every hook, doing nothing (see the module's notes)."""

    name: ClassVar[str] = ""  # its place in ORDER, and its field in Panels

    @property
    def covers_world(self) -> bool:
        return False

    def handle_event(self, event: pygame.event.Event) -> bool:
        return False

    def update(self, dt: float) -> None:
        pass

    def draw_world(self, surface: pygame.Surface, camera: Camera) -> None:
        pass

    def draw(self, surface: pygame.Surface) -> None:
        pass

    def draw_top(self, surface: pygame.Surface) -> None:
        pass

    def reserved(self) -> list[pygame.Rect]:
        return []

    def inset(self) -> tuple[int, int, int, int] | None:
        return None


__all__ = ["ORDER", "Overlay", "rank"]
