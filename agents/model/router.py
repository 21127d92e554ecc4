"""Many model servers at once: a litellm Router in-process.

When the minds outgrow one machine, the model is served by several
deployments of one model (several Ollama or vLLM machines, or a hosted
fallback). ``ModelRouter`` stands in for ``litellm.completion`` in the
``Gateway``: each call goes to the deployment with the most free room (in
flight against its own ``concurrency``), waits when every live one is full,
and moves to the next deployment when one fails with a transient error
(refused connection, time-out, 5xx, rate limit) or a fault of its own (401/403:
it refuses the key; 404: it does not serve the model). A deployment that failed
rests for ``cooldown`` seconds (doubling while it keeps failing, up to five
minutes); when every deployment rests, the one due first is tried anyway (one
per call), so a town whose only server restarts comes back by itself. The
whole call, every deployment tried included, keeps within the ``timeout`` it
was given (the gateway's time left), however many servers hang.

Each deployment speaks its own structured-output dialect (agents/model/dialects.py):
the gateway hands over the request unshaped (``structured=``) and the router
shapes it for the deployment it picks; a deployment that turns the form down
is asked again in its next dialect.

The calls themselves go through a ``litellm.Router`` (one model name per
deployment: its clients, time-outs and provider quirks); the choice of
deployment, the per-deployment limit and the health are ours, because
litellm's sync path does not enforce ``max_parallel_requests`` and the HUD
needs each deployment's health.

Deployments come from ``[[models]]`` tables in ``smallville.toml`` or from a
litellm router YAML (``--router router.yaml``; its ``model_list`` entries,
``litellm_params.model``/``api_base``/``max_parallel_requests``).
"""
from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agents.model.dialects import endpoint_label

log = logging.getLogger(__name__)

COOLDOWN_S = 10.0  # a failed deployment rests this long before it is tried again
MAX_COOLDOWN_S = 300.0
TRANSIENT_WORDS = ("connection", "refused", "timeout", "timed out", "unavailable", "internal server",
                   "ratelimit", "rate limit", "502", "503", "504", "500", "429", "apiconnection")


class RouterConfigError(ValueError):
    """A deployment list that cannot be used; the message names its source."""


@dataclass(frozen=True)
class Deployment:
    """One server of the model: a litellm model string, where, how many calls at once."""

    model: str
    api_base: str | None = None
    concurrency: int = 4
    name: str = ""  # shown in the HUD; default: the host of api_base, or the model

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        return endpoint_label(self.model, self.api_base)  # the host, never its credentials

    @property
    def is_local(self) -> bool:
        base = (self.api_base or "").lower()
        if self.model.split("/", 1)[0] in ("ollama", "ollama_chat", "scripted", "smallville"):
            return True
        return any(h in base for h in ("localhost", "127.0.0.1", "0.0.0.0", "[::1]", ".local"))


def deployment_from(entry: Mapping[str, object], source: str) -> Deployment:
    """A ``Deployment`` from a ``[[models]]`` table (model, api_base, concurrency, name)."""
    if not isinstance(entry, Mapping):
        raise RouterConfigError(f"{source}: each [[models]] entry must be a table, not {entry!r}")
    for key in ("api_key", "api-key"):
        if key in entry:
            raise RouterConfigError(f"{source}: do not put API keys in files; set the provider's environment variable")
    known = {"model", "api_base", "api-base", "concurrency", "name"}
    unknown = sorted(set(entry) - known)
    if unknown:
        raise RouterConfigError(f"{source}: unknown key(s) {', '.join(unknown)} in [[models]] "
                                f"(known: model, api_base, concurrency, name)")
    model = entry.get("model")
    if not isinstance(model, str) or not model.strip():
        raise RouterConfigError(f"{source}: every [[models]] entry needs a model string, like \"ollama_chat/llama3.2\"")
    base = entry.get("api_base", entry.get("api-base"))
    if base is not None and not isinstance(base, str):
        raise RouterConfigError(f"{source}: api_base must be a URL string, not {base!r}")
    conc = entry.get("concurrency", 4)
    if isinstance(conc, bool) or not isinstance(conc, int) or conc < 1:
        raise RouterConfigError(f"{source}: concurrency must be a whole number of at least 1, not {conc!r}")
    name = entry.get("name", "")
    return Deployment(model=model.strip(), api_base=(base or None), concurrency=conc, name=str(name or ""))


