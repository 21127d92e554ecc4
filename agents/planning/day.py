"""A resident's day (paper section 4.3): at wake-up, yesterday in a sentence, a
fresh summary of who the resident is lately, and the day's plan (the paper's
or the guided one); through the day, the next action (the chunk at hand
decomposed lazily, asleep outside the plan). The day's state is
agents/planning/today.py; these functions change it for the mind they are given."""
from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel

from agents.explain import provenance as pv
from agents.planning import agenda, stories
from agents.planning import inner_voice as voice
from agents.planning import plan as planning
from agents.planning.arrangements import arranged_lines, keep_arrangements
from agents.planning.decompose import chunk_end, decompose, fallback_actions, reuse_key
from agents.planning.items import SLEEP, plan_source
from agents.planning.object_use import make_action, pick_object
from agents.planning.replan import replan_guided
from agents.recall.grounding import chooses
from agents.recall.memory import MemoryNode
from agents.support.types import Action
from agents.words.text import clean_text


class Summary(BaseModel):
    summary: str  # truncated by the caller (a maxLength grammar is slow)
    cut_off_keeps_sentences: ClassVar[bool] = True  # agents/model/answers.py: an answer cut off still holds


class DayMind(voice.Directed, stories.Storyteller, Protocol):
    """What the day needs of a mind (besides planning and the inner voice)."""

    identity: str
    summary: str
    summary_day: date | None

    def remember(self, kind: str, text: str, importance: int, **fields: Any) -> MemoryNode | None:
        ...


def refresh_summary(m: DayMind) -> None:
    n = m.name
    seen: dict[int, MemoryNode] = {}
    for q in (f"{n}'s core characteristics", f"{n}'s current daily occupation",
              f"{n}'s feeling about recent progress in life"):
        for x in m.retrieve(q, k=4):
            seen.setdefault(x.id, x)
    memories = "\n".join(f"- {x.description}" for x in list(seen.values())[:10]) or "- (nothing yet)"
    core = "; ".join(m.persona.phrases[:2])
    fb = Summary(summary="; ".join(m.persona.phrases[2:4]))
    got, why = m.ask(Summary, "summary", "summary", fb, memories=memories)
    if why is not None:
        m.note_fallback("summary", why)
    text = clean_text(got.summary, 200) or fb.summary
    # Identity and occupation stay the seed's words; the model adds current concerns,
    # so a weak model's slip cannot erase who the resident is.
    m.summary = f"{m.identity} {core}. Lately: {text}"
    m.summary_day = m.now.date()


def summarise_yesterday(m: DayMind) -> None:
    """What actually happened yesterday (actions and conversations), in the model's words."""
    today = m.today
    if not today.log and not today.chats:
        return
    rule = yesterday_rule(today.log, today.chats)
    if chooses(m):  # a small model's free summary was made up ("2019-02-07: Isabella ... wanted to spend more
        m.yesterday = rule  # time with her children"): what it did and whom it talked with, by rule
        return
    day = m.now - timedelta(days=1)
    got, why = m.ask(Summary, "yesterday", "yesterday", Summary(summary=rule), date=f"{day:%A %B %d}",
                     log=log_lines(today.log),
                     chats="\n".join(f"- {clip(c, CHAT_CHARS)}" for c in today.chats[-YESTERDAY_CHATS:]) or "- (none)")
    if why is not None:
        m.note_fallback("yesterday", why)
    m.yesterday = clean_text(got.summary, 400) or rule


def needs_day_plan(m: DayMind) -> bool:
    now = m.now
    if m.today.planned_for == now.date():
        return False
    wake = now.replace(hour=m.persona.wake_hour, minute=0, second=0, microsecond=0)
    return now >= wake or not m.today.plan  # wake-up, or the story starts


def new_day(m: DayMind, directives: Sequence[str] = ()) -> None:
    today, now = m.today, m.now
    if today.plan:
        summarise_yesterday(m)
    today.chats, today.log, today.considered, today.recapped = [], [], [], []
    today.arrangements = [a for a in today.arrangements if a.start.date() >= now.date()]
    refresh_summary(m)
    day = planning.wake_time(m.persona, now)
    stories.maybe_start(m, day)  # a gathering of its own today, if it thinks of one: the plan then holds it
    routine = planning.routine(m.persona, m.spatial, day, m.settings, pv.GUIDED if m.guided else "")
    directive = voice.directive_line(m.persona, directives)
    if m.guided:
        today.plan = planning.guided_day_plan(m, day, routine, directive)
        # What it agreed to, it does: a chooser said yes when it agreed (issue 46), so its
        # arrangements are not offered again as choices it could turn down
        today.plan = keep_arrangements(today.plan, today.arrangements, now)
    else:
        n = m.name
        seen: dict[int, MemoryNode] = {}
        for q in (f"{n}'s plans for {day:%A %B %d}", f"events and meetings on {day:%A %B %d}"):
            for x in m.retrieve(q, k=5):
                seen.setdefault(x.id, x)
        memories = "\n".join(f"- {x.description}" for x in list(seen.values())[:8]) or "- (nothing)"
        arranged = arranged_lines(today.arrangements, day.date())
        today.plan = planning.paper_day_plan(m, day, routine, memories, arranged, directive)
    today.planned_for = now.date()
    today.pending = []
    if directives:
        voice.follow_directives(m, list(directives), None, replan=False)
    text = f"{m.name}'s plan for {now:%A %B %d}: " + "; ".join(x.line() for x in today.plan)
    m.remember("plan", text, 5, subject=m.name, source=plan_source(today.plan), rate=True,
               importance_source=pv.UNRATED)


