"""Trust, third round (issue 48): what a save, a response cache or an evaluation's files
hold is checked where it is read, and a damaged part is left out, saying so, never a crash.

- a save's town feed entries: each field checked when loading; a damaged entry is
  dropped (the HUD and the feed's filter draw every entry every frame), the player is told;
- a save's game id that cannot name a slot: the loaded game gets a new one and saves;
- a response cache file that is not SQLite: the run goes on without it, with a warning;
- rating and evaluation files with lines nested too deep or that are not objects: bad
  lines, counted; files refused by name."""
from __future__ import annotations

import json
import logging

import pytest
from fakes import make_gateway
from pydantic import BaseModel
from test_commands import ISA, make_session

from game.runs.commands import Loaded, SaveJob
from game.runs.feed import Entry
from game.saves.saveload import capture
from game.saves.series import OWN_SLOTS, line_after_load, own_slot, usable_game_id
from game.saves.store import SaveWriter, list_saves, save_state, slot_path

DEEP = "[" * 100_000 + "]" * 100_000  # json.loads raises RecursionError on it


@pytest.fixture
def play(tmp_path):
    """make() -> a paused Session on a small town (tests/test_commands.py), closed at the end."""
    made = []

    def make():
        s = make_session(tmp_path / f"game{len(made)}")
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


@pytest.fixture
def writer():
    w = SaveWriter()
    yield w
    w.close(wait=True)


def _load(session, writer, path) -> Loaded:
    job = session.commands.load(writer, path, path.stem)
    got = session.commands.loaded(job.future.result(30))
    assert isinstance(got, Loaded), got
    return got


# ---------------------------------------------------------------------------- the town feed


def _entry(i: int, **fields) -> dict:
    good = Entry(i, f"2023-02-13 08:0{i}:00", "talk", (ISA, "Maria Lopez"), f"Isabella and Maria talk ({i})",
                 topic="", place="", why=("line", f"2023-02-13 08:0{i}:00", "hi")).to_dict()
    return {**good, **fields}


DAMAGED_ENTRIES = {
    "a time that is a number": {"time": 20230213},  # fromisoformat("20230213") passes: the HUD crashed
    "a text that is a number": {"text": 5},  # the feed's filter crashed
    "a topic that is a list": {"topic": ["party"]},
    "a kind that is a list": {"kind": ["talk"]},
    "an id that is text": {"id": "7"},
    "times that is not a count": {"times": "many"},
    "a why of numbers": {"why": [1, 2, 3]},
}


def test_damaged_feed_entries_of_a_save_are_dropped_said_and_not_saved_again(play, writer, tmp_path, caplog):
    """A save whose town feed holds entries of the wrong shape: the loaded game keeps the
    whole ones, drops the others (the log and the player are told), its HUD line and filter
    work, and its next save (the crash save too) holds only whole entries."""
    s = play()
    parts, meta = capture(s)
    bad = [_entry(3 + n, **fields) for n, fields in enumerate(DAMAGED_ENTRIES.values())]
    parts["feed"] = {**parts["feed"], "entries": [_entry(1), _entry(2), *bad[1:], bad[0]]}  # the newest is damaged
    path = tmp_path / "feed.sqlite"
    save_state(path, parts, meta)

    t = play()
    with caplog.at_level(logging.WARNING):
        got = _load(t, writer, path)
    assert [e.id for e in t.feed.newest()] == [2, 1]
    assert t.feed.hud_line().endswith("Isabella and Maria talk (2)")
    assert len(t.feed.newest(resident="Isabella", topic="talk")) == 2
    note = f"{len(DAMAGED_ENTRIES)} damaged entries of its town feed left out"
    assert note in got.warnings and f"{len(DAMAGED_ENTRIES)} damaged entries left out" in caplog.text
    again, _meta = capture(t)  # what any later save (quick, continue, crash) holds
    assert [e["id"] for e in again["feed"]["entries"]] == [1, 2]


def test_a_feed_entry_whose_time_is_a_number_never_reaches_the_hud(play, writer, tmp_path):
    """The issue's case: such an entry passed the load and crashed the HUD every frame."""
    s = play()
    parts, meta = capture(s)
    parts["feed"] = {**parts["feed"], "entries": [_entry(1), _entry(2, time=20230213)]}
    path = tmp_path / "feed.sqlite"
    save_state(path, parts, meta)
    t = play()
    _load(t, writer, path)
    assert t.feed.hud_line().endswith("Isabella and Maria talk (1)")


