"""Save files: one SQLite file per save, written crash-safely (no pygame).

This module stores and returns a *plain state*: a dict of named parts
("clock", "sim", "minds/<resident>", "objects", "visitor", "accounting",
"random", ...), each a nested structure of dict / list / tuple / set / str /
int / float / bool / None / datetime / date / timedelta / bytes and numpy
arrays. It knows nothing about the simulation or the minds: the caller turns
its objects into parts and back.

The file::

    PRAGMA application_id = 0x534D5631 ("SMV1": this is a Smallville save)
    PRAGMA user_version   = SCHEMA (what this file's layout is)
    meta(key, value)            one JSON value per key: schema, game version,
                                map path + sha256, world, sim time, real time
                                saved, slot, residents, embedding model + dim,
                                the list of parts
    state(name, json, crc, arrays)   one row per part: the part as JSON (crc32
                                checked on load); numpy arrays replaced by
                                {"__nd__": i}; datetimes, tuples, sets, non-str
                                keys tagged ({"__dt__": iso}, ...); long lists
                                of same-keyed dicts (memory nodes) stored as
                                columns ({"__rows__": [keys, columns]}: the
                                rows come back with the first row's key order)
    arrays(part, idx, dtype, shape, nbytes, data)   the arrays' raw bytes (BLOB)

Crash safety: a save is written to a hidden temporary file in the target's
folder, committed, fsynced, and moved over the target with ``os.replace``; the
folder is fsynced after. A process killed at any moment leaves either the old
file or the new one, never half of one. Stale temporary files (their writer
is dead) are removed by the next save and never listed.

Off the frame: the main thread calls ``freeze(parts)`` (a fast deep copy;
numpy arrays are copied unless they are read-only) and hands the copy to a
``SaveWriter``, whose one background thread encodes and writes. A part may
also be a zero-argument callable; the writer calls it on its thread (for a
cheap snapshot that is expensive to render as plain data). Loading is pure:
``load_state`` builds a fresh structure and can run on any thread; it raises
``SaveError`` (a message for people) and never touches the running game.
"""
from __future__ import annotations

import gc
import hashlib
import json
import logging
import math
import os
import re
import sqlite3
import threading
import time
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import Any, Callable

import numpy as np

from game.errors import UserError

log = logging.getLogger(__name__)

SCHEMA = 1                      # the newest layout this code writes and reads
APP_ID = 0x534D5631             # "SMV1" in PRAGMA application_id
SUFFIX = ".sqlite"
TMP_PREFIX = ".saving-"         # hidden temporary files: .saving-<slot>.<pid>.<rand>.tmp
TMP_SUFFIX = ".tmp"
AUTOSAVE_PREFIX = "autosave-"


class SaveError(UserError):
    """A save could not be written or read. str() names the file, says what is
    wrong and what to do; the game that asked is left untouched."""


def game_version() -> str:
    try:
        from importlib.metadata import version

        return version("smallville")
    except Exception:  # running from a checkout without the package installed
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


# ------------------------------------------------------------ no GC pauses

_gc_lock = threading.Lock()
_gc_holders = 0
_gc_was_enabled = True


@contextmanager
def _no_gc():
    """Building or walking 100,000 small dicts sets off the cyclic garbage
    collector over and over (each full pass also walks the whole running game);
    these structures hold no cycles, so it is paused meanwhile (process-wide,
    counted so that overlapping users on several threads nest)."""
    global _gc_holders, _gc_was_enabled
    with _gc_lock:
        if _gc_holders == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_holders += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_holders -= 1
            if _gc_holders == 0 and _gc_was_enabled:
                gc.enable()


no_gc = _no_gc  # for callers that build many small objects from a save (game/savegame.py)


# ------------------------------------------------------------ plain copies

_LEAF = frozenset({str, int, float, bool, type(None), datetime, date, timedelta})
_IMMUTABLE_LEAF = _LEAF | {bytes}


def freeze(obj: Any) -> Any:
    """A fast deep copy of a plain structure, for a consistent snapshot on the
    main thread: dicts, lists and sets are new; tuples are rebuilt when they hold
    anything mutable; numpy arrays are copied (``.copy()``) unless they are
    read-only (``a.flags.writeable == False``: the caller vouches the data never
    changes, e.g. a read-only view of append-only embedding rows); numpy scalars
    and immutable leaves are shared; zero-argument callables (deferred parts)
    are passed through. Anything else raises TypeError."""
    with _no_gc():
        return _freeze(obj)


