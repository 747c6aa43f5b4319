"""The command line: thin commands over ``dspark_ckpt.commands``, one error table."""

from dspark_ckpt.cli.app import app, main

__all__ = ["app", "main"]
