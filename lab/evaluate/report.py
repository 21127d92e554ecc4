"""The evaluation written down: evaluation.json, evaluation.md (the tables
beside the paper's figures), the plots, and the terminal's summary."""
from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from game.saves.saved_run import Target
from lab.evaluate.days import days_markdown
from lab.evaluate.dialogue import dialogue_markdown, dialogue_summary
from lab.evaluate.holding import holding_markdown, holding_summary
from lab.evaluate.judge import FACTS
from lab.evaluate.paper import PAPER_ATTENDED, PAPER_DENSITY, PAPER_INVITED, PAPER_N
from lab.evaluate.passing import passing_markdown
from lab.evaluate.plots import plot_coordination, plot_diffusion, plot_relationships, plot_spread


def frac(count: int | None, n: int) -> str:
    if count is None:
        return "n/a"
    return f"{count}/{n} ({count / n:.0%})" if n else "0/0"


# long: the report's sections in the order a reader meets them
def render_markdown(result: dict) -> str:
    n = result["residents_count"]
    L = [f"# Evaluation of {result['target']}", "",
         f"{n} residents: {', '.join(result['residents'])}  ",
         f"sim {result['start']} → {result['end']} · save: {result['save'] or 'none'} · events: "
         f"{result['events_source'] or 'none'}  ",
         (f"interview model: `{result.get('model')}` · judge: {result.get('judge')}" if result.get("judge")
          else "no interviews (memory- and event-based measures only)"), ""]
    if n != PAPER_N:
        L += [f"The paper ran {PAPER_N} agents for two sim days; shares are comparable, counts are not "
              f"(one resident here is {1 / n:.0%} of the town).", ""]
    for note in result["notes"]:
        L.append(f"- note: {note}")
    if result["notes"]:
        L.append("")
    L += ["## 1. Information diffusion", "",
          "| fact | judged by | start | end | paper start | paper end |", "|---|---|---|---|---|---|"]
    diff = result["diffusion"]
    iv = result.get("interviews") or {}
    for fact in FACTS:
        d = diff["facts"][fact.key]
        p = d["paper"]
        ps, pe = f"{p['start']:.0%} ({p['start_count']}/25)", f"{p['end']:.0%} ({p['end_count']}/25)"
        me = d["memory_end"]
        L.append(f"| {fact.label} | memory stream | {frac(d['memory_start']['count'], n)} | "
                 f"{frac(me['count'] if me else None, n)} | {ps} | {pe} |")
        if iv:
            s, e = (iv.get("start") or {}).get(fact.key), (iv.get("end") or {}).get(fact.key)
            L.append(f"| {fact.label} | interview ({result.get('judge')} judge) | "
                     f"{frac(s['count'] if s else None, n)} | {frac(e['count'] if e else None, n)} | {ps} | {pe} |")
        L.append(f"| {fact.label} | heard (lines + memories) | {frac(d['memory_start']['count'], n)} | "
                 f"{frac(d['heard_end']['count'], n)} | {ps} | {pe} |")
    L.append("")
    for fact in FACTS:
        d = diff["facts"][fact.key]
        if d["heard_over_time"]:
            L.append(f"First heard, {fact.label}: " + "; ".join(
                f"{h['resident']} {h['time'][5:16]} ({h['how']}{', from ' + h['from'] if h['from'] else ''})"
                for h in d["heard_over_time"]))
            L.append("")
    if iv.get("end"):
        made_up = sum(1 for ph in iv.values() for f in ph.values() for a in f["answers"].values()
                      if a["label"] == "wrong")
        total = sum(len(f["answers"]) for ph in iv.values() for f in ph.values())
        stand_in = sum(1 for ph in iv.values() for f in ph.values() for a in f["answers"].values()
                       if a.get("fallback"))
        L += [f"Answers naming a wrong candidate (made up): {made_up} of {total} "
              "(the paper: 1.3% of answers, 6 of 453, were hallucinated, over all its interviews). "
              f"Stand-in lines (the model's answer was unusable): {stand_in} of {total}.", ""]
        L += ["Interview answers:", "", "| when | resident | question | verdict | answer |", "|---|---|---|---|---|"]
        for phase in ("start", "end"):
            for fact in FACTS:
                for r, a in ((iv.get(phase) or {}).get(fact.key) or {}).get("answers", {}).items():
                    ans = a["answer"].replace("|", "/").replace("\n", " ")[:160]
                    fb = " (stand-in line)" if a.get("fallback") else ""
                    L.append(f"| {phase} | {r} | {fact.question} | {a['label']} ({a['reason']}){fb} | {ans} |")
        L.append("")
    L += ["![diffusion](diffusion.png)", "", "Who told whom (`smallville why RUN --spread WORD` lists the lines):", "",
          "![who told whom](spread.png)", "", "## 2. Relationship formation", "",
          "| graph | start | end | paper start | paper end |", "|---|---|---|---|---|"]
    rel = result["relationships"]
    e = rel["end"]
    f3 = lambda x: f"{x:.3f}" if x is not None else "n/a"  # noqa: E731
    L.append(f"| knows (either way) | {f3(rel['start']['density'])} | {f3(e['density'] if e else None)} | "
             f"{PAPER_DENSITY[0]} | {PAPER_DENSITY[1]} |")
    L.append(f"| knows each other (mutual) | {f3(rel['start']['mutual_density'])} | "
             f"{f3(e['mutual_density'] if e else None)} | | |")
    if e:
        L.append(f"| talked with | 0.000 | {f3(e['talked_density'])} | | |")
    if rel.get("cast_start_density") is not None:
        L.append(f"| knows, all {rel['cast_size']} residents' seed descriptions | {f3(rel['cast_start_density'])} | "
                 f"| {PAPER_DENSITY[0]} | |")
    L += ["", f"Edges at the start: {len(rel['start']['edges'])}; at the end: {len(e['edges']) if e else 'n/a'} "
          f"(of {n * (n - 1) // 2} pairs).", "", "![relationships](relationships.png)", "",
          "## 3. Coordination: the Valentine's Day party", ""]
    co = result["coordination"]
    c = co["counts"]
    L += [f"{co['party']}, hosted by {co['host']}.", "",
          "| | ours | paper |", "|---|---|---|",
          f"| invited (heard of it from someone) | {c['invited']} of {n - 1} | {PAPER_INVITED} of 24 |",
          f"| planned to go | {c['planned']} | (7 invitees did not come: 3 had conflicts, 4 did not plan it) |",
          f"| at Hobbs Cafe 17:00-19:00 Feb 14 | {c['attended'] if c['attended'] is not None else 'n/a'} | "
          f"{PAPER_ATTENDED} |",
          f"| invitees who came | {c['invited_and_attended'] if c['invited_and_attended'] is not None else 'n/a'}"
          f" of {c['invited']} | {PAPER_ATTENDED} of {PAPER_INVITED} |", ""]
    for note in co["notes"]:
        L.append(f"- {note}")
    if co.get("host_planned") is not None:
        L.append("- the host's own plan for 17:00-19:00 Feb 14 (at Hobbs Cafe, or naming the party): "
                 + ("; ".join(co["host_planned"]) if co["host_planned"] else "no"))
    for key in ("invited", "planned", "attended"):
        v = co.get(key)
        if v:
            L.append(f"- {key}{' (host included)' if key == 'attended' else ''}: "
                     + "; ".join(f"{r} ({x[0] if isinstance(x, list) and x else ''})" for r, x in v.items()))
    L += ["", "![coordination](coordination.png)", ""]
    if result.get("fact_passing") is not None:
        L += passing_markdown(result["fact_passing"])
    if result.get("dialogue") is not None:
        L += dialogue_markdown(result["dialogue"])
    if result.get("holding") is not None:
        L += holding_markdown(result["holding"])
    if result.get("days") is not None:
        L += days_markdown(result["days"])
    L += ["Method: `lab/evaluate/` (the judge: `lab/evaluate/judge.py`); the paper's figures are from Park et al. "
          "2023, section 7, as summarised in research notes.", ""]
    return "\n".join(L)