def _freeze(obj: Any) -> Any:
    t = type(obj)
    if t in _IMMUTABLE_LEAF:
        return obj
    if t is dict:
        out = obj.copy()
        for k, v in out.items():
            if type(v) not in _IMMUTABLE_LEAF:
                out[k] = _freeze(v)
        return out
    if t is list:
        types = set(map(type, obj))
        if types <= _IMMUTABLE_LEAF:
            return obj.copy()
        if types == _DICT_ONLY and len(obj) >= 8:
            return _freeze_rows(obj)
        return [_freeze(v) for v in obj]
    if t is tuple:
        if set(map(type, obj)) <= _IMMUTABLE_LEAF:
            return obj
        return tuple(_freeze(v) for v in obj)
    if t is np.ndarray:
        return obj if not obj.flags.writeable else obj.copy()
    if t is set or t is frozenset:
        return t(_freeze(v) for v in obj)
    if isinstance(obj, np.generic):
        return obj
    if t is bytearray:
        return bytes(obj)
    if callable(obj):
        return obj
    raise TypeError(f"freeze: a {t.__name__} is not plain data (dict/list/str/number/datetime/numpy array)")


def _freeze_rows(rows: list[dict]) -> list[dict]:
    """freeze for a long list of dicts: copy each, then deep-copy only the keys
    whose values are not immutable (found per key at C speed)."""
    out = [d.copy() for d in rows]
    keys = list(out[0])
    try:
        if set(map(len, out)) != {len(keys)}:
            raise KeyError
        cols = [list(map(itemgetter(k), out)) for k in keys]
    except (KeyError, TypeError):  # rows with different keys: one by one
        for d in out:
            for k, v in d.items():
                if type(v) not in _IMMUTABLE_LEAF:
                    d[k] = _freeze(v)
        return out
    for k, col in zip(keys, cols):
        types = set(map(type, col))
        if types <= _IMMUTABLE_LEAF:
            continue
        if types <= _LIST_OR_NONE and set(map(type, chain.from_iterable(filter(None, col)))) <= _IMMUTABLE_LEAF:
            for d, v in zip(out, col):
                if v is not None:
                    d[k] = v.copy()
            continue
        for d, v in zip(out, col):
            if type(v) not in _IMMUTABLE_LEAF:
                d[k] = _freeze(v)
    return out


_EXACT = frozenset({str, int, bool, type(None), bytes})   # == is exact for these (not float: NaN)


def states_equal(a: Any, b: Any) -> bool:
    """Deep equality of plain structures, numpy arrays compared with their dtype
    and shape (``np.array_equal``; NaN equals NaN). See ``state_diff`` for where
    two states differ."""
    return state_diff(a, b) is None


