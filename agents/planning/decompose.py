"""Decomposition (paper section 4.3): the hour chunk of a plan item at hand
becomes 5-15 minute actions, each at an object the model picks from the ones
the resident knows in the item's place. One call per chunk, made when the
chunk begins (or ahead of it in the window: agents/planning/day.py prepare_chunk), none
for a chunk of an activity it made steps for earlier today. Junk steps are replaced by the resident's own plausible
steps; every action says where it came from. A small model (the guided mode
with grounded answers, agents.recall.grounding.chooses) chooses the steps among candidates
that fit the chunk (step_candidates) instead of writing them."""
from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Literal, Protocol

from pydantic import BaseModel, conlist, create_model

from agents.explain import provenance as pv
from agents.planning.object_use import is_sleep, make_action, object_activities, object_fits, pick_object
from agents.planning.plan import OWN_KINDS, PlanItem, chosen_tag
from agents.recall.grounding import chooses
from agents.recall.spatial import SpatialMemory
from agents.recall.thinking import Thinking
from agents.residents.persona import Persona
from agents.support.types import Action
from agents.words import activity
from agents.words.text import short_text

MINUTES = (5, 10, 15)


class Decomposer(Thinking, Protocol):
    """What decomposition needs of a mind (agents.model.services.Thinking), and its planning mode
    (a small model chooses steps instead of writing them: agents.recall.grounding.chooses)."""

    @property
    def guided(self) -> bool:
        ...

    @property
    def grounded(self) -> bool:
        ...


@lru_cache(maxsize=1024)
def steps_schema(labels: tuple[str, ...], max_steps: int, min_steps: int = 1) -> type[BaseModel]:
    """Steps of a plan item: the activity (short free text), minutes (enumerated) and
    the object used (enumerated from the item's arena). No emoji: the keyword table
    picks a drawable one more reliably than a small model, and saves tokens. At least
    ``min_steps``: enough 15-minute steps to fill the chunk (a small model stops after
    one step when it may)."""
    step: dict[str, Any] = dict(activity=(short_text(60), ...), minutes=(Literal[MINUTES], ...),
                                place=(Literal[tuple(labels)], ...))
    Step = create_model("Step", **step)
    return create_model("Steps", steps=(conlist(Step, min_length=min_steps, max_length=max_steps), ...))


def _stretch(raw_steps: list[Any], minutes: int, hi: int) -> list[int]:
    """The steps' minutes, lengthened evenly (to ``hi`` at most) where they fall short of
    the chunk: "10, 10, 10, 10" for an hour becomes "15, 15, 15, 15"."""
    got = [int(r.minutes) for r in raw_steps]
    short = minutes - sum(got)
    while short > 0 and any(m < hi for m in got):
        for i in range(len(got)):
            if short <= 0:
                break
            if got[i] < hi:
                add = min(5, hi - got[i], short)
                got[i] += add
                short -= add
    return got


def chunk_end(item: PlanItem, now: datetime) -> datetime:
    return min(item.end, now + timedelta(minutes=60))


def fallback_texts(item: PlanItem, persona: Persona | None = None) -> list[str]:
    """Varied, persona-specific steps of a plan item that fit its place."""
    if persona is None:
        return [item.description]
    kind = activity.arena_kind(item.address)
    texts = [t for t in activity.item_steps(item.description, kind, persona)
             if activity.fits_place(t, item.address)]
    return texts or [item.description]


