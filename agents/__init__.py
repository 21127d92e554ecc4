"""The minds of the residents: memory, retrieval, reflection, planning, dialogue.

Nothing here imports pygame or game/: the minds know places only as addresses
`world:sector:arena:object` and the world only through `agents.support.types`.

The minds are in rooms, from the bottom up; a module imports its own room and the
rooms below it, never above (tests/test_house.py checks it):

    support/    home, redact, errors, the state contract, the plain data exchanged
    prompts/    one template file per prompt
    words/      language by rule: text helpers, activities in words, dated events, emoji
    explain/    provenance and decision records: why a resident did what it did
    threads/    the worker pool the minds think on, and who goes first
    engine/     the embedded model, run in-process by llama.cpp
    model/      the road to a model: the gateway and its layers, the budget, the configuration
    residents/  who lives in the town (personas, generated townsfolk) and their minds' knobs
    recall/     memory and retrieval: the stream, places, perceiving, reflecting, grounding
    planning/   the day, its hours and steps, reacting, the inner voice, objects
    talk/       dialogue: whether to talk, lines, dialogue acts and their wording
    mind/       the mind whole: Mind, its decide steps, inspection, interviews

This module is the one door above them all. The public API is ``__all__`` below: what
game/, lab/ and smallville/ use, and they import the minds only through it
(tests/test_house.py checks both). The main parts:

- `agents.mind.core.Mind`: one resident's mind. `Mind(persona, gateway, embedder, settings)`;
  jobs `decide`, `utter`, `end_conversation`; `queue_thought`, `inner_voice`, `inspect`
  (any thread: an `agents.mind.inspection.Inspection`); for jobs run from elsewhere `begin_job(tag)`,
  `start_turn(now)`, `search(...)`, `remember(...)`, `publish()`; saves `snapshot(in_flight)`, `to_state()`,
  `from_state(state)`, `Mind.restore(persona, gateway, embedder, state, settings)`;
  panels `memory_text(node_id)`; `decompose_afresh()` after the player played the resident.
- `agents.mind.api.ResidentMind`: what the game may ask of a resident's mind (a protocol `Mind` implements,
  and the stand-ins too); game/sim, game/runs and the views hold minds as it.
- `agents.mind.job_tags.job_tag`: the names of a mind's jobs (what a save asks of a running job).
- `agents.interview.respond` (agents/mind/interview.py): one in-character answer (the visitor's
  chat, interviews).
- `agents.model.gateway.Gateway`, `load_config`, `ModelConfig` (agents.model.config), `ConfigError`
  (agents.support.errors): the one road to language models; `agents.recall.embeddings.make_embedder`
  for embeddings.
- `agents.model.services.Asker`, `Embedder`: what a mind needs of those two services.
- `agents.model.asking`: the model road's one protocol (a `Request` in, a `Reply` out), which
  every layer of the road (budget, ledger, health, cache, validation, retries, server) speaks.
- `agents.model.budget.Budget`: a mind's model calls per sim day (wraps its Asker).
- `agents.support.stateful.Stateful`: the state contract every saved part follows.
- `agents.model.accounting.Accounting`: every model call, counted.
- `agents.residents.persona.load_cast`, `Persona`, `Scenario`, `persona_data` / `read_personas` (a resident
  as residents.json writes it, and back, checked); `agents.residents.mind_settings.MindSettings`;
  `agents.residents.townsfolk.grow_cast`: a town of N residents, generated ones after the scenario's.
- `agents.support.types`: the plain data the simulation and the minds exchange.
- `agents.threads.pool.MindPool`: the worker pool minds' jobs run on.
- `agents.provenance` (agents/explain/provenance.py): where each plan item, action, line and
  memory came from.
- `agents.why` (agents/explain/why.py): decision records (`WhyLog`, `attach`, `read_records`,
  `find`): why an act was chosen, the memories retrieval brought up with their scores, the prompt
  and the answer.
- `agents.words.emoji_vocabulary`, `agents.planning.object_use.after_use`: what the game draws and
  how objects change.
- `agents.fact_in_first_person` (agents/recall/grounding.py ``first_person``): a fact about a
  resident in its own words ("Ann Lee runs the bakery" -> "I run the bakery."), which the
  competent stand-in reads its prompts with.
- `agents.dialogue`, `agents.wording` (agents/talk/): the grounded mode's dialogue acts (``act_of``,
  ``act_by_rule``, ``responds``) and wording rules (``fragment``, ``opening``), which the
  evaluation's dialogue measures read.
"""
from __future__ import annotations

