"""Help and argument errors in the tool's own words, whatever Typer or Click version runs.

``Command.format_help`` writes every command's help in one style (metavars ``DRAFTER``,
``TARGET``, ``PATH``, ``DIR``, ``N``; at the end the exit codes and an example, which
each command gives where it is defined); ``Group.main`` turns Click's usage errors into
one ``dspark-ckpt: error: ...`` line and exit 2.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from dspark_ckpt.cli.errors import EXIT_USAGE

try:  # Typer 0.2x carries its own copy of Click; older ones use Click itself
    from typer._click import exceptions as errors
except ImportError:  # pragma: no cover - depends on the installed Typer
    from click import exceptions as errors

# Click 8.2+ raises it for no arguments (older ones print the help and exit themselves)
NO_ARGS = getattr(errors, "NoArgsIsHelpError", ())
HELP_OPTIONS = ["-h", "--help"]
# a value given to a flag: the option that takes it
VALUE_OPTIONS = {"--emit-mask": "--mask-path", "--emit-d2t": "--d2t-path"}


def metavar(param: Any) -> str:
    """The name a parameter's value has in help and errors (``DRAFTER``, ``N``)."""
    return param.metavar or (param.name or "").upper()


def is_argument(param: Any) -> bool:
    return param.param_type_name == "argument"


def is_flag(param: Any) -> bool:
    return not is_argument(param) and bool(getattr(param, "is_flag", False))


class Command(TyperCommand):
    """A subcommand whose help is written here, in the tool's one style."""

    exit_codes: tuple[str, ...] = ()  # what each exit code means, for this command
    example: str | None = None

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        args = [metavar(p) for p in self.params if is_argument(p)]
        return ["[OPTIONS]", *args]

    def format_usage(self, ctx: Any, formatter: Any) -> None:
        formatter.write_usage(ctx.command_path, " ".join(self.collect_usage_pieces(ctx)))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self.format_usage(ctx, formatter)
        if self.help:
            formatter.write_paragraph()
            with formatter.indentation():
                formatter.write_text(self.help)
        arguments = [
            (metavar(p), getattr(p, "help", "") or "")
            for p in self.params
            if is_argument(p) and not p.hidden
        ]
        options = [_option_record(p) for p in self.params if not is_argument(p)]
        options.append((", ".join(HELP_OPTIONS), "Show this help and exit."))
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
        extra = [("Exit codes", self.exit_codes), ("Example", [self.example])]
        for title, lines in extra:
            if any(lines):
                formatter.write_paragraph()
                formatter.write_text(f"{title}:")
                for line in lines:
                    formatter.write(f"  {line}\n")


def _option_record(p: Any) -> tuple[str, str]:
    names = ", ".join([*p.opts, *p.secondary_opts] if not p.secondary_opts else [])
    if p.secondary_opts:  # --markov / --no-markov
        names = " / ".join([*p.opts, *p.secondary_opts])
    if not is_flag(p):
        names += f" {metavar(p)}"
    text = p.help or ""
    default = p.default
    if p.show_default is not False and default not in (None, False, ()) and not is_flag(p):
        shown = getattr(default, "value", default)
        text += f" [default: {shown}]"
    return names, text


class Group(TyperGroup):
    """The command group: ``-h`` as ``--help``, and Click's usage errors as one line."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        argv = list(sys.argv[1:] if args is None else args)
        try:
            rv = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
        except NO_ARGS as err:  # no command: the help, as -h gives it (on stderr, exit 2)
            if not standalone_mode:
                raise
            print(err.ctx.get_help(), file=sys.stderr)
            sys.exit(EXIT_USAGE)
        except errors.UsageError as err:
            if not standalone_mode:
                raise
            command = next((a for a in argv if a in self.commands), "")
            message = usage_message(err, argv, command)
            print(f"dspark-ckpt: error: {message}", file=sys.stderr)
            if given(argv, ["--format"]) == "json":  # the JSON error object, as for any error
                from dspark_ckpt.cli.errors import json_error
                from dspark_ckpt.output.json import ERROR_SCHEMA, SCHEMAS

                own = command in ("fix", "verify")  # their schema has an error object
                schema = SCHEMAS[command] if own else ERROR_SCHEMA
                json_error(schema, command or None, "usage", Exception(message))
            sys.exit(EXIT_USAGE)
        except typer.Abort:
            if not standalone_mode:
                raise
            print("dspark-ckpt: aborted", file=sys.stderr)
            sys.exit(1)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


def given(argv: list[str], opts: list[str]) -> str | None:
    """The value given on the command line to the option spelled ``opts``."""
    for i, arg in enumerate(argv):
        for opt in opts:
            if arg == opt and i + 1 < len(argv):
                return argv[i + 1]
            if opt.startswith("--") and arg.startswith(opt + "="):
                return arg[len(opt) + 1 :]
    return None


def usage_message(err: Any, argv: list[str], command: str = "") -> str:
    """``err`` (raised parsing ``argv`` for ``command``) in the tool's words: what is
    wrong, and what to write instead."""
    from dspark_ckpt.output.text import one_line

    see = f" (see 'dspark-ckpt {command} -h')" if command else " (see 'dspark-ckpt -h')"
    if isinstance(err, errors.NoSuchOption):
        near = sorted(err.possibilities or [])
        maybe = f"; did you mean {' or '.join(near)}?" if near else ""
        return one_line(f"{err.option_name}: no such option{maybe}{see}")
    if isinstance(err, errors.BadOptionUsage):
        opt = err.option_name
        if opt in VALUE_OPTIONS:
            return one_line(
                f"{opt} takes no value; to choose where it writes: {VALUE_OPTIONS[opt]} PATH"
            )
        if "requires" in err.message or "argument" in err.message:
            return one_line(f"{opt} needs a value{see}")
        return one_line(f"{opt}: {_lower(err.message)}{see}")
    if isinstance(err, errors.MissingParameter) and err.param is not None:
        name = metavar(err.param) if is_argument(err.param) else err.param.opts[0]
        return one_line(f"missing {name}{see}")
    if isinstance(err, errors.BadParameter) and err.param is not None:
        return one_line(_bad_value(err.param, argv) + see)
    extra = re.search(r"unexpected extra argument\S*\s*\((.*)\)", err.format_message(), re.I)
    if extra:
        return one_line(_extra_argument(extra.group(1).split(" ")[0], argv) + see)
    return one_line(_lower(err.format_message()) + see)


def _extra_argument(value: str, argv: list[str]) -> str:
    """A second positional: a value given to a flag, or a target given without --target."""
    at = argv.index(value) if value in argv else -1
    flag = argv[at - 1] if at > 0 else ""
    if flag in VALUE_OPTIONS:
        return (
            f"{flag} takes no value (got {value!r}); "
            f"to choose where it writes: {VALUE_OPTIONS[flag]} {value}"
        )
    return f"unexpected argument {value!r}: a target is given with --target {value}"


def _bad_value(param: Any, argv: list[str]) -> str:
    shown = metavar(param) if is_argument(param) else param.opts[0]
    value = None if is_argument(param) else given(argv, list(param.opts))
    got = f"{value!r}" if value is not None else "this value"
    choices = metavar(param).split("|")
    if len(choices) > 1:
        return f"{shown}: {got} is not one of {', '.join(choices)}"
    return f"{shown}: {got} is not a valid {metavar(param)}"


def _lower(message: str) -> str:
    message = message.strip().rstrip(".")
    return message[:1].lower() + message[1:]
