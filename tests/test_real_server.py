"""The game against the real llama-cpp-python server (``python -m llama_cpp.server``,
tests/llama_server.py) serving the embedded model's weights on loopback, the
way a player runs ``smallville sim --model openai/smollm2 --api-base ...``:

- the structured-output negotiation meets the real thing: ``json_schema`` is
  turned down (HTTP 500 naming response_format), ``json_object`` with the schema
  is taken, remembered and announced once;
- a 2-resident, 1-hour headless run with no flag but the model and the server
  gets at least 90 % of its calls answered by the model;
- the same through the Router over two servers, one killed mid-run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import HashEmbedder
from llama_server import ALIAS, LlamaServer
from pydantic import BaseModel

from agents.model.config import load_config
from agents.model.dialects import Dialects
from agents.model.gateway import Gateway

REPO = Path(__file__).resolve().parents[1]
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
PAIR = ["Isabella Rodriguez", "Maria Lopez"]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(420)]


def _server_extras() -> None:
    try:
        import llama_cpp.server.app  # noqa: F401
    except ImportError as err:  # installed by the dev extras (pyproject.toml): a broken install, not a skip
        pytest.fail(f"llama-cpp-python's server extras are missing ({err}); `make test` installs .[dev]")


@pytest.fixture(scope="module")
def server():
    _server_extras()
    with LlamaServer(threads=2) as s:
        yield s


class Morning(BaseModel):  # no ranges: the server's grammar holds the shape, not the numbers' range
    summary: str
    mood: int


def test_the_real_server_refuses_json_schema_and_takes_json_object_with_the_schema(server, tmp_path):
    memory = tmp_path / "dialects.json"
    cfg = load_config({"model": f"openai/{ALIAS}", "api_base": server.base}, env={}, toml_path=None)
    gw = Gateway(cfg.with_(cache=None), dialects=Dialects(memory))
    value, why = gw.ask_traced(Morning, "Describe your morning at the cafe in one sentence, and your mood.",
                               purpose="test", fallback=Morning(summary="FALLBACK", mood=5), max_tokens=80)
    assert why is None and value.summary != "FALLBACK"
    ep = gw.dialects.endpoints()[0]
    assert ep.dialect == "json_object_schema" and ep.settled
    assert [d for d, _ in ep.stepped] == ["json_schema"]  # turned down, not ignored
    assert gw.dialects.announcements == [f"127.0.0.1:{server.port}: using json_object with schema"]
    saved = json.loads(memory.read_text())
    assert saved[f"openai/{ALIAS} @ {server.base}"]["dialect"] == "json_object_schema"
    assert gw.server_problems() == [] and gw.status == "ok"

    # The next game starts with what worked: one request, no refusal on the way.
    again = Gateway(cfg.with_(cache=None), dialects=Dialects(memory))
    value, why = again.ask_traced(Morning, "Describe your evening in one sentence, and your mood.",
                                  purpose="test", fallback=Morning(summary="FALLBACK", mood=5), max_tokens=80)
    assert why is None and again.accounting.records()[-1].attempts == 1
    assert again.dialects.endpoints()[0].stepped == []


def short_sim(gw: Gateway, out: Path, on_step=None):
    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.world.map_reader import load_town

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    people = [p for p in cast if p.name in PAIR]
    lines: list[str] = []
    result = run_headless(town, people, start=scenario.start, hours=1, out=out, scenario=scenario, gateway=gw,
                          embedder=HashEmbedder(), seed=0, progress=False, on_step=on_step, echo=lines.append)
    calls = [json.loads(x) for x in (out / "llm_calls.jsonl").read_text().splitlines()]
    return result, calls, "\n".join(lines)


def model_share(calls: list[dict]) -> float:
    return sum(c["outcome"] != "fallback" for c in calls) / len(calls)


@pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")
def test_a_two_resident_hour_on_the_real_server(server, tmp_path):
    # As `smallville sim --agents 2 --hours 1 --model openai/smollm2 --api-base URL`: no other setting.
    gw = Gateway(load_config({"model": f"openai/{ALIAS}", "api_base": server.base}, env={}, toml_path=None))
    result, calls, said = short_sim(gw, tmp_path / "run")
    assert not result.interrupted and len(calls) >= 6
    assert model_share(calls) >= 0.9, [(c["purpose"], c["outcome"], c["error"]) for c in calls]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["totals"]["model_led_share"] > 0  # the model's answers reached the residents' days
    assert summary["model_servers"] == {"problems": [], "dialects": {f"127.0.0.1:{server.port}": "json_object_schema"}}
    assert "model server trouble" not in said
    assert f"structured output: 127.0.0.1:{server.port} json_object with schema" in said


@pytest.mark.skipif(not MAP.exists(), reason="the Ville map is not built")
def test_the_router_over_two_real_servers_one_killed_mid_run(tmp_path):
    _server_extras()
    with LlamaServer(threads=1) as a, LlamaServer(threads=1) as b:
        toml = tmp_path / "smallville.toml"
        # A longer time per call than the default: this test is about the kill, and two servers share two cores.
        tables = "".join(f'[[models]]\nmodel = "openai/{ALIAS}"\napi_base = "{s.base}"\nconcurrency = 1\n'
                         f'name = "{n}"\n\n' for n, s in (("srv-a", a), ("srv-b", b)))
        toml.write_text("timeout = 180\n\n" + tables)
        gw = Gateway(load_config({}, env={}, toml_path=toml))
        served_by_a = []

        def kill_a_after_the_morning_plans(sim):
            if not served_by_a and sim.now.hour * 60 + sim.now.minute >= 7 * 60 + 10:
                served_by_a.append(gw.router.health[0].served)
                failed_by_a.append(gw.router.health[0].failed)
                a.kill()

        failed_by_a: list[int] = []

        result, calls, said = short_sim(gw, tmp_path / "run", on_step=kill_a_after_the_morning_plans)
        lines = dict(gw.deployment_lines())
    assert not result.interrupted and served_by_a, "the run never reached the kill"
    assert served_by_a[0] > 0 and gw.router.health[1].served > 0  # both served before a died
    assert model_share(calls) >= 0.9, [(c["purpose"], c["outcome"], c["error"]) for c in calls]
    # Each server negotiated its own dialect.
    assert {ep.label: ep.dialect for ep in gw.dialects.endpoints()} == {"srv-a": "json_object_schema",
                                                                        "srv-b": "json_object_schema"}
    if gw.router.health[0].failed > failed_by_a[0]:  # a call went to the dead one: it rests, and says why
        assert lines.get("srv-a: down (connection refused)") is False, lines
        assert "srv-a: down (connection refused)" in said
