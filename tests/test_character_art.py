"""The character sprite sheets: layout, distinctness and byte-for-byte reproducibility."""
from __future__ import annotations

import hashlib
import importlib.util
import struct
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pygame")

ROOT = Path(__file__).resolve().parents[1]
CHAR_DIR = ROOT / "assets" / "characters"

from conftest import RESIDENTS

SLUGS = [n.lower().replace(" ", "_") for n in RESIDENTS] + ["visitor"]
FW, FH = 32, 48


def _load_script():
    spec = importlib.util.spec_from_file_location("draw_characters", ROOT / "assets" / "draw_characters.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up here
    spec.loader.exec_module(mod)
    return mod


def read_png(path: Path) -> np.ndarray:
    """Decode an 8-bit RGBA, non-interlaced PNG (what pngio writes) without pygame."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, ctype, _, _, interlace = header
    assert (depth, ctype, interlace) == (8, 6, 0), "expected 8-bit RGBA, not interlaced"
    raw = zlib.decompress(idat)
    stride = width * 4
    out = np.zeros((height, width, 4), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)], dtype=np.uint8).astype(np.int32)
        if f == 0:  # what pngio writes: no filter
            out[y] = line.reshape(width, 4)
            prev = line
            continue
        cur = np.zeros(stride, dtype=np.int32)
        for i in range(stride):
            a = cur[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            if f == 1:
                pred = a
            elif f == 2:
                pred = b
            elif f == 3:
                pred = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            cur[i] = (line[i] + pred) & 0xFF
        out[y] = cur.reshape(width, 4)
        prev = cur
    return out


@pytest.fixture(scope="module")
def sheets() -> dict[str, np.ndarray]:
    return {s: read_png(CHAR_DIR / f"{s}.png") for s in SLUGS}


def frame(sheet: np.ndarray, row: int, col: int) -> np.ndarray:
    return sheet[row * FH:(row + 1) * FH, col * FW:(col + 1) * FW]


def test_every_resident_has_a_look():
    mod = _load_script()
    assert sorted(mod.all_looks()) == sorted(SLUGS)


@pytest.mark.parametrize("slug", SLUGS)
def test_sheet_layout(sheets, slug):
    sheet = sheets[slug]
    assert sheet.shape == (4 * FH, 3 * FW, 4)
    for row in range(4):
        frames = [frame(sheet, row, col) for col in range(3)]
        for col, f in enumerate(frames):
            alpha = f[..., 3]
            solid = alpha == 255
            assert solid.sum() > 250, f"{slug} row {row} col {col} is nearly empty"
            # transparent background: the corners are clear
            assert alpha[0, 0] == 0 and alpha[0, -1] == 0 and alpha[-1, 0] == 0 and alpha[-1, -1] == 0
            # the feet stand on the bottom of the frame: solid pixels reach the last rows
            ys = np.nonzero(solid.any(axis=1))[0]
            assert ys.max() >= FH - 3, f"{slug} row {row} col {col}: feet do not reach the bottom"
            assert ys.min() >= 0
        # walking frames differ from standing and from each other
        assert not np.array_equal(frames[0], frames[1])
        assert not np.array_equal(frames[2], frames[1])
        assert not np.array_equal(frames[0], frames[2])
    # the four facings differ
    standing = [frame(sheet, row, 1) for row in range(4)]
    for i in range(4):
        for j in range(i + 1, 4):
            assert not np.array_equal(standing[i], standing[j])
    # left is the mirror image of right
    assert np.array_equal(frame(sheet, 1, 1), frame(sheet, 2, 1)[:, ::-1])


def test_sheets_are_distinct(sheets):
    digests = {hashlib.sha256(s.tobytes()).hexdigest() for s in sheets.values()}
    assert len(digests) == len(SLUGS)
    # and not just by a few pixels: the front-facing standing frames differ substantially
    fronts = {k: frame(v, 0, 1).astype(np.int32) for k, v in sheets.items()}
    keys = list(fronts)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            diff = np.abs(fronts[a] - fronts[b]).sum(axis=2) > 30
            assert diff.sum() >= 40, f"{a} and {b} look too alike"


def test_script_reproduces_committed_files(tmp_path):
    mod = _load_script()
    written = mod.write_all(tmp_path)
    assert sorted(p.name for p in written) == sorted(f"{s}.png" for s in SLUGS)
    for s in SLUGS:
        fresh = (tmp_path / f"{s}.png").read_bytes()
        committed = (CHAR_DIR / f"{s}.png").read_bytes()
        assert fresh == committed, f"{s}.png differs from what assets/draw_characters.py draws; rerun it"
