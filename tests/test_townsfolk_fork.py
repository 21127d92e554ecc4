"""A generated town survives a fork (issue 48, item 1): a town of 27 (`--agents 27`, two
generated residents) forked with a whisper to one generated resident and the other
removed, on another seed than the town's. Each branch is then read back as a user would:
`evaluate`, `interview`, `sim --resume`, `play --load`, `replay` and `compare`, every one
with the same people the branch ran (their saves keep them: game/saves/cast.py).
The commands run for real, on the competent stand-in."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents import grow_cast, load_cast
from game.saves.cast import saved_cast
from game.world.map_reader import load_town
from smallville.cli import main

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "maps" / "the_ville" / "the_ville.tmx"
MODEL = ["--model", "scripted/competent"]

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")


@pytest.fixture(scope="module")
def forked(tmp_path_factory):
    """(experiment folder, the 27 personas): a --agents 27 run on seed 4 (from 03:00, while
    the town sleeps: a short start), forked at 03:05 on seed 1 with a whisper to the last
    generated resident and the other removed."""
    tmp = tmp_path_factory.mktemp("forked")
    town = load_town(MAP)
    cast, _ = load_cast(MAP.parent)
    people = grow_cast(cast, town.addresses(), 27, seed=4)
    run = tmp / "run"
    assert main(["sim", "--agents", "27", "--seed", "4", "--hours", "0.1", "--autosave-min", "5",
                 "--start", "2023-02-13 03:00", "--out", str(run), "--map", str(MAP), *MODEL]) == 0
    exp = tmp / "fork"
    assert main(["fork", str(run), "--at", "03:05", "--hours", "0.05", "--branches", "1", "--seed", "1",
                 "--whisper", people[26].name, "You are going to open a bakery", "--remove", people[25].name,
                 "--out", str(exp), "--map", str(MAP)]) == 0
    return exp, people


def _branch(exp: Path, arm: str) -> Path:
    manifest = json.loads((exp / "manifest.json").read_text())
    return next(exp / b["run"] for b in manifest["branches"].values() if b["arm"] == arm)


def _residents(arm: str, people: list) -> list:
    return people if arm == "control" else [p for p in people if p.name != people[25].name]


@pytest.mark.parametrize("arm", ["control", "treatment"])
def test_a_branchs_save_keeps_its_people_and_evaluates(forked, arm, tmp_path):
    exp, people = forked
    run = _branch(exp, arm)
    assert main(["evaluate", str(run), "--no-interviews", "--out", str(tmp_path / "ev"), "--map", str(MAP)]) == 0
    from game.saves.cast import PERSONAS, stored_personas
    from game.saves.store import load_state

    parts, _ = load_state(run / "saves" / "end.sqlite")
    assert parts["session"]["seed"] == 1  # the branch's seed, not the town's 4
    kept = stored_personas(parts["session"][PERSONAS])
    assert [kept[n] for n in parts["session"]["residents"]] == _residents(arm, people)


def test_a_branch_evaluates_its_ablations(forked, tmp_path):
    exp, people = forked
    assert main(["evaluate", str(_branch(exp, "control")), "--ablations", "--agent", people[26].name, "--questions",
                 "1", "--out", str(tmp_path / "ablations"), "--map", str(MAP), *MODEL]) == 0


@pytest.mark.parametrize("arm", ["control", "treatment"])
def test_a_branch_resumes_and_is_interviewed_with_everyone(forked, arm, capsys):
    exp, people = forked
    run = _branch(exp, arm)
    generated = people[26].name
    assert main(["interview", "--load", str(run), "--agent", generated, "-q", "What do you do for work?",
                 *MODEL]) == 0
    assert main(["sim", "--resume", str(run), "--hours", "0.02", "--map", str(MAP), *MODEL]) == 0
    summary = json.loads((run / "summary.json").read_text())
    assert sorted(summary["residents"]) == sorted(p.name for p in _residents(arm, people))


def test_a_branch_loads_in_the_game_with_everyone(forked, tmp_path, monkeypatch):
    """A game started with the scenario's 25 loads the branch's 26, the generated resident
    dressed in the sheet it borrows."""
    exp, _people = forked
    run = _branch(exp, "treatment")
    monkeypatch.chdir(tmp_path)
    assert main(["play", str(MAP), "--headless", "--frames", "3", "--load", str(run / "saves" / "end.sqlite"),
                 "--visitor-name", "Alex", *MODEL]) == 0


def test_a_branch_replays_with_everyone(forked, tmp_path, monkeypatch):
    exp, people = forked
    run = _branch(exp, "treatment")
    from game.replay import app as replay_app

    seen = {}
    real_open = replay_app.open_replay

    def spy(rec, town, map_path, **kw):
        seen.update(kw.get("personas") or {})
        return real_open(rec, town, map_path, **kw)

    monkeypatch.setattr(replay_app, "open_replay", spy)
    assert main(["replay", str(run), "--gif", str(tmp_path / "r.gif"), "--to", "03:06", "--map", str(MAP)]) == 0
    assert [seen.get(p.name) for p in _residents("treatment", people)] == _residents("treatment", people)


def test_compare_measures_the_generated_residents(forked, monkeypatch):
    from lab.experiment import compare

    exp, people = forked
    seen: list[dict] = []
    real = compare.diffusion

    def spy(tg, personas, scenario, embedder):
        seen.append(dict(personas))
        return real(tg, personas, scenario, embedder)

    monkeypatch.setattr(compare, "diffusion", spy)
    assert main(["compare", str(exp)]) == 0
    assert len(seen) == 2 and all(s.get(people[26].name) == people[26] for s in seen)


def test_an_older_save_without_personas_still_regrows_from_its_seed():
    """Saves from before they kept personas: the generated residents from the save's seed."""
    town = load_town(MAP)
    cast, _ = load_cast(MAP.parent)
    people = grow_cast(cast, town.addresses(), 27, seed=4)
    names = [p.name for p in people]
    personas, _ = saved_cast(MAP, names, 4, town)
    assert [personas[n] for n in names] == people


def test_a_save_whose_kept_residents_are_damaged_is_refused_by_name(forked, tmp_path, monkeypatch, capsys):
    """A kept persona is data from a file: checked like residents.json, refused naming the
    part that holds it (a resident aged 500; one living where this map has nothing)."""
    from game.saves.cast import PERSONAS
    from game.saves.store import load_state, save_state

    exp, _people = forked
    good = _branch(exp, "treatment") / "saves" / "end.sqlite"
    parts, info = load_state(good)
    monkeypatch.chdir(tmp_path)
    for field, value, says in (("age", 500, "out of range"), ("home", "the Ville:Atlantis:deep", "Atlantis")):
        bad = json.loads(json.dumps(parts["session"], default=str))
        bad[PERSONAS][-1][field] = value
        path = tmp_path / f"{field}.sqlite"
        save_state(path, {**parts, "session": bad}, {**info.meta, "map_path": str(MAP)})
        assert main(["play", str(MAP), "--headless", "--frames", "1", "--load", str(path), "--visitor-name",
                     "Alex", *MODEL]) == 2
        err = capsys.readouterr().err
        assert says in err and "part 'session'" in err and "Traceback" not in err, err
    assert main(["evaluate", str(tmp_path / "age.sqlite"), "--no-interviews", "--out", str(tmp_path / "ev"),
                 "--map", str(MAP)]) == 2
    err = capsys.readouterr().err
    assert "out of range" in err and "part 'session'" in err, err