def state_diff(a: Any, b: Any, path: str = "$") -> str | None:
    """None when equal, else the first difference as 'path: what'."""
    ta, tb = type(a), type(b)
    if ta is np.ndarray or tb is np.ndarray:
        if ta is not tb:
            return f"{path}: {ta.__name__} vs {tb.__name__}"
        if a.dtype != b.dtype:
            return f"{path}: dtype {a.dtype} vs {b.dtype}"
        if a.shape != b.shape:
            return f"{path}: shape {a.shape} vs {b.shape}"
        eq_nan = a.dtype.kind in "fc"
        if not np.array_equal(a, b, equal_nan=eq_nan):
            return f"{path}: array values differ"
        return None
    if ta is not tb:
        return f"{path}: {ta.__name__} {a!r:.60} vs {tb.__name__} {b!r:.60}"
    if ta is dict:
        if a.keys() != b.keys():
            only_a = [k for k in a if k not in b][:3]
            only_b = [k for k in b if k not in a][:3]
            return f"{path}: keys differ (only left {only_a}, only right {only_b})"
        for k, x in a.items():
            y = b[k]
            if type(x) is type(y) and type(x) in _EXACT and x == y:
                continue  # the common case, without a call
            d = state_diff(x, y, f"{path}.{k}")
            if d:
                return d
        return None
    if ta is list or ta is tuple:
        if len(a) != len(b):
            return f"{path}: length {len(a)} vs {len(b)}"
        ts = set(map(type, a))
        if ts <= _EXACT and list(map(type, a)) == list(map(type, b)) and a == b:
            return None
        for i, (x, y) in enumerate(zip(a, b)):
            d = state_diff(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if ta is float:
        if a == b or (math.isnan(a) and math.isnan(b)):
            return None
        return f"{path}: {a!r} vs {b!r}"
    if ta is datetime:
        if a == b and a.tzinfo == b.tzinfo:
            return None
        return f"{path}: {a!r} vs {b!r}"
    if a != b:
        return f"{path}: {a!r:.80} vs {b!r:.80}"
    return None


# ------------------------------------------------------- secrets scrubbing

_SECRET_KEY = re.compile(
    r"api[_-]?key|apikey|secret|passw(?:or)?d|token|authori[sz]ation|credential|private[_-]?key|cookie",
    re.IGNORECASE)
# Things that look like keys wherever they appear (inside any string).
_SECRET_VALUE = re.compile(
    r"\bsk-[A-Za-z0-9_\-]{16,}"                 # OpenAI / Anthropic (sk-ant-...) / sk-proj-...
    r"|\bAKIA[0-9A-Z]{16}\b"                    # AWS access key id
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}"            # GitHub tokens
    r"|\bgithub_pat_[A-Za-z0-9_]{30,}"
    r"|\bxox[abprs]-[A-Za-z0-9\-]{10,}"         # Slack
    r"|\bAIza[0-9A-Za-z_\-]{35}"                # Google
    r"|\bhf_[A-Za-z0-9]{30,}"                   # Hugging Face
    r"|\bgsk_[A-Za-z0-9]{30,}"                  # Groq
    r"|\br8_[A-Za-z0-9]{30,}"                   # Replicate
    r"|\bBearer\s+[A-Za-z0-9._~+/=\-]{16,}")
REDACTED = "[redacted]"
_SECRET_VALUE_B = re.compile(_SECRET_VALUE.pattern.encode("ascii"))
# Every pattern above contains a run of 14+ characters from [A-Za-z0-9_-].
# Finding such runs is cheap (bytes.translate, then a find); only the text
# around them meets the regex, so scanning megabytes of memories costs little.
_TOKEN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
_TOKEN_TABLE = bytes((97 if i in _TOKEN_CHARS else 32) for i in range(256))
_TOKEN_RUN = b"a" * 14
_safe_keys: set = set()          # dict keys already known not to name a secret


def _key_is_secret(k: str) -> bool:
    return bool(_SECRET_KEY.search(k))


def _may_hold_secret(text: str) -> bool:
    b = text.encode("utf-8", "surrogatepass")
    t = b.translate(_TOKEN_TABLE)
    i = t.find(_TOKEN_RUN)
    while i >= 0:
        end = t.find(b" ", i)
        end = len(t) if end < 0 else end
        if _SECRET_VALUE_B.search(b, max(0, i - 8), end):
            return True
        i = t.find(_TOKEN_RUN, end)
    return False


def scrub_text(text: str) -> str:
    """Replace anything that looks like an API key or token in a string."""
    if not _may_hold_secret(text):
        return text
    return _SECRET_VALUE.sub(REDACTED, text)


# ------------------------------------------------------------- encoding

_TAGS = ("__nd__", "__dt__", "__date__", "__td__", "__t__", "__set__", "__fset__", "__d__", "__b__", "__rows__")
_TAGSET = frozenset(_TAGS)
_JSON_LEAF = frozenset({str, int, float, bool, type(None)})
_DICT_ONLY = {dict}
_LIST_OR_NONE = frozenset({list, type(None)})


def _leaf_lists(col: list) -> bool:
    """True when `col` holds only None and lists of JSON leaves (checked at C speed)."""
    return set(map(type, chain.from_iterable(filter(None, col)))) <= _JSON_LEAF


