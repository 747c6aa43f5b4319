"""The two error types that cross the library's boundary.

Every problem with an input becomes one of these, with a one-line message that
names the file. Nothing else is meant to escape: the CLI turns a
``CheckpointError`` into an error finding (exit 1) and a ``UsageError`` into a
one-line message (exit 2). A ``WriteError`` (an output that cannot be written) is a
``UsageError`` that names its destination; a ``NetworkError`` (the Hub could not be
reached) is a ``UsageError`` told apart by its kind.

Both redact credentials (``redact``) from their messages as they are made, so no output
format, terminal or CI, can show a password that came in a URL (``HF_ENDPOINT``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

SHOWN = 5  # names a message lists before "and N more"

# the userinfo of a URL (scheme://user:password@host), in any scheme but hf:// (a Hub id,
# org/name@revision, holds no credentials): what RFC 3986 allows there, up to its "@"
_USERINFO = r"\b((?!hf://)[A-Za-z][A-Za-z0-9+.-]*://)[^\s/?#@'\"<>]+@"


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it shown as ``***``:
    ``http://user:secret@host`` becomes ``http://***@host``. Idempotent."""
    return re.sub(_USERINFO, r"\1***@", text) if "@" in text and "://" in text else text


def whole_number(text: str, digits: int = 18) -> int | None:
    """``text`` as a whole number when it is one in ASCII digits, at most ``digits`` of them
    (a layer index a module tree can hold, a size a header can state); None otherwise.
    ``str.isdigit`` alone also takes ``²`` and ``٢``, which ``int`` refuses or reads as another
    name, and ``int`` refuses more than 4300 digits: input must reach neither as a crash."""
    if 0 < len(text) <= digits and text.isascii() and text.isdigit():
        return int(text)
    return None


def few(names: Sequence[str], k: int = SHOWN) -> str:
    """The first ``k`` of ``names`` and how many more: every list a message quotes from
    input (missing shards, stray files) goes through here, so no input can make a message
    unbounded."""
    shown = ", ".join(names[:k])
    return shown + (f" and {len(names) - k} more" if len(names) > k else "")


class CheckpointError(Exception):
    """A checkpoint file or config is unreadable, malformed or unsafe."""

    def __init__(self, path: str | Path | None, message: str, hint: str | None = None) -> None:
        self.path = None if path is None else str(path)
        self.message = redact(message)
        # what to do, where it is not DSC001's "re-export" (a short download)
        self.hint = None if hint is None else redact(hint)
        super().__init__(str(self))

    def __str__(self) -> str:
        said = f"{self.message}; {self.hint}" if self.hint else self.message
        return f"{self.path}: {said}" if self.path else said


class UsageError(Exception):
    """The command was called wrongly: bad arguments, a missing path, an unresolvable target."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class NetworkError(UsageError):
    """The Hub could not be consulted: unreachable, a DNS failure, a timeout, an answer
    that is no answer (HTTP 5xx, a broken protocol), or HF_HUB_OFFLINE with nothing
    cached. No verdict is made (exit 2, as for a usage error); the CLI tells it apart in
    its message and in the JSON error object's ``kind``: retrying may help, editing the
    command does not."""


class WriteError(UsageError):
    """An output file or folder cannot be written (read-only, disk full): names the
    destination the user asked for, never an internal temporary file."""

    def __init__(self, path: str | Path, reason: str) -> None:
        self.path = str(path)
        self.message = f"cannot write: {reason}; nothing written"
        super().__init__(f"{self.path}: {self.message}")


class TargetError(UsageError):
    """The target's config cannot give its vocab size (malformed, no vocab_size): a usage
    error for ``inspect``, whose --target names it; ``check`` fails that pair's runs with
    the ``CheckpointError`` it carries, as for unreadable target weights."""

    def __init__(self, cause: CheckpointError) -> None:
        self.cause = cause
        super().__init__(f"target {cause}")
