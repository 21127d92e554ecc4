"""Saving in the middle of a chat or an interview keeps every exchange (issue 25).

The visitor's line is answered on the urgent lane; the exchange is then kept in
the resident's memory by ``keep_exchange``, the resident's next ordinary job
(game/view/chat.py ``_ask``: ``owe_exchange``, then ``sim.call(keep_exchange)``).
A save taken while that job was queued restored the mind from before the
*previous* exchange, and lost both. Here a save is taken at every point of that
job (queued behind the resident's own job, running, done with its result not yet
read, applied) and loaded into another game: the loaded resident remembers every
exchange, once. The last test takes the same path through the window's own chat
panel (typed lines, the panel's ``_ask``), not a copy of its steps.
"""
from __future__ import annotations

import threading

import pytest
from fakes import HashEmbedder
from test_savegame import DORM, MAP, make_session

from agents.mind.interview import Reply, answer_now, keep_exchange, owe_exchange

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")
NAME = DORM[0]


class HeldEmbedder(HashEmbedder):
    """Embeds like HashEmbedder; while ``hold`` is set, the memory of an exchange with
    ``marker`` in it (not the question itself, which answering embeds) waits for
    ``release``: a keeping job stopped in the middle."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = threading.Event()
        self.release = threading.Event()
        self.waiting = threading.Event()
        self.marker = "\x00"

    def embed(self, texts):
        if self.hold.is_set() and any(self.marker in t and " told " in t for t in texts):
            self.waiting.set()
            self.release.wait(30)
        return super().embed(texts)


@pytest.fixture
def game():
    made = []

    def make():
        s = make_session(DORM[:2], lockstep=False)
        made.append(s)
        return s
    yield make
    for s in made:
        s.close()


def _say(s, line: str) -> tuple:
    """What the chat does for one line, up to queueing the keeping job (its ``landed``)."""
    mind, now = s.minds[NAME], s.sim.now
    reply = answer_now(mind, "Alex", line, now=now)
    assert isinstance(reply, Reply)
    owed = owe_exchange(mind, "Alex", line, reply, now=now)
    done = []
    s.sim.call(NAME, keep_exchange, mind, "Alex", line, reply, now=now, owed=owed,
               on_result=lambda value, error: done.append(error))
    return done, reply


def _settle(s) -> None:
    s.pool.wait(10)
    s.sim.step()


def _remembers(s, line: str) -> int:
    mem = s.minds[NAME].memory
    return sum(1 for n in mem.nodes if n.kind == "chat" and line in n.description)


def _reload(s, tmp_path, name: str):
    """Save ``s`` (the real writer path), load it into a fresh game, return that game."""
    from game.saves.saveload import capture, load_into
    from game.saves.store import save_state

    parts, meta = capture(s)
    path = tmp_path / f"{name}.sqlite"
    save_state(path, parts, meta)
    t = make_session(DORM[:2], lockstep=False)
    try:
        load_into(t, path)
    except BaseException:
        t.close()
        raise
    return t


@pytest.mark.parametrize("point", ["queued", "running", "done", "applied"])
def test_a_save_at_any_point_of_a_chat_keeps_every_exchange(game, tmp_path, point):
    s = game()
    emb = HeldEmbedder()
    s.embedder = emb
    for m in s.minds.values():
        m.embedder = emb
    for _ in range(30):
        s.sim.step()
    _settle(s)
    first, second = "Where is the pharmacy, please?", "Do you like the cafe on Sunday \x00?"
    done1, _ = _say(s, first)
    for _ in range(200):  # the first exchange is kept and applied
        _settle(s)
        if done1:
            break
    assert done1 == [None] and _remembers(s, first) == 1
    gate = threading.Event()
    if point == "queued":  # the resident's own job runs; the keeping job waits behind it
        s.sim.call(NAME, gate.wait, 30, on_result=lambda v, e: None)
        _say(s, second)
        assert s.sim.jobs.has_waiting(NAME)
    elif point == "running":
        emb.hold.set()
        _say(s, second)
        assert emb.waiting.wait(10)  # the keeping job is inside remembering the exchange
    else:
        done2, _ = _say(s, second)
        s.pool.wait(10)  # done: its result waits for the next step
        assert s.sim.jobs.current(NAME) is not None
        if point == "applied":
            s.sim.step()
            assert done2 == [None]
    try:
        t = _reload(s, tmp_path, point)
    finally:
        gate.set()
        emb.release.set()
    try:
        assert _remembers(t, first) == 1, "the exchange before the save"
        assert _remembers(t, second) == 1, "the exchange being kept at the save"
        assert not t.minds[NAME].owed.copy()
        assert "Alex" in t.minds[NAME].social.known_people
    finally:
        t.close()
    for _ in range(50):
        _settle(s)
        if _remembers(s, second):
            break
    assert _remembers(s, second) == 1  # and the running game kept it once too


@pytest.mark.parametrize("point", ["queued", "running", "done"])
def test_a_save_during_an_interview_that_remembers_keeps_every_answer(game, tmp_path, point):
    """The in-game interview with Remember on goes the chat's way (game/view/interview.py):
    three questions in a row, the save taken while the last is being kept."""
    s = game()
    emb = HeldEmbedder()
    s.embedder = emb
    for m in s.minds.values():
        m.embedder = emb
    _settle(s)
    questions = ["What did you do this morning?", "Who are your friends here?", "What worries you \x00?"]
    for q in questions[:2]:
        done, _ = _say(s, q)
        for _ in range(200):
            _settle(s)
            if done:
                break
    gate = threading.Event()
    if point == "queued":
        s.sim.call(NAME, gate.wait, 30, on_result=lambda v, e: None)
        _say(s, questions[2])
    elif point == "running":
        emb.hold.set()
        _say(s, questions[2])
        assert emb.waiting.wait(10)
    else:
        _say(s, questions[2])
        s.pool.wait(10)
    try:
        t = _reload(s, tmp_path, f"interview-{point}")
    finally:
        gate.set()
        emb.release.set()
    try:
        assert [_remembers(t, q) for q in questions] == [1, 1, 1]
    finally:
        t.close()


def test_a_save_while_the_real_chat_panel_keeps_an_exchange_loses_nothing(tmp_path, display):
    """The same through the window's own chat panel (game/view/chat.py), not a copy of
    its steps: two lines typed into the box; the save is taken while the resident is in
    the middle of keeping the second exchange; the loaded resident remembers both, once."""
    import pygame
    from test_chat import open_chat, type_and_send, wait_answer
    from test_inspector import ISABELLA, make_play

    from game.saves.saveload import capture, load_into
    from game.saves.store import save_state

    game, session = make_play(tmp_path / "a")
    emb = HeldEmbedder()
    emb.marker = "zebra"  # typed into the box: no control characters there
    session.embedder = emb
    for m in session.minds.values():
        m.embedder = emb
    other = None
    try:
        chat = open_chat(game, session, display)
        first, second = "Where is the pharmacy, please?", "Do you like the zebra cafe on Sunday?"
        type_and_send(game, first)
        wait_answer(game, display, 2)
        mind = session.minds[ISABELLA]
        for _ in range(200):  # the first exchange kept (the resident's next ordinary job)
            session.pool.wait(10)
            session.sim.step()
            if sum(1 for n in mind.memory.nodes if n.kind == "chat" and first in n.description):
                break
        emb.hold.set()
        type_and_send(game, second)
        wait_answer(game, display, 4)
        for _ in range(50):  # the keeping job starts, and stops inside remembering
            session.sim.step()
            if emb.waiting.wait(0.1):
                break
        assert emb.waiting.is_set() and chat.pending == 0
        parts, meta = capture(session)
        path = tmp_path / "mid-chat.sqlite"
        save_state(path, parts, meta)
    finally:
        emb.release.set()
    try:
        _game2, other = make_play(tmp_path / "b")
        other.embedder = HeldEmbedder()  # the embedding the save was made with
        load_into(other, path)
        nodes = other.minds[ISABELLA].memory.nodes
        assert [sum(1 for n in nodes if n.kind == "chat" and line in n.description) for line in (first, second)] \
            == [1, 1]
        assert not other.minds[ISABELLA].owed.copy()
    finally:
        if other is not None:
            other.close()
        session.close()
        pygame.event.clear()
