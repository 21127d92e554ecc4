"""The replay's timeline bar, along the bottom of the window (above the status line).

It shows the whole recording, between the panels docked at the sides: a mark for every moment worth jumping to
(game/replay/moments.py; coloured by kind, a gathering as a span), the
playhead, the time at both ends and under the mouse, and where the recording
stops early (a killed or damaged run). Press on the bar and drag: the replay
follows the mouse to any moment. The button at the left plays and pauses.

Keys (unless a text box has focus): ``,`` / ``.`` one step (10 sim seconds)
back / on, with Shift one sim minute; ``[`` / ``]`` the previous / next
moment; Home / End the start / end. (Space and 1-5 are the HUD's: pause and
speed; E the events list.)
"""
from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

import pygame

from game.replay.events import EventsList
from game.view import fonts, keys
from game.view.hud import text_focused
from game.view.overlay import Overlay
from game.view.statusline import HEIGHT as STATUS_H

if TYPE_CHECKING:
    from game.replay.playback import ReplaySession
    from game.view.window import Game

HEIGHT = 40
PAD = 8
BUTTON = 28
BG = (18, 20, 26, 225)
TRACK = (70, 74, 84)
PLAYED = (110, 150, 200)
HEAD = (255, 236, 170)
FG = (236, 236, 228)
DIM = (170, 176, 186)
WARN = (255, 170, 90)
MARK = {  # moment kind -> its colour on the bar
    "conversation": (120, 200, 255), "greeting": (150, 220, 190), "reaction": (255, 120, 110),
    "inner voice": (230, 160, 255), "reflection": (255, 214, 120), "gathering": (255, 150, 210),
    "edit": (255, 110, 40),
}
MINUTE = 6  # frames in a sim minute (Shift with a step key)


