"""The "Why?" panel: the reasons behind one act of a resident, and who told whom.

The inspector (game/view/inspector.py) has a "Why?" button for the action line
and a "why?" link after each plan item and each line said. Either opens this
panel on the act's decision record (agents/explain/why.py): the question asked, the
model's call (model, tokens, latency, cache hit, outcome), each memory that
retrieval brought up with its recency, importance and relevance as three small
bars (min-max scaled over the candidates, as the paper scores them) and its
total, and, folded below, the prompt as sent and the answer as received.

"Who told whom": a word typed in the panel lists, below the bars, every line
said with it and who first heard it from whom (game/runs/why_records.py ``spread``,
worked out on a background thread from the game's or the replay's events).

Where the records come from: in the game, the session's ``WhyLog`` (the newest
records of each resident, in memory: a copy of a short list, taken on a click);
in a replay, the recording's records file, read once on a background thread
(the panel says it is reading until then). Nothing here calls a model, reads a
file or lays out long text on the frame, except the prompt's box on unfolding.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UIImage, UITextBox, UITextEntryLine, UIWindow

from game.runs.readings import Inspection, why
from game.runs.why_records import (
    answer_text,
    call_line,
    files_for_recording,
    load_records,
    prompt_text,
    spread,
    spread_text,
)
from game.view import keys
from game.view.fonts import panel_font
from game.view.host import Host, TownSim
from game.view.inspector_text import SMALL_PX, TEXT_PX
from game.view.markup import C_DIM, C_HEAD, C_IMP, C_NOW, C_TEXT, esc, typed
from game.view.overlay import Overlay

log = logging.getLogger(__name__)

LINK_PREFIX = "why:"  # the inspector's links: why:plan:<i>, why:line:<i>
PANEL_W = 600
MARGIN = 8
TOP = 40
HEAD_H = 78
ROW_H = 40
ROWS = 8  # memories drawn as bars (the best by total)
BAR_W = 96
PROMPT_CHARS = 6000  # the unfolded box's text (pygame_gui lays out ~1 ms per line)
POLL_S = 0.25
COLOURS = {"recency": C_NOW, "importance": C_IMP, "relevance": "#7FB3FF"}


class RecordSource:
    """The decision records the panel reads: the game's ``WhyLog`` (live), or a
    replay's records file, read on a background thread the first time it is asked."""

    def __init__(self, game: Host) -> None:
        self.game = game
        self._index: why.RecordIndex | None = None  # a replay's records, once read
        self._thread: threading.Thread | None = None
        self.error: str | None = None
        self.off = False  # the game keeps no records (why = "off")

    def _replay_files(self) -> list[Path]:
        rec = getattr(self.game.session, "recording", None)  # a replay's session plays a recording; a game's not
        if rec is None:
            return []
        return files_for_recording(Path(rec.path), str(getattr(rec, "kind", "run")))  # a stand-in may say

    def _read(self, files: list[Path]) -> None:
        index = why.RecordIndex()
        try:
            for d in load_records(files):
                index.add(d)
        except Exception as err:  # noqa: BLE001 - a damaged file: the panel says so
            log.warning("reading the decision records %s failed: %s", files, err)
            self.error = str(err)
        self._index = index  # one assignment: the frame sees the whole index or none

    def find(self, resident: str, kind: str, at: datetime, text: str) -> tuple[bool, dict | None]:
        """(still reading, the act's record or None)."""
        session = self.game.session
        wlog = why.log_of(session.gateway if session is not None else None)
        self.off = wlog is not None and wlog.mode == "off"
        if wlog is not None:
            return False, wlog.find(resident, kind, at, text)
        if self._thread is None:
            self._thread = threading.Thread(target=self._read, args=(self._replay_files(),), name="why-records",
                                            daemon=True)
            self._thread.start()
        index = self._index
        if index is None:
            return True, None
        return False, index.find(resident, kind, at, text)


def _font(cache: dict, px: int, bold: bool = False) -> pygame.font.Font:
    """The inspector's header font (pygame_gui's Noto Sans), cached per panel."""
    return panel_font(px, bold, cache)


def _clip(font: pygame.font.Font, text: str, width: int) -> str:
    if font.size(text)[0] <= width:
        return text
    while text and font.size(text + "…")[0] > width:
        text = text[:-1]
    return text + "…"


