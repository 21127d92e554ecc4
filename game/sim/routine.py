"""The routine fallback: a plausible action from a persona's daily routine, without
any model, so no resident ever freezes when its mind fails (or before its first
decision). Its provenance says it is the routine's, and why."""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from agents import Action, Persona
from agents import provenance as pv
from game.world.town import Town


def routine_action(persona: Persona | None, now: datetime, town: Town, why: str = "no decision yet") -> Action:
    """What the persona's routine has it do at ``now`` (sleeping, getting ready,
    lunch, work, dinner, relaxing), at a place of its home or workplace."""
    return replace(_routine_action(persona, now, town), source=pv.tag(pv.ROUTINE, why))


def _routine_action(persona: Persona | None, now: datetime, town: Town) -> Action:
    home = getattr(persona, "home", None) or ""
    work = getattr(persona, "workplace", None) or home
    wake = int(getattr(persona, "wake_hour", 7) or 7)
    h = now.hour + now.minute / 60.0

    def obj(arena: str, *names: str) -> str:
        parts = arena.split(":")
        objs = []
        if len(parts) == 3:
            objs = town.tree.get(parts[1], {}).get(parts[2], [])
        for n in names:
            if n in objs:
                return f"{arena}:{n}"
        return arena

    def until(hour: float) -> int:
        m = round((hour - h) * 60)
        return m if m > 0 else m + 24 * 60

    if h >= 23 or h < wake:
        return Action("sleeping", obj(home, "bed"), now, max(10, until(wake)), "😴", "occupied")
    if h < wake + 1:
        return Action("getting ready for the day", home, now, max(10, min(60, until(wake + 1))), "🪥")
    if 12 <= h < 13:
        return Action("having lunch", obj(home, "dining table", "kitchen sink"), now, max(10, until(13)), "🍽️")
    if 9 <= h < 17 and work:
        desk = obj(work, "desk", "cafe counter", "bar counter")
        return Action("working", desk, now, max(10, min(60, until(17))), "💼")
    if 18 <= h < 19:
        return Action("having dinner", obj(home, "dining table"), now, max(10, until(19)), "🍽️")
    return Action("relaxing at home", home, now, max(10, min(60, until(23))), "🏠")
