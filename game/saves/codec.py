"""Plain copies and a save part's encoding (no pygame): ``freeze`` (a fast deep
copy for the save writer), ``states_equal`` / ``state_diff``, scrubbing
API-key-like values, and a part to JSON plus numpy arrays and back. The file
format itself is game/saves/store.py's."""
from __future__ import annotations

import gc
import json
import math
import re
import threading
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from itertools import chain
from operator import itemgetter
from typing import Any, TypeVar

import numpy as np

from agents import SECRET_NAME, SECRET_VALUE
from game.support.errors import SaveError

# ------------------------------------------------------------ no GC pauses

_gc_lock = threading.Lock()
_gc_holders = 0
_gc_was_enabled = True


@contextmanager
def no_gc():
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




# ------------------------------------------------------------ plain copies

T = TypeVar("T")  # freeze gives back what it is given, copied

_LEAF = frozenset({str, int, float, bool, type(None), datetime, date, timedelta})
_IMMUTABLE_LEAF = _LEAF | {bytes}


def freeze(obj: T) -> T:
    """A fast deep copy of a plain structure, for a consistent snapshot on the
    main thread: dicts, lists and sets are new; tuples are rebuilt when they hold
    anything mutable; numpy arrays are copied (``.copy()``) unless they are
    read-only (``a.flags.writeable == False``: the caller vouches the data never
    changes, e.g. a read-only view of append-only embedding rows); numpy scalars
    and immutable leaves are shared; zero-argument callables (deferred parts)
    are passed through. Anything else raises TypeError."""
    with no_gc():
        return _freeze(obj)


# Any: plain data of whatever shape, dispatched on its exact type (``type(obj) is ...``, which mypy cannot follow).
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


def states_equal(a: object, b: object) -> bool:
    """Deep equality of plain structures, numpy arrays compared with their dtype
    and shape (``np.array_equal``; NaN equals NaN). See ``state_diff`` for where
    two states differ."""
    return state_diff(a, b) is None


# Any: two plain structures of whatever shape, compared by their exact types (as in _freeze).
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

# The patterns of agents/support/redact.py: names of keys that hold a secret, and key-shaped values.
_SECRET_KEY = SECRET_NAME
_SECRET_VALUE = SECRET_VALUE
REDACTED = "[redacted]"
_SECRET_VALUE_B = re.compile(_SECRET_VALUE.pattern.encode("ascii"))
# Every pattern above contains a run of 14+ characters from [A-Za-z0-9_-].
# Finding such runs is cheap (bytes.translate, then a find); only the text
# around them meets the regex, so scanning megabytes of memories costs little.
_TOKEN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
_TOKEN_TABLE = bytes((97 if i in _TOKEN_CHARS else 32) for i in range(256))
_TOKEN_RUN = b"a" * 14
_safe_keys: set = set()          # dict keys already known not to name a secret


def key_is_secret(k: str) -> bool:
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

    # Any: a part's data of whatever shape, dispatched on its exact type (as in _freeze).
    def enc(self, o: Any) -> object:
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

    def enc_rows(self, rows: list[dict]) -> dict[str, list] | None:
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
            if key_is_secret(k):
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

    def enc_dict(self, o: dict) -> dict:
        if not (o.keys() <= _safe_keys) or (len(o) == 1 and next(iter(o)) in _TAGSET):
            plain = True
            for k in o:
                if type(k) is not str:
                    plain = False
                elif key_is_secret(k):
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
        hit = [k for k, v in o.items() if type(k) is str and key_is_secret(k) and isinstance(v, (str, bytes))
               and v != ""]
        if not hit:
            return o
        o = dict(o)
        for k in hit:
            o[k] = None
            self.scrubbed += 1
        return o


def decode_hook(d: dict, arrays: dict[int, np.ndarray] | None = None) -> object:
    """A tagged value back (see _Encoder). A tag whose value has the wrong shape
    (a hand-edited or damaged save) raises ValueError saying which tag."""
    if len(d) != 1:
        return d
    k = next(iter(d))
    if k not in _TAGSET:
        return d
    v = d[k]
    try:
        return _decode_tag(k, v, arrays)
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as err:
        raise ValueError(f"a {k} value {str(v)[:40]!r} cannot be read ({type(err).__name__}: {err})") from err


# Any: the tag's value as the file holds it; a wrong shape raises, and decode_hook names the tag.
def _decode_tag(k: str, v: Any, arrays: dict[int, np.ndarray] | None) -> object:
    if k == "__dt__":
        return datetime.fromisoformat(v)
    if k == "__t__":
        return tuple(_a_list(v))
    if k == "__nd__":
        return (arrays or {})[v]
    if k == "__b__":
        return (arrays or {})[v].tobytes()
    if k == "__date__":
        return date.fromisoformat(v)
    if k == "__td__":
        days, seconds, micro = _a_list(v, 3)
        if not all(type(x) in (int, float) for x in (days, seconds, micro)):
            raise TypeError("a duration is three numbers")
        return timedelta(days=days, seconds=seconds, microseconds=micro)
    if k == "__set__":
        return set(_a_list(v))
    if k == "__fset__":
        return frozenset(_a_list(v))
    if k == "__rows__":
        keys, cols = _a_list(v, 2)
        if not isinstance(keys, list) or not isinstance(cols, list) or not all(isinstance(c, list) for c in cols):
            raise TypeError("rows are a list of keys and a list of columns")
        if not all(isinstance(x, str) for x in keys) or len(cols) != len(keys) or len({len(c) for c in cols}) > 1:
            raise ValueError("the rows' keys and columns do not match")
        return [dict(zip(keys, r)) for r in zip(*cols)] if cols else []
    if k == "__d__":
        return {(tuple(x) if type(x) is list else x): y for x, y in _a_list(v)}
    return {k: v}


def _a_list(v: object, n: int | None = None) -> list:
    if type(v) is not list or (n is not None and len(v) != n):
        raise TypeError(f"expected a list{f' of {n}' if n else ''}")
    return v


def encode_part(name: str, value: object) -> tuple[str, list[np.ndarray], int]:
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
