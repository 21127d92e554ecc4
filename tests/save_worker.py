"""A process that saves a big state over and over, for the kill test.

    python tests/save_worker.py PATH FIRST_GENERATION [RESIDENTS MEMORIES | STATE.pickle]

Builds the synthetic state once (or reads it, already built, from a pickle the
test wrote: the same parts, without building them again in each worker), prints
"ready", then for g = FIRST_GENERATION, FIRST_GENERATION+1, ... sets the state to
generation g (``set_generation``), saves it to PATH and prints "saved g". With
FIRST_GENERATION "-" it reads the first generation from stdin before "ready", so
the test can start a worker before it knows where the last one was killed. The
test kills it (SIGKILL) at random moments and checks PATH holds a complete
generation.
"""
from __future__ import annotations

import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game.saves.store import save_state

SEED = 7


def base_state(residents: int, memories: int) -> dict:
    from lab.bench.saves import synthetic_state  # lazy: it imports most of the game, which a pickled state needs not

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
    path, first = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    if len(rest) == 1:
        with open(rest[0], "rb") as f:
            state = pickle.load(f)
    else:
        state = base_state(int(rest[0]) if rest else 25, int(rest[1]) if rest else 3000)
    g = int(sys.stdin.readline()) if first == "-" else int(first)
    print("ready", flush=True)
    while True:
        set_generation(state, g)
        t0 = time.perf_counter()
        save_state(path, state, {"world": "the Ville", "slot": "kill", "generation": g})
        print(f"saved {g} {time.perf_counter() - t0:.3f}", flush=True)
        g += 1


if __name__ == "__main__":
    main()
