"""Every hostile input through the real CLI.

For each case and each command that reads a checkpoint: a non-zero exit, exactly
one ``dspark-ckpt: error: FILE: problem`` line on stderr, no traceback, no warning,
nothing created or changed anywhere under the case's folder, and an end within seconds
(a FIFO must not block). The default run invokes the CLI in-process; the cases that
could hang (a FIFO, a device file) run as a process under a timeout, and the slow run
runs every case as a process too.
"""

from __future__ import annotations

import errno
import hashlib
import os
import pickle
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from cases import (
    CASES,
    VT,
    Canary,
    Setup,
    drafter_dir,
    framed,
    jheader,
    raw,
    tensor_case,
    valid_file,
)
from conftest import ROOT, cli, cli_subprocess
from synth import T, drafter_config, write_safetensors

TIMEOUT_S = 20

# the commands that read a drafter checkpoint: name -> argv given (drafter, target args, out dir).
# Adding a command (fix, verify) is one entry here.
COMMANDS = {
    "inspect": lambda s, out: ["inspect", s.drafter, *s.target],
    "fix": lambda s, out: ["fix", s.drafter, *s.target, "--emit-mask", "--emit-d2t", "--out", out],
    "verify": lambda s, out: ["verify", s.drafter, *s.target, "--device", "cpu", "--tokens", "4"],
}


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            h.update(chunk)
    return h.hexdigest()


