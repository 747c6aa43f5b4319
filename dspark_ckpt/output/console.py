"""The Rich console the boxed tables draw on (``table.py`` and the other table modules
build on it). What ``-q`` prints (``summary.py``) and inspect's concise output need no
Rich: ``styled.py``'s ``PlainConsole`` prints them as this console would
(``tests/cli/test_startup.py``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rich.console import Console
from rich.segment import Segment
from rich.text import Text

from dspark_ckpt.output.styled import PLAIN_WIDTH  # noqa: F401 - the tables' too
from dspark_ckpt.output.text import command_marks, hex_escape, one_line, printable


class DataConsole(Console):
    """A console for text that comes from files and paths: it prints it as given.

    No Rich markup (``[bold]``) and no emoji codes (``:cat:``) are interpreted, and control
    characters (a tensor name holding ``ESC[2J``) are shown escaped before layout, never sent
    to the terminal; Rich's own styling and cursor control are untouched. A string is a
    value (``one_line``: a newline in it is shown ``\\n``); the lines of a ``Text`` are the
    layout's. Each line drawn is made ``inert`` for a CI runner, whatever brought a ``::``
    to its start (a long value folded there).
    """

    def __init__(self, file, **options) -> None:
        super().__init__(file=file, markup=False, emoji=False, **options)

    def render_str(self, text: str, **options) -> Text:
        return super().render_str(one_line(text), **options)

    def render(self, renderable, options=None):
        if isinstance(renderable, Text) and printable(renderable.plain) != renderable.plain:
            shown, start = renderable.blank_copy(), 0
            for i, c in enumerate(renderable.plain):
                if printable(c) != c:
                    shown.append_text(renderable[start:i])
                    shown.append(one_line(c), renderable.get_style_at_offset(self, i))
                    start = i + 1
            renderable = shown.append_text(renderable[start:])
        return _rstrip_lines(super().render(renderable, options))


def _rstrip_lines(segments: Iterable[Segment]) -> Iterator[Segment]:
    """``segments`` without the spaces that pad a line up to the console's width."""
    line: list[Segment] = []
    for seg in segments:
        if seg.control:
            line.append(seg)
            continue
        for i, part in enumerate(seg.text.split("\n")):
            if i:
                while line and not line[-1].control and not line[-1].text.rstrip(" "):
                    line.pop()
                if line and not line[-1].control:
                    last = line.pop()
                    line.append(Segment(last.text.rstrip(" "), last.style))
                yield from _inert(line)
                yield Segment("\n")
                line = []
            if part:
                line.append(Segment(part, seg.style))
    yield from _inert(line)


def _inert(line: list[Segment]) -> list[Segment]:
    """One drawn line with what a CI runner would obey escaped (``command_marks``), in the
    segment and style it was drawn in; a line without any is returned as it is."""
    marks = set(command_marks("".join(seg.text for seg in line if not seg.control)))
    if not marks:
        return line
    shown, at = [], 0
    for seg in line:
        if seg.control:
            shown.append(seg)
            continue
        text = "".join(hex_escape(c) if at + i in marks else c for i, c in enumerate(seg.text))
        shown.append(Segment(text, seg.style))
        at += len(seg.text)
    return shown


def verdict_text(ok: bool) -> Text:
    return Text("PASS", style="bold green") if ok else Text("FAIL", style="bold red")
