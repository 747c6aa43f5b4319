"""The draft: the checkpoint as ``fix``'s repairs leave it (its config, and the tensors
they change, each a range of the source's bytes, new values, or rows copied from the
target's), as ``commands/repair.py`` plans it and the writer stores it."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any, NamedTuple

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.record import record
from dspark_ckpt.rules.repairs import (
    Change,
    Cut,
    DelKey,
    Drop,
    Drops,
    NewConfig,
    Put,
    Rename,
    Rows,
    SetKey,
    TargetRows,
)
from dspark_ckpt.source.checkpoint import Checkpoint
from dspark_ckpt.source.pieces import Range
from dspark_ckpt.source.safetensors import NUMPY_DTYPES, TensorInfo

if TYPE_CHECKING:
    import numpy as np

# the safetensors name of each dtype a Put may hold (little-endian numpy type strings):
# every integer dtype we read (a Put keeps its values' dtype: an int32 one is written I32)
# and the floats; numpy is imported only where an array is written
ST_DTYPES = {v: k for k, v in NUMPY_DTYPES.items()} | {"<f2": "F16", "<f4": "F32", "<f8": "F64"}


def st_dtype(values: np.ndarray) -> str:
    """The safetensors dtype of ``values`` (KeyError for one ``fix`` never writes)."""
    return ST_DTYPES[values.dtype.newbyteorder("<").str]


def array_bytes(values: np.ndarray) -> bytes:
    """An array's data as a safetensors file holds it: contiguous, little-endian."""
    import numpy as np

    return np.ascontiguousarray(values).astype(values.dtype.newbyteorder("<")).tobytes()


class Tensor(NamedTuple):
    """A tensor of the draft: its bytes are ``part`` (a range of the source's, or new)."""

    dtype: str
    shape: tuple[int, ...]
    part: bytes | Range
    shard: str  # the file it will be stored in
    origin: str | None = None  # the source tensor whose bytes these are (None: new bytes)


def _data_order(row: tuple) -> tuple:
    """A rewritten shard keeps its source's data order (its copies stay long runs), new
    tensors after, by name."""
    name, _, _, part = row
    if isinstance(part, Range):
        return (0, str(part.path), part.start)
    return (1, name, 0)


def _source_tensor(info: TensorInfo) -> Tensor:
    part = Range(info.path, info.start, info.end)
    return Tensor(info.dtype, tuple(info.shape), part, info.path.name, info.name)


