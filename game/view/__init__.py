"""What the player sees, one idea per module.

- camera.py     world <-> screen <-> tile conversions, smooth follow, clamping, zoom
- tilemap.py    the Tiled layers, prerendered into chunks, scaled once per zoom level
- sprites.py    character sheets (contract section 4), figures, y-sorted drawing, name labels
- visitor.py    the player's character: tile-by-tile walking with smooth motion
- statusline.py the bottom line: the hovered tile's address
- fonts.py      every font the game uses, cached in one place

Only app.py and these modules import pygame; game/town.py, pathing.py and
sim.py never do.
"""
