"""Exit codes, and the one table of what an error a command lets out becomes.

Commands raise; none catches its own errors to pick an exit code. ``reported`` (applied
to every command where it is registered, ``cli/root.py``) turns what escapes into one
``dspark-ckpt: error: ...`` line on stderr naming the problem and the exit code below;
under ``--format json`` every command also prints one JSON error object on stdout that
names the error's kind (usage, network, io, checkpoint): ``fix`` and ``verify`` in their
own schema, the others in ``dspark-ckpt/error/v1`` (docs/json.md).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from dspark_ckpt.errors import CheckpointError, NetworkError, UsageError, WriteError

# 0 deployable (no error finding); 1 not deployable, including an unreadable input;
# 2 usage error, including an output that cannot be written and a Hub that cannot be
# reached (no verdict made: the message and the JSON kind tell them apart); 3 (inspect) no profile
# covers the drafter's family: not judged
EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNCOVERED = 0, 1, 2, 3

# The table: an error -> its exit code and its kind (the JSON error object's "kind"). The
# first row that matches applies (a WriteError and a NetworkError are UsageErrors).
ERRORS: tuple[tuple[type[Exception], int, str], ...] = (
    (WriteError, EXIT_USAGE, "io"),  # an output that cannot be written
    (NetworkError, EXIT_USAGE, "network"),  # the Hub unreachable, DNS, a timeout, offline
    (UsageError, EXIT_USAGE, "usage"),  # bad arguments or configuration, no such path
    (CheckpointError, EXIT_FAIL, "checkpoint"),  # an input unreadable or refused
    (OSError, EXIT_FAIL, "io"),  # reading, past what the readers name themselves
)


def as_named(err: Exception) -> Exception:
    """``err`` naming its file: an ``OSError`` (reading; writes raise ``WriteError``)
    becomes the ``CheckpointError`` a reader would have raised."""
    if isinstance(err, OSError):
        return CheckpointError(err.filename, f"{err.strerror or err}; nothing written")
    return err


def said(err: Exception, kind: str) -> str:
    """The one stderr line of ``err``: a network failure says so first."""
    from dspark_ckpt.output.text import one_line

    return one_line(f"dspark-ckpt: error: {'network: ' if kind == 'network' else ''}{err}")


def json_error(schema: str, command: str | None, kind: str, err: Exception) -> None:
    """The JSON error object on stdout (``--format json``): one object, as for a result."""
    from dspark_ckpt.output.json import error_obj, to_json

    print(to_json(error_obj(schema, err, kind, command)))


@contextmanager
def reported(json_schema: str | None = None, command: str | None = None) -> Iterator[None]:
    """Apply the table to what the block lets out: one line on stderr, the JSON error
    object of schema ``json_schema`` on stdout (None: not JSON output), and the exit code."""
    try:
        yield
    except tuple(kind for kind, _, _ in ERRORS) as caught:
        code, kind = next((c, k) for cls, c, k in ERRORS if isinstance(caught, cls))
        err = as_named(caught)
        print(said(err, kind), file=sys.stderr)
        if json_schema is not None:
            json_error(json_schema, command, kind, err)
        raise typer.Exit(code) from None
