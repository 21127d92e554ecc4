"""game/saves/saveload.py: saving and loading a whole running game (scripted model, real map).

- load(save(x)) equals x, with conversations in progress (lockstep) and with a
  mind whose job is in flight (realtime);
- a loaded game continues exactly as the saved one would have (lockstep);
- headless runs autosave into their folder and ``--resume`` continues them
  exactly as one uninterrupted run;
- bad saves leave the running game untouched;
- a 25 residents x 3000 memories town: capture defers the memory streams to the
  writer, and the file loads back whole (its timings: `make bench`'s "saves").
"""
from __future__ import annotations

import json
import sqlite3
import threading
from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest

from game.saves.store import SCHEMA, SaveError, load_state, save_state, state_diff

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
DORM = ["Maria Lopez", "Klaus Mueller", "Ayesha Khan", "Wolfgang Schulz"]

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")


def chatty(purpose, messages, schema):
    """Residents talk when they meet and say a few lines; everything else minimal."""
    from fakes import minimal_instance

    if purpose == "talk_decision":
        return {"talk": True}
    if purpose == "utterance":
        n = len(str(messages))
        return {"utterance": f"Good morning! How are you today? ({n % 97})", "ends": n > 6000}
    return minimal_instance(schema)


def make_session(names=DORM, *, lockstep=True, responder=chatty, seed=3, **gw):
    """A Session on the real map with real Minds on a scripted model."""
    from fakes import HashEmbedder, make_gateway

    from agents.residents.persona import load_cast
    from game.runs.session import PlaySimulation, Session, build_parts
    from game.world.map_reader import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    personas = [p for p in cast if p.name in names]
    gateway = make_gateway(responder, via_litellm=False, **gw)
    parts = build_parts(town, personas, scenario.start, scenario=scenario, gateway=gateway, embedder=HashEmbedder(),
                        seed=seed, lockstep=lockstep, sim_class=PlaySimulation)
    return Session(parts, visitor_name="Alex")


def plain(parts: dict) -> dict:
    """Materialised parts without the model configuration (each fake gateway has its own model name)."""
    from game.saves.saveload import materialize

    out = materialize(parts)
    out.pop("config", None)
    return out


def run_until_talking(s, max_steps=3000):
    for _ in range(max_steps):
        s.sim.step()
        if any(len(c.conv.lines) >= 2 for c in s.sim.chats.values()):
            return
    raise AssertionError("nobody talked")


@pytest.fixture
def sessions():
    made = []

    def make(*a, **k):
        s = make_session(*a, **k)
        made.append(s)
        return s
    yield make
    for s in made:
        s.close()


# ---------------------------------------------------------------------------- round trip, continuation


def test_load_of_save_equals_the_game_and_continues_exactly(tmp_path, sessions):
    from game.saves.saveload import capture, restore

    a = sessions()
    run_until_talking(a)
    a.sim.add_visitor("Alex", (40, 40)) if a.sim.visitor is None else None
    a.minds["Klaus Mueller"].queue_thought("I should call my sister tonight", 6)  # a thought not yet folded in
    parts, meta = capture(a)
    assert a.sim.chats, "a conversation is in progress at the save"
    talking = {c.id: len(c.conv.lines) for c in a.sim.chats.values()}
    assert any(n >= 2 for n in talking.values())
    snap = plain(parts)
    assert len(snap["minds/Maria Lopez"]["memory"]["nodes"]) > 5
    path = tmp_path / "a.sqlite"
    save_state(path, parts, meta)
    loaded, info = load_state(path, expect_map=a.town)

    b = sessions()
    restore(b, loaded, info)
    assert b.sim.now == a.sim.now and {c.id: len(c.conv.lines) for c in b.sim.chats.values()} == talking
    diff = state_diff(plain(capture(b)[0]), snap)
    assert diff is None, diff

    # Both continue in lockstep with the same scripted model: the same story.
    k = len(a.sim.events)
    assert b.sim.events == a.sim.events
    for _ in range(360):  # one sim hour
        a.sim.step()
        b.sim.step()
    new_a, new_b = a.sim.events[k:], b.sim.events[k:]
    assert new_a == new_b
    kinds = {e["kind"] for e in new_a}
    assert "line" in kinds, kinds  # the conversation in progress went on (or ended) after the load
    ended = [e for e in new_a if e.get("ended")]
    assert {e["conversation"] for e in ended} >= set(talking) or any(c in b.sim.chats for c in talking)
    pa, pb = plain(capture(a)[0]), plain(capture(b)[0])
    pa.pop("accounting"), pb.pop("accounting")  # latencies are wall-clock
    diff = state_diff(pa, pb)
    assert diff is None, diff


