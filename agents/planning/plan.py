"""Planning top-down (paper section 4.3): the day in 5-8 broad strokes, each
with a start, a duration and a place the resident knows; the rest of the day
rewritten when the resident reacts or agrees to something; arrangements for
later days. Hour chunks become 5-15 minute actions lazily (agents/planning/decompose.py).

Two modes (ModelConfig.planning):

- **paper**: the model writes the day: times, durations, places, words.
- **guided**: for small models. The resident's routine gives the times and
  places; the model writes each slot's words. A model that cannot write them
  (guided with grounded answers: the embedded model's default) chooses them
  instead, among candidates that fit the slot's time and place (its usual
  words, its own doings it remembers, its steps, the places and objects it
  knows), under a grammar: the choice is the model's, the words a rule's, and
  the provenance says so. A capable model is never held to candidates.

The module is long (about 740 lines) because the modes share one set of rules
for items, places and the routine, kept together so they stay consistent; a plan item and the rules' edits of a plan are
agents/planning/items.py, replanning the rest of a day agents/planning/replan.py.

Either way the model leads and rules catch: every item is validated; what is
close is repaired; only an item that cannot be repaired is replaced (by the
routine's item for that time); the whole day falls back to the routine only
when too little of the model's plan is usable. Each item carries its
provenance (agents/explain/provenance.py).
"""
from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, conlist, create_model

from agents.explain import provenance as pv
from agents.planning import agenda
from agents.planning.items import (
    ACTIVITY,
    MEAL,
    MEAL_HOURS,
    SLEEP,
    PlanItem,
    close_times,
    cut_in,
    item_at,
    kind_of_words,
)
from agents.planning.object_use import is_sleep, object_activities
from agents.recall import grounding as gr
from agents.recall.grounding import chooses
from agents.recall.spatial import SpatialMemory
from agents.recall.thinking import Thinking
from agents.residents.mind_settings import MindSettings
from agents.residents.persona import Persona
from agents.words import activity
from agents.words.text import short_text

MAX_ITEM_HOURS = 6  # longer than an afternoon of one thing is not a plan
GAP_MIN = 30  # a hole the model leaves longer than this is filled (else the item before it runs on)
PLAN_MINUTES = (15, 30, 45, 60, 90, 120, 150, 180, 240, 300)


# --------------------------------------------------------------------------------------
# plan items
# --------------------------------------------------------------------------------------
class Planner(Thinking, Protocol):
    """What planning needs of a mind (besides agents.model.services.Thinking): today's plan,
    yesterday in a sentence, and the planning mode."""

    plan: list[PlanItem]
    yesterday: str

    @property
    def guided(self) -> bool:
        ...

    @property
    def grounded(self) -> bool:
        ...


def _too_long(x: PlanItem) -> bool:
    """Half a day of one thing, or a three-hour breakfast, is not a plan."""
    return not x.sleep and (x.minutes > MAX_ITEM_HOURS * 60 or (x.meal and x.minutes > 150))


def wake_time(persona: Persona, day: datetime) -> datetime:
    return day.replace(hour=persona.wake_hour, minute=0, second=0, microsecond=0)


# --------------------------------------------------------------------------------------
# the routine: what a rule knows of a day
# --------------------------------------------------------------------------------------
def _home_arena(spatial: SpatialMemory, persona: Persona, words: tuple[str, ...]) -> str:
    """A known arena of the resident's home sector whose name has one of `words`."""
    sector = persona.home.split(":")[1]
    for a in spatial.arenas():
        if a.split(":")[1] == sector and any(w in a.split(":")[2] for w in words):
            return a
    return persona.home


def _public(spatial: SpatialMemory, arena_name: str, default: str) -> str:
    for a in spatial.arenas():
        if a.split(":")[2] == arena_name:
            return a
    return default


def lunch_place(persona: Persona, spatial: SpatialMemory, kitchen: str) -> str:
    """Where a resident's routine has lunch: at its workplace when that is a cafe or a pub,
    at home when it works at home, else at the cafe, the pub or home, fixed by its name.
    (Every routine's lunch at the cafe had 21 of 25 at Hobbs Cafe at noon, each inviting
    the next to join them there.) The scenario's 25: 8 at the cafe, 7 at the pub, 10 at home."""
    parts = persona.workplace.split(":")
    work = parts[2] if len(parts) >= 3 else ""
    if work in ("cafe", "pub"):
        return _public(spatial, work, kitchen)
    if len(parts) >= 2 and parts[1] == persona.home.split(":")[1]:
        return kitchen
    pick = ("cafe", "pub", "home")[int(hashlib.sha256(persona.name.encode()).hexdigest(), 16) % 3]
    return kitchen if pick == "home" else _public(spatial, pick, kitchen)


