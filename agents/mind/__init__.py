"""A resident's mind whole: the room the simulation talks to (through agents.__all__).

    api.py         ResidentMind: what the game may ask of a resident's mind (a protocol; Mind implements it)
    core.py        Mind: the parts tied together behind the simulation's small API (its jobs, the
                   services it gives its parts); two of its jobs beside it, each a base class of Mind:
    remembering.py its memory as the parts use it: stored in batches, retrieved as the paper does
    keeping.py     what other threads and saves see of it: the published copy, the capture as each job
                   begins, the state round trip
    deciding.py    a decide job as named steps, tried in a declared order
    inspection.py  Inspection: the typed snapshot the panels read
    job_tags.py    the name of one job of a mind (what a save asks of a running job)
    owed.py        the exchanges a mind still owes its memory
    interview.py   one in-character answer (the visitor's chat, interviews): a job run on a whole mind
"""

# The room's modules: its public face inside the minds (game/, lab/ and smallville/ use agents.__all__).
__all__ = [
    "api", "core", "deciding", "inspection", "interview", "job_tags", "keeping", "owed", "remembering",
]
