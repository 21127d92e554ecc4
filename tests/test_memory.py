"""Memory stream and retrieval: scores against hand-computed examples."""
from datetime import datetime, timedelta

import numpy as np
import pytest

from agents.recall.memory import EmbeddingMismatch, MemoryStream, minmax

T0 = datetime(2023, 2, 13, 12, 0)


def small_stream():
    s = MemoryStream("test-model", 2)
    s.add("observation", "A", T0 - timedelta(hours=10), 2, np.array([1.0, 0.0]))
    s.add("observation", "B", T0, 8, np.array([0.0, 1.0]))
    s.add("thought", "C", T0 - timedelta(hours=5), 5, np.array([0.6, 0.8]))
    return s


def test_scores_match_hand_computation():
    s = small_stream()
    ids, score = s.scores(np.array([1.0, 0.0]), T0)
    # recency 0.995^hours: A 10 h, B 0 h, C 5 h -> min-max scaled
    ra, rb, rc = 0.995**10, 1.0, 0.995**5
    rec = [(ra - ra) / (rb - ra), 1.0, (rc - ra) / (rb - ra)]
    imp = [0.0, 1.0, (5 - 2) / (8 - 2)]
    rel = [1.0, 0.0, 0.6]  # cosines 1, 0, 0.6 are already min 0 and max 1
    expected = [rec[i] + imp[i] + rel[i] for i in range(3)]
    assert list(ids) == [0, 1, 2]
    assert np.allclose(score, expected)
    assert expected == pytest.approx([1.0, 2.0, 0.4937347 + 0.5 + 0.6], abs=1e-6)


def test_weights_are_configurable():
    s = small_stream()
    _, score = s.scores(np.array([1.0, 0.0]), T0, weights=(0.0, 0.0, 2.0))
    assert np.allclose(score, [2.0, 0.0, 1.2])


def test_retrieve_orders_and_updates_last_access():
    s = small_stream()
    later = T0 + timedelta(hours=3)
    got = s.retrieve(np.array([1.0, 0.0]), later, k=2)
    assert [x.description for x in got] == ["B", "C"]
    assert s.nodes[1].last_accessed == later and s.nodes[2].last_accessed == later
    assert s.nodes[0].last_accessed == T0 - timedelta(hours=10)  # not returned, not touched
    # Recency now counts sim hours since *that* access: B and C are equally recent.
    _ids, score = s.scores(np.array([1.0, 0.0]), later, weights=(1.0, 0.0, 0.0))
    assert score[1] == score[2] == pytest.approx(1.0) and score[0] == 0.0


def test_recency_in_sim_hours():
    s = MemoryStream("m", 2)
    s.add("observation", "old", T0, 5, np.array([1.0, 0.0]))
    s.add("observation", "new", T0 + timedelta(hours=2), 5, np.array([1.0, 0.0]))
    s.add("observation", "mid", T0 + timedelta(hours=1), 5, np.array([1.0, 0.0]))
    _ids, score = s.scores(np.array([1.0, 0.0]), T0 + timedelta(hours=2), weights=(1.0, 0.0, 0.0))
    r = [0.995**2, 1.0, 0.995**1]
    assert np.allclose(score, [(x - r[0]) / (1 - r[0]) for x in r])


def test_constant_column_is_half():
    assert np.allclose(minmax(np.array([3.0, 3.0, 3.0])), [0.5, 0.5, 0.5])
    s = MemoryStream("m", 2)
    for i in range(3):
        s.add("observation", f"n{i}", T0, 4, np.array([1.0, float(i)]))
    _, score = s.scores(np.array([1.0, 0.0]), T0, weights=(1.0, 1.0, 0.0))
    assert np.allclose(score, [1.0, 1.0, 1.0])  # equal recency and importance: 0.5 + 0.5


