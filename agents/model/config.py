"""Model configuration: which model, where, how many calls at once.

Strongest first: CLI overrides (the `smallville` flags), the environment
(``SMALLVILLE_*``), a ``smallville.toml`` file, then defaults. API keys are
never read or written here: litellm takes them from its usual environment
variables (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ...).
"""
from __future__ import annotations

import argparse
import difflib
import logging
import os
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from agents.engine.local_model import ENV_WHOLE_NUMBERS, env_number
from agents.model.router import Deployment, RouterConfigError, deployment_from, load_router_yaml
from agents.support import home
from agents.support.errors import ConfigError
from agents.support.redact import redact

log = logging.getLogger(__name__)

EMBEDDED_PROVIDER = "smallville"
EMBEDDED_MODEL = f"{EMBEDDED_PROVIDER}/smollm2-135m"
LOCAL_EMBEDDING_MODEL = "all-MiniLM-L6-v2"

SETTINGS_FILE = "smallville.toml"
DEFAULT_EMBEDDING_CACHE = ".cache/embeddings.sqlite"  # relative: placed in agents.support.home's folder

ENV_PREFIX = "SMALLVILLE_"
HOSTED_BUDGET = 300  # model calls per resident per sim day when someone pays per token


@dataclass(frozen=True)
class ModelConfig:
    model: str = EMBEDDED_MODEL
    api_base: str | None = None
    concurrency: int = 0  # 0: pick by model (2 for the embedded one, 8 for hosted ones)
    timeout: float = 0.0  # seconds per model call; 0: pick by model (60 embedded or local, 30 hosted)
    retries: int = 3  # extra attempts on rate limits and transient errors
    backoff: float = 1.0  # seconds before the first retry; doubles each time, with jitter
    deadline: float = 0.0  # seconds for one ask() including retries; 0: 4 x timeout
    temperature: float = 0.7
    seed: int | None = 0
    cache: str | None = None  # SQLite response cache path; None: no cache
    embedding_model: str = LOCAL_EMBEDDING_MODEL  # or any litellm embedding model string
    embedding_cache: str | None = DEFAULT_EMBEDDING_CACHE  # None: memory only; the default: under agents.support.home
    # How minds plan: "paper" (the model writes the day: times, places, words) or
    # "guided" (the resident's routine gives the times and places, the model the
    # words). "auto": guided for the embedded model, paper for every other model.
    planning: str = "auto"
    # Model calls per resident per sim day; past it, rules stand in (and say so).
    # -1: pick by model (off for the embedded model and local servers, 300 for
    # hosted ones); 0: off.
    budget: int = -1
    # Several servers of one model (agents/model/router.py): ``[[models]]`` tables in
    # smallville.toml, or ``router``, the path of a litellm router YAML. Empty: one
    # server (model, api_base above).
    deployments: tuple[Deployment, ...] = ()
    router: str | None = None
    # How minds answer and talk: "on" (grounded: the model picks which of a few
    # retrieved memories answers, a rule words it in the first person; agents/recall/grounding.py),
    # "off" (the paper's free generation) or "auto": on for the embedded model only.
    grounded: str = "auto"
    # The game's clock (game/runs/pacing.py): "minds" waits for the residents' decisions
    # within a bounded lag, so the player sees the model's residents; "clock" keeps the
    # chosen speed whatever the minds manage (a fast show on routines).
    pace: str = "minds"
    # The decision records (agents/explain/why.py): "full" keeps prompts, answers and the
    # memories' texts; "hashes" keeps prompts, raw answers, queries and memory texts
    # as SHA-256 hashes, with the retrieved memory ids, their scores and the validated
    # answer (for hosted models); "off" keeps none.
    why: str = "full"

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
            # A model on this machine or network queues calls on a few cores: more time than a hosted API.
            object.__setattr__(self, "timeout", 60.0 if self.is_embedded or self.is_local else 30.0)
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
        g = str(self.grounded or "auto").strip().lower()
        g = {"true": "on", "yes": "on", "1": "on", "false": "off", "no": "off", "0": "off"}.get(g, g)
        if g not in ("auto", "on", "off"):
            raise ConfigError(f"grounded must be on, off or auto, not {self.grounded!r}")
        object.__setattr__(self, "grounded", ("on" if self.is_embedded else "off") if g == "auto" else g)
        pace = str(self.pace or "minds").strip().lower()
        if pace not in ("minds", "clock"):
            raise ConfigError(f"pace must be minds or clock, not {self.pace!r}")
        object.__setattr__(self, "pace", pace)
        keep = str(self.why or "full").strip().lower()
        if keep not in ("full", "hashes", "off"):
            raise ConfigError(f"why must be full, hashes or off, not {self.why!r}")
        object.__setattr__(self, "why", keep)
        if self.budget < 0:
            object.__setattr__(self, "budget", 0 if self.is_embedded or self.is_local else HOSTED_BUDGET)
        if self.embedding_cache == DEFAULT_EMBEDDING_CACHE:  # the same cache whatever folder the game starts in
            object.__setattr__(self, "embedding_cache", str(home.cache_dir() / "embeddings.sqlite"))

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

    def with_(self, **changes: Any) -> ModelConfig:  # Any: each field's own type, as dataclasses.replace takes them
        return replace(self, **changes)


