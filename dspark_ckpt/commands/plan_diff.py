"""What a repair plan changes, as ``fix --diff`` shows it: the config keys before and
after, and each tensor stored otherwise than the source (dropped, cut, renamed, new or
replaced). A tensor whose values are replaced and whose shape stays (a rewritten ``d2t``)
gets a summary of its values: how many entries changed, the first differences and the
range before and after, since its dtype and shape alone say nothing to review."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from dspark_ckpt.record import record
from dspark_ckpt.source.pieces import Range

if TYPE_CHECKING:
    import numpy as np

    from dspark_ckpt.source.checkpoint import Checkpoint
    from dspark_ckpt.source.safetensors import TensorInfo

_MISSING = object()
MAX_SUMMARISED = 1 << 22  # entries: a d2t/t2d or a mask is summarised, never a weight
SHOWN = 3  # first differences shown
NP_DTYPES = {"BOOL": "|b1", "F32": "<f4", "I64": "<i8", "I32": "<i4"}  # little-endian


@record
class KeyChange:
    key: str
    before: Any
    after: Any
    added: bool
    removed: bool


@record
class ValueSummary:
    """How a tensor's values change where its shape stays."""

    changed: int  # entries that differ
    total: int
    first: tuple[tuple[tuple[int, ...], Any, Any], ...]  # (index, before, after): the first
    before_range: tuple[Any, Any]  # (min, max)
    after_range: tuple[Any, Any]


@record
class TensorChange:
    name: str
    action: str  # drop / cut / rename / new / replace
    before: tuple[str, tuple[int, ...], str] | None  # dtype, shape, file
    after: tuple[str, tuple[int, ...], str] | None
    renamed_from: str | None = None
    values: ValueSummary | None = None  # a replaced tensor of the same shape


def config_changes(before: dict, after: dict, prefix: str = "") -> list[KeyChange]:
    out = []
    for key in dict.fromkeys([*before, *after]):
        a, b = before.get(key, _MISSING), after.get(key, _MISSING)
        name = prefix + key
        if isinstance(a, dict) and isinstance(b, dict):
            out += config_changes(a, b, name + ".")
        elif a != b or type(a) is not type(b):
            shown = lambda v: None if v is _MISSING else v  # noqa: E731
            out.append(KeyChange(name, shown(a), shown(b), a is _MISSING, b is _MISSING))
    return out


def tensor_changes(ckpt: Checkpoint, draft) -> list[TensorChange]:
    """Each tensor the draft (``repair.Draft``) stores otherwise than the source: dropped,
    cut, renamed, new or replaced (with its dtype, shape and file before and after)."""

    def where(info: TensorInfo) -> tuple[str, tuple[int, ...], str]:
        return (info.dtype, tuple(info.shape), info.path.name)

    moved = {t.origin for n, t in draft.changed.items() if t is not None and t.origin != n}
    out = []
    for name, t in draft.changed.items():
        src = ckpt.tensors.get(name)
        if t is None:
            if src is not None and name not in moved:
                out.append(TensorChange(name, "drop", where(src), None))
            continue
        after = (t.dtype, t.shape, t.shard)
        if t.origin is not None and t.origin != name:
            origin = ckpt.tensors[t.origin]
            out.append(TensorChange(name, "rename", where(origin), after, t.origin))
        elif t.origin is not None:
            if t.part != Range(src.path, src.start, src.end):
                out.append(TensorChange(name, "cut", where(src), after))
        elif src is None:
            out.append(TensorChange(name, "new", None, after))
        else:
            summary = _summary(ckpt, src, t) if tuple(src.shape) == t.shape else None
            out.append(TensorChange(name, "replace", where(src), after, values=summary))
    return out


def _summary(ckpt: Checkpoint, src: TensorInfo, t) -> ValueSummary | None:
    """The values of ``src`` against the draft's new bytes for it (same shape); None for
    a tensor too large to summarise or of a dtype this does not read."""
    if t.dtype not in NP_DTYPES or src.dtype not in NP_DTYPES or not src.shape:
        return None
    total = math.prod(src.shape)
    if total > MAX_SUMMARISED or isinstance(t.part, Range):
        return None
    import numpy as np  # only where values are compared

    before = np.asarray(ckpt.read(src)).reshape(-1)
    after = np.frombuffer(t.part, dtype=NP_DTYPES[t.dtype])
    differ = np.flatnonzero(before != after)
    first = tuple(
        (tuple(int(x) for x in np.unravel_index(i, src.shape)), before[i].item(), after[i].item())
        for i in differ[:SHOWN]
    )

    def span(a: np.ndarray) -> tuple[Any, Any]:
        return (a.min().item(), a.max().item()) if a.size else (None, None)

    return ValueSummary(int(differ.size), total, first, span(before), span(after))
