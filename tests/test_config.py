"""Model configuration: flags beat environment beat smallville.toml beat defaults."""
from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from agents.model import config
from agents.model.config import EMBEDDED_MODEL, ModelConfig, load_config
from agents.support.errors import ConfigError


def test_defaults_are_the_embedded_model(tmp_path):
    cfg = load_config(env={}, toml_path=tmp_path / "absent.toml")
    assert cfg.model == EMBEDDED_MODEL == "smallville/smollm2-135m"
    assert cfg.is_embedded and cfg.concurrency == 2 and cfg.api_base is None and cfg.cache is None
    assert cfg.embedding_model == "all-MiniLM-L6-v2"


def test_hosted_models_default_to_more_concurrency():
    assert ModelConfig(model="gpt-4o-mini").concurrency == 8
    assert ModelConfig(model="ollama/qwen2.5:7b").provider == "ollama"


def test_precedence_flags_env_toml_defaults(tmp_path):
    toml = tmp_path / "smallville.toml"
    toml.write_text(
        'model = "ollama/qwen2.5:7b"\napi_base = "http://toml:11434"\nconcurrency = 3\n'
        'cache = "toml.sqlite"\ntemperature = 0.2\n'
    )
    env = {"SMALLVILLE_MODEL": "gpt-4o-mini", "SMALLVILLE_CONCURRENCY": "5", "SMALLVILLE_CACHE": "env.sqlite"}
    cfg = load_config({"model": "openai/my-model", "api_base": None, "concurrency": None}, env=env, toml_path=toml)
    assert cfg.model == "openai/my-model"  # flag
    assert cfg.concurrency == 5  # env beats toml
    assert cfg.cache == "env.sqlite"
    assert cfg.api_base == "http://toml:11434"  # only the toml says it
    assert cfg.temperature == 0.2
    only_toml = load_config(None, env={}, toml_path=toml)
    assert only_toml.model == "ollama/qwen2.5:7b" and only_toml.concurrency == 3


def test_argparse_namespace_and_model_table(tmp_path):
    toml = tmp_path / "s.toml"
    toml.write_text('[model]\nmodel = "gpt-4o-mini"\nembedding_model = "text-embedding-3-small"\n')
    ns = argparse.Namespace(model=None, api_base="http://localhost:8000/v1", concurrency=4, cache=None, agents=3)
    cfg = load_config(ns, env={"SMALLVILLE_EMBEDDING_MODEL": "ollama/nomic-embed-text"}, toml_path=toml)
    assert cfg.model == "gpt-4o-mini" and cfg.api_base == "http://localhost:8000/v1" and cfg.concurrency == 4
    assert cfg.embedding_model == "ollama/nomic-embed-text"


def test_bad_values_name_their_source(tmp_path):
    with pytest.raises(ConfigError, match="SMALLVILLE_CONCURRENCY"):
        load_config(env={"SMALLVILLE_CONCURRENCY": "lots"}, toml_path=None)
    bad = tmp_path / "bad.toml"
    bad.write_text("model = [unclosed")
    with pytest.raises(ConfigError, match="bad.toml"):
        load_config(env={}, toml_path=bad)
    keyed = tmp_path / "keyed.toml"
    keyed.write_text('api_key = "sk-secret"\n')
    with pytest.raises(ConfigError, match="API keys"):
        load_config(env={}, toml_path=keyed)


# ------------------------------------------------- smallville.toml mistakes: one clear line each

@pytest.mark.parametrize("text, expect", [
    ("concurrency = \"four\"\n", r"concurrency must be a whole number .*not text 'four'"),
    ("concurrency = 2.5\n", r"concurrency must be a whole number"),
    ("concurrency = true\n", r"concurrency must be a whole number .*not true/false"),
    ("timeout = \"slow\"\n", r"timeout must be a number"),
    ("retries = -1\n", r"retries must be 0 or more"),
    ("model = 7\n", r'model must be text in quotes'),
    ("model = [\"a\", \"b\"]\n", r"model must be text in quotes .*not a list"),
    ("modle = \"ollama/x\"\n", r"unknown key 'modle' \(did you mean 'model'\?\)"),
    ("zzqq = 1\n", r"unknown key 'zzqq'; known keys: .*model"),
    ("[model]\ntemprature = 0.3\n", r"\[model\]: unknown key 'temprature' \(did you mean 'temperature'\?\)"),
    ("openai_api_key = \"abc\"\n", r"'openai_api_key' looks like an API key"),
    ("api_base = \"sk-abcdefghijklmnopqrstuvwxyz\"\n", r"the value of 'api_base' looks like an API key"),
    ("model = \"a\"\nmodel = \"b\"\n", r"not valid TOML"),
])
def test_settings_file_mistakes_are_one_clear_line(tmp_path, text, expect):
    toml = tmp_path / "smallville.toml"
    toml.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(env={}, toml_path=toml)
    msg = str(err.value)
    assert str(toml) in msg  # names the file
    assert len(msg.splitlines()) == 1, msg  # one problem, one line
    assert re.search(expect, msg), msg


def test_every_problem_of_the_file_is_listed_at_once(tmp_path):
    toml = tmp_path / "smallville.toml"
    toml.write_text('modle = "x"\nconcurrency = "lots"\napi_key = "k"\n')
    with pytest.raises(ConfigError) as err:
        load_config(env={}, toml_path=toml)
    lines = str(err.value).splitlines()
    assert len(lines) == 3 and all(line.startswith(str(toml)) for line in lines)


