"""Start-up: each command imports only what it uses (the timings are in
``benchmarks/startup_bench.py``; this guards the imports, which is what they come from).
"""

from __future__ import annotations

import inspect
import json
import shutil
import subprocess
import sys
from pathlib import Path

import mtp_targets as MT
import pytest
from conftest import FIXTURES, ROOT

from dspark_ckpt.profiles.registry import PROFILES

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
    "dspark_ckpt.commands.check_config",
    "dspark_ckpt.commands.runs",
    "dspark_ckpt.source.hub",
    "dspark_ckpt.source.hub_http",
    "dspark_ckpt.commands.fix",
    "dspark_ckpt.commands.verify",
    "dspark_ckpt.commands.verify_memory",
    "dspark_ckpt.commands.verify_load",
    "dspark_ckpt.commands.verify_sample",
    "dspark_ckpt.source.atomic",
    "dspark_ckpt.source.journal",
    "dspark_ckpt.output.table",
    "dspark_ckpt.output.ci",
    "dspark_ckpt.cli.progress",
    # the MTP loader tables (inspect TARGET --mtp; an MTP row's reason reads them)
    "dspark_ckpt.profiles.mtp",
)
# what --help and --version never need besides: the engine, the formats, the readers
ENGINE = (
    "dspark_ckpt.commands.inspect",
    "dspark_ckpt.rules.engine",
    "dspark_ckpt.profiles.registry",
    "dspark_ckpt.source.checkpoint",
    "dspark_ckpt.output.json",
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


@pytest.mark.parametrize(
    "args", [[], ["--color", "always"], ["-q"], ["-q", "--color", "always"], ["--format", "json"]]
)
def test_the_concise_output_a_verdict_line_or_json_never_import_rich(tmp_path, args):
    """inspect's default output and ``-q``'s line are drawn without Rich (``styled.py``),
    in colour too; JSON needs none either."""
    modules = imported(tmp_path, "inspect", *PADDED, *args)
    assert "dspark_ckpt.output.summary" in modules or args[0] == "--format"
    assert not [m for m in modules if m == "rich" or m.startswith("rich.")]
    assert "dspark_ckpt.output.table" not in modules


def test_fix_and_check_verdict_lines_never_import_rich(tmp_path):
    config = tmp_path / "dspark-ckpt.toml"
    config.write_text(f'[[pairs]]\ndrafter = "{PADDED[0]}"\ntarget = "{PADDED[2]}"\n')
    for argv in (["fix", *PADDED, "--diff", "-q"], ["check", "--config", config, "-q"]):
        modules = imported(tmp_path, *argv)
        assert "dspark_ckpt.output.summary" in modules and "rich" not in modules, argv


def test_fix_diff_draws_its_plan_without_rich_but_for_wide_characters(tmp_path):
    """``fix --diff``'s plan is drawn without Rich (``output/repair_text.py``); a path
    holding wide characters is drawn by Rich, which measures terminal cells."""
    assert "rich" not in imported(tmp_path, "fix", *PADDED, "--diff")
    wide = tmp_path / "模型"
    shutil.copytree(PADDED[0], wide)
    assert "rich" in imported(tmp_path, "fix", wide, *PADDED[1:], "--diff")


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["inspect", "--help"]])
def test_help_and_version_import_no_command_machinery(tmp_path, argv):
    modules = imported(tmp_path, *argv)
    assert heavy(modules) == []
    assert sorted(m for m in modules if m in ENGINE) == []


def test_a_command_loads_and_builds_its_own_command_only(tmp_path):
    """Each command is a module of cli/, imported when it runs (its parameters are read by
    Typer only then): --version loads none, inspect its own."""
    commands = {f"dspark_ckpt.cli.{name}" for name in ("inspect", "info", "check", "verify", "fix")}
    assert commands & imported(tmp_path, "--version") == set()
    modules = imported(tmp_path, "inspect", *PADDED, "--format", "json")
    assert commands & modules == {"dspark_ckpt.cli.inspect"}


@pytest.mark.parametrize("fmt", ["github", "junit", "sarif"])
def test_ci_formats_import_only_the_check_runs_and_the_formats(tmp_path, fmt):
    """A CI format starts as lean as JSON (no Rich): it adds the runs it reports on."""
    modules = imported(tmp_path, "inspect", *PADDED, "--format", fmt)
    assert f"dspark_ckpt.output.{fmt}" in modules
    assert heavy(modules - {"dspark_ckpt.commands.runs", "dspark_ckpt.output.ci"}) == []


