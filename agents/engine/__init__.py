"""The embedded model: SmolLM2-135M run in-process by llama.cpp, a litellm provider.

    local_model.py    the provider: instances, calls, the weights; the engine's environment numbers
    model_pool.py     its instances, shared by every mind: by rank, one kept for the player
    prefix_states.py  kept prompt prefixes (KV states), restored before each call
    masks.py          llguidance token masks for its JSON answers
    gbnf.py           llama.cpp's grammar for a JSON schema, when llguidance is unavailable or refuses one
    guided_decode.py  its own writing loop: forced tokens read in batches, sampling
"""

# The room's modules: its public face inside the minds (game/, lab/ and smallville/ use agents.__all__).
__all__ = [
    "gbnf", "guided_decode", "local_model", "masks", "model_pool", "prefix_states",
]
