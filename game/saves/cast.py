"""A saved town's residents: the one loader of the cast for every reader of a save or a
recording (loading a game, ``sim --resume``, ``fork``'s branches, ``evaluate`` and its
ablations, ``interview``, ``compare``, ``replay``).

A save keeps its residents' personas (its part ``session``, key ``personas``, each written
like an entry of residents.json; a recording's header keeps them too), so a town grown past
the scenario's (``--agents N``, agents/residents/townsfolk.py), a branch that removed a
generated resident, or one given a new resident, loads the same people from any of its saves:
a generated resident's home, job and description depend on the seed and on how many were
generated, and a branch's saves carry the branch's own seed. Saves from before they kept
personas regrow the generated residents from the save's seed, as they were made."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from agents import CastError, Persona, Scenario, grow_cast, load_cast, persona_data, read_personas
from game.world.map_reader import load_town
from game.world.town import Town

PERSONAS = "personas"  # the key of the residents' personas in a save's part 'session' and a recording's header


def personas_data(personas: Iterable[object]) -> list[dict]:
    """What a save and a recording keep of the residents: each persona as residents.json
    writes it (stand-ins that are no Persona are left out)."""
    return [persona_data(p) for p in personas if isinstance(p, Persona)]


def stored_personas(data: object, where: str = "the save", part: str = "its part 'session'") -> dict[str, Persona]:
    """The personas a save (or a recording) keeps, by name, every field checked: {} when it
    keeps none (older ones); CastError naming ``where`` and the ``part`` that holds them
    when they are damaged."""
    if not data:
        return {}
    try:
        return {p.name: p for p in read_personas(data, f"{where} is damaged: the residents' personas in {part}")}
    except RecursionError:
        raise CastError(f"{where} is damaged: the residents' personas in {part} are nested too deeply") from None


def saved_cast(map_path: str | Path, residents: Sequence[str], seed: int = 0, town: Town | None = None, *,
               stored: object = None, where: str = "the save",
               part: str = "its part 'session'") -> tuple[dict[str, Persona], Scenario]:
    """(personas by name, scenario) for the residents a save names: the save's own personas
    (``stored``, its part 'session''s "personas"), then the scenario's beside the map, then,
    for a save that keeps none, the residents ``seed`` generates on the map (``town``, the
    map already loaded, else read from ``map_path``). CastError naming the residents still
    unknown, or the damaged personas (``where`` names the save, ``part`` what holds them)."""
    map_path = Path(map_path)
    cast, scenario = load_cast(map_path.parent)
    kept = stored_personas(stored, where, part)
    personas = {**{p.name: p for p in cast}, **kept}
    unknown = [r for r in residents if r not in personas]
    if unknown and (town is not None or map_path.exists()):
        # An older save: as many generated residents as names the scenario lacks, from its seed
        town = town if town is not None else load_town(map_path)
        grown = grow_cast(cast, town.addresses(), len(cast) + len(unknown), int(seed or 0))
        personas.update({p.name: p for p in grown[len(cast):] if p.name not in kept})
        unknown = [r for r in residents if r not in personas]
    if unknown:
        raise CastError(f"residents this town does not know: {', '.join(unknown[:3])}"
                        + (f" and {len(unknown) - 3} more" if len(unknown) > 3 else "")
                        + f" (neither in {map_path.parent / 'residents.json'}, nor kept by {where}, "
                        f"nor generated from seed {seed})")
    return personas, scenario


__all__ = ["PERSONAS", "personas_data", "saved_cast", "stored_personas"]
