"""lab/evaluate/ and its judge: the paper's evaluations on small synthetic runs with known answers."""
from __future__ import annotations

import argparse
import json
from datetime import datetime
from pathlib import Path

import pytest

from agents.mind.core import Mind
from agents.residents.persona import load_cast
from game.saves.saved_run import end_minds, load_target
from game.saves.store import save_state
from lab import evaluate as ev
from lab.evaluate.coordination import coordination, presence
from lab.evaluate.diffusion import diffusion
from lab.evaluate.interviews import ask
from lab.evaluate.judge import CANDIDACY, PARTY, memory_knows, model_judge, rule_judge
from lab.evaluate.relationships import density, relationships, start_graph
from smallville.cli import main
from tests.fakes import HashEmbedder, make_gateway

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps/the_ville/the_ville.tmx"
START = datetime(2023, 2, 13, 7, 0)
END = datetime(2023, 2, 14, 19, 30)
NAMES = ["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller", "Sam Moore"]


# ---------------------------------------------------------------------------- the rule judge


@pytest.mark.parametrize("answer,knows", [
    ("Yes! Isabella is throwing a Valentine's Day party at Hobbs Cafe on the 14th.", True),
    ("Oh yes, the Valentine's party, I heard about it.", False),  # nothing the question did not say
    ("Yes, I heard Isabella is hosting one.", True),
    ("I'm going to the party at the cafe tomorrow at 5 pm.", True),
    ("No, I haven't heard of any party.", False),
    ("I don't know about a party, is there one?", False),
    ("That's a good question, Interviewer. I'd have to think about it; I'm reading at the moment.", False),
    ("Yes.", False),  # a bare yes names nothing: unclear, not counted
    ("Yes, I did. I'm going to the party tonight.", False),  # nothing that pins it down
    ("Yes! It's tomorrow at five, I'll be there.", True),
    ("I love Valentine's Day! I usually stay home.", False),
    ("", False),
])
def test_rule_judge_party(answer, knows):
    assert rule_judge(PARTY, answer).knows is knows


@pytest.mark.parametrize("answer,knows", [
    ("Sam Moore is running for mayor, he told me yesterday.", True),
    ("I think Sam is, isn't he? He's been talking about it in the park.", True),
    ("I have no idea who is running.", False),
    ("No, I don't follow the election much.", False),
    ("I'm not sure, maybe someone from the college?", False),
    ("Mayor? Hmm.", False),
])
def test_rule_judge_candidacy(answer, knows):
    assert rule_judge(CANDIDACY, answer).knows is knows


def test_rule_judge_flags_a_made_up_candidate():
    v = rule_judge(CANDIDACY, "The mayor of the Ville is Isabella Rodriguez, who runs Hobbs Cafe.")
    assert not v.knows and v.label == "wrong"
    assert rule_judge(CANDIDACY, "I have no idea who the mayor will be.").label == "no"


def test_rule_judge_lets_the_holder_speak_of_its_own_news():
    assert rule_judge(CANDIDACY, "I am! I've decided to run for mayor.", speaker="Sam Moore").knows
    assert not rule_judge(CANDIDACY, "I am! I've decided to run for mayor.", speaker="Maria Lopez").knows
    assert rule_judge(PARTY, "Of course, it's my party!", speaker="Isabella Rodriguez").knows


def test_model_judge_asks_the_model_and_falls_back_to_the_rule():
    gw = make_gateway(lambda purpose, messages, schema: {"knows": True}, via_litellm=False)
    v = model_judge(gw, PARTY, "Yes, I heard about it!", speaker="Maria Lopez")
    assert v.knows and v.extra["rule"] == "unclear"
    broken = make_gateway(lambda purpose, messages, schema: "not json at all", via_litellm=False)
    assert model_judge(broken, PARTY, "Isabella's party at Hobbs Cafe, yes!").knows  # the rule's verdict


