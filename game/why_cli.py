"""`smallville why`: the reasons behind a resident's acts, and who told whom (no pygame).

``smallville why RUN "Isabella Rodriguez" --at "2023-02-14 17:10"`` finds what the
resident was doing at that moment and the lines they said in the minutes before,
and for each act its decision record (agents/explain/why.py): the memories retrieval
brought up with their recency, importance and relevance (min-max scaled, as the
paper scores them) and total, then the prompt as sent and the answer as
received. ``--json`` prints the same as JSON.

``smallville why RUN --spread "party"`` lists the conversations a fact travelled
through: every line said that matches, in time order, and who first heard it
from whom.

RUN is a run folder (its ``why.jsonl.gz`` and ``events.jsonl``), a save inside one,
or a game's save (the records beside its save folder's recordings).
"""
from __future__ import annotations

import argparse
import json
import sys

from agents import why
from game.runs.why_records import (
    explain,
    explanation_text,
    load_records,
    parse_at,
    resident_named,
    spread,
    spread_text,
    why_files,
)
from game.saves.saved_run import load_target
from game.support.errors import UserError


def main_why(args: argparse.Namespace) -> int:
    tg = load_target(args.target)
    events = tg.events or []
    if args.spread:
        d = spread(events, args.spread)
        print(json.dumps(d, indent=2, ensure_ascii=False) if args.json else spread_text(d))
        return 0
    if not args.resident:
        raise UserError('name a resident (smallville why RUN "Isabella Rodriguez" --at TIME) or give --spread WORD')
    files = why_files(args.target)
    if not files:
        raise UserError(f"{args.target} has no decision records ({why.FILE} in a run folder, "
                        f"recordings/*{why.GAME_SUFFIX} beside a game's saves): it was run before they were "
                        "kept, or with why = \"off\"")
    counts: dict[str, int] = {}
    records = load_records(files, counts)
    if counts.get("skipped"):
        print(f"smallville why: {counts['skipped']} damaged decision record(s) skipped (see the log)",
              file=sys.stderr)
    resident = resident_named(args.resident, tg.residents or sorted({str(d.get("resident")) for d in records}))
    at = parse_at(args.at, tg.start, tg.end)
    d = explain(records, events, resident, at)
    print(json.dumps(d, indent=2, ensure_ascii=False, default=str) if args.json else explanation_text(d))
    return 0


__all__ = ["main_why"]