def test_busy_mind_is_saved_before_its_job_and_asked_again(tmp_path, sessions):
    """Realtime: a save while a mind's job is running takes the mind as it was when
    the job began; after loading the job is asked again."""
    from game.saves.saveload import capture, restore

    who = "Maria Lopez"
    gate = {"block": False}
    entered, release = threading.Event(), threading.Event()
    a = sessions(lockstep=False)
    mind = a.minds[who]
    fold = mind._fold_queue

    def slow_fold():  # runs inside the mind's job, after it began: a model call that takes long
        if gate["block"]:
            entered.set()
            release.wait(20)
        fold()

    mind._fold_queue = slow_fold
    try:
        for _ in range(400):  # a while in town, every job answered between steps
            a.sim.step()
            a.pool.wait(5)
        gate["block"] = True
        for _ in range(3000):
            a.sim.step()
            if entered.wait(0.01):
                break
        assert entered.is_set(), "the resident never asked the model"
        assert a.sim.jobs.current(who) is not None and a.pool.busy(who)
        parts, meta = capture(a)
        assert parts[f"minds/{who}"] is mind._before  # the capture from when the job began
        mind.queue_thought("the fire alarm went off", 7)  # while the job runs: kept for after the load
        parts, meta = capture(a)
        snap = plain(parts)
        assert snap[f"minds/{who}"]["queue"][-1] == ["the fire alarm went off", 7]
        assert snap[f"minds/{who}"]["memory"] == mind._before()["memory"]
        path = tmp_path / "busy.sqlite"
        save_state(path, parts, meta)
        loaded, info = load_state(path, expect_map=a.town)
        b = sessions(lockstep=False)
        restore(b, loaded, info)
        diff = state_diff(plain(capture(b)[0]), snap)
        assert diff is None, diff
        assert ("the fire alarm went off", 7) in b.minds[who]._queue
        # The loaded game asks the busy resident again and goes on.
        events = len(b.sim.events)
        asked = False
        for _ in range(2000):
            b.sim.step()
            b.pool.wait(5)
            asked = asked or b.sim.jobs.current(who) is not None
            if asked and any(e["resident"] == who for e in b.sim.events[events:]):
                break
        assert asked
    finally:
        release.set()
        a.pool.wait(10)


def test_save_while_a_line_is_being_said_resumes_the_conversation(tmp_path, sessions):
    """Realtime: a save while a resident is making its next line keeps the
    conversation with every line said so far; after loading the line is asked again."""
    from game.saves.saveload import capture, restore

    gate = {"block": False}
    entered, release = threading.Event(), threading.Event()
    a = sessions(lockstep=False)
    for mind in a.minds.values():
        def slow_fold(mind=mind, fold=mind._fold_queue):
            if gate["block"] and mind._job_tag and mind._job_tag[0] == "utter":
                entered.set()
                release.wait(20)
            fold()
        mind._fold_queue = slow_fold
    try:
        for _ in range(3000):
            a.sim.step()
            a.pool.wait(5)
            if any(len(c.conv.lines) >= 1 for c in a.sim.chats.values()):
                break
        gate["block"] = True
        for _ in range(500):
            a.sim.step()
            if entered.wait(0.01):
                break
        assert entered.is_set(), "nobody was making a line"
        speaker = next(n for n, j in a.sim.jobs.running().items() if j.kind == "utter")
        cid = a.sim.jobs.current(speaker).chat
        lines = list(a.sim.chats[cid].conv.lines)
        parts, meta = capture(a)
        snap = plain(parts)
        path = tmp_path / "talk.sqlite"
        save_state(path, parts, meta)
        loaded, info = load_state(path, expect_map=a.town)
        b = sessions(lockstep=False)
        restore(b, loaded, info)
        assert state_diff(plain(capture(b)[0]), snap) is None
        assert b.sim.chats[cid].conv.lines == lines and b.sim.chats[cid].turn == speaker
        for _ in range(500):
            b.sim.step()
            b.pool.wait(5)
            chat = b.sim.chats.get(cid)
            if chat is None or len(chat.conv.lines) > len(lines):
                break
        said = [e for e in b.sim.events if e.get("conversation") == cid and e["kind"] == "line"]
        assert len(said) > len(lines) and said[len(lines)]["resident"] == speaker  # the same turn, asked again
    finally:
        release.set()
        a.pool.wait(10)


