"""Every ``dspark-ckpt`` command a hint gives runs once the output fills it in (issue 27:
DSC103's ``fix --emit-d2t`` named no drafter, so the concise output could not fill the
user's paths into it, and a bare `` `dspark-ckpt fix` does`` was no command at all).

Walks every rule's own hint and every hint of every finding of every firing row of the
rule tables (as ``test_runtime_named.py`` does), takes each backquoted ``dspark-ckpt``
command, fills it as inspect's outputs do (``with_paths``: the drafter and target of a
real report) and parses it with the CLI's own parser: a missing argument, an unknown
option or a value an option refuses fails, naming the code and the hint."""

from __future__ import annotations

import re
import shlex

import pytest
import typer
from conftest import FIXTURES
from rules_harness import Bench
from test_cases import ALL

from dspark_ckpt.cli import app
from dspark_ckpt.commands.inspect import inspect_checkpoint, with_paths
from dspark_ckpt.facts.target import open_target
from dspark_ckpt.rules.registry import RULES

# what the CLI's parser raises on a missing argument or an unknown option (Typer's click)
ParseError = typer.BadParameter.__mro__[1]  # UsageError

COMMAND = re.compile(r"`(dspark-ckpt [^`]*)`")


@pytest.fixture(scope="module")
def hints(tmp_path_factory) -> dict[str, set[str]]:
    """Each hint text, with the codes that give it."""
    out: dict[str, set[str]] = {}
    for code, r in RULES.items():
        out.setdefault(r.hint or "", set()).add(code)
    bench = Bench(tmp_path_factory.mktemp("hints"))
    for c in ALL:
        if not c.fires:
            continue
        report = bench.run(c)
        for f in [*report.findings, *(f for fs in report.others.values() for f in fs)]:
            out.setdefault(f.fix_hint or "", set()).add(f.code)
    return out


def parse(words: list[str]) -> None:
    """``words`` (after ``dspark-ckpt``) through the CLI's parser, nothing run."""
    root = typer.main.get_command(app)
    ctx = root.make_context("dspark-ckpt", list(words), resilient_parsing=False)
    name, cmd, rest = root.resolve_command(ctx, list(words))
    cmd.make_context(name, rest, parent=ctx)


def test_every_command_a_hint_gives_runs_once_filled(hints, tmp_path):
    report = inspect_checkpoint(
        str(FIXTURES / "padded"), open_target(str(FIXTURES / "targets/small")), None
    )
    found, wrong = 0, []
    for text, codes in sorted(hints.items()):
        for command in COMMAND.findall(text):
            found += 1
            filled = with_paths(command, report)
            words = [str(tmp_path / "out") if w == "DIR" else w for w in shlex.split(filled)]
            try:
                assert "DRAFTER" not in words and str(FIXTURES / "padded") in words
                parse(words[1:])
            except (AssertionError, ParseError) as err:
                wrong.append(f"{sorted(codes)}: `{command}` -> {filled}: {err}")
    assert found >= 10  # the walk reaches the hints that give commands
    assert not wrong, "\n".join(wrong)


def test_the_check_fails_on_the_hints_issue_27_found():
    """A bare ``fix``, and ``fix --emit-d2t`` with no drafter, fail to parse."""
    for words in (["fix"], ["fix", "--emit-d2t"]):
        with pytest.raises(ParseError):
            parse(words)
    parse(["fix", str(FIXTURES / "padded"), "--target", "T", "--emit-d2t"])
