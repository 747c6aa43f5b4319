"""Text as a terminal or a log shows it: what comes from files is escaped, bounded, and
never obeyed.

Every format writes names and messages that come from input (a tensor called
``ESC[2J``, a 100 MB name, an architecture ``X\\n::error::...``) through here; the
table, the CI formats and the one-line errors of the command line alike. Imports
nothing: the command line's usage errors use it before anything else is loaded.

GitHub's runner reads a job's log line by line and acts on two kinds of line
(actions/runner, ``src/Runner.Common/ActionCommand.cs``): one that starts with ``::``
once its leading whitespace is trimmed (``TryParseV2``: ``::error file=...::``,
``::stop-commands::TOKEN``), and one holding ``##[`` anywhere (the legacy
``TryParse``). ``inert`` escapes one character of each; every value shown goes through
it (``one_line``), and the table runs it again over each line it draws, where folding a
long value can bring a ``::`` to a line's start.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dspark_ckpt.commands.runs import CheckRun
    from dspark_ckpt.rules.findings import Finding

MAX_LINE = 8000  # characters of one line shown; a hostile name can be 100 MB
COMMAND = "::"  # a workflow command, where a line starts (after blanks)
LEGACY = "##["  # the runner's legacy command, anywhere in a line


def hex_escape(c: str) -> str:
    r"""``:`` as ``\x3a``: how text escapes a character (as the control characters are)."""
    return f"\\x{ord(c):02x}"


def command_marks(line: str) -> list[int]:
    """Where one line holds what GitHub's runner would obey: the first ``:`` of a ``::``
    that follows the blanks starting the line (whitespace and anything invisible: more
    than the runner trims), and the ``[`` of every ``##[``."""
    marks = []
    start = 0
    while start < len(line) and (line[start].isspace() or not line[start].isprintable()):
        start += 1
    if line.startswith(COMMAND, start):
        marks.append(start)
    at = line.find(LEGACY)
    while at >= 0:
        marks.append(at + 2)
        at = line.find(LEGACY, at + 2)
    return marks


def inert(text: str, escape: Callable[[str], str] = hex_escape) -> str:
    """``text`` with nothing on any of its lines that GitHub's runner would obey: each
    character ``command_marks`` finds is written ``escape(c)`` (JSON passes ``\\u005b``:
    read back, the value is unchanged). Lines end where the runner ends them (``\\n``,
    ``\\r``) and wherever else ``str.splitlines`` does."""
    if COMMAND not in text and LEGACY not in text:
        return text
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if marks := command_marks(line):
            for at in sorted(marks, reverse=True):
                line = line[:at] + escape(line[at]) + line[at + 1 :]
            lines[i] = line
    return "".join(lines)


def one_line(text: str) -> str:
    """``text`` with control characters (newlines, terminal escapes) shown escaped and
    what a CI runner would obey disarmed (``inert``); past ``MAX_LINE`` characters its
    middle is left out (the file named at the start and the problem at the end stay)."""
    if len(text) > MAX_LINE:
        half = MAX_LINE // 2
        text = f"{text[:half]}[... {len(text) - 2 * half} characters ...]{text[-half:]}"
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return inert(text)


def printable(text: str) -> str:
    """``text`` with every control character but the newline escaped, each line as
    ``one_line`` shows it."""
    return "\n".join(map(one_line, text.split("\n")))


def finding_text(f: Finding) -> str:
    """A finding's one-line text for CI formats: which runtime's rule found it (none for a
    check every runtime shares), the message and the hint."""
    text = f"[{f.profile}] {f.message}" if f.profile else f.message
    return f"{text} (fix: {f.fix_hint})" if f.fix_hint else text


def partial_line(run: CheckRun) -> str | None:
    """A partial run in one line for CI formats: the checks not made, grouped under why,
    and what the gate made of it (failed, or allowed with its written reason); None for
    a whole verdict."""
    if not run.partial:
        return None
    by_reason: dict[str, list[str]] = {}
    for n in run.not_checked:
        by_reason.setdefault(n.reason, []).append(n.code)
    why = "; ".join(f"{reason} ({', '.join(codes)})" for reason, codes in by_reason.items())
    if run.partial_fails:
        verdict = ' (fails the gate: allow it with allow-partial = "why", or --allow-partial)'
    elif run.partial_allowed is not None:
        verdict = f" (allowed: {run.partial_allowed})"
    else:
        verdict = ""
    return f"partial: {len(run.not_checked)} check(s) not made{verdict}: {why}"