# ---------------------------------------------------------------------------- bad saves


@pytest.fixture
def small_game(tmp_path, sessions):
    from game.saves.saveload import capture

    s = sessions(DORM[:2])
    for _ in range(120):
        s.sim.step()
    parts, meta = capture(s)
    good = tmp_path / "good.sqlite"
    save_state(good, parts, meta)
    for _ in range(30):
        s.sim.step()  # the running game moves on from the save
    return s, good, parts, meta


def _untouched(s, fn):
    from game.saves.saveload import capture

    before = plain(capture(s)[0])
    sim, minds = s.sim, s.minds
    with pytest.raises(SaveError) as err:
        fn()
    assert s.sim is sim and s.minds is minds
    assert state_diff(plain(capture(s)[0]), before) is None
    return str(err.value)


def test_bad_saves_leave_the_game_untouched(tmp_path, small_game):
    from game.saves.saveload import load_into

    s, good, parts, meta = small_game
    # truncated
    bad = tmp_path / "truncated.sqlite"
    bad.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    msg = _untouched(s, lambda: load_into(s, bad))
    assert str(bad) in msg
    # random bytes
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"\x00garbage" * 1000)
    assert "not a Smallville save" in _untouched(s, lambda: load_into(s, junk))
    # a newer schema
    newer = tmp_path / "newer.sqlite"
    newer.write_bytes(good.read_bytes())
    con = sqlite3.connect(newer)
    con.execute(f"PRAGMA user_version = {SCHEMA + 1}")
    con.commit()
    con.close()
    assert "newer Smallville" in _untouched(s, lambda: load_into(s, newer))
    # another map
    other_map = tmp_path / "elsewhere.tmx"
    other_map.write_text("<map/>")
    other = tmp_path / "other.sqlite"
    save_state(other, parts, {**meta, "map_path": str(other_map), "map_sha256": None, "world": "Elsewhere"})
    assert "this game runs" in _untouched(s, lambda: load_into(s, other))
    # a missing file
    assert "no save" in _untouched(s, lambda: load_into(s, tmp_path / "nothing-here.sqlite"))
    # a resident this town does not know
    stranger = dict(parts)
    stranger["session"] = {**parts["session"], "residents": [*parts["session"]["residents"], "Nobody Here"]}
    stranger["minds/Nobody Here"] = parts["minds/Maria Lopez"]
    p = tmp_path / "stranger.sqlite"
    save_state(p, stranger, meta)
    assert "Nobody Here" in _untouched(s, lambda: load_into(s, p))
    # a damaged mind
    broken = dict(parts)
    mind = dict(plain({"m": parts["minds/Klaus Mueller"]})["m"])
    del mind["plan"]
    broken["minds/Klaus Mueller"] = mind
    p = tmp_path / "broken.sqlite"
    save_state(p, broken, meta)
    assert "Klaus Mueller" in _untouched(s, lambda: load_into(s, p))
    # and the good one still loads into the same game
    info = load_into(s, good)
    assert info.slot == "good" and s.sim.now == meta["sim_time"]


