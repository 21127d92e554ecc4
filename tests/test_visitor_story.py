"""The visitor is in the story (issue 45): the journal of what residents invited the visitor
to, agreed to and told (J, and the HUD's reminder), the visitor's yes as an arrangement on
the resident's side, a resident left by a visitor fallen silent, and the journal in saves.

SDL's dummy driver; the scripted fake model; tests/test_inspector.py's one-resident town.
"""
from __future__ import annotations

import time
from datetime import datetime, timedelta

import pytest

pygame = pytest.importorskip("pygame")
pytest.importorskip("pygame_gui")

from test_chat import open_chat, type_and_send, wait_answer
from test_inspector import ISABELLA, frame, key, make_play, plausible, settle

from game.runs.journal import AGREED, INVITED, TOLD, Journal
from tests.fakes import default_responder

INVITATION = ("Alex, I'm hosting a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm. "
              "Would you like to come?")


def inviting(purpose, messages, schema):
    """Isabella answers the visitor with her party; everything else as a plausible mind."""
    if purpose == "respond":
        return {"answer": INVITATION}
    if purpose in ("choose_fact", "choose_act"):
        return default_responder(purpose, messages, schema)
    return plausible(purpose, messages, schema)


def run_jobs(game, session, display, done, seconds=10.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        session.pool.wait(0.05)
        frame(game, display)
        if done():
            return True
    return done()


# ---------------------------------------------------------------------------- the journal


def test_an_invitation_in_the_chat_goes_in_the_journal_and_j_shows_it(tmp_path, display):
    game, session = make_play(tmp_path, respond=inviting)
    try:
        open_chat(game, session, display)
        type_and_send(game, "Hi Isabella, anything happening this week?")
        wait_answer(game, display, 2)
        j = session.journal
        [e] = j.entries
        assert (e.kind, e.what, e.place, e.who, e.host) == (INVITED, "Valentine's Day party", "Hobbs Cafe", ISABELLA,
                                                           ISABELLA)
        assert (e.start, e.minutes) == (datetime(2023, 2, 14, 17, 0), 120) and e.said == INVITATION
        # a toast says so, once
        frame(game, display, 40)
        toasts = [t for t, _ in game.panels.hud.toasts if "journal" in t]
        assert toasts == ["In your journal (J): Valentine's Day party at Hobbs Cafe, Tue 5 pm - 7 pm "
                          "(Isabella invited you)"]
        key(game, pygame.K_ESCAPE)  # the chat closes; J now opens the journal
        key(game, pygame.K_j)
        panel = game.panels.journal
        assert panel.is_open
        frame(game, display, 2)
        assert "Coming up" in panel.text and "Tue Feb 14, 5 pm - 7 pm" in panel.text
        assert "Valentine&#x27;s Day party at Hobbs Cafe" in panel.text or "Valentine's Day party at Hobbs Cafe" \
            in panel.text
        assert "Isabella invited you" in panel.text and "Past" not in panel.text
        key(game, pygame.K_j)
        assert not panel.is_open
    finally:
        session.close()


def test_j_while_typing_in_the_chat_types_a_letter():
    from game.view import keys

    ev = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_j, mod=0, unicode="j", scancode=0)
    assert keys.pressed(ev, "journal")
    assert ("J", "your journal: invitations, what you agreed to and were told, when and where") \
        in keys.help_lines(keys.GAME)


def test_lines_that_name_no_day_time_or_place_are_no_entry_and_news_is_told():
    j = Journal()
    now = datetime(2023, 2, 13, 9, 0)
    assert j.hear(ISABELLA, "Oh hi! Yes, come to my Valentine's party at the cafe tomorrow.", now) is None
    told = j.hear("Maria Lopez", "Alex, I heard Isabella Rodriguez is hosting a Valentine's Day party at Hobbs Cafe "
                                 "on February 14, from 5 pm to 7 pm.", now)
    assert told is not None and told.kind == TOLD and told.host == ISABELLA and told.by() == "Isabella"
    # ... then the host's own invitation: one entry, now an invitation
    e = j.hear(ISABELLA, INVITATION, now + timedelta(minutes=5), "repaired: grounded: memory #3 (x); act invite")
    assert e is told and len(j.entries) == 1 and e.kind == INVITED and e.who == ISABELLA
    # a meeting offered
    lunch = j.hear("Tom Moreno", "Alex, I'll be having lunch at Hobbs Cafe today at 12:30 pm. Would you like to "
                                 "join me?", now)
    assert lunch is not None and lunch.kind == INVITED and lunch.title() == "having lunch with Tom at Hobbs Cafe"
    # "no" is no yes; a yes agrees to the last line only
    assert j.said("Tom Moreno", "Sorry, I can't make it", now) is None and lunch.kind == INVITED
    assert j.said(ISABELLA, "Yes, I'll come!", now + timedelta(minutes=6)) is not None and e.kind == AGREED