def routine(persona: Persona, spatial: SpatialMemory, day: datetime, settings: MindSettings,
            why: str = "") -> list[PlanItem]:
    """A plausible day for anyone: it stands in where the model's plan cannot be used
    (and gives the guided mode its times and places)."""
    src = pv.tag(pv.ROUTINE, why)
    w = persona.wake_hour
    base = day.replace(hour=0, minute=0, second=0, microsecond=0)
    at = lambda h, m=0: base + timedelta(hours=h, minutes=m)  # noqa: E731
    bath = _home_arena(spatial, persona, ("bathroom",))
    kitchen = _home_arena(spatial, persona, ("kitchen", "main room"))
    lunch = lunch_place(persona, spatial, kitchen)
    evening = _public(spatial, "pub", _public(spatial, "park", _home_arena(spatial, persona, ("common room",))))
    work = activity.work_title(persona)
    stops = [
        (at(w), "waking up and getting ready for the day", bath, ACTIVITY),
        (at(w, 30), "having breakfast", kitchen, MEAL),
        (at(max(w + 1, 8)), work, persona.workplace, ACTIVITY),
        (at(12), "having lunch", lunch, MEAL),
        (at(13), work, persona.workplace, ACTIVITY),
        (at(17, 30), "having dinner", kitchen, MEAL),
        (at(19), "spending the evening unwinding", evening, ACTIVITY),
        (at(settings.bedtime_hour), "going to bed and sleeping", persona.home, SLEEP),
    ]
    items: list[PlanItem] = []
    for t, d, a, kind in stops:  # a late riser skips what has already passed
        if not items or t > items[-1].start:
            items.append(PlanItem(t, 0, d, a, src, kind))
    return close_times(items, wake_time(persona, day) + timedelta(days=1))


def _routine_over(routine_items: list[PlanItem], a: datetime, b: datetime, why: str,
                  keep_source: bool = False) -> list[PlanItem]:
    """The routine's items that cover [a, b): the one under ``a`` (starting at ``a``) and
    the ones that begin inside; tagged as the routine's, with the reason (or, when
    ``keep_source``, with their own: the earlier plan a replan falls back on)."""
    out = []
    for r in routine_items:
        if r.sleep:
            continue
        src = r.source if keep_source else pv.tag(pv.ROUTINE, why)
        if r.start <= a < r.end:
            out.append(r.moved(a, source=src))
        elif a < r.start < b:
            out.append(r.moved(r.start, source=src))
    return out


# --------------------------------------------------------------------------------------
# places
# --------------------------------------------------------------------------------------
def place_from_text(text: str, spatial: SpatialMemory, persona: Persona) -> str | None:
    """A known arena the activity names ("at Hobbs Cafe", "in the park"), or None."""
    t = text.lower()
    arenas = spatial.arenas()
    for a in arenas:
        sector = a.split(":")[1].lower()
        if len(sector) > 4 and sector in t:
            same = [x for x in arenas if x.split(":")[1].lower() == sector]
            return persona.workplace if persona.workplace in same else same[0]
    for rx, kinds in activity.PLACE_WORDS:
        if re.search(rx, t):
            home = persona.home.split(":")[1]
            cands = [a for a in arenas if activity.arena_kind(a) in kinds]
            cands.sort(key=lambda a: (a.split(":")[1] != home, a != persona.workplace))
            if cands:
                return cands[0]
    return None


def place_for(text: str, spatial: SpatialMemory, persona: Persona, near: str | None = None) -> str | None:
    """A known arena where the activity can happen: the one it names, else the
    workplace or home (or an arena of the same sector as ``near``) if it fits there,
    else any known arena that fits, home's first."""
    named = place_from_text(text, spatial, persona)
    if named and activity.fits_place(text, named):
        return named
    arenas = spatial.arenas()
    home = persona.home.split(":")[1]
    sector = near.split(":")[1] if near and near.count(":") >= 1 else None
    order = sorted(arenas, key=lambda a: (a.split(":")[1] != sector, a != persona.workplace,
                                          a.split(":")[1] != home, a != persona.home))
    return next((a for a in order if activity.fits_place(text, a)), None)


# --------------------------------------------------------------------------------------
# the paper's day plan: the model writes times, durations, places and words
# --------------------------------------------------------------------------------------
def plan_hours(first: datetime) -> tuple[str, ...]:
    """Start times an item may have: ``first`` itself, then half hours up to 23:30."""
    out = [f"{first:%H:%M}"]
    t = first.replace(minute=0 if first.minute < 30 else 30, second=0, microsecond=0) + timedelta(minutes=30)
    while t.date() == first.date():
        out.append(f"{t:%H:%M}")
        t += timedelta(minutes=30)
    return tuple(out)


@lru_cache(maxsize=256)  # one class per place list: the gateway caches schemas by class
def day_plan_schema(labels: tuple[str, ...], hours: tuple[str, ...], min_items: int = 5,
                    max_items: int = 8) -> type[BaseModel]:
    """Enumerations, not free text, for times, durations and places: a small model
    cannot write "29:00" or invent a place (the original crashed on those)."""
    item: dict[str, Any] = dict(start=(Literal[hours], ...), minutes=(Literal[PLAN_MINUTES], ...),
                                activity=(short_text(60), ...), place=(Literal[labels], ...))
    Item = create_model("Item", **item)
    return create_model("DayPlan", items=(conlist(Item, min_length=min_items, max_length=max_items), ...))