def test_refuses_mixed_embeddings():
    s = MemoryStream("all-MiniLM-L6-v2", 3)
    s.add("observation", "x", T0, 3, np.ones(3))
    with pytest.raises(EmbeddingMismatch, match="3-dim"):
        s.add("observation", "y", T0, 3, np.ones(4))
    with pytest.raises(EmbeddingMismatch, match="other-model"):
        s.add("observation", "z", T0, 3, np.ones(3), model="other-model")
    with pytest.raises(EmbeddingMismatch):
        s.retrieve(np.ones(5), T0)


def test_char_budget_and_kinds_and_expiry():
    s = small_stream()
    got = s.retrieve(np.array([1.0, 0.0]), T0, k=3, char_budget=4)
    assert len(got) == 2  # "B\n" + "C\n" fit in 4 characters, "A" does not
    assert [x.kind for x in s.retrieve(np.array([1.0, 0.0]), T0, kinds=["thought"])] == ["thought"]
    s.add("thought", "gone", T0 - timedelta(days=40), 9, np.array([1.0, 0.0]), expires=T0 - timedelta(days=10))
    assert "gone" not in [x.description for x in s.retrieve(np.array([1.0, 0.0]), T0, k=10)]
    # Asked for one kind, expired memories of that kind stay forgotten too.
    assert "gone" not in [x.description for x in s.retrieve(np.array([1.0, 0.0]), T0, k=10, kinds=["thought"])]


def test_growth_state_round_trip_and_recent():
    s = MemoryStream("m", 4, capacity=2)
    rng = np.random.default_rng(0)
    for i in range(300):
        s.add("observation" if i % 3 else "chat", f"event {i}", T0 + timedelta(minutes=i), 1 + i % 10,
              rng.normal(size=4), evidence=[i - 1] if i else [])
    s.add("reflection", "insight", T0, 7, rng.normal(size=4), evidence=[5, 999])
    assert s.nodes[-1].evidence == [5]  # evidence must point at existing nodes
    assert [x.description for x in s.recent(2)] == ["event 299", "insight"]
    assert len(s.by_kind("chat")) == 100
    state = s.to_state()
    t = MemoryStream("other", 2)
    t.from_state(state)  # the state contract: restored in place, the state's model and size
    assert t.model == s.model and t.dim == s.dim
    assert len(t) == len(s) and t.importance_since_reflection == s.importance_since_reflection
    q = rng.normal(size=4)
    now = T0 + timedelta(days=1)
    a = [x.id for x in s.retrieve(q, now, k=10, touch=False)]
    b = [x.id for x in t.retrieve(q, now, k=10, touch=False)]
    assert a == b
    assert t.nodes[7].to_dict() == s.nodes[7].to_dict()


def test_retrieval_is_vectorised_over_a_big_stream():
    # No Python loop per node: scoring 20k memories touches only the k nodes
    # it returns (speed itself is measured by `make bench`, not here).
    from agents.recall.memory import MemoryNode

    class CountingList(list):
        touched = 0

        def __getitem__(self, i):
            CountingList.touched += 1
            return super().__getitem__(i)

        def __iter__(self):
            raise AssertionError("retrieval iterated over every node")

    rng = np.random.default_rng(1)
    n = 20000
    s = MemoryStream("m", 384, capacity=n)
    s._emb[:n] = rng.normal(size=(n, 384)).astype(np.float32)
    s._imp[:n] = rng.integers(1, 11, n)
    s._last[:n] = np.linspace(200000, 201000, n)
    s.nodes = CountingList(MemoryNode(i, "observation", f"m{i}", T0, T0, 5) for i in range(n))
    got = s.retrieve(rng.normal(size=384), T0, k=30)
    assert len(got) == 30
    assert CountingList.touched <= 2 * 30