def test_slot_names_and_paths(tmp_path, small_game):
    from game.saves.saveload import load_into, resolve_path

    s, good, parts, meta = small_game
    assert resolve_path("quick", tmp_path) == tmp_path / "quick.sqlite"
    assert resolve_path(str(good)) == good
    save_state(tmp_path / "quick.sqlite", parts, meta)
    info = load_into(s, "quick", folder=tmp_path)
    assert info.slot == "quick"
    with pytest.raises(SaveError):
        load_into(s, "../etc/passwd", folder=tmp_path)


# ---------------------------------------------------------------------------- headless runs


def _read_jsonl(path):
    return [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines() if x.strip()]


def _headless(out, hours, **kw):
    from fakes import HashEmbedder, make_gateway

    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.world.map_reader import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    people = [p for p in cast if p.name in DORM[:3]]
    return run_headless(town, people, start=scenario.start, hours=hours, out=out, scenario=scenario,
                        gateway=make_gateway(chatty, via_litellm=False), embedder=HashEmbedder(), seed=2,
                        progress=False, echo=None, **kw)


def test_headless_run_autosaves_and_resume_continues_exactly(tmp_path):
    from fakes import HashEmbedder, make_gateway

    from game.headless import resume_sim
    from game.saves.store import list_saves

    straight = _headless(tmp_path / "straight", 1.0, autosave_min=10)
    first = _headless(tmp_path / "run", 0.5, autosave_min=10)
    saves = sorted(i.slot for i in list_saves(tmp_path / "run" / "saves"))
    assert saves == ["autosave-1", "autosave-2", "autosave-3", "end"]
    events_before = (tmp_path / "run" / "events.jsonl").read_text(encoding="utf-8")
    calls_before = len(_read_jsonl(tmp_path / "run" / "llm_calls.jsonl"))
    args = Namespace(resume=str(tmp_path / "run"), hours=0.5, map=str(MAP), autosave_min=10, model=None,
                     api_base=None, concurrency=None, cache=None, seed=0, agents=None, residents=None)
    code = resume_sim(args, gateway=make_gateway(chatty, via_litellm=False), embedder=HashEmbedder(),
                      progress=False, echo=None)
    assert code == 0
    events_after = (tmp_path / "run" / "events.jsonl").read_text(encoding="utf-8")
    assert events_after.startswith(events_before) and len(events_after) > len(events_before)
    resumed = _read_jsonl(tmp_path / "run" / "events.jsonl")
    assert resumed == straight.sim.events  # half, save, resume, half == one whole run
    assert len(_read_jsonl(tmp_path / "run" / "llm_calls.jsonl")) > calls_before
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["sim_hours"] == pytest.approx(1.0, abs=0.01)
    assert summary["resumed_at"] == "2023-02-13 07:30" and summary["steps"] == straight.summary["steps"]
    assert summary["totals"]["calls"] == straight.summary["totals"]["calls"]
    assert summary["events"] == len(straight.sim.events)
    timeline = (tmp_path / "run" / "timeline.md").read_text()
    whole = (tmp_path / "straight" / "timeline.md").read_text()
    assert timeline.split("\n## ", 1)[1] == whole.split("\n## ", 1)[1]  # the same story under the header
    saves = sorted(i.slot for i in list_saves(tmp_path / "run" / "saves"))
    assert saves == ["autosave-4", "autosave-5", "autosave-6", "end"]
    assert first.summary["save"].endswith("end.sqlite")
    from game.saves.saveload import resolve_path

    assert resolve_path(tmp_path / "run") == tmp_path / "run" / "saves" / "end.sqlite"  # play --load runs/NAME


