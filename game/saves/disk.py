"""A save file on disk (no pygame): writing it crash-safely, reading it and its
meta, checking it fits the map, slot names and listing. The format is
described in game/saves/store.py, the public face of saving."""
from __future__ import annotations

import json
import logging
import os
import re
import shutil
import sqlite3
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from game.saves.check import check_meta
from game.saves.codec import decode_hook, encode_part, key_is_secret, no_gc, scrub_text
from game.saves.compat import SCHEMA, ExpectedMap, check_map, map_fingerprint, migrate
from game.support import folders
from game.support.errors import SaveError

log = logging.getLogger(__name__)

APP_ID = 0x534D5631             # "SMV1" in PRAGMA application_id
SUFFIX = ".sqlite"
TMP_PREFIX = ".saving-"         # hidden temporary files: .saving-<slot>.<pid>.<rand>.tmp
TMP_SUFFIX = ".tmp"
AUTOSAVE_PREFIX = "autosave-"


def game_version() -> str:
    try:
        return version("smallville")
    except PackageNotFoundError:  # running from a checkout without the package installed
        return "0.1.0"


# ----------------------------------------------------------------- SaveInfo

@dataclass
class SaveInfo:
    """What the menu shows about one save (from its meta table only)."""
    path: Path
    slot: str
    size: int = 0                       # bytes on disk
    schema: int | None = None
    game_version: str | None = None
    saved_at: datetime | None = None    # real time, UTC
    sim_time: datetime | None = None
    world: str | None = None
    map_path: str | None = None
    map_sha256: str | None = None
    residents: list[str] = field(default_factory=list)
    embedding_model: str | None = None
    embedding_dim: int | None = None
    parts: list[str] = field(default_factory=list)
    meta: dict = field(default_factory=dict)   # every meta key, decoded
    broken: str | None = None           # why it cannot be read (list_saves only)
    timings: dict = field(default_factory=dict)   # seconds per phase of the save/load that made this
    warnings: list[str] = field(default_factory=list)   # loaded anyway, but: (an older version's, a changed map)

    @property
    def ok(self) -> bool:
        return self.broken is None

    def label(self) -> str:
        """One line for a menu: slot, sim time, real time saved."""
        if self.broken:
            return f"{self.slot}: unreadable ({self.broken})"
        sim = self.sim_time.strftime("%a %d %b %Y %H:%M") if self.sim_time else "?"
        real = self.saved_at.astimezone().strftime("%Y-%m-%d %H:%M") if self.saved_at else "?"
        return f"{self.slot}: {sim} (saved {real})"


# ------------------------------------------------------------ file names

_SLOT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-]{0,63}$")
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def slot_path(name_or_path: str | os.PathLike, folder: str | os.PathLike | None = None) -> Path:
    """A slot name -> <folder>/<name>.sqlite; a path ending in .sqlite is used as is.
    Names are letters, digits, space, '_', '-', '.' (up to 64, starting with a
    letter or digit); anything else (slashes, '..', control characters) is refused."""
    s = os.fspath(name_or_path)
    if s.lower().endswith(SUFFIX):
        return Path(s)
    if (not _SLOT_RE.match(s) or ".." in s or s.endswith((".", " "))
            or s.split(".")[0].strip().lower() in _RESERVED):
        shown = s if s.isprintable() and len(s) <= 64 else repr(s[:64])[1:-1] + ("…" if len(s) > 64 else "")
        raise SaveError(
            f"'{shown}' is not a usable save name: use up to 64 letters, digits, spaces, '-', '_' or '.', "
            f"starting with a letter or digit (or give a path ending in {SUFFIX})")
    return Path(folder if folder is not None else folders.saves_dir()) / f"{s}{SUFFIX}"


