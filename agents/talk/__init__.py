"""Dialogue: whether to talk, the lines, the memo of a talk.

    converse.py  whether to talk, lines of dialogue, the memo of a talk (Social)
    dialogue.py  the grounded mode's dialogue acts: the acts that fit now, worded; the model chooses
    wording.py   how an act is worded: the voice, seeded phrasings, the fragment rule
"""

# The room's modules: its public face inside the minds (game/, lab/ and smallville/ use agents.__all__).
__all__ = [
    "converse", "dialogue", "wording",
]
