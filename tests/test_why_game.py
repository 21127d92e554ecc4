"""The inspector's "Why?" through the real game loop (issue 27), headless (SDL's dummy driver).

Two residents of the Ville with a scripted model meet at breakfast and talk. The
player clicks one of them; the "why?" after a line said opens the Why panel on
that line's decision record: its memories' scores recompute exactly from a save
of the game, and the prompt unfolds below as the model received it; a word typed
in the panel lists who told whom. The "Why?" button of the action line opens the
action's record. A replay finds its records in the run folder; a game keeps its
records beside its recording, where `smallville why SAVE` finds them.
"""
from __future__ import annotations

import json
import os
import time

import pytest

pygame = pytest.importorskip("pygame")
pygame_gui = pytest.importorskip("pygame_gui")

from driving import click, click_element, frames, on_screen, until, window
from test_why import MAP, recompute, run, sent_prompts, talky  # noqa: F401 - run: the shared seeded run

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")
PAIR = "Maria Lopez,Klaus Mueller"


def said_by_model(session):
    return next((e for e in session.sim.events if e["kind"] == "line" and e.get("source") == "model"), None)


def test_why_on_a_line_said_shows_its_memories_and_prompt(display, tmp_path):
    from game.saves.saveload import capture
    from game.saves.store import SaveWriter, load_state
    from game.view.markup import esc

    game, session = window(display, responder=talky, residents=PAIR)
    try:
        session.paused = True  # the test steps the town; the frames run the real loop
        for _ in range(500):
            if said_by_model(session):
                break
            session.sim.step()
            session.pool.wait(10)
        line = said_by_model(session)
        assert line is not None, "nobody talked"
        who = line["resident"]
        game.follow_resident(who)
        assert until(game, lambda: on_screen(game, who), limit=200)
        rect = next(r for f, r in game.drawn if f.name == who)
        click(rect.center)
        frames(game, 3)
        insp = game.panels.inspector
        assert insp.is_open and insp.selected == who
        said = insp.snap.said
        j = next(i for i, x in enumerate(said) if x.text == line["text"])
        assert f"why:line:{j}" in insp.box.html_text  # the link after the line said
        # what pygame_gui posts when the link is clicked, through the game's own loop
        pygame.event.post(pygame.event.Event(pygame_gui.UI_TEXT_BOX_LINK_CLICKED, link_target=f"why:line:{j}",
                                             ui_element=insp.box))
        frames(game, 2)
        panel = game.panels.why_panel
        assert panel.is_open and panel.record is not None
        rec = panel.record
        assert rec["purpose"] == "utterance" and rec["resident"] == who
        assert line["text"] in str(rec["answer"])
        top = panel.memories[0]
        assert f"#{top['id']} total {top['total']:.3f}" in panel.text and top["text"] in panel.text
        # the scores recompute exactly from a save of this game
        parts, meta = capture(session)
        path = SaveWriter().save(tmp_path / "why.sqlite", parts, meta).result().path
        saved, _ = load_state(path)
        assert recompute(rec, saved[f"minds/{who}"]["memory"], session.embedder) >= 3
        # the prompt and the answer, folded below until asked for
        assert panel.box is None
        click_element(game, panel.fold_button)
        assert panel.unfolded and panel.box is not None
        assert rec["call"]["messages"] in sent_prompts(session.gateway)
        user = rec["call"]["messages"][-1]["content"]
        assert esc(user.splitlines()[0]) in panel.box.html_text
        assert esc(line["text"]) in panel.box.html_text  # the answer as received
        pygame.image.save(display, str(os.environ.get("WHY_SHOT") or tmp_path / "why.png"))

        # who told whom: a word typed in the panel lists the lines said with it
        panel.spread_entry.set_text(line["text"].split()[0].strip(",.!?"))
        click_element(game, panel.spread_button)
        assert until(game, lambda: not panel._spreading, limit=300, wait=lambda g: time.sleep(0.01))
        partner = line["partner"]
        assert f"{partner}: heard it from {who}" in panel.text and line["text"] in panel.text
        assert "heard it from" in panel.box.html_text
        frames(game, 2)
        pygame.image.save(display, str(tmp_path / "spread.png"))
        if os.environ.get("WHY_SHOT"):
            pygame.image.save(display, os.environ["WHY_SHOT"].replace(".png", "-spread.png"))

        # "Why?" on the action line
        click_element(game, insp.why_button)
        assert panel.is_open and panel.want[1] == "action"
        body = session.sim.bodies[who]
        assert body.action.description in panel.text
        if body.action.source == "model" and panel.record is not None:
            assert body.action.description.lower()[:20] in str(panel.record["answer"]).lower()
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode="", scancode=0))
        frames(game, 2)
        assert not panel.is_open and insp.is_open  # Escape closes the Why panel first
    finally:
        session.close()


