"""The town and everything the player sees."""
import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # pygame's import greeting is noise in our output
