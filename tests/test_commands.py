"""The player's commands (issue 38, game/runs/commands.py): the one road from the window to
the town, through the real path: a Session on a small town, a scripted fake model, the
pool's jobs applied by the session as in a game (no window).

Each command answers with a typed result; a bad input (an unknown resident, a resident
busy with someone else, the model failing or timing out) gives a clear refusal or error,
and nothing is lost: the player's line is in the event log, the exchange in memory (or,
when the model's answer never came, said so, and nothing half-kept)."""
from __future__ import annotations

import threading
from datetime import datetime

import mapkit
import pytest

from agents import Persona
from agents import interview as agents_interview
from game.runs import commands
from game.runs.build import build_minds
from game.runs.commands import Answer, Done, Loaded, Refused, SaveJob, Ticket
from game.runs.session import PlaySimulation, Session, build_parts
from game.saves.store import SaveWriter
from game.world.map_reader import load_town
from tests.fakes import HashEmbedder, make_gateway
from tests.scripted_minds import plausible

W = mapkit.DEFAULT_WORLD
ISA = "Isabella Rodriguez"
MARIA = "Maria Lopez"
START = datetime(2023, 2, 13, 8, 0)
STOVE = f"{W}:Isabella Rodriguez's apartment:main room:stove"
ANSWER = "Oh hi! Yes, come to my Valentine's party at the cafe tomorrow."


def responder(purpose, messages, schema):
    if purpose == "respond":
        return {"answer": ANSWER}
    return plausible(purpose, messages, schema)


def _persona(name: str, home: str) -> Persona:
    return Persona(name=name, age=34, traits="warm, sociable", description=f"{name} lives in Testville",
                   home=home, workplace=f"{W}:Hobbs Cafe:cafe", wake_hour=7)


def make_session(tmp_path, respond=responder, *, maria: bool = False) -> Session:
    """A running game with Isabella (and Maria beside her in the cafe), paused: the tests
    apply finished jobs themselves (``land``)."""
    spawns = [(ISA, 4, 3), ("visitor", 14, 7)] + ([(MARIA, 3, 3)] if maria else [])
    path = mapkit.write_map(tmp_path / "map", objects=mapkit.DEFAULT_OBJECTS + (("stove", 11, 1, 1, 1),),
                            spawns=spawns)
    town = load_town(path)
    personas = [_persona(ISA, f"{W}:Isabella Rodriguez's apartment:main room")]
    if maria:
        personas.append(_persona(MARIA, f"{W}:Hobbs Cafe:cafe"))
    gw = make_gateway(respond, via_litellm=False, timeout=30.0, deadline=60.0)  # a first call warms up slowly
    emb = HashEmbedder(64)
    parts = build_parts(town, personas, START, gateway=gw, embedder=emb, minds=build_minds(personas, gw, emb),
                        sim_class=PlaySimulation)
    session = Session(parts, visitor_name="Alex")
    session.paused = True
    return session


@pytest.fixture
def play(tmp_path):
    made: list[Session] = []

    def make(**kwargs) -> Session:
        s = make_session(tmp_path / f"game{len(made)}", **kwargs)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


def land(session: Session, got: list, n: int = 1, tries: int = 400) -> None:
    """Frames until ``got`` holds ``n`` answers (the session applies finished jobs, paused)."""
    for _ in range(tries):
        if len(got) >= n:
            return
        session.pool.wait(0.05)
        session.update(1 / 60)
    raise AssertionError(f"no answer: {got}")


def settle(session: Session) -> None:
    """Every job in flight done and applied (a keeping job, too)."""
    for _ in range(50):
        session.pool.wait(10)
        session.update(1 / 60)
        if not session.pool.in_flight() and not any(session.sim.jobs.has_waiting(n) for n in session.minds):
            return


def chats(session: Session, text: str) -> int:
    return sum(1 for n in session.minds[ISA].memory.nodes if n.kind == "chat" and text in n.description)


def lines(session: Session) -> list[tuple[str, str, str]]:
    return [(e["resident"], e.get("partner"), e["text"]) for e in session.sim.events if e["kind"] == "line"]


# ---------------------------------------------------------------------------- talking


