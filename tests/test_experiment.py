"""`smallville fork` and `smallville compare` (lab/experiment/): a control and a
treatment arm from one moment of a run, the same seeds in each, then the arms
side by side. The issue's experiment: Isabella (not Sam) hears "You are going to
run for mayor"; with the competent stand-in model her candidacy spreads in the
treatment arm and not in the control."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

import lab.competent  # noqa: F401 - registers scripted/competent
from agents.model.config import ModelConfig
from agents.model.gateway import Gateway
from agents.residents.persona import load_cast
from game.headless import run_headless
from game.world.map_reader import load_town
from lab.experiment import runners
from smallville.cli import main

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "maps" / "the_ville" / "the_ville.tmx"
CAST = ["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller", "Ayesha Khan", "Wolfgang Schulz", "Arthur Burton",
        "Sam Moore", "Jennifer Moore"]
WHISPER = ["--whisper", "Isabella Rodriguez", "You are going to run for mayor"]


@pytest.fixture(scope="module")
def base_run(tmp_path_factory):
    """Eight residents, 07:00-08:00 on the first day, the competent stand-in: a run
    folder with saves to fork from."""
    out = tmp_path_factory.mktemp("base") / "run"
    cast, scenario = load_cast(MAP.parent)
    gw = Gateway(ModelConfig(model="scripted/competent", embedding_cache=None))
    run_headless(load_town(MAP), [p for p in cast if p.name in CAST], start=scenario.start, hours=1, out=out,
                 scenario=scenario, gateway=gw, progress=False, echo=None, autosave_min=30)
    return out


def _news(exp: Path) -> dict[str, list[float]]:
    result = json.loads((exp / "comparison.json").read_text())
    return {arm: result["arms"][arm]["news_known_by"]["values"] for arm in ("control", "treatment")}


def _fork_and_compare(base: Path, exp: Path, hours: float, *extra: str) -> dict[str, list[float]]:
    code = main(["fork", str(base), "--at", "2023-02-13 08:00", "--hours", str(hours), "--branches", "2",
                 *WHISPER, "--out", str(exp), "--map", str(MAP), *extra])
    assert code == 0
    assert main(["compare", str(exp), "--map", str(MAP)]) == 0
    return _news(exp)


@pytest.mark.slow
def test_a_whispered_candidacy_spreads_in_the_treatment_arm_and_not_in_the_control(base_run, tmp_path, capsys):
    """The issue's experiment in full: 2 seeds per arm, 6 sim hours, 8 residents."""
    exp = tmp_path / "mayor"
    news = _fork_and_compare(base_run, exp, 6)
    assert len(news["treatment"]) == 2 and len(news["control"]) == 2
    assert all(n >= 1 for n in news["treatment"]), news
    assert news["control"] == [0.0, 0.0], news
    out = capsys.readouterr()
    assert "whispered news" in out.out and (exp / "comparison.png").exists() and (exp / "news.png").exists()


def test_fork_writes_one_run_per_arm_and_seed_and_compare_reports_each_arm(base_run, tmp_path, capsys):
    """A shorter experiment through the command: the manifest, the run folders, the
    whisper in the treatment's events only, the shared cache, the report."""
    exp = tmp_path / "short"
    news = _fork_and_compare(base_run, exp, 1)
    manifest = json.loads((exp / "manifest.json").read_text())
    assert sorted(manifest["branches"]) == ["control-seed0", "control-seed1", "treatment-seed0", "treatment-seed1"]
    assert manifest["arms"]["treatment"]["changes"][0]["name"] == "Isabella Rodriguez"
    assert (exp / "start.sqlite").exists() and (exp / "cache.sqlite").exists()
    for name, b in manifest["branches"].items():
        events = (exp / b["run"] / "events.jsonl").read_text()
        assert ('"inner_voice"' in events) == name.startswith("treatment")
        assert json.loads((exp / b["run"] / "summary.json").read_text())["seed"] == b["seed"]
    # The same seed in both arms starts from the same state: the treatment finds the control's answers cached.
    assert manifest["branches"]["treatment-seed0"]["cached"] > 0
    assert news["control"] == [0.0, 0.0]
    report = (exp / "comparison.md").read_text()
    for measure in ("relationship density", "repeat the previous one", "action entropy", "fallback replaced",
                    "rule repaired", "conversations per resident per sim day", "model-led share"):
        assert measure in report
    assert " ± " in report and (exp / "comparison.png").stat().st_size > 10_000


