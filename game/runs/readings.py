"""What the window reads of the minds, in one place (issue 38).

game/view never imports agents/ (tests/test_house.py): what it shows of the minds
comes through here, so the minds may move their modules about without the window
knowing, and this list says all the window depends on. (What a player *does* to the
town goes through game/runs/commands.py.)

- ``Action``: what a resident is doing (a body's ``action``), with where it came from
- ``Inspection``: a resident's snapshot (``Mind.inspect()``, any thread): the inspector
- ``provenance``: where a plan item, an act, a line or a memory came from, and its words
- ``VOCABULARY``, ``nearest``, ``split_emoji``: the emoji the minds choose from (the icons)
- ``redact``: secrets (an API key, a password in a URL) taken out of text the HUD shows
- ``why``: the decision records behind an act (the Why? panel)
"""
from __future__ import annotations

from agents import VOCABULARY, Action, Inspection, nearest, provenance, redact, split_emoji, why

__all__ = ["VOCABULARY", "Action", "Inspection", "nearest", "provenance", "redact", "split_emoji", "why"]
