"""The minds of the residents: memory, retrieval, reflection, planning, dialogue.

Nothing here imports pygame or game/: the minds know places only as addresses
`world:sector:arena:object` and the world only through `agents.types`.

The public API (what game/ and lab/ use; the rest is the minds' own business):

- `agents.mind.Mind`: one resident's mind. `Mind(persona, gateway, embedder, settings)`;
  jobs `decide`, `utter`, `end_conversation`; `queue_thought`, `inner_voice`, `inspect`
  (any thread: an `agents.inspection.Inspection`); for jobs run from elsewhere `begin_job(tag)`, `start_turn(now)`,
  `search(...)`, `remember(...)`, `publish()`; saves `snapshot(in_flight)`, `to_state()`,
  `from_state(state)`, `Mind.restore(persona, gateway, embedder, state, settings)`;
  panels `memory_text(node_id)`; `decompose_afresh()` after the player played the resident.
- `agents.jobs.job_tag`: the names of a mind's jobs (what a save asks of a running job).
- `agents.interview.respond`: one in-character answer (the visitor's chat, interviews).
- `agents.llm.Gateway`, `load_config`, `ModelConfig`, `ConfigError` (agents.config):
  the one road to language models; `agents.embeddings.make_embedder` for embeddings.
- `agents.seams.Asker`, `Embedder`: what a mind needs of those two services.
- `agents.asking`: the model road's one protocol (a `Request` in, a `Reply` out), which
  every layer of the road (budget, ledger, health, cache, validation, retries, server) speaks.
- `agents.budget.Budget`: a mind's model calls per sim day (wraps its Asker).
- `agents.state.Stateful`: the state contract every saved part follows.
- `agents.accounting.Accounting`: every model call, counted.
- `agents.persona.load_cast`, `Persona`, `Scenario`; `agents.settings.MindSettings`.
- `agents.types`: the plain data the simulation and the minds exchange.
- `agents.pool.MindPool`: the worker pool minds' jobs run on.
- `agents.provenance`: where each plan item, action, line and memory came from.
- `agents.why`: decision records (`WhyLog`, `attach`, `read_records`, `find`): why an act was
  chosen, the memories retrieval brought up with their scores, the prompt and the answer.
- `agents.emoji`, `agents.objects.after_use`: what the game draws and how objects change.
"""
