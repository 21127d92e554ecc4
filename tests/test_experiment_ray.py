"""`smallville fork --ray`: the branches as tasks on a Ray cluster, here a local
one started by the test (2 CPUs). Each task gets the branch point as bytes and
sends its run folder back; a branch that dies twice is reported by name."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from test_experiment import CAST, MAP, WHISPER, _fork_and_compare

from agents.model.config import ModelConfig
from agents.model.gateway import Gateway
from agents.residents.persona import load_cast
from game.headless import run_headless
from game.world.map_reader import load_town
from lab.experiment import runners
from smallville.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def local_ray():
    env = {k: os.environ[k] for k in ("SMALLVILLE_HOME", "HF_HUB_OFFLINE", "LITELLM_LOCAL_MODEL_COST_MAP")
           if k in os.environ}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": env})
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def base_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("base") / "run"
    cast, scenario = load_cast(MAP.parent)
    gw = Gateway(ModelConfig(model="scripted/competent", embedding_cache=None))
    run_headless(load_town(MAP), [p for p in cast if p.name in CAST], start=scenario.start, hours=1, out=out,
                 scenario=scenario, gateway=gw, progress=False, echo=None, autosave_min=None)
    return out


def test_fork_on_ray_gathers_every_branchs_run_folder(local_ray, base_run, tmp_path):
    exp = tmp_path / "ray"
    assert main(["fork", str(base_run), *WHISPER, "--hours", "0.25", "--branches", "1", "--ray", "auto",
                 "--out", str(exp), "--map", str(MAP)]) == 0
    manifest = json.loads((exp / "manifest.json").read_text())
    for name, b in manifest["branches"].items():
        assert b["attempts"] == 1 and b["calls"] > 0, b
        run = exp / b["run"]
        assert json.loads((run / "summary.json").read_text())["end"] == "2023-02-13 08:15"
        assert (run / "saves" / "end.sqlite").exists()
        assert ('"inner_voice"' in (run / "events.jsonl").read_text()) == name.startswith("treatment")


def test_a_branch_that_dies_twice_on_ray_is_reported_by_name(local_ray, tmp_path):
    broken = tmp_path / "start.sqlite"
    broken.write_bytes(b"this is not a save")
    spec = {"name": "treatment-seed7", "arm": "treatment", "seed": 7, "save": str(broken),
            "out": str(tmp_path / "runs" / "treatment-seed7"), "hours": 0.1, "map": str(MAP), "cache": None,
            "model": None, "changes": []}
    said: list[str] = []
    got = runners.run_ray([spec], "auto", said.append)
    assert got["treatment-seed7"]["attempts"] == 2 and got["treatment-seed7"]["error"]
    assert any("treatment-seed7: died on Ray" in s and "running it again" in s for s in said)
    assert not (tmp_path / "runs" / "treatment-seed7").exists()


@pytest.mark.slow
def test_the_whispered_candidacy_spreads_on_ray_too(local_ray, base_run, tmp_path):
    """The issue's experiment (2 seeds per arm, 6 sim hours) with every branch a Ray task."""
    news = _fork_and_compare(base_run, tmp_path / "mayor-ray", 6, "--ray", "auto")
    assert all(n >= 1 for n in news["treatment"]) and len(news["treatment"]) == 2, news
    assert news["control"] == [0.0, 0.0], news


def test_an_unreachable_cluster_is_a_clear_message(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ray, "is_initialized", lambda: False)

    def refuse(**kw):
        raise ConnectionError("Could not find any running Ray instance")

    monkeypatch.setattr(ray, "init", refuse)
    from game.support.errors import UserError

    with pytest.raises(UserError, match="--ray auto: cannot reach a Ray cluster there .*ray start --head"):
        runners.run_ray([], "auto", print)