def test_saying_a_line_is_answered_heard_and_kept(play):
    s = play()
    c = s.commands
    assert c.hold(ISA) == Done("", ISA) and c.held(ISA)
    got: list[Answer] = []
    ticket = c.say(ISA, "I am opening a bakery next week!", [], got.append)
    assert isinstance(ticket, Ticket) and ticket.resident == ISA and ticket.speaker == "Alex" and ticket.heard
    assert lines(s)[-1] == ("Alex", ISA, "I am opening a bakery next week!")  # heard at once
    land(s, got)
    answer = got[0]
    assert answer.ticket == ticket and answer.text == ANSWER and answer.error is None and answer.heard
    assert lines(s)[-1] == (ISA, "Alex", ANSWER)
    settle(s)
    assert chats(s, "opening a bakery next week") == 1  # kept by its own job
    assert not s.minds[ISA].owed.copy()  # and no longer owed
    c.release(ISA)
    assert not c.held(ISA)


def test_a_line_to_a_resident_not_stopped_to_listen_is_refused(play):
    s = play()
    got: list[Answer] = []
    before = len(s.sim.events)
    no = s.commands.say(ISA, "Hello?", [], got.append)
    assert isinstance(no, Refused) and no.why == commands.NOT_HELD and "Isabella" in no.message
    assert len(s.sim.events) == before and not s.pool.in_flight()


@pytest.mark.parametrize("command", ["hold", "say", "interview", "whisper"])
def test_an_unknown_resident_is_refused_and_nothing_changes(play, command):
    s = play()
    before = len(s.sim.events)
    c = s.commands
    got = {
        "hold": lambda: c.hold("Nobody Here"),
        "say": lambda: c.say("Nobody Here", "hi", [], lambda a: None),
        "interview": lambda: c.interview("Nobody Here", "hi", [], lambda a: None, persona="a reporter"),
        "whisper": lambda: c.whisper("Nobody Here", "you are hungry"),
    }[command]()
    assert got == Refused(commands.UNKNOWN, "No resident called 'Nobody Here'.")
    assert len(s.sim.events) == before and not s.pool.in_flight()


def test_a_resident_talking_with_someone_else_is_busy(play):
    s = play(maria=True)
    assert s.sim.start_chat(MARIA, ISA)
    no = s.commands.hold(ISA)
    assert no == Refused(commands.BUSY, f"Isabella is talking with {MARIA}; wait a moment.")
    assert not s.commands.held(ISA)


def test_a_failed_answer_is_the_fallback_line_and_says_why(play, monkeypatch):
    s = play()
    c = s.commands
    c.hold(ISA)
    n = len(s.minds[ISA].memory)

    def broken(*a, **k):
        raise RuntimeError("the mind fell over")

    monkeypatch.setattr(agents_interview, "answer_now", broken)
    got: list[Answer] = []
    c.say(ISA, "Hello?", [], got.append)
    land(s, got)
    answer = got[0]
    assert answer.error == "the mind fell over" and answer.text.startswith("Oh, hello Alex!")
    assert lines(s)[-2:] == [("Alex", ISA, "Hello?"), (ISA, "Alex", answer.text)]  # the line is not lost
    settle(s)
    assert len(s.minds[ISA].memory) == n and not s.minds[ISA].owed.copy()  # nothing half-kept


def test_a_model_that_times_out_gets_the_rule_answer_and_the_exchange_is_kept(play):
    def slow(purpose, messages, schema):
        if purpose == "respond":
            raise TimeoutError("the model did not answer in time")
        return plausible(purpose, messages, schema)

    s = play(respond=slow)
    c = s.commands
    c.hold(ISA)
    got: list[Answer] = []
    c.say(ISA, "Are you there?", [], got.append)
    land(s, got)
    assert got[0].error is None and got[0].text and str(got[0].source).startswith("rule")
    settle(s)
    assert chats(s, "Are you there?") == 1


def test_an_interview_leaves_the_town_as_it_was_unless_remembered(play):
    s = play()
    c = s.commands
    before, n = len(s.sim.events), len(s.minds[ISA].memory)
    got: list[Answer] = []
    ticket = c.interview(ISA, "What worries you?", [], got.append, persona="a news reporter")
    assert isinstance(ticket, Ticket) and not ticket.heard and not ticket.remember
    land(s, got)
    settle(s)
    assert got[0].text == ANSWER and not got[0].heard
    assert len(s.sim.events) == before and len(s.minds[ISA].memory) == n and not c.held(ISA)
    c.interview(ISA, "Who are your friends?", [("Alex", "What worries you?"), (ISA, ANSWER)], got.append,
                persona="a news reporter", remember=True)
    land(s, got, 2)
    settle(s)
    assert chats(s, "Who are your friends?") == 1 and len(s.sim.events) == before


