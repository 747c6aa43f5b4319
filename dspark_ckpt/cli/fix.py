"""``dspark-ckpt fix``: write the padded-row mask and the d2t a drafter needs, as side
files, into a patched copy or in place."""

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from dspark_ckpt.cli.console import header_progress, show_progress, stdout, tables
from dspark_ckpt.cli.errors import EXIT_FAIL, EXIT_OK
from dspark_ckpt.cli.options import (
    DrafterArg,
    PlainFormat,
    PlainFormatOpt,
    ProfileOpt,
    QuietOpt,
    TargetOpt,
    TargetVocabOpt,
    resolve_target,
)
from dspark_ckpt.cli.root import command
from dspark_ckpt.errors import UsageError


class MaskStyle(str, Enum):
    bool = "bool"
    additive = "additive"


@command(
    "fix",
    exit_codes=[
        "0  written, and the result is deployable under --profile",
        "1  refused, unreadable, or not deployable after the change",
        "2  usage error, an existing file without --force, a file that cannot be written",
    ],
    example="dspark-ckpt fix fixtures/padded --target fixtures/targets/small --emit-mask",
    json_errors=True,
)
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
        typer.Option(
            "--mask-path", metavar="PATH", help="Where to write the mask (implies --emit-mask)."
        ),
    ] = None,
    mask_style: Annotated[
        MaskStyle,
        typer.Option(
            "--mask-style",
            metavar="|".join(MaskStyle),
            help="bool mask, or an additive float32 0/-inf bias.",
        ),
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
        typer.Option(
            "--d2t-path",
            metavar="PATH",
            help="Where to write d2t as a side file (implies --emit-d2t).",
        ),
    ] = None,
    out: Annotated[
        str | None,
        typer.Option(
            "--out", metavar="DIR", help="Write a patched copy of the whole checkpoint to DIR."
        ),
    ] = None,
    in_place: Annotated[
        bool, typer.Option("--in-place", help="Patch the source checkpoint itself (needs --force).")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing files.")] = False,
    profile: ProfileOpt = None,
    fmt: PlainFormatOpt = PlainFormat.table,
    quiet: QuietOpt = False,
) -> None:
    """Emit the padded-row mask and the d2t a drafter needs: side files, a patched copy or in place."""
    from dspark_ckpt.commands.fix import D2T_FILE, MASK_FILE, FixRequest, run_fix
    from dspark_ckpt.output.json import fix_obj, to_json

    if d2t_path is not None and (out is not None or in_place):
        raise UsageError(
            "--d2t-path names a side file; with --out / --in-place d2t goes into the checkpoint"
        )
    want_mask = emit_mask or mask_path is not None
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
    with header_progress(show_progress(fmt, quiet)):
        result = run_fix(drafter, resolve_target(target, target_vocab_size), req)
    if fmt is PlainFormat.json:
        print(to_json(fix_obj(result)))
    elif quiet:
        stdout().print(tables().fix_summary(result), soft_wrap=True)
    else:
        tables().print_fix(result, stdout())
    raise typer.Exit(EXIT_OK if result.ok else EXIT_FAIL)
