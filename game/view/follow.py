"""Following a resident with the camera.

``game.follow_resident(name)`` (the residents list, the town map, the
inspector's Follow button, a resident's name clicked in a panel) glides the
camera to the resident, wherever in town, and keeps it on them as they walk.
It stays there until the player walks the visitor (the camera goes back to
the visitor) or presses Escape. A line under the toasts says whom the camera
follows.

Names in panel text become links with ``link_names(markup, names)``; a click
on one (pygame_gui's UI_TEXT_BOX_LINK_CLICKED, from any text box: the
inspector, the chat) follows that resident.
"""
from __future__ import annotations

import re
from typing import Protocol

import pygame
import pygame_gui

from game.view import keys
from game.view.camera import Camera
from game.view.host import Finder, Host
from game.view.overlay import Overlay

LINK_PREFIX = "resident:"
NOTE_KEY = "follow"


def link_names(markup: str, names) -> str:
    """Wrap each resident's full name in ``markup``'s text (not inside tags)
    in a link that follows them when clicked."""
    names = sorted((n for n in names if n), key=len, reverse=True)
    if not names or not markup:
        return markup
    pattern = re.compile("|".join(re.escape(n) for n in names))
    out = []
    # Only text between tags is touched; existing links are left alone.
    in_link = False
    for part in re.split(r"(<[^>]*>)", markup):
        if part.startswith("<"):
            low = part.lower()
            if low.startswith("<a "):
                in_link = True
            elif low.startswith("</a"):
                in_link = False
            out.append(part)
        elif part and not in_link:
            out.append(pattern.sub(lambda m: f"<a href='{LINK_PREFIX}{m.group(0)}'>{m.group(0)}</a>", part))
        else:
            out.append(part)
    return "".join(out)


class FollowHost(Host, Finder, Protocol):
    """What following uses of the window: the camera, and whether it follows the visitor."""

    follow: bool  # the camera follows the visitor (a wheel zoom or a follow pauses it)

    @property
    def camera(self) -> Camera: ...


class Follow(Overlay):
    """The overlay: keeps the camera on ``target`` until the player walks or presses Escape."""

    name = "follower"

    def __init__(self, game: FollowHost) -> None:
        self.game = game
        self.target: str | None = None

    def start(self, name: str) -> bool:
        session = self.game.session
        if session is None or name not in session.minds:
            return False
        if session.controlled == name:  # the player's own figure
            self.stop()
            self.game.follow = True
            return True
        self.target = name
        self.game.follow = False
        self._note()
        return True

    def stop(self) -> None:
        if self.target is not None:
            self.target = None
            self._note()

    def _note(self) -> None:
        hud = self.game.panels.hud
        if hud is not None:
            text = f"Following {self.target}  (walk or Esc to stop)" if self.target else None
            hud.note(NOTE_KEY, text)

    def handle_event(self, event: pygame.event.Event) -> bool:
        if event.type == pygame_gui.UI_TEXT_BOX_LINK_CLICKED:
            target = str(getattr(event, "link_target", "") or "")  # a pygame event: its fields by type
            if target.startswith(LINK_PREFIX):
                self.game.follow_resident(target[len(LINK_PREFIX):])
                return True
            return False
        if self.target and keys.pressed(event, "back"):
            self.stop()
            self.game.follow = True
            return True
        return False

    def update(self, dt: float) -> None:
        if self.target is None:
            return
        game = self.game
        if game.follow:  # the visitor moved (or the player took the camera back)
            self.stop()
            return
        view = game.panels.residents_view
        pos = view.position(self.target) if view is not None else None
        if pos is None:  # gone (a load with another cast)
            self.stop()
            game.follow = True
            return
        game.camera.follow(*game.camera.focus(*game.camera.tile_center_world(*pos)), dt)


def install(game: FollowHost) -> Follow:
    f = Follow(game)
    game.add_overlay(f)
    game.panels.follower = f
    return f


__all__ = ["LINK_PREFIX", "Follow", "install", "link_names"]
