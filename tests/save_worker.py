"""A process that saves a big state over and over, for the kill test.

    python tests/save_worker.py PATH FIRST_GENERATION [RESIDENTS MEMORIES]

Builds the synthetic state once, prints "ready", then for g = FIRST_GENERATION,
FIRST_GENERATION+1, ... sets the state to generation g (``set_generation``),
saves it to PATH and prints "saved g". The test kills it (SIGKILL) at random
moments and checks PATH holds a complete generation.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game.saves.store import save_state
from lab.bench.saves import synthetic_state

SEED = 7


def base_state(residents: int, memories: int) -> dict:
    return synthetic_state(residents, memories, seed=SEED)


def set_generation(state: dict, g: int) -> dict:
    """Make `state` generation g, in place (absolute values: any g from any g)."""
    state["clock"]["generation"] = g
    state["clock"]["steps"] = 1000 + g
    for k, part in state.items():
        if k.startswith("minds/"):
            part["memory"]["embeddings"][0, 0] = float(g)
            part["memory"]["nodes"][-1]["description"] = f"the last memory of generation {g}"
    return state


def main() -> None:
    path, first = sys.argv[1], int(sys.argv[2])
    residents = int(sys.argv[3]) if len(sys.argv) > 3 else 25
    memories = int(sys.argv[4]) if len(sys.argv) > 4 else 3000
    state = base_state(residents, memories)
    print("ready", flush=True)
    g = first
    while True:
        set_generation(state, g)
        t0 = time.perf_counter()
        save_state(path, state, {"world": "the Ville", "slot": "kill", "generation": g})
        print(f"saved {g} {time.perf_counter() - t0:.3f}", flush=True)
        g += 1


if __name__ == "__main__":
    main()
