"""The competent stand-in (lab/competent/) answers an interview as a capable model
would: from everything the respond prompt holds (who the resident is, what it is
doing, what it remembers, the conversation so far), not only from the memories; and
its judge ranks a specific answer above a vague one. Tested on prompts rendered from
the real template (agents/prompts/respond.txt), never on the battery's wording."""
from __future__ import annotations

import json
import re

import pytest

from agents import render
from lab.competent import dispatch, respond
from lab.competent.interview import rank
from lab.competent.prompt import Prompt

SUMMARY = ("Isabella Rodriguez, age 34; warm, sociable, hard-working. Isabella Rodriguez runs Hobbs Cafe, the cafe "
           "she owns in the Ville; she lives alone in her apartment.")
LATELY = (" Lately: Isabella runs Hobbs Cafe, the cafe she owns and is looking forward to the Valentine's Day party "
          "on February 14 from 5 pm to 7 pm.")
SEEN = ["Klaus Mueller is having lunch", "Maria Lopez is eating lunch", "Isabella Rodriguez is preparing lunch"]
PLAN = ("Isabella Rodriguez's plan for Monday February 13: 07:00-08:00 having breakfast; 08:00-12:00 running Hobbs "
        "Cafe; 12:00-13:00 having lunch; 13:00-18:00 inviting people to the party; 18:00-19:00 having dinner; "
        "22:00-06:00 going to bed")
DENIAL = re.compile(r"not sure|don't know|no idea|haven't heard", re.I)


def _prompt(question: str, memories: list[str], *, summary: str = SUMMARY, doing: str = "preparing lunch",
            place: str = "Hobbs Cafe: cafe: cafe counter", transcript: str = "") -> Prompt:
    text = render("respond", summary=summary, first_name="Isabella", full_name="Isabella Rodriguez", age=34,
                  traits="warm, sociable, hard-working", time="13:00", date="Monday February 13", doing=doing,
                  place=place, speaker="Interviewer", speaker_first="Interviewer",
                  speaker_is="an interviewer from a study of the town", transcript=transcript,
                  memories="\n".join(f"- {m}" for m in memories), text=question)
    return Prompt(text, {"properties": {"answer": {"type": "string"}}}, "Answer")


def _answer(question: str, memories: list[str] = SEEN, **kw) -> str:
    got = dispatch(_prompt(question, memories, **kw))
    assert set(got) == {"answer"}
    return got["answer"]


def test_who_one_is_comes_from_the_summary_when_the_memories_are_only_what_was_seen():
    # the case: after hours of observations, the retrieved memories say nothing of her job
    assert "I run Hobbs Cafe" in _answer("What's your occupation?")
    assert "I run Hobbs Cafe" in _answer("What is your job?")  # other words, the same topic
    assert "I live alone in my apartment" in _answer("Who do you live with?")
    intro = _answer("Give an introduction of yourself.")
    assert intro.startswith("I'm Isabella Rodriguez, 34.") and "Hobbs Cafe" in intro and "alone" in intro
    # the full mind's summary adds what she is looking forward to, and her introduction says it
    assert "Valentine's Day party" in _answer("Give an introduction of yourself.", summary=SUMMARY + LATELY)


@pytest.mark.parametrize("question", ["What's your occupation?", "Who do you live with?", "Where do you live?",
                                      "Give an introduction of yourself.", "What is your job?"])
@pytest.mark.parametrize("memories", [SEEN, [], [PLAN]])
def test_never_a_denial_when_the_prompt_states_the_answer(question, memories):
    assert not DENIAL.search(_answer(question, memories))


def test_an_event_is_answered_from_the_memory_that_speaks_of_it():
    told = ("Maria Lopez told Isabella about the jazz concert at Johnson Park on February 15 at 8 pm, "
            "hosted by Wolfgang Schulz")
    got = _answer("Is there a concert coming up?", SEEN + [told])
    assert "Johnson Park" in got and "8 pm" in got
    # a person it remembers something of: what it knows of them, before having merely seen them
    got = _answer("Who is Maria Lopez?", SEEN + ["she counts Maria Lopez among her closest friends"])
    assert got.startswith("I count Maria Lopez among my closest friends.")
    # ... and what it never heard of is not made up
    assert "haven't heard" in _answer("Who is running for the election?", SEEN + [told])
    assert "haven't heard" in _answer("Who is Tom Moreno?", SEEN)


