"""Quitting with model calls in flight: the real `smallville play` in a process
of its own, its window closed while stand-in minds wait on slow calls; the
seconds until the process is gone, measured from outside."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lab.bench.measure import ROOT, Context

_QUIT_CHILD = r"""
import os, sys, threading, time
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
sys.path.insert(0, sys.argv[1])
import pygame
from game import app
from smallville.cli import main
from lab.standins import busy_minds_session

def build(args, map_path, visitor_name):
    # 25 residents whose every job waits 60-90 s: model calls are in flight when the player quits
    s = busy_minds_session(map_path, residents=25, delay=(60.0, 90.0), concurrency=2, visitor_name=visitor_name)

    def close_window():
        while s.pool.in_flight() < 2:
            time.sleep(0.05)
        time.sleep(1.0)
        print("quit", time.time(), flush=True)
        pygame.event.post(pygame.event.Event(pygame.WINDOWCLOSE, window=None))  # the close button ...
        pygame.event.post(pygame.event.Event(pygame.QUIT))  # ... asks, and Q quits without saving
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_q, mod=0, unicode="q", scancode=0))
    threading.Thread(target=close_window, daemon=True).start()
    return s

app.build_session = build
sys.argv = ["smallville", "play", sys.argv[2], "--visitor-name", "Alex"]
sys.exit(main())
"""


def bench_quit(ctx: Context) -> dict:
    """`smallville play` with model calls in flight: seconds from closing the window
    (then Q, quit without saving) to the process being gone, measured from outside."""
    times = []
    in_flight_at_exit = []
    for _ in range(ctx.n(3, 1)):
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.Popen([sys.executable, "-c", _QUIT_CHILD, str(ROOT), str(ctx.map_path)], cwd=tmp,
                                    env={**os.environ, "SMALLVILLE_HOME": tmp},  # its saves/ and logs/ go here
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                asked = None
                for line in proc.stdout:
                    if line.startswith("quit "):
                        asked = float(line.split()[1])
                        break
                proc.wait(timeout=120)
                gone = time.time()
            except subprocess.TimeoutExpired:
                proc.kill()
                raise RuntimeError("the game did not end within 120 s of closing its window") from None
            if asked is None or proc.returncode != 0:
                raise RuntimeError(f"the game ended oddly (code {proc.returncode}): {proc.stderr.read()[-500:]}")
            times.append(gone - asked)
            log_text = (Path(tmp) / "logs" / "smallville.log").read_text(errors="replace") \
                if (Path(tmp) / "logs" / "smallville.log").exists() else ""
            in_flight_at_exit.append("leaving without waiting" in log_text)
    return {
        "quit_s_median": round(statistics.median(times), 3),
        "quit_s_max": round(max(times), 3),
        "runs": len(times),
        "calls_abandoned_every_run": all(in_flight_at_exit),
        "note": ("the real `smallville play` command in a process of its own (SDL's dummy driver) with 25 stand-in "
                 "minds whose jobs wait 60-90 s, on a pool of 2: once two are in flight, the window is closed and "
                 "Q (quit without saving) pressed; time until the process is gone, from outside"),
    }
