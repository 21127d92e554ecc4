"""Text in the panels: what a player types, made safe (``typed``; ``typed_input`` for
each key as it comes), and pygame_gui's HTML-like markup: one palette, one escape."""
from __future__ import annotations

import html
import unicodedata

import pygame

from game.runs.readings import provenance as pv

C_HEAD = "#FFD37A"  # names, headings (and the resident's lines in a chat)
C_YOU = "#9CC9FF"  # the player's lines
C_DIM = "#A8B0BC"
C_NOW = "#8EE28E"  # the current plan item
C_IMP = "#F2A65A"  # importance
C_TEXT = "#ECECEC"
C_RULE = "#F08C8C"  # what a rule or the routine chose instead of the model
C_REPAIRED = "#D8C98A"  # the model's, with a detail a rule fixed


ZWJ = "\u200d"  # the zero-width joiner: emoji sequences (a family, a flag) need it
_KEEP_FORMAT = {ZWJ}


def typed(text, limit: int) -> str:
    """What a player typed (or pasted), made safe to show, store and save: control
    characters, lone surrogates (they cannot be written as UTF-8) and invisible format
    characters (a right-to-left override, a zero-width space) are dropped; whitespace
    runs (newlines, tabs) become one space; at most ``limit`` characters. Right-to-left
    scripts and emoji are kept. Markup stays text: showing it is esc()'s job."""
    out = []
    for ch in str(text or ""):
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cs") or (cat == "Cf" and ch not in _KEEP_FORMAT):
            out.append(" " if ch in "\t\n\r\x0b\x0c" else "")
        elif cat in ("Zl", "Zp"):
            out.append(" ")
        else:
            out.append(ch)
    return " ".join("".join(out).split())[:limit].rstrip()


def typed_input(event):
    """A TEXTINPUT event with what a text box may hold, or None when nothing is left:
    control characters, lone surrogates and invisible format characters (a
    right-to-left override, a zero-width space) go, as game.view.markup.typed drops
    them on Enter; line breaks become spaces. pygame_gui raised on text that begins
    with a character of no width ("Text has zero width") or that cannot be encoded,
    so such a key, typed or pasted, ended the game."""
    text = str(getattr(event, "text", "") or "")
    clean = "".join(" " if ch in "\t\n\r\x0b\x0c" else ch for ch in text
                    if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cs", "Cf") or ch == ZWJ)
    clean = clean.lstrip(ZWJ)  # a joiner joins what comes before it in the same text only
    if not clean:
        return None
    return event if clean == text else pygame.event.Event(pygame.TEXTINPUT, text=clean)


def esc(text) -> str:
    """Text safe inside pygame_gui markup."""
    return html.escape(str(text), quote=False)


def source_colour(source: str | None) -> str | None:
    """The colour that marks what the model did not write as is (None: the model's own)."""
    k = pv.kind_of(source)
    if k in (pv.RULE, pv.ROUTINE):
        return C_RULE
    if k == pv.REPAIRED:
        return C_REPAIRED
    return None


def source_tag(source: str | None, px: int = 13) -> str:
    """" [routine: invalid answer]" in its colour, or "" for the model's own words."""
    label = pv.short_label(source)
    colour = source_colour(source)
    if not label or colour is None:
        return ""
    return f" <font pixel_size={px} color='{colour}'>[{esc(label)}]</font>"