def slot_of(path: Path) -> str:
    return path.name[: -len(SUFFIX)] if path.name.lower().endswith(SUFFIX) else path.name


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def clean_stale_temps(folder: str | os.PathLike, max_age: float = 3600.0) -> int:
    """Remove temporary files left by saves whose process died (or that are
    older than max_age seconds). Returns how many were removed."""
    n = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    now = time.time()
    for e in entries:
        if not (e.name.startswith(TMP_PREFIX) and (e.name.endswith(TMP_SUFFIX) or "-journal" in e.name)):
            continue
        try:
            pid = int(e.name[: -len(TMP_SUFFIX)].rsplit(".", 2)[-2]) if e.name.endswith(TMP_SUFFIX) else -1
        except (ValueError, IndexError):
            pid = -1
        try:
            old = now - e.stat().st_mtime > max_age
        except OSError:
            continue
        if (pid > 0 and not _pid_alive(pid)) or (pid != os.getpid() and old) or (pid == -1 and old):
            try:
                os.remove(e.path)
                n += 1
            except OSError:
                pass
    return n


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # Windows: folders cannot be opened; its rename is durable enough
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def copy_atomically(src: str | os.PathLike, dst: str | os.PathLike, link: bool = False) -> Path:
    """Put a copy of save ``src`` at ``dst`` whole or not at all, as save_state writes: into
    a hidden temporary file beside ``dst`` (a hard link when ``link`` and the file system
    allows, else a copy), fsynced, then renamed over ``dst``. A failure (OSError) leaves
    ``dst`` as it was, and no temporary file behind."""
    src, dst = Path(src), Path(dst)
    tmp = dst.parent / f"{TMP_PREFIX}{dst.stem[:40]}.{os.getpid()}.{os.urandom(4).hex()}{TMP_SUFFIX}"
    try:
        linked = False
        if link:
            try:
                os.link(src, tmp)
                linked = True
            except OSError:  # another file system, or no hard links: a copy
                pass
        if not linked:
            shutil.copyfile(src, tmp)
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        os.replace(tmp, dst)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    _fsync_dir(dst.parent)
    return dst


# ------------------------------------------------------------ save

_DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE state (name TEXT PRIMARY KEY, json TEXT NOT NULL, crc INTEGER NOT NULL, arrays INTEGER NOT NULL);
CREATE TABLE arrays (part TEXT NOT NULL, idx INTEGER NOT NULL, dtype TEXT NOT NULL, shape TEXT NOT NULL,
                     nbytes INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (part, idx));
"""


def _meta_value(v: object) -> object:
    if isinstance(v, datetime):
        return v.isoformat()
    if isinstance(v, Path):
        return str(v)
    return v


def _complete_meta(meta: dict, path: Path) -> dict:
    m = {k: _meta_value(v) for k, v in (meta or {}).items()}
    m = {k: (None if isinstance(v, str) and key_is_secret(k) else v) for k, v in m.items()}
    m["schema"] = SCHEMA
    m.setdefault("game_version", game_version())
    m["saved_at"] = datetime.now(UTC).isoformat()
    m.setdefault("slot", slot_of(path))
    mp = m.get("map_path")
    if mp and not m.get("map_sha256"):
        try:
            m["map_sha256"] = map_fingerprint(mp)
        except OSError:
            pass
    return m


def save_state(path: str | os.PathLike, parts: Mapping[str, object], meta: dict | None = None) -> SaveInfo:
    """Write `parts` (a dict of named plain parts; a part may be a zero-argument
    callable returning one) and `meta` to `path`, crash-safely. Known meta keys:
    world, map_path (its sha256 is added), sim_time (datetime), slot, residents,
    embedding_model, embedding_dim; any other JSON-able keys are kept.
    Raises SaveError (the old file, if any, stays as it was)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise SaveError(f"cannot create the save folder {folder}: {err.strerror or err}") from err
    clean_stale_temps(folder)
    tmp = folder / f"{TMP_PREFIX}{slot_of(path)[:40]}.{os.getpid()}.{os.urandom(4).hex()}{TMP_SUFFIX}"
    con = None
    timings = {"encode": 0.0, "write": 0.0}
    t_start = time.perf_counter()
    try:
        con = sqlite3.connect(tmp, isolation_level=None, check_same_thread=False)
        con.execute("PRAGMA page_size = 65536")
        con.execute("PRAGMA journal_mode = OFF")    # a temporary file: a crash just discards it
        con.execute("PRAGMA synchronous = OFF")     # we fsync once, at the end
        con.execute(f"PRAGMA application_id = {APP_ID}")
        con.execute("BEGIN")
        for stmt in _DDL.strip().split(";"):
            if stmt.strip():
                con.execute(stmt)
        names, scrubbed = _write_parts(con, parts, path, timings)
        m = _write_meta(con, meta or {}, path, names, scrubbed)
        con.execute(f"PRAGMA user_version = {SCHEMA}")
        t0 = time.perf_counter()
        con.execute("COMMIT")
        con.close()
        con = None
        t1 = time.perf_counter()
        timings["write"] += t1 - t0
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        t2 = time.perf_counter()
        timings["fsync"] = t2 - t1
        os.replace(tmp, path)
        _fsync_dir(folder)
        timings["replace"] = time.perf_counter() - t2
        timings["total"] = time.perf_counter() - t_start
    except SaveError:
        raise
    except (sqlite3.Error, OSError, MemoryError) as err:
        what = getattr(err, "strerror", None) or str(err)
        raise SaveError(f"could not write the save {path}: {what}. The previous save there (if any) is unchanged; "
                        "check the disk has space and the folder is writable") from err
    finally:
        if con is not None:
            try:
                con.close()
            except sqlite3.Error:
                pass
        if tmp.exists():
            try:
                os.remove(tmp)
            except OSError:
                pass
    info = _info_from_meta(path, m)
    info.size = path.stat().st_size
    info.timings = {k: round(v, 4) for k, v in timings.items()}
    return info