class _Encoder:
    """Turns one part into JSON-ready data; arrays go to self.arrays."""

    def __init__(self, part: str):
        self.part = part
        self.arrays: list[np.ndarray] = []
        self.scrubbed = 0

    def array(self, a: np.ndarray) -> dict:
        if a.dtype.hasobject or a.dtype.fields is not None:
            raise SaveError(f"part '{self.part}' holds a numpy array of dtype {a.dtype}, which a save cannot store "
                            "(only plain numeric/bool/str arrays); this is a bug in the game, please report it")
        self.arrays.append(a if a.flags.c_contiguous else a.copy(order="C"))
        return {"__nd__": len(self.arrays) - 1}

    def enc(self, o: Any) -> Any:
        t = type(o)
        if t in _JSON_LEAF:
            return o
        if t is dict:
            return self.enc_dict(o)
        if t is list:
            types = set(map(type, o))
            if types <= _JSON_LEAF or (types <= _LIST_OR_NONE and _leaf_lists(o)):
                return o
            if types == _DICT_ONLY and len(o) >= 8:
                rows = self.enc_rows(o)
                if rows is not None:
                    return rows
            return [self.enc(v) for v in o]
        if t is datetime:
            return {"__dt__": o.isoformat()}
        if t is np.ndarray:
            return self.array(o)
        if t is tuple:
            return {"__t__": [self.enc(v) for v in o]}
        if t is date:
            return {"__date__": o.isoformat()}
        if t is timedelta:
            return {"__td__": [o.days, o.seconds, o.microseconds]}
        if t is set:
            return {"__set__": [self.enc(v) for v in o]}
        if t is frozenset:
            return {"__fset__": [self.enc(v) for v in o]}
        if t is bytes or t is bytearray:
            return {"__b__": self.array(np.frombuffer(bytes(o), dtype=np.uint8))["__nd__"]}
        if isinstance(o, np.generic):
            return self.enc(o.item())
        if isinstance(o, (str, int, float)):  # subclasses (IntEnum, str enums): their plain value
            return (str if isinstance(o, str) else float if isinstance(o, float) else int)(o)
        raise SaveError(f"part '{self.part}' holds a {t.__name__} ({o!r:.60}), which a save cannot store; "
                        "this is a bug in the game, please report it")

    def enc_rows(self, rows: list[dict]) -> Any:
        """A long list of dicts with the same keys (memory nodes, plan items)
        as columns: {"__rows__": [keys, [column, ...]]}; None if they differ."""
        ks = list(rows[0])
        if not all(type(k) is str for k in ks) or not ks or (len(ks) == 1 and ks[0] in _TAGSET):
            return None
        if set(map(len, rows)) != {len(ks)}:
            return None
        try:  # every row has len(ks) keys and each of ks: the same keys (at C speed)
            raw = [list(map(itemgetter(k), rows)) for k in ks]
        except KeyError:
            return None
        cols = []
        for k, col in zip(ks, raw):
            if _key_is_secret(k):
                n = sum(1 for v in col if isinstance(v, (str, bytes)) and v != "")
                if n:
                    self.scrubbed += n
                    col = [None if isinstance(v, (str, bytes)) and v != "" else v for v in col]
            elif len(_safe_keys) < 50000:
                _safe_keys.add(k)
            types = set(map(type, col))
            if not types <= _JSON_LEAF and not (types <= _LIST_OR_NONE and _leaf_lists(col)):
                col = [self.enc(v) for v in col]
            cols.append(col)
        return {"__rows__": [ks, cols]}

    def enc_dict(self, o: dict) -> Any:
        if not (o.keys() <= _safe_keys) or (len(o) == 1 and next(iter(o)) in _TAGSET):
            plain = True
            for k in o:
                if type(k) is not str:
                    plain = False
                elif _key_is_secret(k):
                    pass
                elif len(_safe_keys) < 50000:
                    _safe_keys.add(k)
            if not plain or (len(o) == 1 and next(iter(o)) in _TAGSET):
                # keys JSON cannot carry (ints, tuples, a tag name): pairs
                return {"__d__": [[self.enc(k), self.enc(v)] for k, v in self.scrub_dict(o).items()]}
            o = self.scrub_dict(o)
        out = None
        for k, v in o.items():
            if type(v) not in _JSON_LEAF:
                if out is None:
                    out = dict(o)
                out[k] = self.enc(v)
        return o if out is None else out

    def scrub_dict(self, o: dict) -> dict:
        hit = [k for k, v in o.items() if type(k) is str and _key_is_secret(k) and isinstance(v, (str, bytes))
               and v != ""]
        if not hit:
            return o
        o = dict(o)
        for k in hit:
            o[k] = None
            self.scrubbed += 1
        return o


