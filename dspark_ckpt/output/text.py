"""Text as a terminal or a log shows it: what comes from files is escaped, and bounded.

Every format writes names and messages that come from input (a tensor called
``ESC[2J``, a 100 MB name) through here; the table, the CI formats and the one-line
errors of the command line alike. Imports nothing: the command line's usage errors use
it before anything else is loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dspark_ckpt.rules.findings import Finding

MAX_LINE = 8000  # characters of one line shown; a hostile name can be 100 MB


def one_line(text: str) -> str:
    """``text`` with control characters (newlines, terminal escapes) shown escaped; past
    ``MAX_LINE`` characters its middle is left out (the file named at the start and the
    problem at the end stay)."""
    if len(text) > MAX_LINE:
        half = MAX_LINE // 2
        text = f"{text[:half]}[... {len(text) - 2 * half} characters ...]{text[-half:]}"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def printable(text: str) -> str:
    """``text`` with every control character but the newline escaped."""
    return "\n".join(map(one_line, text.split("\n")))


def finding_text(f: Finding) -> str:
    """A finding's one-line text for CI formats: which runtime's rule found it (none for a
    check every runtime shares), the message and the hint."""
    text = f"[{f.profile}] {f.message}" if f.profile else f.message
    return f"{text} (fix: {f.fix_hint})" if f.fix_hint else text