def test_an_answer_asked_before_a_save_is_kept_by_the_loaded_game(play, tmp_path):
    """The owed-exchange protocol, through the commands: a save taken while the
    keeping job waits behind the resident's own job still carries the exchange."""
    s = play()
    c = s.commands
    c.hold(ISA)
    got: list[Answer] = []
    gate = threading.Event()
    c.say(ISA, "Where is the pharmacy?", [], got.append)
    land(s, got)  # the answer is in; the keeping job is queued ...
    s.sim.call(ISA, gate.wait, 30, on_result=lambda v, e: None)  # (a job of her own in front of a later one)
    writer = SaveWriter()
    try:
        job = c.save(writer, tmp_path / "mid.sqlite", "mid")
        assert isinstance(job, SaveJob) and job.kind == "save"
        assert job.future.result(30).slot == "mid"
    finally:
        gate.set()
    t = play()
    try:
        load = t.commands.load(writer, tmp_path / "mid.sqlite", "mid")
        done = t.commands.loaded(load.future.result(30))
        assert isinstance(done, Loaded) and done.info is not None and not done.branch
        settle(t)
        assert chats(t, "Where is the pharmacy?") == 1
    finally:
        writer.close(wait=True)


# ---------------------------------------------------------------------------- the rest


def test_whispering_is_the_residents_own_thought_and_a_decision_soon(play):
    s = play()
    got = s.commands.whisper(ISA, "I should bake a cake")
    assert isinstance(got, Done) and got.message == f"Isabella thinks: \u201c{got.value}\u201d" and got.value
    assert s.sim.events[-1]["kind"] == "inner_voice" and s.sim.bodies[ISA].urgent
    assert s.commands.whisper(ISA, "") == Refused(commands.EMPTY, "Say what they should think.")


def test_setting_an_object_state(play):
    s = play()
    got = s.commands.set_object_state(STOVE, "burning")
    assert got == Done("Isabella Rodriguez's apartment: main room: stove is now burning.", STOVE)
    assert s.town.object_states[STOVE] == "burning"
    no = s.commands.set_object_state(f"{W}:nowhere:stove", "burning")
    assert isinstance(no, Refused) and no.why == commands.UNKNOWN


def test_playing_as_a_resident_and_back(play):
    s = play()
    c = s.commands
    assert c.stop_playing() == Refused(commands.NOT_PLAYING, "You are not playing a resident.")
    no = c.play_as("Isabela")
    assert isinstance(no, Refused) and no.why == commands.UNKNOWN and ISA in no.message  # a suggestion
    assert c.play_as("isabella") == Done(f"You are {ISA} now (F2 or 'release' hands them back).", ISA)
    assert s.controlled == ISA and c.player == ISA
    assert c.stop_playing() == Done(f"{ISA} is back to their own mind.", ISA)
    assert s.controlled is None and c.player == "Alex"


def test_a_save_that_cannot_be_captured_is_refused(play, tmp_path, monkeypatch):
    s = play()

    def broken(*a, **k):
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(commands, "capture", broken)
    writer = SaveWriter()
    try:
        got = s.commands.save(writer, tmp_path / "x.sqlite", "x")
        assert got == Refused(commands.SAVE, "RuntimeError: the disk is on fire")
        assert s.commands.autosave(writer, tmp_path, 3) == got
        assert not (tmp_path / "x.sqlite").exists()
    finally:
        writer.close(wait=True)


def test_naming_the_visitor(play):
    s = play()
    c = s.commands
    assert c.name_visitor("  Sam   Lee ") == Done("Welcome to the Ville, Sam Lee!", "Sam Lee")
    assert s.visitor_name == "Sam Lee" and c.player == "Sam Lee" and "Sam Lee" in s.sim.bodies
    taken = c.name_visitor(ISA)
    assert isinstance(taken, Refused) and taken.why == commands.TAKEN and s.visitor_name == "Sam Lee"
    assert c.name_visitor("   ").why == commands.EMPTY
