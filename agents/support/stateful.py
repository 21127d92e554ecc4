"""One state contract for everything a save holds (issue 13): an object is built
with its services (a gateway, an embedder, a town), then ``from_state`` restores
what ``to_state`` wrote. ``to_state`` returns plain data (JSON types and numpy
arrays), never references to live objects."""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Stateful(Protocol):
    def to_state(self) -> dict[str, Any]:
        """Everything needed to continue exactly where this object is now."""
        ...

    def from_state(self, state: dict[str, Any]) -> None:
        """Restore, in place, what ``to_state`` wrote (on an object built with its services)."""
        ...
