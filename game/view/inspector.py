"""Clicking and reading: the inspector panel.

Click a resident (hit-tested against ``game.drawn``, the figures drawn last
frame): a pygame_gui window at the right side shows the full natural-language
action, its emoji, since/until, whether the mind is thinking, today's plan with
the current item marked, recent memories with importance, reflections with
the memories they cite, and whom the resident knows. The text is rebuilt a
few times per second from ``Mind.inspect()`` (a cheap copy: the panel never
calls a model) and only re-laid-out when it changed, keeping the scroll place.

Click an object's tile: a small panel with its address and state. Escape
closes the panel (before the game would quit). "Talk" opens the chat
(game/view/chat.py, when installed). "Follow" keeps the camera on the
resident (game/view/follow.py), "Walk there" walks the visitor to them
(walkto.py); every resident's name in the text is a link that follows them.
Clicking the resident the player plays opens their panel too. A replay's
session (``read_only``) gets no inner voice and no state editor: its minds'
snapshots say which save they come from (``note``).

``install(game)`` adds the overlay; it reads ``game.session`` (contract 11:
``sim``, ``minds``) each time, so it works before and after a load.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Protocol

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UIImage, UITextBox, UITextEntryLine, UIWindow

from game.runs.commands import Commands, Refused
from game.runs.readings import Inspection
from game.view import keys, why_panel
from game.view.camera import Camera
from game.view.console import ConsoleHost, play_as
from game.view.emoji import icon
from game.view.follow import link_names
from game.view.fonts import panel_font
from game.view.host import Drawn, Finder, MindView, TownSession, TownSim
from game.view.inspector_text import SMALL_PX, TEXT_PX, body_html, header_lines, object_html
from game.view.markup import typed
from game.view.overlay import Overlay

log = logging.getLogger(__name__)

PANEL_W = 380
OBJECT_H = 190
HEAD_H = 112  # the often-changing top box
MARGIN = 8
TOP = 40  # below the HUD's top line
REFRESH_S = 0.25
BODY_MIN_S = 3.0  # the big box is re-laid out at most this often (pygame_gui lays out ~1 ms per line)


def _wrap(font, text: str, width: int) -> list[str]:
    rows, row = [], ""
    for word in text.split():
        cand = f"{row} {word}".strip()
        if row and font.size(cand)[0] > width:
            rows.append(row)
            row = word
        else:
            row = cand
    return rows + ([row] if row else [])


def render_lines(lines: list[tuple[str, str, bool]], size: tuple[int, int], px: int = TEXT_PX,
                 cache: dict | None = None):
    """Lines of (text, #colour, bold) word-wrapped into a transparent surface of ``size``."""
    w, h = size
    surf = pygame.Surface((w, h), pygame.SRCALPHA)
    y = 2
    for text, colour, bold in lines:
        f = panel_font(px, bold, cache if cache is not None else {})
        for row in _wrap(f, text, w - 12):
            if y + f.get_linesize() > h:
                return surf
            surf.blit(f.render(row, True, pygame.Color(colour)), (6, y))
            y += f.get_linesize()
    return surf


def set_text_keep_scroll(box, text: str, to_bottom: bool = False) -> None:
    """Replace a UITextBox's markup without losing the reader's place (pygame_gui gives the
    box a scroll bar only while its text is taller than it)."""
    bar = getattr(box, "scroll_bar", None)
    pos = bar.start_percentage if bar is not None else 0.0
    box.set_text(text)
    bar = getattr(box, "scroll_bar", None)
    if bar is not None:
        bar.set_scroll_from_start_percentage(1.0 if to_bottom else pos)


class InspectorHost(ConsoleHost, Drawn, Finder, Protocol):
    """What the inspector uses of the window: the camera (what a click hit), the figures
    drawn, finding people, and playing as the one inspected (the console's ``play_as``)."""

    @property
    def camera(self) -> Camera: ...


class Inspector(Overlay):
    name = "inspector"

    def __init__(self, game: InspectorHost) -> None:
        self.game = game
        self.window = None
        self.box = None
        self.head = None
        self._head_text = self._body_text = ""
        self._head_lines: list = []
        self._fonts: dict = {}
        self._head_size = (PANEL_W, HEAD_H)
        self._body_at = -1e9
        self.clock = 0.0
        self.icon = None
        self.talk_button = None
        self.play_button = None  # "Play as" (issue 7; game/view/console.py play_as)
        self.follow_button = self.walk_button = None  # "Follow", "Walk there" (issue 12)
        self.why_button = None  # "Why?" on the action line (game/view/why_panel.py)
        self.snap = Inspection()  # the selected resident's snapshot shown last
        self.state_entry = self.state_button = None  # the object panel's state editor (issue 7)
        self._state_typing = False
        self.interview_button = None
        self.voice_entry = None  # the inner voice's text line
        self.voice_button = None
        self._voice_typing = False
        self.selected: str | None = None  # resident name
        self.object: str | None = None  # object address
        self.text = ""
        self._since = 0.0
        self._emoji = None

    # ---- what the session holds --------------------------------------------------
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

    @property
    def is_open(self) -> bool:
        return self.window is not None and self.window.alive()

    # ---- opening and closing ---------------------------------------------------
    def _rect(self, height: int) -> pygame.Rect:
        w, h = self.game.size
        return pygame.Rect(w - PANEL_W - MARGIN, TOP, PANEL_W, min(height, h - TOP - 40))

    def close(self) -> None:
        if self.window is not None:
            self.window.kill()
        self.window = self.box = self.head = self.icon = self.talk_button = None
        self.interview_button = self.voice_entry = self.voice_button = None
        self.play_button = self.state_entry = self.state_button = None
        self.follow_button = self.walk_button = self.why_button = None
        self.snap = Inspection()
        if self._state_typing:
            self.game.controls.enabled = True
        self._state_typing = False
        if self._voice_typing:
            self.game.controls.enabled = True
        self._voice_typing = False
        self.selected = self.object = None
        self.text = ""

    def _open(self, title: str, height: int, talk: bool) -> None:
        self.close()
        rect = self._rect(height)
        self.window = UIWindow(rect, self.game.ui, window_display_title=title, object_id="#inspector",
                               resizable=False)
        inner = self.window.get_container().get_rect()
        cw, ch = inner.width, inner.height
        top = 0
        if talk:
            self.icon = UIImage(pygame.Rect(6, 4, 32, 32), pygame.Surface((32, 32), pygame.SRCALPHA),
                                self.game.ui, container=self.window)
            panels = self.game.panels
            if panels.chat is not None:
                self.talk_button = UIButton(pygame.Rect(cw - 96, 4, 88, 32), "Talk (T)", self.game.ui,
                                            container=self.window, tool_tip_text="talk with this resident")
            if panels.interview is not None:
                self.interview_button = UIButton(pygame.Rect(cw - 196, 4, 96, 32), "Interview", self.game.ui,
                                                 container=self.window,
                                                 tool_tip_text="interview this resident from anywhere, as a persona")
            if panels.console is not None:
                self.play_button = UIButton(pygame.Rect(cw - 276, 4, 76, 32), "Play as", self.game.ui,
                                            container=self.window,
                                            tool_tip_text="walk as this resident (F2 hands them back)")
            top = 40
            if panels.follower is not None:
                self.follow_button = UIButton(pygame.Rect(4, top, 96, 30), "Follow", self.game.ui,
                                              container=self.window,
                                              tool_tip_text="keep the camera on them (walk or Esc stops)")
            if panels.walker is not None:
                self.walk_button = UIButton(pygame.Rect(104, top, 110, 30), "Walk there", self.game.ui,
                                            container=self.window, tool_tip_text="walk up to them, to talk")
            if panels.why_panel is not None:
                self.why_button = UIButton(pygame.Rect(218, top, 70, 30), "Why?", self.game.ui,
                                           container=self.window,
                                           tool_tip_text="why they do this: the memories, the prompt, the answer")
            if self.follow_button is not None or self.walk_button is not None or self.why_button is not None:
                top += 34
        live = self.session is None or not self.session.read_only  # a replay changes nothing
        if talk:
            self.head = UIImage(pygame.Rect(0, top, cw, HEAD_H), pygame.Surface((cw, HEAD_H), pygame.SRCALPHA),
                                self.game.ui, container=self.window)
            self._head_size = (cw, HEAD_H)
            top += HEAD_H
        if talk and live:
            self.voice_entry = UITextEntryLine(pygame.Rect(4, top + 2, cw - 118, 32), self.game.ui,
                                               container=self.window,
                                               placeholder_text="You are going to ... (their inner voice)")
            self.voice_entry.set_text_length_limit(200)
            self.voice_button = UIButton(pygame.Rect(cw - 110, top + 2, 106, 32), "Inner voice", self.game.ui,
                                         container=self.window,
                                         tool_tip_text="they take it as their own thought (importance 9) and replan")
            top += 38
        bottom = ch
        if not talk and self.session is not None and live:  # an object: edit its state
            self.state_entry = UITextEntryLine(pygame.Rect(4, ch - 36, cw - 80, 32), self.game.ui,
                                               container=self.window, placeholder_text="new state, e.g. burning")
            self.state_entry.set_text_length_limit(60)
            self.state_button = UIButton(pygame.Rect(cw - 72, ch - 36, 68, 32), "Set", self.game.ui,
                                         container=self.window, tool_tip_text="set the state ('idle' resets)")
            bottom = ch - 40
        self.box = UITextBox("", pygame.Rect(0, top, cw, bottom - top), self.game.ui, container=self.window)
        self._since = REFRESH_S  # fill it now
        self._head_lines = []
        self._head_text = self._body_text = ""
        self._body_at = -1e9
        self._emoji = None

    def select(self, name: str) -> None:
        """Open the panel on a resident."""
        self._open(name, 640, talk=True)
        self.selected = name
        self.refresh(force=True)

    def select_object(self, address: str) -> None:
        self._open(address.split(":")[-1], OBJECT_H, talk=False)
        self.object = address
        self.refresh(force=True)

    def inner_voice(self, text: str) -> str:
        """Tell the selected resident something as their inner voice (the town's
        ``whisper``: their own high-importance thought; they replan at their next
        decision, asked for soon). Returns the thought ("" when nothing was said)."""
        text = typed(text, 200)
        commands = self._commands()
        if not text or self.selected is None or commands is None:
            return ""
        got = commands.whisper(self.selected, text)
        if isinstance(got, Refused):
            return ""
        self.game.toast(got.message)
        return got.value

    def set_state(self, text: str) -> str:
        """The object panel's editor: set the object's state like the console does."""
        text = typed(text, 120)
        commands = self._commands()
        if commands is None or not self.object or not text:
            return ""
        msg = commands.set_object_state(self.object, text).message
        self.game.toast(msg)
        self.refresh(force=True)
        return msg

    # ---- content -----------------------------------------------------------------
    def _memory_text(self, name: str):
        return memory_lookup(self._minds().get(name))

    def compose(self) -> tuple[list, str]:
        """(header lines, body markup) of what the panel shows now."""
        sim = self._sim()
        if self.selected:
            name = self.selected
            mind = self._minds().get(name)
            try:
                snap = mind.inspect() if mind is not None else Inspection()
            except Exception:
                log.exception("inspect of %s failed", name)
                snap = Inspection()
            body = sim.bodies.get(name) if sim is not None else None
            thinking = bool(sim.thinking(name)) if sim is not None else False
            now = sim.now if sim is not None else None
            self.snap = snap
            return (header_lines(name, body, snap, thinking=thinking),
                    body_html(snap, now=now, memory_text=self._memory_text(name),
                              why_links=self.game.panels.why_panel is not None))
        if self.object:
            town = self.session.town if self.session is not None else self.game.town  # the live states
            try:
                state = town.state(self.object)
            except Exception:  # noqa: BLE001 - an address the map no longer has: as it was last seen
                state = town.object_states.get(self.object, "idle")
            return [], object_html(self.object, state)
        return [], ""

    def refresh(self, force: bool = False) -> None:
        """Rebuild the text from the mind's snapshot; the big box at most every BODY_MIN_S
        (``force``: now), and each box only when its text changed."""
        if not self.is_open:
            return
        head, body = self.compose()
        if self.head is not None and head != self._head_lines:
            self._head_lines = head
            self._head_text = "\n".join(t for t, _, _ in head) + "\n"
            self.head.set_image(render_lines(head, self._head_size, cache=self._fonts))
        small = not self.selected  # an object's panel is a few lines: always at once
        if body != self._body_text and (force or small or self.clock - self._body_at >= BODY_MIN_S):
            self._body_text = body
            self._body_at = self.clock
            set_text_keep_scroll(self.box, self._linked(body))
        self.text = self._head_text + self._body_text  # what is shown (tests read it)
        if self.icon is not None and self.selected:
            sim = self._sim()
            body = sim.bodies.get(self.selected) if sim is not None else None
            e = body.emoji if body is not None else ""
            if e != self._emoji:
                self._emoji = e
                self.icon.set_image(_emoji_surface(e))

    def act_of(self, spec: str) -> tuple | None:
        """The act a "Why?" names (``action``, ``plan:<i>``, ``line:<i>``) in what the panel shows."""
        if not self.selected:
            return None
        return why_panel.act_of(self._sim(), self.selected, self.snap, spec)

    def _linked(self, body: str) -> str:
        """The body's markup with every resident's name a link (a click follows them)."""
        if self.game.panels.follower is None:
            return body
        return link_names(body, self._minds())

    # ---- overlay protocol -----------------------------------------------------------
    def pick(self, pos) -> tuple[str, str] | None:
        """('resident', name) or ('object', address) under a screen position, or None.
        The visitor is nobody to inspect; a resident the player plays is."""
        minds = self._minds()
        for fig, rect in reversed(self.game.drawn or []):  # the last drawn is in front
            tag = fig.tag  # its name label, lifted above a crowd, picks it too
            hit = rect.collidepoint(pos) or (tag is not None and tag.rect.collidepoint(pos))
            if hit and fig.slug != "visitor" and fig.name in minds:
                return ("resident", fig.name)
        tile = self.game.camera.screen_to_tile(*pos)
        town = self.game.town
        if 0 <= tile[0] < town.width and 0 <= tile[1] < town.height:
            addr = town.address_at(*tile)
            if addr and addr.count(":") >= 3:
                return ("object", addr)
        return None

    def handle_event(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            got = self.pick(event.pos)
            if got is None:
                return False
            kind, what = got
            if kind == "resident":
                self.select(what)
            else:
                self.select_object(what)
            return True
        if keys.pressed(event, "back") and self.is_open:
            chat, interview = self.game.panels.chat, self.game.panels.interview
            if (chat is not None and chat.is_open) or (interview is not None and interview.is_open):
                return False  # the chat closes first
            self.close()
            return True
        if event.type == pygame_gui.UI_BUTTON_PRESSED and self.interview_button is not None \
                and event.ui_element is self.interview_button and self.selected:
            interview = self.game.panels.interview
            if interview is not None:
                interview.open(self.selected)
            return True
        if self.voice_entry is not None and self.selected and (
                (event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.voice_button)
                or (event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element is self.voice_entry)):
            if self.inner_voice(self.voice_entry.get_text()):
                self.voice_entry.set_text("")
            return True
        if event.type == pygame_gui.UI_BUTTON_PRESSED and self.selected and event.ui_element is not None \
                and event.ui_element in (self.follow_button, self.walk_button):
            if event.ui_element is self.follow_button:
                self.game.follow_resident(self.selected)
            else:
                self.game.walk_to_resident(self.selected)
            return True
        if event.type == pygame_gui.UI_BUTTON_PRESSED and self.why_button is not None \
                and event.ui_element is self.why_button and self.selected:
            act = self.act_of("action")
            why = self.game.panels.why_panel
            if act is not None and why is not None:
                why.open(*act)
            return True
        if event.type == pygame_gui.UI_BUTTON_PRESSED and self.play_button is not None \
                and event.ui_element is self.play_button and self.selected:
            self.game.toast(play_as(self.game, self.selected))
            return True
        if self.state_entry is not None and self.object and (
                (event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.state_button)
                or (event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element is self.state_entry)):
            if self.set_state(self.state_entry.get_text()):
                self.state_entry.set_text("")
            return True
        if event.type == pygame_gui.UI_BUTTON_PRESSED and self.talk_button is not None \
                and event.ui_element is self.talk_button and self.selected:
            chat = self.game.panels.chat
            if chat is not None:
                chat.open(self.selected)
            return True
        if event.type == pygame_gui.UI_WINDOW_CLOSE and self.window is not None and event.ui_element is self.window:
            self.window = None
            self.close()
            return True
        return False

    def inset(self) -> tuple[int, int, int, int] | None:
        """The panel covers the window's right side (the camera centres in the rest)."""
        if not self.is_open:
            return None
        return (0, 0, max(0, self.game.size[0] - self.window.rect.left + 4), 0)

    def update(self, dt: float) -> None:
        if self.window is not None and not self.window.alive():
            self.close()
            return
        if not self.is_open:
            return
        if self.window.rect.right > self.game.size[0]:  # the window shrank
            # by the panel's own width (its frame is wider than PANEL_W): once, not every frame
            self.window.set_position((max(0, self.game.size[0] - self.window.rect.width - MARGIN), TOP))
        editing = bool(self.state_entry is not None and self.state_entry.is_focused)
        if editing != self._state_typing:  # typing a state: WASD are letters, not steps
            self._state_typing = editing
            self.game.controls.enabled = not editing
        typing = bool(self.voice_entry is not None and self.voice_entry.is_focused)
        if typing != self._voice_typing:  # typing the inner voice: WASD are letters, not steps
            self._voice_typing = typing
            self.game.controls.enabled = not typing
            if typing:
                self.game.controls.release_all()
        self.clock += dt
        self._since += dt
        if self._since >= REFRESH_S:
            self._since = 0.0
            self.refresh()


def memory_lookup(mind: MindView | None) -> Callable[[int], str | None]:
    """node id -> its description, from the mind's memory stream as it is (never
    created from here; None for an unknown id). A reflection's citations use it."""

    def text(node_id: int) -> str | None:
        try:
            return mind.memory_text(int(node_id)) if mind is not None else None
        except Exception:  # noqa: BLE001 - a panel never breaks the frame
            return None

    return text


def _emoji_surface(e: str):
    surf = pygame.Surface((32, 32), pygame.SRCALPHA)
    if not e:
        return surf
    try:
        surf.blit(icon(e, 32), (0, 0))
    except Exception:
        log.debug("no icon for %r", e, exc_info=True)
    return surf


def preload_fonts(ui: pygame_gui.UIManager) -> None:
    """The sizes and styles our markup uses (else pygame_gui warns and loads them mid-frame)."""
    want = [{"name": "noto_sans", "point_size": px, "style": st, "antialiased": "1"}
            for px in (SMALL_PX, TEXT_PX) for st in ("regular", "bold", "italic", "bold_italic")]
    try:
        ui.preload_fonts(want)
    except Exception:
        log.debug("font preload failed", exc_info=True)


def install(game: InspectorHost) -> Inspector:
    preload_fonts(game.ui)
    insp = Inspector(game)
    game.add_overlay(insp)
    game.panels.inspector = insp
    if game.panels.why_panel is None:
        why_panel.install(game)  # above the inspector (overlay.py ORDER): it hears Escape and its links first
    return insp
