"""Benchmark: reading safetensors headers of 100 .. 1M tensors, against the ``json.loads`` floor.

For each size, a checkpoint of that many tensors is built (sparse: headers only on disk),
once as a single ``model.safetensors`` and once as ``--shards`` shards with an index.
Each measurement runs in a fresh process that first imports the same modules, so that
peak RSS compares like with like:

- floor: ``json.loads`` of the same JSON bytes (each file's header and, sharded, the
  index), keeping every result as a reader must; nothing else: no validation, no
  duplicate-key check, no objects;
- ours: ``load_checkpoint`` (every header read and validated as strictly as safetensors,
  plus the index cross-check for shards).

Printed per size and layout: median wall time, CPU time and peak RSS of each, their ratios,
and our CPU microseconds per tensor (flat across sizes = linear growth).
Targets (1M tensors): time <= 1.5x the floor, peak RSS <= 1.2x the floor.
Run: ``python benchmarks/header_bench.py [--sizes 100,1000,10000,100000,1000000]
[--shards 64] [--repeat 3]``.
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
sys.path.insert(0, str(ROOT))

PROJS = ("w1", "w2", "w3", "w4")
SHAPE, DTYPE, NBYTES = [4, 4], "BF16", 4 * 4 * 2  # small, so that 1M tensors fit the 100 MB limit


def names(n: int) -> list[str]:
    """``n`` tensor names shaped like a large MoE checkpoint's (layer, expert, weight),
    short so that a header of 1M tensors stays under the 100 MB limit."""
    per_layer = 256 * len(PROJS)
    return [
        f"layers.{i // per_layer}.{i % per_layer // len(PROJS)}.{PROJS[i % len(PROJS)]}"
        for i in range(n)
    ]


def write_file(path: Path, tensor_names: list[str]) -> None:
    header: dict = {"__metadata__": {"format": "pt"}}
    for i, name in enumerate(tensor_names):
        header[name] = {
            "dtype": DTYPE,
            "shape": SHAPE,
            "data_offsets": [i * NBYTES, (i + 1) * NBYTES],
        }
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(len(raw).to_bytes(8, "little") + raw)
        f.truncate(8 + len(raw) + len(tensor_names) * NBYTES)  # sparse data


def build(root: Path, n: int, shards: int) -> Path:
    root.mkdir(parents=True)
    (root / "config.json").write_text("{}")
    all_names = names(n)
    if shards == 1:
        write_file(root / "model.safetensors", all_names)
        return root
    weight_map = {}
    for s in range(shards):
        fname = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = all_names[s::shards]
        write_file(root / fname, part)
        weight_map.update(dict.fromkeys(part, fname))
    (root / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    return root


def header_len(path: Path) -> int:
    with open(path, "rb") as f:
        return int.from_bytes(f.read(8), "little")


def peak_rss() -> int:
    """This process's peak RSS in bytes: VmHWM, which (unlike ru_maxrss) does not carry
    the parent's peak over a fork and exec."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    import resource  # not Linux: may include the parent's peak at the fork

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def worker(mode: str, root: Path) -> None:
    """One measurement in this fresh process: prints wall seconds, peak RSS (bytes), the
    tensor count and CPU seconds (steadier than wall time on a busy machine)."""
    import time

    from dspark_ckpt.source.checkpoint import load_checkpoint  # same imports for both modes

    files = sorted(root.glob("*.safetensors"))
    t0, c0 = time.perf_counter(), time.process_time()
    if mode == "floor":
        kept = []
        for f in files:
            with open(f, "rb") as fh:
                n = int.from_bytes(fh.read(8), "little")
                kept.append(json.loads(fh.read(n)))
        count = sum(len(h) - 1 for h in kept)
        index = root / "model.safetensors.index.json"
        if index.exists():
            kept.append(json.loads(index.read_bytes()))
    else:
        count = len(load_checkpoint(root, need_config=False).tensors)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps([elapsed, peak_rss(), count, cpu]))


def measure(mode: str, root: Path) -> tuple[float, int, int]:
    p = subprocess.run(
        [sys.executable, __file__, "--worker", mode, str(root)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    if p.returncode != 0:
        raise SystemExit(f"{mode} worker failed on {root}:\n{p.stderr}")
    return tuple(json.loads(p.stdout))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100,1000,10000,100000,1000000")
    ap.add_argument("--shards", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--worker", nargs=2, metavar=("MODE", "DIR"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker[0], Path(args.worker[1]))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        f"{'tensors':>9} {'layout':>9} {'JSON MB':>8} | {'floor s':>8} {'ours s':>8} "
        f"{'ratio':>6} {'CPU ratio':>9} {'us/tensor':>9} | {'floor MB':>8} {'ours MB':>8} "
        f"{'ratio':>6}"
    )
    for n in sizes:
        for shards in (1, args.shards):
            with tempfile.TemporaryDirectory() as tmp:
                root = build(Path(tmp) / "ckpt", n, shards)
                header_mb = sum(header_len(f) for f in root.glob("*.safetensors")) / 1e6
                index = root / "model.safetensors.index.json"
                header_mb += index.stat().st_size / 1e6 if index.exists() else 0
                runs = {"floor": [], "ours": []}
                for _ in range(args.repeat):  # interleaved, so that load hits both alike
                    for mode in runs:
                        runs[mode].append(measure(mode, root))
            assert runs["floor"][0][2] == runs["ours"][0][2] == n, (runs, n)
            ft = statistics.median(r[0] for r in runs["floor"])
            ot = statistics.median(r[0] for r in runs["ours"])
            fc = statistics.median(r[3] for r in runs["floor"])
            oc = statistics.median(r[3] for r in runs["ours"])
            fm = statistics.median(r[1] for r in runs["floor"]) / 1e6
            om = statistics.median(r[1] for r in runs["ours"]) / 1e6
            layout = "1 file" if shards == 1 else f"{shards} shards"
            print(
                f"{n:>9} {layout:>9} {header_mb:>8.2f} | {ft:>8.3f} {ot:>8.3f} {ot / ft:>5.2f}x "
                f"{oc / fc:>8.2f}x {oc / n * 1e6:>9.2f} | {fm:>8.0f} {om:>8.0f} {om / fm:>5.2f}x"
            )
    print("targets at 1M tensors: time <= 1.50x, peak RSS <= 1.20x the json.loads floor")


if __name__ == "__main__":
    main()
