"""A strict, header-only safetensors reader.

The format: 8 bytes little-endian header
length ``N``; ``N`` bytes of UTF-8 JSON (may be padded with spaces); the data
buffer. Validated at least as strictly as the safetensors library, and stricter
where it is lax: duplicate keys, NaN/Infinity and trailing bytes are refused.

Only the header is read. ``read_values`` (plain Python, no numpy: what ``inspect``
reads) and ``read_array`` (a numpy array: ``fix``, ``verify``) read the data of one small
integer tensor (``d2t``, ``t2d``) and nothing else. Special files (FIFOs, devices, directories)
are refused without ever blocking on them.

Speed and memory (``benchmarks/header_bench.py``): a header of a million tensors costs
about what ``json.loads`` of it costs. The per-integer parser hook runs only where an
integer could need it, the garbage collector waits while the parse builds its millions
of objects, and each entry is validated in one pass and replaced, in place, by its
``TensorInfo`` (so the parsed entries are freed as they are read).
"""

from __future__ import annotations

import gc
import json
import math
import os
import re
import stat
import sys
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.record import record

MAX_HEADER_BYTES = 100_000_000  # the safetensors library's own limit
MAX_JSON_BYTES = 16_000_000  # config.json
MAX_INT_DIGITS = 4300  # CPython's own default bound on int(str); far over any u64 (20 digits)
MAX_ARRAY_BYTES = 1 << 28  # d2t / t2d values read into memory (a 1M vocab needs 8 MB)
# safetensors reads every dimension and offset as a u64 and refuses a shape whose running
# product, or whose size in bits, leaves it (Rust checked_mul): so do we
U64 = 1 << 64
# safetensors parses with serde_json, which refuses nesting deeper than this
MAX_NESTING = 127
ENTRY_FIELDS = ("dtype", "shape", "data_offsets")

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
# the same, as the type codes of the standard library's ``array`` (its sizes are fixed:
# b/B 1, h 2, i 4, q 8 bytes on every platform CPython runs on)
ARRAY_TYPECODES = {"BOOL": "B", "U8": "B", "I8": "b", "I16": "h", "I32": "i", "I64": "q"}


class TensorInfo(NamedTuple):
    """One tensor entry of a safetensors header; offsets are absolute file positions.

    Immutable; a named tuple because a header may hold a million of them (a frozen
    dataclass takes five times as long to build).
    """

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


@record
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
    """``n`` bytes from ``fd``; a short file or an I/O error (a FUSE or NFS hiccup: EIO)
    is a ``CheckpointError`` naming ``path``."""
    chunks = []
    while n > 0:
        try:
            chunk = os.read(fd, min(n, 1 << 24))
        except OSError as e:
            raise CheckpointError(path, f"cannot read: {e.strerror or e}") from None
        if not chunk:
            raise CheckpointError(path, "file ended while reading", SHORT_HINT)
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


class _Refused(ValueError):
    """A JSON text the strict parser refuses (its hooks raise it)."""


def _reject_constant(name: str) -> Any:
    raise _Refused(f"{name} is not valid JSON")


def _json_int(digits: str) -> int | float:
    """An integer as serde_json (safetensors' parser) reads it: ``-0`` is the float -0.0,
    so never a dimension or an offset; and bounded, so that no parse is quadratic."""
    if len(digits) > MAX_INT_DIGITS:
        raise _Refused(f"an integer of {len(digits)} digits")
    return -0.0 if digits == "-0" else int(digits)


def _json_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # serde_json: "number out of range"
        raise _Refused(f"number {text[:24]} is out of range")
    return value


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)  # in C: a header of a million tensors calls this a million times
    if len(obj) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise _Refused(f"duplicate key {key!r}")
    return obj


# "-0" as a number (not "-01", "-0.5", "-0e1"; a false match in a string only costs time)
_MINUS_ZERO = r"-0(?![0-9.eE])"
# a \uD800-\uDFFF escape: a lone one is refused by serde_json, not by Python's json
_SURROGATE = r"\\u[dD][89a-fA-F]"


@contextmanager
def gc_paused() -> Iterator[None]:
    """No garbage collection while a parse builds millions of acyclic objects (it would
    scan them again and again: a third of the time of a large header)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def decode_json(raw: bytes, path: Path, what: str) -> str:
    """The text of a JSON file or header: UTF-8, as safetensors requires."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CheckpointError(path, f"{what} is not valid UTF-8 (byte {e.start})") from None


def parse_json(raw: bytes, path: Path, what: str) -> Any:
    return loads_json(decode_json(raw, path, what), path, what)