def test_fork_runs_on_from_the_newest_save_before_the_moment_asked(base_run, tmp_path):
    """No save at 08:20: the 08:00 one is run on to 08:20 once (the trunk), and every
    branch starts there."""
    exp = tmp_path / "trunk"
    assert main(["fork", str(base_run), "--at", "08:20", "--hours", "0.2", "--branches", "1", *WHISPER,
                 "--out", str(exp), "--map", str(MAP)]) == 0
    manifest = json.loads((exp / "manifest.json").read_text())
    assert manifest["at"] == "2023-02-13 08:20"
    assert json.loads((exp / "trunk" / "summary.json").read_text())["end"] == "2023-02-13 08:20"
    assert json.loads((exp / "runs" / "control-seed0" / "summary.json").read_text())["end"] == "2023-02-13 08:32"


def test_event_remove_and_add_persona_change_the_treatment_arm(base_run, tmp_path):
    cast, _ = load_cast(MAP.parent)
    newcomer = next(p for p in cast if p.name == "Giorgio Rossi")
    persona = tmp_path / "giorgio.json"
    persona.write_text(json.dumps({**newcomer.__dict__}))
    exp = tmp_path / "changes"
    stove = "<Isabella Rodriguez's apartment: main room: stove> is burning"
    assert main(["fork", str(base_run), "--hours", "0.2", "--branches", "1", "--event", stove,
                 "--remove", "Arthur", "--add-persona", str(persona), "--out", str(exp), "--map", str(MAP)]) == 0
    t = json.loads((exp / "runs" / "treatment-seed0" / "summary.json").read_text())
    c = json.loads((exp / "runs" / "control-seed0" / "summary.json").read_text())
    assert "Giorgio Rossi" in t["residents"] and "Arthur Burton" not in t["residents"]
    assert "Arthur Burton" in c["residents"] and "Giorgio Rossi" not in c["residents"]
    edits = [json.loads(x) for x in (exp / "runs" / "treatment-seed0" / "events.jsonl").read_text().splitlines()]
    assert any(e["kind"] == "edit" and "stove" in e["address"] and "burning" in e["text"] for e in edits)
    assert main(["compare", str(exp), "--map", str(MAP)]) == 0  # the added resident is measured too


@pytest.mark.parametrize("flags, message", [
    (["--whisper", "Nobody Here", "hi"], "no such resident at the branch point"),
    (["--whisper", "Isabella", "  "], "say what they hear"),
    (["--event", "<Hobbs Cafe: cafe: no such thing> is broken"], "No object at"),
    (["--remove", "Zed"], "no such resident"),
    ([], "give the treatment arm a change"),
    (WHISPER + ["--at", "2023-02-13 06:00"], "no save at or before it"),
    (WHISPER + ["--at", "yesterday"], "use the form"),
    (WHISPER + ["--branches", "0"], "--branches must be at least 1"),
])
def test_bad_fork_requests_are_refused_by_name_before_anything_runs(base_run, tmp_path, capsys, flags, message):
    exp = tmp_path / "bad"
    assert main(["fork", str(base_run), "--hours", "1", "--out", str(exp), "--map", str(MAP), *flags]) == 2
    assert message in capsys.readouterr().err
    assert not (exp / "manifest.json").exists()


