"""Coverage-guided fuzzing of the safetensors header reader with atheris (by hand, not CI).

    pip install atheris
    python tools/fuzz_header.py -max_total_time=300 -rss_limit_mb=2048 [corpus_dir]

Each input is written to a file and read with ``read_header``, then, when it reads,
its d2t/t2d-style integer tensors with ``read_array``. Anything but a clean read or a
``CheckpointError`` with a one-line message is a crash, reported by atheris with
the input that caused it. Seeds: the committed fixtures' safetensors files.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from dspark_ckpt.errors import CheckpointError
    from dspark_ckpt.source.safetensors import NUMPY_DTYPES, read_array, read_header

ROOT = Path(__file__).resolve().parents[1]
WORK = Path(tempfile.mkdtemp(prefix="fuzz-header-"))
TARGET = WORK / "model.safetensors"


def as_file(data: bytes) -> bytes:
    """Half the inputs are whole files; the other half a header, framed with its true
    length and followed by a zero data buffer whose size the next two bytes give,
    so that mutations reach the JSON and tensor checks instead of the length check."""
    if not data or data[0] % 2:
        return data[1:]
    size, header = int.from_bytes(data[1:3], "little"), data[3:]
    return len(header).to_bytes(8, "little") + header + bytes(size)


def one_input(data: bytes) -> None:
    TARGET.write_bytes(as_file(data))
    try:
        header = read_header(TARGET)
        for info in header.tensors.values():
            if info.dtype in NUMPY_DTYPES:
                read_array(info)
    except CheckpointError as e:
        if "\n" in str(e) or e.path != str(TARGET):
            raise AssertionError(f"error is not one line naming the file: {e!r}") from None


def seed_corpus() -> str:
    """A corpus folder seeded with the committed fixtures (atheris grows it as it runs)."""
    corpus = WORK / "corpus"
    corpus.mkdir()
    for i, f in enumerate(sorted((ROOT / "fixtures").rglob("*.safetensors"))):
        content = f.read_bytes()
        n = int.from_bytes(content[:8], "little")
        data = len(content) - 8 - n
        (corpus / f"file-{i}").write_bytes(b"\1" + content)
        if data < 1 << 16:
            framed = b"\0" + data.to_bytes(2, "little") + content[8 : 8 + n]
            (corpus / f"header-{i}").write_bytes(framed)
    return str(corpus)


def main() -> None:
    args = list(sys.argv)
    if not any(not a.startswith("-") for a in args[1:]):
        args.append(seed_corpus())
    print(f"fuzz-header: working in {WORK}", file=sys.stderr)
    atheris.Setup(args, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
