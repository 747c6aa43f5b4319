"""PyTorch pickle checkpoints, read without running them.

``torch.save`` (torch >= 1.6) writes a zip: ``ARCHIVE/data.pkl`` (a pickle of the state
dict), ``ARCHIVE/data/KEY`` (each storage's raw bytes, uncompressed), ``ARCHIVE/byteorder``.
The pickle is read by an unpickler that resolves only the globals a state dict needs
(``ALLOWED``) to functions of our own, which build descriptions, never tensors; any other
global is refused by name before it could be called. Storages are never loaded: a tensor
is a byte range of the zip entry that holds its storage (a ``Range``), so converting a
checkpoint to safetensors streams those bytes (``source/pieces.py``); a non-contiguous
one is gathered when it is written (a ``Strided``): one tensor in memory at a time.

Bounded: the pickle's size (``MAX_PICKLE_BYTES``), its stack and open marks, its memo
(``_prescan``, before anything is built), a storage's declared size against its zip entry,
a tensor's extent against its storage, compressed entries (torch never compresses: a
compressed entry is refused, so no zip bomb is inflated).
"""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import pickletools
import struct
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any, NamedTuple

from dspark_ckpt.errors import CheckpointError, few
from dspark_ckpt.record import record
from dspark_ckpt.source.layout import PICKLE_SUFFIXES, SINGLE
from dspark_ckpt.source.local import inside
from dspark_ckpt.source.pieces import Part, Pieces, Range, Strided, safetensors_pieces
from dspark_ckpt.source.safetensors import open_regular, read_json_file

MAX_PICKLE_BYTES = 100_000_000  # data.pkl: as a safetensors header
MAX_STACK = 100_000  # objects on the unpickler's stack at once
MAX_MARKS = 64  # marks open at once (nesting)
MAX_MEMO = 10_000_000  # memo entries
MAX_NESTING = 4  # {"model": {"state_dict": ...}}: dicts around the state dict
# the keys a state dict is found under (SpecForge's training_state.pt: draft_state_dict)
WRAPPERS = ("state_dict", "model", "module", "model_state_dict", "draft_state_dict")

# torch's typed storages: safetensors dtype, bytes per element, numpy dtype of the raw bits
STORAGES = {
    "BFloat16Storage": ("BF16", 2, "<u2"),
    "HalfStorage": ("F16", 2, "<f2"),
    "FloatStorage": ("F32", 4, "<f4"),
    "DoubleStorage": ("F64", 8, "<f8"),
    "LongStorage": ("I64", 8, "<i8"),
    "IntStorage": ("I32", 4, "<i4"),
    "ShortStorage": ("I16", 2, "<i2"),
    "CharStorage": ("I8", 1, "|i1"),
    "ByteStorage": ("U8", 1, "|u1"),
    "BoolStorage": ("BOOL", 1, "|u1"),
}
STORAGES_NP = {dtype: np_dtype for dtype, _, np_dtype in STORAGES.values()}


class StorageType(NamedTuple):
    name: str  # torch.BFloat16Storage


class Storage(NamedTuple):
    key: str
    dtype: str
    itemsize: int
    numel: int
    start: int  # absolute file offset of its bytes


class TensorRef(NamedTuple):
    storage: Storage
    offset: int  # in elements
    shape: tuple[int, ...]
    stride: tuple[int, ...]


def _ints(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, tuple) or not all(type(v) is int and v >= 0 for v in value):
        raise ValueError(f"a tensor's {what} is not a tuple of non-negative integers")
    return value


def _rebuild_tensor(storage, offset, size, stride, *_rest) -> TensorRef:
    """``torch._utils._rebuild_tensor_v2`` (and ``_rebuild_tensor``), as a description."""
    if not isinstance(storage, Storage):
        raise ValueError("a tensor is rebuilt from something that is not a storage")
    if type(offset) is not int or offset < 0:
        raise ValueError("a tensor's storage offset is not a non-negative integer")
    shape, stride = _ints(size, "size"), _ints(stride, "stride")
    if len(shape) != len(stride):
        raise ValueError("a tensor's size and stride differ in length")
    if math.prod(shape) and offset + sum(
        (n - 1) * s for n, s in zip(shape, stride, strict=True)
    ) >= (storage.numel):
        raise ValueError(f"a tensor reaches past the end of its storage {storage.key}")
    return TensorRef(storage, offset, shape, stride)


