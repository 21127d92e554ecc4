"""A decide job's steps (agents/mind/deciding.py): which step decides when several could."""
from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace

from agents.mind import deciding
from agents.planning import inner_voice as V
from agents.support.types import Action
from tests.scripted_minds import make_mind, plausible, situation

MORNING = datetime(2023, 2, 13, 7, 0)
LATER = datetime(2023, 2, 13, 9, 12)
DIRECTIVE = "You are going to run against Sam in the upcoming election"
THOUGHT = "I am going to run against Sam in the upcoming election"


def test_in_a_conversation_the_day_is_planned_and_nothing_else_is_decided():
    m, _ = make_mind(plausible)
    m.inner_voice(DIRECTIVE)
    chat = Action("talking with Maria", "the Ville:Hobbs Cafe:cafe", MORNING, 10, talking_to="Maria Lopez")
    d = m.decide(situation(MORNING, action=chat, can_talk_to=["Klaus Mueller"]))
    assert m.plan and d.note == "planned the day"  # not around the inner voice
    assert d.action is None and d.talk_to is None
    assert m.directives == [THOUGHT]  # the inner voice waits until the conversation is over


def test_the_inner_voice_acts_at_once_without_an_action_even_when_the_plan_is_not_about_it(monkeypatch):
    # The plan's current item never "mentions" the thought here: only having no action makes it act at once.
    monkeypatch.setattr(deciding, "voice", SimpleNamespace(follow_directives=V.follow_directives,
                                                           mentions=lambda *a, **k: None))
    notes = {}
    for case in ("no action", "an action"):
        m, _ = make_mind(plausible)
        first = m.decide(situation(MORNING))
        m.inner_voice(DIRECTIVE, LATER)
        d = m.decide(situation(LATER, action=None if case == "no action" else first.action))
        assert "replanned for the inner voice: " + THOUGHT in d.note and not m.directives
        notes[case] = d.note
    assert "inner voice -> " in notes["no action"]
    assert "inner voice -> " not in notes["an action"]
