"""Converting a ~2 GB ``pytorch_model.bin`` drafter to safetensors: ``fix --out`` (the
pickle read without running it, storages streamed) against ``cp`` of the same file and
against ``torch.load`` + ``safetensors.torch.save_file``.

Writes a DSpark drafter (Vt 151936, H 4096, 3 layers, all bf16: about 1.9 GB) once with
``torch.save`` in a temporary folder, then runs each way as its own process and prints its
wall time and peak resident memory (the child's ``ru_maxrss``); the folder is deleted
after. The file was just written, so every way reads it from the page cache. Run:
``nice python benchmarks/pickle_convert_bench.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "fixtures")]

VOCAB, HIDDEN, LAYERS = 151936, 4096, 3

TORCH_WAY = """
import sys, torch
from safetensors.torch import save_file
sd = torch.load(sys.argv[1], weights_only=True)
save_file(sd, sys.argv[2], metadata={"format": "pt"})
"""


BUILD = """
import json, sys, torch
from pathlib import Path
sys.path[:0] = [sys.argv[2]]
import synth
folder, (vocab, hidden, layers) = Path(sys.argv[1]), map(int, sys.argv[3:6])
folder.mkdir()
cfg = synth.drafter_config(vocab, None, hidden, num_hidden_layers=layers)
(folder / "config.json").write_text(json.dumps(cfg))
shapes = {name: t.shape for name, t in synth.backbone(hidden, layers=layers).items()}
shapes.update({n: t.shape for n, t in synth.markov(vocab, vocab, 4).items()})
shapes["lm_head.weight"] = (vocab, hidden)
gen = torch.Generator().manual_seed(0)
sd = {n: torch.empty(s, dtype=torch.bfloat16).uniform_(-1, 1, generator=gen) for n, s in shapes.items()}
torch.save(sd, folder / "pytorch_model.bin")
"""


def build(folder: Path) -> Path:
    """The drafter: config.json and pytorch_model.bin (torch.save of bf16 tensors), made
    by a child process, so that this one stays small (a child forked from it starts with
    its resident memory, which its peak would count)."""
    argv = [sys.executable, "-c", BUILD, str(folder), str(ROOT / "fixtures")]
    subprocess.run([*argv, *map(str, (VOCAB, HIDDEN, LAYERS))], check=True)
    return folder / "pytorch_model.bin"


def measure(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of ``argv`` run as a child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv[:4]} failed: {proc.stderr.read().decode()[-2000:]}")
    return took, usage.ru_maxrss / 1024


def _same(a: Path, b: Path) -> bool:
    """Whether two safetensors files hold the same tensors, byte for byte."""
    import torch
    from safetensors import safe_open

    with safe_open(a, "pt") as fa, safe_open(b, "pt") as fb:
        if set(fa.keys()) != set(fb.keys()):
            return False
        for k in fa.keys():  # noqa: SIM118 - a safe_open handle is not iterable
            x, y = fa.get_tensor(k), fb.get_tensor(k)
            if x.dtype != y.dtype or x.shape != y.shape or not torch.equal(x, y):
                return False
    return True


def main() -> None:
    env_python = sys.executable
    os.environ["PYTHONPATH"] = str(ROOT)
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        src = build(tmp / "drafter")
        size = src.stat().st_size
        print(
            f"pytorch_model.bin: {size / 2**30:.2f} GiB, written in {time.perf_counter() - t0:.1f} s"
        )
        ways = {
            "cp": ["cp", str(src), str(tmp / "copy.bin")],
            "dspark-ckpt fix --out": [
                env_python,
                "-m",
                "dspark_ckpt",
                "fix",
                str(tmp / "drafter"),
                "--target-vocab-size",
                str(VOCAB),
                "--out",
                str(tmp / "converted"),
            ],
            "torch.load + save_file": [
                env_python,
                "-c",
                TORCH_WAY,
                str(src),
                str(tmp / "torch.safetensors"),
            ],
        }
        print(f"{'way':<26} {'wall s':>8} {'peak RSS MiB':>13}")
        for name, argv in ways.items():
            took, peak = measure(argv)
            print(f"{name:<26} {took:>8.2f} {peak:>13.0f}")
        same = _same(tmp / "converted/model.safetensors", tmp / "torch.safetensors")
        print(f"same tensors (names, dtypes, shapes, bytes) as torch.load + save_file: {same}")


if __name__ == "__main__":
    main()