def _hhmm(text: str, base: datetime) -> datetime | None:
    try:
        h, m = (int(x) for x in str(text).strip().split(":"))
    except ValueError:
        return None
    if not (0 <= h <= 23 and 0 <= m <= 59):
        return None
    return base + timedelta(hours=h, minutes=m)


def repair_plan(raw_items: Iterable[Any], persona: Persona, spatial: SpatialMemory, start: datetime,
                next_wake: datetime, settings: MindSettings, resolve: Callable[[str], str | None] | None,
                routine_items: list[PlanItem], counts: Counter | None = None,
                earlier_plan: bool = False) -> list[PlanItem] | None:
    """The model's items from ``start`` (wake-up, or now when replanning) to the next
    wake-up, validated: what is close is repaired, what cannot be used is replaced
    by the routine's item for that time. None when too little of it is usable.

    raw_items: objects with start "HH:MM", minutes, activity, place (a label);
    resolve(label) -> arena address or None. ``earlier_plan``: ``routine_items``
    is the plan being rewritten (a replan), whose items keep their provenance.

    Two steps: each item on its own (``_checked_items``), then the day they make
    (``_night``: when it ends; ``_day_with_routine``: the routine in its holes)."""
    over = lambda a, b, why: _routine_over(routine_items, a, b, why, earlier_plan)  # noqa: E731
    counts = counts if counts is not None else Counter()
    kept, holes = _checked_items(raw_items, persona, spatial, start, resolve, counts)
    kept.sort(key=lambda x: x.start)
    dedup: list[PlanItem] = []
    for it in kept:  # two items at one time: the first one given wins
        if dedup and it.start == dedup[-1].start:
            counts["plan item rejected"] += 1
            continue
        dedup.append(it)
    dedup, night = _night(dedup, persona, start, settings)
    awake = [x for x in dedup if x.start < night.start]
    counts["plan item rejected"] += len(dedup) - len(awake)
    if sum(1 for x in awake if pv.model_led(x.source)) < min(3, settings.plan_min_items - 2) and (
            night.start - start) > timedelta(hours=4):
        return None  # too little of the model's day is usable: the routine's day instead
    if not awake:
        return None
    items = _day_with_routine(awake, holes, night, start, next_wake, over)
    counts["plan item replaced"] += sum(1 for x in items if pv.kind_of(x.source) == pv.ROUTINE)
    return items


def _checked_items(raw_items: Iterable[Any], persona: Persona, spatial: SpatialMemory, start: datetime,
                   resolve: Callable[[str], str | None] | None,
                   counts: Counter) -> tuple[list[PlanItem], list[tuple[datetime, str]]]:
    """Each of the model's items on its own: kept (repaired where it is close: its time,
    its place) or a hole, (when, why), for the routine to fill."""
    base = start.replace(hour=0, minute=0, second=0, microsecond=0)
    kept: list[PlanItem] = []
    holes: list[tuple[datetime, str]] = []  # (when, why) of items that could not be used
    seen_words: Counter = Counter()
    for r in raw_items:
        counts["plan item"] += 1
        t = _hhmm(getattr(r, "start", ""), base)
        if t is None:
            counts["plan item rejected"] += 1
            continue
        raw = str(getattr(r, "activity", "") or "")
        text = activity.clean_activity(raw, persona.name)
        if text is None and is_sleep(raw) and not 5 <= t.hour < 19:
            text = activity.normalize(raw, persona.name) or "sleeping"  # "go to bed" is a fine night
        minutes = int(getattr(r, "minutes", 60) or 60)
        src = pv.MODEL
        why = None
        if t < start:
            if not kept and not holes and t >= start - timedelta(hours=2):
                t, src = start, pv.tag(pv.REPAIRED, f"moved to {start:%H:%M}")  # the day begins at wake-up
            else:
                why = f"starts at {t:%H:%M}, before {start:%H:%M}"
        if why is None and text is None:
            why = "not an activity"
        text = text or ""  # from here on only read while why is None, when it is the model's words
        if why is None and is_sleep(text) and 5 <= t.hour < 20:
            why = f"sleeping at {t:%H:%M}"
        if why is None and not activity.fits_time(text, t.hour):
            why = f"{text} at {t:%H:%M}"
        if why is None:
            seen_words[text] += 1
            if seen_words[text] > 2:
                why = "the same thing again"
        addr = None
        if why is None:
            addr = resolve(getattr(r, "place", "")) if resolve else None
            if is_sleep(text):
                if addr != persona.home:
                    src = pv.combine(src, pv.tag(pv.REPAIRED, "sleeps at home"))
                addr = persona.home
            elif not addr or not spatial.knows(addr):
                addr = place_for(text, spatial, persona)
                src = pv.combine(src, pv.tag(pv.REPAIRED, "a place it knows"))
            elif not activity.fits_place(text, addr):
                better = place_for(text, spatial, persona, near=addr)
                if better is None:
                    why = f"{text} does not fit {spatial.label(addr)}"
                else:
                    src = pv.combine(src, pv.tag(pv.REPAIRED, f"{spatial.label(addr)} -> {spatial.label(better)}"))
                    addr = better
            if why is None and addr is None:
                why = f"nowhere known fits {text}"
        if why is not None or addr is None:  # addr is None only with a why (see above)
            counts["plan item rejected"] += 1
            holes.append((t, why or "nowhere known"))
            continue
        kept.append(PlanItem(t, minutes, text, addr, src, kind_of_words(text)))  # the model's words
    return kept, holes


