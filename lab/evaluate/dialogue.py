"""Whether residents hold conversations, and whether those are conversation: how many per
sim hour; the share of lines that answer or react to the line before (the act a grounded
line recorded, else by rule); the share of lines that open with a phrase (first 3 words)
used more than ``CANNED_USES`` times in the run; lines repeated within a conversation;
fragments (agents.wording.fragment); the dialogue acts used; and, from the end save, the
talk decisions the residents took, refused, or were kept from by a rule (agents/talk/converse.py
``talk_block``). Read from the event log (and the save) by rule, with no model."""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from agents import dialogue, wording
from game.saves.saved_run import parse_time

CANNED_USES = 5  # an opening used more often than this in a run is a canned phrase
EXAMPLES = 5


def conversations_of(events: Sequence[dict] | None, residents: Sequence[str]) -> dict[Any, list[dict]]:
    """Lines of conversations between residents, by conversation, in time order (the visitor's
    chats and lines without a conversation are not conversations between residents)."""
    rs = set(residents)
    out: dict[Any, list[dict]] = defaultdict(list)
    for e in sorted((e for e in events or [] if e.get("kind") == "line"), key=lambda e: str(e.get("time", ""))):
        if e.get("conversation") is None or e.get("resident") not in rs or e.get("partner") not in rs:
            continue
        out[e["conversation"]].append(e)
    return dict(out)


def _hours(events: Sequence[dict], start: datetime | None, end: datetime | None) -> float:
    times = [t for t in (parse_time(e.get("time")) for e in events) if t is not None]
    start = start or (min(times) if times else None)
    end = end or (max(times) if times else None)
    if start is None or end is None or end <= start:
        return 0.0
    return (end - start).total_seconds() / 3600


def dialogue_measures(events: Sequence[dict] | None, residents: Sequence[str], start: datetime | None = None,
                      end: datetime | None = None, states: dict[str, dict] | None = None) -> dict:
    """Every dialogue measure of a run as a JSON-able dict (see the module's doc)."""
    events = list(events or [])
    convs = conversations_of(events, residents)
    starts = {e.get("conversation") for e in events if e.get("kind") == "chat" and not e.get("ended")
              and e.get("resident") in set(residents) and e.get("partner") in set(residents)}
    n_conv = len(set(convs) | {c for c in starts if c is not None})
    hours = _hours(events, start, end)
    lines = [e for c in convs.values() for e in c]
    openings = Counter(wording.opening(e.get("text", "")) for e in lines)
    canned = {o: k for o, k in openings.items() if o and k > CANNED_USES}
    responsive = replies = repeats = 0
    frags: list[dict] = []
    repeated: list[dict] = []
    acts: Counter = Counter()
    recorded = 0
    for cid, ls in convs.items():
        said: set[str] = set()
        prev: str | None = None
        for e in ls:
            text, source = str(e.get("text", "")), e.get("source")
            act, _ = dialogue.act_of(source)
            recorded += act is not None
            acts[(act or dialogue.act_by_rule(text, prev)).name] += 1
            if prev is not None:
                replies += 1
                responsive += dialogue.responds(text, source, prev)
            key = wording.norm(text)
            if key in said:
                repeats += 1
                repeated.append({"conversation": cid, "resident": e.get("resident"), "text": text[:160]})
            said.add(key)
            why = wording.fragment(text)
            if why:
                frags.append({"conversation": cid, "resident": e.get("resident"), "text": text[:160], "why": why})
            prev = text
    n = len(lines)
    canned_lines = sum(1 for e in lines if wording.opening(e.get("text", "")) in canned)
    talk: Counter = Counter()
    for st in (states or {}).values():
        for k, v in (st.get("talk_stats") or {}).items():
            if isinstance(v, int):
                talk[str(k)] += v
    share = lambda a, b: round(a / b, 4) if b else 0.0  # noqa: E731
    return {
        "conversations": n_conv, "lines": n, "sim_hours": round(hours, 2),
        "per_sim_hour": round(n_conv / hours, 2) if hours else None,
        "lines_per_conversation": round(n / len(convs), 2) if convs else 0.0,
        "responsive": responsive, "replies": replies, "responsive_share": share(responsive, replies),
        "canned_openings": dict(sorted(canned.items(), key=lambda kv: -kv[1])),
        "canned_lines": canned_lines, "canned_share": share(canned_lines, n),
        "repeats": repeats, "repeated": repeated[:EXAMPLES],
        "fragments": len(frags), "fragment_share": share(len(frags), n), "fragment_examples": frags[:EXAMPLES],
        "acts": dict(acts.most_common()), "acts_recorded": recorded,
        "talk_decisions": dict(sorted(talk.items())),
    }


def dialogue_markdown(d: dict) -> list[str]:
    per = f"{d['per_sim_hour']}" if d["per_sim_hour"] is not None else "n/a"
    L = ["## 5. Dialogue", "",
         "| measure | value |", "|---|---|",
         f"| conversations (between residents) | {d['conversations']} over {d['sim_hours']} sim hours "
         f"({per} per sim hour) |",
         f"| lines | {d['lines']} ({d['lines_per_conversation']} per conversation) |",
         f"| lines that answer or react to the line before | {d['responsive']} of {d['replies']} "
         f"({d['responsive_share']:.0%}) |",
         f"| lines opening with a phrase used more than {CANNED_USES} times | {d['canned_lines']} of {d['lines']} "
         f"({d['canned_share']:.0%}) |",
         f"| lines repeated within a conversation | {d['repeats']} |",
         f"| fragments (no verb, or a dangling clause) | {d['fragments']} ({d['fragment_share']:.0%}) |", ""]
    if d["acts"]:
        how = "recorded" if d["acts_recorded"] == d["lines"] else f"{d['acts_recorded']} recorded, the rest by rule"
        L += [f"Dialogue acts ({how}): " + ", ".join(f"{a} {k}" for a, k in d["acts"].items()), ""]
    if d["canned_openings"]:
        L += ["Canned openings: " + "; ".join(f'"{o}" ×{k}' for o, k in d["canned_openings"].items()), ""]
    for key, title in (("repeated", "Repeated lines"), ("fragment_examples", "Fragments")):
        if d[key]:
            L += [f"{title}:", ""] + [f"- {x['resident']}: {x['text']}" + (f" ({x['why']})" if "why" in x else "")
                                      for x in d[key]] + [""]
    if d["talk_decisions"]:
        L += ["Talk decisions (summed over the residents' end state): "
              + ", ".join(f"{k} {v}" for k, v in d["talk_decisions"].items()), ""]
    return L


def dialogue_summary(d: dict) -> str:
    per = f"{d['per_sim_hour']}/sim h" if d["per_sim_hour"] is not None else "n/a"
    return (f"  dialogue   {d['conversations']} conversations ({per}), {d['lines']} lines; "
            f"{d['responsive_share']:.0%} answer or react; {d['canned_share']:.0%} canned openings; "
            f"{d['repeats']} repeats; {d['fragments']} fragments")


__all__ = ["CANNED_USES", "conversations_of", "dialogue_markdown", "dialogue_measures", "dialogue_summary"]
