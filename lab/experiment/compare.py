"""`smallville compare EXPERIMENT`: the arms of a `smallville fork` experiment
side by side, each measure as mean ± sd (min–max) across its seeds, and whether the
difference is more than noise: an effect size and an exact permutation test per measure,
with the number of seeds, and a plain word when the seeds cannot differ (sd 0 in every arm).

The paper's measures come from `smallville evaluate`'s own code (lab/evaluate):
diffusion of Sam's candidacy and Isabella's party (memory judge), the density
of the who-knows-whom graph, and the party's attendance when a branch reaches
it. A whisper (the first, when there are several) gets a measure of its own:
who, besides the resident who heard it, knows the news by the end (``news_known_by``) — from the lines they heard
(the resident saying it, or anyone naming the resident with the news) and from
their memories (the memory judge, the resident's name required; a memory about
one of the scenario's own facts, such as Sam's candidacy, does not count).

Run quality, from each branch's own events and model calls: the share of
actions that repeat the resident's previous one, the entropy of each
resident's actions (bits, averaged), the share of model answers a fallback
replaced, the share of actions a rule repaired, conversations per resident per
sim day and the model-led share of awake minutes.

Writes ``comparison.md``, ``comparison.json`` and ``comparison.png`` (the
measures per arm, every seed a dot) and ``news.png`` (the whispered news
spreading over time, one line per branch) into the experiment folder.
"""
from __future__ import annotations

import itertools
import json
import math
import re
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from agents import CastError, Persona, first_person, load_cast, load_config, make_embedder
from agents import provenance as pv
from game.runs import runstats
from game.saves.saved_run import Target, cast_of, load_target, parse_time, read_events
from game.support.errors import UserError
from lab.controlled.stats import two_arms
from lab.evaluate.coordination import coordination
from lab.evaluate.diffusion import diffusion, line_mentions
from lab.evaluate.judge import FACTS, Fact, memory_knows
from lab.evaluate.memories import Vectors, view_of_state
from lab.evaluate.plots import _plt
from lab.evaluate.relationships import relationships
from lab.experiment.fork import ARMS, MANIFEST

# (key, label, format) in the report's order.
MEASURES = [
    ("news_known_by", "whispered news: residents who know it (besides the one told)", "{:.1f}"),
    ("news_share", "whispered news: share of the others who know it", "{:.0%}"),
    ("candidacy_share", "Sam's candidacy: share who know it (memory)", "{:.0%}"),
    ("party_share", "Isabella's party: share who know it (memory)", "{:.0%}"),
    ("density", "relationship density at the end", "{:.3f}"),
    ("party_attended", "party guests who came (17:00-19:00 Feb 14)", "{:.1f}"),
    ("repeated_share", "actions that repeat the previous one", "{:.0%}"),
    ("action_entropy", "action entropy per resident (bits)", "{:.2f}"),
    ("fallback_share", "model answers a fallback replaced", "{:.1%}"),
    ("repair_share", "actions a rule repaired", "{:.1%}"),
    ("conversations_per_resident_day", "conversations per resident per sim day", "{:.1f}"),
    ("model_led_share", "model-led share of awake minutes", "{:.0%}"),
    ("calls", "model calls (this branch's)", "{:,.0f}"),
]


# ---------------------------------------------------------------------------- the whispered news


def news_fact(name: str, text: str) -> Fact:
    """The whisper as a fact about the resident who heard it: "You are going to run for mayor"
    to Isabella -> "Isabella Rodriguez is going to run for mayor", about "mayor", naming her."""
    said = first_person(text)
    statement = re.sub(r"^(I am|I'm)\b", f"{name} is", said)
    statement = re.sub(r"^I\b", name, statement)
    words = [w for w in re.findall(r"[a-z']+", said.lower()) if len(w) > 2 and w not in _COMMON]
    topic_words = words[1:] or words  # the first is the verb: "run" alone would match "running the cafe"
    first, last = name.split()[0], name.split()[-1]
    return Fact(key=f"news:{name}", label=f"{name}: \u201c{said}\u201d", holder=name, statement=statement,
                question="", topic="|".join(rf"\b{re.escape(w)}" for w in topic_words) or r"$^",
                detail=rf"\b{re.escape(first.lower())}\b|\b{re.escape(last.lower())}\b", needs_detail=True)


_COMMON = frozenset("the and are you your going for with about will am i'm i'll i've have has this that into from "
                    "them they their some today tonight tomorrow want need".split())