def test_memory_judge_keyword_and_similarity():
    emb = HashEmbedder()
    texts = ["conversed with Isabella Rodriguez about the Valentine's Day party at Hobbs Cafe on February 14",
             "I went to a birthday party last year",
             "Isabella Rodriguez is making coffee",
             "the election for mayor is next month",
             "conversed with Sam Moore about his plan to run for mayor in the election"]
    vecs = emb.embed(texts)
    assert memory_knows(PARTY, texts, vecs, emb.embed([PARTY.statement])[0]) == [True, False, False, False, False]
    # the candidacy needs the candidate: an election alone is not the news
    fact_vector = emb.embed([CANDIDACY.statement])[0]
    assert memory_knows(CANDIDACY, texts, vecs, fact_vector) == [False, False, False, False, True]
    # no vectors: topic and detail
    assert memory_knows(PARTY, texts, None, None) == [True, False, False, False, False]


# ---------------------------------------------------------------------------- a synthetic run


def _events() -> list[dict]:
    E = []

    def e(t, who, kind, text, address="", **kw):
        E.append({"time": t, "resident": who, "kind": kind, "text": text, "address": address, **kw})

    cafe = "the Ville:Hobbs Cafe:cafe"
    dorm = "the Ville:Dorm for Oak Hill College:kitchen"
    # Mon 09:00 Isabella tells Maria about the party at the cafe
    e("2023-02-13 09:00:00", "Isabella Rodriguez", "chat", "starts a conversation with Maria Lopez", cafe,
      conversation=1, partner="Maria Lopez")
    e("2023-02-13 09:00:10", "Isabella Rodriguez", "line", "I'm throwing a Valentine's Day party here tomorrow at 5!",
      cafe, conversation=1, partner="Maria Lopez")
    e("2023-02-13 09:00:20", "Maria Lopez", "line", "I'd love to come!", cafe, conversation=1,
      partner="Isabella Rodriguez")
    # Mon 12:00 Maria tells Klaus
    e("2023-02-13 12:00:10", "Maria Lopez", "line", "Isabella has a Valentine's party at Hobbs Cafe tomorrow.", dorm,
      conversation=2, partner="Klaus Mueller")
    e("2023-02-13 12:00:20", "Klaus Mueller", "line", "Thanks, I'll think about it.", dorm, conversation=2,
      partner="Maria Lopez")
    # Tue: who is at Hobbs Cafe when
    e("2023-02-14 16:00:00", "Klaus Mueller", "arrive", "arrives", cafe)
    e("2023-02-14 16:50:00", "Klaus Mueller", "action", "studying", "the Ville:Oak Hill College:library:library tables")
    e("2023-02-14 16:30:00", "Isabella Rodriguez", "arrive", "arrives", cafe)
    e("2023-02-14 17:10:00", "Maria Lopez", "action", "going to the party", cafe)
    e("2023-02-14 17:15:00", "Maria Lopez", "arrive", "arrives", cafe)
    e("2023-02-14 18:00:00", "Maria Lopez", "action", "going home", "the Ville:Dorm for Oak Hill College:kitchen")
    e("2023-02-14 18:30:00", "Sam Moore", "arrive", "arrives", cafe)
    e("2023-02-14 19:10:00", "Sam Moore", "arrive", "arrives", "the Ville:Johnson Park:park")
    return E


def _minds(gateway, emb):
    cast, scenario = load_cast(MAP.parent)
    personas = {p.name: p for p in cast}
    minds = {}
    for n in NAMES:
        m = Mind(personas[n], gateway, emb)
        for who, thought, imp in scenario.seeds:
            if who == n:
                m.queue_thought(thought, imp)
        m.now = START
        m._roll_day()
        m._fold_queue()
        minds[n] = m

    def add(who, kind, text, t, **kw):
        minds[who].memory.add(kind, text, t, 6, emb.embed([text])[0], **kw)

    t1, t2 = datetime(2023, 2, 13, 9, 1), datetime(2023, 2, 13, 12, 1)
    add("Isabella Rodriguez", "chat", "conversed with Maria Lopez about the Valentine's Day party at Hobbs Cafe", t1,
        subject="Isabella Rodriguez", object="Maria Lopez")
    add("Maria Lopez", "chat", "conversed with Isabella Rodriguez about the Valentine's Day party at Hobbs Cafe on "
        "February 14", t1, subject="Maria Lopez", object="Isabella Rodriguez")
    add("Maria Lopez", "plan", "Maria Lopez's plan for Tuesday February 14: 17:00-18:00 going to the Valentine's Day "
        "party at Hobbs Cafe", datetime(2023, 2, 14, 7, 0), subject="Maria Lopez")
    add("Klaus Mueller", "chat", "conversed with Maria Lopez about Isabella's Valentine's Day party at Hobbs Cafe on "
        "February 14", t2,
        subject="Klaus Mueller", object="Maria Lopez")
    add("Klaus Mueller", "observation", "Sam Moore is walking in the park", t2, subject="Sam Moore")
    minds["Isabella Rodriguez"].known_people |= {"Maria Lopez"}
    minds["Maria Lopez"].known_people |= {"Isabella Rodriguez", "Klaus Mueller"}
    minds["Klaus Mueller"].known_people |= {"Maria Lopez", "Sam Moore"}
    return minds


