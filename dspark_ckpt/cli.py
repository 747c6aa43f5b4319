"""The command line: parse, call the library, render, map to an exit code.

Exit codes: 0 deployable (no error finding), 1 not deployable (including an
unreadable checkpoint), 2 usage error. Machine output goes to stdout; logs and
errors to stderr. Bad input never shows a traceback.
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from dspark_ckpt import __version__
from dspark_ckpt.errors import CheckpointError, UsageError

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2

app = typer.Typer(
    name="dspark-ckpt",
    help="Check speculative-decoding drafter checkpoints against their target, before deployment.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class Format(str, Enum):
    table = "table"
    json = "json"


def stdout() -> Console:
    return Console(file=sys.stdout, soft_wrap=False)


def stderr() -> Console:
    return Console(file=sys.stderr, soft_wrap=True)


def fail_usage(message: str) -> NoReturn:
    from dspark_ckpt.render import one_line

    print(one_line(f"dspark-ckpt: error: {message}"), file=sys.stderr)
    raise typer.Exit(EXIT_USAGE)


DrafterArg = Annotated[
    str, typer.Argument(help="Drafter checkpoint: a directory, a .safetensors file or an index.")
]
TargetOpt = Annotated[
    str | None,
    typer.Option("--target", help="Target model directory (config.json, optional weights)."),
]
TargetVocabOpt = Annotated[
    int | None,
    typer.Option("--target-vocab-size", help="The target's logical vocab size Vt."),
]
ProfileOpt = Annotated[
    str, typer.Option("--profile", help="Runtime profile whose rules decide the exit code.")
]
FormatOpt = Annotated[Format, typer.Option("--format", help="Output format.")]


def resolve_target(target: str | None, target_vocab_size: int | None):
    from dspark_ckpt.checkpoint import load_target, target_from_vocab_size

    if (target is None) == (target_vocab_size is None):
        raise UsageError("give exactly one of --target and --target-vocab-size")
    if target_vocab_size is not None:
        return target_from_vocab_size(target_vocab_size)
    return load_target(target)


@app.command("inspect")
def inspect_cmd(
    drafter: DrafterArg,
    target: TargetOpt = None,
    target_vocab_size: TargetVocabOpt = None,
    profile: ProfileOpt = "vllm",
    fmt: FormatOpt = Format.table,
) -> None:
    """Classify a drafter against its target and check every tensor and invariant."""
    from dspark_ckpt.inspect import inspect_checkpoint, unreadable
    from dspark_ckpt.profiles import get_profile
    from dspark_ckpt.render import error_lines, inspect_obj, print_inspect, to_json

    try:
        get_profile(profile)
        try:
            tgt = resolve_target(target, target_vocab_size)
        except CheckpointError as err:  # the target's weights are unreadable
            report = unreadable(drafter, None, profile, err)
        else:
            report = inspect_checkpoint(drafter, tgt, profile)
    except UsageError as err:
        fail_usage(str(err))
    for line in error_lines(report):
        print(line, file=sys.stderr)
    if fmt is Format.json:
        print(to_json(inspect_obj(report)))
    else:
        print_inspect(report, stdout())
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FAIL)


def _version(value: bool) -> None:
    if value:
        print(f"dspark-ckpt {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    pass


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        print("dspark-ckpt: interrupted", file=sys.stderr)
        sys.exit(130)
