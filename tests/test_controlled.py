"""lab/controlled/: the paper's controlled evaluation: conditions that hide memory kinds
from the interview, people's answers and blind ranking in a terminal, a judge model,
ratings and tests, automatic measures, the report and the comparisons."""
from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from agents import Gateway, Mind, ModelConfig, load_cast, respond_traced
from game.support.errors import UserError
from lab.competent import dispatch
from lab.competent.prompt import Prompt
from lab.controlled import command, folder, measures, origin, ratings, stats
from lab.controlled.conditions import PAPER_CONDITIONS, ablated_state, condition_of, load_conditions
from lab.controlled.interviews import ablated_mind
from lab.controlled.judge import as_order, judge_prompt, judge_rankings
from lab.controlled.terminal import parse_ranking
from lab.experiment.compare import MEASURES, arm_tests, markdown, spread
from smallville.cli import main
from tests.fakes import HashEmbedder, make_gateway
from tests.test_evaluate import MAP, make_run

REPO = Path(__file__).resolve().parents[1]
NOW = datetime(2023, 2, 14, 19, 30)
COND = {c.name: c for c in PAPER_CONDITIONS}
MINDED = ["full", "no_reflection", "no_reflection_planning", "seed_only"]


def _personas():
    cast, scenario = load_cast(MAP.parent)
    return {p.name: p for p in cast}, scenario


def _rich_state() -> tuple[dict, dict[str, str]]:
    """Maria's mind with one memory of each kind (and a reflection citing two), as saved."""
    personas, _ = _personas()
    emb = HashEmbedder()
    m = Mind(personas["Maria Lopez"], make_gateway(via_litellm=False), emb)
    m.start_turn(datetime(2023, 2, 13, 7, 0))
    texts = {
        "observation": "Klaus Mueller is reading about jazz in the library",
        "chat": "Isabella Rodriguez told Maria about the Valentine's Day party at Hobbs Cafe",
        "plan": "Maria Lopez's plan for Monday: streaming a physics video at 14:00",
        "thought": "Maria is thinking about asking Klaus to the party",
    }
    ids = {}
    for kind, text in texts.items():
        ids[kind] = m.memory.add(kind, text, datetime(2023, 2, 13, 9, 0), 6, emb.embed([text])[0]).id
    refl = "Maria has come to see that jazz inspires her most"
    m.memory.add("reflection", refl, datetime(2023, 2, 13, 10, 0), 8, emb.embed([refl])[0],
                 evidence=[ids["observation"], ids["thought"]])
    texts["reflection"] = refl
    return m.to_state(), texts


# ---------------------------------------------------------------------------- conditions


def test_each_paper_condition_hides_its_kinds_and_what_was_made_of_them():
    state, texts = _rich_state()
    n_seed = len(_personas()[0]["Maria Lopez"].phrases)
    full = ablated_state(state, COND["full"])
    assert full.state is state and full.hidden == 0
    nr = ablated_state(state, COND["no_reflection"])
    descs = [n["description"] for n in nr.state["memory"]["nodes"]]
    assert texts["reflection"] not in descs and texts["plan"] in descs and nr.hidden == 1
    assert nr.state["memory"]["embeddings"].shape[0] == len(descs)
    assert [n["id"] for n in nr.state["memory"]["nodes"]] == list(range(len(descs)))  # dense again
    nrp = ablated_state(state, COND["no_reflection_planning"])
    assert texts["plan"] not in [n["description"] for n in nrp.state["memory"]["nodes"]]
    assert nrp.state["plan"] == [] and nrp.state["action"] is None and nrp.state["pending"] == []
    seed = ablated_state(state, COND["seed_only"])
    left = [n["description"] for n in seed.state["memory"]["nodes"]]
    assert len(left) == n_seed and not any(t in left for t in texts.values())
    assert seed.state["known_people"] == []
    # the map back to the full stream's ids, for the report
    assert [state["memory"]["nodes"][i]["description"] for i in seed.ids] == left
    assert state["memory"]["nodes"][-1]["kind"] == "reflection"  # the saved state is not changed


