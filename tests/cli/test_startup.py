"""Start-up: each command imports only what it uses (the timings are in
``benchmarks/startup_bench.py``; this guards the imports, which is what they come from).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

# what a JSON inspect of a local checkpoint never needs: the table (Rich), the Hub,
# torch, typer's pydantic coercion (typer >= 0.29), numpy (no d2t/t2d to read), and the
# machinery of the other commands
HEAVY = (
    "rich",
    "huggingface_hub",
    "torch",
    "pydantic",
    "numpy",
    "concurrent.futures",
    "dspark_ckpt.commands.check",
    "dspark_ckpt.source.hub",
    "dspark_ckpt.commands.fix",
    "dspark_ckpt.commands.verify",
    "dspark_ckpt.source.atomic",
    "dspark_ckpt.output.table",
    "dspark_ckpt.cli.progress",
)
RUN = """
import json, sys
sys.argv = ["dspark-ckpt", *sys.argv[2:]]
from dspark_ckpt.cli import main
try:
    main()
finally:
    with open(OUT, "w") as f:
        json.dump(sorted(sys.modules), f)
"""


def imported(tmp_path: Path, *argv: str | Path) -> set[str]:
    """The modules loaded by the whole ``dspark-ckpt ARGV`` process, as it ends."""
    out = tmp_path / "modules.json"
    code = RUN.replace("OUT", repr(str(out)))
    subprocess.run(
        [sys.executable, "-c", code, "-", *map(str, argv)],
        capture_output=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "COLUMNS": "100"},
        timeout=60,
    )
    return set(json.loads(out.read_text()))


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m in HEAVY)


PADDED = [FIXTURES / "padded", "--target", FIXTURES / "targets/small"]


def test_inspect_json_imports_no_table_hub_torch_pydantic_or_numpy(tmp_path):
    found = heavy(imported(tmp_path, "inspect", *PADDED, "--format", "json"))
    assert found == [], (
        f"inspect --format json imported {found}; pydantic comes from typer >= 0.29, "
        "outside the range pyproject.toml pins (pip install -e . installs a typer in it)"
    )


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["inspect", "--help"]])
def test_help_and_version_import_no_command_machinery(tmp_path, argv):
    modules = imported(tmp_path, *argv)
    assert heavy(modules) == []
    assert (
        "dspark_ckpt.commands.inspect" not in modules and "dspark_ckpt.rules.common" not in modules
    )


def test_the_table_imports_rich_and_a_d2t_numpy(tmp_path):
    """The check above can fail: the table does load Rich, a pruned drafter's d2t numpy."""
    assert "rich" in imported(tmp_path, "inspect", *PADDED)
    pruned = [FIXTURES / "pruned-eagle3", "--target-vocab-size", "100", "--format", "json"]
    assert "numpy" in imported(tmp_path, "inspect", *pruned)
