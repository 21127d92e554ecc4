"""Keys and money (issue 35): a settings file found in the working folder, or a
stranger's save or run folder, never decides where the user's key goes, nor lifts
the spending cap.

Two loopback servers record the Authorization header of every request: the
stranger's (named by the save, or by the settings file) and the user's own. The
user's server listens on 127.0.0.2: loopback, but not "local" to the game, so the
model there counts as a hosted one (a budget of 300 calls per resident per day by
default), as a paid API would."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from fakes import HashEmbedder, chatty, make_gateway

from agents.model import config as agents_config
from agents.model.config import HOSTED_BUDGET, load_config

REPO = Path(__file__).resolve().parent.parent
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
KEY = "sk-user-key-not-for-strangers-0123456789"
needs_map = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")


@pytest.fixture
def servers():
    stranger = FakeOpenAI("stranger")
    mine = FakeOpenAI("mine", host="127.0.0.2")
    yield stranger, mine
    stranger.kill()
    mine.kill()


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch):
    monkeypatch.setattr(agents_config, "_warned_endpoints", set())


# ------------------------------------------------------------------ settings files in the working folder

def _router_yaml(folder: Path, base: str) -> Path:
    y = folder / "r.yaml"
    y.write_text(f"model_list:\n  - model_name: town\n    litellm_params: {{model: openai/m, api_base: '{base}'}}\n")
    return y


@pytest.mark.parametrize("form", ["router", "models", "api_base", "model string"])
def test_a_working_folder_settings_file_that_sends_the_key_elsewhere_warns_in_every_form(
        tmp_path, monkeypatch, capsys, form):
    base = "http://127.0.0.1:9/v1"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path / "home"))
    body = {"router": f'router = "{_router_yaml(tmp_path, base).name}"\n',
            "models": f'[[models]]\nmodel = "openai/m"\napi_base = "{base}"\n',
            "api_base": f'model = "openai/m"\napi_base = "{base}"\n',
            "model string": f'model = "{base}/m"\n'}[form]
    (tmp_path / "smallville.toml").write_text(body)
    load_config(env={"OPENAI_API_KEY": KEY})
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "127.0.0.1:9" in err and "OPENAI_API_KEY" in err, err
    assert KEY not in err


def test_the_warnings_advice_works_the_users_api_base_replaces_the_files_servers(tmp_path, monkeypatch, capsys,
                                                                                 servers):
    """[[models]] in a downloaded folder: the user passes --api-base, as the warning
    says, and the calls (and the key) go to the user's server only."""
    from pydantic import BaseModel

    from agents.model.gateway import Gateway

    class Say(BaseModel):
        text: str

    stranger, mine = servers
    monkeypatch.chdir(tmp_path)
    (tmp_path / "smallville.toml").write_text(f'[[models]]\nmodel = "openai/m"\napi_base = "{stranger.api_base}"\n')
    env = {"OPENAI_API_KEY": KEY}
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert [d.api_base for d in load_config(env=env).deployments] == [stranger.api_base]  # the file alone
    assert "--api-base" in capsys.readouterr().err
    cfg = load_config({"api_base": mine.api_base, "model": "openai/m"}, env=env)
    assert not cfg.deployments and cfg.api_base == mine.api_base
    gw = Gateway(cfg.with_(cache=None, timeout=10.0, retries=0))
    value, why = gw.ask_traced(Say, "hi", purpose="t", fallback=Say(text="F"))
    assert why is None and value.text == "hello from mine"
    assert stranger.keys == [] and mine.keys == [f"Bearer {KEY}"]


def test_a_router_yaml_from_the_user_replaces_the_files_models(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "smallville.toml").write_text('[[models]]\nmodel = "openai/m"\napi_base = "http://127.0.0.1:9/v1"\n')
    mine = tmp_path / "mine"
    mine.mkdir()
    cfg = load_config({"router": str(_router_yaml(mine, "http://127.0.0.2:8/v1"))}, env={})
    assert [d.api_base for d in cfg.deployments] == ["http://127.0.0.2:8/v1"]


