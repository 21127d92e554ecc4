"""Residents and the scenario, read from a town folder (residents.json, scenario.json)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path


class CastError(ValueError):
    """A bad residents.json or scenario.json; the message names file, resident and field."""


@dataclass
class Persona:
    name: str
    age: int
    traits: str
    description: str  # one paragraph, semicolon-separated; each phrase is a first memory
    home: str  # address of the arena they sleep in
    workplace: str  # address of the arena they work or study in
    wake_hour: int = 7
    # Extra arena addresses known from the start (own bathroom, kitchen, haunts).
    places: list[str] = field(default_factory=list)
    # The character sheet it wears, by slug; "" is its own (a generated resident borrows one).
    sprite: str = ""

    @property
    def first_name(self) -> str:
        return self.name.split()[0]

    @property
    def slug(self) -> str:
        return self.name.lower().replace(" ", "_")

    @property
    def phrases(self) -> list[str]:
        return [p.strip() for p in self.description.split(";") if p.strip()]


@dataclass
class Scenario:
    start: datetime
    seeds: list[tuple[str, str, int]] = field(default_factory=list)  # (resident, thought, importance)


def _need(d: dict, key: str, kind, where: str):
    if key not in d:
        raise CastError(f"{where}: missing field {key!r}")
    v = d[key]
    if not isinstance(v, kind) or isinstance(v, bool):
        raise CastError(f"{where}: field {key!r} should be {getattr(kind, '__name__', kind)}, got {v!r}")
    return v


def _address(v: str, where: str, key: str) -> str:
    parts = v.split(":")
    if len(parts) != 3 or not all(p.strip() for p in parts):
        raise CastError(f"{where}: field {key!r} must be an arena address world:sector:arena, got {v!r}")
    return v


def load_residents(path: Path) -> list[Persona]:
    """The residents of a town folder's residents.json; CastError names what is wrong."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise CastError(f"{path}: cannot read residents: {e}") from e
    return read_personas(data, str(path))


def persona_data(p: Persona) -> dict:
    """A resident as residents.json writes it (what a save keeps of its residents)."""
    return {"name": p.name, "age": p.age, "traits": p.traits, "description": p.description, "home": p.home,
            "workplace": p.workplace, "wake_hour": p.wake_hour, "places": list(p.places), "sprite": p.sprite}


def read_personas(data: object, path: str) -> list[Persona]:
    """Residents from a list written like residents.json (the file's, or a save's), every
    field checked; CastError naming ``path`` (where the list came from), the resident and the field."""
    if not isinstance(data, list) or not data:
        raise CastError(f"{path}: expected a non-empty list of residents")
    out, seen = [], set()
    for i, d in enumerate(data):
        where = f"{path}: resident {i + 1}"
        if not isinstance(d, dict):
            raise CastError(f"{where}: expected an object")
        name = _need(d, "name", str, where).strip()
        where = f"{path}: resident {name!r}"
        if len(name.split()) < 2:
            raise CastError(f"{where}: field 'name' should be a full name")
        if name in seen:
            raise CastError(f"{where}: listed twice")
        seen.add(name)
        age = _need(d, "age", int, where)
        if not 0 < age < 120:
            raise CastError(f"{where}: field 'age' out of range: {age}")
        wake = d.get("wake_hour", 7)
        if not isinstance(wake, int) or isinstance(wake, bool) or not 3 <= wake <= 11:
            raise CastError(f"{where}: field 'wake_hour' should be an hour 3-11, got {wake!r}")
        places = d.get("places", [])
        if not isinstance(places, list) or not all(isinstance(p, str) for p in places):
            raise CastError(f"{where}: field 'places' should be a list of addresses")
        sprite = d.get("sprite", "")
        if not isinstance(sprite, str):
            raise CastError(f"{where}: field 'sprite' should be a sheet's name such as 'maria_lopez', got {sprite!r}")
        desc = _need(d, "description", str, where)
        if not any(p.strip() for p in desc.split(";")):
            raise CastError(f"{where}: field 'description' is empty")
        out.append(
            Persona(
                name=name,
                age=age,
                traits=_need(d, "traits", str, where),
                description=desc,
                home=_address(_need(d, "home", str, where), where, "home"),
                workplace=_address(_need(d, "workplace", str, where), where, "workplace"),
                wake_hour=wake,
                places=[_address(p, where, "places") for p in places],
                sprite=sprite.strip(),
            )
        )
    return out


def load_scenario(path: Path, names: set[str]) -> Scenario:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise CastError(f"{path}: cannot read scenario: {e}") from e
    if not isinstance(data, dict):
        raise CastError(f"{path}: expected an object")
    try:
        start = datetime.strptime(_need(data, "start", str, str(path)), "%Y-%m-%d %H:%M")
    except ValueError as e:
        raise CastError(f"{path}: field 'start' should look like '2023-02-13 07:00': {e}") from e
    seeds = []
    for i, s in enumerate(data.get("seeds", [])):
        where = f"{path}: seed {i + 1}"
        if not isinstance(s, dict):
            raise CastError(f"{where}: expected an object")
        who = _need(s, "resident", str, where)
        if who not in names:
            raise CastError(f"{where}: field 'resident' names no resident: {who!r}")
        imp = s.get("importance", 8)
        if not isinstance(imp, int) or not 1 <= imp <= 10:
            raise CastError(f"{where}: field 'importance' should be 1-10, got {imp!r}")
        seeds.append((who, _need(s, "thought", str, where), imp))
    return Scenario(start=start, seeds=seeds)


def load_cast(folder) -> tuple[list[Persona], Scenario]:
    """The residents in scenario order (best-connected first) and the scenario."""
    folder = Path(folder)
    cast = load_residents(folder / "residents.json")
    return cast, load_scenario(folder / "scenario.json", {p.name for p in cast})
