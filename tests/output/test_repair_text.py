"""``fix``'s repair output drawn without Rich (``output/repair_text.py``): byte for byte
what Rich's grid draws, at every width, wrapped and folded values included."""

from __future__ import annotations

import io
import shutil

import pytest
from conftest import FIXTURES, cli

from dspark_ckpt.commands.fix import run_repair
from dspark_ckpt.commands.repair import RepairRequest
from dspark_ckpt.facts.target import open_target
from dspark_ckpt.output import fix_table, repair_text
from dspark_ckpt.output.console import DataConsole
from dspark_ckpt.output.styled import PlainConsole

WIDTHS = [30, 45, 60, 80, 120]
LONG = "a-drafter-folder-named-far-longer-than-any-line-is-wide-" * 3


def _results(tmp_path):
    long = tmp_path / LONG / "the drafter with spaces in its name"
    shutil.copytree(FIXTURES / "padded", long)
    out = []
    for drafter, target, req in (
        ("padded", "small", RepairRequest(diff=True)),
        ("padded", "tight", RepairRequest(diff=True, unsafe=True)),
        ("padded", "small", RepairRequest(diff=True, profiles=["vllm", "sglang-dspark"])),
        (str(long), "small", RepairRequest(diff=True)),
        ("pruned-eagle3", "small", RepairRequest(diff=True)),
    ):
        path = drafter if "/" in drafter else str(FIXTURES / drafter)
        out.append(run_repair(path, open_target(str(FIXTURES / "targets" / target)), req))
    return out


@pytest.mark.parametrize("colour", [False, True, "attributes"])
def test_repair_drawn_without_rich_byte_for_byte_as_rich_draws_it(tmp_path, colour):
    """Every width, colour or not: the lines ``repair_text`` draws are Rich's, wrapped
    between words and a word wider than the column folded (the long folder name)."""
    results = _results(tmp_path)
    wrapped = folded = False
    for result in results:
        assert not repair_text.rich_cells(repair_text.repair_rows(result))
        for width in WIDTHS:
            ours, rich = io.StringIO(), io.StringIO()
            repair_text.print_repair(result, PlainConsole(ours, width, colour))
            options = {"color_system": "standard", "force_terminal": True} if colour else {}
            console = DataConsole(
                rich, width=width, soft_wrap=False, no_color=colour == "attributes", **options
            )
            fix_table.print_repair(result, console)
            assert ours.getvalue() == rich.getvalue()
            assert ("\x1b[" in ours.getvalue()) == bool(colour)
            plain = io.StringIO()
            repair_text.print_repair(result, PlainConsole(plain, width))
            wrapped |= plain.getvalue().split("\n")[1].startswith(" ")
            folded |= LONG[:20] in plain.getvalue() and LONG not in plain.getvalue()
    assert wrapped and folded  # the cases that differ from a plain print were drawn


def test_wide_characters_are_drawn_by_rich_the_same_lines(tmp_path):
    """A drafter whose path holds wide characters: Rich draws the output (it measures
    cells as a terminal does), the same lines as an ASCII path's."""
    wide = tmp_path / "模型の下書き"
    shutil.copytree(FIXTURES / "padded", wide)
    target = FIXTURES / "targets" / "small"
    ascii_ = cli("fix", FIXTURES / "padded", "--target", target, "--diff")
    r = cli("fix", wide, "--target", target, "--diff")
    assert repair_text.rich_cells([("drafter", repair_text.Styled(str(wide)))])
    assert r.exit_code == ascii_.exit_code == 1
    assert r.stdout.replace(str(wide), "D") == ascii_.stdout.replace(str(FIXTURES / "padded"), "D")
