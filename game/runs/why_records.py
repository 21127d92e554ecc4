"""A run's decision records read and explained (no pygame): the reasons behind a
resident's acts at a moment, and who told whom (a fact's spread through the
conversations). `smallville why` (game/why_cli.py) prints them; the window's
Why? panel (game/view/why_panel.py) shows them.

The records are agents/explain/why.py's: the memories retrieval brought up with their
recency, importance and relevance (min-max scaled, as the paper scores them) and
total, the prompt as sent and the answer as received.
"""
from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path

from agents import why
from game.saves.saved_run import parse_time
from game.support.errors import UserError

LINES_BEFORE_MIN = 15  # lines said this many sim minutes before --at are shown with the action
BAR = 10  # characters of a score bar
TEXT_CHARS = 160  # of a memory's text beside its scores (--json has it whole)
INNER_KINDS = {"react": "reaction", "reflect_insights": "reflection", "reflect_choose": "reflection",
               "importance": "importance"}


# ---------------------------------------------------------------------- finding the records
def why_files(given: str | Path) -> list[Path]:
    """The decision-record files of a run folder, a save in one, or a game's save
    (every ``recordings/*.why.jsonl.gz`` of its save folder), oldest first."""
    p = Path(given)
    for folder in ([p] if p.is_dir() else [p.parent, p.parent.parent, p.parent.parent.parent]):
        if (folder / why.FILE).exists():
            return [folder / why.FILE]
        rec = folder / "recordings"
        found = sorted(rec.glob("*" + why.GAME_SUFFIX), key=lambda q: (q.stat().st_mtime, q.name)) \
            if rec.is_dir() else []
        if found:
            return found
    return []


def files_for_recording(recording: Path, kind: str) -> list[Path]:
    """The records file of a recording: a run's ``why.jsonl.gz`` beside its
    ``recording.jsonl``, a game's ``<stamp>.why.jsonl.gz`` beside ``<stamp>.jsonl``."""
    path = why.game_path(recording) if kind == "game" else recording.parent / why.FILE
    return [path] if path.exists() else []


def load_records(paths: list[Path], counts: dict[str, int] | None = None) -> list[dict]:
    """Every record of these files, in file order (a later file's records number after an
    earlier one's); damaged ones are skipped and counted in ``counts["skipped"]``."""
    out: list[dict] = []
    for path in paths:
        try:
            for d in why.read_records(path, counts):
                d["n"] = len(out) + 1
                out.append(d)
        except ValueError as err:
            raise UserError(str(err)) from None
    return out


def resident_named(name: str, residents: list[str]) -> str:
    """The resident a full or first name means (case-insensitive); UserError listing them otherwise."""
    want = name.strip().casefold()
    for r in residents:
        if r.casefold() == want:
            return r
    firsts = [r for r in residents if r.split()[0].casefold() == want]
    if len(firsts) == 1:
        return firsts[0]
    raise UserError(f"nobody called {name!r} in this run (residents: {', '.join(residents) or 'none'})")


def parse_at(text: str | None, start: datetime | None, end: datetime | None) -> datetime:
    """``--at``: "2023-02-14 17:10", or "17:10" on the run's first day; default: the run's end."""
    if not text:
        if end is None:
            raise UserError("give --at TIME: this run does not say when it ended")
        return end
    t = parse_time(text)
    if t is None and re.fullmatch(r"\d{1,2}:\d{2}", text.strip()) and start is not None:
        h, m = (int(x) for x in text.strip().split(":"))
        t = datetime.combine(start.date(), datetime.min.time()).replace(hour=h % 24, minute=m)
    if t is None:
        raise UserError(f'--at {text!r}: give a sim time like "2023-02-14 17:10" (or "17:10" on the first day)')
    return t


