"""`python -m smallville ...`: the same as the `smallville` console script."""
import sys

from smallville.cli import main

sys.exit(main())
