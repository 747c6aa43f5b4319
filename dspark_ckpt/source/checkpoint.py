"""A checkpoint: its config plus its safetensors headers, nothing more, from any source.

``build_checkpoint`` holds the layout logic once, for every ``Source`` (``base.py``): which
files hold the weights (``layout.pick_weights``), the index and its missing shards, the
headers read in order and checked against the index. ``open_source`` turns what the user
named into a source (an existing local path wins; ``hf://`` is always the Hub);
``open_checkpoint`` reads a drafter from it.
"""

from __future__ import annotations

from array import array
from dataclasses import field
from itertools import repeat
from operator import attrgetter
from pathlib import Path
from typing import Any

from dspark_ckpt.errors import CheckpointError, few
from dspark_ckpt.record import record
from dspark_ckpt.source.base import Source, is_local
from dspark_ckpt.source.layout import (
    CONFIG,
    NAME_PREFIXES,
    holds_weights,
    parse_index,
    pick_weights,
)
from dspark_ckpt.source.local import open_local
from dspark_ckpt.source.safetensors import (
    MAX_HEADER_BYTES,
    TensorInfo,
    check_readable,
    gc_paused,
    read_array,
    read_values,
)

# names are matched as stored, then with these prefixes that trainers add


@record(frozen=False)
class Checkpoint:
    origin: Source = field(repr=False)  # where its files are read from
    root: Path  # the directory that holds it (on the Hub: hf://org/name@commit)
    config_path: Path
    config: Any  # the parsed config.json (None: not read)
    files: list[Path]  # the safetensors files, in order
    tensors: dict[str, TensorInfo]
    index_path: Path | None = None

    @property
    def name(self) -> str:
        """The checkpoint as the user named it."""
        return self.origin.name

    def find(self, name: str) -> TensorInfo | None:
        """A tensor by its unprefixed name (``lm_head.weight``), or None."""
        for prefix in NAME_PREFIXES:
            if (info := self.tensors.get(prefix + name)) is not None:
                return info
        return None

    def aliases(self, name: str) -> list[str]:
        """Every name under which the checkpoint holds ``name`` (its prefixed forms)."""
        return [prefix + name for prefix in NAME_PREFIXES if prefix + name in self.tensors]

    def read(self, info: TensorInfo):
        """The values of a small mapping tensor (``d2t``, ``t2d``) as a numpy array."""
        check_readable(info)  # before the source reads (on the Hub: fetches) its bytes
        return read_array(info, self.origin.read_bytes(info))

    def values(self, info: TensorInfo) -> array:
        """The same values, flat, without numpy (``read_values``): what ``inspect`` reads."""
        check_readable(info)
        return read_values(info, self.origin.read_bytes(info))

    def local_tensors(self, infos: list[TensorInfo]) -> list[TensorInfo]:
        """The same tensors in local files, for loading whole (``verify``): a Hub
        checkpoint's files that hold them are downloaded into the cache, and must hold
        them exactly as the headers read said."""
        return self.origin.local_tensors(infos)


def _weights(
    source: Source, weights: bool
) -> tuple[list[Path], Path | None, dict[str, str] | None]:
    """A checkpoint's safetensors files, and its index and weight map if sharded (read
    once: the index of a checkpoint of 1M tensors is a 56 MB JSON). ``weights``: refuse a
    folder without any (else: no files)."""
    names = source.names()  # one listing, not a stat per shard
    if not weights and not holds_weights(names):
        return [], None, None
    index_name, found = pick_weights(names, source.root)
    if index_name is None:
        return [source.weight_path(n) for n in found], None, None
    index = source.path(index_name)
    wmap = parse_index(source.read_json(index_name, "index", MAX_HEADER_BYTES), index)
    shards = sorted(set(wmap.values()))
    missing = [n for n in shards if n not in names]
    if missing:
        raise CheckpointError(index, f"{len(missing)} missing shard(s): {few(missing)}")
    return [source.weight_path(n) for n in shards], index, wmap


