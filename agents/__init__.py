"""The minds of the residents: memory, retrieval, reflection, planning, dialogue.

Nothing here imports pygame or game/: the minds know places only as addresses
`world:sector:arena:object` and the world only through `agents.types`.
"""
