"""One protocol for a mind, seen from the game (issue 47): ``agents.ResidentMind`` is
what the game may ask of a resident's mind. ``Mind`` and the stand-ins implement all of
it, the game asks nothing else and never looks a mind's member up by name, and a mind
whose decision fails gets the routine, not a plan step of its own."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

from test_sim import HOME, StandIn, make_sim, run

from agents import Action, Mind, ResidentMind
from agents import provenance as pv
from lab.standins import BusyMind

ROOT = Path(__file__).resolve().parents[1]
# Where the game holds minds as the protocol (the views read them through game/view/host.py's MindView).
HOLDERS = [*sorted((ROOT / "game" / "sim").glob("*.py")), *sorted((ROOT / "game" / "runs").glob("*.py")),
           ROOT / "game" / "headless.py"]


def _members(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")} - set(dir(object))


def test_the_protocol_names_what_the_game_asks_and_mind_has_every_member():
    asked = {n for n, _ in inspect.getmembers(ResidentMind) if not n.startswith("_")}
    assert {"decide", "utter", "end_conversation", "welcome", "prepare", "chunk_asks", "steps_end",
            "planned_action", "queue_thought", "inner_voice", "inspect", "memory_text",
            "decompose_afresh", "name", "persona"} <= asked
    assert "fallback_action" not in asked  # the routine stands in for a failed decision (see below)
    assert asked - {"name", "persona"} <= _members(Mind)


def test_the_stand_ins_are_whole_resident_minds(tmp_path):
    persona = type("P", (), {"name": "Ann Lee", "home": HOME})()
    for mind in (StandIn("Ann Lee"), BusyMind(persona, [HOME])):
        assert isinstance(mind, ResidentMind)
    quiet = StandIn("Ann Lee")
    assert quiet.steps_end() is None and quiet.chunk_asks(None) is False  # no plan of steps: nothing ahead
    assert quiet.planned_action(None) is None and quiet.welcome("Vera", None) is None
    assert quiet.inspect().name == "Ann Lee" and quiet.inner_voice("go for a walk") == "go for a walk"


def test_the_game_never_looks_up_a_minds_member_by_name():
    found = []
    for path in HOLDERS:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr") and node.args
                    and "mind" in ast.unparse(node.args[0]).lower()):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}")
            if isinstance(node, ast.AnnAssign) and "minds" in ast.unparse(node.target) \
                    and "Any" in ast.unparse(node.annotation):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}")
    assert found == []


class Planner(StandIn):
    """A stand-in whose own plan has it read at the cafe, and whose decisions fail."""

    def __init__(self, name):
        super().__init__(name, decide=self.boom)
        self.plan_asked = 0

    @staticmethod
    def boom(m, s):
        raise RuntimeError("the model broke")

    def planned_action(self, t):
        self.plan_asked += 1
        return Action("reading at the cafe", HOME, t, 60, source=pv.tag(pv.MODEL))


def test_a_failed_decision_gets_the_routine_marked_as_such_not_the_minds_plan(tmp_path, pools):
    """The decision: when a mind's decision fails, the routine stands in (its provenance says
    the routine's, and why), so the failure shows in the log; the mind's plan is what the
    resident follows only while it still thinks (``stand_in``), never a fallback of its own."""
    ann = Planner("Isabella Rodriguez")
    sim = make_sim(tmp_path, [ann], pool=pools())
    run(sim, 3)
    b = sim.bodies["Isabella Rodriguez"]
    assert b.fallbacks == 1
    assert pv.kind_of(b.action.source) == pv.ROUTINE and "the model broke" in b.action.source
    assert b.action.description != "reading at the cafe"
    acted = [e for e in sim.events if e["kind"] == "action"]
    assert acted[-1]["note"] == "fallback from routine"
