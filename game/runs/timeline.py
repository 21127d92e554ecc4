"""Readable and machine-readable records of a run: timeline.md and friends.

``render_timeline(events, ...)`` turns the simulation's event log (a list of
dicts: time, resident, kind, text, address, ...) into Markdown: per sim day and
minute, who does what where; conversations as dialogue blocks; reflections.
Both are redacted (agents/support/redact.py): a run folder may be shared.
``make_summary`` is a run's summary.json (per resident: calls, tokens, who led
their day, fallbacks); ``timeline_text`` its timeline.md with the run's header;
``economy_text`` what `smallville sim` prints of it at the end.
"""
from __future__ import annotations

import json
import logging
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agents import Inspection, ResidentMind, redact
from agents import provenance as pv
from game.runs import runstats

log = logging.getLogger(__name__)

TIME_FORMAT = "%Y-%m-%d %H:%M"


def tag(source: str | None) -> str:
    """What the model did not write, marked: " ⚙ _(routine: invalid answer)_"; "" for the model's."""
    label = pv.short_label(source)
    return f" ⚙ _({label})_" if label else ""


def place(address: str | None, world: str | None = None) -> str:
    """'the Ville:Hobbs Cafe:cafe:coffee machine' -> 'Hobbs Cafe › cafe › coffee machine'."""
    if not address:
        return ""
    parts = address.split(":")
    if len(parts) > 1 and (world is None or parts[0] == world):
        parts = parts[1:]
    return " › ".join(parts)


def first(name: str | None) -> str:
    return (name or "").split()[0] if name else ""


def render_timeline(
    events: list[dict],
    *,
    title: str = "Smallville run",
    header: Iterable[str] = (),
    world: str | None = None,
    show_arrivals: bool = False,
) -> str:
    lines: list[str] = [f"# {title}", ""]
    lines += [f"{h}  " for h in header]
    if header:
        lines.append("")
    # Conversations: lines grouped by their conversation id, shown where the chat starts.
    convo_lines: dict[Any, list[dict]] = defaultdict(list)
    convo_end: dict[Any, dict] = {}
    for e in events:
        if e.get("kind") == "line" and e.get("conversation") is not None:
            convo_lines[e["conversation"]].append(e)
        elif e.get("kind") == "chat" and e.get("ended"):
            convo_end[e.get("conversation")] = e
    day = minute = None
    last_action: dict[str, tuple] = {}
    for e in events:
        kind = e.get("kind")
        if kind in ("line",) or (kind == "chat" and e.get("ended")):
            continue
        if kind == "action":
            key = (e.get("text"), e.get("address"))
            if last_action.get(e.get("resident")) == key:
                continue  # the same thing again: it simply goes on
            last_action[e.get("resident")] = key
        elif kind == "chat":
            for who in (e.get("resident"), e.get("partner")):
                last_action.pop(who, None)
        if kind == "arrive" and not show_arrivals:
            continue
        t = str(e.get("time", ""))
        d, hm = t[:10], t[11:16]
        if d != day:
            day, minute = d, None
            if lines[-1]:
                lines.append("")
            lines += [f"## {d}", ""]
        if hm != minute:
            minute = hm
            if lines[-1]:
                lines.append("")
            lines += [f"### {hm}", ""]
        lines += _event_lines(e, world, convo_lines, convo_end)
    lines.append("")
    return redact("\n".join(lines))


