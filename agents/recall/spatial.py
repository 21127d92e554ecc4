"""A resident's own spatial memory: the tree world -> sector -> arena -> objects
it knows. Every place a mind acts on comes from here, never from the model's
free text (the original crashed on invented arena names)."""
from __future__ import annotations

from agents.residents.persona import Persona

# Objects the map contract (docs/contracts.md section 5) guarantees per kind of
# arena, so a mind can know its home's things before it has seen them.
_SLEEP = ["bed", "desk", "closet", "shelf"]
_KITCHEN = ["refrigerator", "stove", "kitchen sink", "dining table"]
PUBLIC_OBJECTS = {
    "cafe": ["coffee machine", "cafe counter", "cafe customer seating", "piano"],
    "pub": ["bar counter", "pub tables"],
    "classroom": ["classroom student seating", "blackboard", "lecturer's podium"],
    "library": ["bookshelves", "library tables"],
    "hallway": ["bulletin board"],
    "park": ["park bench", "park garden", "pond"],
    "supply store": ["supply store shelves", "supply store counter"],
    "store": ["grocery shelves", "grocery counter", "pharmacy counter", "pharmacy shelves"],
    "kitchen": _KITCHEN,
    "common room": ["sofa", "tv"],
    "garden": ["vegetable patch", "garden bench"],
    "main room": _SLEEP + _KITCHEN,
}


def default_objects(sector: str, arena: str) -> list[str]:
    if "bathroom" in arena:
        return ["toilet", "shower", "bathroom sink"]
    if arena in PUBLIC_OBJECTS:
        return list(PUBLIC_OBJECTS[arena])
    if arena.endswith("'s room") or "bedroom" in arena:
        extra = ["easel"] if sector == "artist's co-living space" else []
        return _SLEEP + extra
    return []


def split(address: str) -> list[str]:
    return [p for p in address.split(":")]


class SpatialMemory:
    def __init__(self, world: str = "the Ville"):
        self.world = world
        self.tree: dict[str, dict[str, list[str]]] = {}  # sector -> arena -> objects (ordered)

    # -- growing ----------------------------------------------------------
    def add(self, address: str, with_defaults: bool = False) -> None:
        parts = split(address)
        if len(parts) < 2 or parts[0] != self.world or not all(parts):
            return  # another world or a malformed address: ignore, never crash
        sector = self.tree.setdefault(parts[1], {})
        if len(parts) >= 3:
            objs = sector.setdefault(parts[2], [])
            if with_defaults:
                for o in default_objects(parts[1], parts[2]):
                    if o not in objs:
                        objs.append(o)
            if len(parts) >= 4 and parts[3] not in objs:
                objs.append(parts[3])

    def seed(self, persona: Persona) -> None:
        """Home, workplace and the few places the persona knows from the start."""
        for a in [persona.home, persona.workplace, *persona.places]:
            self.add(a, with_defaults=True)

    # -- reading ----------------------------------------------------------
    def knows(self, address: str) -> bool:
        parts = split(address)
        if len(parts) < 2 or parts[0] != self.world or parts[1] not in self.tree:
            return False
        if len(parts) == 2:
            return True
        arenas = self.tree[parts[1]]
        if parts[2] not in arenas:
            return False
        return len(parts) == 3 or (len(parts) == 4 and parts[3] in arenas[parts[2]])

    def arenas(self) -> list[str]:
        return [f"{self.world}:{s}:{a}" for s, arenas in self.tree.items() for a in arenas]

    def objects(self, arena_address: str) -> list[str]:
        parts = split(arena_address)
        if len(parts) < 3 or not self.knows(":".join(parts[:3])):
            return []
        return [f"{':'.join(parts[:3])}:{o}" for o in self.tree[parts[1]][parts[2]]]

    def arena_of(self, address: str) -> str:
        return ":".join(split(address)[:3])

    def describe(self, max_chars: int = 600) -> str:
        """"Hobbs Cafe (cafe); Johnson Park (park); ..." for prompts."""
        parts = [f"{s} ({', '.join(a)})" for s, a in self.tree.items()]
        out = "; ".join(parts)
        return out if len(out) <= max_chars else out[: max_chars - 3] + "..."

    def label(self, address: str) -> str:
        """The address without the world: shorter for a small model to copy."""
        return address.split(":", 1)[1] if address.startswith(self.world + ":") else address

    def choices(self, prefer: list[str], limit: int = 30) -> list[str]:
        """Known addresses for a location schema, most preferred first: objects
        (and the arena itself) of the preferred arenas, then other arenas."""
        out: list[str] = []

        def push(a: str) -> None:
            if a not in out and self.knows(a):
                out.append(a)

        for p in prefer:
            arena = self.arena_of(p)
            if len(split(p)) == 4:
                push(p)
            for o in self.objects(arena):
                push(o)
            push(arena)
        for a in self.arenas():
            push(a)
        return out[:limit]

    def validate(self, address: str | None, fallback: str) -> str:
        """`address` if this mind knows it, else its arena if known, else fallback."""
        if address and self.knows(address):
            return address
        if address:
            arena = self.arena_of(address)
            if self.knows(arena):
                return arena
        return fallback

    # -- the state contract (agents/support/stateful.py) ------------------------------------
    def to_state(self) -> dict:
        return {"world": self.world, "tree": {s: {a: list(o) for a, o in ar.items()} for s, ar in self.tree.items()}}

    def from_state(self, state: dict) -> None:
        tree = {k: {a: list(o) for a, o in v.items()} for k, v in state["tree"].items()}
        self.world, self.tree = state["world"], tree