def _decode_hook(d: dict, arrays: dict[int, np.ndarray] | None = None) -> Any:
    if len(d) != 1:
        return d
    k = next(iter(d))
    if k not in _TAGSET:
        return d
    v = d[k]
    if k == "__dt__":
        return datetime.fromisoformat(v)
    if k == "__t__":
        return tuple(v)
    if k == "__nd__":
        return arrays[v]
    if k == "__b__":
        return arrays[v].tobytes()
    if k == "__date__":
        return date.fromisoformat(v)
    if k == "__td__":
        return timedelta(days=v[0], seconds=v[1], microseconds=v[2])
    if k == "__set__":
        return set(v)
    if k == "__fset__":
        return frozenset(v)
    if k == "__rows__":
        keys, cols = v
        return [dict(zip(keys, r)) for r in zip(*cols)] if cols else []
    if k == "__d__":
        return {(tuple(x) if type(x) is list else x): y for x, y in v}
    return d


def encode_part(name: str, value: Any) -> tuple[str, list[np.ndarray], int]:
    """(JSON text, arrays, number of scrubbed secrets) for one part."""
    e = _Encoder(name)
    data = e.enc(value)
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    except (TypeError, ValueError) as err:
        raise SaveError(f"part '{name}' cannot be written as JSON ({err}); this is a bug in the game") from err
    if _may_hold_secret(text):
        n = len(_SECRET_VALUE.findall(text))
        text = _SECRET_VALUE.sub(REDACTED, text)
        e.scrubbed += n
    return text, e.arrays, e.scrubbed


# ------------------------------------------------------------ the map

_fp_cache: dict[tuple[str, int, int], str] = {}


