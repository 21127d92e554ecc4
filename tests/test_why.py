"""Why did they do that (issue 27): decision records, `smallville why` and the inspector's "Why?".

A short seeded run of three residents on the Ville with a scripted model: for a
line said, `smallville why` gives the memories retrieval brought up, and their
recency, importance, relevance and total recompute exactly from the end save's
memory stream and embeddings (the query embedded again); the prompt is the one
the model received. The same through the real game loop: the inspector's "why?"
link on a line said, and the "Why?" button on the action line.
"""
from __future__ import annotations

import gzip
import json
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from fakes import HashEmbedder, chatty, make_gateway

from agents import why
from game.support.errors import UserError
from lab.competent import Prompt, dispatch

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")
THREE = 3  # Isabella, Maria, Klaus: Maria and Klaus talk at breakfast in the dorm


# ---------------------------------------------------------------------------- helpers
def talky(purpose, messages, schema):
    """The lab's competent stand-in's plans and actions, and residents who talk whenever they meet."""
    if purpose in ("talk_decision", "utterance"):
        return chatty(purpose, messages, schema)
    text = next(str(m.get("content", "")) for m in reversed(messages) if m.get("role") == "user")
    return dispatch(Prompt(text, schema.model_json_schema(), schema.__name__))


def recompute(record: dict, memory: dict, embedder) -> int:
    """Check every retrieved memory's scores against the saved stream: raw terms
    exactly (recency from the access time the record kept, importance from the saved
    node, relevance from the saved embedding row and the query embedded again), the
    min-max scaled terms and the total exactly from them, the relevance bounds over
    the candidates. Returns how many memories were checked."""
    nodes = memory["nodes"]
    emb = np.asarray(memory["embeddings"], dtype=np.float32)
    checked = 0
    for r in record["retrievals"]:
        v = np.asarray(embedder.embed([r["query"]])[0], dtype=np.float32)
        q = v / float(np.sqrt(v @ v))
        now = datetime.fromisoformat(r["now"])
        cands = [i for i in range(r["stream"]) if (r["kinds"] is None or nodes[i]["kind"] in r["kinds"])
                 and not (nodes[i]["expires"] and datetime.fromisoformat(nodes[i]["expires"]) <= now)]
        assert len(cands) == r["candidates"]
        cos = emb[cands] @ q
        assert float(cos.min()) == pytest.approx(r["bounds"][2][0], abs=1e-6)
        assert float(cos.max()) == pytest.approx(r["bounds"][2][1], abs=1e-6)
        last = None
        for m in r["memories"]:
            node = nodes[m["id"]]
            assert node["description"] == m["text"] and node["kind"] == m["kind"]
            accessed = datetime.fromisoformat(m["accessed"])
            assert datetime.fromisoformat(node["created"]) <= accessed
            assert datetime.fromisoformat(node["last_accessed"]) >= min(now, accessed)  # this retrieval touched it
            # (a decision asked ahead retrieves at its later moment: an access "in the future" is recency 1)
            rec = r["decay"] ** max(0.0, (now - accessed).total_seconds() / 3600.0)
            if node["importance_source"] == m["importance_source"]:  # not re-rated by the model since
                assert float(node["importance"]) == m["importance"]
            rel = float(np.dot(emb[m["id"]].astype(np.float64), q.astype(np.float64)))
            assert (rec, rel) == (m["recency"], m["relevance"])  # exactly
            raw = (rec, m["importance"], rel)
            scaled = [0.5 if hi - lo < 1e-12 else (x - lo) / (hi - lo) for x, (lo, hi) in zip(raw, r["bounds"])]
            assert scaled == m["scaled"]
            assert sum(w * s for w, s in zip(r["weights"], scaled)) == m["total"]
            if last is not None:  # best first (the stream ranks in float32)
                assert m["total"] <= last + 1e-5
            last = m["total"]
            checked += 1
    return checked