def test_a_real_process_warns_of_a_router_yaml_in_the_working_folder(tmp_path):
    """``smallville sim --dry-run`` in a downloaded folder whose smallville.toml names a
    router YAML: the warning is on the terminal before anything is sent."""
    (tmp_path / "smallville.toml").write_text('router = "r.yaml"\n')
    _router_yaml(tmp_path, "http://127.0.0.1:9/v1")
    env = {**_clean_env(), "OPENAI_API_KEY": KEY, "SMALLVILLE_HOME": str(tmp_path / "home")}
    proc = subprocess.run([sys.executable, "-m", "smallville", "sim", "--dry-run", "--hours", "1", "--agents", "1"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "warning:" in proc.stderr and "127.0.0.1:9" in proc.stderr and "r.yaml" not in proc.stderr.split(
        "warning:")[0]


def _clean_env() -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("SMALLVILLE_") and "API_KEY" not in k}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


# ------------------------------------------------------------------ a stranger's save and run folder

@pytest.fixture(scope="module")
def _made_run(tmp_path_factory):
    """A run folder of two residents; its saves then say what a stranger's would: their
    paid model on their own server, with the spending cap off (budget 0)."""
    if not MAP.exists():
        pytest.skip("the Ville's map is not built")
    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.world.map_reader import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    out = tmp_path_factory.mktemp("stranger") / "run"
    run_headless(town, cast[:2], start=scenario.start, hours=0.1, out=out, scenario=scenario,
                 gateway=make_gateway(chatty), embedder=HashEmbedder(), progress=False, echo=None, autosave_min=0)
    return out


@pytest.fixture
def strangers_run(_made_run, tmp_path, servers):
    from game.saves.store import load_state, save_state

    stranger, _mine = servers
    run = tmp_path / "run"
    shutil.copytree(_made_run, run)
    for path in (run / "saves").glob("*.sqlite"):
        parts, info = load_state(path)
        parts["config"] = {**parts["config"], "model": "openai/gpt-4o-mini", "api_base": stranger.api_base,
                           "budget": 0, "grounded": "on"}
        save_state(path, parts, dict(info.meta))
    return run


@pytest.fixture
def user_env(monkeypatch, tmp_path, servers):
    """The user: a key, their own model on their own (hosted-looking) server, no budget set."""
    _stranger, mine = servers
    for k in [k for k in __import__("os").environ if k.startswith("SMALLVILLE_") and k != "SMALLVILLE_HOME"]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("SMALLVILLE_MODEL", "openai/mine")
    monkeypatch.setenv("SMALLVILLE_API_BASE", mine.api_base)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)  # no smallville.toml of the checkout's


def _end_config(run: Path) -> dict:
    from game.saves.store import load_state

    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    parts, _ = load_state(Path(summary["save"]))
    return parts["config"]


@needs_map
def test_sim_resume_of_a_strangers_run_keeps_the_key_home_and_the_cap_on(strangers_run, user_env, servers):
    from game.headless import resume_sim

    stranger, mine = servers
    args = Namespace(resume=str(strangers_run), hours=0.5, map=str(MAP), autosave_min=0, model=None, api_base=None,
                     concurrency=None, cache=None, seed=0, agents=None, residents=None, router=None,
                     grounded=None, planning=None, budget=None, max_cost=None, max_tokens=None, think_s=None)
    assert resume_sim(args, embedder=HashEmbedder(), progress=False, echo=None) == 0
    assert stranger.keys == [] and mine.keys and set(mine.keys) == {f"Bearer {KEY}"}
    cfg = _end_config(strangers_run)
    assert cfg["model"] == "openai/mine" and cfg["budget"] == HOSTED_BUDGET  # not the save's 0 (off)


@needs_map
def test_sim_resume_keeps_the_users_grounded_and_budget_flags(strangers_run, user_env, servers):
    from game.headless import resume_sim

    args = Namespace(resume=str(strangers_run), hours=0.02, map=str(MAP), autosave_min=0, model=None, api_base=None,
                     concurrency=None, cache=None, seed=0, agents=None, residents=None, router=None,
                     grounded="on", planning=None, budget=7, max_cost=None, max_tokens=None, think_s=None)
    assert resume_sim(args, embedder=HashEmbedder(), progress=False, echo=None) == 0
    cfg = _end_config(strangers_run)
    assert cfg["grounded"] == "on" and cfg["budget"] == 7  # a hosted model: off unless asked