def _write_parts(con: sqlite3.Connection, parts: Mapping[str, object], path: Path,
                 timings: dict[str, float]) -> tuple[list[str], int]:
    """Each part encoded (a deferred one taken now) into the ``state`` and ``arrays``
    tables. Returns the parts' names, in order, and how many secret-looking values were
    left out; SaveError when a part cannot be taken."""
    scrubbed = 0
    names = []
    for name, value in parts.items():
        if not isinstance(name, str) or not name:
            raise SaveError(f"part names must be non-empty strings, not {name!r}; this is a bug in the game")
        t0 = time.perf_counter()
        if callable(value):
            try:
                with no_gc():  # deferred parts build many small dicts (memory nodes)
                    value = value()
            except SaveError:
                raise
            except Exception as err:
                log.exception("snapshot of part %s failed", name)
                raise SaveError(f"could not take part '{name}' of the game for {path}: "
                                f"{type(err).__name__}: {err}; the previous save is unchanged") from err
        with no_gc():
            text, arrays, n = encode_part(name, value)
        t1 = time.perf_counter()
        timings["encode"] += t1 - t0
        scrubbed += n
        con.execute("INSERT INTO state VALUES (?, ?, ?, ?)",
                    (name, text, zlib.crc32(text.encode("utf-8")), len(arrays)))
        for i, a in enumerate(arrays):
            con.execute("INSERT INTO arrays VALUES (?, ?, ?, ?, ?, ?)",
                        (name, i, a.dtype.str, json.dumps(list(a.shape)), a.nbytes,
                         memoryview(a.reshape(-1)).cast("B") if a.size else b""))
        names.append(name)
        timings["write"] += time.perf_counter() - t1
    return names, scrubbed


def _write_meta(con: sqlite3.Connection, meta: dict, path: Path, names: list[str], scrubbed: int) -> dict:
    """The save's meta (completed: the map's hash, the parts written, the secrets left
    out) into the ``meta`` table; returns it."""
    m = _complete_meta(meta, path)
    m["parts"] = names  # the parts written, in order: a save missing one is incomplete
    if scrubbed:
        m["scrubbed_secrets"] = scrubbed
        log.info("save %s: %d secret-looking values left out", path, scrubbed)
    for k, v in m.items():
        try:
            con.execute("INSERT INTO meta VALUES (?, ?)", (k, scrub_text(json.dumps(v, ensure_ascii=False))))
        except (TypeError, ValueError) as err:
            raise SaveError(f"save meta '{k}' cannot be written ({err}); this is a bug in the game") from err
    return m


# ------------------------------------------------------------ load

def _open_ro(path: Path) -> sqlite3.Connection:
    if not path.exists():
        if path.suffix.lower() != SUFFIX and Path(str(path) + SUFFIX).exists():
            path = Path(str(path) + SUFFIX)
        else:
            raise SaveError(f"there is no save at {path}; check the name (saves live in {folders.saves_dir()}; "
                            "the save menu lists them)")
    if path.is_dir():
        raise SaveError(f"{path} is a folder, not a save file; give a slot name or a path to a {SUFFIX} file")
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        app = con.execute("PRAGMA application_id").fetchone()[0]
        ver = con.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as err:
        raise SaveError(f"{path} is not a Smallville save (not a readable SQLite file: {err}); it may be damaged "
                        "or truncated. Load another save (autosaves are kept beside it)") from err
    if app != APP_ID:
        con.close()
        raise SaveError(f"{path} is a SQLite file but not a Smallville save; load a file from the saves/ folder")
    if ver > SCHEMA:
        con.close()
        raise SaveError(f"{path}: this save was made by a newer Smallville (schema {ver}; this one reads up to "
                        f"{SCHEMA}); update the game to load it")
    if ver < 1:
        con.close()
        raise SaveError(f"{path} is an incomplete Smallville save (no schema version: the save did not finish); "
                        "load another save")
    return con