def test_a_reflection_keeps_only_the_evidence_still_there():
    state, texts = _rich_state()
    no_obs = condition_of({"name": "no_observation", "hide": ["observation"]}, "test")
    ab = ablated_state(state, no_obs)
    refl = next(n for n in ab.state["memory"]["nodes"] if n["kind"] == "reflection")
    assert len(refl["evidence"]) == 1
    assert ab.state["memory"]["nodes"][refl["evidence"][0]]["description"] == texts["thought"]


def test_hidden_memories_reach_neither_retrieval_nor_the_grounded_choice_nor_the_prompt():
    state, texts = _rich_state()
    personas, _scenario = _personas()
    prompts: list[str] = []

    def model(purpose, messages, schema):
        prompts.append(messages[-1]["content"])
        return {"answer": "Physics, mostly."} if purpose == "respond" else {"fact": "1"}

    emb = HashEmbedder()
    free = make_gateway(model, via_litellm=False, grounded="off", timeout=60.0, deadline=120.0)
    grounded = make_gateway(model, via_litellm=False, grounded="on", timeout=60.0, deadline=120.0)
    q = "What is your interest? jazz inspires"
    for gw in (free, grounded):
        for name in ("full", "no_reflection", "seed_only"):
            mind, _ids, _n = ablated_mind(personas["Maria Lopez"], state, COND[name], gw, emb, set())
            found = {x.description for x in mind.search([q], NOW, k=50, char_budget=100000, touch=False)}
            prompts.clear()
            respond_traced(mind, "Interviewer", q, now=NOW, remember=False)
            seen = " ".join(prompts)
            assert (texts["reflection"] in found) is (name == "full")
            if name == "full" and gw is free:
                assert texts["reflection"] in seen  # what the full mind retrieves, the model reads
            if name != "full":
                assert texts["reflection"] not in seen
            if name == "seed_only":
                assert not any(t in seen for t in texts.values())
                assert mind.summary == Mind(personas["Maria Lopez"], gw, emb).summary


@pytest.mark.parametrize("entry,words", [
    ({"name": "x", "hide": ["dreams"]}, "not a memory kind"),
    ({"name": "No Spaces!", "hide": []}, "short lower-case word"),
    ({"name": "x", "hide": "reflection"}, "list of memory kinds"),
    ({"name": "x", "hide": ["chat"], "people": True}, "cannot hide"),
    ({"name": "x", "summary": "latest"}, "summary must be"),
    (["full"], "must be an object"),
])
def test_a_bad_condition_says_what_and_how(entry, words):
    with pytest.raises(UserError, match=words):
        condition_of(entry, "conds.json entry 1")


def test_conditions_file_errors_name_the_file(tmp_path):
    p = tmp_path / "conds.json"
    with pytest.raises(UserError, match="not found"):
        load_conditions(p)
    p.write_text("{not json", encoding="utf-8")
    with pytest.raises(UserError, match="not readable JSON"):
        load_conditions(p)
    p.write_text(json.dumps([{"name": "a"}, {"name": "a"}]), encoding="utf-8")
    with pytest.raises(UserError, match="used twice"):
        load_conditions(p)
    p.write_text(json.dumps([{"name": "recency_only", "hide": ["reflection", "seed"]}]), encoding="utf-8")
    assert load_conditions(p)[0].hide == {"reflection", "seed"}


# ---------------------------------------------------------------------------- end to end


def _ablate_args(run: Path, out: Path, **kw) -> argparse.Namespace:
    base = dict(target=str(run), out=str(out), map=str(MAP), conditions=None, agent=None, questions=None,
                model=None, api_base=None, concurrency=None, cache=None, grounded=None, planning=None, budget=None)
    base.update(kw)
    return argparse.Namespace(**base)


