"""``dspark-ckpt profiles`` and ``dspark-ckpt explain``: what the tool knows, no checkpoint read."""

from typing import Annotated

import typer

from dspark_ckpt.cli.console import stdout, tables
from dspark_ckpt.cli.options import NamesOpt, PlainFormat, PlainFormatOpt
from dspark_ckpt.cli.root import command


@command(
    "profiles",
    exit_codes=["0  always; 2  bad arguments"],
    example="dspark-ckpt profiles --format json",
)
def profiles_cmd(fmt: PlainFormatOpt = PlainFormat.table, quiet: NamesOpt = False) -> None:
    """List the runtime profiles: the release each mirrors and the source files its rules
    were read from (--format json: each rule's file:line; -q: the names, on one line)."""
    from dspark_ckpt.output.json import profiles_obj, to_json
    from dspark_ckpt.profiles.registry import PROFILES

    if fmt is PlainFormat.json:
        print(to_json(profiles_obj()))
    elif quiet:
        print(" ".join(PROFILES))
    else:
        tables().print_profiles(stdout())


@command(
    "explain",
    exit_codes=["0  the code is known; 2  an unknown code or bad arguments"],
    example="dspark-ckpt explain DSC401",
)
def explain_cmd(
    code: Annotated[
        str | None,
        typer.Argument(metavar="CODE", help="A finding code, e.g. DSC103 (none: list them all)."),
    ] = None,
    fmt: PlainFormatOpt = PlainFormat.table,
    quiet: NamesOpt = False,
) -> None:
    """Explain a finding code: what it means, why the runtime cares, how to fix it. Without
    a code, list every code (-q: one line)."""
    from dspark_ckpt.output.json import codes_obj, explain_obj, to_json
    from dspark_ckpt.rules.codes import CODES, get_code

    if code is None:
        if fmt is PlainFormat.json:
            print(to_json(codes_obj()))
        elif quiet:
            print(" ".join(CODES))
        else:
            tables().print_codes(stdout())
        return
    found = get_code(code)
    if fmt is PlainFormat.json:
        print(to_json(explain_obj(found)))
    elif quiet:
        stdout().print(tables().explain_line(found), soft_wrap=True)
    else:
        tables().print_explain(found, stdout())
