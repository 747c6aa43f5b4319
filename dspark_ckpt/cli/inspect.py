"""``dspark-ckpt inspect``: one drafter against its target, under the profiles that decide."""

import sys

import typer

from dspark_ckpt.cli.console import emit, header_progress, show_progress, summaries, tables
from dspark_ckpt.cli.destinations import refuse_report_paths
from dspark_ckpt.cli.errors import EXIT_FAIL, EXIT_OK, EXIT_UNCOVERED
from dspark_ckpt.cli.options import (
    DrafterArg,
    Format,
    FormatOpt,
    OutputOpt,
    ProfilesOpt,
    QuietOpt,
    RuntimeOpt,
    TargetOpt,
    TargetVocabOpt,
    resolve_target,
)
from dspark_ckpt.cli.root import command
from dspark_ckpt.errors import CheckpointError


@command(
    "inspect",
    exit_codes=[
        "0  deployable under the deciding profile(s): no error finding",
        "1  not deployable, including an unreadable checkpoint",
        "2  usage error: bad arguments, a path that does not exist, an output not written",
        "3  not judged: no profile covers the drafter's family (DSC108)",
    ],
    example="dspark-ckpt inspect fixtures/padded --target fixtures/targets/small",
)
def inspect_cmd(
    drafter: DrafterArg,
    target: TargetOpt = None,
    target_vocab_size: TargetVocabOpt = None,
    profile: ProfilesOpt = None,
    runtime: RuntimeOpt = None,
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Classify a drafter against its target and check every tensor and invariant."""
    from dspark_ckpt.commands.inspect import inspect_checkpoint, unreadable_target
    from dspark_ckpt.output.json import inspect_obj
    from dspark_ckpt.output.stderr import error_lines
    from dspark_ckpt.profiles.registry import parse_profiles

    def runs() -> list:
        from dspark_ckpt.commands.runs import run_of_report

        # not covered (no profile): the DSC108 finding alone
        return [run_of_report(report.under(p)) for p in report.profiles] or [run_of_report(report)]

    profile = parse_profiles([*(profile or []), *(runtime or [])])
    refuse_report_paths(
        [(f"the {fmt.value} report (-o)", output)],
        [("the drafter", drafter, True), ("the target", target, True)],
    )
    with header_progress(show_progress(fmt, quiet)):
        try:
            tgt = resolve_target(target, target_vocab_size)
        except CheckpointError as err:  # the target's weights are unreadable: a finding
            report = unreadable_target(drafter, profile, err)
        else:
            report = inspect_checkpoint(drafter, tgt, profile)
    for line in error_lines(report):
        print(line, file=sys.stderr)
    emit(
        fmt,
        output,
        quiet,
        json_obj=lambda: inspect_obj(report),
        runs=runs,
        full=lambda console: tables().print_inspect(report, console),
        summary=lambda console: console.print(summaries().inspect_summary(report), soft_wrap=True),
    )
    if not report.covered:
        raise typer.Exit(EXIT_UNCOVERED)
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FAIL)
