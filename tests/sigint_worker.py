"""A `smallville play` process for the Ctrl+C test: the real command on the Ville
with two residents on a scripted model.

    python tests/sigint_worker.py SAVES_DIR

Prints "ready" once the first model call came back (the town is running), then
waits to be sent SIGINT (or SIGTERM) by the test, as Ctrl+C in the terminal would.
"""
from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]


def main() -> None:
    from quit_worker import play
    from scripted_minds import plausible

    answered = threading.Event()

    def answers(purpose, messages, schema):
        if not answered.is_set():
            answered.set()
            print("ready", flush=True)
        return plausible(purpose, messages, schema)

    sys.exit(play(Path(sys.argv[1]), answers))


if __name__ == "__main__":
    main()
