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
from typing import Annotated, Literal

from pydantic import BaseModel, Field, WithJsonSchema, conlist, create_model

from agents import activity
from agents import emoji as emoji_vocab
from agents.types import Action

MEAL_HOURS = {"breakfast": (5, 11), "lunch": (11, 15), "dinner": (16, 23)}
MAX_ITEM_HOURS = 4.5  # the routine's longest stroke (afternoon work)
SLEEP_WORDS = ("sleep", "asleep", "nap", "to bed", "in bed")

# The emoji a resident shows come from the drawable vocabulary (agents/emoji.py).
EMOJIS = emoji_vocab.VOCABULARY

# What using things does to them -- ONE table (everyone perceives object states as events):
# object -> (state while an action uses it, words of an activity in its arena that
#            leave it in an after-use state, that state, for how many minutes)
OBJECT_USE: dict[str, tuple[str | None, tuple[str, ...], str | None, int]] = {
    "bed": ("occupied", (), None, 0),  # slept in or sat on
    "coffee machine": ("brewing coffee", (), None, 0),
    "stove": ("cooking", (), None, 0),
    "shower": ("running", (), None, 0),
    "tv": ("on", (), None, 0),
    "refrigerator": ("open", ("breakfast", "lunch", "dinner", "cook", "meal", "snack"), "running low", 180),
    "piano": ("being played", (), None, 0),
    "easel": ("holding a painting in progress", (), None, 0),
    "toilet": ("occupied", (), None, 0),
    "kitchen sink": ("running water", (), None, 0),
    "bathroom sink": ("running water", (), None, 0),
}
# object -> state while an action uses it (the first column of OBJECT_USE).
OBJECT_STATE = {k: v[0] for k, v in OBJECT_USE.items() if v[0]}
USUAL_STATES = frozenset({"idle", *OBJECT_STATE.values(), *(v[2] for v in OBJECT_USE.values() if v[2])})


def after_use(description: str, address: str, arena_objects) -> list[tuple[str, str, int]]:
    """(object, state, minutes) an action leaves behind in its arena once it ends:
    "having breakfast" in a kitchen leaves its refrigerator "running low" for 3 hours."""
    t = str(description or "").lower()
    if not t or is_sleep(t):
        return []
    out = []
    for obj in arena_objects:
        use = OBJECT_USE.get(obj)
        if use and use[2] and any(re.search(rf"\b{w}", t) for w in use[1]):
            out.append((obj, use[2], int(use[3])))
    return out


def unusual_state(state: str | None) -> bool:
    """A state nobody's ordinary use explains (a world edit: "burning", "leaking"):
    residents who see it react to it."""
    st = " ".join(str(state or "").lower().split())
    return bool(st) and st not in USUAL_STATES


