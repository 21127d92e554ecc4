"""Dialogue: whether to talk, the lines, the memo of a talk.

    converse.py   whether to talk, lines of dialogue, the memo of a talk
    speaker.py    what talk needs of a mind (Talker) and its conversation state (Social)
    acts.py       the dialogue acts as values (Act, the one registry ACTS): offered, worded, left behind, recorded
    dialogue.py   the grounded mode's turn: the acts that fit now, worded; the model chooses
    knowing.py    what the speaker knows at a turn (Turn): memories, dated events, today's plan, what not to say
    news.py       news, invitations and offers to meet: what the speaker tells
    answers.py    answers to a question or an offer (accept, decline)
    reactions.py  reactions to what was said, questions, follow-ups, a line's topic
    wording.py    how an act is worded: the voice, seeded phrasings, the fragment rule
"""

# The room's modules: its public face inside the minds (game/, lab/ and smallville/ use agents.__all__).
__all__ = [
    "acts", "answers", "converse", "dialogue", "knowing", "news", "reactions", "speaker", "wording",
]