def consider_news(m: DayMind) -> bool:
    """After a conversation: an engagement for later today that the plan does not hold yet
    and was not offered before (an event just heard of, an arrangement just made) has the
    chooser decide whether to go: only its hours are offered, the rest of the day stays
    as chosen. Once per engagement a day. True when it had news to consider."""
    today, now = m.today, m.now
    if not chooses(m) or today.planned_for != now.date():
        return False
    fresh = [e for e in planning.agenda_of(m, now) if e.start > now and e.key not in today.considered
             and not any(x.start <= e.start < x.end and e.covered_by(x.description) for x in today.plan)]
    if not fresh:
        return False
    today.considered += [e.key for e in fresh]
    # What it chose to go to before stands (Adam told Giorgio "at 5 pm I'm at the party"; a drink
    # agreed at 14:29 had his day chosen anew, and at 15:28 he told Hailey he would be reading at
    # the library at 5): news clashing with an engagement is not offered against it.
    fresh = [e for e in fresh if not any(x.start < e.end and e.start < x.end and agenda.is_engagement(x)
                                         for x in today.plan)]
    # Only the new engagement's hours are asked about: the whole rest of the day chosen anew cost
    # the second day of a run a third more day-plan calls and broke steps already made.
    chosen = replan_guided(m, now, "", only=fresh) if fresh else today.plan
    plan = today.plan
    for e in fresh:
        took = next((x for x in chosen if x.start == e.start and x.description == e.description), None)
        if took is not None:
            plan = planning.cut_in(plan, took)
            today.pending = [a for a in today.pending if a.end <= took.start]
    today.plan = keep_arrangements(plan, today.arrangements, now)
    return True


