"""Locating and reading a checkpoint: config plus safetensors headers, nothing more.

A checkpoint is a directory holding ``config.json`` and either ``model.safetensors``
or ``model.safetensors.index.json`` plus its shards, or a single ``.safetensors``
file next to its ``config.json``. Pickle checkpoints are refused, never loaded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from operator import attrgetter
from pathlib import Path, PureWindowsPath
from typing import Any

from dspark_ckpt.errors import CheckpointError, TargetError, UsageError, few
from dspark_ckpt.facts.config import (
    MAX_VOCAB,
    DrafterConfig,
    parse_drafter_config,
    resolve_target_vocab,
)
from dspark_ckpt.facts.target_model import (
    SideFiles,
    TargetModel,
    local_side_files,
    read_target_model,
)
from dspark_ckpt.source.safetensors import (
    MAX_HEADER_BYTES,
    SafetensorsHeader,
    TensorInfo,
    check_readable,
    gc_paused,
    read_array,
    read_header,
    read_json_file,
)

CONFIG = "config.json"
SINGLE = "model.safetensors"
INDEX = "model.safetensors.index.json"
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".pkl", ".ckpt")
HUB_PREFIX = "hf://"  # always a Hub repository
# names are matched as stored, then with these prefixes that trainers add
NAME_PREFIXES = ("", "model.", "model.language_model.", "language_model.model.")

# reads a tensor's bytes; local checkpoints read the file, Hub ones a range request
Fetch = Callable[[TensorInfo], bytes | None]


@dataclass
class Checkpoint:
    source: str  # as the user named it
    root: Path  # the directory that holds it
    config_path: Path
    config: Any  # the parsed config.json
    files: list[Path]  # the safetensors files, in order
    tensors: dict[str, TensorInfo]
    index_path: Path | None = None
    fetch: Fetch = field(default=lambda info: None, repr=False)
    link_root: Path | None = None  # where its symlinks may lead (a Hub cache repo folder)
    side: SideFiles | None = field(default=None, repr=False)  # Hub: its listed top-level files

    def side_files(self) -> SideFiles:
        """Its top-level files beside the weights (tokenizer files): listed on the Hub,
        else the local folder's."""
        return self.side or local_side_files(Path(self.root), self.link_root)

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
        check_readable(info)  # before a fetch, which may download the bytes
        return read_array(info, self.fetch(info))


def _hub_cache_repo(root: Path) -> str | None:
    """``org/name`` when ``root`` is a snapshot of a Hugging Face cache
    (``models--org--name/snapshots/REV``), whose files link into ``../../blobs``."""
    parts = Path(root).parts
    if len(parts) >= 3 and parts[-2] == "snapshots" and parts[-3].startswith("models--"):
        return "/".join(parts[-3].split("--")[1:])
    return None


def _inside(path: Path, root: Path) -> Path:
    """``path`` resolved, refusing a symlink that leads out of ``root``."""
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(Path(os.path.realpath(root))):
        hint = ""
        if (repo := _hub_cache_repo(root)) is not None:
            cache = Path(root).parents[2]
            hint = (
                f"; this is a Hugging Face cache snapshot: pass the repo id {repo} instead "
                f"(HF_HUB_OFFLINE=1 HF_HUB_CACHE={cache} reads it from this cache offline)"
            )
        raise CheckpointError(path, f"is a symlink leading out of the checkpoint (to {real}){hint}")
    return path


def check_shard_name(name: Any, index: Path) -> str:
    """A shard named in an index must be a plain ``.safetensors`` file name."""
    if not isinstance(name, str) or not name:
        raise CheckpointError(index, f"weight_map names a non-string shard {name!r}")
    if (
        "/" in name
        or "\\" in name
        or name in (".", "..")
        or (":" in name and PureWindowsPath(name).drive)  # C:x; UNC paths hold a slash
        or "\0" in name
    ):
        raise CheckpointError(index, f"shard name {name!r} is not a plain file name")
    if not name.endswith(".safetensors"):
        raise CheckpointError(index, f"shard {name!r} is not a .safetensors file")
    return name


def read_index(index: Path) -> dict[str, str]:
    """The ``weight_map`` of a sharded checkpoint's index: tensor name -> shard file name.

    An index names every tensor, as the headers do: it may be as large as a header.
    """
    return parse_index(read_json_file(index, "index", limit=MAX_HEADER_BYTES), index)


def parse_index(data: Any, index: Path) -> dict[str, str]:
    """The ``weight_map`` of an index's parsed JSON, every shard name checked."""
    wmap = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(wmap, dict):
        raise CheckpointError(index, "index has no weight_map object")
    try:
        shards = set(wmap.values())  # a few names, each checked once
    except TypeError:  # a list or an object among them
        shards = [next(v for v in wmap.values() if not isinstance(v, str))]
    for name in shards:
        check_shard_name(name, index)
    return wmap


# told of each safetensors file once its header is read: the CLI's progress bar for
# checkpoints of many shards or on the Hub (set by the caller, never by the library)
on_header: ContextVar[Callable[[Path], None] | None] = ContextVar("on_header", default=None)


