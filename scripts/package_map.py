"""The picture of the packages in docs/architecture.md, drawn from the imports.

Each room is a package folder (game/world, game/saves, lab/bench, ...; a
top-level package's loose modules form a room of their own). An arrow from one
room to another says that some module in the first imports one in the second,
lazy imports included. The picture is a Mermaid graph, which GitHub draws.

    python scripts/package_map.py            # print the graph
    python scripts/package_map.py --write    # put it into docs/architecture.md

tests/test_house.py checks that the page holds what this prints, so the picture
cannot drift from the code.
"""
from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("smallville", "lab", "game", "agents")
DOC = ROOT / "docs" / "architecture.md"
BEGIN, END = "<!-- package map: begin (scripts/package_map.py --write) -->", "<!-- package map: end -->"


def room_of(module: str) -> str | None:
    """The room of a dotted module name: its package folder, as a path."""
    parts = module.split(".")
    if parts[0] not in PACKAGES:
        return None
    folder = ROOT.joinpath(*parts)
    if folder.is_dir():  # a package: the folder itself
        return "/".join(parts)
    return "/".join(parts[:-1]) if len(parts) > 1 else parts[0]


def imported(path: Path) -> set[str]:
    """The project modules ``path`` imports (absolute imports only: the project uses no others)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {m for m in found if m.split(".")[0] in PACKAGES}


def edges() -> tuple[dict[str, int], set[tuple[str, str]]]:
    """(modules per room, arrows between rooms)."""
    counts: dict[str, int] = defaultdict(int)
    arrows: set[tuple[str, str]] = set()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            here = room_of(module.removesuffix(".__init__")) if path.name == "__init__.py" else room_of(module)
            if here is None:
                continue
            counts[here] += 1
            for target in imported(path):
                there = room_of(target)
                if there is not None and there != here and (ROOT / there).exists():
                    arrows.add((here, there))
    return dict(counts), arrows


def mermaid() -> str:
    """The Mermaid graph of the rooms and their arrows, in a stable order."""
    counts, arrows = edges()
    node = {room: room.replace("/", "_") for room in counts}
    lines = ["```mermaid", "graph LR"]
    for package in PACKAGES:
        lines.append(f"  subgraph {package}")
        for room in sorted(r for r in counts if r.split("/")[0] == package):
            lines.append(f'    {node[room]}["{room}/ ({counts[room]})"]')
        lines.append("  end")
    for a, b in sorted(arrows):
        lines.append(f"  {node[a]} --> {node[b]}")
    lines.append("```")
    return "\n".join(lines)


def in_doc(text: str) -> str:
    """The part of the page between the markers."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:end].strip()


def write() -> None:
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOC.write_text(text[:start] + "\n" + mermaid() + "\n" + text[end:], encoding="utf-8")


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        write()
    else:
        print(mermaid())
