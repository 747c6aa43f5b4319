"""verify against a checkpoint that changes under it: what it computes on is
read into memory, so a shard truncated while it samples cannot kill it with SIGBUS."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import synth
from conftest import ROOT
from synth import T

V, H = 8000, 128  # a 4 MB F32 head: sampling 4096 states takes seconds


@pytest.mark.slow
def test_a_shard_truncated_while_verify_samples_is_no_signal(tmp_path):
    root = synth.drafter(
        tmp_path / "drafter",
        vocab=V,
        draft=V,
        hidden=H,
        tensors={"lm_head.weight": T("F32", (V, H))},
    )
    weights = root / "model.safetensors"
    proc = subprocess.Popen(
        [sys.executable, "-m", "dspark_ckpt", "verify", root, "--target-vocab-size", str(V)]
        + ["--device", "cpu", "--tokens", "4096", "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if line.startswith("dspark-ckpt: sampling"):
                os.truncate(weights, 8)  # the head's bytes are gone from the file
                break
        out, err = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert any(line.startswith("dspark-ckpt: sampling") for line in lines), lines
    assert proc.returncode in (0, 1), (proc.returncode, err)  # SIGBUS: -7
    assert "Traceback" not in err
    assert json.loads(out)["ok"] is True  # sampled to its end from the head read before


# --- verify's limits: top-k bounded by the head, every out-of-memory one line ------------

PADDED, SMALL = ROOT / "fixtures/padded", ROOT / "fixtures/targets/small"
GIB = 1 << 30


def drafter_with(tmp_path, **config):
    """The padded fixture (Vd 128) with ``config`` added to its config.json."""
    root = tmp_path / "drafter"
    root.mkdir()
    (root / "model.safetensors").write_bytes((PADDED / "model.safetensors").read_bytes())
    cfg = json.loads((PADDED / "config.json").read_text())
    (root / "config.json").write_text(json.dumps({**cfg, **config}))
    return root


def verify_process(*args, limit: int | None = None, env: dict | None = None):
    """``dspark-ckpt verify ARGS`` as a process, under an address-space limit of ``limit``
    bytes (``ulimit -v``) where given."""

    def limited():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "dspark_ckpt", "verify", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limited if limit else None,
        env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", **(env or {})},
    )


def one_error(err: str) -> str:
    assert "Traceback" not in err, err
    [line] = [x for x in err.splitlines() if x.startswith("dspark-ckpt: error:")]
    return line


@pytest.mark.parametrize(
    "topk", [2**40, 10**6, 129, 10**4000], ids=["2^40", "1e6", "Vd+1", "4001-digits"]
)
def test_a_topk_over_the_draft_vocab_is_refused_before_loading(tmp_path, topk):
    """vLLM refuses a ``dspark_draft_topk`` over the draft vocab; verify, which keeps the
    top-k candidates of every hidden state, refused nothing (2**40: a traceback; 10**6: a
    24 GB allocation). Now one line naming config.json, exit 1, before torch loads a byte."""
    root = drafter_with(tmp_path, dspark_draft_topk=topk)
    r = verify_process(root, "--target", SMALL, "--device", "cpu", "--tokens", "512")
    assert r.returncode == 1, r.stderr
    line = one_error(r.stderr)
    assert line.startswith(f"dspark-ckpt: error: {root / 'config.json'}: dspark_draft_topk "), line
    assert "[1, 128]" in line and len(line) < 300, line
    assert "loading" not in r.stderr


def test_a_topk_of_the_whole_draft_vocab_is_sampled(tmp_path):
    root = drafter_with(tmp_path, dspark_draft_topk=128)
    r = verify_process(root, "--target", SMALL, "--device", "cpu", "--tokens", "8", "-q")
    assert r.returncode == 0, r.stderr
    r = verify_process(root, "--target", SMALL, "--device", "cpu", "--format", "json", "-q")
    assert json.loads(r.stdout)["topk"] == 128


@pytest.mark.slow
def test_a_head_over_the_address_space_limit_is_one_line_naming_it(tmp_path):
    """A 4 GiB head under ``ulimit -v`` 3 GiB: torch's allocator (or Python's) runs out
    while loading it; the line names the file, the tensor and the memory it needs."""
    v, h = 1 << 20, 2048  # BF16: 4 GiB, a sparse file
    root = synth.drafter(
        tmp_path / "drafter",
        vocab=v,
        draft=v,
        hidden=h,
        tensors={"lm_head.weight": T("BF16", (v, h))},
    )
    r = verify_process(root, "--target-vocab-size", v, "--device", "cpu", limit=3 * GIB)
    assert r.returncode == 1, r.stderr
    line = one_error(r.stderr)
    assert line.startswith(f"dspark-ckpt: error: {root / 'model.safetensors'}: not enough memory")
    assert "lm_head.weight" in line and "4.0 GiB" in line, line


@pytest.mark.slow
def test_sampling_over_the_address_space_limit_is_one_line_naming_the_head(tmp_path):
    """A head that loads, and a top-k (the whole draft vocab, as vLLM allows) whose
    candidates for 8192 hidden states take 6 GiB: one line naming the head and what the
    sampling needs, not torch's traceback."""
    v = 1 << 15
    root = synth.drafter(
        tmp_path / "drafter",
        vocab=v,
        draft=v,
        config={"dspark_draft_topk": v},
        tensors={"lm_head.weight": T("BF16", (v, 8))},
    )
    r = verify_process(
        root, "--target-vocab-size", v, "--device", "cpu", "--tokens", "8192", limit=3 * GIB
    )
    assert r.returncode == 1, r.stderr
    line = one_error(r.stderr)
    assert line.startswith(f"dspark-ckpt: error: {root / 'model.safetensors'}: not enough memory")
    assert "lm_head.weight" in line and f"top-{v}" in line and "GiB needed" in line, line