def _rate_args(ev: Path, **kw) -> argparse.Namespace:
    base = dict(evaluation=str(ev), rater=None, write_answers=False, agent=None, judge=False, report=False, seed=None,
                map=str(MAP), model=None, api_base=None, concurrency=None, cache=None)
    base.update(kw)
    return argparse.Namespace(**base)


def _competent() -> Gateway:
    return Gateway(ModelConfig(model="scripted/competent", embedding_cache=None))


@pytest.fixture(scope="module")
def evaluation(tmp_path_factory) -> Path:
    """A run's residents interviewed under the paper's conditions by the competent stand-in."""
    root = tmp_path_factory.mktemp("controlled")
    run = make_run(root / "run")
    out = root / "eval"
    assert command.main_ablations(_ablate_args(run, out, questions=3), gateway=_competent(), embedder=HashEmbedder(),
                                  echo=None) == 0
    return out


def _copy(src: Path, dst: Path) -> Path:
    """An evaluation folder copied with its run beside it, where answers.json names its save from."""
    shutil.copytree(src, dst)
    if not (dst.parent / "run").exists():
        shutil.copytree(src.parent / "run", dst.parent / "run")
    return dst


def _run_of(ev_dir: Path) -> Path:
    return origin.save_path(folder.read(ev_dir)).parents[1]


def test_the_interviews_ask_every_condition_the_same_questions(evaluation):
    data = json.loads((evaluation / "answers.json").read_text())
    assert data["kind"] == folder.KIND and len(data["residents"]) == 4
    assert len(data["items"]) == 4 * 5 * 3  # residents x categories x --questions 3
    for it in data["items"]:
        assert set(it["answers"]) == set(MINDED)  # no human answers: that condition has none
    assert json.loads((evaluation / "conditions.json").read_text())[0]["name"] == "full"
    md = (evaluation / "report.md").read_text()
    assert "human-written condition is left out" in md and "No rankings yet" in md
    assert "| full architecture |" in md and "grounded" in md
    m = json.loads((evaluation / "measures.json").read_text())
    assert set(m["conditions"]) == set(MINDED)
    # Maria's seed-only mind knows nothing of the party: her answer says so, the full one does not
    maria = next(it for it in data["items"] if it["resident"] == "Maria Lopez"
                 and it["question"] == "Was there a Valentine's Day party?")
    assert "party" in maria["answers"]["full"]["text"].lower()
    assert maria["answers"]["full"]["text"] != maria["answers"]["seed_only"]["text"]


def test_the_competent_judge_ranks_end_to_end(evaluation, tmp_path):
    ev_dir = _copy(evaluation, tmp_path / "ev")
    assert command.main_rate(_rate_args(ev_dir, judge=True), gateway=_competent(), echo=None) == 0
    files = list((ev_dir / "ratings" / "judges").glob("*.jsonl"))
    assert [f.name for f in files] == ["scripted-competent.jsonl"]
    lines = [json.loads(x) for x in files[0].read_text().splitlines()]
    ev = folder.read(ev_dir)
    n = sum(len(ev.choices(it, MINDED)) >= 2 for it in ev.items)  # questions every condition answered alike: none
    assert 10 < n < 60 and len(lines) == n and not any(x.get("fallback") for x in lines)
    rep = json.loads((ev_dir / "report.json").read_text())
    s = rep["ratings"]["judge: scripted/competent"]
    assert s["rankings"] == n and set(s["order"]) == set(MINDED) and "people" not in rep["ratings"]
    md = (ev_dir / "report.md").read_text()
    assert f"### judge: scripted/competent: {n} rankings" in md and "Kruskal-Wallis" in md
    assert f"{60 - n} of 60 questions got the same answer under every condition" in md
    assert (ev_dir / "ratings.png").stat().st_size > 0
    # run again: nothing left to rank
    assert judge_rankings(folder.read(ev_dir), _competent())["ranked"] == 0