def news_heard(fact: Fact, tg: Target, residents: Sequence[str], embedder: Any) -> dict[str, datetime]:
    """Resident (other than the holder) -> when they first knew the news."""
    others = [f for f in FACTS if f.holder != fact.holder]
    out: dict[str, datetime] = {}

    def note(who: Any, t: datetime | None) -> None:
        if who in residents and who != fact.holder and t is not None and (who not in out or t < out[who]):
            out[who] = t

    for e in line_mentions(tg.events or [], fact.topic):
        text = str(e.get("text", ""))
        if any(re.search(f.detail, text, re.I) for f in others if re.search(f.topic, text, re.I)):
            continue  # about someone else's news (Sam's candidacy), not this one
        by_holder = e.get("resident") == fact.holder
        if by_holder or re.search(fact.detail, text, re.I):
            t = parse_time(e.get("time"))
            if not by_holder:
                note(e.get("resident"), t)
            note(e.get("partner"), t)
    views = {r: view_of_state(s) for r, s in tg.states.items() if r in residents and r != fact.holder}
    model = next((v.model for v in views.values() if v.model), None)
    vec = Vectors(embedder, model)
    fv = vec([fact.statement])
    for r, v in views.items():
        hits = memory_knows(fact, v.texts, v.vectors if vec.ok else None, fv[0] if fv is not None else None, owner=r)
        for i, hit in enumerate(hits):
            if hit and not any(re.search(f.detail, v.texts[i], re.I) and re.search(f.topic, v.texts[i], re.I)
                               for f in others):
                note(r, v.created[i])
    return out


# ---------------------------------------------------------------------------- run quality


def quality(events: list[dict], calls: list[dict], residents: Sequence[str], hours: float,
            end: datetime | None) -> dict[str, float | None]:
    """The run-quality measures of one branch's own events and model calls."""
    acts: dict[str, list[str]] = {}
    sources: list[str] = []
    for e in events:
        if e.get("kind") == "action" and e.get("resident") in residents:
            acts.setdefault(e["resident"], []).append(" ".join(str(e.get("text", "")).lower().split()))
            sources.append(pv.kind_of(e.get("source")))
    n_acts = sum(len(a) for a in acts.values())
    repeats = sum(1 for a in acts.values() for prev, cur in itertools.pairwise(a) if prev == cur)
    entropies = []
    for a in acts.values():
        counts = Counter(a)
        entropies.append(-sum(c / len(a) * math.log2(c / len(a)) for c in counts.values()))
    chats = sum(1 for e in events if e.get("kind") == "chat" and not e.get("ended"))
    resident_days = len(residents) * hours / 24.0
    led = runstats.model_led(events, end)
    fallbacks = sum(1 for c in calls if c.get("outcome") not in ("ok", "retried"))
    return {
        "repeated_share": repeats / max(1, n_acts - len(acts)) if n_acts > len(acts) else None,
        "action_entropy": statistics.fmean(entropies) if entropies else None,
        "fallback_share": fallbacks / len(calls) if calls else None,
        "repair_share": sources.count(pv.REPAIRED) / len(sources) if sources else None,
        "conversations_per_resident_day": chats / resident_days if resident_days else None,
        "model_led_share": runstats.share_of_all({k: v for k, v in led.items() if k in residents}),
        "calls": float(len(calls)),
    }


# ---------------------------------------------------------------------------- one branch, the arms


def personas_of(manifest: dict, map_path: Path) -> tuple[dict[str, Persona], Any]:
    """The town's cast plus any resident the treatment added."""
    try:
        cast, scenario = load_cast(map_path.parent)
    except CastError as err:
        raise UserError(str(err)) from None
    personas = {p.name: p for p in cast}
    for ch in manifest["arms"]["treatment"]["changes"]:
        if ch["kind"] == "add_persona":
            personas[ch["persona"]["name"]] = Persona(**ch["persona"])
    return personas, scenario


def measure_branch(folder: Path, manifest: dict, personas: dict[str, Persona], scenario: Any,
                   embedder: Any) -> dict:
    tg = load_target(folder, manifest.get("map"))
    if tg.parts is not None:  # the residents the branch's save keeps: a generated town's, one added or removed
        personas = {**personas, **cast_of(tg, manifest.get("map") or "")[0]}
    rs = tg.residents
    res: dict[str, Any] = {}
    diff = diffusion(tg, personas, scenario, embedder)
    for f in FACTS:
        end = diff["facts"][f.key]["memory_end"]
        res[f"{f.key}_share"] = end["share"] if end else None
    rel = relationships(tg, personas)
    res["density"] = rel["end"]["density"] if rel.get("end") else None
    co = coordination(tg)
    res["party_attended"] = co["counts"]["attended"]
    whispers = [c for c in manifest["arms"]["treatment"]["changes"] if c["kind"] == "whisper"]
    res["news"] = {}
    if whispers:
        fact = news_fact(whispers[0]["name"], whispers[0]["text"])
        heard = news_heard(fact, tg, rs, embedder)
        others = max(1, len([r for r in rs if r != fact.holder]))
        res["news_known_by"] = float(len(heard))
        res["news_share"] = len(heard) / others
        res["news"] = {"fact": fact.statement, "knows": {r: t.isoformat(sep=" ") for r, t in sorted(heard.items())}}
    calls_path = folder / "llm_calls.jsonl"
    calls = read_events(calls_path) if calls_path.exists() else []
    res.update(quality(tg.events or [], calls, rs, float(manifest["hours"]), tg.end))
    return res