_FIELDS = {f.name: f for f in fields(ModelConfig)}
_INTS = {"concurrency", "retries", "seed", "budget"}
_TOML_ONLY = {"deployments"}  # [[models]] tables, read by _from_toml
_FLOATS = {"timeout", "deadline", "temperature", "backoff"}
_OFF_ABLE = {"cache", "embedding_cache", "seed", "budget"}  # `false` (or "off") turns these off
# The CLI's argparse names (smallville/cli.py) map onto fields one to one,
# except that argparse spells --api-base as api_base already.
_ALIASES = {"api-base": "api_base", "embedding-model": "embedding_model", "embedding-cache": "embedding_cache"}

# Every key smallville.toml may hold, in one place. ModelConfig's fields are known
# by themselves; a key another part of the game reads from the file (a setting of
# its own, a table such as [[models]]) is added here with the TOML type it holds
# (str, int, float, bool, list or dict), so the file's check knows it.
EXTRA_KEYS: dict[str, type] = {"models": list}  # [[models]]: several servers (agents/model/router.py)
TABLES = ("model",)  # [model] holds the same keys as the top level

_SECRET_NAMES = ("api_key", "apikey", "api-key", "secret", "token", "password", "credential")
_SECRET_VALUE = re.compile(r"^(sk-[A-Za-z0-9_-]{16,}|sk-ant-|ghp_[A-Za-z0-9]{20,}|gsk_[A-Za-z0-9]{20,}"
                           r"|xai-[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|hf_[A-Za-z0-9]{30,})")


def known_keys() -> list[str]:
    return sorted(set(_FIELDS) | set(EXTRA_KEYS))


# value: Any, as a file, the environment or a flag gave it (int() and float() below are its check)
def _coerce(name: str, value: Any, source: str) -> str | int | float | None:
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