def map_fingerprint(path: str | os.PathLike) -> str:
    """sha256 (hex) of the .tmx file's bytes."""
    p = Path(path)
    st = p.stat()
    key = (str(p.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _fp_cache:
        _fp_cache[key] = hashlib.sha256(p.read_bytes()).hexdigest()
    return _fp_cache[key]


# ------------------------------------------------------------ file names

_SLOT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-]{0,63}$")
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def slot_path(name_or_path: str | os.PathLike, folder: str | os.PathLike = "saves") -> Path:
    """A slot name -> <folder>/<name>.sqlite; a path ending in .sqlite is used as is.
    Names are letters, digits, space, '_', '-', '.' (up to 64, starting with a
    letter or digit); anything else (slashes, '..', control characters) is refused."""
    s = os.fspath(name_or_path)
    if s.lower().endswith(SUFFIX):
        return Path(s)
    if (not _SLOT_RE.match(s) or ".." in s or s.endswith((".", " "))
            or s.split(".")[0].strip().lower() in _RESERVED):
        raise SaveError(
            f"'{s}' is not a usable save name: use up to 64 letters, digits, spaces, '-', '_' or '.', "
            f"starting with a letter or digit (or give a path ending in {SUFFIX})")
    return Path(folder) / f"{s}{SUFFIX}"


def _slot_of(path: Path) -> str:
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
        if (pid > 0 and not _pid_alive(pid)) or (pid != os.getpid() and old) or pid == -1 and old:
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


# ------------------------------------------------------------ save

_DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE state (name TEXT PRIMARY KEY, json TEXT NOT NULL, crc INTEGER NOT NULL, arrays INTEGER NOT NULL);
CREATE TABLE arrays (part TEXT NOT NULL, idx INTEGER NOT NULL, dtype TEXT NOT NULL, shape TEXT NOT NULL,
                     nbytes INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (part, idx));
"""


def _meta_value(v: Any) -> Any:
    if isinstance(v, datetime):
        return v.isoformat()
    if isinstance(v, Path):
        return str(v)
    return v


def _complete_meta(meta: dict, path: Path, parts: dict) -> dict:
    m = {k: _meta_value(v) for k, v in (meta or {}).items()}
    m = {k: (None if isinstance(v, str) and _key_is_secret(k) else v) for k, v in m.items()}
    m["schema"] = SCHEMA
    m.setdefault("game_version", game_version())
    m["saved_at"] = datetime.now(timezone.utc).isoformat()
    m.setdefault("slot", _slot_of(path))
    mp = m.get("map_path")
    if mp and not m.get("map_sha256"):
        try:
            m["map_sha256"] = map_fingerprint(mp)
        except OSError:
            pass
    m["parts"] = sorted(parts)
    return m


def save_state(path: str | os.PathLike, parts: dict[str, Any], meta: dict | None = None) -> SaveInfo:
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
    tmp = folder / f"{TMP_PREFIX}{_slot_of(path)[:40]}.{os.getpid()}.{os.urandom(4).hex()}{TMP_SUFFIX}"
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
        scrubbed = 0
        names = []
        for name, value in parts.items():
            if not isinstance(name, str) or not name:
                raise SaveError(f"part names must be non-empty strings, not {name!r}; this is a bug in the game")
            t0 = time.perf_counter()
            if callable(value):
                try:
                    with _no_gc():  # deferred parts build many small dicts (memory nodes)
                        value = value()
                except SaveError:
                    raise
                except Exception as err:
                    log.exception("snapshot of part %s failed", name)
                    raise SaveError(f"could not take part '{name}' of the game for {path}: "
                                    f"{type(err).__name__}: {err}; the previous save is unchanged") from err
            with _no_gc():
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
        m = _complete_meta(meta or {}, path, parts)
        m["parts"] = names
        if scrubbed:
            m["scrubbed_secrets"] = scrubbed
            log.info("save %s: %d secret-looking values left out", path, scrubbed)
        for k, v in m.items():
            try:
                con.execute("INSERT INTO meta VALUES (?, ?)", (k, scrub_text(json.dumps(v, ensure_ascii=False))))
            except (TypeError, ValueError) as err:
                raise SaveError(f"save meta '{k}' cannot be written ({err}); this is a bug in the game") from err
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


def autosave(parts: dict[str, Any], meta: dict | None, folder: str | os.PathLike = "saves", keep: int = 3) -> SaveInfo:
    """Write slot autosave-<n> (n one more than the newest) and delete the
    oldest autosaves beyond `keep`, only after the new one is safely written."""
    folder = Path(folder)
    existing = _autosaves(folder)
    n = (existing[-1][0] + 1) if existing else 1
    path = folder / f"{AUTOSAVE_PREFIX}{n}{SUFFIX}"
    info = save_state(path, parts, {**(meta or {}), "slot": f"{AUTOSAVE_PREFIX}{n}", "autosave": True})
    for _, p in _autosaves(folder)[: -max(1, keep)]:
        try:
            os.remove(p)
        except OSError:
            pass
    return info


def _autosaves(folder: Path) -> list[tuple[int, Path]]:
    out = []
    try:
        names = os.listdir(folder)
    except OSError:
        return out
    for nm in names:
        if nm.startswith(AUTOSAVE_PREFIX) and nm.endswith(SUFFIX):
            num = nm[len(AUTOSAVE_PREFIX): -len(SUFFIX)]
            if num.isdigit():
                out.append((int(num), folder / nm))
    return sorted(out)


# ------------------------------------------------------------ load

def _open_ro(path: Path) -> sqlite3.Connection:
    if not path.exists():
        if path.suffix.lower() != SUFFIX and Path(str(path) + SUFFIX).exists():
            path = Path(str(path) + SUFFIX)
        else:
            raise SaveError(f"there is no save at {path}; check the name (saves live in the saves/ folder; "
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
    try:
        return {k: json.loads(v) for k, v in rows}
    except (ValueError, TypeError) as err:
        raise SaveError(f"{path} is damaged (bad meta value: {err}); load another save") from err


def _parse_dt(v: Any) -> datetime | None:
    if not v:
        return None
    try:
        return datetime.fromisoformat(v)
    except (TypeError, ValueError):
        return None


def _info_from_meta(path: Path, m: dict) -> SaveInfo:
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    dim = m.get("embedding_dim")
    return SaveInfo(
        path=path, slot=str(m.get("slot") or _slot_of(path)), size=size, schema=m.get("schema"),
        game_version=m.get("game_version"), saved_at=_parse_dt(m.get("saved_at")),
        sim_time=_parse_dt(m.get("sim_time")), world=m.get("world"), map_path=m.get("map_path"),
        map_sha256=m.get("map_sha256"), residents=list(m.get("residents") or []),
        embedding_model=m.get("embedding_model"), embedding_dim=int(dim) if dim is not None else None,
        parts=list(m.get("parts") or []), meta=m)


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


def _map_label(world: str | None, mpath: str | None, sha: str | None) -> str:
    bits = [f"'{world}'" if world else "an unnamed world"]
    extra = ", ".join(x for x in (mpath, f"fingerprint {sha[:12]}" if sha else None) if x)
    return f"{bits[0]} ({extra})" if extra else bits[0]


def check_map(info: SaveInfo, expect_map: Any) -> None:
    """SaveError unless the save was made for `expect_map` (a .tmx path, or an
    object with .path and optionally .world, such as a Town)."""
    mp = getattr(expect_map, "path", expect_map)
    world = getattr(expect_map, "world", None)
    try:
        sha = map_fingerprint(mp)
    except OSError as err:
        raise SaveError(f"cannot read the map {mp} to check the save {info.path} against it: {err}") from err
    if info.map_sha256 == sha and (world is None or info.world in (None, world)):
        return
    mine = _map_label(world, str(mp), sha)
    theirs = _map_label(info.world, info.map_path, info.map_sha256)
    if info.map_sha256 is None:
        why = "it records no map"
    elif info.map_sha256 != sha and info.world == world and world is not None:
        why = "the map file has changed since"
    else:
        why = "another map"
    raise SaveError(f"{info.path} was saved on {theirs} but this game runs {mine} ({why}); "
                    f"start the game on the save's map to load it" + (f" (--map {info.map_path})" if info.map_path else ""))


def load_state(path: str | os.PathLike, expect_map: Any = None,
               require: tuple[str, ...] | list[str] = ()) -> tuple[dict[str, Any], SaveInfo]:
    """Read every part of a save. Pure (touches nothing but the file; safe on a
    worker thread). `expect_map`: the map the game runs (see check_map);
    `require`: part names that must be present. Raises SaveError."""
    path = Path(path)
    t_start = time.perf_counter()
    con = _open_ro(path)
    try:
        m = _read_meta(con, path)
        info = _info_from_meta(path, m)
        if isinstance(info.schema, int) and info.schema > SCHEMA:
            raise SaveError(f"{path}: this save was made by a newer Smallville (schema {info.schema}; this one "
                            f"reads up to {SCHEMA}); update the game to load it")
        if expect_map is not None:
            check_map(info, expect_map)
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
        if zlib.crc32(text.encode("utf-8")) != crc:
            raise SaveError(f"{path} is damaged (part '{name}' fails its checksum); load another save")
        got = arrays.get(name, {})
        if len(got) != n_arrays:
            raise SaveError(f"{path} is damaged (part '{name}' is missing {n_arrays - len(got)} of its arrays); "
                            "load another save")
        try:
            with _no_gc():
                parts[name] = json.loads(text, object_hook=_decode_hook if not n_arrays else
                                     lambda d, got=got: _decode_hook(d, got))
        except (ValueError, TypeError, KeyError, IndexError) as err:
            raise SaveError(f"{path} is damaged (part '{name}' cannot be read: {err}); load another save") from err
    t_end = time.perf_counter()
    info.timings = {"read": round(t_read - t_start, 4), "decode": round(t_end - t_read, 4),
                    "total": round(t_end - t_start, 4)}
    missing = [p for p in list(info.parts) + list(require) if p not in parts]
    if missing:
        raise SaveError(f"{path} is incomplete: it lacks {', '.join(repr(p) for p in missing[:5])}"
                        f"{' and more' if len(missing) > 5 else ''}; it may come from an older or broken "
                        "Smallville. Load another save")
    return parts, info


# ------------------------------------------------------------ listing

def list_saves(folder: str | os.PathLike = "saves") -> list[SaveInfo]:
    """Every *.sqlite in `folder`, newest first (by real time saved). A file that
    cannot be read is listed with .broken set to the reason. Never raises."""
    folder = Path(folder)
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
            info = SaveInfo(path=p, slot=_slot_of(p), broken=str(err).replace(f"{p}", "").strip(" :") or str(err))
        except Exception as err:  # never crash the menu
            info = SaveInfo(path=p, slot=_slot_of(p), broken=f"{type(err).__name__}: {err}")
        try:
            st = p.stat()
            info.size = st.st_size
            mtime = datetime.fromtimestamp(st.st_mtime, timezone.utc)
        except OSError:
            mtime = datetime.fromtimestamp(0, timezone.utc)
        if info.saved_at is None:
            info.saved_at = mtime
        out.append(info)

    def key(i: SaveInfo) -> float:
        t = i.saved_at
        if t is None:
            return 0.0
        if t.tzinfo is None:
            t = t.replace(tzinfo=timezone.utc)
        return t.timestamp()
    out.sort(key=lambda i: (key(i), i.path.stat().st_mtime if i.path.exists() else 0), reverse=True)
    return out


# ------------------------------------------------------------ off the frame

@dataclass
class SaveStatus:
    state: str = "idle"        # idle | saving | saved | loading | loaded | failed
    text: str = ""             # for the HUD: "saving…", "saved slot quick", "save failed: ..."
    since: float = 0.0         # time.monotonic() of the change
    seconds: float | None = None   # how long the last job took


class SaveWriter:
    """One background thread that writes (and loads) saves, in order.

        w = SaveWriter()
        fut = w.save(slot_path("quick"), freeze(parts), meta)   # main thread: only the freeze
        ... w.status.text -> "saving…" / "saved slot quick" / "save failed: ..."
        w.wait()                                                # tests, quitting
        fut.result()  -> SaveInfo (or raises SaveError)
    """

    def __init__(self, on_done: Callable[[str, Any], None] | None = None):
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="saves")
        self._lock = threading.Lock()
        self._status = SaveStatus()
        self._pending = 0
        self._on_done = on_done

    @property
    def status(self) -> SaveStatus:
        with self._lock:
            return SaveStatus(self._status.state, self._status.text, self._status.since, self._status.seconds)

    def busy(self) -> bool:
        with self._lock:
            return self._pending > 0

    def _set(self, state: str, text: str, seconds: float | None = None) -> None:
        with self._lock:
            self._status = SaveStatus(state, text, time.monotonic(), seconds)

    def _submit(self, kind: str, fn: Callable[[], Any], start_text: str, done_text: Callable[[Any], str]) -> Future:
        with self._lock:
            self._pending += 1
            self._status = SaveStatus("saving" if kind == "save" else "loading", start_text, time.monotonic())

        def job():
            t0 = time.perf_counter()
            try:
                self._set("saving" if kind == "save" else "loading", start_text)
                result = fn()
            except SaveError as err:
                self._set("failed", f"{kind} failed: {err}", time.perf_counter() - t0)
                log.warning("%s failed: %s", kind, err)
                raise
            except Exception as err:
                log.exception("%s failed", kind)
                self._set("failed", f"{kind} failed: {type(err).__name__}: {err}", time.perf_counter() - t0)
                raise SaveError(f"{kind} failed: {err}") from err
            finally:
                with self._lock:
                    self._pending -= 1
            self._set("saved" if kind == "save" else "loaded", done_text(result), time.perf_counter() - t0)
            if self._on_done:
                try:
                    self._on_done(kind, result)
                except Exception:
                    log.exception("save callback failed")
            return result
        return self._pool.submit(job)

    def save(self, path: str | os.PathLike, parts: dict[str, Any], meta: dict | None = None) -> Future:
        """Write an already-frozen snapshot (see freeze) in the background."""
        path = Path(path)
        return self._submit("save", lambda: save_state(path, parts, meta), "saving…",
                            lambda info: f"saved slot {info.slot}")

    def autosave(self, parts: dict[str, Any], meta: dict | None, folder: str | os.PathLike = "saves",
                 keep: int = 3) -> Future:
        return self._submit("save", lambda: autosave(parts, meta, folder, keep), "autosaving…",
                            lambda info: f"autosaved ({info.slot})")

    def load(self, path: str | os.PathLike, expect_map: Any = None, require=(),
             then: Callable[[dict, SaveInfo], Any] | None = None) -> Future:
        """load_state on the background thread; the future's result is (parts, info),
        or ``then(parts, info)`` when given (e.g. building the loaded game off the frame)."""
        path = Path(path)

        def job():
            parts, info = load_state(path, expect_map, require)
            return then(parts, info) if then is not None else (parts, info)
        return self._submit("load", job, "loading…", lambda r: f"loaded slot {_slot_of(path)}")

    def wait(self, timeout: float | None = None) -> bool:
        """Until every queued job has finished; False on timeout."""
        end = None if timeout is None else time.monotonic() + timeout
        while self.busy():
            if end is not None and time.monotonic() > end:
                return False
            time.sleep(0.005)
        return True

    def close(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait)