@pytest.mark.parametrize("kernel", ["float32", "int8"])
def test_big_streams_scan_in_int8_with_the_same_top_results(kernel, monkeypatch):
    # Past COMPACT_FROM rows the relevance scan may use an int8 copy (memory
    # bandwidth); re-scoring its best candidates exactly, the ranking must match the
    # exact float32 scores, whichever kernel this CPU found fastest.
    from agents import memory as mem

    monkeypatch.setattr(mem, "_kernel", kernel)

    rng = np.random.default_rng(7)
    n, dim = mem.COMPACT_FROM + 500, 32
    vecs = rng.standard_normal((n + 100, dim)).astype(np.float32)
    start = datetime(2023, 2, 13, 7, 0)
    stream = MemoryStream("test-model", dim, capacity=n + 100)
    for i in range(n):
        stream.add("observation", f"m{i}", start + timedelta(seconds=i), importance=1 + i % 10, embedding=vecs[i])
    query = vecs[3] + 0.1 * vecs[9]
    now = start + timedelta(hours=30)

    def exact_top(count, k=10):
        emb = vecs[:count] / np.linalg.norm(vecs[:count], axis=1, keepdims=True)
        rel = emb @ (query / np.linalg.norm(query))
        hours = np.array([(now - (start + timedelta(seconds=i))).total_seconds() / 3600 for i in range(count)])
        score = minmax(0.995 ** hours) + minmax(np.array([1 + i % 10 for i in range(count)], float)) + minmax(rel)
        return list(np.argsort(-score, kind="stable")[:k])

    got = [x.id for x in stream.retrieve(query, now, k=10, touch=False)]
    assert got == exact_top(n)
    # Rows added after a scan join the int8 copy.
    for i in range(n, n + 100):
        stream.add("observation", f"m{i}", start + timedelta(seconds=i), importance=1 + i % 10, embedding=vecs[i])
    got = [x.id for x in stream.retrieve(query, now, k=10, touch=False)]
    assert got == exact_top(n + 100)


def test_the_int8_scans_errors_are_corrected_by_exact_rescoring(monkeypatch):
    # Whatever the approximate scan gets wrong among the best candidates, re-scoring them
    # with exact cosines puts them back in the exact formula's order.
    from agents import memory as mem

    monkeypatch.setattr(mem, "_kernel", "int8")
    rng = np.random.default_rng(11)
    n, dim = mem.COMPACT_FROM + 100, 16
    vecs = rng.standard_normal((n, dim)).astype(np.float32)
    start = datetime(2023, 2, 13, 7, 0)
    stream = MemoryStream("test-model", dim, capacity=n)
    for i in range(n):
        stream.add("observation", f"m{i}", start, importance=5, embedding=vecs[i])
    query, now = vecs[42], start + timedelta(hours=1)
    exact = [x.id for x in stream.retrieve(query, now, k=5, touch=False, weights=(0, 0, 1))]
    assert exact[0] == 42

    def noisy(self, emb, count, q):  # the scan's errors, exaggerated: the true best look worst
        cos = emb[:count] @ q
        cos[exact] -= 0.05
        return cos

    monkeypatch.setattr(mem._Int8Rows, "cosines", noisy)
    assert [x.id for x in stream.retrieve(query, now, k=5, touch=False, weights=(0, 0, 1))] == exact


def test_the_scan_kernel_is_the_fastest_measured_or_the_one_asked_for(monkeypatch):
    from agents import memory as mem

    timings = mem.kernel_timings(rows=2000, dim=32, repeat=3)
    assert set(timings) == set(mem.KERNELS) and all(v > 0 for v in timings.values())
    monkeypatch.delenv("SMALLVILLE_SCAN_KERNEL", raising=False)
    monkeypatch.setattr(mem, "_kernel", None)
    monkeypatch.setattr(mem, "kernel_timings", lambda: {"float32": 3.0, "int8": 1.0})
    assert mem.scan_kernel() == "int8"
    monkeypatch.setattr(mem, "_kernel", None)
    monkeypatch.setattr(mem, "kernel_timings", lambda: {"float32": 3.0, "int8": 2.9})  # not clearly faster
    assert mem.scan_kernel() == "float32"
    monkeypatch.setattr(mem, "_kernel", None)
    monkeypatch.setenv("SMALLVILLE_SCAN_KERNEL", "int8")
    assert mem.scan_kernel() == "int8"
    monkeypatch.setattr(mem, "_kernel", None)
    monkeypatch.setenv("SMALLVILLE_SCAN_KERNEL", "int4")  # not a kernel: measured instead
    assert mem.scan_kernel() == "float32"


