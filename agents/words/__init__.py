"""Language by rule: what the minds say and check without a model.

    text.py              small text helpers: a model's free text made fit (Text160, clean_text, short_text)
    activity.py          what a resident is doing, in words fit for a timeline; fallback steps
    dated.py             dated events in words ("a party at Hobbs Cafe on February 14, from 5 pm to 7 pm")
    emoji_vocabulary.py  the emoji a resident may show (only those the game can draw), and an activity's
"""

# The room's modules: its public face inside the minds (game/, lab/ and smallville/ use agents.__all__).
__all__ = [
    "activity", "dated", "emoji_vocabulary", "text",
]
