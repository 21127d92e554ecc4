"""`smallville interview` (issue 7): a scripted battery, the interactive loop, --remember and --whisper
on a save made here (a small Session on the real map, saved with game/savegame + game/saves)."""
from __future__ import annotations

import io
from argparse import Namespace
from pathlib import Path

import pytest
from fakes import HashEmbedder, make_gateway

from game.saves.store import load_state, save_state
from game.support.errors import UserError

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
NAMES = ["Maria Lopez", "Klaus Mueller"]

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")


def answers(purpose, messages, schema):
    from fakes import minimal_instance

    if purpose == "respond":
        text = str(messages[-1]["content"])
        return {"answer": f"Well, about that: I study physics and I love my work. ({len(text)})"}
    return minimal_instance(schema)


@pytest.fixture(scope="module")
def save(tmp_path_factory) -> Path:
    from agents.residents.persona import load_cast
    from game.runs.session import PlaySimulation, Session, build_parts
    from game.saves.saveload import capture
    from game.world.map_reader import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    gw = make_gateway(answers, via_litellm=False)
    parts = build_parts(town, [p for p in cast if p.name in NAMES], scenario.start, scenario=scenario, gateway=gw,
                        embedder=HashEmbedder(), seed=1, lockstep=True, sim_class=PlaySimulation)
    s = Session(parts, visitor_name="Alex")
    try:
        for _ in range(12):
            s.sim.step()
        parts, meta = capture(s, drain=True)
        path = tmp_path_factory.mktemp("saves") / "town.sqlite"
        save_state(path, parts, meta)
    finally:
        s.close()
    return path


def args(save, **kw):
    base = dict(load=str(save), agent="Maria Lopez", as_="a news reporter", question=None, out=None, remember=False,
                whisper=None, map=str(MAP), model=None, api_base=None, concurrency=None, cache=None)
    base.update(kw)
    return Namespace(**base)


def run(a, stdin=None):
    from game.interview_cli import main_interview

    out = io.StringIO()
    gw = make_gateway(answers, via_litellm=False)
    rc = main_interview(a, gateway=gw, embedder=HashEmbedder(), stdin=stdin, stdout=out)
    return rc, out.getvalue(), gw


def test_scripted_battery_prints_a_transcript_and_leaves_the_save(save, tmp_path):
    before = save.read_bytes()
    qs = ["What are you working on these days?", "Who are your friends?", "What will you do tonight?"]
    md_file = tmp_path / "t.md"
    rc, out, gw = run(args(save, question=qs, out=str(md_file)))
    assert rc == 0
    assert "# Interview with Maria Lopez" in out and "a news reporter" in out
    for q in qs:
        assert f"**Q:** {q}" in out
    assert out.count("**A:** Well, about that") == 3
    assert md_file.read_text() in out + "\n" or md_file.read_text().strip() == out.strip()
    assert [p for p, _, _ in gw.fake.calls] == ["respond"] * 3
    prompt = str(gw.fake.calls[0][1])
    assert "a news reporter" in prompt
    assert save.read_bytes() == before  # an interview leaves the save untouched
    assert not (save.parent / "town-interviewed.sqlite").exists()


def test_first_name_and_slot_name(save, monkeypatch):
    monkeypatch.chdir(save.parent.parent)
    rc, out, _ = run(args(Path(save.parent.name) / "town.sqlite", agent="klaus", question=["Hello?"]))
    assert rc == 0 and "# Interview with Klaus Mueller" in out


def test_unknown_agent_lists_the_residents(save):
    with pytest.raises(UserError) as e:
        run(args(save, agent="John Lin", question=["Hi"]))
    msg = str(e.value)
    assert "John Lin" in msg and "Maria Lopez" in msg and "Klaus Mueller" in msg


def test_missing_save_is_a_clear_error(tmp_path):
    with pytest.raises(UserError, match="no such save"):
        run(args(tmp_path / "nope.sqlite", question=["Hi"]))


def test_interactive_reads_lines_until_exit(save):
    rc, out, gw = run(args(save), stdin=io.StringIO("How are you?\n\nWhat do you study?\nexit\nnot asked\n"))
    assert rc == 0
    assert out.count("Maria Lopez: Well, about that") == 2
    assert len(gw.fake.calls) == 2


def test_remember_writes_a_new_save(save):
    before = save.read_bytes()
    rc, _out, _ = run(args(save, question=["I am a reporter from the Ville Times. Can I write about your physics?"],
                          remember=True))
    assert rc == 0 and save.read_bytes() == before
    new = save.parent / "town-interviewed.sqlite"
    assert new.exists()
    parts, info = load_state(new)
    old, _ = load_state(save)
    descs = [n["description"] for n in parts["minds/Maria Lopez"]["memory"]["nodes"]]
    assert any("Ville Times" in d for d in descs)
    assert len(parts["minds/Klaus Mueller"]["memory"]["nodes"]) == len(old["minds/Klaus Mueller"]["memory"]["nodes"])
    assert info.residents == NAMES or sorted(info.residents) == sorted(NAMES)
    # the new save is a game of its own: played on, it never writes over the interviewed game's saves
    assert load_state(save)[1].meta.get("game_id") and not info.meta.get("game_id")


