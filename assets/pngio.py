"""A tiny deterministic PNG writer, so that the art scripts reproduce their
files byte for byte whatever pygame or libpng version drew them."""
from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def save_png(path: str | Path, rgba: np.ndarray) -> None:
    """Write an (height, width, 4) uint8 RGBA array as a PNG with no timestamps."""
    rgba = np.ascontiguousarray(rgba, dtype=np.uint8)
    if rgba.ndim != 3 or rgba.shape[2] != 4:
        raise ValueError(f"expected (h, w, 4) RGBA, got {rgba.shape}")
    height, width, _ = rgba.shape
    raw = b"".join(b"\x00" + rgba[y].tobytes() for y in range(height))  # filter 0 per row
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(png)


def surface_to_rgba(surface) -> np.ndarray:
    """A pygame Surface (with per-pixel alpha) as an (h, w, 4) uint8 array."""
    import pygame

    rgb = pygame.surfarray.array3d(surface).transpose(1, 0, 2)
    alpha = pygame.surfarray.array_alpha(surface).transpose(1, 0)
    return np.dstack([rgb, alpha]).astype(np.uint8)