def test_a_head_larger_than_the_machine_is_refused_before_loading(tmp_path):
    """Past the machine's memory no allocator is asked (an overcommitting kernel would
    say yes, then kill the process): refused from the header's shape."""
    ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    v, h = 1 << 20, -(-ram // (1 << 20) // 2) * 2  # F32 rows of 4h bytes: over 2x the RAM
    root = synth.drafter(
        tmp_path / "drafter",
        vocab=v,
        draft=v,
        hidden=h,
        tensors={"lm_head.weight": T("F32", (v, h))},
    )
    r = verify_process(root, "--target-vocab-size", v, "--device", "cpu")
    assert r.returncode == 1, r.stderr
    line = one_error(r.stderr)
    assert line.startswith(f"dspark-ckpt: error: {root / 'model.safetensors'}: not enough memory")
    assert "lm_head.weight" in line and "of RAM" in line, line
    assert "loading" not in r.stderr


@pytest.mark.parametrize(
    "failure, said",
    [
        ("raise MemoryError", "not enough memory to import torch"),
        (
            "raise ImportError('libtorch_cpu.so: failed to map segment from shared object')",
            "not enough memory to import torch",
        ),
        ("raise ImportError('libcudart.so.12: cannot open shared object file')", "cannot be"),
    ],
    ids=["MemoryError", "unmapped", "other"],
)
def test_a_torch_that_cannot_be_imported_is_one_line(tmp_path, failure, said):
    """Under a tight ``ulimit -v`` importing torch raises MemoryError, or ImportError for
    a library it could not map (the torch here is one that fails so): not "torch is not
    installed", not a traceback; exit 2, as for a missing torch."""
    fake = tmp_path / "site" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(failure + "\n")
    r = verify_process(
        PADDED,
        "--target",
        SMALL,
        "--device",
        "cpu",
        env={"PYTHONPATH": f"{ROOT}{os.pathsep}{fake.parent}"},
    )
    assert r.returncode == 2, r.stderr
    line = one_error(r.stderr)
    assert said in line and "not installed" not in line and str(fake) in line, line


def test_a_limit_too_tight_to_map_torch_is_one_line_before_importing_it():
    """``ulimit -v`` just over torch's libraries: importing it would fail in its C++
    start-up, past Python's reach (``std::bad_alloc``: abort, exit 134) or as a
    MemoryError with no file. Refused before the import, naming torch and what it needs."""
    import torch

    home = os.path.dirname(torch.__file__)
    libs = sum(e.stat().st_size for e in os.scandir(os.path.join(home, "lib")) if ".so" in e.name)
    r = verify_process(PADDED, "--target", SMALL, "--device", "cpu", limit=libs + (100 << 20))
    assert r.returncode == 2, r.stderr
    line = one_error(r.stderr)
    assert line.startswith(f"dspark-ckpt: error: not enough memory to import torch ({home}, "), line
    assert "needed (the address-space limit (ulimit -v) is " in line, line