def _rebuild_parameter(data, *_rest) -> TensorRef:
    """``torch._utils._rebuild_parameter``: an ``nn.Parameter`` is its data."""
    if not isinstance(data, TensorRef):
        raise ValueError("a parameter is rebuilt from something that is not a tensor")
    return data


# module, name -> what it resolves to: nothing else is ever looked up
ALLOWED: dict[tuple[str, str], Any] = {
    ("collections", "OrderedDict"): OrderedDict,
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
    ("torch._utils", "_rebuild_tensor"): _rebuild_tensor,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    **{("torch", name): StorageType(name) for name in STORAGES},
}


class _Refused(Exception):
    pass


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, storage) -> None:
        super().__init__(io.BytesIO(data))
        self._storage = storage

    def find_class(self, module: str, name: str) -> Any:
        found = ALLOWED.get((module, name))
        if found is None:  # named, bounded: a pickle may name a megabyte-long global
            said = f"{module}.{name}"
            raise _Refused(said if len(said) <= 120 else said[:100] + "[...]")
        return found

    def persistent_load(self, pid: Any) -> Storage:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise ValueError("a persistent id that is not a storage")
        _, kind, key, _location, numel = pid
        if not isinstance(kind, StorageType):
            raise ValueError("a storage of no known type")
        if not isinstance(key, str) or type(numel) is not int or numel < 0:
            raise ValueError("a storage with a malformed key or size")
        return self._storage(kind, key, numel)


def _prescan(data: bytes) -> None:
    """Walk the pickle's opcodes (nothing built, nothing called) and refuse one whose
    stack, open marks or memo grow past the bounds, or that is malformed."""
    stack, marks, memo = 0, [], 0
    mark = pickletools.markobject
    for op, _arg, _pos in pickletools.genops(data):
        before = op.stack_before
        if mark in before:
            if not marks:
                raise ValueError("a mark is closed that was never opened")
            stack = marks.pop()
            before = before[before.index(mark) + 1 :]
        stack = max(0, stack - len(before))
        if op.name == "MARK":
            marks.append(stack)
            if len(marks) > MAX_MARKS:
                raise ValueError(f"nested deeper than {MAX_MARKS} levels")
        else:
            stack += len(op.stack_after)
        if op.name in ("PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"):
            memo += 1
        if stack > MAX_STACK or memo > MAX_MEMO:
            raise ValueError("its stack or memo grows past the bounds")


@record
class TorchFile:
    """One pickle checkpoint's tensors: name -> (dtype, shape, their bytes as a part)."""

    path: Path
    tensors: dict[str, tuple[str, tuple[int, ...], Part]]


def _entries(path: Path, f) -> tuple[str, dict[str, zipfile.ZipInfo]]:
    """The archive's prefix (``ARCHIVE/``) and its entries by name."""
    head = f.read(4)
    f.seek(0)
    if head != b"PK\x03\x04":
        legacy = "the legacy format of torch < 1.6" if head[:1] == b"\x80" else "not a zip"
        raise CheckpointError(
            path,
            f"is a pickle checkpoint in {legacy}; dspark-ckpt reads only torch's zip format "
            "(torch >= 1.6 writes it): re-save it with a current torch",
        )
    try:
        infos = zipfile.ZipFile(f).infolist()
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
        raise CheckpointError(path, f"is not a readable zip archive ({e})") from None
    pkl = [i.filename for i in infos if i.filename.endswith("data.pkl")]
    pkl = [n for n in pkl if n.count("/") == 1 and n.split("/")[1] == "data.pkl"]
    if len(pkl) != 1:
        raise CheckpointError(path, "is a zip without a torch archive's data.pkl")
    return pkl[0][: -len("data.pkl")], {i.filename: i for i in infos}


def _data_start(path: Path, f, info: zipfile.ZipInfo, size: int) -> int:
    """Where a stored entry's bytes start; refused if compressed or past the file."""
    if info.compress_type != zipfile.ZIP_STORED:
        raise CheckpointError(
            path, f"entry {info.filename} is compressed (torch never compresses); refused"
        )
    f.seek(info.header_offset)
    local = f.read(30)
    if len(local) != 30 or local[:4] != b"PK\x03\x04":
        raise CheckpointError(path, f"entry {info.filename} has no local header")
    n, extra = struct.unpack("<HH", local[26:30])
    start = info.header_offset + 30 + n + extra
    if start + info.file_size > size:
        raise CheckpointError(path, f"entry {info.filename} runs past the end of the file")
    return start


