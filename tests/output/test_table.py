"""Output that fits where it goes: the width of stdout's, stderr's or the controlling
terminal, COLUMNS, else 120; no trailing spaces; labels never split; -q is one line."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios

import pytest
from conftest import FIXTURES, ROOT, cli

# the boxed tables (--format full): what these tests are about
PADDED = [
    "inspect",
    "--format",
    "full",
    FIXTURES / "padded",
    "--target",
    FIXTURES / "targets/small",
]
ALL = [*PADDED, "--profile", "all"]


def run(*args, columns: int | None = None, **popen) -> str:
    """The CLI as a process whose stdout is a pipe (``| less``); stdout's text."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = str(ROOT)
    if columns is not None:
        env["COLUMNS"] = str(columns)
    popen.setdefault("stderr", subprocess.PIPE)
    popen.setdefault("start_new_session", True)  # no controlling terminal unless given one
    proc = subprocess.run(
        [sys.executable, "-m", "dspark_ckpt", *map(str, args)],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=60,
        **popen,
    )
    return proc.stdout.decode()


def terminal(columns: int) -> tuple[int, int]:
    """A pseudo-terminal ``columns`` wide: (master, slave) descriptors."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    return master, slave


def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_a_pipe_takes_the_width_of_stderrs_terminal():
    master, slave = terminal(72)
    try:
        out = run(*ALL, stderr=slave)
    finally:
        os.close(slave), os.close(master)
    assert 60 < widest(out) <= 72


def test_a_pipe_takes_the_width_of_the_controlling_terminal():
    master, slave = terminal(66)
    name = os.ttyname(slave)

    def adopt_terminal():  # a new session whose controlling terminal is the pty
        os.close(os.open(name, os.O_RDWR))

    try:
        out = run(*ALL, preexec_fn=adopt_terminal)
    finally:
        os.close(slave), os.close(master)
    assert 56 < widest(out) <= 66


def test_columns_wins_and_120_only_when_nothing_says():
    assert widest(run(*ALL, columns=90)) == 90
    master, slave = terminal(70)
    try:
        assert widest(run(*ALL, columns=90, stderr=slave)) == 90
    finally:
        os.close(slave), os.close(master)
    assert widest(run(*ALL)) == 120  # a CI log: no terminal anywhere, no COLUMNS


@pytest.mark.parametrize("columns", [60, 80, 120, 200])
@pytest.mark.parametrize(
    "args",
    [
        PADDED,
        ALL,
        ["inspect", FIXTURES / "sharded", "--target-vocab-size", "100", "--profile", "all"],
        ["inspect", FIXTURES / "lfs-pointer", "--target-vocab-size", "100"],
        ["fix", FIXTURES / "padded", "--target-vocab-size", "100", "--emit-d2t", "--d2t-path", "-"],
        ["profiles"],
        ["explain", "DSC401"],
    ],
)
def test_no_line_is_wider_than_the_width_or_ends_in_spaces(tmp_path, monkeypatch, args, columns):
    monkeypatch.chdir(tmp_path)
    args = [a if a != "-" else tmp_path / "d2t.safetensors" for a in args]
    r = cli(*args, env={"COLUMNS": str(columns)})
    assert r.stdout.strip()
    for line in r.stdout.splitlines():
        assert len(line) <= columns and line == line.rstrip(), repr(line)


@pytest.mark.parametrize("columns", range(40, 130, 7))
def test_a_label_and_its_value_never_split(columns):
    r = cli(*ALL, env={"COLUMNS": str(columns)})
    text = r.stdout
    head = text[: text.index("┏")]
    for name in ("vllm", "vllm-legacy", "trtllm-dspark", "sglang-dspark"):
        assert re.search(rf"(^|\s){name}: (PASS|FAIL)", head), (name, head)
    for pair in ("Vt 100", "Vd 128", "V 128", "Et 128"):
        assert pair in head, (pair, head)


def test_at_60_columns_the_finding_gets_the_width():
    r = cli(*ALL, env={"COLUMNS": "60"})
    rows = [line for line in r.stdout.splitlines() if line.startswith("│")]
    finding = [line.split("│")[3] for line in rows if line.count("│") == 4]
    assert finding and min(len(cell) for cell in finding) >= 35  # not a 20-column sliver
    # the matrix turned (codes as columns) or stacked (codes per profile): no check titles
    assert "DSC103 d2t missing" not in r.stdout


@pytest.mark.parametrize(
    "args",
    [
        ALL,
        PADDED,
        ["inspect", FIXTURES / "lfs-pointer", "--target-vocab-size", "100"],
    ],
)
@pytest.mark.parametrize("columns", [20, 60, 200])
def test_quiet_is_exactly_one_line_whatever_the_width(args, columns):
    r = cli(*args, "-q", env={"COLUMNS": str(columns)})
    assert r.stdout.count("\n") == 1 and r.stdout.endswith("\n")
    assert r.stdout.startswith(("deployable", "NOT deployable"))


def test_the_verdict_marks_the_deciding_profile_and_says_why_the_others_fail():
    r = cli(*PADDED)
    assert r.exit_code == 0
    verdict = next(line for line in r.stdout.splitlines() if line.startswith("verdict"))
    assert "vllm: PASS (decides)" in verdict and "vllm-legacy: FAIL " in verdict + " "
    assert "vllm-legacy: FAIL (decides)" not in verdict
    why = r.stdout.split("verdict", 1)[1].split("┏", 1)[0]
    assert "vllm-legacy fails, not deciding: DSC103 d2t missing" in why
    assert "--profile vllm-legacy" in why
    # the JSON says the same: the errors that fail each non-deciding profile
    obj = cli(*PADDED, "--format", "json").json
    assert obj["ok"] is True and obj["profiles"] == ["vllm"]
    assert {p: [f["code"] for f in fs] for p, fs in obj["failing_elsewhere"].items()} == {
        "vllm-legacy": ["DSC103"],
        # SGLang: vLLM's class name, no decoder layer, no markov_head_type, mask id 127 >= Vt
        "sglang-dspark": ["DSC208", "DSC683"],
    }
    # deciding by it, it is a finding, and only SGLang fails elsewhere
    legacy = cli(*PADDED, "--profile", "vllm-legacy", "--format", "json").json
    assert list(legacy["failing_elsewhere"]) == ["sglang-dspark"] and not legacy["ok"]


def test_an_unreadable_checkpoint_says_nothing_of_the_profiles_that_fail_alike():
    """DSC001 fails every profile as it fails the deciding one: no "fails, not deciding"
    line in either format (issue 27 point 2); the JSON still lists them."""
    args = ["inspect", FIXTURES / "lfs-pointer", "--target-vocab-size", "100"]
    for fmt in ("table", "full"):
        r = cli(*args, "--format", fmt)
        assert r.exit_code == 1 and "DSC001" in r.stdout
        assert "not deciding" not in r.stdout
    assert cli(*args, "--format", "json").json["failing_elsewhere"]


def _explained(obj: dict) -> set[tuple[str, str]]:
    """(code, profile) pairs that some finding of the JSON report explains: a common
    finding explains its code in every column."""
    out = set()
    for f in obj["findings"]:
        out |= {(f["code"], p) for p in obj["verdicts"] if f["profile"] in (None, p)}
    return out | {(f["code"], p) for p, fs in obj["other_findings"].items() for f in fs}


@pytest.mark.parametrize("extra", [[], ["--profile", "sglang-dspark"]])
def test_every_matrix_cell_that_is_not_ok_is_explained_without_profile_all(extra):
    """A warning or an error in any column of the matrix has its finding in the output:
    in the deciding profile's findings, or under the profiles that do not decide."""
    obj = cli(*PADDED, *extra, "--format", "json").json
    cells = {(code, p) for code, row in obj["checks"].items() for p in row}
    assert {("DSC602", "trtllm-dspark"), ("DSC103", "vllm-legacy")} <= cells
    assert cells <= _explained(obj)
    assert all(f["message"] for fs in obj["other_findings"].values() for f in fs)
    # the table shows each of the others' findings, with the profiles it was found under
    others = cli(*PADDED, *extra).stdout.split("do not decide:", 1)[1]
    for p, fs in obj["other_findings"].items():
        for f in fs:
            assert any(f" {f['code']} " in ln and p in ln for ln in others.splitlines())


