"""A strict, header-only safetensors reader.

Format (CONTRACT.md, "Reading checkpoints safely"): 8 bytes little-endian header
length ``N``; ``N`` bytes of UTF-8 JSON (may be padded with spaces); the data
buffer. Validated at least as strictly as the safetensors library, and stricter
where it is lax: duplicate keys, NaN/Infinity and trailing bytes are refused.

Only the header is read. ``read_array`` reads the data of one small tensor
(``d2t``, ``t2d``) and nothing else. Special files (FIFOs, devices, directories)
are refused without ever blocking on them.
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dspark_ckpt.errors import CheckpointError

MAX_HEADER_BYTES = 100_000_000  # the safetensors library's own limit
MAX_JSON_BYTES = 16_000_000  # config.json and index files
MAX_INT_DIGITS = 100  # no integer in a header or config needs more (u64 has 20)
MAX_ARRAY_BYTES = 1 << 28  # d2t / t2d values read into memory (a 1M vocab needs 8 MB)

# bits per element, as the safetensors library defines its dtypes
DTYPE_BITS = {
    "BOOL": 8,
    "U8": 8,
    "I8": 8,
    "F8_E5M2": 8,
    "F8_E4M3": 8,
    "F8_E8M0": 8,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
    "I16": 16,
    "U16": 16,
    "F16": 16,
    "BF16": 16,
    "I32": 32,
    "U32": 32,
    "F32": 32,
    "C64": 64,
    "F64": 64,
    "I64": 64,
    "U64": 64,
}

# the dtypes whose values we ever read, as little-endian numpy type strings
NUMPY_DTYPES = {"BOOL": "|b1", "U8": "|u1", "I8": "|i1", "I16": "<i2", "I32": "<i4", "I64": "<i8"}


@dataclass(frozen=True)
class TensorInfo:
    """One tensor entry of a safetensors header; offsets are absolute file positions."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    start: int
    end: int
    path: Path

    @property
    def nbytes(self) -> int:
        return self.end - self.start

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True)
class SafetensorsHeader:
    path: Path
    header_bytes: int
    file_size: int
    metadata: dict[str, str] | None
    tensors: dict[str, TensorInfo]


def open_regular(path: Path) -> int:
    """Open ``path`` read-only, refusing anything but a regular file, without blocking."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except IsADirectoryError:
        raise CheckpointError(path, "is a directory, not a file") from None
    except FileNotFoundError:
        raise CheckpointError(path, "file not found") from None
    except OSError as e:
        raise CheckpointError(path, f"cannot open: {e.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = (
            "a directory"
            if stat.S_ISDIR(mode)
            else "a FIFO"
            if stat.S_ISFIFO(mode)
            else "a device file"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "not a regular file"
        )
        raise CheckpointError(path, f"is {kind}, not a regular file")
    return fd


def _read_exact(fd: int, n: int, path: Path) -> bytes:
    chunks = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 24))
        if not chunk:
            raise CheckpointError(path, "file ended while reading")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _bounded_int(digits: str) -> int:
    if len(digits) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(digits)} digits")
    return int(digits)


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)  # in C: a header of a million tensors calls this a million times
    if len(obj) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"duplicate key {key!r}")
    return obj


def parse_json(raw: bytes, path: Path, what: str) -> Any:
    """Strict JSON: UTF-8, no NaN/Infinity, no duplicate keys, bounded nesting and integers."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CheckpointError(path, f"{what} is not valid UTF-8 (byte {e.start})") from None
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_object,
            parse_constant=_reject_constant,
            parse_int=_bounded_int,
        )
    except RecursionError:
        raise CheckpointError(path, f"{what} is nested too deeply") from None
    except ValueError as e:  # JSONDecodeError is a ValueError
        reason = e.msg if isinstance(e, json.JSONDecodeError) else str(e)
        raise CheckpointError(path, f"{what} is not valid JSON: {reason}") from None


