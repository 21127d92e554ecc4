"""A run's ceiling (`--max-cost`, `--max-tokens`) is a promise about the calls, not only
the clock (issue 48, item 13). Out of order, when the ceiling is reached the residents
behind are brought up to the furthest clock for the end save; that catch-up makes no
model call: the minds' rules and routines stand in, each marked "ceiling"."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from game.runs.forecast import Ceiling

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")


@pytest.mark.parametrize("out_of_order", [True, False])
def test_no_call_is_made_once_the_token_ceiling_is_reached(tmp_path, out_of_order):
    from fakes import HashEmbedder

    import lab.competent  # noqa: F401  registers the scripted competent model, as the smallville command does
    from agents import Gateway, load_config
    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.saves.store import load_state
    from game.world.map_reader import load_town

    at_trip: list[int] = []

    class Noting(Ceiling):
        def reached(self, accounting):
            why = super().reached(accounting)
            if why and not at_trip:
                at_trip.append(accounting.total.calls)  # the calls made when the ceiling was reached
            return why

    cast, scenario = load_cast(MAP.parent)
    config = load_config({"seed": 7, "model": "scripted/competent"}, env={}, toml_path=None)
    out = tmp_path / "run"
    result = run_headless(load_town(MAP), cast[:8], start=scenario.start, hours=1, out=out, scenario=scenario,
                          config=config, gateway=Gateway(config), embedder=HashEmbedder(), seed=7, progress=False,
                          echo=None, ceiling=Noting(max_tokens=18000), out_of_order=out_of_order)
    summary = result.summary
    assert summary["stopped"] and "token ceiling" in summary["stopped"]
    calls = len((out / "llm_calls.jsonl").read_text().splitlines())
    assert at_trip and calls == summary["totals"]["calls"]
    # only the calls already on their way when it was reached (one a worker) come back after it
    assert calls - at_trip[0] <= config.concurrency, (calls, at_trip)
    marked = [k for r in summary["residents"].values() for k in r["fallbacks"] if k.endswith(": ceiling")]
    if out_of_order:
        assert marked  # those behind caught up on rules and routines, and said so
    parts, _ = load_state(out / "saves" / "end.sqlite")  # the end save: the town at one time, resumable
    assert parts["sim"]["now"].startswith(summary["end"].replace(" ", "T"))
    assert json.loads((out / "summary.json").read_text())["stopped"] == summary["stopped"]
