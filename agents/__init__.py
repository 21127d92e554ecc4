"""The minds of the residents: memory, retrieval, reflection, planning, dialogue.

Nothing here imports pygame or game/: the minds know places only as addresses
`world:sector:arena:object` and the world only through `agents.types`.

The public API is ``__all__`` below: what game/, lab/ and smallville/ use, and they import
the minds only through it (tests/test_house.py checks both). The main parts:

- `agents.mind.Mind`: one resident's mind. `Mind(persona, gateway, embedder, settings)`;
  jobs `decide`, `utter`, `end_conversation`; `queue_thought`, `inner_voice`, `inspect`
  (any thread: an `agents.inspection.Inspection`); for jobs run from elsewhere `begin_job(tag)`, `start_turn(now)`,
  `search(...)`, `remember(...)`, `publish()`; saves `snapshot(in_flight)`, `to_state()`,
  `from_state(state)`, `Mind.restore(persona, gateway, embedder, state, settings)`;
  panels `memory_text(node_id)`; `decompose_afresh()` after the player played the resident.
- `agents.jobs.job_tag`: the names of a mind's jobs (what a save asks of a running job).
- `agents.interview.respond`: one in-character answer (the visitor's chat, interviews).
- `agents.llm.Gateway`, `load_config`, `ModelConfig`, `ConfigError` (agents.config, agents.errors):
  the one road to language models; `agents.embeddings.make_embedder` for embeddings.
- `agents.seams.Asker`, `Embedder`: what a mind needs of those two services.
- `agents.asking`: the model road's one protocol (a `Request` in, a `Reply` out), which
  every layer of the road (budget, ledger, health, cache, validation, retries, server) speaks.
- `agents.budget.Budget`: a mind's model calls per sim day (wraps its Asker).
- `agents.state.Stateful`: the state contract every saved part follows.
- `agents.accounting.Accounting`: every model call, counted.
- `agents.persona.load_cast`, `Persona`, `Scenario`; `agents.settings.MindSettings`;
  `agents.townsfolk.grow_cast`: a town of N residents, generated ones after the scenario's.
- `agents.types`: the plain data the simulation and the minds exchange.
- `agents.pool.MindPool`: the worker pool minds' jobs run on.
- `agents.provenance`: where each plan item, action, line and memory came from.
- `agents.why`: decision records (`WhyLog`, `attach`, `read_records`, `find`): why an act was
  chosen, the memories retrieval brought up with their scores, the prompt and the answer.
- `agents.emoji`, `agents.objects.after_use`: what the game draws and how objects change.
- `agents.dialogue`, `agents.wording`: the grounded mode's dialogue acts (``act_of``,
  ``act_by_rule``, ``responds``) and wording rules (``fragment``, ``opening``), which the
  evaluation's dialogue measures read.
"""
from __future__ import annotations

from agents import dialogue, home, interview, local_model, masks, memory, priority, provenance, scripted, why, wording
from agents.accounting import Accounting
from agents.answers import compact_schema
from agents.config import (
    EMBEDDED_MODEL,
    EMBEDDED_PROVIDER,
    ModelConfig,
    load_config,
    load_config_for_saved,
    model_flags,
)
from agents.converse import Line
from agents.decompose import steps_schema
from agents.dialects import SAY
from agents.embeddings import LocalEmbedder, make_embedder
from agents.emoji import VOCABULARY, nearest, split_emoji
from agents.errors import ConfigError
from agents.grounding import choice_schema
from agents.inner_voice import first_person
from agents.inspection import Inspection
from agents.interview import Reply, fallback_answer, keep_owed, respond, respond_traced
from agents.llm import Gateway
from agents.memory import EmbeddingMismatch, MemoryStream, median_ms
from agents.mind import Mind
from agents.objects import after_use
from agents.perceive import importance_schema
from agents.persona import CastError, Persona, Scenario, load_cast, load_residents
from agents.plan import day_plan_schema, slots_schema
from agents.pool import MindPool
from agents.priority import Rank
from agents.prompts import render
from agents.redact import SECRET_NAME, SECRET_VALUE, redact, redact_data
from agents.state import Stateful
from agents.townsfolk import grow_cast
from agents.types import Action, Conversation, Decision, Event, Situation, Utterance

__all__ = [
    "EMBEDDED_MODEL",
    "EMBEDDED_PROVIDER",
    "SAY",
    "SECRET_NAME",
    "SECRET_VALUE",
    "VOCABULARY",
    "Accounting",
    "Action",
    "CastError",
    "ConfigError",
    "Conversation",
    "Decision",
    "EmbeddingMismatch",
    "Event",
    "Gateway",
    "Inspection",
    "Line",
    "LocalEmbedder",
    "MemoryStream",
    "Mind",
    "MindPool",
    "ModelConfig",
    "Persona",
    "Rank",
    "Reply",
    "Scenario",
    "Situation",
    "Stateful",
    "Utterance",
    "after_use",
    "choice_schema",
    "compact_schema",
    "day_plan_schema",
    "dialogue",
    "fallback_answer",
    "first_person",
    "grow_cast",
    "home",
    "importance_schema",
    "interview",
    "keep_owed",
    "load_cast",
    "load_config",
    "load_config_for_saved",
    "load_residents",
    "local_model",
    "make_embedder",
    "masks",
    "median_ms",
    "memory",
    "model_flags",
    "nearest",
    "priority",
    "provenance",
    "redact",
    "redact_data",
    "render",
    "respond",
    "respond_traced",
    "scripted",
    "slots_schema",
    "split_emoji",
    "steps_schema",
    "why",
    "wording",
]
