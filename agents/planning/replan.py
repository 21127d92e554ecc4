"""Replanning the rest of the day, when a resident reacts, agrees to something or
its inner voice asks: the paper's way (the model rewrites the rest) and the guided
way (the remaining slots' words asked again, or only a new engagement's hours)."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from agents.explain import provenance as pv
from agents.planning import agenda
from agents.planning.items import PlanItem, close_times, cut_in, item_at
from agents.planning.plan import (
    Planner,
    day_plan_schema,
    guided_day_plan,
    home_and_work,
    plan_hours,
    repair_plan,
    wake_time,
)
from agents.recall.spatial import SpatialMemory


def _rest_lines(plan: list[PlanItem], now: datetime, spatial: SpatialMemory) -> str:
    rest = [x for x in plan if x.end > now]
    return "\n".join(f"- {max(x.start, now):%H:%M}-{x.end:%H:%M} {x.description} ({spatial.label(x.address)})"
                     for x in rest) or "- (nothing)"


def replan_rest(m: Planner, now: datetime, why_now: str, first: PlanItem | None = None) -> list[PlanItem]:
    """The paper's replanning: the model rewrites today's plan from ``now`` on
    (``first``, when given, is what the resident does now: the reaction). What is
    done stays; an unusable answer leaves the plan as it was, with ``first`` cut in
    by rule."""
    plan, sp, s, p = m.plan, m.spatial, m.settings, m.persona
    now = now.replace(second=0, microsecond=0)
    day_end = next((x for x in plan if x.sleep and x.start > now), None)
    if day_end is None or now.hour >= s.bedtime_latest - 1:
        return cut_in(plan, first) if first is not None else plan
    arenas = sp.arenas()
    labels = tuple(sp.label(a) for a in arenas)
    resolve = dict(zip(labels, arenas)).get
    schema = day_plan_schema(labels, plan_hours(now), 1, s.plan_max_items)
    start_with = (f"It starts with what {p.first_name} does now: {first.description} for {first.minutes} minutes "
                  f"at {sp.label(first.address)}.") if first is not None else ""
    got, why = m.ask(schema, "replan", "replan", None, time=f"{now:%H:%M}", date=f"{now:%A %B %d}",
                     why_now=why_now, rest=_rest_lines(plan, now, sp), start_with=start_with,
                     bedtime=f"{day_end.start:%H:%M}", **home_and_work(m))
    if why is not None:
        m.note_fallback("replan", why)
        return cut_in(plan, first) if first is not None else plan
    done = [x for x in plan if x.end <= now]
    head = [x.moved(x.start, int((now - x.start).total_seconds() // 60)) for x in plan if x.start < now < x.end]
    skeleton = [x for x in plan if x.end > now]
    raw = list(got.items)
    new = repair_plan(raw, p, sp, now, day_end.end, s, resolve, skeleton, m.rejected, earlier_plan=True)
    if new is None:
        m.note_fallback("replan", "invalid")
        return cut_in(plan, first) if first is not None else plan
    if first is not None and not any(x.start == now and x.description == first.description for x in new):
        new = cut_in(new, first.moved(now, first.minutes,
                                      pv.combine(first.source, pv.tag(pv.REPAIRED, "the reaction comes first"))))
    return sorted(done + head + [x for x in new if x.minutes > 0], key=lambda x: x.start)


def replan_guided(m: Planner, now: datetime, directive: str,
                  only: Sequence[agenda.Engagement] | None = None) -> list[PlanItem]:
    """The guided mode's replanning: the remaining slots' words asked again (with ``only``,
    just those engagements' slots: chosen_day_plan)."""
    plan = m.plan
    cur = item_at(plan, now)
    later = [x for x in plan if x.start > now]
    if cur is None or cur.sleep or not later or not later[-1].sleep:
        return plan
    done = [x for x in plan if x.end <= now]
    head = [cur.moved(cur.start, int((now - cur.start).total_seconds() // 60))] if cur.start < now else []
    rest = [cur.moved(now)] + [x.moved(x.start) for x in later]
    rest = close_times(rest, later[-1].end)
    day = wake_time(m.persona, now)
    new = guided_day_plan(m, day, rest, directive, only=only)
    return sorted(done + head + new, key=lambda x: x.start)
