"""Model configuration: flags beat environment beat smallville.toml beat defaults."""
from __future__ import annotations

import argparse

import pytest

from agents.config import EMBEDDED_MODEL, ConfigError, ModelConfig, load_config


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
