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
    saves = Path(sys.argv[1])
    os.chdir(saves.parent)
    os.environ["SMALLVILLE_HOME"] = str(saves.parent)  # the game's saves/ and logs/ go here
    from fakes import HashEmbedder, make_gateway
    from scripted_minds import plausible

    from game import app
    from game.session import Session
    from smallville.cli import main as smallville

    answered = threading.Event()

    def answers(purpose, messages, schema):
        if not answered.is_set():
            answered.set()
            print("ready", flush=True)
        return plausible(purpose, messages, schema)

    def session_for(args, map_path, visitor_name):
        gw = make_gateway(answers, via_litellm=False)
        return Session.create(map_path, agents=2, gateway=gw, embedder=HashEmbedder(64), visitor_name=visitor_name)

    app.build_session = session_for  # the scripted town instead of the embedded model's
    sys.argv = ["smallville", "play", "--visitor-name", "Alex"]
    sys.exit(smallville())


if __name__ == "__main__":
    main()