# Any: a conversation's key as the event log holds it (JSON)
def _event_lines(e: dict, world: str | None, convo_lines: dict[Any, list[dict]],
                 convo_end: dict[Any, dict]) -> list[str]:
    """An event's lines in the timeline (a conversation's: every line said in it)."""
    kind = e.get("kind")
    who = e.get("resident") or "?"
    where = place(e.get("address"), world)
    if kind == "action":
        emoji = e.get("emoji") or "•"
        text = f"- {emoji} **{who}**: {e.get('text', '')}"
        if where:
            text += f" — *{where}*"
        return [text + tag(e.get("source"))]
    if kind == "arrive":
        return [f"- 🚶 **{who}** arrives at *{where}*"]
    if kind == "reflect":
        return [f"- 💭 **{who}** reflects: {e.get('text', '')}{tag(e.get('source'))}"]
    if kind == "error":
        return [f"- ⚠️ **{who}**: {e.get('text', '')}"]
    if kind == "arrange":  # a plan made in conversation (game/sim/conversations.py)
        when = str(e.get("start") or "")[:16]
        return [f"- 📅 **{who}** arranged with {e.get('partner') or '?'}: {e.get('text', '')}"
                + (f" — *{where}*" if where else "") + (f", {when}" if when else "")]
    if kind != "chat":
        return [f"- {kind} **{who}**: {e.get('text', '')}"]
    cid = e.get("conversation")
    partner = e.get("partner") or "?"
    said = convo_lines.get(cid, [])
    out = [f"- 💬 **{who}** and **{partner}** talk" + (f" at *{where}*" if where else "") + ":"
           + tag(e.get("source"))]
    if not said:
        out.append("  > *(nothing was said)*")
    for u in said:
        at = str(u.get("time", ""))[11:16]
        out.append(f"  > **{first(u.get('resident'))}** ({at}): {u.get('text', '')}" + tag(u.get("source")))
    if convo_end.get(cid) is None:
        out.append("  > *(still talking when the run ended)*")
    return out



def write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    with Path(path).open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(redact(json.dumps(r, ensure_ascii=False)) + "\n")


def make_summary(sim, personas, accounting, config, *, seed, start, wall_s, interrupted, town=None) -> dict:
    acc = accounting.summary()
    by_res = acc.get("by_resident", {})
    sim_hours = max(0.0, (sim.now - start).total_seconds() / 3600.0)
    days = sim_hours / 24.0 if sim_hours > 0 else 0.0
    events = list(sim.events)  # once: older events are read from the log's journal on disk
    led = runstats.model_led(events, sim.now)
    reflections = runstats.reflections_per_day(events, days)
    lines = runstats.lines_by_source(events)
    by_name: dict[str, list[dict]] = {}
    for e in events:
        by_name.setdefault(e.get("resident") or "", []).append(e)
    residents = {}
    for p in personas:
        t = by_res.get(p.name, {})
        b = sim.bodies.get(p.name)
        ev = by_name.get(p.name, [])
        calls, tokens = int(t.get("calls", 0)), int(t.get("tokens", 0))
        snap = _inspect(sim.minds.get(p.name))
        share = led.get(p.name, {})
        residents[p.name] = {
            "model_led_share": share.get("share"),  # of awake minutes, actions the model chose
            "awake_min": share.get("awake_min", 0.0),
            "not_model_led_min": share.get("by_reason", {}),  # minutes a rule or the routine led, by reason
            "fallbacks": dict(snap.fallbacks),  # "what: why" -> times a rule stood in for the model
            "budget_hit": snap.budget_hit.isoformat() if snap.budget_hit else None,
            "reflections_per_sim_day": reflections.get(p.name, {}).get("sessions", 0.0),
            "insights_per_sim_day": reflections.get(p.name, {}).get("insights", 0.0),
            "lines_by_source": dict(lines.get(p.name, {})),
            "calls": calls,
            "tokens": tokens,
            "prompt_tokens": int(t.get("prompt_tokens", 0)),
            "completion_tokens": int(t.get("completion_tokens", 0)),
            "model_answers_unusable": int(t.get("fallback", 0)),  # calls whose answer a fallback replaced
            "routine_fallbacks": b.fallbacks if b else 0,  # failed decisions replaced by the routine
            "errors": b.errors if b else 0,
            "actions": sum(1 for e in ev if e["kind"] == "action"),
            "lines": sum(1 for e in ev if e["kind"] == "line"),
            "reflections": sum(1 for e in ev if e["kind"] == "reflect"),
            "calls_per_sim_day": round(calls / days, 1) if days else 0.0,
            "tokens_per_sim_day": round(tokens / days, 1) if days else 0.0,
        }
    total = dict(acc.get("total", {}))
    total["model_led_share"] = runstats.share_of_all({k: v for k, v in led.items() if k in residents})
    n = max(1, len(personas))
    total["calls_per_resident_per_sim_day"] = round(total.get("calls", 0) / n / days, 1) if days else 0.0
    total["tokens_per_resident_per_sim_day"] = round(total.get("tokens", 0) / n / days, 1) if days else 0.0
    return {
        "model": getattr(config, "model", None),
        "planning": getattr(config, "planning", None),
        "seed": seed,
        "map": str(getattr(town, "path", "")),
        "start": start.strftime(TIME_FORMAT),
        "end": sim.now.strftime(TIME_FORMAT),
        "sim_hours": round(sim_hours, 3),
        "steps": sim.steps,
        "wall_s": round(wall_s, 1),
        "interrupted": interrupted,
        "residents": residents,
        "totals": total,
        "by_purpose": acc.get("by_purpose", {}),
        "events": len(events),
        "conversations": sum(1 for e in events if e["kind"] == "chat" and not e.get("ended")),
    }


