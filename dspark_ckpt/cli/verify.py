"""``dspark-ckpt verify``: sample from the drafter's real head and count the ids that leave
the target vocab (needs torch)."""

from enum import Enum
from typing import Annotated

import typer

from dspark_ckpt.cli.console import (
    fix_tables,
    header_progress,
    plain_stdout,
    say,
    show_progress,
    stdout,
    summaries,
)
from dspark_ckpt.cli.errors import EXIT_FAIL, EXIT_OK
from dspark_ckpt.cli.options import (
    DrafterArg,
    PlainFormat,
    PlainFormatOpt,
    QuietOpt,
    TargetOpt,
    TargetVocabOpt,
    integer,
    resolve_target,
)
from dspark_ckpt.cli.root import command
from dspark_ckpt.facts.config import MAX_SEED, MAX_TOKENS


class Device(str, Enum):
    auto = "auto"
    cuda = "cuda"
    cpu = "cpu"


@command(
    "verify",
    exit_codes=[
        "0  the mask keeps every sampled id inside the target vocab",
        "1  an id leaves it, the mask is wrong, the input is unreadable or refused, or it",
        "   needs more memory than there is (one line: the file, the tensor, the bytes)",
        "2  usage error, torch not installed or not importable, --device cuda without a GPU",
    ],
    example="dspark-ckpt verify fixtures/padded --target fixtures/targets/small",
    json_errors=True,
)
def verify_cmd(
    drafter: DrafterArg,
    target: TargetOpt = None,
    target_vocab_size: TargetVocabOpt = None,
    mask: Annotated[
        str | None,
        typer.Option(
            "--mask", metavar="PATH", help="Mask file from `fix --emit-mask` (default: computed)."
        ),
    ] = None,
    device: Annotated[
        Device, typer.Option("--device", metavar="|".join(Device), help="Where to compute.")
    ] = Device.auto,
    tokens: Annotated[
        str,
        typer.Option(
            "--tokens",
            metavar="N",
            help=f"Random hidden states, 1 to {MAX_TOKENS} (plus one aimed at each illegal head row, up to N).",
        ),
    ] = "512",
    seed: Annotated[
        str,
        typer.Option("--seed", metavar="N", help="Seed for hidden states and sampling."),
    ] = "0",
    markov: Annotated[
        bool, typer.Option("--markov/--no-markov", help="Add the Markov bias where present.")
    ] = True,
    fmt: PlainFormatOpt = PlainFormat.table,
    quiet: QuietOpt = False,
) -> None:
    """Sample from the drafter's real head (greedy, top-k, Gumbel) and count the ids that
    leave the target vocab, without and with the padded-row mask. Needs torch."""
    from dspark_ckpt.commands.verify import verify_checkpoint
    from dspark_ckpt.output.json import to_json, verify_obj

    def log(msg: str) -> None:
        if not quiet:
            say(msg)

    n_tokens = integer(tokens, "--tokens", 1, MAX_TOKENS)
    n_seed = integer(seed, "--seed", 0, MAX_SEED)
    with header_progress(show_progress(fmt, quiet)):
        tgt = resolve_target(target, target_vocab_size)
    report = verify_checkpoint(
        drafter,
        tgt,
        mask_path=mask,
        device=device.value,
        tokens=n_tokens,
        seed=n_seed,
        markov=markov,
        progress=log,
    )
    if fmt is PlainFormat.json:
        print(to_json(verify_obj(report)))
    elif quiet:
        plain_stdout().print(summaries().verify_summary(report), soft_wrap=True)
    else:
        fix_tables().print_verify(report, stdout())
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FAIL)
