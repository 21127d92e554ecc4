"""Trust, third round (issue 48), the controlled evaluation's folder: interviews that resume
after a crash, each author's written answers in their own file, raters' names kept whole,
and the save an evaluation was made from found from the folder and checked to be the one
evaluated. Each test goes through the real commands, on real folders, with the competent
stand-in as the model."""
from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from game.saves.store import load_state, save_state
from game.support.errors import UserError
from lab.controlled import command, folder, interviews, origin
from lab.controlled.terminal import rate, write_answers
from tests.fakes import HashEmbedder, make_gateway
from tests.test_controlled import MINDED, _ablate_args, _all_different, _competent, _rate_args
from tests.test_evaluate import END, MAP, NAMES, make_run

ASK = interviews.ask_traced  # the real one, before any test wraps it
ASKED = len(NAMES) * 5 * len(MINDED)  # --questions 1: one of each of the five categories, every condition


def _evaluate(run: Path, out: Path, **kw) -> int:
    return command.main_ablations(_ablate_args(run, out, questions=1, **kw), gateway=_competent(),
                                  embedder=HashEmbedder(), echo=None)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory) -> Path:
    """root/run (a run of four residents) and root/eval, its evaluation (one question a category)."""
    root = tmp_path_factory.mktemp("third")
    make_run(root / "run")
    assert _evaluate(root / "run", root / "eval") == 0
    return root


@pytest.fixture
def ev_dir(evaluated, tmp_path) -> Path:
    """A fresh copy of the evaluation, with its run beside it as it was made."""
    shutil.copytree(evaluated / "run", tmp_path / "run")
    return Path(shutil.copytree(evaluated / "eval", tmp_path / "eval"))


def _lines(*answers: str) -> Callable[[], str]:
    it: Iterator[str] = iter(answers)
    return lambda: next(it)


def _counting(monkeypatch, stop_after: int | None = None) -> list[str]:
    """Count the interview's questions asked of the model; raise KeyboardInterrupt (Ctrl+C) at
    question ``stop_after`` + 1."""
    asked: list[str] = []

    def ask(mind, question, now):
        if stop_after is not None and len(asked) >= stop_after:
            raise KeyboardInterrupt
        asked.append(question)
        return ASK(mind, question, now)

    monkeypatch.setattr(interviews, "ask_traced", ask)
    return asked


def _another_state(save: Path) -> None:
    """The save overwritten by a later state of the same game (end.sqlite after `sim --resume`)."""
    parts, _info = load_state(save)
    parts["clock"]["steps"] = parts["clock"].get("steps", 0) + 360
    save_state(save, parts, {"world": "the Ville", "map_path": str(MAP), "sim_time": END, "residents": NAMES,
                             "embedding_model": HashEmbedder().model_name, "embedding_dim": HashEmbedder().dim})


# ---------------------------------------------------------------------------- 3. resuming interviews


def test_an_interrupted_evaluation_resumes_and_asks_only_what_is_missing(evaluated, tmp_path, monkeypatch,
                                                                         capsys):
    out = tmp_path / "eval"
    asked = _counting(monkeypatch, stop_after=30)
    with pytest.raises(KeyboardInterrupt):  # Ctrl+C at the 31st question
        command.main_ablations(_ablate_args(evaluated / "run", out, questions=1), gateway=_competent(),
                               embedder=HashEmbedder(), echo=print)
    assert len(asked) == 30
    capsys.readouterr()
    asked = _counting(monkeypatch)
    assert command.main_ablations(_ablate_args(evaluated / "run", out, questions=1), gateway=_competent(),
                                  embedder=HashEmbedder(), echo=print) == 0
    assert len(asked) == ASKED - 30  # the 30 written are not asked again
    assert f"resuming: 30 of {ASKED} answers already written" in capsys.readouterr().err
    # the answers are those an uninterrupted evaluation gives
    whole = json.loads((evaluated / "eval" / "answers.json").read_text())
    got = json.loads((out / "answers.json").read_text())
    assert [it["answers"] for it in got["items"]] == [it["answers"] for it in whole["items"]]
    assert got["factual"] == whole["factual"]
    # once more: nothing left to ask
    asked = _counting(monkeypatch)
    assert _evaluate(evaluated / "run", out) == 0 and asked == []


