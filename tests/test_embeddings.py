"""Embedders: the hashing fake (fast) and the local MiniLM model (slow)."""
from __future__ import annotations

import numpy as np
import pytest
from fakes import HashEmbedder

from agents.model.gateway import load_config
from agents.recall.embeddings import Embedder, LocalEmbedder, VectorCache, make_embedder


def cos(a, b):
    return float(np.dot(a, b))


def test_hash_embedder_is_deterministic_normalised_and_word_based():
    e = HashEmbedder()
    assert isinstance(e, Embedder) and e.dim == 384 and e.model_name == "hash-test"
    v = e.embed(["Isabella makes coffee at the cafe", "Isabella makes coffee at the cafe", "Klaus reads a paper"])
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0)
    assert np.array_equal(v[0], v[1])
    near = e.embed_one("coffee at the cafe")
    assert cos(v[0], near) > cos(v[2], near)
    assert e.embed([]).shape == (0, 384)


class CountingEmbedder(LocalEmbedder):
    """LocalEmbedder's caching with a hashing model underneath (no torch)."""

    def __init__(self, cache_path):
        super().__init__(cache_path=cache_path)
        self.model_name = "counting"
        self.cache.model_name = "counting"
        self.batches = []

    def _compute(self, texts):
        self.batches.append(list(texts))
        return HashEmbedder(self.dim).embed(texts)


def test_cache_in_memory_and_on_disk(tmp_path):
    path = tmp_path / "emb.sqlite"
    e = CountingEmbedder(path)
    a = e.embed(["one", "two", "one"])
    assert e.batches == [["one", "two"]]
    b = e.embed(["two", "three"])
    assert e.batches[-1] == ["three"] and np.array_equal(a[1], b[0])
    e.close()
    e2 = CountingEmbedder(path)
    c = e2.embed(["one", "two", "three"])
    assert e2.batches == [] and np.allclose(c[0], a[0])
    other_model = VectorCache("another-model", path)
    assert other_model.get_many(["one"]) == {}


def test_make_embedder_default_is_local():
    e = make_embedder(load_config(env={}, toml_path=None).with_(embedding_cache=None))
    assert isinstance(e, LocalEmbedder) and e.dim == 384 and not e.loaded


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_local_embedder_real_model(tmp_path):
    e = LocalEmbedder(cache_path=tmp_path / "emb.sqlite")
    texts = [
        "Isabella is brewing coffee at Hobbs Cafe",
        "Isabella makes espresso for a customer in the cafe",
        "Sam Moore is running for mayor of the town",
    ]
    v = e.embed(texts)
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    assert cos(v[0], v[1]) > cos(v[0], v[2]) + 0.2
    again = e.embed(texts[:1])
    assert e.computed == 3 and np.allclose(again[0], v[0])
