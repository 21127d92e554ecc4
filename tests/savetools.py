"""Test helpers that edit a save file behind the game's back, as a hand edit or
damage would: a part's JSON text (its checksum made to match, so the damage
reaches the decoder) or a meta value."""
from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any


def part_names(path: Path) -> list[str]:
    con = sqlite3.connect(path)
    try:
        return [r[0] for r in con.execute("SELECT name FROM state ORDER BY rowid")]
    finally:
        con.close()


def part_text(path: Path, name: str) -> str:
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT json FROM state WHERE name = ?", (name,)).fetchone()[0]
    finally:
        con.close()


def set_part_text(path: Path, name: str, text: str) -> None:
    """Replace a part's JSON text, with a checksum that matches it."""
    con = sqlite3.connect(path)
    try:
        con.execute("UPDATE state SET json = ?, crc = ? WHERE name = ?",
                    (text, zlib.crc32(text.encode("utf-8", "surrogatepass")), name))
        con.commit()
    finally:
        con.close()


def edit_part(path: Path, name: str, fn: Callable[[Any], Any]) -> None:
    """``fn`` gets the part's raw JSON data (tags as written: {"__dt__": ...}) and returns the new data."""
    set_part_text(path, name, json.dumps(fn(json.loads(part_text(path, name)))))


def set_meta(path: Path, key: str, value: Any) -> None:
    con = sqlite3.connect(path)
    try:
        con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))
        con.commit()
    finally:
        con.close()
