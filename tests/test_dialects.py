"""Structured output negotiated per server (agents/model/dialects.py), step by step, with
a completion function standing in for the server: what each dialect sends, when
it steps down (a refusal naming the field, an answer that is not JSON, answers
that keep failing the schema), what is remembered and for how long, and what
the HUD and the run summary say when a server takes no structured output."""
from __future__ import annotations

import json
import threading
import time

import pytest
from pydantic import BaseModel, Field

from agents.model import dialects as dl
from agents.model.config import load_config
from agents.model.dialects import Dialects
from agents.model.gateway import Gateway


class Rating(BaseModel):
    rating: int = Field(ge=1, le=10)


FALLBACK = Rating(rating=4)
BASE = "http://127.0.0.1:9/v1"


def gateway(server, tmp_path, model="openai/local-model", base=BASE, **cfg):
    config = load_config({"model": model, "api_base": base}, env={}, toml_path=None)
    return Gateway(config.with_(cache=None, retries=0, **cfg), completion=server,
                   dialects=Dialects(tmp_path / "dialects.json"))


def ask(gw, text="Rate 'ate breakfast' from 1 to 10."):
    return gw.ask_traced(Rating, text, purpose="importance", fallback=FALLBACK)


def reply(text):
    return {"choices": [{"message": {"content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3}}


def form(kw) -> str:
    """Which dialect a request was in, read from the request itself."""
    rf = kw.get("response_format")
    if rf is not None:
        return "json_object_schema" if rf.get("type") == "json_object" and "schema" in rf else rf["type"]
    if "guided_json" in (kw.get("extra_body") or {}):
        return "guided_json"
    return "prompt" if "follows this JSON schema" in kw["messages"][-1]["content"] else "none"


class Server:
    """Takes the dialects in ``takes`` (and enforces them), turns the ones in ``refuses``
    down with ``error``, ignores the rest (answers prose), and counts what it saw."""

    def __init__(self, takes=(), refuses=(), error=None, answer='{"rating": 7}'):
        self.takes, self.refuses, self.error, self.answer = set(takes), set(refuses), error, answer
        self.seen: list[str] = []
        self.kwargs: list[dict] = []
        self.lock = threading.Lock()

    def __call__(self, **kw):
        f = form(kw)
        with self.lock:
            self.seen.append(f)
            self.kwargs.append(kw)
        if f in self.refuses:
            raise self.error(f)
        if f in self.takes:
            return reply(self.answer)
        return reply("Sure! I would rate it about seven out of ten, as breakfast matters.")


def bad_request(f):
    import litellm

    return litellm.BadRequestError(message=f"Unrecognized request argument supplied: {f} (response_format)",
                                   model="m", llm_provider="openai")


def llama_cpp_500(f):
    """What llama-cpp-python's server answers to json_schema: HTTP 500 with a validation error."""
    import litellm

    return litellm.InternalServerError(
        message="OpenAIException - 1 validation error: {'type': 'literal_error', 'loc': ('body', "
                "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}",
        model="m", llm_provider="openai")


def test_each_dialect_sends_the_schema_in_its_own_form(tmp_path):
    ep = Dialects(None).endpoint("openai/m", BASE)
    js = {"type": "object", "properties": {"rating": {"type": "integer"}}}
    msgs = [{"role": "user", "content": "rate it"}]
    assert ep.request("json_schema", msgs, js, "Rating")["response_format"] == {
        "type": "json_schema", "json_schema": {"name": "Rating", "schema": js, "strict": False}}
    assert ep.request("json_object_schema", msgs, js, "Rating")["response_format"] == {"type": "json_object",
                                                                                      "schema": js}
    guided = ep.request("guided_json", msgs, js, "Rating")
    assert guided["extra_body"] == {"guided_json": js} and "response_format" not in guided
    prompt = ep.request("prompt", msgs, js, "Rating")
    assert "response_format" not in prompt and "extra_body" not in prompt
    assert prompt["messages"][-1]["content"].endswith(json.dumps(js, separators=(",", ":")))
    assert msgs[-1]["content"] == "rate it"  # the caller's messages are not touched


@pytest.mark.parametrize("error", [bad_request, llama_cpp_500])
def test_a_refused_form_steps_down_to_the_next_without_a_failure(tmp_path, error):
    server = Server(takes={"json_object_schema"}, refuses={"json_schema"}, error=error)
    gw = gateway(server, tmp_path)
    value, why = ask(gw)
    assert why is None and value.rating == 7
    assert server.seen == ["json_schema", "json_object_schema"]  # the 500 was not retried as a server fault
    assert gw.healthy and gw.server_problems() == []
    ask(gw)
    assert server.seen[-1] == "json_object_schema"  # it stays


def test_a_server_deaf_to_every_form_ends_in_the_prompt_within_one_ask(tmp_path):
    server = Server(takes={"prompt"})
    gw = gateway(server, tmp_path)
    value, why = ask(gw)
    assert why is None and value.rating == 7  # no call lost to the negotiation
    assert server.seen == ["json_schema", "json_object_schema", "guided_json", "prompt"]
    ep = gw.dialects.endpoints()[0]
    assert [(d, why) for d, why in ep.stepped] == [("json_schema", "ignored"), ("json_object_schema", "ignored"),
                                                   ("guided_json", "ignored")]
    # It answers, but without structured output: the HUD and the summary say so, naming the server and the fix.
    problem = "127.0.0.1:9: no structured output (forms ignored)"
    assert gw.server_problems()[0].startswith(problem) and "json_schema fixes it" in gw.server_problems()[0]
    assert any(text.startswith(problem) and not ok for text, ok in gw.deployment_lines())
    assert gw.status == "ok"


def test_every_schema_form_turned_down_still_gets_prose_mode_answers_and_says_so(tmp_path):
    server = Server(takes={"prompt"}, refuses={"json_schema", "json_object_schema", "guided_json"},
                    error=bad_request)
    gw = gateway(server, tmp_path)
    for _ in range(3):
        value, why = ask(gw)
        assert why is None and value.rating == 7
    assert server.seen == ["json_schema", "json_object_schema", "guided_json", "prompt", "prompt", "prompt"]
    assert gw.server_problems() == ["127.0.0.1:9: no structured output (forms refused); schema in the prompt only; "
                                    "a server with json_schema fixes it"]
    assert gw.server_report()["dialects"] == {"127.0.0.1:9": "prompt"}


def test_answers_that_parse_but_keep_failing_the_schema_step_down_after_two_calls(tmp_path):
    class Loose(Server):  # takes json_object with a schema as plain JSON mode: any object
        def __call__(self, **kw):
            f = form(kw)
            self.seen.append(f)
            return reply('{"rating": 7}' if f == "json_object_schema" else '{"score": "high"}')

    server = Loose()
    gw = gateway(server, tmp_path)
    assert ask(gw)[1] == "invalid"  # an answer and its retry, both off the schema
    assert ask(gw)[1] == "invalid"  # the second such call: now the next form
    assert ask(gw)[1] is None
    assert server.seen == ["json_schema"] * 4 + ["json_object_schema"]
    assert gw.dialects.endpoints()[0].stepped[0][0] == "json_schema"


def test_a_settled_form_is_kept_through_bad_answers_and_cut_offs(tmp_path):
    answers = iter(['{"rating": 7}'] + ['{"rating": 70}', '{"rating": 3, "why": "a very long'] * 3)
    seen = []

    def server(**kw):
        seen.append(form(kw))
        return reply(next(answers))

    gw = gateway(server, tmp_path)
    assert ask(gw)[0].rating == 7  # settled on json_schema
    for _ in range(3):
        assert ask(gw)[1] == "invalid"
    assert set(seen) == {"json_schema"} and gw.dialects.endpoints()[0].stepped == []


def test_answers_that_never_fit_are_named_with_the_fix(tmp_path):
    server = Server(takes={"prompt"}, refuses={"json_schema", "json_object_schema", "guided_json"},
                    error=bad_request, answer='{"rating": 99}')
    gw = gateway(server, tmp_path)
    for _ in range(dl.NEVER_FIT):
        assert ask(gw)[1] == "invalid"
    problems = gw.server_problems()
    assert problems and problems[0].startswith(f"127.0.0.1:9: {dl.NEVER_FIT} calls in a row with no answer that fits")
    assert "try a larger model" in problems[0]


def test_the_choice_is_remembered_per_endpoint_and_model_and_announced_once(tmp_path):
    server = Server(takes={"json_object_schema"}, refuses={"json_schema"}, error=llama_cpp_500)
    gw = gateway(server, tmp_path)
    ask(gw)
    ask(gw)
    assert gw.dialects.announcements == ["127.0.0.1:9: using json_object with schema"]
    saved = json.loads((tmp_path / "dialects.json").read_text())
    assert saved["openai/local-model @ " + BASE]["dialect"] == "json_object_schema"

    again = Server(takes={"json_object_schema"}, refuses={"json_schema"}, error=llama_cpp_500)
    ask(gateway(again, tmp_path))
    assert again.seen == ["json_object_schema"]  # straight to what worked
    other = Server(takes={"json_object_schema"}, refuses={"json_schema"}, error=llama_cpp_500)
    ask(gateway(other, tmp_path, model="openai/another-model"))
    assert other.seen[0] == "json_schema"  # another model on the same server negotiates for itself


def test_an_old_or_damaged_memory_negotiates_afresh(tmp_path, caplog):
    path = tmp_path / "dialects.json"
    key = "openai/local-model @ " + BASE
    path.write_text(json.dumps({key: {"dialect": "prompt", "at": time.time() - (dl.REMEMBER_DAYS + 1) * 86400}}))
    assert Dialects(path).endpoint("openai/local-model", BASE).dialect == "json_schema"  # the server may be new
    path.write_text(json.dumps({key: {"dialect": "telepathy", "at": time.time()}}))
    assert Dialects(path).endpoint("openai/local-model", BASE).dialect == "json_schema"
    path.write_text("{not json")
    assert Dialects(path).endpoint("openai/local-model", BASE).dialect == "json_schema"
    assert "unreadable" in caplog.text and str(path) in caplog.text
    server = Server(takes={"json_schema"})
    ask(gateway(server, tmp_path))
    assert json.loads(path.read_text())[key]["dialect"] == "json_schema"  # the damaged file is replaced


def test_a_read_only_memory_costs_nothing_but_the_memory(tmp_path, caplog):
    blocked = tmp_path / "file"
    blocked.write_text("")
    gw = Gateway(load_config({"model": "openai/m", "api_base": BASE}, env={}, toml_path=None).with_(cache=None),
                 completion=Server(takes={"json_schema"}), dialects=Dialects(blocked / "dialects.json"))
    assert ask(gw)[1] is None
    assert "cannot remember the structured-output dialect" in caplog.text


@pytest.mark.parametrize("model, base", [("ollama_chat/qwen2.5:7b", "http://127.0.0.1:9"),
                                         ("scripted/default", None)])
def test_ollama_and_in_process_models_take_the_schema_as_they_are(tmp_path, model, base):
    server = Server()  # answers prose to everything: nothing to negotiate, nothing to step down to
    gw = gateway(server, tmp_path, model=model, base=base)
    ask(gw)
    assert set(server.seen) == {"json_schema"} and gw.dialects.endpoints()[0].fixed
    assert gw.server_problems() == [] and not (tmp_path / "dialects.json").exists()


def test_calls_refused_at_once_step_down_one_form_not_two(tmp_path):
    """Calls in flight together, all refused in json_schema: the endpoint moves one
    step, and each call asks again in the form now current."""
    gate = threading.Barrier(4, timeout=10)
    server = Server(takes={"json_object_schema"}, refuses={"json_schema"}, error=bad_request)

    def slow(**kw):
        if form(kw) == "json_schema":
            gate.wait()
        return server(**kw)

    gw = gateway(slow, tmp_path)
    out = []
    threads = [threading.Thread(target=lambda: out.append(ask(gw))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert [why for _, why in out] == [None] * 4
    assert server.seen.count("guided_json") == 0 and gw.dialects.endpoints()[0].dialect == "json_object_schema"


def test_the_memory_never_holds_credentials(tmp_path):
    base = "https://user:s3cret@gpu.example:8443/v1?key=sk-abc#frag"
    ask(gateway(Server(takes={"json_schema"}), tmp_path, base=base))
    text = (tmp_path / "dialects.json").read_text()
    assert "s3cret" not in text and "sk-abc" not in text and "user" not in text
    assert "openai/local-model @ https://gpu.example:8443/v1" in json.loads(text)
    assert dl.memory_key("m", None) == "m @ -"


def test_a_server_that_turns_every_call_down_is_named_with_the_fix(tmp_path):
    import litellm

    def server(**kw):
        raise litellm.BadRequestError(message="max_tokens must be at most 64", model="m", llm_provider="openai")

    gw = gateway(server, tmp_path)
    assert ask(gw) == (FALLBACK, "bad_request")
    assert "127.0.0.1:9 turns the calls down (" in gw.status and "check --model and the server's own log" in gw.status
    assert gw.server_problems() == [gw.status]
