"""Job tags: the name of one job of a mind. A mind records the tag of the job
it began last (``Mind.begin_job``); a save taken while that job runs maps the
simulation's record of the job onto the same tag (game/saves/saveload.py) to know
whether it has begun, and saves the mind as it was before it."""
from __future__ import annotations

from datetime import datetime

from agents.support.types import Conversation


def job_tag(kind: str, *, conversation: Conversation | None = None, now: datetime | None = None) -> tuple:
    """Names one job of a mind: ``decide`` at a sim time, ``utter`` the next
    line of a conversation, ``end_conversation`` of a conversation at a time.
    The simulation's record of a job in flight maps onto the same tag (see
    game/saves/saveload.py), which is how a save knows whether that job has begun."""
    c = conversation
    if kind == "decide" and now is not None:
        return ("decide", now.isoformat())
    if kind == "prepare" and now is not None:  # ``now``: the start of the chunk broken into steps ahead
        return ("prepare", now.isoformat())
    if kind == "utter" and c is not None:
        return ("utter", tuple(c.participants), c.started.isoformat(), len(c.lines))
    if kind == "end_conversation" and c is not None and now is not None:
        return ("end_conversation", tuple(c.participants), c.started.isoformat(), now.isoformat())
    return (kind,)
