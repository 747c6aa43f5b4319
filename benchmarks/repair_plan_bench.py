"""``fix --diff`` (the repair plan) on a 1M-tensor header, against ``inspect`` of it.

Builds, in a temporary folder, a padded DSpark drafter (V = Vd = 1024 against a target of
Vt 1000) whose one shard holds 1M small extra tensors beside its head, Markov head and
embedding: a header of about 60 MB, its data sparse. The plan trims the padding, which
rewrites that shard: its header is planned, parsed again and inspected. Prints, measured
in this run and in-process: ``inspect_checkpoint`` (the baseline) and ``run_repair`` with
``diff`` (the plan, the inspection before and after it included), each the best of
``--runs`` (default 3), and their ratio. Target: the plan within 2x of ``inspect``.

Run: ``python benchmarks/repair_plan_bench.py [--tensors N] [--runs K]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from header_bench import DTYPE, NBYTES, SHAPE, names  # noqa: E402

from dspark_ckpt.commands.fix import run_repair  # noqa: E402
from dspark_ckpt.commands.inspect import inspect_checkpoint  # noqa: E402
from dspark_ckpt.commands.repair import RepairRequest  # noqa: E402
from dspark_ckpt.facts.target import target_from_vocab_size  # noqa: E402

V, VT, H, R = 1024, 1000, 8, 4


def build(root: Path, n: int) -> Path:
    """The drafter: config, and one sparse shard of its role tensors and ``n`` others."""
    root.mkdir(parents=True)
    config = {
        "architectures": ["Qwen3DSparkModel"],
        "model_type": "qwen3",
        "vocab_size": V,
        "draft_vocab_size": V,
        "hidden_size": H,
        "num_hidden_layers": 1,
        "markov_rank": R,
        "mask_token_id": 5,
        "target_layer_ids": [0, 1],
    }
    (root / "config.json").write_text(json.dumps(config))
    roles = {
        "embed_tokens.weight": [V, H],
        "lm_head.weight": [V, H],
        "markov_head.markov_w1.weight": [V, R],
        "markov_head.markov_w2.weight": [V, R],
        "fc.weight": [H, 2 * H],
    }
    header: dict = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, shape in roles.items():
        size = shape[0] * shape[1] * 2
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    for name in names(n):
        header[name] = {"dtype": DTYPE, "shape": SHAPE, "data_offsets": [offset, offset + NBYTES]}
        offset += NBYTES
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    with open(root / "model.safetensors", "wb") as f:
        f.write(len(raw).to_bytes(8, "little") + raw)
        f.truncate(8 + len(raw) + offset)  # sparse data
    return root


def best(runs: int, call) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> None:
    args = argparse.ArgumentParser()
    args.add_argument("--tensors", type=int, default=1_000_000)
    args.add_argument("--runs", type=int, default=3)
    a = args.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        drafter = build(Path(tmp) / "drafter", a.tensors)
        target = target_from_vocab_size(VT)
        size = (drafter / "model.safetensors").open("rb").read(8)
        print(f"{a.tensors} extra tensors, header {int.from_bytes(size, 'little') / 2**20:.0f} MiB")
        base, report = best(a.runs, lambda: inspect_checkpoint(str(drafter), target, None))
        req = RepairRequest(diff=True)
        took, result = best(a.runs, lambda: run_repair(str(drafter), target, req))
        changes = [(t.name, t.action) for t in result.plan.tensors]
        print(f"inspect (baseline): {base:.2f} s, verdicts {report.verdicts}")
        print(f"fix --diff (plan):  {took:.2f} s, {len(result.plan.applied)} repair(s): {changes}")
        print(f"ratio plan/inspect: {took / base:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