def test_a_crash_mid_line_loses_only_that_answer(evaluated, tmp_path, monkeypatch, capsys):
    out = tmp_path / "eval"
    _counting(monkeypatch, stop_after=4)  # four answers written; the fifth is being asked
    with pytest.raises(KeyboardInterrupt):
        _evaluate(evaluated / "run", out)
    journal = out / "interviews.jsonl"
    text = journal.read_text(encoding="utf-8")
    journal.write_text(text[:-20], encoding="utf-8")  # the last answer's line cut short
    asked = _counting(monkeypatch)
    assert command.main_ablations(_ablate_args(evaluated / "run", out, questions=1), gateway=_competent(),
                                  embedder=HashEmbedder(), echo=print) == 0
    err = capsys.readouterr().err
    assert len(asked) == ASKED - 3
    assert f"resuming: 3 of {ASKED}" in err and "1 damaged lines skipped" in err


def test_the_stand_in_answers_of_a_model_outage_are_asked_again(evaluated, tmp_path, monkeypatch, capsys):
    out = Path(shutil.copytree(evaluated / "eval", tmp_path / "eval"))
    shutil.copytree(evaluated / "run", tmp_path / "run")
    journal = out / "interviews.jsonl"
    lines = [json.loads(x) for x in journal.read_text(encoding="utf-8").splitlines()]
    for x in [x for x in lines if "answer" in x][-3:]:  # the model was down for the last three
        x["answer"].update(text="(the stand-in line)", fallback=True)
    journal.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    asked = _counting(monkeypatch)
    assert command.main_ablations(_ablate_args(tmp_path / "run", out, questions=1), gateway=_competent(),
                                  embedder=HashEmbedder(), echo=print) == 0
    assert len(asked) == 3
    err = capsys.readouterr().err
    assert f"resuming: {ASKED - 3} of {ASKED}" in err and "3 answers written were the stand-in line" in err
    assert "(the stand-in line)" not in (out / "answers.json").read_text(encoding="utf-8")


def test_answers_to_another_state_of_the_save_are_never_mixed_in(evaluated, tmp_path, monkeypatch):
    run = Path(shutil.copytree(evaluated / "run", tmp_path / "run"))
    out = tmp_path / "eval"
    _counting(monkeypatch, stop_after=10)
    with pytest.raises(KeyboardInterrupt):
        _evaluate(run, out)
    _another_state(run / "saves" / "end.sqlite")
    asked = _counting(monkeypatch)
    with pytest.raises(UserError, match="another state of the save.*delete it to ask every question again"):
        _evaluate(run, out)
    assert asked == []


def test_a_condition_renamed_in_place_or_another_model_is_refused_saying_what_differs(evaluated, tmp_path,
                                                                                       monkeypatch):
    out = Path(shutil.copytree(evaluated / "eval", tmp_path / "eval"))
    shutil.copytree(evaluated / "run", tmp_path / "run")
    conds = tmp_path / "conds.json"
    conds.write_text(json.dumps([{"name": "full", "hide": ["reflection"]}]), encoding="utf-8")
    asked = _counting(monkeypatch)
    with pytest.raises(UserError, match="'full' that was hiding nothing .* is hiding reflection"):
        _evaluate(tmp_path / "run", out, conditions=str(conds))
    fake = make_gateway(via_litellm=False)
    with pytest.raises(UserError, match="model 'scripted/competent', and this run has 'scripted/fake.*give the model"):
        command.main_ablations(_ablate_args(tmp_path / "run", out, questions=1), gateway=fake,
                               embedder=HashEmbedder(), echo=None)
    assert asked == []


# ---------------------------------------------------------------------------- 4. each author's own file


