"""Where an experiment's branches run: one after another in this process, as
local processes (``--workers N``), or as tasks on a Ray cluster (``--ray
ADDRESS``). Branches are independent, so any of them may run anywhere.

Whatever runs them, a branch that dies (an error, a killed process or Ray
worker) is run again once, from scratch; a second death is reported by name
with its reason, and the other branches carry on. Each backend returns
``{name: result}``: a result is the branch's own summary (branch.run_branch)
or ``{"name", "error", "attempts"}``.

On Ray each task gets the branch point's save as bytes and sends its run folder
back as a tar.gz, which is unpacked into the experiment folder: the cluster's
machines share no disk with this one. They need the same smallville installed
(with the ``ray`` extra) and reach the model servers named in the config.
"""
from __future__ import annotations

import io
import json
import logging
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from game.support import folders
from game.support.errors import UserError
from lab.experiment.branch import run_branch

log = logging.getLogger(__name__)

ATTEMPTS = 2  # a branch is run at most twice: once, and once more if it dies


def _fresh(out: str | Path) -> None:
    """A retried branch starts from an empty run folder (a run never appends to a dead one's files)."""
    shutil.rmtree(out, ignore_errors=True)


def _failed(name: str, attempts: int, why: str) -> dict:
    return {"name": name, "error": why, "attempts": attempts}


# ---------------------------------------------------------------------------- in this process


def run_here(specs: list[dict], echo: Callable[[str], None], run: Callable[[dict], dict] = run_branch) -> dict:
    """One branch after another in this process (``--workers 1``, the default)."""
    out: dict[str, dict] = {}
    for spec in specs:
        for attempt in range(1, ATTEMPTS + 1):
            _fresh(spec["out"])
            try:
                res = run(spec)
                out[spec["name"]] = {**res, "attempts": attempt}
                echo(f"  {spec['name']}: done ({res.get('calls', 0)} calls, {res.get('wall_s', 0):g} s)")
                break
            except Exception as err:
                log.exception("branch %s died (attempt %d)", spec["name"], attempt)
                why = f"{type(err).__name__}: {err}"
                if attempt < ATTEMPTS:
                    echo(f"  {spec['name']}: died ({why}); running it again")
                else:
                    out[spec["name"]] = _failed(spec["name"], attempt, why)
    return out


# ---------------------------------------------------------------------------- local processes


def run_processes(specs: list[dict], workers: int, folder: Path, echo: Callable[[str], None],
                  command: list[str] | None = None, poll_s: float = 0.2) -> dict:
    """Up to ``workers`` branches at once, each a ``python -m lab.experiment.branch SPEC``
    process with its log in ``<experiment>/logs/<name>.log``."""
    command = command or [sys.executable, "-m", "lab.experiment.branch"]
    (folder / "specs").mkdir(parents=True, exist_ok=True)
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    todo = [(s, 1) for s in specs]
    running: dict[str, tuple[subprocess.Popen, dict, int, Any]] = {}
    out: dict[str, dict] = {}
    while todo or running:
        while todo and len(running) < max(1, workers):
            spec, attempt = todo.pop(0)
            _fresh(spec["out"])
            path = folder / "specs" / f"{spec['name']}.json"
            path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
            path.with_suffix(".result.json").unlink(missing_ok=True)
            logf = (folder / "logs" / f"{spec['name']}.log").open("a", encoding="utf-8")
            proc = subprocess.Popen([*command, str(path)], stdout=logf, stderr=subprocess.STDOUT,
                                    env={**os.environ, "PYTHONPATH": _pythonpath()})
            running[spec["name"]] = (proc, spec, attempt, logf)
        time.sleep(poll_s)
        for name, (proc, spec, attempt, logf) in list(running.items()):
            code = proc.poll()
            if code is None:
                continue
            logf.close()
            del running[name]
            result = folder / "specs" / f"{name}.result.json"
            if code == 0 and result.exists():
                res = json.loads(result.read_text(encoding="utf-8"))
                out[name] = {**res, "attempts": attempt}
                echo(f"  {name}: done ({res.get('calls', 0)} calls, {res.get('wall_s', 0):g} s)")
                continue
            why = f"exit code {code}: " + _tail(folder / "logs" / f"{name}.log")
            if attempt < ATTEMPTS:
                echo(f"  {name}: died ({why}); running it again")
                todo.append((spec, attempt + 1))
            else:
                out[name] = _failed(name, attempt, why)
    return out