def _night(items: list[PlanItem], persona: Persona, start: datetime,
           settings: MindSettings) -> tuple[list[PlanItem], PlanItem]:
    """Sleep at night: the first night-time sleep item ends the day (the items before it
    are the day); without one, a rule puts the resident to bed at the earliest of (last
    item's end, 24:00), not before 22:00. (The day's items, the night.)"""
    base = start.replace(hour=0, minute=0, second=0, microsecond=0)
    bed_lo = base + timedelta(hours=settings.bedtime_hour)
    bed_hi = base + timedelta(hours=settings.bedtime_latest)
    sleep_idx = next((i for i, x in enumerate(items) if x.sleep), None)
    if sleep_idx is not None:
        items, night = items[:sleep_idx], items[sleep_idx]
        if not bed_lo - timedelta(hours=2) <= night.start <= bed_hi:
            when = min(max(night.start, bed_lo - timedelta(hours=2)), bed_hi)
            night = night.moved(when, source=pv.combine(night.source, pv.tag(pv.REPAIRED, f"bedtime {when:%H:%M}")))
        return items, night
    awake = [x for x in items if x.start < bed_hi]
    last_end = max([x.end for x in awake], default=start)
    bedtime = min(max(last_end, bed_lo), bed_hi)
    return items, PlanItem(bedtime, 0, "going to bed and sleeping", persona.home, pv.tag(pv.RULE, "sleep at night"),
                           SLEEP)


def _day_with_routine(awake: list[PlanItem], holes: list[tuple[datetime, str]], night: PlanItem, start: datetime,
                      next_wake: datetime, over: Callable[[datetime, datetime, str], list[PlanItem]]) -> list[PlanItem]:
    """The model's usable items and the night, whole: where an item could not be used,
    where the model left a long gap, and before the model's first item, the routine's
    items (``over``) stand in and say why; so they do after the first hours of half a
    day of one thing."""
    fill: list[PlanItem] = []
    for t, why in holes:
        nxt = min([x.start for x in awake if x.start > t] + [night.start])
        fill += over(t, nxt, why)
    if awake[0].start > start + timedelta(minutes=30):
        fill += over(start, awake[0].start, f"the model's day began at {awake[0].start:%H:%M}")
    elif awake[0].start > start:
        awake[0] = awake[0].moved(start, source=pv.combine(awake[0].source,
                                                           pv.tag(pv.REPAIRED, f"moved to {start:%H:%M}")))
    for a, b in zip(awake, awake[1:] + [night]):
        if b.start - a.end > timedelta(minutes=GAP_MIN):
            fill += over(a.end, b.start, f"the model left {a.end:%H:%M}-{b.start:%H:%M} open")
    merged: dict[datetime, PlanItem] = {}
    for it in sorted(awake + fill, key=lambda x: (x.start, not pv.model_led(x.source))):
        if it.start < night.start:
            merged.setdefault(it.start, it)  # the model's item wins a tie with the routine's
    items = close_times(sorted(merged.values(), key=lambda x: x.start) + [night], next_wake)
    long = [x for x in items[:-1] if _too_long(x)]
    if long:
        for x in long:
            keep = 60 if x.meal else int(MAX_ITEM_HOURS * 60)
            for r in over(x.start + timedelta(minutes=keep), x.end, f"{x.description} ran too long"):
                merged.setdefault(r.start, r)
        items = close_times(sorted(merged.values(), key=lambda x: x.start) + [night], next_wake)
    return items


def paper_day_plan(m: Planner, day: datetime, routine_items: list[PlanItem], memories: str, arranged: str,
                   directive: str) -> list[PlanItem]:
    """One call: the day as the model writes it, repaired; the routine's day only when
    too little of it is usable."""
    sp, s, p = m.spatial, m.settings, m.persona
    arenas = sp.arenas()
    labels = tuple(sp.label(a) for a in arenas)
    resolve = dict(zip(labels, arenas)).get
    schema = day_plan_schema(labels, plan_hours(day), s.plan_min_items, s.plan_max_items)
    example = json.dumps({"start": f"{day:%H:%M}", "minutes": 30, "activity": routine_items[0].description,
                          "place": sp.label(routine_items[0].address)})
    got, why = m.ask(schema, "day_plan", "day_plan", None, yesterday=m.yesterday, date=f"{day:%A %B %d}",
                     wake=f"{day:%H:%M}", memories=memories, arranged=arranged, directive=directive,
                     example=example, bedtime=f"{s.bedtime_hour:02d}:00", **home_and_work(m))
    if why is not None:
        m.note_fallback("day plan", why)
        return routine(p, sp, day, s, pv.reason_of_failure(why))
    items = repair_plan(got.items, p, sp, day, wake_time(p, day) + timedelta(days=1), s, resolve, routine_items,
                        m.rejected)
    if items is None:
        m.note_fallback("day plan", "invalid")
        return routine(p, sp, day, s, pv.INVALID)
    return items


