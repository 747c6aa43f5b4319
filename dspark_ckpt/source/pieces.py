"""A safetensors file to write, as the pieces it is made of: new bytes (its header, a
new tensor's values), byte ranges of existing files (a tensor kept, or cut to its first
rows) and strided elements of one (a pickle's non-contiguous tensor, ``Strided``). ``fix`` plans a rewritten shard this way: a kept tensor's bytes are the
source's, streamed, never loaded; the plan reads the new header without writing a byte.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from dspark_ckpt.record import record

CHUNK = 1 << 24


class Range(NamedTuple):
    """Bytes ``[start, end)`` of the file at ``path`` (a named tuple: a shard rewritten
    may keep a million tensors' ranges)."""

    path: Path
    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start


class Strided(NamedTuple):
    """The elements of a non-contiguous tensor in the file at ``path`` (a transposed or
    strided view in a pickle checkpoint's storage), gathered in row-major order only when
    its bytes are written: one such tensor in memory at a time."""

    path: Path
    start: int  # the file offset of its first element
    shape: tuple[int, ...]
    strides: tuple[int, ...]  # in elements
    dtype: str  # a numpy dtype string of the elements' bits, ending in its size (``<u2``)

    @property
    def size(self) -> int:
        return math.prod(self.shape) * int(self.dtype[-1])

    def gather(self, open_file) -> bytes:
        import numpy as np  # only here: inspect never imports numpy for nothing

        item = int(self.dtype[-1])
        span = 1 + sum((n - 1) * s for n, s in zip(self.shape, self.strides, strict=True))
        with open_file(self.path) as src:
            src.seek(self.start)
            raw = src.read(span * item)
        if len(raw) != span * item:
            raise OSError(f"{self.path}: shorter than its storage says")
        flat = np.frombuffer(raw, dtype=self.dtype)
        steps = tuple(s * item for s in self.strides)
        view = np.lib.stride_tricks.as_strided(flat, self.shape, steps, writeable=False)
        return np.ascontiguousarray(view).tobytes()


Part = bytes | Range | Strided


@record
class Pieces:
    """A file's content: its parts, in order."""

    parts: tuple[Part, ...]

    @property
    def size(self) -> int:
        return sum(len(p) if isinstance(p, bytes) else p.size for p in self.parts)

    @property
    def head(self) -> bytes:
        """The leading new bytes: a safetensors file's length prefix and header."""
        return self.parts[0] if self.parts and isinstance(self.parts[0], bytes) else b""

    def chunks(self, open_file) -> Iterator[bytes]:
        """The content in chunks of at most 16 MiB; ``open_file(path)`` opens a source
        file for reading (the caller's checks: regular file, no blocking)."""
        for part in self.parts:
            if isinstance(part, bytes):
                yield part
                continue
            if isinstance(part, Strided):
                yield part.gather(open_file)
                continue
            with open_file(part.path) as src:
                src.seek(part.start)
                left = part.size
                while left:
                    chunk = src.read(min(left, CHUNK))
                    if not chunk:
                        raise OSError(f"{part.path}: shorter than its header says")
                    left -= len(chunk)
                    yield chunk

    def read(self, start: int, end: int, open_file) -> bytes:
        """Bytes ``[start, end)`` of the content (a tensor the plan inspects: d2t, t2d);
        ``open_file`` as for ``chunks``."""
        out, pos = bytearray(), 0
        for part in self.parts:
            size = len(part) if isinstance(part, bytes) else part.size
            lo, hi = max(start, pos), min(end, pos + size)
            if lo < hi:
                if isinstance(part, bytes | Strided):
                    whole = part if isinstance(part, bytes) else part.gather(open_file)
                    out += whole[lo - pos : hi - pos]
                else:
                    with open_file(part.path) as src:
                        src.seek(part.start + lo - pos)
                        out += src.read(hi - lo)
            pos += size
        return bytes(out)


def _quoted(name: str) -> str:
    """``name`` as JSON writes it (``json.dumps``), without its cost for a plain name."""
    if name.isascii() and name.isprintable() and '"' not in name and "\\" not in name:
        return f'"{name}"'
    return json.dumps(name)


def safetensors_pieces(
    tensors: list[tuple[str, str, tuple[int, ...], Part]], metadata: dict[str, str] | None
) -> Pieces:
    """A safetensors file of ``tensors`` (name, dtype, shape, its data), their data in the
    order given, byte-for-byte reproducible: ``__metadata__`` first with its keys sorted,
    the header as ``json.dumps`` writes it compactly, padded to 8 bytes with spaces.
    Adjacent ranges of one file are one piece (a shard rewritten in its own order is a
    few long copies)."""
    entries = []
    if metadata is not None:
        meta = json.dumps(dict(sorted(metadata.items())), separators=(",", ":"))
        entries.append(f'"__metadata__":{meta}')
    parts: list[Part] = []
    offset = 0
    for name, dtype, shape, part in tensors:
        size = len(part) if isinstance(part, bytes) else part.size
        dims = ",".join(map(str, shape))
        entries.append(
            f'{_quoted(name)}:{{"dtype":"{dtype}","shape":[{dims}],'
            f'"data_offsets":[{offset},{offset + size}]}}'
        )
        last = parts[-1] if parts else None
        if (
            isinstance(part, Range)
            and isinstance(last, Range)
            and last.path == part.path
            and last.end == part.start
        ):
            parts[-1] = Range(part.path, last.start, part.end)
        elif size:
            parts.append(part)
        offset += size
    head = ("{" + ",".join(entries) + "}").encode()
    head += b" " * (-len(head) % 8)
    return Pieces((len(head).to_bytes(8, "little") + head, *parts))