def _pythonpath() -> str:
    """This checkout first, so a child process runs the same code as this one."""
    root = str(Path(__file__).resolve().parents[2])
    rest = os.environ.get("PYTHONPATH", "")
    return root + (os.pathsep + rest if rest else "")


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return "no log"
    return " | ".join(text[-lines:]) or "no output"


# ---------------------------------------------------------------------------- Ray


def branch_task(spec: dict, save: bytes) -> tuple[dict, bytes]:
    """A Ray task: the branch in a scratch folder of the worker's machine; (result, the run
    folder as tar.gz). The experiment's cache is shared when its folder is reachable here."""
    with tempfile.TemporaryDirectory(prefix="smallville-branch-") as tmp:
        local = dict(spec)
        local["save"] = str(Path(tmp) / "start.sqlite")
        Path(local["save"]).write_bytes(save)
        local["out"] = str(Path(tmp) / spec["name"])
        if spec.get("cache") and not Path(spec["cache"]).parent.is_dir():
            local["cache"] = str(Path(tmp) / "cache.sqlite")  # another machine: a cache of its own
        if not Path(spec["map"]).exists():  # another machine: the town its own install ships
            local["map"] = str(folders.default_map())
        res = run_branch(local)
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            tar.add(local["out"], arcname=spec["name"])
        res["run"] = spec["out"]
        return res, buf.getvalue()


def unpack(blob: bytes, out: Path) -> None:
    """A branch's tar.gz into ``out`` (its parent holds the experiment's run folders)."""
    _fresh(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        tar.extractall(out.parent, filter="data")


def run_ray(specs: list[dict], address: str, echo: Callable[[str], None]) -> dict:
    """Each branch a task on the Ray cluster at ``address`` ("auto": the one this machine
    belongs to; "local": start one here). Ray is an optional extra: ``pip install smallville[ray]``."""
    try:
        import ray  # lazy: an optional extra, and heavy to start
    except ImportError:
        raise UserError("--ray needs Ray: pip install 'smallville[ray]' (or pip install ray)") from None
    if not ray.is_initialized():
        try:
            ray.init(address=None if address == "local" else address, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as err:
            raise UserError(f"--ray {address}: cannot reach a Ray cluster there ({err}); start one with "
                            "`ray start --head`, or give --ray local to start one on this machine") from None
    task = ray.remote(num_cpus=1, max_retries=0)(branch_task)
    saves: dict[str, Any] = {}
    pending: dict[Any, tuple[dict, int]] = {}

    def submit(spec: dict, attempt: int) -> None:
        if spec["save"] not in saves:
            saves[spec["save"]] = ray.put(Path(spec["save"]).read_bytes())
        pending[task.remote(spec, saves[spec["save"]])] = (spec, attempt)

    for s in specs:
        submit(s, 1)
    out: dict[str, dict] = {}
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        ref = done[0]
        spec, attempt = pending.pop(ref)
        try:
            res, blob = ray.get(ref)
            unpack(blob, Path(spec["out"]))
            out[spec["name"]] = {**res, "attempts": attempt}
            echo(f"  {spec['name']}: done on Ray ({res.get('calls', 0)} calls, {res.get('wall_s', 0):g} s)")
        except Exception as err:  # noqa: BLE001 - a task error or a dead worker: once more, then reported
            why = f"{type(err).__name__}: {str(err).strip().splitlines()[-1] if str(err).strip() else ''}"
            log.warning("branch %s died on Ray (attempt %d): %s", spec["name"], attempt,
                        "".join(traceback.format_exception_only(type(err), err)))
            if attempt < ATTEMPTS:
                echo(f"  {spec['name']}: died on Ray ({why}); running it again")
                submit(spec, attempt + 1)
            else:
                out[spec["name"]] = _failed(spec["name"], attempt, why)
    return out


__all__ = ["ATTEMPTS", "branch_task", "run_here", "run_processes", "run_ray", "unpack"]