def test_what_one_is_doing_comes_from_the_plan():
    assert "Right now I'm preparing lunch at Hobbs Cafe" in _answer("What are you doing right now?")
    assert _answer("What will you be doing at 6 pm today?", [PLAN]).startswith("At 6 pm I'll be having dinner")
    assert "having lunch" in _answer("What will you have just finished doing at 1 pm today?", [PLAN])
    assert "asleep" in _answer("What will you be doing at 11 pm today?", [PLAN])
    # without a plan (the conditions that hide it) it guesses from who it is, and says so
    guess = _answer("What will you be doing at 6 pm today?", SEEN, doing="going about the day")
    assert "most likely" in guess and "Hobbs Cafe" in guess


def test_the_conversation_so_far_is_part_of_what_it_knows():
    transcript = "\nYour conversation with Interviewer so far:\nInterviewer: I'm opening a bakery on Main Street.\n"
    assert "bakery on Main Street" in _answer("Do you remember my bakery?", SEEN, transcript=transcript)


def test_common_sense_for_a_situation_with_what_it_was_doing():
    got = _answer("The kettle is smoking! What would you do?")
    assert got.startswith("I'd turn off the stove") and "preparing lunch" in got
    friend = _answer("You meet a friend on the street. What would you say?", SEEN + [
        "I want to host a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm"])
    assert "Valentine's Day party" in friend


def test_the_answers_are_a_program_s_the_same_prompt_the_same_answer():
    p = _prompt("What's your occupation?", SEEN + [PLAN], summary=SUMMARY + LATELY)
    messages = [{"role": "user", "content": p.text}]
    fmt = {"json_schema": {"name": "Answer", "schema": p.schema}}
    first = respond(messages, fmt, None)
    assert first == respond(messages, fmt, None) and json.loads(first)["answer"] == dispatch(p)["answer"]


def _rank(question: str, answers: list[str]) -> list[int]:
    text = ("You judge how believable interview answers are. The person interviewed: Isabella Rodriguez, age 34.\n"
            f"Who they are: {SUMMARY}\nThey were asked: \"{question}\"\n"
            f"Here are {len(answers)} answers:\n" + "".join(f"{i}. {a}\n" for i, a in enumerate(answers, 1)))
    return rank(Prompt(text, {"properties": {"ranking": {}}}, "Ranking"))["ranking"]


def test_the_judge_puts_a_plain_specific_answer_above_a_guess_and_a_denial_last():
    assert _rank("What will you be doing at 6 pm today?", [
        "I'm not sure, I don't know much about that.",
        "At 6 pm I'm most likely busy with my usual day.",
        "At 6 pm I'll be having dinner, then reading a book at 7 pm.",
    ]) == [3, 2, 1]
    assert _rank("Who is Maria Lopez?", [
        "Earlier I saw Maria Lopez having lunch.",
        "I count Maria Lopez among my closest friends; she often studies at Hobbs Cafe.",
        "Nothing special comes to mind.",
    ]) == [2, 1, 3]


def test_the_judge_reads_an_interest_question_for_an_interest():
    """A pastime answers "What is your interest?" before an occupation with a place in it (the
    8-resident ablation ranked "I study physics at Oak Hill College" above "I stream video games")."""
    assert _rank("What is your interest?", [
        "I study physics at Oak Hill College.",
        "I stream video games online in the evenings.",
    ]) == [2, 1]


def test_through_the_real_path_no_condition_denies_what_its_summary_states(tmp_path):
    """A saved run's residents interviewed under the paper's conditions (the interview path,
    the competent stand-in as the model), then ranked by its judge."""
    from lab.controlled import command
    from tests.fakes import HashEmbedder
    from tests.test_controlled import MINDED, _ablate_args, _competent, _rate_args
    from tests.test_evaluate import make_run

    run, out = make_run(tmp_path / "run"), tmp_path / "eval"
    assert command.main_ablations(_ablate_args(run, out, questions=4), gateway=_competent(),
                                  embedder=HashEmbedder(), echo=None) == 0
    data = json.loads((out / "answers.json").read_text())
    asked = [it for it in data["items"] if it["question"] in ("What's your occupation?", "Who do you live with?")]
    assert len(asked) == 2 * len(data["residents"])
    for it in asked:
        for cond in MINDED:
            assert not DENIAL.search(it["answers"][cond]["text"]), (it["key"], cond)
    assert command.main_rate(_rate_args(out, judge=True), gateway=_competent(), echo=None) == 0
    rated = json.loads((out / "report.json").read_text())["ratings"]["judge: scripted/competent"]
    mu = {c: rated["ratings"][c]["mu"] for c in MINDED}
    assert mu["full"] > mu["seed_only"] and rated["order"][-1] == "seed_only", mu
    assert rated["kruskal"]["p"] < 0.05
