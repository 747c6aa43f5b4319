"""The root of the command line: the one Typer app every command registers on (``command``),
``--version``, and the process entry point ``main``.

Each command is a module of ``cli/`` (``COMMANDS``), imported when that command runs:
a start-up loads and builds one command, not all of them (``-h`` lists them all).

Machine output goes to stdout; logs and errors to stderr. Bad input never shows a
traceback: each command's errors become exit codes by the one table in ``cli/errors.py``.
Start-up is most of what a command costs (``benchmarks/startup_bench.py``): each module is
imported where it is used, so that a command loads only what it needs (Rich for a table,
huggingface_hub for a Hub id, torch for verify); ``tests/cli/test_startup.py`` guards it.
"""

import functools
import inspect
import io
import os
import signal
import sys
from collections.abc import Iterator, MutableMapping
from importlib import import_module
from typing import Annotated

import typer

from dspark_ckpt import __version__
from dspark_ckpt.cli.errors import EXIT_FAIL, EXIT_USAGE, reported
from dspark_ckpt.cli.options import Color, ColorOpt
from dspark_ckpt.cli.usage import HELP_OPTIONS, Command, Group

# every command, and the module that defines it and registers it on the app with
# ``command``, in the order ``dspark-ckpt -h`` lists them
COMMANDS = {
    "inspect": "dspark_ckpt.cli.inspect",
    "profiles": "dspark_ckpt.cli.info",
    "explain": "dspark_ckpt.cli.info",
    "check": "dspark_ckpt.cli.check",
    "verify": "dspark_ckpt.cli.verify",
    "fix": "dspark_ckpt.cli.fix",
}


class Commands(MutableMapping):
    """The group's commands by name: every name of ``COMMANDS`` is there, and a command is
    built (its module imported, its parameters read by Typer) when it is first looked up.
    Typer builds, at every start, each command registered by then: none, here."""

    def __init__(self, built: MutableMapping) -> None:
        self._built = dict(built)

    def __getitem__(self, name: str):
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            import_module(COMMANDS[name])
            info = next(i for i in app.registered_commands if i.name == name)
            self._built[name] = typer.main.get_command_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
        return self._built[name]

    def __setitem__(self, name: str, command) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*COMMANDS, *self._built]))

    def __len__(self) -> int:
        return len(dict.fromkeys([*COMMANDS, *self._built]))

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS or name in self._built


class LazyGroup(Group):
    """The command group, whose commands are built when first looked up (``Commands``)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.commands = Commands(self.commands)


app = typer.Typer(
    cls=LazyGroup,
    name="dspark-ckpt",
    help="Check speculative-decoding drafter checkpoints against their target, before deployment.",
    context_settings={"help_option_names": HELP_OPTIONS},
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def command(name: str, *, exit_codes: list[str], example: str, json_errors: bool = False):
    """Register the decorated function as the command ``name`` of the app. Its help ends
    with ``exit_codes`` and ``example``; every error it lets out becomes an exit code by
    the one table (``cli/errors.py``) and, under ``--format json``, one JSON error object
    on stdout: in the command's own schema where ``json_errors`` (its schema has one),
    else ``dspark-ckpt/error/v1``."""

    class NamedCommand(Command):
        def invoke(self, ctx):
            fmt = ctx.params.get("fmt")  # as given: Typer makes it a Format in the call
            schema = None
            if getattr(fmt, "value", fmt) == "json":
                from dspark_ckpt.output.json import ERROR_SCHEMA, SCHEMAS

                schema = SCHEMAS[name] if json_errors else ERROR_SCHEMA
            with reported(schema, name):
                return super().invoke(ctx)

    NamedCommand.exit_codes, NamedCommand.example = tuple(exit_codes), example
    register = app.command(name, cls=NamedCommand)
    return lambda fn: register(with_color(fn))


def with_color(fn):
    """``fn`` taking ``--color`` too (every command does): the value goes to
    ``cli/console.py``, which draws the table, not to ``fn``."""
    sig = inspect.signature(fn)
    color = inspect.Parameter(
        "color", inspect.Parameter.KEYWORD_ONLY, default=Color.auto, annotation=ColorOpt
    )

    @functools.wraps(fn)
    def run(*args, color: Color = Color.auto, **kwargs):
        from dspark_ckpt.cli import collector, console

        collector.started()
        console.COLOR = color.value
        try:
            return fn(*args, **kwargs)
        finally:  # one run's choice (in-process: the tests, a library caller) ends with it
            console.COLOR = Color.auto.value

    run.__signature__ = sig.replace(parameters=[*sig.parameters.values(), color])
    run.__annotations__ = {**fn.__annotations__, "color": ColorOpt}
    return run


def _version(value: bool) -> None:
    if value:
        print(f"dspark-ckpt {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option("-V", "--version", callback=_version, is_eager=True, help="Show the version."),
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
    # not imported, or still being imported (no ``committed`` yet): nothing written yet
    atomic = sys.modules.get("dspark_ckpt.source.atomic")
    committed = getattr(atomic, "committed", None)
    if committed is not None and committed():
        _after_commit.append(signum)
        return
    raise Interrupted(signum)


def _said(signum: int) -> str:
    return "interrupted" if signum == signal.SIGINT else "terminated"


def _interrupted_by(err: BaseException) -> Interrupted | None:
    """The ``Interrupted`` behind ``err``, where Python wrapped it in another exception:
    a signal handled inside a dataclass field's ``__set_name__`` (a class being defined,
    so a module being imported) comes out as a RuntimeError caused by it (Python 3.11)."""
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, Interrupted):
            return err
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return None


def _stopped(stop: Interrupted) -> None:
    print(f"dspark-ckpt: {_said(stop.signum)}; nothing written", file=sys.stderr)
    sys.exit(128 + stop.signum)


class StdoutError(Exception):
    """stdout cannot be written (a full disk, a closed pipe): exit 2, as for any output."""

    def __init__(self, err: OSError) -> None:
        super().__init__(err.strerror or str(err))


class _Stdout:
    """sys.stdout, whose write errors are ``StdoutError``s, told apart from all others.

    A reader that closes the pipe (``| head``) is no error: it has read what it wanted.
    What is left to write goes to the null device and the command ends with its own exit
    code (the verdict), saying nothing. A full disk stays an error."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def _closed_by_reader(self) -> None:
        os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._closed_by_reader()
            return len(text)
        except OSError as e:
            raise StdoutError(e) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._closed_by_reader()
            self._stream.flush()  # what the buffer held, now to the null device
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
        _stopped(stop)
    except MemoryError:  # past what the readers catch themselves (they name the file)
        print("dspark-ckpt: error: out of memory", file=sys.stderr)
        sys.exit(EXIT_FAIL)
    except StdoutError as err:
        os.dup2(os.open(os.devnull, os.O_WRONLY), real.fileno())  # nothing more to flush
        sys.stdout = real
        print(f"dspark-ckpt: error: stdout: cannot write: {err}", file=sys.stderr)
        sys.exit(EXIT_USAGE)
    except Exception as err:
        stop = _interrupted_by(err)
        if stop is None:
            raise
        _stopped(stop)
    finally:
        if _after_commit:
            print(
                f"dspark-ckpt: {_said(_after_commit[0])} after the commit point; done, "
                "the change is complete",
                file=sys.stderr,
            )
        # all is said: a signal from here on changes nothing (Python's shutdown would put
        # the default action back, and the process would die by it after its report)
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_IGN)