def test_the_reminder_is_due_from_an_hour_before_until_it_starts_then_past(tmp_path, display):
    game, session = make_play(tmp_path)
    try:
        j = session.journal
        j.hear(ISABELLA, INVITATION, datetime(2023, 2, 13, 9, 0))
        hud = game.panels.hud

        def hud_at(t):
            session.sim.now = t
            return [text for text, _ in hud.compose()]

        line = "Due at 5 pm: Valentine's Day party at Hobbs Cafe (Isabella)"
        assert line not in hud_at(datetime(2023, 2, 14, 15, 59))
        assert line in hud_at(datetime(2023, 2, 14, 16, 0))
        assert line in hud_at(datetime(2023, 2, 14, 16, 59))
        assert line not in hud_at(datetime(2023, 2, 14, 17, 0))  # under way: no longer due
        panel = game.panels.journal
        panel.open()
        frame(game, display, 40)
        assert "now" in panel.text and "Past" not in panel.text
        session.sim.now = datetime(2023, 2, 14, 19, 0)  # over
        frame(game, display, 40)
        coming, past = panel.text.split("Past")
        assert "Nothing coming up." in coming and "Valentine" in past
    finally:
        session.close()


# ---------------------------------------------------------------------------- the visitor's yes


def test_saying_yes_is_an_arrangement_on_the_residents_side(tmp_path, display):
    """Free mode (the paper's): the resident remembers the two lines through end_conversation,
    whose chat summary (the model's) names the plan; it is kept as an arrangement."""
    summaries = []

    def respond(purpose, messages, schema):
        if purpose == "chat_summary":
            summaries.append(messages[-1]["content"])
            places = schema.model_json_schema()["properties"]["place"]["anyOf"][0]["enum"]
            return {"summary": "Alex is coming to my party", "importance": 6, "plans": True,
                    "day": "Tuesday February 14", "start": "17:00", "minutes": 120,
                    "activity": "host the Valentine's Day party", "place": next(x for x in places if "cafe" in x)}
        return inviting(purpose, messages, schema)

    game, session = make_play(tmp_path, respond=respond)
    try:
        open_chat(game, session, display)
        mind = session.minds[ISABELLA]
        type_and_send(game, "Hi! What's on this week?")
        wait_answer(game, display, 2)
        type_and_send(game, "Yes, I'll come!")
        assert session.journal.entries[0].kind == AGREED
        assert run_jobs(game, session, display, lambda: summaries and any(
            e["kind"] == "arrange" for e in session.sim.events), 15)
        assert "Yes, I'll come!" in summaries[0] and "Valentine's Day party" in summaries[0]
        [a] = [a for a in mind.today.arrangements if "party" in a.description]
        assert a.start == datetime(2023, 2, 14, 17, 0) and "Alex" in a.made
        plans = [x.description for x in mind.memory.nodes if x.kind == "plan" and "Alex" in x.description]
        assert plans and "Valentine's Day party" in plans[-1]
        [ev] = [e for e in session.sim.events if e["kind"] == "arrange"]
        assert ev["resident"] == ISABELLA and ev["partner"] == "Alex"
    finally:
        session.close()


def test_saying_yes_takes_the_residents_own_road_in_the_grounded_mode(tmp_path, display):
    """The grounded mode (the embedded model's): converse.agreements reads the invitation and
    the yes, as between residents; the arrangement and the memo hold the visitor's acceptance."""
    game, session = make_play(tmp_path, respond=inviting)
    try:
        settle(session)
        mind = session.minds[ISABELLA]
        mind.settings.grounded = True
        sim = session.sim
        open_chat(game, session, display)
        # her invitation (a greeting's line, as the greeting logs it), then the visitor's yes
        sim.log_event(ISABELLA, "line", INVITATION, sim.area(sim.bodies[ISABELLA].tile), partner="Alex",
                      greeting=True, source="repaired: grounded: memory #2 (I want to host ...); act invite")
        type_and_send(game, "Sure, count me in!")
        assert run_jobs(game, session, display, lambda: any("agreed with Alex" in a.made
                                                            for a in mind.today.arrangements), 15)
        [a] = mind.today.arrangements
        assert a.description == "hosting the Valentine's Day party" and a.start == datetime(2023, 2, 14, 17, 0)
        memo = [x.description for x in mind.memory.nodes if x.description.startswith("conversed with Alex")]
        assert memo and "Alex said" in memo[-1] and "count me in" in memo[-1]  # the memo of what was agreed
        assert session.journal.entries[0].kind == AGREED
    finally:
        session.close()


def test_a_yes_to_nothing_offered_arranges_nothing(tmp_path, display):
    game, session = make_play(tmp_path)  # she answers with no dated event
    try:
        open_chat(game, session, display)
        type_and_send(game, "Hello!")
        wait_answer(game, display, 2)
        n = len(session.sim.jobs.waiting())
        type_and_send(game, "Yes, I'll come!")
        assert not session.journal.entries
        assert not any(j.kind == "end_conversation" for _, j in session.sim.jobs.waiting()[n:])
    finally:
        session.close()


