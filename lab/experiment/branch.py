"""One branch of an experiment: the branch point's save, one arm's changes, one
seed, run headless for the experiment's hours into its own run folder.

A branch is described by a plain dict (a *spec*, JSON-able, so it travels to a
child process or a Ray task unchanged)::

    {"name": "treatment-seed1", "arm": "treatment", "seed": 1, "save": ".../start.sqlite",
     "out": ".../runs/treatment-seed1", "hours": 6, "map": ".../the_ville.tmx",
     "cache": ".../cache.sqlite", "model": null,
     "changes": [{"kind": "whisper", "name": "Isabella Rodriguez", "text": "You are going to run for mayor"}]}

Kinds of change: ``whisper`` (the resident's inner voice, as the inspector's and
``smallville interview --whisper``), ``event`` (an object's state, as the
console's ``<address> is <state>``), ``remove`` (a resident leaves the town),
``add_persona`` (a new resident, from a persona written like an entry of
residents.json), and the arm's ``model``.

    python -m lab.experiment.branch SPEC.json      # what `smallville fork --workers N` starts
"""
from __future__ import annotations

import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

import lab.competent  # noqa: F401 - registers scripted/competent in a branch's own process, as the command does
from agents import (
    CastError,
    ConfigError,
    Gateway,
    Mind,
    Persona,
    load_config_for_saved,
    load_residents,
    make_embedder,
)
from game.headless import run_headless
from game.runs.forecast import Ceiling
from game.saves.cast import PERSONAS, saved_cast
from game.saves.store import load_state
from game.support.errors import UserError
from game.support.logs import setup_logging
from game.world.map_reader import load_town

log = logging.getLogger(__name__)

KINDS = ("whisper", "event", "remove", "add_persona")


def read_persona(path: str | Path) -> Persona:
    """One resident from a JSON file: an object written like an entry of residents.json
    (or a list of one). CastError naming the file and the field when it is not."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise CastError(f"--add-persona {p}: cannot read it ({err})") from None
    items = data if isinstance(data, list) else [data]
    if len(items) != 1:
        raise CastError(f"--add-persona {p}: give one resident per file (it holds {len(items)})")
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / p.name
        one.write_text(json.dumps(items), encoding="utf-8")  # the cast's own reader checks every field
        try:
            return load_residents(one)[0]
        except CastError as err:
            raise CastError(str(err).replace(str(one), str(p))) from None


def parse_event(text: str, town: Any) -> tuple[str, str]:
    """``"<address> is <state>"`` -> (object address, state), with the console's parser;
    UserError with its message (and close matches) when the address is not an object."""
    from game.view.console import parse  # lazy: the console's parser lives in a view module (pygame)

    cmd = parse(text, town)
    if cmd.kind != "set" or not cmd.address or not cmd.state:
        why = cmd.message or 'use the form "<sector: arena: object> is <state>"'
        raise UserError(f"--event {text!r}: {why}")
    return cmd.address, cmd.state


def edit_cast(parts: dict[str, Any], changes: list[dict], cast: dict[str, Persona], gateway: Any,
              embedder: Any) -> list[str]:
    """Remove and add residents in a save's parts (before it is loaded); the new list of names."""
    sess = dict(parts.get("session") or {})
    names = list(sess.get("residents") or [k[6:] for k in parts if k.startswith("minds/")])
    for ch in changes:
        if ch["kind"] == "remove":
            if ch["name"] not in names:
                raise UserError(f"--remove {ch['name']!r}: not a resident of this save ({', '.join(names)})")
            names.remove(ch["name"])
            parts.pop(f"minds/{ch['name']}", None)
        elif ch["kind"] == "add_persona":
            persona = Persona(**ch["persona"])
            if persona.name in names:
                raise UserError(f"--add-persona: {persona.name} already lives in this town")
            cast[persona.name] = persona
            names.append(persona.name)
            parts[f"minds/{persona.name}"] = Mind(persona, gateway, embedder).to_state()  # new: seeds itself
    sess["residents"] = names
    parts["session"] = sess
    return names