def test_a_finding_the_deciding_profile_shows_is_not_repeated_for_the_others():
    others = cli(*PADDED).stdout.split("do not decide:", 1)[1].split("check ", 1)[0]
    assert "DSC401" not in others  # the same warning as the deciding profile's
    assert "[vllm-legacy] no d2t mapping" in others


NARROW_INSPECT = ["inspect", "--format", "full", FIXTURES / "vllm-table/v100-d101-none", "--target"]


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_narrow_terminals_never_cut_a_code_a_profile_or_a_cell(columns, tmp_path):
    """The matrix degrades (checks as rows, then as columns, then stacked per profile) and
    the check table stacks its runs: no ellipsis, no line past the width, every code and
    profile whole."""
    args = [*NARROW_INSPECT, FIXTURES / "targets/small"]
    obj = cli(*args, "--format", "json").json
    assert len(obj["checks"]) >= 6  # enough codes that 60 and 80 columns cannot hold them
    out = run(*args, columns=columns)
    config = tmp_path / "dspark-ckpt.toml"
    config.write_text(
        'profiles = ["vllm", "vllm-legacy"]\n[[pairs]]\nname = "dspark-padded"\n'
        f'drafter = "{FIXTURES / "padded"}"\ntarget = "{FIXTURES / "targets/small"}"\n'
    )
    check = run("check", "--config", config, columns=columns)
    for text in (out, check):
        assert "…" not in text
        assert max(map(len, text.splitlines())) <= columns
    words = set(re.split(r"[\s│┃,:]+", out))
    assert set(obj["checks"]) | set(obj["verdicts"]) <= words
    assert {"dspark-padded", "vllm-legacy", "DSC103", "DSC401", "padded"} <= set(
        re.split(r"[\s│┃,:;()]+", check)
    )