def fallback_actions(spatial: SpatialMemory, item: PlanItem, start: datetime, end: datetime,
                     persona: Persona | None = None,
                     step_min: int = 15, source: str = "") -> list[Action]:
    """The routine's steps of a plan item (or the item itself, for a short chunk)."""
    minutes = max(1, int((end - start).total_seconds() // 60))
    if persona is None or minutes < 2 * 5:
        where = pick_object(spatial, item.address, item.description)
        return [make_action(spatial, item.description, where, start, minutes, source=source or item.source)]
    out, t = [], start
    for text, m in activity.fallback_steps(item.description, item.address, persona, minutes, step_min):
        out.append(make_action(spatial, text, pick_object(spatial, item.address, text), t, m, source=source))
        t += timedelta(minutes=m)
    return out


def step_problem(text: str | None, item: PlanItem, address: str, t: datetime) -> str | None:
    """Why the model's step cannot be used as written, or None."""
    if text is None:
        return "not an activity"
    if not activity.fits_place(text, address):
        return f"{text} does not fit {address.split(':', 1)[-1]}"
    if not activity.fits_time(text, t.hour):
        return f"{text} at {t:%H:%M}"
    if is_sleep(text) != item.sleep:  # the model's step, read from its words
        return "sleeping in the middle of the day" if is_sleep(text) else "awake in a night's sleep"
    return None


def validate_steps(raw_steps: list[Any], spatial: SpatialMemory, item: PlanItem, start: datetime, end: datetime,
                   resolve: Callable[[str], str | None] | None, lo: int = 5, hi: int = 15,
                   persona: Persona | None = None, stats: Counter | None = None,
                   examples: Collection[str] = ()) -> list[Action]:
    """Model steps -> actions that tile [start, end) exactly, in the item's arena.
    The model's object is kept where it suits the step; a junk or misplaced step is
    replaced by one of the resident's own steps of the item (provenance "rule");
    repeats are merged. ``examples``: the prompt's example steps; a step that copies
    one, or the plan item's own words, has the plan item's provenance (the routine's
    words are the routine's, whoever repeats them)."""
    name = persona.name if persona is not None else ""
    spare = fallback_texts(item, persona)
    arena = spatial.arena_of(item.address) if item.address.count(":") >= 2 else item.address
    out: list[Action] = []
    t = start

    def add(text: str, addr: str, minutes: int, source: str) -> None:
        if out and out[-1].description == text and out[-1].address == addr:
            out[-1].duration_min += minutes  # the same thing again: one longer action
        else:
            out.append(make_action(spatial, text, addr, t, minutes, source=source))

    wanted = _stretch(raw_steps, int((end - start).total_seconds() // 60), hi)
    for r, want in zip(raw_steps, wanted):
        left = int((end - t).total_seconds() // 60)
        if left <= 0:
            break
        minutes = min(max(want, lo), hi, left)
        addr = resolve(r.place) if resolve else None
        if addr and (not spatial.knows(addr) or spatial.arena_of(addr) != arena):
            addr = None  # steps happen where the plan item is: never trust a place name
        text = activity.clean_activity(r.activity, name)
        why = step_problem(text, item, addr or item.address, t)
        if stats is not None:
            stats["decompose_step"] += 1
        if why is not None or text is None:  # text is None only with a why
            if stats is not None:
                stats["decompose_step_rejected"] += 1
            text = spare.pop(0) if len(spare) > 1 else spare[0]
            add(text, pick_object(spatial, item.address, text), minutes, pv.tag(pv.RULE, f"{pv.INVALID}: {why}"))
        else:
            source = pv.MODEL
            if text in examples or text == item.description:
                # The prompt's example (the plan item's own words): the words are the item's,
                # so is their provenance (the routine's words when the item is the routine's).
                if stats is not None:
                    stats["decompose_step_copied"] += 1
                source = pv.combine(item.source, pv.MODEL)
            if not addr or not object_fits(text, addr):
                hint = pick_object(spatial, item.address, text)
                if addr and hint != addr:
                    source = pv.combine(source, pv.tag(pv.REPAIRED, f"{addr.rsplit(':', 1)[-1]} -> "
                                                                     f"{hint.rsplit(':', 1)[-1]}"))
                addr = hint if object_fits(text, hint) else item.address
            add(text, addr, minutes, source)
        t += timedelta(minutes=minutes)
    if not out:
        return fallback_actions(spatial, item, start, end, persona, hi, pv.tag(pv.ROUTINE, pv.INVALID))
    left = int((end - t).total_seconds() // 60)
    if 0 < left < lo:
        out[-1].duration_min += left  # minutes come in fives: the last step runs on to the chunk's end
        left = 0
    if left > 0:
        # The model stopped short: the rest of the chunk continues the plan item,
        # with the resident's own steps it has not done yet.
        done = {a.description for a in out}
        todo = [x for x in spare if x not in done] or [item.description]
        n = max(1, min(len(todo), -(-left // hi)))
        src = pv.tag(pv.RULE, "the model's steps stopped short")
        for i, text in enumerate(todo[:n]):
            d = left if i == n - 1 else max(lo, min(hi, 5 * round(left / (n - i) / 5)))
            add(text, pick_object(spatial, item.address, text), d, src)
            t += timedelta(minutes=d)
            left -= d
    return out


# --------------------------------------------------------------------------------------
# a small model chooses the steps among candidates
# --------------------------------------------------------------------------------------
MAX_STEP_CHOICES = 6


def step_candidates(spatial: SpatialMemory, item: PlanItem, start: datetime, end: datetime,
                    persona: Persona | None = None, memories: Sequence[str] = (),
                    limit: int = MAX_STEP_CHOICES) -> list[tuple[str, str]]:
    """(words, address) of steps that fit the chunk [start, end) of ``item``: the item's
    own words first unless the resident knows at least two steps of it; its own doings
    in ``memories`` (not for a meal or in the bathroom); its own steps of the item; what
    the place's objects that suit the item are for. Each at an object that suits it,
    else the arena; each passes step_problem at the chunk's first and last minute; no
    two alike; at most ``limit``."""
    name = persona.name if persona is not None else ""
    arena = spatial.arena_of(item.address) if item.address.count(":") >= 2 else item.address
    kind = activity.arena_kind(arena)
    last = max(start, end - timedelta(minutes=1))

    def usable(text: str | None) -> bool:
        return bool(text) and not step_problem(text, item, arena, start) and not step_problem(text, item, arena, last)

    gathering = gathering_steps(item.description)
    raw: list[tuple[str, str | None]] = []
    if gathering is not None:  # its own words and a gathering's steps only: it is seen to happen
        raw += [(item.description, None)] + [(t, None) for t in gathering]
    else:
        known = [t for t in (activity.item_steps(item.description, kind, persona) if persona is not None else [])
                 if t != item.description]
        if sum(usable(activity.clean_activity(t, name)) for t in known) < 2:
            raw.append((item.description, None))  # a plan item the resident knows no steps of: its own words
        if persona is not None and kind != "bathroom" and not item.meal:
            own = [t for t in (activity.own_activity(x, name) for x in memories) if t]
            raw += [(t, None) for t in own[:2]]
        raw += [(t, None) for t in known]
        raw += [(t, o) for t, o in object_activities(spatial, arena, item.description)]
    out: list[tuple[str, str]] = []
    for words, obj in raw:
        text = activity.clean_activity(words, name) if words != item.description else words
        if not text or not usable(text) or any(text == t for t, _ in out):
            continue
        out.append((text, obj if obj and object_fits(text, obj) else pick_object(spatial, arena, text)))
    return out[:limit]


_GATHERING = re.compile(r"^(hosting|attending) the ")
HOST_STEPS = ("greeting the guests at the door", "chatting with the guests")
GUEST_STEPS = ("greeting the host", "chatting with the other guests")


def gathering_steps(description: str) -> list[str] | None:
    """The steps of a gathering one hosts or attends (an arrangement, an engagement: "hosting
    the study group"), or None for anything else. The words' own steps (activity.item_steps)
    know parties only: 'hosting the study group' in the classroom had a student's class steps,
    and Maria 'attended a physics lecture' through her own study group."""
    found = _GATHERING.match(description)
    if found is None:
        return None
    if re.search(activity.EVENT_RX, description.lower()):
        return None  # a party: item_steps knows its steps
    return list(HOST_STEPS if found.group(1) == "hosting" else GUEST_STEPS)


@lru_cache(maxsize=1024)
def choice_steps_schema(options: tuple[str, ...], n: int) -> type[BaseModel]:
    """{"steps": [n of ``options``]}: the grammar lets the model write nothing else."""
    choice: Any = Literal[options]
    fields: dict[str, Any] = {"steps": (conlist(choice, min_length=n, max_length=n), ...)}
    return create_model("StepChoice", **fields)


def split_minutes(minutes: int, n: int, lo: int = 5, hi: int = 15) -> list[int]:
    """``n`` step lengths in fives (``lo``-``hi``) that add up to ``minutes``; the last takes the rest."""
    out, left = [], minutes
    for i in range(n):
        d = left if i == n - 1 else max(lo, min(hi, 5 * round(left / (n - i) / 5)))
        out.append(d)
        left -= d
    return [d for d in out if d > 0] or [minutes]


def chosen_actions(picks: Sequence[str], offered: list[tuple[str, str]], spatial: SpatialMemory, item: PlanItem,
                   start: datetime, end: datetime, persona: Persona | None = None, lo: int = 5, hi: int = 15,
                   stats: Counter | None = None) -> list[Action]:
    """The model's choices among ``offered`` as actions that tile [start, end), the
    lengths by rule, repeats merged. A choice that is not one offered (the grammar
    prevents it; a model without one may not) is one of the resident's own steps, by rule."""
    where = dict(offered)
    picks = list(picks) or [""]
    lengths = split_minutes(int((end - start).total_seconds() // 60), len(picks), lo, hi)
    spare = fallback_texts(item, persona)
    chosen = chosen_tag(len(offered), "")
    out: list[Action] = []
    t = start
    for pick, minutes in zip(picks, lengths):
        if stats is not None:
            stats["decompose_step"] += 1
        if pick in where:
            text, addr = pick, where[pick]
            source = pv.combine(item.source, chosen) if text == item.description else chosen
            if stats is not None and text == item.description:
                stats["decompose_step_copied"] += 1
        else:
            if stats is not None:
                stats["decompose_step_rejected"] += 1
            text = spare.pop(0) if len(spare) > 1 else spare[0]
            addr = pick_object(spatial, item.address, text)
            source = pv.tag(pv.RULE, f"{pv.INVALID}: not one of the options")
        if out and out[-1].description == text and out[-1].address == addr:
            out[-1].duration_min += minutes
        else:
            out.append(make_action(spatial, text, addr, t, minutes, source=source))
        t += timedelta(minutes=minutes)
    return out


def decompose_by_choice(m: Decomposer, item: PlanItem, start: datetime, end: datetime, minutes: int,
                        memories: list[str], mem_lines: str) -> list[Action]:
    """One call: the model chooses the chunk's steps among step_candidates (no call
    when fewer than two fit: the resident's own steps, by rule)."""
    sp, s = m.spatial, m.settings
    offered = step_candidates(sp, item, start, end, m.persona, memories)
    if len(offered) < 2:
        m.rejected["decompose_no_choice"] += 1
        return fallback_actions(sp, item, start, end, m.persona, s.action_max_minutes,
                                pv.tag(pv.RULE, "nothing to choose"))
    n = max(1, min(4, -(-minutes // s.action_max_minutes)))
    options = tuple(t for t, _ in offered)
    got, why = m.ask(choice_steps_schema(options, n), "decompose_choose", "decompose", None,
                     start=f"{start:%H:%M}", end=f"{end:%H:%M}", activity=item.description,
                     place=sp.label(item.address), now_doing=m.doing(), memories=mem_lines, minutes=minutes, n=n,
                     options="\n".join(f"- {t}" for t in options))
    if why is not None:
        m.note_fallback("actions", why)
        return fallback_actions(sp, item, start, end, m.persona, s.action_max_minutes,
                                pv.tag(pv.ROUTINE, pv.reason_of_failure(why)))
    return chosen_actions(list(getattr(got, "steps", None) or []), offered, sp, item, start, end, m.persona,
                          s.action_min_minutes, s.action_max_minutes, m.rejected)


def reuse_key(item: PlanItem, start: datetime) -> str:
    """Steps are made again for the same activity at the same place on the same day only."""
    return f"{start:%Y-%m-%d} {item.address} {item.description}"


def reused_steps(made: dict[str, list[Action]], item: PlanItem, start: datetime, end: datetime,
                 lo: int = 5, hi: int = 15) -> list[Action]:
    """The steps the resident made for this plan item earlier today, laid over the chunk
    [start, end) (as many as fit, lengths by rule; [] when there are none). The words
    and objects stay the model's (repaired: reused, and from when)."""
    earlier = made.get(reuse_key(item, start)) or []
    if not earlier:
        return []
    minutes = int((end - start).total_seconds() // 60)
    n = max(1, min(len(earlier), -(-minutes // hi)))
    out: list[Action] = []
    t = start
    for a, d in zip(earlier[:n], split_minutes(minutes, n, lo, hi)):
        source = pv.tag(pv.REPAIRED, f"the steps it chose for this at {a.start:%H:%M}, again")
        if out and out[-1].description == a.description and out[-1].address == a.address:
            out[-1].duration_min += d
        else:
            out.append(Action(a.description, a.address, t, d, a.emoji, a.object_state, source=source, kind=a.kind))
        t += timedelta(minutes=d)
    return out


def _made_today(m: Any) -> dict[str, list[Action]] | None:
    """The mind's record of steps made today (``Today.steps_made``); None for a mind without one."""
    made = getattr(getattr(m, "today", None), "steps_made", None)
    return made if isinstance(made, dict) else None


def decompose(m: Decomposer, item: PlanItem, start: datetime, end: datetime, minutes: int) -> list[Action]:
    """One call: the 5-15 minute steps of the chunk [start, end) of a plan item (chosen
    among candidates by a small model: decompose_by_choice). No call when the resident
    made steps for the same activity at the same place earlier today and the model
    chose them (``reused_steps``): a four-hour shift costs one call, not four."""
    made = _made_today(m)
    if made is not None:
        again = reused_steps(made, item, start, end, m.settings.action_min_minutes, m.settings.action_max_minutes)
        if again:
            return again
    acts = _decompose(m, item, start, end, minutes)
    if made is not None and acts and all(pv.model_led(a.source) for a in acts):
        day = f"{start:%Y-%m-%d}"
        for k in [k for k in made if not k.startswith(day)]:
            del made[k]  # another day's steps: never reused
        made[reuse_key(item, start)] = [replace(a) for a in acts]
    return acts


def _decompose(m: Decomposer, item: PlanItem, start: datetime, end: datetime, minutes: int) -> list[Action]:
    sp, s = m.spatial, m.settings
    if chooses(m):
        nodes = m.retrieve(item.description, k=3)
        mems = "\n".join(f"- {x.description}" for x in nodes) or "- (nothing)"
        own = [x.description for x in nodes if x.kind in OWN_KINDS]
        return decompose_by_choice(m, item, start, end, minutes, own, mems)
    objs = sp.objects(item.address) or [item.address]
    labels = [o.rsplit(":", 1)[1] if o.count(":") >= 3 else sp.label(o) for o in objs]
    resolve = dict(zip(labels, objs)).get
    max_steps = max(1, min(4, -(-minutes // s.action_max_minutes)))
    schema = steps_schema(tuple(labels), max_steps, max_steps)
    # The example is the plan item's own words (a small model copies examples word for word:
    # routine steps shown here came back as most of its "own" actions).
    examples = [item.description]

    def label_of(text: str) -> str:
        o = pick_object(sp, item.address, text)
        return o.rsplit(":", 1)[-1] if o.count(":") >= 3 else labels[0]

    example = json.dumps({"steps": [{"activity": e, "minutes": 10, "place": label_of(e)} for e in examples]},
                         ensure_ascii=False)
    mems = "\n".join(f"- {x.description}" for x in m.retrieve(item.description, k=3)) or "- (nothing)"
    got, why = m.ask(schema, "decompose", "decompose", None, start=f"{start:%H:%M}", end=f"{end:%H:%M}",
                     activity=item.description, place=sp.label(item.address), example=example,
                     now_doing=m.doing(), memories=mems, minutes=minutes)
    if why is not None:
        m.note_fallback("actions", why)
        return fallback_actions(sp, item, start, end, m.persona, s.action_max_minutes,
                                pv.tag(pv.ROUTINE, pv.reason_of_failure(why)))
    return validate_steps(got.steps, sp, item, start, end, resolve, s.action_min_minutes, s.action_max_minutes,
                          persona=m.persona, stats=m.rejected, examples=set(examples))
