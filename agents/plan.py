"""Planning top-down (paper section 4.3): a day plan of 5-8 broad strokes,
hour chunks of it, and 5-15 minute actions for the chunk at hand, made lazily
in ONE call that also picks each action's place from an enumerated list.
Everything the model says is validated; nonsense falls back to a routine
built from the persona."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, Field, conlist, create_model

from agents.types import Action

MEAL_HOURS = {"breakfast": (5, 11), "lunch": (11, 15), "dinner": (16, 23)}
MAX_ITEM_HOURS = 4.5  # the routine's longest stroke (afternoon work)
SLEEP_WORDS = ("sleep", "asleep", "nap", "to bed", "in bed")

# keyword -> emoji, first match wins (the model's emoji is used only if it is one).
EMOJI = [
    (("sleep", "nap", "to bed", "in bed"), "😴"),
    (("coffee", "espresso", "latte", "tea"), "☕"),
    (("breakfast", "lunch", "dinner", "eat", "meal", "snack", "cook"), "🍳"),
    (("shower", "bath", "brush", "wash", "toilet", "get ready", "dress"), "🚿"),
    (("paint", "draw", "sketch", "easel", "animat"), "🎨"),
    (("photo", "camera"), "📷"),
    (("study", "read", "research", "homework", "book", "library"), "📚"),
    (("write", "writing", "poem", "novel", "thesis"), "✍️"),
    (("piano", "music", "compose", "song", "guitar"), "🎹"),
    (("talk", "chat", "convers", "discuss", "meet"), "💬"),
    (("teach", "lecture", "class"), "🧑‍🏫"),
    (("run", "jog", "exercise", "train", "gym", "workout"), "🏃"),
    (("walk", "stroll"), "🚶"),
    (("garden", "plant", "water the"), "🌱"),
    (("shop", "buy", "grocer", "market"), "🛒"),
    (("bar", "beer", "drink", "pub", "wine"), "🍺"),
    (("stream", "game", "gaming"), "🎮"),
    (("tv", "movie", "watch"), "📺"),
    (("party", "decorat", "valentine", "celebrat"), "🎉"),
    (("campaign", "mayor", "election"), "🗳️"),
    (("code", "program", "computer", "email", "app"), "💻"),
    (("serve", "customer", "counter", "cashier", "sell", "open the", "close the"), "🛎️"),
    (("relax", "rest", "sofa"), "🛋️"),
    (("work", "office", "task"), "💼"),
]

EMOJIS = tuple(dict.fromkeys(e for _, e in EMOJI)) + ("🙂",)

# object -> state while an action uses it (others perceive it as an event).
OBJECT_STATE = {
    "bed": "being slept in",
    "coffee machine": "brewing coffee",
    "stove": "cooking",
    "shower": "running",
    "piano": "being played",
    "easel": "holding a painting in progress",
    "tv": "showing a program",
    "toilet": "occupied",
    "kitchen sink": "running water",
    "bathroom sink": "running water",
}

# words of an activity -> objects that suit it, in order of preference.
OBJECT_HINTS = [
    (SLEEP_WORDS, ["bed"]),
    (("coffee", "espresso", "latte", "brew"), ["coffee machine", "cafe counter"]),
    (("cook", "breakfast", "make lunch", "make dinner", "prepare"), ["stove", "refrigerator", "dining table"]),
    (("eat", "breakfast", "lunch", "dinner", "meal", "snack"), ["dining table", "cafe customer seating", "pub tables"]),
    (("shower", "bath"), ["shower"]),
    (("toilet",), ["toilet"]),
    (("brush", "wash", "get ready", "morning routine", "freshen"), ["bathroom sink", "shower"]),
    (("dishes",), ["kitchen sink"]),
    (("teach", "lecture"), ["lecturer's podium", "blackboard"]),
    (("class", "attend", "lesson"), ["classroom student seating"]),
    (("paint", "canvas"), ["easel", "desk"]),
    (("piano", "compose", "music"), ["piano", "desk"]),
    (("tv", "movie", "watch"), ["tv", "sofa"]),
    (("relax", "rest", "sofa"), ["sofa", "garden bench", "park bench"]),
    (("garden", "vegetable", "plant", "weed"), ["vegetable patch", "park garden"]),
    (("serve", "customer", "counter", "cashier", "open", "close", "register"), [
        "cafe counter", "bar counter", "grocery counter", "pharmacy counter", "supply store counter"]),
    (("drink", "beer", "wine", "bar"), ["bar counter", "pub tables"]),
    (("medicine", "pharmacy", "prescription"), ["pharmacy counter", "pharmacy shelves"]),
    (("stock", "shelves", "shop", "buy", "grocer"), ["grocery shelves", "supply store shelves", "pharmacy shelves"]),
    (("read", "book", "research", "study", "thesis", "homework"), ["library tables", "bookshelves", "desk", "classroom student seating"]),
    (("write", "work", "email", "code", "computer", "draw", "animat", "stream", "plan", "edit"), [
        "desk", "library tables", "cafe customer seating", "classroom student seating"]),
    (("walk", "stroll", "photo", "think", "pond"), ["park garden", "pond", "park bench"]),
    (("notice", "bulletin", "poster"), ["bulletin board"]),
    (("dress", "clothes", "closet"), ["closet"]),
]


def clean_text(text: str, limit: int = 80) -> str:
    """A model's free text, fit for a timeline: one line, no stray JSON punctuation."""
    t = re.sub(r"[{}\[\]\"\\]+", "", str(text)).replace("_", " ")
    t = " ".join(t.split()).strip(" ,;:")
    return t[:limit].rstrip(" ,;:")


