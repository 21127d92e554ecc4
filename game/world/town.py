"""The town: a Tiled map read into a walkable grid, an address tree and object
states (no pygame). See docs/contracts.md sections 1 and 2.

    town = load_town("maps/the_ville/the_ville.tmx")   # game/world/map_reader.py
    town.walkable[y, x]                    # bool
    town.address_at(x, y)                  # "the Ville:Hobbs Cafe:cafe:coffee machine"
    town.tiles_of("the Ville:Hobbs Cafe")  # every tile of the sector
    town.use_tiles("the Ville:Hobbs Cafe:cafe:coffee machine")
    town.set_state(addr, "brewing coffee"); town.state(addr)
    town.describe("the Ville:Hobbs Cafe")  # "In Hobbs Cafe there is a cafe. In the cafe there is ..."

Decisions beyond the contract (documented here, tested in tests/test_town.py):

- The ``world`` map property is required; a map without it is a MapError (the
  world's name is what every address starts with, so guessing it from the file
  name would silently change every address a save or a mind remembers).
- Sectors may not overlap each other, nor arenas within a sector: every tile has
  exactly one deepest address.
- Lookups by an unknown address (``tiles_of``, ``use_tiles``) return ``[]``
  rather than raise, so an invented place name never crashes the game; use
  ``address in town`` or ``town.resolve(text)`` to check or repair a name.
  ``describe``, ``set_state`` and ``state`` raise ``KeyError`` for them.
- The use tiles of an object are its own walkable tiles; if it has none, the
  walkable 4-neighbours inside its arena (those not on another object first).
  Those of an arena, sector or the world are their walkable tiles.
- Reachability (contract 1, last rule) is not a load error by default: it is
  reported by ``town.problems()`` and by ``smallville map``; ``load_town(path,
  strict=True)`` turns problems into a MapError.

Reading a map into a Town, with its checks, is game/world/map_reader.py (which
also holds the ``smallville map`` command); reading the file itself is
game/world/tmx.py.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

VISITOR = "visitor"
IDLE = "idle"


class ObjectStates(dict[str, str]):
    """Every object's state by address, which also keeps the objects in use (not idle)
    and the addresses changed since a reader last took them: a town of hundreds steps
    in small groups, and each group's step reads only those, not every object."""

    def __init__(self) -> None:
        super().__init__()
        self._rank: dict[str, int] = {}  # the order objects were added in: the dict's own
        self._in_use: set[str] = set()
        self._changed: set[str] = set()

    def __setitem__(self, address: str, state: str) -> None:
        if address in self and dict.__getitem__(self, address) == state:
            return
        super().__setitem__(address, state)
        self._rank.setdefault(address, len(self._rank))
        self._changed.add(address)
        if state and state != IDLE:
            self._in_use.add(address)
        else:
            self._in_use.discard(address)

    def __delitem__(self, address: str) -> None:
        super().__delitem__(address)
        self._in_use.discard(address)
        self._changed.add(address)

    def update(self, *args: object, **kwargs: str) -> None:  # type: ignore[override]
        for address, state in dict(*args, **kwargs).items():  # type: ignore[arg-type]
            self[address] = state

    def clear(self) -> None:
        self._changed.update(self)
        self._in_use.clear()
        super().clear()

    def setdefault(self, address: str, state: str = IDLE) -> str:  # type: ignore[override]
        if address not in self:
            self[address] = state
        return dict.__getitem__(self, address)

    def pop(self, address: str, *default: str) -> str:  # type: ignore[override]
        if address not in self:
            return dict.pop(self, address, *default)
        state = dict.__getitem__(self, address)
        del self[address]
        return state

    def copy(self) -> ObjectStates:  # type: ignore[override]
        """The same states, with no changes taken yet."""
        other = ObjectStates()
        other.update(self)
        return other

    def in_use(self) -> list[tuple[str, str]]:
        """(address, state) of every object not idle, in the order the objects were added."""
        return [(a, dict.__getitem__(self, a)) for a in sorted(self._in_use, key=self._rank.__getitem__)]

    def take_changes(self) -> set[str]:
        """The addresses set to another state (or removed) since the last call."""
        changed, self._changed = self._changed, set()
        return changed


Tile = tuple[int, int]


# --------------------------------------------------------------------------- words

def _is_proper(name: str) -> bool:
    """A name ("Hobbs Cafe", "Klaus Mueller's room") or a street address ("2 Maple Street")."""
    return name[:1].isupper() or re.match(r"\d+ [A-Z]", name) is not None


def _last_word(name: str) -> str:
    words = name.lower().split()
    return words[-1] if words else ""


def _is_plural(name: str) -> bool:
    last = _last_word(name)
    return last.endswith("s") and not last.endswith(("ss", "us", "is"))


def _is_mass(name: str) -> bool:
    return _last_word(name) in ("seating", "equipment", "furniture", "water", "grass")


def _a(name: str) -> str:
    """'a coffee machine', 'an easel', 'bookshelves', 'cafe customer seating',
    'Klaus Mueller's room'."""
    if _is_proper(name) or name.lower().startswith("the ") or _is_plural(name) or _is_mass(name):
        return name
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def _the(name: str) -> str:
    """'the cafe', 'Hobbs Cafe', 'the Ville'."""
    if _is_proper(name) or name.lower().startswith("the "):
        return name
    return "the " + name