def _read_meta(con: sqlite3.Connection, path: Path) -> dict:
    try:
        rows = con.execute("SELECT key, value FROM meta").fetchall()
    except sqlite3.DatabaseError as err:
        raise SaveError(f"{path} is damaged (its meta table cannot be read: {err}); load another save") from err
    meta = {}
    for k, v in rows:
        try:
            meta[str(k)] = json.loads(v)
        except RecursionError as err:
            raise SaveError(f"{path} is damaged (its meta '{k}' is nested too deeply); load another save") from err
        except (ValueError, TypeError) as err:
            raise SaveError(f"{path} is damaged (its meta '{k}' cannot be read: {err}); load another save") from err
    return meta


def _parse_dt(v: object) -> datetime | None:
    if not v or not isinstance(v, str):
        return None
    try:
        return datetime.fromisoformat(v)
    except (TypeError, ValueError):
        return None


def _info_from_meta(path: Path, m: dict, warnings: list[str] | None = None) -> SaveInfo:
    """The SaveInfo of a meta table; SaveError when a key has the wrong kind of value."""
    check_meta(path, m)
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    return SaveInfo(
        path=path, slot=str(m.get("slot") or slot_of(path)), size=size, schema=m.get("schema"),
        game_version=m.get("game_version"), saved_at=_parse_dt(m.get("saved_at")),
        sim_time=_parse_dt(m.get("sim_time")), world=m.get("world"), map_path=m.get("map_path"),
        map_sha256=m.get("map_sha256"), residents=list(m.get("residents") or []),
        embedding_model=m.get("embedding_model"), embedding_dim=m.get("embedding_dim"),
        parts=list(m.get("parts") or []), meta=m, warnings=list(warnings or []))


def read_info(path: str | os.PathLike) -> SaveInfo:
    """The save's meta (cheap: no state is read). Raises SaveError."""
    path = Path(path)
    con = _open_ro(path)
    try:
        m = _read_meta(con, path)
    finally:
        con.close()
    if m.get("schema") != SCHEMA and isinstance(m.get("schema"), int) and m["schema"] > SCHEMA:
        raise SaveError(f"{path}: this save was made by a newer Smallville (schema {m['schema']}; this one reads "
                        f"up to {SCHEMA}); update the game to load it")
    return _info_from_meta(path, m)


# Any: each part is plain data of its own shape, read from the file and checked where it is used
# (game/saves/check.py before a load swaps it in).
def load_state(path: str | os.PathLike, expect_map: ExpectedMap | None = None,
               require: tuple[str, ...] | list[str] = ()) -> tuple[dict[str, Any], SaveInfo]:
    """Read every part of a save. Pure (touches nothing but the file; safe on a
    worker thread). `expect_map`: the map the game runs (see check_map);
    `require`: part names that must be present. Raises SaveError, whatever the
    file holds."""
    path = Path(path)
    try:
        return _load_state(path, expect_map, require)
    except SaveError:
        raise
    except RecursionError as err:
        raise SaveError(f"{path} is damaged (it is nested too deeply to read); load another save") from err
    except Exception as err:  # a damaged file may hold anything: a message, never a crash
        log.exception("reading %s failed", path)
        raise SaveError(f"{path} is damaged and cannot be read ({type(err).__name__}: {str(err)[:200]}); "
                        "load another save") from err