def emoji_for(text: str, proposed: str | None = None) -> str:
    """The keyword table first (reliable even with a weak model), then the
    model's own emoji, then a smile."""
    t = text.lower()
    for words, e in EMOJI:
        if any(w in t for w in words):
            return e
    if proposed and any(ord(c) > 0x2000 for c in proposed) and len(proposed) <= 8:
        return proposed.strip()
    return "🙂"


def is_sleep(text: str) -> bool:
    t = text.lower()
    return any(re.search(rf"\b{w}\b", t) or (w == "sleep" and "sleep" in t) for w in SLEEP_WORDS)


def pick_object(spatial, arena: str, text: str) -> str:
    """An object of `arena` that suits the activity, or the arena itself."""
    objs = {a.rsplit(":", 1)[1]: a for a in spatial.objects(arena)}
    t = text.lower()
    for words, names in OBJECT_HINTS:
        if any(w in t for w in words):
            for n in names:
                if n in objs:
                    return objs[n]
    return arena


def object_state(address: str, text: str) -> str | None:
    obj = address.rsplit(":", 1)[-1] if address.count(":") >= 3 else None
    if obj == "bed" and not is_sleep(text):
        return "occupied"
    return OBJECT_STATE.get(obj) if obj else None


def make_action(spatial, description: str, address: str, start: datetime, minutes: int,
                emoji: str | None = None) -> Action:
    return Action(description=description, address=address, start=start, duration_min=int(minutes),
                  emoji=emoji_for(description, emoji), object_state=object_state(address, description))


# --------------------------------------------------------------------------------------
# the day plan
# --------------------------------------------------------------------------------------
@dataclass
class PlanItem:
    start: datetime
    minutes: int
    description: str
    address: str  # an arena this mind knows

    @property
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.minutes)

    def line(self) -> str:
        return f"{self.start:%H:%M}-{self.end:%H:%M} {self.description}"


def item_json(x: "PlanItem", spatial) -> str:
    """One plan item as the JSON the day-plan schema wants (small models copy patterns well)."""
    return json.dumps({"start": f"{x.start:%H:%M}", "activity": x.description, "place": spatial.label(x.address)})