def spread(values: list[float | None]) -> dict[str, Any]:
    v = [float(x) for x in values if x is not None]
    if not v:
        return {"n": 0, "mean": None, "sd": None, "min": None, "max": None, "values": []}
    return {"n": len(v), "mean": statistics.fmean(v), "sd": statistics.stdev(v) if len(v) > 1 else 0.0,
            "min": min(v), "max": max(v), "values": v}


def compare(folder: str | Path, *, embedder: Any = None, echo: Callable[[str], None] | None = None) -> dict:
    """Every branch measured and every arm summarised, as one JSON-able dict."""
    folder = Path(folder)
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"compare {folder}: no {MANIFEST} here; give the folder smallville fork wrote") from None
    except ValueError as err:
        raise UserError(f"compare {folder}: {MANIFEST} is damaged ({err})") from None
    personas, scenario = personas_of(manifest, Path(manifest.get("map") or ""))
    if embedder is None:
        embedder = make_embedder(load_config({}))
    branches: dict[str, dict] = {}
    missing = []
    for name, b in sorted(manifest.get("branches", {}).items()):
        run = folder / b.get("run", f"runs/{name}")
        if b.get("error") or not (run / "summary.json").exists():
            missing.append(f"{name} ({b.get('error') or 'no finished run'})")
            continue
        if echo is not None:
            echo(f"  measuring {name}")
        branches[name] = {"arm": b["arm"], "seed": b["seed"], **measure_branch(run, manifest, personas, scenario,
                                                                                 embedder)}
    arms = {arm: {key: spread([r.get(key) for r in branches.values() if r["arm"] == arm])
                  for key, _label, _fmt in MEASURES} for arm in ARMS}
    return {"experiment": str(folder), "at": manifest.get("at"), "hours": manifest.get("hours"),
            "seeds": manifest.get("seeds"), "treatment": manifest["arms"]["treatment"].get("described", []),
            "branches": branches, "arms": arms, "tests": arm_tests(arms), "missing": missing}


# ---------------------------------------------------------------------------- more than noise?


def arm_tests(arms: dict) -> dict[str, dict]:
    """Per measure: treatment minus control, Hedges' g, Cliff's delta, an exact permutation
    test's p over the seeds, and a note when the seeds cannot tell (lab/controlled/stats.py)."""
    out = {}
    for key, _label, _fmt in MEASURES:
        c, t = arms["control"][key]["values"], arms["treatment"][key]["values"]
        if c or t:
            out[key] = vars(two_arms(c, t))
    return out


def tests_markdown(result: dict) -> list[str]:
    """The tests' section of comparison.md; the seeds' plain word when they cannot differ."""
    tests = result.get("tests") or {}
    if not tests:
        return []
    L = ["", "## Is the difference more than noise?", "",
         "Per measure: treatment − control, Hedges' g (pooled sd), Cliff's delta (−1..1), the two-sided p of an "
         "exact permutation test over the seeds, and the seeds per arm.", "",
         "| measure | treatment − control | Hedges' g | Cliff's δ | p | seeds | note |",
         "|---|---|---|---|---|---|---|"]
    f2 = lambda x: "n/a" if x is None else f"{x:.2f}"  # noqa: E731
    for key, label, fmt in MEASURES:
        x = tests.get(key)
        if x is None:
            continue
        diff = "n/a" if x["diff"] is None else fmt.format(x["diff"])
        p = "n/a" if x["p"] is None else f"{x['p']:.3f}"
        L.append(f"| {label} | {diff} | {f2(x['hedges_g'])} | {f2(x['cliffs_delta'])} | {p} | "
                 f"{x['n_control']} + {x['n_treatment']} | {x['note']} |")
    flat = [k for k, x in tests.items() if "cannot differ" in x["note"]]
    if flat and len(flat) == len(tests):
        L += ["", "**The seeds cannot differ here: every measure has sd 0 in every arm.** The model answered the "
              "same whatever the seed (a deterministic model, or a response cache shared by the seeds), so "
              "more seeds add nothing; a difference between the arms is the treatment's, but no test can say "
              "how it would vary."]
    elif flat:
        L += ["", f"{len(flat)} of {len(tests)} measures have sd 0 in both arms: the seeds cannot differ on them."]
    return L


# ---------------------------------------------------------------------------- the report


