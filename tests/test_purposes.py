"""The purposes of model calls, declared once (agents/explain/purposes.py): every purpose
the code asks with is declared, every template it names exists, the settings, Why and the
competent stand-in read the one table, and the minds reach the model by one road
(agents/model/services.py ``ask_model``)."""
from __future__ import annotations

import ast
import json
from datetime import datetime
from pathlib import Path

import pytest
from pydantic import BaseModel

import lab.competent
from agents.explain import purposes, why
from agents.model import scripted
from agents.model.asking import Asks, Reply, Request
from agents.model.budget import Budget
from agents.model.config import ModelConfig
from agents.model.gateway import Gateway
from agents.model.services import ask_model
from agents.prompts import PROMPT_DIR, path_of
from agents.residents.mind_settings import MAX_TOKENS, MindSettings

ROOT = Path(__file__).resolve().parents[1]
P = purposes.PURPOSES


def _asked() -> list[tuple[str, str, str | None]]:
    """(where, purpose, template or None) for every model question spelled in the code: a
    mind's ``ask(schema, template, purpose, ...)``, and every call with ``purpose="..."``
    (``ask_traced``, ``ask_model``, the gateway's ``ask``, grounded choices)."""
    found = []
    for folder in ("agents", "game", "lab"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                strings = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
                           for a in node.args]
                kw = {k.arg: k.value.value for k in node.keywords
                      if isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)}
                if name == "ask" and len(strings) >= 3 and strings[1] and strings[2]:
                    found.append((where, strings[2], strings[1]))  # Mind.ask(schema, template, purpose, ...)
                elif "purpose" in kw:
                    template = strings[2] if name == "ask_model" and len(strings) >= 3 else None
                    found.append((where, kw["purpose"], template))
    return found


def test_every_purpose_the_code_asks_with_is_declared_with_the_template_it_is_asked_with():
    asked = _asked()
    assert len(asked) > 20  # the scan finds the questions (a broken scan would pass on nothing)
    wrong = [f"{where}: {purpose!r} is not declared" for where, purpose, _ in asked if purpose not in P]
    wrong += [f"{where}: {purpose!r} is not declared with the template {template!r}"
              for where, purpose, template in asked
              if purpose in P and template and template not in P[purpose].templates]
    assert wrong == []


def test_every_template_named_exists_and_every_template_is_some_purposes():
    named = {t for p in P.values() for t in p.templates}
    assert sorted(t for t in named if not path_of(t).exists()) == []
    files = {f.stem for f in PROMPT_DIR.glob("*.txt")}
    assert sorted(files - named) == []


def test_each_purpose_says_its_limit_and_its_guard_or_why_it_has_none():
    for p in P.values():
        assert p.asked_by in (purposes.MIND, purposes.VISITOR, purposes.LAB), p.name
        assert p.max_tokens is not None or p.asked_by == purposes.LAB, p.name
        assert (p.daily_guard is None) == bool(p.no_guard), p.name
        assert p.daily_guard is not None or p.asked_by != purposes.MIND, f"a mind's {p.name} runs without a guard"
        assert set(p.explains) <= set(purposes.ACT_KINDS), p.name


def test_choose_line_is_guarded_as_the_line_it_stands_for():
    """The grounded mode's line is the free mode's "utterance" chosen instead of written."""
    assert P["choose_line"].daily_guard == P["utterance"].daily_guard
    assert why.ACT_PURPOSES["line"] == ("utterance", "choose_line")


def test_the_settings_and_why_read_the_table():
    assert purposes.token_limits() == MAX_TOKENS
    assert MindSettings().loop_guards == purposes.daily_guards()
    assert MindSettings().loop_guards is not MindSettings().loop_guards  # each mind's own dict
    assert set(why.ACT_PURPOSES) == set(purposes.ACT_KINDS) == set(why.KINDS)
    for kind, names in why.ACT_PURPOSES.items():
        assert names and all(kind in P[n].explains for n in names)
    assert purposes.max_tokens("no such purpose") == purposes.DEFAULT_MAX_TOKENS == 160


def test_the_stand_in_answers_only_declared_purposes_and_by_the_schema_when_not_told():
    assert set(lab.competent.BY_PURPOSE) <= set(P)
    schema = {"type": "object", "properties": {"talk": {"type": "boolean"}}}
    told = lab.competent.Prompt("Should Ann start a conversation with Bob?", schema, "Talk")
    assert lab.competent.dispatch(told, "talk_decision") == lab.competent.dispatch(told)


class _Choice(BaseModel):
    fact: str


class _Heard(Asks):
    """A model that answers "1" and keeps each request."""

    def __init__(self) -> None:
        self.requests: list[Request] = []

    def ask_once(self, request: Request) -> Reply:
        self.requests.append(request)
        return Reply(value=_Choice(fact="1"), attempts=1)


def test_one_road_gives_the_purposes_token_limit_counts_on_the_budget_and_keeps_a_record(tmp_path):
    model = _Heard()
    model.why_log = why.WhyLog(tmp_path / "why.jsonl.gz")  # type: ignore[attr-defined]
    budget = Budget(model, {"choose_fact": 1})
    now = datetime(2023, 2, 13, 9, 0)
    budget.at(now)
    values = dict(full_name="Ann Lee", asked_by="Bob", question="What do you do?", facts="1. I bake.")
    got, failed = ask_model(budget, _Choice, "choose_fact", values, purpose="choose_fact", resident="Ann Lee",
                            now=now, fallback=_Choice(fact="none"))
    assert (got.fact, failed) == ("1", None)
    assert model.requests[0].max_tokens == P["choose_fact"].max_tokens == 8
    assert budget.calls["choose_fact"] == 1
    # A read-only budget is the same road: withheld by the guard, counted nowhere, recorded all the same.
    got, failed = ask_model(budget.checking(now), _Choice, "choose_fact", values, purpose="choose_fact",
                            resident="Ann Lee", now=now, fallback=_Choice(fact="none"))
    assert (got.fact, failed, budget.calls["choose_fact"], len(model.requests)) == ("none", "budget", 1, 1)
    model.why_log.close()  # type: ignore[attr-defined]
    records = why.read_records(tmp_path / "why.jsonl.gz")
    assert [(r["purpose"], r["prompt_name"], r["time"], r["fallback"]) for r in records] == [
        ("choose_fact", "choose_fact", now.isoformat(), None),
        ("choose_fact", "choose_fact", now.isoformat(), "budget")]


def test_outside_the_model_road_the_minds_ask_only_through_ask_model():
    """``ask_traced`` is the road's own; a mind's question goes through ``ask_model``."""
    found = []
    for path in sorted((ROOT / "agents").rglob("*.py")):
        rel = str(path.relative_to(ROOT))
        if rel.startswith("agents/model/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "ask_traced":
                found.append(f"{rel}:{node.lineno}")
    assert found == []


@pytest.fixture
def told_purposes():
    heard: list[str | None] = []

    def answer(messages, response_format, timeout, purpose=None):
        heard.append(purpose)
        return json.dumps({"fact": "none"})

    model = scripted.register("purpose-probe", answer, with_purpose=True)
    yield model, heard
    scripted.unregister("purpose-probe")


def test_a_scripted_model_is_told_the_purpose(told_purposes):
    model, heard = told_purposes
    gw = Gateway(ModelConfig(model=model, cache=None, retries=0))
    got, failed = gw.ask_traced(_Choice, "Which fact?", purpose="story_choose", fallback=_Choice(fact="x"))
    assert (got.fact, failed, heard) == ("none", None, ["story_choose"])
