"""Secrets stay out of every file and screen (issue 25).

A headless run with an API key in the environment and a credentialed
``api_base``, on a scripted model that now and then fails the way a server does
(its error repeating the URL and the key): afterwards no file of the run folder,
its saves (every SQLite row, zlib-compressed blobs opened too) nor the log holds
any of the secrets. The HUD's model lines and toasts are redacted likewise, and
a save's redacted ``api_base`` still tells the user's own server from another."""
from __future__ import annotations

import gzip
import itertools
import logging
import sqlite3
import zlib
from pathlib import Path

import pytest
from fakes import HashEmbedder, chatty, make_gateway

from agents.support.redact import redact, redact_data

REPO = Path(__file__).resolve().parent.parent
MAP = REPO / "maps" / "the_ville" / "the_ville.tmx"
KEY = "sk-test-SECRET123"
API_BASE = "http://user:pa55word@127.0.0.1:9/v1?key=SECRET456"
SECRETS = ("SECRET123", "pa55word", "SECRET456", "user:")


def _texts_of_sqlite(path: Path) -> list[bytes]:
    """Every value of every table of a SQLite file, as bytes; blobs also decompressed when they are zlib."""
    out: list[bytes] = []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    if isinstance(value, bytes):
                        out.append(value)
                        try:
                            out.append(zlib.decompress(value))
                        except zlib.error:
                            pass
                    elif value is not None:
                        out.append(str(value).encode("utf-8"))
    return out


def _opened(path: Path) -> list[bytes]:
    """The file's bytes, and what they hold when they are compressed (gzip: the decision
    records; SQLite: every value, zlib blobs opened): a secret is looked for in the text
    the file holds, not only its bytes on disk."""
    raw = path.read_bytes()
    blobs = [raw]
    if raw.startswith(b"\x1f\x8b"):
        text = gzip.decompress(raw)
        assert text, f"{path}: a gzip file that holds nothing"
        blobs.append(text)
    if raw.startswith(b"SQLite format 3"):
        blobs += _texts_of_sqlite(path)
    return blobs


def _leaks(folder: Path) -> list[str]:
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        blobs = _opened(path)
        for blob in blobs:
            for secret in SECRETS:
                if secret.encode() in blob:
                    found.append(f"{path.relative_to(folder)}: {secret}")
    return sorted(set(found))


@pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")
def test_a_run_folder_its_saves_and_the_log_hold_no_secret(tmp_path, monkeypatch):
    from agents.residents.persona import load_cast
    from game.headless import run_headless
    from game.saves.store import list_saves, load_state
    from game.support.logs import setup_logging
    from game.world.map_reader import load_town

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path / "home"))
    log_path = setup_logging()
    calls = itertools.count()

    def flaky(purpose, messages, schema):  # every fifth call fails as litellm's errors do: URL and key repeated
        if next(calls) % 5 == 4:
            raise ConnectionError(f"Connection error calling {API_BASE} with api_key={KEY}")
        return chatty(purpose, messages, schema)

    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    out = tmp_path / "run"
    gateway = make_gateway(flaky, api_base=API_BASE, retries=0)
    result = run_headless(town, cast[:2], start=scenario.start, hours=1, out=out, scenario=scenario,
                          gateway=gateway, embedder=HashEmbedder(), progress=False, echo=None, autosave_min=20)
    assert not result.interrupted and gateway.accounting.counts()["fallback"] > 0  # the failures happened
    for h in logging.getLogger().handlers:
        h.flush()
    assert _leaks(out) == [] and _leaks(log_path.parent) == []
    records = gzip.decompress((out / "why.jsonl.gz").read_bytes()).decode("utf-8")
    assert '"fallback": "connection"' in records  # the records were read: they hold the failed calls
    saves = [i for i in list_saves(out / "saves") if i.ok]
    assert len(saves) >= 2  # autosaves and the end save
    parts, _ = load_state(saves[0].path)
    assert parts["config"]["api_base"] == "http://[redacted]@127.0.0.1:9/v1?key=[redacted]"  # where, not how


def test_redaction_keeps_json_valid_and_the_rest_readable(monkeypatch):
    import json

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    data = {"api_base": API_BASE, "note": f'said "{KEY}" \\ key=abc"def', "n": 3, "api_key": "whatever",
            "nested": [{"url": "https://tok3n@host/x?token=zz"}]}
    text = redact(json.dumps(data))
    back = json.loads(text)  # still JSON
    assert back["api_base"] == "http://[redacted]@127.0.0.1:9/v1?key=[redacted]"
    assert KEY not in text and "abc" not in text and "tok3n" not in text and "zz" not in text
    clean = redact_data(data)
    assert clean["api_key"] is None and clean["n"] == 3 and clean["nested"][0]["url"] == (
        "https://[redacted]@host/x?token=[redacted]")
    assert redact("Isabella: the key to the cafe is under the mat") == "Isabella: the key to the cafe is under the mat"


def test_a_saves_redacted_endpoint_still_tells_the_users_own_server(monkeypatch):
    from agents.model.config import load_config_for_saved

    saved = {"model": "openai/saved-model", "api_base": redact(API_BASE)}
    mine, note = load_config_for_saved(saved, {"api_base": API_BASE}, env={}, toml_path=None)
    assert mine.model == "openai/saved-model" and note is None  # the same server: its model is suggested
    other, note = load_config_for_saved(saved, {"api_base": "http://127.0.0.1:8/v1"}, env={}, toml_path=None)
    assert other.model != "openai/saved-model" and note and "own server" in note


@pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")
def test_the_hud_shows_where_the_model_is_never_its_credentials(display, monkeypatch):
    from test_play import make_game, make_session

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    s = make_session(agents=1)
    try:
        g = make_game(s, display)

        class Down:
            model = "openai/qwen?key=SECRET456"
            status = f"model unreachable: the server at {API_BASE} refused {KEY} (since 07:00)"
            accounting = s.gateway.accounting

            def deployment_lines(self):
                return [(f"gpu1 {API_BASE}: down (401 for {KEY})", False)]

        s.gateway = Down()
        g.toast(f"could not reach {API_BASE}")
        g.panels.hud.note("server", f"using {API_BASE}")
        shown = "\n".join(t for t, _ in g.panels.hud.compose()) + "\n".join(t for t, _ in g.panels.hud.toasts)
        shown += "\n".join(g.panels.hud.notes.values())
        assert "model unreachable" in shown and "127.0.0.1:9" in shown
        assert not [x for x in SECRETS if x in shown], shown
    finally:
        s.close()


def test_a_settings_file_in_the_working_folder_that_moves_the_endpoint_warns_once(tmp_path, monkeypatch, capsys):
    """A smallville.toml that came with a downloaded folder and names its own server,
    while a key is set: litellm would send the key there. One warning, naming the file."""
    from agents.model import config

    monkeypatch.setattr(config, "_warned_endpoints", set())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path / "home"))
    (tmp_path / "smallville.toml").write_text(f'model = "openai/m"\napi_base = "{API_BASE}"\n')
    env = {"OPENAI_API_KEY": KEY}
    assert config.load_config(env=env).api_base == API_BASE  # the file is still used
    config.load_config(env=env)
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and str(tmp_path / "smallville.toml") in err and "OPENAI_API_KEY" in err
    assert "127.0.0.1:9" in err and not [x for x in SECRETS if x in err]  # where, never how
    log_text = (tmp_path / "home" / "logs" / "smallville.log")
    assert not log_text.exists() or "pa55word" not in log_text.read_text()


@pytest.mark.parametrize("case", ["no key", "flag wins", "home folder", "no endpoint"])
def test_no_warning_when_the_key_cannot_go_to_the_files_server(tmp_path, monkeypatch, capsys, case):
    from agents.model import config

    monkeypatch.setattr(config, "_warned_endpoints", set())
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("SMALLVILLE_HOME", str(home))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    body = 'model = "openai/m"\n' + ("" if case == "no endpoint" else f'api_base = "{API_BASE}"\n')
    (home if case == "home folder" else work).joinpath("smallville.toml").write_text(body)
    env = {} if case == "no key" else {"OPENAI_API_KEY": KEY}
    given = {"api_base": "http://127.0.0.1:8/v1"} if case == "flag wins" else {}
    got = config.load_config(given, env=env)
    assert got.api_base == {"flag wins": "http://127.0.0.1:8/v1", "no endpoint": None}.get(case, API_BASE)
    assert "warning" not in capsys.readouterr().err


def test_each_writer_redacts_what_it_is_handed(tmp_path, monkeypatch):
    """The run folder's writers, each handed a secret directly (a model name with a key
    in it, an event that repeats an endpoint): the call log, the timeline and the
    recording's writer write it redacted."""
    from agents.model.accounting import Accounting, CallRecord
    from game.runs.recording import _Writer
    from game.runs.timeline import render_timeline, write_jsonl

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    acc = Accounting()
    acc.open_jsonl(tmp_path / "llm_calls.jsonl", append=False)
    acc.record(CallRecord(time=0.0, model=f"openai/m?api_key={KEY}", purpose="p", resident=API_BASE))
    acc.close()
    event = {"time": "2023-02-13 07:00:00", "resident": "Isabella Rodriguez", "kind": "note",
             "text": f"the server is {API_BASE}, key {KEY}", "address": "the Ville:Hobbs Cafe"}
    (tmp_path / "timeline.md").write_text(render_timeline([event], title="t"), encoding="utf-8")
    write_jsonl(tmp_path / "events.jsonl", [event])
    writer = _Writer(tmp_path / "recording.jsonl", append=False)
    writer.put([{"k": "e", "s": 1, **event}])
    writer.close()
    for name in ("llm_calls.jsonl", "timeline.md", "events.jsonl", "recording.jsonl"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert "127.0.0.1:9" in text or name == "llm_calls.jsonl", name  # the rest is written
        assert not [x for x in SECRETS if x in text], (name, text)


def test_the_games_own_saves_keep_where_the_model_is_never_its_credentials():
    from dataclasses import dataclass

    from game.saves.capture import _config_state

    @dataclass
    class Config:
        model: str = "openai/served"
        api_base: str = API_BASE
        api_key: str = KEY
        temperature: float = 0.7

    part = _config_state(Config())
    assert part == {"model": "openai/served", "api_base": "http://[redacted]@127.0.0.1:9/v1?key=[redacted]",
                    "temperature": 0.7}
