"""Where a command's output and progress go: stdout or a file (``-o``), the table's
consoles, progress bars on stderr for people.

The boxed tables (``output/table.py``, Rich) are imported only where a table is shown;
inspect's concise output and ``-q``'s verdict line draw on a ``PlainConsole``
(``output/styled.py``: no Rich), and the machine formats start without Rich
(``tests/cli/test_startup.py``).
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from dspark_ckpt.cli.options import CI_FORMATS, Format, PlainFormat
from dspark_ckpt.output.styled import PLAIN_WIDTH

if TYPE_CHECKING:
    from rich.console import Console


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


def summaries():
    """The one-line verdicts (no Rich: ``-q``)."""
    from dspark_ckpt.output import summary

    return summary


def concise():
    """inspect's concise format (no Rich)."""
    from dspark_ckpt.output import concise

    return concise


def check_tables():
    """``check``'s table format (imports Rich: only where a table is shown)."""
    from dspark_ckpt.output import check_table

    return check_table


def fix_tables():
    """The table format of ``fix`` and ``verify`` (imports Rich: only where it is shown)."""
    from dspark_ckpt.output import fix_table

    return fix_table


# --color: "auto" (Rich decides: a terminal, NO_COLOR, FORCE_COLOR), "always", "never"
COLOR = "auto"


def colors() -> dict:
    """The console options ``--color`` asks for (none for ``auto``: Rich's own choice)."""
    if COLOR == "never":
        return {"color_system": None}
    if COLOR == "always":
        return {"force_terminal": True}
    return {}


def stdout() -> Console:
    from dspark_ckpt.output.console import DataConsole

    console = DataConsole(sys.stdout, soft_wrap=False, **colors())
    tty = sys.stdout.isatty() if COLOR == "always" else console.is_terminal
    if not tty:
        console.width = output_width() or PLAIN_WIDTH
    return console


def plain_stdout():
    """stdout as a ``PlainConsole`` (no Rich: inspect's concise output, ``-q``'s line),
    its width and styles as ``stdout()``'s would be."""
    from dspark_ckpt.output.styled import terminal_console

    return terminal_console(sys.stdout, COLOR, output_width)


def stderr() -> Console:
    from dspark_ckpt.output.console import DataConsole

    return DataConsole(sys.stderr, soft_wrap=True, **colors())


def deliver(
    output: Path | None, text: str | None, show: Callable[[Console], None], plain: bool = False
) -> None:
    """Machine ``text``, or ``show`` drawing on a console (a ``PlainConsole`` where
    ``plain``), to stdout or atomically to a file."""
    if output is None or str(output) == "-":
        if text is None:
            show(plain_stdout() if plain else stdout())
        else:
            sys.stdout.write(text)
        return
    from dspark_ckpt.source.atomic import write_atomic

    if text is None:
        buf = io.StringIO()
        if plain:
            from dspark_ckpt.output.styled import PlainConsole

            show(PlainConsole(buf, PLAIN_WIDTH))
        else:
            from dspark_ckpt.output.console import DataConsole

            show(DataConsole(buf, width=PLAIN_WIDTH, soft_wrap=False, force_terminal=False))
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
    also: list[tuple[Format, Path]] = (),
    plain: bool = False,
) -> None:
    """A result in ``fmt``: JSON, a CI format over its check runs, or the table for people
    (``--quiet``: the summary line only, on a ``PlainConsole``; ``full`` too where
    ``plain``); to stdout or atomically to ``output``. And each of ``also`` (``--also``):
    the same result in another format, to its own path (written before the main output)
    or to stdout (after it)."""

    def text(fmt: Format) -> str | None:
        if fmt is Format.json:
            from dspark_ckpt.output.json import to_json

            return to_json(json_obj()) + "\n"
        if fmt in CI_FORMATS:
            from dspark_ckpt.output.ci import ci_text

            return ci_text(fmt.value, runs())
        return None

    to_stdout = [(f, path) for f, path in also if str(path) == "-"]
    for f, path in also:  # the files first: one that cannot be written stops it all
        if (f, path) not in to_stdout:
            deliver(path, text(f), full, plain)
    deliver(output, text(fmt), summary if quiet else full, quiet or plain)
    for f, path in to_stdout:
        deliver(path, text(f), full, plain)


def say(message: str) -> None:
    """``dspark-ckpt: message`` on stderr, one line as ``output/text.py`` shows it (a path
    or a tensor name in it never breaks the line nor becomes a CI workflow command)."""
    from dspark_ckpt.output.text import one_line

    print(one_line(f"dspark-ckpt: {message}"), file=sys.stderr)


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
    from dspark_ckpt.source.base import on_header

    with DelayedProgress("reading headers", None, stderr(), enabled=enabled) as bar:
        token = on_header.set(lambda path: bar.advance(path.name))
        try:
            yield
        finally:
            on_header.reset(token)
