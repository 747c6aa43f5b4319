"""Benchmark: ``inspect`` on a large sparse sharded checkpoint, against a baseline run here.

Builds (sparse, no real disk) a drafter of ``--shards`` shards and ``--tensors`` tensors
(~1 TB logical by default), then measures:

- baseline: ``import torch`` + ``safetensors.safe_open`` on every shard, listing keys and shapes
  (what a loader-based check costs);
- ours, in-process: ``inspect_checkpoint`` (header-only reads + every contract rule);
- ours, as a user runs it: the whole ``dspark-ckpt inspect --format json`` process, wall time
  and peak RSS.

Targets: >= 10x faster than the baseline, peak RSS < 100 MB, CLI wall < 0.5 s.
Run: ``python benchmarks/inspect_bench.py [--shards 64] [--tensors 4096] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "fixtures"))
sys.path.insert(0, str(ROOT))

from synth import T, drafter_config, shard, write_json  # noqa: E402

VT, VD, H = 200058, 201024, 8192


def build(root: Path, shards: int, tensors: int, total_bytes: int) -> Path:
    names = ["embed_tokens.weight", "lm_head.weight", "fc.weight", "norm.weight"]
    layers = (tensors - len(names)) // 8
    fixed = 2 * (2 * VD * H + 3 * H * H + H)  # bf16 embed, head, fc, norm
    # rows of each bf16 [rows, H] projection, so that the whole comes to total_bytes
    per = max((total_bytes - fixed) // (7 * layers * 2 * H), 1)
    specs = {
        "embed_tokens.weight": T("BF16", (VD, H)),
        "lm_head.weight": T("BF16", (VD, H)),
        "fc.weight": T("BF16", (H, 3 * H)),
        "norm.weight": T("BF16", (H,)),
    }
    for i in range(layers):
        for part in ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"):
            specs[f"layers.{i}.mlp.{part}.weight"] = T("BF16", (per, H))
        specs[f"layers.{i}.input_layernorm.weight"] = T("BF16", (H,))
    write_json(root / "config.json", drafter_config(VD, VD, H))
    shard(root, specs, shards)
    return root


def baseline(root: Path) -> tuple[float, int]:
    t0 = time.perf_counter()
    import torch  # noqa: F401  - the baseline's cost includes it, as a loader-based check pays it
    from safetensors import safe_open

    n = 0
    for f in sorted(root.glob("*.safetensors")):
        with safe_open(f, framework="pt") as fh:
            for k in fh.keys():  # noqa: SIM118 - safe_open has no __iter__
                fh.get_slice(k).get_shape()
                n += 1
    return time.perf_counter() - t0, n


def ours(root: Path) -> tuple[float, int]:
    from dspark_ckpt.commands.inspect import inspect_checkpoint
    from dspark_ckpt.facts.target import target_from_vocab_size

    t0 = time.perf_counter()
    report = inspect_checkpoint(str(root), target_from_vocab_size(VT))
    elapsed = time.perf_counter() - t0
    assert report.classification == "padded", report.findings
    return elapsed, len(report.checkpoint.tensors)


def cli_run(root: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one whole ``dspark-ckpt inspect`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "dspark_ckpt",
            "inspect",
            str(root),
            "--target-vocab-size",
            str(VT),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    wall = time.perf_counter() - t0
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["drafter"]["files"] > 0
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(rss, before) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shards", type=int, default=64)
    ap.add_argument("--tensors", type=int, default=4096)
    ap.add_argument("--terabytes", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = build(Path(tmp) / "drafter", args.shards, args.tensors, int(args.terabytes * 1e12))
        logical = sum(f.stat().st_size for f in root.glob("*.safetensors"))
        on_disk = sum(f.stat().st_blocks * 512 for f in root.glob("*.safetensors"))
        print(
            f"checkpoint: {args.shards} shards, {logical / 1e12:.2f} TB logical, {on_disk / 1e6:.1f} MB on disk"
        )

        cli_wall = min(cli_run(root)[0] for _ in range(args.repeat))
        _, cli_rss = cli_run(root)
        ours_s, n = min(ours(root) for _ in range(args.repeat))
        base_s, n_base = baseline(root)  # once: the import of torch is only paid the first time
        assert n == n_base, (n, n_base)

    print(f"tensors: {n}")
    print(f"baseline (import torch + safe_open every shard): {base_s * 1000:8.1f} ms")
    print(f"inspect, in-process:                            {ours_s * 1000:8.1f} ms")
    print(f"speed-up vs baseline: {base_s / ours_s:.1f}x (target >= 10x)")
    print(
        f"whole CLI process: {cli_wall * 1000:.0f} ms wall (target < 500 ms), peak RSS {cli_rss:.0f} MB (target < 100 MB)"
    )


if __name__ == "__main__":
    main()
