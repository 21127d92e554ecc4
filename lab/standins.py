"""Stand-ins for the frame and quit benchmarks: minds that are always busy the
way a model keeps them busy, and the game's own Session built around them.

A ``BusyMind`` answers every job after sleeping like a model call (the GIL is
free) around a little plain Python (the GIL is held), then sends its resident
somewhere in town, or now and then into a chat.

``StandInMind`` is the base of every stand-in mind the game is given (here and in the
tests): the members of ``agents.ResidentMind`` a stand-in has no use for, answered as a
mind that keeps no plan of steps answers, so the game asks each mind the same way.
"""
from __future__ import annotations

import random
import time
from datetime import datetime
from pathlib import Path

from agents import (
    Action,
    Conversation,
    Decision,
    Inspection,
    MindPool,
    ModelConfig,
    Persona,
    ResidentMind,
    Situation,
    Utterance,
    load_cast,
)
from game.runs.session import PlaySimulation, Session, build_parts
from game.support import folders
from game.world.map_reader import load_town

ROOT = Path(__file__).resolve().parents[1]
MAP = folders.default_map()


class StandInMind:
    """The whole of ``agents.ResidentMind`` for a stand-in: a subclass gives ``name`` and
    ``decide`` (and ``persona``, for the routine), and what else it needs. The defaults
    are a mind without a plan of steps: the routine stands in while it thinks (no
    ``planned_action``), no steps are decided ahead (``steps_end`` None) and none would
    cost a model call (``chunk_asks`` False: the game asks for its decisions with the
    plain look-ahead and never asks it to ``prepare``), nobody it hosts (``welcome``
    None), no plans made in conversation, thoughts forgotten, an empty inspection."""

    name: str
    persona: Persona | None = None

    def decide(self, situation: Situation) -> Decision:
        raise NotImplementedError("a stand-in mind decides in its own way")

    def utter(self, conversation: Conversation, now: datetime, partner_doing: str) -> Utterance:
        return Utterance(self.name, "Hello!", ends=True)

    def end_conversation(self, conversation: Conversation, now: datetime) -> list:
        return []

    def welcome(self, guest: str, now: datetime) -> Utterance | None:
        return None

    def prepare(self, at: datetime, now: datetime) -> int:
        return 0

    def queue_thought(self, text: str, importance: int = 8) -> None:
        return None

    def inner_voice(self, text: str, now: datetime | None = None, importance: int = 9) -> str:
        self.queue_thought(text, importance)
        return text

    def inspect(self) -> Inspection:
        return Inspection(name=self.name)

    def memory_text(self, node_id: int) -> str | None:
        return None

    def planned_action(self, t: datetime) -> Action | None:
        return None

    def steps_end(self) -> datetime | None:
        return None

    def chunk_asks(self, at: datetime) -> bool:
        return False

    def decompose_afresh(self) -> None:
        return None


class BusyMind(StandInMind):
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

    def end_conversation(self, conversation: Conversation, now: datetime) -> list:
        self._job()
        return []

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
    minds: dict[str, ResidentMind] = {p.name: BusyMind(p, places, seed, delay) for p in cast}
    gw = NoGateway(concurrency)
    parts = build_parts(town, cast, scenario.start, scenario=scenario, config=gw.config, gateway=gw, embedder=None,
                        minds=minds, seed=seed, sim_class=PlaySimulation, pool=MindPool(concurrency))
    return Session(parts, visitor_name=visitor_name, prime=False)  # minds busy from the first frame


__all__ = ["BusyMind", "NoGateway", "StandInMind", "busy_minds_session"]
