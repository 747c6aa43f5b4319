"""``fix --out`` on an Inkling-sized padded drafter, against copying it.

Builds the sparse Inkling-like drafter (Vd 201024 > Vt 200058) in a temporary
folder and prints, measured in this run: the time of ``fix --emit-d2t --out`` (shards
hard-linked, never loaded) against a plain ``shutil.copytree`` of the same checkpoint
(the baseline), and the bytes of tensor data ``fix`` reads and writes against the
checkpoint's size. Run: ``python benchmarks/fix_bench.py``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "fixtures")]

import synth  # noqa: E402

from dspark_ckpt.commands.fix import FixRequest, run_fix  # noqa: E402
from dspark_ckpt.facts.target import load_target  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        drafter, target = synth.build_inkling(tmp)
        size = sum(p.stat().st_size for p in drafter.iterdir())

        t0 = time.perf_counter()
        shutil.copytree(drafter, tmp / "copy")
        baseline = time.perf_counter() - t0

        t0 = time.perf_counter()
        result = run_fix(
            str(drafter),
            load_target(target),
            FixRequest(
                emit_d2t=True,
                mask_path=tmp / "mask.safetensors",
                out=tmp / "patched",
                profile="vllm-legacy",
            ),
        )
        took = time.perf_counter() - t0
        new = sum(Path(w.path).stat().st_size for w in result.written)
        print(f"checkpoint: {size / 2**20:.1f} MiB, Vd {result.plan.vd}, Vt {result.plan.vt}")
        print(f"copytree baseline: {baseline * 1e3:.1f} ms")
        print(f"fix --emit-mask --emit-d2t --out: {took * 1e3:.1f} ms (incl. re-inspect)")
        print(f"ratio fix/copytree: {took / baseline:.2f}")
        print(f"bytes written by fix (new tensors): {new} = {new / size:.5f} of the checkpoint")
        print(f"verdicts after: {result.after.verdicts}")


if __name__ == "__main__":
    main()
