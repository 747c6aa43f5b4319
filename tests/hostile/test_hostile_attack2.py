"""Round five's attacks on ``fix`` and ``verify`` through the real CLI, each a failure
found before its fix: a full disk under ``fix --out`` (the file's close, not only its
writes), a head declared 2^31 rows refused before verify builds its per-row vocab arrays,
and ``--prune-vocab 1``, whose one-entry d2t reads alike as offsets and as ids."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import synth
from commands.test_formats import native, target  # noqa: F401 - target: a fixture
from conftest import FIXTURES, ROOT, cli
from safetensors.numpy import load_file
from synth import VT, H, T

SMALL = FIXTURES / "targets/small"


def run(*args, preexec=None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dspark_ckpt", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=preexec,
        env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"},
    )


def one_error(err: str) -> str:
    assert "Traceback" not in err, err
    [line] = [x for x in err.splitlines() if x.startswith("dspark-ckpt: error:")]
    return line


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


# --- a full disk under fix --out ---------------------------------------------------------


def small_files():
    """No file may grow past 3000 bytes (``ulimit -f``; SIGXFSZ ignored, so a write past
    it fails with EFBIG, as one on a full disk fails with ENOSPC)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))


def test_a_write_that_fails_at_close_names_the_file_exit_2(tmp_path):
    """A write that fails leaves bytes in the file's buffer; closing it flushes them and
    fails again. That second error escaped the writer unnamed (``error: File too large;
    nothing written``, exit 1, on a tmpfs full: ``No space left on device``): now the
    line names the file fix could not write, exit 2, and nothing is left behind."""
    src = synth.drafter(
        tmp_path / "d", vocab=128, draft=None, tensors={"lm_head.weight": synth.head(128, H, 1)}
    )
    before = listing(tmp_path)
    r = run("fix", src, "--target", SMALL, "--out", tmp_path / "o", preexec=small_files)
    line = one_error(r.stderr)
    assert r.returncode == 2, r.stderr
    assert line == (
        f"dspark-ckpt: error: {tmp_path / 'o' / 'model.safetensors'}: cannot write: "
        "File too large; nothing written"
    )
    assert listing(tmp_path) == before


# --- verify: a head declared 2^31 rows ---------------------------------------------------

GIB = 1 << 30


def test_a_head_of_2_31_declared_rows_is_refused_before_the_vocab_arrays(tmp_path):
    """A sparse head of 2^31-1 rows (no Markov head): verify built its per-row vocab arrays
    (``arange(Vd)`` int64: 16 GiB, and the masks) before it estimated the run from the
    shapes: 40 s and 16 GiB touched on a 24 GiB machine, an out-of-memory kill on a smaller
    one, or under ``ulimit -v`` a line blaming the vocab maps. Now refused from the shapes
    first: one line naming the head, the machine's RAM, nothing loaded."""
    ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    v = (1 << 31) - 1
    h = -(-ram // v // 2) * 2 + 2  # BF16 rows of 2h bytes: the head alone past the RAM
    root = synth.drafter(
        tmp_path / "drafter",
        vocab=v,
        draft=v,
        hidden=h,
        tensors={"lm_head.weight": T("BF16", (v, h))},
        config={"markov_rank": None},
    )
    limit = 4 * GIB  # room for torch, not for a 16 GiB array

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    t0 = time.monotonic()
    r = run("verify", root, "--target-vocab-size", v, "--device", "cpu", preexec=limited)
    assert r.returncode == 1, r.stderr
    line = one_error(r.stderr)
    assert line.startswith(f"dspark-ckpt: error: {root / 'model.safetensors'}: not enough memory")
    assert f"lm_head.weight [{v}, {h}] BF16" in line and "of RAM" in line, line
    assert "loading" not in r.stderr and time.monotonic() - t0 < 60


# --- --prune-vocab 1: a d2t of one entry -------------------------------------------------


def test_prune_vocab_1_keeps_the_one_most_frequent_id(tmp_path):
    """``--prune-vocab 1`` is in [1, Vd) as the docs say, but was always refused: DSC311
    read the one offset, equal to the one id t2d selects, as absolute ids (for draft id 0
    an offset and an id are the same number). Now written, and verify passes on it."""
    src = synth.drafter(
        tmp_path / "d", vocab=VT, draft=VT, tensors={"lm_head.weight": synth.head(VT, H, 1)}
    )
    counts = [0] * VT
    counts[5] = 9
    freq = tmp_path / "freq.json"
    freq.write_text(json.dumps(counts))
    out = tmp_path / "o"
    r = cli("fix", src, "--target", SMALL, "--prune-vocab", "1", "--frequencies", freq,
            "--out", out)  # fmt: skip
    assert r.exit_code == 0, r.stdout + r.stderr
    after = {k: v for f in sorted(out.glob("*.safetensors")) for k, v in load_file(f).items()}
    assert after["d2t"].tolist() == [5] and after["lm_head.weight"].shape == (1, H)
    assert np.flatnonzero(after["t2d"]).tolist() == [5]
    assert json.loads((out / "config.json").read_text())["draft_vocab_size"] == 1
    r = cli("inspect", out, "--target", SMALL, "-q")
    assert r.exit_code == 0 and "DSC311" not in r.stdout, r.stdout
    r = run("verify", out, "--target", SMALL, "--device", "cpu", "-q")
    assert r.returncode == 0, r.stdout + r.stderr


# --- --to speculators on numbers the converter cannot compute with -----------------------


@pytest.mark.parametrize(
    ("whose", "key", "value"),
    [
        ("drafter", "max_position_embeddings", "8192"),
        ("drafter", "max_position_embeddings", None),
        ("target", "max_position_embeddings", [8192]),
        ("drafter", "num_attention_heads", 0),
        ("drafter", "num_attention_heads", True),
    ],
)
def test_to_speculators_refuses_numbers_the_converter_cannot_compute_with(
    tmp_path,
    target,  # noqa: F811 - the fixture imported above
    whose,
    key,
    value,
):
    """``max(drafter's, target's max_position_embeddings)`` and ``hidden // heads`` ran on
    whatever the configs held: a string, null or list gave a TypeError traceback (0 heads a
    ZeroDivisionError). Now one line naming the key, exit 1, nothing written; a boolean is
    refused too, as the config reader refuses boolean sizes."""
    config = {key: value, "head_dim": None} if key == "num_attention_heads" else {key: value}
    src = native(tmp_path / "n", config if whose == "drafter" else None)
    if whose == "target":
        cfg = json.loads((target / "config.json").read_text())
        (target / "config.json").write_text(json.dumps({**cfg, key: value}))
    r = cli("fix", src, "--target", target, "--to", "speculators", "--out", tmp_path / "o")
    assert r.exit_code == 1, r.stdout + r.stderr
    line = one_error(r.stderr)
    assert line == (
        f"dspark-ckpt: error: {src}: refused: --to speculators: the {whose}'s config's "
        f"{key} is {value!r}, not a positive integer; nothing written"
    )
    assert not (tmp_path / "o").exists()
