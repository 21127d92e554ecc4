"""World edits (issue 7): the console's commands, sim.set_object_state, and residents
reacting at the object (a scripted model saying react; a junk model -> the rule)."""
from __future__ import annotations

from datetime import datetime

import mapkit
import pytest

from agents.support.types import Action
from agents.threads.pool import MindPool
from game.sim import Simulation
from game.view.console import parse
from game.world.map_reader import load_town
from lab.standins import StandInMind
from tests.fakes import HashEmbedder, make_gateway
from tests.scripted_minds import plausible

W = mapkit.DEFAULT_WORLD
ISA = "Isabella Rodriguez"
ROOM = f"{W}:Isabella Rodriguez's apartment:main room"
STOVE = f"{ROOM}:stove"
START = datetime(2023, 2, 13, 9, 0)
OBJECTS = mapkit.DEFAULT_OBJECTS + (("stove", 11, 1, 1, 1),)


@pytest.fixture
def town(tmp_path):
    return load_town(mapkit.write_map(tmp_path, objects=OBJECTS))


@pytest.fixture
def ville():
    from pathlib import Path

    return load_town(Path(__file__).resolve().parents[1] / "maps" / "the_ville" / "the_ville.tmx")


# ---------------------------------------------------------------------------- parsing

@pytest.mark.parametrize("text", [
    "<Isabella Rodriguez's apartment: main room: stove> is burning",
    "<Isabella Rodriguez's apartment:main room:stove> is burning",
    "<Testville: Isabella Rodriguez's apartment : main room :stove>   is   burning.",
    "Isabella Rodriguez's apartment: main room: stove is burning",
    "<isabella rodriguez's apartment: MAIN ROOM: Stove> is burning",
    "`<Isabella Rodriguez's apartment: main room: stove> is burning",
])
def test_parse_variants(town, text):
    cmd = parse(text, town)
    assert cmd.kind == "set", cmd
    assert cmd.address == STOVE and cmd.state == "burning"


def test_parse_unknown_address_gives_close_matches(ville):
    cmd = parse("<Isabella Rodriguez's apartment: kitchen: stove> is burning", ville)
    assert cmd.kind == "error"
    assert "No object at <Isabella Rodriguez's apartment: kitchen: stove>" in cmd.message
    assert cmd.matches[0] == "the Ville:Isabella Rodriguez's apartment:main room:stove"
    assert 1 <= len(cmd.matches) <= 3 and "Did you mean" in cmd.message
    typo = parse("<Hobs Cafe: cafe: cofee machine> is broken", ville)
    assert typo.kind == "error" and typo.matches[0] == "the Ville:Hobbs Cafe:cafe:coffee machine"
    place = parse("<Hobbs Cafe: cafe> is burning", ville)
    assert place.kind == "error" and "not an object" in place.message


def test_parse_other_commands(town):
    assert parse("help", town).kind == "help"
    assert parse("release", town).kind == "release"
    p = parse("play as Isabella Rodriguez", town)
    assert p.kind == "play" and p.name == ISA
    assert parse("gibberish", town).kind == "error"
    assert parse("<Isabella Rodriguez's apartment: main room: stove> is idle", town).state == "idle"


# ---------------------------------------------------------------------------- the sim

class Quiet(StandInMind):
    def __init__(self, name):
        from types import SimpleNamespace

        self.name = name
        self.persona = SimpleNamespace(name=name, home=ROOM, workplace=ROOM, wake_hour=7)

    def decide(self, situation):
        from agents.support.types import Decision

        return Decision()

    def queue_thought(self, text, importance=8):
        pass