@pytest.mark.parametrize(
    "argv", [["profiles", "--format", "json"], ["explain", "--format", "json"]]
)
def test_profiles_and_explain_read_no_checkpoint_machinery(tmp_path, argv):
    modules = imported(tmp_path, *argv)
    assert heavy(modules) == []
    assert "dspark_ckpt.commands.inspect" not in modules
    assert "dspark_ckpt.source.checkpoint" not in modules


def test_commands_give_typer_annotations_it_need_not_evaluate():
    """Typer reads every command's signature at each start: annotations left as strings
    (``from __future__ import annotations`` in a cli/ command module) are compiled and
    evaluated there each time, about 10 ms of a start-up."""
    import typer.main

    from dspark_ckpt.cli import app

    group = typer.main.get_command(app)
    for name, command in group.commands.items():
        callback = inspect.unwrap(command.callback)
        strings = [k for k, v in inspect.get_annotations(callback).items() if isinstance(v, str)]
        assert strings == [], f"{name}: annotations as strings: {strings}"


PRUNED = [FIXTURES / "pruned-eagle3", "--target-vocab-size", "100"]  # d2t and t2d


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_a_drafters_d2t_and_t2d_are_read_and_checked_without_numpy(tmp_path, fmt):
    """The rules compute on d2t and t2d in plain Python: numpy (a third of a start-up) is
    for fix's writes and verify only; fix's plan (--diff) of a padded drafter needs none."""
    modules = imported(tmp_path, "inspect", *PRUNED, "--format", fmt)
    assert "dspark_ckpt.facts.gather" in modules and "numpy" not in modules
    assert "numpy" not in imported(tmp_path, "fix", *PADDED, "--diff")


def test_the_table_imports_rich_and_a_mask_numpy(tmp_path):
    """The checks above can fail: the table does load Rich, a mask fix writes numpy."""
    assert {"rich", "rich.table"} <= imported(tmp_path, "inspect", *PADDED, "--format", "full")
    mask = tmp_path / "mask.safetensors"
    assert "numpy" in imported(tmp_path, "fix", *PRUNED, "--mask-path", mask)
    assert mask.is_file()


MTP_MODEL = {"dspark_ckpt.loader.mtp", "dspark_ckpt.facts.mtp", "dspark_ckpt.profiles.mtp_loader"}


def test_a_drafters_inspect_imports_no_mtp_loader_model(tmp_path):
    """The MTP rules register their codes on every start; the loader model they judge a
    target's MTP layers by is imported only where they run (``inspect TARGET --mtp``)."""
    modules = imported(tmp_path, "inspect", *PADDED)
    assert "dspark_ckpt.rules.mtp" in modules and MTP_MODEL & modules == set()
    target = MT.write(tmp_path / "target", "deepseek_v3")
    assert imported(tmp_path, "inspect", target, "--mtp") >= MTP_MODEL


SPY = """
import gc, sys
sys.argv = ["dspark-ckpt", *sys.argv[2:]]
import dspark_ckpt.commands.inspect as c

def spy(*args, real=c.inspect_checkpoint, **kwargs):
    print("collector on:", gc.isenabled(), file=sys.stderr)
    return real(*args, **kwargs)

c.inspect_checkpoint = spy
import atexit
atexit.register(lambda: print("frozen:", gc.get_freeze_count() > 0, file=sys.stderr))
from dspark_ckpt.cli import main
main()
"""


def test_the_collector_is_off_for_the_imports_only_and_frozen_at_exit():
    """``cli.main`` turns the garbage collector off while the command line is imported and
    freezes what is left at the end; the command itself runs with it on (a ``fix`` of a
    large checkpoint frees its cycles as ever)."""
    r = subprocess.run(
        [sys.executable, "-c", SPY, "-", "inspect", *map(str, PADDED), "-q"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert "collector on: True" in r.stderr and "frozen: True" in r.stderr, r.stderr


VARIANTS = {f"dspark_ckpt.profiles.{m}" for m in PROFILES.modules}


def test_the_variant_architectures_profiles_are_built_only_when_asked_for(tmp_path):
    """A drafter no variant architecture's profile judges never builds those profiles (a
    sixth of a start-up); naming one (``--profile``), or listing them, builds them all."""
    for args in ([], ["--format", "json"]):
        assert VARIANTS & imported(tmp_path, "inspect", *PADDED, *args) == set(), args
    named = imported(tmp_path, "inspect", *PADDED, "--profile", "vllm-gemma4-dspark")
    assert named >= VARIANTS
    assert imported(tmp_path, "profiles", "--format", "json") >= VARIANTS
