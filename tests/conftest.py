"""Shared test set-up: the repository root and tests/ on sys.path (so tests can
`import game`, `import agents` and `from mapkit import write_map`)."""
from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
for p in (str(REPO), str(TESTS)):
    if p not in sys.path:
        sys.path.insert(0, p)