# Any: as in load_state.
def _load_state(path: Path, expect_map: ExpectedMap | None,
                require: tuple[str, ...] | list[str]) -> tuple[dict[str, Any], SaveInfo]:
    t_start = time.perf_counter()
    con = _open_ro(path)
    try:
        m = _read_meta(con, path)
        info = _info_from_meta(path, m)
        if isinstance(info.schema, int) and info.schema > SCHEMA:
            raise SaveError(f"{path}: this save was made by a newer Smallville (schema {info.schema}; this one "
                            f"reads up to {SCHEMA}); update the game to load it")
        fit = check_map(info, expect_map) if expect_map is not None else "same"
        try:
            rows = con.execute("SELECT name, json, crc, arrays FROM state").fetchall()
            arows = con.execute("SELECT part, idx, dtype, shape, nbytes, data FROM arrays").fetchall()
        except sqlite3.DatabaseError as err:
            raise SaveError(f"{path} is damaged ({err}); it may be truncated. Load another save "
                            "(autosaves are kept beside it)") from err
    finally:
        con.close()
    t_read = time.perf_counter()
    arrays: dict[str, dict[int, np.ndarray]] = {}
    for part, idx, dtype, shape, nbytes, data in arows:
        try:
            shp = tuple(json.loads(shape))
            dt = np.dtype(dtype)
            if len(data) != nbytes or nbytes != dt.itemsize * int(np.prod(shp, dtype=np.int64)):
                raise ValueError(f"array {part}#{idx} has {len(data)} bytes, expected {nbytes}")
            a = np.frombuffer(data, dtype=dt).reshape(shp).copy() if nbytes else np.zeros(shp, dtype=dt)
        except (ValueError, TypeError) as err:
            raise SaveError(f"{path} is damaged ({err}); load another save") from err
        arrays.setdefault(part, {})[idx] = a
    parts: dict[str, Any] = {}
    for name, text, crc, n_arrays in rows:
        if not isinstance(text, str) or not isinstance(name, str):
            raise SaveError(f"{path} is damaged (part {str(name)[:40]!r} is not text); load another save")
        if zlib.crc32(text.encode("utf-8")) != crc:
            raise SaveError(f"{path} is damaged (part '{name}' fails its checksum); load another save")
        got = arrays.get(name, {})
        if len(got) != n_arrays:
            raise SaveError(f"{path} is damaged (part '{name}' is missing {n_arrays - len(got)} of its arrays); "
                            "load another save")
        parts[name] = _decode_part(path, name, text, got)
    info.warnings += migrate(m, parts, path)  # an older version's save: up to SCHEMA, step by step
    if m.get("migrated_from"):
        info = _info_from_meta(path, m, info.warnings)
    if fit == "changed":  # the map's file changed: every address the save uses must still be there
        check_map(info, expect_map, parts)
    t_end = time.perf_counter()
    info.timings = {"read": round(t_read - t_start, 4), "decode": round(t_end - t_read, 4),
                    "total": round(t_end - t_start, 4)}
    missing = [p for p in list(info.parts) + list(require) if p not in parts]
    if missing:
        raise SaveError(f"{path} is incomplete: it lacks {', '.join(repr(p) for p in missing[:5])}"
                        f"{' and more' if len(missing) > 5 else ''}; it may come from an older or broken "
                        "Smallville. Load another save")
    return parts, info


def _decode_part(path: Path, name: str, text: str, arrays: dict[int, np.ndarray]) -> object:
    """One part's JSON back into plain data; SaveError naming the part for anything
    a damaged or hand-edited text holds (bad tags, huge numbers, deep nesting)."""
    try:
        with no_gc():
            return json.loads(text, object_hook=lambda d: decode_hook(d, arrays))
    except RecursionError as err:
        raise SaveError(f"{path} is damaged (part '{name}' is nested too deeply to read); load another save") from err
    except (ValueError, TypeError, KeyError, IndexError, OverflowError, MemoryError) as err:
        raise SaveError(f"{path} is damaged (part '{name}' cannot be read: {str(err)[:200]}); "
                        "load another save") from err


# ------------------------------------------------------------ listing

def list_saves(folder: str | os.PathLike | None = None) -> list[SaveInfo]:
    """Every *.sqlite in `folder`, newest first (by real time saved). A file that
    cannot be read is listed with .broken set to the reason. Never raises."""
    folder = Path(folder if folder is not None else folders.saves_dir())
    out: list[SaveInfo] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return out
    for nm in names:
        if not nm.lower().endswith(SUFFIX) or nm.startswith(TMP_PREFIX):
            continue
        p = folder / nm
        try:
            if not p.is_file():
                continue
            info = read_info(p)
        except SaveError as err:
            info = SaveInfo(path=p, slot=slot_of(p), broken=str(err).replace(f"{p}", "").strip(" :") or str(err))
        except Exception as err:  # noqa: BLE001 - never crash the menu: a broken save is listed as broken
            info = SaveInfo(path=p, slot=slot_of(p), broken=f"{type(err).__name__}: {err}")
        try:
            st = p.stat()
            info.size = st.st_size
            mtime = datetime.fromtimestamp(st.st_mtime, UTC)
        except OSError:
            mtime = datetime.fromtimestamp(0, UTC)
        if info.saved_at is None:
            info.saved_at = mtime
        out.append(info)

    def key(i: SaveInfo) -> float:
        t = i.saved_at
        if t is None:
            return 0.0
        if t.tzinfo is None:
            t = t.replace(tzinfo=UTC)
        return t.timestamp()
    out.sort(key=lambda i: (key(i), i.path.stat().st_mtime if i.path.exists() else 0), reverse=True)
    return out