# ---------------------------------------------------------------------------- the silent visitor


def test_a_silent_visitor_is_left_after_the_bound(tmp_path, display, monkeypatch):
    from game.view import chat as chat_view

    game, session = make_play(tmp_path)
    try:
        chat = open_chat(game, session, display)
        sim = session.sim
        body = sim.bodies[ISABELLA]
        before = body.prev_action
        clock = [time.monotonic()]
        monkeypatch.setattr(chat_view.time, "monotonic", lambda: clock[0])
        chat._not_silent()
        # 10 sim minutes pass, but only a few real seconds: the player may be reading
        for _ in range(61):
            sim.step()
        frame(game, display)
        assert sim.held(ISABELLA) and not chat.ended
        clock[0] += chat_view.SILENT_REAL_S  # ... and half a minute of no typing either
        # typing resets it
        chat.entry.set_text("I was just")
        frame(game, display)
        assert sim.held(ISABELLA) and not chat.ended
        chat.entry.set_text("")  # ... and so does clearing the line
        frame(game, display)
        for _ in range(61):
            sim.step()
        clock[0] += chat_view.SILENT_REAL_S
        frame(game, display)
        assert chat.ended and not sim.held(ISABELLA)
        assert body.action is before  # back to her day
        who, bye = chat.lines[-1]
        assert who == ISABELLA and "Alex" in bye
        last = [e for e in sim.events if e["kind"] == "line"][-1]
        assert last["resident"] == ISABELLA and last["partner"] == "Alex" and last["text"] == bye
        assert "act goodbye" in last["source"] and "fell silent" in last["source"]
        # the window shows it, read-only; nothing more is sent, and she is not held again
        assert chat.is_open and "said goodbye" in chat._title and not chat.entry.is_enabled
        assert not chat.send("Wait!") and game.controls.enabled
        frame(game, display, 5)
        assert not sim.held(ISABELLA)
        key(game, pygame.K_ESCAPE)
        assert not chat.is_open
    finally:
        session.close()


def test_a_paused_game_or_a_pending_answer_keeps_her(tmp_path, display, monkeypatch):
    from game.view import chat as chat_view

    game, session = make_play(tmp_path)
    try:
        chat = open_chat(game, session, display)
        clock = [time.monotonic()]
        monkeypatch.setattr(chat_view.time, "monotonic", lambda: clock[0])
        chat._not_silent()
        clock[0] += 10 * chat_view.SILENT_REAL_S  # paused (no sim time passes): she waits
        frame(game, display)
        assert session.sim.held(ISABELLA) and not chat.ended
        for _ in range(61):
            session.sim.step()
        chat.pending = 1  # an answer on its way: the resident is the one talking
        frame(game, display)
        assert session.sim.held(ISABELLA) and not chat.ended
    finally:
        session.close()


# ---------------------------------------------------------------------------- saves


def test_the_journal_survives_save_and_load_and_an_old_save_loads_empty(tmp_path, display):
    from savetools import edit_part

    from game.saves.saveload import capture, load_into
    from game.saves.store import save_state

    game, session = make_play(tmp_path / "a", respond=inviting)
    other = None
    try:
        open_chat(game, session, display)
        type_and_send(game, "Anything on?")
        wait_answer(game, display, 2)
        type_and_send(game, "Yes, I'll come!")
        wait_answer(game, display, 4)
        before = session.journal.to_state()
        assert [e["kind"] for e in before] == [AGREED]
        parts, meta = capture(session)
        path = tmp_path / "story.sqlite"
        save_state(path, parts, meta)
        _game2, other = make_play(tmp_path / "b")
        assert not other.journal.entries
        load_into(other, path)
        assert other.journal.to_state() == before
        [e] = other.journal.entries
        assert (e.kind, e.title(), e.start, e.who) == (AGREED, "Valentine's Day party at Hobbs Cafe",
                                                       datetime(2023, 2, 14, 17, 0), ISABELLA)
        # a loaded journal hears on: the loaded town's lines reach it
        sim = other.sim
        sim.log_event(ISABELLA, "line", "Alex, I'll be having lunch at Hobbs Cafe today at 12:30 pm. Would you like "
                      "to join me?", "", partner="Alex")
        assert [x.what for x in other.journal.entries] == ["having lunch", "Valentine's Day party"]
        # a save from before the journal (its visitor part without one) loads, the journal empty
        edit_part(path, "visitor", lambda v: {k: x for k, x in v.items() if k != "journal"})
        load_into(other, path)
        assert other.journal.entries == [] and other.visitor_name == "Alex"
    finally:
        if other is not None:
            other.close()
        session.close()
