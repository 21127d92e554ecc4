"""The save an evaluation folder was made from. answers.json names it relative to the
folder (so the report reads it from any working folder, and from a folder handed on with
its run) and keeps its sha256: before any ranking or report work the save is checked to
be there and to be the very file evaluated, since after ``sim --resume`` a named
autosave may have been rotated away or ``end.sqlite`` overwritten, and the measures
would quietly be computed on another state. Older folders (answers.json version 1)
named it as typed, relative to the working folder of the day; they still read, unchecked.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from game.support.errors import UserError
from lab.controlled.folder import ANSWERS, Evaluation

VERSION = 2  # answers.json: "save" relative to the folder, with "save_sha256"


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def save_entry(save: Path, folder: Path, digest: str) -> dict[str, Any]:
    """answers.json's fields naming the save: its path from ``folder``, and its sha256."""
    try:
        rel = os.path.relpath(Path(save).resolve(), Path(folder).resolve())
    except ValueError:  # another drive (Windows): no relative path
        rel = str(Path(save).resolve())
    return {"version": VERSION, "save": Path(rel).as_posix(), "save_sha256": digest}


def from_folder(ev: Evaluation) -> bool:
    """Whether answers.json names the save relative to the folder (older ones: as typed)."""
    version = ev.data.get("version")
    return isinstance(version, int) and version >= VERSION


def save_path(ev: Evaluation) -> Path | None:
    """Where the save evaluated is."""
    save = ev.data.get("save")
    if not isinstance(save, str) or not save:
        return None
    return ev.folder / save if from_folder(ev) else Path(save)  # an absolute path stays itself


def evaluated_save(ev: Evaluation) -> Path:
    """The save ``ev`` was made from, checked to be there and unchanged; or a UserError that
    says which file, what is wrong and what to do."""
    path = save_path(ev)
    answers = ev.folder / ANSWERS
    if path is None:
        raise UserError(f"{answers} names no save: the automatic measures need the save it was made from; "
                        "evaluate the run again (`smallville evaluate RUN --ablations --out NEW`)")
    if not path.is_file():
        where = ("relative to the evaluation folder" if from_folder(ev) else
                 "relative to the folder `smallville evaluate` ran in: run this from there")
        raise UserError(f"{ev.folder} was evaluated on the save {path}, which is not there; the report's "
                        f"automatic measures need it. Put that file back ({answers} names it {ev.data['save']!r}, "
                        f"{where}), then run this again")
    want = ev.data.get("save_sha256")
    if isinstance(want, str) and sha256_of(path) != want:
        raise UserError(f"{path} has changed since {ev.folder} was evaluated on it (its sha256 is not the one in "
                        f"{answers}), so the measures would be computed on another state (a newer autosave or "
                        "end.sqlite after `sim --resume`?). Put back the file that was evaluated, or evaluate the "
                        f"save as it is now into a new folder: `smallville evaluate {path} --ablations --out NEW`")
    return path


__all__ = ["VERSION", "evaluated_save", "save_entry", "save_path", "sha256_of"]
