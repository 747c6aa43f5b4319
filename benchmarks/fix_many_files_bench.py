"""``fix --out`` on a checkpoint folder holding many files: the time per file must not
grow with the number of files (linear, not quadratic).

Builds a small padded drafter beside N small regular files (a tokenizer split into
many pieces, a folder of READMEs), then times ``fix --emit-d2t --out`` on it for each
N. The baseline is the first N's time per file, measured in the same run: each N
prints its time per file as a ratio to it, ~1 for a linear ``fix`` (a quadratic one
grows with N / N0: 2k files 2.1 s, 8k 15.8 s, 100k not done in 10 minutes). A plain
``shutil.copytree`` (no fsync) is shown for scale. Most of fix's time per file is the
fsync that makes each copy durable. Run:
``python benchmarks/fix_many_files_bench.py [N ...]`` (default 2000 8000 32000).
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
from dspark_ckpt.facts.target import target_from_vocab_size  # noqa: E402


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
    base = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            took, copied = one(Path(tmp), n)
            base = base or took / n
            print(
                f"{n:>7} files: fix --out {took:7.2f} s ({took / n * 1e6:5.0f} us/file, "
                f"x{took / n / base:4.2f} the first N's), copytree {copied:6.2f} s"
            )


if __name__ == "__main__":
    main()