@record(frozen=False)
class Draft:
    """The checkpoint as the repairs leave it: its config, and the tensors they change
    (``changed``: name -> the tensor now, None where it is gone); every other tensor is
    the source's as it is. Only what changes is held: a header may list a million."""

    ckpt: Checkpoint
    config: dict
    new_shard: str
    changed: dict[str, Tensor | None] = field(default_factory=dict)
    target: Any = None  # the Target whose rows a TargetRows change copies

    @classmethod
    def of(cls, ckpt: Checkpoint, new_shard: str, target: Any = None) -> Draft:
        config = copy.deepcopy(ckpt.config) if isinstance(ckpt.config, dict) else {}
        return cls(ckpt, config, new_shard, target=target)

    def get(self, name: str) -> Tensor | None:
        if name in self.changed:
            return self.changed[name]
        info = self.ckpt.tensors.get(name)
        return None if info is None else _source_tensor(info)

    def shard_tensors(self, shards: set[str]) -> dict[str, list[tuple]]:
        """The tensors each of ``shards`` will hold, as (name, dtype, shape, bytes) in the
        order their data goes: the source's order (long runs to copy), new ones after."""
        out: dict[str, list[tuple]] = {s: [] for s in shards}
        changed = self.changed
        for name, i in self.ckpt.tensors.items():
            if name not in changed and (rows := out.get(i.path.name)) is not None:
                rows.append((name, i.dtype, i.shape, Range(i.path, i.start, i.end)))
        for name, t in changed.items():
            if t is not None and t.shard in out:
                out[t.shard].append((name, t.dtype, t.shape, t.part))
        return {s: sorted(rows, key=_data_order) for s, rows in out.items()}

    @property
    def touched(self) -> set[str]:
        """The files whose tensors change: where a changed tensor was, and where it goes."""
        out = set()
        for name, t in self.changed.items():
            if (info := self.ckpt.tensors.get(name)) is not None:
                out.add(info.path.name)
            if t is not None:
                out.add(t.shard)
        return out

    def apply(self, change: Change) -> None:
        if isinstance(change, SetKey):
            *path, last = change.key.split(".")
            node = self.config
            for part in path:
                if not isinstance(node.get(part), dict):
                    node[part] = {}
                node = node[part]
            node[last] = change.value
        elif isinstance(change, DelKey):
            *path, last = change.key.split(".")
            node = self.config
            for part in path:
                node = node.get(part) if isinstance(node.get(part), dict) else {}
            node.pop(last, None)
        elif isinstance(change, NewConfig):
            self.config = copy.deepcopy(change.config)
        elif isinstance(change, Drop):
            self.changed[change.name] = None
        elif isinstance(change, Drops):
            self.changed.update(dict.fromkeys(change.names))
        elif isinstance(change, Rename):
            self.changed[change.new] = self.get(change.name)
            self.changed[change.name] = None
        elif isinstance(change, Cut):
            old = self.get(change.name)
            size = old.part.size if isinstance(old.part, Range) else len(old.part)
            keep = size * change.rows // old.shape[0]
            part = (
                Range(old.part.path, old.part.start, old.part.start + keep)
                if isinstance(old.part, Range)
                else old.part[:keep]
            )
            self.changed[change.name] = old._replace(shape=(change.rows, *old.shape[1:]), part=part)
        elif isinstance(change, Put):
            import numpy as np

            values = np.asarray(change.values() if callable(change.values) else change.values)
            data = array_bytes(values)
            old = self.get(change.name)
            shard = old.shard if old is not None else self.new_shard
            self.changed[change.name] = Tensor(st_dtype(values), values.shape, data, shard)
        elif isinstance(change, Rows):
            old = self.get(change.name)
            if isinstance(old.part, Range):
                p = old.part
                src = TensorInfo(change.name, old.dtype, old.shape, p.start, p.end, p.path)
                data = read_rows(self.ckpt.origin, src, change.rows)
            else:
                row = len(old.part) // old.shape[0]
                data = b"".join(old.part[r * row : (r + 1) * row] for r in change.rows)
            shape = (len(change.rows), *old.shape[1:])
            self.changed[change.name] = old._replace(shape=shape, part=data)
        elif isinstance(change, TargetRows):
            old = self.get(change.name)
            shard = old.shard if old is not None else change.shard or self.new_shard
            src = change.source
            shape = (len(change.rows), *src.shape[1:])
            data = target_rows(self.target, src, change.rows)
            self.changed[change.name] = Tensor(src.dtype, shape, data, shard)


def target_rows(target: Any, src: TensorInfo, rows: Sequence[int]) -> bytes:
    """``rows`` of the target's tensor ``src``, in that order."""
    ckpt = getattr(target, "checkpoint", None)
    if ckpt is None:
        raise CheckpointError(src.path, "the target's weights are needed to copy its rows")
    return read_rows(ckpt.origin, src, rows)


def read_rows(origin: Any, src: TensorInfo, rows: Sequence[int]) -> bytes:
    """``rows`` of tensor ``src``, in that order: each run of consecutive rows one read by
    offset (a range request for a Hub file), nothing else read."""
    row = src.nbytes // src.shape[0]
    out, i = bytearray(), 0
    while i < len(rows):
        j = i + 1
        while j < len(rows) and rows[j] == rows[j - 1] + 1:
            j += 1
        start = src.start + rows[i] * row
        part = src._replace(start=start, end=start + (j - i) * row, shape=(j - i, *src.shape[1:]))
        out += origin.read_bytes(part)
        i = j
    return bytes(out)