class TimelineBar(Overlay):
    """The bar (see the module's notes); ``game.panels.timeline`` once installed."""

    name = "timeline"

    def __init__(self, game: Game, session: ReplaySession, moments: list) -> None:
        self.game = game
        self.session = session
        self.moments = moments
        self._frames = [m.frame for m in moments]
        self.dragging = False
        self._marks: pygame.Surface | None = None
        self._marks_key: tuple | None = None

    # ---- geometry ------------------------------------------------------------------------
    def rect(self) -> pygame.Rect:
        """Between the panels docked at the sides (the events list, the inspector)."""
        w, h = self.game.size
        left, _, right, _ = self.game.camera.insets
        if w - left - right < 300:  # too narrow between them: the whole width, under the panels
            left = right = 0
        return pygame.Rect(left, h - STATUS_H - HEIGHT, w - left - right, HEIGHT)

    def button_rect(self) -> pygame.Rect:
        r = self.rect()
        return pygame.Rect(r.x + PAD, r.centery - BUTTON // 2, BUTTON, BUTTON)

    def track_rect(self) -> pygame.Rect:
        r = self.rect()
        left = self.button_rect().right + PAD + 64  # the start time's label
        right = r.right - PAD - 64  # the end time's
        return pygame.Rect(left, r.centery - 4, max(10, right - left), 8)

    def frame_at_x(self, x: float) -> int:
        t = self.track_rect()
        last = self.session.recording.last
        return round(min(max((x - t.x) / max(1, t.width), 0.0), 1.0) * last)

    def x_of(self, frame: float) -> int:
        t = self.track_rect()
        last = max(1, self.session.recording.last)
        return t.x + round(t.width * min(max(frame / last, 0.0), 1.0))

    def inset(self) -> tuple[int, int, int, int]:
        return (0, 0, 0, HEIGHT)

    def reserved(self) -> list[pygame.Rect]:
        return [self.rect()]

    # ---- moving through the recording --------------------------------------------------------
    def seek_x(self, x: float) -> int:
        return self.session.seek(self.frame_at_x(x))

    def next_moment(self, direction: int) -> bool:
        """Jump to the next (1) or previous (-1) moment; False when there is none."""
        f = self.session.frame
        if direction > 0:
            i = bisect.bisect_right(self._frames, f)
            if i >= len(self.moments):
                return False
        else:
            i = bisect.bisect_left(self._frames, f) - 1
            if i < 0:
                return False
        events = self.game.panels.replay_events  # the replay's EventsList (typed as a panel there)
        if isinstance(events, EventsList):
            events.jump(self.moments[i])
        else:
            self.session.seek(self.moments[i].frame)
        return True

    # ---- events ------------------------------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> bool:
        s = self.session
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self.rect().collidepoint(event.pos):
            if self.button_rect().inflate(6, 6).collidepoint(event.pos):
                s.toggle_pause()
                return True
            self.dragging = True
            self.seek_x(event.pos[0])
            return True
        if event.type == pygame.MOUSEMOTION and self.dragging:
            self.seek_x(event.pos[0])
            return True
        if event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self.dragging:
            self.dragging = False
            self.seek_x(event.pos[0])
            return True
        if event.type == pygame.MOUSEBUTTONDOWN and self.rect().collidepoint(event.pos):
            return True  # the bar is not the town: no click goes through it
        got = keys.hit(event, "replay")
        if got is None or text_focused(self.game):
            return False
        if got.action in ("step", "step_minute"):
            s.step(got.number * (MINUTE if got.action == "step_minute" else 1))
            return True
        if got.action == "moment":
            if not self.next_moment(got.number):
                self.game.toast("No more moments that way.")
            return True
        if got.action == "to_start":
            s.seek(0)
            return True
        if got.action == "to_end":
            s.seek(s.recording.last)
            return True
        return False

    # ---- drawing ----------------------------------------------------------------------------------
    def _draw_marks(self, track: pygame.Rect) -> pygame.Surface:
        key = (track.size, len(self.moments))
        if self._marks is not None and self._marks_key == key:
            return self._marks
        surf = pygame.Surface((track.width, HEIGHT), pygame.SRCALPHA)
        mid = HEIGHT // 2
        for m in self.moments:
            x = self.x_of(m.frame) - track.x
            colour = MARK.get(m.kind, FG)
            if m.until is not None:  # a gathering: its span under the track
                x1 = self.x_of(m.until) - track.x
                pygame.draw.rect(surf, colour, (x, mid + 6, max(2, x1 - x), 3))
            else:
                pygame.draw.line(surf, colour, (x, mid - 11), (x, mid - 6), 2)
        self._marks, self._marks_key = surf, key
        return surf

    def draw(self, surface: pygame.Surface) -> None:
        s = self.session
        rec = s.recording
        r = self.rect()
        bg = pygame.Surface(r.size, pygame.SRCALPHA)
        bg.fill(BG)
        surface.blit(bg, r.topleft)
        b = self.button_rect()
        pygame.draw.rect(surface, (52, 58, 70), b, border_radius=5)
        if s.paused:  # the play triangle
            pygame.draw.polygon(surface, FG, [(b.x + 10, b.y + 7), (b.x + 10, b.bottom - 7), (b.right - 7, b.centery)])
        else:  # the pause bars
            pygame.draw.rect(surface, FG, (b.x + 8, b.y + 7, 4, b.height - 14))
            pygame.draw.rect(surface, FG, (b.right - 12, b.y + 7, 4, b.height - 14))
        t = self.track_rect()
        pygame.draw.rect(surface, TRACK, t, border_radius=4)
        head = self.x_of(s.position)
        pygame.draw.rect(surface, PLAYED, (t.x, t.y, max(0, head - t.x), t.height), border_radius=4)
        surface.blit(self._draw_marks(t), (t.x, r.y))
        if rec.stopped:  # where the recording stops early: a warning mark at the end
            pygame.draw.rect(surface, WARN, (t.right - 3, t.y - 6, 3, t.height + 12))
        pygame.draw.circle(surface, HEAD, (head, t.centery), 7)
        first = fonts.text(f"{rec.start:%a %H:%M}", 14, DIM)
        last = fonts.text(f"{rec.end:%a %H:%M}", 14, WARN if rec.stopped else DIM)
        surface.blit(first, (t.x - first.get_width() - 8, r.centery - first.get_height() // 2))
        surface.blit(last, (t.right + 8, r.centery - last.get_height() // 2))
        mouse = self.game.mouse_pos
        if mouse is not None and (self.dragging or r.collidepoint(mouse)) and not b.collidepoint(mouse):
            when = rec.time_of(self.frame_at_x(mouse[0]))
            label = fonts.text(f"{when:%a %d %b %H:%M:%S}", 14, FG, True)
            x = min(max(mouse[0] - label.get_width() // 2, r.x), r.right - label.get_width())
            box = pygame.Rect(x - 4, r.y - label.get_height() - 6, label.get_width() + 8, label.get_height() + 4)
            pygame.draw.rect(surface, (18, 20, 26), box, border_radius=4)
            surface.blit(label, (x, box.y + 2))


def install(game: Game, session: ReplaySession, moments: list) -> TimelineBar:
    bar = TimelineBar(game, session, moments)
    game.add_overlay(bar)
    game.panels.timeline = bar
    return bar


__all__ = ["HEIGHT", "TimelineBar", "install"]
