"""The stand-in model server (lab/standin_server.py): the competent stand-in's
answers over an OpenAI-compatible HTTP API, reached by the game's real road (the
gateway, litellm's openai/ provider, the Router), with N calls at once, each
taking the set latency, the rest queued."""
from __future__ import annotations

import json
import threading
import time
import urllib.request
from typing import Annotated

from pydantic import BaseModel, Field

from agents import Gateway, ModelConfig, load_config
from agents.model.router import Deployment
from lab.competent import MODEL
from lab.standin_server import Slots, StandinServer, main, schema_of


class Ratings(BaseModel):
    ratings: Annotated[list[int], Field(min_length=2, max_length=2)]


PROMPT = ("On the scale of 1 to 10, where 1 is purely mundane (e.g., brushing teeth, making bed) and 10 is "
          "extremely poignant (e.g., a break up, college acceptance), rate the likely poignancy of each of "
          "the following memories.\n1. Isabella is brushing her teeth\n2. Maria got accepted into college\n")


def post(base: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(f"{base}/chat/completions", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_the_gateway_gets_a_competent_answer_over_http(tmp_path, monkeypatch):
    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path))
    with StandinServer(latency=0.05, slots=2) as server:
        config = load_config({"model": server.model, "api_base": server.base, "cache": "off", "retries": 0},
                             env={}, toml_path=None)
        gw = Gateway(config)
        got = gw.ask(Ratings, PROMPT, purpose="importance", fallback=Ratings(ratings=[0, 0]))
        assert got.ratings != [0, 0]  # the stand-in's answer, not the fallback
        assert got.ratings[1] > got.ratings[0]  # college beats brushing teeth, as a model would say
        assert server.stats()["calls"] == 1
        assert gw.accounting.summary()["total"]["calls"] == 1
        # the same answer the in-process stand-in gives: the prompt and schema are all it reads
        status, body = post(server.base, {
            "model": MODEL, "messages": [{"role": "user", "content": PROMPT}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "Ratings",
                                                                        "schema": Ratings.model_json_schema()}}})
        assert status == 200 and json.loads(body["choices"][0]["message"]["content"]) == got.model_dump()
        assert body["usage"]["total_tokens"] > 0


def test_through_the_router_too(tmp_path, monkeypatch):
    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path))
    with StandinServer(latency=0.05, slots=2) as a, StandinServer(latency=0.05, slots=2) as b:
        deployments = tuple(Deployment(model=s.model, api_base=s.base, concurrency=2) for s in (a, b))
        gw = Gateway(ModelConfig(model=a.model, deployments=deployments, cache=None, retries=0))
        answers = [gw.ask(Ratings, PROMPT + f"(Call {i}.)", purpose="importance",
                          fallback=Ratings(ratings=[0, 0])) for i in range(4)]
        assert all(x.ratings != [0, 0] for x in answers)
        assert a.stats()["calls"] + b.stats()["calls"] == 4


def test_slots_bound_the_calls_at_once_and_each_takes_the_latency():
    latency, slots, calls = 0.5, 3, 9
    with StandinServer(latency=latency, slots=slots) as server:
        body = {"model": MODEL, "messages": [{"role": "user", "content": PROMPT}],
                "response_format": {"type": "json_schema",
                                    "json_schema": {"name": "Ratings", "schema": Ratings.model_json_schema()}}}
        took: list[float] = []
        lock = threading.Lock()
        together = threading.Barrier(calls)  # all nine ask at once, however slow the machine

        def one() -> None:
            together.wait()
            t = time.monotonic()
            status, _ = post(server.base, body)
            assert status == 200
            with lock:
                took.append(time.monotonic() - t)

        t0 = time.monotonic()
        threads = [threading.Thread(target=one) for _ in range(calls)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - t0
        stats = server.stats()
    assert stats["calls"] == calls and stats["peak_in_flight"] == slots  # never more than the slots at once
    assert min(took) >= latency  # every call held its slot the latency
    # 9 calls on 3 slots: at least three rounds of the latency (that they overlap is the peak
    # above; no upper bound on the wall time: a shared machine may be slow)
    assert wall >= 3 * latency
    assert stats["busy_slot_s"] >= calls * latency * 0.99
    # calls queued behind full slots; how long depends on how spread their asking was (a slow
    # machine spreads it), so the bound is the callers' own view: each call's time holds its
    # wait and its latency
    assert stats["queue_wait_s"] > 0
    assert stats["queue_wait_s"] + calls * latency <= sum(took) + 0.01


def test_a_full_queue_is_served_in_arrival_order():
    slots = Slots(1)
    slots.acquire()
    order: list[int] = []

    def wait(i: int) -> None:
        slots.acquire()
        order.append(i)
        slots.release()

    threads = []
    for i in range(5):
        t = threading.Thread(target=wait, args=(i,))
        t.start()
        threads.append(t)
        while slots.queued < i + 1:
            time.sleep(0.001)
    slots.release()
    for t in threads:
        t.join()
    assert order == [0, 1, 2, 3, 4] and slots.busy == 0 and slots.peak == 1


def test_every_dialect_carries_the_schema():
    js = {"type": "object", "properties": {"ratings": {"type": "array"}}}
    msgs = [{"role": "user", "content": "rate"}]
    assert schema_of({"messages": msgs, "response_format": {"type": "json_schema",
                                                            "json_schema": {"name": "R", "schema": js}}}) == (js, "R")
    assert schema_of({"messages": msgs, "response_format": {"type": "json_object", "schema": js}}) == (js, "")
    assert schema_of({"messages": msgs, "guided_json": js}) == (js, "")
    hinted = [{"role": "user", "content": "rate\n\nAnswer with a JSON object that follows this JSON schema:\n"
                                          + json.dumps(js)}]
    assert schema_of({"messages": hinted}) == (js, "")
    assert schema_of({"messages": msgs}) == (None, "")


def test_an_unknown_model_and_a_bad_body_are_refused_as_servers_do():
    with StandinServer(latency=0.0, slots=1) as server:
        status, body = post(server.base, {"model": "gpt-9", "messages": []})
        assert status == 404 and body["error"]["code"] == "model_not_found"
        status, body = post(server.base, {"model": MODEL, "messages": [], "stream": True})
        assert status == 400
        with urllib.request.urlopen(f"{server.base}/models", timeout=5) as resp:
            assert [m["id"] for m in json.loads(resp.read())["data"]] == [MODEL]


def test_the_command_line_says_where_it_listens(monkeypatch, capsys):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # stdin closed at once: it stops
    assert main(["--latency", "0", "--slots", "2", "--watch-stdin"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("standin http://127.0.0.1:") and "openai/competent" in line