def render(head: list[tuple[str, str]], memories: list[dict], size: tuple[int, int],
           fonts: dict | None = None) -> pygame.Surface:
    """The header lines and each memory as a row: its total, its text, and three bars."""
    w, h = size
    fonts = {} if fonts is None else fonts
    surf = pygame.Surface((w, h), pygame.SRCALPHA)
    y = 2
    for text, colour in head:
        f = _font(fonts, TEXT_PX if colour == C_HEAD else SMALL_PX, colour == C_HEAD)
        surf.blit(f.render(_clip(f, text, w - 12), True, pygame.Color(colour)), (6, y))
        y += f.get_linesize()
    y = max(y, HEAD_H)
    small = _font(fonts, SMALL_PX)
    for m in memories:
        if y + ROW_H > h:
            break
        label = f"{m['total']:.2f}  #{m['id']} {m.get('text') or '(' + str(m.get('kind')) + ')'}"
        surf.blit(small.render(_clip(small, label, w - 12), True, pygame.Color(C_TEXT)), (6, y))
        by = y + small.get_linesize() + 1
        for j, name in enumerate(("recency", "importance", "relevance")):
            x = 6 + j * (BAR_W + 92)
            value = max(0.0, min(1.0, float(m["scaled"][j])))
            pygame.draw.rect(surf, pygame.Color(60, 64, 72), (x, by, BAR_W, 8))
            pygame.draw.rect(surf, pygame.Color(COLOURS[name]), (x, by, round(BAR_W * value), 8))
            tag = small.render(f"{name[:3]} {m[name]:.2f}" if name != "importance" else f"imp {m[name]:.0f}",
                               True, pygame.Color(C_DIM))
            surf.blit(tag, (x + BAR_W + 4, by - 4))
        y += ROW_H
    return surf


def act_of(sim: TownSim | None, name: str, snap: Inspection, spec: str) -> tuple | None:
    """The act a "Why?" names, from what the inspector shows: ``action``, ``plan:<i>`` (the
    i-th plan item) or ``line:<i>`` (the i-th line said): (resident, kind, time, text, label)."""
    kind, _, index = spec.partition(":")
    first = name.split()[0]
    if kind == "action":
        body = sim.bodies.get(name) if sim is not None else None
        act = body.action if body is not None else None
        if act is not None:
            return name, "action", act.start, act.description, f"{first} is {act.description}"
        a = snap.action
        return (name, "action", a.start, a.description, f"{first} is {a.description}") if a is not None else None
    try:
        i = int(index)
    except ValueError:
        return None
    if kind == "line":
        said = snap.said
        if not 0 <= i < len(said):
            return None
        x = said[i]
        return name, "line", x.time, x.text, f"{first} said to {x.to.split(' ')[0]}: “{x.text}”"
    if kind == "plan":
        plan = snap.plan
        now = snap.now
        if not 0 <= i < len(plan) or now is None:
            return None
        line = str(plan[i])
        words = line.split(" ", 1)[1] if " " in line else line
        return name, "plan", now, words, f"{first}'s plan: {line}"
    return None