def _from_mapping(data: Mapping[str, object], source: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in data.items():
        name = _ALIASES.get(key, key)
        if name not in _FIELDS or name in _TOML_ONLY:
            continue  # unknown keys (other CLI flags, other tables) are not ours
        if value is None:
            continue  # an unset CLI flag
        out[name] = _coerce(name, value, source)
    return out


def _toml_type(value: object) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def _check_value(name: str, value: object) -> str | None:
    """What is wrong with a TOML value for field ``name`` (None: nothing)."""
    if value is False and name in _OFF_ABLE:
        return None
    if name == "grounded" and isinstance(value, bool):  # grounded = true / false
        return None
    if name in _INTS:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be a whole number (like {name} = 4), not {_toml_type(value)} {value!r}"
        if (name in ("concurrency", "retries") and value < 0) or (name == "budget" and value < -1):
            return f"must be 0 or more, not {value}"
        return None
    if name in _FLOATS:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"must be a number (like {name} = 30), not {_toml_type(value)} {value!r}"
        if value < 0:
            return f"must be 0 or more, not {value}"
        return None
    if not isinstance(value, str):
        return f'must be text in quotes (like {name} = "..."), not {_toml_type(value)} {value!r}'
    return None


def check_settings(data: Mapping[str, object], source: str) -> list[str]:
    """Every problem of a settings table (the top level of smallville.toml, or its
    [model] table), one line each: unknown keys (with the likeliest meant one),
    values of the wrong type, API keys. Nothing is read from it here."""
    problems: list[str] = []
    for key, value in data.items():
        low = str(key).lower()
        if any(w in low for w in _SECRET_NAMES) and low not in _FIELDS:
            problems.append(f"{source}: '{key}' looks like an API key or secret; do not put API keys in files, "
                            "set the provider's environment variable (e.g. OPENAI_API_KEY) instead")
            continue
        if isinstance(value, str) and _SECRET_VALUE.match(value.strip()):
            problems.append(f"{source}: the value of '{key}' looks like an API key; do not put API keys in files, "
                            "set the provider's environment variable instead")
            continue
        name = _ALIASES.get(key, key)
        if name in TABLES and isinstance(value, dict):
            problems += check_settings(value, f"{source} [{name}]")
            continue
        if name in _FIELDS:
            why = _check_value(name, value)
            if why:
                problems.append(f"{source}: {name} {why}")
            continue
        if name == "models" and not (isinstance(value, list) and value and all(isinstance(m, dict) for m in value)):
            problems.append(f"{source}: models must be [[models]] tables, "
                            "one per server (model, api_base, concurrency)")
            continue
        if name in EXTRA_KEYS:
            want = EXTRA_KEYS[name]
            ok = isinstance(value, want) and not (want in (int, float) and isinstance(value, bool))
            if not ok and not (want is float and isinstance(value, int) and not isinstance(value, bool)):
                problems.append(f"{source}: {name} must be {_toml_type(want())}, not {_toml_type(value)} {value!r}")
            continue
        near = difflib.get_close_matches(low, known_keys(), n=1, cutoff=0.6)
        hint = f" (did you mean '{near[0]}'?)" if near else f"; known keys: {', '.join(known_keys())}"
        problems.append(f"{source}: unknown key '{key}'{hint}")
    return problems


def _from_env(env: Mapping[str, str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for name in _FIELDS:
        if name in _TOML_ONLY:
            continue
        raw = env.get(ENV_PREFIX + name.upper())
        if raw is not None and raw != "":
            out[name] = _coerce(name, raw, f"environment {ENV_PREFIX + name.upper()}")
    return out


def read_settings_file(path: str | os.PathLike) -> dict[str, object]:
    """The raw tables of a settings file; ConfigError (naming the file) when it cannot be
    read or has any problem (see check_settings). Other readers of smallville.toml
    (EXTRA_KEYS) take their keys from here."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{p}: it is not valid TOML ({err}); fix that line or delete the file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{p}: cannot read it: {err}") from None
    problems = check_settings(data, str(p))
    if problems:
        raise ConfigError("\n".join(problems))
    return data


# The environment variables litellm sends as a key (OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, ...).
_KEY_VARIABLE = re.compile(r"(?i)api_?key|secret_access_key|api_?token")
_warned_endpoints: set[str] = set()  # settings files already warned about, once per process


def _warn_of_a_borrowed_endpoint(path: Path, bases: list[str], env: Mapping[str, str]) -> None:
    """A smallville.toml found in the working folder (it may have come with a
    download) that decides where the calls go (api_base, [[models]], a router YAML,
    a model string naming a server) while an API key is set: litellm would send the
    key there. Said once per file, on stderr and in the log; the file is still used."""
    keys = sorted(k for k, v in env.items() if v and _KEY_VARIABLE.search(k))
    where = str(path.resolve())
    if not bases or not keys or where in _warned_endpoints:
        return
    _warned_endpoints.add(where)
    more = f" and {len(bases) - 1} more" if len(bases) > 1 else ""
    text = (f"warning: {path} (in the working folder) sends the model calls to {redact(bases[0])}{more} "
            f"while {', '.join(keys)} is set, so that key goes to that server. If you did not write "
            "this file, delete it, or choose the server yourself with --api-base or --router.")
    log.warning("%s", text)
    print(f"smallville: {text}", file=sys.stderr)


def _servers_from_the_file(from_file: Mapping[str, object], user: Mapping[str, object],
                           config: ModelConfig) -> list[str]:
    """Where the settings file, not the user, sends the calls: its api_base, its
    [[models]] servers, its router YAML's servers, or a model string that names a
    server, each only where the user's flags and environment left it in force."""
    out: list[str] = []
    if from_file.get("api_base") and "api_base" not in user:
        out.append(str(from_file["api_base"]))
    if (from_file.get("deployments") or from_file.get("router")) and not ({"router", "api_base"} & set(user)):
        out += [d.api_base or d.model for d in config.deployments if d.api_base or "://" in d.model]
    model = str(from_file.get("model") or "")
    if "://" in model and "model" not in user:
        out.append(model)
    return list(dict.fromkeys(out))


def _settings_path(path: str | os.PathLike | None) -> Path | None:
    """The settings file to read: ``path``, or for the default name ./smallville.toml,
    else the one in agents.support.home's folder; None when there is none."""
    if not path:
        return None
    if os.fspath(path) == SETTINGS_FILE:
        return home.config_file(SETTINGS_FILE)
    return Path(path)


def _from_toml(path: str | os.PathLike | None) -> dict[str, object]:
    path = _settings_path(path)
    if path is None:
        return {}
    p = Path(path)
    if not p.is_file():
        return {}
    data = read_settings_file(p)
    # Accept the keys at top level or under a [model] table.
    merged = {k: v for k, v in data.items() if _ALIASES.get(k, k) in _FIELDS and not isinstance(v, dict)}
    table = data.get("model")
    if isinstance(table, dict):
        merged.pop("model", None)
        merged.update(table)
    merged = {k: ("off" if v is False else v) for k, v in merged.items()}  # `cache = false`: off
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
    overrides: Mapping[str, object] | argparse.Namespace | None = None,
    env: Mapping[str, str] | None = None,
    toml_path: str | os.PathLike | None = SETTINGS_FILE,
) -> ModelConfig:
    """The configuration, strongest first: overrides, environment, TOML file, defaults.
    The TOML file by default is ./smallville.toml, else <home>/smallville.toml
    (agents/support/home.py); ``toml_path=None``: none.

    ``overrides`` is a dict or an argparse Namespace (keys model, api_base,
    concurrency, cache, ...); None values mean "not given".
    """
    env = os.environ if env is None else env
    if overrides is not None and not isinstance(overrides, Mapping):
        overrides = vars(overrides)
    values: dict[str, Any] = {}
    from_file = _from_toml(toml_path)
    user = {**_from_env(env), **_from_mapping(overrides or {}, "command line")}
    values.update(from_file)
    if {"api_base", "router"} & set(user):
        # The user named the server (--api-base, --router): the file's servers step aside,
        # so that advice of the warning below does what it says.
        values.pop("deployments", None)
        if "router" not in user:
            values.pop("router", None)
    values.update(user)
    if not values.get("model"):
        values.pop("model", None)
    try:
        config = ModelConfig(**values)
    except TypeError as err:  # pragma: no cover - _from_mapping filters names
        raise ConfigError(str(err)) from None
    found = _settings_path(toml_path)
    if found is not None and found.parent.resolve() == Path.cwd().resolve():  # a file that came with the folder
        _warn_of_a_borrowed_endpoint(found, _servers_from_the_file(from_file, user, config), env)
    if config.is_embedded:  # a typo in its variables: one line now, not a failure in a worker later
        for name in ENV_WHOLE_NUMBERS:
            env_number(name, 0, env)
    return config


# The model flags of the commands (smallville/cli.py ``_add_model_flags``): every one
# that the user set reaches the configuration, whatever the command reads.
MODEL_FLAGS = ("model", "api_base", "concurrency", "router", "cache", "planning", "grounded", "budget", "pace")


def model_flags(args: Mapping[str, object] | argparse.Namespace) -> dict[str, object]:
    """The model flags the user set (a dict or an argparse Namespace), by field name."""
    given = args if isinstance(args, Mapping) else vars(args)
    return {k: v for k, v in given.items() if v is not None and _ALIASES.get(k, k) in MODEL_FLAGS}


def load_config_for_saved(
    saved: Mapping[str, object] | None,
    given: Mapping[str, object],
    *,
    suggest: tuple[str, ...] = ("model", "seed", "temperature"),
    env: Mapping[str, str] | None = None,
    toml_path: str | os.PathLike | None = SETTINGS_FILE,
) -> tuple[ModelConfig, str | None]:
    """The configuration for reading a save or a run folder whose ``config`` part is
    ``saved``. What comes from a file is data, never authority: the user's flags
    (``given``), environment and settings file decide as always; the save only
    suggests the settings named in ``suggest`` that the user left unset, and never an
    endpoint. A model the save ran on its own server (its ``api_base``, not the
    user's) is not suggested either: the user's key would go to that server, or
    the model's name to the user's provider. Returns (config, note): the note says
    what of the save was not followed, for the caller to show."""
    env = os.environ if env is None else env
    saved = dict(saved or {})
    given = {k: v for k, v in given.items() if v is not None}
    user_set = set(given) | set(_from_env(env)) | set(_from_toml(toml_path))
    mine = load_config(given, env=env, toml_path=toml_path)
    overrides = dict(given)
    note = None
    for key in suggest:
        value = saved.get(key)
        if value is None or key in user_set:
            continue
        # A save's api_base is stored redacted (agents/support/redact.py): compare it so.
        if key == "model" and saved.get("api_base") and redact(str(saved["api_base"])) != redact(mine.api_base or ""):
            note = (f"the save was made with {value} on its own server; using your model configuration "
                    f"({mine.model}). --model and --api-base choose another")
            continue
        overrides[key] = value
    return load_config(overrides, env=env, toml_path=toml_path), note