# a FIFO or a device file that were opened and read would block or stream forever: only a
# process can be given up on after a timeout
HANG_IF_BROKEN = {"weights_fifo", "config_fifo", "shard_fifo", "weights_device_file"}
# what Python does not show on stderr by default
HIDDEN_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def run_cli(argv: list, cwd: Path, monkeypatch, in_process: bool) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the CLI run from ``cwd``: in-process, where a warning
    a process would print on stderr is counted as a stderr line, or as a process."""
    if not in_process:
        r = cli_subprocess(*argv, cwd=cwd, timeout=TIMEOUT_S)
        return r.returncode, r.stdout, r.stderr
    monkeypatch.chdir(cwd)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = cli(*argv)
    shown = [w for w in caught if not issubclass(w.category, HIDDEN_WARNINGS)]
    warned = "".join(f"{w.category.__name__}: {w.message}\n" for w in shown)
    return r.exit_code, r.stdout, r.stderr + warned


# a file larger than this (the sparse 768 MB of the d2t case) is compared by its change
# times and inode: any write or replacement changes them, and hashing its holes twice a
# case costs seconds
HASHED_UP_TO = 64 << 20


def tree_state(root: Path) -> dict[str, tuple]:
    """Every entry under ``root``: its type and, for files, a content hash; links by target.

    Special files are described by ``lstat`` only, never opened.
    """
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath, name)
            st = p.lstat()
            rel = str(p.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                state[rel] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode) and st.st_size > HASHED_UP_TO:
                state[rel] = ("file", st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            elif stat.S_ISREG(st.st_mode):
                state[rel] = ("file", st.st_size, sha256(p))
            else:
                state[rel] = (stat.S_IFMT(st.st_mode),)
    return state


def refused_cleanly(name: str, command: str, tmp_path: Path, monkeypatch, in_process: bool):
    setup: Setup = CASES[name](tmp_path)
    out = tmp_path / "out"  # where a writing command would write; must stay absent
    argv = COMMANDS[command](setup, out)
    before = tree_state(tmp_path)

    code, stdout, stderr = run_cli(argv, tmp_path, monkeypatch, in_process)

    assert code == setup.exit_code, (stdout, stderr)
    assert "Traceback" not in stdout + stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    line = lines[0]
    assert line.startswith("dspark-ckpt: error: "), line
    assert str(setup.file) in line, line
    assert setup.problem in line, line
    assert tree_state(tmp_path) == before
    assert not out.exists()
    assert not (tmp_path / "CANARY").exists()


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", CASES)
def test_hostile_input_is_refused_cleanly(name, command, tmp_path, monkeypatch):
    refused_cleanly(name, command, tmp_path, monkeypatch, in_process=name not in HANG_IF_BROKEN)


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", sorted(set(CASES) - HANG_IF_BROKEN))
def test_hostile_input_is_refused_cleanly_by_a_process(name, command, tmp_path, monkeypatch):
    """The same, with the CLI as a real process (its entry point, stream set-up and exit)."""
    refused_cleanly(name, command, tmp_path, monkeypatch, in_process=False)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_megabyte_name_gives_a_bounded_line(command, tmp_path):
    """The line keeps the file and the problem and leaves out the middle."""
    entry = {"dtype": "X9", "shape": [2], "data_offsets": [0, 8]}
    setup = tensor_case(tmp_path, entry, "unknown dtype 'X9'", name="a" * 2**20)
    r = cli(*COMMANDS[command](setup, tmp_path / "out"))
    assert r.exit_code == 1
    [line] = r.stderr.splitlines()
    assert len(line) < 8100
    assert line.startswith(f"dspark-ckpt: error: {setup.file}: tensor 'aaa")
    assert "aaa[... 10" in line and line.endswith("aaa': unknown dtype 'X9'")


@pytest.mark.parametrize("command", COMMANDS)
def test_eio_while_reading_a_header_names_the_file(command, tmp_path, monkeypatch):
    """An I/O error reading a header is one line naming the file, exit 1: every os.read of
    that file fails, as on a FUSE or NFS mount having a hiccup."""
    root = drafter_dir(tmp_path)
    weights = valid_file(root / "model.safetensors")
    argv = COMMANDS[command](Setup(root, weights, ""), tmp_path / "out")
    real_read, bad = os.read, os.path.realpath(weights)

    def read(fd: int, n: int) -> bytes:
        if os.path.realpath(f"/proc/self/fd/{fd}") == bad:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_read(fd, n)

    with monkeypatch.context() as patched:
        patched.setattr(os, "read", read)
        r = cli(*argv)
    assert r.exit_code == 1, r.stderr
    assert r.stderr == f"dspark-ckpt: error: {weights}: cannot read: Input/output error\n"
    assert not (tmp_path / "out").exists()


def test_there_are_at_least_40_cases():
    assert len(CASES) >= 40


def test_canary_pickle_is_live(tmp_path):
    """The canary really fires when unpickled, so its absence above proves something."""
    pickle.loads(pickle.dumps(Canary(tmp_path / "CANARY")))  # noqa: S301 - the point of the test
    assert (tmp_path / "CANARY").exists()


def test_space_padded_header_is_accepted(tmp_path):
    root = drafter_dir(tmp_path)
    header = jheader({"norm.weight": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})
    raw(root / "model.safetensors", framed(header + b" " * 13))
    r = cli("inspect", root, "--target-vocab-size", VT, "--format", "json")
    # read, not refused as unreadable: judged (a drafter of one tensor misses the rest, DSC652)
    assert r.exit_code == 1 and "DSC001" not in {f["code"] for f in r.json["findings"]}, r.stdout
    assert r.stderr == ""
    assert r.json["drafter"]["tensors"] == 1


def test_error_line_also_in_json_mode(tmp_path):
    root = drafter_dir(tmp_path, b"\x01" * 7)
    r = cli("inspect", root, "--target-vocab-size", VT, "--format", "json")
    assert r.exit_code == 1
    (finding,) = r.json["findings"]
    assert finding["code"] == "DSC001"
    assert finding["file"] == str(root / "model.safetensors")
    # a file cut short: the line says what to do, as the finding's hint does
    said = f"{finding['message']}; {finding['hint']}"
    assert "download or copy it again" in said
    assert r.stderr == f"dspark-ckpt: error: {root / 'model.safetensors'}: {said}\n"


def hostile_shard_name(tmp_path: Path) -> Path:
    root = tmp_path / "drafter"
    write_safetensors(root / "a.safetensors", {"a": T("F32", (2,), np.ones(2))})
    raw(root / "config.json", jheader(drafter_config(VT, VT)))
    raw(
        root / "model.safetensors.index.json",
        jheader({"weight_map": {"a": "a.safetensors", "b": "\x1b[2J\nb.safetensors"}}),
    )
    return root


def test_error_line_escapes_control_characters(tmp_path):
    """A hostile tensor or shard name cannot break the line or drive the terminal."""
    r = cli("inspect", hostile_shard_name(tmp_path), "--target-vocab-size", VT)
    assert r.exit_code == 1
    assert len(r.stderr.splitlines()) == 1
    assert "\x1b" not in r.stderr
    assert "\\x1b[2J\\nb.safetensors" in r.stderr


@pytest.mark.parametrize("fmt", ["json", "github", "junit", "sarif"])
def test_machine_formats_carry_control_characters_safely(tmp_path, fmt):
    """JSON escapes them itself; XML 1.0 cannot hold them; a CI log must not obey them."""
    r = cli("inspect", hostile_shard_name(tmp_path), "--target-vocab-size", VT, "--format", fmt)
    assert r.exit_code == 1 and "\x1b" not in r.stdout and "\x07" not in r.stdout
    if fmt == "junit":
        import xml.etree.ElementTree as ET

        (failure,) = ET.fromstring(r.stdout).iter("failure")
        assert "\\x1b[2J" in failure.text
    elif fmt == "github":
        assert "\\x1b[2J%0Ab.safetensors" in r.stdout
    else:
        assert "\x1b[2J\nb.safetensors" in r.stdout.encode().decode("unicode_escape")


def test_usage_error_line_escapes_control_characters(tmp_path):
    r = cli("inspect", tmp_path / "no\nsuch\x1b[31m", "--target-vocab-size", VT)
    assert r.exit_code == 2
    assert (
        r.stderr
        == f"dspark-ckpt: error: {tmp_path}/no\\nsuch\\x1b[31m: no such file or directory\n"
    )


def test_table_prints_paths_and_names_as_data(tmp_path):
    """Rich markup and emoji codes in a path, control characters in a config: shown as is."""
    root = tmp_path / "d [bold]x[/bold] :cat:"
    write_safetensors(root / "model.safetensors", {"a": T("F32", (2,), np.ones(2))})
    config = {**drafter_config(VT, VT), "architectures": ["Evil\x1b[2J\aArch"]}
    raw(root / "config.json", jheader(config))
    for env in ({}, {"FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"}):
        r = cli("inspect", root, "--target-vocab-size", VT, "--format", "full", env=env)
        assert r.exit_code == 1  # judged: one tensor and an architecture vLLM does not serve
        assert f"{root}  (1 file(s)" in r.stdout
        assert "Evil\\x1b[2J\\x07Arch" in r.stdout and "\x1b[2J" not in r.stdout
    assert "\x1b[" in r.stdout  # the forced colour itself still reaches the terminal
    report = tmp_path / "report.txt"
    assert cli("inspect", root, "--target-vocab-size", VT, "-o", report).exit_code == 1
    assert f"{root} (dspark, 1 file" in report.read_text(encoding="utf-8")


# --- d2t: readable but wrong, so a contract finding rather than an unreadable file ---------


def pruned(root: Path, d2t: T) -> Path:
    drafter_cfg = drafter_config(VT, 4)
    raw(root / "config.json", jheader(drafter_cfg))
    write_safetensors(
        root / "model.safetensors",
        {"lm_head.weight": T("F32", (4, 8), np.ones((4, 8))), "d2t": d2t},
    )
    return root


@pytest.mark.parametrize(
    ("name", "d2t", "code", "problem"),
    [
        ("float", T("F32", (4,), np.array([0, 1, 2, 3])), "DSC206", "d2t is F32 [4]; expected I64"),
        ("nan", T("F32", (4,), np.full(4, np.nan)), "DSC206", "d2t is F32 [4]; expected I64"),
        (
            "negative_ids",
            T("I64", (4,), np.array([0, -5, -5, 0])),
            "DSC301",
            "2 of 4 draft ids map outside [0, 100); first: draft id 1 -> -4",
        ),
        (
            "overflowing_ids",
            T("I64", (4,), np.array([0, 2**63 - 1, 0, 0])),
            "DSC301",
            "1 of 4 draft ids map outside [0, 100)",
        ),
    ],
)
def test_hostile_d2t_is_a_finding_naming_file_and_problem(tmp_path, name, d2t, code, problem):
    root = pruned(tmp_path / "drafter", d2t)
    before = tree_state(tmp_path)
    r = cli("inspect", root, "--target-vocab-size", VT, "--format", "json")
    assert r.exit_code == 1
    findings = [f for f in r.json["findings"] if f["code"] == code]
    assert len(findings) == 1, r.stdout
    assert findings[0]["file"] == str(root / "model.safetensors")
    assert problem in findings[0]["message"]
    assert tree_state(tmp_path) == before


# --- memory: a header too large for the memory at hand --------------------------------


def many_tensors(root: Path, n: int) -> Path:
    """A drafter whose one file has ``n`` one-byte tensors: a header of ~30 bytes each."""
    header = {f"t{i}": {"dtype": "U8", "shape": [1], "data_offsets": [i, i + 1]} for i in range(n)}
    raw(root / "config.json", jheader(drafter_config(VT, VT)))
    raw(root / "model.safetensors", framed(jheader(header), b"\0" * n))
    return root


@pytest.mark.slow
def test_running_out_of_memory_is_one_line_naming_the_file(tmp_path):
    """Under a 200 MB address-space limit, a header of 600k tensors (~40 MB, ~400 MB to
    parse) is refused in one line, exit 1, no traceback: not a MemoryError traceback."""
    import resource

    root = many_tensors(tmp_path / "drafter", 600_000)
    limit = 200 << 20

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    r = subprocess.run(
        [sys.executable, "-m", "dspark_ckpt", "inspect", str(root), "--target-vocab-size", str(VT)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limited,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert r.stderr.splitlines() == [
        f"dspark-ckpt: error: {root / 'model.safetensors'}: not enough memory to read its "
        f"{(root / 'model.safetensors').stat().st_size - 8 - 600_000}-byte header "
        "(about 385 MiB needed)"
    ]
