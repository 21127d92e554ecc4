"""The embedded model's pool of llama.cpp instances (agents.local_model.ModelPool):
calls run side by side up to the pool's size, waiting counts toward a call's
deadline, and headless runs get more instances than the window."""
from __future__ import annotations

import threading

import pytest

from agents import local_model
from agents.engine import model_pool
from agents.engine.local_model import LocalModel, ModelPool, default_instances
from agents.support.errors import ConfigError


class SlowInstance:
    """Stands in for a LocalModel: each chat holds the instance until released.
    ``entered`` counts the calls that reached an instance; ``work`` seconds of the
    fake clock pass while the next call answers."""

    made = 0
    entered = threading.Semaphore(0)

    def __init__(self) -> None:
        SlowInstance.made += 1
        self.gate = threading.Event()
        self.calls = 0
        self.loaded = False
        self.clock: FakeClock | None = None
        self.work = 0.0

    def chat(self, messages, *, timeout=None, **kwargs):
        self.calls += 1
        SlowInstance.entered.release()
        self.gate.wait(5)
        if self.clock is not None:
            self.clock.t += self.work
            self.work = 0.0
        return {"instance": id(self), "timeout": timeout}

    def load(self):
        self.loaded = True
        return self

    def close(self):
        self.gate.set()


class FakeClock:
    """agents.model_pool's time.monotonic: it moves only when a test says so."""

    def __init__(self) -> None:
        self.t = 1000.0

    def monotonic(self) -> float:
        return self.t


class _SignallingCondition(threading.Condition):
    """The pool's condition, releasing ``queued`` as a call starts to wait for an
    instance (it still holds the lock then: a freed instance cannot pass it by)."""

    def __init__(self) -> None:
        super().__init__()
        self.queued = threading.Semaphore(0)

    def wait_for(self, predicate, timeout=None):
        self.queued.release()
        return super().wait_for(predicate, timeout)


@pytest.fixture(autouse=True)
def _fresh_counts():
    SlowInstance.entered = threading.Semaphore(0)


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(model_pool, "time", fake)
    return fake


def signalling(pool: ModelPool) -> _SignallingCondition:
    cond = _SignallingCondition()
    pool._cond = cond  # before any call: the pool's waits and hand-overs all go through it
    return cond


def run_in_thread(pool, results, **kw):
    t = threading.Thread(target=lambda: results.append(pool.chat([{"role": "user", "content": "hi"}], **kw)))
    t.start()
    return t


def test_calls_run_side_by_side_up_to_the_pool_size():
    pool = ModelPool(2, make=SlowInstance)
    results: list = []
    threads = [run_in_thread(pool, results), run_in_thread(pool, results)]
    for _ in threads:  # both calls are answering at once: the second did not wait for the first
        assert SlowInstance.entered.acquire(timeout=5)
    assert pool.instances == 2
    # A third call finds both busy: it waits, and gives up at its deadline.
    with pytest.raises(TimeoutError, match="stayed busy"):
        pool.chat([{"role": "user", "content": "x"}], timeout=0.05)
    assert pool.instances == 2
    pool.close()
    for t in threads:
        t.join(5)
    assert len(results) == 2 and len({r["instance"] for r in results}) == 2


def test_an_instance_is_reused_and_waiting_counts_toward_the_deadline(clock):
    pool = ModelPool(1, make=SlowInstance)
    cond = signalling(pool)
    results: list = []
    first = run_in_thread(pool, results)
    assert SlowInstance.entered.acquire(timeout=5)
    inst = pool._all[0]
    inst.clock, inst.work = clock, 2.0  # the first call answers for 2 s of the clock
    later: list = []
    second = run_in_thread(pool, later, timeout=30.0)
    assert cond.queued.acquire(timeout=5)  # the second call waits for the one instance
    inst.gate.set()  # the first call ends; the second takes the same instance
    first.join(5)
    second.join(5)
    assert pool.instances == 1 and inst.calls == 2
    assert later[0]["timeout"] == pytest.approx(28.0)  # what is left of its deadline, not a fresh one


def test_load_loads_one_instance_and_resize_allows_more():
    pool = ModelPool(1, make=SlowInstance)
    assert pool.load().loaded and pool.instances == 1
    pool.resize(3)
    assert pool.size == 3 and pool.instances == 1  # the others are made when calls need them
    pool.resize(0)
    assert pool.size == 1


def test_headless_runs_get_every_core_and_the_window_keeps_one(monkeypatch):
    monkeypatch.delenv("SMALLVILLE_MODEL_INSTANCES", raising=False)
    monkeypatch.setattr(local_model.os, "cpu_count", lambda: 2)
    assert default_instances(headless=True) == 2
    assert default_instances(headless=False) == 1
    monkeypatch.setattr(local_model.os, "cpu_count", lambda: 16)
    assert default_instances(headless=True) == 4 and default_instances(headless=False) == 4
    monkeypatch.setattr(local_model.os, "cpu_count", lambda: 1)
    assert default_instances(headless=False) == 1
    monkeypatch.setenv("SMALLVILLE_MODEL_INSTANCES", "3")
    assert default_instances(headless=False) == 3
    monkeypatch.setenv("SMALLVILLE_MODEL_INSTANCES", "0")  # 0: one per core
    assert default_instances(headless=True) == 1
    monkeypatch.setenv("SMALLVILLE_MODEL_INSTANCES", "lots")  # not a number: one line saying what it should be
    with pytest.raises(ConfigError, match=r"SMALLVILLE_MODEL_INSTANCES='lots': it must be a whole number"):
        default_instances(headless=True)


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_two_real_instances_answer_side_by_side():
    pool = ModelPool(2, make=LocalModel)
    schema = {"type": "object", "properties": {"rating": {"type": "integer", "minimum": 1, "maximum": 10}},
              "required": ["rating"]}
    results: list = []
    prompt = [{"role": "user", "content": 'Rate eating breakfast from 1 to 10. Answer as {"rating": <1-10>}.'}]
    threads = [threading.Thread(target=lambda: results.append(pool.chat(prompt, schema=schema, max_tokens=16,
                                                                          seed=0, timeout=120)))
               for _ in range(2)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(150)
    finally:
        pool.close()
    import json

    assert pool.instances == 2 and len(results) == 2
    assert all(1 <= json.loads(r["choices"][0]["message"]["content"])["rating"] <= 10 for r in results)


def test_busy_time_counts_answering_not_waiting_for_an_instance(clock):
    pool = ModelPool(1, make=SlowInstance)
    cond = signalling(pool)
    results: list = []
    first = run_in_thread(pool, results)  # holds the one instance until its gate opens
    assert SlowInstance.entered.acquire(timeout=5)
    inst = pool._all[0]
    inst.clock, inst.work = clock, 0.4  # the first call answers for 0.4 s of the clock
    second = run_in_thread(pool, results)  # waits those 0.4 s, then answers at once
    assert cond.queued.acquire(timeout=5)
    inst.gate.set()
    for t in (first, second):
        t.join(5)
    assert len(results) == 2
    # 0.4 s of answering; counting the second call's wait would make it 0.8.
    assert pool.busy_s() == pytest.approx(0.4)
