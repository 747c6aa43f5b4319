"""verify on an Inkling-sized head: load time, tokens/s, achieved bandwidth.

Writes a padded drafter whose ``lm_head`` is ``[201024, 4096]`` bf16 (Vt 200058),
with a Markov head (rank 16), as a sparse file (no disk cost; the timings do not
depend on the values) whose padded rows alone hold random values, then runs ``verify_checkpoint`` on CPU and, where a GPU is
present, on CUDA. Each device is compared with baselines measured in the same run:

- ``copy``: a plain on-device copy of the head (read + write): the memory bandwidth
  this device reaches, the limit a bandwidth-bound logits pass can approach;
- ``matmul``: one unchunked ``hidden @ head.T`` over the same hidden states: the
  logits time without streaming, masking or sampling;
- ``hand-written``: the same sampling as a short torch script does it (``hand_written``:
  load, logits with the Markov bias, greedy / top-k / Gumbel-max, unmasked and masked),
  paired with verify run for run; the ratio's target is <= 1.2x.

    python benchmarks/verify_bench.py                 # defaults: a few minutes on 2 cores
    python benchmarks/verify_bench.py --tokens 2048   # a bigger run
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "fixtures"))

import numpy as np  # noqa: E402
import synth  # noqa: E402
import torch  # noqa: E402

from dspark_ckpt.commands.verify import verify_checkpoint  # noqa: E402
from dspark_ckpt.facts.target import target_from_vocab_size  # noqa: E402
from dspark_ckpt.source.safetensors import read_header  # noqa: E402

VT, VD, H, RANK = synth.INKLING_VT, synth.INKLING_VD, 4096, 16


def write_drafter(root: Path, vd: int, hidden: int) -> Path:
    synth.write_json(root / "config.json", synth.drafter_config(vd, vd, hidden, markov_rank=RANK))
    synth.write_safetensors(
        root / "model.safetensors",
        {
            "lm_head.weight": synth.T("BF16", (vd, hidden)),
            "markov_head.markov_w1.weight": synth.T("BF16", (vd, RANK)),
            "markov_head.markov_w2.weight": synth.T("BF16", (vd, RANK)),
        },
    )
    fill_padded_rows(root / "model.safetensors", vd - (VD - VT), vd, hidden)
    return root


def fill_padded_rows(path: Path, vt: int, vd: int, hidden: int) -> None:
    """Random values in the padded rows ``[Vt, Vd)`` only (megabytes): the legal rows stay a
    sparse zero hole, so an unmasked sampler picks padded ids and the verdict means something."""
    info = read_header(path).tensors["lm_head.weight"]
    rows = np.random.default_rng(0).standard_normal((vd - vt, hidden), dtype=np.float32)
    with open(path, "r+b") as f:
        f.seek(info.start + vt * hidden * 2)
        f.write(synth.bf16(rows))


def timed(fn, device: str, *args, repeat: int = 3) -> float:
    fn(*args)  # warm-up
    best = float("inf")
    for _ in range(repeat):
        if device == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn(*args)
        if device == "cuda":
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t0)
    return best


def baselines(head, tokens: int, device: str) -> dict[str, float]:
    """Seconds for one head copy and for one unchunked logits matmul of ``tokens`` states."""
    copy = timed(torch.empty_like(head).copy_, device, head)
    hidden = torch.randn(tokens, head.shape[1], device=device, dtype=head.dtype)
    matmul = timed(lambda: hidden @ head.T, device)
    return {"copy": copy, "matmul": matmul}


def hand_written(drafter: Path, device: str, tokens: int, vt: int, k: int) -> tuple[float, float]:
    """The same sampling as a person would write it in torch, unchunked: load the head and
    the Markov matrices; ``tokens`` random hidden states plus one aligned with each of the
    ``tokens`` padded rows of largest norm (verify's adversarial set), RMS-normalised;
    previous tokens random for the random states and, for each adversarial one, the token
    whose ``markov_w1`` row most raises that row's bias; logits plus the Markov bias in the
    head's dtype, Gumbel noise, then greedy, top-k and Gumbel-max, unmasked and with the
    padded rows set to -inf. Returns (seconds end to end, seconds of logits and sampling)."""
    from safetensors import safe_open

    t0 = time.perf_counter()
    with safe_open(str(drafter / "model.safetensors"), framework="pt", device=device) as f:
        head = f.get_tensor("lm_head.weight")
        w1 = f.get_tensor("markov_head.markov_w1.weight")
        w2 = f.get_tensor("markov_head.markov_w2.weight")
    if device == "cuda":
        torch.cuda.synchronize()
    t1 = time.perf_counter()
    gen = torch.Generator(device=device).manual_seed(0)
    padded = torch.arange(vt, head.shape[0], device=device)
    adv = padded[head[padded].float().norm(dim=1).argsort(descending=True)[:tokens]]
    hidden = torch.cat(
        [torch.randn(tokens, head.shape[1], generator=gen, device=device), head[adv].float()]
    )
    hidden = (hidden / hidden.pow(2).mean(dim=-1, keepdim=True).sqrt()).to(head.dtype)
    prev = torch.cat(
        [
            torch.randint(0, vt, (tokens,), generator=gen, device=device),
            (w2[adv].float() @ w1[:vt].float().T).argmax(dim=1),
        ]
    )
    allowed = torch.arange(head.shape[0], device=device) < vt
    logits = (hidden @ head.T + w1[prev] @ w2.T).float()
    noise = torch.empty_like(logits).exponential_(generator=gen).log_().neg_()
    for scores in (logits, logits.masked_fill(~allowed, float("-inf"))):
        scores.argmax(dim=1), scores.topk(k, dim=1), (scores + noise).argmax(dim=1)
    if device == "cuda":
        torch.cuda.synchronize()
    t2 = time.perf_counter()
    return t2 - t0, t2 - t1


def paired(drafter: Path, device: str, tokens: int, vt: int, repeat: int) -> None:
    """verify and the hand-written script, taking turns ``repeat`` times: the median of
    each and of their ratio (a shared machine's load hits both alike)."""
    import statistics

    target = target_from_vocab_size(vt)
    ours, theirs = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        report = verify_checkpoint(str(drafter), target, device=device, tokens=tokens)
        total, cpu = time.perf_counter() - t0, time.process_time() - c0
        ts = report.timings_s
        ours.append((total, ts["logits"] + ts["sampling"], cpu))
        c0 = time.process_time()
        wall, compute = hand_written(drafter, device, report.random_tokens, vt, report.topk)
        theirs.append((wall, compute, time.process_time() - c0))
    for i, what in enumerate(("end to end", "logits + sampling", "CPU s end to end")):
        a = statistics.median(o[i] for o in ours)
        b = statistics.median(t[i] for t in theirs)
        ratio = statistics.median(o[i] / t[i] for o, t in zip(ours, theirs, strict=True))
        print(
            f"paired {what:<18} verify {a:.2f} s, hand-written torch {b:.2f} s: "
            f"{ratio:.2f}x (median of {repeat} pairs; target <= 1.2x)"
        )


def bench(drafter: Path, device: str, tokens: int, vt: int) -> None:
    report = verify_checkpoint(
        str(drafter), target_from_vocab_size(vt), device=device, tokens=tokens
    )
    ts = report.timings_s
    gb = report.head_bytes / 1e9
    head = torch.zeros(report.head_shape, dtype=torch.bfloat16, device=device)
    base = baselines(head, report.tokens, device)
    copy_bw = 2 * gb / base["copy"]
    matmul_bw = gb / base["matmul"]
    print(
        f"\n== {device} ({torch.get_num_threads()} threads)"
        if device == "cpu"
        else f"\n== {device} ({torch.cuda.get_device_name()})"
    )
    print(
        f"head            {list(report.head_shape)} {report.dtype}, {gb:.2f} GB; markov {report.markov}"
    )
    print(
        f"tokens          {report.tokens} ({report.random_tokens} random + {report.adversarial_tokens} adversarial)"
    )
    print(f"load            {ts['load']:.2f} s ({gb / ts['load']:.2f} GB/s)")
    print(
        f"logits          {ts['logits']:.2f} s: {report.tokens / ts['logits']:.0f} tokens/s, {report.bandwidth_gbs:.1f} GB/s over the head"
    )
    print(
        f"sampling        {ts['sampling']:.2f} s (greedy + top-{report.topk} + gumbel, unmasked and masked)"
    )
    total = ts["logits"] + ts["sampling"]
    print(f"verify          {report.tokens / total:.0f} tokens/s end to end (logits + sampling)")
    print(f"peak memory     {report.peak_memory_bytes / 2**30:.2f} GiB ({report.peak_memory_kind})")
    print(
        f"baseline copy   {base['copy']:.2f} s: {copy_bw:.1f} GB/s (read + write), the device's reachable bandwidth"
    )
    print(
        f"baseline matmul {base['matmul']:.2f} s for the same {report.tokens} tokens unchunked ({matmul_bw:.1f} GB/s over the head)"
    )
    print(
        f"ratios          bandwidth vs copy {report.bandwidth_gbs / copy_bw:.2f}; logits time vs bare matmul {ts['logits'] / base['matmul']:.2f}"
    )
    print(
        f"verdict         ok={report.ok}; unmasked greedy illegal {report.modes['greedy'].unmasked_illegal}, masked {report.modes['greedy'].masked_illegal}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--tokens", type=int, default=64, help="random hidden states (as many again adversarial)"
    )
    ap.add_argument("--vocab", type=int, default=VD, help="Vd: head rows")
    ap.add_argument(
        "--repeat", type=int, default=3, help="pairs of verify and the hand-written script"
    )
    ap.add_argument("--hidden", type=int, default=H, help="head width")
    ap.add_argument(
        "--devices", default="cpu,cuda", help="comma-separated; cuda only where present"
    )
    args = ap.parse_args()
    vt = max(1, args.vocab - (VD - VT))  # keep the 966 padded rows
    with tempfile.TemporaryDirectory() as tmp:
        drafter = write_drafter(Path(tmp) / "inkling", args.vocab, args.hidden)
        for device in args.devices.split(","):
            if device == "cuda" and not torch.cuda.is_available():
                print("\n== cuda: no GPU present, skipped")
                continue
            bench(drafter, device, args.tokens, vt)
            paired(drafter, device, args.tokens, vt, args.repeat)


if __name__ == "__main__":
    main()
