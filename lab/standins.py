"""Stand-ins for the frame and quit benchmarks: minds that are always busy the
way a model keeps them busy, and the game's own Session built around them.

A ``BusyMind`` answers every job after sleeping like a model call (the GIL is
free) around a little plain Python (the GIL is held), then sends its resident
somewhere in town, or now and then into a chat.
"""
from __future__ import annotations

import random
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from agents import (
    Action,
    Conversation,
    Decision,
    Inspection,
    MindPool,
    ModelConfig,
    Persona,
    Situation,
    Utterance,
    load_cast,
)
from game.runs.session import PlaySimulation, Session, build_parts
from game.support import folders
from game.world.map_reader import load_town

ROOT = Path(__file__).resolve().parents[1]
MAP = folders.default_map()


class BusyMind:
    """A stand-in mind whose every job sleeps like a model call (GIL free) around a
    little plain Python, then sends its resident somewhere in town."""

    def __init__(self, persona: Persona, places: list[str], seed: int = 0, delay: tuple[float, float] = (0.3, 1.5),
                 work_ms: tuple[float, float] = (5.0, 15.0)):
        self.persona = persona
        self.name = persona.name
        self.places = places
        self.delay = delay
        self.work_ms = work_ms
        self.rng = random.Random(f"{seed}:{persona.name}")

    def _work(self, ms: float) -> None:
        end = time.perf_counter() + ms / 1000.0
        x = 0
        while time.perf_counter() < end:
            for i in range(200):
                x += i * i

    def _job(self) -> None:
        self._work(self.rng.uniform(*self.work_ms) / 2)
        time.sleep(self.rng.uniform(*self.delay))
        self._work(self.rng.uniform(*self.work_ms) / 2)

    def decide(self, situation: Situation) -> Decision:
        self._job()
        if situation.can_talk_to and self.rng.random() < 0.15:
            return Decision(talk_to=self.rng.choice(situation.can_talk_to), note="busy mind chats")
        place = self.rng.choice(self.places)
        return Decision(action=Action(
            description="walking over to " + place.split(":")[-1], address=place, start=situation.now,
            duration_min=self.rng.randint(1, 4), emoji=self.rng.choice(["🚶", "☕", "📚", "🎨", "💼", "🍽️"]),
        ))

    def utter(self, conversation: Conversation, now: datetime, partner_doing: str) -> Utterance:
        self._job()
        n = len(conversation.lines)
        return Utterance(self.name, f"Nice to see you! How is your day going? ({n})", ends=n >= 3)

    def end_conversation(self, conversation: Conversation, now: datetime) -> None:
        self._job()

    def queue_thought(self, text: str, importance: int = 8) -> None:
        return None

    def inspect(self) -> Inspection:
        return Inspection(name=self.name, summary="a busy stand-in mind")


class _Accounting:
    """No calls, no tokens: what the HUD reads of a gateway's accounting."""

    @staticmethod
    def summary() -> dict:
        return {"total": {"calls": 0, "tokens": 0}}


class NoGateway:
    """The stand-in minds call no model; the HUD still reads these."""

    def __init__(self, concurrency: int):
        self.config = ModelConfig(model="busy/stand-in", concurrency=concurrency)
        self.model = self.config.model
        self.status = "ok"
        self.accounting = _Accounting()

    def close(self) -> None:
        return None


def busy_minds_session(map_path: str | Path | None = None, *, residents: int = 25, seed: int = 0,
                       delay: tuple[float, float] = (0.3, 1.5), concurrency: int = 2,
                       visitor_name: str = "Alex") -> Session:
    """A Session on the real map with ``residents`` stand-in minds that are always
    busy (each job sleeps ``delay`` seconds): the frame-time benchmark's town."""
    map_path = Path(map_path) if map_path else MAP
    town = load_town(map_path)
    cast, scenario = load_cast(map_path.parent)
    cast = cast[:residents]
    places = [a for a in town.addresses() if a.count(":") == 2]
    minds: dict[str, Any] = {p.name: BusyMind(p, places, seed, delay) for p in cast}
    gw = NoGateway(concurrency)
    parts = build_parts(town, cast, scenario.start, scenario=scenario, config=gw.config, gateway=gw, embedder=None,
                        minds=minds, seed=seed, sim_class=PlaySimulation, pool=MindPool(concurrency))
    return Session(parts, visitor_name=visitor_name, prime=False)  # minds busy from the first frame


__all__ = ["BusyMind", "NoGateway", "busy_minds_session"]