def test_a_run_with_a_think_time_resumes_with_it_and_continues_exactly(tmp_path):
    from fakes import HashEmbedder, make_gateway

    from game.headless import resume_sim
    from game.sim import SimSettings

    think = SimSettings(lockstep_think_s=60)
    straight = _headless(tmp_path / "straight", 1.0, autosave_min=10, sim_settings=think)
    _headless(tmp_path / "run", 0.5, autosave_min=10, sim_settings=think)
    args = Namespace(resume=str(tmp_path / "run"), hours=0.5, map=str(MAP), autosave_min=10, model=None,
                     api_base=None, concurrency=None, cache=None, seed=0, agents=None, residents=None, think_s=None)
    assert resume_sim(args, gateway=make_gateway(chatty, via_litellm=False), embedder=HashEmbedder(),
                      progress=False, echo=None) == 0
    assert _read_jsonl(tmp_path / "run" / "events.jsonl") == straight.sim.events  # the saved 60 s, not the default
    default = _headless(tmp_path / "default", 1.0, autosave_min=10)
    assert default.sim.events != straight.sim.events  # the think time shows: answers land later


def test_think_time_shorter_than_a_step_is_refused(tmp_path):
    from game.headless import think_settings
    from game.support.errors import UserError

    assert think_settings(Namespace(think_s=None)) is None
    assert think_settings(Namespace(think_s=None), 60).lockstep_think_s == 60
    assert think_settings(Namespace(think_s=30), 60).lockstep_think_s == 30  # the flag wins over the save
    with pytest.raises(UserError, match="at least 10"):
        think_settings(Namespace(think_s=5))


def test_resume_without_saves_says_so(tmp_path):
    from game.headless import last_run_save
    from game.support.errors import UserError

    (tmp_path / "old").mkdir()
    with pytest.raises(UserError, match="no saves"):
        last_run_save(tmp_path / "old")
    with pytest.raises(UserError, match="no such run folder"):
        last_run_save(tmp_path / "missing")
    (tmp_path / "old" / "saves").mkdir()
    (tmp_path / "old" / "saves" / "end.sqlite").write_bytes(b"junk" * 100)
    with pytest.raises(UserError, match="none of its saves can be loaded"):
        last_run_save(tmp_path / "old")


def test_cli_resume_of_a_folder_without_saves(tmp_path, monkeypatch, capsys):
    from smallville.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs" / "old").mkdir(parents=True)
    assert main(["sim", "--resume", "runs/old", "--hours", "1"]) == 2
    assert "has no saves" in capsys.readouterr().err


# ---------------------------------------------------------------------------- the main thread's cost


@pytest.mark.slow
def test_a_big_town_saves_with_its_heavy_work_off_the_main_thread_and_loads_whole(tmp_path):
    """25 residents x 3000 memories: what capture() does on the main thread does not
    build the memory streams (each mind's part is a deferred snapshot, built by the
    writer), and the file loads back whole (every memory, every embedding). The
    timings of this case are `make bench`'s "saves" (lab/bench/saves.py), not asserted here."""
    from datetime import timedelta

    from fakes import HashEmbedder, make_gateway

    from agents.mind.core import Mind
    from agents.residents.persona import load_cast
    from game.runs.session import PlaySimulation, Session, build_parts
    from game.saves.saveload import capture, commit, prepare
    from game.saves.store import SaveWriter
    from game.world.map_reader import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    assert len(cast) == 25
    emb = HashEmbedder()
    gw = make_gateway(chatty, via_litellm=False)
    rng = np.random.default_rng(0)
    minds = {}
    for r, p in enumerate(cast):
        m = Mind(p, gw, emb)
        vecs = rng.standard_normal((3000, emb.dim)).astype(np.float32)
        t = scenario.start
        for i in range(3000):
            m.memory.add(("observation", "chat", "plan", "thought", "reflection")[i % 5],
                         f"{cast[(r + i) % 25].name} is doing thing {i} at the cafe", t + timedelta(seconds=43 * i),
                         1 + i % 10, vecs[i], evidence=[i - 1, i - 2] if i % 5 == 4 else (), subject=p.name)
        minds[p.name] = m
    parts_ = build_parts(town, cast, scenario.start, scenario=scenario, gateway=gw, embedder=emb, minds=minds,
                         sim_class=PlaySimulation)
    s = Session(parts_, visitor_name="Alex")
    try:
        for _ in range(30):
            s.sim.step()
        s.pool.wait(10)
        s.sim.pump()
        counts = {n: len(m.memory.nodes) for n, m in s.minds.items()}
        assert min(counts.values()) >= 3000
        parts, meta = capture(s)
        deferred = [n for n in s.minds if callable(parts[f"minds/{n}"])]
        assert deferred == list(s.minds), "a mind's memory stream was built on the main thread"
        w = SaveWriter()
        path = tmp_path / "big.sqlite"
        info = w.save(path, parts, meta).result()
        w.close()
        assert info.size > 25 * 3000 * emb.dim * 4 * 0.9  # every embedding is in the file
        loaded, linfo = load_state(path, expect_map=s.town)
        commit(s, prepare(s, loaded, linfo))
        assert {n: len(m.memory.nodes) for n, m in s.minds.items()} == counts
        before, after = minds["Maria Lopez"].memory, s.minds["Maria Lopez"].memory
        assert after is not before
        assert all(np.array_equal(after.embedding(i), before.embedding(i)) for i in (0, 1499, 2999))
    finally:
        s.close()


