"""What every part of the minds leans on (no model, no game).

    home.py      where this copy of Smallville is, and where it writes (saves, logs, caches)
    redact.py    secrets (keys, an endpoint's credentials) out of every file and screen
    errors.py    ConfigError: a setting that cannot be used (the configuration's, the engine's)
    stateful.py  Stateful: the contract of every part a save holds (to_state / from_state)
    types.py     the plain data the simulation and the minds exchange (Action, Event, Situation, ...)
"""

# The room's modules: its public face inside the minds (game/, lab/ and smallville/ use agents.__all__).
__all__ = [
    "errors", "home", "redact", "stateful", "types",
]
