"""The visitor among them: talking to a resident.

Walk up to a resident (within ``TALK_RANGE`` tiles) and press T, or click
"Talk" in the inspector: a chat window opens (a scrolling transcript and a
text line). While the line has focus, walking is off (WASD types letters).
Enter sends the line through the town's commands (game/runs/commands.py
``say``): the answer is asked at once on the pool's urgent lane, ahead of every
resident's own work and beside the resident's job in flight; it comes back to
this overlay as an ``Answer``, and the town has the resident keep the exchange
as its next ordinary job (the protocol that keeps saves whole lives there, not
here). The frame never waits: the title says "… is
thinking — about N s" (from the last answers' times) until the answer is
back, and plainly when the model is slow or not answering. The answer also
shows as a speech bubble over the resident.

T with nobody in range says so, and the letters typed in the next moments
(the player thought a chat opened) type nothing rather than firing hotkeys.

While the window is open the resident stands still, "talking with <visitor>"
(the commands' ``hold`` / ``release``). Escape (or the window's close button) ends
the chat. A visitor who falls silent does not hold the resident for hours (a chat
left open once kept Isabella "talking with" the visitor at home from 07:36 past
11:11, and Hobbs Cafe never opened): once nothing was typed for ``SILENT_SIM_MIN``
sim minutes *and* ``SILENT_REAL_S`` real seconds (no line sent, no answer landing,
no key typed in the line), the resident says goodbye (the commands' ``part``), the
window shows it and goes read-only, and the resident goes on with its day. Both
bounds, because the town lives in sim time and the player in real time: 10 sim
minutes alone is 10 real seconds at speed 1 and a tenth of a second at speed 5,
too short to read an answer and start a reply; 30 real seconds alone is 30 sim
hours at the top speed. Together the resident waits for a player who is typing,
and never much longer than half an hour of its day for one who is not; paused,
sim time stands still and so does the resident. Every exchange is stored in the resident's memory (remember=True).
Residents' names in the transcript are links: a click follows them with the
camera (game/view/follow.py).

Answers land when the session applies finished jobs (its ``update``, paused
or not): this window never steps or pumps the simulation.

Loading a save ends the chat (``after_load``: the resident it held belongs to
the old town, and an answer on its way is dropped with the old jobs), with a
message, so it never waits on "thinking..." for an answer that cannot come.
"""
from __future__ import annotations

import logging
import statistics
import textwrap
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UITextBox, UITextEntryLine, UIWindow

from game.runs.commands import NO_TOWN, Answer, Commands, Refused, Ticket
from game.view import emoji, fonts, keys
from game.view.follow import link_names
from game.view.host import Drawn, Host, MindView, TownSession, TownSim
from game.view.markup import C_DIM, C_HEAD, C_TEXT, C_YOU, esc, typed
from game.view.overlay import Overlay
from game.view.visitor import Visitor
from game.world.grid import chebyshev

if TYPE_CHECKING:
    from game.view.camera import Camera

log = logging.getLogger(__name__)

TALK_RANGE = 2  # tiles (Chebyshev) between the visitor and the resident
MUTE_AFTER_T_S = 2.0  # after a T that opened nothing, letters typed within this are not hotkeys


def _typed_letter(event) -> bool:
    """A key that types a letter, digit or space (not Escape, F-keys, arrows or a modifier combo)."""
    text = getattr(event, "unicode", "") or ""  # a pygame event: its fields by type
    if getattr(event, "mod", 0) & (pygame.KMOD_CTRL | pygame.KMOD_ALT | pygame.KMOD_META):
        return False
    return len(text) == 1 and (text.isalnum() or text in " ,.?!'")
LINE_MAX = 300  # characters in one typed line
SILENT_SIM_MIN = 10  # a held resident says goodbye after this many sim minutes of the visitor's silence ...
SILENT_REAL_S = 30.0  # ... and this many real seconds (see the module's notes)
WALK_AWAY = 3  # the chat ends when the visitor walks this much further away
GREETING_FRESH = timedelta(minutes=30)  # a resident's greeting this recent is where T's chat begins
CHAT_W, CHAT_H = 440, 340
MARGIN = 8
TEXT_PX = 15
BUBBLE_S = 8.0  # seconds an answer's bubble stays up
TOAST_S = 2.5
C_THEM = C_HEAD  # the resident's lines


