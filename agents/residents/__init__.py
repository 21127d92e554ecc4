"""Who lives in the town, and the knobs of their minds.

    persona.py        the residents and the scenario, read from a town folder
    townsfolk.py      more residents than the scenario's: a seeded generator
    mind_settings.py  MindSettings: the architecture's knobs, the paper's defaults
"""

# The room's modules: its public face inside the minds (game/, lab/ and smallville/ use agents.__all__).
__all__ = [
    "mind_settings", "persona", "townsfolk",
]