# ---- what the mutation pass (mutmut over agents/recall/memory.py) showed no test guarded

def _stream_with_everything():
    s = MemoryStream("m", 4)
    t0 = datetime(2023, 2, 13, 8)
    s.add("observation", "the stove is on", t0, 3, np.array([1.0, 0, 0, 0]))
    s.add("thought", "I should plan the party", t0 + timedelta(minutes=5), 7, np.array([0, 1.0, 0, 0]),
          source="model", importance_source="rule: too short", expires=t0 + timedelta(days=1))
    s.add("plan", "bake at 10", t0 + timedelta(minutes=9), 5, np.array([0, 0, 1.0, 0]), source="routine")
    s.add("thought", "Sam seems tired", t0 + timedelta(minutes=12), 4, np.array([0, 0, 0, 1.0]), source="model")
    return s, t0


def test_recent_filters_by_kind_and_counts():
    s, _ = _stream_with_everything()
    assert [x.description for x in s.recent(5, kinds=["thought"])] == ["I should plan the party", "Sam seems tired"]
    assert [x.kind for x in s.recent(2)] == ["plan", "thought"]
    assert s.recent(0) == [] and s.recent(-3) == []
    assert len(s.recent(1)) == 1


def test_a_saved_stream_keeps_provenance_expiry_and_float32_rows():
    s, t0 = _stream_with_everything()
    back = MemoryStream("m", 4)
    back.from_state(s.to_state())
    node = back.nodes[1]
    assert node.source == "model" and node.importance_source == "rule: too short"
    assert node.expires == t0 + timedelta(days=1) and back.nodes[0].expires is None
    assert back.nodes[2].source == "routine" and back.nodes[0].source == ""
    assert back.embedding(1).dtype == np.float32
    state = s.to_state()
    state["embeddings"] = np.asarray(state["embeddings"], dtype=np.float64)  # e.g. an older save's rows
    back.from_state(state)
    assert back._emb.dtype == np.float32


def test_a_snapshot_keeps_the_last_access_of_its_moment():
    s, t0 = _stream_with_everything()
    build = s.snapshot()
    later = t0 + timedelta(hours=3)
    s.retrieve(np.array([0, 1.0, 0, 0]), later, k=4)  # touches every node after the snapshot
    assert all(x.last_accessed == later for x in s.nodes)
    saved = build()
    assert [d["last_accessed"] for d in saved["nodes"]] == [
        (t0 + timedelta(minutes=m)).isoformat() for m in (0, 5, 9, 12)]


def test_a_snapshot_keeps_the_ratings_of_its_moment():
    """A save taken while a job re-rates a memory (or the copy an early job is undone
    to) records the rating from when it was taken, as the unrated list beside it does."""
    s, _ = _stream_with_everything()
    before = [(x.importance, x.importance_source) for x in s.nodes]
    isr = s.importance_since_reflection
    build = s.snapshot()
    s.rerate(0, 9, "model: rated later")
    assert s.nodes[0].importance == 9
    saved = build()
    assert [(d["importance"], d["importance_source"]) for d in saved["nodes"]] == before
    assert saved["importance_since_reflection"] == isr
    back = MemoryStream(saved["model"], saved["dim"])
    back.from_state(saved)
    assert back.nodes[0].importance == before[0][0] and back._imp[0] == before[0][0]


