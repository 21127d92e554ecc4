"""The paper's controlled evaluation (Park et al. 2023, section 6), built in: residents
of a save interviewed under conditions that hide memory kinds (conditions.py: the
paper's five, or a researcher's own, as data; interviews.py), people's answers for the
human condition and blind ranking by people in a terminal (terminal.py), ranking by a
judge model (judge.py), ratings with a TrueSkill-like model, win rates and the paper's
tests (ratings.py, stats.py), measures that need no rater (measures.py), the report and
its figure (report.py), two evaluations side by side (compare.py); the evaluation
folder's files (folder.py) and the commands (command.py).
"""
from __future__ import annotations

from lab.controlled.command import main_ablations, main_rate
from lab.controlled.compare import main_compare_evaluations
from lab.controlled.conditions import PAPER_CONDITIONS, Condition, load_conditions

__all__ = ["PAPER_CONDITIONS", "Condition", "load_conditions", "main_ablations", "main_compare_evaluations",
           "main_rate"]
