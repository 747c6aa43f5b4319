"""``fix --out`` on a checkpoint folder holding many files: the time per file must not
grow with the number of files (linear, not quadratic).

Builds a small padded drafter beside N small regular files (a tokenizer split into
many pieces, a folder of READMEs), then times ``fix --emit-d2t --out`` on it for each
N and, as the baseline measured in the same run, a plain ``shutil.copytree`` of the
same folder. Prints the time per file of both and the ratio fix / copytree: a linear
``fix`` keeps that ratio flat as N grows (a quadratic one made it grow with N: 2k
files 2.1 s, 8k 15.8 s). Run: ``python benchmarks/fix_many_files_bench.py [N ...]``.
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

from dspark_ckpt.checkpoint import target_from_vocab_size  # noqa: E402
from dspark_ckpt.fix import FixRequest, run_fix  # noqa: E402


def one(tmp: Path, n: int) -> tuple[float, float]:
    src = tmp / f"src{n}"
    synth.drafter(src, vocab=128, draft=None, tensors={"lm_head.weight": synth.head(128, 8, 1)})
    for i in range(n):
        (src / f"extra-{i:06d}.txt").write_bytes(b"x")
    t0 = time.perf_counter()
    shutil.copytree(src, tmp / f"copy{n}")
    baseline = time.perf_counter() - t0
    t0 = time.perf_counter()
    run_fix(
        str(src),
        target_from_vocab_size(synth.VT),
        FixRequest(emit_d2t=True, out=tmp / f"out{n}", profile="vllm-legacy"),
    )
    return time.perf_counter() - t0, baseline


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [2_000, 8_000, 32_000]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            took, baseline = one(Path(tmp), n)
            print(
                f"{n:>7} files: fix --out {took:6.2f} s ({took / n * 1e6:5.0f} us/file), "
                f"copytree {baseline:6.2f} s ({baseline / n * 1e6:5.0f} us/file), "
                f"ratio {took / baseline:4.1f}"
            )


if __name__ == "__main__":
    main()
