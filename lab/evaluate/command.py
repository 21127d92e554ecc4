"""`smallville evaluate`: every measure of a run folder or a save, written
beside it (or into --out); or, with --battery, the interview battery."""
from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from game.saves.saved_run import Target, cast_of, end_minds, load_target, model_setup
from game.support import folders
from game.support.errors import UserError
from lab.evaluate.battery import battery_markdown, run_battery
from lab.evaluate.coordination import coordination
from lab.evaluate.days import days_report
from lab.evaluate.dialogue import dialogue_measures
from lab.evaluate.diffusion import diffusion
from lab.evaluate.factual import factual_markdown, factual_rows, factual_score
from lab.evaluate.holding import holding_measures
from lab.evaluate.interviews import interview_diffusion, start_minds
from lab.evaluate.memories import view_of_state
from lab.evaluate.passing import fact_passing
from lab.evaluate.relationships import relationships
from lab.evaluate.report import json_default, summary_text, write_outputs


def default_out(tg: Target) -> Path:
    if tg.folder is not None:
        return tg.folder
    return tg.save.parent / f"{tg.save.stem}-evaluation"


def evaluate(tg: Target, personas: dict[str, Any], scenario: Any, *, gateway: Any = None, embedder: Any = None,
             interviews: bool = True, judge: str = "rule", echo: Callable[[str], None] | None = None) -> dict:
    """Every measure as one JSON-able dict."""
    rs = tg.residents
    result: dict[str, Any] = {
        "target": str(tg.given), "save": str(tg.save) if tg.save else None, "events_source": tg.events_source,
        "residents": rs, "residents_count": len(rs),
        "start": tg.start.strftime("%Y-%m-%d %H:%M") if tg.start else None,
        "end": tg.end.strftime("%Y-%m-%d %H:%M") if tg.end else None,
        "model": getattr(getattr(gateway, "config", None), "model", None) if interviews else None,
        "judge": judge if interviews else None, "notes": list(tg.notes),
    }
    t0 = time.monotonic()
    result["diffusion"] = diffusion(tg, personas, scenario, embedder)
    result["notes"] += result["diffusion"].pop("notes")
    result["interviews"] = None
    if interviews and tg.states and gateway is not None:
        if tg.start is None:
            result["notes"].append("the run's start time is unknown: no start interviews")
        phases = {}
        if tg.start is not None:
            phases["start"] = (start_minds(rs, personas, scenario, gateway, embedder, tg.start), tg.start)
        phases["end"] = (end_minds(tg, personas, gateway, embedder), tg.end)
        result["interviews"] = interview_diffusion(phases, gateway, judge, echo)
    elif interviews and not tg.states:
        result["notes"].append("no save: no interviews")
    elif not interviews:
        result["notes"].append("--no-interviews: diffusion judged by memory and events only")
    result["relationships"] = relationships(tg, personas)
    result["coordination"] = coordination(tg)
    # lines up to the save's time: the listeners' memories are the save's
    said = [e for e in (tg.events or []) if tg.end is None or str(e.get("time", "")) <= tg.end.isoformat(sep=" ")]
    result["fact_passing"] = fact_passing(said, rs, {r: view_of_state(s) for r, s in (tg.states or {}).items()})
    result["dialogue"] = dialogue_measures(said, rs, tg.start, tg.end, tg.states)
    result["holding"] = holding_measures(said, rs, personas, tg.start, tg.end, result["fact_passing"])
    result["days"] = days_report(tg)
    result["seconds"] = round(time.monotonic() - t0, 1)
    return result


def main_evaluate(args: Any, *, gateway: Any = None, embedder: Any = None,
                  echo: Callable[[str], None] | None = print) -> int:
    default_map = getattr(args, "map", None) or folders.default_map()
    tg = load_target(args.target, default_map)
    out = Path(args.out) if getattr(args, "out", None) else default_out(tg)
    personas, scenario = cast_of(tg, default_map)
    say = (lambda s: print(s, file=sys.stderr)) if echo is not None else None
    if getattr(args, "battery", False):
        if not tg.states:
            raise UserError(f"evaluate {tg.given}: the battery needs a save (none found)")
        agent = getattr(args, "agent", None)
        names = list(tg.states)
        if agent:
            want = agent.casefold()
            match = [n for n in names if n.casefold() == want or n.split()[0].casefold() == want]
            if not match:
                raise UserError(f"--agent {agent}: not in this save (residents: {', '.join(names)})")
            names = match[:1]
        gateway, embedder, _config = model_setup(args, tg, gateway, embedder, need_model=True)
        minds = end_minds(tg, personas, gateway, embedder)
        minds = {n: minds[n] for n in names}
        factual_only = bool(getattr(args, "factual", False))
        bat = {} if factual_only else run_battery(minds, tg.end, tg.residents, list(personas), say)
        rows = factual_rows(minds, tg.end, say)
        score = factual_score(rows)
        out.mkdir(parents=True, exist_ok=True)
        model = getattr(getattr(gateway, "config", None), "model", None)
        path = out / ("factual.md" if factual_only else "interviews.md")
        text = battery_markdown(bat, str(tg.given), tg.end, model) + "\n" + "\n".join(factual_markdown(rows, score))
        path.write_text(text, encoding="utf-8")
        path.with_suffix(".json").write_text(
            json.dumps({"model": model, "time": tg.end, "answers": bat, "factual": {"score": score, "rows": rows}},
                       indent=2, ensure_ascii=False, default=json_default) + "\n", encoding="utf-8")
        if echo is not None:
            n = sum(len(r) for c in bat.values() for r in c.values())
            echo(f"interview battery: {n} answers; factual: {score['correct']} of {score['questions']} correct "
                 f"({score['share']:.0%}, mode {score['mode']}) -> {path}")
        return 0
    interviews = not getattr(args, "no_interviews", False)
    judge = getattr(args, "judge", None) or "rule"
    gateway, embedder, _config = model_setup(args, tg, gateway, embedder, need_model=interviews and bool(tg.states))
    result = evaluate(tg, personas, scenario, gateway=gateway, embedder=embedder, interviews=interviews,
                      judge=judge, echo=say)
    files = write_outputs(result, tg, out)
    if echo is not None:
        echo(summary_text(result))
        echo(f"wrote {files['md']}, {files['json'].name} and plots in {out}")
    return 0
