"""Styled text and a console to print it on, without Rich: what inspect's concise output
and every command's verdict line (``-q``) draw with, so that they start without Rich's
import (a fifth of a start-up; ``benchmarks/startup_bench.py``).

``Styled`` holds what those outputs use of Rich's ``Text``, with its meaning: a base style
for the whole text (the text appended later too) and styled spans over it, ``+``,
``append``, ``append_text``, slicing, ``plain``, ``assemble``; control codes that Rich
strips from a ``Text`` (BEL, backspace, ...) are stripped alike. A Rich console prints it
as the ``Text`` it stands for (``__rich__``), so the boxed tables show the same lines.

``PlainConsole`` prints lines as ``console.py``'s ``DataConsole`` does on a console that
never wraps (``soft_wrap``): what comes from files shown escaped, each line made inert for
a CI runner and stripped of trailing blanks; on a terminal the styles as ANSI escapes,
chosen as Rich chooses them (``--color``, ``NO_COLOR``, ``FORCE_COLOR``, ``TTY_COMPATIBLE``,
a dumb ``TERM``).
"""

from __future__ import annotations

import os

from dspark_ckpt.output.text import command_marks, hex_escape, one_line, printable

# width of what is written to a file or a pipe (a CI log), where no terminal says it
PLAIN_WIDTH = 120
# what Rich's Text strips from the text it is given (rich.control.strip_control_codes)
_STRIPPED = dict.fromkeys((7, 8, 11, 12, 13))
# SGR codes of the styles the outputs use: attributes, then colours (as Rich orders them)
_ATTRIBUTES = {"bold": "1", "dim": "2", "italic": "3", "underline": "4"}
_COLOURS = {"red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35"}
_COLOURS |= {"cyan": "36", "white": "37"}


def _strip(text: str) -> str:
    """``text`` without ``_STRIPPED``'s characters; a printable text holds none of them
    (``str.translate`` looks every character up in the table: a tenth of an output)."""
    return text if text.isprintable() else text.translate(_STRIPPED)


