"""Where the output goes, hostile too: a full disk, a closed pipe, an ASCII-only stdout,
paths that are not UTF-8. Output that cannot be written is exit 2 with one line naming
stdout; what an encoding cannot show is escaped, never a crash.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

TARGET = FIXTURES / "targets/small"


def run(*args, stdout=subprocess.PIPE, env=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dspark_ckpt", *map(str, args)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        cwd=cwd,
        timeout=60,
    )


def broken_drafter(folder: Path) -> Path:
    """A copy of the padded fixture with trailing bytes: a DSC001 finding naming its file."""
    shutil.copytree(FIXTURES / "padded", folder)
    with open(folder / "model.safetensors", "ab") as f:
        f.write(b"\0" * 8)
    return folder


COMMANDS = {
    "inspect-table": ["inspect", FIXTURES / "padded", "--target", TARGET],
    "inspect-json": ["inspect", FIXTURES / "padded", "--target", TARGET, "--format", "json"],
    "inspect-sarif": ["inspect", FIXTURES / "padded", "--target", TARGET, "--format", "sarif"],
    "profiles": ["profiles"],
    "explain": ["explain", "DSC001"],
}


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS)
def test_stdout_on_a_full_disk_is_exit_2_naming_stdout(args):
    with open("/dev/full", "w") as full:
        r = run(*args, stdout=full)
    assert r.returncode == 2, r.stderr
    assert (
        r.stderr.decode() == "dspark-ckpt: error: stdout: cannot write: No space left on device\n"
    )


# a command, and the exit code it ends with: its own, the verdict's
CLOSED_PIPE = {**{name: (args, 0) for name, args in COMMANDS.items()}}
CLOSED_PIPE["inspect-failing"] = (
    ["inspect", FIXTURES / "padded", "--target", FIXTURES / "targets/tight"],
    1,
)


@pytest.mark.parametrize(("args", "code"), CLOSED_PIPE.values(), ids=CLOSED_PIPE)
def test_a_reader_that_closes_the_pipe_keeps_the_verdict(args, code):
    """`inspect ... | head -5`: the reader chose to stop reading. No error, no message: the
    exit code is the command's own (under `set -o pipefail`, a FAIL stays a FAIL, a PASS a
    PASS, never a usage error)."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dspark_ckpt", *map(str, args)],
            stdout=write,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    finally:
        os.close(write)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == code, err
    assert err == ""


@pytest.mark.parametrize("fmt", ["table", "json", "github", "junit", "sarif"])
def test_an_ascii_stdout_escapes_what_it_cannot_show(tmp_path, fmt):
    drafter = broken_drafter(tmp_path / "drafter-été")
    r = run(
        "inspect",
        drafter,
        "--target",
        TARGET,
        "--format",
        fmt,
        env={"PYTHONIOENCODING": "ascii"},
    )
    assert r.returncode == 1, r.stderr
    assert b"Traceback" not in r.stderr
    assert r.stdout.isascii() and b"drafter-" in r.stdout
    if fmt in ("json", "sarif"):
        json.loads(r.stdout)  # still valid JSON: non-ASCII characters as \u escapes


@pytest.mark.parametrize("fmt", ["table", "json", "github", "junit", "sarif"])
def test_a_path_that_is_not_utf8_is_shown_escaped(tmp_path, fmt):
    name = os.fsdecode(b"drafter-\xff")
    broken_drafter(tmp_path / name)
    r = run("inspect", name, "--target", TARGET, "--format", fmt, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert b"Traceback" not in r.stderr
    if fmt == "sarif":
        [result] = json.loads(r.stdout)["runs"][0]["results"]
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri == "drafter-%FF/model.safetensors"  # the file's own bytes, percent-encoded
