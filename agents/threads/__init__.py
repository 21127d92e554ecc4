"""The threads the minds think on, and who goes first.

    pool.py           MindPool: the worker threads, one job per resident, lowest rank first
    beside.py         Beside: a call on a thread of its own while the job that made it goes on
    priority.py       ranks: the player's work first (urgent lanes), then the town's by deadline
    torch_threads.py  how many threads torch takes on this machine (the local embeddings use torch)
"""

# The room's modules: its public face inside the minds (game/, lab/ and smallville/ use agents.__all__).
__all__ = [
    "beside", "pool", "priority", "torch_threads",
]
