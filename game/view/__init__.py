"""What the player sees, one idea per module. game/view/window.py (``Game``) holds
them; each overlay module has ``install(game)``, which adds the view to the window's
overlays and to ``game.panels``. Views read the session
(``game.session``: its sim, minds, clock) and change the town only through its
commands (``session.commands``, game/runs/commands.py); they never import the
minds (agents/), never step or pump the simulation (the session's ``update``
does, once per frame), and never import the window: each says what it uses of it.

- overlay.py    the hooks the window calls on each view, and the one order it calls them in
- host.py       what the views use of the window (``Host``) and of the town (``TownSession``)
- panels.py     the views a window holds, each typed by its role (how views reach each other)
- keys.py       every key, where it counts and what it does; the F1 help's and README's rows
- camera.py     world <-> screen <-> tile conversions, smooth follow, clamping, zoom
- tilemap.py    the Tiled layers, prerendered into chunks, scaled once per zoom level
- sprites.py    character sheets (contract section 4), figures, y-sorted drawing, name labels
- labels.py     where name labels go: stacked and shortened in a crowd, the focused in full
- visitor.py    the player's character: tile-by-tile walking with smooth motion
- residents.py  residents' figures from the simulation's bodies, markers over them
- bubbles.py    speech bubbles over residents who talk
- statusline.py the bottom line: the hovered tile's address
- hud.py        the HUD and the time controls; help.py the controls help
- inspector.py  the inspector panel (inspector_text.py: what it says, no pygame);
                why_panel.py its "Why?": an act's memories, scores, prompt and answer; who told whom
- chat.py       talking to a resident; interview.py the interview window (the chat's code)
- console.py    the world-edit console; savemenu.py saving and loading; quit_dialog.py leaving
- follow.py, walkto.py    the camera following a resident; the visitor walking somewhere
- townmap.py, residents_list.py    the town map and minimap; the residents list
- feed.py       the town feed: what just happened worth noticing (game/runs/feed.py reads it off the events)
- journal.py    the visitor's journal (J) and its reminder in the HUD (game/runs/journal.py keeps it)
- namebox.py    the visitor's name at the start
- emoji.py, fonts.py, markup.py    icons, fonts and panel markup, each cached in one place

Only game/view/window.py, game/app.py and these modules import pygame; game/world/town.py,
pathing.py, sim/ and saves.py never do.
"""

# The room's modules: its public face (game/ imports them by name; see the list above).
__all__ = [
    "bubbles", "camera", "chat", "console", "emoji", "feed", "follow", "fonts", "help", "host", "hud", "inspector",
    "inspector_text", "interview", "journal", "keys", "labels", "markup", "namebox", "overlay", "panels", "quit_dialog",
    "residents", "residents_list", "savemenu", "sprites", "statusline", "tilemap", "townmap", "visitor", "walkto",
    "why_panel", "window",
]