# ---------------------------------------------------------------------------- in the window


@pytest.fixture
def window_game(tmp_path, sessions, monkeypatch, display):
    """(game, screen): a Game on the Ville with two minds' session, saving to the test's folder
    (the 1280x720 display: tests/conftest.py)."""
    monkeypatch.setenv("SMALLVILLE_AUTOSAVE_MIN", "5")
    from game.app import Game

    game = Game.from_map(MAP, size=(1280, 720))
    game.saves_dir = tmp_path / "saves"
    game.attach_session(sessions(DORM[:2], lockstep=False))
    yield game, display
    menu = game.panels.savemenu
    if menu is not None:
        menu.close()


def _key(game, k, mod=0):
    import pygame

    game.handle_event(pygame.event.Event(pygame.KEYDOWN, key=k, mod=mod, unicode="", scancode=0))


def _settle(game, screen, frames=5):
    menu = game.panels.savemenu
    menu.wait(30)
    for _ in range(frames):
        game.update(1 / 60)
        game.draw(screen)
        menu.wait(30)


def test_quick_save_quick_load_menu_and_autosave_in_the_window(window_game):
    from datetime import timedelta

    import pygame

    game, screen = window_game
    menu = game.panels.savemenu
    session = game.session
    for _ in range(120):
        game.update(1 / 60)
    session.pool.wait(10)
    saved_now = session.sim.now
    _key(game, pygame.K_F5)
    _settle(game, screen)
    assert "saved slot quick" in menu.messages
    quick = game.saves_dir / f"{session.game_id}-quick.sqlite"  # this game's own quick save
    assert quick.exists()
    old_sim = session.sim
    for _ in range(300):  # the town moves on
        game.update(1 / 60)
    later = session.sim.now
    assert later > saved_now + timedelta(minutes=2)
    game.visitor.place((50, 50))
    _key(game, pygame.K_F9)
    _settle(game, screen, frames=1)
    # an autosave came after the quick save: the load goes back in time, so a branch (tests/test_trust_games.py)
    assert any(m.startswith("loaded slot quick") for m in menu.messages), menu.messages
    assert session.sim is not old_sim and saved_now <= session.sim.now < saved_now + timedelta(seconds=30)
    assert game.visitor.tile == session.sim.bodies[session.sim.visitor].tile
    # the menu: F6 opens it (pausing), it lists the save, Save as, Escape closes it
    _key(game, pygame.K_F6)
    assert menu.open and session.paused
    _settle(game, screen, frames=2)  # the list is read off the frame
    assert quick.stem in menu.infos
    menu.widgets["name"].set_text("before the party")
    menu._save_as()
    _settle(game, screen)
    assert "saved slot before the party" in menu.messages
    assert "before the party" in menu.infos
    _key(game, pygame.K_ESCAPE)
    assert not menu.open and not session.paused
    _key(game, pygame.K_s, pygame.KMOD_CTRL)
    assert menu.open
    _key(game, pygame.K_s, pygame.KMOD_CTRL)
    assert not menu.open
    # `smallville play --load NAME` calls load_into(game, NAME) after attach_session
    from game.saves.saveload import load_into

    sim = session.sim
    info = load_into(game, "before the party", folder=game.saves_dir)
    assert info.slot == "before the party" and session.sim is not sim
    assert game.visitor.tile == session.sim.bodies[session.sim.visitor].tile
    # a broken quick save: a short message, the game goes on untouched
    quick = game.saves_dir / f"{session.game_id}-quick.sqlite"  # the loaded game's own (a branch's)
    quick.write_bytes(b"not a save" * 100)
    sim = session.sim
    _key(game, pygame.K_F9)
    _settle(game, screen)
    assert any(m.startswith("load failed") for m in menu.messages), menu.messages
    assert session.sim is sim
    # autosave every 5 sim minutes (the environment says so here)
    session.speed = 5
    session.paused = False  # the loaded save was paused (the menu was open when it was written)
    for _ in range(1500):  # past AUTOSAVE_REAL_S of frame time: the loaded game (a branch) autosaves itself
        game.update(1 / 60)
        if any(p.name.startswith(f"{session.game_id}-autosave-") for p in game.saves_dir.iterdir()):
            break
    menu.writer.wait(30)
    assert any(p.name.startswith(f"{session.game_id}-autosave-") for p in game.saves_dir.iterdir())