def cell(s: dict, fmt: str) -> str:
    if not s["n"]:
        return "n/a"
    mean = fmt.format(s["mean"])
    if s["n"] == 1:
        return mean
    return f"{mean} ± {fmt.format(s['sd'])} ({fmt.format(s['min'])}–{fmt.format(s['max'])})"


def markdown(result: dict) -> str:
    L = [f"# Experiment {result['experiment']}", "",
         f"From {result['at']}, {result['hours']:g} sim hours per branch, seeds {result['seeds']} in each arm.  ",
         "Treatment: " + ("; ".join(result["treatment"]) or "none") + ".  ",
         "Each cell: mean ± sd (min–max) across seeds.", "",
         "| measure | control | treatment |", "|---|---|---|"]
    for key, label, fmt in MEASURES:
        c, t = result["arms"]["control"][key], result["arms"]["treatment"][key]
        if c["n"] or t["n"]:
            L.append(f"| {label} | {cell(c, fmt)} | {cell(t, fmt)} |")
    L += tests_markdown(result)
    for m in result["missing"]:
        L.append(f"\n- missing branch: {m}")
    news = {n: b["news"] for n, b in result["branches"].items() if b.get("news")}
    if news:
        L += ["", "## Who knew the whispered news, by branch", ""]
        for name, nw in news.items():
            who = ", ".join(f"{r} ({t[11:16]})" for r, t in nw["knows"].items()) or "nobody"
            L.append(f"- {name}: {who}")
    return "\n".join(L) + "\n"


def plot(result: dict, out: Path) -> list[Path]:
    """comparison.png: each measure's arms, every seed a dot; news.png: the news over time."""
    plt = _plt()
    keys = [(k, label) for k, label, _f in MEASURES if k != "calls"
            and any(result["arms"][a][k]["n"] for a in ARMS)]
    cols = 3
    rows = max(1, math.ceil(len(keys) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 2.6 * rows), squeeze=False)
    colours = {"control": "#7f8c8d", "treatment": "#d35400"}
    for ax, (key, label) in zip(axes.flat, keys):
        for i, arm in enumerate(ARMS):
            s = result["arms"][arm][key]
            if not s["n"]:
                continue
            ax.bar(i, s["mean"], color=colours[arm], alpha=0.35, width=0.6)
            ax.errorbar(i, s["mean"], yerr=s["sd"] or 0, color=colours[arm], capsize=4)
            ax.scatter([i] * s["n"], s["values"], color=colours[arm], zorder=3, s=18)
        ax.set_xticks(range(len(ARMS)), ARMS)
        ax.set_title(label, fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    fig.suptitle(f"{Path(result['experiment']).name}: " + ("; ".join(result["treatment"]) or "no change"),
                 fontsize=9)
    fig.tight_layout()
    paths = [out / "comparison.png"]
    fig.savefig(paths[0], dpi=110)
    plt.close(fig)
    news = {n: b for n, b in result["branches"].items() if b.get("news")}
    if news:
        fig, ax = plt.subplots(figsize=(7, 3.4))
        start = datetime.fromisoformat(result["at"])
        for name, b in sorted(news.items()):
            times = sorted(datetime.fromisoformat(t) for t in b["news"]["knows"].values())
            hrs = [0.0] + [(t - start).total_seconds() / 3600 for t in times] + [float(result["hours"])]
            ys = [0] + list(range(1, len(times) + 1)) + [len(times)]
            ax.step(hrs, ys, where="post", color=colours[b["arm"]], label=name, alpha=0.85)
        ax.set_xlabel(f"sim hours after {result['at']}")
        ax.set_ylabel("residents who know")
        ax.set_title(next(iter(news.values()))["news"]["fact"], fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        paths.append(out / "news.png")
        fig.savefig(paths[-1], dpi=110)
        plt.close(fig)
    return paths


def main_compare(args: Any, *, embedder: Any = None, echo: Callable[[str], None] | None = print) -> int:
    folder = Path(args.experiment)
    out = Path(getattr(args, "out", None) or folder)
    say = (lambda s: print(s, file=sys.stderr)) if echo is not None else None
    result = compare(folder, embedder=embedder, echo=say)
    if not result["branches"]:
        raise UserError(f"compare {folder}: no finished branch to measure ({'; '.join(result['missing'])})")
    out.mkdir(parents=True, exist_ok=True)
    text = markdown(result)
    (out / "comparison.md").write_text(text, encoding="utf-8")
    (out / "comparison.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    pngs = plot(result, out)
    if echo is not None:
        echo(text)
        echo(f"wrote {out / 'comparison.md'}, comparison.json and {', '.join(p.name for p in pngs)}")
    return 0


__all__ = ["MEASURES", "arm_tests", "compare", "main_compare", "measure_branch", "news_fact", "news_heard", "quality",
           "spread", "tests_markdown"]