def plan_hours(wake_hour: int) -> tuple[str, ...]:
    """Start times a day-plan item may have: half hours from wake-up to 23:30."""
    return tuple(f"{h:02d}:{m:02d}" for h in range(wake_hour, 24) for m in (0, 30))


@lru_cache(maxsize=256)  # one class per place list: the gateway caches schemas by class
def day_plan_schema(labels: tuple[str, ...], hours: tuple[str, ...]) -> type[BaseModel]:
    # Enumerations, not free text, for times and places: a small model cannot
    # write "29:00" or invent a place. Durations follow from the next start.
    Place = Literal[tuple(labels)]
    Start = Literal[tuple(hours)]
    Item = create_model("Item", start=(Start, ...), activity=(str, ...), place=(Place, ...))
    return create_model("DayPlan", items=(conlist(Item, min_length=5, max_length=8), ...))


def _home_arena(spatial, persona, words: tuple[str, ...]) -> str:
    """A known arena of the resident's home sector whose name has one of `words`."""
    sector = persona.home.split(":")[1]
    for a in spatial.arenas():
        if a.split(":")[1] == sector and any(w in a.split(":")[2] for w in words):
            return a
    return persona.home


def _public(spatial, arena_name: str, default: str) -> str:
    for a in spatial.arenas():
        if a.split(":")[2] == arena_name:
            return a
    return default


def routine(persona, spatial, day: datetime, settings) -> list[PlanItem]:
    """A plausible day for anyone: the fallback for a plan that makes no sense."""
    w = persona.wake_hour
    base = day.replace(hour=0, minute=0, second=0, microsecond=0)
    at = lambda h, m=0: base + timedelta(hours=h, minutes=m)  # noqa: E731
    bath = _home_arena(spatial, persona, ("bathroom",))
    kitchen = _home_arena(spatial, persona, ("kitchen", "main room"))
    lunch = _public(spatial, "cafe", kitchen)
    evening = _public(spatial, "pub", _public(spatial, "park", _home_arena(spatial, persona, ("common room",))))
    work_name = persona.workplace.split(":")[2]
    work = "working at home" if persona.workplace == persona.home else f"working at the {work_name}"
    stops = [
        (at(w), "waking up and getting ready for the day", bath),
        (at(w, 30), "having breakfast", kitchen),
        (at(max(w + 1, 8)), work, persona.workplace),
        (at(12), "having lunch", lunch),
        (at(13), work, persona.workplace),
        (at(17, 30), "having dinner", kitchen),
        (at(19), "spending the evening unwinding", evening),
        (at(settings.bedtime_hour), "going to bed and sleeping", persona.home),
    ]
    items: list[PlanItem] = []
    for t, d, a in stops:  # a late riser skips what has already passed
        if not items or t > items[-1].start:
            items.append(PlanItem(t, 0, d, a))
    return _close(items, persona, day)