def test_two_authors_at_once_keep_both_their_answers(ev_dir):
    ann, bob = folder.read(ev_dir), folder.read(ev_dir)  # both began before either wrote
    write_answers(ann, "Ann", read=_lines("Ann's answer.", "q"))
    write_answers(bob, "Bob", read=_lines("Bob's answer.", "Bob's second.", "q"))
    first = ann.items[0]
    mine = json.loads((ev_dir / "human" / "Ann.json").read_text(encoding="utf-8"))["answers"]
    assert mine[first["resident"]][first["question"]]["text"] == "Ann's answer."
    theirs = json.loads((ev_dir / "human" / "Bob.json").read_text(encoding="utf-8"))["answers"]
    assert sum(len(qs) for qs in theirs.values()) == 2
    # one answer per question in the human condition: the first written
    merged = folder.read(ev_dir).human
    assert merged[first["resident"]][first["question"]]["by"] in ("Ann", "Bob")
    assert sum(len(qs) for qs in merged.values()) == 2


def test_an_older_folder_with_one_human_json_still_reads_and_is_not_written(ev_dir):
    items = folder.read(ev_dir).items
    old = {"answers": {items[0]["resident"]: {items[0]["question"]: {"text": "Written long ago.", "by": "Cy",
                                                                      "at": "2024-01-01T10:00:00"}}}}
    (ev_dir / "human.json").write_text(json.dumps(old), encoding="utf-8")
    ev = folder.read(ev_dir)
    assert ev.answers(items[0])["human"] == "Written long ago."
    write_answers(ev, "Dee", read=_lines("Dee's answer.", "q"))  # asked the next question, not Cy's
    assert json.loads((ev_dir / "human.json").read_text(encoding="utf-8")) == old
    human = folder.read(ev_dir).human
    assert human[items[0]["resident"]][items[0]["question"]]["text"] == "Written long ago."
    assert human[items[1]["resident"]][items[1]["question"]]["text"] == "Dee's answer."


# ---------------------------------------------------------------------------- 5. raters' names


