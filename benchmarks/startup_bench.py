"""Benchmark: the whole ``dspark-ckpt`` process, as a CI gate or a person runs it.

Each command runs as a fresh process, the commands taking turns (so that load on a
shared machine hits them alike), ``--repeat`` times, started by a lean process of its
own (a child's peak RSS counts its parent's at the fork); the median wall time and peak
RSS are printed with the ratio to ``python -c pass`` measured in the same run:

- ``inspect`` on the committed fixture, ``--format json``, the table and ``-q``;
- ``fix --diff`` on the same fixture;
- ``inspect`` on a real-shaped EAGLE-3 drafter with its ``d2t`` and ``t2d`` (SpecForge's
  Llama 3.1 8B drafter: Vd 32000, Vt 128256; sparse, ``build_eagle3``), table and JSON;
- ``--help`` and ``--version``;
- ``inspect --format json`` on a sparse checkpoint of ``--shards`` shards.

Bytecode is cached, as where a user runs it: the warm-up run of each command writes its
``.pyc`` files (``PYTHONDONTWRITEBYTECODE`` is left out of the commands' environment).

Targets (issue 27): the fixture's ``inspect`` <= 3.5x ``python -c pass``; the table within
1.2x of JSON; the real-shaped EAGLE-3 drafter within 1.2x of the fixture; ``fix --diff``
within 1.2x of ``inspect``. The ratios are printed, measured in the same run.
Run: ``python benchmarks/startup_bench.py [--repeat 15] [--shards 64]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
EAGLE3 = "eagle3 inspect (table)"  # the real-shaped EAGLE-3 drafter with d2t/t2d


# the target of that drafter, Llama 3.1 8B: its config alone (no weights are read here)
LLAMA31_8B = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}


def build_eagle3(root: Path) -> tuple[Path, Path]:
    """A real-shaped EAGLE-3 drafter (SpecForge's Llama 3.1 8B config and tensor list,
    fixtures/real-configs: Vd 32000, Vt 128256), sparse but for its real ``d2t`` [32000]
    and ``t2d`` [128256] (a sorted selection, as the trainers write them), and its target's
    config. Returns (drafter, target)."""
    sys.path.insert(0, str(ROOT))
    from fixtures.synth import T, sorted_mapping, write_json, write_safetensors

    name = "specforge-llama3.1-8b-eagle3"
    real = FIXTURES / "real-configs"
    cfg = json.loads((real / f"{name}.json").read_text())
    shapes = json.loads((real / f"{name}.tensors.json").read_text())
    d2t, t2d = sorted_mapping(cfg["vocab_size"], cfg["draft_vocab_size"])
    values = {"d2t": d2t, "t2d": t2d}
    tensors = {n: T(dtype, tuple(shape), values.get(n)) for n, dtype, shape in shapes}
    write_json(root / "drafter" / "config.json", cfg)
    write_safetensors(root / "drafter" / "model.safetensors", tensors)
    write_json(root / "target" / "config.json", LLAMA31_8B)
    return root / "drafter", root / "target"


def cli() -> list[str]:
    """How a user runs it: the installed console script, else ``python -m dspark_ckpt``."""
    script = Path(sys.executable).with_name("dspark-ckpt")
    if script.exists() or shutil.which("dspark-ckpt") == str(script):
        return [sys.executable, str(script)]
    return [sys.executable, "-m", "dspark_ckpt"]


# as a user runs it: bytecode cached (the warm-up run writes the .pyc files, which
# PYTHONDONTWRITEBYTECODE, set in some environments, would forbid: every run would compile)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPATH"] = str(ROOT)


def run(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of one process; its
    exit code is not judged here (a fixture may well be 'not deployable'), a crash is."""
    t0 = time.perf_counter()
    pid = os.posix_spawn(
        cmd[0],
        cmd,
        ENV,
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ],
    )
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {code}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def measure(cmds: dict[str, list[str]], repeat: int) -> dict[str, list[tuple[float, ...]]]:
    """In this (lean) process: every command ``repeat`` times, taking turns."""
    for cmd in cmds.values():  # warm the page cache and the .pyc files
        run(cmd)
    runs: dict[str, list[tuple[float, ...]]] = {k: [] for k in cmds}
    for _ in range(repeat):
        for name, cmd in cmds.items():
            runs[name].append(run(cmd))
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--shards", type=int, default=64)
    ap.add_argument("--tensors", type=int, default=1412)
    ap.add_argument("--measure", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(json.loads(args.measure), args.repeat)))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from inspect_bench import VT, build

    exe = cli()
    fixture = [str(FIXTURES / "padded"), "--target", str(FIXTURES / "targets" / "small")]
    with tempfile.TemporaryDirectory() as tmp:
        shards = build(Path(tmp) / "drafter", args.shards, args.tensors, int(1e12))
        eagle3, llama = build_eagle3(Path(tmp) / "eagle3")
        cmds = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "inspect --format json": [*exe, "inspect", *fixture, "--format", "json"],
            "inspect (table)": [*exe, "inspect", *fixture],
            "inspect -q": [*exe, "inspect", *fixture, "-q"],
            "fix --diff": [*exe, "fix", *fixture, "--diff"],
            EAGLE3: [*exe, "inspect", str(eagle3), "--target", str(llama)],
            "eagle3 inspect json": [
                *exe,
                "inspect",
                str(eagle3),
                "--target",
                str(llama),
                "--format",
                "json",
            ],
            "--help": [*exe, "--help"],
            "--version": [*exe, "--version"],
            f"inspect json, {args.shards} shards": [
                *exe,
                "inspect",
                str(shards),
                "--target-vocab-size",
                str(VT),
                "--format",
                "json",
            ],
        }
        lean = [sys.executable, "-S", __file__, "--repeat", str(args.repeat)]
        out = subprocess.run(
            [*lean, "--measure", json.dumps(cmds)], capture_output=True, text=True, check=True
        )
    runs = json.loads(out.stdout)
    med = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
    cpu = {k: statistics.median(r[1] for r in v) for k, v in runs.items()}
    rss = {k: statistics.median(r[2] for r in v) for k, v in runs.items()}
    floor, cpu_floor = med["python -c pass"], cpu["python -c pass"]
    print("median of each; CPU = user + system, steadier than wall time on a busy machine")
    print(f"{'command':<30} {'wall s':>7} {'x pass':>7} {'CPU s':>7} {'x pass':>7} {'peak MB':>8}")
    for name in cmds:
        print(
            f"{name:<30} {med[name]:>7.3f} {med[name] / floor:>6.2f}x "
            f"{cpu[name]:>7.3f} {cpu[name] / cpu_floor:>6.2f}x {rss[name]:>8.0f}"
        )
    json_name, table = "inspect --format json", "inspect (table)"
    ratios = [
        ("table / json", table, json_name, 1.2),
        ("real-shaped EAGLE-3 / fixture (tables)", EAGLE3, table, 1.2),
        ("fix --diff / inspect (fixture)", "fix --diff", table, 1.2),
        ("fixture inspect / python -c pass", table, "python -c pass", 3.5),
    ]
    for what, num, den, target in ratios:
        print(
            f"{what}: {med[num] / med[den]:.2f}x wall, {cpu[num] / cpu[den]:.2f}x CPU "
            f"(target <= {target}x)"
        )


if __name__ == "__main__":
    main()
