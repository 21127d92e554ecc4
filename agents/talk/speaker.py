"""What talk needs of a mind (``Talker``) and the conversation state a mind keeps between
conversations (``Social``): who it knows, when it last talked, what it told whom."""
from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any, Protocol

from agents.model.services import Asker
from agents.planning.plan import Planner
from agents.planning.today import Today
from agents.recall.memory import MemoryNode, MemoryStream


class Social:
    """Whom a resident knows and when it last talked with them: the conversation
    state a mind keeps between conversations (its save under the mind's keys)."""

    def __init__(self) -> None:
        self.known_people: set[str] = set()
        self.last_talked: dict[str, datetime] = {}
        self.last_conversation: datetime | None = None
        self.rel_cache: dict[str, tuple[datetime, str]] = {}  # partner -> (when, relationship summary)
        # partner -> what it was told: invited ("event:party|..."), the news ("news:party|..."), a memory ("mem:12")
        self.told: dict[str, list[str]] = {}
        # How meetings turned out: talk decisions asked, taken, refused, and checks blocked by a
        # rule ("blocked: gap", ...), so a run shows why residents who meet do or do not talk.
        self.talk_stats: Counter = Counter()

    def to_state(self) -> dict[str, Any]:  # JSON for the save
        return {
            "known_people": sorted(self.known_people),
            "told": {k: list(v) for k, v in self.told.items()},
            "talk_stats": dict(self.talk_stats),
            "last_talked": {k: v.isoformat() for k, v in self.last_talked.items()},
            "rel_cache": {k: [t.isoformat(), v] for k, (t, v) in self.rel_cache.items()},
            "last_conversation": self.last_conversation.isoformat() if self.last_conversation else None,
        }

    def from_state(self, state: dict[str, Any]) -> None:  # JSON read from a save
        when = lambda v: datetime.fromisoformat(v) if v else None  # noqa: E731
        self.known_people = set(state["known_people"])
        self.last_talked = {k: datetime.fromisoformat(v) for k, v in state["last_talked"].items()}
        rel = state.get("rel_cache")  # saves from before the cache have none
        self.rel_cache = ({k: (datetime.fromisoformat(t), v) for k, (t, v) in rel.items()}
                          if isinstance(rel, dict) else {})
        self.last_conversation = when(state.get("last_conversation"))
        told = state.get("told")  # saves from before dialogue acts have none
        self.told = ({str(k): [str(x) for x in v] for k, v in told.items() if isinstance(v, list)}
                     if isinstance(told, dict) else {})
        stats = state.get("talk_stats")
        self.talk_stats = Counter({str(k): int(v) for k, v in stats.items() if isinstance(v, int)}
                                  if isinstance(stats, dict) else {})


class Talker(Planner, Protocol):
    """What dialogue needs of a mind (besides agents.model.services.Thinking and planning):
    its conversation state, today's arrangements, its memories and its model road."""

    social: Social
    today: Today

    def remember(self, kind: str, text: str, importance: int, **fields: Any) -> MemoryNode | None:
        ...

    @staticmethod
    def sleeping(doing: str | None) -> bool:
        ...

    @property
    def grounded(self) -> bool:
        ...

    @property
    def memory(self) -> MemoryStream:
        ...

    @property
    def gateway(self) -> Asker:  # the run's seed is in its config (wording's seeded phrasings)
        ...

    def search(self, queries: list[str], now: datetime, *, k: int, char_budget: int, touch: bool = True,
               kinds: tuple[str, ...] | None = None) -> list[MemoryNode]:
        ...


__all__ = ["Social", "Talker"]