from agents.engine import local_model, masks
from agents.explain import provenance, why
from agents.mind import interview
from agents.mind.api import ResidentMind
from agents.mind.core import Mind
from agents.mind.inspection import Inspection
from agents.mind.interview import Reply, fallback_answer, keep_owed, respond, respond_traced
from agents.model import scripted
from agents.model.accounting import Accounting
from agents.model.answers import compact_schema
from agents.model.config import (
    EMBEDDED_MODEL,
    EMBEDDED_PROVIDER,
    ModelConfig,
    load_config,
    load_config_for_saved,
    model_flags,
)
from agents.model.dialects import SAY
from agents.model.gateway import Gateway
from agents.model.services import Asker, Embedder
from agents.planning.agenda import is_engagement
from agents.planning.decompose import steps_schema
from agents.planning.inner_voice import first_person
from agents.planning.object_use import after_use
from agents.planning.plan import day_plan_schema, slots_schema
from agents.prompts import render
from agents.recall import memory
from agents.recall.embeddings import LocalEmbedder, make_embedder
from agents.recall.grounding import choice_schema
from agents.recall.grounding import first_person as fact_in_first_person
from agents.recall.memory import EmbeddingMismatch, MemoryStream, median_ms
from agents.recall.perceive import importance_schema
from agents.residents.mind_settings import MindSettings
from agents.residents.persona import (
    CastError,
    Persona,
    Scenario,
    load_cast,
    load_residents,
    persona_data,
    read_personas,
)
from agents.residents.townsfolk import grow_cast
from agents.support import home
from agents.support.errors import ConfigError
from agents.support.redact import SECRET_NAME, SECRET_VALUE, redact, redact_data
from agents.support.stateful import Stateful
from agents.support.types import Action, Conversation, Decision, Event, Situation, Utterance
from agents.talk import dialogue, wording
from agents.talk.converse import Line
from agents.threads import priority
from agents.threads.pool import MindPool
from agents.threads.priority import Rank
from agents.words import dated
from agents.words.emoji_vocabulary import VOCABULARY, nearest, split_emoji

__all__ = [
    "EMBEDDED_MODEL",
    "EMBEDDED_PROVIDER",
    "SAY",
    "SECRET_NAME",
    "SECRET_VALUE",
    "VOCABULARY",
    "Accounting",
    "Action",
    "Asker",
    "CastError",
    "ConfigError",
    "Conversation",
    "Decision",
    "Embedder",
    "EmbeddingMismatch",
    "Event",
    "Gateway",
    "Inspection",
    "Line",
    "LocalEmbedder",
    "MemoryStream",
    "Mind",
    "MindPool",
    "MindSettings",
    "ModelConfig",
    "Persona",
    "Rank",
    "Reply",
    "ResidentMind",
    "Scenario",
    "Situation",
    "Stateful",
    "Utterance",
    "after_use",
    "choice_schema",
    "compact_schema",
    "dated",
    "day_plan_schema",
    "dialogue",
    "fact_in_first_person",
    "fallback_answer",
    "first_person",
    "grow_cast",
    "home",
    "importance_schema",
    "interview",
    "is_engagement",
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
    "persona_data",
    "priority",
    "provenance",
    "read_personas",
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