def summary_text(result: dict) -> str:
    n = result["residents_count"]
    iv = result.get("interviews") or {}
    L = [f"evaluation of {result['target']} ({n} residents, {result['start']} -> {result['end']}):"]
    for fact in FACTS:
        d = result["diffusion"]["facts"][fact.key]
        me = d["memory_end"]
        s = f"  {fact.key:<10} memory {frac(d['memory_start']['count'], n)} -> {frac(me['count'] if me else None, n)}"
        if iv.get("end"):
            st = (iv.get("start") or {}).get(fact.key)
            s += f"; interview {frac(st['count'] if st else None, n)} -> {frac(iv['end'][fact.key]['count'], n)}"
        s += f"   (paper {fact.paper[0]:.0%} -> {fact.paper[1]:.0%})"
        L.append(s)
    rel = result["relationships"]
    L.append(f"  density    {rel['start']['density']:.3f} -> "
             f"{format(rel['end']['density'], '.3f') if rel['end'] else 'n/a'}"
             f"   (paper {PAPER_DENSITY[0]} -> {PAPER_DENSITY[1]})")
    c = result["coordination"]["counts"]
    att = c["attended"] if c["attended"] is not None else "n/a (" + "; ".join(result["coordination"]["notes"]) + ")"
    L.append(f"  party      invited {c['invited']}, planned {c['planned']}, attended {att}"
             f"   (paper {PAPER_ATTENDED} of {PAPER_INVITED} invitees)")
    fp = result.get("fact_passing")
    if fp is not None:
        L.append(f"  passing    {fp['with_a_new_fact']} of {fp['conversations']} conversations told the listener "
                 f"a fact new to them ({fp['rate']:.0%}); {fp['remembered']} of {fp['new']} such lines remembered")
    if result.get("dialogue") is not None:
        L.append(dialogue_summary(result["dialogue"]))
    if result.get("holding") is not None:
        L.append(holding_summary(result["holding"]))
    rows = (result.get("days") or {}).get("rows") or []
    if len(rows) > 1:
        L.append("  days       " + "; ".join(f"{r['day'][5:]}: {r['gatherings_started']} started, "
                                            f"{r['stale_lines']} stale" for r in rows))
    return "\n".join(L)


def json_default(o: Any) -> Any:
    if isinstance(o, datetime):
        return o.isoformat(sep=" ")
    if isinstance(o, (set, tuple)):
        return sorted(o)
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(type(o).__name__)


def write_outputs(result: dict, tg: Target, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {"json": out / "evaluation.json", "md": out / "evaluation.md"}
    files["json"].write_text(json.dumps(result, indent=2, ensure_ascii=False, default=json_default) + "\n",
                             encoding="utf-8")
    files["md"].write_text(render_markdown(result), encoding="utf-8")
    files["diffusion"] = plot_diffusion(result, tg, out / "diffusion.png")
    files["relationships"] = plot_relationships(result["relationships"], tg.residents, out / "relationships.png")
    files["coordination"] = plot_coordination(result["coordination"], out / "coordination.png")
    files["spread"] = plot_spread(result, out / "spread.png")
    return files
