"""A `smallville play` process whose minds are stuck in a model call, for the quit test.

    python tests/quit_worker.py SAVES_DIR

Runs the real command (``smallville.cli.main()``, so the process ends the way
`smallville play` ends) on the Ville with two residents whose model never
answers within the run (each call waits 300 s). When the first call starts
it prints "thinking", then closes the window twice, as a player would
(the first asks "Save and quit / Quit without saving / Cancel", the second
saves and quits). Prints "answered" if a call ever finished: the test
checks it never does, i.e. the process ended with the call still in flight.
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

SLOW_S = 300.0


def play(saves: Path, answers, **gateway_kw) -> int:
    """The real `smallville play` on the Ville with two residents whose model answers with
    ``answers(purpose, messages, schema)``; the game's saves/ and logs/ go beside ``saves``.
    Returns the command's exit code (tests/sigint_worker.py runs it too)."""
    os.chdir(saves.parent)
    os.environ["SMALLVILLE_HOME"] = str(saves.parent)
    from fakes import HashEmbedder, make_gateway

    from game import app
    from game.runs.session import Session
    from smallville.cli import main as smallville

    def session_for(args, map_path, visitor_name):
        gw = make_gateway(answers, via_litellm=False, **gateway_kw)
        return Session.create(map_path, agents=2, gateway=gw, embedder=HashEmbedder(64), visitor_name=visitor_name)

    app.build_session = session_for  # the scripted town instead of the embedded model's
    sys.argv = ["smallville", "play", "--visitor-name", "Alex"]
    return smallville()


def main() -> None:
    import pygame
    from scripted_minds import plausible

    started = threading.Event()

    def stuck(purpose, messages, schema):
        if not started.is_set():
            started.set()
            print("thinking", flush=True)
            # the player closes the window twice (events are safe to post from any thread)
            for _ in range(2):
                pygame.event.post(pygame.event.Event(pygame.WINDOWCLOSE, window=None))
                pygame.event.post(pygame.event.Event(pygame.QUIT))
        threading.Event().wait(SLOW_S)
        print("answered", flush=True)
        return plausible(purpose, messages, schema)

    code = play(Path(sys.argv[1]), stuck, timeout=SLOW_S, deadline=2 * SLOW_S, retries=0)
    print(f"returned {code}", flush=True)  # only when nothing was left thinking
    sys.exit(code)


if __name__ == "__main__":
    main()
