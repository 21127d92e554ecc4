"""Controlled experiments: `smallville fork` starts a control arm and a treatment
arm (a whisper, an object's state, a resident removed or added, another model)
from the same moment of a run, several seeds each, here, in local processes or
on a Ray cluster (fork.py, branch.py, runners.py); `smallville compare` reports
the arms side by side with their spread across seeds (compare.py)."""
