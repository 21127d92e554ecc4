"""The model paths players actually take, end to end through litellm, against
loopback stand-ins (tests/model_servers.py): Ollama (``ollama_chat/`` and
``ollama/``, a JSON-schema ``format``) and an OpenAI-compatible server that
ignores ``response_format`` and answers in prose around fenced or bare JSON
(and one that turns every structured-output form down with a 400). A short
headless sim runs on each; the accounting and the status are checked, a model
that is not pulled / not served gets a message that says what to do, and each
stand-in's requests and answers are checked against the published shapes (the
OpenAI SDK's and the Ollama client's types)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import HashEmbedder
from model_servers import OllamaServer, ProseServer

from agents.model.dialects import Dialects
from agents.model.gateway import Gateway, load_config

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
PAIR = ["Isabella Rodriguez", "Maria Lopez"]

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")


def gateway(model: str, base: str, memory: Path | None = None) -> Gateway:
    return Gateway(load_config({"model": model, "api_base": base, "timeout": 20, "retries": 1, "deadline": 40,
                                "concurrency": 2}, env={}, toml_path=None), dialects=Dialects(memory))


def short_sim(gw: Gateway, out: Path):
    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.world.map_reader import load_town

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
        gw = gateway("openai/local-model", server.base, tmp_path / "dialects.json")
        result = short_sim(gw, tmp_path / "run")
        check_run(result, gw, tmp_path / "run")  # the negotiation cost no resident a call
        asked = server.calls("/v1/chat/completions")
        # It never enforced a form: each was tried once (prose came back), then the schema went in the prompt.
        forms = [form(b) for b in asked]
        assert set(forms) == {"json_schema", "json_object_schema", "guided_json", "prompt"}
        assert all(forms.count(f) <= 2 for f in ("json_schema", "json_object_schema", "guided_json"))  # 2 in flight
        assert forms[-4:] == ["prompt"] * 4
        assert gw.server_report()["dialects"] == {f"127.0.0.1:{server.port}": "prompt"}
        assert any(": no structured output (forms ignored)" in p for p in gw.server_problems())
        # The next game remembers: the schema in the prompt from the first call on.
        again = gateway("openai/local-model", server.base, tmp_path / "dialects.json")
        server.requests.clear()
        _ask(again)
        assert {form(b) for b in server.calls("/v1/chat/completions")} == {"prompt"}


def form(body: dict) -> str:
    rf = body.get("response_format") or {}
    if rf.get("type") == "json_object":
        return "json_object_schema" if "schema" in rf else "json_object"
    if rf:
        return rf["type"]
    if "guided_json" in body:
        return "guided_json"
    return "prompt" if "follows this JSON schema" in json.dumps(body["messages"]) else "none"


def test_a_server_that_turns_every_form_down_gets_prose_mode_answers_and_the_hud_says_so(tmp_path, display, capsys):
    from game.app import Game
    from game.runs.session import Session
    from game.view.hud import BAD
    from game.view.tilemap import TileMapRenderer

    with ProseServer(refuse_forms=True) as server:
        gw = gateway("openai/local-model", server.base, tmp_path / "dialects.json")
        result = short_sim(gw, tmp_path / "run")
        check_run(result, gw, tmp_path / "run")
        statuses = [form(b) for b in server.calls("/v1/chat/completions")]
        assert set(statuses) == {"json_schema", "json_object_schema", "guided_json", "prompt"}
        problem = (f"127.0.0.1:{server.port}: no structured output (forms refused); schema in the prompt only; "
                   "a server with json_schema fixes it")
        assert gw.server_problems() == [problem]
        summary = json.loads((tmp_path / "run" / "summary.json").read_text())
        assert summary["model_servers"]["problems"] == [problem]
        assert f"model server trouble: {problem}\n" in capsys.readouterr().out  # the run's end, one line

        session = Session.create(MAP, gateway=gw, embedder=HashEmbedder(64), agents=1, visitor_name="Alex")
        try:
            game = Game(session.town, TileMapRenderer.from_file(MAP), size=display.get_size())
            game.attach_session(session, extras=False)
            lines = game.panels.hud.compose()
        finally:
            session.close()
    said = " ".join(t for t, c in lines if c == BAD)
    assert f"127.0.0.1:{server.port}: no structured output" in said and "json_schema fixes it" in said
    # The choice, shown once (a toast), beside the lasting line.
    assert [t for t, _ in game.panels.hud.toasts] == [f"127.0.0.1:{server.port}: using the schema in the prompt only "
                                                       "(no structured output)"]
    assert gw.status == "ok"


# -- the stand-ins against the published shapes -------------------------------------------------


def test_the_openai_stand_in_speaks_the_published_shapes(tmp_path):
    from openai.types import Model
    from openai.types.chat import ChatCompletion
    from openai.types.chat.completion_create_params import CompletionCreateParamsBase, ResponseFormat
    from pydantic import TypeAdapter

    with ProseServer(refuse_forms=False) as server:
        gw = gateway("openai/local-model", server.base, tmp_path / "dialects.json")
        _ask(gw)
        _ask(gw)
        status, listing = server.route("GET", "/v1/models", None)
        bodies = server.calls("/v1/chat/completions")
        replies = [server.route("POST", "/v1/chat/completions", b) for b in bodies]
    assert status == 200 and all(Model.model_validate(m) for m in listing["data"])
    known = set(CompletionCreateParamsBase.__annotations__) | {"guided_json"}  # vLLM's extra body field
    formats = TypeAdapter(ResponseFormat)
    for body in bodies:
        assert set(body) <= known, set(body) - known
        if "response_format" in body:
            rf = body["response_format"]
            assert formats.validate_python(rf)["type"] == rf["type"]
    for code, reply in replies:
        assert code == 200 and ChatCompletion.model_validate(reply).choices[0].message.content


def test_the_refusing_stand_in_answers_in_openais_error_shape():
    with ProseServer(refuse_forms=True) as server:
        code, body = server.route("POST", "/v1/chat/completions", {
            "model": "local-model", "messages": [{"role": "user", "content": "hi"}],
            "response_format": {"type": "json_object"}})
        ok, _ = server.route("POST", "/v1/chat/completions", {
            "model": "local-model", "messages": [{"role": "user", "content": "hi"}]})
    assert code == 400 and ok == 200
    assert set(body["error"]) == {"message", "type", "param", "code"} and body["error"]["param"] == "response_format"


def test_the_ollama_stand_in_speaks_the_published_shapes():
    from ollama._types import ChatRequest, ChatResponse, GenerateRequest, GenerateResponse, ListResponse, ShowResponse

    with OllamaServer() as server:
        for model in ("ollama_chat/qwen2.5:7b", "ollama/qwen2.5:7b"):
            _ask(gateway(model, server.base))  # the stand-in reads the schema; the shapes are what counts here
        chats, gens = server.calls("/api/chat"), server.calls("/api/generate")
        assert chats and gens
        for body in chats:
            assert set(body) <= set(ChatRequest.model_fields), set(body) - set(ChatRequest.model_fields)
            assert isinstance(ChatRequest.model_validate(body).format, dict)  # the schema, as Ollama's format
            ChatResponse.model_validate(server.route("POST", "/api/chat", body)[1])
        for body in gens:
            assert set(body) <= set(GenerateRequest.model_fields), set(body) - set(GenerateRequest.model_fields)
            GenerateResponse.model_validate(server.route("POST", "/api/generate", body)[1])
        ListResponse.model_validate(server.route("GET", "/api/tags", None)[1])
        ShowResponse.model_validate(server.route("POST", "/api/show", {"model": "qwen2.5:7b"})[1])


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
