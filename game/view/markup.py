"""Text for pygame_gui's HTML-like markup in the panels: one palette, one escape."""
from __future__ import annotations

import html

C_HEAD = "#FFD37A"  # names, headings (and the resident's lines in a chat)
C_YOU = "#9CC9FF"  # the player's lines
C_DIM = "#A8B0BC"
C_NOW = "#8EE28E"  # the current plan item
C_IMP = "#F2A65A"  # importance
C_TEXT = "#ECECEC"


def esc(text) -> str:
    """Text safe inside pygame_gui markup."""
    return html.escape(str(text), quote=False)
