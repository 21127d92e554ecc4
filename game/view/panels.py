"""The views a window holds, by name: ``Game.panels`` (game/view/window.py).

Each view's ``install(game)`` puts itself here (and among the window's overlays); a field
stays None until its view is installed, so a view that needs another asks for it here and
does without it when it is None (a replay has no chat; a test installs one panel alone).
The fields are in the overlays' order (game/view/overlay.py ORDER, where each is named the
same).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from game.view.bubbles import Bubbles
    from game.view.chat import Chat
    from game.view.console import Console
    from game.view.feed import FeedPanel
    from game.view.follow import Follow
    from game.view.help import Help
    from game.view.hud import HUD
    from game.view.inspector import Inspector
    from game.view.interview import Interview
    from game.view.namebox import NameBox
    from game.view.overlay import Overlay
    from game.view.quit_dialog import QuitDialog
    from game.view.residents import ResidentsView
    from game.view.residents_list import ResidentsList
    from game.view.savemenu import SaveMenu
    from game.view.townmap import TownMap
    from game.view.walkto import WalkTo
    from game.view.why_panel import WhyPanel


@dataclass
class Panels:
    residents_view: ResidentsView | None = None  # the residents' figures and markers
    bubbles: Bubbles | None = None  # speech bubbles
    hud: HUD | None = None  # the HUD, the time controls, toasts
    follower: Follow | None = None  # the camera following a resident
    walker: WalkTo | None = None  # the visitor walking somewhere (none in a replay)
    inspector: Inspector | None = None
    why_panel: WhyPanel | None = None  # the inspector's "Why?"
    chat: Chat | None = None
    interview: Interview | None = None
    savemenu: SaveMenu | None = None
    console: Console | None = None
    townmap: TownMap | None = None  # the town map and the minimap
    residents_list: ResidentsList | None = None
    feed: FeedPanel | None = None  # the town feed (F)
    quit_dialog: QuitDialog | None = None
    # The replay's own panels, typed as overlays: the replay is built on the views, not under them.
    replay_events: Overlay | None = None  # a replay's events list (game/replay/events.py)
    timeline: Overlay | None = None  # a replay's timeline bar (game/replay/bar.py)
    help: Help | None = None  # the controls help (F1)
    namebox: NameBox | None = None  # the visitor's name at the start


__all__ = ["Panels"]
