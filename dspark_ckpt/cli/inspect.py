"""``dspark-ckpt inspect``: one drafter against its target, under the profiles that decide."""

import sys
from typing import Annotated

import typer

from dspark_ckpt.cli.console import (
    concise,
    emit,
    header_progress,
    show_progress,
    summaries,
    tables,
)
from dspark_ckpt.cli.destinations import refuse_report_paths
from dspark_ckpt.cli.errors import EXIT_FAIL, EXIT_OK, EXIT_UNCOVERED
from dspark_ckpt.cli.options import (
    DrafterArg,
    Format,
    InspectFormat,
    InspectFormatOpt,
    OutputOpt,
    ProfilesOpt,
    QuietOpt,
    RuntimeOpt,
    TargetOpt,
    TargetVocabOpt,
    VerboseOpt,
    resolve_target,
    runtime_values,
)
from dspark_ckpt.cli.root import command
from dspark_ckpt.errors import CheckpointError

# --mtp: the argument is a target, checked for the MTP / NextN draft layers it carries
MtpOpt = Annotated[
    bool,
    typer.Option(
        "--mtp",
        help="The argument is a TARGET model: check the MTP / NextN draft layers each "
        "runtime reads from it (DeepSeek V3, Qwen3-Next, Qwen3.5, GLM-4.5, MiMo, ...).",
    ),
]


@command(
    "inspect",
    exit_codes=[
        "0  deployable under the deciding profile(s): no error finding",
        "1  not deployable, including an unreadable checkpoint",
        "2  usage error: bad arguments, a profile of another family, a path that does not "
        "exist, an output not written",
        "3  not judged: no profile covers the drafter's family (DSC108); --mtp: no MTP "
        "loader modelled for the target (DSC807)",
    ],
    example="dspark-ckpt inspect fixtures/padded --target fixtures/targets/small",
)
def inspect_cmd(
    drafter: DrafterArg,
    target: TargetOpt = None,
    target_vocab_size: TargetVocabOpt = None,
    profile: ProfilesOpt = None,
    runtime: RuntimeOpt = None,
    fmt: InspectFormatOpt = InspectFormat.table,
    output: OutputOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
    mtp: MtpOpt = False,
) -> None:
    """Classify a drafter against its target and check every tensor and invariant; with
    --mtp, check a target's own MTP draft layers."""
    from dspark_ckpt.commands.inspect import inspect_checkpoint, unreadable_target
    from dspark_ckpt.output.json import inspect_obj
    from dspark_ckpt.output.stderr import error_lines
    from dspark_ckpt.profiles.registry import parse_profiles

    def runs() -> list:
        from dspark_ckpt.commands.runs import run_of_report

        # not covered (no profile): the DSC108 finding alone
        return [run_of_report(report.under(p)) for p in report.profiles] or [run_of_report(report)]

    full = verbose or fmt is InspectFormat.full
    fmt = Format.table if fmt is InspectFormat.full else Format(fmt.value)
    if mtp:
        from dspark_ckpt.cli.mtp import inspect_mtp_cmd

        refuse_report_paths(
            [(f"the {fmt.value} report (-o)", output)], [("the target", drafter, True)]
        )
        refused = {
            "--target": target,
            "--target-vocab-size": target_vocab_size,
            "--profile": profile,
        }
        inspect_mtp_cmd(drafter, runtime, fmt, output, quiet, refused)
    profile = parse_profiles([*(profile or []), *runtime_values(runtime)])
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
    refuse_other_family(report)
    for line in error_lines(report):
        print(line, file=sys.stderr)
    emit(
        fmt,
        output,
        quiet,
        json_obj=lambda: inspect_obj(report),
        runs=runs,
        full=lambda console: (
            tables().print_inspect(report, console)
            if full
            else concise().print_concise(report, console)
        ),
        summary=lambda console: console.print(summaries().inspect_summary(report), soft_wrap=True),
        plain=not full,  # the concise output draws without Rich
    )
    if not report.covered:
        raise typer.Exit(EXIT_UNCOVERED)
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FAIL)


def refuse_other_family(report) -> None:
    """A ``--profile`` of another family than the drafter's is a usage error naming the
    profile of the same runtime that judges this drafter (``--profile all`` is the
    family's, never this)."""
    from dspark_ckpt.errors import UsageError
    from dspark_ckpt.profiles.registry import PROFILES, applicable_profiles

    if not report.not_applicable or not report.covered:  # not judged: exit 3 says it
        return
    name = report.not_applicable[0]
    family, runtime = report.family, PROFILES[name].runtime
    mine = applicable_profiles(family)
    same = [n for n in mine if PROFILES[n].runtime == runtime] or mine
    raise UsageError(
        f"--profile {name} judges {PROFILES[name].family} drafters, and this drafter's family "
        f"is {family}: use --profile {same[0]} (its profiles: {', '.join(mine)})"
    )