def test_the_judge_prompt_never_names_a_condition(evaluation):
    ev = folder.read(evaluation)
    item = ev.items[0]
    answers = ev.answers(item)
    text = judge_prompt(ev, item, [[c] for c in answers], answers).lower()
    for c in PAPER_CONDITIONS:
        assert c.name not in text and c.label not in text
    assert "reflection" not in text and "ablat" not in text and "condition" not in text


def test_a_judge_answer_that_is_not_a_ranking_is_counted_not_used(evaluation, tmp_path):
    ev_dir = _copy(evaluation, tmp_path / "ev")
    gw = make_gateway(lambda purpose, messages, schema: {"ranking": [1, 1, 2]}, via_litellm=False, timeout=60.0,
                      deadline=120.0)
    assert command.main_rate(_rate_args(ev_dir, judge=True), gateway=gw, echo=None) == 0
    rep = json.loads((ev_dir / "report.json").read_text())
    assert not any(k.startswith("judge") for k in rep["ratings"])
    ev = folder.read(ev_dir)
    n = sum(len(ev.choices(it, MINDED)) >= 2 for it in ev.items)
    assert any(f"{n} answers were not a ranking" in x for x in rep["notes"])
    assert as_order([2, 1], ["a", "b"]) == [1, 0] and as_order([1, 3], ["a", "b"]) is None


def test_scripted_rankings_order_the_ratings_as_they_did(evaluation, tmp_path):
    """Rankings that put full > no_reflection > no_reflection_planning > seed_only (one in
    five flips a neighbouring pair) give ratings in that order, with the tests saying so."""
    ev_dir = _copy(evaluation, tmp_path / "ev")
    ev = folder.read(ev_dir)
    truth = ["full", "no_reflection", "no_reflection_planning", "seed_only"]
    path = ev_dir / folder.PEOPLE / "scripted.jsonl"
    for i, it in enumerate(ev.items):
        order = list(truth)
        if i % 5 == 4:
            j = i % 3
            order[j], order[j + 1] = order[j + 1], order[j]
        folder.append_ranking(path, {"item": it["key"], "by": "scripted", "order": order})
    assert command.main_rate(_rate_args(ev_dir, report=True), echo=None) == 0
    s = json.loads((ev_dir / "report.json").read_text())["ratings"]["people"]
    assert s["order"] == truth
    mus = [s["ratings"][c]["mu"] for c in truth]
    assert mus == sorted(mus, reverse=True)
    assert s["win_rates"]["full"]["seed_only"] == 1.0
    assert s["kruskal"]["p"] < 0.001
    assert [(d["a"], d["b"]) for d in s["dunn"]] == list(itertools.pairwise(truth))
    assert all(d["z"] > 0 for d in s["dunn"])


def _cli(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "SDL_VIDEODRIVER": "dummy", "HF_HUB_OFFLINE": "1",
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "smallville", *args], input=stdin, capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=120)


def _all_different(ev_dir: Path) -> None:
    """Every condition's answer made different from the others (the rater then sees four)."""
    data = json.loads((ev_dir / "answers.json").read_text())
    for it in data["items"]:
        for lead, c in zip(("Well,", "Hmm,", "So,", "Oh,"), MINDED):
            it["answers"][c]["text"] = f"{lead} {it['answers'][c]['text']}"
    (ev_dir / "answers.json").write_text(json.dumps(data), encoding="utf-8")


