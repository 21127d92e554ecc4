"""`smallville sim --resume` of a game's save (issue 48, item 2): a save with the visitor
in town and a resident the player played. A headless run has no player, so the town
goes on without one (the played resident back to its own mind, the visitor gone), on
either stepping; and a save that is not inside a run folder of `smallville sim` gets a
run folder of its own under runs/, never files written beside it."""
from __future__ import annotations

import json
from argparse import Namespace
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
PEOPLE = ["Maria Lopez", "Klaus Mueller", "Ayesha Khan"]

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")


def a_game_save(home: Path) -> Path:
    """A game's autosave, as the window writes it: the visitor Alex in town, Klaus played."""
    from fakes import HashEmbedder, make_gateway

    from agents.residents.persona import load_cast
    from game.runs.session import PlaySimulation, Session, build_parts
    from game.saves.saveload import capture
    from game.saves.series import autosave
    from game.world.map_reader import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    parts = build_parts(town, [p for p in cast if p.name in PEOPLE], scenario.start, scenario=scenario,
                        gateway=make_gateway(via_litellm=False), embedder=HashEmbedder(), seed=3, lockstep=True,
                        sim_class=PlaySimulation)
    session = Session(parts, visitor_name="Alex")
    try:
        for _ in range(6):
            session.sim.step()
        session.take_control("Klaus")
        session.sim.step()
        snap, meta = capture(session)
        return autosave(snap, meta, home / "saves").path
    finally:
        session.close()


@pytest.mark.parametrize("out_of_order", [True, False])
def test_a_game_save_resumes_headless_in_a_run_folder_of_its_own(tmp_path, monkeypatch, capsys, out_of_order):
    from fakes import HashEmbedder, make_gateway

    from game.headless import resume_sim
    from game.saves.store import load_state

    home = tmp_path / "home"
    monkeypatch.setenv("SMALLVILLE_HOME", str(home))
    save = a_game_save(home)
    beside = sorted(p.name for p in home.iterdir())
    said: list[str] = []
    args = Namespace(resume=str(save), hours=0.05, map=str(MAP), autosave_min=60, out=None, seed=0, agents=None,
                     residents=None, think_s=None, out_of_order=out_of_order)
    code = resume_sim(args, gateway=make_gateway(via_litellm=False), embedder=HashEmbedder(), progress=False,
                      echo=said.append)
    assert code == 0
    assert sorted(p.name for p in home.iterdir()) == sorted({*beside, "runs"})  # nothing beside the save
    (out,) = (home / "runs").iterdir()
    assert f"this run's folder is {out}" in capsys.readouterr().err
    assert any("Klaus Mueller is back to their own mind" in s for s in said)
    assert any("the visitor Alex left the town" in s for s in said)
    parts, _ = load_state(out / "saves" / "end.sqlite")  # the end save: resumable
    assert parts["sim"]["visitor"] is None and parts["sim"]["controlled"] is None
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stepping"]["mode"] == ("out-of-order" if out_of_order else "lockstep")
    assert summary["end"] > summary["resumed_at"]
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert any("played by the player" in e["text"] for e in events)  # the game's story so far comes first
    assert any(e["text"] == "is back to their own mind" for e in events)
    for name in ("recording.jsonl", "llm_calls.jsonl", "why.jsonl.gz", "timeline.md"):
        assert (out / name).exists(), name


def test_a_save_inside_a_run_folder_resumes_that_run(tmp_path):
    from game.headless import run_folder_of

    run = tmp_path / "run"
    (run / "saves" / "history").mkdir(parents=True)
    (run / "events.jsonl").write_text("")
    assert run_folder_of(run / "saves" / "end.sqlite") == run
    assert run_folder_of(run / "saves" / "history" / "autosave-2.sqlite") == run
    assert run_folder_of(tmp_path / "home" / "saves" / "autosave-1.sqlite") is None