def test_a_second_interview_never_overwrites_the_first_ones_save(save, capsys):
    q = ["I am a reporter from the Ville Times. Can I write about your physics?"]
    assert run(args(save, question=q, remember=True))[0] == 0
    before = {p: p.read_bytes() for p in save.parent.glob("town-interviewed*.sqlite")}
    assert before
    capsys.readouterr()
    rc, _, _ = run(args(save, question=["And what about Klaus?"], remember=True))
    assert rc == 0 and all(p.read_bytes() == b for p, b in before.items())  # earlier interviews' saves untouched
    new = set(save.parent.glob("town-interviewed*.sqlite")) - set(before)
    assert len(new) == 1 and next(iter(new)).name in capsys.readouterr().err  # a new file, named


def test_whisper_queues_the_thought_in_a_new_save_that_loads(save):
    whisper = "You are going to run against Sam in the upcoming election"
    rc, out, _ = run(args(save, agent="Klaus Mueller", whisper=whisper))
    assert rc == 0 and "I am going to run against Sam in the upcoming election" in out
    new = save.parent / "town-whispered.sqlite"
    parts, _ = load_state(new)
    st = parts["minds/Klaus Mueller"]
    assert ["I am going to run against Sam in the upcoming election", 9] in [list(x) for x in st["queue"]]
    assert st["directives"] == ["I am going to run against Sam in the upcoming election"]
    # it loads into a running session like any save
    from agents.residents.persona import load_cast
    from game.runs.session import PlaySimulation, Session, build_parts
    from game.saves.saveload import load_into
    from game.world.map_reader import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    gw = make_gateway(answers, via_litellm=False)
    s = Session(build_parts(town, [p for p in cast if p.name in NAMES], scenario.start, scenario=scenario, gateway=gw,
                            embedder=HashEmbedder(), seed=1, lockstep=True, sim_class=PlaySimulation),
                visitor_name="Alex")
    try:
        load_into(s, new)
        assert s.minds["Klaus Mueller"].directives == ["I am going to run against Sam in the upcoming election"]
    finally:
        s.close()


def test_cli_parser_has_the_subcommand():
    from smallville.cli import build_parser

    a = build_parser().parse_args(["interview", "--load", "x", "--agent", "John Lin", "--as", "a neighbour",
                                   "-q", "one", "--question", "two", "--remember"])
    assert a.command == "interview" and a.as_ == "a neighbour" and a.question == ["one", "two"] and a.remember


@pytest.fixture
def pythons_own_ctrl_c():
    """Ctrl+C raises KeyboardInterrupt, as in `smallville interview` started from a terminal
    (a test run started in the background inherits SIGINT ignored)."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


class CtrlCAfter:
    """Standard input that gives ``lines``, then the user presses Ctrl+C: a real SIGINT
    to this process while the interview waits for the next line."""

    def __init__(self, lines):
        self.lines = list(lines)

    def isatty(self):
        return False

    def readline(self):
        import os
        import signal
        import time

        if self.lines:
            return self.lines.pop(0) + "\n"
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)  # Python's handler raises KeyboardInterrupt here, on the main thread
        raise AssertionError("no SIGINT arrived")


def _memories(path, name="Maria Lopez"):
    parts, _ = load_state(path)
    return [n["description"] for n in parts[f"minds/{name}"]["memory"]["nodes"]]


def test_ctrl_c_ends_a_remembering_interview_and_keeps_what_was_said(save, capsys, pythons_own_ctrl_c):
    """An interactive --remember interview ended with Ctrl+C wrote nothing: the answers were lost."""
    before = set(save.parent.glob("town-interviewed*.sqlite"))
    rc, out, _ = run(args(save, remember=True),
                     stdin=CtrlCAfter(["I write for the Ville Times.", "Tell me about your purple bicycle."]))
    assert rc == 130 and out.count("Maria Lopez: Well, about that") == 2
    (new,) = set(save.parent.glob("town-interviewed*.sqlite")) - before
    descs = _memories(new)
    assert any("Ville Times" in d for d in descs) and any("purple bicycle" in d for d in descs)
    assert new.name in capsys.readouterr().err


def test_ctrl_c_in_the_middle_of_an_answer_keeps_the_answers_before_it(save, pythons_own_ctrl_c):
    """Ctrl+C while the model answers the third question: the save has the first two
    exchanges and nothing of the third (the mind as it was before that question)."""
    from game.interview_cli import main_interview

    calls = []

    def interrupted(purpose, messages, schema):
        if purpose == "respond":
            calls.append(1)
            if len(calls) == 3:
                raise KeyboardInterrupt
        return answers(purpose, messages, schema)

    before = set(save.parent.glob("town-interviewed*.sqlite"))
    gw = make_gateway(interrupted, via_litellm=False)
    out = io.StringIO()
    qs = ["I write for the Ville Times.", "Tell me about your purple bicycle.", "And the election next week?"]
    rc = main_interview(args(save, question=qs, remember=True), gateway=gw, embedder=HashEmbedder(), stdout=out)
    assert rc == 130 and out.getvalue().count("**A:**") == 2
    (new,) = set(save.parent.glob("town-interviewed*.sqlite")) - before
    descs = _memories(new)
    assert sum("Ville Times" in d for d in descs) == 1 and sum("purple bicycle" in d for d in descs) == 1
    assert not any("election" in d for d in descs)
