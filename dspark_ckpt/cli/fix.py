"""``dspark-ckpt fix``: repair a drafter, convert its format (``--to``), or write the
padded-row mask and the d2t it needs, as side files, into a patched copy or in place."""

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from dspark_ckpt.cli.console import (
    fix_tables,
    header_progress,
    plain_stdout,
    show_progress,
    stdout,
    summaries,
)
from dspark_ckpt.cli.destinations import refuse_fix_over_target
from dspark_ckpt.cli.errors import EXIT_FAIL, EXIT_OK
from dspark_ckpt.cli.options import (
    DrafterArg,
    PlainFormat,
    PlainFormatOpt,
    ProfilesOpt,
    QuietOpt,
    RuntimeOpt,
    TargetOpt,
    TargetVocabOpt,
    resolve_target,
    runtime_values,
)
from dspark_ckpt.cli.root import command
from dspark_ckpt.errors import UsageError


class MaskStyle(str, Enum):
    bool = "bool"
    additive = "additive"


class Format(str, Enum):
    speculators = "speculators"
    native = "native"
    sglang = "sglang"
    hf = "hf"


@command(
    "fix",
    exit_codes=[
        "0  written, and the result is deployable under --profile; --diff: nothing to change"
        " and deployable as it is",
        "1  refused, unreadable, or not deployable after the change; --diff: a change to make,"
        " or not deployable (an error no repair fixes)",
        "2  usage error, an existing file without --force, a file that cannot be written",
    ],
    example="dspark-ckpt fix fixtures/padded --target fixtures/targets/small --out fixed",
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
    diff: Annotated[
        bool,
        typer.Option(
            "--diff",
            help="Show the repair plan and write nothing: exit 0 only if it changes nothing and "
            "the drafter is deployable under the deciding profiles, else 1.",
        ),
    ] = False,
    unsafe_fixes: Annotated[
        bool,
        typer.Option(
            "--unsafe-fixes", help="Apply the unsafe repairs too (each rests on a guess)."
        ),
    ] = False,
    sets: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY=VALUE",
            help="Write a config key the repairs cannot know (a mask token id, aux layer ids); "
            "VALUE is JSON, else a string. Repeat it.",
        ),
    ] = None,
    verify: Annotated[
        bool, typer.Option("--verify", help="Run verify on the repaired checkpoint (needs torch).")
    ] = False,
    prune_vocab: Annotated[
        int | None,
        typer.Option(
            "--prune-vocab",
            metavar="N",
            help="Cut the head to the N most frequent target ids (needs --frequencies).",
        ),
    ] = None,
    frequencies: Annotated[
        str | None,
        typer.Option(
            "--frequencies",
            metavar="PATH",
            help="Token counts for --prune-vocab: a JSON object of id: count, or a list by id.",
        ),
    ] = None,
    to: Annotated[
        Format | None,
        typer.Option(
            "--to",
            metavar="|".join(Format),
            help="Convert the drafter: speculators / native (speculators' converter, vLLM's "
            "translation), sglang / hf (SpecForge's exporter).",
        ),
    ] = None,
    profile: ProfilesOpt = None,
    runtime: RuntimeOpt = None,
    fmt: PlainFormatOpt = PlainFormat.table,
    quiet: QuietOpt = False,
) -> None:
    """Repair what inspect finds (a reviewed plan, to a copy or in place), convert the drafter's
    format (--to), or emit the padded-row mask and the d2t as side files."""
    from dspark_ckpt.commands.fix import D2T_FILE, MASK_FILE, FixRequest, run_fix
    from dspark_ckpt.output.json import fix_obj, to_json
    from dspark_ckpt.profiles.registry import parse_profiles

    profile = [*(profile or []), *runtime_values(runtime)] or None
    side = emit_mask or mask_path is not None or emit_d2t or d2t_path is not None
    refuse_fix_over_target(drafter, target, out, in_place)
    if not side:
        from dspark_ckpt.commands.repair import RepairRequest

        req = RepairRequest(
            asked=_asked(prune_vocab, frequencies, to),
            profiles=parse_profiles(profile),
            unsafe=unsafe_fixes,
            sets=tuple(parse_set(v) for v in sets or []),
            out=Path(out) if out is not None else None,
            in_place=in_place,
            force=force,
            diff=diff,
            verify=verify,
        )
        _repair(drafter, resolve_target(target, target_vocab_size), req, fmt, quiet)
    for flag, given in (
        ("--prune-vocab", prune_vocab is not None or frequencies is not None),
        ("--to", to is not None),
        ("--diff", diff),
        ("--unsafe-fixes", unsafe_fixes),
        ("--set", sets),
        ("--verify", verify),
    ):
        if given:
            raise UsageError(f"{flag} is for repairs: it cannot go with --emit-mask / --emit-d2t")
    if profile and (len(profile) > 1 or "," in profile[0]):
        raise UsageError("--emit-mask / --emit-d2t take one --profile or --runtime")
    profile = profile[0] if profile else None

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
        plain_stdout().print(summaries().fix_summary(result), soft_wrap=True)
    else:
        fix_tables().print_fix(result, stdout())
    raise typer.Exit(EXIT_OK if result.ok else EXIT_FAIL)