def test_why_in_a_replay_reads_the_runs_records_off_the_frame(display, run):  # noqa: F811 - the fixture
    """A replay's inspector: "Why?" on the recorded action finds its record in the run's
    why.jsonl.gz, read on a background thread (the panel says so meanwhile)."""
    from datetime import datetime

    from game.replay.app import load_personas, open_replay
    from game.replay.reader import find_recording, read_recording
    from game.world.map_reader import load_town

    folder, _, _ = run
    target = find_recording(folder)
    game, session = open_replay(read_recording(target.recording), load_town(MAP), MAP, target=target,
                                personas=load_personas(MAP), size=display.get_size())
    try:
        session.paused = True
        events = [json.loads(x) for x in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]
        act = next(e for e in events if e.get("kind") == "action" and e.get("source") == "model"
                   and e["time"] > "2023-02-13 07:30")
        who = act["resident"]
        session.seek_time(datetime.fromisoformat(act["time"]))
        frames(game, 2)
        game.panels.inspector.select(who)
        frames(game, 2)
        body = session.sim.bodies[who]
        assert body.action is not None
        click_element(game, game.panels.inspector.why_button)
        panel = game.panels.why_panel
        assert panel.is_open and panel.want[1] == "action"
        assert until(game, lambda: not panel._loading, limit=300, wait=lambda g: time.sleep(0.01))
        assert panel.record is not None, panel.text
        assert panel.record["resident"] == who and panel.record["purpose"] in ("decompose", "react", "day_plan")
        assert body.action.description.lower()[:20] in str(panel.record["answer"]).lower()
        click_element(game, panel.fold_button)
        assert "Prompt as sent" in panel.box.html_text
    finally:
        session.close()


def test_a_game_keeps_its_records_beside_its_recording_and_smallville_why_reads_them_from_a_save(tmp_path, capsys):
    from test_play import make_session

    from game.runs.why_records import why_files
    from game.saves.saveload import capture
    from game.saves.store import SaveWriter
    from smallville.cli import main

    session = make_session(talky, residents=PAIR)
    try:
        rec = session.record(tmp_path)  # the save folder: recordings/<stamp>.jsonl and .why.jsonl.gz
        for _ in range(500):
            if said_by_model(session):
                break
            session.sim.step()
            session.pool.wait(10)
            session._record()
        line = said_by_model(session)
        assert line is not None
        parts, meta = capture(session)
        save = SaveWriter().save(tmp_path / "quick.sqlite", parts, meta).result().path
    finally:
        session.close()
    (found,) = why_files(save)
    assert found.name == rec.path.name.replace(".jsonl", ".why.jsonl.gz") and found.parent == rec.path.parent
    assert main(["why", str(save), line["resident"], "--at", line["time"], "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    act = next(a for a in got["acts"] if a["kind"] == "line" and a["text"] == line["text"])
    assert act["record"]["purpose"] == "utterance" and act["memories"]
