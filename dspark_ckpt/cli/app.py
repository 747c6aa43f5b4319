"""The command line: parse, call the library, render, map to an exit code.

Exit codes: 0 deployable (no error finding), 1 not deployable (including an
unreadable checkpoint), 2 usage error (including an output that cannot be written),
3 (inspect) no profile covers the drafter's family: not judged.
Machine output goes to stdout; logs and
errors to stderr. Bad input never shows a traceback.
"""

from __future__ import annotations

import io
import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from dspark_ckpt import __version__
from dspark_ckpt.cli.usage import HELP_OPTIONS, Command, Group
from dspark_ckpt.errors import CheckpointError, UsageError, WriteError
from dspark_ckpt.facts.config import MAX_SEED, MAX_TOKENS

if TYPE_CHECKING:
    from rich.console import Console

# Start-up is most of what a command costs (benchmarks/startup_bench.py): each module is
# imported where it is used, so that a command loads only what it needs (Rich for a
# table, huggingface_hub for a Hub id, torch for verify); tests/test_startup.py guards it.

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNCOVERED = 0, 1, 2, 3

app = typer.Typer(
    cls=Group,
    name="dspark-ckpt",
    help="Check speculative-decoding drafter checkpoints against their target, before deployment.",
    context_settings={"help_option_names": HELP_OPTIONS},
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class Format(str, Enum):
    table = "table"
    json = "json"
    github = "github"
    junit = "junit"
    sarif = "sarif"


CI_FORMATS = (Format.github, Format.junit, Format.sarif)


class PlainFormat(str, Enum):
    """For commands that report no findings per file (fix, verify, profiles, explain)."""

    table = "table"
    json = "json"


def output_width() -> int | None:
    """The width to draw stdout at when it is no terminal (``| less``, ``| tee log``):
    ``COLUMNS``, else the terminal of stderr, else the controlling terminal; None when
    nothing says (a CI log: ``PLAIN_WIDTH``)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns or None
    except (OSError, ValueError, AttributeError):  # not a terminal, or no real file
        pass
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:  # no controlling terminal
        return None
    try:
        return os.get_terminal_size(fd).columns or None
    except OSError:
        return None
    finally:
        os.close(fd)


def tables():
    """The table format (imports Rich: only where a table is shown)."""
    from dspark_ckpt.output import table as tables

    return tables


def stdout() -> Console:
    from dspark_ckpt.output.table import PLAIN_WIDTH, DataConsole

    console = DataConsole(sys.stdout, soft_wrap=False)
    if not console.is_terminal:
        console.width = output_width() or PLAIN_WIDTH
    return console


def stderr() -> Console:
    from dspark_ckpt.output.table import DataConsole

    return DataConsole(sys.stderr, soft_wrap=True)


def fail_input(err: CheckpointError, schema: str | None = None) -> NoReturn:
    """An unreadable or refused input: one line naming the file on stderr, exit 1, nothing
    written; with ``schema`` (json output) also the one JSON object stdout promises."""
    from dspark_ckpt.output.render import error_obj, one_line, to_json

    print(one_line(f"dspark-ckpt: error: {err}"), file=sys.stderr)
    if schema is not None:
        print(to_json(error_obj(schema, err)))
    raise typer.Exit(EXIT_FAIL)


def fail_write(err: WriteError, schema: str | None = None) -> NoReturn:
    """An output that cannot be written: one line naming it, exit 2 as for every problem
    with where a command was asked to write; with ``schema`` also the JSON object."""
    from dspark_ckpt.output.render import error_obj, one_line, to_json

    print(one_line(f"dspark-ckpt: error: {err}"), file=sys.stderr)
    if schema is not None:
        print(to_json(error_obj(schema, err)))
    raise typer.Exit(EXIT_USAGE)


def fail_usage(message: str) -> NoReturn:
    from dspark_ckpt.output.render import one_line

    print(one_line(f"dspark-ckpt: error: {message}"), file=sys.stderr)
    raise typer.Exit(EXIT_USAGE)


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
        "names with commas, or give 'all'. Default: the detected drafter family's "
        "(`dspark-ckpt profiles` lists them).",
    ),
]
FormatOpt = Annotated[
    Format, typer.Option("--format", metavar="|".join(Format), help="Output format.")
]
PlainFormatOpt = Annotated[
    PlainFormat, typer.Option("--format", metavar="|".join(PlainFormat), help="Output format.")
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


def deliver(output: Path | None, text: str | None, show: Callable[[Console], None]) -> None:
    """Machine ``text``, or ``show`` drawing on a console, to stdout or atomically to a file."""
    if output is None or str(output) == "-":
        if text is None:
            show(stdout())
        else:
            sys.stdout.write(text)
        return
    from dspark_ckpt.source.atomic import write_atomic

    if text is None:
        buf = io.StringIO()
        show(
            tables().DataConsole(
                buf, width=tables().PLAIN_WIDTH, soft_wrap=False, force_terminal=False
            )
        )
        text = buf.getvalue()
    write_atomic(output, text)


def emit(
    fmt: Format,
    output: Path | None,
    quiet: bool,
    *,
    json_obj: Callable[[], dict],
    runs: Callable[[], list],
    full: Callable[[Console], None],
    summary: Callable[[Console], None],
) -> None:
    """A result in ``fmt``: JSON, a CI format over its check runs, or the table for people
    (``--quiet``: the summary line only); to stdout or atomically to ``output``."""
    from dspark_ckpt.output.render import ci_text, to_json

    if fmt is Format.json:
        text = to_json(json_obj()) + "\n"
    elif fmt in CI_FORMATS:
        text = ci_text(fmt.value, runs())
    else:
        text = None
    deliver(output, text, summary if quiet else full)


def show_progress(fmt: Format | PlainFormat, quiet: bool = False) -> bool:
    """Progress bars: for people only (table format, stderr a terminal, not --quiet)."""
    return fmt.value == "table" and not quiet and sys.stderr.isatty()


@contextmanager
def header_progress(enabled: bool) -> Iterator[None]:
    """A bar on stderr while safetensors headers are read, once that takes over a second
    (many shards, the Hub); nothing at all when not ``enabled``."""
    if not enabled:
        yield
        return
    from dspark_ckpt.cli.progress import DelayedProgress
    from dspark_ckpt.source.checkpoint import on_header

    with DelayedProgress("reading headers", None, stderr(), enabled=enabled) as bar:
        token = on_header.set(lambda path: bar.advance(path.name))
        try:
            yield
        finally:
            on_header.reset(token)


def resolve_target(target: str | None, target_vocab_size: str | None):
    from dspark_ckpt.facts.config import MAX_VOCAB
    from dspark_ckpt.source.checkpoint import open_target, target_from_vocab_size

    if (target is None) == (target_vocab_size is None):
        raise UsageError("give exactly one of --target TARGET and --target-vocab-size N")
    if target_vocab_size is not None:
        return target_from_vocab_size(
            integer(target_vocab_size, "--target-vocab-size", 1, MAX_VOCAB)
        )
    return open_target(target)


@app.command("inspect", cls=Command)
def inspect_cmd(
    drafter: DrafterArg,
    target: TargetOpt = None,
    target_vocab_size: TargetVocabOpt = None,
    profile: ProfilesOpt = None,
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Classify a drafter against its target and check every tensor and invariant."""
    from dspark_ckpt.commands.inspect import inspect_checkpoint, unreadable_target
    from dspark_ckpt.output.render import error_lines, inspect_obj
    from dspark_ckpt.profiles.registry import parse_profiles

    def runs() -> list:
        from dspark_ckpt.commands.check import run_of_report

        # not covered (no profile): the DSC108 finding alone
        return [run_of_report(report.under(p)) for p in report.profiles] or [run_of_report(report)]

    try:
        profile = parse_profiles(profile)
        with header_progress(show_progress(fmt, quiet)):
            try:
                tgt = resolve_target(target, target_vocab_size)
            except CheckpointError as err:  # the target's weights are unreadable
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
            summary=lambda console: console.print(tables().inspect_summary(report), soft_wrap=True),
        )
    except UsageError as err:
        fail_usage(str(err))
    if not report.covered:
        raise typer.Exit(EXIT_UNCOVERED)
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FAIL)


