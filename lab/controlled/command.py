"""The commands of the controlled evaluation:

    smallville evaluate RUN --ablations [--out EVAL] [--conditions FILE] [--agent NAME] [--questions N]
    smallville rate EVAL --rater NAME            # blind ranking by a person, in the terminal
    smallville rate EVAL --write-answers --rater NAME   # a person writes the human condition's answers
    smallville rate EVAL --judge [--model MODEL]  # a judge model ranks (any litellm model)
    smallville rate EVAL --report                # the report again (after any of the above it is redone)
    smallville compare EVAL_A EVAL_B             # two evaluations side by side
"""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents import ConfigError, Gateway, load_config
from game.saves.saved_run import Target, cast_of, load_target, model_setup
from game.support import folders
from game.support.errors import UserError
from lab.controlled.conditions import PAPER_CONDITIONS, conditions_json, load_conditions
from lab.controlled.folder import ANSWERS, JUDGES, PEOPLE, Evaluation, ranking_files, read, reuse_human, write_json
from lab.controlled.interviews import interview_conditions
from lab.controlled.journal import journal_header, open_journal
from lab.controlled.judge import judge_rankings
from lab.controlled.origin import evaluated_save, save_entry, sha256_of
from lab.controlled.report import write_report
from lab.controlled.terminal import rate, write_answers


def default_out(tg: Target) -> Path:
    base = tg.folder if tg.folder is not None else tg.save.parent / tg.save.stem  # type: ignore[union-attr]
    return base / "controlled"


def _pick(names: list[str], agent: str | None) -> list[str]:
    if not agent:
        return names
    want = agent.casefold()
    match = [n for n in names if n.casefold() == want or n.split()[0].casefold() == want]
    if not match:
        raise UserError(f"--agent {agent}: not in this save (residents: {', '.join(names)})")
    return match[:1]


def main_ablations(args: Any, *, gateway: Any = None, embedder: Any = None,
                   echo: Callable[[str], None] | None = print) -> int:
    default_map = getattr(args, "map", None) or folders.default_map()
    tg = load_target(args.target, default_map)
    if not tg.states or tg.end is None or tg.save is None:
        raise UserError(f"evaluate {tg.given} --ablations: the interviews need a save with residents (none found)")
    digest = sha256_of(tg.save)  # the save as read just now: later uses check it is still this one
    personas, scenario = cast_of(tg, default_map)
    conds = load_conditions(Path(args.conditions)) if getattr(args, "conditions", None) else list(PAPER_CONDITIONS)
    out = Path(args.out) if getattr(args, "out", None) else default_out(tg)
    rated = ranking_files(out, PEOPLE) + ranking_files(out, JUDGES)
    if rated:
        raise UserError(f"{out} already holds rankings of its answers ({rated[0].name}, ...): new answers would "
                        f"make them wrong; give another --out (and --human {out} to copy people's answers there)")
    per = getattr(args, "questions", None)
    if per is not None and not 1 <= per <= 5:
        raise UserError(f"--questions {per}: give 1 to 5 (questions of each category)")
    names = _pick([n for n in tg.states if n in personas], getattr(args, "agent", None))
    gateway, embedder, _config = model_setup(args, tg, gateway, embedder, need_model=True)
    say = (lambda s: print(s, file=sys.stderr)) if echo is not None else None
    journal = open_journal(out, journal_header(digest, gateway, conds))  # before any question is asked
    data = interview_conditions(tg, personas, scenario, gateway, embedder, conds, names=names, per_category=per,
                                echo=say, journal=journal)
    data.update(save_entry(tg.save, out, digest))
    write_json(out / ANSWERS, data)
    (out / "conditions.json").write_text(conditions_json(conds), encoding="utf-8")
    if getattr(args, "human", None):
        copied, total = reuse_human(Path(args.human), out, data["items"])
        if echo is not None:
            echo(f"people's answers: {copied} of {total} in {args.human} fit these questions and were copied")
    files = write_report(read(out), personas, tg.states)
    if echo is not None:
        echo(summary(out))
        echo(f"wrote {out / ANSWERS} and {files['md']}; next: `smallville rate {out} --rater NAME` (people) or "
             f"`--judge --model MODEL`")
    return 0


def summary(folder: Path) -> str:
    m = json.loads((folder / "measures.json").read_text(encoding="utf-8"))
    L = ["automatic measures per condition (grounded / no claim / made up / factual):"]
    for c, x in m["conditions"].items():
        f = x.get("factual")
        L.append(f"  {c:<24} {x['grounded']:>4.0%} / {x['no_claim']:>4.0%} / {x['made_up']:>4.0%} / "
                 + (f"{f['correct']}/{f['questions']}" if f else "n/a") + f"   ({x['answers']} answers)")
    return "\n".join(L)


def evaluated_town(ev: Evaluation, default_map: str | Path) -> tuple[dict[str, Any], dict[str, dict]]:
    """(personas, the residents' saved states) of the save ``ev`` was made from, checked to be that save."""
    tg = load_target(evaluated_save(ev), default_map)
    personas, _scenario = cast_of(tg, default_map)
    return personas, tg.states


def judge_gateway(args: Any) -> Gateway:
    keys = ("model", "api_base", "concurrency", "cache")
    given = {k: v for k, v in vars(args).items() if v is not None and k in keys}
    try:
        return Gateway(load_config(given))
    except ConfigError as err:
        raise UserError(str(err)) from None


def main_rate(args: Any, *, gateway: Any = None, echo: Callable[[str], None] | None = print) -> int:
    default_map = getattr(args, "map", None) or folders.default_map()
    ev = read(Path(args.evaluation))
    modes = [m for m in ("write_answers", "judge", "report") if getattr(args, m, False)]
    if len(modes) > 1:
        raise UserError(f"rate: give one of --write-answers, --judge, --report (not {', '.join(modes)})")
    mode = modes[0] if modes else "rate"
    rater = getattr(args, "rater", None)
    if mode in ("rate", "write_answers") and not rater:
        raise UserError("rate: say who you are with --rater NAME (each rater's rankings go into their own file)")
    personas, states = evaluated_town(ev, default_map)  # the report needs it: checked before anyone works
    if mode == "rate":
        rate(ev, str(rater), seed=getattr(args, "seed", None))
    elif mode == "write_answers":
        write_answers(ev, str(rater), resident=getattr(args, "agent", None))
    elif mode == "judge":
        gw = gateway or judge_gateway(args)
        res = judge_rankings(ev, gw, echo=(lambda s: print(s, file=sys.stderr)) if echo is not None else None)
        if echo is not None:
            echo(f"judge: {res['ranked']} rankings, {res['fallbacks']} answers that were not a ranking "
                 f"-> {res['path']}")
    files = write_report(read(ev.folder), personas, states)
    if echo is not None:
        echo(f"wrote {files['md']} and {files['png'].name}")
    return 0


__all__ = ["default_out", "evaluated_town", "judge_gateway", "main_ablations", "main_rate", "summary"]
