"""Benchmark: ``inspect`` (every rule, every profile of the family) on a 1M-tensor header,
against the ``json.loads`` floor of the same header.

The drafter is repair_plan_bench's: a DSpark drafter whose one sparse shard holds its role
tensors and ``--tensors`` small extra ones named like a large MoE checkpoint's
(``layers.<i>.<e>.w<k>``): names the runtime's model has no parameter for, so the loader
model's comparisons (``dspark_ckpt/loader/``) walk all of them. Each measurement runs in a
fresh process that first imports the same modules:

- floor: ``json.loads`` of the header, keeping the result;
- inspect: ``inspect_checkpoint`` against a target given by its vocab size, every profile
  of the family.

Printed: median wall and CPU time and peak RSS of each, and their ratios.
Targets: CPU <= 1.5x the floor, peak RSS <= 1.2x.
Run: ``python benchmarks/loader_bench.py [--tensors N] [--repeat K]``; set
``DSPARK_CKPT_CODE=/path/to/checkout`` to measure another checkout's code (before/after).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = os.environ.get("DSPARK_CKPT_CODE", str(ROOT))
sys.path[:0] = [CODE, str(ROOT / "benchmarks")]


def worker(mode: str, root: Path) -> None:
    import time

    from header_bench import peak_rss

    from dspark_ckpt.commands.inspect import inspect_checkpoint
    from dspark_ckpt.facts.target import target_from_vocab_size
    from dspark_ckpt.profiles.registry import PROFILES

    profiles = [p.name for p in PROFILES.values() if p.family == "dspark"]
    t0, c0 = time.perf_counter(), time.process_time()
    if mode == "floor":
        with open(root / "model.safetensors", "rb") as fh:
            n = int.from_bytes(fh.read(8), "little")
            kept = json.loads(fh.read(n))
        count = len(kept) - 1
    else:
        report = inspect_checkpoint(str(root), target_from_vocab_size(1000), profiles)
        count = len(report.findings)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps([elapsed, peak_rss(), count, cpu]))


def measure(mode: str, root: Path, repeat: int) -> tuple[float, float, int]:
    runs = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--worker", mode, str(root)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONPATH": CODE},
        )
        runs.append(json.loads(out.stdout))
    return (
        statistics.median(r[0] for r in runs),
        statistics.median(r[3] for r in runs),
        max(r[1] for r in runs),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tensors", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--worker", nargs=2, metavar=("MODE", "DIR"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker[0], Path(args.worker[1]))
        return
    from repair_plan_bench import build

    with tempfile.TemporaryDirectory() as tmp:
        root = build(Path(tmp) / "drafter", args.tensors)
        floor = measure("floor", root, args.repeat)
        ours = measure("inspect", root, args.repeat)
    print(f"code: {CODE}; {args.tensors} extra tensors")
    print("          wall s   CPU s   peak MB")
    for name, (wall, cpu, rss) in (("floor", floor), ("inspect", ours)):
        print(f"{name:8} {wall:8.3f} {cpu:7.3f} {rss / 2**20:9.0f}")
    print(
        f"ratios: wall {ours[0] / floor[0]:.2f}x, CPU {ours[1] / floor[1]:.2f}x, "
        f"peak RSS {ours[2] / floor[2]:.2f}x (targets: CPU <= 1.5x, RSS <= 1.2x)"
    )


if __name__ == "__main__":
    main()
