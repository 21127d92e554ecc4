"""Recorded residents' calls replayed through the embedded model's old and new paths.

The calls (messages, schema, token limit, temperature, seed) were recorded from a
headless run of the 25 residents with SMALLVILLE_RECORD_CALLS set
(bench/recorded_calls.jsonl.gz; how to record anew: ``record`` below). Each call
goes through both paths, the order alternating call by call, on two instances of
the same weights, so both see the same machine at the same moments:

- old: llama.cpp's GBNF grammar through llama-cpp-python's chat completion, each
  prompt read from the previous one's common prefix only (the path before the
  throughput work);
- new: llguidance's token masks in the project's own writing loop (forced tokens
  read in batches), with kept prompt prefixes (agents/engine/prefix_states.py).

Reported: calls/s and tokens/s for each, their ratio, the share of prompt tokens
the new path did not read again, and the answers that parse and fit.

    python -m lab.bench.replay_calls [N]     # the first N recorded calls, as JSON
"""
from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gzip
import json
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema  # litellm's own dependency

from agents import local_model as lm
from agents import masks

RECORDED = Path(__file__).resolve().parents[2] / "bench" / "recorded_calls.jsonl.gz"


def load_calls(path: Path = RECORDED, limit: int | None = None) -> list[dict]:
    """The recorded calls, in the order they were made."""
    calls = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            calls.append(json.loads(line))
            if limit is not None and len(calls) >= limit:
                break
    return calls


def record(source: str | os.PathLike, target: Path = RECORDED) -> int:
    """Compress a SMALLVILLE_RECORD_CALLS file into the bench's recording; returns the calls."""
    lines = Path(source).read_text(encoding="utf-8").splitlines()
    with gzip.open(target, "wt", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
    return len(lines)


def _fits(schema: dict | None, text: str) -> bool:
    """Whether ``text`` is JSON that validates against the recorded ``schema``."""
    if schema is None:
        return True
    try:
        jsonschema.validate(json.loads(text), schema)
    except (ValueError, jsonschema.ValidationError, jsonschema.SchemaError):
        return False
    return True


def replay_speed(n: int, path: Path = RECORDED) -> dict[str, Any]:
    """The first ``n`` recorded calls through the old and the new path (see the module)."""
    if masks.llguidance is None:
        return {"replay_note": masks.MISSING_REASON}
    calls = load_calls(path, n)
    weights = lm.runtime_gguf(lm.find_gguf())
    saved = os.environ.get("SMALLVILLE_PREFIX_STATES")
    try:
        os.environ["SMALLVILLE_PREFIX_STATES"] = "off"
        old = lm.LocalModel(path=weights, engine="gbnf")
        os.environ["SMALLVILLE_PREFIX_STATES"] = "on"
        new = lm.LocalModel(path=weights, engine="llguidance")
    finally:
        if saved is None:
            os.environ.pop("SMALLVILLE_PREFIX_STATES", None)
        else:
            os.environ["SMALLVILLE_PREFIX_STATES"] = saved
    paths = {"old": old, "new": new}
    seconds = dict.fromkeys(paths, 0.0)
    tokens = dict.fromkeys(paths, 0)
    fits = dict.fromkeys(paths, 0)
    try:
        for m in paths.values():  # load, tokenizer and first grammar outside the timing
            m.chat([{"role": "user", "content": "Say yes."}], schema={"type": "object", "properties": {
                "yes": {"type": "boolean"}}, "required": ["yes"]}, max_tokens=8)
        if new.prefixes is not None:
            new.prefixes.clear()
            new.prefixes.reused = new.prefixes.read = 0
        for i, call in enumerate(calls):
            order = ("old", "new") if i % 2 else ("new", "old")
            for name in order:
                t = time.monotonic()
                out = paths[name].chat(call["messages"], schema=call.get("schema"),
                                       json_mode=bool(call.get("json_mode")), max_tokens=int(call["max_tokens"]),
                                       temperature=float(call.get("temperature", 0.7)), seed=call.get("seed"))
                seconds[name] += time.monotonic() - t
                tokens[name] += int(out["usage"]["total_tokens"])
                fits[name] += _fits(call.get("schema"), out["choices"][0]["message"]["content"])
        states = new.prefixes
    finally:
        for m in paths.values():
            m.close()
    rate = {k: len(calls) / seconds[k] for k in paths}
    return {
        "replay_calls": len(calls),
        "replay_old_calls_per_s": round(rate["old"], 3),
        "replay_new_calls_per_s": round(rate["new"], 3),
        "replay_calls_speedup": round(rate["new"] / rate["old"], 2),
        "replay_old_tokens_per_s": round(tokens["old"] / seconds["old"], 1),
        "replay_new_tokens_per_s": round(tokens["new"] / seconds["new"], 1),
        "replay_prompt_reused": round(states.reused / states.read, 3) if states is not None and states.read else None,
        "replay_old_fit": f"{fits['old']}/{len(calls)}",
        "replay_new_fit": f"{fits['new']}/{len(calls)}",
    }


if __name__ == "__main__":
    print(json.dumps(replay_speed(int(sys.argv[1]) if len(sys.argv) > 1 else 60), indent=2))
