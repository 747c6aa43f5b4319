"""Benchmark: the drafter/target tokenizer comparison on a Qwen3-sized ``tokenizer.json``.

Builds (here, in a temporary folder) a byte-level BPE ``tokenizer.json`` shaped like
Qwen3's: 151643 vocab entries, ~151000 merges, the 26 added special tokens, about
11 MB. Then measures, against a baseline taken in the same run:

- baseline: one ``json.loads`` of that file (the least any reader of it pays);
- equal files: ``compare_tokenizers`` of two folders holding the same bytes (the hash
  fast path);
- another chat format: the same tokenizer.json, another eos token in
  tokenizer_config.json (the vocab file read once);
- one token differs: the same file with one vocab entry renamed and one special token's
  role changed (both files parsed, every id compared).

Target: under 0.3 s for the differing pair. Prints each time and its ratio to the
baseline. Run: ``python benchmarks/tokenizer_bench.py [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dspark_ckpt.facts.tokenizer import compare_tokenizers  # noqa: E402
from dspark_ckpt.source.local import LocalSource as local_side_files  # noqa: E402

VOCAB, MERGES, SPECIAL = 151643, 151387, 26


def token(i: int) -> str:
    """A byte-level-BPE-looking token, unique: ASCII letters and the two-byte characters
    byte-level BPE maps CJK and other UTF-8 bytes to (as in Qwen3's vocab)."""
    out = ["Ġ" * (i % 4), "ä¸Ńæĸĩ"[: 2 * (i % 4)] + "åı" * (i % 3)]
    alphabet = "ĠabcdefghijklmnopqrstuvwxyzĊABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ġ"
    while True:
        i, r = divmod(i, len(alphabet))
        out.append(alphabet[r])
        if i == 0:
            return "".join(out)


def tokenizer_doc(changed: bool = False) -> dict:
    vocab = {token(i): i for i in range(VOCAB)}
    if changed:
        del vocab[token(4242)]
        vocab["Ġrenamed"] = 4242
    merges = [f"{token(i % 5000)} {token(i // 5000 + 7)}" for i in range(MERGES)]
    added = [
        {"id": VOCAB + k, "content": f"<|special_{k}|>", "special": True, "normalized": False}
        for k in range(SPECIAL)
    ]
    return {
        "version": "1.0",
        "added_tokens": added,
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False},
        "model": {"type": "BPE", "vocab": vocab, "merges": merges},
    }


def write(folder: Path, doc: dict, eos: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "tokenizer.json").write_text(json.dumps(doc, ensure_ascii=False, indent=2))
    (folder / "tokenizer_config.json").write_text(json.dumps({"eos_token": eos}))
    return folder / "tokenizer.json"


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        path = write(tmp / "target", tokenizer_doc(), "<|special_1|>")
        write(tmp / "same", tokenizer_doc(), "<|special_1|>")
        write(tmp / "other", tokenizer_doc(changed=True), "<|special_2|>")
        write(tmp / "roles", tokenizer_doc(), "<|special_2|>")
        size = path.stat().st_size
        target = local_side_files(tmp / "target")
        same, other = local_side_files(tmp / "same"), local_side_files(tmp / "other")
        roles = local_side_files(tmp / "roles")
        n = VOCAB + SPECIAL

        base = best(lambda: json.loads(path.read_bytes()), args.repeat)
        equal = best(lambda: compare_tokenizers(same, target, n), args.repeat)
        role = best(lambda: compare_tokenizers(roles, target, n), args.repeat)
        differ = best(lambda: compare_tokenizers(other, target, n), args.repeat)
        result = compare_tokenizers(other, target, n)
        assert result.first_differences[0][0] == 4242, result
        assert result.special_differences, result

        print(f"tokenizer.json: {size / 1e6:.1f} MB, {n} ids compared")
        print(f"baseline json.loads of it:   {base * 1e3:7.1f} ms")
        print(f"equal files (sha256 path):   {equal * 1e3:7.1f} ms  ({equal / base:.2f}x baseline)")
        for what, t in (
            ("another eos, same vocab:", role),
            ("one token + one role differ:", differ),
        ):
            print(f"{what:28} {t * 1e3:7.1f} ms  ({t / base:.2f}x baseline)")
        verdict = "OK" if differ < 0.3 else "OVER"
        print(f"target < 300 ms for the differing pair: {verdict}")


if __name__ == "__main__":
    main()
