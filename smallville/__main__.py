"""`python -m smallville ...`: the same as the `smallville` console script."""
import sys

from smallville.cli import main

if __name__ == "__main__":  # not when a spawned process (the embedding model's) imports it
    sys.exit(main())
