"""`smallville compare EVAL_A EVAL_B`: two controlled evaluations side by side (say, two
models answering, or a prompt change): per condition each one's ratings (people's and
each judge's) and automatic measures, and for each measure a test of the difference:
Fisher's exact test on the counts (grounded answers, answers with a made-up fact)
and the overlap of the two ratings' mu ± 2 sigma.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from game.support.errors import UserError
from lab.controlled.folder import read, write_json
from lab.controlled.report import gather


def fisher_exact(a: int, b: int, c: int, d: int) -> float:
    """Two-sided p of the 2x2 table [[a, b], [c, d]] (the hypergeometric, summed over
    the tables no more likely than the one seen)."""
    r1, c1, n = a + b, a + c, a + b + c + d

    def prob(x: int) -> float:
        return math.comb(c1, x) * math.comb(n - c1, r1 - x) / math.comb(n, r1)

    seen = prob(a)
    lo, hi = max(0, r1 - (n - c1)), min(r1, c1)
    return min(1.0, sum(p for x in range(lo, hi + 1) if (p := prob(x)) <= seen * (1 + 1e-9)))


def _measures(folder: Path) -> dict:
    try:
        return json.loads((folder / "measures.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise UserError(f"{folder}: no readable measures.json; run `smallville rate {folder} --report` first") from None


def compare_evaluations(a_dir: Path, b_dir: Path) -> dict[str, Any]:
    a, b = read(a_dir), read(b_dir)
    ma, mb = _measures(a.folder), _measures(b.folder)
    ga, gb = gather(a), gather(b)
    conds = [c for c in a.condition_names() if c in b.condition_names()]
    rows = []
    for c in conds:
        x, y = ma["conditions"].get(c), mb["conditions"].get(c)
        if not x or not y:
            continue
        row: dict[str, Any] = {"condition": c}
        for key in ("grounded", "made_up"):
            ka, kb = x[f"{key}_count"], y[f"{key}_count"]
            row[key] = {"a": x[key], "b": y[key], "a_count": ka, "b_count": kb, "a_n": x["answers"],
                        "b_n": y["answers"], "p": fisher_exact(ka, x["answers"] - ka, kb, y["answers"] - kb)}
        rows.append(row)
    ratings = {}
    for src in sorted(set(ga["sources"]) & set(gb["sources"])):
        ra, rb = ga["sources"][src]["ratings"], gb["sources"][src]["ratings"]
        ratings[src] = {c: {"a": ra[c], "b": rb[c],
                            "apart": abs(ra[c]["mu"] - rb[c]["mu"]) > 2 * (ra[c]["sigma"] + rb[c]["sigma"])}
                        for c in conds if c in ra and c in rb}
    return {"a": {"folder": str(a.folder), "target": a.data["target"], "model": a.data.get("model")},
            "b": {"folder": str(b.folder), "target": b.data["target"], "model": b.data.get("model")},
            "measures": rows, "ratings": ratings,
            "only_one": sorted(set(ga["sources"]) ^ set(gb["sources"]))}


def markdown(res: dict) -> str:
    A, B = res["a"], res["b"]
    L = [f"# {Path(A['folder']).name} vs {Path(B['folder']).name}", "",
         f"A: {A['target']} (answers by `{A['model']}`)  ", f"B: {B['target']} (answers by `{B['model']}`)", "",
         "## Automatic measures", "",
         "| condition | grounded A | grounded B | p (Fisher) | made up A | made up B | p (Fisher) |",
         "|---|---|---|---|---|---|---|"]
    for r in res["measures"]:
        g, m = r["grounded"], r["made_up"]
        L.append(f"| {r['condition']} | {g['a']:.0%} ({g['a_count']}/{g['a_n']}) | {g['b']:.0%} ({g['b_count']}/"
                 f"{g['b_n']}) | {g['p']:.3f} | {m['a']:.0%} | {m['b']:.0%} | {m['p']:.3f} |")
    L += ["", "## Ratings (μ ± σ)", ""]
    if not res["ratings"]:
        L.append("No source of rankings (people, or the same judge model) rated both evaluations.")
    for src, rows in res["ratings"].items():
        L += [f"### {src}", "", "| condition | A | B | apart (μ beyond 2σ of each other) |", "|---|---|---|---|"]
        for c, x in rows.items():
            L.append(f"| {c} | {x['a']['mu']:.2f} ± {x['a']['sigma']:.2f} | {x['b']['mu']:.2f} ± "
                     f"{x['b']['sigma']:.2f} | {'yes' if x['apart'] else 'no'} |")
        L.append("")
    if res["only_one"]:
        L.append(f"Rated in only one of them (not compared): {', '.join(res['only_one'])}.")
    return "\n".join(L) + "\n"


def main_compare_evaluations(a: str, b: str, out: str | None, echo: Any = print) -> int:
    res = compare_evaluations(Path(a), Path(b))
    folder = Path(out) if out else Path(b)
    folder.mkdir(parents=True, exist_ok=True)
    text = markdown(res)
    (folder / "comparison.md").write_text(text, encoding="utf-8")
    write_json(folder / "comparison.json", res)
    if echo is not None:
        echo(text)
        echo(f"wrote {folder / 'comparison.md'} and comparison.json")
    return 0


__all__ = ["compare_evaluations", "fisher_exact", "main_compare_evaluations", "markdown"]
