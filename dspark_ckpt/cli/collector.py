"""The garbage collector over a command-line process: off while the command line is
imported (``cli.main``), frozen and on again when the command starts (``root.with_color``).

Every object the imports of Typer and the command line make lives to the end, and the
collector's passes over them found nothing to free. At the end what is left is frozen too:
the process's exit frees it; the collector's last passes over every object at shutdown
cost a twentieth of an ``inspect``.
"""

import gc


def importing() -> None:
    """The command line is about to be imported: the collector is off until ``started``."""
    gc.disable()


def started() -> None:
    """A command starts: the objects the imports made are frozen and the collector, off
    since ``importing``, is on again. In-process callers (the tests, a library), where it
    was never turned off, are left as they are."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def ended() -> None:
    """The command is done: what is left is frozen, for the process's exit to free."""
    gc.freeze()