def test_names_that_differ_only_in_accents_or_script_are_different_raters(ev_dir):
    _all_different(ev_dir)
    ev = folder.read(ev_dir)
    total = len(ev.items)
    zoe = rate(ev, "Zoë", read=_lines("ABCD", "q"))
    other = rate(folder.read(ev_dir), "Zoé", read=_lines("q"))
    assert other["left"] == total  # not told Zoë's question is done
    assert zoe["left"] == total - 1 and zoe["path"].name == "Zoë.jsonl" and other["path"].name == "Zoé.jsonl"
    li = rate(folder.read(ev_dir), "李明", read=_lines("DCBA", "q"))
    assert li["path"].name == "李明.jsonl" and li["left"] == total - 1
    lines = [json.loads(x) for x in (ev_dir / folder.PEOPLE / "李明.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [x["by"] for x in lines] == ["李明"]


@pytest.mark.parametrize("name,why", [
    ("", "empty"), ("   ", "empty"), ("..", "names a folder"), (".", "names a folder"),
    ("ann/../../x", "slash"), ("a\\b", "slash"), ("Ann\x07", "control character"), ("Ann\nBob", "control"),
    ("x" * 201, "longer than 200 bytes"), ("é" * 101, "longer than 200 bytes"),
])
def test_a_name_that_cannot_name_a_file_is_refused_saying_why(ev_dir, name, why):
    with pytest.raises(UserError, match=why):
        rate(folder.read(ev_dir), name, read=_lines("q"))
    with pytest.raises(UserError, match=why):
        write_answers(folder.read(ev_dir), name, read=_lines("q"))
    assert not (ev_dir / folder.PEOPLE).exists() and not (ev_dir / folder.HUMANS).exists()


def test_a_file_holding_another_raters_work_is_not_taken_for_yours(ev_dir):
    """On a file system that ignores case, "ann" and "Ann" open one file."""
    _all_different(ev_dir)
    ev = folder.read(ev_dir)
    folder.append_ranking(ev_dir / folder.PEOPLE / "Ann.jsonl", {"item": ev.items[0]["key"], "by": "ann",
                                                                  "order": MINDED})
    with pytest.raises(UserError, match="holds the work of 'ann', not of 'Ann'"):
        rate(ev, "Ann", read=_lines("q"))
    it = ev.items[0]
    theirs = {"answers": {it["resident"]: {it["question"]: {"text": "Mine.", "by": "ann", "at": "2024-01-01"}}}}
    (ev_dir / folder.HUMANS).mkdir()
    (ev_dir / folder.HUMANS / "Ann.json").write_text(json.dumps(theirs), encoding="utf-8")
    with pytest.raises(UserError, match="holds the work of 'ann', not of 'Ann'"):
        write_answers(ev, "Ann", read=_lines("q"))  # before anything is asked
    assert json.loads((ev_dir / folder.HUMANS / "Ann.json").read_text(encoding="utf-8")) == theirs


def test_a_rater_who_began_under_the_older_file_names_goes_on_in_that_file(ev_dir):
    _all_different(ev_dir)
    ev = folder.read(ev_dir)
    older = ev_dir / folder.PEOPLE / "Ann-Smith.jsonl"
    folder.append_ranking(older, {"item": ev.items[0]["key"], "by": "Ann Smith", "order": MINDED})
    got = rate(ev, "Ann Smith", read=_lines("q"))
    assert got["path"] == older and got["left"] == len(ev.items) - 1


# ---------------------------------------------------------------------------- 6. the save evaluated


def test_the_save_is_found_from_the_evaluation_folder_wherever_one_works(tmp_path, monkeypatch):
    work = tmp_path / "work"
    make_run(work / "runs" / "r")
    monkeypatch.chdir(work)
    assert _evaluate(Path("runs/r"), Path("runs/r/controlled")) == 0  # as typed: from the working folder
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert command.main_rate(_rate_args(work / "runs/r/controlled", report=True), echo=None) == 0
    data = json.loads((work / "runs/r/controlled/answers.json").read_text())
    assert data["save"] == "../saves/end.sqlite"
    assert data["save_sha256"] == origin.sha256_of(work / "runs/r/saves/end.sqlite")
    # the run folder handed on, its evaluation inside
    moved = Path(shutil.move(work / "runs" / "r", tmp_path / "handed"))
    assert command.main_rate(_rate_args(moved / "controlled", report=True), echo=None) == 0


def _judge_that_counts() -> tuple[object, list[int]]:
    calls: list[int] = []
    gw = _competent()
    real = gw.ask_traced

    def ask_traced(*a, **kw):
        calls.append(1)
        return real(*a, **kw)

    gw.ask_traced = ask_traced  # type: ignore[method-assign]
    return gw, calls


def _own_evaluation(tmp_path: Path) -> Path:
    """An evaluation of a run of its own (the test changes that run's save)."""
    make_run(tmp_path / "run")
    assert _evaluate(tmp_path / "run", tmp_path / "eval") == 0
    return tmp_path / "eval"


def test_a_save_changed_since_the_evaluation_is_said_before_any_ranking(tmp_path):
    ev_dir = _own_evaluation(tmp_path)
    _another_state(tmp_path / "run" / "saves" / "end.sqlite")
    gw, calls = _judge_that_counts()
    with pytest.raises(UserError) as err:
        command.main_rate(_rate_args(ev_dir, judge=True), gateway=gw, echo=None)
    said = str(err.value)
    assert "end.sqlite has changed since" in said and "evaluated on it" in said and "--out NEW" in said
    assert calls == [] and not (ev_dir / folder.JUDGES).exists()


def test_a_save_gone_is_said_before_any_ranking(tmp_path):
    ev_dir = _own_evaluation(tmp_path)
    (tmp_path / "run" / "saves" / "end.sqlite").unlink()
    gw, calls = _judge_that_counts()
    with pytest.raises(UserError, match=r"end.sqlite, which is not there.*Put that file back"):
        command.main_rate(_rate_args(ev_dir, judge=True), gateway=gw, echo=None)
    assert calls == [] and not (ev_dir / folder.JUDGES).exists()


def test_an_older_folder_naming_the_save_as_typed_still_reads(ev_dir, monkeypatch):
    data = json.loads((ev_dir / "answers.json").read_text())
    data.pop("save_sha256", None)
    data["version"] = 1
    data["save"] = "run/saves/end.sqlite"  # as typed in the folder evaluate ran in
    (ev_dir / "answers.json").write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.chdir(ev_dir.parent)
    assert command.main_rate(_rate_args(ev_dir, report=True), echo=None) == 0
    monkeypatch.chdir(ev_dir)
    with pytest.raises(UserError, match="relative to the folder `smallville evaluate` ran in"):
        command.main_rate(_rate_args(ev_dir, report=True), echo=None)