def loads_json(text: str, path: Path, what: str) -> Any:
    """Strict JSON, read as serde_json (safetensors' parser) reads it, and stricter: no
    NaN/Infinity, no duplicate keys, no lone surrogate escapes, numbers within range,
    ``-0`` a float, bounded nesting and integers."""
    # the per-integer hook costs a third of the parse of a large header: with CPython's
    # own bound on integer digits in force, it is needed only where a -0 may be
    hook_ints = (
        "-0" in text and re.search(_MINUS_ZERO, text) is not None
    ) or not 0 < sys.get_int_max_str_digits() <= MAX_INT_DIGITS
    try:
        try:
            return _loads(text, hook_ints)
        except ValueError as e:
            if hook_ints or isinstance(e, (json.JSONDecodeError, _Refused, UnicodeEncodeError)):
                raise
            return _loads(text, hook_ints=True)  # CPython's bound on digits: say how many
    except RecursionError:
        raise CheckpointError(path, f"{what} is nested too deeply") from None
    except UnicodeEncodeError:
        raise CheckpointError(
            path, f"{what} is not valid JSON: a lone surrogate escape (\\uD800-\\uDFFF)"
        ) from None
    except json.JSONDecodeError as e:
        raise CheckpointError(path, f"{what} is not valid JSON: {e.msg}") from None
    except _Refused as e:
        raise CheckpointError(path, f"{what} is not valid JSON: {e}") from None


def _loads(text: str, hook_ints: bool) -> Any:
    with gc_paused():
        obj = json.loads(
            text,
            object_pairs_hook=_unique_object,
            parse_constant=_reject_constant,
            parse_float=_json_float,
            parse_int=_json_int if hook_ints else None,
        )
    if "\\u" in text and re.search(_SURROGATE, text) is not None:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")  # raises on a lone surrogate
    return obj


class TooLarge(CheckpointError):
    """A file over the limit its reader sets (``read_regular``): nothing of it was read."""


