"""Interviews for the evaluations: a resident asked a question without being
changed by it (remember=False), minds as the story starts, and the diffusion
questions put to every resident at the start and the end."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from agents import Mind, Reply, fallback_answer, respond, respond_traced
from lab.evaluate.diffusion import share
from lab.evaluate.judge import FACTS, model_judge, rule_judge

INTERVIEWER = "Interviewer"

INTERVIEWER_IS = "an interviewer from a study of the town, asking everyone the same questions"


def start_minds(residents: Sequence[str], personas: dict[str, Any], scenario: Any, gateway: Any, embedder: Any,
                start: datetime, settings: Any = None) -> dict[str, Any]:
    """Minds as the story starts: seed phrases and seeded thoughts, nothing else."""
    minds = {}
    for r in residents:
        m = Mind(personas[r], gateway, embedder, settings)
        for who, thought, imp in getattr(scenario, "seeds", None) or []:
            if who == r:
                m.queue_thought(thought, imp)
        m.start_turn(start)  # what its first job does first: the day begins, queued thoughts become memories
        minds[r] = m
    return minds


def ask(mind: Any, question: str, now: datetime) -> str:
    """The interviewer's question answered in character; the mind is left unchanged."""
    return respond(mind, INTERVIEWER, question, now=now, speaker_is=INTERVIEWER_IS, remember=False)


def ask_traced(mind: Any, question: str, now: datetime) -> Reply:
    """``ask``, with the answer's provenance and the memory it came from (grounded mode)."""
    return respond_traced(mind, INTERVIEWER, question, now=now, speaker_is=INTERVIEWER_IS, remember=False)


def is_fallback(mind: Any, question: str, answer: str) -> bool:
    """The interview path's own stand-in line (the model's answer was unusable)."""
    return answer == fallback_answer(mind, INTERVIEWER, question, ())


def interview_diffusion(minds_by_phase: dict[str, tuple[dict[str, Any], datetime]], gateway: Any, judge: str = "rule",
                        echo: Callable[[str], None] | None = None) -> dict:
    """phase -> fact -> {answers: {resident: {answer, knows, label, reason}}, count, share}."""
    out: dict[str, dict] = {}
    for phase, (minds, now) in minds_by_phase.items():
        out[phase] = {}
        for fact in FACTS:
            answers = {}
            for name, mind in minds.items():
                a = ask(mind, fact.question, now)
                v = (model_judge(gateway, fact, a, speaker=name) if judge == "model"
                     else rule_judge(fact, a, speaker=name))
                answers[name] = {"answer": a, "knows": v.knows, "label": v.label, "reason": v.reason,
                                 "fallback": is_fallback(mind, fact.question, a)}
                if echo is not None:
                    echo(f"  [{phase}] {name} <- {fact.question!r}: {'KNOWS' if v.knows else v.label} | {a[:90]}")
            k = [r for r, x in answers.items() if x["knows"]]
            out[phase][fact.key] = {"answers": answers, "knows": k, "count": len(k), "share": share(len(k), len(minds))}
    return out