@app.command("profiles", cls=Command)
def profiles_cmd(fmt: PlainFormatOpt = PlainFormat.table, quiet: QuietOpt = False) -> None:
    """List the runtime profiles: the release each mirrors and the source files (file:line)
    its rules were read from (-q: their names, on one line)."""
    from dspark_ckpt.output.render import profiles_obj, to_json
    from dspark_ckpt.profiles.registry import PROFILES

    if fmt is PlainFormat.json:
        print(to_json(profiles_obj()))
    elif quiet:
        print(" ".join(PROFILES))
    else:
        tables().print_profiles(stdout())


@app.command("explain", cls=Command)
def explain_cmd(
    code: Annotated[
        str | None,
        typer.Argument(metavar="CODE", help="A finding code, e.g. DSC103 (none: list them all)."),
    ] = None,
    fmt: PlainFormatOpt = PlainFormat.table,
    quiet: QuietOpt = False,
) -> None:
    """Explain a finding code: what it means, why the runtime cares, how to fix it. Without
    a code, list every code (-q: one line)."""
    from dspark_ckpt.output.render import codes_obj, explain_obj, to_json
    from dspark_ckpt.rules.codes import CODES, get_code

    if code is None:
        if fmt is PlainFormat.json:
            print(to_json(codes_obj()))
        elif quiet:
            print(" ".join(CODES))
        else:
            tables().print_codes(stdout())
        return
    try:
        found = get_code(code)
    except UsageError as err:
        fail_usage(str(err))
    if fmt is PlainFormat.json:
        print(to_json(explain_obj(found)))
    elif quiet:
        stdout().print(tables().explain_line(found), soft_wrap=True)
    else:
        tables().print_explain(found, stdout())