def test_the_save_menu_reads_and_deletes_off_the_frame(window_game, monkeypatch):
    """Opening the menu never reads the saves folder on the main thread: the list
    arrives a few frames later; deleting runs on the same reader thread, and a
    deletion that fails says so."""
    import pygame

    import game.view.savemenu as savemenu

    game, screen = window_game
    menu = game.panels.savemenu
    _key(game, pygame.K_F5)
    _settle(game, screen)
    seen = []
    gate = threading.Event()
    real = savemenu.list_saves

    def slow_list(folder):
        seen.append(threading.current_thread().name)
        gate.wait(10)  # a slow disk: the frame must not wait for it
        return real(folder)

    monkeypatch.setattr(savemenu, "list_saves", slow_list)
    menu.infos = {}
    _key(game, pygame.K_F6)
    for _ in range(3):
        game.update(1 / 60)  # frames go on while the folder is read
        game.draw(screen)
    assert menu.open and menu.infos == {} and menu.widgets["status"].text == "reading saves…"
    gate.set()
    _settle(game, screen, frames=2)
    assert seen and all(name.startswith("save-list") for name in seen)
    quick = menu.own("quick")
    assert quick in menu.infos
    menu.delete(quick)
    _settle(game, screen, frames=2)
    assert f"deleted slot {quick}" in menu.messages and not (game.saves_dir / f"{quick}.sqlite").exists()
    assert quick not in menu.infos
    menu.delete(quick)  # gone already: a message, not a crash
    _settle(game, screen, frames=2)
    assert any(m.startswith(f"cannot delete {quick}") for m in menu.messages), menu.messages


@pytest.mark.parametrize("clock", [{"speed": 9}, {"speed": "fast"}, {"speed": True}, {"paused": "yes"}, ["now"]])
def test_a_hand_edited_clock_is_refused_by_name_and_the_game_is_untouched(tmp_path, small_game, clock):
    """A speed outside the list raised a KeyError every frame after loading; now the load
    is refused, naming the clock, and the running game goes on as it was."""
    from game.saves.saveload import load_into

    s, _good, parts, meta = small_game
    edited = dict(parts)
    edited["clock"] = {**parts["clock"], **clock} if isinstance(clock, dict) else clock
    bad = tmp_path / "clock.sqlite"
    save_state(bad, edited, meta)
    msg = _untouched(s, lambda: load_into(s, bad))
    assert "clock" in msg and str(bad) in msg
