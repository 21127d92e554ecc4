"""The moments of a recording worth jumping to (no pygame): conversations,
greetings, reactions, inner voices, reflections, world edits, and gatherings
(several residents in one public place at once, e.g. a party).

``moments(rec, town, personas)`` lists them in time order; each ``Moment``
has its frame, its kind (with an emoji), who took part, and one line of text.
``Moment.matches(text)`` is the events list's filter: a resident's name
(or first name), or any word of the line.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents import Persona
from game.replay.reader import Recording
from game.world.town import Town

KINDS: dict[str, str] = {  # kind -> its emoji in the list and on the timeline
    "conversation": "💬", "greeting": "👋", "reaction": "❗", "inner voice": "🗣️", "reflection": "💭",
    "gathering": "🎉", "edit": "🔥",
}
GATHER_MIN = 4  # residents in one public place: a gathering begins
GATHER_END = 2  # ... and it is over when fewer than this remain
GATHER_EVERY = 6  # frames between looks (1 sim minute)
QUOTE = 70  # characters of a line quoted in a moment


@dataclass
class Moment:
    frame: int
    kind: str
    who: tuple[str, ...]
    text: str
    until: int | None = None  # a gathering's last frame

    @property
    def emoji(self) -> str:
        return KINDS.get(self.kind, "•")

    def matches(self, text: str) -> bool:
        """Does the filter ``text`` pick this moment (a name, a first name, a word)?"""
        t = " ".join(str(text or "").split()).casefold()
        if not t:
            return True
        if any(t == w.casefold() or t == w.split()[0].casefold() for w in self.who):
            return True
        return t in self.text.casefold() or t in self.kind


def _quote(text: object, n: int = QUOTE) -> str:
    t = " ".join(str(text or "").split())
    return "“" + (t if len(t) <= n else t[: n - 1] + "…") + "”"


def _place(address: object) -> str:
    parts = str(address or "").split(":")
    return " › ".join(parts[1:3]) if len(parts) > 1 else "outdoors"


def _conversation(e: dict) -> str | int | None:
    """An event's conversation id, or None when it has none or a damaged one (a list)."""
    c = e.get("conversation")
    return c if isinstance(c, (str, int)) else None


def moments(rec: Recording, town: Town | None = None, personas: Mapping[str, Persona] | None = None) -> list[Moment]:
    """Every moment worth jumping to, in time order."""
    out: list[Moment] = []
    lines: dict[Any, list[dict]] = defaultdict(list)
    for e in rec.events:
        if e.get("kind") == "line" and _conversation(e) is not None:
            lines[_conversation(e)].append(e)
    reflections: dict[tuple[str, int], list[str]] = defaultdict(list)
    for e in rec.events:
        kind, who, s = e.get("kind"), e.get("resident"), int(e["s"])
        if kind == "chat" and not e.get("ended"):
            partner = e.get("partner") or "someone"
            if e.get("greeting"):
                said = next((x for x in rec.events_between(s - 1, s + 60) if x.get("kind") == "line"
                             and x.get("resident") == who and x.get("greeting")), None)
                text = f"{who} greets {partner}" + (f": {_quote(said.get('text'))}" if said else "")
                out.append(Moment(s, "greeting", (who, partner), text))
                continue
            said_lines = lines.get(_conversation(e), [])
            first = f": {_quote(said_lines[0].get('text'))}" if said_lines else ""
            count = f" ({len(said_lines)} lines)" if said_lines else ""
            out.append(Moment(s, "conversation", (who, partner),
                              f"{who} and {partner} talk at {_place(e.get('address'))}{count}{first}"))
        elif kind == "reflect" and who:
            reflections[(who, s)].append(str(e.get("text", "")))
        elif kind == "inner_voice" and who:
            out.append(Moment(s, "inner voice", (who,), f"{who} hears an inner voice: {_quote(e.get('text'))}"))
        elif kind == "edit":
            out.append(Moment(s, "edit", (), f"{e.get('text', '')} ({_place(e.get('address'))})"))
    for (who, s), texts in reflections.items():
        more = f" (and {len(texts) - 1} more)" if len(texts) > 1 else ""
        out.append(Moment(s, "reflection", (who,), f"{who} reflects: {_quote(texts[0])}{more}"))
    for i, name in enumerate(rec.residents):
        frames, values = rec.actions[i]
        for f, a in zip(frames, values):
            note = (a or {}).get("note") or ""
            if note.startswith("reacted to:"):
                seen = note[len("reacted to:"):].strip()
                out.append(Moment(f, "reaction", (name,), f"{name} reacts to {_quote(seen, 50)}: "
                                                          f"{a.get('description', '')}"))
            elif note.startswith("inner voice"):
                out.append(Moment(f, "inner voice", (name,), f"{name} acts on an inner voice: "
                                                             f"{a.get('description', '')}"))
    if town is not None:
        out.extend(gatherings(rec, town, personas or {}))
    out.sort(key=lambda m: (m.frame, m.kind, m.who))
    return out


def sectors_over_time(rec: Recording, town: Town) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(frames, tiles, sector): every ``GATHER_EVERY``-th frame, each resident's tile there
    and the id of the sector it is in (-1: outdoors); None when the town has no sector map
    or the recording no frames. The moments' gatherings and the replay's feed read it."""
    ids = getattr(town, "sector_ids", None)
    n = len(rec.residents)
    if ids is None or not n or rec.last < 1:
        return None
    frames = np.arange(0, rec.last + 1, GATHER_EVERY)
    tiles = rec.tiles[frames, :n].astype(np.int64)
    xs, ys = tiles[..., 0], tiles[..., 1]
    h, w = ids.shape
    ok = (xs >= 0) & (ys >= 0) & (xs < w) & (ys < h)
    sector = np.full(xs.shape, -1, dtype=np.int64)
    sector[ok] = ids[ys[ok], xs[ok]]
    return frames, tiles, sector


def gatherings(rec: Recording, town: Town, personas: Mapping[str, Persona]) -> list[Moment]:
    """Several residents in one public place (not anyone's home) at once: from
    ``GATHER_MIN`` of them until fewer than ``GATHER_END`` remain."""
    got = sectors_over_time(rec, town)
    if got is None:
        return []
    frames, tiles, sector = got
    homes = set()
    for p in personas.values():
        home = ":".join(str(getattr(p, "home", "") or "").split(":")[:2])
        if home:
            homes.add(home)
    out: list[Moment] = []
    for k in np.unique(sector[sector >= 0]):
        where = np.argwhere(sector == k)
        y, x = tiles[where[0][0], where[0][1], 1], tiles[where[0][0], where[0][1], 0]
        name = town.sector_at(int(x), int(y))
        if not name or name in homes:
            continue
        here = sector == k
        counts = here.sum(axis=1)
        start = None
        who: set[str] = set()
        peak = 0
        for j, c in enumerate(counts):
            if start is None and c >= GATHER_MIN:
                start, who, peak = j, set(), 0
            if start is not None:
                who.update(rec.residents[r] for r in np.flatnonzero(here[j]))
                peak = max(peak, int(c))
                if c < GATHER_END or j == len(counts) - 1:
                    f0, f1 = int(frames[start]), int(frames[j])
                    place = name.split(":", 1)[-1]
                    text = (f"{peak} residents gather at {place} ({rec.time_of(f0):%H:%M}–{rec.time_of(f1):%H:%M}): "
                            + ", ".join(sorted(who)))
                    out.append(Moment(f0, "gathering", tuple(sorted(who)), text, until=f1))
                    start = None
    return out


__all__ = ["GATHER_MIN", "KINDS", "Moment", "gatherings", "moments"]