def make_run(folder: Path, *, with_events_file=True) -> Path:
    """A run folder: events.jsonl, summary.json and saves/end.sqlite with 4 minds."""
    emb = HashEmbedder()
    gw = make_gateway(via_litellm=False)
    minds = _minds(gw, emb)
    events = _events()
    folder.mkdir(parents=True, exist_ok=True)
    if with_events_file:
        (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    (folder / "summary.json").write_text(json.dumps({"start": "2023-02-13 07:00", "end": "2023-02-14 19:30",
                                                     "residents": {n: {} for n in NAMES}}), encoding="utf-8")
    parts = {"sim": {"events": events}, "session": {"residents": NAMES, "map": str(MAP), "world": "the Ville"},
             "clock": {"now": END, "start": START, "steps": 0}}
    for n, m in minds.items():
        parts[f"minds/{n}"] = m.to_state()
    save_state(folder / "saves" / "end.sqlite", parts,
               {"world": "the Ville", "map_path": str(MAP), "sim_time": END, "residents": NAMES,
                "embedding_model": emb.model_name, "embedding_dim": emb.dim, "model": "scripted/fake"})
    return folder


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    return make_run(tmp_path_factory.mktemp("run") / "r1")


def _personas():
    cast, scenario = load_cast(MAP.parent)
    return {p.name: p for p in cast}, scenario


def test_diffusion_shares_from_memory_and_events(run):
    tg = load_target(run)
    assert tg.residents == NAMES and tg.start == START and tg.end == END
    personas, scenario = _personas()
    d = diffusion(tg, personas, scenario, HashEmbedder())["facts"]
    party, cand = d["party"], d["candidacy"]
    assert party["memory_start"]["knows"] == ["Isabella Rodriguez"]          # the seed holder alone
    assert set(party["memory_end"]["knows"]) == {"Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"}
    assert party["memory_end"]["share"] == 0.75
    assert cand["memory_start"]["knows"] == ["Sam Moore"]
    assert cand["memory_end"]["knows"] == ["Sam Moore"]  # seeing Sam walk is not hearing the news
    heard = {h["resident"]: h for h in party["heard_over_time"]}
    assert heard["Isabella Rodriguez"]["how"] == "seed"
    assert heard["Maria Lopez"]["time"] == "2023-02-13 09:00:10"
    assert heard["Maria Lopez"]["from"] == "Isabella Rodriguez"
    assert heard["Klaus Mueller"]["time"] == "2023-02-13 12:00:10" and heard["Klaus Mueller"]["from"] == "Maria Lopez"
    assert "Sam Moore" not in heard and party["heard_end"]["count"] == 3


def test_density_of_known_graphs(run):
    personas, _ = _personas()
    g = start_graph(NAMES, personas)
    # descriptions: Isabella names Maria; Maria names Isabella and Klaus; Klaus names Maria; Sam names none of them
    assert g == {"Isabella Rodriguez": {"Maria Lopez"}, "Maria Lopez": {"Isabella Rodriguez", "Klaus Mueller"},
                 "Klaus Mueller": {"Maria Lopez"}, "Sam Moore": set()}
    assert density(g) == round(2 / 6, 4)
    assert density({"a": {"b", "c"}, "b": set(), "c": {"a"}, "d": set()}) == round(2 / 6, 4)
    assert density({"a": {"b", "c"}, "b": set(), "c": {"a"}, "d": set()}, mutual=True) == round(1 / 6, 4)
    assert density({n: set(NAMES) - {n} for n in NAMES}) == 1.0
    tg = load_target(run)
    rel = relationships(tg, personas)
    assert rel["start"]["density"] == round(2 / 6, 4)
    # end: + Klaus knows Sam (seen); Isabella-Maria, Maria-Klaus talked
    assert rel["end"]["density"] == 0.5
    assert rel["end"]["talked_density"] == round(2 / 6, 4)
    assert rel["paper"] == {"start": 0.167, "end": 0.74, "of": 25}


def test_coordination_counts(run):
    tg = load_target(run)
    co = coordination(tg)
    assert set(co["invited"]) == {"Maria Lopez", "Klaus Mueller"}
    assert set(co["planned"]) == {"Maria Lopez"}
    assert set(co["attended"]) == {"Isabella Rodriguez", "Maria Lopez", "Sam Moore"}  # Klaus left at 16:50
    c = co["counts"]
    assert c == {"residents": 4, "invited": 2, "planned": 1, "attended": 2, "invited_and_attended": 1,
                 "planned_and_attended": 1, "host_attended": True}


def test_presence_intervals():
    spans = presence(_events(), "Hobbs Cafe")
    assert spans["Klaus Mueller"] == [(datetime(2023, 2, 14, 16, 0), datetime(2023, 2, 14, 16, 50))]
    assert spans["Isabella Rodriguez"] == [(datetime(2023, 2, 13, 9, 0), None)]  # from her first line there on
    assert spans["Maria Lopez"][-1] == (datetime(2023, 2, 14, 17, 15), datetime(2023, 2, 14, 18, 0))


def test_short_run_says_it_did_not_reach_the_party(tmp_path):
    folder = tmp_path / "short"
    folder.mkdir()
    (folder / "events.jsonl").write_text(json.dumps({"time": "2023-02-13 08:00:00", "resident": "Maria Lopez",
                                                     "kind": "action", "text": "x", "address": ""}) + "\n")
    (folder / "summary.json").write_text(json.dumps({"start": "2023-02-13 07:00", "end": "2023-02-13 09:00",
                                                     "residents": {"Maria Lopez": {}}}))
    tg = load_target(folder)
    assert tg.save is None and "no loadable save" in tg.notes[0]
    co = coordination(tg)
    assert co["attended"] is None and any("did not reach Feb 14 17:00" in n for n in co["notes"])


def _args(target, **kw):
    base = dict(target=str(target), out=None, no_interviews=False, judge="rule", battery=False, agent=None,
                map=str(MAP), model=None, api_base=None, concurrency=None, cache=None)
    base.update(kw)
    return argparse.Namespace(**base)


def test_cli_no_interviews_writes_the_files(run, tmp_path):
    out = tmp_path / "out"
    assert main(["evaluate", str(run), "--no-interviews", "--out", str(out)]) == 0
    for f in ("evaluation.json", "evaluation.md", "diffusion.png", "relationships.png", "coordination.png",
              "spread.png"):
        assert (out / f).exists() and (out / f).stat().st_size > 0, f
    res = json.loads((out / "evaluation.json").read_text())
    assert res["interviews"] is None and res["relationships"]["start"]["density"] == round(2 / 6, 4)
    md = (out / "evaluation.md").read_text()
    assert "0.74" in md and "52%" in md and "32%" in md and "5 of 12" in md


def _answers(purpose, messages, schema):
    """A resident answers from what its prompt says it remembers (as a good model would)."""
    text = messages[-1]["content"]
    if purpose != "respond":
        return None
    memories = text.split("You remember:", 1)[-1].split("The person talking", 1)[0]
    if "Valentine" in text.split("says:")[-1]:
        if "party" in memories:
            return {"answer": "Yes! Isabella's party at Hobbs Cafe on the 14th."}
        return {"answer": "No, I haven't heard about any party."}
    if "run for mayor" in memories:
        return {"answer": "I am! I have decided to run for mayor."}
    return {"answer": "I have no idea, sorry."}


def test_interviews_and_the_save_alone(run, tmp_path):
    """Interviews at the start and end on the scripted model; a save alone uses its own event log."""
    gw = make_gateway(_answers, via_litellm=False)
    save = run / "saves" / "end.sqlite"
    # a copy of the save outside its run folder: a save alone
    alone = tmp_path / "alone.sqlite"
    alone.write_bytes(save.read_bytes())
    ev_end = end_minds(load_target(alone), _personas()[0], gw, HashEmbedder())
    n_before = len(ev_end["Maria Lopez"].memory)
    ask(ev_end["Maria Lopez"], PARTY.question, END)
    assert len(ev_end["Maria Lopez"].memory) == n_before  # an interview leaves the mind untouched
    assert ev.main_evaluate(_args(alone), gateway=gw, embedder=HashEmbedder(), echo=None) == 0
    out = tmp_path / "alone-evaluation"
    res = json.loads((out / "evaluation.json").read_text())
    iv = res["interviews"]
    assert iv["start"]["party"]["knows"] == ["Isabella Rodriguez"]
    assert set(iv["end"]["party"]["knows"]) == {"Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"}
    assert iv["end"]["candidacy"]["knows"] == ["Sam Moore"] and iv["end"]["candidacy"]["share"] == 0.25
    assert "inside" in res["events_source"]  # the save's own event log
    assert res["coordination"]["counts"]["attended"] == 2
    assert alone.read_bytes() == save.read_bytes()  # the save is only read
    md = (out / "evaluation.md").read_text()
    assert "interview (rule judge)" in md and "Yes! Isabella's party" in md


def test_battery_writes_a_transcript(run, tmp_path):
    gw = make_gateway(_answers, via_litellm=False)
    out = tmp_path / "bat"
    assert ev.main_evaluate(_args(run, battery=True, agent="Maria", out=str(out)), gateway=gw,
                            embedder=HashEmbedder(), echo=None) == 0
    md = (out / "interviews.md").read_text()
    assert md.count("**Q:**") == 25 and "## Maria Lopez" in md and "Klaus Mueller" not in md.split("## Maria Lopez")[0]
    for cat in ev.BATTERY:
        assert f"### {cat}" in md
    assert "Who is Isabella Rodriguez?" in md  # someone she knows
    assert "0 of 25 answers were stand-in lines" in md


# ---------------------------------------------------------------------------- a real run


@pytest.mark.slow
def test_real_run_no_interviews(real_run, tmp_path):
    folder = real_run[0]
    assert main(["evaluate", str(folder), "--no-interviews", "--out", str(tmp_path)]) == 0
    res = json.loads((tmp_path / "evaluation.json").read_text())
    assert res["diffusion"]["facts"]["party"]["memory_end"] is not None
    assert 0.0 <= res["relationships"]["end"]["density"] <= 1.0


@pytest.mark.slow
def test_real_run_with_interviews(real_run, tmp_path):
    """The interview path on the embedded model, two residents of a real run's save (about 30 s)."""
    folder = real_run[0]
    from agents.model.gateway import Gateway, load_config
    from agents.recall.embeddings import make_embedder

    tg = load_target(folder)
    keep = tg.residents[:2]
    tg.residents = keep
    tg.parts = {k: v for k, v in tg.parts.items() if not k.startswith("minds/") or k[6:] in keep}
    personas, scenario = _personas()
    config = load_config({})
    res = ev.evaluate(tg, personas, scenario, gateway=Gateway(config), embedder=make_embedder(config))
    iv = res["interviews"]
    for phase in ("start", "end"):
        for fact in ("party", "candidacy"):
            answers = iv[phase][fact]["answers"]
            assert set(answers) == set(keep) and all(a["answer"] for a in answers.values())
            assert all(a["label"] in ("yes", "no", "unclear", "wrong") for a in answers.values())
    files = ev.write_outputs(res, tg, tmp_path)
    assert "interview (rule judge)" in files["md"].read_text()
