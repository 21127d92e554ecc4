"""Reading a prompt as a capable model would: its lines, blocks and numbered
items, the allowed values of its JSON schema, and a stable "sampling" number;
plus the small time and wording helpers every task uses."""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass


@dataclass
class Prompt:
    text: str
    schema: dict | None
    name: str

    def find(self, rx: str, default: str = "", flags: int = 0) -> str:
        m = re.search(rx, self.text, flags)
        return m.group(1).strip() if m else default

    def block(self, heading_rx: str) -> list[str]:
        """The "- item" lines right after a heading line matching ``heading_rx``."""
        lines = self.text.splitlines()
        out: list[str] = []
        for i, line in enumerate(lines):
            if re.search(heading_rx, line):
                for nxt in lines[i + 1:]:
                    s = nxt.strip()
                    if s.startswith("- "):
                        out.append(s[2:].strip())
                    elif s and not s.startswith("-"):
                        break
                break
        return [x for x in out if x and not x.startswith("(")]

    def numbered(self) -> list[str]:
        return [m.group(2).strip() for m in re.finditer(r"^\s*(\d+)\.\s+(.*)$", self.text, re.M)]

    def enum(self, *path: str) -> list[str]:
        """The allowed values of a field of the schema (places, times, days)."""
        node = self.schema or {}
        for p in path:
            node = _resolve(node, self.schema)
            if node.get("type") == "array":
                node = _resolve(node.get("items", {}), self.schema)
            node = node.get("properties", {}).get(p, {})
        node = _resolve(node, self.schema)
        for alt in node.get("anyOf", []):
            alt = _resolve(alt, self.schema)
            if "enum" in alt:
                return list(alt["enum"])
        return list(node.get("enum", []))

    def max_items(self, *path: str) -> int:
        node = self.schema or {}
        for p in path:
            node = _resolve(node, self.schema).get("properties", {}).get(p, {})
        return int(_resolve(node, self.schema).get("maxItems", 8))

    def min_items(self, *path: str) -> int:
        node = self.schema or {}
        for p in path:
            node = _resolve(node, self.schema).get("properties", {}).get(p, {})
        return int(_resolve(node, self.schema).get("minItems", 1))

    def rng(self, salt: str = "") -> int:
        """A stable pseudo-random number from the prompt (a model's sampling, made repeatable)."""
        return zlib.crc32((self.text + salt).encode("utf-8"))


def _resolve(node: dict, root: dict | None) -> dict:
    while isinstance(node, dict) and "$ref" in node and root:
        target = root
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node or {}


def first_name(name: str) -> str:
    return name.split()[0] if name else name


def hhmm(t: int) -> str:
    return f"{t // 60:02d}:{t % 60:02d}"


def minutes_of(hhmm: str) -> int:
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


def clock_minutes(h: str, m: str | None, ampm: str) -> int:
    hour = int(h) % 12 + (12 if ampm.lower().startswith("p") else 0)
    return hour * 60 + int(m or 0)


def pretty_time(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    suffix = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return f"{h12}:{m:02d} {suffix}" if m else f"{h12} {suffix}"


def gerund_phrase(text: str) -> str:
    """"run for mayor" -> "running for mayor"."""
    words = text.strip().split()
    if not words:
        return text
    v = words[0].lower()
    if v.endswith("ing"):
        return text
    if v == "be":
        g = "being"
    elif v.endswith("ie"):
        g = v[:-2] + "ying"
    elif v.endswith("e") and not v.endswith("ee"):
        g = v[:-1] + "ing"
    elif len(v) <= 4 and re.match(r".*[^aeiou][aeiou][bdgmnprt]$", v):
        g = v + v[-1] + "ing"
    else:
        g = v + "ing"
    return " ".join([g] + words[1:])


STOP_END = {"a", "an", "the", "at", "in", "on", "of", "for", "to", "and", "with", "by", "from"}


def clip_words(text: str, n: int) -> str:
    """The first ``n`` words, without a dangling "at the"."""
    words = text.split()[:n]
    while len(words) > 1 and words[-1].lower().strip(",;") in STOP_END:
        words.pop()
    return " ".join(words).strip(" ,;")
