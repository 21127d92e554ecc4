"""Watching a recorded run: ``smallville replay`` (see game/runs/recording.py for what is recorded).

    reader.py     a recording file -> arrays a replay can seek in (no pygame)
    recorded.py   the recording in memory: where is who at a frame, what happened between two (no pygame)
    playback.py   a recording as a read-only session the game's views show (no pygame)
    minds.py      plans and memories from the run's nearest save (no pygame)
    moments.py    the moments worth jumping to: conversations, reactions, gatherings ... (no pygame)
    bar.py        the timeline bar (pygame)
    events.py     the events list (pygame_gui)
    feed.py       the town feed of a recording, up to the moment shown (no pygame)
    export.py     a span as an animated GIF (Pillow) or an MP4 (ffmpeg)
    app.py        `smallville replay`: the window, a screenshot, an export
"""

# The room's modules: its public face (game/ imports them by name; see the list above).
__all__ = [
    "app", "bar", "events", "export", "feed", "minds", "moments", "playback", "reader", "recorded",
]
