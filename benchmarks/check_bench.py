"""Benchmark: ``check`` over 50 drafter/target pairs, against ``inspect`` run in-process.

Builds (sparse) ``--pairs`` drafters and ``--targets`` targets with weights (``--shards``
shards each); pair ``i`` is drafter ``i`` against target ``i % targets``, as a CI gate
checks many drafters against a few targets. Measured, the runs taking turns:

- ``dspark-ckpt check --format json``: one process for every pair, and one for the
  first pair alone (start-up, imports and one pair);
- in-process, in a fresh process: ``inspect_checkpoint`` of each pair, every header read
  anew (what each pair costs without sharing anything);
- once: a loop of one ``dspark-ckpt inspect`` process per pair (what not to do).

Printed: the cost of each further pair in ``check`` ((all pairs - one pair) / (pairs - 1))
against the in-process ``inspect`` per pair. Target: near it, or under it (a target shared
by several pairs is read once).
Run: ``python benchmarks/check_bench.py [--pairs 50] [--targets 5] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "fixtures"))
sys.path.insert(0, str(ROOT))

from synth import T, drafter_config, shard, write_json, write_safetensors  # noqa: E402

VT, VD, H, LAYERS = 1000, 1024, 64, 24


def target(root: Path, shards: int) -> Path:
    write_json(root / "config.json", {"model_type": "qwen3", "vocab_size": VT})
    specs = {"model.embed_tokens.weight": T("BF16", (VD, H)), "lm_head.weight": T("BF16", (VD, H))}
    for i in range(LAYERS):
        for part in ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"):
            specs[f"model.layers.{i}.mlp.{part}.weight"] = T("BF16", (H, H))
    shard(root, specs, shards)
    return root


def drafter(root: Path) -> Path:
    write_json(root / "config.json", drafter_config(VD, VD, H))
    specs = {
        "embed_tokens.weight": T("BF16", (VD, H)),
        "lm_head.weight": T("BF16", (VD, H)),
        "fc.weight": T("BF16", (H, 3 * H)),
        "norm.weight": T("BF16", (H,)),
    }
    for part in ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"):
        specs[f"layers.0.mlp.{part}.weight"] = T("BF16", (H, H))
    write_safetensors(root / "model.safetensors", specs)
    return root


def write_config(path: Path, listed: list[tuple[str, str]]) -> Path:
    path.write_text(
        "".join(
            f'[[pairs]]\nname = "pair{i}"\ndrafter = "{d}"\ntarget = "{t}"\n\n'
            for i, (d, t) in enumerate(listed)
        )
    )
    return path


def build(tmp: Path, pairs: int, targets: int, shards: int) -> list[tuple[str, str]]:
    tgts = [str(target(tmp / f"target{j}", shards)) for j in range(targets)]
    return [(str(drafter(tmp / f"drafter{i}")), tgts[i % targets]) for i in range(pairs)]


def in_process(listed: list[tuple[str, str]]) -> float:
    """Seconds for ``inspect_checkpoint`` of every pair, in this (fresh) process."""
    from dspark_ckpt.commands.inspect import inspect_checkpoint
    from dspark_ckpt.facts.target import open_target

    t0 = time.perf_counter()
    for d, t in listed:
        inspect_checkpoint(d, open_target(t), None)
    return time.perf_counter() - t0


def cli() -> list[str]:
    script = Path(sys.executable).with_name("dspark-ckpt")
    return (
        [sys.executable, str(script)] if script.exists() else [sys.executable, "-m", "dspark_ckpt"]
    )


def wall(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if p.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.decode()}")
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=50)
    ap.add_argument("--targets", type=int, default=5)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--in-process", dest="listed", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.listed:
        print(in_process(json.loads(Path(args.listed).read_text())))
        return
    exe = cli()
    with tempfile.TemporaryDirectory() as tmp:
        listed = build(Path(tmp), args.pairs, args.targets, args.shards)
        pairs_file = Path(tmp) / "pairs.json"
        pairs_file.write_text(json.dumps(listed))
        check, one = (
            [*exe, "check", "--config", str(cfg), "--format", "json"]
            for cfg in (
                write_config(Path(tmp) / "all.toml", listed),
                write_config(Path(tmp) / "one.toml", listed[:1]),
            )
        )
        inproc = [sys.executable, __file__, "--in-process", str(pairs_file)]
        runs: dict[str, list[float]] = {"check": [], "one pair": [], "in-process": []}
        wall(check)  # warm
        for _ in range(args.repeat):
            runs["check"].append(wall(check))
            runs["one pair"].append(wall(one))
            p = subprocess.run(
                inproc, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
            )
            runs["in-process"].append(float(p.stdout))
        t0 = time.perf_counter()
        for d, t in listed:
            wall([*exe, "inspect", d, "--target", t, "--format", "json"])
        loop = time.perf_counter() - t0
    med = {k: statistics.median(v) for k, v in runs.items()}
    n = args.pairs
    per_pair = (med["check"] - med["one pair"]) / (n - 1)
    inspect_pair = med["in-process"] / n
    print(f"{n} pairs, {args.targets} targets of {args.shards} shards")
    print(f"check, one process:        {med['check']:.3f} s (one pair: {med['one pair']:.3f} s)")
    print(f"check, each further pair:  {per_pair * 1000:.1f} ms")
    print(f"inspect in-process / pair: {inspect_pair * 1000:.1f} ms")
    print(f"check per pair / inspect per pair: {per_pair / inspect_pair:.2f}x (target: near 1x)")
    print(f"{n} inspect processes:      {loop:.3f} s ({loop / med['check']:.1f}x the one check)")


if __name__ == "__main__":
    main()