# --------------------------------------------------------------------------------------
# the guided day plan: the routine's times and places, the model's words
# --------------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def slots_schema(times: tuple[str, ...]) -> type[BaseModel]:
    """{"07:00": activity, "07:30": activity, ...}: the times are the routine's (a
    135M model writes breakfast at 20:00 when it picks times), the words the model's."""
    fields: dict[str, Any] = {f"t{k.replace(':', '')}": (short_text(60), Field(alias=k)) for k in times}
    return create_model("DayPlan", **fields)


def slot_problem(text: str | None, x: PlanItem, persona: Persona, spatial: SpatialMemory) -> tuple[str, str | None]:
    """Where a slot's (clean) words take the resident (the place they name, else the
    slot's), and why they cannot be used there and then, or None."""
    if not text:
        return x.address, "not an activity"
    addr = place_from_text(text, spatial, persona) or x.address
    if is_sleep(text):
        return addr, f"sleeping at {x.start:%H:%M}"
    if not activity.fits_time(text, x.start.hour):
        return addr, f"{text} at {x.start:%H:%M}"
    if not activity.fits_place(text, addr):
        return addr, f"{text} does not fit {spatial.label(addr)}"
    return addr, None


def plan_from_slots(got: Any, routine_items: list[PlanItem], persona: Persona, spatial: SpatialMemory, day: datetime,
                    stats: Counter | None = None) -> list[PlanItem]:
    """The routine with each slot's words replaced by the model's where they are
    usable: verb-led, awake, at a fitting hour and place (else the routine's slot)."""
    out = []
    guided = pv.tag(pv.REPAIRED, pv.GUIDED)
    for x in routine_items[:-1]:
        raw = getattr(got, f"t{x.start:%H%M}", None)
        text = activity.clean_activity(raw or "", persona.name)
        addr, why = slot_problem(text, x, persona, spatial)
        if stats is not None:
            stats["day_plan_slot"] += 1
            if why is not None:
                stats["day_plan_slot_rejected"] += 1
            elif text == x.description:
                stats["day_plan_slot_copied"] += 1  # the usual day's words, kept
        if why is None and text:  # text is set whenever why is None
            out.append(PlanItem(x.start, 0, text, addr, guided, kind_of_words(text)))  # the model's words
        else:
            out.append(x.moved(x.start, source=pv.tag(pv.ROUTINE, f"{pv.INVALID}: {why}")))
    last = routine_items[-1]
    return close_times(out + [last.moved(last.start, source=pv.tag(pv.RULE, pv.GUIDED))], routine_items[-1].end)


def guided_day_plan(m: Planner, day: datetime, routine_items: list[PlanItem], directive: str,
                    times_from: list[PlanItem] | None = None,
                    only: Sequence[agenda.Engagement] | None = None) -> list[PlanItem]:
    """One call: today's plan on the routine's times (see slots_schema); a small model
    chooses each slot's words from candidates instead (chosen_day_plan; ``only``: see there)."""
    skeleton = times_from or routine_items
    if chooses(m):
        return chosen_day_plan(m, day, skeleton, directive, only)
    awake = skeleton[:-1]
    schema = slots_schema(tuple(f"{x.start:%H:%M}" for x in awake))
    typical = json.dumps({f"{x.start:%H:%M}": x.description for x in awake})
    done = "; ".join(f"{x.start:%H:%M} {x.description}" for x in days_before(m, day, 1)[0][:-1]) or "(none)"
    got, why = m.ask(schema, "day_plan_guided", "day_plan", None, yesterday=m.yesterday, typical=typical,
                     date=f"{day:%A %B %d}", wake=f"{day:%H:%M}", directive=directive, yesterday_plan=done)
    if why is not None:
        m.note_fallback("day plan", why)
        return [x.moved(x.start, x.minutes, pv.tag(pv.ROUTINE, pv.reason_of_failure(why)))
                for x in skeleton]
    return plan_from_slots(got, skeleton, m.persona, m.spatial, day, m.rejected)


# --------------------------------------------------------------------------------------
# the guided day plan for a small model: each slot's words chosen from candidates
# --------------------------------------------------------------------------------------
MAX_CHOICES = 6  # options a slot offers: each costs prompt tokens and a branch of the grammar
MAX_MEMORY_CHOICES = 2
# Memories whose doings may be offered: what the resident thinks, was told or concluded,
# not what it saw itself do a minute ago ("getting food from the fridge" is no plan).
OWN_KINDS = ("thought", "chat", "reflection")
LEISURE = {"park": "taking a walk in {sector}", "pub": "having a drink at {sector}",
           "cafe": "having a coffee at {sector}", "library": "reading a book at the library",
           "store": "shopping for groceries at {sector}", "supply store": "picking up supplies at {sector}"}


