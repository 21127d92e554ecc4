"""The `smallville` command (cli.py): the game's and the lab's subcommands behind one console script."""
import os

# Before numpy is imported: one BLAS thread. The minds already scan their memories
# on several worker threads; a two-thread OpenBLAS matrix-vector product on two
# busy cores took 0.1-16 ms for a 10k-memory scan, one thread a steady 0.7 ms.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