def test_retrieve_honours_its_weights_k_and_budget():
    """Found unguarded by the mutation pass: the weights and decay reach the score,
    k = 1 gives one memory, k = 0 none, and a tiny budget still gives the best one."""
    s, t0 = _stream_with_everything()
    now = t0 + timedelta(hours=1)
    q = np.array([1.0, 0, 0, 0])  # most like the oldest, least important memory
    assert s.retrieve(q, now, k=1, weights=(0.0, 0.0, 1.0), touch=False)[0].description == "the stove is on"
    assert s.retrieve(q, now, k=1, weights=(1.0, 0.0, 0.0), touch=False)[0].description == "Sam seems tired"
    assert s.retrieve(q, now, k=1, weights=(0.0, 1.0, 0.0), touch=False)[0].description == "I should plan the party"
    assert len(s.retrieve(q, now, k=1, touch=False)) == 1 and s.retrieve(q, now, k=0, touch=False) == []
    best = s.retrieve(q, now, k=1, touch=False)
    assert s.retrieve(q, now, k=4, char_budget=1, touch=False) == best  # always at least one: the best
    # Recency against relevance: with the usual decay the newest wins; with none, recency ties.
    assert s.retrieve(q, now, k=1, weights=(1.0, 0.0, 0.6), touch=False)[0].description == "Sam seems tired"
    flat = s.retrieve(q, now, k=1, weights=(1.0, 0.0, 0.6), decay=1.0, touch=False)
    assert flat[0].description == "the stove is on"


# ---- the second mutation pass (the stream's bookkeeping, outside retrieval)

def test_add_clamps_importance_keeps_evidence_zero_and_defaults_provenance_to_none():
    s, t0 = _stream_with_everything()
    assert s.add("observation", "a", t0, 15, np.ones(4)).importance == 10   # the paper's 1..10 scale
    assert s.add("observation", "b", t0, 1, np.ones(4)).importance == 1
    assert s.add("observation", "c", t0, -4, np.ones(4)).importance == 1
    before = s.importance_since_reflection
    r = s.add("reflection", "Sam and I bake", t0, 6, np.ones(4), evidence=[0, 3, 7, 99, -1])
    assert r.id == 7 and r.evidence == [0, 3]   # the first memory counts; itself and ids not yet stored do not
    assert r.source == "" and r.importance_source == ""
    assert s.importance_since_reflection == before   # a reflection never counts toward the next one
    t = s.add("observation", "the stove is on", t0, 3, np.ones(4), subject="stove", predicate="is", object="on")
    assert (t.subject, t.predicate, t.object) == ("stove", "is", "on")
    assert s.importance_since_reflection == before + 3


def test_rows_are_stored_as_unit_vectors_and_a_zero_vector_stays_zero():
    s = MemoryStream("m", 2)
    small = s.add("observation", "a", T0, 5, np.array([0.3, 0.4]))   # norm 0.5
    big = s.add("observation", "b", T0, 5, np.array([30.0, 40.0]))
    zero = s.add("observation", "c", T0, 5, np.zeros(2))
    assert np.allclose(s.embedding(small.id), [0.6, 0.8]) and np.allclose(s.embedding(big.id), [0.6, 0.8])
    assert np.array_equal(s.embedding(zero.id), [0.0, 0.0])   # no NaN row to poison every score
    assert np.isfinite(s.scores(np.array([1.0, 0.0]), T0)).all()


def test_a_row_vector_is_one_vector_and_a_bad_kind_is_named():
    s = MemoryStream("m", 3)
    node = s.add("observation", "x", T0, 5, np.array([[0.0, 3.0, 4.0]]))   # (1, dim), as some embedders give
    assert np.allclose(s.embedding(node.id), [0.0, 0.6, 0.8])
    with pytest.raises(ValueError, match="unknown memory kind 'dream'"):
        s.add("dream", "x", T0, 5, np.ones(3))


def test_get_finds_every_stored_id_and_nothing_else():
    s, _ = _stream_with_everything()
    assert [s.get(i).description for i in range(4)] == [x.description for x in s.nodes]
    assert s.get(4) is None and s.get(-1) is None and s.get(99) is None


