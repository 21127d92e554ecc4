"""Watching a recorded run: ``smallville replay`` (see game/recording.py for what is recorded).

    reader.py     a recording file -> arrays a replay can seek in (no pygame)
"""
