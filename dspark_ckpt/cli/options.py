"""What the commands share: their arguments and options, the formats, the target.

No ``from __future__ import annotations`` in ``cli/``'s command modules: Typer reads each
command's signature at every start, and annotations left as strings are compiled and
evaluated there each time (about 10 ms of a start-up, ``benchmarks/startup_bench.py``).
"""

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from dspark_ckpt.errors import UsageError


class Format(str, Enum):
    table = "table"
    json = "json"
    github = "github"
    junit = "junit"
    sarif = "sarif"


CI_FORMATS = (Format.github, Format.junit, Format.sarif)


class InspectFormat(str, Enum):
    """inspect's: table (concise, one line per finding), full (the boxed tables), and
    the machine formats."""

    table = "table"
    full = "full"
    json = "json"
    github = "github"
    junit = "junit"
    sarif = "sarif"


class PlainFormat(str, Enum):
    """For commands that report no findings per file (fix, verify, profiles, explain)."""

    table = "table"
    json = "json"


DrafterArg = Annotated[
    str,
    typer.Argument(
        metavar="DRAFTER",
        help="Drafter checkpoint: a directory, a .safetensors file, an index, or a Hub "
        "repo (org/name[@rev], hf://org/name[@rev]).",
    ),
]
TargetOpt = Annotated[
    str | None,
    typer.Option(
        "--target",
        metavar="TARGET",
        help="Target model: a directory (config.json, optional weights) or a Hub repo.",
    ),
]
TargetVocabOpt = Annotated[
    str | None,
    typer.Option(
        "--target-vocab-size",
        metavar="N",
        help="The target's logical vocab size Vt, instead of --target.",
    ),
]
ProfileOpt = Annotated[
    str | None,
    typer.Option(
        "--profile",
        metavar="NAME",
        help="Runtime profile whose rules decide the exit code. Default: the detected "
        "drafter family's (`dspark-ckpt profiles` lists them).",
    ),
]
ProfilesOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--profile",
        metavar="NAME",
        help="Runtime profile(s) whose rules decide the exit code: repeat it, separate "
        "names with commas, or give 'all'. A name is a profile's (vllm, vllm-legacy), its "
        "release-qualified one (vllm-dspark@0.30.0), or RUNTIME-FAMILY@VERSION for a release "
        "it covers. Default: the detected drafter family's (`dspark-ckpt profiles` lists "
        "them).",
    ),
]
RuntimeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--runtime",
        metavar="RUNTIME==VERSION",
        help="Decide by the profile of that runtime release for the drafter's family, e.g. "
        "vllm==0.32.0, sglang==0.5.23, trtllm==main (`dspark-ckpt profiles` lists the "
        "releases each covers); a runtime alone (vllm) is its newest release. Repeat it, or "
        "combine it with --profile.",
    ),
]


def runtime_values(values: list[str] | None) -> list[str]:
    """``--runtime`` values as ``--profile`` takes them: ``RUNTIME==VERSION`` as given; a
    bare ``RUNTIME`` (``vllm``) is its newest release, and says so on stderr."""
    from dspark_ckpt.profiles.registry import RUNTIME_NAMES, newest_release

    out = []
    for value in (v.strip() for v in values or []):
        if "==" not in value and value.lower() in RUNTIME_NAMES:
            version = newest_release(RUNTIME_NAMES[value.lower()])
            from dspark_ckpt.output.text import one_line

            note = f"dspark-ckpt: --runtime {value}: the newest release, {value}=={version}"
            print(one_line(note), file=sys.stderr)
            value = f"{value}=={version}"
        elif "==" not in value:
            raise UsageError(
                f"--runtime {value!r}: give RUNTIME==VERSION (vllm==0.33.0) or a runtime "
                "alone for its newest release (vllm, sglang, trtllm)"
            )
        out.append(value)
    return out


FormatOpt = Annotated[
    Format, typer.Option("--format", metavar="|".join(Format), help="Output format.")
]
InspectFormatOpt = Annotated[
    InspectFormat,
    typer.Option(
        "--format",
        metavar="|".join(InspectFormat),
        help="Output format: table (one line per finding, the default), full (the boxed "
        "tables: every message and hint whole, the matrix of checks by profile), json, or a "
        "CI format.",
    ),
]
VerboseOpt = Annotated[
    bool, typer.Option("-v", "--verbose", help="The full tables: the same as --format full.")
]
PlainFormatOpt = Annotated[
    PlainFormat, typer.Option("--format", metavar="|".join(PlainFormat), help="Output format.")
]


class Color(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


ColorOpt = Annotated[
    Color,
    typer.Option(
        "--color",
        metavar="|".join(Color),
        help="Colour in the table format: auto (on a terminal, unless NO_COLOR is set; "
        "FORCE_COLOR forces it), always, never.",
    ),
]


def also_report(value: str) -> tuple[Format, Path]:
    """``FORMAT:PATH`` of ``--also``: one more report of the same run."""
    fmt, sep, path = value.partition(":")
    if not sep or not path or fmt not in Format.__members__:
        raise typer.BadParameter(
            f"{value!r}: give FORMAT:PATH, FORMAT one of {', '.join(Format)} (PATH - is stdout)"
        )
    return Format(fmt), Path(path)


AlsoOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--also",
        metavar="FORMAT:PATH",
        help="Also write the same run's report in FORMAT to PATH (atomically; - is stdout, "
        "after the main output). Repeat it: --also sarif:out.sarif --also table:-",
    ),
]
OutputOpt = Annotated[
    Path | None,
    typer.Option(
        "-o",
        "--output",
        metavar="PATH",
        help="Write the output to PATH (atomically, replacing it); - is stdout.",
    ),
]
QuietOpt = Annotated[
    bool,
    typer.Option(
        "-q", "--quiet", help="No progress or logs; the table format prints one line: the verdict."
    ),
]
# profiles and explain have no verdict: -q gives one line of names
NamesOpt = Annotated[
    bool,
    typer.Option(
        "-q",
        "--quiet",
        help="The table format prints one line: the names (explain CODE: the code, its "
        "severity and title).",
    ),
]


def integer(value: str | None, option: str, lo: int, hi: int) -> int | None:
    """An integer option's value, in the tool's words when it is not one in [lo, hi]."""
    if value is None:
        return None
    try:
        n = int(value.strip())
    except ValueError:
        n = None
    if n is None or not lo <= n <= hi:
        raise UsageError(f"{option} must be an integer in [{lo}, {hi}], got {value!r}")
    return n


def resolve_target(target: str | None, target_vocab_size: str | None):
    """The target of ``--target TARGET`` or ``--target-vocab-size N`` (exactly one)."""
    from dspark_ckpt.facts.config import MAX_VOCAB
    from dspark_ckpt.facts.target import open_target, target_from_vocab_size

    if (target is None) == (target_vocab_size is None):
        raise UsageError("give exactly one of --target TARGET and --target-vocab-size N")
    if target_vocab_size is not None:
        return target_from_vocab_size(
            integer(target_vocab_size, "--target-vocab-size", 1, MAX_VOCAB)
        )
    return open_target(target)
