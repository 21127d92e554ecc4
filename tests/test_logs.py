"""The log file keeps traces, never secrets (issue 25): credentials in a URL, secret
query parameters, key-shaped strings and the environment's own keys are redacted on
the way out, in messages and in tracebacks alike."""
from __future__ import annotations

import logging

from game.support import logs


def test_redact_takes_out_every_kind_of_secret(monkeypatch):
    monkeypatch.setenv("MY_SERVICE_API_KEY", "plainvalue-1234")
    text = ("api_base http://alice:hunter22@127.0.0.1:8000/v1?key=abcdef123&model=x "
            "token=zzz999 key sk-proj-ABCDEFGHIJKLMNOPQRSTUV and plainvalue-1234")
    out = logs.redact(text)
    for secret in ("alice", "hunter22", "abcdef123", "zzz999", "sk-proj-ABCDEFGHIJKLMNOPQRSTUV", "plainvalue-1234"):
        assert secret not in out
    assert "http://[redacted]@127.0.0.1:8000/v1?key=[redacted]&model=x" in out  # where it went stays readable
    assert logs.redact("nothing secret at 07:00, speed 1") == "nothing secret at 07:00, speed 1"


def test_the_log_file_holds_no_secret_even_in_a_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path))
    monkeypatch.setenv("OPENAI_API_KEY", "fake-key-0123456789")
    path = logs.setup_logging()
    log = logging.getLogger("test.logs")
    log.warning("calling %s", "https://bob:pa55word@models.example/v1?api_key=fake-key-0123456789")
    try:
        raise ConnectionError("refused by https://bob:pa55word@models.example/v1 with fake-key-0123456789")
    except ConnectionError:
        log.exception("the call failed")
    for h in logging.getLogger().handlers:
        h.flush()
    text = path.read_text(encoding="utf-8")
    assert "the call failed" in text and "ConnectionError" in text and "models.example" in text
    for secret in ("bob", "pa55word", "fake-key-0123456789"):
        assert secret not in text