def load_router_yaml(path: str | os.PathLike) -> tuple[Deployment, ...]:
    """Deployments from a litellm router config (``model_list``)."""
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as err:
        raise RouterConfigError(f"{p}: cannot read it: {err.strerror or err}") from None
    except yaml.YAMLError as err:
        raise RouterConfigError(f"{p}: not valid YAML: {err}") from None
    items = data.get("model_list") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise RouterConfigError(f"{p}: needs a model_list with at least one deployment (litellm's router format)")
    out = []
    for i, item in enumerate(items):
        where = f"{p}: model_list[{i}]"
        params = item.get("litellm_params") if isinstance(item, dict) else None
        if not isinstance(params, dict):
            raise RouterConfigError(f"{where} needs litellm_params with a model")
        if "api_key" in params and not str(params["api_key"]).startswith("os.environ/"):
            raise RouterConfigError(f"{where}: do not put API keys in files; use os.environ/NAME or the environment")
        entry = {"model": params.get("model"), "name": item.get("model_info", {}).get("id", "") if isinstance(
            item.get("model_info"), dict) else ""}
        if params.get("api_base"):
            entry["api_base"] = params["api_base"]
        conc = params.get("max_parallel_requests", item.get("max_parallel_requests"))
        if conc is not None:
            entry["concurrency"] = conc
        out.append(deployment_from(entry, where))
    return tuple(out)


@dataclass
class Health:
    """What the HUD shows of one deployment."""

    in_flight: int = 0
    served: int = 0
    failed: int = 0
    streak: int = 0  # failures in a row
    down_until: float = 0.0  # time.monotonic(); resting until then
    last_error: str | None = None
    last_ok: float | None = None

    def down(self, now: float) -> bool:
        return self.down_until > now


def short_error(err: BaseException, limit: int = 48) -> str:
    """What went wrong, for the HUD: "connection refused", not the client's class names."""
    text = " ".join(str(err).split("Traceback (most recent call last)")[0].split())
    text = re.sub(r"^((litellm\.)?\w+(Error|Exception)(:| -)\s*)+", "", text) or type(err).__name__
    low = text.lower()
    for words, say in ((("refused", "connection error", "connect"), "connection refused"),
                       (("timed out", "timeout"), "timed out"), (("rate limit", "429"), "rate limited")):
        if any(w in low for w in words):
            return say
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_transient(err: BaseException) -> bool:
    text = f"{type(err).__name__} {err}".lower()
    return isinstance(err, (ConnectionError, TimeoutError)) or any(w in text for w in TRANSIENT_WORDS)


def server_fault(err: BaseException) -> str | None:
    """What is wrong with the server itself, not the request, in a few words with the
    fix ("refuses the API key (401)..."); None for other errors."""
    status = getattr(err, "status_code", None)
    name = type(err).__name__
    if status in (401, 403) or name in ("AuthenticationError", "PermissionDeniedError"):
        return f"refuses the API key ({status or 401}); check its key"
    if status == 404 or name == "NotFoundError":
        return "404: model not served there; check model and api_base"
    return None