@needs_map
def test_fork_of_a_strangers_save_keeps_the_key_home_and_the_cap_on(strangers_run, user_env, servers, tmp_path):
    from lab.experiment.branch import run_branch

    stranger, mine = servers
    spec = {"name": "control-seed0", "arm": "control", "seed": 0, "save": str(strangers_run / "saves" / "end.sqlite"),
            "out": str(tmp_path / "fork" / "control-seed0"), "hours": 0.5, "map": str(MAP), "cache": None,
            "model": None, "changes": [], "max_cost": None, "max_tokens": None}
    got = run_branch(spec, embedder=HashEmbedder())
    assert not got["interrupted"]
    assert stranger.keys == [] and mine.keys and set(mine.keys) == {f"Bearer {KEY}"}
    cfg = _end_config(Path(got["run"]))
    assert cfg["model"] == "openai/mine" and cfg["budget"] == HOSTED_BUDGET


@needs_map
def test_evaluate_of_a_strangers_run_keeps_the_key_home(strangers_run, user_env, servers, tmp_path):
    from lab.evaluate.command import main_evaluate

    stranger, mine = servers
    args = Namespace(target=str(strangers_run), out=str(tmp_path / "eval"), no_interviews=False, judge="rule",
                     battery=False, factual=False, agent=None, map=str(MAP), model=None, api_base=None,
                     concurrency=None, router=None, cache=None, planning=None, grounded=None, budget=None)
    assert main_evaluate(args, embedder=HashEmbedder(), echo=None) == 0
    assert stranger.keys == [] and mine.keys and set(mine.keys) == {f"Bearer {KEY}"}


@needs_map
def test_interview_of_a_strangers_run_keeps_the_key_home(strangers_run, user_env, servers):
    import io

    from game.interview_cli import main_interview

    stranger, mine = servers
    args = Namespace(load=str(strangers_run), agent="Isabella", as_="a news reporter", question=["How are you?"],
                     out=None, remember=False, whisper=None, map=str(MAP), model=None, api_base=None,
                     concurrency=None, router=None, cache=None, planning=None, grounded=None, budget=None)
    assert main_interview(args, embedder=HashEmbedder(), stdout=io.StringIO()) == 0
    assert stranger.keys == [] and mine.keys and set(mine.keys) == {f"Bearer {KEY}"}


def test_the_model_flags_of_every_command_reach_the_configuration():
    """--router and --grounded were dropped on the way by resume, evaluate and interview."""
    from agents.model.config import model_flags
    from smallville.cli import build_parser

    for command in (["sim", "--resume", "x"], ["evaluate", "x"], ["interview", "--load", "x", "--agent", "a"]):
        args = build_parser().parse_args([*command, "--router", "r.yaml", "--grounded", "off", "--budget", "5"])
        assert model_flags(args) == {"router": "r.yaml", "grounded": "off", "budget": 5}, command


@needs_map
def test_resume_and_fork_stop_at_the_users_token_ceiling(strangers_run, user_env, servers, tmp_path):
    """--max-tokens is the user's, on --resume and on fork's branches: the run stops there
    with an end save, whatever the save held."""
    from game.headless import resume_sim
    from lab.experiment.branch import run_branch

    args = Namespace(resume=str(strangers_run), hours=2.0, map=str(MAP), autosave_min=0, model=None, api_base=None,
                     concurrency=None, cache=None, seed=0, agents=None, residents=None, router=None,
                     grounded=None, planning=None, budget=None, max_cost=None, max_tokens=30, think_s=None)
    assert resume_sim(args, embedder=HashEmbedder(), progress=False, echo=None) == 0
    summary = json.loads((strangers_run / "summary.json").read_text(encoding="utf-8"))
    assert "token ceiling (30)" in (summary.get("stopped") or ""), summary.get("stopped")
    spec = {"name": "control-seed0", "arm": "control", "seed": 0, "save": str(strangers_run / "saves" / "end.sqlite"),
            "out": str(tmp_path / "fork" / "control-seed0"), "hours": 2.0, "map": str(MAP), "cache": None,
            "model": None, "changes": [], "max_cost": None, "max_tokens": 30}
    got = run_branch(spec, embedder=HashEmbedder())
    assert "token ceiling (30)" in (got.get("stopped") or ""), got
