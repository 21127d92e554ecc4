"""The paper's figures the evaluations compare with (Park et al. 2023, section 7:
25 agents over two sim days). The two facts' shares are in judge.FACTS."""
from __future__ import annotations

PAPER_DENSITY = (0.167, 0.74)

PAPER_INVITED, PAPER_ATTENDED = 12, 5

PAPER_N = 25