# headers already read, by path and stat: ``check`` sets one for its run, so that a target
# shared by many pairs has its headers read once (None: every header is read anew)
header_cache: ContextVar[dict[tuple, SafetensorsHeader] | None] = ContextVar(
    "header_cache", default=None
)


def _stat_key(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:  # read_header says why, as for any unreadable file
        return None
    return (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _read(path: Path, read, cache: dict[tuple, SafetensorsHeader] | None) -> SafetensorsHeader:
    """One file's header: from ``cache`` where the file is unchanged since it was read."""
    key = _stat_key(path) if cache is not None else None
    if key is not None and key in cache:
        return cache[key]
    header = read(path)
    if key is not None:
        cache[key] = header
    if (report := on_header.get()) is not None:
        report(path)
    return header


def _headers(
    files: list[Path],
    read=read_header,
    index: Path | None = None,
    wmap: dict[str, str] | None = None,
) -> dict[str, TensorInfo]:
    """Every tensor of ``files``; ``read`` reads one file's header (local or remote).

    With an ``index`` and its ``wmap``, each file is checked, as it is merged, to hold the
    tensors the index maps to it (in C: the usual case costs little); where it does not,
    ``_check_index_agrees`` says how.
    """
    tensors: dict[str, TensorInfo] = {}
    cache = header_cache.get() if read is read_header else None  # local files only
    agrees = True
    with gc_paused():  # once for all the shards: no collection over the growing whole
        for f in files:
            found = _read(f, read, cache).tensors
            if wmap is not None:
                agrees = agrees and all(map(f.name.__eq__, map(wmap.get, found)))
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


def read_tensors(
    files: list[Path],
    index: Path | None = None,
    wmap: dict[str, str] | None = None,
    read: Callable[[Path], Any] = read_header,
) -> dict[str, TensorInfo]:
    """Every tensor of a checkpoint's ``files``, local or on the Hub (``read`` reads one
    file's header), checked against the ``wmap`` of its ``index`` when it is sharded: the
    one entry the local and the Hub readers share."""
    return _headers(files, read, index, wmap)


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


def pick_weights(names: Iterable[str], where: str | Path) -> tuple[str | None, list[str]]:
    """Which of a checkpoint folder's file ``names`` hold the weights, as vLLM's loader
    decides: ``(index, [])`` when there is an index (its weight_map names the shards);
    else ``(None, every *.safetensors)``: without an index vLLM loads them all, so a stray
    file beside ``model.safetensors`` is part of the checkpoint. Raises for none, and
    for pickle-only folders.
    """
    names = set(names)
    if INDEX in names:
        return INDEX, []
    found = sorted(n for n in names if n.endswith(".safetensors"))
    if found:
        return None, found
    pickles = sorted(n for n in names if n.endswith(PICKLE_SUFFIXES))
    if pickles:
        raise CheckpointError(
            where,
            f"holds only pickle weights ({few(pickles)}); dspark-ckpt never unpickles: "
            "convert the checkpoint to safetensors",
        )
    raise CheckpointError(where, f"no {SINGLE} or {INDEX}")


def _weights(root: Path, jail: Path) -> tuple[list[Path], Path | None, dict[str, str] | None]:
    """The safetensors files of a checkpoint directory, and its index and weight map if
    sharded (read once: the index of a checkpoint of 1M tensors is a 56 MB JSON).

    Symlinks may resolve anywhere inside ``jail`` (the root, or a Hub cache repo folder).
    """
    present = set(os.listdir(root))  # one listing, not a stat per shard
    index_name, found = pick_weights(present, root)
    if index_name is None:
        return [_inside(root / n, jail) for n in found], None, None
    index = _inside(root / index_name, jail)
    wmap = read_index(index)
    names = sorted(set(wmap.values()))
    missing = [n for n in names if n not in present]
    if missing:
        raise CheckpointError(index, f"{len(missing)} missing shard(s): {few(missing)}")
    return [_inside(root / n, jail) for n in names], index, wmap


def locate(source: str | Path) -> tuple[Path, list[Path] | None]:
    """The checkpoint directory for a path, and the weight files when a single file was named."""
    path = Path(source)
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"{source}: no such file or directory")
    if path.is_dir():
        return path, None
    if path.name == INDEX:
        return path.parent, None
    if path.suffix in PICKLE_SUFFIXES:
        raise CheckpointError(
            path, "is a pickle file; dspark-ckpt never unpickles: convert it to safetensors"
        )
    if path.suffix != ".safetensors":
        raise UsageError(f"{source}: expected a checkpoint directory or a .safetensors file")
    if (path.parent / INDEX).exists():  # the index, not one file, says what the weights are
        raise UsageError(
            f"{source}: the folder holds {INDEX}, so this file is part of a sharded "
            f"checkpoint: pass the folder ({path.parent})"
        )
    return path.parent, [path]


def load_checkpoint(
    source: str | Path, *, link_root: Path | None = None, need_config: bool = True
) -> Checkpoint:
    """Read a local checkpoint's config and every safetensors header.

    ``link_root`` is the folder symlinks may resolve into (the repo folder of a Hub
    cache, whose snapshots link into ``blobs/``); by default the checkpoint's own.
    """
    root, files = locate(source)
    jail = link_root or root
    config_path = root / CONFIG
    config = None
    if need_config or config_path.exists():
        config = read_json_file(_inside(config_path, jail), "config")
    index = wmap = None
    if files is None:
        files, index, wmap = _weights(root, jail)
    tensors = _headers(files, index=index, wmap=wmap)
    return Checkpoint(
        str(source), root, config_path, config, files, tensors, index, link_root=link_root
    )


def drafter_config(ckpt: Checkpoint) -> DrafterConfig:
    return parse_drafter_config(ckpt.config, ckpt.config_path)


def local_drafter_config(source: str | Path) -> DrafterConfig:
    """A local drafter's config alone, read as strictly as by ``load_checkpoint``."""
    root, _ = locate(source)
    config_path = _inside(root / CONFIG, root)
    return parse_drafter_config(read_json_file(config_path, "config"), config_path)


@dataclass(frozen=True)
class Target:
    source: str
    vocab_size: int  # Vt
    vocab_key: str | None  # the config key Vt came from
    embedding_rows: int | None  # Et
    embedding_tensor: str | None
    is_omni: bool = False
    checkpoint: Checkpoint | None = field(default=None, repr=False, compare=False)
    root: Path | None = field(default=None, compare=False)  # its local folder, if any
    model: TargetModel | None = None  # its text config's facts (None: --target-vocab-size)
    side: SideFiles | None = field(default=None, repr=False, compare=False)  # tokenizer files


EMBEDDING_NAMES = ("embed_tokens.weight", "lm_head.weight")


def embedding_rows(ckpt: Checkpoint) -> tuple[int, str] | None:
    """``Et``: the fewest rows among the target's input and output embeddings."""
    rows = [
        (info.shape[0], name)
        for name, info in ckpt.tensors.items()
        if name.endswith(EMBEDDING_NAMES) and len(info.shape) == 2
    ]
    return min(rows) if rows else None


def target_from_vocab_size(n: int) -> Target:
    if not 1 <= n <= MAX_VOCAB:  # the bound every config's vocab size is held to
        raise UsageError(f"--target-vocab-size must be an integer in [1, {MAX_VOCAB}], got {n}")
    return Target(f"vocab_size={n}", n, None, None, None)


def load_target(source: str | Path, *, link_root: Path | None = None) -> Target:
    """The target's ``Vt`` from its config and, where it holds weights, ``Et``.

    A target whose vocab size cannot be resolved is a usage error.
    """
    path = Path(source)
    if not path.exists():
        raise UsageError(f"{source}: no such file or directory")
    root = path.parent if path.is_file() else path
    config_path = root / CONFIG
    try:
        cfg = read_json_file(_inside(config_path, link_root or root), "config")
    except CheckpointError as e:
        raise TargetError(e) from None
    ckpt = None
    has_weights = any((root / n).exists() for n in (SINGLE, INDEX)) or any(
        p.suffix == ".safetensors" for p in root.iterdir()
    )
    if has_weights:
        ckpt = load_checkpoint(root, link_root=link_root)
    side = local_side_files(root, link_root)
    return replace(target_from(str(source), cfg, config_path, ckpt, side), root=root)


def target_from(
    source: str,
    cfg: Any,
    config_path: Path,
    ckpt: Checkpoint | None,
    side: SideFiles | None = None,
) -> Target:
    """A Target from its parsed config and, where it has weights, its checkpoint."""
    try:
        vt, key = resolve_target_vocab(cfg, config_path)
        model = read_target_model(cfg, key, config_path)
    except CheckpointError as e:
        raise TargetError(e) from None
    found = embedding_rows(ckpt) if ckpt else None
    return Target(
        source,
        vt,
        key,
        found[0] if found else None,
        found[1] if found else None,
        is_omni=key.startswith("thinker_config"),
        checkpoint=ckpt,
        model=model,
        side=side,
    )


# --- one entry point for a DRAFTER or TARGET, local or on the Hugging Face Hub ------


def is_local(source: str | Path) -> bool:
    """An existing local path always wins over a Hub id (``hf://`` always means the Hub)."""
    if isinstance(source, Path):
        return True
    return not source.startswith(HUB_PREFIX) and os.path.lexists(source)


def open_checkpoint(source: str | Path, *, need_config: bool = True) -> Checkpoint:
    """A drafter as the user named it: a local path (which always wins), or a Hub
    repository ``org/name[@revision]`` / ``hf://org/name[@revision]``."""
    if is_local(source):  # the Hub machinery is not even imported
        return load_checkpoint(source, need_config=need_config)
    from dspark_ckpt.source import hub

    ref = hub.hub_ref(source)
    if ref is None:
        return load_checkpoint(source, need_config=need_config)
    return hub.load_hub_checkpoint(ref, need_config=need_config)


def open_target(source: str | Path) -> Target:
    """A target as the user named it: a local path, or a Hub repository (see above)."""
    if is_local(source):
        return load_target(source)
    from dspark_ckpt.source import hub

    ref = hub.hub_ref(source)
    if ref is None:
        return load_target(source)
    return hub.load_hub_target(ref)