def _listing(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _there(place: str, things: list[str], plural_first: bool) -> str:
    verb = "are" if plural_first else "is"  # agrees with the first thing named
    return f"In {place} there {verb} {_listing(things)}."


# --------------------------------------------------------------------------- the town

class Town:
    """A loaded town. Build it with ``load_town`` (game/world/map_reader.py)."""

    def __init__(self) -> None:
        self.path: Path = Path()
        self.world: str = ""
        self.width = self.height = self.tile_size = 0
        self.walkable: np.ndarray = np.zeros((0, 0), dtype=bool)
        self.tree: dict[str, dict[str, list[str]]] = {}
        self.object_states = ObjectStates()
        self.spawns: dict[str, Tile] = {}
        self.tmx = None  # the pytmx.TiledMap (no images loaded)
        # Address table: index -> address; per-tile indices (int32, -1 = none).
        self._names: list[str] = []
        self._index: dict[str, int] = {}
        self.sector_ids: np.ndarray = np.zeros((0, 0), dtype=np.int32)
        self.arena_ids: np.ndarray = np.zeros((0, 0), dtype=np.int32)
        self.object_ids: np.ndarray = np.zeros((0, 0), dtype=np.int32)
        self.component: np.ndarray = np.zeros((0, 0), dtype=np.int32)  # reachability label, -1 blocked
        self._deep: list[list[int]] = []  # deepest address index per tile, as lists (fast scalar access)
        self._tiles: dict[str, list[Tile]] = {}
        self._use: dict[str, list[Tile]] = {}
        self._lower: dict[str, str] = {}

    def set_address_table(self, names: list[str], tiles: dict[str, list[Tile]], use: dict[str, list[Tile]],
                          sector_ids: np.ndarray, arena_ids: np.ndarray, object_ids: np.ndarray) -> None:
        """Take the address table the map reader built: every address in tree
        order, the tiles at each and the tiles to use it from, and per tile the
        index of its sector, arena and object address (-1: none)."""
        self._names = names
        self._index = {n: i for i, n in enumerate(names)}
        self._lower = {n.casefold(): n for n in names}
        self._tiles, self._use = tiles, use
        self.sector_ids, self.arena_ids, self.object_ids = sector_ids, arena_ids, object_ids
        deep = np.where(object_ids >= 0, object_ids, np.where(arena_ids >= 0, arena_ids, sector_ids))
        self._deep = deep.tolist()

    # ---- lookups ---------------------------------------------------------------
    def __contains__(self, address: object) -> bool:
        return isinstance(address, str) and (address == self.world or address in self._index)

    def _in(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def address_at(self, x: int, y: int) -> str | None:
        """The deepest address of a tile (``world:sector[:arena[:object]]``), or
        None outside every sector or outside the map."""
        if 0 <= x < self.width and 0 <= y < self.height:
            i = self._deep[y][x]
            if i >= 0:
                return self._names[i]
        return None

    def sector_at(self, x: int, y: int) -> str | None:
        """``world:sector`` of a tile, or None."""
        return self._names[self.sector_ids[y, x]] if self._in(x, y) and self.sector_ids[y, x] >= 0 else None

    def arena_at(self, x: int, y: int) -> str | None:
        """``world:sector:arena`` of a tile, or None (e.g. a doorway between arenas)."""
        return self._names[self.arena_ids[y, x]] if self._in(x, y) and self.arena_ids[y, x] >= 0 else None

    def object_at(self, x: int, y: int) -> str | None:
        """Full object address of a tile, or None."""
        return self._names[self.object_ids[y, x]] if self._in(x, y) and self.object_ids[y, x] >= 0 else None

    def tiles_of(self, address: str) -> list[Tile]:
        """Every tile (x, y) at an address of any level, the world included;
        ``[]`` for an unknown address."""
        if address == self.world:
            return [(x, y) for y in range(self.height) for x in range(self.width)]
        return list(self._tiles.get(address, ()))

    def use_tiles(self, address: str) -> list[Tile]:
        """Walkable tiles to stand on to use or be at an address (see the module
        docstring); ``[]`` for an unknown address."""
        if address == self.world:
            ys, xs = np.nonzero(self.walkable)
            return list(zip(xs.tolist(), ys.tolist()))
        return list(self._use.get(address, ()))

    def addresses(self) -> list[str]:
        """Every sector, arena and object address, in tree order."""
        out = []
        for sector, arenas in self.tree.items():
            out.append(f"{self.world}:{sector}")
            for arena, objects in arenas.items():
                out.append(f"{self.world}:{sector}:{arena}")
                out.extend(f"{self.world}:{sector}:{arena}:{o}" for o in objects)
        return out

    def sectors(self) -> list[str]:
        return [f"{self.world}:{s}" for s in self.tree]

    def arenas(self) -> list[str]:
        return [f"{self.world}:{s}:{a}" for s, arenas in self.tree.items() for a in arenas]

    def objects(self) -> list[str]:
        return list(self.object_states)

    def resolve(self, text: str) -> str | None:
        """A known address for a loosely written one (case, spaces around ':',
        the world prefix left out), or None."""
        if not isinstance(text, str):
            return None
        parts = [p.strip() for p in text.strip().split(":")]
        if parts and parts[0].casefold() != self.world.casefold():
            parts.insert(0, self.world)
        key = ":".join(parts).casefold()
        if key == self.world.casefold():
            return self.world
        return self._lower.get(key)

    def reachable(self, a: Tile, b: Tile) -> bool:
        """Whether one can walk from tile a to tile b (O(1))."""
        if not (self._in(*a) and self._in(*b)):
            return False
        ca = self.component[a[1], a[0]]
        return bool(ca >= 0 and ca == self.component[b[1], b[0]])

    # ---- object states ------------------------------------------------------------
    def state(self, address: str) -> str:
        """An object's state ("idle" unless set). KeyError for a non-object."""
        try:
            return self.object_states[address]
        except KeyError:
            raise KeyError(f"no object at address {address!r}") from None

    def set_state(self, address: str, state: str | None) -> None:
        """Set an object's state; None or "" means idle. KeyError for a non-object."""
        if address not in self.object_states:
            raise KeyError(f"no object at address {address!r}")
        state = (state or "").strip()
        self.object_states[address] = state or IDLE

    def reset_states(self) -> None:
        for k in self.object_states:
            self.object_states[k] = IDLE

    # ---- words ----------------------------------------------------------------------
    def _split(self, address: str) -> list[str]:
        if address != self.world and address not in self._index:
            raise KeyError(f"unknown address {address!r}")
        return address.split(":")[1:]

    def _object_phrase(self, sector: str, arena: str, obj: str) -> str:
        st = self.object_states.get(f"{self.world}:{sector}:{arena}:{obj}", IDLE)
        return _a(obj) if st == IDLE else f"{_a(obj)} ({st})"

    def _describe_arena(self, sector: str, arena: str) -> str:
        objects = self.tree[sector][arena]
        if not objects:
            return f"{_cap(_the(arena))} is empty."
        things = [self._object_phrase(sector, arena, o) for o in objects]
        return _there(_the(arena), things, _is_plural(objects[0]))

    def _describe_sector(self, sector: str) -> str:
        arenas = list(self.tree[sector])
        if not arenas:
            return f"{_cap(_the(sector))} has no rooms."
        lines = [_there(_the(sector), [_a(a) for a in arenas], _is_plural(arenas[0]))]
        lines += [self._describe_arena(sector, a) for a in arenas]
        return " ".join(lines)

    def describe(self, address: str | None = None) -> str:
        """Natural language for an address and everything under it (the whole
        world when None): "In Hobbs Cafe there is a cafe. In the cafe there is a
        coffee machine, a cafe counter and cafe customer seating." Objects not
        idle show their state in brackets. KeyError for an unknown address."""
        parts = self._split(address or self.world)
        if not parts:
            sectors = list(self.tree)
            head = _there(_the(self.world), [_the(s) if not _is_proper(s) else s for s in sectors], False)
            return "\n".join([head] + [self._describe_sector(s) for s in sectors])
        if len(parts) == 1:
            return self._describe_sector(parts[0])
        if len(parts) == 2:
            return self._describe_arena(parts[0], parts[1])
        sector, arena, obj = parts
        st = self.object_states.get(address or "", IDLE)
        return f"In {_the(arena)} of {_the(sector)} there is {_a(obj)}; it is {st}."

    # ---- checks ---------------------------------------------------------------------
    def problems(self) -> list[str]:
        """Contract rules that are not load errors: every arena and every
        object must be reachable from every spawn. One line per problem."""
        out = []
        comps = {name: int(self.component[y, x]) for name, (x, y) in self.spawns.items()}
        for address in self.addresses():
            if address.count(":") < 2:
                continue  # sectors: reachable if their arenas are
            tiles = self._use.get(address, ())
            have = {int(self.component[y, x]) for x, y in tiles}
            missing = sorted(n for n, c in comps.items() if c not in have)
            if missing:
                where = tiles[0] if tiles else self._tiles[address][0]
                who = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
                out.append(f"{self.path}: {address} (near tile {where}) cannot be reached from the spawn of {who}")
        return out

    def summary(self) -> str:
        n_arenas = sum(len(a) for a in self.tree.values())
        residents = [n for n in self.spawns if n != VISITOR]
        lines = [
            f"{self.path}: {self.world}",
            f"  size: {self.width} x {self.height} tiles of {self.tile_size} px, "
            f"{int(self.walkable.sum())} walkable",
            f"  {len(self.tree)} sectors, {n_arenas} arenas, {len(self.object_states)} objects",
            f"  spawns: {len(self.spawns)} ({len(residents)} residents"
            + (" + visitor)" if VISITOR in self.spawns else ", no visitor)"),
        ]
        for name, (x, y) in self.spawns.items():
            lines.append(f"    {name} at ({x}, {y}): {self.address_at(x, y) or 'outside every sector'}")
        return "\n".join(lines)