def read_regular(path: Path, limit: int, what: str = "file") -> bytes:
    """A whole local file, the one way any file the tool reads is read (configs, indexes,
    tokenizer files, ``check``'s TOML): opened without blocking, refused unless a regular
    file (a FIFO or device renamed over it after a listing or an ``is_file`` check does
    not block), and refused (``TooLarge``) over ``limit`` bytes before a byte is read.
    Raises ``CheckpointError`` naming ``path``."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise TooLarge(path, f"{what} is {size} bytes, over the {limit} limit")
        return _read_exact(fd, size, path)
    finally:
        os.close(fd)


def read_json_file(path: Path, what: str = "file", limit: int = MAX_JSON_BYTES) -> Any:
    """A JSON file (config, index), read as strictly as a safetensors header."""
    return parse_json(read_regular(path, limit, what), path, what)


def _tensor_info(name: str, e: Any, data_start: int, path: Path) -> TensorInfo:
    """One header entry, validated as safetensors validates it, and as strictly.

    Runs once per tensor (a million times for the largest headers): plain checks, and
    the message is built only for an entry that fails one.
    """
    if type(e) is not dict:
        raise _bad_entry(path, name, "entry is not an object")
    dtype = e.get("dtype")
    bits = DTYPE_BITS.get(dtype) if type(dtype) is str else None
    if bits is None:
        what = (
            "missing or non-string dtype" if type(dtype) is not str else f"unknown dtype {dtype!r}"
        )
        raise _bad_entry(path, name, what)
    shape = e.get("shape")
    if type(shape) is not list:
        raise _bad_entry(path, name, "shape must be a list of non-negative integers")
    numel = 1
    for d in shape:
        if type(d) is not int or d < 0:
            raise _bad_entry(path, name, "shape must be a list of non-negative integers")
        if d >= U64:
            raise _bad_entry(path, name, f"shape dimension {_cut(d)} does not fit in 64 bits")
        numel *= d
        if numel >= U64:
            raise _bad_entry(path, name, f"shape {_cut(shape)} overflows 64 bits")
    offsets = e.get("data_offsets")
    if type(offsets) is not list or len(offsets) != 2:
        raise _bad_entry(path, name, OFFSETS_FORM)
    begin, end = offsets
    if type(begin) is not int or type(end) is not int or begin < 0 or end < 0:
        raise _bad_entry(path, name, OFFSETS_FORM)
    if end >= U64:
        raise _bad_entry(path, name, f"data_offsets end {_cut(end)} does not fit in 64 bits")
    if end < begin:
        raise _bad_entry(path, name, f"data_offsets end {end} is before begin {begin}")
    nbits = numel * bits
    if nbits >= U64:
        raise _bad_entry(path, name, f"shape {_cut(shape)} of {dtype} overflows 64 bits")
    if nbits % 8:
        raise _bad_entry(path, name, f"shape {_cut(shape)} of {dtype} is not a whole byte count")
    if end - begin != nbits >> 3:
        raise _bad_entry(
            path,
            name,
            f"holds {end - begin} bytes but shape {_cut(shape)} of {dtype} needs {nbits >> 3}",
        )
    if len(e) != len(ENTRY_FIELDS):
        _check_extra_fields(name, e, path)
    return _new_info(
        TensorInfo, (name, dtype, tuple(shape), data_start + begin, data_start + end, path)
    )


OFFSETS_FORM = "data_offsets must be two non-negative integers [begin, end]"
_new_info = tuple.__new__  # a TensorInfo without the Python frame of its __new__ (1M times)


def _bad_entry(path: Path, name: str, problem: str) -> CheckpointError:
    return CheckpointError(path, f"tensor {name!r}: {problem}")


def _cut(value: Any, limit: int = 60) -> str:
    """A value for a message, cut short (a shape of 40,000 huge dimensions)."""
    text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_extra_fields(name: str, e: dict[str, Any], path: Path) -> None:
    """Fields safetensors ignores must still parse as serde_json parses them: nested at
    most ``MAX_NESTING`` deep in all, every number within a float64."""
    stack = [(v, 3) for k, v in e.items() if k not in ENTRY_FIELDS]  # header, entry, field
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_NESTING:
                raise _bad_entry(path, name, f"nested over {MAX_NESTING} deep")
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items)
        elif type(value) is int:
            try:
                float(value)  # serde_json reads an integer beyond 64 bits as an f64
            except OverflowError:
                raise _bad_entry(path, name, f"number {_cut(value, 24)} is out of range") from None


LFS_POINTER = b"version "  # a Git LFS pointer file: "version https://git-lfs.github.com/..."
LFS_HINT = "run `git lfs pull` (GitHub Actions: actions/checkout with `lfs: true`)"
SHORT_HINT = "download or copy it again (an interrupted download or copy leaves a file short)"


def header_length(prefix: bytes, size: int, path: Path) -> int:
    """The header length ``N`` from a file's first 8 bytes, checked against its ``size``."""
    if size < 8 or len(prefix) < 8:
        raise CheckpointError(
            path,
            f"file is {size} bytes; a safetensors file starts with an 8-byte header length",
            SHORT_HINT,
        )
    if prefix.startswith(LFS_POINTER):  # as a length, far over the limit: never a real file
        raise CheckpointError(
            path,
            "is a Git LFS pointer file, not the weights (a clone without its LFS files)",
            LFS_HINT,
        )
    n = int.from_bytes(prefix[:8], "little")
    if n > MAX_HEADER_BYTES:
        raise CheckpointError(path, f"header length {n} is over the {MAX_HEADER_BYTES}-byte limit")
    if 8 + n > size:
        raise CheckpointError(
            path,
            f"truncated: header length {n} runs past the end of the file ({size} bytes)",
            SHORT_HINT,
        )
    return n


def read_header(path: str | Path) -> SafetensorsHeader:
    """Read and validate the header of one safetensors file. Raises ``CheckpointError``."""
    path = Path(path)
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        n = header_length(_read_exact(fd, 8, path) if size >= 8 else b"", size, path)
        with out_of_memory(path, n):
            # the bytes go once decoded: a 100 MB header is not held twice while it is parsed
            text = decode_json(_read_exact(fd, n, path), path, "header")
            return _parse_header(text, n, size, path)
    finally:
        os.close(fd)


def parse_header(raw: bytes, size: int, path: Path) -> SafetensorsHeader:
    """Validate the ``N`` header bytes of a safetensors file of ``size`` bytes.

    Shared by local files and remote ones read with HTTP range requests.
    """
    with out_of_memory(path, len(raw)):
        return _parse_header(decode_json(raw, path, "header"), len(raw), size, path)


@contextmanager
def out_of_memory(path: Path, n: int) -> Iterator[None]:
    """A header too large for the memory at hand (a ``ulimit -v``, a small container) is
    a one-line error naming the file (parsing takes about ten times the header's size)."""
    try:
        yield
        return
    except MemoryError:
        pass  # out of the except block, so that the parse's objects can go
    raise CheckpointError(
        path, f"not enough memory to read its {n}-byte header (about {n * 10 >> 20} MiB needed)"
    )


_SPAN = itemgetter(3, 4)  # a TensorInfo's (start, end)