def test_the_terminal_rater_through_stdin(evaluation, tmp_path):
    ev_dir = _copy(evaluation, tmp_path / "ev")
    _all_different(ev_dir)
    # garbage, a letter twice, a missing one, a skip, then two good rankings, then quit
    got = _cli(["rate", str(ev_dir), "--rater", "Ann Smith", "--map", str(MAP)],
               "zz\nAAB\nAB\ns\nDCBA\nA B C D\nq\n")
    assert got.returncode == 0, got.stderr
    out = got.stdout
    assert "no such answer" in out and "given twice" in out and "missing" in out
    for c in PAPER_CONDITIONS:  # blind: no condition is named to the rater
        assert c.name not in out and c.label not in out
    lines = [json.loads(x) for x in (ev_dir / folder.PEOPLE / "Ann Smith.jsonl").read_text().splitlines()]
    assert len(lines) == 2 and all(sorted(x["order"]) == sorted(MINDED) for x in lines)
    assert lines[0]["order"] == [g[0] for g in lines[0]["shown"]][::-1]
    assert lines[1]["order"] == [g[0] for g in lines[1]["shown"]] and lines[1]["ranks"] == [1, 2, 3, 4]
    # resumes: the two ranked are not shown again; the end of input stops cleanly
    again = _cli(["rate", str(ev_dir), "--rater", "Ann Smith", "--map", str(MAP)], "")
    assert again.returncode == 0 and "58 questions to go (2 done)" in " ".join(again.stdout.split())
    rep = json.loads((ev_dir / "report.json").read_text())
    assert rep["ratings"]["people"]["rankings"] == 2 and rep["ratings"]["people"]["raters"] == ["Ann Smith"]


def test_people_write_the_human_answers_through_stdin_and_raters_then_see_five(evaluation, tmp_path):
    ev_dir = _copy(evaluation, tmp_path / "ev")
    got = _cli(["rate", str(ev_dir), "--write-answers", "--rater", "Bob", "--agent", "Maria", "--map", str(MAP)],
               "I'm Maria, I study physics and stream games.\n\nI stream on weekdays after class.\n")
    assert got.returncode == 0, got.stderr
    assert "Maria Lopez, age 21" in got.stdout and "physics" in got.stdout  # her description is shown
    human = json.loads((ev_dir / folder.HUMANS / "Bob.json").read_text())["answers"]
    assert list(human) == ["Maria Lopez"] and len(human["Maria Lopez"]) == 2
    assert all(a["by"] == "Bob" for a in human["Maria Lopez"].values())
    md = (ev_dir / "report.md").read_text()
    assert "left out" not in md and "*human*: I'm Maria" in md
    ev = folder.read(ev_dir)
    with_human = [it for it in ev.items if "human" in ev.answers(it)]
    assert len(with_human) == 2 and all(len(ev.answers(it)) == 5 for it in with_human)
    # the human answers stay when a researcher reads the folder again, and a damaged file is refused
    (ev_dir / folder.HUMANS / "Bob.json").write_text("{oops", encoding="utf-8")
    with pytest.raises(UserError, match="Bob.json is damaged"):
        folder.read(ev_dir)


def test_conditions_that_answered_alike_are_shown_once_and_share_their_place(evaluation, tmp_path):
    ev_dir = _copy(evaluation, tmp_path / "ev")
    _all_different(ev_dir)
    data = json.loads((ev_dir / "answers.json").read_text())
    for it in data["items"]:  # no reflection answers exactly as the full architecture
        it["answers"]["no_reflection"]["text"] = "  " + it["answers"]["full"]["text"].upper()
    (ev_dir / "answers.json").write_text(json.dumps(data), encoding="utf-8")
    got = _cli(["rate", str(ev_dir), "--rater", "Eve", "--map", str(MAP)], "ABC\nq\n")
    assert got.returncode == 0, got.stderr
    assert " D " not in got.stdout.split("your ranking")[0]  # three answers to rank, not four
    line = json.loads((ev_dir / folder.PEOPLE / "Eve.jsonl").read_text())
    tied = next(g for g in line["shown"] if len(g) == 2)
    assert sorted(tied) == ["full", "no_reflection"]
    assert line["ranks"][line["order"].index("full")] == line["ranks"][line["order"].index("no_reflection")]
    r = ratings.summarise(list(folder.read_rankings(ev_dir / folder.PEOPLE / "Eve.jsonl", MINDED).orders.values()),
                          MINDED)
    assert r["ratings"]["full"]["mu"] == pytest.approx(r["ratings"]["no_reflection"]["mu"])
    assert r["win_rates"]["full"]["no_reflection"] == 0.5


