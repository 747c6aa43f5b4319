"""The command line: thin commands over ``dspark_ckpt.commands``, one error table.

``root.py`` holds the one Typer app and the entry point; each command is a module here
that registers on it, with its exit codes and example beside it; ``errors.py`` maps
errors to exit codes, once.

This module imports nothing heavy, so that ``main`` sets its signal handlers before the
command line is imported (a third of a second): a SIGINT or SIGTERM arriving meanwhile
says so in one line and exits 128 + its number, as later (nothing is written yet), not a
``KeyboardInterrupt`` traceback or a silent death.
"""

import os
import signal


def _before_start(signum, frame) -> None:
    said = "interrupted" if signum == signal.SIGINT else "terminated"
    os.write(2, f"dspark-ckpt: {said}; nothing written\n".encode())
    os._exit(128 + signum)


def main() -> None:
    """The entry point (``root.main``), its handlers set first, the garbage collector off
    while the command line is imported (``collector.py``)."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _before_start)
    from dspark_ckpt.cli import collector

    collector.importing()
    from dspark_ckpt.cli.root import main as run  # sets the handlers of a running command

    try:
        run()
    finally:
        collector.ended()


def __getattr__(name: str):
    if name == "app":
        from dspark_ckpt.cli.root import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "main"]