class Styled:
    """Text with a base style and styled spans (``Rich``'s ``Text``, what we use of it)."""

    __slots__ = ("_text", "style", "spans")

    def __init__(self, text: str = "", style: str = "") -> None:
        self._text = _strip(text)
        self.style = style
        self.spans: list[tuple[int, int, str]] = []

    @property
    def plain(self) -> str:
        return self._text

    def __len__(self) -> int:
        return len(self._text)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Styled({self._text!r}, {self.style!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Styled):
            return NotImplemented
        return (self._text, self.style, self.spans) == (other._text, other.style, other.spans)

    def copy(self) -> Styled:
        out = Styled(style=self.style)
        out._text, out.spans = self._text, list(self.spans)
        return out

    def append(self, text: Styled | str, style: str = "") -> Styled:
        """``text`` at the end, in ``style``; a ``Styled`` keeps its own styles."""
        if isinstance(text, Styled):
            return self.append_text(text)
        if text:
            start = len(self._text)
            self._text += _strip(text)
            if style:
                self.spans.append((start, len(self._text), style))
        return self

    def append_text(self, text: Styled) -> Styled:
        start = len(self._text)
        self._text += text._text
        if text.style:
            self.spans.append((start, len(self._text), text.style))
        self.spans += [(start + a, start + b, s) for a, b, s in text.spans]
        return self

    def __add__(self, other: Styled | str) -> Styled:
        return self.copy().append(other)

    def __radd__(self, other: str) -> Styled:
        return Styled(other).append_text(self)

    def __getitem__(self, index: slice) -> Styled:
        start, stop, _ = index.indices(len(self._text))
        out = Styled(self._text[start:stop], self.style)
        out.spans = [
            (max(a, start) - start, min(b, stop) - start, s)
            for a, b, s in self.spans
            if a < stop and b > start
        ]
        return out

    def split(self, separator: str = "\n") -> list[Styled]:
        """The lines between each ``separator`` (none after a last one), as Rich's."""
        out, start = [], 0
        while (at := self._text.find(separator, start)) >= 0:
            out.append(self[start:at])
            start = at + len(separator)
        return [*out, self[start:]] if start < len(self._text) or not out else out

    def divide(self, offsets: list[int]) -> list[Styled]:
        """The pieces between ``offsets`` (Rich's ``Text.divide``)."""
        cuts = [0, *offsets, len(self._text)]
        return [self[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]

    def join(self, parts: list[Styled]) -> Styled:
        """``parts`` one after another, this text between each two (Rich's ``Text.join``),
        in one pass: no copy of the text made so far at each part."""
        out, texts, at = Styled(style=self.style), [], 0
        for i, part in enumerate(parts):
            for piece in (self, part) if i and self._text else (part,):
                texts.append(piece._text)
                if piece.style:
                    out.spans.append((at, at + len(piece._text), piece.style))
                out.spans += [(at + a, at + b, s) for a, b, s in piece.spans]
                at += len(piece._text)
        out._text = "".join(texts)
        return out

    @classmethod
    def assemble(cls, *parts: Styled | str | tuple[str, str], style: str = "") -> Styled:
        out = cls(style=style)
        for part in parts:
            out.append(*part) if isinstance(part, tuple) else out.append(part)
        return out

    def ansi(self, colour: bool = True) -> str:
        """The text as Rich renders it: a piece between each two span boundaries, each in
        its styles combined as an SGR escape (colours left out where not ``colour``:
        ``NO_COLOR``)."""
        cuts = sorted({0, len(self._text), *(i for a, b, _ in self.spans for i in (a, b))})
        out = []
        for a, b in zip(cuts, cuts[1:], strict=False):
            if a >= b or b > len(self._text):
                continue
            styles = [self.style] + [s for x, y, s in self.spans if x <= a and b <= y]
            sgr = _sgr(styles, colour)
            out.append(f"\x1b[{sgr}m{self._text[a:b]}\x1b[0m" if sgr else self._text[a:b])
        return "".join(out)

    def rich(self):
        """The Rich ``Text`` this stands for (a Rich console prints it so: ``__rich__``)."""
        from rich.text import Span, Text

        return Text(self._text, self.style, spans=[Span(*s) for s in self.spans])

    __rich__ = rich


def _sgr(styles: list[str], colour: bool) -> str:
    """The SGR parameters of ``styles`` combined (a later colour wins)."""
    attributes, fg = [], None
    for style in styles:
        for word in style.split():
            if word in _ATTRIBUTES and _ATTRIBUTES[word] not in attributes:
                attributes.append(_ATTRIBUTES[word])
            elif word in _COLOURS:
                fg = _COLOURS[word]
    codes = sorted(attributes) + ([fg] if fg and colour else [])
    return ";".join(codes)


class PlainConsole:
    """Lines on ``file`` (``width`` wide, what the outputs lay out to), never wrapped;
    with ANSI styles where ``colour`` says (``False``, ``True``, or ``"attributes"``:
    bold and dim but no colours, Rich's ``NO_COLOR``)."""

    def __init__(self, file, width: int, colour: bool | str = False) -> None:
        self.file, self.width, self.colour = file, width, colour

    def print(self, text: Styled | str = "", style: str = "", soft_wrap: bool = True) -> None:
        shown = Styled(one_line(text), style) if isinstance(text, str) else _escaped(text)
        at, out = 0, []
        for line in shown.plain.split("\n"):
            piece = shown[at : at + len(line)]
            at += len(line) + 1
            piece = _inert(piece[: len(line.rstrip(" "))])
            out.append(piece.ansi(self.colour is True) if self.colour else piece.plain)
        self.file.write("\n".join(out) + "\n")


def _escaped(text: Styled) -> Styled:
    """``text`` with its control characters but newlines shown escaped, each in the style
    it was drawn in (``DataConsole.render``)."""
    if printable(text.plain) == text.plain:
        return text
    out, start = Styled(style=text.style), 0
    for i, c in enumerate(text.plain):
        if printable(c) != c:
            out.append_text(text[start:i])
            out.append_text(_restyled(Styled(one_line(c)), text[i : i + 1]))
            start = i + 1
    return out.append_text(text[start:])


def _restyled(shown: Styled, like: Styled) -> Styled:
    """``shown`` in the styles of the one character ``like``."""
    shown.style = like.style
    shown.spans = [(0, len(shown), s) for _, _, s in like.spans]
    return shown


def _inert(line: Styled) -> Styled:
    """One line with what a CI runner would obey escaped (``command_marks``)."""
    marks = command_marks(line.plain)
    for at in sorted(marks, reverse=True):
        c = line[at : at + 1]
        line = line[:at] + _restyled(Styled(hex_escape(c.plain)), c) + line[at + 1 :]
    return line


def terminal_console(file, colour: str, width_when_no_tty) -> PlainConsole:
    """The plain console for ``file`` as Rich's would be for ``--color colour``: whether it
    is a terminal (``FORCE_COLOR``, ``TTY_COMPATIBLE``, else ``isatty``; ``always``:
    styled wherever it goes), its width (a terminal's: ``COLUMNS`` or its size; else
    ``width_when_no_tty()`` or ``PLAIN_WIDTH``) and its styles."""
    env = os.environ
    always = colour == "always"
    if always:
        terminal = True
    elif env.get("TTY_COMPATIBLE", "") in ("0", "1"):
        terminal = env["TTY_COMPATIBLE"] == "1"
    elif env.get("FORCE_COLOR") is not None:
        terminal = env["FORCE_COLOR"] != ""
    else:
        terminal = _isatty(file)
    dumb = terminal and env.get("TERM", "").lower() in ("dumb", "unknown")
    tty = _isatty(file) if always else terminal
    if not tty:
        width = width_when_no_tty() or PLAIN_WIDTH
    elif dumb:
        width = 80
    else:
        width = _terminal_width()
    styles: bool | str = colour != "never" and terminal and not dumb
    if styles and env.get("NO_COLOR", "") != "":
        styles = "attributes"
    return PlainConsole(file, width, styles)


def _isatty(file) -> bool:
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError):
        return False


def _terminal_width() -> int:
    """A terminal's width as Rich reads it: stdin's, stdout's or stderr's size, ``COLUMNS``
    over it, 80 where nothing says."""
    width = None
    for fd in (0, 1, 2):
        try:
            width = os.get_terminal_size(fd).columns
            break
        except (AttributeError, ValueError, OSError):
            pass
    columns = os.environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        width = int(columns)
    return width or 80