def read_json_file(path: Path, what: str = "file") -> Any:
    """A small JSON file (config, index), read as strictly as a safetensors header."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > MAX_JSON_BYTES:
            raise CheckpointError(path, f"{what} is {size} bytes, over the {MAX_JSON_BYTES} limit")
        raw = _read_exact(fd, size, path)
    finally:
        os.close(fd)
    return parse_json(raw, path, what)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _tensor_entry(name: str, entry: Any, data_start: int, path: Path) -> TensorInfo:
    where = f"tensor {name!r}"
    if not isinstance(entry, dict):
        raise CheckpointError(path, f"{where}: entry is not an object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if not isinstance(dtype, str):
        raise CheckpointError(path, f"{where}: missing or non-string dtype")
    if dtype not in DTYPE_BITS:
        raise CheckpointError(path, f"{where}: unknown dtype {dtype!r}")
    if not isinstance(shape, list) or not all(_is_int(d) and d >= 0 for d in shape):
        raise CheckpointError(path, f"{where}: shape must be a list of non-negative integers")
    if (
        not isinstance(offsets, list)
        or len(offsets) != 2
        or not all(_is_int(o) and o >= 0 for o in offsets)
    ):
        raise CheckpointError(
            path, f"{where}: data_offsets must be two non-negative integers [begin, end]"
        )
    begin, end = offsets
    if end < begin:
        raise CheckpointError(path, f"{where}: data_offsets end {end} is before begin {begin}")
    bits = math.prod(shape) * DTYPE_BITS[dtype]
    if bits % 8:
        raise CheckpointError(path, f"{where}: shape {shape} of {dtype} is not a whole byte count")
    if end - begin != bits // 8:
        raise CheckpointError(
            path,
            f"{where}: holds {end - begin} bytes but shape {shape} of {dtype} needs {bits // 8}",
        )
    return TensorInfo(name, dtype, tuple(shape), data_start + begin, data_start + end, path)


def header_length(prefix: bytes, size: int, path: Path) -> int:
    """The header length ``N`` from a file's first 8 bytes, checked against its ``size``."""
    if size < 8 or len(prefix) < 8:
        raise CheckpointError(
            path,
            f"file is {size} bytes; a safetensors file starts with an 8-byte header length",
        )
    n = int.from_bytes(prefix[:8], "little")
    if n > MAX_HEADER_BYTES:
        raise CheckpointError(path, f"header length {n} is over the {MAX_HEADER_BYTES}-byte limit")
    if 8 + n > size:
        raise CheckpointError(
            path, f"header length {n} runs past the end of the file ({size} bytes)"
        )
    return n


def read_header(path: str | Path) -> SafetensorsHeader:
    """Read and validate the header of one safetensors file. Raises ``CheckpointError``."""
    path = Path(path)
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        n = header_length(_read_exact(fd, 8, path) if size >= 8 else b"", size, path)
        raw = _read_exact(fd, n, path)
    finally:
        os.close(fd)
    return parse_header(raw, size, path)


def parse_header(raw: bytes, size: int, path: Path) -> SafetensorsHeader:
    """Validate the ``N`` header bytes of a safetensors file of ``size`` bytes.

    Shared by local files and remote ones read with HTTP range requests.
    """
    n = len(raw)
    if raw[:1] != b"{":
        raise CheckpointError(path, "header does not start with '{'")
    header = parse_json(raw, path, "header")
    if not isinstance(header, dict):
        raise CheckpointError(path, "header is not a JSON object")

    data_start = 8 + n
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (
        isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values())
    ):
        raise CheckpointError(path, "__metadata__ must map strings to strings")
    tensors = {name: _tensor_entry(name, e, data_start, path) for name, e in header.items()}

    # tensors must tile the data buffer exactly: no holes, no overlap, nothing after
    cursor = data_start
    for t in sorted(tensors.values(), key=lambda t: (t.start, t.end)):
        if t.start != cursor:
            what = "overlaps the previous tensor" if t.start < cursor else "leaves a gap before it"
            raise CheckpointError(
                path,
                f"tensor {t.name!r} {what} (starts at {t.start - data_start}, "
                f"expected {cursor - data_start})",
            )
        cursor = t.end
    if cursor > size:
        raise CheckpointError(
            path, f"truncated: tensor data ends at byte {cursor} but the file has {size} bytes"
        )
    if cursor < size:
        raise CheckpointError(
            path, f"{size - cursor} trailing bytes after the last tensor (file {size} bytes)"
        )
    return SafetensorsHeader(path, n, size, metadata, tensors)


def check_readable(info: TensorInfo) -> None:
    """Refuse, before any byte is read, values we cannot or will not hold in memory."""
    if info.dtype not in NUMPY_DTYPES:
        raise CheckpointError(
            info.path, f"tensor {info.name!r}: cannot read values of {info.dtype}"
        )
    if info.nbytes > MAX_ARRAY_BYTES:
        raise CheckpointError(
            info.path,
            f"tensor {info.name!r} is {info.nbytes} bytes, over the {MAX_ARRAY_BYTES}-byte "
            "limit for reading its values",
        )


def read_array(info: TensorInfo, data: bytes | None = None):
    """The values of one small integer/bool tensor as a numpy array.

    ``data`` may hold the tensor's bytes already (from a remote range read).
    """
    import numpy as np

    check_readable(info)
    if data is None:
        fd = open_regular(info.path)
        try:
            os.lseek(fd, info.start, os.SEEK_SET)
            data = _read_exact(fd, info.nbytes, info.path)
        finally:
            os.close(fd)
    return np.frombuffer(data, dtype=NUMPY_DTYPES[info.dtype]).reshape(info.shape)