def sleep_action(m: DayMind, until: datetime) -> Action:
    bed = pick_object(m.spatial, m.persona.home, "sleep")
    minutes = max(1, int((until - m.now).total_seconds() // 60))
    return make_action(m.spatial, "sleeping", bed, m.now, minutes, source=pv.tag(pv.RULE, "asleep"), kind=SLEEP)


def next_action(m: DayMind) -> Action:
    """The plan's step at ``m.now`` (the chunk at hand broken into steps when none waits)."""
    act = _next_action(m)
    m.today.handed_until = act.end
    return act


def _next_action(m: DayMind) -> Action:
    now, today = m.now, m.today
    # Drop queued actions whose time has passed; start the next one now.
    while today.pending and today.pending[0].end <= now:
        today.pending.pop(0)
    item = planning.item_at(today.plan, now)
    soon = agreed_soon(m, item, now)
    if soon is not None:  # leave for it now: its first step begins early, the walk in it
        today.pending = [a for a in today.pending if a.start >= soon.start]
        if not today.pending or today.pending[0].start != soon.start:
            today.pending = chunk_steps(m, soon, soon.start) + today.pending
        a = today.pending.pop(0)
        a.duration_min = max(1, int((a.end - now).total_seconds() // 60))
        a.start = now
        return a
    nxt = today.pending[0] if today.pending else None
    if nxt is not None and (nxt.start <= now or planning.item_at(today.plan, nxt.start) == item):
        a = today.pending.pop(0)  # the next step of the item at hand (begun a little early if need be)
        a.duration_min = max(1, int((a.end - now).total_seconds() // 60))
        a.start = now
        return a
    ahead = today.pending  # steps of a later item, broken into steps ahead (prepare_chunk): kept for then
    if item is None and any(x.end <= now for x in today.plan):
        # A gap inside the day (an item cut in at a time with seconds left 10 s before noon):
        # the next item begins early. It was "asleep", and Isabella walked home to bed at 16:59:50,
        # 33 minutes late to her own party.
        item = min((x for x in today.plan if x.start > now), key=lambda x: x.start, default=None)
    if item is None:  # before the day's first item (or after the last): asleep
        later = [x.start for x in today.plan if x.start > now]
        wake = now.replace(hour=m.persona.wake_hour, minute=0, second=0, microsecond=0)
        if wake <= now:
            wake += timedelta(days=1)
        return sleep_action(m, min(later) if later else wake)
    if item.sleep:
        return sleep_action(m, item.end)  # no call to decompose a night
    acts = chunk_steps(m, item, now)
    today.pending = acts[1:] + [a for a in ahead if a.start >= acts[-1].end]
    return acts[0]


LEAVE_EARLY_MIN = 15  # about a walk across the town


def agreed_soon(m: DayMind, item: planning.PlanItem | None, now: datetime) -> planning.PlanItem | None:
    """The plan's next item, when it is an arrangement at another place that starts within
    LEAVE_EARLY_MIN: one leaves for what one agreed to ahead of its hour (residents set off
    at the hour and came 10 to 15 minutes late to lunch, to the party)."""
    today = m.today
    nxt = next((x for x in today.plan if now < x.start <= now + timedelta(minutes=LEAVE_EARLY_MIN)), None)
    if item is None or nxt is None or item.sleep:
        return None
    if nxt.address.split(":")[:2] == item.address.split(":")[:2]:
        return None  # there already: no walk to make
    agreed = any(a.start == nxt.start and a.address == nxt.address for a in today.arrangements)
    return nxt if agreed else None


def chunk_steps(m: DayMind, item: planning.PlanItem, start: datetime) -> list[Action]:
    """The steps of the plan item's hour chunk from ``start`` (one call, none for a short one)."""
    end = chunk_end(item, start)
    minutes = int((end - start).total_seconds() // 60)
    if minutes < 15:  # too short to ask about: the plan item itself
        acts = fallback_actions(m.spatial, item, start, end)
    else:
        acts = decompose(m, item, start, end, minutes)
    origin = agenda.origin_in(item.source)
    for a in acts if origin else []:  # the steps of an engagement say which memory it came from
        a.source = pv.tag(pv.kind_of(a.source), f"{pv.why_of(a.source)}; for the plan's {origin}".lstrip("; "))
    return acts


def prepare_chunk(m: DayMind, at: datetime) -> int:
    """Break the plan's chunk that begins at ``at`` into steps ahead of time, when the
    steps at hand end there (game/sim/decisions.py asks while the model is less busy
    than at the top of the hour): they wait in ``today.pending`` like any others. With
    none waiting, when the last step handed out ends there (the simulation holds it,
    decided ahead). No call for a night or a short chunk (next_action makes those by
    rule when due), nor for a time already past. Returns how many steps were added."""
    today = m.today
    ends = today.pending[-1].end if today.pending else today.handed_until
    if at <= m.now or ends != at or today.planned_for != at.date():
        return 0  # the steps at hand changed meanwhile (a reaction, a new plan): decided when due
    item = planning.item_at(today.plan, at)
    if item is None or item.sleep or chunk_end(item, at) < at + timedelta(minutes=15):
        return 0
    acts = chunk_steps(m, item, at)
    today.pending += acts
    return len(acts)


def chunk_asks(m: DayMind, at: datetime) -> bool:
    """Whether breaking the plan's chunk that begins at ``at`` into steps would ask the
    model: not for a night, a short chunk or no plan item then (rules make those), nor
    for an activity whose steps were made earlier today at the same place (reused); a
    day not planned yet asks. The simulation prices its jobs by it: the top of an hour,
    where new activities begin, costs a call; the second hour of a long one does not."""
    today = m.today
    if today.planned_for != at.date():
        return True
    item = planning.item_at(today.plan, at)
    if item is None or item.sleep or chunk_end(item, at) < at + timedelta(minutes=15):
        return False
    return not today.steps_made.get(reuse_key(item, at))


def yesterday_rule(log: list[str], chats: list[str], doings: int = 8, people: int = 5) -> str:
    """A rule's summary of yesterday (the grounded mode's, and any model's fallback): what it
    did (the log's doings, places left out, each once) and whom it talked with."""
    if not log and not chats:
        return "nothing notable"
    did = list(dict.fromkeys(re.sub(r"\s*\([^)]*\)$", "", x.split(" ", 1)[-1]) for x in log))[:doings]
    met = list(dict.fromkeys(c.split(":", 1)[0].removeprefix("with ").strip() for c in chats))[:people]
    names = f"{', '.join(met[:-1])} and {met[-1]}" if len(met) > 1 else "".join(met)
    talked = f"talked with {names}" if names else ""
    return "; ".join(x for x in (", ".join(did), talked) if x)[:400]


# What the yesterday prompt reads stays the same size whatever the day held: it was the
# dearest call of a second day (1,263 prompt tokens, 6 s each on the embedded model, issue 45).
YESTERDAY_LOG = 12
YESTERDAY_CHATS = 5
CHAT_CHARS = 160


def clip(text: str, chars: int) -> str:
    """``text`` cut at a word before ``chars``, marked as cut."""
    return text if len(text) <= chars else text[:chars].rsplit(" ", 1)[0] + " ..."


def log_lines(log: list[str], limit: int = YESTERDAY_LOG) -> str:
    """The day's actions for the yesterday prompt: repeats merged, at most ``limit`` lines."""
    out: list[str] = []
    for x in log:
        if out and out[-1].split(" ", 1)[-1] == x.split(" ", 1)[-1]:
            continue
        out.append(x)
    if len(out) > limit:
        step = len(out) / limit
        out = [out[int(i * step)] for i in range(limit)]
    return "\n".join(f"- {x}" for x in out) or "- (nothing recorded)"
