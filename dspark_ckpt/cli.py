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
    print(f"dspark-ckpt: error: {message}", file=sys.stderr)
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
    from dspark_ckpt.render import inspect_obj, print_inspect, to_json

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
    if fmt is Format.json:
        print(to_json(inspect_obj(report)))
    else:
        print_inspect(report, stdout())
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FAIL)


class MaskStyle(str, Enum):
    bool = "bool"
    additive = "additive"


@app.command("fix")
def fix_cmd(
    drafter: DrafterArg,
    target: TargetOpt = None,
    target_vocab_size: TargetVocabOpt = None,
    emit_mask: Annotated[
        bool,
        typer.Option(
            "--emit-mask",
            help="Write the padded-row mask (draft_vocab_mask.safetensors unless --mask-path).",
        ),
    ] = False,
    mask_path: Annotated[
        str | None,
        typer.Option("--mask-path", help="Where to write the mask (implies --emit-mask)."),
    ] = None,
    mask_style: Annotated[
        MaskStyle,
        typer.Option("--mask-style", help="bool mask, or an additive float32 0/-inf bias."),
    ] = MaskStyle.bool,
    emit_d2t: Annotated[
        bool,
        typer.Option(
            "--emit-d2t",
            help="Write the d2t this checkpoint needs (d2t.safetensors unless --d2t-path).",
        ),
    ] = False,
    d2t_path: Annotated[
        str | None,
        typer.Option("--d2t-path", help="Where to write d2t as a side file (implies --emit-d2t)."),
    ] = None,
    out: Annotated[
        str | None,
        typer.Option("--out", help="Write a patched copy of the whole checkpoint to this folder."),
    ] = None,
    in_place: Annotated[
        bool, typer.Option("--in-place", help="Patch the source checkpoint itself (needs --force).")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing files.")] = False,
    profile: ProfileOpt = "vllm",
    fmt: FormatOpt = Format.table,
) -> None:
    """Emit the padded-row mask and the d2t a drafter needs: side files, a patched copy or in place."""
    from pathlib import Path

    from dspark_ckpt.fix import D2T_FILE, MASK_FILE, FixRequest, run_fix
    from dspark_ckpt.render import fix_obj, print_fix, to_json

    want_mask = emit_mask or mask_path is not None
    try:
        if d2t_path is not None and (out is not None or in_place):
            raise UsageError(
                "--d2t-path names a side file; with --out / --in-place d2t goes into the checkpoint"
            )
        req = FixRequest(
            mask_path=Path(mask_path or MASK_FILE) if want_mask else None,
            d2t_path=Path(d2t_path or D2T_FILE),
            emit_d2t=emit_d2t or d2t_path is not None,
            mask_style=mask_style.value,
            out=Path(out) if out is not None else None,
            in_place=in_place,
            force=force,
            profile=profile,
        )
        result = run_fix(drafter, resolve_target(target, target_vocab_size), req)
    except UsageError as err:
        fail_usage(str(err))
    except CheckpointError as err:
        print(f"dspark-ckpt: refused: {err}", file=sys.stderr)
        raise typer.Exit(EXIT_FAIL) from None
    except OSError as err:
        where = f"{err.filename}: " if err.filename else ""
        print(f"dspark-ckpt: error: {where}{err.strerror or err}; nothing written", file=sys.stderr)
        raise typer.Exit(EXIT_FAIL) from None
    if fmt is Format.json:
        print(to_json(fix_obj(result)))
    else:
        print_fix(result, stdout())
    raise typer.Exit(EXIT_OK if result.ok else EXIT_FAIL)


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