def test_rerate_clamps_and_counts_toward_reflection_only_what_was_perceived_or_heard():
    s, t0 = _stream_with_everything()
    before = s.importance_since_reflection   # the observation's 3 (thoughts and plans are no new experience)
    assert before == 3
    s.rerate(0, 12, "model")   # 3 -> 10
    assert s.nodes[0].importance == 10 and s.nodes[0].importance_source == "model"
    assert s.importance_since_reflection == before + 7
    s.rerate(1, 1, "model")    # a thought: 7 -> 1, and the sum stays
    assert s.nodes[1].importance == 1 and s.importance_since_reflection == before + 7
    c = s.add("chat", "Maria told me about the party", t0, 6, np.ones(4))
    assert s.importance_since_reflection == before + 7 + 6
    s.rerate(c.id, 2, "model")
    assert s.importance_since_reflection == before + 7 + 2
    r = s.add("reflection", "a thought about thoughts", t0, 4, np.ones(4))
    s.rerate(r.id, 9, "model")   # reflections never count toward the next reflection
    assert s.nodes[r.id].importance == 9 and s.importance_since_reflection == before + 7 + 2


def test_a_grown_stream_keeps_float32_rows_and_its_expiry_through_a_save():
    s = MemoryStream("m", 4, capacity=2)
    t0 = datetime(2023, 2, 13, 8)
    for i in range(5):   # past its capacity twice
        s.add("plan", f"p{i}", t0, 5, np.eye(4)[i % 4], expires=t0 + timedelta(hours=1) if i == 4 else None)
    assert s._emb.dtype == np.float32 and s._kind.dtype == np.int8
    state = s.to_state()
    assert state["embeddings"].dtype == np.float32 and state["embeddings"].shape == (5, 4)
    back = MemoryStream("m", 4)
    back.from_state(state)
    later = t0 + timedelta(hours=2)   # p4 has expired by then, in the loaded stream too
    assert "p4" not in [x.description for x in back.retrieve(np.eye(4)[0], later, k=10)]
    assert "p4" in [x.description for x in back.retrieve(np.eye(4)[0], t0, k=10)]


def test_a_corrupt_memory_state_is_refused_and_a_missing_counter_is_zero():
    s, _ = _stream_with_everything()
    state = s.to_state()
    state["nodes"][2]["id"] = 7   # ids out of order: the rows would no longer match
    with pytest.raises(ValueError, match="memory state is corrupt: node 2 has id 7"):
        MemoryStream("m", 4).from_state(state)
    state = s.to_state()
    del state["importance_since_reflection"]   # an older save's
    back = MemoryStream("m", 4)
    back.from_state(state)
    assert back.importance_since_reflection == 0.0


def test_without_simsimd_the_scan_is_float32(monkeypatch):
    from agents import memory as mem

    monkeypatch.setattr(mem, "simsimd", None)  # as when it is not installed
    monkeypatch.setattr(mem, "_kernel", None)
    monkeypatch.delenv("SMALLVILLE_SCAN_KERNEL", raising=False)
    assert set(mem.kernel_timings(rows=500, dim=16, repeat=1)) == {"float32"}
    assert mem.scan_kernel() == "float32"
    monkeypatch.setattr(mem, "_kernel", None)
    monkeypatch.setenv("SMALLVILLE_SCAN_KERNEL", "int8")  # asked for, but it cannot run here
    assert mem.scan_kernel() == "float32"


def test_top_indices_is_exact_on_big_and_small_arrays():
    from agents.recall.memory import top_indices

    rng = np.random.default_rng(3)
    for n, k in ((10, 3), (5000, 12), (100_000, 48), (100_000, 12)):
        score = rng.standard_normal(n).astype(np.float32)
        assert sorted(top_indices(score, k)) == sorted(np.argsort(-score)[:k])
    # The best scores all in one end of the array (the strided sample sees few of them).
    score = np.zeros(50_000, dtype=np.float32)
    score[:40] = np.arange(40, 0, -1)
    assert sorted(top_indices(score, 12)) == list(range(12))
    assert len(top_indices(score, 60)) == 60 and set(range(40)) <= set(top_indices(score, 60))


def test_int8_copy_is_within_its_stated_error():
    from agents.recall.memory import _Int8Rows

    rng = np.random.default_rng(5)
    emb = rng.standard_normal((3000, 384)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    emb[7] = 0.0  # an empty row scans as 0, not NaN
    q = emb[3]
    approx = _Int8Rows().cosines(emb, len(emb), q)
    assert np.abs(approx - emb @ q).max() < 3e-3 and approx[7] == 0.0
