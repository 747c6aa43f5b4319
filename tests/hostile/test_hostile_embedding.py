"""A shipped embedding held against the target's (facts/embedding.py) on hostile headers,
through the real CLI as a process: rows declared gigabytes wide (sparse files) are not
read, and a target whose weights lead to a device file, a FIFO or out of its folder is
refused in one line; and a config's class name of megabytes is laid out in linear time."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT
from synth import T, drafter_config, head, write_json, write_safetensors

# the CLI as a process that prints its own peak memory (KiB, Linux: VmHWM, this process's
# own; ru_maxrss keeps the forking pytest's peak across the exec) as stderr's last line
PEAK = """
import runpy, sys
sys.argv = ['dspark-ckpt', *sys.argv[1:]]
try:
    runpy.run_module('dspark_ckpt', run_name='__main__')
finally:
    status = open('/proc/self/status').read()
    print(status.split('VmHWM:')[1].split()[0], file=sys.stderr)
"""


def pair(tmp_path, embedding: T, theirs: T | None = None):
    """A drafter shipping ``embed_tokens.weight`` and a local target with its own."""
    rows = embedding.shape[0]
    drafter, target = tmp_path / "drafter", tmp_path / "target"
    write_json(drafter / "config.json", drafter_config(rows, rows))
    write_safetensors(drafter / "model.safetensors", {"embed_tokens.weight": embedding})
    write_json(target / "config.json", {"architectures": ["Qwen3ForCausalLM"], "vocab_size": rows})
    write_safetensors(
        target / "model.safetensors", {"model.embed_tokens.weight": theirs or embedding}
    )
    return drafter, target


def inspect(drafter, target, *extra) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    argv = [sys.executable, "-c", PEAK, "inspect", drafter, "--target", target, *extra]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/status, sparse files")
def test_rows_declared_gigabytes_wide_are_not_read(tmp_path):
    """Two rows of 256 MiB each (sparse 512 MiB files): the whole embedding would be read
    into memory twice over (was: 1 GiB read, 3 GiB resident for 800 MiB rows)."""
    drafter, target = pair(tmp_path, T("BF16", (2, 1 << 27)))
    r = inspect(drafter, target, "-v")
    assert "Traceback" not in r.stdout + r.stderr
    assert r.returncode == 1, r.stderr  # the config's own findings
    peak_kib = int(r.stderr.splitlines()[-1])
    assert peak_kib < 200 << 10, f"{peak_kib} KiB resident"
    assert "DSC673" not in r.stdout  # not told: not read


@pytest.mark.parametrize("kind", ["devzero", "fifo", "outside"])
def test_a_targets_weights_leading_to_a_device_a_fifo_or_out_are_refused(tmp_path, kind):
    drafter, target = pair(tmp_path, head(100, 8, 7))
    weights = target / "model.safetensors"
    weights.unlink()
    if kind == "devzero":
        weights.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(weights)
    else:
        write_safetensors(tmp_path / "else.safetensors", {"embed_tokens.weight": head(100, 8, 7)})
        weights.symlink_to(tmp_path / "else.safetensors")
    r = inspect(drafter, target)
    lines = r.stderr.splitlines()
    assert r.returncode == 1 and "Traceback" not in r.stdout + r.stderr
    assert len(lines) == 2 and lines[0].startswith(f"dspark-ckpt: error: {weights}: ")
    words = {"devzero": "leading out", "fifo": "a FIFO", "outside": "leading out"}[kind]
    assert words in lines[0]


@pytest.mark.parametrize("output", [[], ["-v"], ["--format", "table"]])
def test_a_class_name_of_megabytes_is_laid_out_in_linear_time(tmp_path, output):
    """architectures naming one class of 3 million characters (the config's 16 MB limit
    allows 15): each line of it was sliced from the rest of it and appended by a copy of
    all before it (was: over a minute, quadratic)."""
    drafter = tmp_path / "drafter"
    write_json(
        drafter / "config.json", {**drafter_config(100, 100), "architectures": ["X" * 3_000_000]}
    )
    write_safetensors(drafter / "model.safetensors", {"norm.weight": T("F32", (2,))})
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80"}
    argv = [sys.executable, "-m", "dspark_ckpt", "inspect", drafter, "--target-vocab-size", "100"]
    r = subprocess.run([*argv, *output], capture_output=True, text=True, timeout=20, env=env)
    assert r.returncode == 1 and "Traceback" not in r.stdout + r.stderr and not r.stderr
