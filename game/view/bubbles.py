"""Speech bubbles over residents who talk.

The overlay listens to the simulation's ``line`` events (conversation lines
and greetings of the visitor) and keeps only the latest line of each
conversation. A bubble shows the text wrapped to ``MAX_WIDTH`` px in at most
``MAX_LINES`` lines (the last one clipped with an ellipsis), stands over its
speaker's head (above the emoji markers), and fades out after a few seconds
(the clock stops while the game is paused, so a paused scene can be read).
Bubbles never pile into mush: they are placed bottom-up and a bubble that
would overlap one already placed moves up (and sideways if it must) until it
is clear. The screen boxes other messages take (``game.reserved_rects()``:
the HUD box, toasts, the console's output) count as placed, so bubbles keep
clear of them too.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import pygame

from game.view import fonts
from game.view.emoji import icons
from game.view.host import Drawn, Host, TownSession
from game.view.overlay import Overlay

if TYPE_CHECKING:
    from game.view.camera import Camera

MAX_WIDTH = 220  # px of text
MAX_LINES = 3
FONT = 14
TEXT = (30, 30, 36)
FADE_S = 1.0
GAP = 3


def _fits(font, text: str, width: int) -> int:
    """How many leading characters of ``text`` fit in ``width`` px (at least 1): a binary search,
    so a 10,000-character word costs a few dozen measurements, not millions."""
    lo, hi = 1, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if font.size(text[:mid])[0] <= width:
            lo = mid
        else:
            hi = mid - 1
    return lo


def wrap(text: str, width: int = MAX_WIDTH, size: int = FONT, max_lines: int = MAX_LINES) -> list[str]:
    """Words into lines no wider than ``width`` px; past ``max_lines`` the last line ends in an ellipsis.
    Only the lines shown are measured (any length of text costs the same)."""
    font = fonts.font(size)
    words = str(text).split()
    lines: list[str] = []
    cur = ""
    for w in words:
        if len(lines) > max_lines:
            break  # enough to know the last shown line needs an ellipsis
        while len(w) > 1 and len(lines) <= max_lines and font.size(w)[0] > width:  # a word wider than a line: cut it
            cut = _fits(font, w, width)
            if cur:
                lines.append(cur)
                cur = ""
            lines.append(w[:cut])
            w = w[cut:]
        trial = f"{cur} {w}" if cur else w
        if font.size(trial)[0] <= width:
            cur = trial
        else:
            lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and font.size(last + "…")[0] > width:  # a line's width: a few characters at most
            last = last[:-1].rstrip()
        lines = lines[: max_lines - 1] + [last + "…"]
    return lines or [""]


def lifetime(text: str) -> float:
    """Seconds a line stays up: long enough to read."""
    return min(9.0, 3.5 + len(text) / 18.0)


class Bubble:
    __slots__ = ("age", "life", "speaker", "surface", "text")

    def __init__(self, speaker: str, text: str) -> None:
        self.speaker = speaker
        self.text = text
        self.age = 0.0
        self.life = lifetime(text)
        self.surface = None

    @property
    def alpha(self) -> int:
        left = self.life - self.age
        return 255 if left >= FADE_S else max(0, int(255 * left / FADE_S))

    def render(self):
        if self.surface is None:
            rows = [fonts.text(t, FONT, TEXT) for t in wrap(self.text)]
            lh = fonts.font(FONT).get_linesize()
            w = max(r.get_width() for r in rows)
            body = pygame.Surface((w, lh * len(rows)), pygame.SRCALPHA)
            for i, r in enumerate(rows):
                body.blit(r, (0, i * lh))
            self.surface = icons().bubble(body)
        return self.surface


class BubblesHost(Host, Drawn, Protocol):
    """What the bubbles use of the window: the figures drawn, and the boxes messages take."""

    def reserved_rects(self) -> list[pygame.Rect]: ...


class Bubbles(Overlay):
    """The overlay: ``lines`` from sim events -> bubbles over speakers."""

    name = "bubbles"

    def __init__(self, game: BubblesHost, session: TownSession) -> None:
        self.game = game
        self.session = session
        self.live: dict[object, Bubble] = {}  # conversation key -> its latest line
        self.placed: list[tuple[str, pygame.Rect]] = []  # (speaker, screen rect) drawn last frame (tests)
        session.sim.listeners.append(self.on_event)

    def on_event(self, ev: dict) -> None:
        if ev.get("kind") != "line":
            return
        speaker = ev.get("resident")
        if not speaker:
            return
        key = ev.get("conversation")
        if key is None:
            key = ("greeting", speaker)
        self.say(key, speaker, ev.get("text", ""))

    def say(self, key, speaker: str, text: str) -> None:
        text = " ".join(str(text).split())
        if text:
            self.live[key] = Bubble(speaker, text)

    def update(self, dt: float) -> None:
        if self.session.paused and not self.session.skipping:
            return
        dead = []
        for k, b in self.live.items():
            b.age += dt
            if b.age >= b.life:
                dead.append(k)
        for k in dead:
            del self.live[k]

    def draw_world(self, surface: pygame.Surface, camera: Camera) -> None:
        self.placed = []
        if not self.live:
            return
        rects = {fig.name: rect for fig, rect in self.game.drawn}
        view = self.game.panels.residents_view
        tops = view.head_top if view is not None else {}
        items = []
        for b in self.live.values():
            rect = rects.get(b.speaker)
            if rect is None:
                continue
            top = tops.get(b.speaker, rect.top)
            items.append((top, rect.centerx, b))
        if not items:
            return
        screen = surface.get_rect()
        reserved = [pygame.Rect(x) for x in self.game.reserved_rects()]
        taken: list[pygame.Rect] = list(reserved)
        items.sort(key=lambda t: -t[0])  # lowest speakers first: bubbles above climb past them
        blits = []
        for top, cx, b in items:
            img = b.render()
            r = img.get_rect(midbottom=(cx, top - 1))
            r.clamp_ip(screen)
            down = False  # under a message box at the top (the HUD, toasts): go below it, not around
            for _ in range(40):
                hit = next((t for t in taken if t.inflate(GAP * 2, GAP * 2).colliderect(r)), None)
                if hit is None:
                    break
                if down or (hit in reserved and hit.top - GAP - r.height < screen.top):
                    down = True
                    r.top = hit.bottom + GAP
                    if r.bottom > screen.bottom:
                        break
                    continue
                r.bottom = hit.top - GAP
                if r.top < screen.top:  # no room above: step sideways instead
                    r.top = screen.top
                    r.left = hit.right + GAP
                    if r.right > screen.right:
                        r.right = hit.left - GAP
            taken.append(r)
            a = b.alpha
            if a < 255:
                img = img.copy()
                img.set_alpha(a)
            blits.append((img, r.topleft))
            self.placed.append((b.speaker, r))
        surface.blits(blits, doreturn=False)


def install(game: BubblesHost) -> Bubbles:
    session = game.session
    if session is None:
        raise ValueError("speech bubbles show a town: attach a session first")
    view = Bubbles(game, session)
    game.add_overlay(view)
    game.panels.bubbles = view
    return view


__all__ = ["MAX_WIDTH", "Bubbles", "install", "wrap"]