def chosen_tag(n: int, mode: str = pv.GUIDED, origin: str = "") -> str:
    """The provenance of a candidate the model chose: the choice is the model's, the words a
    rule's; ``origin``, where the candidate came from ("memory #12 (...)")."""
    text = f"{mode}: chosen from {n} candidates" if mode else f"chosen from {n} candidates"
    return pv.tag(pv.REPAIRED, f"{text}, from {origin}" if origin else text)


_INTENT = re.compile(r"^(?:i am|i'm|i will|i'll|i shall|i must|i should|i need to|i want to|i have to|i plan to|"
                     r"i have decided to|i've decided to|i decide to|i)\s+(?:going to\s+|gonna\s+|to\s+)?", re.I)


def intended(directive: str, name: str) -> list[str]:
    """The activities the inner voice's thoughts (quoted in ``directive``, agents/planning/inner_voice.py
    directive_line) ask for: '"I am going to run against Sam"' -> "running against Sam"."""
    out: list[str] = []
    for thought in re.findall(r'"([^"]+)"', directive or ""):
        text = activity.clean_activity(_INTENT.sub("", thought.strip(), count=1), name)
        if text and text not in out:
            out.append(text)
    return out


def slot_candidates(x: PlanItem, persona: Persona, spatial: SpatialMemory, memories: Sequence[str] = (),
                    limit: int = MAX_CHOICES, special: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(words, arena) the resident could do in slot ``x`` (the routine's time and place),
    in broad strokes: the usual words first; at work, its own doings in ``memories`` and
    its own steps of the work; at a meal, the meal at home or at a cafe or pub it knows;
    in the bathroom, what its things are for; in free time, its own doings elsewhere than
    at work, the evening at a public place it knows or with the things at home. What the
    inner voice asks for today (``special``) comes second, at work and in free time. Only
    what fits the slot's time and its place (slot_problem); no two alike; at most ``limit``."""
    kind = activity.arena_kind(x.address)
    meal = next((w for w in MEAL_HOURS if w in x.description.lower()), None)
    home = persona.home.split(":")[1]
    public = [a for a in spatial.arenas() if a.split(":")[1] != home]
    working = x.address == persona.workplace and not meal
    own = [t for t in (activity.own_activity(mm, persona.name) for mm in memories) if t]
    raw: list[tuple[str, str | None]] = [(x.description, None)]
    if not meal and kind != "bathroom":
        raw += [(t, None) for t in special]
    if working:
        raw += [(t, None) for t in own[:MAX_MEMORY_CHOICES]]
        raw += [(t, None) for t in activity.item_steps(x.description, kind, persona)]
    elif meal:
        kitchen = _home_arena(spatial, persona, ("kitchen", "main room"))
        raw += [(f"cooking {meal}", kitchen), (f"eating {meal} at home", kitchen)]
        raw += [(f"having {meal} at {a.split(':')[1]}", a) for a in public
                if activity.arena_kind(a) == "cafe" or (activity.arena_kind(a) == "pub" and meal != "breakfast")]
    elif kind == "bathroom":
        raw += [(t, x.address) for t, o in object_activities(spatial, x.address) if not o.endswith(":toilet")]
    else:
        mine = [(t, place_from_text(t, spatial, persona)) for t in own]
        raw += [(t, a) for t, a in mine if a is None or a != persona.workplace][:MAX_MEMORY_CHOICES]
        raw += [(t, None) for t in activity.item_steps(x.description, kind, persona)]
        raw += [(LEISURE[activity.arena_kind(a)].format(sector=a.split(":")[1]), a) for a in public
                if activity.arena_kind(a) in LEISURE]
        lounge = _home_arena(spatial, persona, ("common room", "main room"))
        raw += [(t, lounge) for t, _ in object_activities(spatial, lounge, "relax")]
    out: list[tuple[str, str]] = []
    for words, at in raw:
        text = activity.clean_activity(words, persona.name)
        if not text or any(text == t for t, _ in out):
            continue
        where = PlanItem(x.start, x.minutes, x.description, at) if at else x
        addr, why = slot_problem(text, where, persona, spatial)
        if why is None and spatial.knows(addr):
            out.append((text, addr))
    return out[:limit]


_PLANNED = re.compile(r"(\d\d):(\d\d)-(\d\d):(\d\d) ([^;]+)")
RECENT_DAYS = 3  # a meal or an evening spent as on one of these days before is offered last


def days_before(m: Planner, day: datetime, back: int = RECENT_DAYS) -> list[list[PlanItem]]:
    """What the resident planned on each of the ``back`` days before ``day``, the day before
    first: its plan memories (new_day writes one a day), else yesterday's plan still held."""
    nodes = getattr(getattr(m, "memory", None), "nodes", [])
    out: list[list[PlanItem]] = []
    for i in range(1, back + 1):
        d = (day - timedelta(days=i)).replace(hour=0, minute=0, second=0, microsecond=0)
        head = f"{m.name}'s plan for {d:%A %B %d}: "
        text = next((x.description for x in nodes if x.kind == "plan" and x.description.startswith(head)), "")
        items = close_times([PlanItem(d.replace(hour=int(a) % 24, minute=int(b)), 0, w.strip(), "")
                        for a, b, _, _, w in _PLANNED.findall(text)], d + timedelta(days=1))
        out.append(items or [x for x in m.plan if x.start.date() == d.date()])
    return out


def fresh_first(options: list[tuple[str, str]], x: PlanItem, persona: Persona,
                before: Sequence[Sequence[PlanItem]], keep: Sequence[str] = ()) -> list[tuple[str, str]]:
    """A meal or free time not as it was spent yesterday at that hour (while something else
    is offered), and what was not done lately first: a small model chose the first option
    every day, and 90% of a week's activities were the day before's. Work, getting ready in
    the morning and what ``keep`` holds (the inner voice's wishes, inviting people to a
    gathering: again today as yesterday) stay as they are, where they were offered; the rest
    come in an order of the resident's own for the day."""
    working = x.address == persona.workplace and not x.meal
    if not any(before) or working or activity.arena_kind(x.address) == "bathroom":
        return options  # no day before it (the story's first): the usual words first, as offered
    kept = {activity.clean_activity(t, persona.name) for t in keep}

    def last_done(words: str) -> int:  # days ago it was done at this hour, RECENT_DAYS + 1 if not lately
        if words in kept:
            return RECENT_DAYS + 1
        t = x.start.time()
        return next((i for i, day in enumerate(before, 1) for y in day
                     if y.description == words and y.start.time() <= t < (y.end - timedelta(minutes=1)).time()),
                    RECENT_DAYS + 1)

    def spread(words: str) -> int:  # the same choices in an order of the resident's own for the day: in
        # one order for all, the whole town took the first and spent the evening at the same pub
        return zlib.crc32(f"{persona.name}|{x.start:%Y-%m-%d}|{words}".encode())

    chosen = [o for o in options if last_done(o[0]) > 1]
    chosen = chosen if len(chosen) >= 2 else options
    others = iter(sorted((o for o in chosen if o[0] not in kept), key=lambda o: (-last_done(o[0]), spread(o[0]))))
    return [o if o[0] in kept else next(others) for o in chosen]  # what keep holds stays where it was offered


@lru_cache(maxsize=256)
def choices_schema(options: tuple[tuple[str, tuple[str, ...]], ...]) -> type[BaseModel]:
    """{"07:00": one of that slot's options, ...}: the grammar lets the model write nothing else."""
    fields: dict[str, Any] = {f"t{k.replace(':', '')}": (Literal[opts], Field(alias=k)) for k, opts in options}
    return create_model("DayChoice", __config__=ConfigDict(populate_by_name=True), **fields)


def plan_from_choices(got: Any, offered: dict[str, list[tuple[str, str]]], routine_items: list[PlanItem],
                      stats: Counter | None = None, why: str | None = None,
                      origins: dict[tuple[str, str], str] | None = None) -> list[PlanItem]:
    """The routine with each slot's words the model's choice among ``offered[HH:MM]``
    (provenance: chosen_tag, naming the memory a choice came from: ``origins[(HH:MM,
    words)]``); the routine's words where the slot offered no choice, the answer failed
    (``why``: the gateway's outcome) or its choice is not one offered."""
    out = []
    for x in routine_items[:-1]:
        key = f"{x.start:%H:%M}"
        opts = offered.get(key) or []
        pick = None if why is not None else getattr(got, f"t{x.start:%H%M}", None)
        hit = next((o for o in opts if o[0] == pick), None) if len(opts) >= 2 else None
        if stats is not None and len(opts) >= 2:
            stats["day_plan_slot"] += 1
            stats["day_plan_slot_rejected"] += hit is None
            stats["day_plan_slot_copied"] += hit is not None and hit[0] == x.description
        if hit is not None:
            origin = (origins or {}).get((key, hit[0]), "")
            kind = x.kind if hit[0] == x.description else kind_of_words(hit[0])
            out.append(PlanItem(x.start, 0, hit[0], hit[1], chosen_tag(len(opts), origin=origin), kind))
            continue
        reason = (pv.reason_of_failure(why) if why is not None else
                  f"{pv.GUIDED}: nothing to choose" if len(opts) < 2 else f"{pv.INVALID}: not one of the options")
        out.append(x.moved(x.start, source=pv.tag(pv.ROUTINE, reason)))
    last = routine_items[-1]
    return close_times(out + [last.moved(last.start, source=pv.tag(pv.RULE, pv.GUIDED))], routine_items[-1].end)


def agenda_of(m: Planner, day: datetime) -> list[agenda.Engagement]:
    """The mind's engagements on ``day`` (agents/planning/agenda.py): from its whole memory (a dated
    intention is recalled whatever the day's retrieval brings up) and its arrangements."""
    memory, today = getattr(m, "memory", None), getattr(m, "today", None)
    nodes = memory.nodes if memory is not None else []
    arranged = today.arrangements if today is not None else []
    return agenda.engagements(nodes, arranged, m.persona, m.spatial, day.date())


def with_engagements(skeleton: list[PlanItem], engagements: Sequence[agenda.Engagement]
                     ) -> tuple[list[PlanItem], list[agenda.Engagement]]:
    """The skeleton with a slot at each engagement's time (its words the routine's until the
    model chooses the engagement: declining keeps the usual day), and the engagements that
    got one: awake, after the skeleton's start, not inside another engagement."""
    placed: list[agenda.Engagement] = []
    for e in engagements:
        night = skeleton[-1]
        under = item_at(skeleton, e.start)
        if (under is None or under is night or under.sleep or e.start < skeleton[0].start
                or any(p.start <= e.start < p.end for p in placed)):
            continue
        minutes = min(e.minutes, int((night.start - e.start).total_seconds() // 60))
        skeleton = cut_in(skeleton, under.moved(e.start, minutes))
        placed.append(e)
    return skeleton, placed


INVITE_HOURS = (12, 19)  # the day before a gathering of one's own, the slots it may invite people in


def chosen_day_plan(m: Planner, day: datetime, skeleton: list[PlanItem], directive: str,
                    only: Sequence[agenda.Engagement] | None = None) -> list[PlanItem]:
    """One call: the model chooses each slot's words among candidates (slot_candidates);
    no call when no slot offers a choice. The resident's engagements (agents/planning/agenda.py)
    get slots of their own, offered first, and its intention to invite people is offered
    in the slots before the event; a chosen one names its memory. With ``only``, just those
    engagements' slots are offered (news heard: go, or keep the plan); the others keep their words."""
    nodes = m.retrieve(f"{m.name}'s plans for {day:%A %B %d}", k=5)
    memories = [x.description for x in nodes]
    own = [x.description for x in nodes if x.kind in OWN_KINDS and gr.offered(x, day)]  # nor anything past
    engagements = agenda_of(m, day) if only is None else list(only)
    skeleton, placed = with_engagements(skeleton, engagements)
    origins: dict[tuple[str, str], str] = {}
    # a gathering of its own tomorrow (agents/planning/stories.py): today's afternoon is for inviting people
    tomorrow = [e for e in agenda_of(m, day + timedelta(days=1)) if e.kind == agenda.INTENTION and e.invitation()]
    invites = [e for e in engagements if e.invitation()] + tomorrow
    wanted = intended(directive, m.name)
    before = days_before(m, day)
    offered: dict[str, list[tuple[str, str]]] = {}
    for x in skeleton[:-1]:
        key = f"{x.start:%H:%M}"
        if only is not None and not any(e.start == x.start for e in placed):
            continue
        # inviting people, in the slots before the event (the day before: from noon to seven)
        inviting = [e for e in invites if x.start < e.start and (e.start.date() == x.start.date()
                                                                 or INVITE_HOURS[0] <= x.start.hour < INVITE_HOURS[1])]
        special = wanted + [e.invitation() for e in inviting]
        offered[key] = fresh_first(slot_candidates(x, m.persona, m.spatial, own, special=special),
                                   x, m.persona, before, keep=special)
        origins.update({(key, e.invitation()): e.origin() for e in inviting})
    for e in placed:
        key = f"{e.start:%H:%M}"
        offered[key] = ([(e.description, e.address)]
                        + [o for o in offered.get(key, []) if o[0] != e.description])[:MAX_CHOICES]
        origins[(key, e.description)] = e.origin()
        memories = [e.memory] + [x for x in memories if x != e.memory] if e.memory_id is not None else memories
    options = tuple((k, tuple(t for t, _ in v)) for k, v in offered.items() if len(v) >= 2)
    if not options:
        return plan_from_choices(None, offered, skeleton, m.rejected)
    lines = "\n".join(f"{k}: " + " | ".join(opts) for k, opts in options)
    mem_lines = "\n".join(f"- {x}" for x in memories[:4]) or "- (nothing)"
    got, why = m.ask(choices_schema(options), "day_plan_choose", "day_plan", None, yesterday=m.yesterday,
                     date=f"{day:%A %B %d}", wake=f"{day:%H:%M}", directive=directive, options=lines,
                     memories=mem_lines)
    if why is not None:
        m.note_fallback("day plan", why)
    return plan_from_choices(got, offered, skeleton, m.rejected, why, origins)


def home_and_work(m: Planner) -> dict:
    """Where the resident lives and works, as the labels its plan items use (the
    original's "living area")."""
    return dict(home=m.spatial.label(m.persona.home), work=m.spatial.label(m.persona.workplace))
