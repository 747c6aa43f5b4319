"""The command line: thin commands over ``dspark_ckpt.commands``, one error table.

``root.py`` holds the one Typer app and the entry point; each command is a module here
that registers on it, with its exit codes and example beside it; ``errors.py`` maps
errors to exit codes, once.
"""

from dspark_ckpt.cli.root import app, main

__all__ = ["app", "main"]
