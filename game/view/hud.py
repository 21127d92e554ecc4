"""The HUD (top left) and the time controls.

Shows: the sim date and time ("Mon 13 Feb 2023 07:42"), the speed ("x15 min/s")
or PAUSED, the model (short name), model calls and tokens so far, the town
feed's newest entry ("09:12 Isabella told Maria about the party"), the visitor's
journal's reminder ("Due at 5 pm: Valentine's Day party at Hobbs Cafe (Isabella)"), "minds
behind: N" when decisions lag, the gateway's status when it is not ok
("model unreachable ... residents follow their routines"), short messages
(``toast(text)``; ``Game.toast`` forwards here) and, while skipping, a
progress box ("skipping to Tue 07:00 — 43%", Escape cancels).

Messages never pile up: notes that last (``note(key, text)``: "Following
Isabella Rodriguez", "Walking to ...") and toasts stack in one column at the
top, between the HUD box and the buttons and clear of the panels docked at
the sides, each wrapped to that column's width (at most ``TOAST_LINES`` lines;
twice that in a column a panel makes narrow). The same toast again is shown
once. ``reserved()`` gives the screen boxes they
take, so speech bubbles keep clear of them. They are drawn last
(``draw_top``), over panels such as the town map.

Buttons along the top right (right to left): "Next morning (N)" and whatever
others add with ``add_button`` (the residents list, the town map).

Keys (the HUD takes them unless a text box has focus):
space pause/resume · 1-5 speed · P pace (the clock waits for the minds, or
not) · N skip to the next morning · Escape cancels
a skip. A "Next morning" button does what N does (a replay jumps at once:
``session.skipping`` stays False, and the session says where it landed).
"""
from __future__ import annotations

import logging
import textwrap
from collections.abc import Callable
from typing import Any, Protocol

import pygame
import pygame_gui

from game.runs.pacing import describe
from game.runs.readings import redact
from game.runs.session import SPEEDS
from game.view import fonts, keys
from game.view.bubbles import wrap
from game.view.camera import Camera
from game.view.host import Host, TownSession
from game.view.overlay import Overlay
from game.view.statusline import StatusLine

FONT = 16
SMALL = 14
FG = (240, 240, 232)
DIM = (180, 186, 196)
WARN = (255, 196, 92)
BAD = (255, 120, 110)
BG = (18, 20, 26, 190)
PAD = 8
GAP = 8  # between the message column and the HUD box / the buttons
TOAST_S = 4.0
TOAST_LINES = 3
WIDE = 520  # a message column narrower than this (a side panel open) wraps to twice TOAST_LINES
NOTE = (160, 220, 255)
BUTTON_H = 30
REFRESH_S = 0.25
log = logging.getLogger(__name__)


def clock_text(now) -> str:
    return now.strftime("%a %d %b %Y %H:%M")


def speed_text(session: TownSession) -> str:
    if session.paused:
        return "PAUSED"
    m = session.minutes_per_second or SPEEDS[session.speed]  # a replay's export has its own rate
    return f"x{m:g} min/s"


def short_model(model: str) -> str:
    return (model or "?").split("/")[-1]


def text_focused(game: Host) -> bool:
    """Whether a pygame_gui text box has the keyboard (then keys are typing)."""
    try:
        for el in game.ui.get_focus_set() or ():
            if isinstance(el, (pygame_gui.elements.UITextEntryLine, pygame_gui.elements.UITextEntryBox)):
                return True
    except Exception:  # noqa: BLE001
        pass
    return not game.controls.enabled


class HudHost(Host, Protocol):
    """What the HUD uses of the window: the camera (panels' insets) and the status line."""

    @property
    def camera(self) -> Camera: ...

    @property
    def status(self) -> StatusLine: ...


