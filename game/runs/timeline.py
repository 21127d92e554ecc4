"""Readable and machine-readable records of a run: timeline.md and friends.

``render_timeline(events, ...)`` turns the simulation's event log (a list of
dicts: time, resident, kind, text, address, ...) into Markdown: per sim day and
minute, who does what where; conversations as dialogue blocks; reflections.
Both are redacted (agents/redact.py): a run folder may be shared.
"""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agents import provenance as pv
from agents import redact


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
