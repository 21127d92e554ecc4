"""A real X window for a benchmark, on a virtual screen (Xvfb): what drawing a
window costs on the machine's cores, which SDL's dummy driver never pays.

``virtual_display(size)`` starts ``Xvfb`` on a free display number, waits for
its socket, and yields the display's name (":N"); the server is stopped when
the block ends. Without Xvfb it raises ``Skipped`` saying how to get it; a
server that does not come up within ``START_S`` raises ``Skipped`` with what it
printed. ``sdl_window(display)`` points SDL at that display (the x11 driver)
for the block and back to what it was after; pygame's display is closed on both
sides of it, so a window opened before or after is a fresh one.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lab.bench.measure import Skipped

START_S = 10.0  # seconds for the server's socket to appear
FIRST = 90  # display numbers tried from here (low ones belong to real sessions)
SOCKETS = Path("/tmp/.X11-unix")


def free_display(first: int = FIRST, tries: int = 50) -> int:
    """A display number with neither a socket nor a lock file."""
    for n in range(first, first + tries):
        if not (SOCKETS / f"X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return n
    raise Skipped(f"no free X display number in :{first}-:{first + tries - 1} (stale /tmp/.X*-lock files?)")


@contextmanager
def virtual_display(size: tuple[int, int], depth: int = 24) -> Iterator[str]:
    """An Xvfb server with one screen of ``size`` for the block; yields ":N"."""
    exe = shutil.which("Xvfb")
    if exe is None:
        raise Skipped("Xvfb is not installed (Debian: apt-get install xvfb), so no real-window phase ran")
    n = free_display()
    w, h = size
    proc = subprocess.Popen([exe, f":{n}", "-screen", "0", f"{w}x{h}x{depth}", "-nolisten", "tcp"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + START_S
        while not (SOCKETS / f"X{n}").exists():
            if proc.poll() is not None or time.monotonic() > end:
                err = _stderr(proc)
                raise Skipped(f"Xvfb :{n} did not start within {START_S:g} s: {err or 'it printed nothing'}")
            time.sleep(0.05)
        yield f":{n}"
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if proc.stderr is not None:
            proc.stderr.close()


def _stderr(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.kill()
    try:
        _, err = proc.communicate(timeout=5)
    except (subprocess.TimeoutExpired, ValueError):
        return ""
    return (err or b"").decode(errors="replace").strip().splitlines()[-1:][0] if err else ""


@contextmanager
def sdl_window(display: str) -> Iterator[None]:
    """SDL's video on the X display ``display`` for the block (pygame's display closed
    before and after, so windows on either side are fresh)."""
    import pygame  # lazy: only a window benchmark loads SDL

    from game.view.window import close_window  # lazy: the window module imports pygame

    saved = {k: os.environ.get(k) for k in ("DISPLAY", "SDL_VIDEODRIVER")}
    close_window()
    os.environ["DISPLAY"], os.environ["SDL_VIDEODRIVER"] = display, "x11"
    try:
        pygame.display.init()
        pygame.font.init()
        yield
    finally:
        close_window()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


__all__ = ["free_display", "sdl_window", "virtual_display"]
