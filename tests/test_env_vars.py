"""SMALLVILLE_* environment variables that hold numbers (issue 25): read when they are
used, never at import, so a typo stops no command that does not need them, and one
that does stops with one line saying which variable, what it holds and what it should."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.engine.local_model import ENV_WHOLE_NUMBERS, env_number
from agents.model.config import load_config
from agents.support.errors import ConfigError

REPO = Path(__file__).resolve().parent.parent


def _smallville(args, tmp_path, **env):
    full = {**os.environ, "PYTHONPATH": str(REPO), "SMALLVILLE_HOME": str(tmp_path / "home"), **env}
    return subprocess.run([sys.executable, "-m", "smallville", *args], cwd=tmp_path, env=full,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name", sorted(ENV_WHOLE_NUMBERS))
@pytest.mark.parametrize("raw", ["4o96", "-3", "1.5", "lots"])
def test_a_bad_number_is_one_line_naming_the_variable_the_value_and_what_is_expected(name, raw):
    with pytest.raises(ConfigError) as err:
        env_number(name, 7, env={name: raw})
    msg = str(err.value)
    assert "\n" not in msg and name in msg and repr(raw) in msg and "whole number" in msg and "unset it" in msg
    assert env_number(name, 7, env={}) == 7 and env_number(name, 7, env={name: "  "}) == 7
    assert env_number(name, 7, env={name: " 4096 "}) == 4096
    with pytest.raises(ConfigError, match=name):  # the embedded model's config checks them up front
        load_config({}, env={name: raw}, toml_path=None)
    assert load_config({"model": "openai/m"}, env={name: raw}, toml_path=None).model == "openai/m"  # not its own


def test_a_typo_never_breaks_a_command_that_does_not_run_the_model(tmp_path):
    done = _smallville(["where"], tmp_path, SMALLVILLE_N_CTX="4o96", SMALLVILLE_N_THREADS="two")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_a_command_that_runs_the_embedded_model_stops_with_one_clear_line(tmp_path):
    done = _smallville(["sim", "--agents", "1", "--hours", "0.1", "--out", str(tmp_path / "run")], tmp_path,
                       SMALLVILLE_N_CTX="4o96")
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == ["smallville: environment SMALLVILLE_N_CTX='4o96': it must be a whole number of at least 256 "
                     "(the embedded model's context in tokens, like 4096); fix it or unset it"]
    assert not (tmp_path / "run").exists()


def test_the_embedded_model_reads_its_variables_when_an_instance_is_made(monkeypatch):
    from agents.engine.local_model import LocalModel

    monkeypatch.setenv("SMALLVILLE_N_CTX", "2048")
    monkeypatch.setenv("SMALLVILLE_N_THREADS", "2")
    m = LocalModel(engine="gbnf")
    assert (m.n_ctx, m.n_threads) == (2048, 2) and not m.loaded
    monkeypatch.setenv("SMALLVILLE_N_THREADS", "0")
    with pytest.raises(ConfigError, match="SMALLVILLE_N_THREADS='0'"):
        LocalModel(engine="gbnf")