def _data_end(tensors: dict[str, TensorInfo], data_start: int, path: Path) -> int:
    """Where the tensors' data ends, once checked that they tile the data buffer exactly
    from ``data_start``: no holes, no overlap (the caller checks that nothing follows)."""
    cursor = data_start
    for t in tensors.values():  # in file order, as writers lay them out: no sort needed
        if t.start != cursor:
            break
        cursor = t.end
    else:
        return cursor
    cursor = data_start
    for t in sorted(tensors.values(), key=_SPAN):
        if t.start != cursor:
            what = "overlaps the previous tensor" if t.start < cursor else "leaves a gap before it"
            raise CheckpointError(
                path,
                f"tensor {t.name!r} {what} (starts at {t.start - data_start}, "
                f"expected {cursor - data_start})",
            )
        cursor = t.end
    return cursor


def _parse_header(text: str, n: int, size: int, path: Path) -> SafetensorsHeader:
    """The header of ``n`` bytes, decoded to ``text``, of a file of ``size`` bytes."""
    if text[:1] != "{":
        raise CheckpointError(path, "header does not start with '{'")
    header = loads_json(text, path, "header")
    if not isinstance(header, dict):
        raise CheckpointError(path, "header is not a JSON object")

    data_start = 8 + n
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (
        isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values())
    ):
        raise CheckpointError(path, "__metadata__ must map strings to strings")
    # each entry replaced by its TensorInfo in place: the parsed entries go as they are read
    tensors: dict[str, TensorInfo] = header
    with gc_paused():
        for name, entry in header.items():
            tensors[name] = _tensor_info(name, entry, data_start, path)
    cursor = _data_end(tensors, data_start, path)
    if cursor > size:
        raise CheckpointError(
            path,
            f"truncated: tensor data ends at byte {cursor} but the file has {size} bytes",
            SHORT_HINT,
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


def read_rows(info: TensorInfo, rows: list[int]) -> list[bytes]:
    """The bytes of some rows of a 2-D tensor (a few of an embedding: never the whole),
    read as ``read_tensor_bytes`` reads. Raises ``CheckpointError`` naming the file."""
    width = info.nbytes // info.shape[0]
    fd = open_regular(info.path)
    try:
        out = []
        for row in rows:
            try:
                got = os.pread(fd, width, info.start + row * width)
            except OSError as e:
                raise CheckpointError(info.path, f"cannot read: {e.strerror or e}") from None
            if len(got) != width:
                raise CheckpointError(info.path, f"tensor {info.name!r}: file ended while reading")
            out.append(got)
        return out
    finally:
        os.close(fd)


def read_tensor_bytes(info: TensorInfo, into: memoryview | None = None) -> bytearray | memoryview:
    """The bytes of one tensor, read into memory (never mapped: a file truncated under a
    mapping kills the process with SIGBUS; read, a file that changed is an error naming
    it). Writable, so numpy and torch can wrap them without copying. ``into``: a writable
    buffer of ``info.nbytes`` bytes to read them into (``verify``'s uninitialised tensor:
    a ``bytearray`` is zeroed first, one more pass over a head of gigabytes)."""
    if into is not None and into.nbytes != info.nbytes:
        raise ValueError(f"{info.name}: a buffer of {into.nbytes} bytes for {info.nbytes}")
    buf = bytearray(info.nbytes) if into is None else into
    view, done = memoryview(buf).cast("B"), 0
    fd = open_regular(info.path)
    try:
        os.lseek(fd, info.start, os.SEEK_SET)
        while done < info.nbytes:
            try:
                n = os.readv(fd, [view[done : done + (1 << 24)]])
            except OSError as e:
                raise CheckpointError(info.path, f"cannot read: {e.strerror or e}") from None
            if n == 0:
                raise CheckpointError(info.path, f"tensor {info.name!r}: file ended while reading")
            done += n
    finally:
        os.close(fd)
    return buf


def read_values(info: TensorInfo, data: bytes | None = None) -> array:
    """The values of one small integer/bool tensor, flat, as an ``array`` of the standard
    library (a ``BOOL``'s as bytes, non-zero for True): no numpy, which would be a third
    of ``inspect``'s start-up. ``data`` may hold the tensor's bytes already (from a
    remote range read)."""
    check_readable(info)
    if data is None:
        data = read_tensor_bytes(info)
    values = array(ARRAY_TYPECODES[info.dtype])
    values.frombytes(data)
    if sys.byteorder == "big" and values.itemsize > 1:
        values.byteswap()  # safetensors is little-endian
    return values


def read_array(info: TensorInfo, data: bytes | None = None):
    """The values of one small integer/bool tensor as a numpy array.

    ``data`` may hold the tensor's bytes already (from a remote range read).
    """
    import numpy as np

    check_readable(info)
    if data is None:
        data = read_tensor_bytes(info)
    return np.frombuffer(data, dtype=NUMPY_DTYPES[info.dtype]).reshape(info.shape)
