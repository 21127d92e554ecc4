"""A headless run that writes down where everyone stands, for the replay's kill test.

    python tests/replay_worker.py RUN_FOLDER TRUTH_FILE [RESIDENTS]

Runs the town headless (scripted fake model, seed 3) for a whole sim day into
RUN_FOLDER and, after every step, appends ``{"s": step, "tiles": {name: [x, y]}}``
to TRUTH_FILE (flushed). The test kills it with SIGKILL part-way and checks the
recording plays back up to its last flush, everyone where the truth says.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from fakes import HashEmbedder, chatty, make_gateway

from agents.residents.persona import load_cast
from game.headless import run_headless
from game.world.map_reader import load_town

MAP = HERE.parent / "maps" / "the_ville" / "the_ville.tmx"


def main() -> None:
    out, truth = Path(sys.argv[1]), Path(sys.argv[2])
    residents = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    fh = truth.open("w", encoding="utf-8")

    def note(sim):
        tiles = {n: list(b.tile) for n, b in sim.bodies.items() if not b.visitor}
        fh.write(json.dumps({"s": sim.steps, "tiles": tiles}) + "\n")
        fh.flush()

    print("running", flush=True)
    run_headless(town, cast[:residents], start=scenario.start, hours=24, out=out, scenario=scenario,
                 gateway=make_gateway(chatty), embedder=HashEmbedder(), seed=3, progress=False, echo=None,
                 on_step=note)


if __name__ == "__main__":
    main()