def _asked(prune_vocab: int | None, frequencies: str | None, to: Format | None = None):
    """What --prune-vocab or --to asks, besides the repairs (None: nothing)."""
    if to is not None:
        if prune_vocab is not None or frequencies is not None:
            raise UsageError("--to and --prune-vocab: give one at a time (convert, then prune)")
        from dspark_ckpt.commands.formats import format_plan

        return format_plan(to.value)
    if prune_vocab is None and frequencies is None:
        return None
    if prune_vocab is None or frequencies is None:
        raise UsageError("--prune-vocab N and --frequencies PATH go together")
    from dspark_ckpt.commands.prune import prune_plan

    return prune_plan(prune_vocab, Path(frequencies))


def parse_set(value: str) -> tuple[str, object]:
    """``KEY=VALUE`` of ``--set``: a dotted config key, and VALUE as JSON (else a string)."""
    import json
    import re

    key, sep, raw = value.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", key):
        raise UsageError(f"--set {value!r}: give KEY=VALUE, KEY a config key (dotted if nested)")
    try:
        parsed = json.loads(raw, parse_constant=_not_json)
    except ValueError:  # NaN, Infinity included: not JSON, so a string
        return key, raw
    if not _finite(parsed):
        raise UsageError(
            f"--set {value}: {raw} is beyond a float64; config.json holds finite numbers only"
        )
    return key, parsed


def _not_json(constant: str):
    raise ValueError(f"{constant} is not JSON")


def _finite(value: object) -> bool:
    """Whether every number in ``value`` is finite (``1e400`` parses as infinity)."""
    import math

    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    return True


def _repair(drafter: str, target, req, fmt: PlainFormat, quiet: bool) -> None:
    """Plan (and write) the repairs; show the result; exit with its code."""
    from dspark_ckpt.commands.fix import run_repair
    from dspark_ckpt.output.json import repair_obj, to_json

    with header_progress(show_progress(fmt, quiet)):
        result = run_repair(drafter, target, req)
    if fmt is PlainFormat.json:
        print(to_json(repair_obj(result)))
    elif quiet:
        plain_stdout().print(summaries().repair_summary(result), soft_wrap=True)
    else:
        from dspark_ckpt.output import repair_text  # no Rich, but where rich_cells

        if repair_text.rich_cells(repair_text.repair_rows(result)):
            fix_tables().print_repair(result, stdout())
        else:
            repair_text.print_repair(result, plain_stdout())
    if req.diff:  # 0 only for nothing to change on a deployable drafter: `fix --diff && deploy`
        raise typer.Exit(EXIT_OK if result.ok and not result.plan.changes else EXIT_FAIL)
    raise typer.Exit(EXIT_OK if result.ok else EXIT_FAIL)
