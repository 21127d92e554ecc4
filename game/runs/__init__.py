"""A town being run (no pygame): what it is built from, the window's running game,
its pace, and what a run writes and costs.

    build.py      the residents, minds, model gateway, embedder, pool and sim of a run
    session.py    Session: everything `smallville play` holds besides the window
    commands.py   what a player can do to the town (talk, interview, whisper, edit, play as, save, load)
    readings.py   what the window reads of the minds (snapshots, provenance, emoji, records)
    pacing.py     the clock keeps pace with the minds (DESIGN.md, Pacing)
    gcpolicy.py   the garbage collector in a living town
    recording.py  recording a run as it goes, for `smallville replay`
    timeline.py   timeline.md, events.jsonl and summary.json of a run
    runstats.py   who led each resident's day, from the event log
    forecast.py   what a run will cost before it starts, and the ceiling that stops it
    why_records.py  a run's decision records read and explained (`smallville why`, the Why? panel)
    feed.py       the town feed: what a run's events say worth noticing (talks, news, plans, gatherings)
    live_feed.py  the game's town feed, read off the event log on its own thread as it happens
    journal.py    the visitor's journal: what residents invited the visitor to, agreed to and told of
"""

# The room's modules: its public face (game/ imports them by name; see the list above).
__all__ = [
    "build", "commands", "feed", "forecast", "gcpolicy", "journal", "live_feed", "pacing", "readings", "recording",
    "runstats", "session", "timeline", "why_records",
]