def test_set_object_state_logs_and_is_perceived(town):
    sim = Simulation(town, {ISA: Quiet(ISA)}, MindPool(1), START, lockstep=True)
    b = sim.bodies[ISA]
    sim.set_action(b, Action("reading a book", ROOM, START, 120))
    for _ in range(10):
        sim.step()
    addr = sim.set_object_state("Isabella Rodriguez's apartment : main room: stove", "burning")
    assert addr == STOVE and town.object_states[STOVE] == "burning"
    ev = sim.events[-1]
    assert ev["kind"] == "edit" and ev["address"] == STOVE and "burning" in ev["text"]
    seen = sim.perceive(ISA)
    assert any(e.subject == STOVE and e.object == "burning" for e in seen)
    sim.set_object_state(STOVE, "idle")
    assert town.object_states[STOVE] == "idle"
    with pytest.raises(KeyError):
        sim.set_object_state(f"{ROOM}:kitchen sink", "leaking")
    sim.pool.shutdown()


def _react_with(town, react_answer):
    from agents.mind.core import Mind
    from agents.residents.persona import Persona

    def responder(purpose, messages, schema):
        if purpose == "react":
            return react_answer
        return plausible(purpose, messages, schema)

    isa = Persona(name=ISA, age=34, traits="warm",
                  description="Isabella Rodriguez runs Hobbs Cafe; she lives in her apartment",
                  home=ROOM, workplace=f"{W}:Hobbs Cafe:cafe", wake_hour=7)
    mind = Mind(isa, make_gateway(responder, via_litellm=False), HashEmbedder(64))
    sim = Simulation(town, {ISA: mind}, MindPool(1), START, lockstep=True, personas=[isa])
    b = sim.bodies[ISA]
    sim.set_action(b, Action("reading a book", ROOM, START, 180))
    for _ in range(10):
        sim.step()
    assert not b.walking and sim.area(b.tile) == ROOM
    sim.set_object_state(STOVE, "burning")
    for _ in range(30):
        sim.step()
        if b.action.address == STOVE:
            break
    return sim, b


def test_burning_stove_leads_to_the_models_reaction_at_the_stove(town):
    sim, b = _react_with(town, {"react": True, "activity": "turning off the stove", "minutes": 10})
    try:
        assert b.action.description == "turning off the stove"
        assert b.action.address == STOVE and b.target == STOVE
        assert any(e["kind"] == "action" and e["text"] == "turning off the stove" for e in sim.events)
        for _ in range(6 * 20):  # she gets there, deals with it; once done it is idle
            sim.step()
        assert b.action.description != "turning off the stove"
        assert town.object_states[STOVE] == "idle"
    finally:
        sim.pool.shutdown()


def test_junk_reaction_falls_back_to_the_rule(town):
    sim, b = _react_with(town, "I am a small model and I like turtles.")
    try:
        assert b.action.description == "dealing with the stove (burning)"
        assert b.action.address == STOVE
        for _ in range(6 * 20):
            sim.step()
        assert town.object_states[STOVE] == "idle"
    finally:
        sim.pool.shutdown()


def test_unrelated_reaction_to_a_burning_stove_is_replaced(town):
    sim, b = _react_with(town, {"react": True, "activity": "reading the newspaper", "minutes": 10})
    try:
        assert b.action.description == "dealing with the stove (burning)"
    finally:
        sim.pool.shutdown()


def test_console_in_the_game(tmp_path, display):
    pygame = pytest.importorskip("pygame")
    from test_inspector import make_play

    game, session = make_play(tmp_path)
    try:
        assert game.panels.console is not None
        game.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_BACKQUOTE, unicode="`", mod=0, scancode=0))
        assert game.panels.console.is_open and game.controls.enabled is False
        game.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, unicode="", mod=0, scancode=0))
        assert not game.panels.console.is_open and game.controls.enabled is True
        msg = game.panels.console.execute("<Isabella Rodriguez's apartment: main room: refrigerator> is leaking")
        assert "is now leaking" in msg
        assert session.town.object_states[f"{ROOM}:refrigerator"] == "leaking"
        msg = game.panels.console.execute("<Isabella Rodriguez's apartment: kitchen: refrigerator> is idle")
        assert "Did you mean" in msg and "main room: refrigerator" in msg
        game.panels.console.execute("<Isabella Rodriguez's apartment: main room: refrigerator> is idle")
        assert session.town.object_states[f"{ROOM}:refrigerator"] == "idle"
    finally:
        session.close()