def read_torch_zip(path: Path) -> TorchFile:
    """The state dict of the pickle checkpoint at ``path``, described, not loaded.
    Raises ``CheckpointError`` naming ``path``: a global outside ``ALLOWED`` (by name), a
    legacy or malformed file, a storage larger than its entry, no state dict."""
    fd = open_regular(path)  # a FIFO or device: refused without blocking
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        prefix, entries = _entries(path, f)
        order = entries.get(prefix + "byteorder")
        if order is not None:
            f.seek(_data_start(path, f, order, size))
            if f.read(min(order.file_size, 16)) != b"little":
                raise CheckpointError(path, "stores big-endian tensors; refused")
        pkl = entries[prefix + "data.pkl"]
        if pkl.file_size > MAX_PICKLE_BYTES:
            raise CheckpointError(path, f"data.pkl is over the {MAX_PICKLE_BYTES} byte limit")
        f.seek(_data_start(path, f, pkl, size))
        data = f.read(pkl.file_size)
        storages: dict[str, Storage] = {}

        def storage(kind: StorageType, key: str, numel: int) -> Storage:
            dtype, itemsize, _ = STORAGES[kind.name]
            if key in storages:  # shared: two tensors on one storage
                return storages[key]
            entry = entries.get(f"{prefix}data/{key}")
            if entry is None:
                raise ValueError(f"storage {key} has no entry data/{key}")
            if numel * itemsize > entry.file_size:
                raise ValueError(
                    f"storage {key} declares {numel * itemsize} bytes; its entry holds "
                    f"{entry.file_size}"
                )
            storages[key] = Storage(key, dtype, itemsize, numel, _data_start(path, f, entry, size))
            return storages[key]

        try:
            _prescan(data)
            obj = _Unpickler(data, storage).load()
        except _Refused as e:
            raise CheckpointError(
                path,
                f"refused: its pickle asks for the global {e}, which is no part of a state "
                "dict; nothing in it was run",
            ) from None
        except CheckpointError:
            raise
        except Exception as e:  # a malformed pickle: any error the unpickler raises
            raise CheckpointError(path, f"has a malformed pickle: {_say(e)}") from None
        state = _state_dict(obj, path)
        return TorchFile(path, {name: _tensor(path, t) for name, t in state.items()})


def _say(e: Exception) -> str:
    text = str(e).splitlines()[0] if str(e) else type(e).__name__
    return text[:200]


def _state_dict(obj: Any, path: Path) -> dict[str, TensorRef]:
    """The dict of tensors: ``obj`` itself, or under ``state_dict`` / ``model`` /
    ``module``; a ``module.`` prefix on every name (DataParallel) dropped."""
    for _ in range(MAX_NESTING + 1):
        if not isinstance(obj, dict):
            raise CheckpointError(path, "holds no dict of tensors")
        bad = [k for k, v in obj.items() if not (isinstance(k, str) and type(v) is TensorRef)]
        if not bad:
            break
        inner = next((k for k in WRAPPERS if isinstance(obj.get(k), dict)), None)
        if inner is None:
            raise CheckpointError(
                path,
                f"holds no state dict: {few([repr(k)[:60] for k in bad])} are not tensors "
                f"(a dict of tensors is converted, or one under {', '.join(WRAPPERS)})",
            )
        obj = obj[inner]
    else:
        raise CheckpointError(path, f"nests its state dict deeper than {MAX_NESTING} levels")
    if obj and all(k.startswith("module.") for k in obj):
        obj = {k.removeprefix("module."): v for k, v in obj.items()}
    return dict(obj)


