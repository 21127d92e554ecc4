"""Tests that were thinner than they looked (issue 35): a 403 from a server, and a
second --whisper on the same save."""
from __future__ import annotations

import io
import json
import re
import shutil
from argparse import Namespace
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from fakes import HashEmbedder, chatty, make_gateway
from pydantic import BaseModel

from agents.model.config import load_config
from agents.model.gateway import Gateway

REPO = Path(__file__).resolve().parent.parent
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"


class Say(BaseModel):
    text: str


def test_a_403_is_a_refused_key_not_retried_and_named_with_the_fix():
    bad = FakeOpenAI("bad", status=403)
    try:
        cfg = load_config({"model": "openai/m", "api_base": bad.api_base}, env={}, toml_path=None)
        gw = Gateway(cfg.with_(cache=None, timeout=5.0, retries=3))
        v, why = gw.ask_traced(Say, "hi", purpose="t", fallback=Say(text="F"))
        assert v.text == "F" and why == "auth" and bad.asked == 1  # retrying cannot change a refusal
        assert f"127.0.0.1:{bad.port} refused the API key" in gw.status and "set the right key" in gw.status
    finally:
        bad.kill()


def test_a_403_server_among_several_rests_and_the_call_goes_to_the_next(tmp_path):
    bad, good = FakeOpenAI("bad", status=403), FakeOpenAI("good")
    try:
        toml = tmp_path / "smallville.toml"
        toml.write_text(f'[[models]]\nmodel = "openai/m"\napi_base = "{bad.api_base}"\nname = "bad"\n\n'
                        f'[[models]]\nmodel = "openai/m"\napi_base = "{good.api_base}"\nname = "good"\n')
        gw = Gateway(load_config({}, env={}, toml_path=toml).with_(cache=None, timeout=5.0))
        answers = [gw.ask_traced(Say, f"hi {i}", purpose="t", fallback=Say(text="F")) for i in range(4)]
        assert all(why is None and v.text == "hello from good" for v, why in answers)
        assert bad.asked <= 1  # tried once at most, then resting
        lines = dict(gw.deployment_lines())
        assert any(text.startswith("bad: down (refuses the API key (403)") and not ok for text, ok in lines.items())
    finally:
        bad.kill()
        good.kill()


@pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")
def test_a_second_whisper_on_the_same_save_writes_a_second_file_and_keeps_the_first(tmp_path):
    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.interview_cli import main_interview
    from game.saves.store import load_state
    from game.world.map_reader import load_town

    cast, scenario = load_cast(MAP.parent)
    run = tmp_path / "run"
    run_headless(load_town(MAP), cast[:2], start=scenario.start, hours=0.1, out=run, scenario=scenario,
                 gateway=make_gateway(chatty), embedder=HashEmbedder(), progress=False, echo=None, autosave_min=0)
    save = run / "saves" / "end.sqlite"
    original = save.read_bytes()

    def whisper(text):
        args = Namespace(load=str(save), agent="Isabella", as_="a news reporter", question=None, out=None,
                         remember=False, whisper=text, map=str(MAP), model=None, api_base=None)
        out = io.StringIO()
        assert main_interview(args, gateway=make_gateway(chatty), embedder=HashEmbedder(), stdout=out) == 0
        return out.getvalue()

    first = whisper("You are going to run for mayor")
    one = run / "saves" / "end-whispered.sqlite"
    kept = one.read_bytes()
    second = whisper("You are going to open a bakery")
    two = run / "saves" / "end-whispered-2.sqlite"
    assert str(one) in first and str(two) in second and two.exists()
    assert one.read_bytes() == kept and save.read_bytes() == original  # neither is written over
    texts = []
    for path in (one, two):
        parts, _ = load_state(path)
        texts.append(json.dumps(parts["minds/Isabella Rodriguez"], default=str))
    thoughts = [re.search(r'thinks: "(.*)" \(importance', out).group(1) for out in (first, second)]
    assert thoughts[0] in texts[0] and thoughts[1] in texts[1]  # each file holds its own whisper
    shutil.rmtree(run)