# ---------------------------------------------------------------------- acts and their reasons
def acts_at(events: list[dict], resident: str, at: datetime, lines_min: int = LINES_BEFORE_MIN) -> list[dict]:
    """The action ``resident`` was doing at ``at`` (the last begun by then) and the lines
    they said in the ``lines_min`` sim minutes up to it, oldest first."""
    action = None
    lines = []
    for e in events:
        if e.get("resident") != resident:
            continue
        t = parse_time(e.get("time"))
        if t is None or t > at:
            continue
        if e.get("kind") == "action" and not e.get("controlled"):
            action = (t, e)
        elif e.get("kind") == "line" and t >= at - timedelta(minutes=lines_min):
            lines.append((t, e))
    acts = []
    if action is not None:
        t, e = action
        acts.append({"kind": "action", "time": t, "text": str(e.get("text", "")), "source": e.get("source") or "",
                     "to": None})
    for t, e in lines:
        acts.append({"kind": "line", "time": t, "text": str(e.get("text", "")), "source": e.get("source") or "",
                     "to": e.get("partner")})
    return acts


def explain(records: list[dict], events: list[dict], resident: str, at: datetime) -> dict:
    """What ``resident`` did at ``at`` and why, as plain data (``--json`` prints it)."""
    out = []
    until = at + timedelta(seconds=59) if at.second == 0 else at  # "17:10" is the whole minute
    for act in acts_at(events, resident, until):
        rec = why.find(records, resident, act["kind"], act["time"], act["text"])
        out.append({**act, "time": act["time"].isoformat(sep=" "), "record": rec,
                    "memories": why.memories_of(rec) if rec else []})
    # acts the event log does not hold: reactions, reflections, importance ratings (their records are the acts)
    since = until - timedelta(minutes=LINES_BEFORE_MIN)
    for rec in records:
        kind = INNER_KINDS.get(str(rec.get("purpose")))
        t = parse_time(rec.get("time"))
        if kind is None or rec.get("resident") != resident or t is None or not since <= t <= until:
            continue
        answer = rec.get("answer")
        text = (json.dumps(answer, ensure_ascii=False) if answer is not None
                else f"a rule stood in ({rec.get('fallback')})")
        out.append({"kind": kind, "time": t.isoformat(sep=" "), "text": text, "source": "model" if answer else "rule",
                    "to": None, "record": rec, "memories": why.memories_of(rec)})
    out.sort(key=lambda a: a["time"])
    return {"resident": resident, "at": at.isoformat(sep=" "), "acts": out}


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _bar(x: float) -> str:
    n = max(0, min(BAR, round(float(x) * BAR)))
    return "█" * n + "·" * (BAR - n)


def prompt_text(rec: dict) -> str:
    """The prompt as sent: each message with its role (or its hash, when only hashes were kept)."""
    call = rec.get("call") or {}
    if call.get("messages") is not None:
        return "\n".join(f"[{m.get('role')}] {m.get('content')}" for m in call["messages"])
    if call.get("prompt_sha256"):
        return f"(kept as a hash only: sha256 {call['prompt_sha256']}, {call.get('prompt_chars')} characters)"
    return "(no model call: " + (rec.get("fallback") or "none") + ")"


def answer_text(rec: dict) -> str:
    """The answers as received, then the validated one (or why a rule stood in)."""
    call = rec.get("call") or {}
    rows = []
    for i, raw in enumerate(call.get("raw") or []):
        rows.append(f"raw{'' if i == 0 else ' (retry)'}: {raw}")
    for i, h in enumerate(call.get("raw_sha256") or []):
        rows.append(f"raw{'' if i == 0 else ' (retry)'}: sha256 {h}")
    if rec.get("answer") is not None:
        rows.append("validated: " + json.dumps(rec["answer"], ensure_ascii=False))
    if rec.get("fallback"):
        rows.append(f"not used ({rec['fallback']}): a rule stood in")
    return "\n".join(rows) or "(no answer)"


def _seconds(value: object) -> str:
    """A call's latency as people read it: "4.3 s" (the record keeps it exact)."""
    return f"{value:.1f} s" if isinstance(value, (int, float)) else f"{value} s"


def call_line(rec: dict) -> str:
    call = rec.get("call")
    if not call:
        return f"{rec.get('purpose')}: no model call ({rec.get('fallback') or 'none'})"
    return (f"{rec.get('purpose')} · {call.get('model')} · {call.get('prompt_tokens')}+{call.get('completion_tokens')}"
            f" tokens · {_seconds(call.get('latency_s'))}" + (" · cache hit" if call.get("cached") else "")
            + f" · {call.get('outcome')}" + (f" ({call['error']})" if call.get("error") else ""))


