"""output/text.py: the one escaping of what reaches a terminal or a CI log."""

from __future__ import annotations

import json

import pytest

from dspark_ckpt.output.json import to_json
from dspark_ckpt.output.text import MAX_LINE, inert, one_line, printable


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("::error::x", "\\x3a:error::x"),
        ("   \t::stop-commands::tok", "   \t\\x3a:stop-commands::tok"),
        ("\u3000\u200b::warning::x", "\u3000\u200b\\x3a:warning::x"),  # any blank or invisible
        ("a ::error::x", "a ::error::x"),  # mid-line: the runner reads only a line's start
        ("x ##[error]y ##[group]z", "x ##\\x5berror]y ##\\x5bgroup]z"),
        ("###[", "###\\x5b"),
        ("##[##[", "##\\x5b##\\x5b"),
        ("::a\n  ::b\r::c\r\n##[d", "\\x3a:a\n  \\x3a:b\r\\x3a:c\r\n##\\x5bd"),
        ("plain: text [1] #2 :: ok", "plain: text [1] #2 :: ok"),
    ],
)
def test_inert_escapes_what_the_runner_would_obey(line, shown):
    assert inert(line) == shown


def test_one_line_escapes_breaks_before_commands():
    """A newline is escaped first: the ``::`` after it is then mid-line, shown as is."""
    assert one_line("X\n::error::y") == "X\\n::error::y"
    assert one_line("::error::y") == "\\x3a:error::y"
    assert one_line("ordinary name.weight") == "ordinary name.weight"
    assert printable("a\n::b") == "a\n\\x3a:b"
    long = one_line("::" + "a" * (3 * MAX_LINE))
    assert long.startswith("\\x3a:") and len(long) < MAX_LINE + 50


def test_json_reads_back_the_same_value():
    value = {"a": ["##[error]x", "::y", "###[", "\\##["]}
    text = to_json(value)
    assert "##[" not in text
    assert json.loads(text) == value