def test_a_rater_file_with_garbage_keeps_its_good_lines_and_says_so(evaluation, tmp_path):
    ev_dir = _copy(evaluation, tmp_path / "ev")
    ev = folder.read(ev_dir)
    path = ev_dir / folder.PEOPLE / "carol.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    good = json.dumps({"item": ev.items[0]["key"], "order": MINDED})
    path.write_text("\n".join([good, "not json", json.dumps({"item": "x", "order": ["full", "full"]}),
                               json.dumps({"item": "x", "order": ["full", "telepathy"]}), "\x00\xff", "[]"]) + "\n",
                    encoding="utf-8")
    assert command.main_rate(_rate_args(ev_dir, report=True), echo=None) == 0
    rep = json.loads((ev_dir / "report.json").read_text())
    assert rep["ratings"]["people"]["rankings"] == 1
    assert any("5 unreadable lines skipped" in n for n in rep["notes"])


def test_a_missing_or_damaged_evaluation_folder_is_refused_by_name(tmp_path, evaluation):
    with pytest.raises(UserError, match="no such evaluation folder"):
        folder.read(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="no answers.json"):
        folder.read(tmp_path / "empty")
    bad = _copy(evaluation, tmp_path / "bad")
    (bad / "answers.json").write_text('{"items": [', encoding="utf-8")
    with pytest.raises(UserError, match="answers.json is damaged"):
        folder.read(bad)
    (bad / "answers.json").write_text('{"items": []}', encoding="utf-8")
    with pytest.raises(UserError, match="not a controlled evaluation"):
        folder.read(bad)
    data = json.loads((evaluation / "answers.json").read_text())
    data["items"][3] = {"question": "?"}
    (bad / "answers.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UserError, match="item 4 is damaged"):
        folder.read(bad)
    # through the command: a clear message and exit code 2, no traceback
    got = _cli(["rate", str(tmp_path / "nowhere"), "--rater", "x"], "")
    assert got.returncode == 2 and "no such evaluation folder" in got.stderr and "Traceback" not in got.stderr


def test_the_rate_command_needs_a_rater_and_one_mode(evaluation):
    with pytest.raises(UserError, match="--rater NAME"):
        command.main_rate(_rate_args(evaluation), echo=None)
    with pytest.raises(UserError, match="one of"):
        command.main_rate(_rate_args(evaluation, judge=True, report=True), echo=None)


def test_new_answers_never_overwrite_a_rated_folder(evaluation, tmp_path):
    ev_dir = _copy(evaluation, tmp_path / "ev")
    folder.append_ranking(ev_dir / folder.PEOPLE / "dan.jsonl", {"item": "x", "order": MINDED})
    run = _run_of(ev_dir)
    with pytest.raises(UserError, match="already holds rankings"):
        command.main_ablations(_ablate_args(run, ev_dir), gateway=_competent(), embedder=HashEmbedder(), echo=None)


def test_compare_two_evaluations_side_by_side(evaluation, tmp_path):
    a = _copy(evaluation, tmp_path / "a")
    b = _copy(evaluation, tmp_path / "b")
    out = tmp_path / "cmp"
    assert main(["compare", str(a), str(b), "--out", str(out)]) == 0
    md = (out / "comparison.md").read_text()
    assert "| full |" in md and "p (Fisher)" in md and "1.000" in md  # the same answers: no difference


# ---------------------------------------------------------------------------- measures and statistics


def test_grounded_and_made_up_by_rule():
    recs = ["Maria Lopez is a student at Oak Hill College studying physics", "Maria streams games on Twitch"]
    assert measures.grounded_in("I'm a student at Oak Hill College, studying physics.", recs, "Maria Lopez")
    assert not measures.grounded_in("I'm a pilot who flies to Paris.", recs, "Maria Lopez")
    assert measures.grounded_in("I am a poet.", ["Carlos Gomez is a poet"], "Carlos Gomez")  # a short fact
    assert not measures.grounded_in("Sure, hi!", recs, "Maria Lopez")
    known = measures.known_words(recs + ["Klaus Mueller", "Hobbs Cafe"])
    low = " ".join(recs).lower()
    assert measures.made_up("I went to Hobbs Cafe with Klaus.", "Who?", known, low) == []
    assert measures.made_up("I met Gandalf Grey at the concert.", "Who?", known, low) == ["Gandalf Grey", "concert"]
    assert measures.made_up("Yes, the party was fun.", "Was there a party?", known, low) == []  # the question said it
    assert measures.no_claim("I don't know, sorry.", False) and measures.no_claim("Anything", True)


def test_statistics_against_known_values():
    # Two groups of three, no ties, by hand: H = 12/42 * (6^2/3 + 15^2/3) - 21 = 3.857; Dunn's z = 3 / sqrt(3.5 * 2/3)
    kw = stats.kruskal_wallis([[1, 2, 3], [4, 5, 6]])
    assert kw.h == pytest.approx(27 / 7) and kw.p == pytest.approx(0.049535, abs=1e-5)
    d = stats.dunn([[1, 2, 3], [4, 5, 6]], [(1, 0)])[0]
    assert d.z == pytest.approx(1.963961, abs=1e-5) and d.p == pytest.approx(0.049535, abs=1e-5)
    # chi-square critical values at 5%
    for x, df in ((3.841459, 1), (5.991465, 2), (7.814728, 3), (9.487729, 4)):
        assert stats.chi2_sf(x, df) == pytest.approx(0.05, abs=1e-5)
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert list(stats.rankdata([10, 20, 20, 5])) == [2.0, 3.5, 3.5, 1.0]


def test_kruskal_wallis_agrees_with_scipy_on_ties():
    scipy_stats = pytest.importorskip("scipy.stats")
    groups = [[0, 0.5, 0.5, 1, 0], [0.5, 1, 1, 1, 0.5, 0], [0, 0, 0.25, 0.5]]
    ours = stats.kruskal_wallis(groups)
    ref = scipy_stats.kruskal(*groups)
    assert ours.h == pytest.approx(ref.statistic) and ours.p == pytest.approx(ref.pvalue)


def test_two_arms_say_when_the_seeds_cannot_differ():
    same = stats.two_arms([0.5, 0.5], [0.7, 0.7])
    assert same.p is None and "cannot differ" in same.note and same.diff == pytest.approx(0.2)
    apart = stats.two_arms([1, 2, 3, 4], [11, 12, 13, 14])
    assert apart.p == pytest.approx(2 / 70) and apart.cliffs_delta == 1.0 and apart.hedges_g > 3
    small = stats.two_arms([1, 2], [3, 4])
    assert small.p == pytest.approx(2 / 6) and "smallest possible p is 0.33" in small.note
    assert stats.two_arms([1], [2]).p is None and stats.two_arms([], [2]).note


def test_ratings_of_partial_rankings_and_win_rates():
    r = ratings.summarise([["a", "b", "c"], ["a", "c"], ["b", "c"]], ["a", "b", "c", "d"])
    assert r["order"] == ["a", "b", "c"] and r["ratings"]["d"]["matches"] == 0
    assert r["win_rates"]["a"]["c"] == 1.0 and r["win_rates"]["d"]["a"] is None


def test_the_competent_stand_in_ranks_from_the_prompt_alone():
    text = ("You judge how believable interview answers are. The person interviewed: Maria Lopez, age 21.\n"
            "Who they are: Maria is a physics student who streams games\nThey were asked: \"What do you study?\"\n"
            "Here are 3 answers:\n1. I don't know.\n2. I study physics at the college and stream games.\n3. Stuff.\n")
    assert dispatch(Prompt(text, {"properties": {"ranking": {}}}, "Ranking")) == {"ranking": [2, 3, 1]}
    assert parse_ranking("b > a", "AB") == ([1, 0], "")


def _experiment(values: dict[str, tuple[list, list]]) -> dict:
    arms = {arm: {k: spread(list(values.get(k, ([], []))[i])) for k, _l, _f in MEASURES}
            for i, arm in enumerate(("control", "treatment"))}
    return {"experiment": "exp", "at": "2023-02-13 09:00", "hours": 2.0, "seeds": [0, 1, 2], "treatment": ["x"],
            "branches": {}, "arms": arms, "tests": arm_tests(arms), "missing": []}


def test_compare_gives_each_measure_an_effect_size_a_test_and_its_seeds():
    res = _experiment({"density": ([0.2, 0.25, 0.22], [0.5, 0.55, 0.52]), "calls": ([10, 10, 10], [10, 10, 10])})
    t = res["tests"]["density"]
    assert t["p"] == pytest.approx(0.1) and t["cliffs_delta"] == 1.0 and t["n_control"] == 3
    md = markdown(res)
    assert "Is the difference more than noise?" in md and "| 3 + 3 |" in md
    assert "the seeds cannot differ" in md and "1 of 2 measures have sd 0" in md


def test_compare_says_plainly_when_no_seed_differs():
    md = markdown(_experiment({"density": ([0.3, 0.3], [0.4, 0.4]), "party_share": ([0.1, 0.1], [0.1, 0.1])}))
    assert "The seeds cannot differ here: every measure has sd 0 in every arm" in md


def test_the_command_refuses_bad_requests_before_asking_any_model(evaluation, tmp_path, capsys):
    run = _run_of(evaluation)
    bad = tmp_path / "conds.json"
    bad.write_text(json.dumps([{"name": "x", "hide": ["dreams"]}]), encoding="utf-8")
    cases = [
        (["--questions", "9"], "--questions 9: give 1 to 5"),
        (["--conditions", str(bad)], "hides 'dreams': not a memory kind"),
        (["--agent", "Nobody"], "--agent Nobody: not in this save"),
    ]
    for flags, message in cases:
        assert main(["evaluate", str(run), "--ablations", "--out", str(tmp_path / "o"), *flags]) == 2
        assert message in capsys.readouterr().err
    assert main(["evaluate", str(tmp_path / "no-run"), "--ablations"]) == 2
    assert main(["compare", str(evaluation), str(evaluation), str(evaluation)]) == 2
    assert "one experiment folder, or two evaluation folders" in capsys.readouterr().err


def test_peoples_answers_are_reused_for_the_same_questions_of_another_run(evaluation, tmp_path):
    src = _copy(evaluation, tmp_path / "src")
    ev = folder.read(src)
    it = ev.items[0]
    folder.add_human(src, it["resident"], it["question"], "Written once, reused.", "Bob")
    folder.add_human(src, it["resident"], "A question not asked here?", "Not reused.", "Bob")
    run = _run_of(src)
    out = tmp_path / "again"
    assert command.main_ablations(_ablate_args(run, out, questions=3, human=str(src)), gateway=_competent(),
                                  embedder=HashEmbedder(), echo=None) == 0
    human = folder.read_human(out)
    assert human == {it["resident"]: {it["question"]: folder.read_human(src)[it["resident"]][it["question"]]}}
    assert "*human*: Written once, reused." in (out / "report.md").read_text()
    with pytest.raises(UserError, match="no people's answers there"):
        folder.reuse_human(tmp_path / "nowhere", out, ev.items)