class ChatHost(Host, Drawn, Protocol):
    """What the chat uses of the window: the visitor's figure (where it stands, its name)."""

    @property
    def visitor(self) -> Visitor: ...


class Chat(Overlay):
    """The chat window (transcript, text line, Send) and the visitor's talk. Subclasses
    (game/view/interview.py) reuse the window and change the hooks: ``TITLE``,
    ``hint``, ``_top_widgets`` (a row above the transcript), ``_hold`` (who is
    stopped), ``_reachable`` (range), ``_submit`` (which command sends a line)."""

    name = "chat"
    TITLE = "Talking with {name}"
    OBJECT_ID = "#chat"
    HOTKEY = True  # T opens it next to a resident
    TOP_H = 0  # height of the row of extra widgets above the transcript

    def __init__(self, game: ChatHost) -> None:
        self.game = game
        self.window: Any = None  # a UIWindow while open
        self.box: Any = None
        self.entry: Any = None
        self.send_button: Any = None
        self.partner: str | None = None
        self.lines: list[tuple[str, str]] = []  # (speaker, text), the dialogue so far
        self.outbox: list[str] = []  # typed lines waiting for the previous answer
        self.pending = 0  # answers in flight
        self.note = ""  # a line under the transcript ("… is busy")
        self.text = ""
        self.bubble: tuple[str, str, float] | None = None  # (resident, text, seconds left)
        self._bubble_surf: pygame.Surface | None = None
        self.toast: tuple[str, float] | None = None
        self._shown = 0  # transcript lines in the box
        self._title = ""
        self._text_for: tuple[int, str] | None = None  # (lines shown, status) ``text`` was made for
        self._swallow = False  # the "t" typed by the key that opened the chat
        self._asked_at = 0.0  # wall time the oldest unanswered line went out
        self._waits: list[float] = []  # the last answers' wall times (seconds): the estimate shown
        self._mute_until = 0.0  # T opened nothing: letters typed until then are not hotkeys
        self.ended = False  # the resident said goodbye (the visitor fell silent): read-only
        self._quiet_sim: datetime | None = None  # sim time of the last line, answer or key typed
        self._quiet_real = 0.0  # ... and the wall time
        self._typed_text = ""  # the line's text last frame (a change is typing)

    # ---- the session -----------------------------------------------------------------
    @property
    def session(self) -> TownSession | None:
        return self.game.session

    def _sim(self) -> TownSim | None:
        s = self.session
        return s.sim if s is not None else None

    def _minds(self) -> Mapping[str, MindView]:
        s = self.session
        return s.minds if s is not None else {}

    def _commands(self) -> Commands | None:
        """What the player may do to the town (None: no town, or a replay's)."""
        s = self.session
        return s.commands if s is not None else None

    def visitor_name(self) -> str:
        s = self.session
        if s is None:
            return self.game.visitor.name or "Visitor"
        # playing as a resident (game/runs/session.py take_control): the chat speaks as them
        return s.controlled or s.visitor_name or self.game.visitor.name or "Visitor"

    @property
    def is_open(self) -> bool:
        return self.window is not None and self.window.alive()

    # ---- who is near ---------------------------------------------------------------------
    def nearest(self) -> str | None:
        """The resident nearest the visitor within TALK_RANGE, or None."""
        sim = self._sim()
        if sim is None:
            return None
        vx, vy = self.game.visitor.tile
        best = None
        for name, b in sim.bodies.items():
            if b.visitor or b.controlled or name not in self._minds():
                continue
            d = chebyshev(b.tile, (vx, vy))
            if d <= TALK_RANGE and (best is None or d < best[0]):
                best = (d, name)
        return best[1] if best else None

    def in_range(self, name: str, tiles: int = TALK_RANGE) -> bool:
        sim = self._sim()
        b = sim.bodies.get(name) if sim is not None else None
        if b is None:
            return False
        vx, vy = self.game.visitor.tile
        return chebyshev(b.tile, (vx, vy)) <= tiles

    def say_toast(self, text: str) -> None:
        if self.game.panels.hud is not None:
            self.game.toast(text)  # the HUD's toasts
        else:
            self.toast = (text, TOAST_S)

    # ---- opening and closing ----------------------------------------------------------------
    def open(self, name: str, *, check_range: bool = True) -> bool:
        if name not in self._minds() or self._sim() is None:
            return False
        if check_range and not self.in_range(name):
            self.say_toast(f"Walk up to {name.split()[0]} first (within {TALK_RANGE} tiles), then press T.")
            return False
        if self.is_open and self.partner == name and not self.ended:
            self._focus()
            return True
        self.close()
        self._build(name)
        self.partner = name
        self.lines, self.outbox, self.pending, self.note, self.text = [], [], 0, "", ""
        greeting = self._greeting_from(name)
        if greeting is not None:  # "... greets you: ... (T to answer)": the chat answers that line
            self.lines = [(name, greeting)]
        self.ended = False
        self._not_silent()
        self._hold()
        self._focus()
        self.refresh()
        return True

    def hint(self, name: str) -> str:
        return f"Say hello to {esc(name)}. What you tell them, they remember."

    def _greeting_from(self, name: str) -> str | None:
        """The line ``name`` greeted the visitor with lately (``GREETING_FRESH``), or None. Before,
        T after "Isabella greets you: ..." opened an empty chat, and her line was lost to it."""
        sim, s = self._sim(), self.session
        if not self.HOTKEY or sim is None or s is None:  # an interview is not the answer to a greeting
            return None
        for g in reversed(getattr(sim, "greetings", None) or []):  # a replay's town greets nobody
            if g.resident == name:
                return str(g.text) if s.now - g.time <= GREETING_FRESH else None
        return None

    def _top_widgets(self, cw: int) -> None:
        """Widgets in a row of TOP_H pixels above the transcript (none here)."""

    def _build(self, name: str) -> None:
        """The window: [extra row], the transcript, the text line and Send."""
        _w, h = self.game.size
        height = CHAT_H + self.TOP_H
        rect = pygame.Rect(MARGIN, max(0, h - height - 40), CHAT_W, height)
        self.window = UIWindow(rect, self.game.ui, window_display_title=self.TITLE.format(name=name),
                               object_id=self.OBJECT_ID)
        inner = self.window.get_container().get_rect()
        cw, ch = inner.width, inner.height
        self._top_widgets(cw)
        hint = f"<font pixel_size={TEXT_PX} color='{C_DIM}'><i>{self.hint(name)}</i></font>"
        top = self.TOP_H
        self.box = UITextBox(hint, pygame.Rect(0, top, cw, ch - 40 - top), self.game.ui, container=self.window)
        self._shown, self._title, self._text_for = 0, "", None
        self.entry = UITextEntryLine(pygame.Rect(4, ch - 36, cw - 84, 32), self.game.ui, container=self.window,
                                     placeholder_text="Say something, then Enter")
        self.entry.set_text_length_limit(LINE_MAX)
        self.send_button = UIButton(pygame.Rect(cw - 76, ch - 36, 72, 32), "Send", self.game.ui, container=self.window)

    def _hold(self) -> bool:
        """Stop the partner to talk (the town's ``hold``); the note says why not."""
        commands = self._commands()
        if commands is None or self.partner is None:
            return False
        got = commands.hold(self.partner)
        self.note = got.message if isinstance(got, Refused) else ""
        return not isinstance(got, Refused)

    def _typing(self) -> bool:
        """Whether a text field of this window has the keyboard (then walking is off)."""
        return bool(self.entry is not None and self.entry.is_focused)

    def _reachable(self) -> bool:
        return self.partner is not None and self.in_range(self.partner, TALK_RANGE + WALK_AWAY)

    def _keep_held(self) -> None:
        commands = self._commands()
        if commands is not None and self.partner is not None and not commands.held(self.partner):
            self._hold()

    # ---- a visitor fallen silent ------------------------------------------------------------
    def _not_silent(self) -> None:
        """The visitor (or the resident) just spoke, or a key was typed: the silence starts now."""
        sim = self._sim()
        self._quiet_sim = sim.now if sim is not None else None
        self._quiet_real = time.monotonic()

    def silent(self) -> bool:
        """Whether the held resident has waited long enough for the visitor (see the module's notes)."""
        sim, commands = self._sim(), self._commands()
        if self.ended or self.pending or self.outbox or self.partner is None or sim is None or commands is None:
            return False
        if self._quiet_sim is None or not commands.held(self.partner):  # an interview holds nobody
            return False
        quiet_min = (sim.now - self._quiet_sim).total_seconds() / 60
        return quiet_min >= SILENT_SIM_MIN and time.monotonic() - self._quiet_real >= SILENT_REAL_S

    def leave(self) -> bool:
        """The resident says goodbye and goes on with its day; the window shows it, read-only."""
        commands = self._commands()
        if commands is None or self.partner is None:
            return False
        got = commands.part(self.partner)
        if isinstance(got, Refused):
            return False
        name = self.partner
        self.ended = True
        self.lines.append((name, got.message))
        self.show_bubble(name, got.message)
        self.note = f"{name.split()[0]} said goodbye"  # read-only now; Escape or the close button closes it
        for widget in (self.entry, self.send_button):
            if widget is not None:
                widget.disable()
        self.game.controls.enabled = True  # nothing to type into: walking again
        self.refresh()
        return True

    def _focus(self) -> None:
        if self.entry is not None:
            self.game.ui.set_focus_set(self.entry)
            self.game.controls.enabled = False
            self.game.controls.release_all()

    def _release(self) -> None:
        commands = self._commands()
        if self.partner is not None and commands is not None:
            commands.release(self.partner)

    def close(self) -> None:
        self._release()
        if self.window is not None:
            self.window.kill()
        self.window = self.box = self.entry = self.send_button = None
        self.partner = None
        self.outbox = []
        self.game.controls.enabled = True

    # ---- talking ---------------------------------------------------------------------------
    def send(self, text: str) -> bool:
        text = typed(text, LINE_MAX)  # the box's limit also for text that arrives another way (a paste, a test)
        if not text or not self.is_open or self.ended:
            return False
        self._not_silent()
        self.outbox.append(text)
        self._flush()
        self.refresh()
        return True

    def _flush(self) -> None:
        """Submit the next typed line once the previous answer is back and the resident is held."""
        if self.pending or not self.outbox or self.partner is None:
            return
        if self._commands() is None or not self._hold():
            return
        name = self.partner
        text = self.outbox.pop(0)
        me = self.visitor_name()
        history = list(self.lines)
        self.lines.append((me, text))
        self.pending += 1
        self._submit(name, text, history)

    def _submit(self, name: str, text: str, history: list[tuple[str, str]]) -> None:
        """The line to the held resident: the world hears it, the answer comes first in
        line, the resident keeps the exchange (game/runs/commands.py ``say``)."""
        self._ask(lambda c: c.say(name, text, history, self._on_answer))

    def _ask(self, send: Callable[[Commands], Ticket | Refused]) -> None:
        """Send a line through the town's commands; a refusal answers at once (the note says why)."""
        commands = self._commands()
        if not self._asked_at:  # the oldest unanswered line's time: the wait the status tells
            self._asked_at = time.monotonic()
        got = send(commands) if commands is not None else Refused(NO_TOWN, "No town is running.")
        if isinstance(got, Refused):
            log.warning("the line was not sent: %s", got.message)
            self.pending = max(0, self.pending - 1)
            self.note = got.message
            if not self.pending:
                self._asked_at = 0.0

    def _on_answer(self, answer: Answer) -> None:
        self.pending = max(0, self.pending - 1)
        if self.partner == answer.ticket.resident:
            self._not_silent()  # the resident spoke: the visitor's silence starts after reading it
        if self._asked_at:
            self._waits = (self._waits + [time.monotonic() - self._asked_at])[-5:]
            self._asked_at = time.monotonic() if self.pending else 0.0
        name = answer.ticket.resident
        if answer.heard:
            self.show_bubble(name, answer.text)
        if self.partner == name:
            self.lines.append((name, answer.text))
            self.refresh()

    def show_bubble(self, name: str, text: str) -> None:
        """The answer over the resident's head: game/view/bubbles.py shows the sim's
        ``line`` events (logged above) when installed; else this overlay draws one."""
        if self.game.panels.bubbles is not None:
            return
        self.bubble = (name, text, BUBBLE_S)
        self._bubble_surf = None

    # ---- drawing ------------------------------------------------------------------------------
    def line_html(self, who: str, text: str) -> str:
        colour = C_YOU if who == self.visitor_name() else C_THEM
        html = (f"<font pixel_size={TEXT_PX} color='{C_TEXT}'><font color='{colour}'><b>{esc(who)}:</b></font> "
                f"{esc(text)}</font><br>")
        if self.game.panels.follower is None:
            return html
        return link_names(html, self._minds())

    def after_load(self) -> None:
        """A save was loaded: the chat belonged to the old town; end it and say so."""
        partner, waiting = self.partner, self.pending or self.outbox
        self.pending = 0
        if self.is_open:
            self.close()
            if partner:
                more = " before they answered" if waiting else ""
                self.say_toast(f"The chat with {partner.split()[0]} ended{more}: a save was loaded.")

    def status(self) -> str:
        """What the window's title adds: thinking, or why the resident cannot talk yet."""
        if self.note:
            return self.note
        if self.pending or self.outbox:
            return self.thinking_text()
        return ""

    def thinking_text(self) -> str:
        """While an answer is on its way: how long it should take, or plainly why it does not come."""
        first = (self.partner or "").split()[0] if self.partner else "They"
        gateway = self.session.gateway if self.session is not None else None
        if str(getattr(gateway, "status", "ok") or "ok") != "ok":  # a stand-in model road has no health
            return f"{first} cannot answer: the model is not responding (see the top left)"
        waited = time.monotonic() - self._asked_at if self._asked_at else 0.0
        usual = statistics.median(self._waits) if self._waits else None
        if waited > max(15.0, 3 * (usual or 5.0)):
            return f"{first} is thinking — the model is slow right now ({waited:.0f} s so far)"
        if usual is not None:
            return f"{first} is thinking — about {max(1, round(usual))} s"
        return f"{first} is thinking…"

    def refresh(self) -> None:
        """New lines are appended (a full re-layout costs ~1 ms per line); the status
        goes into the title, so the transcript never changes in place."""
        if not self.is_open:
            return
        if self._shown == 0 and self.lines:
            self.box.set_text(self.line_html(*self.lines[0]))  # replaces the hint
            self._shown = 1
        while self._shown < len(self.lines):
            self.box.append_html_text(self.line_html(*self.lines[self._shown]))
            self._shown += 1
        status = self.status()
        title = self.TITLE.format(name=self.partner) + (f"  ({status})" if status else "")
        if title != self._title:
            self._title = title
            self.window.set_display_title(title)
        if (self._shown, status) != self._text_for:  # runs every frame: the markup only when it changed
            self._text_for = (self._shown, status)
            self.text = "".join(self.line_html(*x) for x in self.lines[: self._shown]) + status

    def _bubble_surface(self, text: str):
        f = fonts.font(14)
        rows = textwrap.wrap(text, 34)[:5] or [""]
        if len(textwrap.wrap(text, 34)) > 5:
            rows[-1] = rows[-1][:31] + "…"
        surfs = [f.render(r, True, (30, 30, 36)) for r in rows]
        w = max(s.get_width() for s in surfs)
        lh = f.get_linesize()
        body = pygame.Surface((w, lh * len(surfs)), pygame.SRCALPHA)
        for i, s in enumerate(surfs):
            body.blit(s, ((w - s.get_width()) // 2, i * lh))
        try:
            return emoji.bubble(body)
        except Exception:  # noqa: BLE001 - no bubble art: a plain box
            box = pygame.Surface((w + 12, body.get_height() + 8), pygame.SRCALPHA)
            box.fill((250, 250, 245, 235))
            box.blit(body, (6, 4))
            return box

    def draw_world(self, surface: pygame.Surface, camera: Camera) -> None:
        if self.bubble is None:
            return
        name, text, _ = self.bubble
        rect = next((r for fig, r in (self.game.drawn or []) if fig.name == name), None)
        if rect is None:
            return
        if self._bubble_surf is None:
            self._bubble_surf = self._bubble_surface(text)
        s = self._bubble_surf
        x = rect.centerx - s.get_width() // 2
        y = rect.top - s.get_height() - 2
        x = max(2, min(x, surface.get_width() - s.get_width() - 2))
        surface.blit(s, (x, max(2, y)))

    def draw(self, surface: pygame.Surface) -> None:
        if self.toast is None:
            return
        text = fonts.text(self.toast[0], 16, (250, 250, 250))
        w, h = text.get_width() + 20, text.get_height() + 10
        x = (surface.get_width() - w) // 2
        y = surface.get_height() - h - 44
        box = pygame.Surface((w, h), pygame.SRCALPHA)
        box.fill((20, 22, 30, 215))
        surface.blit(box, (x, y))
        surface.blit(text, (x + 10, y + 5))

    # ---- overlay protocol ---------------------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> bool:
        if self._window_event(event):
            return True
        if event.type == pygame.KEYDOWN and self.HOTKEY:
            typing = self.entry is not None and self.entry.is_focused
            if keys.pressed(event, "talk") and not typing and self.game.controls.enabled:
                name = self.nearest()
                if name is None:
                    self.say_toast(f"Nobody within {TALK_RANGE} tiles to talk to. Walk up to someone first.")
                    self._mute_until = time.monotonic() + MUTE_AFTER_T_S
                    return True
                if self.open(name, check_range=False):
                    self._swallow = True
                else:
                    self._mute_until = time.monotonic() + MUTE_AFTER_T_S
                return True
            if not typing and time.monotonic() < self._mute_until and _typed_letter(event):
                self._mute_until = time.monotonic() + MUTE_AFTER_T_S  # still typing: no chat is open
                self.say_toast("No chat is open: walk up to someone (within "
                               f"{TALK_RANGE} tiles) and press T.")
                return True
        return False

    def _window_event(self, event: pygame.event.Event) -> bool:
        """Enter / Send / the close button / Escape of the window."""
        entry = self.entry
        if event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and entry is not None and event.ui_element is entry:
            self.send(self.entry.get_text())
            self.entry.set_text("")
            self._focus()
            return True
        if event.type == pygame_gui.UI_BUTTON_PRESSED and self.send_button is not None \
                and event.ui_element is self.send_button:
            self.send(self.entry.get_text())
            self.entry.set_text("")
            self._focus()
            return True
        if event.type == pygame_gui.UI_WINDOW_CLOSE and self.window is not None and event.ui_element is self.window:
            self.window = None
            self.close()
            return True
        if keys.pressed(event, "back") and self.is_open:
            self.close()
            return True
        return False

    def update(self, dt: float) -> None:
        if self.toast is not None:
            t, left = self.toast
            self.toast = (t, left - dt) if left > dt else None
        if self.bubble is not None:
            n, t, left = self.bubble
            self.bubble = (n, t, left - dt) if left > dt else None
        if self.window is not None and not self.window.alive():
            self.close()
        if not self.is_open:
            return  # answers still on their way land (the session applies them) in the memory and a bubble
        if self._swallow:
            self._swallow = False
            if self.entry.get_text() in ("t", "T"):
                self.entry.set_text("")
        if not self._reachable():
            self.say_toast(f"You walked away from {str(self.partner).split()[0]}.")
            self.close()
            return
        if self.ended:  # read-only: the resident went on with its day
            self.refresh()
            return
        focused = self._typing()
        if self.game.controls.enabled == focused:
            self.game.controls.enabled = not focused
            if focused:
                self.game.controls.release_all()
        text = self.entry.get_text()
        if text != self._typed_text:  # typing is not silence
            self._typed_text = text
            self._not_silent()
        if self.silent() and self.leave():
            return
        self._keep_held()
        self._flush()
        self.refresh()


def install(game: ChatHost) -> Chat:
    chat = Chat(game)
    game.add_overlay(chat)
    game.panels.chat = chat
    return chat