def test_settings_that_switch_things_off_and_extra_keys(tmp_path, monkeypatch):
    toml = tmp_path / "smallville.toml"
    toml.write_text('cache = false\nembedding_cache = false\nseed = false\ntimeout = 12\n')
    cfg = load_config(env={}, toml_path=toml)
    assert cfg.cache is None and cfg.embedding_cache is None and cfg.seed is None and cfg.timeout == 12.0
    # A key another part of the game reads is declared once in EXTRA_KEYS, with its type.
    monkeypatch.setitem(config.EXTRA_KEYS, "autosave_minutes", float)
    toml.write_text("autosave_minutes = 5\n")
    assert load_config(env={}, toml_path=toml).model  # accepted (an int is a fine float), ignored by ModelConfig
    assert config.read_settings_file(toml)["autosave_minutes"] == 5
    toml.write_text('autosave_minutes = "often"\n')
    with pytest.raises(ConfigError, match="autosave_minutes must be a number, not text 'often'"):
        load_config(env={}, toml_path=toml)


def test_an_unreadable_settings_file_is_named(tmp_path):
    toml = tmp_path / "smallville.toml"
    toml.write_bytes(b"model = \"\xff\xfe\"\n")
    with pytest.raises(ConfigError, match="smallville.toml"):
        load_config(env={}, toml_path=toml)


def test_the_default_settings_file_is_found_from_any_folder(tmp_path, monkeypatch):
    home_dir, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home_dir.mkdir()
    elsewhere.mkdir()
    monkeypatch.setenv("SMALLVILLE_HOME", str(home_dir))
    monkeypatch.chdir(elsewhere)
    assert load_config(env={}).model == EMBEDDED_MODEL  # no file anywhere: defaults
    (home_dir / "smallville.toml").write_text('model = "ollama/from-home"\n')
    assert load_config(env={}).model == "ollama/from-home"
    (elsewhere / "smallville.toml").write_text('model = "ollama/from-here"\n')
    assert load_config(env={}).model == "ollama/from-here"  # the working folder's file wins
    # The default embedding cache is the home's, whatever the folder.
    assert Path(load_config(env={}).embedding_cache or "") == home_dir / ".cache" / "embeddings.sqlite"


def test_a_save_suggests_its_model_but_never_its_server():
    """What comes from a file is data: a save made on someone's server (its api_base)
    neither sends the user's key there nor names the model for the user's provider."""
    from agents.model.config import EMBEDDED_MODEL, load_config_for_saved

    env = {"OPENAI_API_KEY": "sk-user-key-not-for-strangers"}
    stranger = {"model": "openai/served", "api_base": "http://127.0.0.1:9/v1", "seed": 7, "temperature": 0.2}
    config, note = load_config_for_saved(stranger, {}, env=env, toml_path=None)
    assert config.api_base is None and config.model == EMBEDDED_MODEL  # the user's own (the default here)
    assert config.seed == 7 and config.temperature == 0.2  # harmless settings are still suggested
    assert note and "its own server" in note and "127.0.0.1" not in note
    # the user's flags and environment always win, the endpoint included
    config, _ = load_config_for_saved(stranger, {"model": "ollama/qwen2.5:7b"}, env=env, toml_path=None)
    assert config.model == "ollama/qwen2.5:7b" and config.api_base is None
    config, _ = load_config_for_saved(stranger, {}, env={**env, "SMALLVILLE_MODEL": "openai/mine",
                                                         "SMALLVILLE_API_BASE": "http://127.0.0.1:8/v1"},
                                      toml_path=None)
    assert (config.model, config.api_base) == ("openai/mine", "http://127.0.0.1:8/v1")
    # a save with no server of its own (a hosted model, the embedded one) suggests its model
    config, note = load_config_for_saved({"model": "gpt-4o-mini"}, {}, env=env, toml_path=None)
    assert config.model == "gpt-4o-mini" and config.api_base is None and note is None
    # a save made on the user's own server suggests its model there
    mine = {"SMALLVILLE_API_BASE": "http://127.0.0.1:8/v1"}
    config, note = load_config_for_saved({"model": "openai/x", "api_base": "http://127.0.0.1:8/v1"}, {}, env=mine,
                                         toml_path=None)
    assert (config.model, config.api_base, note) == ("openai/x", "http://127.0.0.1:8/v1", None)


def test_interviewing_a_strangers_save_uses_the_users_configuration(monkeypatch, capsys):
    from argparse import Namespace

    from agents.model.config import EMBEDDED_MODEL
    from game.interview_cli import _gateway

    monkeypatch.setenv("OPENAI_API_KEY", "sk-user-key-not-for-strangers")
    for k in ("SMALLVILLE_MODEL", "SMALLVILLE_API_BASE"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.chdir("/")  # no smallville.toml of the checkout's
    parts = {"config": {"model": "openai/served", "api_base": "http://127.0.0.1:9/v1"}}
    gw = _gateway(Namespace(model=None, api_base=None), parts)
    try:
        assert gw.config.api_base is None and gw.config.model == EMBEDDED_MODEL
    finally:
        gw.close() if callable(getattr(gw, "close", None)) else None
    assert "its own server" in capsys.readouterr().err