@app.command("check", cls=Command)
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
) -> None:
    """The pre-deploy gate: every drafter/target pair of the configuration, one exit code."""
    from dspark_ckpt.cli.progress import DelayedProgress
    from dspark_ckpt.commands.check import load_config, run_check
    from dspark_ckpt.output.render import check_error_lines, check_obj

    try:
        cfg = load_config(config)
        enabled = show_progress(fmt, quiet)
        with DelayedProgress(
            "checking", len(cfg.pairs), stderr() if enabled else None, enabled=enabled
        ) as bar:
            result = run_check(cfg, on_pair=lambda pair: bar.advance(pair.name))
        for line in check_error_lines(result):
            print(line, file=sys.stderr)
        emit(
            fmt,
            output,
            quiet,
            json_obj=lambda: check_obj(result),
            runs=lambda: result.runs,
            full=lambda console: tables().print_check(result, console),
            summary=lambda console: console.print(tables().check_summary(result), soft_wrap=True),
        )
    except UsageError as err:
        fail_usage(str(err))
    raise typer.Exit(EXIT_OK if result.ok else EXIT_FAIL)


class Device(str, Enum):
    auto = "auto"
    cuda = "cuda"
    cpu = "cpu"


@app.command("verify", cls=Command)
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
            help=f"Random hidden states, 1 to {MAX_TOKENS} (as many again aim at padding).",
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
    from dspark_ckpt.output.render import VERIFY_SCHEMA, to_json, verify_obj

    def log(msg: str) -> None:
        if not quiet:
            print(f"dspark-ckpt: {msg}", file=sys.stderr)

    try:
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
    except UsageError as err:
        fail_usage(str(err))
    except CheckpointError as err:
        fail_input(err, VERIFY_SCHEMA if fmt is PlainFormat.json else None)
    if fmt is PlainFormat.json:
        print(to_json(verify_obj(report)))
    elif quiet:
        stdout().print(tables().verify_summary(report), soft_wrap=True)
    else:
        tables().print_verify(report, stdout())
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FAIL)


