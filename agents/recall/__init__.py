"""Memory and retrieval: what a resident remembers, and what it makes of it.

    memory.py      the memory stream and the paper's retrieval (numpy; an int8 scan for big streams)
    embeddings.py  all-MiniLM-L6-v2 (or a litellm embedding model), cached
    embed_process.py  the local embedding model in a process of its own (a batch per token length)
    spatial.py     the places a resident knows (world:sector:arena:object)
    thinking.py    Thinking: what every part of the architecture needs of the mind it works for
    grounding.py   the grounded mode: the model picks a memory, a rule words it (chooses: whether it picks)
    perceive.py    events in view -> observations (Senses: retention)
    reflect.py     questions -> insights that cite their evidence
    insights.py    for a choosing model: candidate insights derived by rule from the memories they cite
"""

# The room's modules: its public face inside the minds (game/, lab/ and smallville/ use agents.__all__).
__all__ = [
    "embed_process", "embeddings", "grounding", "insights", "memory", "perceive", "reflect", "spatial", "thinking",
]
