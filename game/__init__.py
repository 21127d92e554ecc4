"""The town and everything the player sees, in rooms from the bottom up (each imports
only its own and the rooms below it; tests/test_house.py checks it):

    support/   folders, errors for people, the log file
    world/     the town as a place: the Tiled map read, its grid, address tree and A* paths
    sim/       the simulation, one 10-second step at a time (no pygame)
    saves/     a game or a run kept in one crash-safe SQLite file
    runs/      a town being run: built, paced, recorded, costed, explained
    view/      the window and its overlays
    replay/    a recording played back on the views

and at the top the entry points, one per `smallville` subcommand: app.py (play),
headless.py (sim), interview_cli.py (interview), why_cli.py (why); replay/app.py (replay).
"""
import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # pygame's import greeting is noise in our output

__all__ = ["app", "headless", "interview_cli", "replay", "runs", "saves", "sim", "support", "view", "why_cli", "world"]
