"""The road to a model: every model call of the minds, its layers declared in one place
(gateway.py, ``Gateway._road``), each taking and returning asking.LanguageModel.

    asking.py      Request, Reply, the LanguageModel protocol: the road's one question
    services.py    Asker and Embedder: what a mind needs of its two services; ask_model: a mind's one road to its model
    gateway.py     Gateway: the road assembled (ask_once, ask_traced), its health and its ledger
    budget.py      Budget: a mind's model calls per sim day, itself an Asker
    accounting.py  every model call, counted (tokens, latency, cost, outcome)
    health.py      whether the model answers
    cache.py       an optional SQLite response cache
    validation.py  an answer must validate as the request's schema; answers.py: lenient JSON
    retry.py       transient trouble, tried again
    send.py        one request to the server, through litellm (providers.py: our in-process providers)
    router.py      several servers of one model: placement, health, fall-over, one deadline
    dialects.py    each server's structured-output dialect, negotiated and remembered
    config.py      which model, where, how many calls at once (flags, environment, smallville.toml)
    scripted.py    the "scripted" provider: programs that answer prompts (the lab's stand-in, the tests' fakes)
"""

# The room's modules: its public face inside the minds (game/, lab/ and smallville/ use agents.__all__).
__all__ = [
    "accounting", "answers", "asking", "budget", "cache", "config", "dialects", "gateway", "health",
    "providers", "retry", "router", "scripted", "send", "services", "validation",
]