def test_a_bad_persona_file_or_a_missing_source_is_refused(base_run, tmp_path, capsys):
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps({"name": "Solo"}))
    assert main(["fork", str(base_run), "--add-persona", str(bad), "--out", str(tmp_path / "x"),
                 "--map", str(MAP)]) == 2
    assert "should be a full name" in capsys.readouterr().err
    assert main(["fork", str(tmp_path / "nothing"), *WHISPER, "--map", str(MAP)]) == 2
    assert "no such run folder or save" in capsys.readouterr().err
    assert main(["compare", str(tmp_path)]) == 2
    assert "no manifest.json here" in capsys.readouterr().err


def test_fork_dry_run_prints_the_experiments_forecast_only(base_run, tmp_path, capsys):
    exp = tmp_path / "dry"
    assert main(["fork", str(base_run), *WHISPER, "--branches", "3", "--hours", "4", "--dry-run",
                 "--out", str(exp), "--map", str(MAP)]) == 0
    err = capsys.readouterr().err
    assert "forecast 6 branches: ~" in err and not exp.exists()


def test_a_branch_that_dies_runs_again_once_and_a_second_death_is_reported_by_name(tmp_path):
    deaths: dict[str, int] = {}

    def flaky(spec):
        deaths[spec["name"]] = deaths.get(spec["name"], 0) + 1
        if spec["name"] == "always" or deaths[spec["name"]] == 1:
            raise RuntimeError(f"{spec['name']} fell over")
        return {"name": spec["name"], "calls": 1, "wall_s": 0.1}

    said: list[str] = []
    specs = [{"name": n, "out": str(tmp_path / n)} for n in ("once", "always")]
    got = runners.run_here(specs, said.append, flaky)
    assert got["once"]["attempts"] == 2 and "error" not in got["once"]
    assert got["always"] == {"name": "always", "error": "RuntimeError: always fell over", "attempts": 2}
    assert deaths == {"once": 2, "always": 2}
    assert any("once: died" in s and "running it again" in s for s in said)


def test_local_worker_processes_retry_a_dead_branch_and_name_it(tmp_path):
    """--workers N: each branch a process; one that exits badly twice is reported, the
    others finish."""
    script = tmp_path / "branch.py"
    script.write_text(
        "import json, sys, pathlib\n"
        "p = pathlib.Path(sys.argv[1]); spec = json.loads(p.read_text())\n"
        "if spec['name'] == 'bad': print('the model server went away'); sys.exit(3)\n"
        "pathlib.Path(spec['out']).mkdir(parents=True, exist_ok=True)\n"
        "p.with_suffix('.result.json').write_text(json.dumps({'name': spec['name'], 'calls': 5, 'wall_s': 0.1}))\n")
    specs = [{"name": n, "out": str(tmp_path / "runs" / n)} for n in ("good", "bad", "fine")]
    said: list[str] = []
    got = runners.run_processes(specs, 2, tmp_path, said.append, command=[sys.executable, str(script)], poll_s=0.05)
    assert got["good"]["calls"] == 5 and got["fine"]["attempts"] == 1
    assert got["bad"]["attempts"] == 2 and "exit code 3" in got["bad"]["error"]
    assert "the model server went away" in got["bad"]["error"]
    assert (tmp_path / "logs" / "bad.log").exists()


@pytest.mark.slow
def test_fork_with_worker_processes_runs_the_real_branches(base_run, tmp_path):
    exp = tmp_path / "workers"
    assert main(["fork", str(base_run), *WHISPER, "--hours", "0.3", "--branches", "1", "--workers", "2",
                 "--out", str(exp), "--map", str(MAP)]) == 0
    manifest = json.loads((exp / "manifest.json").read_text())
    assert all(b["attempts"] == 1 and b["calls"] > 0 for b in manifest["branches"].values())
    assert (exp / "specs" / "treatment-seed0.json").exists()
    shutil.rmtree(exp)
