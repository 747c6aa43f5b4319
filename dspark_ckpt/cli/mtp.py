"""``dspark-ckpt inspect TARGET --mtp``: the target's MTP / NextN draft layers, per runtime.

Thin: ``commands/mtp.py`` checks, ``output/mtp.py`` shows; the exit codes are inspect's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from dspark_ckpt.cli.console import emit, header_progress, show_progress
from dspark_ckpt.cli.errors import EXIT_FAIL, EXIT_OK, EXIT_UNCOVERED
from dspark_ckpt.cli.options import Format
from dspark_ckpt.errors import UsageError


def inspect_mtp_cmd(
    target: str,
    runtime: list[str] | None,
    fmt: Format,
    output: Path | None,
    quiet: bool,
    refused: dict[str, object],
) -> None:
    """Run the MTP check on ``target``; ``refused``: the inspect options that mean a
    drafter (``--target``, ...), each a usage error with ``--mtp``."""
    from dspark_ckpt.commands.mtp import inspect_mtp
    from dspark_ckpt.output import mtp as out
    from dspark_ckpt.output.stderr import error_lines

    given = [name for name, value in refused.items() if value]
    if given:
        raise UsageError(
            f"{given[0]} names a drafter's target; with --mtp the one argument is the target "
            "itself: dspark-ckpt inspect TARGET --mtp [--runtime vllm|sglang]"
        )
    with header_progress(show_progress(fmt, quiet)):
        report = inspect_mtp(target, runtime)
    for line in error_lines(report):  # an unreadable target: one line, as inspect says it
        print(line, file=sys.stderr)

    def show(console) -> None:
        for line in out.lines(report):
            console.print(line, soft_wrap=True, markup=False, highlight=False)

    emit(
        fmt,
        output,
        quiet,
        json_obj=lambda: out.mtp_obj(report),
        runs=lambda: out.check_runs(report),
        full=show,
        summary=lambda c: c.print(out.summary(report), soft_wrap=True),  # a PlainConsole
    )
    if report.target is not None and not report.covered:
        raise typer.Exit(EXIT_UNCOVERED)
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FAIL)