def _close(items: list[PlanItem], persona, day: datetime) -> list[PlanItem]:
    """Each item lasts until the next starts; the last (sleep) until tomorrow's wake-up."""
    wake_tomorrow = day.replace(hour=persona.wake_hour, minute=0, second=0, microsecond=0) + timedelta(days=1)
    for a, b in zip(items, items[1:] + [None]):
        end = b.start if b else wake_tomorrow
        a.minutes = max(1, int((end - a.start).total_seconds() // 60))
    return items


def _is_meal(text: str) -> bool:
    return any(w in text.lower() for w in MEAL_HOURS)


def _too_long(x: "PlanItem") -> bool:
    """Half a day of one thing, or a three-hour breakfast, is not a plan."""
    return x.minutes > MAX_ITEM_HOURS * 60 or (_is_meal(x.description) and x.minutes > 150)


def validate_day_plan(raw_items, persona, spatial, day: datetime, settings, resolve,
                      routine_items: list[PlanItem] | None = None) -> list[PlanItem] | None:
    """Clean a model's plan; None when too little survives (use the routine).
    A long hole the model left (it skipped work) is filled from routine_items.

    raw_items: objects with start "HH:MM", activity, place (a label), maybe minutes;
    resolve(label) -> address or None. day: the wake-up datetime.
    """
    wake = day.replace(hour=persona.wake_hour, minute=0, second=0, microsecond=0)
    base = wake.replace(hour=0)
    items: list[PlanItem] = []
    for r in raw_items:
        try:
            h, m = (int(x) for x in str(r.start).split(":"))
        except ValueError:
            continue
        if not (0 <= h <= 23 and 0 <= m <= 59):
            continue
        t = base + timedelta(hours=h, minutes=m)
        desc = clean_text(r.activity, 80)
        if not desc or t < wake:
            continue  # before wake-up the resident sleeps; that part is ours
        if is_sleep(desc) and t.hour < 20:
            continue  # sleeping by day is a weak model's slip, not a plan
        if any(w in desc.lower() and not lo <= t.hour < hi for w, (lo, hi) in MEAL_HOURS.items()):
            continue  # dinner at 9 am: drop the item
        addr = resolve(r.place) or ""
        addr = spatial.validate(spatial.arena_of(addr) if addr else None, persona.workplace)
        items.append(PlanItem(t, int(getattr(r, "minutes", 60) or 60), desc, addr))
    items.sort(key=lambda x: x.start)
    dedup: list[PlanItem] = []
    for it in items:  # overlaps: a later item starting at the same time is dropped
        if dedup and it.start == dedup[-1].start:
            continue
        dedup.append(it)
    # Sleep at night: the first night-time sleep item ends the day; otherwise
    # bedtime at the earliest of (last item's end, 24:00), no earlier than 22:00.
    bed_lo = base + timedelta(hours=settings.bedtime_hour)
    bed_hi = base + timedelta(hours=settings.bedtime_latest)
    sleep_idx = next((i for i, x in enumerate(dedup) if is_sleep(x.description)), None)
    if sleep_idx is not None:
        dedup = dedup[: sleep_idx + 1]
        s = dedup[-1]
        s.start = min(max(s.start, bed_lo - timedelta(hours=2)), bed_hi)
        s.address = persona.home
    else:
        dedup = [x for x in dedup if x.start < bed_hi]
        if not dedup:
            return None
        last_end = dedup[-1].start + timedelta(minutes=dedup[-1].minutes)
        bedtime = min(max(last_end, bed_lo), bed_hi)
        dedup.append(PlanItem(bedtime, 0, "going to bed and sleeping", persona.home))
    awake = dedup[:-1]
    if len(awake) < settings.plan_min_items - 1:
        return None
    keep = settings.plan_max_items - 1
    if len(awake) > keep:  # too many strokes: keep ones spread over the whole day
        awake = [awake[round(i * (len(awake) - 1) / (keep - 1))] for i in range(keep)]
    if awake[0].start > wake + timedelta(hours=2):
        return None  # the morning is missing
    awake[0].start = wake  # the day begins at wake-up
    if len({x.description.lower() for x in awake}) < len(awake) - 1:
        return None  # the same thing over and over: a small model looping
    out = _close(awake + [dedup[-1]], persona, day)
    if routine_items and any(_too_long(x) for x in out[:-1]):
        fill = []
        for x in (x for x in out[:-1] if _too_long(x)):
            if _is_meal(x.description):  # a meal gets an hour; the routine takes over after it
                cover = item_at(routine_items, x.start + timedelta(hours=1))
                if cover and not is_sleep(cover.description):
                    fill.append(PlanItem(x.start + timedelta(hours=1), 0, cover.description, cover.address))
            fill += [PlanItem(r.start, 0, r.description, r.address) for r in routine_items[:-1]
                     if x.start + timedelta(minutes=90) < r.start < x.end - timedelta(minutes=30)]
        merged: dict = {}
        for it in sorted(out[:-1] + fill, key=lambda x: x.start):
            merged.setdefault(it.start, it)  # one item per start time
        out = _close(list(merged.values()) + [out[-1]], persona, day)
        if len(out) > settings.plan_max_items:
            return None
    if any(_too_long(x) for x in out[:-1]):
        return None  # half a day of one thing (a 13-hour lunch) is not a plan
    return out


def yesterday_summary(plan: list[PlanItem], chats: list[str]) -> str:
    if not plan:
        return "nothing notable"
    did = ", ".join(x.description for x in plan[:6])
    talk = f"; talked: {'; '.join(chats[-3:])}" if chats else ""
    return f"{did}{talk}"[:400]


def item_at(plan: list[PlanItem], t: datetime) -> PlanItem | None:
    for it in plan:
        if it.start <= t < it.end:
            return it
    return None


def insert_reaction(plan: list[PlanItem], now: datetime, description: str, minutes: int,
                    address: str) -> list[PlanItem]:
    """Replan from now: the reaction takes [now, now+minutes); what it overlaps is
    cut, what comes after keeps its times (no model call needed)."""
    end = now + timedelta(minutes=minutes)
    out: list[PlanItem] = []
    for it in plan:
        if it.end <= now or it.start >= end:
            out.append(it)
            continue
        if it.start < now:
            out.append(PlanItem(it.start, int((now - it.start).total_seconds() // 60), it.description, it.address))
        if it.end > end:
            out.append(PlanItem(end, int((it.end - end).total_seconds() // 60), it.description, it.address))
    out.append(PlanItem(now, minutes, description, address))
    out.sort(key=lambda x: x.start)
    return [x for x in out if x.minutes > 0]


# --------------------------------------------------------------------------------------
# decomposition of an hour chunk into 5-15 minute actions
# --------------------------------------------------------------------------------------
@lru_cache(maxsize=1024)
def steps_schema(labels: tuple[str, ...], max_steps: int) -> type[BaseModel]:
    Place = Literal[tuple(labels)]
    Emoji = Literal[EMOJIS]  # enumerated: free text here made a small model ramble
    Step = create_model("Step", activity=(str, ...), minutes=(int, Field(ge=5, le=15)),
                        place=(Place, ...), emoji=(Emoji, ...))
    return create_model("Steps", steps=(conlist(Step, min_length=1, max_length=max_steps), ...))


def chunk_end(item: PlanItem, now: datetime) -> datetime:
    return min(item.end, now + timedelta(minutes=60))


def fallback_actions(spatial, item: PlanItem, start: datetime, end: datetime) -> list[Action]:
    minutes = max(1, int((end - start).total_seconds() // 60))
    where = pick_object(spatial, item.address, item.description)
    return [make_action(spatial, item.description, where, start, minutes)]


def validate_steps(raw_steps, spatial, item: PlanItem, start: datetime, end: datetime, resolve,
                   lo: int = 5, hi: int = 15) -> list[Action]:
    """Model steps -> actions that tile [start, end) exactly, at known places."""
    out: list[Action] = []
    t = start
    for r in raw_steps:
        left = int((end - t).total_seconds() // 60)
        if left <= 0:
            break
        desc = clean_text(r.activity, 60) or item.description
        minutes = min(max(int(r.minutes), lo), hi, left)
        addr = resolve(r.place)
        if not addr or not spatial.knows(addr):
            addr = pick_object(spatial, item.address, desc)  # never trust a place name
        elif addr.count(":") == 2:
            addr = pick_object(spatial, addr, desc)  # an arena: pick the object that suits
        out.append(make_action(spatial, desc, addr, t, minutes, getattr(r, "emoji", None)))
        t += timedelta(minutes=minutes)
    if not out:
        return fallback_actions(spatial, item, start, end)
    left = int((end - t).total_seconds() // 60)
    if left > 0:
        # The model stopped short: the rest of the chunk continues the plan item.
        out.append(make_action(spatial, item.description, pick_object(spatial, item.address, item.description),
                               t, left))
    return out
