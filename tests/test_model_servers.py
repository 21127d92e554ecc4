"""The model paths players actually take, end to end through litellm, against
loopback stand-ins (tests/model_servers.py): Ollama (``ollama_chat/`` and
``ollama/``, a JSON-schema ``format``) and an OpenAI-compatible server that
ignores ``response_format`` and answers in prose around fenced or bare JSON.
A short headless sim runs on each; the accounting and the status are checked,
and a model that is not pulled / not served gets a message that says what to do."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import HashEmbedder
from model_servers import OllamaServer, ProseServer

from agents.llm import Gateway, load_config

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
PAIR = ["Isabella Rodriguez", "Maria Lopez"]

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")


def gateway(model: str, base: str) -> Gateway:
    return Gateway(load_config({"model": model, "api_base": base, "timeout": 20, "retries": 1, "deadline": 40,
                                "concurrency": 2}, env={}, toml_path=None))


def short_sim(gw: Gateway, out: Path):
    from agents.persona import load_cast
    from game.headless import run_headless
    from game.town import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    people = [p for p in cast if p.name in PAIR]
    return run_headless(town, people, start=scenario.start, hours=0.5, out=out, scenario=scenario, gateway=gw,
                        embedder=HashEmbedder(), seed=0, progress=False)


def check_run(result, gw: Gateway, out: Path) -> dict:
    assert not result.interrupted
    summary = json.loads((out / "summary.json").read_text())
    tot = summary["totals"]
    calls = [json.loads(x) for x in (out / "llm_calls.jsonl").read_text().splitlines()]
    assert tot["calls"] == len(calls) > 0
    # The stand-in is deterministic and answers every prompt sensibly: every call is the model's.
    assert tot.get("fallback", 0) == 0, [(c["purpose"], c.get("outcome"), c.get("error")) for c in calls]
    assert tot["tokens"] > 0  # the server's usage counts reached the accounting
    assert gw.status == "ok"
    assert {e["resident"] for e in result.sim.events if e["kind"] == "action"} == set(PAIR)
    return tot


@pytest.mark.parametrize("model, endpoint", [("ollama_chat/qwen2.5:7b", "/api/chat"),
                                             ("ollama/qwen2.5:7b", "/api/generate")])
def test_a_short_sim_on_ollama(tmp_path, model, endpoint):
    with OllamaServer() as server:
        gw = gateway(model, server.base)
        result = short_sim(gw, tmp_path / "run")
        check_run(result, gw, tmp_path / "run")
        asked = server.calls(endpoint)
    assert asked and all(b["model"] == "qwen2.5:7b" for b in asked)
    # The schema went as Ollama's structured-output `format`, not only in the prompt.
    assert all(isinstance(b.get("format"), dict) and "properties" in b["format"] for b in asked)
    assert gw.accounting.summary()["total"].get("cost_usd", 0) == 0  # a local model costs nothing


@pytest.mark.parametrize("style", ["fenced", "inline"])
def test_a_short_sim_on_a_server_that_answers_in_prose(tmp_path, style):
    with ProseServer(style=style) as server:
        gw = gateway("openai/local-model", server.base)
        result = short_sim(gw, tmp_path / "run")
        check_run(result, gw, tmp_path / "run")
        asked = server.calls("/v1/chat/completions")
    assert asked
    # It never saw a schema it could enforce: the schema is in the prompt, the JSON is dug out of prose.
    assert all("follows this JSON schema" in json.dumps(b["messages"]) for b in asked)


def _ask(gw: Gateway):
    from pydantic import BaseModel

    class Rating(BaseModel):
        rating: int

    return gw.ask_traced(Rating, "Rate 'ate breakfast' from 1 to 10.", purpose="importance",
                         fallback=Rating(rating=4))


def test_an_ollama_model_that_is_not_pulled_says_to_pull_it():
    with OllamaServer(models=("qwen2.5:7b",)) as server:
        gw = gateway("ollama_chat/llama3.1:8b", server.base)
        value, why = _ask(gw)
    assert value.rating == 4 and why == "not_found"  # the rules' fallback
    assert gw.status.startswith("model unreachable: ")
    assert 'Ollama has no model "llama3.1:8b"; run: ollama pull llama3.1:8b' in gw.status
    rec = gw.accounting.records()[-1]
    assert rec.outcome == "fallback" and rec.error == "not_found" and rec.attempts == 1  # not retried


def test_a_model_the_server_does_not_serve_is_named():
    with ProseServer(models=("local-model",)) as server:
        gw = gateway("openai/other-model", server.base)
        value, why = _ask(gw)
        assert f'the server at {server.base} does not serve "other-model"' in gw.status
    assert why == "not_found" and value.rating == 4
