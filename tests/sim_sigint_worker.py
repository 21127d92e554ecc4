"""A `smallville sim` process for the Ctrl+C test: the real command (``smallville.cli.main()``)
on the Ville with three residents whose scripted model takes a moment per call.

    python tests/sim_sigint_worker.py RUN_FOLDER [--lockstep | --out-of-order]

Prints "busy" once the minds are well into their morning and a model call is in
flight (the main thread then waits inside a step for the minds), and waits to be
sent SIGINT by the test, as Ctrl+C in the terminal would. Prints "inside a step"
if the interrupt arrived while ``Simulation.step`` ran.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

CALL_S = 2.0  # each model call after the first few takes this long: the step waits for it, and the
# test's SIGINT lands before the run could end (a short sleep let a quick run finish first)


def main() -> None:
    # A command started from a terminal has Python's own Ctrl+C handler; one started by
    # a test run that was itself started in the background inherits SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    out = Path(sys.argv[1])
    os.environ["SMALLVILLE_HOME"] = str(out.parent)
    from fakes import HashEmbedder, make_gateway
    from scripted_minds import plausible

    import game.headless
    import game.runs.build
    from game.sim.core import Simulation
    from smallville.cli import main as smallville

    calls = []
    lock = threading.Lock()

    def answers(purpose, messages, schema):
        with lock:
            calls.append(purpose)
            n = len(calls)
        if n > 30:
            if n == 31:
                print("busy", flush=True)
            time.sleep(CALL_S)
        return plausible(purpose, messages, schema)

    game.runs.build.make_embedder = lambda config: HashEmbedder(64)
    game.headless.Gateway = lambda config: make_gateway(answers, via_litellm=False)
    step = Simulation.step

    def watched_step(self, *a, **k):
        try:
            return step(self, *a, **k)
        except KeyboardInterrupt:
            print("inside a step", flush=True)
            raise

    Simulation.step = watched_step
    sys.argv = ["smallville", "sim", "--agents", "3", "--hours", "6", "--seed", "1", "--out", str(out), *sys.argv[2:]]
    sys.exit(smallville())


if __name__ == "__main__":
    main()