def record_lines(rec: dict, *, memories: list[dict] | None = None, indent: str = "  ") -> list[str]:
    """A decision record for the terminal: the call, the memories with bars, the prompt and the answer."""
    rows = [indent + call_line(rec)]
    for r in rec.get("retrievals") or []:
        q = r.get("query") if r.get("query") is not None else f"sha256 {r.get('query_sha256', '')[:12]}"
        rows.append(f"{indent}retrieved for “{q}” ({r.get('candidates')} memories scored):")
        for m in r.get("memories") or []:
            s = m["scaled"]
            rows.append(f"{indent}  #{m['id']:<4} total {m['total']:.3f}  rec {_bar(s[0])} {s[0]:.2f}  "
                        f"imp {_bar(s[1])} {s[1]:.2f}  rel {_bar(s[2])} {s[2]:.2f}  "
                        + _clip(m.get("text") or f"({m.get('kind')})", TEXT_CHARS))
    if not rec.get("retrievals"):
        rows.append(f"{indent}(no memories retrieved for this question)")
    rows.append(f"{indent}prompt as sent:")
    rows += [f"{indent}  | {x}" for x in prompt_text(rec).splitlines()]
    rows.append(f"{indent}answer:")
    rows += [f"{indent}  | {x}" for x in answer_text(rec).splitlines()]
    return rows


def explanation_text(d: dict) -> str:
    rows = [f"{d['resident']} at {d['at']}"]
    if not d["acts"]:
        rows.append("  (nothing done or said by then in this run)")
    for act in d["acts"]:
        what = {"action": "doing", "line": f"said to {act.get('to') or 'someone'}"}.get(act["kind"], act["kind"])
        src = f"  [{act['source']}]" if act.get("source") else ""
        rows.append("")
        rows.append(f"{act['time'][11:16]} {what}: {act['text']}{src}")
        if act["record"] is None:
            rows.append("  no decision record: a rule or the routine chose it, or the run kept no records "
                        "(runs from before decision records, or why = \"off\")")
        else:
            rows += record_lines(act["record"])
    return "\n".join(rows)


# ---------------------------------------------------------------------- who told whom
def spread(events: list[dict], pattern: str) -> dict:
    """The conversations a fact travelled through: every line that matches ``pattern``
    (a word or a regular expression, any case), and who first heard it from whom."""
    try:
        rx = re.compile(pattern, re.I)
    except re.error as err:
        raise UserError(f"--spread {pattern!r} is not a valid pattern ({err})") from None
    lines, heard = [], {}
    for e in events:
        if e.get("kind") != "line" or not rx.search(str(e.get("text", ""))):
            continue
        t = parse_time(e.get("time"))
        who, to = e.get("resident"), e.get("partner")
        if t is None or not who:
            continue
        lines.append({"time": t.isoformat(sep=" "), "from": who, "to": to, "conversation": e.get("conversation"),
                      "place": e.get("address") or "", "text": str(e.get("text", ""))})
        if who not in heard:
            heard[who] = {"resident": who, "time": t.isoformat(sep=" "), "from": None,
                          "conversation": e.get("conversation")}
        if to and to not in heard:
            heard[to] = {"resident": to, "time": t.isoformat(sep=" "), "from": who,
                         "conversation": e.get("conversation")}
    return {"pattern": pattern, "lines": lines, "first_heard": sorted(heard.values(), key=lambda h: h["time"]),
            "conversations": len({x["conversation"] for x in lines if x["conversation"]})}


def spread_text(d: dict) -> str:
    if not d["lines"]:
        return f"No line said in this run matches {d['pattern']!r}."
    rows = [f"“{d['pattern']}” travelled through {d['conversations']} conversation(s), {len(d['lines'])} line(s):"]
    for h in d["first_heard"]:
        src = f"heard it from {h['from']}" if h["from"] else "said it first"
        rows.append(f"  {h['time'][5:16]}  {h['resident']}: {src}")
    rows.append("")
    rows.append("the lines:")
    for x in d["lines"]:
        place = ":".join(x["place"].split(":")[1:3]) if x["place"] else ""
        rows.append(f"  {x['time'][5:16]}  {x['from']} -> {x['to'] or '?'}"
                    + (f" at {place}" if place else "") + f": {x['text']}")
    return "\n".join(rows)


# ---------------------------------------------------------------------- the command