class WhyPanel(Overlay):
    """The overlay: ``open(resident, kind, time, text, label)`` shows an act's reasons."""

    name = "why_panel"

    def __init__(self, game: Host) -> None:
        self.game = game
        self.source = RecordSource(game)
        self.window: Any = None
        self.image: Any = None
        self.fold_button: Any = None
        self.box: Any = None
        self.spread_entry: Any = None  # "Who told whom": a word, and the list of lines it travelled through
        self.spread_button: Any = None
        self._spread: Any = None  # the list (or why not), from the background thread
        self._spreading = False
        self._typing = False
        self.want: tuple | None = None  # (resident, kind, time, text, label) asked for
        self.record: dict | None = None
        self.memories: list[dict] = []
        self.text = ""  # what is shown (tests read it)
        self.unfolded = False
        self._poll = 0.0
        self._loading = False
        self._fonts: dict = {}

    @property
    def is_open(self) -> bool:
        return self.window is not None and self.window.alive()

    def close(self) -> None:
        if self.window is not None:
            self.window.kill()
        self.window = self.image = self.fold_button = self.box = None
        self.spread_entry = self.spread_button = None
        self.want = self.record = None
        self.memories, self.text, self.unfolded = [], "", False
        self._spreading = False
        self._typed(False)

    def open(self, resident: str, kind: str, time: datetime | None, text: str, label: str) -> None:
        """Show why ``resident`` did the act (``kind``: line | action | plan) at ``time``."""
        self.close()
        _w, h = self.game.size
        rect = pygame.Rect(MARGIN, TOP, PANEL_W, min(640, h - TOP - 40))
        self.window = UIWindow(rect, self.game.ui, window_display_title=f"Why? {resident}", object_id="#why",
                               resizable=False)
        inner = self.window.get_container().get_rect()
        img_h = HEAD_H + ROWS * ROW_H
        self.image = UIImage(pygame.Rect(0, 0, inner.width, img_h), pygame.Surface((inner.width, img_h),
                                                                                   pygame.SRCALPHA),
                             self.game.ui, container=self.window)
        self.fold_button = UIButton(pygame.Rect(4, img_h + 2, 220, 30), "Show prompt and answer", self.game.ui,
                                    container=self.window, tool_tip_text="the prompt as sent, the answer as received")
        self.spread_entry = UITextEntryLine(pygame.Rect(230, img_h + 2, inner.width - 366, 30), self.game.ui,
                                            container=self.window, placeholder_text="a word, e.g. party")
        self.spread_entry.set_text_length_limit(60)
        self.spread_button = UIButton(pygame.Rect(inner.width - 132, img_h + 2, 128, 30), "Who told whom",
                                      self.game.ui, container=self.window,
                                      tool_tip_text="every line said with this word, and who first heard it from whom")
        self.want = (resident, kind, time, text, label)
        self._show()

    def _show(self) -> None:
        """Find the record (when the records are there) and draw it."""
        if self.want is None or not self.is_open:
            return
        resident, kind, time, text, label = self.want
        head = [(label, C_HEAD)]
        if time is None:
            head.append(("this act has no time to look it up by", C_DIM))
        else:
            self._loading, self.record = self.source.find(resident, kind, time, text)
            if self._loading:
                head.append(("reading the decision records…", C_DIM))
            elif self.record is None and self.source.off:
                head.append(('the decision records are off (why = "off" in smallville.toml)', C_DIM))
            elif self.record is None:
                head.append(("no decision record: a rule or the routine chose this, or it is older than the "
                             "records kept", C_DIM))
                if self.source.error:
                    head.append((f"the records could not be read: {self.source.error}", C_DIM))
        rec = self.record
        if rec is not None:
            self.memories = why.memories_of(rec)
            head.append((call_line(rec), C_DIM))
            queries = [r.get("query") or "(hashed)" for r in rec.get("retrievals") or []]
            head.append(("asked memory: " + "; ".join(f"“{q}”" for q in queries) if queries
                         else "no memories were retrieved for this question", C_DIM))
        size = self.image.image.get_size() if self.image is not None else (PANEL_W, HEAD_H)
        self.image.set_image(render(head, self.memories[:ROWS], size, self._fonts))
        self.text = "\n".join(t for t, _ in head) + "\n" + "\n".join(
            f"#{m['id']} total {m['total']:.3f} recency {m['scaled'][0]:.3f} importance {m['scaled'][1]:.3f} "
            f"relevance {m['scaled'][2]:.3f} {m.get('text') or ''}" for m in self.memories)
        if self.unfolded:
            self._unfold()

    def _unfold(self) -> None:
        if self.window is None or self.fold_button is None:
            return
        self.unfolded = True
        self.fold_button.set_text("Hide prompt and answer")
        rec = self.record
        body = "(no record)" if rec is None else (
            "<b>Prompt as sent</b><br>" + esc(prompt_text(rec)[:PROMPT_CHARS]).replace("\n", "<br>")
            + "<br><br><b>Answer</b><br>" + esc(answer_text(rec)[:PROMPT_CHARS]).replace("\n", "<br>"))
        self._set_box(body)

    def _set_box(self, body: str) -> None:
        """The text box below the bars (created on first use): the prompt and answer, or who told whom."""
        if self.window is None or self.fold_button is None:
            return
        markup = f"<font pixel_size={SMALL_PX} color='{C_TEXT}'>{body}</font>"
        inner = self.window.get_container().get_rect()
        top = self.fold_button.relative_rect.bottom + 4
        if self.box is None:
            self.box = UITextBox(markup, pygame.Rect(0, top, inner.width, max(60, inner.height - top)),
                                 self.game.ui, container=self.window)
        else:
            self.box.set_text(markup)

    # ---- who told whom ----------------------------------------------------------------
    def _events(self) -> Callable[[], list[dict]]:
        """A callable giving every event so far, safe to run on another thread: a replay's
        recording holds them in memory; the game's log is snapshot here (microseconds) and
        read from its journal over there."""
        session = self.game.session
        rec = getattr(session, "recording", None)  # a replay's session plays a recording; a game's not
        if rec is not None and isinstance(rec.events, list):
            events = list(rec.events)
            return lambda: events
        log_ = session.sim.events if session is not None else None
        snap = getattr(log_, "snapshot", None)  # a game's EventLog (a list elsewhere)
        if callable(snap):
            return snap()
        events = list(log_ or [])
        return lambda: events

    def show_spread(self, word: str) -> None:
        """List, below the bars, the lines said with ``word`` and who first heard it from whom
        (worked out on a background thread; the list appears when it is ready)."""
        word = typed(word, 60)
        if not word or not self.is_open:
            return
        build = self._events()
        self._spread, self._spreading = None, True

        def work() -> None:
            try:
                self._spread = spread_text(spread(build(), word))
            except Exception as err:  # noqa: BLE001 - a bad pattern or an unreadable log: said in the panel
                self._spread = str(err)

        threading.Thread(target=work, name="why-spread", daemon=True).start()
        self.unfolded = False
        self.fold_button.set_text("Show prompt and answer")
        self._set_box(esc(f"who told whom about “{word}”…"))

    def _typed(self, typing: bool) -> None:
        """While the word is typed, WASD are letters, not the visitor's steps."""
        if typing != self._typing:
            self._typing = typing
            self.game.controls.enabled = not typing
            if typing:
                self.game.controls.release_all()

    def _fold(self) -> None:
        self.unfolded = False
        if self.box is not None:
            self.box.kill()
            self.box = None
        if self.fold_button is not None:
            self.fold_button.set_text("Show prompt and answer")

    def toggle(self) -> None:
        if self.unfolded:
            self._fold()
        else:
            self._unfold()

    # ---- overlay protocol -----------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> bool:
        if event.type == pygame_gui.UI_TEXT_BOX_LINK_CLICKED:
            target = str(getattr(event, "link_target", "") or "")
            if target.startswith(LINK_PREFIX):
                insp = self.game.panels.inspector
                act = insp.act_of(target[len(LINK_PREFIX):]) if insp is not None else None
                if act is not None:
                    self.open(*act)
                return True
            return False
        if event.type == pygame_gui.UI_BUTTON_PRESSED and self.fold_button is not None \
                and event.ui_element is self.fold_button:
            self.toggle()
            return True
        if self.spread_entry is not None and (
                (event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.spread_button)
                or (event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element is self.spread_entry)):
            self.show_spread(self.spread_entry.get_text())
            return True
        if keys.pressed(event, "back") and self.is_open:
            self.close()
            return True
        if event.type == pygame_gui.UI_WINDOW_CLOSE and self.window is not None and event.ui_element is self.window:
            self.window = None
            self.close()
            return True
        return False

    def update(self, dt: float) -> None:
        if self.window is not None and not self.window.alive():
            self.close()
            return
        if not self.is_open:
            return
        self._typed(bool(self.spread_entry is not None and self.spread_entry.is_focused))
        if self._spreading and self._spread is not None:
            self._spreading = False
            self.text = self._spread
            self._set_box(esc(self._spread).replace("\n", "<br>"))
        if self._loading:
            self._poll += dt
            if self._poll >= POLL_S:  # a replay's records have been read
                self._poll = 0.0
                self._show()


def install(game: Host) -> WhyPanel:
    panel = WhyPanel(game)
    game.add_overlay(panel)
    game.panels.why_panel = panel
    return panel


__all__ = ["LINK_PREFIX", "RecordSource", "WhyPanel", "act_of", "install", "render"]