@dataclass
class ModelRouter:
    """Load-balances one model over several deployments, with a limit each and fallback."""

    deployments: tuple[Deployment, ...]
    cooldown: float = COOLDOWN_S
    router: Any = None  # a litellm.Router (built on first use: litellm costs seconds to import)
    clock: Callable[[], float] = time.monotonic
    health: list[Health] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.deployments:
            raise RouterConfigError("a router needs at least one deployment")
        self.health = [Health() for _ in self.deployments]
        self._cond = threading.Condition()
        self._build_lock = threading.Lock()
        self._names = [f"smallville-d{i}" for i in range(len(self.deployments))]
        self._turn = 0  # round-robin among equally free deployments

    @property
    def concurrency(self) -> int:
        return sum(d.concurrency for d in self.deployments)

    def _router(self) -> Any:  # Any: litellm's Router (litellm is imported lazily, and untyped here)
        with self._build_lock:  # the first calls arrive together, from several workers
            return self._build_router()

    def _build_router(self) -> Any:
        if self.router is None:
            from litellm import Router  # lazy: importing litellm costs seconds
            from litellm._logging import verbose_router_logger

            verbose_router_logger.setLevel(logging.WARNING)  # not a line per call on the player's terminal

            model_list = []
            for name, d in zip(self._names, self.deployments):
                params: dict[str, Any] = {"model": d.model}
                if d.api_base:
                    params["api_base"] = d.api_base
                    if d.model.split("/", 1)[0] in ("openai", "hosted_vllm") and not os.environ.get("OPENAI_API_KEY"):
                        params["api_key"] = "no-key-needed"  # local servers want none; the client insists
                model_list.append({"model_name": name, "litellm_params": params})
            # Our own balancing and cooldowns; the Router only places the call.
            self.router = Router(model_list=model_list, num_retries=0, disable_cooldowns=True)
        return self.router

    # -- choosing a deployment ---------------------------------------------------------
    def _pick(self, tried: set[int], probed: bool = False) -> int | None:
        """The live deployment with the most free room, not tried in this call; None: all
        full, or all resting when this call already probed one."""
        now = self.clock()
        live = [i for i in range(len(self.deployments)) if i not in tried and not self.health[i].down(now)]
        if not live:
            resting = [i for i in range(len(self.deployments)) if i not in tried]
            if not resting or probed:
                return None
            # Every deployment rests: probe the one due first rather than failing the resident.
            return min(resting, key=lambda i: self.health[i].down_until)
        free = [i for i in live if self.health[i].in_flight < self.deployments[i].concurrency]
        if not free:
            return None
        n = len(self.deployments)
        self._turn = (self._turn + 1) % n
        return min(free, key=lambda i: (self.health[i].in_flight / self.deployments[i].concurrency,
                                        (i - self._turn) % n))

    def completion(self, **kwargs: Any) -> Any:  # Any: as litellm.completion's own kwargs and response
        """Like ``litellm.completion``; ``model``/``api_base``/``api_key`` are the router's.
        ``timeout`` bounds the whole call; ``structured`` (a dialects.StructuredCall) is
        shaped for the deployment picked."""
        for key in ("model", "api_base", "api_key"):
            kwargs.pop(key, None)
        structured = kwargs.pop("structured", None)
        deadline = self.clock() + float(kwargs.pop("timeout", None) or 60.0)
        tried: set[int] = set()
        probed = False  # every deployment was resting and one was tried anyway
        last: BaseException | None = None
        while True:
            with self._cond:
                i = self._pick(tried, probed)
                while i is None and len(tried) < len(self.deployments) and not probed:
                    left = deadline - self.clock()
                    if left <= 0:
                        raise TimeoutError("every model server is busy (router queue timed out)")
                    self._cond.wait(min(left, 0.5))
                    i = self._pick(tried, probed)
                if i is None:
                    if last is None:
                        raise TimeoutError("no model server could take the call in time")
                    raise last
                probed = probed or self.health[i].down(self.clock())
                tried.add(i)
                self.health[i].in_flight += 1
            d = self.deployments[i]
            left = deadline - self.clock()
            if left <= 0.05:  # waited for room until the time ran out: not the server's fault
                self._done(i, None, answered=False)
                raise last or TimeoutError(f"model server {d.label}: no time left for the call")
            try:
                call = dict(kwargs, timeout=left)
                if structured is not None:
                    call.update(structured.shape(d.model, d.api_base, d.label))
                resp = self._router().completion(model=self._names[i], **call)
            except Exception as err:
                if structured is not None and structured.refused(err):
                    self._done(i, None, answered=False)  # it turned the form down: its next dialect
                    tried.discard(i)
                    continue
                self._done(i, err)
                if not (is_transient(err) or server_fault(err)):
                    raise
                last = err
                if len(tried) >= len(self.deployments) or deadline - self.clock() <= 0.05:
                    raise
                log.info("model server %s failed (%s); trying another", d.label, err.__class__.__name__)
                continue
            self._done(i, None)
            return resp

    def _done(self, i: int, err: BaseException | None, answered: bool = True) -> None:
        """A call on deployment ``i`` ended: answered, failed with ``err``, or neither (the
        server turned a structured-output form down: no mark on its health)."""
        with self._cond:
            h = self.health[i]
            h.in_flight -= 1
            fault = server_fault(err) if err is not None else None
            if err is None and answered:
                if h.streak:
                    log.info("model server %s answers again", self.deployments[i].label)
                h.served += 1
                h.streak = 0
                h.down_until = 0.0
                h.last_error = None
                h.last_ok = self.clock()
            elif err is not None and (fault or is_transient(err)):
                h.failed += 1
                h.streak += 1
                rest = min(MAX_COOLDOWN_S, self.cooldown * 2 ** (h.streak - 1))
                h.down_until = self.clock() + rest
                h.last_error = fault or short_error(err)
                if h.streak == 1:
                    log.warning("model server %s is down (%s); resting it %.0f s", self.deployments[i].label,
                                h.last_error, rest)
            self._cond.notify_all()

    # -- the HUD -----------------------------------------------------------------------
    def status_lines(self) -> list[tuple[str, bool]]:
        """One short line per deployment and whether it is healthy: "gpu1 ok 2/4 · 130 served".
        A server whose last call failed stays "down" after its rest, until it answers again."""
        now = self.clock()
        out = []
        with self._cond:
            for d, h in zip(self.deployments, self.health):
                if h.down(now) or h.streak:
                    out.append((f"{d.label}: down ({h.last_error or 'no answer'})", False))
                else:
                    out.append((f"{d.label}: ok {h.in_flight}/{d.concurrency} · {h.served} served", True))
        return out