class MaskStyle(str, Enum):
    bool = "bool"
    additive = "additive"


@app.command("fix", cls=Command)
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
    from pathlib import Path

    from dspark_ckpt.commands.fix import D2T_FILE, MASK_FILE, FixRequest, run_fix
    from dspark_ckpt.output.render import FIX_SCHEMA, fix_obj, to_json

    schema = FIX_SCHEMA if fmt is PlainFormat.json else None

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
        with header_progress(show_progress(fmt, quiet)):
            result = run_fix(drafter, resolve_target(target, target_vocab_size), req)
    except WriteError as err:
        fail_write(err, schema)
    except UsageError as err:
        fail_usage(str(err))
    except CheckpointError as err:
        fail_input(err, schema)
    except OSError as err:  # reading: writes raise WriteError
        fail_input(CheckpointError(err.filename, f"{err.strerror or err}; nothing written"), schema)
    if fmt is PlainFormat.json:
        print(to_json(fix_obj(result)))
    elif quiet:
        stdout().print(tables().fix_summary(result), soft_wrap=True)
    else:
        tables().print_fix(result, stdout())
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


class Interrupted(BaseException):
    """SIGINT or SIGTERM, raised where the program is so that a write in progress rolls
    back (a ``BaseException``: no ``except Exception`` swallows it, and Typer, which turns
    a ``KeyboardInterrupt`` into a silent exit 130 itself, lets it through)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


# signals received after a write's commit point: they no longer stop the command
_after_commit: list[int] = []


def _on_signal(signum, frame) -> None:
    atomic = sys.modules.get("dspark_ckpt.source.atomic")  # not imported: nothing written yet
    if atomic is not None and atomic.committed():
        _after_commit.append(signum)
        return
    raise Interrupted(signum)


def _said(signum: int) -> str:
    return "interrupted" if signum == signal.SIGINT else "terminated"


class StdoutError(Exception):
    """stdout cannot be written (a full disk, a closed pipe): exit 2, as for any output."""

    def __init__(self, err: OSError) -> None:
        super().__init__(err.strerror or str(err))


class _Stdout:
    """sys.stdout, whose write errors are ``StdoutError``s, told apart from all others."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as e:
            raise StdoutError(e) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as e:
            raise StdoutError(e) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def main() -> None:
    """The entry point. SIGINT (Ctrl-C) and SIGTERM alike, before a write's commit point,
    roll back the write in progress, say so on stderr and exit 128 + the signal number;
    after it (the change is complete, nothing rolls back) the command finishes its report,
    says on stderr that it is done and exits with its own code. What an output's encoding
    cannot show is escaped (``PYTHONIOENCODING=ascii``, a path that is not UTF-8); stdout
    that cannot be written is one line and exit 2."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _on_signal)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")
    real, sys.stdout = sys.stdout, _Stdout(sys.stdout)
    try:
        try:
            app()
        finally:
            sys.stdout.flush()  # a write error surfaces here, not at exit
    except Interrupted as stop:
        print(f"dspark-ckpt: {_said(stop.signum)}; nothing written", file=sys.stderr)
        sys.exit(128 + stop.signum)
    except MemoryError:  # past what the readers catch themselves (they name the file)
        print("dspark-ckpt: error: out of memory", file=sys.stderr)
        sys.exit(EXIT_FAIL)
    except StdoutError as err:
        os.dup2(os.open(os.devnull, os.O_WRONLY), real.fileno())  # nothing more to flush
        sys.stdout = real
        print(f"dspark-ckpt: error: stdout: cannot write: {err}", file=sys.stderr)
        sys.exit(EXIT_USAGE)
    finally:
        if _after_commit:
            print(
                f"dspark-ckpt: {_said(_after_commit[0])} after the commit point; done, "
                "the change is complete",
                file=sys.stderr,
            )
