"""Writing a span of a replay as an animation: an animated GIF (Pillow), or an
MP4 when ffmpeg is on PATH (``smallville replay RUN --gif out.gif|out.mp4``).

``export_animation(game, session, path, first, last)`` plays the replay's
window off-screen from frame ``first`` to ``last`` at ``rate`` sim minutes per
second of animation and grabs ``fps`` pictures a second: the town, the
residents walking, their bubbles and emoji, the HUD with the clock. The
camera follows a resident (``follow``), looks at a place (``look``), or by
default at the busiest part of town. The whole span fits in at most
``MAX_FRAMES`` pictures (a longer one plays faster); ``rate`` defaults to
what makes the animation last about ``TARGET_S`` seconds.
"""
from __future__ import annotations

import logging
import math
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pygame
from PIL import Image

from game.support.errors import UserError

if TYPE_CHECKING:  # the window is loaded by the replay's command, which calls this
    from game.replay.playback import ReplaySession
    from game.view.window import Game

log = logging.getLogger(__name__)

FPS = 10
TARGET_S = 15.0  # seconds an animation lasts by default
MAX_FRAMES = 600  # pictures at most (memory: a GIF is assembled whole)
MIN_RATE = 0.5  # sim minutes a second: slower than this shows nothing new


@dataclass
class Exported:
    path: Path
    frames: int  # pictures taken
    size: tuple[int, int]
    rate: float  # sim minutes per second of animation
    fps: int
    stored: int = 0  # frames in the file: a GIF merges a picture that did not change into the one before


def choose_rate(span_min: float, rate: float | None, fps: int) -> float:
    """Sim minutes per second of animation: as asked, else about TARGET_S seconds
    for the span; never so slow the span needs more than MAX_FRAMES pictures."""
    r = rate if rate is not None else span_min / TARGET_S
    r = max(r, MIN_RATE, span_min * fps / MAX_FRAMES)
    return float(r)


def export_animation(game: Game, session: ReplaySession, path: str | Path, first: int, last: int, *,
                     rate: float | None = None, fps: int = FPS, follow: str | None = None,
                     look: tuple[float, float] | None = None, aim: Callable[[Game], None] | None = None) -> Exported:
    """Write frames ``first``..``last`` of the replay to ``path`` (.gif or .mp4).
    ``aim(game)``: points the camera at the start when neither ``follow`` nor
    ``look`` is given. UserError for a format it cannot write."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise UserError(f"{path}: write a .gif (or an .mp4, with ffmpeg installed)")
    ffmpeg = shutil.which("ffmpeg") if suffix == ".mp4" else None
    if suffix == ".mp4" and ffmpeg is None:
        raise UserError("an MP4 needs ffmpeg, which is not installed here (not on PATH); install it "
                        "(e.g. apt-get install ffmpeg) or write a .gif")
    if fps < 1 or fps > 50:
        raise UserError("--fps must be between 1 and 50")
    rec = session.recording
    first, last = max(0, int(first)), min(int(last), rec.last)
    if last <= first:
        raise UserError(f"nothing to export: the span is empty (the recording runs {rec.start:%a %d %b %H:%M} – "
                        f"{rec.end:%a %d %b %H:%M})")
    span_min = (last - first) * rec.step.total_seconds() / 60.0
    r = choose_rate(span_min, rate, fps)
    count = min(MAX_FRAMES, math.ceil(span_min / r * fps) + 1)
    session.paused = True
    session.seek(first)
    if follow:
        body = session.sim.bodies.get(follow)
        if body is not None:
            game.look_at_tile(body.tile)
        game.follow_resident(follow)
    elif look is not None:
        game.look_at_tile(look)
    elif aim is not None:
        aim(game)
    session.rate = r
    session.paused = False
    dt = 1.0 / fps
    surface = pygame.Surface(game.size)
    path.parent.mkdir(parents=True, exist_ok=True)
    writer: _Writer = _Mp4(ffmpeg, path, game.size, fps) if ffmpeg else _Gif(path, fps)
    try:
        game.update(0.0)
        for k in range(count):
            if k:
                game.update(dt)
                if k == count - 1 and session.frame < last:  # float steps fall short by a hair
                    session.step(last - session.frame)
                if session.frame >= last:
                    session.paused = True
            game.draw(surface)
            writer.add(surface)
            if session.frame >= last:
                count = k + 1
                break
        writer.close()
    except BaseException:
        writer.abort()
        raise
    finally:
        session.rate = None
        session.paused = True
    log.info("exported %d frames (%s sim min/s) to %s", count, r, path)
    return Exported(path, count, game.size, r, fps, stored=writer.stored or count)


class _Writer:
    stored = 0

    def add(self, surface: pygame.Surface) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def abort(self) -> None:
        pass


class _Gif(_Writer):
    """Pillow: each picture quantized to its own 256 colours, looped forever."""

    def __init__(self, path: Path, fps: int) -> None:
        self.path = path
        self.fps = fps
        self.frames: list[Image.Image] = []

    def add(self, surface: pygame.Surface) -> None:
        img = Image.frombytes("RGB", surface.get_size(), pygame.image.tobytes(surface, "RGB"))
        self.frames.append(img.quantize(colors=256, method=Image.Quantize.FASTOCTREE))

    def close(self) -> None:
        first, *rest = self.frames
        try:
            first.save(self.path, save_all=True, append_images=rest, duration=round(1000 / self.fps), loop=0,
                       disposal=1)
        except OSError as err:
            raise UserError(f"cannot write {self.path}: {err}") from None
        with Image.open(self.path) as done:
            self.stored = int(getattr(done, "n_frames", 1))


class _Mp4(_Writer):
    """ffmpeg reads raw RGB pictures on its standard input and encodes H.264."""

    def __init__(self, ffmpeg: str | None, path: Path, size: tuple[int, int], fps: int) -> None:
        w, h = size
        self.path = path
        self.proc = subprocess.Popen(
            [str(ffmpeg), "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}",
             "-r", str(fps), "-i", "-", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p",
             "-vcodec", "libx264", str(path)],
            stdin=subprocess.PIPE, stderr=subprocess.PIPE)

    def add(self, surface: pygame.Surface) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(pygame.image.tobytes(surface, "RGB"))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
        if self.proc.wait() != 0:
            raise UserError(f"ffmpeg could not write {self.path}: {err.strip()[-300:]}")

    def abort(self) -> None:
        self.proc.kill()
        self.proc.wait()


__all__ = ["FPS", "MAX_FRAMES", "Exported", "choose_rate", "export_animation"]
