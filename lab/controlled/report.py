"""The controlled evaluation's report: report.md (the paper's table of ratings, win
rates, the tests, the automatic measures, the answers themselves), report.json and
ratings.png (like the paper's Figure 8: mu with sigma as error bars per condition,
the paper's mu beside). People's rankings and each judge model's are rated apart.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from game.saves.saved_run import load_target
from lab.controlled.conditions import PAPER_FULL_SIGMA, Condition
from lab.controlled.folder import JUDGES, PEOPLE, Evaluation, Tiers, ranking_files, read_rankings, write_json
from lab.controlled.measures import measure
from lab.controlled.origin import evaluated_save
from lab.controlled.ratings import summarise
from lab.evaluate.plots import _plt


def gather(ev: Evaluation) -> dict[str, Any]:
    """Every source of rankings summarised: "people" (all raters together) and each judge."""
    conds = ev.condition_names()
    notes: list[str] = []
    sources: dict[str, Any] = {}
    people: list[Tiers] = []
    raters = []
    for path in ranking_files(ev.folder, PEOPLE):
        rk = read_rankings(path, conds)
        raters.append(rk.who)
        people += list(rk.orders.values())
        if rk.bad_lines:
            notes.append(f"{path.relative_to(ev.folder)}: {rk.bad_lines} unreadable lines skipped "
                         "(not a ranking of this evaluation's conditions)")
    if people:
        sources["people"] = {"raters": raters, **summarise(people, conds)}
    for path in ranking_files(ev.folder, JUDGES):
        rk = read_rankings(path, conds)
        if rk.bad_lines:
            notes.append(f"{path.relative_to(ev.folder)}: {rk.bad_lines} unreadable lines skipped")
        if rk.fallbacks:
            notes.append(f"judge {rk.who}: {rk.fallbacks} answers were not a ranking (left out of its ratings)")
        if rk.orders:
            sources[f"judge: {rk.who}"] = {"fallbacks": rk.fallbacks, **summarise(list(rk.orders.values()), conds)}
    alike = sum(1 for it in ev.items if len(ev.choices(it, conds)) < 2)
    if alike:
        notes.append(f"{alike} of {len(ev.items)} questions got the same answer under every condition: nothing to "
                     "rank there (raters and judges are not shown them)")
    return {"sources": sources, "notes": notes, "alike": alike}


def _cond_label(conds: list[Condition], name: str) -> str:
    return next((c.label for c in conds if c.name == name), name)


def _p(p: float | None) -> str:
    return "n/a" if p is None else ("< 0.001" if p < 0.001 else f"{p:.3f}")


# long: the report's sections in the order a reader meets them
def markdown(ev: Evaluation, gathered: dict, measures: dict) -> str:
    d = ev.data
    conds = ev.conditions
    names = ev.condition_names()
    n_res = len(d["residents"])
    L = [f"# Controlled evaluation of {d['target']}", "",
         f"{n_res} residents at sim {d['time']} · answers by `{d.get('model')}` (grounded: {d.get('grounded')}) · "
         f"{len(d['items'])} questions, each asked under every condition "
         "(the paper's interviews, Park et al. 2023 section 6).", "",
         "| condition | memories hidden from the interview |", "|---|---|"]
    for cond in conds:
        hidden = "written by people" if cond.people else (", ".join(sorted(cond.hide)) or "none")
        L.append(f"| {cond.label} | {hidden} |")
    L.append("")
    notes = list(gathered["notes"])
    if any(c.people for c in conds) and not any(ev.human.values()):
        notes.insert(0, "the human-written condition is left out: nobody has written its answers yet "
                        f"(`smallville rate {ev.folder} --write-answers --rater NAME`)")
    for n in notes:
        L.append(f"- note: {n}")
    if notes:
        L.append("")
    L += ["## Believability ratings", ""]
    if not gathered["sources"]:
        L += [f"No rankings yet. People rank with `smallville rate {ev.folder} --rater NAME`; a model ranks with "
              f"`smallville rate {ev.folder} --judge --model MODEL`.", ""]
    for src, s in gathered["sources"].items():
        who = f" ({len(s['raters'])} raters: {', '.join(s['raters'])})" if src == "people" else ""
        L += [f"### {src}{who}: {s['rankings']} rankings", "",
              "| condition | μ | σ | rankings it was in | paper μ |", "|---|---|---|---|---|"]
        for c in s["order"] + [c for c in names if c not in s["order"]]:
            r = s["ratings"][c]
            paper = next((x.paper for x in conds if x.name == c), None)
            pap = "" if paper is None else f"{paper:.2f}" + (f" (σ {PAPER_FULL_SIGMA})" if c == "full" else "")
            L.append(f"| {_cond_label(conds, c)} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['matches']} | {pap} |")
        L += ["", "Win rates (row ranked above column, over the rankings holding both):", "",
              "| | " + " | ".join(s["order"]) + " |", "|---|" + "---|" * len(s["order"])]
        for a in s["order"]:
            L.append(f"| {a} | " + " | ".join("" if a == b else (f"{s['win_rates'][a][b]:.0%}"
                                                                    if s["win_rates"][a][b] is not None else "n/a")
                                              for b in s["order"]) + " |")
        kw = s.get("kruskal")
        if kw:
            L += ["", f"Kruskal-Wallis over the ranks each condition got: H = {kw['h']:.2f}, df {kw['df']}, "
                  f"p {_p(kw['p'])} (n = {kw['n']} ranks). Dunn's test between neighbours (Holm-adjusted):", "",
                  "| higher | lower | z | p | p (Holm) |", "|---|---|---|---|---|"]
            for x in s["dunn"]:
                L.append(f"| {x['a']} | {x['b']} | {x['z']:.2f} | {_p(x['p'])} | {_p(x['p_holm'])} |")
        L.append("")
    L += ["Paper (100 evaluators, 25 agents): full architecture μ 29.89 (σ 0.72), no reflection 26.88, "
          "no reflection/planning 25.64, human-written 22.95, no observation/reflection/planning 21.21. "
          "Ratings here: openskill's Thurstone-Mosteller (TrueSkill's Gaussian model, same prior μ 25, σ 8.33).", "",
          "![ratings](ratings.png)", "", "## Automatic measures (no rater)", "",
          "Grounded: the answer says what one of the resident's own records says. No claim: it does not know, or "
          "is a stand-in line. Made up: it names a person, place or event neither its records nor the town hold. "
          "Factual: the factual judge on the factual questions (lab/evaluate/factual.py). Rules: "
          "lab/controlled/measures.py.", "",
          "| condition | answers | grounded | no claim | made up | factual |", "|---|---|---|---|---|---|"]
    for c in names:
        m = measures["conditions"].get(c)
        if not m:
            continue
        f = m.get("factual")
        fact = f"{f['correct']}/{f['questions']} ({f['share']:.0%})" if f else "n/a"
        L.append(f"| {_cond_label(conds, c)} | {m['answers']} | {m['grounded']:.0%} | {m['no_claim']:.0%} | "
                 f"{m['made_up']:.0%} | {fact} |")
    cats = list(dict.fromkeys(it["category"] for it in d["items"]))
    present = [c for c in names if c in measures["by_category"]]
    L += ["", "Grounded share by category:", "", "| category | " + " | ".join(present) + " |",
          "|---|" + "---|" * len(present)]
    for cat in cats:
        L.append(f"| {cat} | " + " | ".join(f"{measures['by_category'][c][cat]['grounded']:.0%}"
                                            if cat in measures["by_category"][c] else "" for c in present) + " |")
    L += ["", "## The answers", ""]
    verdict = {(v["key"], v["condition"]): v for v in measures["answers"]}
    for r in d["residents"]:
        L += [f"### {r}", ""]
        for it in (x for x in d["items"] if x["resident"] == r):
            L += [f"**{it['category']}: {it['question']}**", ""]
            answers = ev.answers(it)
            for c in names:
                if c not in answers:
                    continue
                v = verdict.get((it["key"], c), {})
                tag = ", ".join(t for t, on in (("grounded", v.get("grounded")), ("no claim", v.get("no_claim")))
                                if on)
                if v.get("made_up"):
                    tag = ", ".join(filter(None, [tag, "made up: " + ", ".join(v["made_up"])]))
                L.append(f"- *{c}*: {' '.join(answers[c].split())}" + (f" ({tag})" if tag else ""))
            L.append("")
    return "\n".join(L) + "\n"


def plot(ev: Evaluation, gathered: dict, path: Path) -> Path:
    """Like the paper's Figure 8: each condition's μ with σ as its error bar, per source; the paper's μ in grey."""
    plt = _plt()
    names = ev.condition_names()
    fig, ax = plt.subplots(figsize=(8, 4.2))
    sources = list(gathered["sources"].items())
    width = 0.8 / max(1, len(sources) + 1)
    for k, (src, s) in enumerate(sources):
        xs = [i + (k - len(sources) / 2) * width for i in range(len(names))]
        ax.bar(xs, [s["ratings"][c]["mu"] for c in names], width, yerr=[s["ratings"][c]["sigma"] for c in names],
               capsize=3, label=f"{src} ({s['rankings']} rankings)", alpha=0.8)
    paper = [next((c.paper for c in ev.conditions if c.name == n), None) for n in names]
    xs = [i + (len(sources) / 2) * width for i in range(len(names))]
    ax.bar([x for x, p in zip(xs, paper) if p is not None], [p for p in paper if p is not None], width,
           color="lightgrey", edgecolor="grey", label="paper (100 evaluators)")
    ax.set_xticks(range(len(names)), [n.replace("_", "\n") for n in names], fontsize=8)
    ax.set_ylabel("TrueSkill-like rating μ (error bar: σ)")
    ax.set_ylim(0, 45)
    if not sources:
        ax.text(0.5, 0.9, "no rankings yet: only the paper's", ha="center", transform=ax.transAxes)
    ax.set_title(f"Believability by condition: {Path(ev.data['target']).name}", fontsize=10)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def states_of(ev: Evaluation) -> dict[str, dict]:
    """The residents' saved states (the automatic measures read their whole records), from the
    save ``ev`` was made from, checked to be that save."""
    return load_target(evaluated_save(ev)).states


def write_report(ev: Evaluation, personas: dict[str, Any], states: dict[str, dict]) -> dict[str, Path]:
    measures = measure(ev.data, states, personas, ev.human)
    gathered = gather(ev)
    out = ev.folder
    files = {"md": out / "report.md", "json": out / "report.json", "png": out / "ratings.png",
             "measures": out / "measures.json"}
    write_json(files["measures"], measures)
    write_json(files["json"], {"target": ev.data["target"], "conditions": ev.condition_names(),
                               "ratings": gathered["sources"], "notes": gathered["notes"],
                               "measures": {k: v for k, v in measures.items() if k != "answers"}})
    files["md"].write_text(markdown(ev, gathered, measures), encoding="utf-8")
    plot(ev, gathered, files["png"])
    return files


__all__ = ["gather", "markdown", "plot", "states_of", "write_report"]
