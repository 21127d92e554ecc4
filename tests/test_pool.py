"""The worker pool: one job per key, results to the main thread, cancel, errors."""
from __future__ import annotations

import threading
import time

import pytest

from agents.threads.pool import MindPool


def test_results_come_back():
    with MindPool(2) as pool:
        for i in range(5):
            assert pool.submit(f"r{i}", lambda x: x * x, i)
        assert pool.wait(5)
        got = {r.key: r.value for r in pool.results()}
        assert got == {f"r{i}": i * i for i in range(5)}
        assert pool.results() == [] and pool.in_flight() == 0


def test_one_job_per_key():
    gate = threading.Event()
    with MindPool(2) as pool:
        assert pool.submit("isabella", gate.wait, 5)
        assert pool.busy("isabella") and not pool.busy("maria")
        assert not pool.submit("isabella", lambda: 1)
        assert pool.submit("maria", lambda: 2)
        gate.set()
        assert pool.wait(5)
        assert not pool.busy("isabella")
        assert pool.submit("isabella", lambda: 3)  # free again
        assert pool.wait(5)
        assert sorted(r.key for r in pool.results()) == ["isabella", "isabella", "maria"]


def test_never_two_jobs_of_one_key_at_once():
    running: dict[str, int] = {}
    peak = {"n": 0}
    lock = threading.Lock()

    def job(key):
        with lock:
            running[key] = running.get(key, 0) + 1
            peak["n"] = max(peak["n"], running[key])
        time.sleep(0.005)
        with lock:
            running[key] -= 1

    with MindPool(4) as pool:
        for _ in range(60):
            for key in ("a", "b", "c"):
                pool.submit(key, job, key)
            time.sleep(0.001)
        pool.wait(5)
    assert peak["n"] == 1


def test_exceptions_become_errors(caplog):
    def bad():
        raise ValueError("no plan")

    with MindPool(1) as pool:
        pool.submit("klaus", bad)
        pool.wait(5)
        (res,) = pool.results()
    assert res.key == "klaus" and isinstance(res.error, ValueError) and not res.ok
    assert "klaus" in caplog.text and "no plan" in caplog.text


def test_cancel_all_drops_queued_and_discards_running():
    gate = threading.Event()
    started = threading.Event()
    ran = []

    def blocker():
        started.set()
        gate.wait(5)
        return "late"

    pool = MindPool(1)
    pool.submit("running", blocker)
    assert started.wait(5)
    for i in range(3):
        pool.submit(f"queued{i}", ran.append, i)
    pool.cancel_all()
    assert pool.busy("running") and not pool.busy("queued0")
    assert not pool.submit("running", lambda: 0)  # still running: never twice at once
    gate.set()
    assert pool.wait(5)
    assert pool.results() == [] and ran == []
    assert pool.submit("after", lambda: "fresh")  # the pool still works
    pool.wait(5)
    assert [(r.key, r.value) for r in pool.results()] == [("after", "fresh")]
    pool.shutdown()
    assert not pool.submit("x", lambda: 0)


def test_wait_times_out():
    gate = threading.Event()
    pool = MindPool(1)
    pool.submit("slow", gate.wait, 5)
    assert pool.wait(0.05) is False
    gate.set()
    assert pool.wait(5) is True
    pool.shutdown()


def test_play_workers_run_below_the_frame_thread():
    """MindPool(nice=N): each worker thread's priority is N below the caller's (Linux,
    per thread), so the frame gets a core back at once; nice=0 leaves it alone."""
    import os
    import sys
    import threading

    import pytest

    from agents.threads.pool import MindPool

    if not sys.platform.startswith("linux"):
        pytest.skip("per-thread priorities are Linux's")
    me = os.getpriority(os.PRIO_PROCESS, 0)

    def prio():
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    for nice, want in ((3, min(19, me + 3)), (0, me)):
        pool = MindPool(1, nice=nice)
        assert pool.submit("a", prio)
        assert pool.wait(5)
        (res,) = pool.results()
        assert res.ok and res.value == want, (nice, res)
        pool.shutdown()
    assert os.getpriority(os.PRIO_PROCESS, 0) == me  # the caller's own priority is untouched


def test_wait_keys_waits_for_those_keys_only():
    gate = threading.Event()
    with MindPool(2) as pool:
        assert pool.submit("slow", gate.wait, 5)
        assert pool.submit("fast", lambda: 1)
        assert pool.wait_keys({"fast"}, timeout=5)  # back, while "slow" still thinks
        assert pool.busy("slow")
        assert not pool.wait_keys({"slow", "fast"}, timeout=0.05)
        gate.set()
        assert pool.wait_keys({"slow"}, timeout=5)


def test_a_call_beside_the_job_gives_its_result_or_raises_its_error_where_it_is_taken():
    from agents.threads.beside import Beside, Done

    gate = threading.Event()
    got = Beside(lambda: gate.wait(5) and "answer")
    assert got._thread.is_alive()  # the job goes on while it runs
    gate.set()
    assert got.result() == "answer" and got.result() == "answer"

    def broken():
        raise TimeoutError("the model did not answer")

    with pytest.raises(TimeoutError, match="did not answer"):
        Beside(broken).result()  # raised on the job's thread, where the result is taken
    assert Done(("rule", "budget")).result() == ("rule", "budget")