@pytest.mark.parametrize("field", list(DAMAGED_ENTRIES))
def test_each_damaged_field_of_a_feed_entry_is_refused_by_name(field):
    with pytest.raises(ValueError, match="a feed entry"):
        Entry.from_dict(_entry(1, **DAMAGED_ENTRIES[field]))


# ---------------------------------------------------------------------------- the game id


@pytest.mark.parametrize("game_id", ["g" * 60, "anna/evil", "../../escape", "anna-1..2", "..", "Anna Smith"])
def test_a_save_whose_game_id_cannot_name_a_slot_loads_as_a_new_game_that_saves(play, writer, tmp_path, caplog,
                                                                                 game_id):
    """The save's game id is too long, or holds a slash or '..': the loaded game goes on
    under a new id (the player is told), and every save of its own is written."""
    s = play()
    s.game_id = game_id
    path = tmp_path / "odd.sqlite"
    job = s.commands.save(writer, path, "odd")
    assert isinstance(job, SaveJob) and job.future.result(30).meta["game_id"] == game_id

    t = play()
    with caplog.at_level(logging.WARNING):
        got = _load(t, writer, path)
    assert t.game_id != game_id and usable_game_id(t.game_id)
    assert any("cannot name save files" in w for w in got.warnings) and "cannot name save files" in caplog.text
    assert not got.branch
    folder = tmp_path / "saves"
    folder.mkdir()
    for kind in OWN_SLOTS:
        slot = own_slot(t.game_id, kind)
        done = t.commands.save(writer, slot_path(slot, folder), slot)
        assert isinstance(done, SaveJob) and done.future.result(30).path.parent == folder
    auto = t.commands.autosave(writer, folder, 3)
    assert isinstance(auto, SaveJob) and auto.future.result(30).meta["game_id"] == t.game_id
    assert len(list_saves(folder)) == len(OWN_SLOTS) + 1


def test_a_branch_of_a_long_game_id_is_still_a_usable_one(tmp_path):
    """A load back in time on a game whose id is as long as ids go: its branch is cut to fit."""
    gid = "a" * 50
    assert usable_game_id(gid)
    for i in range(2):
        save_state(tmp_path / f"s{i}.sqlite", {"clock": {"i": i}},
                   {"game_id": gid, "sim_time": f"2023-02-13T0{7 + i}:00:00", "slot": f"s{i}"})
    older = next(i for i in list_saves(tmp_path) if i.path.name == "s0.sqlite")
    branch = line_after_load(older, [tmp_path])
    assert branch is not None and branch.endswith("-branch-1") and usable_game_id(branch)
    slot_path(own_slot(branch, "autosave-9999"), tmp_path)  # its longest slot is a slot name


# ---------------------------------------------------------------------------- the response cache


class Rating(BaseModel):
    rating: int


def test_a_response_cache_file_that_is_not_sqlite_is_left_alone_and_the_run_goes_on(tmp_path, caplog):
    """Garbage where the response cache is: the gateway is built, answers, and a warning
    names the file and what to do; the file is not touched."""
    path = tmp_path / "responses.sqlite"
    garbage = b"this is not a database\x00\xff" * 200
    path.write_bytes(garbage)
    with caplog.at_level(logging.WARNING):
        gw = make_gateway(lambda p, m, s: {"rating": 6}, via_litellm=False, cache=str(path))
        value, why = gw.ask_traced(Rating, "How poignant is 'ate breakfast'?", purpose="importance",
                                   resident="Isabella", fallback=Rating(rating=1))
    assert (value, why) == (Rating(rating=6), None) and gw.cache is None
    assert str(path) in caplog.text and "Delete the file or move it away" in caplog.text
    assert path.read_bytes() == garbage
    gw.close()


# ---------------------------------------------------------------------------- evaluation files


