"""Exit codes, and the one table of what an error a command lets out becomes.

Commands raise; none catches its own errors to pick an exit code. ``reported`` (applied
to every command where it is registered, ``cli/root.py``) turns what escapes into one
``dspark-ckpt: error: ...`` line on stderr naming the problem and the exit code below;
a command whose JSON output promises one object even on failure (``fix``, ``verify``)
also prints its error object on stdout, for the errors that name a file.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from dspark_ckpt.errors import CheckpointError, UsageError, WriteError

# 0 deployable (no error finding); 1 not deployable, including an unreadable input;
# 2 usage error, including an output that cannot be written; 3 (inspect) no profile
# covers the drafter's family: not judged
EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNCOVERED = 0, 1, 2, 3

# The table: an error -> its exit code, and whether it names a file (then the JSON error
# object is printed where the command promises one). The first row that matches applies
# (a WriteError is a UsageError).
ERRORS: tuple[tuple[type[Exception], int, bool], ...] = (
    (WriteError, EXIT_USAGE, True),  # an output that cannot be written
    (UsageError, EXIT_USAGE, False),  # bad arguments or configuration, no such path
    (CheckpointError, EXIT_FAIL, True),  # an input unreadable or refused
    (OSError, EXIT_FAIL, True),  # reading, past what the readers name themselves
)


def as_named(err: Exception) -> Exception:
    """``err`` naming its file: an ``OSError`` (reading; writes raise ``WriteError``)
    becomes the ``CheckpointError`` a reader would have raised."""
    if isinstance(err, OSError):
        return CheckpointError(err.filename, f"{err.strerror or err}; nothing written")
    return err


@contextmanager
def reported(json_schema: str | None = None) -> Iterator[None]:
    """Apply the table to what the block lets out: one line on stderr, the JSON error
    object of schema ``json_schema`` on stdout for an error that names a file (None:
    never), and the exit code."""
    try:
        yield
    except tuple(kind for kind, _, _ in ERRORS) as caught:
        code, names_file = next((c, n) for kind, c, n in ERRORS if isinstance(caught, kind))
        err = as_named(caught)
        from dspark_ckpt.output.text import one_line

        print(one_line(f"dspark-ckpt: error: {err}"), file=sys.stderr)
        if names_file and json_schema is not None:
            from dspark_ckpt.output.json import error_obj, to_json

            print(to_json(error_obj(json_schema, err)))
        raise typer.Exit(code) from None