def _inspect(mind: ResidentMind | None) -> Inspection:
    try:
        return mind.inspect() if mind is not None else Inspection()
    except Exception:
        log.exception("inspecting a mind for the summary failed")
        return Inspection()


def timeline_text(sim, summary: dict, town=None) -> str:
    header = [
        f"{summary['start']} → {summary['end']} ({summary['sim_hours']:g} sim hours, {summary['steps']} steps)",
        f"model `{summary['model']}` · seed {summary['seed']} · {len(summary['residents'])} residents: "
        + ", ".join(summary["residents"]),
        f"{summary['totals'].get('calls', 0)} model calls, {summary['totals'].get('tokens', 0)} tokens, "
        f"wall time {summary['wall_s']:g} s" + (" · interrupted" if summary.get("interrupted") else ""),
        f"{summary.get('planning') or '?'} planning · the model led "
        + (f"{100 * share:.0f}%" if (share := summary['totals'].get('model_led_share')) is not None else "-")
        + " of awake minutes · ⚙ marks what the model did not write (a rule's or the routine's choice, and why)",
    ]
    world = getattr(town, "world", None)
    return render_timeline(list(sim.events), title=f"Smallville run — {world or 'the town'}", header=header,
                           world=world)


def economy_text(summary: dict) -> str:
    """The economy (model calls and tokens per resident per sim day) and who led the
    residents' days (the model-led share of awake minutes, reflections per day)."""
    rows = summary["residents"]
    width = max([len(n) for n in rows] + [8])
    hours = summary["sim_hours"]
    pct = lambda v: "-" if v is None else f"{100 * v:.0f}%"  # noqa: E731
    out = [
        f"over {hours:g} sim hours ({summary['wall_s']:g} s wall), model {summary.get('model')}, "
        f"{summary.get('planning') or '?'} planning; per resident per sim day:",
        f"  {'resident':<{width}}  {'calls':>7} {'tokens':>9} {'calls/day':>10} {'tokens/day':>11} "
        f"{'model-led':>9} {'reflect/day':>11}",
    ]
    for name, r in rows.items():
        out.append(
            f"  {name:<{width}}  {r['calls']:>7} {r['tokens']:>9} {r['calls_per_sim_day']:>10.1f} "
            f"{r['tokens_per_sim_day']:>11.1f} {pct(r.get('model_led_share')):>9} "
            f"{r.get('reflections_per_sim_day', 0):>11.1f}"
        )
    t = summary["totals"]
    out.append(
        f"  {'all':<{width}}  {t.get('calls', 0):>7} {t.get('tokens', 0):>9} "
        f"{t.get('calls_per_resident_per_sim_day', 0):>10.1f} {t.get('tokens_per_resident_per_sim_day', 0):>11.1f} "
        f"{pct(t.get('model_led_share')):>9}"
    )
    fb: Counter[str] = Counter()
    for r in rows.values():
        fb.update(r.get("fallbacks") or {})
    if fb:
        out.append("  where rules stood in for the model: " + "; ".join(f"{k} x{v}" for k, v in fb.most_common(8)))
    return "\n".join(out)