class HUD(Overlay):
    name = "hud"

    def __init__(self, game: HudHost, session: TownSession) -> None:
        self.game = game
        self.session = session
        self.toasts: list[tuple[str, float]] = []  # (text, seconds left)
        self.notes: dict[str, str] = {}  # lasting one-line notes by key ("follow", "walkto")
        self.lines: list[tuple[str, tuple]] = []
        self._announced = 0  # the gateway's announcements (a server's structured-output dialect) toasted so far
        self._since = REFRESH_S
        self._bg: pygame.Surface | None = None
        self._bg_key: tuple[int, int] | None = None
        self.box = pygame.Rect(8, 8, 0, 0)  # the HUD box drawn last frame
        self.placed: list[tuple[pygame.Surface, pygame.Rect]] = []  # the message column, laid out in update
        self._msg_cache: dict[tuple, pygame.Surface] = {}
        self._laid_for: tuple[int, int, int] | None = None  # (left panel, right panel, window width)
        self.column = pygame.Rect(0, 12, 0, 0)  # where the messages go, and at most how many lines each
        self.column_lines = TOAST_LINES
        self.buttons: list[pygame_gui.elements.UIButton] = []  # along the top right, right to left
        self._handlers: dict[Any, Callable[[], None]] = {}
        self.button = self.add_button("Next morning (N)", 160, self.skip_to_morning,
                                      "Fast-forward to 07:00 (Escape cancels)")
        session.on_skip_end.append(self._skip_ended)

    # -- the buttons -----------------------------------------------------------------------
    def add_button(self, text: str, width: int, on_press: Callable[[], None],
                   tool_tip: str | None = None) -> pygame_gui.elements.UIButton | None:
        """A button in the top-right row (left of those already there); None without pygame_gui."""
        try:
            btn = pygame_gui.elements.UIButton(pygame.Rect(0, 8, width, BUTTON_H), text, manager=self.game.ui,
                                               tool_tip_text=tool_tip)
        except Exception:  # noqa: BLE001 - keys still work
            return None
        self.buttons.append(btn)
        self._handlers[btn] = on_press
        self._place_buttons(force=True)
        return btn

    def _place_buttons(self, force: bool = False) -> None:
        x: float = self.game.size[0] - 10
        for btn in self.buttons:
            x -= btn.relative_rect.width
            if force or btn.relative_rect.x != x:
                btn.set_relative_position((x, 8))
            x -= 8

    def buttons_left(self) -> int:
        """The x where the button row begins (the message column ends before it)."""
        return int(min((b.relative_rect.x for b in self.buttons), default=self.game.size[0]))

    # -- messages --------------------------------------------------------------------------
    def toast(self, text: str, seconds: float = TOAST_S) -> None:
        """A message for a few seconds; the same text again is shown once, for longer."""
        text = redact(str(text))  # errors of a server may repeat its URL
        self.toasts = [(t, left) for t, left in self.toasts if t != text]
        self.toasts.append((text, seconds))
        del self.toasts[:-4]
        self._layout()

    def note(self, key: str, text: str | None) -> None:
        """A message that stays until changed or removed (``text`` None)."""
        if text:
            self.notes[key] = redact(str(text))
        else:
            self.notes.pop(key, None)
        self._layout()

    def reserved(self) -> list[pygame.Rect]:
        """Screen boxes the HUD's box, messages and buttons take (speech bubbles avoid them)."""
        out = [self.box] + [r for _, r in self.placed]
        if self.buttons:
            out.append(pygame.Rect(self.buttons_left(), 8, self.game.size[0] - self.buttons_left(), BUTTON_H))
        return out

    def _message_surface(self, text: str, colour, width: int, lines: int = TOAST_LINES) -> pygame.Surface:
        """A message box: ``text`` wrapped to ``width`` px, at most ``lines`` lines (cached)."""
        key = (text, colour, width, lines)
        surf = self._msg_cache.get(key)
        if surf is None:
            rows = [fonts.text(r, FONT, colour) for r in wrap(text, width - 2 * PAD, FONT, lines)]
            lh = fonts.font(FONT).get_linesize()
            surf = pygame.Surface((max(r.get_width() for r in rows) + 2 * PAD, lh * len(rows) + PAD),
                                  pygame.SRCALPHA)
            pygame.draw.rect(surf, (18, 20, 26, 200), surf.get_rect(), border_radius=6)
            for i, r in enumerate(rows):
                surf.blit(r, (PAD, PAD // 2 + i * lh))
            if len(self._msg_cache) > 64:
                self._msg_cache.clear()
            self._msg_cache[key] = surf
        return surf

    def _panels(self) -> tuple[int, int]:
        """Screen pixels the panels docked at the left and right cover (the camera's insets)."""
        left, _, right, _ = self.game.camera.insets
        return int(left), int(right)

    def _layout(self) -> None:
        """Place the notes and toasts in one column between the HUD box and the buttons,
        clear of the panels docked at the sides (the residents list, the inspector)."""
        w = self.game.size[0]
        panel_l, panel_r = self._panels()
        self._laid_for = (panel_l, panel_r, w)
        left = max(self.box.right, panel_l) + GAP
        right = min(self.buttons_left(), w - panel_r) - GAP
        if right - left < 240:  # a narrow window: its width between the panels, under the HUD box
            left, right, top = max(8, panel_l + GAP), w - max(8, panel_r + GAP), self.box.bottom + GAP
            if right - left < 240:
                left, right = 8, w - 8
        else:
            top = 12
        width = right - left
        lines = TOAST_LINES if width >= WIDE else 2 * TOAST_LINES  # a narrow column: wrapped, not cut
        placed = []
        y = top
        items = [(t, NOTE) for t in self.notes.values()] + [(t, FG) for t, _ in self.toasts]
        for text, colour in items:
            surf = self._message_surface(text, colour, width, lines)
            rect = surf.get_rect(midtop=(left + width // 2, y))
            placed.append((surf, rect))
            y = rect.bottom + 4
        self.placed = placed
        self.column = pygame.Rect(left, top, width, max(0, y - 4 - top))
        self.column_lines = lines


    def _skip_ended(self, how: str) -> None:
        if how == "done":
            self.toast(f"It is {self.session.now:%a %H:%M}.")
        else:
            self.toast(f"Skip cancelled at {self.session.now:%a %H:%M}.")

    # -- input -----------------------------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> bool:
        s = self.session
        try:
            if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element in self._handlers:
                self._handlers[event.ui_element]()
                return True
        except Exception:
            log.exception("a HUD button failed")
        got = keys.hit(event)
        if got is None:
            return False
        if s.skipping and got.action == "back":
            s.cancel_skip()
            return True
        if text_focused(self.game):
            return False
        if got.action == "pause":
            if s.skipping:
                s.cancel_skip()
            else:
                s.toggle_pause()
            self._since = REFRESH_S
            return True
        if got.action == "speed":
            s.set_speed(got.number)
            if s.paused:
                s.paused = False
            self.toast(f"Speed {s.speed}: {SPEEDS[s.speed]:g} sim min per second")
            self._since = REFRESH_S
            return True
        if got.action == "next_morning":
            self.skip_to_morning()
            return True
        toggle_pace = getattr(s, "toggle_pace", None)  # a replay has no pace
        if got.action == "pace" and callable(toggle_pace):
            pace = toggle_pace()
            self.toast("Pace: the clock waits for the minds" if pace == "minds"
                       else "Pace: the clock keeps the speed; routines fill in for late minds")
            self._since = REFRESH_S
            return True
        return False

    def skip_to_morning(self) -> None:
        if self.session.skipping:
            return
        t = self.session.skip_to_morning()
        if self.session.skipping:  # a replay jumps at once and says where it landed (on_skip_end)
            self.toast(f"Skipping to {t:%a %H:%M} (Escape cancels)")

    # -- per frame --------------------------------------------------------------------------
    def update(self, dt: float) -> None:
        n = len(self.toasts)
        self.toasts = [(t, left - dt) for t, left in self.toasts if left - dt > 0]
        self._since += dt
        if self._since >= REFRESH_S:
            self._since = 0.0
            self.lines = self.compose()
        self._place_buttons()
        panels = (*self._panels(), self.game.size[0])
        if n != len(self.toasts) or (not self.placed and (self.notes or self.toasts)) or panels != self._laid_for:
            self._layout()

    def compose(self) -> list[tuple[str, tuple]]:
        s = self.session
        sim = s.sim
        lines = [(clock_text(sim.now), FG)]
        lines.append((speed_text(s), WARN if s.paused else DIM))
        gw = s.gateway
        model = getattr(gw, "model", None) or getattr(s.config, "model", "?")  # a stand-in road may name none
        try:
            tot = gw.accounting.summary()["total"]
            calls, tokens = int(tot.get("calls", 0)), int(tot.get("tokens", 0))
        except Exception:  # noqa: BLE001
            calls = tokens = 0
        lines.append((f"{short_model(redact(str(model)))} · {calls} calls · {tokens:,} tokens", DIM))
        lines += self._feed_line()
        journal = self.game.panels.journal
        due = journal.hud_line() if journal is not None else ""
        if due:  # the visitor's journal: what starts within the hour
            lines.append((due, WARN))
        pace_status = getattr(s, "pace_status", None)  # a replay has no pace
        pace = pace_status() if callable(pace_status) else None
        if pace is not None and not s.paused and not s.skipping:
            lines.append((describe(pace), WARN if pace.limited else DIM))
        behind = sim.behind()
        if behind and (pace is None or pace.pace == "clock"):
            lines.append((f"minds behind: {behind}", WARN))
        budgets_spent = getattr(s, "budgets_spent", None)  # a live game's: a replay's minds have no budget
        spent = budgets_spent() if callable(budgets_spent) else 0
        if spent:  # ModelConfig.budget: past it, rules stand in for the model until tomorrow
            lines.append((f"call budget spent: {spent} resident{'s' if spent > 1 else ''} on rules", WARN))
        servers = getattr(gw, "deployment_lines", None)  # a live road's; a replay's gateway has none
        for text, ok in (servers() if callable(servers) else []):  # each server's health, what its answers lack
            lines += [(part, DIM if ok else BAD) for part in textwrap.wrap(redact(text), 64)[:2]]
        said = getattr(getattr(gw, "dialects", None), "announcements", None) or []  # a live road's servers
        for text in said[self._announced:]:  # the structured output each server speaks, once
            self.toast(redact(text))
        self._announced = len(said)
        status = redact(str(getattr(gw, "status", "ok") or "ok"))  # a server's error may repeat its URL
        if status != "ok":  # up to two lines: what to do ("run: ollama pull ...") is at its end
            lines += [(part, BAD) for part in textwrap.wrap(status, 64)[:2]]
            lines.append(("residents follow their routines", BAD))
        return lines

    def _feed_line(self) -> list[tuple[str, tuple]]:
        """The town feed's newest entry (game/view/feed.py), when there is one."""
        feed = self.game.panels.feed
        line = feed.hud_line() if feed is not None else ""
        return [(line, NOTE)] if line else []

    def draw(self, surface: pygame.Surface) -> None:
        if not self.lines:
            self.lines = self.compose()
        rows = [fonts.text(t, FONT if i == 0 else SMALL, c, i == 0) for i, (t, c) in enumerate(self.lines)]
        w = max(r.get_width() for r in rows) + 2 * PAD
        h = sum(r.get_height() + 2 for r in rows) + 2 * PAD - 2
        key = (w, h)
        if self._bg is None or self._bg_key != key:
            self._bg = pygame.Surface(key, pygame.SRCALPHA)
            pygame.draw.rect(self._bg, BG, self._bg.get_rect(), border_radius=6)
            self._bg_key = key
        blits = [(self._bg, (8, 8))]
        if self.box.size != key:
            self.box = pygame.Rect((8, 8), key)
            self._layout()  # the message column starts right of the box
        y = 8 + PAD
        for r in rows:
            blits.append((r, (8 + PAD, y)))
            y += r.get_height() + 2
        surface.blits(blits, doreturn=False)
        if self.session.skipping:
            self._draw_skip(surface)

    def draw_top(self, surface: pygame.Surface) -> None:
        """The notes and toasts, over everything else (the town map included)."""
        if not self.placed:
            return
        fading = {i + len(self.notes): left for i, (_, left) in enumerate(self.toasts) if left < 1.0}
        blits = []
        for i, (surf, rect) in enumerate(self.placed):
            if i in fading:
                surf = surf.copy()
                surf.set_alpha(int(255 * fading[i]))
            blits.append((surf, rect.topleft))
        surface.blits(blits, doreturn=False)

    def _draw_skip(self, surface: pygame.Surface) -> None:
        s = self.session
        if s.skip is None:
            return  # skipping has just ended
        pct = s.skip_progress()
        text = f"skipping to {s.skip.target:%a %H:%M} — {int(pct * 100)}%   ({s.now:%a %H:%M}; Esc cancels)"
        img = fonts.text(text, FONT, FG)
        sw, sh = surface.get_size()
        box = pygame.Rect(0, 0, max(360, img.get_width() + 2 * PAD), img.get_height() + 22)
        box.center = (sw // 2, sh // 2 - 80)
        bg = pygame.Surface(box.size, pygame.SRCALPHA)
        pygame.draw.rect(bg, (18, 20, 26, 215), bg.get_rect(), border_radius=8)
        surface.blit(bg, box.topleft)
        surface.blit(img, (box.centerx - img.get_width() // 2, box.y + 5))
        bar = pygame.Rect(box.x + PAD, box.bottom - 11, box.width - 2 * PAD, 6)
        pygame.draw.rect(surface, (70, 74, 84), bar, border_radius=3)
        fill = bar.copy()
        fill.width = max(0, int(bar.width * pct))
        if fill.width:
            pygame.draw.rect(surface, (120, 200, 140), fill, border_radius=3)


def install(game: HudHost) -> HUD:
    session = game.session
    if session is None:
        raise ValueError("the HUD shows a town: attach a session first")
    hud = HUD(game, session)
    game.add_overlay(hud)
    game.panels.hud = hud
    game.status.right = "F1 / ?  help"
    return hud


__all__ = ["HUD", "clock_text", "install", "short_model", "speed_text"]
