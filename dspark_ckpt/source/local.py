"""A checkpoint on local disk: a folder, or one ``.safetensors`` file named in it.

Symlinks may lead anywhere inside the source's jail: its folder, or the repo folder of a
Hugging Face cache snapshot read offline (whose files link into ``../../blobs``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.source.base import Source, header_cache, read_whole, told
from dspark_ckpt.source.layout import INDEX, PICKLE_SUFFIXES, convert_command
from dspark_ckpt.source.layout import hub_cache_repo as _hub_cache_repo
from dspark_ckpt.source.safetensors import (
    MAX_JSON_BYTES,
    SafetensorsHeader,
    TensorInfo,
    read_header,
    read_json_file,
    read_tensor_bytes,
)


def inside(path: Path, root: Path) -> Path:
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


def _stat_key(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:  # read_header says why, as for any unreadable file
        return None
    return (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class LocalSource(Source):
    """A folder on local disk (``root``), its symlinks kept inside ``jail`` (default:
    the folder); ``files``: the one weight file the user named, if so."""

    is_local = True

    def __init__(
        self,
        root: Path,
        *,
        name: str | None = None,
        jail: Path | None = None,
        files: list[Path] | None = None,
    ) -> None:
        self._root = root
        self.name = str(root) if name is None else name
        self._jail = jail or root
        self.files = files

    @property
    def root(self) -> Path:
        return self._root

    @property
    def folder(self) -> Path:
        return self._root

    @property
    def jail(self) -> Path:
        return self._jail

    def names(self) -> frozenset[str]:
        return frozenset(os.listdir(self._root))  # one listing, not a stat per shard

    def file_names(self) -> frozenset[str]:
        try:
            return frozenset(p.name for p in self._root.iterdir() if p.is_file())
        except OSError:
            return frozenset()

    def read_json(self, name: str, what: str, limit: int = MAX_JSON_BYTES) -> Any:
        return read_json_file(inside(self.path(name), self._jail), what, limit)

    def weight_path(self, name: str) -> Path:
        return inside(self.path(name), self._jail)

    def read_header(self, path: Path) -> SafetensorsHeader:
        return read_header(path)

    def read_metadata(self, path: Path) -> dict[str, str] | None:
        cache = header_cache.get()
        key = _stat_key(path) if cache is not None else None
        if key is not None and key in cache:  # read this run, unchanged since
            return cache[key].metadata
        return read_header(path).metadata

    def read_tensors(self, paths):
        cache = header_cache.get()
        for path in paths:
            key = _stat_key(path) if cache is not None else None
            if key is not None and key in cache:  # unchanged since it was read this run
                yield cache[key].tensors
                continue
            header = read_header(path)
            if key is not None:
                cache[key] = header
            told(path)
            yield header.tensors

    def read_bytes(self, info: TensorInfo) -> bytearray:
        return read_tensor_bytes(info)

    def read_file(self, name: str, limit: int) -> tuple[Path, bytes]:
        path = self.path(name)
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(Path(os.path.realpath(self._jail))):
            raise CheckpointError(path, "is a symlink leading out of the folder")
        return path, read_whole(path, limit)


def open_local(name: str | Path, *, folder: bool = False) -> LocalSource:
    """A local checkpoint as the user named it: a folder, its index file, or one
    ``.safetensors`` file (its folder's config beside it). ``folder``: any file names the
    folder that holds it (a target: its config and all its weights)."""
    path = Path(name)
    if folder:
        if not path.exists():
            raise UsageError(f"{name}: no such file or directory")
        return LocalSource(path.parent if path.is_file() else path, name=str(name))
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"{name}: no such file or directory")
    if path.is_dir():
        return LocalSource(path, name=str(name))
    if path.name == INDEX:
        return LocalSource(path.parent, name=str(name))
    if path.suffix in PICKLE_SUFFIXES:
        raise CheckpointError(
            path,
            "is a pickle file, never unpickled to be read",
            hint="convert its folder to safetensors, without running the pickle: "
            + convert_command(path.parent),
        )
    if path.suffix != ".safetensors":
        raise UsageError(f"{name}: expected a checkpoint directory or a .safetensors file")
    if (path.parent / INDEX).exists():  # the index, not one file, says what the weights are
        raise UsageError(
            f"{name}: the folder holds {INDEX}, so this file is part of a sharded "
            f"checkpoint: pass the folder ({path.parent})"
        )
    return LocalSource(path.parent, name=str(name), files=[path])
