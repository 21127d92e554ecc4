"""Many model servers: the litellm Router in-process against two fake
OpenAI-compatible servers on loopback (tests/fake_openai.py), one of which
dies mid-run; config from [[models]] tables and a router YAML; bad entries."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from fake_openai import FakeOpenAI
from pydantic import BaseModel

from agents.model.config import load_config
from agents.model.gateway import Gateway
from agents.model.router import Deployment, ModelRouter
from agents.support.errors import ConfigError


class Say(BaseModel):
    text: str


@pytest.fixture
def servers():
    a, b = FakeOpenAI("a", delay=0.02), FakeOpenAI("b", delay=0.02)
    yield a, b
    for s in (a, b):
        try:
            s.kill()
        except Exception:  # noqa: BLE001 - killed by the test already
            pass


def _toml(tmp_path, a, b, conc=2):
    p = tmp_path / "smallville.toml"
    p.write_text(
        f'[[models]]\nmodel = "openai/town-model"\napi_base = "{a.api_base}"\nconcurrency = {conc}\nname = "gpu-a"\n\n'
        f'[[models]]\nmodel = "openai/town-model"\napi_base = "{b.api_base}"\nconcurrency = {conc}\nname = "gpu-b"\n'
    )
    return p


def test_two_servers_share_the_calls_within_their_limits_and_one_dying_costs_no_turn(tmp_path, servers):
    a, b = servers
    cfg = load_config({}, env={}, toml_path=_toml(tmp_path, a, b))
    assert [d.label for d in cfg.deployments] == ["gpu-a", "gpu-b"]
    assert cfg.concurrency == 4 and cfg.model == "openai/town-model" and cfg.is_local
    gw = Gateway(cfg.with_(cache=None, timeout=5.0, retries=0))
    assert gw.router is not None

    def ask(i):
        return gw.ask_traced(Say, f"say hi {i}", purpose="test", resident=f"r{i}", fallback=Say(text="FALLBACK"))

    with ThreadPoolExecutor(max_workers=8) as pool:  # more askers than the two servers take together
        first = list(pool.map(ask, range(24)))
    assert all(why is None and v.text.startswith("hello from") for v, why in first)
    assert a.served > 0 and b.served > 0, (a.served, b.served)  # load-balanced
    assert a.peak <= 2 and b.peak <= 2, (a.peak, b.peak)  # each server's own limit holds
    assert all(ok for _, ok in gw.deployment_lines())

    a.kill()  # one machine dies mid-run
    before_b = b.served
    with ThreadPoolExecutor(max_workers=8) as pool:
        second = list(pool.map(ask, range(24)))
    assert all(why is None and v.text == "hello from b" for v, why in second), second  # nobody lost a turn
    assert b.served - before_b == 24
    lines = dict(gw.deployment_lines())
    assert lines.get("gpu-a: down (connection refused)") is False, lines
    assert any(text.startswith("gpu-b: ok") and ok for text, ok in lines.items()), lines
    assert gw.healthy and gw.status == "ok"


def test_every_server_down_falls_back_and_says_so(tmp_path, servers):
    a, b = servers
    gw = Gateway(load_config({}, env={}, toml_path=_toml(tmp_path, a, b)).with_(cache=None, timeout=2.0, retries=0))
    a.kill()
    b.kill()
    v, why = gw.ask_traced(Say, "hi", purpose="test", fallback=Say(text="FALLBACK"))
    assert v.text == "FALLBACK" and why in ("connection", "error", "server"), why
    assert not gw.healthy and "unreachable" in gw.status
    assert all(not ok for _, ok in gw.deployment_lines())


def test_a_server_back_from_the_dead_is_probed_again(servers):
    a, _b = servers
    now = [0.0]
    r = ModelRouter((Deployment("openai/m", a.api_base, 1, "a"),), cooldown=5.0, clock=lambda: now[0])
    a.kill()
    with pytest.raises(Exception, match="(?i)connect|refused"):
        r.completion(messages=[{"role": "user", "content": "hi"}], timeout=2)
    assert r.health[0].down(now[0])
    again = FakeOpenAI("a2")
    r.router = None  # the machine came back on a new port: same deployment, new address
    r.deployments = (Deployment("openai/m", again.api_base, 1, "a"),)
    # Resting, but the only one: it is probed rather than failing the resident.
    resp = r.completion(messages=[{"role": "user", "content": "hi"}], timeout=2)
    assert "hello from a2" in resp.choices[0].message.content and not r.health[0].down(now[0])
    again.kill()


def test_the_router_yaml_and_the_cli_flag(tmp_path, servers):
    a, b = servers
    y = tmp_path / "router.yaml"
    y.write_text(
        "model_list:\n"
        f"  - model_name: town\n    litellm_params: {{model: openai/m, api_base: '{a.api_base}',"
        " max_parallel_requests: 3}\n"
        f"  - model_name: town\n    litellm_params: {{model: openai/m, api_base: '{b.api_base}'}}\n"
        "    model_info: {id: spare}\n"
    )
    cfg = load_config({"router": str(y)}, env={}, toml_path=None)
    assert [(d.concurrency, d.label) for d in cfg.deployments] == [(3, f"127.0.0.1:{a.port}"), (4, "spare")]
    assert cfg.concurrency == 7
    v, why = Gateway(cfg.with_(cache=None, timeout=5.0)).ask_traced(Say, "hi", purpose="t", fallback=Say(text="F"))
    assert why is None and v.text.startswith("hello from")


@pytest.mark.parametrize("body, words", [
    ('[[models]]\napi_base = "http://x"\n', "needs a model"),
    ('[[models]]\nmodel = "openai/m"\nconcurrency = 0\n', "concurrency must be"),
    ('[[models]]\nmodel = "openai/m"\nconcurrency = "many"\n', "concurrency must be"),
    ('[[models]]\nmodel = "openai/m"\nport = 1\n', "unknown key(s) port"),
    ('[[models]]\nmodel = "openai/m"\napi_key = "sk-1"\n', "API keys"),
    ('models = "openai/m"\n', "[[models]] tables"),
])
def test_bad_models_tables_say_what_and_where(tmp_path, body, words):
    p = tmp_path / "smallville.toml"
    p.write_text(body)
    with pytest.raises(ConfigError) as err:
        load_config({}, env={}, toml_path=p)
    assert words in str(err.value) and str(p) in str(err.value)


@pytest.mark.parametrize("text, words", [
    (None, "cannot read"),
    ("model_list: [\n", "not valid YAML"),
    ("routing: simple\n", "needs a model_list"),
    ("model_list:\n  - model_name: x\n", "litellm_params"),
    ("model_list:\n  - litellm_params: {model: openai/m, api_key: sk-123}\n", "API keys"),
])
def test_bad_router_yaml_says_what_and_where(tmp_path, text, words):
    y = tmp_path / "router.yaml"
    if text is not None:
        y.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config({"router": str(y)}, env={}, toml_path=None)
    assert words in str(err.value) and "router.yaml" in str(err.value)


def test_a_full_router_waits_for_room_instead_of_overfilling():
    """The limit per deployment holds even when calls pile up: the extra ones wait."""
    gate = threading.Event()
    inside = []
    peak = [0]

    class Slow:
        def completion(self, model, **kw):
            inside.append(model)
            peak[0] = max(peak[0], len(inside))
            gate.wait(5)
            inside.remove(model)
            return {"choices": [{"message": {"content": "{}"}}]}

    r = ModelRouter((Deployment("openai/m", "http://h1", 1), Deployment("openai/m", "http://h2", 2)), router=Slow())
    with ThreadPoolExecutor(max_workers=6) as pool:
        futs = [pool.submit(r.completion, messages=[], timeout=5) for _ in range(6)]
        threading.Event().wait(0.3)
        assert peak[0] == 3  # 1 + 2, never more
        gate.set()
        assert all(f.result(5) for f in futs)
    assert sum(h.served for h in r.health) == 6


@pytest.mark.parametrize("err, said", [
    (ConnectionRefusedError(111, "Connection refused"), "connection refused"),
    (RuntimeError("litellm.APIConnectionError: APIConnectionError: OpenAIException - Connection error."),
     "connection refused"),
    (TimeoutError("Request timed out."), "timed out"),
    (RuntimeError("litellm.RateLimitError: RateLimitError: OpenAIException - 429 Too Many Requests"), "rate limited"),
    (RuntimeError("litellm.InternalServerError: InternalServerError: OpenAIException - the GPU fell over badly today"),
     "the GPU fell over badly today"),
])
def test_the_hud_says_why_a_server_is_down_in_a_few_words(err, said):
    from agents.model.router import short_error

    assert short_error(err) == said


# -- servers that hang, refuse the key or lack the model (issue 25) -----------------------------


def test_hung_servers_cost_one_call_its_deadline_not_a_timeout_each(tmp_path):
    """Five wedged servers: the call ends by the gateway's deadline (before, each untried
    one got the full per-call time-out: 5 x 3 s here), and every server rests, said so."""
    import time

    hung = [FakeOpenAI(f"h{i}", hang=True) for i in range(5)]
    try:
        toml = tmp_path / "smallville.toml"
        toml.write_text("".join(f'[[models]]\nmodel = "openai/m"\napi_base = "{h.api_base}"\nname = "{h.name}"\n\n'
                                for h in hung))
        gw = Gateway(load_config({}, env={}, toml_path=toml).with_(cache=None, timeout=3.0, deadline=4.0, retries=0))
        t0 = time.monotonic()
        v, why = gw.ask_traced(Say, "hi", purpose="test", fallback=Say(text="FALLBACK"))
        took = time.monotonic() - t0
        assert v.text == "FALLBACK" and why == "timeout", why
        assert took < 10, took  # the old router: 15 s and more
        assert sum(h.asked for h in hung) >= 1
        assert not gw.healthy and "timeout" in gw.status
        # All resting now: the next call probes one of them, not all five.
        before = sum(h.asked for h in hung)
        gw.ask_traced(Say, "hi again", purpose="test", fallback=Say(text="FALLBACK"))
        assert sum(h.asked for h in hung) - before == 1
    finally:
        for h in hung:
            h.kill()


def test_the_router_gives_each_try_only_the_time_left():
    """Deterministic: each server that times out after 4 s leaves the next one only the rest."""
    now = [0.0]
    given = []

    class Wedged:
        def completion(self, model, timeout, **kw):
            given.append(timeout)
            now[0] += min(timeout, 4.0)
            raise TimeoutError("Request timed out.")

    r = ModelRouter(tuple(Deployment("openai/m", f"http://h{i}", 1) for i in range(4)), router=Wedged(),
                    clock=lambda: now[0])
    with pytest.raises(TimeoutError):
        r.completion(messages=[], timeout=10.0)
    assert given == [10.0, 6.0, 2.0]  # the old router: 10 s each, four times
    assert sorted(h.last_error or "" for h in r.health) == ["", "timed out", "timed out", "timed out"]


@pytest.mark.parametrize("status, said", [(401, "refuses the API key (401); check its key"),
                                          (404, "404: model not served there; check model and api_base")])
def test_a_server_that_refuses_the_key_or_lacks_the_model_rests_and_the_next_answers(tmp_path, status, said):
    bad, good = FakeOpenAI("bad", status=status), FakeOpenAI("good")
    try:
        gw = Gateway(load_config({}, env={}, toml_path=_toml(tmp_path, bad, good)).with_(cache=None, timeout=5.0))
        answers = [gw.ask_traced(Say, f"hi {i}", purpose="t", fallback=Say(text="F")) for i in range(4)]
        assert all(why is None and v.text == "hello from good" for v, why in answers), answers
        assert bad.asked == 1  # tried once, then resting: not asked again on every call
        lines = dict(gw.deployment_lines())
        assert lines[f"gpu-a: down ({said})"] is False, lines
        assert gw.status == "ok" and f"gpu-a: down ({said})" in gw.server_problems()
    finally:
        bad.kill()
        good.kill()


def test_every_server_refusing_the_key_says_so_in_the_status(tmp_path):
    a, b = FakeOpenAI("a", status=401), FakeOpenAI("b", status=401)
    try:
        gw = Gateway(load_config({}, env={}, toml_path=_toml(tmp_path, a, b)).with_(cache=None, timeout=5.0))
        v, why = gw.ask_traced(Say, "hi", purpose="t", fallback=Say(text="F"))
        assert v.text == "F" and why == "auth"
        assert "refused the API key" in gw.status and "set the right key" in gw.status
        assert all(not ok for _, ok in gw.deployment_lines())
    finally:
        a.kill()
        b.kill()


def test_one_server_that_refuses_the_key_is_named_with_the_fix():
    bad = FakeOpenAI("bad", status=401)
    try:
        cfg = load_config({"model": "openai/m", "api_base": bad.api_base}, env={}, toml_path=None)
        gw = Gateway(cfg.with_(cache=None, timeout=5.0))
        v, why = gw.ask_traced(Say, "hi", purpose="t", fallback=Say(text="F"))
        assert v.text == "F" and why == "auth" and bad.asked == 1  # not retried: a key does not heal
        assert f"127.0.0.1:{bad.port} refused the API key" in gw.status and "set the right key" in gw.status
        assert gw.server_problems() == [gw.status]
    finally:
        bad.kill()


def test_a_server_label_never_shows_credentials():
    d = Deployment("openai/m", "https://user:s3cret@gpu.example:8443/v1?key=sk-abc")
    assert d.label == "gpu.example:8443"
    assert Deployment("openai/m", "http://gpu?key=sk-abc").label == "gpu"
