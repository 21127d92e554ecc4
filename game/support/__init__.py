"""What every part of the game leans on (no pygame).

    folders.py  the game's files and folders, found the same way from any folder
    errors.py   errors meant for people: what, where, and what to do
    logs.py     one log file for the whole game; people see short messages
"""

# The room's modules: its public face (game/ imports them by name; see the list above).
__all__ = [
    "errors", "folders", "logs",
]
