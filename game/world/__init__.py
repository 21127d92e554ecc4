"""The town as a place (no pygame): its Tiled map read and checked, its grid and
address tree, and the A* paths over its walkable tiles.

    town.py        Town: the walkable grid, the address tree and its lookups, object states, descriptions
    map_reader.py  load_town: a Tiled map read into a Town, checked step by step; `smallville map`
    tmx.py         reading a Tiled .tmx file (checked before pytmx sees it)
    grid.py        tile geometry: distances, facing
    astar.py       A* over the walkable grid (landmarks, sliced searches)
"""

# The room's modules: its public face (game/ imports them by name; see the list above).
__all__ = [
    "astar", "grid", "map_reader", "tmx", "town",
]
