"""``dspark-ckpt check``: the pre-deploy gate over every pair of a configuration."""

import sys
from pathlib import Path
from typing import Annotated

import typer

from dspark_ckpt.cli.console import check_tables, emit, show_progress, stderr, summaries
from dspark_ckpt.cli.destinations import refuse_report_paths
from dspark_ckpt.cli.errors import EXIT_FAIL, EXIT_OK
from dspark_ckpt.cli.options import AlsoOpt, Format, FormatOpt, OutputOpt, QuietOpt, also_report
from dspark_ckpt.cli.root import command


@command(
    "check",
    exit_codes=[
        "0  every pair passes (a partial run only where allowed)",
        "1  a pair fails, or a run is partial (a check not made) and not allowed: "
        'allow-partial = "reason" in the configuration, or --allow-partial',
        "2  bad configuration or arguments",
    ],
    example="dspark-ckpt check --format github --also sarif:out.sarif --also table:-",
)
def check_cmd(
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            metavar="PATH",
            help="A dspark-ckpt.toml or pyproject.toml (default: the one in the current folder).",
        ),
    ] = None,
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
    quiet: QuietOpt = False,
    also: AlsoOpt = None,
    allow_partial: Annotated[
        bool,
        typer.Option(
            "--allow-partial",
            help="Let a run whose verdict is partial (a check not made: a target without "
            "weights, or target-vocab-size) pass, where the configuration gives no "
            "allow-partial reason. It still says partial, in every format.",
        ),
    ] = False,
) -> None:
    """The pre-deploy gate: every drafter/target pair of the configuration, one exit code."""
    from dspark_ckpt.cli.progress import DelayedProgress
    from dspark_ckpt.commands.check import run_check
    from dspark_ckpt.commands.check_config import load_config
    from dspark_ckpt.output.json import check_obj
    from dspark_ckpt.output.stderr import check_error_lines

    reports = [also_report(value) for value in also or []]
    cfg = load_config(config)
    inputs = [("the configuration", cfg.path, False)]
    for pair in cfg.pairs:
        inputs += [(f"the drafter of {pair.key}", pair.drafter, True)]
        inputs += [(f"the target of {pair.key}", pair.target, True)]
    refuse_report_paths(
        [
            (f"the {fmt.value} report (-o)", output),
            *((f"the {f.value} report (--also)", path) for f, path in reports),
        ],
        inputs,
    )
    enabled = show_progress(fmt, quiet)
    with DelayedProgress(
        "checking", len(cfg.pairs), stderr() if enabled else None, enabled=enabled
    ) as bar:
        result = run_check(
            cfg, on_pair=lambda pair: bar.advance(pair.name), allow_partial=allow_partial
        )
    for line in check_error_lines(result):
        print(line, file=sys.stderr)
    emit(
        fmt,
        output,
        quiet,
        json_obj=lambda: check_obj(result),
        runs=lambda: result.runs,
        full=lambda console: check_tables().print_check(result, console),
        summary=lambda console: console.print(summaries().check_summary(result), soft_wrap=True),
        also=reports,
    )
    raise typer.Exit(EXIT_OK if result.ok else EXIT_FAIL)
