"""Saves (no pygame): a whole game or a headless run kept in one crash-safe SQLite file.

    store.py      the format and the public face: write_save / read_save of plain parts
    disk.py       a save file on disk: written crash-safely, read, listed, slot names
    codec.py      plain copies and a part's encoding (JSON plus numpy), scrubbing keys
    capture.py    a consistent snapshot of a running game or run, taken on the main thread
    saveload.py   saving and loading a whole running game (off the frame, swapped in whole)
    running.py    what saving and loading use of a running game (a protocol)
    check.py      what a loaded save's parts must be before they are swapped in
    compat.py     migrations from older save schemas; the map's identity
    series.py     each game its own saves: game ids, its slots, the listing by game
    saved_run.py  a run folder or a save read once as plain data, and minds rebuilt from it
"""

# The room's modules: its public face (game/ imports them by name; see the list above).
__all__ = [
    "capture", "check", "codec", "compat", "disk", "running", "saved_run", "saveload", "series", "store",
]
