"""Help and argument errors look like one tool: one metavar style, -h, -q everywhere,
exit codes and an example in every help, one-line errors in the tool's own words."""

from __future__ import annotations

import re

import pytest
import typer.main
from conftest import FIXTURES, cli

from dspark_ckpt.cli import app
from dspark_ckpt.rules.codes import CODES

COMMANDS = sorted(typer.main.get_command(app).commands)
PADDED, SMALL = FIXTURES / "padded", FIXTURES / "targets/small"
METAVARS = {
    "DRAFTER",
    "TARGET",
    "PATH",
    "DIR",
    "N",
    "NAME",
    "CODE",
    "FORMAT:PATH",
    "KEY=VALUE",
    "RUNTIME==VERSION",
}


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_one_style_exit_codes_and_an_example(command):
    short, long = cli(command, "-h"), cli(command, "--help")
    assert short.exit_code == 0 and short.stdout == long.stdout
    text = short.stdout
    assert not re.search(r"[{}<>]", text), text  # no {DRAFTER} or <str>
    assert text.startswith(f"Usage: dspark-ckpt {command} [OPTIONS]")
    assert "Exit codes:\n  0  " in text and f"Example:\n  dspark-ckpt {command}" in text
    # every value is named in the one style: an upper-case name or the choices
    values = re.findall(r"^  (?:-\w, )?--[\w-]+(?: / --[\w-]+)? (\S+)(?:  |$)", text, flags=re.M)
    assert values or command == "profiles"
    for name in values:
        assert name in METAVARS or re.fullmatch(r"[a-z0-9-]+(\|[a-z0-9-]+)+", name), name
    assert "-q, --quiet" in text  # -q on every command


def test_the_tool_has_h_too():
    assert cli("-h").exit_code == 0 and "inspect" in cli("-h").stdout


@pytest.mark.parametrize(
    "args, said",
    [
        (["inspect", PADDED, SMALL], f"unexpected argument '{SMALL}': a target is given with "),
        (["inspect", PADDED, "--target-vocab-size", "abc"], "--target-vocab-size must be an "),
        (["verify", PADDED, "--target", SMALL, "--tokens", "x"], "--tokens must be an integer"),
        (["verify", PADDED, "--target", SMALL, "--seed", "-1"], "--seed must be an integer"),
        (
            ["inspect", PADDED, "--format", "yaml"],
            "--format: 'yaml' is not one of table, full, json",
        ),
        (["inspect"], "missing DRAFTER"),
        (["inspect", PADDED, "--targt", SMALL], "--targt: no such option; did you mean --target"),
        (["inspect", PADDED, "--target"], "--target needs a value"),
        (
            ["fix", PADDED, "--target", SMALL, "--emit-mask", "out.safetensors"],
            "--emit-mask takes no value (got 'out.safetensors'); to choose where it writes: "
            "--mask-path out.safetensors",
        ),
        (["fix", PADDED, "--target", SMALL, "--emit-d2t=d.safetensors"], "--d2t-path PATH"),
        (["nosuch"], "no such command"),
    ],
)
def test_argument_errors_are_one_line_in_the_tools_words(tmp_path, monkeypatch, args, said):
    monkeypatch.chdir(tmp_path)
    r = cli(*args)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith("dspark-ckpt: error: ") and r.stderr.count("\n") == 1
    assert said in r.stderr, r.stderr
    for foreign in ("Input should", "Usage:", "Try '", "Invalid value", "Error:"):
        assert foreign not in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_explain_without_a_code_lists_them_all():
    r = cli("explain")
    assert r.exit_code == 0
    for code in CODES.values():
        assert re.search(rf"^│{code.code} *│ *{code.severity}", r.stdout, flags=re.M), code.code
    quiet = cli("explain", "-q")
    assert quiet.stdout == " ".join(CODES) + "\n"
    obj = cli("explain", "--format", "json").json
    assert obj["schema"] == "dspark-ckpt/codes/v1"
    assert [c["code"] for c in obj["codes"]] == list(CODES)


def test_quiet_is_one_line_in_every_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runs = [
        ["profiles", "-q"],
        ["explain", "DSC401", "-q"],
        ["fix", PADDED, "--target", SMALL, "--emit-mask", "-q"],
        ["inspect", PADDED, "--target", SMALL, "-q"],
    ]
    for args in runs:
        r = cli(*args, env={"COLUMNS": "30"})
        assert r.exit_code == 0 and r.stdout.count("\n") == 1, (args, r.stdout)
    assert cli("explain", "DSC401", "-q").stdout.startswith("DSC401 warning: ")
