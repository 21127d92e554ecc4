"""The town as a place (no pygame): its Tiled map read and checked, its grid and
address tree, and the A* paths over its walkable tiles.

    town.py    Town and load_town: the map read into a walkable grid, an address tree, object states
    tmx.py     reading a Tiled .tmx file (checked before pytmx sees it)
    grid.py    tile geometry: distances, facing
    astar.py   A* over the walkable grid (landmarks, sliced searches)
"""
