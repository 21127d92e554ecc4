"""The embedded model's float16 copy of its shipped 4-bit weights (agents/engine/local_model.py):
made once with llama.cpp's converter, reused, and never in the way when it cannot be
made or read (the shipped file runs, and the log says why)."""
from __future__ import annotations

import logging
import os
import time

import pytest

from agents import local_model
from agents.engine.local_model import LocalModel, f16_copy_path, find_gguf, runtime_gguf


def _shipped():
    try:
        return find_gguf()
    except local_model.ModelNotInstalled as err:
        pytest.skip(str(err))


def _file_type(path) -> str:
    from llama_cpp import Llama

    return Llama(model_path=str(path), n_ctx=64, verbose=False, vocab_only=True).metadata["general.file_type"]


@pytest.mark.timeout(120)
def test_copy_is_float16_made_once_and_sweeps_what_older_runs_left(tmp_path):
    shipped = _shipped()
    models = tmp_path / "models"
    models.mkdir()
    old_copy = models / f"{shipped.stem}.1-2.F16.gguf"  # of an older version of the weights
    stale_temp = models / f"{shipped.stem}.1-2.F16.gguf.99.tmp"  # a killed run's
    live_temp = models / f"{shipped.stem}.3-4.F16.gguf.98.tmp"  # another process converting now
    for p in (old_copy, stale_temp, live_temp):
        p.write_bytes(b"x")
    hour_ago = time.time() - 3600
    os.utime(stale_temp, (hour_ago, hour_ago))

    copy = runtime_gguf(shipped, tmp_path)

    assert copy == f16_copy_path(shipped, tmp_path) and copy.is_file()
    assert _file_type(copy) == "1"  # LLAMA_FTYPE_MOSTLY_F16
    assert _file_type(shipped) != "1"
    assert copy.stat().st_size > 2 * shipped.stat().st_size
    assert not old_copy.exists() and not stale_temp.exists()
    assert live_temp.exists()
    assert not list(models.glob(f"{copy.name}.*.tmp"))  # its own temp renamed into place
    made = copy.stat().st_mtime_ns
    assert runtime_gguf(shipped, tmp_path) == copy
    assert copy.stat().st_mtime_ns == made  # reused, not made again

    answer = LocalModel(path=copy).chat([{"role": "user", "content": "Say hello."}], max_tokens=8, seed=0)
    assert answer["choices"][0]["message"]["content"].strip()


def test_shipped_weights_when_asked(tmp_path, monkeypatch):
    shipped = tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    shipped.write_bytes(b"GGUF")
    monkeypatch.setattr(local_model, "WEIGHTS", "shipped")
    assert runtime_gguf(shipped, tmp_path / "cache") == shipped
    assert not (tmp_path / "cache").exists()


def test_weights_that_are_not_4bit_run_as_they_are(tmp_path):
    given = tmp_path / "model.F16.gguf"
    given.write_bytes(b"GGUF")
    assert runtime_gguf(given, tmp_path / "cache") == given
    assert not (tmp_path / "cache").exists()


def test_unwritable_cache_runs_the_shipped_weights_and_says_where(tmp_path, caplog):
    shipped = tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    shipped.write_bytes(b"GGUF")
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "models").write_text("a file where the folder should be")
    with caplog.at_level(logging.WARNING, logger="agents.engine.local_model"):
        assert runtime_gguf(shipped, cache) == shipped
    assert "shipped 4-bit weights" in caplog.text and str(cache / "models") in caplog.text


@pytest.mark.timeout(60)
def test_unreadable_shipped_file_runs_as_it_is_and_leaves_no_temp(tmp_path, caplog):
    shipped = tmp_path / "broken.Q4_1.gguf"
    shipped.write_bytes(b"not a gguf file at all" * 100)
    with caplog.at_level(logging.WARNING, logger="agents.engine.local_model"):
        assert runtime_gguf(shipped, tmp_path / "cache") == shipped
    assert "converter failed" in caplog.text
    assert list((tmp_path / "cache" / "models").iterdir()) == []


@pytest.mark.timeout(120)
def test_damaged_copy_is_removed_and_the_shipped_weights_load(tmp_path, monkeypatch, caplog):
    shipped = _shipped()
    monkeypatch.delenv("SMALLVILLE_GGUF", raising=False)
    monkeypatch.setattr(local_model.home, "cache_dir", lambda: tmp_path)
    damaged = f16_copy_path(shipped, tmp_path)
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"GGUF" + b"\0" * 4096)  # cut short: a full disk, a stray edit
    model = LocalModel()
    with caplog.at_level(logging.WARNING, logger="agents.engine.local_model"):
        model.load()
    try:
        assert not damaged.exists()
        assert "does not load" in caplog.text and str(damaged) in caplog.text
        assert model.chat([{"role": "user", "content": "Say hello."}], max_tokens=4, seed=0)["choices"]
    finally:
        model.close()


def _streams() -> tuple:
    """What the process's stdout and stderr are: Python's objects and the files behind fds 1 and 2."""
    import sys

    return sys.stdout, sys.stderr, *((os.fstat(fd).st_dev, os.fstat(fd).st_ino) for fd in (1, 2))


def _load_both(models: list) -> None:
    import threading

    together = threading.Barrier(len(models))

    def one(m):
        together.wait()
        m.load()

    threads = [threading.Thread(target=one, args=(m,)) for m in models]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


@pytest.mark.timeout(120)
def test_two_instances_loading_at_once_leave_stdout_and_stderr_as_they_were(tmp_path, monkeypatch):
    # llama-cpp-python silences loading by pointing fds 1 and 2 at /dev/null and back, which two
    # threads at once could leave pointing there: `smallville sim` then lost its summary
    import sys

    from llama_cpp._utils import suppress_stdout_stderr

    class Slow:  # loads as llama-cpp-python does, slowly enough for the two loads to overlap
        def __init__(self, **kw):
            with suppress_stdout_stderr(disable=False):
                time.sleep(0.2)

    monkeypatch.setattr(local_model, "runtime_gguf", lambda shipped: shipped)
    before = _streams()
    saved = (os.dup(1), os.dup(2))
    try:
        monkeypatch.setitem(sys.modules, "llama_cpp", type("M", (), {"Llama": Slow}))
        _load_both([LocalModel(path=tmp_path / "x.gguf") for _ in range(2)])
        assert _streams() == before
        monkeypatch.undo()  # the real thing: both instances of the shipped model at once
        shipped = _shipped()
        _load_both([LocalModel(path=shipped, n_ctx=256) for _ in range(2)])
        assert _streams() == before
    finally:
        sys.stdout, sys.stderr = before[0], before[1]
        for fd, copy in zip((1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)
