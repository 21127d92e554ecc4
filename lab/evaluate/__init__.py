"""`smallville evaluate`: the paper's evaluations (Park et al. 2023, section 7) on any run or save.

    smallville evaluate runs/NAME                 # a run folder: its events and its newest save
    smallville evaluate saves/x.sqlite            # a save alone (it carries the sim's event log)
    smallville evaluate runs/NAME --no-interviews # memory-based measures only: no language model
    smallville evaluate runs/NAME --battery [--agent "Maria Lopez"]   # the interview battery -> interviews.md

Writes ``evaluation.json``, ``evaluation.md`` and PNG plots (``diffusion.png``,
``relationships.png``, ``coordination.png``, ``spread.png``: who told whom) into the run
folder (or ``--out``), with the paper's figures beside ours:

1. Information diffusion: the share of residents who know of Sam Moore's
   candidacy and of Isabella's Valentine's Day party, at the start and the
   end, judged two independent ways: (a) an interview of each resident
   (``agents.interview.respond(..., remember=False)``, so the minds are left
   untouched) classified by a rule judge (``judge.py``; ``--judge model``
   asks the model instead), and (b) whether the memory stream holds it. Over
   time: the first time each resident heard it (dialogue lines and memories
   that mention it). Paper: candidacy 4% -> 32%, party 4% -> 52%.
2. Relationship formation: the density of the who-knows-whom graph (an
   undirected edge A-B when A knows B or B knows A) at the start (who names
   whom in the seed descriptions) and the end (plus the people each mind
   knows: met, talked with or seen by name). Paper: 0.167 -> 0.74.
3. Coordination: who was invited (heard of the party from someone), who
   planned to go, and who was at Hobbs Cafe between 17:00 and 19:00 on
   Feb 14. Paper: 5 of 12 invitees came.

Then, by rule from the event log: facts passed on (``passing.py``), dialogue
(``dialogue.py``), whether talk holds together (``holding.py``: meetings agreed
and kept, the party's yes-then-came, contradictions, echoes, recitals, news told
back and told new) and the run day by day (``days.py``).

"Start" is the scenario's beginning (the seed descriptions and seeded
thoughts, rebuilt exactly as a run starts); "end" is the newest save.
"""
from __future__ import annotations

from game.saves.saved_run import Target, load_target
from lab.evaluate.battery import BATTERY, run_battery
from lab.evaluate.command import evaluate, main_evaluate
from lab.evaluate.report import render_markdown, write_outputs

__all__ = [
           "BATTERY",
           "Target",
           "evaluate",
           "load_target",
           "main_evaluate",
           "render_markdown",
           "run_battery",
           "write_outputs",
]
