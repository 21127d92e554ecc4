"""The `smallville` command (cli.py): the game's and the lab's subcommands behind one console script."""
