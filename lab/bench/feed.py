"""The town feed's cost (game/runs/feed.py, live_feed.py): what it takes on the feed's own
thread per event, and what the frame pays (the main thread's ``pump``, the panel's read)."""
from __future__ import annotations

import random
import statistics
import time
from datetime import datetime, timedelta

from game.runs.feed import FeedBuilder
from game.runs.live_feed import LiveFeed
from game.sim.eventlog import EventLog
from lab.bench.measure import Context, summarise_ms

RESIDENTS = [f"Resident {i:02d}" for i in range(25)]
PLACES = ["Hobbs Cafe", "Johnson Park", "The Rose and Crown Pub", "Oak Hill College", "Harvey Oak Supply Store"]
PER_FRAME = 8  # events a frame hands over (a busy town at speed 3 logs about this many)


def town_events(n: int, seed: int) -> list[dict]:
    """A busy town's event mix (seeded): actions and arrivals, conversations with lines (some
    news), reflections; the kinds and fields the simulation logs."""
    rng = random.Random(seed)
    t0 = datetime(2023, 2, 13, 7)
    out: list[dict] = []
    cid = 0
    while len(out) < n:
        t = (t0 + timedelta(seconds=10 * len(out))).isoformat(sep=" ")
        who = rng.choice(RESIDENTS)
        where = f"the Ville:{rng.choice(PLACES)}:main:spot"
        roll = rng.random()
        if roll < 0.1:
            cid += 1
            other = rng.choice([r for r in RESIDENTS if r != who])
            said = rng.choice(["Hi there!", "Are you coming to the party at Hobbs Cafe?", "Nice weather today."])
            base = {"time": t, "address": where, "conversation": f"c{cid}"}
            out += [{**base, "resident": who, "kind": "chat", "text": "", "partner": other},
                    {**base, "resident": who, "kind": "line", "text": said, "partner": other},
                    {**base, "resident": other, "kind": "line", "text": "Oh, good to know.", "partner": who},
                    {**base, "resident": who, "kind": "chat", "text": "", "partner": other, "ended": True}]
        elif roll < 0.12:
            out.append({"time": t, "resident": who, "kind": "reflect", "text": "a thought about the week",
                        "address": ""})
        elif roll < 0.55:
            out.append({"time": t, "resident": who, "kind": "arrive", "text": "", "address": where})
        else:
            out.append({"time": t, "resident": who, "kind": "action", "text": "working", "address": where,
                        "note": "next: working"})
    return out[:n]


def bench_feed(ctx: Context) -> dict:
    """Builder microseconds an event (the feed's thread), the main thread's pump and the panel's read."""
    n = ctx.n(30_000, 3_000)
    events = town_events(n, ctx.seed)
    per_event = []
    for _ in range(ctx.n(5, 2)):
        b = FeedBuilder(RESIDENTS, [], PLACES)
        t = time.perf_counter()
        b.extend(events)
        per_event.append((time.perf_counter() - t) / n * 1e6)
    t = time.perf_counter()
    state = b.to_state()
    state_ms = (time.perf_counter() - t) * 1000.0
    log = EventLog()
    feed = LiveFeed(FeedBuilder(RESIDENTS, [], PLACES))
    pumps, reads = [], []
    try:
        for k in range(0, n, PER_FRAME):
            log.extend(events[k:k + PER_FRAME])
            t = time.perf_counter()
            feed.pump(log)
            pumps.append((time.perf_counter() - t) * 1000.0)
            if k % (PER_FRAME * 30) == 0:  # the panel's read, twice a second at 60 fps
                t = time.perf_counter()
                feed.newest(None, None, 80)
                feed.hud_line()
                reads.append((time.perf_counter() - t) * 1000.0)
        feed.flush(60)
    finally:
        feed.close()
    out: dict = {"events": n, "builder_us_per_event": round(statistics.median(per_event), 2),
                 "entries": len(b.entries), "state_ms": round(state_ms, 3), "state_entries": len(state["entries"])}
    out.update(summarise_ms(pumps, "pump_"))
    out.update(summarise_ms(reads, "read_"))
    return out


__all__ = ["bench_feed", "town_events"]