def apply_live(parts: Any, changes: list[dict], seed: int) -> None:
    """The arm's changes to the loaded town, before its first step: the branch's seed,
    whispers (the resident replans around them) and object states."""
    sim = parts.sim
    sim.seed = seed  # the residents' random picks (movement.pick) follow it
    for ch in changes:
        if ch["kind"] == "whisper":
            mind = sim.minds.get(ch["name"])
            if mind is None:
                raise UserError(f"--whisper {ch['name']!r}: not a resident of this branch")
            thought = mind.inner_voice(ch["text"], sim.now)
            sim.prompt_decision(ch["name"])
            body = sim.bodies.get(ch["name"])
            sim.log_event(ch["name"], "inner_voice", thought, sim.area(body.tile) if body is not None else "")
        elif ch["kind"] == "event":
            address, state = parse_event(ch["text"], sim.town)
            sim.set_object_state(address, state, by="the experiment")


def run_branch(spec: dict, *, embedder: Any = None, progress: bool = False) -> dict:
    """Run one branch; a small dict of what came of it (its run folder, totals, wall time)."""
    map_path = Path(spec["map"])
    town = load_town(map_path)
    parts, info = load_state(Path(spec["save"]), expect_map=town, require=("sim", "session"))
    sess = parts.get("session") or {}
    names = list(sess.get("residents") or [k[6:] for k in parts if k.startswith("minds/")])
    try:  # the residents the branch point keeps (the branch's saves keep them in turn: every save loads them)
        cast, scenario = saved_cast(map_path, names, int(sess.get("seed") or 0), town, stored=sess.get(PERSONAS),
                                    where=str(spec["save"]))
    except CastError as err:
        raise UserError(str(err)) from None
    given = {"cache": spec.get("cache"), "seed": int(spec["seed"])}
    if spec.get("model"):
        given["model"] = spec["model"]
    try:
        config, _note = load_config_for_saved(dict(parts.get("config") or {}), {k: v for k, v in given.items()
                                                                                 if v is not None},
                                              suggest=("model", "temperature", "planning"))  # never budget: the user's
    except ConfigError as err:
        raise UserError(str(err)) from None
    ceiling = None
    if spec.get("max_cost") is not None or spec.get("max_tokens") is not None:
        ceiling = Ceiling(max_cost=spec.get("max_cost"), max_tokens=spec.get("max_tokens"))
    gateway = Gateway(config)
    embedder = embedder or make_embedder(config)
    changes = list(spec.get("changes") or [])
    names = edit_cast(parts, changes, cast, gateway, embedder)
    personas = [cast[n] for n in names]
    result = run_headless(
        town, personas, start=scenario.start, hours=float(spec["hours"]), out=spec["out"], scenario=scenario,
        config=config, gateway=gateway, embedder=embedder, seed=int(spec["seed"]), progress=progress, echo=None,
        resume=(parts, info), autosave_min=None, ceiling=ceiling,
        on_start=lambda p: apply_live(p, changes, int(spec["seed"])),
    )
    own = own_calls(Path(result.files["llm_calls"]))
    return {"name": spec["name"], "run": str(result.out), **own, "wall_s": result.summary["wall_s"],
            "end": result.summary["end"], "interrupted": result.interrupted, "stopped": result.summary.get("stopped")}


def own_calls(path: Path) -> dict[str, int]:
    """The branch's own model calls (its llm_calls.jsonl; the save's totals include the trunk's)."""
    calls = tokens = cached = 0
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        try:
            c = json.loads(line)
        except ValueError:
            continue
        calls += 1
        tokens += int(c.get("prompt_tokens", 0) or 0) + int(c.get("completion_tokens", 0) or 0)
        cached += bool(c.get("cached"))
    return {"calls": calls, "tokens": tokens, "cached": cached}


def main(argv: list[str] | None = None) -> int:
    """A child process's entry: run the branch in SPEC.json, write its result beside it."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m lab.experiment.branch SPEC.json", file=sys.stderr)
        return 2
    setup_logging()
    spec_path = Path(argv[0])
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    try:
        res = run_branch(spec)
    except UserError as err:
        print(f"branch {spec.get('name')}: {err}", file=sys.stderr)
        return 2
    spec_path.with_suffix(".result.json").write_text(json.dumps(res), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