def _evaluation(folder, answers: dict) -> None:
    from lab.controlled.folder import ANSWERS, KIND

    folder.mkdir(parents=True, exist_ok=True)
    items = [{"resident": ISA, "question": "Who are you?", "key": f"{ISA} | Who are you?", "answers": answers}]
    data = {"kind": KIND, "items": items, "conditions": [{"name": "full"}, {"name": "no_reflection"},
                                                        {"name": "seed_only"}]}
    (folder / ANSWERS).write_text(json.dumps(data), encoding="utf-8")


def test_rankings_lines_nested_too_deep_or_not_objects_are_counted_as_bad_lines(tmp_path):
    from lab.controlled.folder import read_rankings

    path = tmp_path / "ann.jsonl"
    good = json.dumps({"item": "k", "order": ["full", "seed_only"], "by": "ann"})
    path.write_text("\n".join([good, DEEP, "[1, 2]", "7", '"text"', "null"]) + "\n", encoding="utf-8")
    got = read_rankings(path, ["full", "seed_only"])
    assert got.orders == {"k": [["full"], ["seed_only"]]} and got.bad_lines == 5


def test_answers_that_are_not_objects_are_left_out_and_said(tmp_path, caplog):
    from lab.controlled.folder import read

    folder = tmp_path / "eval"
    _evaluation(folder, {"full": "just words", "no_reflection": {"text": 5}, "seed_only": {"text": "I bake."}})
    with caplog.at_level(logging.WARNING):
        ev = read(folder)
    item = ev.items[0]
    assert ev.answers(item) == {"seed_only": "I bake."}
    assert ev.choices(item, ["full", "no_reflection", "seed_only"]) == [["seed_only"]]
    assert "2 damaged answer(s)" in caplog.text


@pytest.mark.parametrize("which", ["answers", "human", "conditions"])
def test_evaluation_files_nested_too_deep_are_refused_by_name(tmp_path, which):
    from game.support.errors import UserError
    from lab.controlled.conditions import load_conditions
    from lab.controlled.folder import ANSWERS, read, read_human_file

    folder = tmp_path / "eval"
    _evaluation(folder, {"full": {"text": "hi"}})
    path = {"answers": folder / ANSWERS, "human": folder / "human.json", "conditions": tmp_path / "c.json"}[which]
    path.write_text(DEEP, encoding="utf-8")
    load = {"answers": lambda: read(folder), "human": lambda: read_human_file(path),
            "conditions": lambda: load_conditions(path)}[which]
    with pytest.raises(UserError, match=str(path.name)):
        load()


def test_a_run_folders_events_and_summary_nested_too_deep_or_not_objects_are_bad_lines(tmp_path):
    """`smallville evaluate RUN` on a run folder whose events.jsonl holds lines nested too
    deep, or JSON that is not an event: those lines are skipped and counted in its notes."""
    from game.saves.saved_run import load_target

    run = tmp_path / "run"
    run.mkdir()
    event = {"kind": "action", "time": "2023-02-13T08:00:00", "resident": ISA, "text": "baking"}
    (run / "events.jsonl").write_text("\n".join([json.dumps(event), DEEP, "[1, 2]", "42"]) + "\n", encoding="utf-8")
    (run / "summary.json").write_text(DEEP, encoding="utf-8")
    tg = load_target(run)
    assert tg.events == [event] and tg.residents == [ISA]
    assert "3 damaged line(s) of events.jsonl skipped" in tg.notes


def test_a_run_with_a_cache_that_is_not_a_database_finishes_and_says_it_ran_without_it(tmp_path, monkeypatch, capsys):
    """As a new user meets it: `smallville sim --cache FILE` on a damaged file runs to its end
    and its last lines say the cache was not used, naming the file and what to do."""
    from pathlib import Path

    from smallville.cli import main

    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "cache.sqlite"
    bad.write_bytes(b"\x00\xffnot a database" * 300)
    tmx = Path(__file__).resolve().parent.parent / "maps" / "the_ville" / "the_ville.tmx"
    code = main(["sim", "--map", str(tmx), "--agents", "1", "--hours", "0.1", "--model", "scripted/competent",
                 "--cache", str(bad), "--out", str(tmp_path / "run")])
    out = capsys.readouterr().out
    assert code == 0 and f"the response cache {bad} could not be used" in out and "delete the file" in out
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["cache_problem"]