def sent_prompts(gateway) -> list[list[dict]]:
    return [msgs for purpose, msgs, _ in gateway.fake.calls]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A seeded 70-minute run of three residents with the scripted model: (folder, gateway, embedder)."""
    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.world.map_reader import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    gateway, embedder = make_gateway(talky), HashEmbedder()
    out = tmp_path_factory.mktemp("why") / "run"
    run_headless(town, cast[:THREE], start=scenario.start, hours=70 / 60, out=out, scenario=scenario,
                 gateway=gateway, embedder=embedder, seed=1, progress=False, echo=None)
    return out, gateway, embedder


def first_model_line(folder: Path) -> dict:
    events = [json.loads(x) for x in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    return next(e for e in events if e["kind"] == "line" and e.get("source") == "model")


# ---------------------------------------------------------------------------- the run folder and the command
def test_smallville_why_recovers_a_line_said_with_scores_that_recompute_from_the_save(run, capsys):
    from game.saves.saved_run import load_target
    from smallville.cli import main

    folder, gateway, embedder = run
    assert (folder / why.FILE).stat().st_size > 0
    line = first_model_line(folder)
    who = line["resident"]
    assert main(["why", str(folder), who, "--at", line["time"], "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["resident"] == who
    act = next(a for a in got["acts"] if a["kind"] == "line" and a["text"] == line["text"])
    rec = act["record"]
    assert rec["purpose"] == "utterance" and rec["resident"] == who
    assert line["text"] in json.dumps(rec["answer"])  # the validated answer is the line said
    assert rec["call"]["messages"] in sent_prompts(gateway)  # the prompt as the model received it
    assert rec["call"]["raw"] and rec["call"]["prompt_tokens"] > 0
    memory = load_target(folder / "saves" / "end.sqlite").states[who]["memory"]
    assert recompute(rec, memory, embedder) >= 3
    # every retrieved memory is in the prompt that was sent
    prompt = rec["call"]["messages"][-1]["content"]
    assert all(m["text"] in prompt for m in act["memories"])

    assert main(["why", str(folder), who, "--at", line["time"]]) == 0  # the same, for people
    text = capsys.readouterr().out
    assert (line["text"] in text and "prompt as sent:" in text and "rec █" in text) or "rec ·" in text
    top = act["memories"][0]
    assert f"total {top['total']:.3f}" in text and top["text"] in text


def test_every_record_of_the_run_recomputes_and_names_its_model_call(run):
    from game.saves.saved_run import load_target

    folder, _gateway, embedder = run
    records = list(why.read_records(folder / why.FILE))
    calls = [json.loads(x) for x in (folder / "llm_calls.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len([r for r in records if r["call"]]) == len(calls)  # one record per model call
    assert {r["purpose"] for r in records} >= {"utterance", "decompose", "day_plan", "importance"}
    states = load_target(folder).states
    checked = sum(recompute(r, states[r["resident"]]["memory"], embedder) for r in records
                  if r["purpose"] in ("utterance", "relationship", "summary"))
    assert checked > 10


def test_the_action_and_a_plan_item_find_their_records(run):
    folder, _, _ = run
    records = list(why.read_records(folder / why.FILE))
    events = [json.loads(x) for x in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    action = next(e for e in events if e["kind"] == "action" and e.get("source") == "model")
    t = datetime.fromisoformat(action["time"])
    rec = why.find(records, action["resident"], "action", t, action["text"])
    assert rec is not None and rec["purpose"] in why.ACT_PURPOSES["action"]
    assert action["text"].lower()[:30] in json.dumps(rec["answer"]).lower()
    plan = next(r for r in records if r["purpose"] == "day_plan" and r["answer"])
    item = json.dumps(plan["answer"])
    first = next(iter(plan["answer"].values()))[0]
    words = first.get("description") or first.get("activity") or ""
    assert words and words in item
    assert why.find(records, plan["resident"], "plan", datetime.fromisoformat(plan["time"]), words) is plan or \
        why.find(records, plan["resident"], "plan", datetime.fromisoformat(plan["time"]), words)["n"] >= plan["n"]
    # a rule's action (no answer holds its words) has no record
    assert why.find(records, action["resident"], "action", t, "juggling flaming torches on the roof") is None


def test_spread_lists_who_told_whom(run, capsys):
    from smallville.cli import main

    folder, _, _ = run
    line = first_model_line(folder)
    word = line["text"].split()[0].strip(",.!?")
    assert main(["why", str(folder), "--spread", word, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    first = got["first_heard"]
    assert first[0]["resident"] == line["resident"] and first[0]["from"] is None
    assert any(h["resident"] == line["partner"] and h["from"] == line["resident"] for h in first)
    assert got["lines"][0]["time"] == line["time"] and got["conversations"] >= 1
    assert main(["why", str(folder), "--spread", "zeppelin"]) == 0
    assert "No line said in this run matches" in capsys.readouterr().out


# ---------------------------------------------------------------------------- bad input
def test_bad_input_is_said_plainly(run, tmp_path, capsys):
    from smallville.cli import main

    folder, _, _ = run
    assert main(["why", str(folder), "Nobody Here"]) == 2
    assert "nobody called 'Nobody Here'" in capsys.readouterr().err
    assert main(["why", str(folder), "Maria", "--at", "teatime"]) == 2
    assert "--at 'teatime'" in capsys.readouterr().err
    assert main(["why", str(folder), "--spread", "(unclosed"]) == 2
    assert "not a valid pattern" in capsys.readouterr().err
    assert main(["why", str(folder)]) == 2
    assert "name a resident" in capsys.readouterr().err
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "events.jsonl").write_text((folder / "events.jsonl").read_text())
    assert main(["why", str(bare), "Maria"]) == 2
    assert "has no decision records" in capsys.readouterr().err
    assert main(["why", str(tmp_path / "missing"), "Maria"]) == 2
    assert "no such run folder" in capsys.readouterr().err


def test_a_file_cut_short_gives_what_was_written(tmp_path):
    wlog = why.WhyLog(tmp_path / why.FILE, append=False)
    for i in range(40):
        wlog.write({"resident": "A", "time": f"2023-02-13T08:{i:02d}:00", "purpose": "utterance", "retrievals": []})
    wlog.flush()
    data = (tmp_path / why.FILE).read_bytes()  # flushed, never closed: a killed run
    wlog.close()
    (tmp_path / "cut.gz").write_bytes(data[: len(data) - 5])
    got = list(why.read_records(tmp_path / "cut.gz"))
    assert 30 <= len(got) <= 40 and got[0]["n"] == 1
    (tmp_path / "junk.gz").write_bytes(gzip.compress(b'{"n": 1}\nnot json\n{"n": 2}\n'))
    assert [d["n"] for d in why.read_records(tmp_path / "junk.gz")] == [1, 2]
    (tmp_path / "plain.gz").write_text("not gzip at all")
    assert list(why.read_records(tmp_path / "plain.gz")) == []
    with pytest.raises(ValueError, match="why must be one of"):
        why.WhyLog(mode="everything")
    (tmp_path / "a file").write_text("")
    stuck = why.WhyLog(tmp_path / "a file" / why.FILE)  # cannot be written: kept in memory, said in the log
    stuck.write({"resident": "A", "time": "2023-02-13T08:00:00", "purpose": "utterance", "retrievals": []})
    assert stuck.error and len(stuck.recent("A")) == 1 and stuck.bytes_written == 0
    stuck.close()


def test_hashes_keep_no_text_but_the_ids_and_scores(tmp_path):
    from agents.model.config import ModelConfig
    from agents.support.errors import ConfigError

    assert ModelConfig(why="Hashes").why == "hashes"
    with pytest.raises(ConfigError, match="why must be full, hashes or off"):
        ModelConfig(why="some")
    secret = "Isabella's secret recipe"
    rec = {"resident": "A", "time": "2023-02-13T08:00:00", "purpose": "utterance", "answer": {"utterance": "Hi!"},
           "fallback": None, "retrievals": [{"query": secret, "bounds": [[0, 1]] * 3, "memories": [
               {"id": 3, "text": secret, "kind": "thought", "total": 2.0, "scaled": [1, 0.5, 0.5]}]}],
           "call": {"messages": [{"role": "user", "content": secret}], "raw": [secret], "model": "m",
                    "prompt_tokens": 5, "completion_tokens": 2, "latency_s": 0.1, "cached": False, "attempts": 1,
                    "outcome": "ok", "error": None}}
    wlog = why.WhyLog(tmp_path / why.FILE, mode="hashes")
    wlog.write(rec)
    wlog.close()
    raw = gzip.decompress((tmp_path / why.FILE).read_bytes()).decode()
    assert "secret" not in raw
    (got,) = why.read_records(tmp_path / why.FILE)
    assert got["retrievals"][0]["memories"][0]["id"] == 3 and got["retrievals"][0]["memories"][0]["total"] == 2.0
    assert got["call"]["prompt_sha256"] == why.sha(json.dumps(rec["call"]["messages"], ensure_ascii=False,
                                                              sort_keys=True))
    assert got["call"]["raw_sha256"] == [why.sha(secret)]
    assert got["answer"] == {"utterance": "Hi!"}  # the act itself: the event log has it in the clear anyway


def test_no_log_no_records_and_retrieval_unchanged():
    """Without a log a gateway records nothing; with one, retrieval returns what it did before."""
    from agents.recall.memory import MemoryStream

    emb = HashEmbedder(32)
    s = MemoryStream("hash-test", 32)
    t = datetime(2023, 2, 13, 8)
    for i, text in enumerate(["coffee at the cafe", "a party at the cafe", "reading in the library"]):
        s.add("observation", text, t, 3 + i, emb.embed([text])[0])
    before = [n.id for n in s.retrieve(emb.embed(["cafe party"])[0], t, touch=False)]
    assert why.begin(object(), "A", t, "utterance", "utterance") is None  # no log: nothing kept (and none waits)
    wlog = why.WhyLog()
    try:
        got = [n.id for n in s.retrieve(emb.embed(["cafe party"])[0], t, touch=False, query_text="cafe party")]
        assert got == before
        d = why.begin(type("G", (), {"why_log": wlog})(), "A", t, "utterance", "utterance")
        assert d is not None and d["retrievals"][0]["query"] == "cafe party"
        why.end(d, (None, "invalid"))
        (kept,) = wlog.recent("A")
        assert kept["fallback"] == "invalid" and kept["answer"] is None
    finally:
        wlog.close()


def test_why_requires_a_known_kind():
    with pytest.raises(ValueError, match="unknown kind of act"):
        why.find([], "A", "dance", datetime(2023, 2, 13))
    with pytest.raises(UserError):
        from game.runs.why_records import resident_named
        resident_named("Zed", ["Maria Lopez"])


def test_reactions_reflections_and_ratings_are_acts_at_their_time(run):
    from game.runs.why_records import explain, load_records

    folder, _, _ = run
    records = load_records([folder / why.FILE])
    events = [json.loads(x) for x in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    rated = next(r for r in records if r["purpose"] == "importance" and r["answer"])
    got = explain(records, events, rated["resident"], datetime.fromisoformat(rated["time"]))
    act = next(a for a in got["acts"] if a["kind"] == "importance" and a["record"]["n"] == rated["n"])
    assert json.loads(act["text"]) == rated["answer"] and act["source"] == "model"
    assert [a["time"] for a in got["acts"]] == sorted(a["time"] for a in got["acts"])
