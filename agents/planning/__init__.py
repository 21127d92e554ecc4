"""Planning and acting: the day, its hours, its steps, and changes to them.

    items.py         a plan item, and the rules' edits of a plan (cut in, close up)
    plan.py          the day in strokes (paper or guided), repair
    replan.py        the rest of the day asked again (a reaction, an agreement, news, the inner voice)
    agenda.py        dated intentions, events heard of, arrangements: each a slot of the guided day
    arrangements.py  plans made in conversation, for later
    day.py           a new day: summary, yesterday, the day plan; the next action
    decompose.py     an hour of a plan item -> 5-15 minute actions at objects
    react.py         continue or react (and rewrite the rest of the day)
    inner_voice.py   a directive from the player, planned around
    today.py         the day's plan state (Today)
    object_use.py    what residents do with things: the objects that suit an activity, their states
"""

# The room's modules: its public face inside the minds (game/, lab/ and smallville/ use agents.__all__).
__all__ = [
    "agenda", "arrangements", "day", "decompose", "inner_voice", "items", "object_use", "plan", "react", "replan",
    "today",
]