def _contiguous(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    expected = 1
    for n, s in zip(reversed(shape), reversed(stride), strict=True):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def _tensor(path: Path, t: TensorRef) -> tuple[str, tuple[int, ...], Part]:
    """A tensor's dtype, shape and bytes: a range of the file where it is contiguous,
    else its elements, gathered in order only when written (``Strided``)."""
    s = t.storage
    numel = math.prod(t.shape)
    start = s.start + t.offset * s.itemsize
    if numel == 0:
        return s.dtype, t.shape, b""
    if _contiguous(t.shape, t.stride):
        return s.dtype, t.shape, Range(path, start, start + numel * s.itemsize)
    return s.dtype, t.shape, Strided(path, start, t.shape, t.stride, STORAGES_NP[s.dtype])


def safetensors_of(files: list[TorchFile]) -> list[Pieces]:
    """Each file's tensors as a safetensors file's pieces, data in file order."""

    def order(row):
        part = row[3]
        return (0, part.start) if isinstance(part, Range) else (1, 0)

    out = []
    for tf in files:
        rows = sorted(((n, *v) for n, v in tf.tensors.items()), key=order)
        out.append(safetensors_pieces(rows, {"format": "pt"}))
    return out


PICKLE_INDEX = "pytorch_model.bin.index.json"
PICKLE_SINGLE = "pytorch_model.bin"
# SpecForge's training checkpoint: the shared payload, beside each rank's RNG state
TRAINING_STATE = "training_state.pt"


def safetensors_name(name: str) -> str:
    """The safetensors file a pickle converts to, as transformers names them:
    ``pytorch_model.bin`` -> ``model.safetensors``, ``pytorch_model-00001-of-00002.bin``
    -> ``model-00001-of-00002.safetensors``, ``drafter.pt`` -> ``drafter.safetensors``."""
    stem = name.rsplit(".", 1)[0]
    if stem.startswith("pytorch_model"):
        stem = "model" + stem.removeprefix("pytorch_model")
    return stem + ".safetensors"


@record
class Conversion:
    """A pickle checkpoint's weights as safetensors files: name -> pieces (in order),
    the index to write (None for one file), and what was read."""

    files: dict[str, Pieces]
    index: bytes | None
    sources: list[Path]
    tensors: int


def plan_conversion(folder: Path, names: list[str], jail: Path | None = None) -> Conversion:
    """The safetensors files of the pickle checkpoint in ``folder`` (its file ``names``):
    the shards its ``pytorch_model.bin.index.json`` names, else ``pytorch_model.bin``,
    else SpecForge's ``training_state.pt``, else its one pickle file. Every shard is read (its pickle, never run) and checked
    against the index before anything is written. ``jail``: where its files may lead (a
    Hub cache snapshot's links lead into its repository's blobs), else ``folder``."""
    jail = jail or folder
    wmap = None
    if PICKLE_INDEX in names:
        index = inside(folder / PICKLE_INDEX, jail)
        data = read_json_file(index, "index")
        wmap = data.get("weight_map") if isinstance(data, dict) else None
        if not isinstance(wmap, dict) or not all(isinstance(v, str) for v in wmap.values()):
            raise CheckpointError(index, "index has no weight_map object of file names")
        shards = sorted(set(wmap.values()))
        for n in shards:
            if "/" in n or "\\" in n or n.startswith(".") or not n.endswith(PICKLE_SUFFIXES):
                raise CheckpointError(index, f"shard name {n!r} is not a plain pickle file name")
    elif PICKLE_SINGLE in names:
        shards = [PICKLE_SINGLE]
    elif TRAINING_STATE in names:
        shards = [TRAINING_STATE]
    else:
        shards = sorted(n for n in names if n.endswith(PICKLE_SUFFIXES))
        if len(shards) != 1:
            raise CheckpointError(
                folder,
                f"holds several pickle files ({few(shards)}) and no {PICKLE_INDEX}: which "
                "are the weights?",
            )
    read = [read_torch_zip(inside(folder / n, jail)) for n in shards]
    if wmap is not None:
        stored = {t: tf.path.name for tf in read for t in tf.tensors}
        if stored != wmap:
            diff = sorted(set(stored.items()) ^ set(wmap.items()))
            raise CheckpointError(
                folder / PICKLE_INDEX,
                f"weight_map disagrees with the shards on {few([d[0] for d in diff])}",
            )
    pieces = safetensors_of(read)
    files = {safetensors_name(tf.path.name): p for tf, p in zip(read, pieces, strict=True)}
    index_bytes = None
    if wmap is not None:
        total = sum(p.size - len(p.head) for p in pieces)
        new_map = {t: safetensors_name(s) for t, s in sorted(stored.items())}
        doc = {"metadata": {"total_size": total}, "weight_map": new_map}
        index_bytes = (json.dumps(doc, indent=2) + "\n").encode()
    elif len(files) == 1:
        files = {SINGLE: next(iter(files.values()))}
    count = sum(len(tf.tensors) for tf in read)
    return Conversion(files, index_bytes, [tf.path for tf in read], count)
