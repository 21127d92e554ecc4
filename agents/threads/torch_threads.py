"""Torch on this machine's two shared cores: one thread (the local embeddings use torch)."""
from __future__ import annotations

import os


def limit_torch_threads() -> None:
    """One torch thread by default: on 2 shared cores it embeds 4-5x faster than two
    (measured: 1 thread 120-175 sentences/s, 2 threads 25-35/s while the game and the
    language model run). SMALLVILLE_TORCH_THREADS overrides."""
    try:
        import torch  # lazy: importing torch costs seconds

        torch.set_num_threads(max(1, int(os.environ.get("SMALLVILLE_TORCH_THREADS", "1"))))
    except Exception:  # noqa: BLE001 - a missing or odd torch shows up at model load
        pass
