"""A recording's town feed: the same entries the game's feed made, up to the moment shown.

The recording keeps the event log's events (lines, conversations, reflections,
edits, arrangements) as they were, its actions as ``a`` records (with the
decision's note: "reacted to: ...") and its arrivals as tiles; so the feed is
built by the game's own ``FeedBuilder`` (game/runs/feed.py), by the same rules,
from the events, the actions and where everyone was once a sim minute (read off
the tiles, as arrivals), put back in time order. Built once, on a background
thread; ``newest`` gives the entries up to the replay's frame.

It speaks the game's ``LiveFeed`` interface to the feed panel (game/view/feed.py):
``pump`` (nothing to do), ``newest``, ``hud_line``, ``version``, ``skipped``.
"""
from __future__ import annotations

import bisect
import logging
import threading
from collections.abc import Mapping, Sequence

import numpy as np

from agents import Persona
from game.replay.moments import sectors_over_time
from game.replay.reader import Recording
from game.runs.feed import Entry, builder_for
from game.world.town import Town

log = logging.getLogger(__name__)

FRAMES_PER_VERSION = 6  # the list is refreshed once a sim minute of the replay (6 frames)


def arrivals(rec: Recording, town: Town) -> list[dict]:
    """Where each resident was, once a sim minute (the tiles the recording keeps), as ``arrive``
    events when the sector changes (an empty address: outdoors): the game's feed finds its
    gatherings in the simulation's arrivals, a replay's in these."""
    got = sectors_over_time(rec, town)
    if got is None:
        return []
    frames, tiles, sector = got
    xs, ys = tiles[..., 0], tiles[..., 1]
    names: dict[int, str] = {}
    out = []
    for r, name in enumerate(rec.residents):
        col = sector[:, r]
        changed = np.flatnonzero(np.diff(col, prepend=-2) != 0)
        for j in changed:
            k = int(col[j])
            if k >= 0 and k not in names:
                names[k] = town.sector_at(int(xs[j, r]), int(ys[j, r])) or ""
            f = int(frames[j])
            out.append({"s": f, "time": rec.time_of(f).isoformat(sep=" "), "resident": name, "kind": "arrive",
                        "text": "", "address": names.get(k, "") if k >= 0 else ""})
    return out


def recorded_events(rec: Recording, town: Town | None = None) -> list[dict]:
    """The recording's events, its actions as action events and (with the town) where everyone
    was as arrivals, in frame order."""
    out = [e for e in rec.events if isinstance(e, dict)]
    if town is not None:
        out += arrivals(rec, town)
    for i, name in enumerate(rec.residents):
        frames, values = rec.actions[i]
        for f, a in zip(frames, values):
            if not a:
                continue
            out.append({"s": int(f), "time": rec.time_of(int(f)).isoformat(sep=" "), "resident": name,
                        "kind": "action", "text": a.get("description", ""), "address": a.get("target") or "",
                        "note": a.get("note") or "", "source": a.get("source") or ""})
    out.sort(key=lambda e: int(e.get("s", 0) or 0))
    return out


def build_entries(rec: Recording, town: Town | None = None,
                  personas: Mapping[str, Persona] | None = None) -> tuple[list[Entry], int]:
    """Every entry of the recording, oldest first (each with its frame), and the events skipped."""
    # where everyone is comes from the tiles (arrivals), not from where their actions lead them
    b = builder_for(personas or {n: None for n in rec.residents}, town, moves_from_actions=False,
                    max_entries=100_000)
    if not personas:
        b.residents = set(rec.residents)
    for ev in recorded_events(rec, town):
        got = b.add(ev)
        if got is not None:
            got.frame = int(ev.get("s", 0) or 0)
    entries = list(b.entries)
    entries.sort(key=lambda e: (e.frame or 0))
    for k, e in enumerate(entries, 1):
        e.id = k
    return entries, b.skipped


class RecordedFeed:
    """A replay's feed (see the module's notes)."""

    def __init__(self, session: object, rec: Recording, town: Town | None = None,
                 personas: Mapping[str, Persona] | None = None, *, background: bool = True) -> None:
        self.session = session  # the replay's: its frame is read by name (a test's may have none)
        self.entries: list[Entry] = []  # oldest first, by frame
        self._frames: list[int] = []  # each entry's frame (bisected: a long recording has many)
        self.skipped = 0
        self.ready = False
        self.error: str | None = None
        if background:
            threading.Thread(target=self._build, args=(rec, town, personas), name="replay-feed", daemon=True).start()
        else:
            self._build(rec, town, personas)

    def _build(self, rec: Recording, town: Town | None, personas: Mapping[str, Persona] | None) -> None:
        try:
            entries, skipped = build_entries(rec, town, personas)
        except Exception as err:  # the replay plays on without a feed; the panel says why
            log.exception("building the replay's feed failed")
            self.error = f"{type(err).__name__}: {err}"
            entries, skipped = [], 0
        self._frames = [e.frame or 0 for e in entries]
        self.entries, self.skipped = entries, skipped  # the lists first: the frame sees ready only with them
        self.ready = True

    @property
    def version(self) -> tuple[bool, int]:
        return self.ready, int(getattr(self.session, "frame", 0)) // FRAMES_PER_VERSION

    def pump(self, events: Sequence[dict]) -> int:
        return 0

    def newest(self, resident: str | None = None, topic: str | None = None, limit: int | None = None) -> list[Entry]:
        entries = self.entries
        upto = bisect.bisect_right(self._frames, int(getattr(self.session, "frame", 0)))
        out = []
        for k in range(min(upto, len(entries)) - 1, -1, -1):
            e = entries[k]
            if not e.matches(resident, topic):
                continue
            out.append(e)
            if limit is not None and len(out) >= limit:
                break
        return out

    def hud_line(self) -> str:
        got = self.newest(limit=1)
        return got[0].line() if got else ""


__all__ = ["RecordedFeed", "build_entries", "recorded_events"]