def _headers(
    source: Source,
    files: list[Path],
    index: Path | None = None,
    wmap: dict[str, str] | None = None,
) -> dict[str, TensorInfo]:
    """Every tensor of ``files``, their headers read by ``source`` in order.

    With an ``index`` and its ``wmap``, each file is checked, as it is merged, to hold the
    tensors the index maps to it (in C: the usual case costs little); where it does not,
    ``_check_index_agrees`` says how.
    """
    tensors: dict[str, TensorInfo] = {}
    agrees = True
    with gc_paused():  # once for all the shards: no collection over the growing whole
        for f, found in zip(files, source.read_tensors(files), strict=True):
            if wmap is not None:
                # ``wmap.get(name, "")``: a name the index lacks disagrees (None would compare as
                # NotImplemented, which is truthy)
                agrees = agrees and all(map(f.name.__eq__, map(wmap.get, found, repeat(""))))
            if len(files) == 1:  # its own dict: a single file of 1M tensors is not copied
                tensors = found
                break
            if not found.keys().isdisjoint(tensors.keys()):  # views: iterates the smaller
                name = next(n for n in found if n in tensors)
                raise CheckpointError(
                    f, f"tensor {name!r} is also stored in {tensors[name].path.name}"
                )
            tensors.update(found)
    if wmap is not None and not (agrees and len(tensors) == len(wmap)):
        _check_index_agrees(index, wmap, tensors)
    return tensors


_PATH = attrgetter("path")


def _check_index_agrees(index: Path, wmap: dict[str, str], tensors: dict[str, TensorInfo]) -> None:
    if wmap.keys() != tensors.keys():
        missing = sorted(n for n in wmap if n not in tensors)
        if missing:
            raise CheckpointError(
                index, f"{len(missing)} tensor(s) in weight_map but in no shard: {few(missing)}"
            )
        unlisted = sorted(n for n in tensors if n not in wmap)
        raise CheckpointError(
            index, f"{len(unlisted)} tensor(s) in shards but not in weight_map: {few(unlisted)}"
        )
    # in C, a million times over: each tensor's shard name, through its file's one path
    # object (a Path hashes in Python), then one comparison of the two maps
    paths = list(map(_PATH, tensors.values()))
    by_id = dict(zip(map(id, paths), paths, strict=True))
    name_of = {key: path.name for key, path in by_id.items()}
    stored = dict(zip(tensors, map(name_of.__getitem__, map(id, paths)), strict=True))
    if stored == wmap:
        return
    n = min(n for n, shard in wmap.items() if stored[n] != shard)
    raise CheckpointError(
        index, f"weight_map puts {n!r} in {wmap[n]} but it is stored in {stored[n]}"
    )


def build_checkpoint(
    source: Source,
    *,
    need_config: bool = True,
    weights: bool = True,
    files: list[Path] | None = None,
) -> Checkpoint:
    """A checkpoint's config and every safetensors header, read from ``source``.

    ``need_config``: a missing config.json is an error (else it is read if there).
    ``weights``: a folder without weights is an error (else the checkpoint has no files:
    a target's config alone gives its vocab size). ``files``: read these weight files
    (else those the user named, else those the folder's layout names).
    """
    source.prepare(weights=weights)
    config_path = source.path(CONFIG)
    config = None
    if need_config or CONFIG in source.names():
        config = source.read_json(CONFIG, "config")
    index = wmap = None
    files = files if files is not None else source.files
    if files is None:
        files, index, wmap = _weights(source, weights)
    tensors = _headers(source, files, index, wmap)
    return Checkpoint(source, source.root, config_path, config, files, tensors, index)


def open_source(name: str | Path, *, folder: bool = False) -> Source:
    """What the user named: a local path (which always wins), or a Hub repository
    ``org/name[@revision]`` / ``hf://org/name[@revision]``. ``folder``: a local file
    names the folder that holds it (a target). Nothing is read from the Hub yet."""
    if is_local(name):  # the Hub machinery is not even imported
        return open_local(name, folder=folder)
    from dspark_ckpt.source import hub

    ref = hub.hub_ref(name)
    if ref is None:
        return open_local(name, folder=folder)
    return hub.HubSource(ref)


def open_checkpoint(name: str | Path, *, need_config: bool = True) -> Checkpoint:
    """A drafter as the user named it (``open_source``): its config and every header."""
    return build_checkpoint(open_source(name), need_config=need_config)


def load_checkpoint(name: str | Path, *, need_config: bool = True) -> Checkpoint:
    """A local checkpoint (a folder, or one ``.safetensors`` file), never the Hub."""
    return build_checkpoint(open_local(name), need_config=need_config)


def local_checkpoint(ckpt: Checkpoint) -> Checkpoint:
    """For ``fix --out``, which copies every file: a checkpoint read from the Hub online,
    with its config, index and weight files downloaded into the Hub cache, read there as
    a local checkpoint. One on local disk already (or read from the cache offline) is
    returned as it is."""
    config = ckpt.config_path if ckpt.config is not None else None
    names = [p.name for p in (config, ckpt.index_path, *ckpt.files) if p is not None]
    local = ckpt.origin.localized(names)
    if local is ckpt.origin:
        return ckpt
    return build_checkpoint(local, need_config=ckpt.config is not None)
