"""A saved town's residents: the scenario's beside its map and, for a town grown past
them (``--agents N``, agents/residents/townsfolk.py), the generated ones, made again from the
save's seed. A save keeps only the names of its residents; the generator gives the
same residents for the same seed and number, so nothing more needs saving."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents import CastError, Persona, Scenario, grow_cast, load_cast
from game.world.map_reader import load_town


def saved_cast(map_path: str | Path, residents: Sequence[str], seed: int = 0,
               town: Any = None) -> tuple[dict[str, Persona], Scenario]:
    """(personas by name, scenario) for the residents a save names. Names the scenario
    lacks are looked for among the residents ``seed`` generates on the map (``town``, the
    map already loaded, else read from ``map_path``); CastError (naming them) when they
    are not there either."""
    map_path = Path(map_path)
    cast, scenario = load_cast(map_path.parent)
    personas = {p.name: p for p in cast}
    unknown = [r for r in residents if r not in personas]
    if unknown and (town is not None or map_path.exists()):
        town = town if town is not None else load_town(map_path)
        grown = grow_cast(cast, town.addresses(), len(cast) + len(unknown), int(seed or 0))
        personas.update({p.name: p for p in grown[len(cast):]})
        unknown = [r for r in residents if r not in personas]
    if unknown:
        raise CastError(f"residents this town does not know: {', '.join(unknown[:3])}"
                        + (f" and {len(unknown) - 3} more" if len(unknown) > 3 else "")
                        + f" (neither in {map_path.parent / 'residents.json'} nor generated from seed {seed})")
    return personas, scenario


__all__ = ["saved_cast"]