# words of an activity -> objects that suit it, in order of preference.
OBJECT_HINTS = [
    (SLEEP_WORDS, ["bed"]),
    (("coffee", "espresso", "latte", "brew"), ["coffee machine", "cafe counter"]),
    (("eat", "having breakfast", "having lunch", "having dinner", "meal", "snack", "dining"), [
        "dining table", "cafe customer seating", "pub tables"]),
    (("cook", "breakfast", "making lunch", "making dinner", "make lunch", "make dinner", "prepar"), [
        "stove", "refrigerator", "dining table"]),
    (("dishes",), ["kitchen sink"]),
    (("fridge", "refrigerator", "groceries away"), ["refrigerator"]),
    (("shower", "bath"), ["shower"]),
    (("toilet",), ["toilet"]),
    (("brush", "wash", "get ready", "morning routine", "freshen"), ["bathroom sink", "shower"]),
    (("dishes",), ["kitchen sink"]),
    (("attend", "class", "lesson", "taking notes", "problems"), ["classroom student seating", "library tables", "desk"]),
    (("teach", "lecture"), ["lecturer's podium", "blackboard"]),
    (("bookshel", "brows"), ["bookshelves"]),
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


def emoji_for(text: str, proposed: str | None = None, address: str | None = None) -> str:
    """A drawable emoji: the keyword table first (reliable even with a weak model),
    then the model's own emoji if the game can draw it, then the place's, then a smile."""
    return emoji_vocab.emoji_for(text, proposed, activity.arena_kind(address) if address else None)


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
    return OBJECT_STATE.get(obj) if obj else None


def make_action(spatial, description: str, address: str, start: datetime, minutes: int,
                emoji: str | None = None) -> Action:
    return Action(description=description, address=address, start=start, duration_min=int(minutes),
                  emoji=emoji_for(description, emoji, address), object_state=object_state(address, description))


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


# A free-form day plan (times and places chosen by the model) and its validator. The
# mind now asks for the routine's slots instead (make_day_plan, below): with the
# embedded 135M model every free-form plan was rejected (breakfast at 20:00, a day
# starting at 18:30). Kept, and tested, for a stronger model.
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
    work = activity.work_title(persona)
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


# --------------------------------------------------------------------------------------
# the day plan on the routine's skeleton
# --------------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def slots_schema(times: tuple[str, ...]) -> type[BaseModel]:
    """{"07:00": activity, "07:30": activity, ...}: the times are the routine's (a
    135M model writes breakfast at 20:00 when it picks times), the words the model's."""
    fields = {f"t{k.replace(':', '')}": (short_text(60), Field(alias=k)) for k in times}
    return create_model("DayPlan", **fields)


def place_from_text(text: str, spatial, persona) -> str | None:
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


def plan_from_slots(got, routine_items: list[PlanItem], persona, spatial, day: datetime,
                    stats=None) -> list[PlanItem]:
    """The routine with each slot's words replaced by the model's where they are
    usable: verb-led, awake, at a fitting hour and place (else the routine's slot)."""
    out = []
    for x in routine_items[:-1]:
        raw = getattr(got, f"t{x.start:%H%M}", None)
        text = activity.clean_activity(raw or "", persona.name)
        addr = x.address
        if text:
            addr = place_from_text(text, spatial, persona) or x.address
            if is_sleep(text) or not activity.fits_time(text, x.start.hour) or not activity.fits_place(text, addr):
                text = None
        if stats is not None:
            stats["day_plan_slot"] += 1
            if text is None:
                stats["day_plan_slot_rejected"] += 1
            elif text == x.description:
                stats["day_plan_slot_copied"] += 1  # the usual day's words, kept
        out.append(PlanItem(x.start, 0, text or x.description, addr if text else x.address))
    last = routine_items[-1]
    return _close(out + [PlanItem(last.start, 0, last.description, last.address)], persona, day)


def make_day_plan(m, day: datetime, routine_items: list[PlanItem], directives=()) -> list[PlanItem]:
    """One call: today's plan on the routine's times (see slots_schema); ``directives``:
    the inner voice's thoughts the plan must make time for (in the prompt)."""
    awake = routine_items[:-1]
    times = tuple(f"{x.start:%H:%M}" for x in awake)
    schema = slots_schema(times)
    typical = json.dumps({f"{x.start:%H:%M}": x.description for x in awake})
    fb = schema.model_construct()  # recognised by identity: then the routine is the plan
    got = m.ask(schema, "day_plan", "day_plan", fb, yesterday=m.yesterday, typical=typical,
                date=f"{m.now:%A %B %d}", wake=f"{day:%H:%M}", directive=directive_line(m.persona, directives))
    if got is fb:
        return routine_items
    return plan_from_slots(got, routine_items, m.persona, m.spatial, day, m.rejected)


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
# A free-text field whose JSON schema carries maxLength (llama.cpp's grammar then
# stops a rambling small model; measured no slower per token here) while
# validation stays lenient: a hosted model's longer answer is trimmed, not refused.
def short_text(n: int):
    return Annotated[str, WithJsonSchema({"type": "string", "maxLength": n})]


MINUTES = (5, 10, 15)


@lru_cache(maxsize=1024)
def steps_schema(labels: tuple[str, ...], max_steps: int) -> type[BaseModel]:
    """Steps of a plan item: the activity (short free text), minutes (enumerated) and
    the object used (enumerated from the item's arena). No emoji: the keyword table
    picks a drawable one more reliably than a small model, and saves tokens."""
    Place = Literal[tuple(labels)]
    Step = create_model("Step", activity=(short_text(60), ...), minutes=(Literal[MINUTES], ...),
                        place=(Place, ...))
    return create_model("Steps", steps=(conlist(Step, min_length=1, max_length=max_steps), ...))


def chunk_end(item: PlanItem, now: datetime) -> datetime:
    return min(item.end, now + timedelta(minutes=60))


def fallback_texts(spatial, item: PlanItem, persona=None) -> list[str]:
    """Varied, persona-specific steps of a plan item that fit its place."""
    if persona is None:
        return [item.description]
    kind = activity.arena_kind(item.address)
    texts = [t for t in activity.item_steps(item.description, kind, persona)
             if activity.fits_place(t, item.address)]
    return texts or [item.description]


def fallback_actions(spatial, item: PlanItem, start: datetime, end: datetime, persona=None,
                     step_min: int = 15) -> list[Action]:
    minutes = max(1, int((end - start).total_seconds() // 60))
    if persona is None or minutes < 2 * 5:
        where = pick_object(spatial, item.address, item.description)
        return [make_action(spatial, item.description, where, start, minutes)]
    out, t = [], start
    for text, m in activity.fallback_steps(item.description, item.address, persona, minutes, step_min):
        out.append(make_action(spatial, text, pick_object(spatial, item.address, text), t, m))
        t += timedelta(minutes=m)
    return out


def step_text(raw: str, item: PlanItem, address: str, t: datetime, name: str = "") -> str | None:
    """The model's step as a timeline text, or None when it is junk or does not fit."""
    text = activity.clean_activity(raw, name)
    if text is None:
        return None
    if not activity.fits_place(text, address) or not activity.fits_time(text, t.hour):
        return None
    if is_sleep(text) != is_sleep(item.description):
        return None  # a nap in the middle of work, or "reading" for a night's sleep
    return text


def validate_steps(raw_steps, spatial, item: PlanItem, start: datetime, end: datetime, resolve,
                   lo: int = 5, hi: int = 15, persona=None, stats=None) -> list[Action]:
    """Model steps -> actions that tile [start, end) exactly, in the item's arena.
    A junk or misplaced step is replaced by a fallback step of the item (and
    counted in stats["decompose_step"]); repeats are merged."""
    name = persona.name if persona is not None else ""
    spare = [x for x in fallback_texts(spatial, item, persona)]
    examples = set(spare[:2])
    arena = spatial.arena_of(item.address) if item.address.count(":") >= 2 else item.address
    out: list[Action] = []
    t = start

    def add(text: str, addr: str, minutes: int) -> None:
        if out and out[-1].description == text:
            out[-1].duration_min += minutes  # the same thing again: one longer action
        else:
            out.append(make_action(spatial, text, addr, t, minutes))

    for r in raw_steps:
        left = int((end - t).total_seconds() // 60)
        if left <= 0:
            break
        minutes = min(max(int(r.minutes), lo), hi, left)
        addr = resolve(r.place) if resolve else None
        if not addr or not spatial.knows(addr) or spatial.arena_of(addr) != arena:
            addr = None  # steps happen where the plan item is: never trust a place name
        text = step_text(r.activity, item, addr or item.address, t, name)
        if stats is not None:
            stats["decompose_step"] += 1
            if text is None:
                stats["decompose_step_rejected"] += 1
            elif text in examples:
                stats["decompose_step_copied"] += 1  # the prompt's example, word for word
        if text is None:
            text = spare.pop(0) if len(spare) > 1 else spare[0]
        hint = pick_object(spatial, item.address, text)
        add(text, hint if hint != item.address or not addr else addr, minutes)
        t += timedelta(minutes=minutes)
    if not out:
        return fallback_actions(spatial, item, start, end, persona, hi)
    left = int((end - t).total_seconds() // 60)
    if left > 0:
        # The model stopped short: the rest of the chunk continues the plan item,
        # with the persona's steps it has not done yet.
        done = {a.description for a in out}
        todo = [x for x in spare if x not in done] or [item.description]
        n = max(1, min(len(todo), -(-left // hi)))
        for i, text in enumerate(todo[:n]):
            d = left if i == n - 1 else max(lo, min(hi, 5 * round(left / (n - i) / 5)))
            add(text, pick_object(spatial, item.address, text), d)
            t += timedelta(minutes=d)
            left -= d
    return out


def decompose(m, item: PlanItem, start: datetime, end: datetime, minutes: int) -> list[Action]:
    """One call: the 5-15 minute steps of the chunk [start, end) of a plan item."""
    sp, s = m.spatial, m.settings
    objs = sp.objects(item.address) or [item.address]
    labels = [o.rsplit(":", 1)[1] if o.count(":") >= 3 else sp.label(o) for o in objs]
    resolve = dict(zip(labels, objs)).get
    max_steps = max(1, min(4, -(-minutes // s.action_max_minutes)))
    schema = steps_schema(tuple(labels), max_steps)
    examples = fallback_texts(sp, item, m.persona)[:2]
    example = json.dumps({"steps": [{"activity": e, "minutes": 10, "place": pick_object(
        sp, item.address, e).rsplit(":", 1)[-1] if pick_object(sp, item.address, e).count(":") >= 3 else labels[0]}
        for e in examples]}, ensure_ascii=False)
    mems = "\n".join(f"- {x.description}" for x in m.retrieve(item.description, k=3)) or "- (nothing)"
    fb = schema.model_construct(steps=[])  # recognised by identity: then the fallback steps
    got = m.ask(schema, "decompose", "decompose", fb, start=f"{start:%H:%M}", end=f"{end:%H:%M}",
                activity=item.description, place=sp.label(item.address), example=example,
                now_doing=m._doing(), memories=mems, minutes=minutes)
    if got is fb:
        return fallback_actions(sp, item, start, end, m.persona, s.action_max_minutes)
    return validate_steps(got.steps, sp, item, start, end, resolve, s.action_min_minutes,
                          s.action_max_minutes, persona=m.persona, stats=m.rejected)


# --------------------------------------------------------------------------------------
# the inner voice (paper section 3.1.2): a directive the resident plans around
# --------------------------------------------------------------------------------------
_STOPWORDS = frozenset(
    "a an and are as at be by for from has have he her his i in is it its of on or she that the their them they "
    "this to was were will with you your my me am going want need about into some today tonight tomorrow".split())
_LEADS = re.compile(r"^(?:i am|i'm|i will|i'll|i shall|i must|i should|i need to|i want to|i have to|i plan to|"
                    r"i have decided to|i've decided to|i decide to|i|to)\s+(?:going to\s+|gonna\s+|to\s+)?", re.I)
_DOUBLE = {"run", "plan", "stop", "sit", "get", "shop", "put", "set", "swim", "win", "begin", "chat", "jog", "hug",
           "cut", "hit", "let", "dig", "drop", "skip", "clap", "spin", "grab", "map", "admit", "forget", "prefer"}


def first_person(text: str) -> str:
    """The inner voice in the resident's own words: "You are going to run ..." -> "I am going to run ..."."""
    t = " ".join(str(text or "").split()).strip().rstrip(".!")
    if not t:
        return ""
    subs = [(r"^you are\b", "I am"), (r"^you're\b", "I'm"), (r"^you will\b", "I will"), (r"^you'll\b", "I'll"),
            (r"^you\b", "I"), (r"\byourself\b", "myself"), (r"\byours\b", "mine"), (r"\byour\b", "my"),
            (r"\byou are\b", "I am"), (r"\byou\b", "me")]
    for rx, rep in subs:
        t = re.sub(rx, rep, t, flags=re.I)
    if not re.match(r"^(i|i'm|i'll|i've|my)\b", t, re.I):
        t = "I am going to " + t[0].lower() + t[1:]  # an order ("Run for mayor") becomes an intention
    return t[0].upper() + t[1:]


def _gerund(verb: str) -> str:
    v = verb.lower()
    if v.endswith("ing") and len(v) > 4:
        return v
    if v in ("be",):
        return "being"
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v in _DOUBLE:
        return v + v[-1] + "ing"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")):
        return v[:-1] + "ing"
    return v + "ing"


def directive_activity(thought: str, first_name: str = "") -> str:
    """A plan item's words for a directive: "I am going to run against Sam in the election"
    -> "running against Sam in the election"."""
    t = _LEADS.sub("", thought.strip().rstrip(".!"), count=1).strip()
    if not t:
        return clean_text(thought, 80)
    words = t.split()
    if words[0].lower() in ("a", "an", "the", "my") or words[0][:1].isupper():  # "I am a candidate ..."
        words = ["working", "on", "being"] + words if words[0].lower() in ("a", "an") else ["thinking", "about"] + words
    else:
        words[0] = _gerund(words[0])
    own = f"{first_name}'s" if first_name else "their"
    out = " ".join(own if w.lower() == "my" else (first_name or "them") if w.lower() == "me" else
                   "themselves" if w.lower() == "myself" else w for w in words)
    return clean_text(out, 80)


def keywords(text: str) -> set[str]:
    return {w.rstrip("s") for w in re.findall(r"[a-z0-9']+", text.lower()) if len(w) > 2 and w not in _STOPWORDS}


def mentions(plan: list[PlanItem], thought: str, after: datetime | None = None) -> PlanItem | None:
    """The first plan item (from `after` on) whose words share a key word of the thought."""
    # The words after the verb: "running" alone would match "running the cafe".
    act = directive_activity(thought).split()
    keys = keywords(" ".join(act[1:])) or keywords(" ".join(act))
    keys -= {"working", "thinking", "being", "plan", "planning", "on", "about"}
    for it in plan:
        if after is not None and it.end <= after:
            continue
        if keys & keywords(it.description):
            return it
    return None


def free_slot(plan: list[PlanItem], now: datetime) -> PlanItem | None:
    """The first awake, non-meal plan item that has time left from `now` on."""
    for it in plan:
        if it.end <= now + timedelta(minutes=10) or is_sleep(it.description) or _is_meal(it.description):
            continue
        return it
    return None


def insert_directive(plan: list[PlanItem], now: datetime, text: str, address: str,
                     minutes: int = 60) -> list[PlanItem]:
    """The directed activity into the next free slot (what it overlaps is cut)."""
    slot = free_slot(plan, now)
    if slot is None:
        return plan
    start = max(now, slot.start)
    minutes = max(10, min(minutes, int((slot.end - start).total_seconds() // 60)))
    cut = insert_reaction(plan, start, text, minutes, address)
    return cut


def replan_from_now(m, now: datetime, directives) -> list[PlanItem]:
    """Today's plan from `now` on, asked again with the directive in the prompt (one
    call; the slots are the remaining items' start times). What is already done stays."""
    plan = m.plan
    cur = item_at(plan, now)
    later = [x for x in plan if x.start > now]
    if cur is None or is_sleep(cur.description) or not later:
        return plan
    done = [x for x in plan if x.end <= now]
    head = []
    if cur.start < now:
        head = [PlanItem(cur.start, int((now - cur.start).total_seconds() // 60), cur.description, cur.address)]
    rest = [PlanItem(now, 0, cur.description, cur.address)] + [
        PlanItem(x.start, 0, x.description, x.address) for x in later]
    if not is_sleep(rest[-1].description):
        return plan
    awake = rest[:-1]
    times = tuple(f"{x.start:%H:%M}" for x in awake)
    schema = slots_schema(times)
    typical = json.dumps({f"{x.start:%H:%M}": x.description for x in awake})
    fb = schema.model_construct()
    day = now.replace(hour=m.persona.wake_hour, minute=0, second=0, microsecond=0)
    got = m.ask(schema, "day_plan", "day_plan", fb, yesterday=m.yesterday, typical=typical,
                date=f"{now:%A %B %d}", wake=f"{day:%H:%M}", directive=directive_line(m.persona, directives))
    if got is fb:
        return plan
    new = plan_from_slots(got, rest, m.persona, m.spatial, day, m.rejected)
    return sorted(done + head + new, key=lambda x: x.start)


def directive_line(persona, thoughts) -> str:
    if not thoughts:
        return ""
    said = "; ".join(f'"{t}"' for t in thoughts)
    return (f"Something special today: {persona.first_name} has decided {said}. "
            f"{persona.first_name}'s plan must make time for it.\n")
