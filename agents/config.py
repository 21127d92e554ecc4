"""Model configuration: which model, where, how many calls at once.

Strongest first: CLI overrides (the `smallville` flags), the environment
(``SMALLVILLE_*``), a ``smallville.toml`` file, then defaults. API keys are
never read or written here: litellm takes them from its usual environment
variables (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ...).
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Mapping

from agents.router import Deployment, RouterConfigError, deployment_from, load_router_yaml

EMBEDDED_PROVIDER = "smallville"
EMBEDDED_MODEL = f"{EMBEDDED_PROVIDER}/smollm2-135m"
LOCAL_EMBEDDING_MODEL = "all-MiniLM-L6-v2"

ENV_PREFIX = "SMALLVILLE_"
HOSTED_BUDGET = 300  # model calls per resident per sim day when someone pays per token


@dataclass(frozen=True)
class ModelConfig:
    model: str = EMBEDDED_MODEL
    api_base: str | None = None
    concurrency: int = 0  # 0: pick by model (2 for the embedded one, 8 for hosted ones)
    timeout: float = 0.0  # seconds per model call; 0: pick by model (60 embedded, 30 hosted)
    retries: int = 3  # extra attempts on rate limits and transient errors
    backoff: float = 1.0  # seconds before the first retry; doubles each time, with jitter
    deadline: float = 0.0  # seconds for one ask() including retries; 0: 4 x timeout
    temperature: float = 0.7
    seed: int | None = 0
    cache: str | None = None  # SQLite response cache path; None: no cache
    embedding_model: str = LOCAL_EMBEDDING_MODEL  # or any litellm embedding model string
    embedding_cache: str | None = ".cache/embeddings.sqlite"  # None: memory only
    # How minds plan: "paper" (the model writes the day: times, places, words) or
    # "guided" (the resident's routine gives the times and places, the model the
    # words). "auto": guided for the embedded model, paper for every other model.
    planning: str = "auto"
    # Model calls per resident per sim day; past it, rules stand in (and say so).
    # -1: pick by model (off for the embedded model and local servers, 300 for
    # hosted ones); 0: off.
    budget: int = -1
    # Several servers of one model (agents/router.py): ``[[models]]`` tables in
    # smallville.toml, or ``router``, the path of a litellm router YAML. Empty: one
    # server (model, api_base above).
    deployments: tuple[Deployment, ...] = ()
    router: str | None = None

    def __post_init__(self) -> None:
        if self.router:  # a router YAML, where given, wins over [[models]] tables
            try:
                object.__setattr__(self, "deployments", load_router_yaml(self.router))
            except RouterConfigError as err:
                raise ConfigError(str(err)) from None
        if self.deployments:
            if self.model == EMBEDDED_MODEL:  # no model named: the deployments' own
                object.__setattr__(self, "model", self.deployments[0].model)
            if self.concurrency <= 0:  # as many calls in flight as the servers take together
                object.__setattr__(self, "concurrency", sum(d.concurrency for d in self.deployments))
        # Resolve the model-dependent defaults once, so every reader sees numbers.
        if self.concurrency <= 0:
            object.__setattr__(self, "concurrency", 2 if self.is_embedded else 8)
        if self.timeout <= 0:
            object.__setattr__(self, "timeout", 60.0 if self.is_embedded else 30.0)
        if self.deadline <= 0:
            object.__setattr__(self, "deadline", 4 * self.timeout)
        if self.retries < 0:
            object.__setattr__(self, "retries", 0)
        mode = str(self.planning or "auto").strip().lower()
        if mode not in ("auto", "paper", "guided"):
            raise ConfigError(f"planning must be paper, guided or auto, not {self.planning!r}")
        if mode == "auto":
            mode = "guided" if self.is_embedded else "paper"
        object.__setattr__(self, "planning", mode)
        if self.budget < 0:
            object.__setattr__(self, "budget", 0 if self.is_embedded or self.is_local else HOSTED_BUDGET)

    @property
    def is_local(self) -> bool:
        """A model served on this machine or this network (Ollama, a local OpenAI-compatible
        server, an in-process provider): nobody pays per token."""
        if self.deployments:
            return all(d.is_local for d in self.deployments)
        if self.provider in ("ollama", "ollama_chat", "scripted", EMBEDDED_PROVIDER):
            return True
        base = (self.api_base or "").lower()
        return any(h in base for h in ("localhost", "127.0.0.1", "0.0.0.0", "[::1]", ".local"))

    @property
    def is_embedded(self) -> bool:
        return self.model.split("/", 1)[0] == EMBEDDED_PROVIDER

    @property
    def provider(self) -> str:
        return self.model.split("/", 1)[0] if "/" in self.model else ""

    def with_(self, **changes: Any) -> "ModelConfig":
        return replace(self, **changes)


_FIELDS = {f.name: f for f in fields(ModelConfig)}
_INTS = {"concurrency", "retries", "seed", "budget"}
_TOML_ONLY = {"deployments"}  # [[models]] tables, read by _from_toml
_FLOATS = {"timeout", "deadline", "temperature", "backoff"}
# The CLI's argparse names (smallville/cli.py) map onto fields one to one,
# except that argparse spells --api-base as api_base already.
_ALIASES = {"api-base": "api_base", "embedding-model": "embedding_model", "embedding-cache": "embedding_cache"}


class ConfigError(ValueError):
    """A configuration value that cannot be used; the message names its source."""


def _coerce(name: str, value: Any, source: str) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        value = value.strip()
        if name not in ("model", "api_base", "embedding_model") and value.lower() in ("", "none", "off"):
            if name == "budget":
                return 0
            return None if name in ("cache", "embedding_cache", "seed") else value
    try:
        if name in _INTS:
            return int(value)
        if name in _FLOATS:
            return float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{source}: {name} must be a number, not {value!r}") from None
    return str(value)


def _from_mapping(data: Mapping[str, Any], source: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = _ALIASES.get(key, key)
        if name not in _FIELDS or name in _TOML_ONLY:
            continue  # unknown keys (other CLI flags, other tables) are not ours
        if value is None:
            continue  # an unset CLI flag
        out[name] = _coerce(name, value, source)
    return out


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in _FIELDS:
        if name in _TOML_ONLY:
            continue
        raw = env.get(ENV_PREFIX + name.upper())
        if raw is not None and raw != "":
            out[name] = _coerce(name, raw, f"environment {ENV_PREFIX + name.upper()}")
    return out


def _from_toml(path: str | os.PathLike | None) -> dict[str, Any]:
    if not path:
        return {}
    p = Path(path)
    if not p.is_file():
        return {}
    try:
        with p.open("rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"{p}: cannot read it: {err}") from None
    # Accept the keys at top level or under a [model] table.
    merged = {k: v for k, v in data.items() if not isinstance(v, dict)}
    if isinstance(data.get("model"), dict):
        merged.pop("model", None)
        merged.update(data["model"])
    for key in ("api_key", "api-key"):
        if key in merged:
            raise ConfigError(f"{p}: do not put API keys in files; set the provider's environment variable")
    out = _from_mapping(merged, str(p))
    models = data.get("models")
    if models is not None:
        if not isinstance(models, list) or not models:
            raise ConfigError(f"{p}: models must be [[models]] tables, one per server (model, api_base, concurrency)")
        try:
            out["deployments"] = tuple(deployment_from(m, f"{p}: [[models]] #{i + 1}") for i, m in enumerate(models))
        except RouterConfigError as err:
            raise ConfigError(str(err)) from None
    return out


def load_config(
    overrides: Mapping[str, Any] | Any | None = None,
    env: Mapping[str, str] | None = None,
    toml_path: str | os.PathLike | None = "smallville.toml",
) -> ModelConfig:
    """The configuration, strongest first: overrides, environment, TOML file, defaults.

    ``overrides`` is a dict or an argparse Namespace (keys model, api_base,
    concurrency, cache, ...); None values mean "not given".
    """
    env = os.environ if env is None else env
    if overrides is not None and not isinstance(overrides, Mapping):
        overrides = vars(overrides)
    values: dict[str, Any] = {}
    values.update(_from_toml(toml_path))
    values.update(_from_env(env))
    values.update(_from_mapping(overrides or {}, "command line"))
    if not values.get("model"):
        values.pop("model", None)
    try:
        return ModelConfig(**values)
    except TypeError as err:  # pragma: no cover - _from_mapping filters names
        raise ConfigError(str(err)) from None
