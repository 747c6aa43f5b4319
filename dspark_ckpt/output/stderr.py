"""The lines a command writes on stderr beside its output: each unreadable input, named.

Whatever the format (the table, JSON, a CI format), an input that cannot be read is
also one ``dspark-ckpt: error: FILE: problem`` line on stderr, where a person or a CI
log sees it first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dspark_ckpt.commands.inspect import UNREADABLE
from dspark_ckpt.output.text import one_line

if TYPE_CHECKING:
    from dspark_ckpt.commands.inspect import Report
    from dspark_ckpt.commands.runs import CheckResult


def error_lines(r: Report) -> list[str]:
    """``dspark-ckpt: error: FILE: problem`` for each unreadable input (DSC001), for stderr."""
    return [
        one_line(
            f"dspark-ckpt: error: {f.file + ': ' if f.file else ''}{f.message}"
            + (f"; {f.hint}" if f.hint else "")  # what to do, where it is not to re-export
        )
        for f in r.findings
        if f.code == UNREADABLE
    ]


def check_error_lines(result: CheckResult) -> list[str]:
    """``error_lines`` of every run, each once (a pair unreadable under many profiles)."""
    return list(
        dict.fromkeys(line for r in result.runs if r.report for line in error_lines(r.report))
    )
